//! How answers are asked for: a JSON schema (structured outputs) by default, `json_object` once an
//! endpoint refuses schemas, and the valid-answer rate per mode. Against a real HTTP stub on
//! 127.0.0.1 speaking the OpenAI chat-completions wire format.

mod support;

use mcp_scan_llm::provider::SchemaPolicy;
use mcp_scan_llm::{LlmSettings, ToolResult, check_blocking};
use std::time::Duration;
use support::stub::{Recorded, Reply, Stub};
use support::*;

fn settings(stub: &Stub, policy: SchemaPolicy) -> LlmSettings {
    let mut s = LlmSettings::openai_compatible(stub.openai_base(), "stub-model");
    s.backoff = Duration::from_millis(10);
    s.max_backoff = Duration::from_millis(50);
    s.timeout = Duration::from_secs(10);
    s.concurrency = 1;
    s.answer_format = policy;
    s
}

fn answer(req: &Recorded) -> Reply {
    let content = if req.tool_name().as_deref() == Some("format_note") {
        verdict_json(true, Some("DATA EXFILTRATION"), &["E1"])
    } else {
        verdict_json(false, None, &[])
    };
    Reply::answer_for(req, &content)
}

fn is_schema(req: &Recorded) -> bool {
    req.json()["response_format"]["type"] == "json_schema"
}

/// Evidence ids as the prompt lists them (`E1 flow: ...`).
fn offered_ids(req: &Recorded) -> Vec<String> {
    let mut ids: Vec<String> = req
        .prompt_text()
        .lines()
        .filter_map(|l| {
            let id = l.split_whitespace().next()?;
            (id.len() >= 2 && id.starts_with('E') && id[1..].chars().all(|c| c.is_ascii_digit()))
                .then(|| id.to_string())
        })
        .collect();
    ids.dedup();
    ids
}

#[test]
fn schema_request_enumerates_threats_and_exactly_the_evidence_ids_offered() {
    let stub = Stub::start(|req, _| answer(req));
    let outcome = check_blocking(
        &settings(&stub, SchemaPolicy::Auto),
        &[leaky_format_note(), honest_add()],
    )
    .expect("runs");
    let reqs = stub.requests();
    assert_eq!(reqs.len(), 2, "one request per tool");
    let leaky = reqs
        .iter()
        .find(|r| r.tool_name().as_deref() == Some("format_note"))
        .expect("leaky request");
    let rf = &leaky.json()["response_format"];
    assert_eq!(rf["type"], "json_schema");
    assert_eq!(rf["json_schema"]["name"], "alignment_verdict");
    assert_eq!(rf["json_schema"]["strict"], true);
    let schema = &rf["json_schema"]["schema"];
    let ids = offered_ids(leaky);
    assert!(!ids.is_empty(), "the leaky tool's prompt offers evidence");
    assert_eq!(
        schema["properties"]["evidence"]["items"]["enum"],
        serde_json::json!(ids)
    );
    let threats = schema["properties"]["threat_name"]["enum"]
        .as_array()
        .expect("threat enum");
    assert!(threats.contains(&serde_json::json!("DATA EXFILTRATION")));
    assert!(threats.contains(&serde_json::Value::Null));
    assert_eq!(outcome.stats().answers_summary(), "json_schema 2/2 valid");
    assert!(outcome.warnings.is_empty(), "{:?}", outcome.warnings);
}

#[test]
fn endpoint_refusing_json_schema_falls_back_to_json_object_once_and_says_so() {
    let stub = Stub::start(|req, _| {
        if is_schema(req) {
            Reply::error_for(req, 400, None)
        } else {
            answer(req)
        }
    });
    let outcome = check_blocking(
        &settings(&stub, SchemaPolicy::Auto),
        &[leaky_format_note(), honest_add(), honest_read_note()],
    )
    .expect("runs");
    let reqs = stub.requests();
    // The first prompt is refused once and re-sent; every later one goes as json_object.
    assert_eq!(reqs.len(), 4);
    assert!(is_schema(&reqs[0]));
    assert!(reqs[1..].iter().all(|r| !is_schema(r)));
    assert_eq!(outcome.stats().incomplete, 0);
    assert_eq!(outcome.stats().answers_summary(), "json_object 3/3 valid");
    assert!(
        outcome
            .warnings
            .iter()
            .any(|w| w.contains("refused a JSON-schema answer format (HTTP 400")),
        "{:?}",
        outcome.warnings
    );
    assert!(
        matches!(
            &outcome.tools[0].result,
            ToolResult::Verdict {
                finding: Some(_),
                ..
            }
        ),
        "the fallback still reaches a verdict"
    );
}

#[test]
fn required_json_schema_that_is_refused_leaves_tools_incomplete() {
    let stub = Stub::start(|req, _| {
        if is_schema(req) {
            Reply::error_for(req, 400, None)
        } else {
            answer(req)
        }
    });
    let outcome = check_blocking(
        &settings(&stub, SchemaPolicy::Require),
        &[leaky_format_note()],
    )
    .expect("runs");
    assert_eq!(stub.requests().len(), 1);
    assert!(stub.requests().iter().all(is_schema));
    let ToolResult::Incomplete { reason } = &outcome.tools[0].result else {
        panic!("expected INCOMPLETE, got {:?}", outcome.tools[0].result)
    };
    assert!(reason.contains("HTTP 400"), "{reason}");
}

#[test]
fn json_object_policy_never_sends_a_schema() {
    let stub = Stub::start(|req, _| answer(req));
    let outcome = check_blocking(
        &settings(&stub, SchemaPolicy::Never),
        &[leaky_format_note(), honest_add()],
    )
    .expect("runs");
    assert!(stub.requests().iter().all(|r| !is_schema(r)));
    assert_eq!(outcome.stats().answers_summary(), "json_object 2/2 valid");
}

#[test]
fn valid_answer_rate_counts_every_answer_including_rejected_ones() {
    // The first answer is not the schema's shape (a model ignoring the grammar), the retry is.
    let stub = Stub::start(|req, n| {
        if n == 0 {
            Reply::answer_for(req, r#"{"verdict": "fine"}"#)
        } else {
            answer(req)
        }
    });
    let outcome =
        check_blocking(&settings(&stub, SchemaPolicy::Auto), &[honest_add()]).expect("runs");
    assert_eq!(stub.requests().len(), 2);
    assert_eq!(outcome.stats().answers_summary(), "json_schema 1/2 valid");
    assert!(matches!(
        outcome.tools[0].result,
        ToolResult::Verdict { .. }
    ));
}
