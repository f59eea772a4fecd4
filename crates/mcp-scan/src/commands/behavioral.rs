//! `mcp-scan behavioral <path>`: parse a server's source tree, analyse every tool statically,
//! report findings and the per-tool behaviour summaries.

use crate::cli::OutputArgs;
use anyhow::Context;
use clap::Args;
use mcp_scan_core::{
    Analyzer, AnalyzerStatus, Diagnostic, DiagnosticLevel, EntityReport, ExitKind, Report, ScanInfo,
};
use mcp_scan_lang::{DiscoverOptions, scan_tree};
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct BehavioralArgs {
    /// The server's source: a directory (scanned recursively) or one file.
    pub path: PathBuf,

    /// Also scan files matching this glob even if skipped by default (.venv, node_modules,
    /// site-packages, __pycache__, tests). Repeatable.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,

    /// Never scan files matching this glob (use `dir/**` for a directory). Repeatable.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Server name used in findings (default: the directory's name).
    #[arg(long)]
    pub server_name: Option<String>,

    /// LLM alignment check: runs when a provider is configured (flags or MCP_SCAN_LLM_* /
    /// MCP_SCANNER_LLM_* environment), analyzer `llm`.
    #[command(flatten)]
    pub llm: Box<mcp_scan_llm::LlmArgs>,

    #[command(flatten)]
    pub output: OutputArgs,
}

pub fn run(args: BehavioralArgs) -> anyhow::Result<ExitKind> {
    let mut report = build_report(
        &args.path,
        args.include.clone(),
        args.exclude.clone(),
        args.server_name.as_deref(),
    )?;
    // The model sees each tool's static summary; its verdicts join the static findings but can
    // never clear or lower one, and a failed check leaves the tool INCOMPLETE.
    if let Some(outcome) =
        mcp_scan_llm::run_on_report(&args.llm, &mut report, &|k| std::env::var(k).ok())?
    {
        for w in &outcome.warnings {
            eprintln!("mcp-scan: warning: {w}");
        }
        let s = outcome.stats();
        eprintln!(
            "mcp-scan: llm {}: {} tool(s), {} request(s), {} from cache, {} incomplete",
            outcome.model, s.tools, s.requests, s.cache_hits, s.incomplete
        );
    }
    crate::output::emit(report, &args.output)
}

/// The report of a behavioral scan (no output, no exit status).
pub fn build_report(
    path: &Path,
    include: Vec<String>,
    exclude: Vec<String>,
    server_name: Option<&str>,
) -> anyhow::Result<Report> {
    let opts = DiscoverOptions {
        include,
        exclude,
        ..DiscoverOptions::default()
    };
    let tree = scan_tree(path, &opts).with_context(|| format!("cannot scan {}", path.display()))?;
    let server = match server_name {
        Some(s) => s.to_string(),
        None => default_server_name(path),
    };
    let input = mcp_scan_flow::Input {
        server: &server,
        modules: &tree.modules,
        sources: &tree.sources,
        incomplete_files: &tree.incomplete_files,
    };
    // Runs on its own large-stack thread (deeply nested inputs recurse deeply).
    let results = mcp_scan_flow::analyze(&input);

    let mut report = Report::new(ScanInfo {
        command: "behavioral".to_string(),
        targets: vec![path.display().to_string()],
        analyzers: vec![Analyzer::Static],
    });
    report.diagnostics = tree.diagnostics.clone();
    let mut coverage = tree.coverage.clone();
    coverage.entities_resolved = results.len();
    if results.is_empty() {
        report.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Warning,
            file: None,
            line: None,
            column: None,
            message: format!(
                "no MCP tools, resources or prompts found under {} ({} files scanned)",
                path.display(),
                tree.files
            ),
        });
    }
    for r in results {
        let mut entity = EntityReport::new(r.target.clone(), r.behavior.declared.clone());
        entity.analyzers.push(match &r.incomplete {
            None => AnalyzerStatus::complete(Analyzer::Static),
            Some(reason) => AnalyzerStatus::incomplete(Analyzer::Static, reason.clone()),
        });
        entity.findings = r.findings;
        report.entities.push(entity);
        report.behaviors.push(r.behavior);
    }
    report.coverage = Some(coverage);
    Ok(report)
}

/// `fixtures/python/leaky_server` → `leaky_server`; a file → its stem.
fn default_server_name(path: &Path) -> String {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let named = if canonical.is_file() {
        canonical.file_stem()
    } else {
        canonical.file_name()
    };
    named
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "server".to_string())
}
