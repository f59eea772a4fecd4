//! Every fixture server is a real MCP server: started with the real `mcp` SDK (2.x and 1.x)
//! inside a network namespace with no route out (`unshare -rn`) and a throwaway HOME, it must
//! answer initialize and list exactly the tools its expected.toml names.
//!
//! Some fixtures try to reach 93.184.216.34 when a tool is *called*; this test only lists tools,
//! and even so never runs them on the host network.

use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn interpreter(var: &str, venv: &str) -> PathBuf {
    let p = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join(".venv").join(venv).join("bin/python"));
    assert!(
        p.is_file(),
        "{} not found (set {var} or run scripts/test-deps to create the venvs)",
        p.display()
    );
    p
}

struct Server {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(python: &Path, dir: &Path, script: &str, home: &Path) -> Server {
        let mut child = Command::new("unshare")
            .args(["-rn"])
            .arg(python)
            .arg(script)
            .current_dir(dir)
            .env_clear()
            .env("HOME", home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn unshare -rn (util-linux) with the fixture server");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server { child, lines: rx }
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.child.stdin.as_mut().expect("stdin");
        writeln!(stdin, "{msg}").expect("write to server");
        stdin.flush().expect("flush");
    }

    /// The response with this id (notifications and logs in between are skipped).
    fn response(&self, id: u64, what: &str) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("no {what} response: {e}"));
            let Ok(v) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if v["id"] == id {
                return v;
            }
        }
    }
}

fn listed_tools(python: &Path, fixture: &str, script: &str) -> Vec<String> {
    let home = tempfile::tempdir().expect("home");
    let mut s = Server::start(
        python,
        &repo().join("fixtures/python").join(fixture),
        script,
        home.path(),
    );
    s.send(&serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "mcp-scan-test", "version": "0"}}
    }));
    let init = s.response(1, "initialize");
    assert!(
        init["result"]["serverInfo"].is_object(),
        "{fixture}: {init}"
    );
    s.send(&serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    s.send(&serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = s.response(2, "tools/list");
    let mut names: Vec<String> = list["result"]["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("{fixture}: {list}"))
        .iter()
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

fn expected_tools(fixture: &str) -> Vec<String> {
    let path = repo()
        .join("fixtures/python")
        .join(fixture)
        .join("expected.toml");
    let text = std::fs::read_to_string(&path).expect("expected.toml");
    let v: toml::Value = toml::from_str(&text).expect("toml");
    let mut tools: Vec<String> = v["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t.as_str().map(str::to_string))
        .collect();
    tools.sort();
    tools
}

fn fixtures() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(repo().join("fixtures/python"))
        .expect("fixtures/python")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("server.py").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn check_all(python: &Path) {
    for f in fixtures() {
        assert_eq!(
            listed_tools(python, &f, "server.py"),
            expected_tools(&f),
            "{f} with {}",
            python.display()
        );
    }
}

#[test]
fn fixture_servers_list_their_tools_with_mcp_2() {
    check_all(&interpreter("MCP_SCAN_TEST_PYTHON", "mcp2"));
}

#[test]
fn fixture_servers_list_their_tools_with_mcp_1() {
    check_all(&interpreter("MCP_SCAN_TEST_PYTHON_MCP1", "mcp1"));
}

/// The fixture whose tools are served by fastmcp's `FileSystemProvider` from files marked with
/// the standalone `@tool()` needs fastmcp >= 3 (`scripts/test-deps` makes `.venv/fastmcp`).
#[test]
fn provider_served_fixture_lists_the_tools_its_component_files_mark() {
    let venv = if repo().join(".venv/fastmcp/bin/python").is_file() {
        "fastmcp"
    } else {
        "bench-more"
    };
    let python = interpreter("MCP_SCAN_TEST_PYTHON_FASTMCP", venv);
    assert_eq!(
        listed_tools(&python, "provider_components", "main.py"),
        expected_tools("provider_components")
    );
}
