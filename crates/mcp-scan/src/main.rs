use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match mcp_scan::cli::Cli::try_parse() {
        Ok(cli) => cli,
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
    match mcp_scan::run(cli) {
        Ok(kind) => ExitCode::from(kind.code()),
        Err(err) => {
            eprintln!("mcp-scan: error: {err:#}");
            ExitCode::from(mcp_scan::exit_code_for_error(&err))
        }
    }
}
