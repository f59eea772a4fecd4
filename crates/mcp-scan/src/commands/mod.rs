//! One module per subcommand.

pub mod behavioral;
pub mod bench;
pub mod clients;
pub mod config;
pub mod dynamic;
pub mod manifest;
pub mod rules;
pub mod scan;

use crate::cli::{Cli, Command};
use mcp_scan_core::ExitKind;

/// Runs a parsed command line; `matches` tells a value the user typed from a default (without
/// them every value counts as typed).
pub fn dispatch(cli: Cli, matches: Option<&clap::ArgMatches>) -> anyhow::Result<ExitKind> {
    let sub = |name: &str| matches.and_then(|m| m.subcommand_matches(name));
    match cli.command {
        Command::Behavioral(args) => behavioral::run(args, sub("behavioral")),
        Command::Manifest(args) => manifest::run(args, sub("manifest")),
        Command::Rules => rules::run_list(),
        Command::Rule(args) => rules::run_one(args),
        Command::Bench(cmd) => bench::run(cmd),
        Command::Dynamic(args) => dynamic::run(args, sub("dynamic")),
        Command::Clients(cmd) => clients::run(cmd),
        Command::Scan(args) => scan::run(args, sub("scan")),
        Command::Config(cmd) => config::run(cmd),
    }
}
