use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    let parsed = mcp_scan::cli::Cli::command()
        .try_get_matches()
        .and_then(|m| mcp_scan::cli::Cli::from_arg_matches(&m).map(|cli| (cli, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(err) => {
            // clap exits 2 on a usage error, but 2 means "sandbox unavailable" here (BRIEF §6):
            // bad arguments exit 1; --help and --version exit 0.
            let _ = err.print();
            return if err.use_stderr() {
                ExitCode::from(mcp_scan_core::ExitKind::Error.code())
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match mcp_scan::run_matches(cli, &matches) {
        Ok(kind) => ExitCode::from(kind.code()),
        Err(err) => {
            eprintln!("mcp-scan: error: {err:#}");
            ExitCode::from(mcp_scan::exit_code_for_error(&err))
        }
    }
}
