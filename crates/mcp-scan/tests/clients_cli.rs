//! The real binary: `clients list` over the fake HOMEs in `fixtures/clients/`, and
//! `clients fetch` against a registry on 127.0.0.1.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use mcp_scan_clients::testing::Registry;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-scan"));
    cmd.args(args)
        .current_dir(repo())
        .env_remove("MCP_SCAN_OFFLINE")
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("mcp-scan runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("utf-8")
}

#[test]
fn clients_list_shows_every_configured_server_and_no_secret() {
    let o = run(
        &[
            "clients",
            "list",
            "--home",
            "fixtures/clients/home-linux",
            "--platform",
            "linux",
            "--project",
            "fixtures/clients/project",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(!out.contains("FIXTURE-SECRET"), "{out}");
    assert!(o.stderr.is_empty(), "{}", text(&o.stderr));
    insta::assert_snapshot!(out);
}

#[test]
fn clients_list_json_is_one_document_without_secrets() {
    let o = run(
        &[
            "clients",
            "list",
            "--json",
            "--home",
            "fixtures/clients/home-macos",
            "--platform",
            "macos",
            "--project",
            "fixtures/clients/project",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    let servers = v["servers"].as_array().expect("servers");
    assert_eq!(servers.len(), 7, "{v:#}");
    let weather = servers
        .iter()
        .find(|s| s["name"] == "weather")
        .expect("weather");
    assert_eq!(weather["client"], "claude-desktop");
    assert_eq!(weather["env_names"], serde_json::json!(["OPENWEATHER_KEY"]));
    assert_eq!(weather["launches"]["kind"], "not-a-package");
    assert!(!text(&o.stdout).contains("FIXTURE-SECRET"));
}

#[test]
fn a_malformed_config_exits_1_naming_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("claude_desktop_config.json");
    std::fs::write(
        &bad,
        "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": {\"K\": \"FIXTURE-SECRET\"}}",
    )
    .expect("write");
    let o = run(&["clients", "list", bad.to_str().expect("utf-8")], &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("claude_desktop_config.json:1:"), "{err}");
    assert!(err.contains("not valid JSON"), "{err}");
    assert!(!err.contains("FIXTURE-SECRET"), "{err}");
}

#[test]
fn clients_fetch_downloads_from_the_configured_registry_then_works_offline() {
    let reg = Registry::start();
    reg.publish_wheel_from_dir(
        "echo-mcp",
        "1.2.0",
        &repo().join("fixtures/clients/project"),
        true,
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let cache_s = cache.path().to_str().expect("utf-8");
    let env = [
        ("MCP_SCAN_PYPI_URL", reg.base.as_str()),
        ("MCP_SCAN_NPM_REGISTRY", reg.base.as_str()),
        ("MCP_SCAN_PACKAGE_CACHE", cache_s),
    ];
    let o = run(&["clients", "fetch", "--", "uvx", "echo-mcp"], &env);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.starts_with("PyPI echo-mcp 1.2.0\n"), "{out}");
    let src = cache.path().join("pypi/echo-mcp/1.2.0/echo-mcp-1.2.0");
    assert!(src.join(".mcp.json").is_file());
    assert!(out.contains(&src.display().to_string()), "{out}");
    let o = run(
        &[
            "clients",
            "fetch",
            "--offline",
            "--",
            "uvx",
            "echo-mcp==1.2.0",
        ],
        &env,
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("from the cache"));
    let o = run(
        &["clients", "fetch", "--offline", "--", "uvx", "echo-mcp"],
        &env,
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o.stderr).contains("pin an exact version"),
        "{}",
        text(&o.stderr)
    );
}
