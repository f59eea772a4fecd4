//! `mcp-scan dynamic [OPTIONS] -- <cmd>...`: the runtime witness. Runs the server in a namespace
//! sandbox under strace, drives it as an MCP client and reports declared vs observed behaviour.

use crate::cli::OutputArgs;
use anyhow::Context;
use clap::Args;
use mcp_scan_core::ExitKind;
use mcp_scan_dynamic::{DynamicOptions, RemoteTransport};
use mcp_scan_report::Format;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Args)]
#[command(after_help = "Example: mcp-scan dynamic --calls 3 -- python server.py")]
pub struct DynamicArgs {
    /// Seconds to wait for each request (initialize, listings, every call) before giving up on it.
    #[arg(long, default_value_t = 15.0, value_name = "SECS")]
    pub timeout: f64,

    /// Seconds the server may take to start and answer initialize.
    #[arg(long, default_value_t = 30.0, value_name = "SECS")]
    pub startup_timeout: f64,

    /// Valid calls per tool before the adversarial ones (behaviour that waits for the Nth call).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=20))]
    pub calls: u32,

    /// Pass an environment variable to the server (repeatable). Nothing else of the real
    /// environment is passed except PATH and LANG.
    #[arg(long = "env", value_name = "K=V", value_parser = parse_env)]
    pub env: Vec<(String, String)>,

    /// Record DNS queries but answer none of them (NXDOMAIN), so no follow-up connection is made.
    #[arg(long)]
    pub no_dns: bool,

    /// Do not send adversarial inputs (path traversal, injection, SSRF, oversized values).
    #[arg(long)]
    pub no_probes: bool,

    /// Write manifest.json, trace.log, events.jsonl, captures.jsonl, calls.jsonl and stderr.log here.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Accept the current tool/resource/prompt definitions as the new pins.
    #[arg(long)]
    pub accept_changes: bool,

    /// Run the server without the syscall tracer (a baseline for benchmarks: only the client and
    /// the sinks observe it, so every entity is reported INCOMPLETE).
    #[arg(long)]
    pub untraced: bool,

    /// Seed of the sandbox's persona (user, hostname, HOME and its file times, which secrets the
    /// environment holds, input values, pacing): the same seed reproduces a run.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// The client to introduce the scanner as (clientInfo and capabilities of initialize).
    #[arg(long, default_value = "vscode", value_parser = ["vscode", "claude-desktop", "claude-code", "cursor"])]
    pub client: String,

    /// After the session, call the tools again after growing delays and keep watching for this
    /// many seconds (time bombs, Nth-call triggers). Off by default.
    #[arg(long, default_value_t = 0.0, value_name = "SECS")]
    pub soak: f64,

    /// Seconds to keep tracing after the last response (activity later than that is not seen;
    /// processes still alive are reported).
    #[arg(long, default_value_t = 0.7, value_name = "SECS")]
    pub linger: f64,

    /// Put every secret variable in the environment instead of a few picked per run.
    #[arg(long)]
    pub all_secrets: bool,

    /// Send requests back to back instead of spread over time like a person's client.
    #[arg(long)]
    pub no_pacing: bool,

    /// Run the server a second time without the tracer (same persona and inputs, observed
    /// through the network sinks, HOME's file changes and the JSON-RPC stream), merging what
    /// only that run shows: `auto` when the traced run saw it look for a sandbox or a tracer,
    /// `always` (tracer checks that leave no trace, such as timing; about twice the time),
    /// `never`.
    #[arg(long, default_value = "auto", value_parser = ["auto", "always", "never"])]
    pub second_run: String,

    /// The system call tracer: `strace` (the default), `auto` (eBPF where this process may load
    /// it: root, or CAP_BPF with CAP_PERFMON, and a kernel with BTF; else strace), `ebpf` (exit 2
    /// with the reason when it cannot load). eBPF is not the default yet: its verdicts are not
    /// yet checked against strace's on every runtime fixture.
    #[arg(long, default_value = "strace", value_parser = ["auto", "ebpf", "strace"])]
    pub tracer: String,

    /// Alias of `--format raw`.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub cfg: crate::config::ConfigArgs,

    /// A remote server's URL instead of a command: manifest-only analysis (nothing is run or
    /// traced, so every entity is INCOMPLETE).
    #[arg(
        long,
        value_name = "URL",
        conflicts_with = "command",
        help_heading = "Remote servers"
    )]
    pub url: Option<String>,

    /// Transport for --url: `streamable-http` (MCP 2025-03-26 and later) or `sse`, the legacy
    /// HTTP+SSE transport (MCP 2024-11-05; the URL of the SSE stream, often ending in /sse).
    #[arg(long, default_value = "streamable-http", value_parser = ["streamable-http", "sse"],
          requires = "url", help_heading = "Remote servers")]
    pub transport: String,

    /// Request header for --url (repeatable), e.g. `--header "Authorization: Bearer $TOKEN"`.
    #[arg(long = "header", value_name = "K:V", value_parser = parse_header, requires = "url",
          help_heading = "Remote servers")]
    pub headers: Vec<(String, String)>,

    /// The server's launch command, after `--`.
    #[arg(last = true, required_unless_present = "url", value_name = "CMD")]
    pub command: Vec<String>,
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    match s.split_once(':') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("expected K:V, got `{s}`")),
    }
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("expected K=V, got `{s}`")),
    }
}

pub fn run(mut args: DynamicArgs, matches: Option<&clap::ArgMatches>) -> anyhow::Result<ExitKind> {
    let set = crate::config::typed_by(matches);
    let cli = crate::config::CliValues {
        timeout: set("timeout").then_some(args.timeout),
        calls: set("calls").then_some(args.calls),
        ..crate::config::CliValues::of_output(&args.output, &set)
    };
    // The project is the one holding the launched script (else the current directory's).
    let start = mcp_scan_engine::scan::command_source(&args.command, None);
    let (eff, policy) = crate::config::resolve(&args.cfg, start, cli, &mut args.output, None)?;
    args.timeout = eff.timeout.value;
    args.calls = eff.calls.value;
    if !(args.timeout.is_finite() && args.timeout > 0.0 && args.timeout <= 3600.0) {
        anyhow::bail!("--timeout must be between 0 and 3600 seconds");
    }
    if !(args.startup_timeout.is_finite()
        && args.startup_timeout > 0.0
        && args.startup_timeout <= 3600.0)
    {
        anyhow::bail!("--startup-timeout must be between 0 and 3600 seconds");
    }
    if args.json {
        args.output.format = Format::Raw;
    }
    if let Some(url) = &args.url {
        let remote = mcp_scan_dynamic::RemoteOptions {
            url: url.clone(),
            transport: [RemoteTransport::StreamableHttp, RemoteTransport::Sse]
                .into_iter()
                .find(|t| t.name() == args.transport)
                .with_context(|| format!("unknown --transport `{}`", args.transport))?,
            headers: args.headers.clone(),
            timeout: Duration::from_secs_f64(args.timeout),
            pin_dir: mcp_scan_dynamic::pins::default_dir(),
            accept_changes: args.accept_changes,
            out_dir: args.out_dir.clone(),
        };
        let mut outcome =
            mcp_scan_engine::runtime::run_remote(&remote).map_err(crate::engine_error)?;
        crate::config::apply_and_finish(&mut outcome.report, &policy, &args.cfg)?;
        return crate::output::emit(outcome.report, &args.output);
    }
    let mut opts = DynamicOptions::new(args.command.clone());
    opts.timeout = Duration::from_secs_f64(args.timeout);
    opts.startup_timeout = Duration::from_secs_f64(args.startup_timeout);
    opts.calls = args.calls;
    opts.env = args.env.clone();
    opts.answer_dns = !args.no_dns;
    opts.probes = !args.no_probes;
    opts.out_dir = args.out_dir.clone();
    opts.accept_changes = args.accept_changes;
    opts.traced = !args.untraced;
    opts.seed = args.seed;
    if let Some(c) = mcp_scan_dynamic::exercise::ClientProfile::named(&args.client) {
        opts.client = c;
    }
    opts.soak = Duration::from_secs_f64(args.soak.max(0.0));
    opts.linger = Duration::from_secs_f64(args.linger.max(0.0));
    if args.all_secrets {
        opts.secrets = mcp_scan_dynamic::identity::SecretEnv::All;
    }
    opts.pacing = !args.no_pacing;
    if let Some(m) = mcp_scan_dynamic::second_run::SecondRun::named(&args.second_run) {
        opts.second_run = m;
    }
    opts.tracer = args.tracer.parse().map_err(anyhow::Error::msg)?;
    let mut outcome = mcp_scan_engine::runtime::run_command(&opts).map_err(crate::engine_error)?;
    if let Some(t) = &outcome.tracer {
        eprintln!("mcp-scan: note: tracer: {t}");
    }
    if let Some(note) = &outcome.second_run {
        eprintln!("mcp-scan: note: {note}");
    }
    crate::config::apply_and_finish(&mut outcome.report, &policy, &args.cfg)?;
    crate::output::emit(outcome.report, &args.output)
}
