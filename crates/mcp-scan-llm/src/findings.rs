//! Verdicts as findings (analyzer `llm`, severity from the taxonomy table), and the merge with
//! static findings that the model can add to but never clear or lower.

use crate::check::{LlmOutcome, ToolOutcome, ToolResult};
use crate::prompt::Prompt;
use crate::verdict::Verdict;
use mcp_scan_core::taxonomy::by_threat;
use mcp_scan_core::{
    Analyzer, AnalyzerStatus, Confidence, EntityKind, EntityReport, Evidence, Finding, Report,
    Severity, ToolBehavior,
};

/// Rule id of an LLM alignment mismatch (docs in `rules/llm/L001.toml`).
pub const RULE_ID: &str = "MCPS-L001";

const RULE_TOML: &str = include_str!("../../../rules/llm/L001.toml");

#[derive(serde::Deserialize)]
struct RuleFile {
    rule: toml::Spanned<mcp_scan_rules::RawRuleMeta>,
}

/// The rule's metadata and docs, for `mcp-scan rules` / `mcp-scan rule MCPS-L001`
/// (`RuleCatalog::extend([rule_meta()?])`).
pub fn rule_meta() -> Result<mcp_scan_rules::RuleMeta, mcp_scan_rules::RuleError> {
    let src = mcp_scan_rules::SourceFile::new("rules/llm/L001.toml", RULE_TOML);
    let f: RuleFile = src.parse()?;
    let meta = f
        .rule
        .get_ref()
        .compile(&src, f.rule.span(), Analyzer::Llm, "MCPS-L")?;
    if meta.id != RULE_ID {
        return Err(src.error(f.rule.span(), format!("rule id must be {RULE_ID}")));
    }
    Ok(meta)
}

/// The finding for a mismatch verdict (`None` when the description and code align).
pub fn verdict_finding(
    b: &ToolBehavior,
    v: &Verdict,
    prompt: &Prompt,
    model: &str,
) -> Option<Finding> {
    if !v.mismatch {
        return None;
    }
    // Validation guarantees a listed threat; an unknown one falls back to the generic row.
    let row = v
        .threat
        .as_deref()
        .and_then(by_threat)
        .or_else(|| by_threat("GENERAL DESCRIPTION-CODE MISMATCH"))?;
    let cited: Vec<_> = v
        .evidence
        .iter()
        .filter_map(|id| prompt.evidence.iter().find(|e| &e.id == id))
        .collect();
    // Severity follows the evidence, never the model's say: the taxonomy row's default only when
    // a cited item shows a capability that makes a mismatch serious; otherwise LOW, low
    // confidence. Measured with a qualified 1.5B model (docs/benchmarks.md, session 11), such
    // uncorroborated mismatches were a file read or env read the description covered as often
    // as not ("shows the server configuration" / "reads the configuration file"): the model's
    // word alone must not reach MEDIUM, where it would fail honest tools.
    // A cited item supports the verdict only when the verdict's own account of the code speaks
    // of what makes the item serious: a small model cites every id offered, and a "mismatch"
    // whose code_does only restates the description (a declared URL download) is not made HIGH
    // by an egress item it never mentions.
    let supported = cited
        .iter()
        .any(|e| e.shows.iter().any(|class| speaks_of(class, &v.code_does)));
    let mut builder = Finding::builder(RULE_ID, Analyzer::Llm, row, b.tool.clone());
    if !supported {
        builder = builder.severity(row.severity.min(Severity::Low));
    }
    let mut builder = builder
        .confidence(if supported {
            Confidence::Medium
        } else {
            Confidence::Low
        })
        .title(format!(
            "description does not match code: {}",
            row.threat.to_lowercase()
        ))
        .observation(format!(
            "The description claims: {} The code: {}{}",
            sentence(&v.description_claims),
            sentence(&v.code_does),
            if supported {
                ""
            } else {
                " (No cited static evidence shows a secret read, egress or execution: LOW, the model's word alone.)"
            }
        ))
        .declared(b.declared.clone())
        .location(
            cited
                .first()
                .map(|e| e.location.clone())
                .unwrap_or_else(|| b.location.clone()),
        )
        .evidence(Evidence::Llm {
            model: model.to_string(),
            rationale: format!(
                "{}: the description claims \"{}\"; the code: {}",
                row.threat, v.description_claims, v.code_does
            ),
        })
        .key(row.threat.clone());
    for e in cited {
        builder = builder.evidence(Evidence::Source {
            location: e.location.clone(),
            note: e.note.clone(),
        });
    }
    Some(builder.build())
}

/// Whether `text` (the verdict's `code_does`) names an action of this class.
fn speaks_of(class: &str, text: &str) -> bool {
    let words: &[&str] = match class {
        "network" => &[
            "network",
            "send",
            "post",
            "upload",
            "http",
            "url",
            "remote",
            "fetch",
            "download",
            "request",
            "exfiltrat",
            "transmit",
            "connect",
            "host",
            "internet",
            "endpoint",
            "socket",
            "dns",
            "collect",
        ],
        "execution" => &[
            "exec",
            "eval",
            "command",
            "shell",
            "subprocess",
            "run",
            "spawn",
            "script",
            "pickle",
            "deserializ",
            "interpret",
        ],
        "secret" => &[
            "secret",
            "credential",
            "key",
            "token",
            "password",
            "passwd",
            "environment",
            "env",
            "ssh",
            "aws",
            "private",
            "cookie",
        ],
        _ => &[],
    };
    let t = text.to_lowercase();
    words.iter().any(|w| t.contains(w))
}

fn sentence(s: &str) -> String {
    let s = s.trim();
    if s.ends_with(['.', '!', '?']) {
        s.to_string()
    } else {
        format!("{s}.")
    }
}

/// Merges one tool's LLM outcome into its static findings.
///
/// Every static finding comes back unchanged (same severity, same evidence): the model can add a
/// finding or, when it names the same threat, corroborate one, but never clear or lower one,
/// whatever the tool's docstring told it. An outcome without a valid verdict yields an
/// INCOMPLETE status for the `llm` analyzer, never SAFE.
pub fn merge(
    static_findings: Vec<Finding>,
    outcome: Option<&ToolOutcome>,
) -> (Vec<Finding>, AnalyzerStatus) {
    let mut findings = static_findings;
    let Some(outcome) = outcome else {
        return (
            findings,
            AnalyzerStatus::incomplete(Analyzer::Llm, "the LLM check did not run on this tool"),
        );
    };
    match &outcome.result {
        ToolResult::Incomplete { reason } => (
            findings,
            AnalyzerStatus::incomplete(Analyzer::Llm, reason.clone()),
        ),
        ToolResult::Verdict { finding, .. } | ToolResult::Judged { finding, .. } => {
            if let Some(f) = finding {
                let mut f = (**f).clone();
                let same_threat: Vec<String> = findings
                    .iter()
                    .filter(|s| s.target == f.target && s.taxonomy.threat == f.taxonomy.threat)
                    .map(|s| s.rule_id.clone())
                    .collect();
                if !same_threat.is_empty() {
                    f.observation.push_str(&format!(
                        " Corroborates static finding {}.",
                        same_threat.join(", ")
                    ));
                }
                findings.push(f);
            }
            (findings, AnalyzerStatus::complete(Analyzer::Llm))
        }
    }
}

/// Applies a whole outcome to a report: per tool, [`merge`] into its entity (created when
/// static analysis made none), and records that the `llm` analyzer ran.
pub fn apply_to_report(report: &mut Report, outcome: &LlmOutcome) {
    apply_outcome(
        report,
        outcome,
        "no static summary of this entity to check against its description",
    );
}

/// [`apply_to_report`] with the reason given to entities the outcome has no result for.
pub fn apply_outcome(report: &mut Report, outcome: &LlmOutcome, unchecked: &str) {
    if !report.scan.analyzers.contains(&Analyzer::Llm) {
        report.scan.analyzers.push(Analyzer::Llm);
    }
    report.llm = Some(outcome.run_info());
    for t in &outcome.tools {
        let idx = match report.entities.iter().position(|e| e.target == t.tool) {
            Some(i) => i,
            None => {
                let declared = report
                    .behaviors
                    .iter()
                    .find(|b| b.tool == t.tool)
                    .and_then(|b| b.declared.clone());
                report
                    .entities
                    .push(EntityReport::new(t.tool.clone(), declared));
                report.entities.len() - 1
            }
        };
        let entity = &mut report.entities[idx];
        let statics = std::mem::take(&mut entity.findings);
        let (findings, status) = merge(statics, Some(t));
        entity.findings = findings;
        entity.analyzers.retain(|a| a.analyzer != Analyzer::Llm);
        entity.analyzers.push(status);
    }
    // Entities static analysis gave no summary for were not checked: not known to be aligned.
    for e in &mut report.entities {
        if e.target.kind != EntityKind::Server
            && !e.analyzers.iter().any(|a| a.analyzer == Analyzer::Llm)
        {
            e.analyzers
                .push(AnalyzerStatus::incomplete(Analyzer::Llm, unchecked));
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn rule_docs_load_with_the_id_findings_use() {
        let meta = super::rule_meta().expect("rules/llm/L001.toml compiles");
        assert_eq!(meta.id, super::RULE_ID);
        assert_eq!(meta.analyzer, mcp_scan_core::Analyzer::Llm);
        assert!(meta.render_docs().contains("never the model's own rating"));
    }
}
