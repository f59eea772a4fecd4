//! One module per subcommand.

pub mod behavioral;
pub mod bench;
pub mod clients;
pub mod dynamic;
pub mod manifest;
pub mod rules;
pub mod scan;

use crate::cli::{Cli, Command};
use mcp_scan_core::ExitKind;

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitKind> {
    match cli.command {
        Command::Behavioral(args) => behavioral::run(args),
        Command::Manifest(args) => manifest::run(args),
        Command::Rules => rules::run_list(),
        Command::Rule(args) => rules::run_one(args),
        Command::Bench(cmd) => bench::run(cmd),
        Command::Dynamic(args) => dynamic::run(args),
        Command::Clients(cmd) => clients::run(cmd),
        Command::Scan(args) => scan::run(args),
    }
}
