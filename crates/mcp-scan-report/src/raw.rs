use mcp_scan_core::Report;

/// The versioned JSON document described in docs/raw-report.md.
pub fn render(report: &Report) -> String {
    // Serialising plain data structs cannot fail.
    let mut s = serde_json::to_string_pretty(report).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
    s.push('\n');
    s
}
