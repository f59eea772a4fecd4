//! `raw`: versioned JSON that round-trips to `Report`, validates against the documented schema,
//! and carries derived statuses that never call an INCOMPLETE item SAFE.

mod sample;

use mcp_scan_core::{REPORT_SCHEMA_VERSION, Report, Severity};
use mcp_scan_report::{Format, RenderOptions, render};
use sample::{sample_report, schema_errors};
use serde_json::Value;

const SCHEMA: &str = "docs/raw-report.schema.json";

fn raw(opts: &RenderOptions) -> String {
    render(&sample_report(), Format::Raw, opts)
}

#[test]
fn raw_snapshot_of_the_sample_report() {
    insta::assert_snapshot!("raw", raw(&RenderOptions::default()));
}

#[test]
fn raw_round_trips_to_the_same_report_and_carries_schema_version() {
    let text = raw(&RenderOptions::default());
    let back: Report = serde_json::from_str(&text).expect("raw parses as a Report");
    assert_eq!(back, sample_report());
    let v: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["schema_version"], Value::from(REPORT_SCHEMA_VERSION));
}

#[test]
fn raw_carries_every_field_serde_writes_for_a_report() {
    // Guards against the raw writer drifting from core's Report when a field is added there.
    let full = serde_json::to_value(sample_report()).expect("value");
    let raw: Value = serde_json::from_str(&raw(&RenderOptions::default())).expect("json");
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };
    for k in keys(&full) {
        assert!(raw.get(&k).is_some(), "raw lacks top-level `{k}`");
    }
    for (e_full, e_raw) in full["entities"]
        .as_array()
        .into_iter()
        .flatten()
        .zip(raw["entities"].as_array().into_iter().flatten())
    {
        for k in keys(e_full) {
            assert!(e_raw.get(&k).is_some(), "raw entity lacks `{k}`");
        }
    }
}

#[test]
fn raw_derived_statuses_mark_incomplete_and_safe_items() {
    let v: Value = serde_json::from_str(&raw(&RenderOptions::default())).expect("json");
    let status_of = |name: &str| {
        v["entities"]
            .as_array()
            .and_then(|es| es.iter().find(|e| e["target"]["name"] == name))
            .map(|e| e["status"].clone())
    };
    assert_eq!(status_of("run_command"), Some(Value::from("INCOMPLETE")));
    assert_eq!(status_of("list_notes"), Some(Value::from("SAFE")));
    assert_eq!(status_of("send_note"), Some(Value::from("UNSAFE")));
    assert_eq!(v["summary"]["incomplete"], 1);
    assert_eq!(v["summary"]["unsafe"], 5);
    assert_eq!(v["summary"]["safe"], 2);
    assert_eq!(v["summary"]["corroborated"], 1);
    assert_eq!(v["summary"]["by_severity"]["CRITICAL"], 1);
    assert!(
        v.get("filter").is_none(),
        "no filter block without --min-severity"
    );
}

#[test]
fn raw_min_severity_drops_lower_findings_but_keeps_statuses_and_counts() {
    let text = raw(&RenderOptions {
        color: false,
        min_severity: Some(Severity::High),
        ..RenderOptions::default()
    });
    let v: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["filter"]["min_severity"], "HIGH");
    assert_eq!(v["filter"]["hidden_findings"], 5);
    let read_file = v["entities"]
        .as_array()
        .and_then(|es| es.iter().find(|e| e["target"]["name"] == "read_file"))
        .expect("read_file listed");
    assert_eq!(read_file["status"], "UNSAFE");
    assert_eq!(read_file["max_severity"], "MEDIUM");
    assert_eq!(read_file["findings"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["summary"]["findings"], 8);
    assert!(schema_errors(SCHEMA, &text).is_empty());
}

#[test]
fn raw_validates_against_the_documented_json_schema() {
    let text = raw(&RenderOptions::default());
    let errors = schema_errors(SCHEMA, &text);
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn schema_rejects_a_document_that_breaks_it() {
    // Twin of the test above: the validator really checks (wrong type, unknown severity,
    // undocumented field).
    let mut v: Value = serde_json::from_str(&raw(&RenderOptions::default())).expect("json");
    v["schema_version"] = Value::from("one");
    v["entities"][0]["findings"][0]["severity"] = Value::from("SEVERE");
    v["entities"][0]["surprise"] = Value::from(true);
    let errors = schema_errors(SCHEMA, &v.to_string());
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(errors.iter().any(|e| e.starts_with("schema_version:")));
    assert!(errors.iter().any(|e| e.contains("'SEVERE'")));
    assert!(errors.iter().any(|e| e.contains("'surprise'")));
}

#[test]
fn raw_of_a_scored_scan_with_servers_and_trust_validates_and_round_trips() {
    let mut report = sample_report();
    report.scan.command = "scan".into();
    for (i, e) in report.entities.iter_mut().enumerate() {
        e.trust = Some(u8::try_from(i * 10).unwrap_or(100).min(100));
    }
    report.servers.push(mcp_scan_core::ServerReport {
        name: "notes".into(),
        origin: vec!["config ~/.cursor/mcp.json (cursor)".into()],
        env: vec!["NOTES_TOKEN".into()],
        server_info: Some("notes-server".into()),
        witnesses: vec![mcp_scan_core::AnalyzerStatus::complete(
            mcp_scan_core::Analyzer::Static,
        )],
        notes: vec!["runtime: not run (pass --run to run the server in the sandbox)".into()],
        status: mcp_scan_core::ToolStatus::Unsafe,
        trust: 12,
    });
    let text = render(&report, Format::Raw, &RenderOptions::default());
    let errors = schema_errors(SCHEMA, &text);
    assert!(errors.is_empty(), "{errors:#?}");
    let back: Report = serde_json::from_str(&text).expect("raw parses as a Report");
    assert_eq!(back, report);
    // Its twin: a trust above 100 is not a score.
    let mut v: Value = serde_json::from_str(&text).expect("json");
    v["servers"][0]["trust"] = Value::from(101);
    assert_eq!(schema_errors(SCHEMA, &v.to_string()).len(), 1);
}
