//! `mcp-scan scan [TARGET...] [-- CMD...]`: every witness that applies on every server, one
//! report scored across witnesses (`mcp_scan_engine::scan`).

use crate::cli::OutputArgs;
use crate::config::CliValues;
use anyhow::Context;
use clap::ArgMatches;
use clap::Args;
use mcp_scan_clients::{
    DiagnosticLevel as ClientLevel, DiscoveryContext, FetchConfig, Platform, RemoteProtocol,
    ServerSource, Transport, resolve_source,
};
use mcp_scan_core::{Diagnostic, DiagnosticLevel, ExitKind};
use mcp_scan_engine::{ConfiguredServer, Launch, ScanOptions, Target};
use mcp_scan_lang::DiscoverOptions;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Debug, Args)]
#[command(after_help = "\
Examples:
  mcp-scan scan                                  every server your MCP clients configure
  mcp-scan scan ./my-server                      static + description (+ LLM when configured)
  mcp-scan scan ~/.cursor/mcp.json               every server a client configuration declares
  mcp-scan scan --run ./my-server -- python ./my-server/server.py
                                                 the same server's source and its run, merged
  mcp-scan scan https://mcp.example.com/mcp      a remote server: its listing only
  mcp-scan scan --write-baseline mcp-scan-baseline.toml ./my-server
                                                 accept today's findings (then give reasons)

Configuration: mcp-scan.toml in the project (the nearest folder above the first target holding
one, else above the current directory) and ~/.config/mcp-scan/config.toml ($XDG_CONFIG_HOME)
set defaults (format, fail-on, timeout, ...), [rules] select/ignore, [llm] and a baseline.
Command line > project > user > defaults; `mcp-scan config show` prints what is in effect.
Inline suppression: `# mcp-scan: ignore[S012] reason` (or `// ...`) on the finding's line or
alone on the line above. Suppressed findings do not fail the scan but are counted and listed in
every format; they never hide a coverage gap (INCOMPLETE stays INCOMPLETE).")]
pub struct ScanArgs {
    /// Source directories, MCP client configuration files (`{\"mcpServers\": {...}}`, `.json`)
    /// and remote server URLs. A directory holding the script of the launch command after `--`
    /// is that server's source. With none, every server configured in Claude Desktop, Claude
    /// Code, Cursor, VS Code, Windsurf and Gemini CLI (user files under HOME, project files in
    /// the current directory) is scanned; a registry package a launch command names (`uvx`,
    /// `npx`, `pipx run`, ...) is fetched into the cache (MCP_SCAN_PACKAGE_CACHE,
    /// MCP_SCAN_PYPI_URL, MCP_SCAN_NPM_REGISTRY, MCP_SCAN_OFFLINE) and its source analysed.
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

    /// The system call tracer (with --run): `strace` (the default), `auto` (eBPF where this
    /// process may load it, else strace), `ebpf` (exit 2 when it cannot load).
    #[arg(long, default_value = "strace", value_parser = ["auto", "ebpf", "strace"],
          help_heading = "Runtime")]
    pub tracer: String,

    /// Seed of the sandbox persona (with --run): the same seed reproduces a run.
    #[arg(long, value_name = "N", help_heading = "Runtime")]
    pub seed: Option<u64>,

    /// LLM alignment check: runs when a provider is configured (flags or MCP_SCAN_LLM_* /
    /// MCP_SCANNER_LLM_* environment).
    #[command(flatten)]
    pub llm: Box<mcp_scan_llm::LlmArgs>,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub cfg: crate::config::ConfigArgs,

    /// A local server's launch command, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// The values the user typed on the command line (a clap default is not one).
fn typed(args: &ScanArgs, m: Option<&ArgMatches>) -> CliValues {
    let set = crate::config::typed_by(m);
    CliValues {
        timeout: set("timeout").then_some(args.timeout),
        calls: set("calls").then_some(args.calls),
        max_file_size: set("max_file_size").then_some(args.max_file_size),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        ..CliValues::of_output(&args.output, &set)
    }
}

/// The scanned path the project configuration is looked for from: the first local target.
fn config_start(args: &ScanArgs) -> Option<PathBuf> {
    args.targets
        .iter()
        .find(|t| !t.starts_with("http://") && !t.starts_with("https://"))
        .map(PathBuf::from)
        .or_else(|| mcp_scan_engine::scan::command_source(&args.command, None))
}

pub fn run(mut args: ScanArgs, matches: Option<&ArgMatches>) -> anyhow::Result<ExitKind> {
    let cli = typed(&args, matches);
    let (eff, policy) = crate::config::resolve(
        &args.cfg,
        config_start(&args),
        cli,
        &mut args.output,
        Some(args.llm.as_mut()),
    )?;
    args.timeout = eff.timeout.value;
    args.calls = eff.calls.value;
    args.max_file_size = eff.max_file_size.value;
    args.include = eff.include.value.clone();
    args.exclude = eff.exclude.value.clone();
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
    dynamic.tracer = args.tracer.parse().map_err(anyhow::Error::msg)?;
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
        policy,
    };
    // No target: the servers the user's MCP clients configure.
    let (configured, config_diagnostics) = if targets.is_empty() {
        configured_servers()?
    } else {
        (Vec::new(), Vec::new())
    };
    let mut outcome =
        mcp_scan_engine::scan(&targets, &configured, &opts, &|k| std::env::var(k).ok())
            .map_err(crate::engine_error)?;
    for m in &outcome.messages {
        eprintln!("mcp-scan: {m}");
    }
    outcome.report.diagnostics.extend(config_diagnostics);
    // The engine applied the policy before scoring trust.
    crate::config::finish(&mut outcome.report, &opts.policy, &args.cfg)?;
    crate::output::emit(outcome.report, &args.output)
}

/// Every server the well-known client configurations under HOME and the current project declare,
/// with its source: the local project, or the registry package its launch command names, fetched
/// into the cache and verified. A source that cannot be had is carried as the reason, which
/// makes that server's static witness INCOMPLETE. A configuration file that cannot be read is an
/// error diagnostic in the report (exit 1), never a silently shorter list.
fn configured_servers() -> anyhow::Result<(Vec<ConfiguredServer>, Vec<Diagnostic>)> {
    let home = super::clients::home()?;
    let platform = Platform::current()
        .context("unknown platform: name a target (a directory, a configuration file or a URL)")?;
    let project = std::env::current_dir().context("cannot read the current directory")?;
    let config_home = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    let found = mcp_scan_clients::discover(&DiscoveryContext {
        home: home.clone(),
        platform,
        config_home,
        project: Some(project),
    });
    let diagnostics: Vec<Diagnostic> = found
        .diagnostics
        .iter()
        .map(|d| Diagnostic {
            level: match d.level {
                ClientLevel::Error => DiagnosticLevel::Error,
                ClientLevel::Warning => DiagnosticLevel::Warning,
            },
            file: Some(super::clients::clean(&d.file.display().to_string())),
            line: d.line.and_then(|l| u32::try_from(l).ok()),
            column: d.column.and_then(|c| u32::try_from(c).ok()),
            message: super::clients::clean(&d.message),
        })
        .collect();
    if found.servers.is_empty() {
        for d in &diagnostics {
            eprintln!("mcp-scan: {d}");
        }
        anyhow::bail!(
            "no MCP server is configured for this user or project: no Claude Desktop, Claude \
             Code, Cursor, VS Code, Windsurf or Gemini CLI configuration under {} or {} declares \
             one; name a target instead (a source directory, a configuration file, a URL, or a \
             launch command after --)",
            home.display(),
            std::env::current_dir()
                .map(|d| d.display().to_string())
                .unwrap_or_else(|_| ".".into())
        );
    }
    let fetch = FetchConfig::from_env(&home);
    let servers = found
        .servers
        .iter()
        .map(|s| {
            let (source, source_gap) = match resolve_source(s, &fetch, &home) {
                ServerSource::Directory { path, .. } => (Some(path), None),
                ServerSource::Remote { .. } => (None, None),
                ServerSource::Unavailable { reason } => (None, Some(reason)),
            };
            let launch = match &s.transport {
                Transport::Stdio { cwd, .. } => Launch::Command {
                    command: s.transport.argv().unwrap_or_default(),
                    cwd: cwd.clone(),
                },
                Transport::Remote { url, protocol, .. } => Launch::Url {
                    url: url.clone(),
                    sse: *protocol == RemoteProtocol::Sse,
                },
            };
            ConfiguredServer {
                name: s.name.clone(),
                client: Some(s.client.id().to_string()),
                config: s.config_file.clone(),
                launch,
                env_names: s.env_names.clone(),
                source,
                source_gap,
            }
        })
        .collect();
    Ok((servers, diagnostics))
}
