//! `table`: one row per item; columns target, type, name, status, one per analyzer that ran,
//! worst severity and finding count.

use crate::common::{View, analyzer_cell};
use crate::style::{MAX_NAME_CHARS, clip, pad};
use std::fmt::Write as _;

pub(crate) fn render(v: &View<'_>) -> String {
    let s = v.style;
    let analyzers = v.analyzers();
    let mut header: Vec<String> = ["TARGET", "TYPE", "NAME", "STATUS"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    header.extend(analyzers.iter().map(|a| a.as_str().to_uppercase()));
    header.push("SEVERITY".to_string());
    header.push("FINDINGS".to_string());
    // The scorer's column, only when it ran (`scan`).
    let scored = v.report.entities.iter().any(|e| e.trust.is_some());
    if scored {
        header.push("TRUST".to_string());
    }

    // Each cell as (plain text for width, styled text to print).
    let mut rows: Vec<Vec<(String, String)>> = Vec::new();
    for e in &v.entities {
        if e.verdict.is_none() {
            continue;
        }
        let t = &e.entity.target;
        let plain = |x: String| (x.clone(), x);
        let mut row = vec![
            plain(clip(&t.server, MAX_NAME_CHARS)),
            plain(t.kind.to_string()),
            plain(clip(&t.name, MAX_NAME_CHARS)),
            (e.status.to_string(), s.status(e.status, e.status.as_str())),
        ];
        for a in &analyzers {
            row.push(analyzer_cell(s, e, *a).unwrap_or_else(|| plain("-".to_string())));
        }
        row.push(match e.shown.iter().map(|f| f.severity).max() {
            Some(sev) => (sev.to_string(), s.severity(sev, sev.as_str())),
            None => plain("-".to_string()),
        });
        let corr = e.shown.iter().filter(|f| f.corroborated()).count();
        row.push(plain(if corr > 0 {
            format!("{} ({corr} corroborated)", e.shown.len())
        } else {
            e.shown.len().to_string()
        }));
        if scored {
            row.push(plain(
                e.entity
                    .trust
                    .map_or_else(|| "-".to_string(), |t| t.to_string()),
            ));
        }
        rows.push(row);
    }

    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, (plain, _)) in widths.iter_mut().zip(row) {
            *w = (*w).max(plain.chars().count());
        }
    }

    let mut out = String::new();
    let _ = writeln!(out, "{}", v.header());
    let _ = writeln!(out);
    let line = |cells: Vec<String>| -> String {
        let padded: Vec<String> = cells.iter().zip(&widths).map(|(c, w)| pad(c, *w)).collect();
        padded.join("  ").trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(header.iter().map(|h| s.bold(h)).collect()));
    let _ = writeln!(
        out,
        "{}",
        line(widths.iter().map(|w| "-".repeat(*w)).collect())
    );
    for row in rows {
        let _ = writeln!(out, "{}", line(row.into_iter().map(|(_, st)| st).collect()));
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
