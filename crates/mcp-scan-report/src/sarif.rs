//! `sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.
//!
//! - One run; `tool.driver.rules` holds one rule per rule id that has a shown finding, with the
//!   taxonomy codes in `properties.tags` and GitHub's `security-severity` (the worst severity
//!   that rule reached in this report, since GitHub reads it from the rule, not the result).
//! - One result per shown finding. GitHub requires a physical location on every result: a
//!   finding's own `location` is used when it has one; otherwise the result points at line 1 of
//!   the first scan target (for a launch command, its last argument that is not an option),
//!   and says so in `properties.locationIsFallback`.
//! - `partialFingerprints["mcpScan/v1"]` is the finding's stable fingerprint, so GitHub matches
//!   alerts across runs.
//! - Diagnostics, coverage gaps and INCOMPLETE items become
//!   `invocations[0].toolExecutionNotifications`: they are not findings, but a run with them must
//!   not look clean. The whole coverage (files by language, registration sites, items resolved,
//!   gaps) is also in the run's `properties.coverage`.

use crate::common::entity_name;
use crate::{RenderOptions, RuleHelp};
use mcp_scan_core::taxonomy::by_threat;
use mcp_scan_core::{
    AnalyzerState, Confidence, DiagnosticLevel, Evidence, Finding, Report, Severity,
    SourceLocation, SuppressedFinding, SuppressionKind, TaxonomyRef, ToolStatus,
};
use serde_json::{Map, Value, json};

const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
const INFORMATION_URI: &str = env!("CARGO_PKG_REPOSITORY");

/// GitHub maps > 9.0 to critical, 7.0–8.9 to high, 4.0–6.9 to medium, 0.1–3.9 to low.
fn security_severity(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "9.5",
        Severity::High => "8.0",
        Severity::Medium => "5.5",
        Severity::Low => "3.0",
        Severity::Info => "1.0",
    }
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Critical | Severity::High => "error",
        Severity::Medium => "warning",
        Severity::Low | Severity::Info => "note",
    }
}

fn precision(c: Confidence) -> &'static str {
    match c {
        Confidence::High => "high",
        Confidence::Medium => "medium",
        Confidence::Low => "low",
    }
}

pub(crate) fn render(report: &Report, opts: &RenderOptions<'_>) -> String {
    let shown: Vec<&Finding> = report
        .findings()
        .filter(|f| opts.min_severity.is_none_or(|m| f.severity >= m))
        .collect();

    // Suppressed findings are results too, marked with SARIF `suppressions` (viewers hide them
    // but count them).
    let suppressed: Vec<&SuppressedFinding> = report
        .suppressions
        .suppressed
        .iter()
        .filter(|s| opts.min_severity.is_none_or(|m| s.finding.severity >= m))
        .collect();
    let with_suppressed: Vec<&Finding> = shown
        .iter()
        .copied()
        .chain(suppressed.iter().map(|s| &s.finding))
        .collect();
    // Rules in id order; each remembers its worst severity and lowest confidence.
    let mut rule_ids: Vec<&str> = with_suppressed.iter().map(|f| f.rule_id.as_str()).collect();
    rule_ids.sort_unstable();
    rule_ids.dedup();
    let mut names_taken: Vec<String> = Vec::new();
    let rules: Vec<Value> = rule_ids
        .iter()
        .filter_map(|id| {
            let of_rule: Vec<&&Finding> = with_suppressed
                .iter()
                .filter(|f| f.rule_id == *id)
                .collect();
            let worst = of_rule.iter().map(|f| f.severity).max()?;
            let confidence = of_rule.iter().map(|f| f.confidence).min()?;
            let help = opts.rule_help.iter().find(|h| h.id == *id);
            let mut r = rule(&of_rule, worst, confidence, help)?;
            // Viewers list rules by name: two rules sharing one would read as one.
            let name = r["name"].as_str().unwrap_or(id).to_string();
            let name = if names_taken.contains(&name) {
                format!("{name}{}", pascal_case(id))
            } else {
                name
            };
            r["name"] = json!(name);
            names_taken.push(name);
            Some(r)
        })
        .collect();

    let paths = Paths {
        base: opts.source_base,
    };
    let fallback = fallback_uri(&report.scan.targets);
    let mut results: Vec<Value> = shown
        .iter()
        .map(|f| {
            let index = rule_ids.iter().position(|id| *id == f.rule_id);
            let mut r = result(f, index, &fallback, &paths);
            // The scorer's trust in the entity the finding is about (`scan`).
            if let Some(t) = report
                .entities
                .iter()
                .find(|e| e.target == f.target)
                .and_then(|e| e.trust)
            {
                r["properties"]["trust"] = json!(t);
            }
            r
        })
        .collect();

    for sf in &suppressed {
        let f = &sf.finding;
        let index = rule_ids.iter().position(|id| *id == f.rule_id);
        let mut r = result(f, index, &fallback, &paths);
        let mut justification = format!(
            "{} ({}): {}",
            sf.kind.as_str(),
            sf.origin,
            sf.reason.as_deref().unwrap_or("no reason given")
        );
        if let Some(e) = &sf.expires {
            justification.push_str(&format!(" (until {e})"));
        }
        r["suppressions"] = json!([{
            "kind": match sf.kind {
                SuppressionKind::Baseline => "external",
                SuppressionKind::Inline => "inSource",
            },
            "status": "accepted",
            "justification": justification,
        }]);
        r["properties"]["baselineFingerprint"] = json!(sf.baseline_fingerprint);
        results.push(r);
    }

    let mut notifications: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| {
            let mut n = json!({
                "level": match d.level {
                    DiagnosticLevel::Error => "error",
                    DiagnosticLevel::Warning => "warning",
                },
                "message": { "text": d.message },
            });
            if let Some(file) = &d.file {
                let mut region = Map::new();
                region.insert("startLine".into(), json!(d.line.unwrap_or(1).max(1)));
                if let Some(c) = d.column.filter(|c| *c >= 1) {
                    region.insert("startColumn".into(), json!(c));
                }
                n["locations"] = json!([{
                    "physicalLocation": {
                        "artifactLocation": paths.artifact(file),
                        "region": region,
                    }
                }]);
            }
            n
        })
        .collect();
    // Coverage gaps: code the scan did not analyse. Not findings, but the run is not clean.
    for g in report.coverage.iter().flat_map(|c| &c.gaps) {
        let mut n = json!({
            "level": "warning",
            "message": {
                "text": format!("not analysed ({}): {}; the scan is INCOMPLETE", g.kind.as_str(), g.reason)
            },
            "properties": { "coverageGap": g.kind },
        });
        if let Some(file) = &g.file {
            n["locations"] = json!([{
                "physicalLocation": {
                    "artifactLocation": paths.artifact(file),
                    "region": { "startLine": g.line.unwrap_or(1).max(1) },
                }
            }]);
        }
        notifications.push(n);
    }
    for e in &report.entities {
        if e.status() != ToolStatus::Incomplete {
            continue;
        }
        let reasons: Vec<String> = e
            .analyzers
            .iter()
            .filter(|a| a.state == AnalyzerState::Incomplete)
            .map(|a| match &a.reason {
                Some(r) => format!("{}: {r}", a.analyzer),
                None => format!("{}: did not complete", a.analyzer),
            })
            .collect();
        let why = if reasons.is_empty() {
            "no analyzer examined it".to_string()
        } else {
            reasons.join("; ")
        };
        notifications.push(json!({
            "level": "warning",
            "message": {
                "text": format!(
                    "{} was not fully analysed ({why}); it is INCOMPLETE, not SAFE",
                    entity_name(&e.target)
                )
            },
            "properties": { "status": "INCOMPLETE", "target": e.target },
        }));
    }

    let incomplete_items: Vec<String> = report
        .entities
        .iter()
        .filter(|e| e.status() == ToolStatus::Incomplete)
        .map(|e| entity_name(&e.target))
        .collect();
    let mut run_props = json!({
        "command": report.scan.command,
        "targets": report.scan.targets,
        "analyzers": report.scan.analyzers,
        "rawSchemaVersion": report.schema_version,
        "incompleteItems": incomplete_items,
    });
    if let Some(m) = opts.min_severity {
        run_props["minSeverity"] = json!(m);
    }
    if let Some(c) = &report.coverage {
        run_props["coverage"] = json!(c);
    }
    if !report.servers.is_empty() {
        run_props["servers"] = json!(report.servers);
    }
    if let Some(llm) = &report.llm {
        run_props["llm"] = json!(llm);
    }
    let sup = &report.suppressions;
    if !sup.is_empty() {
        run_props["suppressions"] = json!({
            "baseline": sup.count(SuppressionKind::Baseline),
            "inline": sup.count(SuppressionKind::Inline),
            "deselected": sup.deselected,
            "expired": sup.expired,
            "stale": sup.stale,
            "warnings": sup.warnings,
        });
    }

    let mut log = json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "mcp-scan",
                    "version": report.scanner_version,
                    "semanticVersion": report.scanner_version,
                    "informationUri": INFORMATION_URI,
                    "rules": rules,
                }
            },
            // GitHub keeps one analysis per automation id: `behavioral` and `dynamic` uploads
            // of the same repository must not replace each other.
            "automationDetails": { "id": format!("mcp-scan/{}/", report.scan.command) },
            "invocations": [{
                "executionSuccessful": !report.has_errors(),
                "toolExecutionNotifications": notifications,
            }],
            "results": results,
            "properties": run_props,
        }],
    });
    sort_keys(&mut log);
    crate::to_json(&log)
}

/// One rule. A rule id can cover several threats (the LLM check reports every threat under one
/// id): the descriptions and tags then name them all rather than whichever came first.
fn rule(
    of_rule: &[&&Finding],
    worst: Severity,
    confidence: Confidence,
    help: Option<&RuleHelp>,
) -> Option<Value> {
    let first = of_rule.first()?;
    let mut taxa: Vec<&TaxonomyRef> = Vec::new();
    for f in of_rule {
        if !taxa.contains(&&f.taxonomy) {
            taxa.push(&f.taxonomy);
        }
    }
    let explain = |t: &TaxonomyRef| {
        by_threat(&t.threat).map_or_else(|| first.title.clone(), |e| e.summary.clone())
    };
    let (name, short, full) = match taxa.as_slice() {
        [t] => (
            pascal_case(help.map_or(first.title.as_str(), |h| h.name.as_str())),
            first.title.clone(),
            help.map_or_else(|| explain(t), |h| h.what.clone()),
        ),
        _ => {
            let threats: Vec<&str> = taxa.iter().map(|t| t.threat.as_str()).collect();
            (
                help.map_or_else(|| first.rule_id.clone(), |h| pascal_case(&h.name)),
                format!(
                    "Findings of {} threats: {}",
                    threats.len(),
                    threats.join(", ")
                ),
                taxa.iter()
                    .map(|t| format!("{}: {}", t.threat, explain(t)))
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        }
    };
    let mut text = Vec::new();
    let mut markdown = Vec::new();
    for t in &taxa {
        text.push(format!(
            "{}: {}\nTaxonomy: {} {} > {} {}",
            t.threat,
            explain(t),
            t.technique,
            t.technique_name,
            t.subtechnique,
            t.subtechnique_name
        ));
        markdown.push(format!(
            "**{}**: {}\n\nTaxonomy: `{}` {} > `{}` {}",
            t.threat,
            explain(t),
            t.technique,
            t.technique_name,
            t.subtechnique,
            t.subtechnique_name
        ));
    }
    if let Some(h) = help {
        text.push(format!(
            "{}\nWhy it matters: {}\nFix: {}",
            h.what, h.why, h.fix
        ));
        markdown.push(format!(
            "{}\n\n**Why it matters:** {}\n\n**Fix:** {}",
            h.what, h.why, h.fix
        ));
    }
    text.push(format!(
        "mcp-scan rule {id}; `mcp-scan rule {id}` prints its full documentation.",
        id = first.rule_id
    ));
    markdown.push(format!(
        "mcp-scan rule `{id}`; `mcp-scan rule {id}` prints its full documentation.",
        id = first.rule_id
    ));
    let mut tags = vec!["security".to_string(), "mcp".to_string()];
    for t in &taxa {
        for tag in [&t.technique, &t.subtechnique, &t.threat] {
            if !tags.contains(tag) {
                tags.push(tag.clone());
            }
        }
    }
    Some(json!({
        "id": first.rule_id,
        "name": name,
        "shortDescription": { "text": short },
        "fullDescription": { "text": full },
        "help": { "text": text.join("\n"), "markdown": markdown.join("\n\n") },
        "defaultConfiguration": { "level": level(worst) },
        "properties": {
            "tags": tags,
            "precision": precision(confidence),
            "security-severity": security_severity(worst),
            "taxonomy": taxa,
        },
    }))
}

fn result(f: &Finding, rule_index: Option<usize>, fallback: &str, paths: &Paths<'_>) -> Value {
    let (physical, is_fallback) = match &f.location {
        Some(l) => (paths.physical_location(l), false),
        None => (
            json!({
                // The fallback is a scan target as the user typed it: already from the cwd.
                "artifactLocation": artifact(fallback),
                "region": { "startLine": 1 },
            }),
            true,
        ),
    };
    let mut text = format!("{}: {}", f.title, f.observation);
    text.push_str(&format!(" [{}]", entity_name(&f.target)));
    if f.corroborated() {
        let names: Vec<&str> = f.analyzers.iter().map(|a| a.as_str()).collect();
        text.push_str(&format!(" Corroborated by {}.", names.join(" and ")));
    }
    let related: Vec<Value> = f
        .evidence
        .iter()
        .filter_map(|e| match e {
            Evidence::Source { location, note } => Some((location, note)),
            _ => None,
        })
        .enumerate()
        .map(|(i, (l, note))| {
            json!({
                "id": i + 1,
                "physicalLocation": paths.physical_location(l),
                "message": { "text": note },
            })
        })
        .collect();
    let mut r = json!({
        "ruleId": f.rule_id,
        "level": level(f.severity),
        "message": { "text": text },
        "locations": [{
            "physicalLocation": physical,
            "logicalLocations": [{
                "name": f.target.name,
                "fullyQualifiedName": format!("{}/{}/{}", f.target.server, f.target.kind, f.target.name),
                "kind": f.target.kind.as_str(),
            }],
        }],
        "partialFingerprints": { "mcpScan/v1": f.fingerprint },
        "properties": {
            "severity": f.severity,
            "security-severity": security_severity(f.severity),
            "confidence": f.confidence,
            "analyzers": f.analyzers,
            "corroborated": f.corroborated(),
            "taxonomy": f.taxonomy,
            "target": f.target,
            "locationIsFallback": is_fallback,
            "evidence": f.evidence,
        },
    });
    if let Some(i) = rule_index {
        r["ruleIndex"] = json!(i);
    }
    if let Some(d) = &f.declared {
        r["properties"]["declared"] = json!(d);
    }
    if !related.is_empty() {
        r["relatedLocations"] = json!(related);
    }
    r
}

/// Resolves the file paths findings carry (relative to the scan root) to paths from the directory
/// mcp-scan ran in, which is where SARIF viewers resolve `%SRCROOT%` from.
struct Paths<'a> {
    base: Option<&'a str>,
}

impl Paths<'_> {
    fn artifact(&self, file: &str) -> Value {
        match self.base {
            Some(base) if !file.starts_with('/') && !base.is_empty() && base != "." => {
                let file = file.strip_prefix("./").unwrap_or(file);
                artifact(&format!("{}/{file}", base.trim_end_matches('/')))
            }
            _ => artifact(file),
        }
    }

    fn physical_location(&self, l: &SourceLocation) -> Value {
        let mut v = physical_location(l);
        v["artifactLocation"] = self.artifact(&l.file);
        v
    }
}

fn physical_location(l: &SourceLocation) -> Value {
    let mut region = Map::new();
    region.insert("startLine".into(), json!(l.line.max(1)));
    if l.column >= 1 {
        region.insert("startColumn".into(), json!(l.column));
    }
    if let Some(end) = l.end_line.filter(|e| *e >= l.line.max(1)) {
        region.insert("endLine".into(), json!(end));
    }
    if let Some(c) = l.end_column.filter(|c| *c >= 1) {
        region.insert("endColumn".into(), json!(c));
    }
    if let Some(s) = &l.snippet {
        region.insert("snippet".into(), json!({ "text": s }));
    }
    json!({ "artifactLocation": artifact(&l.file), "region": region })
}

/// An artifactLocation: relative paths against `%SRCROOT%` (the directory mcp-scan ran from),
/// absolute ones as `file://` URIs.
fn artifact(path: &str) -> Value {
    if path.starts_with('/') {
        json!({ "uri": format!("file://{}", encode_uri_path(path)) })
    } else {
        let p = path.strip_prefix("./").unwrap_or(path);
        json!({ "uri": encode_uri_path(p), "uriBaseId": "%SRCROOT%" })
    }
}

/// The file a finding without a location is pinned to: the first scan target, or for a launch
/// command (`python server.py --stdio`) its last argument that is not an option.
fn fallback_uri(targets: &[String]) -> String {
    let Some(first) = targets.first() else {
        return ".".to_string();
    };
    let words: Vec<&str> = first.split_whitespace().collect();
    if words.len() > 1 {
        if let Some(w) = words.iter().rev().find(|w| !w.starts_with('-')) {
            return (*w).to_string();
        }
    }
    if first.trim().is_empty() {
        ".".to_string()
    } else {
        first.trim().to_string()
    }
}

/// Percent-encodes everything but unreserved characters and `/` (RFC 3986 path).
fn encode_uri_path(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// "TOOL POISONING" -> "ToolPoisoning"; "ARBITRARY RESOURCE READ/WRITE" -> "ArbitraryResourceReadWrite".
fn pascal_case(s: &str) -> String {
    // "tool's" is one word.
    let s: String = s
        .chars()
        .filter(|c| !matches!(c, '\'' | '\u{2019}'))
        .collect();
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let lower = w.to_lowercase();
            let mut cs = lower.chars();
            match cs.next() {
                Some(c) => c.to_uppercase().chain(cs).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// Same key order whether or not serde_json's `preserve_order` is on somewhere in the build.
fn sort_keys(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.sort_keys();
            m.values_mut().for_each(sort_keys);
        }
        Value::Array(a) => a.iter_mut().for_each(sort_keys),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pascal_case_joins_words_of_a_threat_name() {
        assert_eq!(pascal_case("TOOL POISONING"), "ToolPoisoning");
        assert_eq!(
            pascal_case("ARBITRARY RESOURCE READ/WRITE"),
            "ArbitraryResourceReadWrite"
        );
        assert_eq!(
            pascal_case("refers to another tool's data"),
            "RefersToAnotherToolsData"
        );
    }

    #[test]
    fn fallback_location_uses_the_target_file_or_the_commands_script() {
        assert_eq!(fallback_uri(&["servers/notes".into()]), "servers/notes");
        assert_eq!(
            fallback_uri(&["python server.py --stdio".into()]),
            "server.py"
        );
        assert_eq!(fallback_uri(&[]), ".");
    }

    #[test]
    fn uri_paths_are_percent_encoded_and_absolute_paths_become_file_uris() {
        assert_eq!(
            artifact("dir with space/a#b.py"),
            json!({"uri": "dir%20with%20space/a%23b.py", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifact("/abs/x.json"),
            json!({"uri": "file:///abs/x.json"})
        );
        assert_eq!(
            artifact("./rel.py"),
            json!({"uri": "rel.py", "uriBaseId": "%SRCROOT%"})
        );
    }
}
