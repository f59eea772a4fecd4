//! The real binary's output options on small manifests (fixtures/manifests/output-options):
//! `--output`, clean `raw`/`sarif` stdout, `--fail-on` exit codes, `--min-severity`, and colour
//! (`--color always` wins over NO_COLOR; `auto` never colours a pipe).

use std::path::PathBuf;
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/manifests/output-options")
}

/// Runs `mcp-scan` in the fixture directory (so targets and server names are short and stable),
/// with NO_COLOR removed unless the test sets it.
fn run(args: &[&str], no_color: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-scan"));
    cmd.args(args)
        .current_dir(fixtures())
        .env_remove("NO_COLOR");
    if let Some(v) = no_color {
        cmd.env("NO_COLOR", v);
    }
    cmd.output().expect("mcp-scan runs")
}

fn code(o: &Output) -> i32 {
    o.status.code().expect("exited, not killed")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8 stdout")
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).expect("utf-8 stderr")
}

fn json(o: &Output) -> serde_json::Value {
    // The whole of stdout must be one JSON document: nothing before or after it.
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not exactly one JSON document ({e}):\n{}",
            stdout(o)
        )
    })
}

#[test]
fn output_file_receives_the_report_and_stdout_stays_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.json");
    let path_arg = path.to_string_lossy().to_string();
    let o = run(
        &[
            "manifest",
            "findings.json",
            "--format",
            "raw",
            "--output",
            &path_arg,
        ],
        None,
    );
    assert_eq!(code(&o), 3, "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "stdout: {}", stdout(&o));
    let written = std::fs::read_to_string(&path).expect("report written");
    let v: serde_json::Value = serde_json::from_str(&written).expect("file holds JSON");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["summary"]["unsafe"], 2);
}

#[test]
fn unwritable_output_file_is_a_clear_error_with_exit_1() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("missing-dir").join("report.txt");
    let path_arg = path.to_string_lossy().to_string();
    let o = run(&["manifest", "clean.json", "--output", &path_arg], None);
    assert_eq!(code(&o), 1);
    assert!(
        stderr(&o).contains("cannot write report to"),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
}

#[test]
fn raw_and_sarif_stdout_hold_exactly_one_json_document() {
    let raw = run(&["manifest", "findings.json", "--format", "raw"], None);
    assert_eq!(code(&raw), 3);
    let v = json(&raw);
    assert_eq!(v["scan"]["command"], "manifest");
    assert_eq!(v["entities"].as_array().map(Vec::len), Some(3));

    let sarif = run(&["manifest", "findings.json", "--format", "sarif"], None);
    assert_eq!(code(&sarif), 3);
    let v = json(&sarif);
    assert_eq!(v["version"], "2.1.0");
    // D001 and D021 (LOW) on get_weather's <IMPORTANT> block, D001 on lookup_word's banner.
    assert_eq!(v["runs"][0]["results"].as_array().map(Vec::len), Some(3));
}

#[test]
fn unreadable_input_keeps_raw_stdout_pure_and_exits_1() {
    let o = run(&["manifest", "no-such-file.json", "--format", "raw"], None);
    assert_eq!(code(&o), 1);
    let v = json(&o);
    assert_eq!(v["diagnostics"][0]["level"], "error");
    assert!(stderr(&o).contains("no-such-file.json"), "{}", stderr(&o));
}

#[test]
fn fail_on_threshold_decides_the_exit_code() {
    // findings.json has one HIGH and one MEDIUM finding; medium.json only the MEDIUM one.
    let cases: [(&str, &[&str], i32); 8] = [
        // The default threshold is high: a MEDIUM finding alone passes.
        ("medium.json", &[], 0),
        ("findings.json", &["--fail-on", "high"], 3),
        ("findings.json", &["--fail-on", "low"], 3),
        ("findings.json", &["--fail-on", "critical"], 0),
        ("findings.json", &["--fail-on", "never"], 0),
        ("medium.json", &["--fail-on", "high"], 0),
        ("medium.json", &["--fail-on", "medium"], 3),
        // Benign twin: nothing to fail on even at the lowest threshold.
        ("clean.json", &["--fail-on", "info"], 0),
    ];
    for (file, extra, want) in cases {
        let mut args = vec!["manifest", file];
        args.extend_from_slice(extra);
        let o = run(&args, None);
        assert_eq!(code(&o), want, "{args:?}\n{}", stderr(&o));
    }
}

#[test]
fn bad_fail_on_value_is_a_usage_error_with_exit_1() {
    let o = run(&["manifest", "clean.json", "--fail-on", "sometimes"], None);
    assert_eq!(
        code(&o),
        1,
        "bad arguments exit 1, not clap's 2: {}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("sometimes"));
    // Twin: asking for help is not an error.
    let help = run(&["--help"], None);
    assert_eq!(code(&help), 0);
    assert!(stdout(&help).contains("Exit codes"));
}

#[test]
fn min_severity_hides_lower_findings_but_the_exit_code_still_counts_them() {
    let o = run(
        &[
            "manifest",
            "medium.json",
            "--min-severity",
            "high",
            "--fail-on",
            "medium",
            "--format",
            "raw",
        ],
        None,
    );
    assert_eq!(
        code(&o),
        3,
        "the hidden MEDIUM finding still fails the scan"
    );
    let v = json(&o);
    let entity = &v["entities"][0];
    assert_eq!(entity["findings"].as_array().map(Vec::len), Some(0));
    assert_eq!(
        entity["status"], "UNSAFE",
        "hidden findings never make an item SAFE"
    );
    assert_eq!(v["filter"]["hidden_findings"], 1);

    let text = run(
        &["manifest", "findings.json", "--min-severity", "high"],
        None,
    );
    assert_eq!(code(&text), 3);
    let out = stdout(&text);
    assert!(out.contains("get_weather"));
    assert!(!out.contains("lookup_word"), "{out}");
    assert!(out.contains("hidden by --min-severity"));

    // Twin: without the filter the MEDIUM finding is listed.
    let all = run(&["manifest", "findings.json"], None);
    assert!(stdout(&all).contains("lookup_word"));
}

#[test]
fn colour_is_off_on_a_pipe_and_explicit_always_wins_over_no_color() {
    let has_ansi = |o: &Output| o.stdout.contains(&0x1b);
    // auto: stdout is a pipe here, so no colour.
    assert!(!has_ansi(&run(&["manifest", "findings.json"], None)));
    assert!(!has_ansi(&run(
        &["manifest", "findings.json", "--color", "never"],
        None
    )));
    let always = run(&["manifest", "findings.json", "--color", "always"], None);
    assert!(has_ansi(&always));
    // NO_COLOR only changes `auto`; an explicit request on the command line wins.
    let both = run(
        &["manifest", "findings.json", "--color", "always"],
        Some("1"),
    );
    assert!(has_ansi(&both));
    // Machine formats never carry escapes.
    for f in ["raw", "sarif"] {
        let o = run(
            &[
                "manifest",
                "findings.json",
                "--color",
                "always",
                "--format",
                f,
            ],
            None,
        );
        assert!(!has_ansi(&o), "{f}");
    }
}

#[test]
fn cli_run_is_captured_with_exit_code_stdout_and_stderr() {
    let o = run(&["manifest", "findings.json", "--format", "by_tool"], None);
    let version = env!("CARGO_PKG_VERSION");
    let shown = format!(
        "exit: {}\n--- stdout\n{}--- stderr\n{}",
        code(&o),
        stdout(&o).replace(version, "[VERSION]"),
        stderr(&o)
    );
    insta::assert_snapshot!("manifest_by_tool", shown);
}

/// Runs `mcp-scan` with its standard output on a pseudo-terminal (util-linux `script`).
fn run_on_tty(args: &str, no_color: Option<&str>) -> Vec<u8> {
    let bin = env!("CARGO_BIN_EXE_mcp-scan");
    let mut cmd = Command::new("script");
    cmd.args(["-qec", &format!("'{bin}' {args}"), "/dev/null"])
        .current_dir(fixtures())
        .env_remove("NO_COLOR");
    if let Some(v) = no_color {
        cmd.env("NO_COLOR", v);
    }
    let out = cmd.output().unwrap_or_else(|e| {
        panic!("cannot run `script` (bsdutils) for a pseudo-terminal: {e}; run scripts/test-deps")
    });
    out.stdout
}

#[test]
fn auto_colour_is_on_for_a_terminal_unless_no_color_is_set() {
    assert!(run_on_tty("manifest findings.json", None).contains(&0x1b));
    assert!(!run_on_tty("manifest findings.json", Some("1")).contains(&0x1b));
    // An empty NO_COLOR does not count (no-color.org).
    assert!(run_on_tty("manifest findings.json", Some("")).contains(&0x1b));
    // A report written to a file is never coloured, even when run from a terminal.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("report.txt");
    run_on_tty(
        &format!("manifest findings.json --output '{}'", path.display()),
        None,
    );
    let written = std::fs::read(&path).expect("report written");
    assert!(!written.is_empty() && !written.contains(&0x1b));
}
