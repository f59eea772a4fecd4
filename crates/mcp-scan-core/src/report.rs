//! The report every renderer consumes, tool statuses and the exit-code policy (BRIEF §6).

use crate::behavior::ToolBehavior;
use crate::finding::{Analyzer, Finding, ToolRef};
use crate::severity::Severity;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// Version of the `raw` JSON schema (docs/raw-report.md). Bump on any breaking change.
pub const REPORT_SCHEMA_VERSION: u32 = 1;

/// Verdict for one entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ToolStatus {
    /// No finding at LOW or above, and every analyzer that ran on it completed.
    Safe,
    /// At least one finding at LOW or above.
    Unsafe,
    /// No finding at LOW or above, but some analyzer did not complete: not known to be safe.
    Incomplete,
}

impl ToolStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolStatus::Safe => "SAFE",
            ToolStatus::Unsafe => "UNSAFE",
            ToolStatus::Incomplete => "INCOMPLETE",
        }
    }
}

impl fmt::Display for ToolStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AnalyzerState {
    Complete,
    Incomplete,
}

/// Whether one analyzer finished its work on one entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzerStatus {
    pub analyzer: Analyzer,
    pub state: AnalyzerState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl AnalyzerStatus {
    pub fn complete(analyzer: Analyzer) -> Self {
        AnalyzerStatus {
            analyzer,
            state: AnalyzerState::Complete,
            reason: None,
        }
    }
    pub fn incomplete(analyzer: Analyzer, reason: impl Into<String>) -> Self {
        AnalyzerStatus {
            analyzer,
            state: AnalyzerState::Incomplete,
            reason: Some(reason.into()),
        }
    }
}

/// One tool/resource/prompt and everything found about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityReport {
    pub target: ToolRef,
    /// The entity's own description, as declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared: Option<String>,
    pub analyzers: Vec<AnalyzerStatus>,
    pub findings: Vec<Finding>,
    /// Trust score 0-100 from the scorer (`mcp-scan scan`; docs/scoring.md). Never above the
    /// INCOMPLETE cap when an analyzer did not complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trust: Option<u8>,
}

impl EntityReport {
    pub fn new(target: ToolRef, declared: Option<String>) -> Self {
        EntityReport {
            target,
            declared,
            analyzers: Vec::new(),
            findings: Vec::new(),
            trust: None,
        }
    }

    pub fn complete(&self) -> bool {
        self.analyzers
            .iter()
            .all(|a| a.state == AnalyzerState::Complete)
    }

    pub fn max_severity(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    pub fn status(&self) -> ToolStatus {
        if self.max_severity().is_some_and(|s| s >= Severity::Low) {
            ToolStatus::Unsafe
        } else if !self.complete() || self.analyzers.is_empty() {
            // An entity no analyzer looked at is not known to be safe.
            ToolStatus::Incomplete
        } else {
            ToolStatus::Safe
        }
    }

    /// The worst finding severity one analyzer reported here.
    pub fn max_severity_by(&self, analyzer: Analyzer) -> Option<Severity> {
        self.findings
            .iter()
            .filter(|f| f.analyzers.contains(&analyzer))
            .map(|f| f.severity)
            .max()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DiagnosticLevel {
    /// The input could not be read or understood (exit 1).
    Error,
    /// Analysis went on, but part of the input was skipped (the affected entities are INCOMPLETE).
    Warning,
}

/// A problem with the input or the analysis, not a finding about a tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    pub level: DiagnosticLevel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            DiagnosticLevel::Error => "error",
            DiagnosticLevel::Warning => "warning",
        };
        match (&self.file, self.line, self.column) {
            (Some(file), Some(l), Some(c)) => {
                write!(f, "{level}: {file}:{l}:{c}: {}", self.message)
            }
            (Some(file), Some(l), None) => write!(f, "{level}: {file}:{l}: {}", self.message),
            (Some(file), None, _) => write!(f, "{level}: {file}: {}", self.message),
            _ => write!(f, "{level}: {}", self.message),
        }
    }
}

/// What was scanned, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanInfo {
    /// `manifest`, `behavioral` or `dynamic`.
    pub command: String,
    /// The inputs as the user named them (files, a path, a launch command).
    pub targets: Vec<String>,
    /// Analyzers that ran, in order.
    pub analyzers: Vec<Analyzer>,
}

/// The whole result of one scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub schema_version: u32,
    pub scanner: String,
    pub scanner_version: String,
    pub scan: ScanInfo,
    pub entities: Vec<EntityReport>,
    #[serde(default)]
    pub diagnostics: Vec<Diagnostic>,
    /// Static per-tool summaries (`behavioral` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub behaviors: Vec<ToolBehavior>,
    /// What a source scan saw and what it could not analyse (`behavioral`). Any gap makes the
    /// scan INCOMPLETE: code nobody analysed is never reported SAFE.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coverage: Option<Coverage>,
    /// The runtime sandbox's containment layers and whether each was in force (`dynamic`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containment: Vec<ContainmentLayer>,
    /// One entry per scanned server (`mcp-scan scan`): its identity, the witnesses that ran on
    /// it, its verdict and trust score.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<ServerReport>,
    /// Findings the user accepted (baseline, inline comments) or whose rules the configuration
    /// does not select: counted and listed, never silently dropped (`mcp-scan scan`).
    #[serde(default, skip_serializing_if = "Suppressions::is_empty")]
    pub suppressions: Suppressions,
    /// Which model the LLM check asked, how, and whether it proved itself first: a reader
    /// needs this to know how much the `llm` findings (or their absence) are worth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llm: Option<LlmRun>,
}

/// The model behind the `llm` analyzer's verdicts in this report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmRun {
    /// `openai`, `llamacpp`, `bedrock`, ...
    pub provider: String,
    pub model: String,
    /// How answers were asked for (`json_schema`, `tool_use`, `json_object`), each mode that
    /// answered; empty when every answer came from the cache.
    #[serde(default)]
    pub answer_modes: Vec<String>,
    /// The known-answer cases' result; `None` when they did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qualification: Option<LlmQualification>,
}

/// How the model did on the built-in known-answer cases (balanced, aligned and mismatched).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmQualification {
    pub aligned_right: usize,
    pub aligned_total: usize,
    pub mismatched_right: usize,
    pub mismatched_total: usize,
    /// Right answers needed in each class.
    pub min_correct_per_class: usize,
    /// False: the model's verdicts were made advisory (LOW, low confidence, never failing).
    pub qualified: bool,
}

impl LlmRun {
    /// `llamacpp/qwen (json_schema); qualified 11/12 (aligned 6/6, mismatched 5/6)`.
    pub fn line(&self) -> String {
        let modes = if self.answer_modes.is_empty() {
            "answers from cache".to_string()
        } else {
            self.answer_modes.join(", ")
        };
        let q = match &self.qualification {
            None => "qualification not run".to_string(),
            Some(q) => format!(
                "{} {}/{} (aligned {}/{}, mismatched {}/{}){}",
                if q.qualified {
                    "qualified"
                } else {
                    "NOT qualified"
                },
                q.aligned_right + q.mismatched_right,
                q.aligned_total + q.mismatched_total,
                q.aligned_right,
                q.aligned_total,
                q.mismatched_right,
                q.mismatched_total,
                if q.qualified {
                    ""
                } else {
                    ": verdicts advisory"
                }
            ),
        };
        format!("{}/{} ({modes}); {q}", self.provider, self.model)
    }
}

/// How a finding came to be suppressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuppressionKind {
    /// An entry of the baseline file.
    Baseline,
    /// A `mcp-scan: ignore[RULE] reason` comment on the finding's line or the line above.
    Inline,
}

impl SuppressionKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SuppressionKind::Baseline => "baseline",
            SuppressionKind::Inline => "inline",
        }
    }
}

/// A finding taken out of the verdict by a suppression, with who accepted it and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SuppressedFinding {
    pub kind: SuppressionKind,
    /// The user's reason; `None` for an inline comment that gave none (itself a warning).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where the suppression is: `baseline.toml` or `server.py:12`.
    pub origin: String,
    /// A baseline entry's expiry date (`YYYY-MM-DD`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
    /// The stable baseline fingerprint the entry matched on.
    pub baseline_fingerprint: String,
    pub finding: Finding,
}

/// A baseline entry that did not suppress anything: expired, or matching no finding (stale).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineEntryNote {
    pub fingerprint: String,
    pub rule: String,
    /// `server/kind name`.
    pub target: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// Everything suppression did to a report. Suppression only ever removes findings from the
/// verdict: coverage gaps and incomplete witnesses stay, so it never turns INCOMPLETE into SAFE.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suppressions {
    /// Findings a baseline entry or an inline comment accepted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<SuppressedFinding>,
    /// Findings of rules the configuration's `select`/`ignore` leaves out, by rule id.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub deselected: BTreeMap<String, usize>,
    /// Baseline entries past their expiry: their findings count again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expired: Vec<BaselineEntryNote>,
    /// Baseline entries that matched no finding of this scan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<BaselineEntryNote>,
    /// Problems with suppressions themselves (an inline comment without a reason, a baseline
    /// entry still carrying the placeholder reason).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

impl Suppressions {
    pub fn is_empty(&self) -> bool {
        self.suppressed.is_empty()
            && self.deselected.is_empty()
            && self.expired.is_empty()
            && self.stale.is_empty()
            && self.warnings.is_empty()
    }

    /// Findings suppressed by `kind`.
    pub fn count(&self, kind: SuppressionKind) -> usize {
        self.suppressed.iter().filter(|s| s.kind == kind).count()
    }

    /// Findings of deselected rules.
    pub fn deselected_count(&self) -> usize {
        self.deselected.values().sum()
    }

    /// One line for text reports, or `None` when nothing was suppressed or noted.
    pub fn summary_line(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut parts = vec![
            format!("{} by baseline", self.count(SuppressionKind::Baseline)),
            format!("{} inline", self.count(SuppressionKind::Inline)),
        ];
        if !self.deselected.is_empty() {
            parts.push(format!("{} of rules not selected", self.deselected_count()));
        }
        let mut line = format!("suppressed: {}", parts.join(", "));
        if !self.expired.is_empty() {
            line.push_str(&format!("; {} expired baseline entr", self.expired.len()));
            line.push_str(if self.expired.len() == 1 { "y" } else { "ies" });
        }
        if !self.stale.is_empty() {
            line.push_str(&format!("; {} stale baseline entr", self.stale.len()));
            line.push_str(if self.stale.len() == 1 { "y" } else { "ies" });
        }
        if !self.warnings.is_empty() {
            line.push_str(&format!("; {} warning(s)", self.warnings.len()));
        }
        Some(line)
    }
}

/// One scanned server: who it is, which witnesses looked at it, and what they concluded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerReport {
    /// The one name every witness's findings use (`ToolRef::server`).
    pub name: String,
    /// Where it came from: `directory …`, `command …`, `url …`, `config FILE (client)`.
    pub origin: Vec<String>,
    /// Names of the environment variables its configuration sets (values are never kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// The `serverInfo.name` it announced, when it ran or was listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<String>,
    /// Each witness, whether it ran on this server and why not.
    pub witnesses: Vec<AnalyzerStatus>,
    /// Server-level observations of the scorer: coverage cross-check, disagreements.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The server's verdict (worst of its entities; INCOMPLETE when a witness did not complete).
    pub status: ToolStatus,
    /// Trust score 0-100 (docs/scoring.md): the weakest of its entities, capped when incomplete.
    pub trust: u8,
}

/// One layer of the runtime sandbox's containment (`dynamic`). A layer the host could not give
/// is listed with `active: false` and also carried as a warning, never left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContainmentLayer {
    pub layer: String,
    pub active: bool,
    pub detail: String,
}

/// Why part of a server's code was not analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GapKind {
    /// A registration site (decorator, `add_tool` call, dispatcher) whose handler could not be
    /// resolved to a function.
    UnresolvedRegistration,
    /// A source file in a language no adapter handles.
    UnsupportedLanguage,
    /// A file that could not be read, decoded or parsed, or was over the size cap.
    UnanalysedFile,
    /// A module the server imports that the scan did not analyse (skipped folder, missing file).
    UnanalysedImport,
    /// Runtime events the tracer lost (a full ring buffer) or never saw: behaviour went unobserved.
    LostEvents,
}

impl GapKind {
    pub fn as_str(self) -> &'static str {
        match self {
            GapKind::UnresolvedRegistration => "unresolved-registration",
            GapKind::UnsupportedLanguage => "unsupported-language",
            GapKind::UnanalysedFile => "unanalysed-file",
            GapKind::UnanalysedImport => "unanalysed-import",
            GapKind::LostEvents => "lost-events",
        }
    }
}

/// One thing a scan could not analyse, with where and why.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CoverageGap {
    pub kind: GapKind,
    /// Path relative to the scanned root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub reason: String,
}

impl fmt::Display for CoverageGap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(l)) => {
                write!(f, "{file}:{l}: {}: {}", self.kind.as_str(), self.reason)
            }
            (Some(file), None) => write!(f, "{file}: {}: {}", self.kind.as_str(), self.reason),
            _ => write!(f, "{}: {}", self.kind.as_str(), self.reason),
        }
    }
}

/// What a source scan accounted for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coverage {
    /// Files analysed, by language name (`python`, ...).
    pub files_by_language: BTreeMap<String, usize>,
    /// Registration sites seen (decorators, registration calls, dispatcher arms).
    pub registration_sites: usize,
    /// Tools, resources and prompts resolved to a handler.
    pub entities_resolved: usize,
    /// Everything that could not be analysed. Non-empty means INCOMPLETE.
    #[serde(default)]
    pub gaps: Vec<CoverageGap>,
}

impl Coverage {
    pub fn complete(&self) -> bool {
        self.gaps.is_empty()
    }
}

impl Report {
    pub fn new(scan: ScanInfo) -> Self {
        Report {
            schema_version: REPORT_SCHEMA_VERSION,
            scanner: "mcp-scan".to_string(),
            scanner_version: env!("CARGO_PKG_VERSION").to_string(),
            scan,
            entities: Vec::new(),
            diagnostics: Vec::new(),
            behaviors: Vec::new(),
            coverage: None,
            containment: Vec::new(),
            servers: Vec::new(),
            suppressions: Suppressions::default(),
            llm: None,
        }
    }

    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.entities.iter().flat_map(|e| e.findings.iter())
    }

    pub fn max_severity(&self) -> Option<Severity> {
        self.findings().map(|f| f.severity).max()
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.level == DiagnosticLevel::Error)
    }

    /// Any entity not fully analysed, or any input that was only partly read.
    pub fn incomplete(&self) -> bool {
        self.entities
            .iter()
            .any(|e| e.status() == ToolStatus::Incomplete || !e.complete())
            || self
                .diagnostics
                .iter()
                .any(|d| d.level == DiagnosticLevel::Warning)
            || self.coverage.as_ref().is_some_and(|c| !c.complete())
            || self
                .servers
                .iter()
                .any(|s| s.status == ToolStatus::Incomplete)
    }

    /// Keeps only findings at or above `min` (display filter; the exit code is decided first).
    pub fn retain_min_severity(&mut self, min: Severity) {
        for e in &mut self.entities {
            e.findings.retain(|f| f.severity >= min);
        }
    }

    /// Sorts entities and findings into the one order every renderer shows.
    pub fn normalize(&mut self) {
        for e in &mut self.entities {
            e.findings.sort_by(|a, b| {
                b.severity
                    .cmp(&a.severity)
                    .then_with(|| a.rule_id.cmp(&b.rule_id))
                    .then_with(|| a.fingerprint.cmp(&b.fingerprint))
            });
            e.analyzers.sort_by_key(|a| a.analyzer);
        }
        self.entities.sort_by(|a, b| a.target.cmp(&b.target));
        self.servers.sort_by(|a, b| a.name.cmp(&b.name));
    }

    /// The exit status BRIEF §6 prescribes.
    pub fn exit_kind(&self, fail_on: FailOn) -> ExitKind {
        if self.has_errors() {
            return ExitKind::Error;
        }
        if let (Some(threshold), Some(max)) = (fail_on.threshold(), self.max_severity())
            && max >= threshold
        {
            return ExitKind::Findings;
        }
        if self.incomplete() {
            ExitKind::Incomplete
        } else {
            ExitKind::Clean
        }
    }
}

/// `--fail-on`: the lowest severity that makes the scan fail (exit 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailOn {
    Never,
    At(Severity),
}

impl FailOn {
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Never => None,
            FailOn::At(s) => Some(s),
        }
    }
}

impl Default for FailOn {
    fn default() -> Self {
        FailOn::At(Severity::High)
    }
}

impl FromStr for FailOn {
    type Err = crate::severity::UnknownSeverity;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s.eq_ignore_ascii_case("never") {
            Ok(FailOn::Never)
        } else {
            s.parse().map(FailOn::At)
        }
    }
}

/// Process outcome; the binary maps it to the documented exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// 0: complete, nothing at or above the threshold.
    Clean,
    /// 1: bad arguments or unreadable input.
    Error,
    /// 2: the tracer or sandbox could not be set up.
    SandboxUnavailable,
    /// 3: findings at or above `--fail-on`.
    Findings,
    /// 4: nothing at or above the threshold, but the scan was incomplete.
    Incomplete,
}

impl ExitKind {
    pub fn code(self) -> u8 {
        match self {
            ExitKind::Clean => 0,
            ExitKind::Error => 1,
            ExitKind::SandboxUnavailable => 2,
            ExitKind::Findings => 3,
            ExitKind::Incomplete => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::{Analyzer, Finding};
    use crate::taxonomy::by_threat;

    fn entity(sev: Option<Severity>, complete: bool) -> EntityReport {
        let mut e = EntityReport::new(ToolRef::tool("s", "t"), None);
        e.analyzers.push(if complete {
            AnalyzerStatus::complete(Analyzer::Description)
        } else {
            AnalyzerStatus::incomplete(Analyzer::Description, "timed out")
        });
        if let Some(sev) = sev {
            let tax = by_threat("TOOL POISONING").expect("row");
            e.findings.push(
                Finding::builder("R", Analyzer::Description, tax, ToolRef::tool("s", "t"))
                    .severity(sev)
                    .build(),
            );
        }
        e
    }

    fn report(entities: Vec<EntityReport>) -> Report {
        let mut r = Report::new(ScanInfo {
            command: "manifest".into(),
            targets: vec![],
            analyzers: vec![Analyzer::Description],
        });
        r.entities = entities;
        r
    }

    #[test]
    fn status_is_safe_only_when_complete_and_without_findings() {
        assert_eq!(entity(None, true).status(), ToolStatus::Safe);
        assert_eq!(
            entity(Some(Severity::Info), true).status(),
            ToolStatus::Safe
        );
        assert_eq!(
            entity(Some(Severity::Low), true).status(),
            ToolStatus::Unsafe
        );
        assert_eq!(entity(None, false).status(), ToolStatus::Incomplete);
        assert_eq!(
            entity(Some(Severity::High), false).status(),
            ToolStatus::Unsafe
        );
        let unanalysed = EntityReport::new(ToolRef::tool("s", "t"), None);
        assert_eq!(unanalysed.status(), ToolStatus::Incomplete);
    }

    #[test]
    fn a_coverage_gap_makes_an_otherwise_safe_scan_incomplete() {
        let mut r = report(vec![entity(None, true)]);
        r.coverage = Some(Coverage::default());
        assert_eq!(r.exit_kind(FailOn::default()), ExitKind::Clean);
        r.coverage.as_mut().expect("set").gaps.push(CoverageGap {
            kind: GapKind::UnresolvedRegistration,
            file: Some("server.py".into()),
            line: Some(12),
            reason: "add_tool argument is not a function".into(),
        });
        assert_eq!(r.exit_kind(FailOn::default()), ExitKind::Incomplete);
    }

    #[test]
    fn exit_codes_follow_the_brief() {
        let d = FailOn::default();
        assert_eq!(
            report(vec![entity(None, true)]).exit_kind(d),
            ExitKind::Clean
        );
        assert_eq!(
            report(vec![entity(Some(Severity::High), true)]).exit_kind(d),
            ExitKind::Findings
        );
        assert_eq!(
            report(vec![entity(Some(Severity::Medium), true)]).exit_kind(d),
            ExitKind::Clean
        );
        assert_eq!(
            report(vec![entity(Some(Severity::Medium), true)])
                .exit_kind(FailOn::At(Severity::Medium)),
            ExitKind::Findings
        );
        assert_eq!(
            report(vec![entity(Some(Severity::Critical), true)]).exit_kind(FailOn::Never),
            ExitKind::Clean
        );
        assert_eq!(
            report(vec![entity(Some(Severity::Medium), false)]).exit_kind(d),
            ExitKind::Incomplete
        );
        let mut bad = report(vec![entity(Some(Severity::High), true)]);
        bad.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Error,
            file: Some("x.json".into()),
            line: Some(1),
            column: Some(2),
            message: "expected value".into(),
        });
        assert_eq!(bad.exit_kind(d), ExitKind::Error);
        assert_eq!(ExitKind::Incomplete.code(), 4);
    }

    #[test]
    fn fail_on_parses_never_and_severities() {
        assert_eq!("never".parse::<FailOn>().ok(), Some(FailOn::Never));
        assert_eq!(
            "low".parse::<FailOn>().ok(),
            Some(FailOn::At(Severity::Low))
        );
        assert!("sometimes".parse::<FailOn>().is_err());
    }
}
