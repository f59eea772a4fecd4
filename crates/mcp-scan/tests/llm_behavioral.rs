//! `mcp-scan behavioral` with the LLM alignment check, end to end: the real binary, the real
//! fixtures' static summaries, and the stub provider on 127.0.0.1 (OpenAI wire format).

#[path = "../../mcp-scan-llm/tests/support/stub.rs"]
mod stub;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use stub::{Recorded, Reply, Stub, keyword_model};

/// Request counts below are of the tools' own requests: the built-in qualification cases run
/// first, and the stand-in models answer them as a competent model would.
fn tool_requests(stub: &Stub) -> Vec<Recorded> {
    stub.requests()
        .into_iter()
        .filter(|r| r.qualification_case().is_none())
        .collect()
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/python")
        .join(name)
}

/// Runs the binary with a clean environment: a throwaway HOME and cache, no real secrets.
fn scan(dir: &Path, home: &Path, extra_env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp-scan"));
    cmd.env_clear()
        .env("HOME", home)
        .env("XDG_CACHE_HOME", home.join("cache"))
        .arg("behavioral")
        .arg(dir)
        .args(["-f", "raw"])
        .args(args);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    cmd.output().expect("run mcp-scan")
}

fn llm_args(stub: &Stub) -> Vec<String> {
    vec![
        "--llm-base-url".into(),
        stub.openai_base(),
        "--llm-model".into(),
        "stub-model".into(),
    ]
}

fn raw(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is exactly one JSON document ({e}); stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn entity<'a>(report: &'a Value, tool: &str) -> &'a Value {
    report["entities"]
        .as_array()
        .and_then(|es| es.iter().find(|e| e["target"]["name"] == tool))
        .unwrap_or_else(|| panic!("no entity {tool} in {report}"))
}

fn findings_by<'a>(e: &'a Value, analyzer: &str) -> Vec<&'a Value> {
    e["findings"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .filter(|f| {
                    f["analyzers"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|x| x == analyzer))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn llm_state(e: &Value) -> Option<String> {
    e["analyzers"].as_array().and_then(|a| {
        a.iter()
            .find(|s| s["analyzer"] == "llm")
            .and_then(|s| s["state"].as_str().map(str::to_string))
    })
}

#[test]
fn leaky_server_reports_the_llm_data_exfiltration_mismatch_beside_static_findings() {
    let stub = Stub::start(keyword_model);
    let home = tempfile::tempdir().expect("home");
    let args = llm_args(&stub);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = scan(&fixture("leaky_server"), home.path(), &[], &args);
    assert_eq!(
        out.status.code(),
        Some(3),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = raw(&out);
    let e = entity(&report, "format_note");
    let llm = findings_by(e, "llm");
    assert_eq!(llm.len(), 1, "{e}");
    assert_eq!(llm[0]["rule_id"], "MCPS-L001");
    assert_eq!(llm[0]["taxonomy"]["threat"], "DATA EXFILTRATION");
    assert_eq!(llm[0]["severity"], "HIGH");
    assert!(
        !findings_by(e, "static").is_empty(),
        "static findings stay: {e}"
    );
    assert_eq!(llm_state(e).as_deref(), Some("complete"));
    assert!(
        report["scan"]["analyzers"]
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x == "llm"))
    );

    let reqs = tool_requests(&stub);
    assert_eq!(reqs.len(), 1, "one request per tool");
    let user = reqs[0].user_text();
    assert!(
        user.contains("93.184.216.34"),
        "resolved URL in the evidence: {user}"
    );
    assert!(
        user.contains("secret:"),
        "taint flow in the evidence: {user}"
    );
    assert!(user.contains("server.py:"), "file:line hops: {user}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("mcp-scan: llm openai/stub-model: 1 tool(s), 1 request(s)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("answers: json_schema 1/1 valid"),
        "the answer mode and its valid-answer rate are stated: {stderr}"
    );
}

#[test]
fn honest_server_is_aligned_safe_and_a_rescan_sends_no_request() {
    let stub = Stub::start(keyword_model);
    let home = tempfile::tempdir().expect("home");
    let args = llm_args(&stub);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = scan(&fixture("honest_server"), home.path(), &[], &args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = raw(&out);
    let e = entity(&report, "format_note");
    assert_eq!(e["status"], "SAFE");
    assert!(findings_by(e, "llm").is_empty());
    assert_eq!(llm_state(e).as_deref(), Some("complete"));
    assert_eq!(tool_requests(&stub).len(), 1);

    // Same code again: answered from $XDG_CACHE_HOME/mcp-scan/llm, zero requests.
    let again = scan(&fixture("honest_server"), home.path(), &[], &args);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(
        tool_requests(&stub).len(),
        1,
        "re-scan of unchanged code sends nothing"
    );
    assert!(home.path().join("cache/mcp-scan/llm").is_dir());
    assert_eq!(raw(&again)["entities"], report["entities"]);
}

#[test]
fn provider_failure_leaves_the_honest_tool_incomplete_exit_4() {
    let stub = Stub::start(|req, _| Reply::error_for(req, 500, None));
    let home = tempfile::tempdir().expect("home");
    let mut args = llm_args(&stub);
    args.extend(["--llm-retries".to_string(), "1".to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = scan(&fixture("honest_server"), home.path(), &[], &args);
    assert_eq!(
        out.status.code(),
        Some(4),
        "never SAFE: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = raw(&out);
    let e = entity(&report, "format_note");
    assert_eq!(e["status"], "INCOMPLETE");
    assert_eq!(llm_state(e).as_deref(), Some("incomplete"));
    assert_eq!(tool_requests(&stub).len(), 2);
}

#[test]
fn cisco_environment_configures_the_check_and_no_llm_turns_it_off() {
    let stub = Stub::start(keyword_model);
    let home = tempfile::tempdir().expect("home");
    let base = stub.openai_base();
    let env = [
        ("MCP_SCANNER_LLM_BASE_URL", base.as_str()),
        ("MCP_SCANNER_LLM_MODEL", "stub-model"),
    ];
    let out = scan(
        &fixture("leaky_server"),
        home.path(),
        &env,
        &["--llm-no-cache"],
    );
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        findings_by(entity(&raw(&out), "format_note"), "llm").len(),
        1
    );
    assert_eq!(tool_requests(&stub).len(), 1);

    let off = scan(&fixture("leaky_server"), home.path(), &env, &["--no-llm"]);
    assert_eq!(
        off.status.code(),
        Some(3),
        "static findings still fail the scan"
    );
    assert_eq!(tool_requests(&stub).len(), 1, "--no-llm sends nothing");
    let e = raw(&off);
    assert!(findings_by(entity(&e, "format_note"), "llm").is_empty());
    assert_eq!(llm_state(entity(&e, "format_note")), None);
}

#[test]
fn bad_llm_configuration_is_a_clear_error_exit_1() {
    let home = tempfile::tempdir().expect("home");
    let out = scan(
        &fixture("honest_server"),
        home.path(),
        &[],
        &["--llm-provider", "gemini", "--llm-model", "x"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--llm-provider: unknown provider `gemini`"),
        "{stderr}"
    );
}

#[test]
fn fixture_prompts_average_at_most_1500_tokens_with_one_request_per_tool() {
    let stub = Stub::start(keyword_model);
    let home = tempfile::tempdir().expect("home");
    let mut args = llm_args(&stub);
    args.push("--llm-no-cache".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut tools = 0;
    for server in [
        "honest_server",
        "leaky_server",
        "good_server",
        "evil_server",
        "multifile_server",
    ] {
        let out = scan(&fixture(server), home.path(), &[], &args);
        tools += raw(&out)["behaviors"].as_array().map_or(0, Vec::len);
    }
    let reqs = tool_requests(&stub);
    assert!(tools >= 9, "fixture tools summarised: {tools}");
    assert_eq!(reqs.len(), tools, "one request per tool");
    // Tokens estimated as characters / 4 (mcp_scan_llm::estimate_tokens), system + user.
    let tokens: Vec<usize> = reqs
        .iter()
        .map(|r| r.prompt_text().chars().count().div_ceil(4))
        .collect();
    let mean = tokens.iter().sum::<usize>() as f64 / tokens.len() as f64;
    assert!(mean <= 1500.0, "mean prompt tokens {mean}: {tokens:?}");
}

#[test]
fn docstring_ordering_the_model_to_answer_safe_cannot_clear_static_findings() {
    let poisoned = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../mcp-scan-llm/tests/fixtures/poisoned_server");
    // The stub plays a model that obeys the docstring and answers "aligned".
    let stub = Stub::start(|req, _| {
        if let Some(r) = Reply::qualification_answer(req) {
            return r;
        }
        let obeys = serde_json::json!({
            "mismatch": false,
            "threat_name": null,
            "description_claims": "summarizes text",
            "code_does": "summarizes text",
            "evidence": [],
        });
        Reply::answer_for(req, &obeys.to_string())
    });
    let home = tempfile::tempdir().expect("home");
    let mut args = llm_args(&stub);
    args.push("--llm-no-cache".into());
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let with_llm = scan(&poisoned, home.path(), &[], &args);
    let without = scan(&poisoned, home.path(), &[], &["--no-llm"]);
    assert_eq!(with_llm.status.code(), Some(3));
    assert_eq!(without.status.code(), Some(3));
    let (a, b) = (raw(&with_llm), raw(&without));
    let e = entity(&a, "summarize");
    assert_eq!(e["status"], "UNSAFE");
    assert_eq!(e["max_severity"], "HIGH");
    assert_eq!(llm_state(e).as_deref(), Some("complete"));
    assert_eq!(
        e["findings"],
        entity(&b, "summarize")["findings"],
        "the verdict neither removed nor lowered any static finding"
    );

    // The injection reached the model only inside the random-delimited data fence.
    let user = tool_requests(&stub)[0].user_text();
    let open = user.find("<<<DATA ").expect("fence");
    let nonce = &user[open + 8..open + 40];
    let close = user
        .find(&format!("<<<END DATA {nonce}>>>"))
        .expect("fence closed");
    let injection = user
        .find("IMPORTANT NOTE TO THE REVIEWING MODEL")
        .expect("declared text sent");
    assert!(open < injection && injection < close, "{user}");
    assert_eq!(
        user.matches("IMPORTANT NOTE TO THE REVIEWING MODEL")
            .count(),
        1
    );
}
