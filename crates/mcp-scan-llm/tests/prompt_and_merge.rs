//! Prompt size and evidence priority on representative ToolBehaviors, and the merge rule: the
//! model can add findings but never clear or lower a static one.

mod support;

use mcp_scan_core::{Analyzer, AnalyzerState, Severity, taxonomy::by_threat};
use mcp_scan_llm::{
    PromptBuilder, Template, ToolOutcome, ToolResult, Usage, Verdict, estimate_tokens, merge,
    verdict_finding,
};
use support::*;

fn builder() -> PromptBuilder {
    PromptBuilder::new(Template::builtin().expect("built-in template"))
}

#[test]
fn mean_prompt_tokens_per_tool_is_at_most_1500_on_representative_tools() {
    let b = builder();
    let sizes: Vec<u64> = representative()
        .iter()
        .map(|t| b.build(t).estimated_tokens)
        .collect();
    let mean = sizes.iter().sum::<u64>() as f64 / sizes.len() as f64;
    eprintln!("prompt tokens per tool (chars/4): {sizes:?}, mean {mean:.0}");
    assert!(mean <= 1500.0, "mean {mean}");
    // The cap holds for every tool, not only on average (a few characters of slack for the
    // omitted-items sentence).
    for s in &sizes {
        assert!(
            *s <= u64::from(b.template().max_prompt_tokens) + 8,
            "{sizes:?}"
        );
    }
}

#[test]
fn oversized_evidence_is_capped_by_priority_and_instructions_are_never_cut() {
    let b = builder();
    let p = b.build(&sprawling_tool());
    assert!(p.omitted > 0, "some file reads dropped");
    assert!(p.declared_truncated, "the long description is shortened");
    assert!(p.user.contains("lower-priority evidence item(s) omitted"));
    // The exfiltration flow, listed last in the behaviour, comes first in the prompt.
    assert!(
        p.evidence[0]
            .text
            .starts_with("E1 flow: secret:file -> network-send"),
        "{}",
        p.evidence[0].text
    );
    assert!(p.system.contains("Answer with one JSON object"));
    assert!(p.system.contains("\"evidence\": [\"E1\", ...]"));
    assert!(
        p.user
            .ends_with("Give your verdict as the JSON object described above.")
    );
    // Ids are contiguous in the order shown.
    for (i, e) in p.evidence.iter().enumerate() {
        assert_eq!(e.id, format!("E{}", i + 1));
    }
    // Benign twin: a small tool loses nothing.
    let small = b.build(&leaky_format_note());
    assert_eq!(small.omitted, 0);
    assert!(!small.declared_truncated);
    assert_eq!(small.evidence.len(), 3, "one flow and two capabilities");
}

#[test]
fn prompt_hash_ignores_the_random_delimiter_but_not_the_code() {
    let b = builder();
    let one = b.build(&leaky_format_note());
    let two = b.build(&leaky_format_note());
    assert_ne!(one.open, two.open, "fresh delimiters per request");
    assert_eq!(one.canonical_hash, two.canonical_hash);
    let mut changed = leaky_format_note();
    changed.flows[0].path[1].location.line = 10;
    assert_ne!(b.build(&changed).canonical_hash, one.canonical_hash);
}

#[test]
fn token_estimate_is_characters_over_four_rounded_up() {
    assert_eq!(estimate_tokens(""), 0);
    assert_eq!(estimate_tokens("abcd"), 1);
    assert_eq!(estimate_tokens("abcde"), 2);
    assert_eq!(estimate_tokens("ééééé"), 2, "counts characters, not bytes");
}

fn outcome(tool: &mcp_scan_core::ToolRef, result: ToolResult) -> ToolOutcome {
    ToolOutcome {
        tool: tool.clone(),
        result,
        requests: 1,
        cached: false,
        estimated_prompt_tokens: 0,
        usage: Usage::default(),
        answers: Vec::new(),
    }
}

fn aligned() -> ToolResult {
    ToolResult::Verdict {
        verdict: Verdict {
            mismatch: false,
            threat: None,
            description_claims: "summarizes".into(),
            code_does: "summarizes".into(),
            evidence: vec![],
        },
        finding: None,
    }
}

#[test]
fn aligned_verdict_keeps_every_static_finding_unchanged() {
    let b = poisoned_summarize();
    let high = static_exfil_finding(&b.tool);
    let critical = {
        let mut f = static_exfil_finding(&b.tool);
        f.severity = Severity::Critical;
        f.fingerprint = "other".into();
        f
    };
    let statics = vec![high.clone(), critical.clone()];
    let (merged, status) = merge(statics.clone(), Some(&outcome(&b.tool, aligned())));
    assert_eq!(merged, statics, "nothing removed, lowered or altered");
    assert_eq!(status.state, AnalyzerState::Complete);
}

#[test]
fn mismatch_verdict_adds_a_finding_that_names_the_corroborated_static_one() {
    let b = leaky_format_note();
    let prompt = builder().build(&b);
    let v = Verdict {
        mismatch: true,
        threat: Some("DATA EXFILTRATION".into()),
        description_claims: "formats a note".into(),
        code_does: "posts ~/.ssh/id_rsa to 93.184.216.34".into(),
        evidence: vec!["E1".into()],
    };
    let f = verdict_finding(&b, &v, &prompt, "openai/m").expect("finding");
    let statics = vec![static_exfil_finding(&b.tool)];
    let result = ToolResult::Verdict {
        verdict: v,
        finding: Some(Box::new(f)),
    };
    let (merged, status) = merge(statics.clone(), Some(&outcome(&b.tool, result)));
    assert_eq!(status.state, AnalyzerState::Complete);
    assert_eq!(merged.len(), 2);
    assert_eq!(merged[0], statics[0]);
    assert_eq!(merged[1].analyzers, vec![Analyzer::Llm]);
    assert_eq!(
        merged[1].severity,
        by_threat("DATA EXFILTRATION").expect("row").severity
    );
    assert!(
        merged[1]
            .observation
            .contains("Corroborates static finding MCPS-S001"),
        "{}",
        merged[1].observation
    );
    assert!(
        merged[1]
            .observation
            .starts_with("The description claims: formats a note.")
    );
}

#[test]
fn info_threat_from_the_model_cannot_lower_a_static_high() {
    // The model picks the INFO row for a tool static analysis rated HIGH.
    let b = leaky_format_note();
    let prompt = builder().build(&b);
    let v = Verdict {
        mismatch: true,
        threat: Some("GENERAL DESCRIPTION-CODE MISMATCH".into()),
        description_claims: "formats".into(),
        code_does: "minor difference".into(),
        evidence: vec![],
    };
    let f = verdict_finding(&b, &v, &prompt, "openai/m").expect("finding");
    assert_eq!(f.severity, Severity::Info, "taxonomy row's severity");
    let statics = vec![static_exfil_finding(&b.tool)];
    let result = ToolResult::Verdict {
        verdict: v,
        finding: Some(Box::new(f)),
    };
    let (merged, _) = merge(statics, Some(&outcome(&b.tool, result)));
    assert_eq!(
        merged.iter().map(|f| f.severity).max(),
        Some(Severity::High)
    );
}

#[test]
fn failed_or_missing_llm_outcome_is_incomplete_and_keeps_static_findings() {
    let b = honest_add();
    let statics = vec![static_exfil_finding(&b.tool)];
    let failed = ToolResult::Incomplete {
        reason: "LLM provider failed after 4 request(s): server error (HTTP 500)".into(),
    };
    let (merged, status) = merge(statics.clone(), Some(&outcome(&b.tool, failed)));
    assert_eq!(merged, statics);
    assert_eq!(status.analyzer, Analyzer::Llm);
    assert_eq!(status.state, AnalyzerState::Incomplete);
    assert!(
        status
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("HTTP 500"))
    );
    let (_, status) = merge(vec![], None);
    assert_eq!(status.state, AnalyzerState::Incomplete);
}

#[test]
fn benchmark_cases_parse_have_ground_truth_and_fit_the_prompt_budget() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/llm");
    let cases: Vec<mcp_scan_core::ToolBehavior> = serde_json::from_str(
        &std::fs::read_to_string(root.join("cases.json")).expect("cases.json"),
    )
    .expect("cases.json holds ToolBehaviors");
    let truth: toml::Value = toml::from_str(
        &std::fs::read_to_string(root.join("ground_truth.toml")).expect("ground_truth.toml"),
    )
    .expect("ground truth parses");
    let rows = truth["tool"].as_array().expect("[[tool]] rows");
    let template = Template::builtin().expect("template");
    for row in rows {
        if let Some(t) = row.get("threat").and_then(|t| t.as_str()) {
            assert!(
                template.threat(t).is_some(),
                "ground truth threat {t} is on the list"
            );
        }
    }
    let b = builder();
    let mut total = 0;
    for c in &cases {
        assert!(
            rows.iter()
                .any(|r| r["server"].as_str() == Some(c.tool.server.as_str())
                    && r["name"].as_str() == Some(c.tool.name.as_str())),
            "no ground truth for {}",
            c.tool
        );
        total += b.build(c).estimated_tokens;
    }
    let mean = total as f64 / cases.len() as f64;
    assert!(mean <= 1500.0, "mean {mean}");
}
