//! `mcp-scan scan` end to end: the real binary, real fixture servers run in the sandbox (their
//! own network namespace, root needed), the LLM stub provider on 127.0.0.1, and the scorer's
//! merge, coverage cross-check and trust score as users see them in every format.

#[path = "../../mcp-scan-llm/tests/support/stub.rs"]
mod stub;

use mcp_scan_core::Report;
use mcp_scan_report::{Format, RenderOptions, render};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use stub::{Stub, keyword_model};

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

/// Runs `mcp-scan scan ARGS` with a throwaway HOME, cache and pin store.
fn scan(home: &Path, args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .arg("scan")
        .args(args)
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env_remove("MCP_SCAN_LLM_BASE_URL")
        .env_remove("MCP_SCAN_LLM_PROVIDER")
        .env_remove("MCP_SCANNER_LLM_BASE_URL")
        .output()
        .expect("run mcp-scan")
}

/// `scan --run DIR -- python DIR/server.py` with the LLM stub, raw output.
fn scan_all_witnesses(dir: &Path, stub: &Stub, home: &Path) -> Output {
    let script = dir.join("server.py");
    let args: Vec<String> = [
        "--run",
        "--timeout",
        "10",
        "--seed",
        "7",
        "-f",
        "raw",
        "--llm-base-url",
        &stub.openai_base(),
        "--llm-model",
        "stub-model",
        &dir.display().to_string(),
        "--",
        &python(),
        &script.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    scan(home, &args)
}

fn raw(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is exactly one JSON document ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn entity<'a>(report: &'a Value, kind: &str, name: &str) -> &'a Value {
    report["entities"]
        .as_array()
        .and_then(|es| {
            es.iter()
                .find(|e| e["target"]["name"] == name && e["target"]["kind"] == kind)
        })
        .unwrap_or_else(|| panic!("no {kind} {name} in {report}"))
}

fn analyzers_of(f: &Value) -> Vec<String> {
    f["analyzers"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The lines of every format that count or name corroboration, for the snapshot.
fn corroboration_lines(report: &Report) -> String {
    let mut out = String::new();
    let opts = RenderOptions::default();
    for format in Format::ALL {
        let text = render(report, format, &opts);
        out.push_str(&format!("## {format}\n"));
        match format {
            Format::Raw => {
                let v: Value = serde_json::from_str(&text).expect("raw is JSON");
                out.push_str(&format!(
                    "summary.corroborated = {}\n",
                    v["summary"]["corroborated"]
                ));
                for e in v["entities"].as_array().into_iter().flatten() {
                    out.push_str(&format!(
                        "{} {} trust = {}\n",
                        e["target"]["kind"].as_str().unwrap_or(""),
                        e["target"]["name"].as_str().unwrap_or(""),
                        e["trust"]
                    ));
                }
            }
            Format::Sarif => {
                let v: Value = serde_json::from_str(&text).expect("sarif is JSON");
                let results = v["runs"][0]["results"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                let corr = results
                    .iter()
                    .filter(|r| r["properties"]["corroborated"] == true)
                    .count();
                out.push_str(&format!(
                    "results = {}, corroborated = {corr}, servers[0].trust = {}\n",
                    results.len(),
                    v["runs"][0]["properties"]["servers"][0]["trust"]
                ));
            }
            Format::Html => {
                let corr = text.matches(r#"<span class="corroborated">"#).count();
                let trust: Vec<&str> = text
                    .split(r#"<td class="trust">"#)
                    .skip(1)
                    .filter_map(|t| t.split('<').next())
                    .collect();
                out.push_str(&format!(
                    "corroborated findings = {corr}, trust cells = {}\n",
                    trust.join(" ")
                ));
            }
            _ => {
                for l in text.lines() {
                    let lower = l.to_lowercase();
                    if lower.contains("corroborat") || lower.contains("trust") {
                        out.push_str(l.trim_end());
                        out.push('\n');
                    }
                }
            }
        }
    }
    out
}

/// Paths of this checkout are not part of what the snapshot pins.
fn redact(s: &str) -> String {
    let root = repo().canonicalize().unwrap_or_else(|_| repo());
    s.replace(&python(), "<python>")
        .replace(&repo().display().to_string(), "<repo>")
        .replace(&root.display().to_string(), "<repo>")
}

#[test]
fn one_behaviour_seen_by_static_llm_and_runtime_is_one_finding_with_three_witnesses() {
    let stub = Stub::start(keyword_model);
    let home = tempfile::tempdir().expect("home");
    let dir = repo().join("fixtures/python/leaky_server");
    let out = scan_all_witnesses(&dir, &stub, home.path());
    assert_eq!(
        out.status.code(),
        Some(3),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = raw(&out);
    let tool = entity(&report, "tool", "format_note");
    let exfil: Vec<&Value> = tool["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["taxonomy"]["threat"] == "DATA EXFILTRATION")
        .collect();
    assert_eq!(exfil.len(), 1, "one exfiltration finding: {tool}");
    assert_eq!(
        analyzers_of(exfil[0]),
        vec!["static", "llm", "runtime"],
        "{}",
        exfil[0]
    );
    assert_eq!(exfil[0]["confidence"], "high");
    // Every witness's evidence is kept: the source flow, the model's rationale, the payload.
    let kinds: Vec<&str> = exfil[0]["evidence"]
        .as_array()
        .expect("evidence")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    for k in ["source", "llm", "network"] {
        assert!(kinds.contains(&k), "{k} evidence missing: {kinds:?}");
    }
    // One server, one name for every witness: the directory's, with serverInfo kept.
    assert_eq!(report["servers"][0]["name"], "leaky_server");
    assert_eq!(report["servers"][0]["server_info"], "leaky-server");
    for e in report["entities"].as_array().expect("entities") {
        assert_eq!(e["target"]["server"], "leaky_server", "{e}");
    }
    let corroborated = report["entities"]
        .as_array()
        .expect("entities")
        .iter()
        .flat_map(|e| e["findings"].as_array().cloned().unwrap_or_default())
        .filter(|f| analyzers_of(f).len() > 1)
        .count();
    assert!(corroborated >= 3, "{report}");
    assert_eq!(report["summary"]["corroborated"], corroborated);
    assert!(tool["trust"].as_u64().is_some_and(|t| t < 50), "{tool}");

    let parsed: Report = serde_json::from_slice(&out.stdout).expect("raw reads back as a Report");
    insta::assert_snapshot!(
        "three_witnesses_corroboration_in_every_format",
        redact(&corroboration_lines(&parsed))
    );
}

#[test]
fn the_honest_twin_seen_by_all_three_witnesses_has_no_finding() {
    let stub = Stub::start(keyword_model);
    let home = tempfile::tempdir().expect("home");
    let dir = repo().join("fixtures/python/honest_server");
    let out = scan_all_witnesses(&dir, &stub, home.path());
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = raw(&out);
    assert_eq!(report["summary"]["findings"], 0, "{report}");
    assert_eq!(report["summary"]["corroborated"], 0);
    let tool = entity(&report, "tool", "format_note");
    let states: Vec<(String, String)> = tool["analyzers"]
        .as_array()
        .expect("analyzers")
        .iter()
        .map(|s| {
            (
                s["analyzer"].as_str().unwrap_or("").to_string(),
                s["state"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    for a in ["static", "llm", "runtime", "description"] {
        assert!(
            states.contains(&(a.to_string(), "complete".to_string())),
            "{a} ran and completed: {states:?}"
        );
    }
    assert_eq!(tool["trust"], 100);
    assert_eq!(report["servers"][0]["status"], "SAFE");
    assert_eq!(report["servers"][0]["trust"], 100);
}

fn scan_run(fixture: &str, format: &str) -> Output {
    let home = tempfile::tempdir().expect("home");
    let dir = repo().join("fixtures/engine").join(fixture);
    let args: Vec<String> = [
        "--run",
        "--timeout",
        "10",
        "-f",
        format,
        "--color",
        "never",
        &dir.display().to_string(),
        "--",
        &python(),
        &dir.join("server.py").display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    scan(home.path(), &args)
}

#[test]
fn a_tool_only_the_live_listing_shows_leaves_the_static_witness_incomplete_for_it() {
    let out = scan_run("generated_tool", "raw");
    assert_eq!(
        out.status.code(),
        Some(4),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = raw(&out);
    let generated = entity(&report, "tool", "word_count");
    assert_eq!(generated["status"], "INCOMPLETE", "{generated}");
    let static_state = generated["analyzers"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["analyzer"] == "static"))
        .expect("a static status for the listed tool");
    assert_eq!(static_state["state"], "incomplete");
    assert!(
        static_state["reason"]
            .as_str()
            .is_some_and(|r| r.contains("listed by the running server but not found")),
        "{static_state}"
    );
    let trust = generated["trust"].as_u64().expect("trust");
    assert!(trust <= 60, "INCOMPLETE caps the score: {trust}");
    let notes = report["servers"][0]["notes"].to_string();
    assert!(notes.contains("tool word_count"), "{notes}");
}

#[test]
fn the_twin_whose_source_declares_every_listed_tool_is_complete_and_safe() {
    let out = scan_run("declared_tools", "raw");
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = raw(&out);
    for name in ["list_notes", "word_count"] {
        let e = entity(&report, "tool", name);
        assert_eq!(e["status"], "SAFE", "{e}");
        assert_eq!(e["trust"], 100);
    }
    assert!(
        report["servers"][0]["notes"]
            .as_array()
            .is_none_or(|n| n.iter().all(|x| !x.to_string().contains("coverage"))),
        "{report}"
    );
}

#[test]
fn a_client_configuration_names_its_servers_and_shows_env_names_never_values() {
    let home = tempfile::tempdir().expect("home");
    let cfg = home.path().join("claude_desktop_config.json");
    let script = repo().join("fixtures/python/leaky_server/server.py");
    std::fs::write(
        &cfg,
        serde_json::json!({"mcpServers": {
            "notes": {
                "command": "python3",
                "args": [script.display().to_string()],
                "env": {"NOTES_API_TOKEN": "tok-5ec7e7-do-not-print"}
            }
        }})
        .to_string(),
    )
    .expect("write config");
    for format in Format::ALL {
        let args: Vec<String> = [
            "-f",
            format.as_str(),
            "--color",
            "never",
            &cfg.display().to_string(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let out = scan(home.path(), &args);
        // Static finds the leak without running anything (no --run).
        assert_eq!(
            out.status.code(),
            Some(3),
            "{format}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!all.contains("tok-5ec7e7"), "{format} printed a secret");
        if format == Format::Raw {
            let report = raw(&out);
            let s = &report["servers"][0];
            assert_eq!(s["name"], "notes", "the configured name wins: {s}");
            assert_eq!(s["env"], serde_json::json!(["NOTES_API_TOKEN"]));
            assert!(
                s["notes"].to_string().contains("pass --run"),
                "nothing ran without --run: {s}"
            );
            assert!(
                s["witnesses"]
                    .as_array()
                    .is_some_and(|w| w.iter().all(|x| x["analyzer"] != "runtime")),
                "{s}"
            );
            let tool = entity(&report, "tool", "format_note");
            assert_eq!(tool["target"]["server"], "notes");
        }
        if format == Format::Summary {
            assert!(all.contains("NOTES_API_TOKEN"), "names are shown: {all}");
        }
    }
}

#[test]
fn a_server_asked_to_run_that_does_not_start_is_incomplete_never_safe() {
    let home = tempfile::tempdir().expect("home");
    let args: Vec<String> = [
        "--run",
        "--timeout",
        "10",
        "-f",
        "raw",
        "--",
        &python(),
        "-c",
        "import sys; sys.exit(3)",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let out = scan(home.path(), &args);
    assert_eq!(
        out.status.code(),
        Some(4),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = raw(&out);
    let s = &report["servers"][0];
    assert_eq!(s["status"], "INCOMPLETE", "{s}");
    assert!(s["trust"].as_u64().is_some_and(|t| t <= 60), "{s}");
    assert!(
        s.get("server_info").is_none(),
        "it never announced one: {s}"
    );
    assert!(
        s["notes"].to_string().contains("static: not run"),
        "no source for an inline program: {s}"
    );
}

#[test]
fn a_manifest_target_is_read_by_the_description_witness_under_its_own_name() {
    let home = tempfile::tempdir().expect("home");
    let manifest = repo().join("fixtures/manifests/poisoned-demo.json");
    let args: Vec<String> = ["-f", "raw", &manifest.display().to_string()]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let out = scan(home.path(), &args);
    assert_eq!(out.status.code(), Some(3));
    let report = raw(&out);
    assert_eq!(report["servers"][0]["name"], "notes-demo");
    let clean = entity(&report, "tool", "search_notes");
    assert_eq!(clean["status"], "SAFE");
    assert_eq!(clean["trust"], 100);
    let poisoned = entity(&report, "tool", "word_count");
    assert!(
        poisoned["trust"].as_u64().is_some_and(|t| t < 50),
        "{poisoned}"
    );
}
