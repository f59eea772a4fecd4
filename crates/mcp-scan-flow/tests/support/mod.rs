//! Queries over a tool's behaviour shared by the flow test files.

use mcp_scan_core::ToolBehavior;

/// Unsanitised flows from `source` into a sink of `kind`.
pub fn flows_to(b: &ToolBehavior, source: &str, kind: &str) -> usize {
    b.flows
        .iter()
        .filter(|f| f.source == source && f.sink_kind == kind && !f.sanitized)
        .count()
}

/// The resolved constants of the tool's capabilities of `kind`.
pub fn details(b: &ToolBehavior, kind: &str) -> Vec<String> {
    b.capabilities
        .iter()
        .filter(|c| c.kind == kind)
        .map(|c| c.detail.clone().unwrap_or_default())
        .collect()
}
