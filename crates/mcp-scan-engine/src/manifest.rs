//! The description witness over manifest files (`mcp-scan manifest`), and the items the optional
//! LLM poisoning judge reads.

use crate::EngineError;
use mcp_scan_core::{Analyzer, Diagnostic, DiagnosticLevel, Report, ScanInfo};
use mcp_scan_description::DescriptionAnalyzer;

/// A manifest scan's report (no LLM yet) and what the poisoning judge would read.
pub struct ManifestScan {
    pub report: Report,
    pub judge_items: Vec<mcp_scan_llm::JudgeItem>,
}

/// Loads and scans every file (`-` is standard input); unreadable input becomes diagnostics.
pub fn build_report(files: &[String]) -> Result<ManifestScan, EngineError> {
    let analyzer = DescriptionAnalyzer::builtin().map_err(|e| EngineError::Rules(e.to_string()))?;
    let mut report = Report::new(ScanInfo {
        command: "manifest".into(),
        targets: files.to_vec(),
        analyzers: vec![Analyzer::Description],
    });
    let mut judge_items = Vec::new();
    for file in files {
        let out = mcp_scan_manifest::load(file);
        let diag = |level| {
            move |e: mcp_scan_manifest::ManifestError| Diagnostic {
                level,
                file: Some(e.file),
                line: e.line,
                column: e.column,
                message: e.message,
            }
        };
        report
            .diagnostics
            .extend(out.errors.into_iter().map(diag(DiagnosticLevel::Error)));
        report
            .diagnostics
            .extend(out.warnings.into_iter().map(diag(DiagnosticLevel::Warning)));
        report
            .entities
            .extend(analyzer.scan_manifest(&out.manifest));
        judge_items.extend(judge_items_of(&out.manifest));
    }
    Ok(ManifestScan {
        report,
        judge_items,
    })
}

/// Every declared text of a manifest, as the poisoning judge reads it.
pub fn judge_items_of(manifest: &mcp_scan_manifest::Manifest) -> Vec<mcp_scan_llm::JudgeItem> {
    mcp_scan_description::declared_texts(manifest)
        .into_iter()
        .map(|d| mcp_scan_llm::JudgeItem {
            tool: d.target,
            fields: d.fields,
            declared: d.declared,
            location: d.location,
        })
        .collect()
}
