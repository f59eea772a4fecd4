//! Helpers shared by the tests that pair a poisoned text with its honest look-alike.
// Each test file uses the helpers it needs.
#![allow(dead_code)]

use mcp_scan_core::Severity;
use mcp_scan_description::{DescriptionAnalyzer, tool_fields};
use mcp_scan_manifest::parse;
use std::collections::HashSet;

/// The worst severity of any rule on a tool's description.
pub fn worst(text: &str) -> Option<Severity> {
    let a = DescriptionAnalyzer::builtin().expect("rules");
    a.scan_fields(&tool_fields("t", text), &HashSet::new())
        .into_iter()
        .map(|h| h.severity)
        .max()
}

/// Every finding of a manifest.
pub fn manifest_findings(json: &str) -> Vec<mcp_scan_core::Finding> {
    let out = parse("t.json", "t", json);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let a = DescriptionAnalyzer::builtin().expect("rules");
    a.scan_manifest(&out.manifest)
        .into_iter()
        .flat_map(|e| e.findings)
        .collect()
}

/// The worst finding of a manifest as (severity, rule).
pub fn worst_in_manifest(json: &str) -> Option<(Severity, String)> {
    manifest_findings(json)
        .into_iter()
        .max_by(|x, y| x.severity.cmp(&y.severity))
        .map(|f| (f.severity, f.rule_id))
}

pub fn assert_reaches_medium(texts: &[&str]) {
    for text in texts {
        assert!(
            worst(text) >= Some(Severity::Medium),
            "{text}: {:?}",
            worst(text)
        );
    }
}

pub fn assert_below_medium(texts: &[&str]) {
    for text in texts {
        assert!(
            worst(text) < Some(Severity::Medium),
            "{text}: {:?}",
            worst(text)
        );
    }
}
