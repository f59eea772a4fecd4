//! Turning a finished [`Report`] into output and an exit status.

use crate::cli::{ColorChoice, OutputArgs};
use anyhow::Context;
use mcp_scan_core::{ExitKind, Report};
use mcp_scan_report::{RenderOptions, render};
use std::io::{IsTerminal, Write};

/// Prints diagnostics to stderr, renders the report to stdout or `--output`, and returns the
/// exit status. The exit status is decided on the unfiltered report.
pub fn emit(mut report: Report, args: &OutputArgs) -> anyhow::Result<ExitKind> {
    let exit = report.exit_kind(args.fail_on);
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    // Human formats list diagnostics themselves; on a shared terminal they would show twice.
    let shown_in_report =
        to_terminal && std::io::stderr().is_terminal() && !args.format.is_machine_readable();
    if !shown_in_report {
        for d in &report.diagnostics {
            eprintln!("mcp-scan: {d}");
        }
    }
    report.normalize();
    let color = !args.format.is_machine_readable()
        && match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => to_terminal && !no_color(),
        };
    // The filter is applied by the renderer, which still derives statuses from every finding.
    let opts = RenderOptions {
        color,
        min_severity: args.min_severity,
    };
    let text = render(&report, args.format, &opts);
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write report to {}", path.display()))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .context("cannot write report to standard output")?;
        }
    }
    Ok(exit)
}

/// https://no-color.org: any non-empty NO_COLOR disables colour.
fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}
