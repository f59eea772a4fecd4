use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = mcp_scan::cli::Cli::parse();
    match mcp_scan::run(cli) {
        Ok(kind) => ExitCode::from(kind.code()),
        Err(err) => {
            eprintln!("mcp-scan: error: {err:#}");
            ExitCode::from(mcp_scan::exit_code_for_error(&err))
        }
    }
}
