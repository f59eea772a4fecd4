//! The view every human-readable format is drawn from: per-entity verdicts computed on the full
//! report (so a `--min-severity` filter can hide lines but never turn an entity SAFE), counts,
//! and one-line renderings of findings, evidence and diagnostics.

use crate::RenderOptions;
use crate::style::{MAX_NAME_CHARS, Style, Verdict, clean, clip, clip_text};
use mcp_scan_core::{
    Analyzer, AnalyzerState, Diagnostic, DiagnosticLevel, EntityReport, Evidence, Finding, Report,
    Severity, ToolRef, ToolStatus,
};
use std::fmt::Write as _;

pub(crate) struct View<'a> {
    pub report: &'a Report,
    pub style: Style,
    pub min: Option<Severity>,
    pub entities: Vec<EntityView<'a>>,
}

pub(crate) struct EntityView<'a> {
    pub entity: &'a EntityReport,
    /// Status on the unfiltered findings.
    pub status: ToolStatus,
    /// Findings at or above the display filter, in report order.
    pub shown: Vec<&'a Finding>,
    /// Findings the display filter hides.
    pub hidden: usize,
    /// `None` when every finding that made the entity UNSAFE is hidden by the filter: the entity
    /// is then left out of listings (and counted as hidden) rather than shown as anything else.
    pub verdict: Option<Verdict>,
}

impl<'a> View<'a> {
    pub(crate) fn new(report: &'a Report, opts: &RenderOptions<'_>) -> Self {
        let min = opts.min_severity;
        let entities = report
            .entities
            .iter()
            .map(|entity| {
                let status = entity.status();
                let shown: Vec<&Finding> = entity
                    .findings
                    .iter()
                    .filter(|f| min.is_none_or(|m| f.severity >= m))
                    .collect();
                let hidden = entity.findings.len() - shown.len();
                let max_shown = shown.iter().map(|f| f.severity).max();
                let verdict = match (max_shown, status) {
                    (Some(s), _) if s >= Severity::Low => Some(Verdict::Severity(s)),
                    (_, ToolStatus::Incomplete) => Some(Verdict::Incomplete),
                    (_, ToolStatus::Unsafe) => None,
                    (Some(s), ToolStatus::Safe) => Some(Verdict::Severity(s)),
                    (None, ToolStatus::Safe) => Some(Verdict::Safe),
                };
                EntityView {
                    entity,
                    status,
                    shown,
                    hidden,
                    verdict,
                }
            })
            .collect();
        View {
            report,
            style: crate::style::Style::new(opts.color),
            min,
            entities,
        }
    }

    /// Every analyzer that ran, in scan order, then any that only appear on entities or findings.
    pub(crate) fn analyzers(&self) -> Vec<Analyzer> {
        let mut out: Vec<Analyzer> = Vec::new();
        let seen =
            self.report
                .scan
                .analyzers
                .iter()
                .copied()
                .chain(self.report.entities.iter().flat_map(|e| {
                    e.analyzers
                        .iter()
                        .map(|a| a.analyzer)
                        .chain(e.findings.iter().flat_map(|f| f.analyzers.iter().copied()))
                }));
        for a in seen {
            if !out.contains(&a) {
                out.push(a);
            }
        }
        out
    }

    pub(crate) fn status_count(&self, status: ToolStatus) -> usize {
        self.entities.iter().filter(|e| e.status == status).count()
    }

    pub(crate) fn hidden_findings(&self) -> usize {
        self.entities.iter().map(|e| e.hidden).sum()
    }

    pub(crate) fn hidden_entities(&self) -> usize {
        self.entities.iter().filter(|e| e.verdict.is_none()).count()
    }

    /// `mcp-scan 1.2.3 (manifest): a.json, b.json`
    pub(crate) fn header(&self) -> String {
        let r = self.report;
        let targets: Vec<String> = r.scan.targets.iter().map(|t| clip_text(t)).collect();
        let targets = if targets.is_empty() {
            String::from("(no targets)")
        } else {
            targets.join(", ")
        };
        let line = format!(
            "{} {} ({}): {}",
            clean(&r.scanner),
            clean(&r.scanner_version),
            clean(&r.scan.command),
            targets
        );
        self.style.bold(&line)
    }

    /// "Analyzers: description, static, llm, runtime"
    pub(crate) fn analyzers_line(&self) -> String {
        let names: Vec<&str> = self.analyzers().iter().map(|a| a.as_str()).collect();
        format!(
            "Analyzers: {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )
    }

    /// Says what `--min-severity` hid, if anything.
    pub(crate) fn filter_note(&self) -> Option<String> {
        let min = self.min?;
        let hidden = self.hidden_findings();
        if hidden == 0 {
            return None;
        }
        let entities = self.hidden_entities();
        let mut s = format!(
            "{hidden} finding{} below {min} hidden by --min-severity",
            plural(hidden)
        );
        if entities > 0 {
            let _ = write!(
                s,
                " ({entities} unsafe item{} not listed)",
                plural(entities)
            );
        }
        s.push_str("; the exit code still counts them.");
        Some(self.style.dim(&s))
    }

    /// "Coverage: 14 python files, 9 registration sites, 9 items resolved, 2 gaps (INCOMPLETE)",
    /// for scans that measure coverage (source scans).
    /// `LLM: llamacpp/qwen (json_schema); NOT qualified 6/12 (...): verdicts advisory`.
    pub(crate) fn llm_line(&self) -> Option<String> {
        let llm = self.report.llm.as_ref()?;
        let line = format!("LLM: {}", clean(&llm.line()));
        Some(match &llm.qualification {
            Some(q) if !q.qualified => self.style.status(ToolStatus::Incomplete, &line),
            _ => line,
        })
    }

    pub(crate) fn coverage_line(&self) -> Option<String> {
        let c = self.report.coverage.as_ref()?;
        let mut files: Vec<String> = c
            .files_by_language
            .iter()
            .map(|(lang, n)| format!("{n} {} file{}", clean(lang), plural(*n)))
            .collect();
        if files.is_empty() {
            files.push("0 files".to_string());
        }
        let gaps = c.gaps.len();
        let gaps_text = if gaps == 0 {
            "0 gaps".to_string()
        } else {
            self.style.status(
                ToolStatus::Incomplete,
                &format!("{gaps} gap{} (INCOMPLETE)", plural(gaps)),
            )
        };
        Some(format!(
            "Coverage: {}, {} registration site{}, {} item{} resolved, {gaps_text}",
            files.join(", "),
            c.registration_sites,
            plural(c.registration_sites),
            c.entities_resolved,
            plural(c.entities_resolved),
        ))
    }

    /// Every coverage gap with its location and reason, or nothing when there are none.
    pub(crate) fn gaps_section(&self, out: &mut String) {
        let Some(c) = self.report.coverage.as_ref() else {
            return;
        };
        if c.gaps.is_empty() {
            return;
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            self.style.bold(&format!(
                "Coverage gaps ({}), code not analysed, nothing here is known to be safe:",
                c.gaps.len()
            ))
        );
        for g in &c.gaps {
            let _ = writeln!(
                out,
                "  {}",
                self.style
                    .status(ToolStatus::Incomplete, &clean(&g.to_string()))
            );
        }
    }

    /// The coverage line and the gaps, as one block (formats without a header block of counts).
    pub(crate) fn coverage_section(&self, out: &mut String) {
        let Some(line) = self.coverage_line() else {
            return;
        };
        let _ = writeln!(out);
        let _ = writeln!(out, "{line}");
        self.gaps_section(out);
    }

    /// One line per scanned server (`scan`): verdict, trust, name, where it came from, then
    /// each witness's state and the scorer's notes. Nothing for single-witness commands.
    pub(crate) fn servers_section(&self, out: &mut String) {
        let servers = &self.report.servers;
        if servers.is_empty() {
            return;
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            self.style.bold(&format!("Servers ({}):", servers.len()))
        );
        for s in servers {
            let _ = writeln!(
                out,
                "  {} trust {:>3}/100  {}  {}",
                crate::style::pad(&self.style.status(s.status, s.status.as_str()), 10),
                s.trust,
                clip(&s.name, MAX_NAME_CHARS),
                clip_text(&s.origin.join("; "))
            );
            if let Some(info) = &s.server_info {
                let _ = writeln!(out, "      serverInfo: {}", clip(info, MAX_NAME_CHARS));
            }
            if !s.env.is_empty() {
                let names: Vec<String> = s.env.iter().map(|n| clip(n, MAX_NAME_CHARS)).collect();
                let _ = writeln!(out, "      env (names only): {}", names.join(", "));
            }
            let w: Vec<String> = s
                .witnesses
                .iter()
                .map(|a| match a.state {
                    AnalyzerState::Complete => format!("{} complete", a.analyzer),
                    AnalyzerState::Incomplete => format!(
                        "{} INCOMPLETE ({})",
                        a.analyzer,
                        clip_text(a.reason.as_deref().unwrap_or("did not complete"))
                    ),
                })
                .collect();
            let _ = writeln!(
                out,
                "      witnesses: {}",
                if w.is_empty() {
                    "none".to_string()
                } else {
                    w.join(", ")
                }
            );
            for n in &s.notes {
                let _ = writeln!(out, "      {}", clip_text(n));
            }
        }
    }

    /// Suppressed findings (baseline, inline, rules not selected), expired and stale baseline
    /// entries and suppression warnings; nothing when no suppression applied.
    pub(crate) fn suppressions_section(&self, out: &mut String) {
        let sup = &self.report.suppressions;
        let Some(line) = sup.summary_line() else {
            return;
        };
        let _ = writeln!(out);
        let mut head = line;
        if let Some(first) = head.get(..1) {
            head = format!("{}{}", first.to_ascii_uppercase(), &head[1..]);
        }
        let _ = writeln!(out, "{}", self.style.bold(&head));
        for s in &sup.suppressed {
            let f = &s.finding;
            let _ = writeln!(
                out,
                "  [{}] {} {} {}: {}",
                s.kind.as_str(),
                f.severity,
                f.rule_id,
                entity_name(&f.target),
                clip_text(&f.observation)
            );
            let mut why = format!(
                "      {}: {}",
                s.origin,
                s.reason.as_deref().unwrap_or("(no reason given)")
            );
            if let Some(e) = &s.expires {
                why.push_str(&format!(" (until {e})"));
            }
            let _ = writeln!(out, "{}", clip_text(&why));
        }
        for (rule, n) in &sup.deselected {
            let _ = writeln!(out, "  [not selected] {rule}: {n} finding{}", plural(*n));
        }
        for e in &sup.expired {
            let _ = writeln!(
                out,
                "  [expired {}] {} {}: counts again (reason was: {})",
                e.expires.as_deref().unwrap_or(""),
                e.rule,
                e.target,
                clip_text(&e.reason)
            );
        }
        for e in &sup.stale {
            let _ = writeln!(
                out,
                "  [stale] {} {} {}: matches no finding of this scan",
                e.fingerprint, e.rule, e.target
            );
        }
        for w in &sup.warnings {
            let _ = writeln!(out, "  warning: {}", clip_text(w));
        }
    }

    /// The diagnostics section, or nothing when there are none.
    pub(crate) fn diagnostics_section(&self, out: &mut String) {
        let diags = &self.report.diagnostics;
        if diags.is_empty() {
            return;
        }
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", self.style.bold("Diagnostics:"));
        for d in diags {
            let _ = writeln!(out, "  {}", self.diagnostic(d));
        }
    }

    pub(crate) fn diagnostic(&self, d: &Diagnostic) -> String {
        let text = clip_text(&d.to_string());
        match d.level {
            DiagnosticLevel::Error => self.style.severity(Severity::High, &text),
            DiagnosticLevel::Warning => self.style.status(ToolStatus::Incomplete, &text),
        }
    }

    pub(crate) fn verdict_label(&self, v: Verdict) -> String {
        self.style.verdict(v, v.label())
    }
}

/// "  trust 42" when the scorer ran, else nothing.
pub(crate) fn trust_suffix(e: &EntityReport) -> String {
    e.trust.map(|t| format!("  trust {t}")).unwrap_or_default()
}

/// `notes-server/tool send_note`, with untrusted parts cleaned.
pub(crate) fn entity_name(t: &ToolRef) -> String {
    format!(
        "{}/{} {}",
        clip(&t.server, MAX_NAME_CHARS),
        t.kind,
        clip(&t.name, MAX_NAME_CHARS)
    )
}

/// Counts per severity in [`Severity::ALL`] order (CRITICAL first).
pub(crate) fn severity_counts<'f>(findings: impl IntoIterator<Item = &'f Finding>) -> [usize; 5] {
    let mut counts = [0; 5];
    for f in findings {
        if let Some(i) = Severity::ALL.iter().position(|s| *s == f.severity) {
            counts[i] += 1;
        }
    }
    counts
}

/// "CRITICAL 1, HIGH 2, MEDIUM 0, LOW 1, INFO 0"
pub(crate) fn counts_line(style: Style, counts: &[usize; 5]) -> String {
    Severity::ALL
        .iter()
        .zip(counts)
        .map(|(s, n)| {
            let text = format!("{} {n}", s.as_str());
            if *n > 0 {
                style.severity(*s, &text)
            } else {
                text
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// "runtime: timed out after 30 s" for each analyzer that did not complete.
pub(crate) fn incomplete_reasons(e: &EntityReport) -> Vec<String> {
    let mut out: Vec<String> = e
        .analyzers
        .iter()
        .filter(|a| a.state == AnalyzerState::Incomplete)
        .map(|a| match &a.reason {
            Some(r) => format!("{}: {}", a.analyzer, clip_text(r)),
            None => format!("{}: did not complete", a.analyzer),
        })
        .collect();
    if e.analyzers.is_empty() {
        out.push("no analyzer examined it".to_string());
    }
    out
}

/// "static+runtime (corroborated)" or "description".
pub(crate) fn analyzers_label(f: &Finding) -> String {
    let names: Vec<&str> = f.analyzers.iter().map(|a| a.as_str()).collect();
    if f.corroborated() {
        format!("{} (corroborated)", names.join("+"))
    } else {
        names.join("+")
    }
}

/// "AITech-8.2 Data Exfiltration / Exposure > AISubtech-8.2.3 Data Exfiltration via Agent Tooling"
pub(crate) fn taxonomy_line(f: &Finding) -> String {
    let t = &f.taxonomy;
    clean(&format!(
        "{} {} > {} {}",
        t.technique, t.technique_name, t.subtechnique, t.subtechnique_name
    ))
}

/// Short codes for one-line listings: "AITech-8.2/AISubtech-8.2.3".
pub(crate) fn taxonomy_codes(f: &Finding) -> String {
    clean(&format!(
        "{}/{}",
        f.taxonomy.technique, f.taxonomy.subtechnique
    ))
}

/// "source  server.py:12:5: reads ~/.ssh/id_rsa"
pub(crate) fn evidence_line(e: &Evidence) -> String {
    let kind = match e {
        Evidence::Text { .. } => "text",
        Evidence::Source { .. } => "source",
        Evidence::Syscall { .. } => "syscall",
        Evidence::Network { .. } => "network",
        Evidence::Llm { .. } => "llm",
        Evidence::Note { .. } => "note",
    };
    format!("{kind:<7} {}", clip_text(&e.summary()))
}

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Distinct values in first-seen order.
pub(crate) fn unique(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in items {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

/// What one analyzer says about one item: its worst shown finding, SAFE (completed, nothing
/// found), INCOMPLETE, or `None` when it did not run on the item. Returns (plain, styled).
pub(crate) fn analyzer_cell(
    style: Style,
    e: &EntityView<'_>,
    a: Analyzer,
) -> Option<(String, String)> {
    let state = e
        .entity
        .analyzers
        .iter()
        .find(|st| st.analyzer == a)
        .map(|st| st.state);
    let worst = e
        .shown
        .iter()
        .filter(|f| f.analyzers.contains(&a))
        .map(|f| f.severity)
        .max();
    let incomplete = || style.status(ToolStatus::Incomplete, "INCOMPLETE");
    Some(match (worst, state) {
        (Some(sev), Some(AnalyzerState::Incomplete)) => (
            format!("{sev} + INCOMPLETE"),
            format!("{} + {}", style.severity(sev, sev.as_str()), incomplete()),
        ),
        (Some(sev), _) => (sev.to_string(), style.severity(sev, sev.as_str())),
        (None, Some(AnalyzerState::Incomplete)) => ("INCOMPLETE".to_string(), incomplete()),
        (None, Some(AnalyzerState::Complete)) => {
            ("SAFE".to_string(), style.status(ToolStatus::Safe, "SAFE"))
        }
        (None, None) => return None,
    })
}
