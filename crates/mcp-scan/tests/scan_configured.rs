//! `mcp-scan scan` with no target: the servers a fake HOME's Claude Desktop and Cursor configure,
//! their registry packages fetched from a registry on 127.0.0.1 into the cache, one scored report.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use mcp_scan_clients::testing::Registry;
use serde_json::Value;

const SECRET: &str = "FIXTURE-SECRET";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn scan(home: &Path, project: &Path, env: &[(&str, &str)], extra: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-scan"));
    cmd.arg("scan")
        .args(extra)
        .current_dir(project)
        .env("HOME", home)
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("XDG_CACHE_HOME")
        .env_remove("MCP_SCAN_OFFLINE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, _) in std::env::vars() {
        if k.starts_with("MCP_SCAN_LLM") || k.starts_with("MCP_SCANNER_LLM") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("mcp-scan runs")
}

/// A HOME with a Claude Desktop and a Cursor configuration: a `uvx` package holding the evil
/// fixture, an `npx` package holding the good one, a container image (no source to fetch), and
/// a remote server on a closed loopback port.
fn fake_home(home: &Path) {
    write(
        &home.join(".config/Claude/claude_desktop_config.json"),
        r#"{"mcpServers": {
            "notes": {"command": "uvx", "args": ["evil-notes-mcp"],
                      "env": {"NOTES_TOKEN": "FIXTURE-SECRET-notes"}},
            "github": {"command": "docker", "args": ["run", "-i", "--rm", "ghcr.io/github/github-mcp-server"]}
        }}"#,
    );
    write(
        &home.join(".cursor/mcp.json"),
        r#"{"mcpServers": {
            "helper": {"command": "npx", "args": ["-y", "@acme/helper-mcp@1.0.0", "--api-key", "FIXTURE-SECRET-arg"]},
            "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "FIXTURE-SECRET-Bearer x"}}
        }}"#,
    );
}

fn server<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {}", report["servers"]))
}

#[test]
fn scan_without_targets_scans_every_configured_server_with_fetched_sources_and_one_verdict_each() {
    let reg = Registry::start();
    reg.publish_wheel_from_dir(
        "evil-notes-mcp",
        "1.0.0",
        &repo().join("fixtures/python/evil_server"),
        true,
    );
    reg.publish_npm_from_dir(
        "@acme/helper-mcp",
        "1.0.0",
        &repo().join("fixtures/python/good_server"),
        true,
    );
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    let cache = tempfile::tempdir().expect("cache");
    fake_home(home.path());
    let cache_s = cache.path().to_str().expect("utf-8");
    let env = [
        ("MCP_SCAN_PYPI_URL", reg.base.as_str()),
        ("MCP_SCAN_NPM_REGISTRY", reg.base.as_str()),
        ("MCP_SCAN_PACKAGE_CACHE", cache_s),
    ];
    let o = scan(home.path(), project.path(), &env, &["-f", "raw"]);
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    // The evil package's HIGH findings fail the scan.
    assert_eq!(o.status.code(), Some(3), "{stderr}\n{stdout}");
    assert!(!stdout.contains(SECRET) && !stderr.contains(SECRET));
    let report: Value = serde_json::from_str(&stdout).expect("raw JSON");

    // Every configured server, each with one verdict and a trust score.
    let names: Vec<&str> = report["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    for n in ["notes", "github", "helper", "remote"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    assert_eq!(names.len(), 4, "{names:?}");
    for s in report["servers"].as_array().expect("servers") {
        assert!(s["status"].is_string(), "{s}");
        assert!(s["trust"].as_u64().is_some_and(|t| t <= 100), "{s}");
    }

    // Both registry packages were fetched into the cache and analysed there.
    assert!(
        cache
            .path()
            .join("pypi/evil-notes-mcp/1.0.0/evil-notes-mcp-1.0.0/server.py")
            .is_file()
    );
    assert!(
        reg.requested()
            .iter()
            .any(|r| r.contains("evil_notes_mcp-1.0.0")),
        "{:?}",
        reg.requested()
    );
    let notes = server(&report, "notes");
    assert_eq!(notes["status"], "UNSAFE", "{notes}");
    assert!(notes["trust"].as_u64().expect("trust") < 50, "{notes}");
    assert_eq!(notes["env"], serde_json::json!(["NOTES_TOKEN"]));
    let notes_tools: Vec<&Value> = report["entities"]
        .as_array()
        .expect("entities")
        .iter()
        .filter(|e| e["target"]["server"] == "notes" && e["target"]["kind"] == "tool")
        .collect();
    assert_eq!(notes_tools.len(), 3, "the evil fixture's three tools");
    assert!(notes_tools.iter().all(|e| e["trust"].is_u64()));
    let helper = server(&report, "helper");
    assert_ne!(helper["status"], "UNSAFE", "{helper}");
    assert!(
        report["entities"]
            .as_array()
            .expect("entities")
            .iter()
            .any(|e| e["target"]["server"] == "helper" && e["target"]["kind"] == "tool"),
        "the npm package's source was analysed"
    );

    // No source to fetch: INCOMPLETE with the reason, never safe.
    let github = server(&report, "github");
    assert_eq!(github["status"], "INCOMPLETE", "{github}");
    assert!(github.to_string().contains("container image"), "{github}");
}

#[test]
fn scan_without_targets_and_without_any_configuration_says_what_it_looked_for() {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    let o = scan(home.path(), project.path(), &[], &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no MCP server is configured"), "{err}");
    assert!(err.contains("Claude Desktop"), "{err}");
}

#[test]
fn an_unreadable_client_configuration_is_an_error_in_the_report_not_a_shorter_list() {
    let home = tempfile::tempdir().expect("home");
    let project = tempfile::tempdir().expect("project");
    write(
        &home.path().join(".cursor/mcp.json"),
        r#"{"mcpServers": {"broken": {"command": "uvx", "args": ["x"]"#,
    );
    write(
        &project.path().join(".mcp.json"),
        r#"{"mcpServers": {"local": {"command": "python3", "args": ["srv/server.py"]}}}"#,
    );
    std::fs::create_dir_all(project.path().join("srv")).expect("mkdir");
    std::fs::copy(
        repo().join("fixtures/python/good_server/server.py"),
        project.path().join("srv/server.py"),
    )
    .expect("copy");
    let o = scan(home.path(), project.path(), &[], &["-f", "raw"]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).expect("raw JSON");
    assert!(
        report["diagnostics"]
            .as_array()
            .expect("diagnostics")
            .iter()
            .any(|d| d["level"] == "error"
                && d["file"]
                    .as_str()
                    .is_some_and(|f| f.ends_with(".cursor/mcp.json"))),
        "{}",
        report["diagnostics"]
    );
    // The readable project file's server is still scanned.
    assert_eq!(server(&report, "local")["status"], "SAFE");
}
