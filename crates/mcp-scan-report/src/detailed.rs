//! `detailed`: every item with its status, per-analyzer result, and every finding with its
//! taxonomy, analyzers, observation, location and evidence; static behaviour where known.

use crate::common::{
    EntityView, View, analyzer_cell, analyzers_label, entity_name, evidence_line,
    incomplete_reasons, plural, taxonomy_line, trust_suffix,
};
use crate::style::{clean, clip_text};
use mcp_scan_core::{Finding, ToolBehavior, ToolStatus};
use std::fmt::Write as _;

pub(crate) fn render(v: &View<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", v.header());
    let _ = writeln!(out, "{}", v.analyzers_line());
    if let Some(line) = v.llm_line() {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = v.coverage_line() {
        let _ = writeln!(out, "{line}");
    }
    if let Some(note) = v.filter_note() {
        let _ = writeln!(out, "{note}");
    }
    v.servers_section(&mut out);
    for e in &v.entities {
        if e.verdict.is_none() {
            continue;
        }
        let _ = writeln!(out);
        entity(v, e, &mut out);
    }
    v.gaps_section(&mut out);
    v.suppressions_section(&mut out);
    v.diagnostics_section(&mut out);
    out
}

fn entity(v: &View<'_>, e: &EntityView<'_>, out: &mut String) {
    let s = v.style;
    let ent = e.entity;
    let mut status = s.status(e.status, e.status.as_str());
    if let (ToolStatus::Unsafe, Some(max)) = (e.status, ent.max_severity()) {
        let _ = write!(status, " ({})", s.severity(max, max.as_str()));
    }
    let _ = writeln!(
        out,
        "{} {}{}",
        s.bold(&format!("== {} ==", entity_name(&ent.target))),
        status,
        trust_suffix(ent)
    );
    if let Some(d) = &ent.declared {
        let _ = writeln!(out, "  Declared: \"{}\"", clip_text(d));
    }

    // One cell per analyzer that ran on the item: its worst finding, SAFE or INCOMPLETE.
    let cells: Vec<String> = v
        .analyzers()
        .into_iter()
        .filter_map(|a| analyzer_cell(s, e, a).map(|(_, cell)| format!("{a} {cell}")))
        .collect();
    let _ = writeln!(
        out,
        "  Analyzers: {}",
        if cells.is_empty() {
            "none ran".to_string()
        } else {
            cells.join(", ")
        }
    );
    if e.status == ToolStatus::Incomplete || !ent.complete() || ent.analyzers.is_empty() {
        let _ = writeln!(
            out,
            "  {} {}",
            s.status(ToolStatus::Incomplete, "Incomplete:"),
            incomplete_reasons(ent).join("; ")
        );
    }

    let n = e.shown.len();
    if n == 0 {
        let _ = writeln!(out, "  Findings: none");
    } else {
        let _ = writeln!(out, "  Findings ({n}):");
        for f in &e.shown {
            finding(v, f, out);
        }
    }
    if e.hidden > 0 {
        let _ = writeln!(
            out,
            "  {}",
            s.dim(&format!(
                "{} lower-severity finding{} hidden by --min-severity",
                e.hidden,
                plural(e.hidden)
            ))
        );
    }
    for b in v.report.behaviors.iter().filter(|b| b.tool == ent.target) {
        behavior(b, out);
    }
}

fn finding(v: &View<'_>, f: &Finding, out: &mut String) {
    let s = v.style;
    let _ = writeln!(
        out,
        "  - [{}] {}",
        s.severity(f.severity, f.severity.as_str()),
        s.bold(&clip_text(&f.title))
    );
    let _ = writeln!(
        out,
        "      rule {}, confidence {}, fingerprint {}",
        clean(&f.rule_id),
        f.confidence,
        clean(&f.fingerprint)
    );
    let _ = writeln!(out, "      seen by: {}", analyzers_label(f));
    let _ = writeln!(out, "      threat: {}", clean(&f.taxonomy.threat));
    let _ = writeln!(out, "      taxonomy: {}", taxonomy_line(f));
    let _ = writeln!(out, "      observed: {}", clip_text(&f.observation));
    if let Some(d) = &f.declared {
        let _ = writeln!(out, "      declared: \"{}\"", clip_text(d));
    }
    if let Some(l) = &f.location {
        let _ = writeln!(out, "      location: {}", clip_text(&l.to_string()));
        if let Some(snippet) = &l.snippet {
            let _ = writeln!(out, "        | {}", clip_text(snippet));
        }
    }
    if !f.evidence.is_empty() {
        let _ = writeln!(out, "      evidence:");
        for e in &f.evidence {
            let _ = writeln!(out, "        * {}", evidence_line(e));
        }
    }
}

fn behavior(b: &ToolBehavior, out: &mut String) {
    let _ = writeln!(
        out,
        "  Static behaviour: handler {} at {}{}",
        clean(&b.handler),
        clean(&b.location.to_string()),
        if b.complete {
            ""
        } else {
            " (analysis incomplete)"
        }
    );
    if !b.parameters.is_empty() {
        let params: Vec<String> = b
            .parameters
            .iter()
            .map(|p| match &p.type_hint {
                Some(t) => format!("{}: {}", clean(&p.name), clean(t)),
                None => clean(&p.name),
            })
            .collect();
        let _ = writeln!(out, "    parameters: {}", params.join(", "));
    }
    for c in &b.capabilities {
        let detail = c
            .detail
            .as_deref()
            .map(|d| format!(" {}", clean(d)))
            .unwrap_or_default();
        let via = if c.via.is_empty() {
            String::new()
        } else {
            format!(" (via {} call{})", c.via.len(), plural(c.via.len()))
        };
        let _ = writeln!(
            out,
            "    can {}: {}{detail} at {}{via}",
            clean(&c.kind),
            clean(&c.api),
            clean(&c.location.to_string())
        );
    }
    for fl in &b.flows {
        let steps: Vec<String> = fl
            .path
            .iter()
            .map(|st| format!("{} {}", clean(&st.location.to_string()), clean(&st.note)))
            .collect();
        let _ = writeln!(
            out,
            "    flow {} -> {} ({}){}: {}",
            clean(&fl.source),
            clean(&fl.sink_kind),
            clean(&fl.sink_api),
            if fl.sanitized { " [sanitized]" } else { "" },
            steps.join(" => ")
        );
    }
    for n in &b.notes {
        let _ = writeln!(out, "    note: {}", clip_text(n));
    }
}
