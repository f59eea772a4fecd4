//! Runs the front-end (discover, parse, lower, entry points) over a tree and prints counts; used
//! by `benchmarks/static/throughput.sh` and handy for eyeballing entry points.
//!
//! `cargo run --release -p mcp-scan-lang --example parse_tree -- [--all] [--entries]
//!  [--include GLOB]... [--exclude GLOB]... PATH`

use mcp_scan_lang::{DiscoverOptions, scan_tree};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let mut opts = DiscoverOptions::default();
    let mut show_entries = false;
    let mut show_diags = false;
    let mut root = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--all" => opts.default_excludes = false,
            "--entries" => show_entries = true,
            "--diagnostics" => show_diags = true,
            "--include" | "--exclude" => {
                let Some(g) = args.next() else {
                    eprintln!("{a} needs a glob");
                    return ExitCode::from(1);
                };
                if a == "--include" {
                    opts.include.push(g);
                } else {
                    opts.exclude.push(g);
                }
            }
            _ => root = Some(PathBuf::from(a)),
        }
    }
    let Some(root) = root else {
        eprintln!(
            "usage: parse_tree [--all] [--entries] [--diagnostics] [--include G] [--exclude G] PATH"
        );
        return ExitCode::from(1);
    };
    let start = Instant::now();
    let tree = match scan_tree(&root, &opts) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(1);
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let functions: usize = tree.modules.iter().map(|m| m.functions.len()).sum();
    let entries: usize = tree.modules.iter().map(|m| m.entry_points.len()).sum();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "files={} lines={} bytes={} modules={} functions={} entry_points={} registration_sites={} gaps={} diagnostics={} incomplete={} seconds={:.3} lines_per_second={:.0}",
        tree.files,
        tree.lines,
        tree.bytes,
        tree.modules.len(),
        functions,
        entries,
        tree.coverage.registration_sites,
        tree.coverage.gaps.len(),
        tree.diagnostics.len(),
        tree.incomplete_files.len(),
        secs,
        tree.lines as f64 / secs.max(1e-9)
    );
    if show_entries {
        for m in &tree.modules {
            for e in &m.entry_points {
                let f = &m.functions[e.function];
                let _ = writeln!(
                    out,
                    "{}:{} {} {:?} -> {} params={:?} description={:?}",
                    m.path,
                    e.span.start_line,
                    e.kind,
                    e.name,
                    f.qualname,
                    e.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
                    e.description
                        .as_deref()
                        .map(|d| d.lines().next().unwrap_or(""))
                );
            }
        }
    }
    if show_entries {
        for g in &tree.coverage.gaps {
            let _ = writeln!(
                out,
                "gap {}: {}:{} {}",
                g.kind.as_str(),
                g.file.as_deref().unwrap_or("-"),
                g.line.unwrap_or(0),
                g.reason
            );
        }
    }
    if show_diags {
        for d in &tree.diagnostics {
            let _ = writeln!(out, "{d}");
        }
    }
    ExitCode::SUCCESS
}
