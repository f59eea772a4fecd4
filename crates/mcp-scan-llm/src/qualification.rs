//! The model proves itself first: known-answer cases (`rules/llm/qualification.toml`) run
//! through the same template and request loop as real tools. A model that cannot tell aligned
//! from mismatched on them gets advisory verdicts only (LOW, low confidence, never failing a
//! scan). Answers are cached like any others, so a re-scan with the same provider, model and
//! template sends nothing.

use crate::check::{LlmOutcome, ToolResult};
use crate::error::TemplateError;
use mcp_scan_core::{
    Capability, Confidence, FlowStep, Severity, SourceLocation, TaintFlow, ToolBehavior, ToolRef,
};
use serde::Deserialize;

pub const QUALIFICATION_CASES: &str = include_str!("../../../rules/llm/qualification.toml");
const PATH: &str = "rules/llm/qualification.toml";
/// The server name the cases are filed under (never a real server's).
pub const SERVER: &str = "mcp-scan-qualification";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    version: String,
    min_correct_per_class: usize,
    #[serde(rename = "case")]
    cases: Vec<RawCase>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    name: String,
    category: String,
    expect: Expect,
    declared: String,
    #[serde(default)]
    capability: Vec<RawCapability>,
    #[serde(default)]
    flow: Vec<RawFlow>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Expect {
    Aligned,
    Mismatch,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCapability {
    kind: String,
    api: String,
    detail: Option<String>,
    line: u32,
    snippet: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFlow {
    source: String,
    sink_kind: String,
    sink_api: String,
    line: u32,
    snippet: String,
}

/// One known-answer case, ready to check.
#[derive(Debug, Clone)]
pub struct Case {
    pub behavior: ToolBehavior,
    pub category: String,
    pub mismatch: bool,
}

/// The built-in cases.
#[derive(Debug, Clone)]
pub struct Cases {
    pub version: String,
    pub min_correct_per_class: usize,
    pub cases: Vec<Case>,
}

fn at(line: u32, snippet: &str) -> SourceLocation {
    let mut l = SourceLocation::new("server.py", line, 5);
    l.snippet = Some(snippet.to_string());
    l
}

impl Cases {
    pub fn builtin() -> Result<Cases, TemplateError> {
        let err = |message: String| TemplateError {
            path: PATH.into(),
            line: None,
            message,
        };
        let f: CaseFile = toml::from_str(QUALIFICATION_CASES).map_err(|e| err(e.to_string()))?;
        let mut cases = Vec::new();
        for c in f.cases {
            let mut b = ToolBehavior {
                tool: ToolRef::tool(SERVER, &c.name),
                handler: format!("server.{}", c.name),
                location: at(1, &format!("def {}(...):", c.name)),
                declared: Some(c.declared),
                parameters: vec![],
                capabilities: vec![],
                flows: vec![],
                complete: true,
                notes: vec![],
                code: vec![],
            };
            for k in c.capability {
                b.capabilities.push(Capability {
                    kind: k.kind,
                    api: k.api,
                    detail: k.detail,
                    location: at(k.line, &k.snippet),
                    via: vec![],
                });
            }
            for f in c.flow {
                b.flows.push(TaintFlow {
                    source: f.source,
                    sink_kind: f.sink_kind,
                    sink_api: f.sink_api,
                    path: vec![FlowStep {
                        location: at(f.line, &f.snippet),
                        note: f.snippet.clone(),
                    }],
                    sanitized: false,
                });
            }
            cases.push(Case {
                behavior: b,
                category: c.category,
                mismatch: c.expect == Expect::Mismatch,
            });
        }
        let per_class = |m: bool| cases.iter().filter(|c| c.mismatch == m).count();
        if per_class(true) != per_class(false) || f.min_correct_per_class > per_class(true) {
            return Err(err(format!(
                "the cases must be balanced and min_correct_per_class at most their number per class ({} aligned, {} mismatched)",
                per_class(false),
                per_class(true)
            )));
        }
        Ok(Cases {
            version: f.version,
            min_correct_per_class: f.min_correct_per_class,
            cases,
        })
    }

    /// The expected verdict of a case by tool name (for stand-in models in tests).
    pub fn expected(&self, tool: &str) -> Option<bool> {
        self.cases
            .iter()
            .find(|c| c.behavior.tool.name == tool)
            .map(|c| c.mismatch)
    }

    pub fn behaviors(&self) -> Vec<ToolBehavior> {
        self.cases.iter().map(|c| c.behavior.clone()).collect()
    }

    /// Scores the model's answers on the cases. A case without a valid answer counts as wrong.
    pub fn score(&self, outcome: &LlmOutcome) -> Qualification {
        let mut q = Qualification {
            model: outcome.model.clone(),
            aligned_right: 0,
            aligned_total: 0,
            mismatch_right: 0,
            mismatch_total: 0,
            min_correct_per_class: self.min_correct_per_class,
            wrong: Vec::new(),
        };
        for case in &self.cases {
            let answer = outcome
                .get(&case.behavior.tool)
                .and_then(|t| match &t.result {
                    ToolResult::Verdict { verdict, .. } => Some(verdict.mismatch),
                    _ => None,
                });
            let right = answer == Some(case.mismatch);
            if case.mismatch {
                q.mismatch_total += 1;
                q.mismatch_right += usize::from(right);
            } else {
                q.aligned_total += 1;
                q.aligned_right += usize::from(right);
            }
            if !right {
                q.wrong.push(format!(
                    "{} ({}): expected {}, got {}",
                    case.behavior.tool.name,
                    case.category,
                    if case.mismatch { "mismatch" } else { "aligned" },
                    match answer {
                        Some(true) => "mismatch",
                        Some(false) => "aligned",
                        None => "no valid answer",
                    }
                ));
            }
        }
        q
    }
}

/// How a model did on the known-answer cases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Qualification {
    pub model: String,
    pub aligned_right: usize,
    pub aligned_total: usize,
    pub mismatch_right: usize,
    pub mismatch_total: usize,
    pub min_correct_per_class: usize,
    /// One line per case it got wrong.
    pub wrong: Vec<String>,
}

impl Qualification {
    pub fn passed(&self) -> bool {
        self.aligned_right >= self.min_correct_per_class
            && self.mismatch_right >= self.min_correct_per_class
    }

    /// `11/12 (aligned 6/6, mismatched 5/6)`.
    pub fn score(&self) -> String {
        format!(
            "{}/{} (aligned {}/{}, mismatched {}/{})",
            self.aligned_right + self.mismatch_right,
            self.aligned_total + self.mismatch_total,
            self.aligned_right,
            self.aligned_total,
            self.mismatch_right,
            self.mismatch_total
        )
    }

    /// The warning a user sees when the model did not qualify.
    pub fn warning(&self) -> String {
        format!(
            "{} did not qualify on the built-in known-answer cases: {} (needs {} of each class); its verdicts are advisory only (LOW, low confidence, never failing the scan). Wrong: {}",
            self.model,
            self.score(),
            self.min_correct_per_class,
            self.wrong.join("; ")
        )
    }
}

/// Makes every finding of an unqualified model advisory.
pub fn make_advisory(outcome: &mut LlmOutcome, q: &Qualification) {
    for t in &mut outcome.tools {
        if let ToolResult::Verdict {
            finding: Some(f), ..
        } = &mut t.result
        {
            f.severity = Severity::Low;
            f.confidence = Confidence::Low;
            f.observation.push_str(&format!(
                " (Advisory: {} did not qualify on the known-answer cases, {}.)",
                q.model,
                q.score()
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_cases_are_balanced_and_each_category_distinct() {
        let c = Cases::builtin().expect("cases");
        let mism = c.cases.iter().filter(|c| c.mismatch).count();
        assert_eq!(mism * 2, c.cases.len());
        assert!(mism >= c.min_correct_per_class);
        let mut cats: Vec<_> = c.cases.iter().map(|c| c.category.as_str()).collect();
        cats.sort_unstable();
        cats.dedup();
        assert_eq!(cats.len(), c.cases.len(), "one category per case");
        // A model answering one way only scores half and fails.
        let always = Qualification {
            model: "m".into(),
            aligned_right: 0,
            aligned_total: mism,
            mismatch_right: mism,
            mismatch_total: mism,
            min_correct_per_class: c.min_correct_per_class,
            wrong: vec![],
        };
        assert!(!always.passed());
    }
}
