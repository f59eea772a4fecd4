//! `mcp-scan dynamic --url` end to end through the binary, against the real remote fixture
//! server (mcp Python SDK) on 127.0.0.1: streamable HTTP and the legacy HTTP+SSE transport.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

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

struct KillOnDrop(std::process::Child);
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_fixture(transport: &str) -> (KillOnDrop, u16) {
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port");
    let child = KillOnDrop(
        Command::new(python())
            .arg(repo().join("fixtures/runtime/remote_server/server.py"))
            .arg(port.to_string())
            .arg(transport)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start server"),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "fixture server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (child, port)
}

fn remote(url: &str, extra: &[&str]) -> (i32, String, String) {
    let pins = tempfile::tempdir().expect("tmp");
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args([
            "dynamic",
            "--timeout",
            "10",
            "--color",
            "never",
            "--url",
            url,
        ])
        .args(extra)
        .env("XDG_DATA_HOME", pins.path())
        .output()
        .expect("run mcp-scan");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sse_transport_lists_the_server_and_exits_4_manifest_only() {
    let (_server, port) = start_fixture("sse");
    let url = format!("http://127.0.0.1:{port}/sse");
    let (code, stdout, stderr) = remote(&url, &["--transport", "sse", "--header", "X-Scan: cli"]);
    assert_eq!(code, 4, "stdout:\n{stdout}\nstderr:\n{stderr}");
    insta::assert_snapshot!(
        "dynamic_remote_sse_summary",
        stdout.replace(&port.to_string(), "[PORT]")
    );
}

#[test]
fn sse_transport_on_a_streamable_http_server_exits_4_with_the_reason() {
    let (_server, port) = start_fixture("streamable-http");
    let url = format!("http://127.0.0.1:{port}/mcp");
    // Twin: the right transport lists the tool.
    let (code, stdout, stderr) = remote(&url, &["--transport", "streamable-http"]);
    assert_eq!(code, 4, "{stderr}");
    assert!(stdout.contains("remote-notes/tool add"), "{stdout}");

    let (code, stdout, stderr) = remote(&url, &["--transport", "sse"]);
    assert_eq!(code, 4, "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(!stdout.contains("tool add"), "{stdout}");
    let both = format!("{stdout}{stderr}");
    assert!(both.contains("SSE connection failed"), "{both}");
}

#[test]
fn unknown_transport_is_rejected_by_the_cli() {
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args([
            "dynamic",
            "--url",
            "http://127.0.0.1:9/sse",
            "--transport",
            "websocket",
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("[possible values: streamable-http, sse]"),
        "{err}"
    );
}
