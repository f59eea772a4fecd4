//! Scan orchestration and report assembly for every witness, and the scorer that merges them.
//!
//! - [`source`]: the static and description witnesses over a source tree (`behavioral`).
//! - [`manifest`]: the description witness over manifest files (`manifest`).
//! - [`runtime`]: the runtime witness over a launch command or a remote URL (`dynamic`).
//! - [`identity`]: one server identity and one entity identity for every witness.
//! - [`scan`]: `mcp-scan scan`: targets (directory, launch command, URL, client configuration)
//!   into servers, every witness that applies run on each, one report.
//! - [`suppress`]: rule selection, inline `mcp-scan: ignore[...]` comments and the baseline.
//! - [`scorer`]: findings about the same entity and behaviour merged across witnesses,
//!   disagreement shown, the coverage cross-check, and the trust score.

pub mod identity;
pub mod manifest;
pub mod runtime;
pub mod scan;
pub mod scorer;
pub mod source;
pub mod suppress;

pub use identity::{ServerIdentity, rename_server};
pub use scan::{ConfiguredServer, Launch, ScanOptions, ScanOutcome, Target, scan};
pub use scorer::{TrustBand, score_report};

/// What stops a scan before it has a report.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// A source tree could not be scanned at all (missing, unreadable root).
    #[error("cannot scan {path}: {message}")]
    Source { path: String, message: String },
    /// The built-in rules do not load (a build defect, never the user's input).
    #[error("built-in description rules do not load: {0}")]
    Rules(String),
    /// The runtime sandbox or tracer could not be set up (exit 2).
    #[error("cannot set up the sandbox: {0}")]
    Sandbox(String),
    /// A runtime scan failed for another reason (bad launch command, pins, output folder).
    #[error("{context}: {message}")]
    Runtime { context: String, message: String },
    /// The LLM provider configuration or the check itself failed.
    #[error(transparent)]
    Llm(#[from] mcp_scan_llm::LlmError),
    /// A target could not be understood (bad arguments, unreadable configuration file).
    #[error("{0}")]
    Target(String),
}
