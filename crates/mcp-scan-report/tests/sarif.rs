//! `sarif`: SARIF 2.1.0 valid against the OASIS schema and shaped the way GitHub code scanning
//! needs it (rules with security-severity, a physical location on every result, fingerprints).

mod sample;

use mcp_scan_core::{Analyzer, AnalyzerStatus, EntityReport, Report, ScanInfo, Severity, ToolRef};
use mcp_scan_report::{Format, RenderOptions, RuleHelp, render};
use sample::{sample_report, schema_errors};
use serde_json::Value;

const SARIF_SCHEMA: &str = "crates/mcp-scan-report/tests/data/sarif-schema-2.1.0.json";

fn sarif(report: &Report, opts: &RenderOptions) -> Value {
    serde_json::from_str(&render(report, Format::Sarif, opts)).expect("SARIF is JSON")
}

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected an array, got {v}"))
}

#[test]
fn sarif_snapshot_of_the_sample_report() {
    insta::assert_snapshot!(
        "sarif",
        render(&sample_report(), Format::Sarif, &RenderOptions::default())
    );
}

#[test]
fn sarif_validates_against_the_sarif_2_1_0_schema() {
    let text = render(&sample_report(), Format::Sarif, &RenderOptions::default());
    let errors = schema_errors(SARIF_SCHEMA, &text);
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn sarif_schema_check_rejects_a_broken_log() {
    // Twin of the validation test: the vendored schema and validator do catch mistakes.
    let mut v = sarif(&sample_report(), &RenderOptions::default());
    v["version"] = Value::from("2.0.0");
    v["runs"][0]["results"][0]["level"] = Value::from("fatal");
    let errors = schema_errors(SARIF_SCHEMA, &v.to_string());
    assert!(
        errors.iter().any(|e| e.starts_with("version:")),
        "{errors:#?}"
    );
    assert!(errors.iter().any(|e| e.contains("'fatal'")), "{errors:#?}");
}

#[test]
fn sarif_meets_github_code_scanning_requirements() {
    let report = sample_report();
    let v = sarif(&report, &RenderOptions::default());
    assert_eq!(v["version"], "2.1.0");
    assert!(
        v["$schema"]
            .as_str()
            .is_some_and(|s| s.contains("sarif-2.1.0"))
    );
    let runs = arr(&v["runs"]);
    assert_eq!(runs.len(), 1);
    let driver = &runs[0]["tool"]["driver"];
    assert_eq!(driver["name"], "mcp-scan");
    assert_eq!(driver["version"], "0.0.0-test");
    assert!(
        driver["informationUri"]
            .as_str()
            .is_some_and(|u| u.starts_with("https://"))
    );

    let rules = arr(&driver["rules"]);
    let ids: Vec<&str> = rules.iter().filter_map(|r| r["id"].as_str()).collect();
    assert_eq!(
        ids,
        [
            "MCPS-D001",
            "MCPS-D003",
            "MCPS-L001",
            "MCPS-R013",
            "MCPS-S001",
            "MCPS-S005"
        ]
    );
    for r in rules {
        for field in ["shortDescription", "fullDescription", "help"] {
            assert!(
                r[field]["text"].as_str().is_some_and(|t| !t.is_empty()),
                "{field} of {r}"
            );
        }
        assert!(r["name"].as_str().is_some_and(|n| !n.is_empty()));
        let sev: f64 = r["properties"]["security-severity"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("security-severity must be a numeric string: {r}"));
        assert!((0.0..=10.0).contains(&sev));
        let tags: Vec<&str> = arr(&r["properties"]["tags"])
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert!(tags.contains(&"security"));
        assert!(tags.iter().any(|t| t.starts_with("AITech-")), "{tags:?}");
        assert!(tags.iter().any(|t| t.starts_with("AISubtech-")), "{tags:?}");
        assert!(
            ["error", "warning", "note"]
                .contains(&r["defaultConfiguration"]["level"].as_str().unwrap_or(""))
        );
    }
    // The exfiltration rule reached CRITICAL: GitHub shows critical above 9.0.
    let exfil = rules.iter().find(|r| r["id"] == "MCPS-S001").expect("rule");
    assert_eq!(exfil["properties"]["security-severity"], "9.5");
    assert_eq!(exfil["defaultConfiguration"]["level"], "error");

    let results = arr(&runs[0]["results"]);
    assert_eq!(results.len(), report.findings().count());
    for res in results {
        let idx = res["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[idx]["id"], res["ruleId"]);
        assert!(["error", "warning", "note"].contains(&res["level"].as_str().unwrap_or("")));
        assert!(
            res["message"]["text"]
                .as_str()
                .is_some_and(|t| !t.is_empty())
        );
        let loc = &arr(&res["locations"])[0]["physicalLocation"];
        assert!(
            loc["artifactLocation"]["uri"]
                .as_str()
                .is_some_and(|u| !u.is_empty())
        );
        assert!(loc["region"]["startLine"].as_u64().is_some_and(|l| l >= 1));
        let fp = res["partialFingerprints"]["mcpScan/v1"]
            .as_str()
            .expect("fingerprint");
        assert!(report.findings().any(|f| f.fingerprint == fp));
        for key in ["severity", "confidence", "analyzers", "taxonomy", "target"] {
            assert!(!res["properties"][key].is_null(), "{key}");
        }
    }
}

#[test]
fn sarif_uses_the_finding_location_or_falls_back_to_the_first_target() {
    let v = sarif(&sample_report(), &RenderOptions::default());
    let results = arr(&v["runs"][0]["results"]);
    let by_rule = |id: &str| {
        results
            .iter()
            .find(|r| r["ruleId"] == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    let located = by_rule("MCPS-S001");
    let pl = &located["locations"][0]["physicalLocation"];
    assert_eq!(pl["artifactLocation"]["uri"], "server.py");
    assert_eq!(pl["region"]["startLine"], 42);
    assert_eq!(pl["region"]["startColumn"], 5);
    assert_eq!(located["properties"]["locationIsFallback"], false);

    let poisoned = by_rule("MCPS-D001");
    let pl = &poisoned["locations"][0]["physicalLocation"];
    assert_eq!(pl["artifactLocation"]["uri"], "servers/notes");
    assert_eq!(pl["region"]["startLine"], 1);
    assert_eq!(poisoned["properties"]["locationIsFallback"], true);
}

#[test]
fn sarif_marks_corroboration_and_reports_incomplete_items_and_diagnostics() {
    let v = sarif(&sample_report(), &RenderOptions::default());
    let run = &v["runs"][0];
    let corroborated: Vec<&Value> = arr(&run["results"])
        .iter()
        .filter(|r| r["properties"]["corroborated"] == true)
        .collect();
    assert_eq!(corroborated.len(), 1);
    assert_eq!(
        corroborated[0]["properties"]["analyzers"],
        serde_json::json!(["static", "runtime"])
    );

    let inv = &arr(&run["invocations"])[0];
    assert_eq!(
        inv["executionSuccessful"], false,
        "an error diagnostic means the run failed"
    );
    let notes = arr(&inv["toolExecutionNotifications"]);
    assert!(
        notes
            .iter()
            .any(|n| n["level"] == "error" && n["message"]["text"] == "expected `,` or `}`")
    );
    assert!(notes.iter().any(|n| {
        n["properties"]["status"] == "INCOMPLETE"
            && n["message"]["text"]
                .as_str()
                .is_some_and(|t| t.contains("run_command"))
    }));
}

#[test]
fn sarif_of_a_clean_scan_has_no_results_and_a_successful_invocation() {
    let mut r = Report::new(ScanInfo {
        command: "manifest".into(),
        targets: vec!["tools.json".into()],
        analyzers: vec![Analyzer::Description],
    });
    let mut e = EntityReport::new(
        ToolRef::tool("calc", "add"),
        Some("Add two numbers.".into()),
    );
    e.analyzers
        .push(AnalyzerStatus::complete(Analyzer::Description));
    r.entities.push(e);
    let text = render(&r, Format::Sarif, &RenderOptions::default());
    let v: Value = serde_json::from_str(&text).expect("json");
    assert!(arr(&v["runs"][0]["results"]).is_empty());
    assert!(arr(&v["runs"][0]["tool"]["driver"]["rules"]).is_empty());
    assert_eq!(v["runs"][0]["invocations"][0]["executionSuccessful"], true);
    assert!(arr(&v["runs"][0]["invocations"][0]["toolExecutionNotifications"]).is_empty());
    assert!(schema_errors(SARIF_SCHEMA, &text).is_empty());
}

#[test]
fn sarif_min_severity_drops_lower_results_and_their_rules() {
    let opts = RenderOptions {
        color: false,
        min_severity: Some(Severity::High),
        ..RenderOptions::default()
    };
    let v = sarif(&sample_report(), &opts);
    let results = arr(&v["runs"][0]["results"]);
    assert_eq!(results.len(), 3);
    assert!(results.iter().all(|r| r["level"] == "error"));
    let rules: Vec<&str> = arr(&v["runs"][0]["tool"]["driver"]["rules"])
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert_eq!(rules, ["MCPS-D001", "MCPS-L001", "MCPS-S001"]);
    assert_eq!(v["runs"][0]["properties"]["minSeverity"], "HIGH");
}

#[test]
fn sarif_rule_shared_by_several_threats_names_all_of_them() {
    // MCPS-L001 (the LLM check) reports three different threats in the sample.
    let v = sarif(&sample_report(), &RenderOptions::default());
    let rules = arr(&v["runs"][0]["tool"]["driver"]["rules"]);
    let llm = rules.iter().find(|r| r["id"] == "MCPS-L001").expect("rule");
    let tags: Vec<&str> = arr(&llm["properties"]["tags"])
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for code in ["AISubtech-9.1.3", "AISubtech-12.1.2", "AISubtech-1.3.2"] {
        assert!(tags.contains(&code), "{code} in {tags:?}");
    }
    // Without catalog help, a rule spanning threats is named by its id.
    assert_eq!(llm["name"], "MCPS-L001");
    // Twin: a rule with one threat is named after what it found, not after the threat, which
    // other rules share.
    let d = rules.iter().find(|r| r["id"] == "MCPS-D001").expect("rule");
    assert_eq!(d["name"], "HiddenInstructionsForTheModel");
    assert_eq!(arr(&d["properties"]["taxonomy"]).len(), 1);
}

fn artifact_uris(v: &Value) -> Vec<String> {
    arr(&v["runs"][0]["results"])
        .iter()
        .map(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

#[test]
fn sarif_uris_are_resolved_from_the_scan_root_as_seen_from_the_working_directory() {
    let report = sample_report();
    let plain = artifact_uris(&sarif(&report, &RenderOptions::default()));
    assert!(plain.contains(&"server.py".to_string()), "{plain:?}");
    let based = sarif(
        &report,
        &RenderOptions {
            source_base: Some("servers/notes/"),
            ..RenderOptions::default()
        },
    );
    let uris = artifact_uris(&based);
    assert!(
        uris.contains(&"servers/notes/server.py".to_string()),
        "{uris:?}"
    );
    assert!(!uris.contains(&"server.py".to_string()), "{uris:?}");
    // A scan root outside the working directory is absolute: a file URI.
    let outside = artifact_uris(&sarif(
        &report,
        &RenderOptions {
            source_base: Some("/srv/scans/notes"),
            ..RenderOptions::default()
        },
    ));
    assert!(
        outside.contains(&"file:///srv/scans/notes/server.py".to_string()),
        "{outside:?}"
    );
    // The root itself adds nothing.
    let here = artifact_uris(&sarif(
        &report,
        &RenderOptions {
            source_base: Some("."),
            ..RenderOptions::default()
        },
    ));
    assert_eq!(here, plain);
    assert!(schema_errors(SARIF_SCHEMA, &based.to_string()).is_empty());
}

fn rule_names(v: &Value) -> Vec<(String, String)> {
    arr(&v["runs"][0]["tool"]["driver"]["rules"])
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap_or_default().to_string(),
                r["name"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Two findings of different rules that share one threat, as `behavioral` often reports.
fn two_rules_one_threat(title_a: &str, title_b: &str) -> Report {
    let mut r = Report::new(ScanInfo {
        command: "behavioral".into(),
        targets: vec!["srv".into()],
        analyzers: vec![Analyzer::Static],
    });
    let t = ToolRef::tool("srv", "fetch");
    let mut e = EntityReport::new(t.clone(), None);
    e.analyzers.push(AnalyzerStatus::complete(Analyzer::Static));
    let tax = mcp_scan_core::taxonomy::by_threat("UNAUTHORIZED OR UNSOLICITED NETWORK ACCESS")
        .expect("threat in the taxonomy");
    for (id, title) in [("MCPS-S007", title_a), ("MCPS-S010", title_b)] {
        e.findings.push(
            mcp_scan_core::Finding::builder(id, Analyzer::Static, tax, t.clone())
                .severity(Severity::High)
                .title(title)
                .observation("o")
                .build(),
        );
    }
    r.entities.push(e);
    r.normalize();
    r
}

#[test]
fn sarif_rule_names_are_distinct_when_rules_share_a_threat() {
    let v = sarif(
        &two_rules_one_threat("param to url fetch", "undeclared network destination"),
        &RenderOptions::default(),
    );
    assert_eq!(
        rule_names(&v),
        [
            ("MCPS-S007".into(), "ParamToUrlFetch".into()),
            ("MCPS-S010".into(), "UndeclaredNetworkDestination".into())
        ]
    );
    // Even rules whose findings carry the same title keep distinct names.
    let same = sarif(&two_rules_one_threat("x", "x"), &RenderOptions::default());
    let names: Vec<String> = rule_names(&same).into_iter().map(|(_, n)| n).collect();
    assert_eq!(names.len(), 2);
    assert_ne!(names[0], names[1]);
}

#[test]
fn sarif_rules_carry_the_catalog_name_and_the_fix_as_help() {
    let help = [RuleHelp {
        id: "MCPS-S007".into(),
        name: "param-to-url-fetch".into(),
        what: "A tool parameter decides the URL a request goes to.".into(),
        why: "SSRF.".into(),
        fix: "Check the host against an allow-list.".into(),
    }];
    let v = sarif(
        &two_rules_one_threat("a", "b"),
        &RenderOptions {
            rule_help: &help,
            ..RenderOptions::default()
        },
    );
    let rules = arr(&v["runs"][0]["tool"]["driver"]["rules"]);
    let s007 = rules.iter().find(|r| r["id"] == "MCPS-S007").expect("rule");
    assert_eq!(s007["name"], "ParamToUrlFetch");
    assert_eq!(
        s007["fullDescription"]["text"],
        "A tool parameter decides the URL a request goes to."
    );
    let text = s007["help"]["text"].as_str().unwrap_or_default();
    assert!(
        text.contains("Fix: Check the host against an allow-list."),
        "{text}"
    );
    // A rule the catalog does not document still gets help, without a made-up fix.
    let s010 = rules.iter().find(|r| r["id"] == "MCPS-S010").expect("rule");
    assert!(
        !s010["help"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("Fix:")
    );
    assert!(schema_errors(SARIF_SCHEMA, &v.to_string()).is_empty());
}

#[test]
fn sarif_run_has_an_automation_id_per_command() {
    let v = sarif(&sample_report(), &RenderOptions::default());
    assert_eq!(v["runs"][0]["automationDetails"]["id"], "mcp-scan/scan/");
    let b = sarif(&two_rules_one_threat("a", "b"), &RenderOptions::default());
    assert_eq!(
        b["runs"][0]["automationDetails"]["id"],
        "mcp-scan/behavioral/"
    );
}
