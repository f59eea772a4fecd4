//! `summary`: counts, then the unsafe, incomplete and safe items, then diagnostics.

use crate::common::{
    EntityView, View, counts_line, entity_name, incomplete_reasons, plural, severity_counts,
    trust_suffix, unique,
};
use crate::style::{Verdict, clean, pad};
use mcp_scan_core::{DiagnosticLevel, EntityKind, ToolStatus};
use std::fmt::Write as _;

pub(crate) fn render(v: &View<'_>) -> String {
    let s = v.style;
    let r = v.report;
    let mut out = String::new();
    let _ = writeln!(out, "{}", v.header());
    let _ = writeln!(out, "{}", v.analyzers_line());
    let _ = writeln!(out);

    let kinds: Vec<String> = [
        EntityKind::Tool,
        EntityKind::Resource,
        EntityKind::ResourceTemplate,
        EntityKind::Prompt,
        EntityKind::Server,
    ]
    .iter()
    .filter_map(|k| {
        let n = r.entities.iter().filter(|e| e.target.kind == *k).count();
        (n > 0).then(|| format!("{n} {}", kind_noun(*k, n)))
    })
    .collect();
    let _ = writeln!(
        out,
        "Items scanned: {}{}",
        r.entities.len(),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        }
    );
    for status in [ToolStatus::Unsafe, ToolStatus::Incomplete, ToolStatus::Safe] {
        let label = pad(&s.status(status, status.as_str()), 11);
        let _ = writeln!(out, "  {label} {}", v.status_count(status));
    }

    let all: Vec<_> = r.findings().collect();
    let corroborated = all.iter().filter(|f| f.corroborated()).count();
    let _ = writeln!(
        out,
        "Findings: {} ({}); {corroborated} corroborated by more than one analyzer",
        all.len(),
        counts_line(s, &severity_counts(all.iter().copied())),
    );
    let errors = r
        .diagnostics
        .iter()
        .filter(|d| d.level == DiagnosticLevel::Error)
        .count();
    let warnings = r.diagnostics.len() - errors;
    let _ = writeln!(
        out,
        "Diagnostics: {errors} error{}, {warnings} warning{}",
        plural(errors),
        plural(warnings)
    );
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

    let unsafe_items: Vec<&EntityView<'_>> = sorted(
        v.entities
            .iter()
            .filter(|e| e.status == ToolStatus::Unsafe && e.verdict.is_some()),
    );
    let incomplete: Vec<&EntityView<'_>> = v
        .entities
        .iter()
        .filter(|e| e.status == ToolStatus::Incomplete)
        .collect();
    let safe: Vec<&EntityView<'_>> = v
        .entities
        .iter()
        .filter(|e| e.status == ToolStatus::Safe)
        .collect();

    if !unsafe_items.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            s.bold(&format!("Unsafe items ({}):", unsafe_items.len()))
        );
        let width = name_width(&unsafe_items);
        for e in unsafe_items {
            let Some(verdict) = e.verdict else { continue };
            let n = e.shown.len();
            let corr = e.shown.iter().filter(|f| f.corroborated()).count();
            let threats = unique(e.shown.iter().map(|f| clean(&f.taxonomy.threat)));
            let mut detail = format!("{n} finding{}", plural(n));
            if corr > 0 {
                let _ = write!(detail, ", {corr} corroborated");
            }
            let _ = writeln!(
                out,
                "  {} {}  {detail}: {}{}",
                pad(&v.verdict_label(verdict), 10),
                pad(&entity_name(&e.entity.target), width),
                threats.join(", "),
                trust_suffix(e.entity)
            );
        }
    }
    if !incomplete.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            s.bold(&format!(
                "Incomplete items ({}), not known to be safe:",
                incomplete.len()
            ))
        );
        let width = name_width(&incomplete);
        for e in incomplete {
            let _ = writeln!(
                out,
                "  {} {}  {}{}",
                pad(&v.verdict_label(Verdict::Incomplete), 10),
                pad(&entity_name(&e.entity.target), width),
                incomplete_reasons(e.entity).join("; "),
                trust_suffix(e.entity)
            );
        }
    }
    if !safe.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", s.bold(&format!("Safe items ({}):", safe.len())));
        for e in safe {
            let info = e.shown.len();
            let note = if info > 0 {
                format!("  ({info} INFO note{})", plural(info))
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  {} {}{note}{}",
                pad(&v.verdict_label(Verdict::Safe), 10),
                entity_name(&e.entity.target),
                trust_suffix(e.entity)
            );
        }
    }
    v.gaps_section(&mut out);
    v.suppressions_section(&mut out);
    v.diagnostics_section(&mut out);
    out
}

fn sorted<'v, 'a>(items: impl Iterator<Item = &'v EntityView<'a>>) -> Vec<&'v EntityView<'a>> {
    let mut items: Vec<_> = items.collect();
    // Worst first; report order (already normalised) within a severity.
    items.sort_by_key(|e| e.verdict.map_or(u8::MAX, |v| v.rank()));
    items
}

fn name_width(items: &[&EntityView<'_>]) -> usize {
    items
        .iter()
        .map(|e| entity_name(&e.entity.target).chars().count())
        .max()
        .unwrap_or(0)
}

fn kind_noun(k: EntityKind, n: usize) -> String {
    let base = match k {
        EntityKind::Tool => "tool",
        EntityKind::Resource => "resource",
        EntityKind::ResourceTemplate => "resource template",
        EntityKind::Prompt => "prompt",
        EntityKind::Server => "server",
    };
    format!("{base}{}", plural(n))
}
