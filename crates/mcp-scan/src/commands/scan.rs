//! `mcp-scan scan [TARGET...] [-- CMD...]`: every witness that applies on every server, one
//! report scored across witnesses (`mcp_scan_engine::scan`).

use crate::cli::OutputArgs;
use clap::Args;
use mcp_scan_core::ExitKind;
use mcp_scan_engine::{ScanOptions, Target};
use mcp_scan_lang::DiscoverOptions;
use std::time::Duration;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  mcp-scan scan ./my-server                      static + description (+ LLM when configured)
  mcp-scan scan ~/.cursor/mcp.json               every server a client configuration declares
  mcp-scan scan --run ./my-server -- python ./my-server/server.py
                                                 the same server's source and its run, merged
  mcp-scan scan https://mcp.example.com/mcp      a remote server: its listing only")]
pub struct ScanArgs {
    /// Source directories, MCP client configuration files (`{\"mcpServers\": {...}}`, `.json`)
    /// and remote server URLs. A directory holding the script of the launch command after `--`
    /// is that server's source.
    #[arg(value_name = "TARGET")]
    pub targets: Vec<String>,

    /// Run local servers in the namespace sandbox under the tracer and call their tools (the
    /// runtime witness). Without it nothing is run: running a server is your decision.
    #[arg(long)]
    pub run: bool,

    /// Server name used in findings (one server only; default: see docs/ARCHITECTURE.md,
    /// "Server identity").
    #[arg(long)]
    pub server_name: Option<String>,

    /// Also scan source files matching this glob even if skipped by default. Repeatable.
    #[arg(long, value_name = "GLOB", help_heading = "Static")]
    pub include: Vec<String>,

    /// Never scan source files matching this glob. Repeatable.
    #[arg(long, value_name = "GLOB", help_heading = "Static")]
    pub exclude: Vec<String>,

    /// Source files larger than this are not analysed (INCOMPLETE). Bytes, or K, M, G.
    #[arg(long, value_name = "BYTES", default_value = "8M", value_parser = super::behavioral::parse_size,
          help_heading = "Static")]
    pub max_file_size: u64,

    /// Seconds to wait for each request to a running or remote server.
    #[arg(
        long,
        default_value_t = 15.0,
        value_name = "SECS",
        help_heading = "Runtime"
    )]
    pub timeout: f64,

    /// Valid calls per tool before the adversarial ones (with --run).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=20),
          help_heading = "Runtime")]
    pub calls: u32,

    /// Do not send adversarial inputs (with --run).
    #[arg(long, help_heading = "Runtime")]
    pub no_probes: bool,

    /// Seed of the sandbox persona (with --run): the same seed reproduces a run.
    #[arg(long, value_name = "N", help_heading = "Runtime")]
    pub seed: Option<u64>,

    /// LLM alignment check: runs when a provider is configured (flags or MCP_SCAN_LLM_* /
    /// MCP_SCANNER_LLM_* environment).
    #[command(flatten)]
    pub llm: Box<mcp_scan_llm::LlmArgs>,

    #[command(flatten)]
    pub output: OutputArgs,

    /// A local server's launch command, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub fn run(args: ScanArgs) -> anyhow::Result<ExitKind> {
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 3600.0) {
        anyhow::bail!("--timeout must be between 0 and 3600 seconds");
    }
    let mut targets: Vec<Target> = args.targets.iter().map(|t| Target::parse(t)).collect();
    if !args.command.is_empty() {
        targets.push(Target::Command(args.command.clone()));
    }
    let mut dynamic = mcp_scan_dynamic::DynamicOptions::new(Vec::new());
    dynamic.timeout = Duration::from_secs_f64(args.timeout);
    dynamic.calls = args.calls;
    dynamic.probes = !args.no_probes;
    dynamic.seed = args.seed;
    let opts = ScanOptions {
        run: args.run,
        discover: DiscoverOptions {
            include: args.include.clone(),
            exclude: args.exclude.clone(),
            max_file_bytes: args.max_file_size,
            ..DiscoverOptions::default()
        },
        dynamic,
        llm: (*args.llm).clone(),
        server_name: args.server_name.clone(),
    };
    // Client discovery (no target) plugs in here: `mcp_scan_clients` yields the configured
    // servers, passed as the second argument.
    let outcome = mcp_scan_engine::scan(&targets, &[], &opts, &|k| std::env::var(k).ok())
        .map_err(crate::engine_error)?;
    for m in &outcome.messages {
        eprintln!("mcp-scan: {m}");
    }
    crate::output::emit(outcome.report, &args.output)
}
