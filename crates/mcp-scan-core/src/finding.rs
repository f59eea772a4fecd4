use crate::behavior::SourceLocation;
use crate::severity::{Confidence, Severity};
use crate::taxonomy::{TaxonomyEntry, TaxonomyRef};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::fmt;

/// Which witness produced a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Analyzer {
    /// Rules over tool/resource/prompt text (tool poisoning, shadowing, hidden text).
    Description,
    /// Tree-sitter dataflow over the server's source.
    Static,
    /// The model's alignment verdict between description and static behaviour.
    Llm,
    /// Sandbox + syscall tracer + MCP exerciser.
    Runtime,
}

impl Analyzer {
    pub const ALL: [Analyzer; 4] = [
        Analyzer::Description,
        Analyzer::Static,
        Analyzer::Llm,
        Analyzer::Runtime,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Analyzer::Description => "description",
            Analyzer::Static => "static",
            Analyzer::Llm => "llm",
            Analyzer::Runtime => "runtime",
        }
    }
}

impl fmt::Display for Analyzer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What kind of MCP entity a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntityKind {
    Tool,
    Resource,
    ResourceTemplate,
    Prompt,
    /// The server as a whole (instructions, startup behaviour, unattributed activity).
    Server,
}

impl EntityKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntityKind::Tool => "tool",
            EntityKind::Resource => "resource",
            EntityKind::ResourceTemplate => "resource_template",
            EntityKind::Prompt => "prompt",
            EntityKind::Server => "server",
        }
    }
}

impl fmt::Display for EntityKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The tool (or resource, prompt, server) a finding is about.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ToolRef {
    pub server: String,
    pub kind: EntityKind,
    pub name: String,
}

impl ToolRef {
    pub fn new(server: impl Into<String>, kind: EntityKind, name: impl Into<String>) -> Self {
        ToolRef {
            server: server.into(),
            kind,
            name: name.into(),
        }
    }

    pub fn tool(server: impl Into<String>, name: impl Into<String>) -> Self {
        Self::new(server, EntityKind::Tool, name)
    }
}

impl fmt::Display for ToolRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{} {}", self.server, self.kind, self.name)
    }
}

/// One piece of evidence behind a finding. Tagged by `kind` in JSON.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Evidence {
    /// Matched text in an entity's metadata. `field` is a path such as `description` or
    /// `inputSchema.properties.path.description`; `offset` counts characters into that field.
    Text {
        field: String,
        excerpt: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        offset: Option<usize>,
    },
    /// A place in source code, with what happens there.
    Source {
        location: SourceLocation,
        note: String,
    },
    /// A traced system call, as the tracer printed it.
    Syscall {
        line: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        pid: Option<u32>,
        /// `startup`, `call:<tool>#<n>` or `background`.
        #[serde(skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
    },
    /// Traffic caught by a sandbox sink.
    Network {
        destination: String,
        protocol: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        payload_excerpt: Option<String>,
    },
    /// The model's explanation of an alignment verdict.
    Llm { model: String, rationale: String },
    /// Anything else worth showing, in one sentence.
    Note { text: String },
}

impl Evidence {
    /// One line for text reports.
    pub fn summary(&self) -> String {
        match self {
            Evidence::Text { field, excerpt, .. } => format!("{field}: \"{excerpt}\""),
            Evidence::Source { location, note } => format!("{location}: {note}"),
            Evidence::Syscall { line, phase, .. } => match phase {
                Some(p) => format!("[{p}] {line}"),
                None => line.clone(),
            },
            Evidence::Network {
                destination,
                protocol,
                payload_excerpt,
            } => match payload_excerpt {
                Some(p) => format!("{protocol} {destination}: {p}"),
                None => format!("{protocol} {destination}"),
            },
            Evidence::Llm { model, rationale } => format!("{model}: {rationale}"),
            Evidence::Note { text } => text.clone(),
        }
    }
}

/// One observation about one entity, with the evidence behind it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Stable across runs and machines: derived from rule, target and `key`, never from paths
    /// outside the scanned tree, times or ordering.
    pub fingerprint: String,
    pub rule_id: String,
    /// Every analyzer that saw it (more than one = corroborated).
    pub analyzers: Vec<Analyzer>,
    pub severity: Severity,
    pub confidence: Confidence,
    pub taxonomy: TaxonomyRef,
    pub target: ToolRef,
    /// A few words, e.g. "hidden instructions for the model".
    pub title: String,
    /// What was seen, as an observation with evidence ("reads ~/.ssh/id_rsa, undeclared").
    pub observation: String,
    /// What the entity says about itself, where relevant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<String>,
    /// The primary place to point at (source span, manifest line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<SourceLocation>,
    pub evidence: Vec<Evidence>,
}

/// Builds a [`Finding`]; the fingerprint is computed in [`FindingBuilder::build`].
#[derive(Debug, Clone)]
pub struct FindingBuilder {
    finding: Finding,
    key: String,
}

impl Finding {
    /// Starts a finding with the taxonomy row's default severity and medium confidence.
    pub fn builder(
        rule_id: impl Into<String>,
        analyzer: Analyzer,
        taxonomy: &TaxonomyEntry,
        target: ToolRef,
    ) -> FindingBuilder {
        FindingBuilder {
            finding: Finding {
                fingerprint: String::new(),
                rule_id: rule_id.into(),
                analyzers: vec![analyzer],
                severity: taxonomy.severity,
                confidence: Confidence::Medium,
                taxonomy: TaxonomyRef::from(taxonomy),
                target,
                title: String::new(),
                observation: String::new(),
                declared: None,
                location: None,
                evidence: Vec::new(),
            },
            key: String::new(),
        }
    }

    /// Whether two or more analyzers saw this.
    pub fn corroborated(&self) -> bool {
        self.analyzers.len() > 1
    }
}

impl FindingBuilder {
    pub fn severity(mut self, s: Severity) -> Self {
        self.finding.severity = s;
        self
    }
    pub fn confidence(mut self, c: Confidence) -> Self {
        self.finding.confidence = c;
        self
    }
    pub fn title(mut self, t: impl Into<String>) -> Self {
        self.finding.title = t.into();
        self
    }
    pub fn observation(mut self, o: impl Into<String>) -> Self {
        self.finding.observation = o.into();
        self
    }
    pub fn declared(mut self, d: Option<String>) -> Self {
        self.finding.declared = d;
        self
    }
    pub fn location(mut self, l: SourceLocation) -> Self {
        self.finding.location = Some(l);
        self
    }
    pub fn evidence(mut self, e: Evidence) -> Self {
        self.finding.evidence.push(e);
        self
    }
    /// What distinguishes this finding from others of the same rule on the same target
    /// (a field path, a sink location relative to the scanned root, a destination).
    pub fn key(mut self, k: impl Into<String>) -> Self {
        self.key = k.into();
        self
    }

    pub fn build(mut self) -> Finding {
        self.finding.fingerprint =
            fingerprint(&self.finding.rule_id, &self.finding.target, &self.key);
        self.finding
    }
}

/// Hex SHA-256 (first 16 bytes) of the rule, the target and the distinguishing key.
pub fn fingerprint(rule_id: &str, target: &ToolRef, key: &str) -> String {
    let mut h = Sha256::new();
    for part in [
        rule_id,
        &target.server,
        target.kind.as_str(),
        &target.name,
        key,
    ] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    h.finalize()[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::taxonomy::by_threat;

    fn sample(key: &str) -> Finding {
        let tax = by_threat("TOOL POISONING").expect("row");
        Finding::builder(
            "MCP-D001",
            Analyzer::Description,
            tax,
            ToolRef::tool("demo", "add"),
        )
        .title("hidden instructions")
        .key(key)
        .build()
    }

    #[test]
    fn fingerprint_is_stable_and_depends_on_rule_target_and_key() {
        // Pinned value: a change here breaks every user's baseline and SARIF dedupe.
        assert_eq!(
            sample("description").fingerprint,
            "16d2a8869441d97cd6b3851149a01cbf"
        );
        assert_eq!(sample("description").fingerprint.len(), 32);
        assert_ne!(
            sample("description").fingerprint,
            sample("inputSchema").fingerprint
        );
        assert_eq!(
            fingerprint("R", &ToolRef::tool("s", "t"), "k"),
            fingerprint("R", &ToolRef::tool("s", "t"), "k")
        );
        assert_ne!(
            fingerprint("R", &ToolRef::tool("s", "tk"), ""),
            fingerprint("R", &ToolRef::tool("s", "t"), "k"),
            "separators keep fields apart"
        );
    }

    #[test]
    fn builder_takes_default_severity_from_taxonomy() {
        let f = sample("x");
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.taxonomy.subtechnique, "AISubtech-12.1.2");
        assert!(!f.corroborated());
    }
}
