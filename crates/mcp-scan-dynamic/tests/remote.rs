//! `--url`: a real streamable-HTTP server on 127.0.0.1, listed but never run or traced by us.

use mcp_scan_core::{ExitKind, FailOn, ToolStatus};
use mcp_scan_dynamic::{RemoteOptions, scan_remote};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct KillOnDrop(std::process::Child);
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn remote_server_is_listed_and_reported_manifest_only_incomplete() {
    let py = std::env::var("MCP_SCAN_TEST_PYTHON")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            repo()
                .join(".venv/mcp2/bin/python")
                .to_string_lossy()
                .into_owned()
        });
    assert!(
        Path::new(&py).exists(),
        "{py} not found: run scripts/test-deps"
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port");
    let _server = KillOnDrop(
        std::process::Command::new(&py)
            .arg(repo().join("fixtures/runtime/remote_server/server.py"))
            .arg(port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start server"),
    );
    let pins = tempfile::tempdir().expect("tmp");
    let opts = RemoteOptions {
        url: format!("http://127.0.0.1:{port}/mcp"),
        headers: vec![("X-Scan".into(), "1".into())],
        timeout: Duration::from_secs(5),
        pin_dir: Some(pins.path().to_path_buf()),
        accept_changes: false,
        out_dir: None,
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let outcome = loop {
        let o = scan_remote(&opts).expect("scan");
        if !o.exercise.tools.is_empty() || Instant::now() > deadline {
            break o;
        }
        std::thread::sleep(Duration::from_millis(300));
    };
    let r = outcome.report;
    assert!(outcome.exercise.calls.is_empty(), "nothing is called");
    let tool = r
        .entities
        .iter()
        .find(|e| e.target.name == "add")
        .expect("tool add listed");
    assert_eq!(tool.status(), ToolStatus::Incomplete);
    assert!(
        tool.analyzers[0]
            .reason
            .as_deref()
            .is_some_and(|x| x.contains("manifest only")),
        "{:?}",
        tool.analyzers
    );
    assert_eq!(r.exit_kind(FailOn::default()), ExitKind::Incomplete);
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.message.contains("manifest only"))
    );
}

#[test]
fn non_http_url_is_rejected() {
    let opts = RemoteOptions {
        url: "ftp://example.com/mcp".into(),
        headers: vec![],
        timeout: Duration::from_secs(1),
        pin_dir: None,
        accept_changes: false,
        out_dir: None,
    };
    let err = scan_remote(&opts).err().expect("rejected").to_string();
    assert!(err.contains("http:// or https://"), "{err}");
}
