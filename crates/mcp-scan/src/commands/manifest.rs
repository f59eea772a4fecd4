//! `mcp-scan manifest <FILE>...`: the description witness over manifests.

use crate::cli::OutputArgs;
use clap::Args;
use mcp_scan_core::{Analyzer, Diagnostic, DiagnosticLevel, ExitKind, Report, ScanInfo};
use mcp_scan_description::DescriptionAnalyzer;

#[derive(Debug, Args)]
pub struct ManifestArgs {
    /// Manifest files: a tools array, a tools/list result, JSON-RPC responses, a manifest with
    /// tools/resources/prompts, or JSON Lines of those. `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,

    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: ManifestArgs) -> anyhow::Result<ExitKind> {
    if args.files.iter().filter(|f| f.as_str() == "-").count() > 1 {
        anyhow::bail!("standard input (`-`) can only be named once");
    }
    let analyzer = DescriptionAnalyzer::builtin()
        .map_err(|e| anyhow::anyhow!("built-in description rules do not load: {e}"))?;
    let mut report = Report::new(ScanInfo {
        command: "manifest".into(),
        targets: args.files.clone(),
        analyzers: vec![Analyzer::Description],
    });
    for file in &args.files {
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
    }
    crate::output::emit(report, &args.output)
}
