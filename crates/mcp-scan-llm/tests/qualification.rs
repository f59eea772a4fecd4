//! The model proves itself first: the built-in known-answer cases run before the tools, through
//! the same template and request loop, against a real HTTP stub on 127.0.0.1.

mod support;

use mcp_scan_core::{Confidence, Severity};
use mcp_scan_llm::qualification::Cases;
use mcp_scan_llm::{LlmError, LlmSettings, ToolResult, check_blocking};
use std::time::Duration;
use support::stub::{Recorded, Reply, Stub};
use support::*;

fn settings(stub: &Stub) -> LlmSettings {
    let mut s = LlmSettings::openai_compatible(stub.openai_base(), "stub-model");
    s.backoff = Duration::from_millis(10);
    s.max_backoff = Duration::from_millis(50);
    s.timeout = Duration::from_secs(10);
    s.qualify = true;
    s
}

/// Cites the first evidence id when there is one to cite.
fn mismatch_for(req: &Recorded) -> Reply {
    let cites: &[&str] = if req.prompt_text().contains("E1 ") {
        &["E1"]
    } else {
        &[]
    };
    Reply::answer_for(req, &verdict_json(true, Some("DATA EXFILTRATION"), cites))
}

/// A model that knows the cases and calls the leaky tool a mismatch.
fn competent(req: &Recorded, _: usize) -> Reply {
    if let Some(r) = Reply::qualification_answer(req) {
        return r;
    }
    if req.tool_name().as_deref() == Some("format_note") {
        mismatch_for(req)
    } else {
        Reply::answer_for(req, &verdict_json(false, None, &[]))
    }
}

fn leaky_finding(outcome: &mcp_scan_llm::LlmOutcome) -> Box<mcp_scan_core::Finding> {
    match &outcome.tools[0].result {
        ToolResult::Verdict {
            finding: Some(f), ..
        } => f.clone(),
        other => panic!("expected a finding, got {other:?}"),
    }
}

#[test]
fn a_model_that_calls_everything_a_mismatch_is_caught_and_its_verdicts_are_advisory() {
    let stub = Stub::start(|req, _| mismatch_for(req));
    let outcome = check_blocking(&settings(&stub), &[leaky_format_note()]).expect("runs");
    let q = outcome.qualification.as_ref().expect("qualification ran");
    assert!(!q.passed(), "{}", q.score());
    assert_eq!(q.aligned_right, 0);
    let f = leaky_finding(&outcome);
    assert_eq!(f.severity, Severity::Low, "advisory");
    assert_eq!(f.confidence, Confidence::Low);
    assert!(f.observation.contains("Advisory"), "{}", f.observation);
    assert!(
        outcome.warnings[0].contains("did not qualify")
            && outcome.warnings[0].contains("stub-model"),
        "{:?}",
        outcome.warnings
    );
    assert!(outcome.summary("tool(s)").contains("NOT qualified"));
}

#[test]
fn a_model_that_calls_everything_aligned_is_caught_too() {
    let stub = Stub::start(|req, _| Reply::answer_for(req, &verdict_json(false, None, &[])));
    let outcome = check_blocking(&settings(&stub), &[honest_add()]).expect("runs");
    let q = outcome.qualification.as_ref().expect("qualification ran");
    assert!(!q.passed());
    assert_eq!(q.mismatch_right, 0);
}

#[test]
fn require_qualified_turns_a_failed_qualification_into_an_error_naming_the_model() {
    let stub = Stub::start(|req, _| mismatch_for(req));
    let mut s = settings(&stub);
    s.require_qualified = true;
    let err = check_blocking(&s, &[leaky_format_note()]).expect_err("unqualified");
    assert!(matches!(err, LlmError::Unqualified(_)), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("stub-model") && msg.contains("--llm-require-qualified"),
        "{msg}"
    );
    let cases = Cases::builtin().expect("cases").cases.len();
    assert_eq!(
        stub.requests().len(),
        cases,
        "each case answered once, and no tool checked after the failure"
    );
}

#[test]
fn a_competent_model_qualifies_and_its_findings_keep_their_severity() {
    let stub = Stub::start(competent);
    let outcome =
        check_blocking(&settings(&stub), &[leaky_format_note(), honest_add()]).expect("runs");
    let q = outcome.qualification.as_ref().expect("qualification ran");
    assert!(q.passed(), "{}", q.warning());
    assert!(q.wrong.is_empty(), "{:?}", q.wrong);
    assert_eq!(leaky_finding(&outcome).severity, Severity::High);
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
    assert!(outcome.summary("tool(s)").contains("qualified 12/12"));
}

#[test]
fn a_rescan_qualifies_from_the_cache_without_a_request() {
    let stub = Stub::start(competent);
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = settings(&stub);
    s.cache_dir = Some(dir.path().to_path_buf());
    let first = check_blocking(&s, &[honest_add()]).expect("runs");
    let sent = stub.requests().len();
    assert_eq!(sent, Cases::builtin().expect("cases").cases.len() + 1);
    let second = check_blocking(&s, &[honest_add()]).expect("runs");
    assert_eq!(stub.requests().len(), sent, "nothing sent on a re-scan");
    assert_eq!(first.qualification, second.qualification);
}
