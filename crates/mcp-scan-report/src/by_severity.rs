//! `by_severity`: findings grouped under CRITICAL, HIGH, MEDIUM, LOW and INFO headings (by item
//! within each), then the INCOMPLETE and SAFE items. Every heading counts what is listed under it.

use crate::common::{
    EntityView, View, analyzers_label, entity_name, incomplete_reasons, plural, taxonomy_codes,
    trust_suffix,
};
use crate::style::{Verdict, clean, clip_text};
use mcp_scan_core::Finding;
use std::fmt::Write as _;

pub(crate) fn render(v: &View<'_>) -> String {
    let s = v.style;
    let mut out = String::new();
    let _ = writeln!(out, "{}", v.header());
    // Entities hidden whole by the filter (verdict None) are counted by the filter note instead.
    let listed = || v.entities.iter().filter(|e| e.verdict.is_some());
    for verdict in Verdict::ORDER {
        let _ = writeln!(out);
        // Each heading counts exactly the lines listed under it: findings of that severity
        // (grouped by item) for severities, items for INCOMPLETE and SAFE.
        match verdict {
            Verdict::Severity(sev) => {
                let groups: Vec<(&EntityView<'_>, Vec<&Finding>)> = listed()
                    .map(|e| {
                        let of_sev = e.shown.iter().copied().filter(|f| f.severity == sev);
                        (e, of_sev.collect::<Vec<_>>())
                    })
                    .filter(|(_, fs)| !fs.is_empty())
                    .collect();
                let n: usize = groups.iter().map(|(_, fs)| fs.len()).sum();
                let heading = format!(
                    "{} ({}, {})",
                    verdict.label(),
                    count(n, "finding"),
                    count(groups.len(), "item")
                );
                let _ = writeln!(out, "{}", s.bold(&s.verdict(verdict, &heading)));
                if groups.is_empty() {
                    let _ = writeln!(out, "  (none)");
                }
                for (e, fs) in groups {
                    let _ = writeln!(
                        out,
                        "  {}{}",
                        entity_name(&e.entity.target),
                        trust_suffix(e.entity)
                    );
                    for f in fs {
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
            Verdict::Incomplete | Verdict::Safe => {
                // An item with findings whose analysis did not finish is listed here as well:
                // its findings are not the whole story.
                let items: Vec<&EntityView<'_>> = listed()
                    .filter(|e| {
                        if verdict == Verdict::Safe {
                            e.verdict == Some(Verdict::Safe)
                        } else {
                            e.verdict == Some(Verdict::Incomplete)
                                || !e.entity.complete()
                                || e.entity.analyzers.is_empty()
                        }
                    })
                    .collect();
                let heading = format!("{} ({})", verdict.label(), count(items.len(), "item"));
                let _ = writeln!(out, "{}", s.bold(&s.verdict(verdict, &heading)));
                if items.is_empty() {
                    let _ = writeln!(out, "  (none)");
                }
                for e in items {
                    let _ = writeln!(
                        out,
                        "  {}{}",
                        entity_name(&e.entity.target),
                        trust_suffix(e.entity)
                    );
                    if verdict == Verdict::Incomplete {
                        let _ = writeln!(
                            out,
                            "    incomplete: {}",
                            incomplete_reasons(e.entity).join("; ")
                        );
                    }
                }
            }
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

fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", plural(n))
}
