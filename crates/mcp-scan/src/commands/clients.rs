//! `mcp-scan clients list|fetch`: what discovery finds and what a launch command would fetch,
//! for checking a machine's setup before `scan` (and for debugging discovery).

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand, ValueEnum};
use mcp_scan_clients::{
    DiagnosticLevel, Discovery, DiscoveryContext, FetchConfig, LaunchTarget, Platform, Requested,
    Transport,
};
use mcp_scan_core::ExitKind;

#[derive(Debug, Subcommand)]
pub enum ClientsCommand {
    /// List every server the client configurations under HOME and the project configure, with
    /// the registry package each launch command runs. Environment and header values are never
    /// shown, only their names.
    List(ListArgs),
    /// Fetch the source of the registry package a launch command runs into the package cache and
    /// print where it is: `mcp-scan clients fetch -- npx -y @scope/pkg`.
    Fetch(FetchArgs),
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PlatformArg {
    Linux,
    Macos,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Configuration files to read instead of discovering the well-known ones.
    #[arg(value_name = "CONFIG")]
    pub files: Vec<PathBuf>,
    /// The home directory to search (default: $HOME).
    #[arg(long, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// The project whose project-level files are read (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Whose file locations to use (default: this machine's).
    #[arg(long, value_enum)]
    pub platform: Option<PlatformArg>,
    /// One JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct FetchArgs {
    /// Use only the cache (MCP_SCAN_OFFLINE=1 does the same).
    #[arg(long)]
    pub offline: bool,
    /// The launch command, after `--`.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

pub fn run(cmd: ClientsCommand) -> anyhow::Result<ExitKind> {
    match cmd {
        ClientsCommand::List(a) => list(a),
        ClientsCommand::Fetch(a) => fetch(a),
    }
}

pub(crate) fn home() -> anyhow::Result<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .context("HOME is not set; pass --home")
}

/// Control characters from a configuration file (a cloned repository's `.mcp.json`) are shown
/// escaped, never sent to the terminal.
pub(crate) fn clean(s: &str) -> String {
    if s.chars().any(char::is_control) {
        s.escape_debug().to_string()
    } else {
        s.to_string()
    }
}

fn describe(t: &LaunchTarget) -> String {
    match t {
        LaunchTarget::Package {
            package,
            also_installs,
            ..
        } => {
            let v = match &package.requested {
                Requested::Latest => "latest release".to_string(),
                Requested::Exact(v) => format!("version {}", clean(v)),
                Requested::Tag(t) => format!("dist-tag {}", clean(t)),
            };
            let also = if also_installs.is_empty() {
                String::new()
            } else {
                format!(" (also installs {} more, not fetched)", also_installs.len())
            };
            format!(
                "{} package {}, {v}{also}",
                package.ecosystem,
                clean(&package.name)
            )
        }
        LaunchTarget::LocalPath { path, .. } => {
            format!("local path {}", clean(&path.to_string_lossy()))
        }
        LaunchTarget::Unsupported { runner, reason } => {
            format!("not fetched ({runner}): {reason}")
        }
        LaunchTarget::NotAPackage => "not a registry package".to_string(),
    }
}

fn list(a: ListArgs) -> anyhow::Result<ExitKind> {
    let d = if a.files.is_empty() {
        let home_given = a.home.is_some();
        let home = match a.home {
            Some(h) => h,
            None => home()?,
        };
        let platform = match a.platform {
            Some(PlatformArg::Linux) => Platform::Linux,
            Some(PlatformArg::Macos) => Platform::Macos,
            None => Platform::current().context("unknown platform; pass --platform")?,
        };
        let project = match a.project {
            Some(p) => p,
            None => std::env::current_dir().context("cannot read the current directory")?,
        };
        let config_home = (!home_given)
            .then(|| std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()))
            .flatten()
            .map(PathBuf::from);
        mcp_scan_clients::discover(&DiscoveryContext {
            home,
            platform,
            config_home,
            project: Some(project),
        })
    } else {
        let mut d = Discovery::default();
        for f in &a.files {
            let one = mcp_scan_clients::read_named_config(f);
            d.files.extend(one.files);
            d.servers.extend(one.servers);
            d.diagnostics.extend(one.diagnostics);
        }
        d
    };
    for diag in &d.diagnostics {
        let level = match diag.level {
            DiagnosticLevel::Warning => "warning",
            DiagnosticLevel::Error => "error",
        };
        eprintln!("mcp-scan: {level}: {}", clean(&diag.to_string()));
    }
    let launches: Vec<Option<LaunchTarget>> = d
        .servers
        .iter()
        .map(|s| match &s.transport {
            Transport::Stdio { command, args, .. } => {
                Some(mcp_scan_clients::classify(command, args))
            }
            Transport::Remote { .. } => None,
        })
        .collect();
    let text = if a.json {
        let servers: Vec<serde_json::Value> = d
            .servers
            .iter()
            .zip(&launches)
            .map(|(s, l)| {
                let mut v = serde_json::to_value(s).unwrap_or_default();
                if let (Some(obj), Some(l)) = (v.as_object_mut(), l) {
                    obj.insert(
                        "launches".to_string(),
                        serde_json::to_value(l).unwrap_or_default(),
                    );
                }
                v
            })
            .collect();
        let doc = serde_json::json!({
            "files": d.files,
            "servers": servers,
            "diagnostics": d.diagnostics,
        });
        format!("{}\n", serde_json::to_string_pretty(&doc)?)
    } else {
        let mut out = String::new();
        for (s, l) in d.servers.iter().zip(&launches) {
            let scope = match s.scope {
                mcp_scan_clients::Scope::User => "user",
                mcp_scan_clients::Scope::Project => "project",
            };
            out.push_str(&format!(
                "{}  [{}, {scope}{}]  {}\n",
                clean(&s.name),
                s.client.label(),
                if s.disabled { ", disabled" } else { "" },
                clean(&s.config_file.to_string_lossy()),
            ));
            match &s.transport {
                Transport::Stdio { command, args, .. } => {
                    let mut line = clean(command);
                    for arg in args {
                        line.push(' ');
                        line.push_str(&clean(arg));
                    }
                    out.push_str(&format!("    stdio: {line}\n"));
                }
                Transport::Remote {
                    url,
                    protocol,
                    header_names,
                } => {
                    out.push_str(&format!("    remote ({protocol:?}): {}\n", clean(url)));
                    if !header_names.is_empty() {
                        out.push_str(&format!(
                            "    headers: {}\n",
                            clean(&header_names.join(", "))
                        ));
                    }
                }
            }
            if let Some(l) = l {
                out.push_str(&format!("    source: {}\n", describe(l)));
            }
            if !s.env_names.is_empty() {
                out.push_str(&format!("    env: {}\n", clean(&s.env_names.join(", "))));
            }
        }
        out.push_str(&format!(
            "{} servers in {} configuration files\n",
            d.servers.len(),
            d.files.len()
        ));
        out
    };
    crate::output::write_stdout(&text).context("cannot write to standard output")?;
    Ok(
        if d.diagnostics
            .iter()
            .any(|x| x.level == DiagnosticLevel::Error)
        {
            ExitKind::Error
        } else {
            ExitKind::Clean
        },
    )
}

fn fetch(a: FetchArgs) -> anyhow::Result<ExitKind> {
    let (cmd, args) = a
        .command
        .split_first()
        .context("no launch command after --")?;
    let target = mcp_scan_clients::classify(cmd, args);
    let LaunchTarget::Package { package, .. } = &target else {
        anyhow::bail!("{}", describe(&target));
    };
    let mut cfg = FetchConfig::from_env(&home()?);
    cfg.offline |= a.offline;
    let got = mcp_scan_clients::fetch(&cfg, package)?;
    crate::output::write_stdout(&format!(
        "{} {} {}\n  source: {}\n  artifact: {} (sha256 {}){}\n",
        got.ecosystem,
        got.name,
        got.version,
        got.source_dir.display(),
        got.artifact,
        got.sha256,
        if got.from_cache {
            ", from the cache"
        } else {
            ""
        },
    ))
    .context("cannot write to standard output")?;
    Ok(ExitKind::Clean)
}
