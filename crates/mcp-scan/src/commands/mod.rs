//! One module per subcommand.

use crate::cli::{Cli, Command};
use mcp_scan_core::ExitKind;

pub fn dispatch(cli: Cli) -> anyhow::Result<ExitKind> {
    match cli.command {}
}
