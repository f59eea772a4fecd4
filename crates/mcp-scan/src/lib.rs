//! The `mcp-scan` binary's library half: argument types, subcommands and output handling.
//! `main.rs` only parses arguments and maps the outcome to an exit code.

pub mod cli;
pub mod commands;
pub mod config;
pub mod output;

use mcp_scan_core::ExitKind;

/// Marks an error that means the sandbox or tracer could not be set up (exit 2).
#[derive(Debug)]
pub struct SandboxUnavailable(pub String);

impl std::fmt::Display for SandboxUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SandboxUnavailable {}

/// An engine error as the binary reports it: a sandbox that could not be set up exits 2.
pub fn engine_error(e: mcp_scan_engine::EngineError) -> anyhow::Error {
    match e {
        mcp_scan_engine::EngineError::Sandbox(_) => {
            anyhow::Error::new(SandboxUnavailable(e.to_string()))
        }
        e => anyhow::Error::new(e),
    }
}

/// Runs one command line to completion.
pub fn run(cli: cli::Cli) -> anyhow::Result<ExitKind> {
    commands::dispatch(cli, None)
}

/// Runs one command line, knowing which values the user typed (configuration files fill the
/// rest).
pub fn run_matches(cli: cli::Cli, matches: &clap::ArgMatches) -> anyhow::Result<ExitKind> {
    commands::dispatch(cli, Some(matches))
}

/// Exit code for an error that ended the run early.
pub fn exit_code_for_error(err: &anyhow::Error) -> u8 {
    if err.downcast_ref::<SandboxUnavailable>().is_some() {
        ExitKind::SandboxUnavailable.code()
    } else {
        ExitKind::Error.code()
    }
}
