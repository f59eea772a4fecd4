use clap::{Args, Parser, Subcommand, ValueEnum};
use mcp_scan_core::{FailOn, Severity};
use mcp_scan_report::Format;
use std::path::PathBuf;

const EXIT_CODES: &str = "\
Exit codes:
  0  scan complete, nothing at or above --fail-on
  1  bad arguments or unreadable input
  2  the sandbox or tracer could not be set up
  3  findings at or above --fail-on (default: high)
  4  nothing at or above --fail-on, but the scan was incomplete (some tool could not be fully
     analysed, so it is not reported as safe)";

/// Security analyzer for MCP servers: does this server do what it claims, and nothing else?
#[derive(Debug, Parser)]
#[command(name = "mcp-scan", version, about, after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Every witness on every server: source directories, client configuration files, URLs and
    /// a launch command after `--`; findings merged per tool, one verdict and trust score per
    /// server and tool. `--run` runs local servers in the sandbox.
    Scan(crate::commands::scan::ScanArgs),
    /// Static behavioural analysis of a server's source tree: what every tool's code really does
    /// (taint flows, capabilities) and where that is dangerous or differs from its description.
    Behavioral(crate::commands::behavioral::BehavioralArgs),
    /// Scan MCP manifests (tools/resources/prompts) for poisoned descriptions; `-` reads stdin.
    Manifest(crate::commands::manifest::ManifestArgs),
    /// List every built-in rule.
    Rules,
    /// Print a rule's documentation: what it detects, why, an example and the fix.
    Rule(crate::commands::rules::RuleArgs),
    /// Measure the analyzers on benchmark data.
    #[command(subcommand)]
    Bench(crate::commands::bench::BenchCommand),
    /// Run a server in a namespace sandbox under strace, call every tool and compare declared with
    /// observed behaviour: `mcp-scan dynamic [OPTIONS] -- <cmd>...`.
    Dynamic(crate::commands::dynamic::DynamicArgs),
    /// The MCP servers configured in well-known clients (Claude Desktop and Code, Cursor, VS Code,
    /// Windsurf, Gemini CLI) and the registry packages they launch: `clients list`, `clients fetch`.
    #[command(subcommand)]
    Clients(crate::commands::clients::ClientsCommand),
    /// The configuration in effect: `config show [PATH]` prints every setting and where its value
    /// came from (mcp-scan.toml, the user's config.toml, or the default).
    #[command(subcommand)]
    Config(crate::commands::config::ConfigCommand),
}

/// Output options shared by every scanning command.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Report format.
    #[arg(long, short = 'f', default_value = "summary", value_parser = parse_format,
          help_heading = "Output",
          long_help = "Report format: summary, detailed, by_tool, by_analyzer, by_severity, table, \
                       raw (versioned JSON, see docs/raw-report.md), sarif (SARIF 2.1.0) \
                       or html (one self-contained page, no network loads).")]
    pub format: Format,

    /// Write the report to FILE instead of standard output.
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    pub output: Option<PathBuf>,

    /// Exit 3 when any finding is at or above this severity (never|info|low|medium|high|critical).
    #[arg(long, default_value = "high", value_parser = parse_fail_on, help_heading = "Output")]
    pub fail_on: FailOn,

    /// Only show findings at or above this severity (the exit code still counts every finding).
    #[arg(long, value_name = "SEVERITY", value_parser = parse_severity, help_heading = "Output")]
    pub min_severity: Option<Severity>,

    /// Colour: auto (only on a terminal, never with NO_COLOR), always (even with NO_COLOR) or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, help_heading = "Output")]
    pub color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

fn parse_fail_on(s: &str) -> Result<FailOn, String> {
    s.parse().map_err(|e| format!("{e} or never"))
}

fn parse_severity(s: &str) -> Result<Severity, String> {
    s.parse().map_err(|e| format!("{e}"))
}
