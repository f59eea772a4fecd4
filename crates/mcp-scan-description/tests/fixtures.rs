//! Every description rule has a fixture pair: a manifest that must fire it (at MEDIUM or above,
//! the benchmark's detection threshold) and a benign look-alike that must not.

use mcp_scan_core::{Analyzer, EntityReport, Severity};
use mcp_scan_core::{EntityKind, Finding, ToolRef};
use mcp_scan_description::DescriptionAnalyzer;
use mcp_scan_rules::description::{DescriptionRules, FieldClass};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Rules that read tool answers have a JSON array of answers as fixtures; each answer becomes one
/// entity whose findings are the rule hits at their severity.
fn scan_answers(rel: &str) -> Vec<EntityReport> {
    let text = std::fs::read_to_string(repo().join(rel)).expect("fixture readable");
    let answers: Vec<String> = serde_json::from_str(&text).expect("a JSON array of answers");
    let analyzer = DescriptionAnalyzer::builtin().expect("built-in rules");
    let rules = analyzer.rules();
    answers
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let target = ToolRef::new("fixture", EntityKind::Tool, format!("answer[{i}]"));
            let mut e = EntityReport::new(target.clone(), None);
            e.analyzers.push(mcp_scan_core::AnalyzerStatus::complete(
                Analyzer::Description,
            ));
            let field =
                mcp_scan_description::Field::new("response".into(), FieldClass::Response, a);
            for h in analyzer.scan_fields(&[field], &Default::default()) {
                let r = &rules.rules[h.rule];
                e.findings.push(
                    Finding::builder(
                        r.meta.id.clone(),
                        Analyzer::Description,
                        r.meta.taxonomy,
                        target.clone(),
                    )
                    .severity(h.severity)
                    .title(r.title.clone())
                    .observation(format!("{}: {}", h.cues.join("; "), h.excerpt))
                    .build(),
                );
            }
            e
        })
        .collect()
}

fn reads_answers(rel: &str) -> bool {
    DescriptionRules::builtin()
        .expect("built-in rules")
        .rules
        .iter()
        .any(|r| {
            r.applies_to(FieldClass::Response) && (r.fixture_fire == rel || r.fixture_benign == rel)
        })
}

fn scan(rel: &str) -> Vec<EntityReport> {
    let path = repo().join(rel);
    assert!(path.is_file(), "fixture {rel} is missing");
    if reads_answers(rel) {
        return scan_answers(rel);
    }
    let out = mcp_scan_manifest::load(&path.to_string_lossy());
    assert!(out.errors.is_empty(), "{rel}: {:?}", out.errors);
    let analyzer = DescriptionAnalyzer::builtin().expect("built-in rules");
    analyzer.scan_manifest(&out.manifest)
}

#[test]
fn every_rule_fires_on_its_fixture_at_medium_or_above() {
    let rules = DescriptionRules::builtin().expect("built-in rules");
    for rule in &rules.rules {
        let entities = scan(&rule.fixture_fire);
        if rule.applies_to(FieldClass::Response) {
            for e in &entities {
                let best = e
                    .findings
                    .iter()
                    .filter(|f| f.rule_id == rule.meta.id)
                    .map(|f| f.severity)
                    .max();
                assert!(
                    best.is_some_and(|s| s >= Severity::Medium),
                    "{} must fire at MEDIUM+ on every answer of {}: {} got {best:?}",
                    rule.meta.id,
                    rule.fixture_fire,
                    e.target
                );
            }
        }
        let best = entities
            .iter()
            .flat_map(|e| &e.findings)
            .filter(|f| f.rule_id == rule.meta.id)
            .map(|f| f.severity)
            .max();
        assert!(
            best.is_some_and(|s| s >= Severity::Medium),
            "{} must fire at MEDIUM+ on {}, got {best:?}",
            rule.meta.id,
            rule.fixture_fire
        );
    }
}

#[test]
fn no_rule_fires_on_its_benign_twin() {
    let rules = DescriptionRules::builtin().expect("built-in rules");
    for rule in &rules.rules {
        let entities = scan(&rule.fixture_benign);
        assert!(
            !entities.is_empty(),
            "{} benign fixture has no entities",
            rule.meta.id
        );
        for e in &entities {
            assert!(e.complete(), "{}", e.target);
            for f in &e.findings {
                assert_ne!(
                    f.rule_id, rule.meta.id,
                    "{} fired on its benign twin {}: {}",
                    rule.meta.id, rule.fixture_benign, f.observation
                );
                assert!(
                    f.severity < Severity::Medium,
                    "{} reported {} {} on benign {}: {}",
                    f.rule_id,
                    f.severity,
                    f.title,
                    rule.fixture_benign,
                    f.observation
                );
            }
        }
    }
}

#[test]
fn every_fixture_file_belongs_to_a_rule() {
    let rules = DescriptionRules::builtin().expect("built-in rules");
    let referenced: BTreeSet<String> = rules
        .rules
        .iter()
        .flat_map(|r| [r.fixture_fire.clone(), r.fixture_benign.clone()])
        .collect();
    let dir = repo().join("fixtures/description");
    for e in std::fs::read_dir(&dir)
        .expect("fixtures/description exists")
        .flatten()
    {
        let rel = format!("fixtures/description/{}", e.file_name().to_string_lossy());
        assert!(
            referenced.contains(&rel),
            "{rel} is not referenced by any rule"
        );
    }
}

#[test]
fn findings_carry_field_path_excerpt_location_and_stable_key() {
    let entities = scan("fixtures/description/MCPS-D004.fire.json");
    let e = &entities[0];
    assert_eq!(e.target.server, "fx-rates");
    assert_eq!(e.target.name, "get_exchange_rate");
    assert_eq!(e.analyzers[0].analyzer, Analyzer::Description);
    let f = e
        .findings
        .iter()
        .find(|f| f.rule_id == "MCPS-D004")
        .expect("argument tampering finding");
    assert_eq!(f.severity, Severity::High);
    assert!(f.observation.contains("`description`"), "{}", f.observation);
    assert!(f.observation.contains("ACME-7781"), "{}", f.observation);
    assert!(
        f.declared
            .as_deref()
            .is_some_and(|d| d.starts_with("Looks up"))
    );
    let loc = f.location.as_ref().expect("location");
    assert!(
        loc.file
            .ends_with("fixtures/description/MCPS-D004.fire.json")
    );
    assert_eq!(loc.line, 5, "line of the tool's name in the fixture");
    match &f.evidence[0] {
        mcp_scan_core::Evidence::Text { field, offset, .. } => {
            assert_eq!(field, "description");
            assert_eq!(
                *offset,
                Some(24),
                "the sentence after 'Looks up exchange rates. '"
            );
        }
        other => panic!("unexpected evidence {other:?}"),
    }
    // Same rule, target and field: same fingerprint on another run.
    let again = scan("fixtures/description/MCPS-D004.fire.json");
    let g = again[0]
        .findings
        .iter()
        .find(|g| g.rule_id == "MCPS-D004")
        .expect("again");
    assert_eq!(f.fingerprint, g.fingerprint);
}

#[test]
fn hidden_characters_are_shown_escaped_in_the_excerpt() {
    let entities = scan("fixtures/description/MCPS-D007.fire.json");
    let f = entities[0]
        .findings
        .iter()
        .find(|f| f.rule_id == "MCPS-D007")
        .expect("hidden unicode finding");
    assert_eq!(
        f.severity,
        Severity::High,
        "tag characters are the strongest cue"
    );
    assert!(f.observation.contains("\\u{200b}"), "{}", f.observation);
    assert!(f.observation.contains("\\u{e0072}"), "{}", f.observation);
}
