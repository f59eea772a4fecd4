//! `mcp-scan bench mcptox`: recall and precision of the description rules.

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use mcp_scan_core::{ExitKind, Severity};
use mcp_scan_description::DescriptionAnalyzer;
use mcp_scan_description::bench::{BenchReport, Scores, run_mcptox};
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Score the description rules on MCPTox poisoned tools (positives) and benign manifests
    /// (negatives).
    Mcptox(McptoxArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BenchFormat {
    Table,
    Raw,
}

#[derive(Debug, Args)]
pub struct McptoxArgs {
    /// MCPTox poisoned tools, JSON Lines (id, poisoned_tool_name, description, paradigm,
    /// security_risk).
    #[arg(long, value_name = "FILE")]
    pub data: PathBuf,
    /// Directory of benign manifests (*.json); every tool is a negative.
    #[arg(long, value_name = "DIR")]
    pub benign: PathBuf,
    /// A finding at or above this severity counts as a detection.
    #[arg(long, default_value = "medium", value_parser = parse_severity)]
    pub threshold: Severity,
    /// table or raw (JSON).
    #[arg(long, short = 'f', value_enum, default_value_t = BenchFormat::Table)]
    pub format: BenchFormat,
}

fn parse_severity(s: &str) -> Result<Severity, String> {
    s.parse().map_err(|e| format!("{e}"))
}

pub fn run(cmd: BenchCommand) -> anyhow::Result<ExitKind> {
    let BenchCommand::Mcptox(args) = cmd;
    let analyzer = DescriptionAnalyzer::builtin()
        .map_err(|e| anyhow::anyhow!("built-in description rules do not load: {e}"))?;
    let report = run_mcptox(&analyzer, &args.data, &args.benign, args.threshold)?;
    let text = match args.format {
        BenchFormat::Raw => {
            let mut s = serde_json::to_string_pretty(&report).context("serialising the result")?;
            s.push('\n');
            s
        }
        BenchFormat::Table => table(&report),
    };
    crate::output::write_stdout(&text).context("cannot write to standard output")?;
    Ok(ExitKind::Clean)
}

fn row(label: &str, s: &Scores) -> String {
    format!(
        "{label:<26} {:>4} {:>4} {:>4} {:>4}  {:>6.3} [{:.3}, {:.3}]  {:>6.3} {:>9.3} {:>6.3}\n",
        s.tp,
        s.fn_,
        s.fp,
        s.tn,
        s.recall,
        s.recall_ci95.0,
        s.recall_ci95.1,
        s.false_positive_rate,
        s.precision,
        s.f1
    )
}

/// The human-readable result.
pub fn table(r: &BenchReport) -> String {
    let header = format!(
        "{:<26} {:>4} {:>4} {:>4} {:>4}  {:>6} {:<16}  {:>6} {:>9} {:>6}\n",
        "", "TP", "FN", "FP", "TN", "recall", "(Wilson 95%)", "FPR", "precision", "F1"
    );
    let mut s = format!(
        "MCPTox description benchmark: {} poisoned tools, {} benign tools from {} manifests, detection = a finding at {} or above\n\n",
        r.positives, r.negatives, r.benign_manifests, r.threshold
    );
    s.push_str(&header);
    s.push_str(&row("overall", &r.overall));
    s.push_str("\nby paradigm\n");
    for (k, v) in &r.by_paradigm {
        s.push_str(&row(k, v));
    }
    s.push_str("\nby security risk\n");
    for (k, v) in &r.by_security_risk {
        s.push_str(&row(k, v));
    }
    s.push_str("\n(per group: that group's TP/FN against all benign negatives)\n");
    if !r.false_positives.is_empty() || !r.benign_other_hits.is_empty() {
        s.push_str("\nbenign entities with findings at the threshold:\n");
        for h in r.false_positives.iter().chain(&r.benign_other_hits) {
            s.push_str(&format!(
                "  {} {} {}: {} {}\n",
                h.server, h.kind, h.name, h.rule, h.severity
            ));
        }
    }
    s
}
