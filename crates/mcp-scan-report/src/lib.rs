//! One renderer per output format. Every renderer takes the same normalised [`Report`] and
//! returns the complete text to print; nothing here does I/O.

use mcp_scan_core::{Report, Severity};
use std::fmt;
use std::str::FromStr;

mod by_analyzer;
mod by_severity;
mod by_tool;
mod common;
mod detailed;
mod html;
mod raw;
mod sarif;
mod style;
mod summary;
mod table;

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Summary,
    Detailed,
    ByTool,
    ByAnalyzer,
    BySeverity,
    Table,
    Raw,
    Sarif,
    Html,
}

impl Format {
    pub const ALL: [Format; 9] = [
        Format::Summary,
        Format::Detailed,
        Format::ByTool,
        Format::ByAnalyzer,
        Format::BySeverity,
        Format::Table,
        Format::Raw,
        Format::Sarif,
        Format::Html,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Summary => "summary",
            Format::Detailed => "detailed",
            Format::ByTool => "by_tool",
            Format::ByAnalyzer => "by_analyzer",
            Format::BySeverity => "by_severity",
            Format::Table => "table",
            Format::Raw => "raw",
            Format::Sarif => "sarif",
            Format::Html => "html",
        }
    }

    /// Formats meant for a file or another program rather than a terminal: they never carry
    /// ANSI colour, and diagnostics go to stderr beside them (HTML also lists them itself).
    pub fn is_machine_readable(self) -> bool {
        matches!(self, Format::Raw | Format::Sarif | Format::Html)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s || f.as_str().replace('_', "-") == s)
            .ok_or_else(|| {
                let names: Vec<_> = Format::ALL.iter().map(|f| f.as_str()).collect();
                format!(
                    "unknown format `{s}` (expected one of: {})",
                    names.join(", ")
                )
            })
    }
}

/// Presentation choices the binary makes.
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions<'a> {
    /// ANSI colour in human-readable formats (the binary decides: TTY, `NO_COLOR`, `--color`).
    /// Machine-readable formats ignore it.
    pub color: bool,
    /// `--min-severity`: hide findings below this. Statuses and counts still reflect every
    /// finding, so an item never looks SAFE because its findings were hidden.
    pub min_severity: Option<Severity>,
    /// The folder that relative file paths in findings are relative to (a `behavioral` scan's
    /// root), written as a path from the directory mcp-scan ran in, or absolute when it lies
    /// outside it. SARIF viewers resolve `artifactLocation` from where the tool ran, so SARIF
    /// joins it in front; `None` when the paths are already relative to that directory.
    pub source_base: Option<&'a str>,
    /// Documentation of the rules that may appear, for SARIF's rule names and help (the binary
    /// fills it from the rule catalog; a rule missing here falls back to its findings' text).
    pub rule_help: &'a [RuleHelp],
}

/// What SARIF viewers show about a rule: its slug and what to do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleHelp {
    /// `MCPS-S007`.
    pub id: String,
    /// Kebab-case slug, e.g. `param-to-url-fetch`.
    pub name: String,
    pub what: String,
    pub why: String,
    pub fix: String,
}

/// Renders `report` in `format`. The report should be normalised first ([`Report::normalize`])
/// and unfiltered (pass the filter in `opts`).
pub fn render(report: &Report, format: Format, opts: &RenderOptions<'_>) -> String {
    let view = || common::View::new(report, opts);
    match format {
        Format::Summary => summary::render(&view()),
        Format::Detailed => detailed::render(&view()),
        Format::ByTool => by_tool::render(&view()),
        Format::ByAnalyzer => by_analyzer::render(&view()),
        Format::BySeverity => by_severity::render(&view()),
        Format::Table => table::render(&view()),
        // Machine formats ignore `opts.color`.
        Format::Raw => raw::render(report, opts),
        Format::Sarif => sarif::render(report, opts),
        Format::Html => html::render(&view(), opts),
    }
}

/// Pretty JSON with a trailing newline.
fn to_json<T: serde::Serialize>(value: &T) -> String {
    // Serialising these plain data types has no failure mode (no maps with non-string keys, no
    // custom serialisers); the fallback still yields valid JSON rather than a panic.
    let mut s = serde_json::to_string_pretty(value)
        .unwrap_or_else(|e| serde_json::json!({ "error": e.to_string() }).to_string());
    s.push('\n');
    s
}
