//! `mcp-scan scan [TARGET...] [-- CMD...]`: every witness that applies on every server, one
//! report scored across witnesses (`mcp_scan_engine::scan`).

use crate::cli::OutputArgs;
use anyhow::Context;
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
  mcp-scan scan https://mcp.example.com/mcp      a remote server: its listing only")]
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
