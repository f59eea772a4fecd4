//! `mcp-scan config show [PATH]`: the effective configuration and where each value came from.

use crate::config::{CliValues, Discovery, Layers};
use clap::{Args, Subcommand};
use mcp_scan_core::ExitKind;
use std::path::PathBuf;

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print every setting a scan of PATH would use (default: the current directory), with the
    /// file each value came from.
    Show(ShowArgs),
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The path a scan would be given (its nearest mcp-scan.toml is the project's).
    #[arg(value_name = "PATH")]
    pub path: Option<PathBuf>,
    /// Read this configuration file only.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Read no configuration file.
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
}

pub fn run(cmd: ConfigCommand) -> anyhow::Result<ExitKind> {
    match cmd {
        ConfigCommand::Show(a) => {
            let layers = Layers::discover(&Discovery {
                explicit: a.config,
                none: a.no_config,
                start: a.path,
            })?;
            let eff = layers.resolve(CliValues::default());
            crate::output::write_stdout(&eff.show(&layers))?;
            Ok(ExitKind::Clean)
        }
    }
}
