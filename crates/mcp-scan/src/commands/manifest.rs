//! `mcp-scan manifest <FILE>...`: the description witness over manifests
//! (`mcp_scan_engine::manifest`).

use crate::cli::OutputArgs;
use clap::Args;
use mcp_scan_core::ExitKind;

#[derive(Debug, Args)]
pub struct ManifestArgs {
    /// Manifest files: a tools array, a tools/list result, JSON-RPC responses, a manifest with
    /// tools/resources/prompts, or JSON Lines of those. `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<String>,

    /// Optional LLM poisoning judge: runs when a provider is configured (flags or
    /// MCP_SCAN_LLM_* / MCP_SCANNER_LLM_* environment), analyzer `llm`, rule MCPS-D026. The
    /// description rules stay primary; the judge can add findings but never clear one.
    #[command(flatten)]
    pub llm: Box<mcp_scan_llm::LlmArgs>,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub cfg: crate::config::ConfigArgs,
}

pub fn run(mut args: ManifestArgs, matches: Option<&clap::ArgMatches>) -> anyhow::Result<ExitKind> {
    let set = crate::config::typed_by(matches);
    let cli = crate::config::CliValues::of_output(&args.output, &set);
    // The project is the one holding the first manifest file (standard input: the current
    // directory's).
    let start = args
        .files
        .iter()
        .find(|f| f.as_str() != "-")
        .map(std::path::PathBuf::from);
    let (_, policy) = crate::config::resolve(
        &args.cfg,
        start,
        cli,
        &mut args.output,
        Some(args.llm.as_mut()),
    )?;
    if args.files.iter().filter(|f| f.as_str() == "-").count() > 1 {
        anyhow::bail!("standard input (`-`) can only be named once");
    }
    let mcp_scan_engine::manifest::ManifestScan {
        mut report,
        judge_items,
    } = mcp_scan_engine::manifest::build_report(&args.files)?;
    if let Some(outcome) = mcp_scan_llm::judge_report(&args.llm, &mut report, &judge_items, &|k| {
        std::env::var(k).ok()
    })? {
        for w in &outcome.warnings {
            eprintln!("mcp-scan: warning: {w}");
        }
        eprintln!("mcp-scan: llm judge {}", outcome.summary("entit(ies)"));
    }
    crate::config::apply_and_finish(&mut report, &policy, &args.cfg)?;
    crate::output::emit(report, &args.output)
}
