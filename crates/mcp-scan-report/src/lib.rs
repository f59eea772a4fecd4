//! One renderer per output format. Every renderer takes the same normalised [`Report`] and
//! returns the complete text to print; nothing here does I/O.

use mcp_scan_core::Report;
use std::fmt;
use std::str::FromStr;

mod raw;

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
}

impl Format {
    pub const ALL: [Format; 8] = [
        Format::Summary,
        Format::Detailed,
        Format::ByTool,
        Format::ByAnalyzer,
        Format::BySeverity,
        Format::Table,
        Format::Raw,
        Format::Sarif,
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
        }
    }

    /// Machine-readable formats never carry colour or decoration.
    pub fn is_machine_readable(self) -> bool {
        matches!(self, Format::Raw | Format::Sarif)
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
                format!("unknown format `{s}` (expected one of: {})", names.join(", "))
            })
    }
}

/// Presentation choices the binary makes (TTY, NO_COLOR).
#[derive(Debug, Clone, Copy, Default)]
pub struct RenderOptions {
    pub color: bool,
}

/// Renders `report` in `format`. The report should be normalised first ([`Report::normalize`]).
pub fn render(report: &Report, format: Format, opts: &RenderOptions) -> String {
    let _ = opts;
    match format {
        Format::Raw => raw::render(report),
        // Filled in by the report work (issue 2); raw is the fallback until then.
        _ => raw::render(report),
    }
}
