//! What static analysis found a tool's code really does: the summary the LLM alignment check
//! reads and runtime findings are joined against.

use crate::finding::ToolRef;
use serde::{Deserialize, Serialize};
use std::fmt;

/// A span in a source file. `file` is relative to the scanned root so fingerprints and snapshots
/// do not depend on where the tree sits. Lines and columns are 1-based.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct SourceLocation {
    pub file: String,
    pub line: u32,
    pub column: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_column: Option<u32>,
    /// The source text of the span (or its first line), trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

impl SourceLocation {
    pub fn new(file: impl Into<String>, line: u32, column: u32) -> Self {
        SourceLocation {
            file: file.into(),
            line,
            column,
            end_line: None,
            end_column: None,
            snippet: None,
        }
    }
}

impl fmt::Display for SourceLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A declared parameter of a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeclaredParam {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_hint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Something the code can do, e.g. kind `network-send` with detail `POST http://93.184.216.34/collect`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capability {
    /// A sink/source kind from the models (`command-exec`, `file-read`, `network-send`, ...).
    pub kind: String,
    /// The API called, e.g. `requests.post`.
    pub api: String,
    /// Resolved constant arguments (URL, host, path, command), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub location: SourceLocation,
    /// The chain of calls from the tool's handler to this place (empty when direct).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<SourceLocation>,
}

/// One hop of a taint flow.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowStep {
    pub location: SourceLocation,
    /// What happens here, e.g. "key = open(path).read()" or "calls helpers.send(data)".
    pub note: String,
}

/// Data from a labelled source reaching a sink of some kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaintFlow {
    /// `param:<name>`, `secret:file`, `secret:env`, `network:response`, ...
    pub source: String,
    /// The sink kind, e.g. `network-send`.
    pub sink_kind: String,
    /// The API at the sink, e.g. `requests.post`.
    pub sink_api: String,
    /// Source first, sink last.
    pub path: Vec<FlowStep>,
    /// A sanitizer on the way (e.g. `shlex.quote`) that neutralises this sink kind.
    #[serde(default)]
    pub sanitized: bool,
}

/// What one tool's code does, as far as static analysis can tell.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolBehavior {
    pub tool: ToolRef,
    /// The handler function, e.g. `server.format_note`.
    pub handler: String,
    pub location: SourceLocation,
    /// Docstring or description argument, constants resolved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<String>,
    #[serde(default)]
    pub parameters: Vec<DeclaredParam>,
    #[serde(default)]
    pub capabilities: Vec<Capability>,
    #[serde(default)]
    pub flows: Vec<TaintFlow>,
    /// False when part of the analysis failed (unparsed file, depth limit hit on a path that
    /// matters): the tool is then INCOMPLETE, never SAFE.
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The handler's own source and the helpers it calls, bounded, for a reader (the LLM
    /// check) when the evidence above is thin. Filled only then; not written to reports,
    /// which carry locations, never the server's code.
    #[serde(default, skip_serializing)]
    pub code: Vec<CodeExcerpt>,
}

/// A function's source text as scanned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CodeExcerpt {
    /// Where the function starts.
    pub location: SourceLocation,
    /// `server.fetch` (module and qualified name).
    pub function: String,
    pub text: String,
}
