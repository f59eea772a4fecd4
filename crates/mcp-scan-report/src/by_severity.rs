//! `by_severity`: items grouped under CRITICAL, HIGH, MEDIUM, LOW, INFO, INCOMPLETE and SAFE
//! headings, each with its findings.

use crate::common::{View, analyzers_label, entity_name, incomplete_reasons, taxonomy_codes};
use crate::style::{Verdict, clean, clip_text};
use std::fmt::Write as _;

pub(crate) fn render(v: &View<'_>) -> String {
    let s = v.style;
    let mut out = String::new();
    let _ = writeln!(out, "{}", v.header());
    for verdict in Verdict::ORDER {
        let items: Vec<_> = v
            .entities
            .iter()
            .filter(|e| e.verdict == Some(verdict))
            .collect();
        let _ = writeln!(out);
        let heading = format!("{} ({})", verdict.label(), items.len());
        let _ = writeln!(out, "{}", s.bold(&s.verdict(verdict, &heading)));
        if items.is_empty() {
            let _ = writeln!(out, "  (none)");
        }
        for e in items {
            let _ = writeln!(out, "  {}", entity_name(&e.entity.target));
            if verdict == Verdict::Incomplete
                || !e.entity.complete()
                || e.entity.analyzers.is_empty()
            {
                let _ = writeln!(
                    out,
                    "    incomplete: {}",
                    incomplete_reasons(e.entity).join("; ")
                );
            }
            for f in &e.shown {
                let _ = writeln!(
                    out,
                    "    - {} {}: {} [{}; {}; {}]",
                    s.severity(f.severity, f.severity.as_str()),
                    clean(&f.taxonomy.threat),
                    clip_text(&f.title),
                    clean(&f.rule_id),
                    taxonomy_codes(f),
                    analyzers_label(f)
                );
            }
        }
    }
    if let Some(note) = v.filter_note() {
        let _ = writeln!(out);
        let _ = writeln!(out, "{note}");
    }
    v.coverage_section(&mut out);
    v.diagnostics_section(&mut out);
    out
}
