//! `raw`: the versioned JSON document described in docs/raw-report.md and
//! docs/raw-report.schema.json.
//!
//! It is the [`Report`] as serde writes it, plus derived fields (`summary`, `filter`, and each
//! entity's `status` and `max_severity`) that readers deserialising into [`Report`] ignore.

use crate::RenderOptions;
use mcp_scan_core::{
    AnalyzerStatus, ContainmentLayer, Coverage, Diagnostic, EntityReport, Finding, LlmRun, Report,
    ScanInfo, ServerReport, Severity, Suppressions, ToolBehavior, ToolRef, ToolStatus,
};

fn is_zero(n: &usize) -> bool {
    *n == 0
}
use serde::Serialize;

#[derive(Serialize)]
struct RawReport<'a> {
    schema_version: u32,
    scanner: &'a str,
    scanner_version: &'a str,
    scan: &'a ScanInfo,
    summary: Summary,
    #[serde(skip_serializing_if = "<[ServerReport]>::is_empty")]
    servers: &'a [ServerReport],
    #[serde(skip_serializing_if = "Option::is_none")]
    filter: Option<Filter>,
    entities: Vec<RawEntity<'a>>,
    diagnostics: &'a [Diagnostic],
    #[serde(skip_serializing_if = "<[ToolBehavior]>::is_empty")]
    behaviors: &'a [ToolBehavior],
    #[serde(skip_serializing_if = "Option::is_none")]
    coverage: Option<&'a Coverage>,
    #[serde(skip_serializing_if = "<[ContainmentLayer]>::is_empty")]
    containment: &'a [ContainmentLayer],
    #[serde(skip_serializing_if = "Suppressions::is_empty")]
    suppressions: &'a Suppressions,
    #[serde(skip_serializing_if = "Option::is_none")]
    llm: Option<&'a LlmRun>,
}

/// Counts over the whole, unfiltered report.
#[derive(Serialize)]
struct Summary {
    entities: usize,
    safe: usize,
    #[serde(rename = "unsafe")]
    unsafe_: usize,
    incomplete: usize,
    findings: usize,
    corroborated: usize,
    /// Findings a baseline entry or an inline comment accepted (not in `findings`).
    #[serde(skip_serializing_if = "is_zero")]
    suppressed: usize,
    by_severity: BySeverity,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_severity: Option<Severity>,
}

/// Every severity, zeros included, worst first.
#[derive(Serialize)]
#[serde(rename_all = "UPPERCASE")]
struct BySeverity {
    critical: usize,
    high: usize,
    medium: usize,
    low: usize,
    info: usize,
}

#[derive(Serialize)]
struct Filter {
    min_severity: Severity,
    hidden_findings: usize,
}

#[derive(Serialize)]
struct RawEntity<'a> {
    target: &'a ToolRef,
    /// Derived from all findings, before any filter.
    status: ToolStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_severity: Option<Severity>,
    /// Trust score 0-100, when the scorer ran (`scan`).
    #[serde(skip_serializing_if = "Option::is_none")]
    trust: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    declared: Option<&'a str>,
    analyzers: &'a [AnalyzerStatus],
    findings: Vec<&'a Finding>,
}

pub(crate) fn render(report: &Report, opts: &RenderOptions<'_>) -> String {
    let min = opts.min_severity;
    let shown = |f: &&Finding| min.is_none_or(|m| f.severity >= m);
    let all: Vec<&Finding> = report.findings().collect();
    let of = |s: Severity| all.iter().filter(|f| f.severity == s).count();
    let count = |s: ToolStatus| report.entities.iter().filter(|e| e.status() == s).count();
    let raw = RawReport {
        schema_version: report.schema_version,
        scanner: &report.scanner,
        scanner_version: &report.scanner_version,
        scan: &report.scan,
        servers: &report.servers,
        summary: Summary {
            entities: report.entities.len(),
            safe: count(ToolStatus::Safe),
            unsafe_: count(ToolStatus::Unsafe),
            incomplete: count(ToolStatus::Incomplete),
            findings: all.len(),
            corroborated: all.iter().filter(|f| f.corroborated()).count(),
            suppressed: report.suppressions.suppressed.len(),
            by_severity: BySeverity {
                critical: of(Severity::Critical),
                high: of(Severity::High),
                medium: of(Severity::Medium),
                low: of(Severity::Low),
                info: of(Severity::Info),
            },
            max_severity: report.max_severity(),
        },
        filter: min.map(|m| Filter {
            min_severity: m,
            hidden_findings: all.iter().filter(|f| f.severity < m).count(),
        }),
        entities: report
            .entities
            .iter()
            .map(|e: &EntityReport| RawEntity {
                target: &e.target,
                status: e.status(),
                max_severity: e.max_severity(),
                trust: e.trust,
                declared: e.declared.as_deref(),
                analyzers: &e.analyzers,
                findings: e.findings.iter().filter(shown).collect(),
            })
            .collect(),
        diagnostics: &report.diagnostics,
        behaviors: &report.behaviors,
        coverage: report.coverage.as_ref(),
        containment: &report.containment,
        suppressions: &report.suppressions,
        llm: report.llm.as_ref(),
    };
    crate::to_json(&raw)
}
