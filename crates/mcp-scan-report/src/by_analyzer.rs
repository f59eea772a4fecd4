//! `by_analyzer`: per analyzer, the items it examined, whether it completed on them, its
//! findings by severity and the items it found something on.

use crate::common::{View, counts_line, entity_name, plural, severity_counts};
use crate::style::clip_text;
use mcp_scan_core::{AnalyzerState, Finding, ToolStatus};
use std::fmt::Write as _;

pub(crate) fn render(v: &View<'_>) -> String {
    let s = v.style;
    let mut out = String::new();
    let _ = writeln!(out, "{}", v.header());
    for a in v.analyzers() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", s.bold(a.as_str()));
        let examined: Vec<_> = v
            .entities
            .iter()
            .filter_map(|e| {
                e.entity
                    .analyzers
                    .iter()
                    .find(|st| st.analyzer == a)
                    .map(|st| (e, st))
            })
            .collect();
        let incomplete: Vec<_> = examined
            .iter()
            .filter(|(_, st)| st.state == AnalyzerState::Incomplete)
            .collect();
        let _ = writeln!(
            out,
            "  items analysed: {} ({} complete, {} incomplete)",
            examined.len(),
            examined.len() - incomplete.len(),
            incomplete.len()
        );
        let findings: Vec<&Finding> = v
            .entities
            .iter()
            .flat_map(|e| e.shown.iter().copied())
            .filter(|f| f.analyzers.contains(&a))
            .collect();
        let corr = findings.iter().filter(|f| f.corroborated()).count();
        let _ = writeln!(
            out,
            "  findings: {} ({}); {corr} corroborated",
            findings.len(),
            counts_line(s, &severity_counts(findings.iter().copied()))
        );
        let with: Vec<_> = v
            .entities
            .iter()
            .filter(|e| e.shown.iter().any(|f| f.analyzers.contains(&a)))
            .collect();
        if !with.is_empty() {
            let _ = writeln!(out, "  items with findings ({}):", with.len());
            for e in with {
                let mine: Vec<&&Finding> = e
                    .shown
                    .iter()
                    .filter(|f| f.analyzers.contains(&a))
                    .collect();
                let Some(worst) = mine.iter().map(|f| f.severity).max() else {
                    continue;
                };
                let titles: Vec<String> = mine.iter().map(|f| clip_text(&f.title)).collect();
                let _ = writeln!(
                    out,
                    "    {} {}: {} finding{} ({})",
                    s.severity(worst, worst.as_str()),
                    entity_name(&e.entity.target),
                    mine.len(),
                    plural(mine.len()),
                    titles.join("; ")
                );
            }
        }
        if !incomplete.is_empty() {
            let _ = writeln!(out, "  did not complete on ({}):", incomplete.len());
            for (e, st) in incomplete {
                let _ = writeln!(
                    out,
                    "    {} {}: {}",
                    s.status(ToolStatus::Incomplete, "INCOMPLETE"),
                    entity_name(&e.entity.target),
                    st.reason
                        .as_deref()
                        .map_or_else(|| "no reason given".to_string(), clip_text)
                );
            }
        }
    }
    // Items no analyzer looked at would otherwise appear nowhere in this view.
    let unexamined: Vec<_> = v
        .entities
        .iter()
        .filter(|e| e.entity.analyzers.is_empty())
        .collect();
    if !unexamined.is_empty() {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            s.bold(&format!(
                "not examined by any analyzer ({}):",
                unexamined.len()
            ))
        );
        for e in unexamined {
            let _ = writeln!(
                out,
                "  {} {}",
                s.status(ToolStatus::Incomplete, "INCOMPLETE"),
                entity_name(&e.entity.target)
            );
        }
    }
    if let Some(note) = v.filter_note() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{note}");
    }
    v.servers_section(&mut out);
    v.coverage_section(&mut out);
    v.suppressions_section(&mut out);
    v.diagnostics_section(&mut out);
    out
}
