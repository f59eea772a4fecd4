//! `by_tool`: one line per item with its worst severity (or SAFE / INCOMPLETE).

use crate::common::{
    View, entity_name, incomplete_reasons, plural, taxonomy_codes, trust_suffix, unique,
};
use crate::style::{Verdict, pad};
use std::fmt::Write as _;

pub(crate) fn render(v: &View<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", v.header());
    let width = v
        .entities
        .iter()
        .map(|e| entity_name(&e.entity.target).chars().count())
        .max()
        .unwrap_or(0);
    for e in &v.entities {
        let Some(verdict) = e.verdict else { continue };
        let mut detail = Vec::new();
        let n = e.shown.len();
        if n > 0 {
            let corr = e.shown.iter().filter(|f| f.corroborated()).count();
            let mut s = format!("{n} finding{}", plural(n));
            if corr > 0 {
                let _ = write!(s, " ({corr} corroborated)");
            }
            let codes = unique(e.shown.iter().map(|f| taxonomy_codes(f)));
            let _ = write!(s, " [{}]", codes.join(", "));
            detail.push(s);
        }
        if verdict == Verdict::Incomplete || !e.entity.complete() || e.entity.analyzers.is_empty() {
            detail.push(format!(
                "incomplete: {}",
                incomplete_reasons(e.entity).join("; ")
            ));
        }
        let line = format!(
            "{} {}  {}{}",
            pad(&v.verdict_label(verdict), 10),
            pad(&entity_name(&e.entity.target), width),
            detail.join("; "),
            trust_suffix(e.entity)
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    if let Some(note) = v.filter_note() {
        let _ = writeln!(out, "{note}");
    }
    v.servers_section(&mut out);
    v.coverage_section(&mut out);
    v.suppressions_section(&mut out);
    v.diagnostics_section(&mut out);
    out
}
