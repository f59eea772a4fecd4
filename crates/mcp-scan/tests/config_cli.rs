//! Living with findings, end to end with the real binary: `mcp-scan.toml` (project and user),
//! `config show`, rule selection, the baseline (`--write-baseline`, `--baseline`, expiry,
//! stale entries) and inline `mcp-scan: ignore[...]` comments, as every format shows them.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A project folder holding a copy of the leaky fixture server under `srv/` (four static
/// findings: S001, S010 and S014 at HIGH, S015 at MEDIUM).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir_all(dir.path().join("srv")).expect("mkdir");
    std::fs::copy(
        repo().join("fixtures/python/leaky_server/server.py"),
        dir.path().join("srv/server.py"),
    )
    .expect("copy fixture");
    std::fs::create_dir_all(dir.path().join("home")).expect("home");
    dir
}

/// `mcp-scan ARGS` run from `dir`, with HOME and the user configuration folder inside it.
fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(args)
        .current_dir(dir)
        .env("HOME", dir.join("home"))
        .env("XDG_CONFIG_HOME", dir.join("home/.config"))
        .env("XDG_CACHE_HOME", dir.join("home/cache"))
        .env("XDG_DATA_HOME", dir.join("home/data"))
        .env_remove("MCP_SCAN_LLM_PROVIDER")
        .env_remove("MCP_SCAN_LLM_BASE_URL")
        .env_remove("MCP_SCANNER_LLM_BASE_URL")
        .env_remove("NO_COLOR")
        .output()
        .expect("run mcp-scan")
}

fn raw(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "one JSON document ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn rules_of(report: &Value) -> Vec<String> {
    let mut v: Vec<String> = report["entities"]
        .as_array()
        .expect("entities")
        .iter()
        .flat_map(|e| e["findings"].as_array().cloned().unwrap_or_default())
        .map(|f| f["rule_id"].as_str().unwrap_or("").to_string())
        .collect();
    v.sort();
    v
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn config_show_prints_every_value_and_the_file_it_came_from() {
    let dir = project();
    std::fs::write(
        dir.path().join("mcp-scan.toml"),
        "fail-on = \"medium\"\n\n[rules]\nignore = [\"S015\"]\n\n[llm]\nprovider = \"openai\"\napi-key-env = \"TEAM_LLM_KEY\"\n",
    )
    .expect("project config");
    let user = dir.path().join("home/.config/mcp-scan");
    std::fs::create_dir_all(&user).expect("mkdir");
    std::fs::write(
        user.join("config.toml"),
        "fail-on = \"low\"\nformat = \"detailed\"\ntimeout = 30\n",
    )
    .expect("user config");
    let out = run(dir.path(), &["config", "show", "srv"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let root = dir.path().canonicalize().expect("canon");
    let text = String::from_utf8_lossy(&out.stdout)
        .replace(&root.display().to_string(), "[DIR]")
        .replace(&dir.path().display().to_string(), "[DIR]");
    insta::assert_snapshot!("config_show_project_over_user", text);
    assert!(!text.contains("sk-"), "no secret is ever shown");
}

#[test]
fn an_unknown_key_is_an_error_naming_the_file_and_line_not_ignored() {
    let dir = project();
    std::fs::write(
        dir.path().join("mcp-scan.toml"),
        "format = \"raw\"\n\n[rules]\nselect = [\"S\"]\nignroe = [\"S015\"]\n",
    )
    .expect("config");
    let out = run(dir.path(), &["scan", "srv"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("mcp-scan.toml") && e.contains("line 5") && e.contains("ignroe"),
        "{e}"
    );
    // A key in the file is refused too, and never echoed.
    std::fs::write(
        dir.path().join("mcp-scan.toml"),
        "[llm]\napi-key = \"sk-live-123\"\n",
    )
    .expect("config");
    let out = run(dir.path(), &["scan", "srv"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("api-key-env") && !stderr(&out).contains("sk-live-123"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_project_file_sets_fail_on_and_the_command_line_overrides_it() {
    let dir = project();
    // Only the MEDIUM finding is selected: with the default fail-on (high) the scan passes.
    std::fs::write(
        dir.path().join("mcp-scan.toml"),
        "[rules]\nselect = [\"S015\"]\n",
    )
    .expect("config");
    assert_eq!(run(dir.path(), &["scan", "srv"]).status.code(), Some(0));
    std::fs::write(
        dir.path().join("mcp-scan.toml"),
        "fail-on = \"medium\"\n[rules]\nselect = [\"S015\"]\n",
    )
    .expect("config");
    assert_eq!(run(dir.path(), &["scan", "srv"]).status.code(), Some(3));
    assert_eq!(
        run(dir.path(), &["scan", "--fail-on", "high", "srv"])
            .status
            .code(),
        Some(0),
        "the command line beats the project file"
    );
    assert_eq!(
        run(dir.path(), &["scan", "--no-config", "srv"])
            .status
            .code(),
        Some(3),
        "--no-config: every rule, default fail-on"
    );
}

#[test]
fn a_config_selecting_every_rule_changes_nothing_and_ignore_is_counted() {
    let dir = project();
    let plain = run(dir.path(), &["scan", "-f", "raw", "srv"]);
    std::fs::write(
        dir.path().join("mcp-scan.toml"),
        "[rules]\nselect = [\"MCPS-\"]\n",
    )
    .expect("config");
    let all = run(dir.path(), &["scan", "-f", "raw", "srv"]);
    assert_eq!(plain.status.code(), all.status.code());
    assert_eq!(raw(&plain), raw(&all), "selecting every rule is no change");

    let ignored = run(dir.path(), &["scan", "-f", "raw", "--ignore", "S01", "srv"]);
    let r = raw(&ignored);
    assert_eq!(rules_of(&r), vec!["MCPS-S001".to_string()]);
    assert_eq!(r["suppressions"]["deselected"]["MCPS-S010"], 1);
    assert_eq!(r["suppressions"]["deselected"]["MCPS-S014"], 1);
    assert_eq!(r["suppressions"]["deselected"]["MCPS-S015"], 1);
}

fn write_baseline(dir: &Path, args: &[&str]) -> String {
    let mut a = vec!["scan", "--write-baseline", "baseline.toml"];
    a.extend_from_slice(args);
    a.push("srv");
    let out = run(dir, &a);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wrote 4 baseline entries"),
        "{}",
        stderr(&out)
    );
    std::fs::read_to_string(dir.join("baseline.toml")).expect("baseline written")
}

#[test]
fn a_written_baseline_suppresses_every_finding_and_survives_a_line_shift() {
    let dir = project();
    let text = write_baseline(dir.path(), &[]);
    assert_eq!(text.matches("[[finding]]").count(), 4);
    assert!(text.contains("reason = \"TODO"));
    insta::assert_snapshot!("written_baseline", text);

    let out = run(
        dir.path(),
        &["scan", "-f", "raw", "--baseline", "baseline.toml", "srv"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = raw(&out);
    assert!(rules_of(&r).is_empty());
    assert_eq!(r["summary"]["suppressed"], 4);
    assert_eq!(
        r["suppressions"]["suppressed"].as_array().map(Vec::len),
        Some(4)
    );
    assert!(r["suppressions"].get("stale").is_none());
    assert!(
        stderr(&out).contains("gives no reason"),
        "the placeholder reason is a warning: {}",
        stderr(&out)
    );

    // Lines shift (a new import and comment at the top): still the same findings.
    let src = dir.path().join("srv/server.py");
    let code = std::fs::read_to_string(&src).expect("read");
    std::fs::write(&src, format!("# a new header\n\nimport sys\n\n{code}")).expect("write");
    let out = run(
        dir.path(),
        &["scan", "-f", "raw", "--baseline", "baseline.toml", "srv"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = raw(&out);
    assert_eq!(r["summary"]["suppressed"], 4);
    assert!(r["suppressions"].get("stale").is_none());

    // The flagged line itself changes: that finding is new, its old entry stale.
    let code = std::fs::read_to_string(&src).expect("read");
    std::fs::write(
        &src,
        code.replace(
            "with open(key_path) as f:",
            "with open(key_path, \"r\") as f:",
        ),
    )
    .expect("write");
    let out = run(
        dir.path(),
        &["scan", "-f", "raw", "--baseline", "baseline.toml", "srv"],
    );
    assert_eq!(out.status.code(), Some(3));
    let r = raw(&out);
    assert_eq!(rules_of(&r), vec!["MCPS-S014".to_string()]);
    assert_eq!(r["suppressions"]["stale"][0]["rule"], "MCPS-S014");
}

#[test]
fn a_baseline_entry_for_another_server_suppresses_nothing() {
    let dir = project();
    write_baseline(dir.path(), &["--server-name", "notes-a"]);
    let out = run(
        dir.path(),
        &[
            "scan",
            "-f",
            "raw",
            "--server-name",
            "notes-b",
            "--baseline",
            "baseline.toml",
            "srv",
        ],
    );
    assert_eq!(out.status.code(), Some(3));
    let r = raw(&out);
    assert_eq!(rules_of(&r).len(), 4);
    assert!(r["summary"].get("suppressed").is_none());
    assert_eq!(r["suppressions"]["stale"].as_array().map(Vec::len), Some(4));
}

#[test]
fn an_expired_entry_stops_suppressing_and_says_so() {
    let dir = project();
    let text = write_baseline(dir.path(), &[]);
    // Give every entry a reason; the S014 one expired long ago, the others last for ages.
    let mut out_text = String::new();
    for block in text.split("[[finding]]").skip(1) {
        let mut b = block.replace(
            "reason = \"TODO: say why this finding is accepted\"",
            "reason = \"accepted for the demo\"",
        );
        let expires = if b.contains("MCPS-S014") {
            "2000-01-01"
        } else {
            "2999-12-31"
        };
        b.push_str(&format!("expires = \"{expires}\"\n"));
        out_text.push_str("[[finding]]");
        out_text.push_str(&b);
    }
    std::fs::write(dir.path().join("baseline.toml"), out_text).expect("write");
    let out = run(
        dir.path(),
        &["scan", "-f", "raw", "--baseline", "baseline.toml", "srv"],
    );
    assert_eq!(out.status.code(), Some(3), "the expired HIGH counts again");
    let summary = run(
        dir.path(),
        &[
            "scan",
            "--color",
            "never",
            "--baseline",
            "baseline.toml",
            "srv",
        ],
    );
    let t = String::from_utf8_lossy(&summary.stdout);
    insta::assert_snapshot!(
        "expired_baseline_summary",
        &t[t.find("Suppressed:").expect("suppressed section")..]
    );
    assert!(
        !stderr(&out).contains("gives no reason"),
        "{}",
        stderr(&out)
    );
    let r = raw(&out);
    assert_eq!(rules_of(&r), vec!["MCPS-S014".to_string()]);
    assert_eq!(r["suppressions"]["expired"][0]["expires"], "2000-01-01");
    let s014 = &r["entities"][0]["findings"][0];
    assert!(
        s014["evidence"]
            .as_array()
            .expect("evidence")
            .iter()
            .any(|e| e["text"]
                .as_str()
                .is_some_and(|t| t.contains("baseline entry expired on 2000-01-01"))),
        "{s014}"
    );
}

/// Adds an inline comment above the `open(...)` line of the copied server.
fn annotate(dir: &Path, comment: &str) {
    let src = dir.join("srv/server.py");
    let code = std::fs::read_to_string(&src).expect("read");
    let code = code.replace(
        "        with open(key_path) as f:",
        &format!("        {comment}\n        with open(key_path) as f:"),
    );
    std::fs::write(&src, code).expect("write");
}

#[test]
fn an_inline_comment_suppresses_its_rule_on_the_next_line_and_is_counted_everywhere() {
    let dir = project();
    annotate(
        dir.path(),
        "# mcp-scan: ignore[S014] the demo reads its own key on purpose",
    );
    let out = run(dir.path(), &["scan", "-f", "raw", "srv"]);
    let r = raw(&out);
    assert_eq!(
        rules_of(&r),
        vec!["MCPS-S001", "MCPS-S010", "MCPS-S015"],
        "only S014 is suppressed"
    );
    let s = &r["suppressions"]["suppressed"][0];
    assert_eq!(s["kind"], "inline");
    assert_eq!(s["finding"]["rule_id"], "MCPS-S014");
    assert_eq!(s["reason"], "the demo reads its own key on purpose");

    let summary = run(dir.path(), &["scan", "--color", "never", "srv"]);
    let text = String::from_utf8_lossy(&summary.stdout);
    let section = &text[text.find("Suppressed:").expect("suppressed section")..];
    insta::assert_snapshot!("inline_suppression_summary", section);
    for fmt in ["detailed", "by_tool", "by_analyzer", "by_severity", "table"] {
        let o = run(dir.path(), &["scan", "--color", "never", "-f", fmt, "srv"]);
        let t = String::from_utf8_lossy(&o.stdout);
        assert!(
            t.contains("Suppressed: 0 by baseline, 1 inline") && t.contains("[inline]"),
            "{fmt}: {t}"
        );
    }
    let sarif: Value =
        serde_json::from_slice(&run(dir.path(), &["scan", "-f", "sarif", "srv"]).stdout)
            .expect("sarif");
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let suppressed: Vec<&Value> = results
        .iter()
        .filter(|r| r.get("suppressions").is_some())
        .collect();
    assert_eq!(suppressed.len(), 1);
    assert_eq!(suppressed[0]["ruleId"], "MCPS-S014");
    assert_eq!(suppressed[0]["suppressions"][0]["kind"], "inSource");
    assert_eq!(sarif["runs"][0]["properties"]["suppressions"]["inline"], 1);
    let html = String::from_utf8_lossy(&run(dir.path(), &["scan", "-f", "html", "srv"]).stdout)
        .into_owned();
    assert!(
        html.contains("<section id=\"suppressions\">")
            && html.contains("the demo reads its own key on purpose"),
        "html lists the suppression"
    );
}

#[test]
fn an_inline_comment_without_a_reason_warns_and_a_code_line_above_does_not_apply() {
    let dir = project();
    annotate(dir.path(), "# mcp-scan: ignore[MCPS-S014]");
    let out = run(dir.path(), &["scan", "-f", "raw", "srv"]);
    let r = raw(&out);
    assert!(!rules_of(&r).contains(&"MCPS-S014".to_string()));
    assert!(
        stderr(&out).contains("inline suppression of MCPS-S014 gives no reason"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        r["suppressions"]["warnings"].as_array().map(Vec::len),
        Some(1)
    );

    // Twin: a trailing comment on the line above belongs to that line's code.
    let dir = project();
    let src = dir.path().join("srv/server.py");
    let code = std::fs::read_to_string(&src).expect("read");
    std::fs::write(
        &src,
        code.replace(
            "    try:\n",
            "    try:  # mcp-scan: ignore[S014] not for the next line\n",
        ),
    )
    .expect("write");
    let r = raw(&run(dir.path(), &["scan", "-f", "raw", "srv"]));
    assert_eq!(rules_of(&r).len(), 4);
}

#[test]
fn a_suppression_never_hides_an_incomplete_coverage_gap() {
    let dir = project();
    annotate(
        dir.path(),
        "# mcp-scan: ignore[S001,S010,S014,S015] all accepted",
    );
    let src = dir.path().join("srv/server.py");
    let code = std::fs::read_to_string(&src).expect("read");
    std::fs::write(
        &src,
        code.replace(
            "        urllib.request.urlopen(",
            "        # mcp-scan: ignore[S001, S010, S015] accepted\n        urllib.request.urlopen(",
        ),
    )
    .expect("write");
    // Every finding suppressed: complete scan → exit 0.
    let out = run(dir.path(), &["scan", "-f", "raw", "srv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(rules_of(&raw(&out)).is_empty());
    // A file over the size cap is a gap: the scan stays INCOMPLETE (exit 4), never SAFE.
    std::fs::write(dir.path().join("srv/big.py"), "x = 1\n".repeat(4000)).expect("big");
    let out = run(
        dir.path(),
        &["scan", "-f", "raw", "--max-file-size", "16K", "srv"],
    );
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let r = raw(&out);
    assert!(rules_of(&r).is_empty());
    assert_eq!(r["summary"]["suppressed"], 4);
    assert!(
        r["coverage"]["gaps"]
            .as_array()
            .is_some_and(|g| !g.is_empty())
    );
    assert_ne!(r["servers"][0]["status"], "SAFE");
}

// The same configuration, selection and baseline apply to every scanning command, not only
// `scan`.

#[test]
fn behavioral_reads_the_project_file_and_the_command_line_overrides_it() {
    let dir = project();
    std::fs::write(
        dir.path().join("mcp-scan.toml"),
        "[rules]\nselect = [\"S015\"]\n",
    )
    .expect("config");
    let out = run(dir.path(), &["behavioral", "-f", "raw", "srv"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = raw(&out);
    assert_eq!(rules_of(&r), vec!["MCPS-S015".to_string()]);
    assert_eq!(r["suppressions"]["deselected"]["MCPS-S014"], 1);
    std::fs::write(
        dir.path().join("mcp-scan.toml"),
        "fail-on = \"medium\"\n[rules]\nselect = [\"S015\"]\n",
    )
    .expect("config");
    assert_eq!(
        run(dir.path(), &["behavioral", "srv"]).status.code(),
        Some(3)
    );
    assert_eq!(
        run(dir.path(), &["behavioral", "--fail-on", "high", "srv"])
            .status
            .code(),
        Some(0),
        "the command line beats the project file"
    );
    let all = run(
        dir.path(),
        &["behavioral", "--no-config", "-f", "raw", "srv"],
    );
    assert_eq!(all.status.code(), Some(3));
    assert_eq!(rules_of(&raw(&all)).len(), 4, "--no-config: every rule");
}

#[test]
fn a_baseline_written_by_behavioral_suppresses_its_findings_there_and_in_scan() {
    let dir = project();
    let out = run(
        dir.path(),
        &["behavioral", "--write-baseline", "baseline.toml", "srv"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("wrote 4 baseline entries"),
        "{}",
        stderr(&out)
    );
    for cmd in ["behavioral", "scan"] {
        let out = run(
            dir.path(),
            &[cmd, "-f", "raw", "--baseline", "baseline.toml", "srv"],
        );
        assert_eq!(out.status.code(), Some(0), "{cmd}: {}", stderr(&out));
        let r = raw(&out);
        assert!(rules_of(&r).is_empty(), "{cmd}");
        assert_eq!(r["summary"]["suppressed"], 4, "{cmd}");
        assert!(r["suppressions"].get("stale").is_none(), "{cmd}");
    }
}

#[test]
fn behavioral_honours_an_inline_comment_and_counts_it() {
    let dir = project();
    annotate(
        dir.path(),
        "# mcp-scan: ignore[S014] the demo reads its own key on purpose",
    );
    let r = raw(&run(dir.path(), &["behavioral", "-f", "raw", "srv"]));
    assert_eq!(rules_of(&r), vec!["MCPS-S001", "MCPS-S010", "MCPS-S015"]);
    assert_eq!(r["suppressions"]["suppressed"][0]["kind"], "inline");
    assert_eq!(r["summary"]["suppressed"], 1);
}

#[test]
fn manifest_takes_rule_selection_fail_on_and_a_baseline_from_its_project() {
    let dir = project();
    std::fs::copy(
        repo().join("fixtures/manifests/poisoned-demo.json"),
        dir.path().join("srv/tools.json"),
    )
    .expect("copy manifest");
    let plain = run(dir.path(), &["manifest", "-f", "raw", "srv/tools.json"]);
    assert_eq!(plain.status.code(), Some(3), "{}", stderr(&plain));
    let found = rules_of(&raw(&plain));
    assert!(!found.is_empty());

    // The project file next to the manifest: fail-on never.
    std::fs::write(
        dir.path().join("srv/mcp-scan.toml"),
        "fail-on = \"never\"\n",
    )
    .expect("cfg");
    let out = run(dir.path(), &["manifest", "-f", "raw", "srv/tools.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(rules_of(&raw(&out)), found, "fail-on hides nothing");
    std::fs::remove_file(dir.path().join("srv/mcp-scan.toml")).expect("rm");

    let out = run(
        dir.path(),
        &[
            "manifest",
            "-f",
            "raw",
            "--ignore",
            "MCPS-D",
            "srv/tools.json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(rules_of(&raw(&out)).is_empty());

    let out = run(
        dir.path(),
        &["manifest", "--write-baseline", "b.toml", "srv/tools.json"],
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let out = run(
        dir.path(),
        &[
            "manifest",
            "-f",
            "raw",
            "--baseline",
            "b.toml",
            "srv/tools.json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = raw(&out);
    assert!(rules_of(&r).is_empty());
    assert_eq!(r["summary"]["suppressed"], found.len());
}
