//! The shared vocabulary of mcp-scan: what a finding is, how severe it is, which taxonomy entry it
//! maps to, what a tool was seen to do, and the report every renderer consumes.
//!
//! This crate does no I/O: analyzers produce these values, the engine merges them, and
//! `mcp-scan-report` renders them.

pub mod behavior;
pub mod codec;
pub mod finding;
pub mod report;
pub mod severity;
pub mod taxonomy;

pub use behavior::{
    Capability, CodeExcerpt, DeclaredParam, FlowStep, SourceLocation, TaintFlow, ToolBehavior,
};
pub use finding::{Analyzer, EntityKind, Evidence, Finding, FindingBuilder, ToolRef, fingerprint};
pub use report::{
    AnalyzerState, AnalyzerStatus, BaselineEntryNote, ContainmentLayer, Coverage, CoverageGap,
    Diagnostic, DiagnosticLevel, EntityReport, ExitKind, FailOn, GapKind, LlmQualification, LlmRun,
    REPORT_SCHEMA_VERSION, Report, ScanInfo, ServerReport, SuppressedFinding, SuppressionKind,
    Suppressions, ToolStatus,
};
pub use severity::{Confidence, Severity};
pub use taxonomy::{TaxonomyEntry, TaxonomyRef};
