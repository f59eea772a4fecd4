//! `mcp-scan dynamic` end to end through the binary: real fixture servers in the sandbox (their
//! own network namespace), exit codes per BRIEF §6, and snapshots of what users see.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> String {
    let p = std::env::var("MCP_SCAN_TEST_PYTHON")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            repo()
                .join(".venv/mcp2/bin/python")
                .to_string_lossy()
                .into_owned()
        });
    assert!(
        Path::new(&p).exists(),
        "{p} not found: run scripts/test-deps to create the Python venvs with the mcp SDK"
    );
    p
}

fn dynamic(fixture: &str, extra: &[&str]) -> (i32, String, String) {
    let pins = tempfile::tempdir().expect("tmp");
    let script = repo()
        .join("fixtures/runtime")
        .join(fixture)
        .join("server.py");
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .arg("dynamic")
        .args([
            "--startup-timeout",
            "40",
            "--timeout",
            "10",
            "--color",
            "never",
        ])
        .args(extra)
        .arg("--")
        .arg(python())
        .arg(script)
        .env("XDG_DATA_HOME", pins.path())
        .output()
        .expect("run mcp-scan");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The summary names the launch command; keep only what does not depend on the checkout path.
fn redact(s: &str) -> String {
    let root = repo().canonicalize().unwrap_or_else(|_| repo());
    s.replace(&python(), "[PYTHON]")
        .replace(&repo().to_string_lossy().into_owned(), "[REPO]")
        .replace(&root.to_string_lossy().into_owned(), "[REPO]")
}

#[test]
fn leaky_server_exits_3_with_a_critical_canary_leak() {
    let (code, stdout, stderr) = dynamic("leaky_server", &[]);
    assert_eq!(code, 3, "stdout:\n{stdout}\nstderr:\n{stderr}");
    insta::assert_snapshot!("dynamic_leaky_summary", redact(&stdout));
}

#[test]
fn honest_server_exits_0_and_is_safe() {
    let (code, stdout, stderr) = dynamic("honest_server", &[]);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    insta::assert_snapshot!("dynamic_honest_summary", redact(&stdout));
}

#[test]
fn json_flag_prints_the_raw_report() {
    let (code, stdout, _) = dynamic("evade_npmrc", &["--json", "--calls", "1", "--no-probes"]);
    assert_eq!(code, 3);
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("raw JSON on stdout");
    let text = v.to_string();
    assert!(text.contains("MCPS-R002"), "{text}");
    assert!(text.contains("~/.npmrc"), "{text}");
}

#[test]
fn fail_on_never_turns_findings_into_exit_0() {
    let (code, _, _) = dynamic(
        "evade_npmrc",
        &["--fail-on", "never", "--calls", "1", "--no-probes"],
    );
    assert_eq!(code, 0);
}

#[test]
fn server_that_exits_at_once_gives_exit_4_and_says_why() {
    let (code, _, stderr) = dynamic("hostile_exit", &[]);
    assert_eq!(code, 4, "{stderr}");
    assert!(stderr.contains("server exit status 3"), "{stderr}");
    assert!(stderr.contains("hostile_exit: bye"), "{stderr}");
}

#[test]
fn missing_server_command_is_exit_1_with_a_clear_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(["dynamic", "--", "/nonexistent/mcp-server"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`/nonexistent/mcp-server` not found"), "{err}");
}

#[test]
fn bad_env_argument_is_rejected() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(["dynamic", "--env", "NOEQUALS", "--", "true"])
        .output()
        .expect("run");
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected K=V"));
}

#[test]
fn sandbox_works_for_an_ordinary_user_with_user_namespaces() {
    // As root, drop to `nobody` for this run; as a user, run as that user.
    let bin = env!("CARGO_BIN_EXE_mcp-scan");
    let args = [
        "dynamic",
        "--startup-timeout",
        "3",
        "--",
        "/bin/sh",
        "-c",
        "echo sandboxed-as-ordinary-user >&2; sleep 10",
    ];
    let is_root = std::fs::read_to_string("/proc/self/status")
        .map(|s| {
            s.lines()
                .any(|l| l.starts_with("Uid:") && l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false);
    let out = if is_root {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
            .arg(bin)
            .args(args)
            .env("HOME", "/nonexistent")
            .output()
            .expect("setpriv (util-linux) runs")
    } else {
        Command::new(bin).args(args).output().expect("run")
    };
    let err = String::from_utf8_lossy(&out.stderr);
    // 4: the sandbox came up (strace, namespaces, nftables) and the "server" never answered.
    assert_eq!(out.status.code(), Some(4), "{err}");
    assert!(err.contains("sandboxed-as-ordinary-user"), "{err}");
}

/// Where no namespace can be made (here: a user namespace whose limit of nested user namespaces
/// is zero, which the test sets up without touching the host), the scan exits 2 with the reason
/// and the fix, and never runs the server unsandboxed. Twin: honest_server_exits_0_and_is_safe.
#[test]
fn sandbox_unavailable_exits_2_with_the_reason_and_the_fix() {
    let marker = std::env::temp_dir().join(format!("mcp-scan-unsandboxed-{}", std::process::id()));
    let script = format!(
        "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$0\" dynamic -- /bin/sh -c 'touch {}'",
        marker.display()
    );
    let out = Command::new("unshare")
        .args(["-Ur", "sh", "-c", &script, env!("CARGO_BIN_EXE_mcp-scan")])
        .output()
        .expect("unshare (util-linux) must be installed");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("sandbox setup failed at unshare"), "{err}");
    assert!(err.contains("user.max_user_namespaces"), "{err}");
    assert!(!marker.exists(), "the server ran without a sandbox");
}

#[test]
fn a_configuration_file_deselects_runtime_rules_and_counts_them() {
    let dir = tempfile::tempdir().expect("tmp");
    let cfg = dir.path().join("team.toml");
    std::fs::write(&cfg, "[rules]\nignore = [\"MCPS-R002\"]\n").expect("config");
    let cfg = cfg.to_string_lossy().into_owned();
    let (_, stdout, stderr) = dynamic(
        "evade_npmrc",
        &["--json", "--calls", "1", "--no-probes", "--config", &cfg],
    );
    let v: serde_json::Value = serde_json::from_str(&stdout).expect("raw JSON on stdout");
    assert!(
        v["suppressions"]["deselected"]["MCPS-R002"]
            .as_u64()
            .is_some_and(|n| n >= 1),
        "{stderr}\n{stdout}"
    );
    let rules: Vec<&str> = v["entities"]
        .as_array()
        .expect("entities")
        .iter()
        .flat_map(|e| e["findings"].as_array().into_iter().flatten())
        .filter_map(|f| f["rule_id"].as_str())
        .collect();
    assert!(!rules.contains(&"MCPS-R002"), "{rules:?}");
}

/// A server that types a command into the terminal the scan runs in (TIOCSTI on `/dev/tty`)
/// would have the user's shell run it once the scan ends. The scan runs under `script`, so it
/// has a real controlling terminal; the sandbox is a session of its own, so the server finds no
/// terminal and nothing it types reaches the one the scan runs in.
#[test]
fn a_server_cannot_type_into_the_terminal_the_scan_runs_in() {
    let tmp = tempfile::tempdir().expect("tmp");
    let typescript = tmp.path().join("terminal.log");
    let out_dir = tmp.path().join("run");
    let server = repo().join("fixtures/runtime/hostile_terminal_input/server.py");
    let q = |p: &Path| format!("'{}'", p.display());
    // `tty` first: proof that the scan below had a terminal to be attacked through.
    let command = format!(
        "tty; {} dynamic --color never --second-run never --startup-timeout 40 --timeout 10 \
         -o {} --out-dir {} -- {} {}",
        q(Path::new(env!("CARGO_BIN_EXE_mcp-scan"))),
        q(&tmp.path().join("report.json")),
        q(&out_dir),
        q(Path::new(&python())),
        q(&server)
    );
    let status = Command::new("script")
        .args(["-q", "-e", "-c", &command])
        .arg(&typescript)
        .env("XDG_DATA_HOME", tmp.path())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("`script` (util-linux, installed by scripts/test-deps) runs");
    let terminal = std::fs::read_to_string(&typescript).unwrap_or_default();
    assert!(status.success(), "{status}\n{terminal}");
    assert!(
        terminal.contains("/dev/pts/"),
        "the scan had no terminal: the test shows nothing\n{terminal}"
    );
    let calls = std::fs::read_to_string(out_dir.join("calls.jsonl")).unwrap_or_default();
    // The server tried, and `/dev/tty` did not open (ENXIO: no controlling terminal).
    assert!(calls.contains("tty: errno 6"), "{calls}");
    assert!(!calls.contains("tty: typed"), "{calls}");
    let typed: String = "4221-detcejni-lanimret-nacs-pcm".chars().rev().collect();
    assert!(
        !terminal.contains(&typed),
        "the server's keystrokes reached the scan's terminal:\n{terminal}"
    );
}
