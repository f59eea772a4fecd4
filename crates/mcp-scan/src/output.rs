//! Turning a finished [`Report`] into output and an exit status.

use crate::cli::{ColorChoice, OutputArgs};
use anyhow::Context;
use mcp_scan_core::{ExitKind, Report};
use mcp_scan_report::{Format, RenderOptions, RuleHelp, render};
use std::io::{IsTerminal, Write};
use std::path::Path;

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
    let rule_help = if args.format == Format::Sarif {
        rule_help()
    } else {
        Vec::new()
    };
    let source_base = source_base(&report);
    // The filter is applied by the renderer, which still derives statuses from every finding.
    let opts = RenderOptions {
        color,
        min_severity: args.min_severity,
        source_base: source_base.as_deref(),
        rule_help: &rule_help,
    };
    let text = render(&report, args.format, &opts);
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write report to {}", path.display()))?,
        None => write_stdout(&text).context("cannot write report to standard output")?,
    }
    Ok(exit)
}

/// Writes `text` to stdout. A reader that closed the pipe (`| head`) wanted no more: that is not
/// an error, and the caller's exit status (the verdict) still stands.
pub fn write_stdout(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => r,
    }
}

/// Rule names and help for SARIF viewers, from the same catalog `mcp-scan rules` prints.
fn rule_help() -> Vec<RuleHelp> {
    match crate::commands::rules::catalog() {
        Ok(c) => c
            .iter()
            .map(|r| RuleHelp {
                id: r.id.clone(),
                name: r.name.clone(),
                what: r.docs.what.clone(),
                why: r.docs.why.clone(),
                fix: r.docs.fix.clone(),
            })
            .collect(),
        // The catalog is embedded and tested; if it ever fails, rules fall back to their
        // findings' text rather than failing the report.
        Err(_) => Vec::new(),
    }
}

/// A `behavioral` scan's findings name files relative to the scanned folder; SARIF viewers
/// resolve them from the directory mcp-scan ran in. This is that folder as seen from here:
/// relative when it lies inside the current directory, absolute otherwise.
fn source_base(report: &Report) -> Option<String> {
    if report.scan.command != "behavioral" {
        return None;
    }
    let target = Path::new(report.scan.targets.first()?);
    let dir = if target.is_dir() {
        target
    } else {
        target.parent()?
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let abs = dir.canonicalize().ok()?;
    let cwd = std::env::current_dir().ok()?.canonicalize().ok()?;
    let shown = match abs.strip_prefix(&cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".to_string(),
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => abs.to_string_lossy().into_owned(),
    };
    Some(shown)
}

/// https://no-color.org: any non-empty NO_COLOR disables colour.
fn no_color() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}
