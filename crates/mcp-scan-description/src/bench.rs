//! Scoring the description analyzer on MCPTox: each poisoned description is a positive, each
//! tool of a benign manifest a negative.

use crate::{DescriptionAnalyzer, tool_fields};
use mcp_scan_core::{EntityKind, Severity};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The bench inputs could not be read.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Record {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{0}")]
    Manifest(String),
    #[error("{path}: no benign manifests (*.json) found")]
    NoBenign { path: PathBuf },
}

#[derive(serde::Deserialize)]
struct Record {
    id: serde_json::Value,
    #[serde(default)]
    poisoned_tool_name: String,
    description: String,
    #[serde(default)]
    paradigm: String,
    #[serde(default)]
    security_risk: String,
}

/// One poisoned record and whether it was detected.
struct Outcome {
    paradigm: String,
    risk: String,
    found: bool,
    id: String,
}

/// A confusion matrix with the measures derived from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Scores {
    pub tp: usize,
    #[serde(rename = "fn")]
    pub fn_: usize,
    pub fp: usize,
    pub tn: usize,
    pub recall: f64,
    /// Wilson score interval (95%) of the recall.
    pub recall_ci95: (f64, f64),
    pub false_positive_rate: f64,
    pub precision: f64,
    pub f1: f64,
}

impl Scores {
    pub fn new(tp: usize, fn_: usize, fp: usize, tn: usize) -> Self {
        let ratio = |a: usize, b: usize| if b == 0 { 0.0 } else { a as f64 / b as f64 };
        let recall = ratio(tp, tp + fn_);
        let precision = ratio(tp, tp + fp);
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        Scores {
            tp,
            fn_,
            fp,
            tn,
            recall,
            recall_ci95: wilson(tp, tp + fn_),
            false_positive_rate: ratio(fp, fp + tn),
            precision,
            f1,
        }
    }
}

/// Wilson score interval at 95% for `k` successes in `n` trials.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n_f = n as f64;
    let p = k as f64 / n_f;
    let z2 = z * z;
    let denom = 1.0 + z2 / n_f;
    let center = (p + z2 / (2.0 * n_f)) / denom;
    let half = z * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt() / denom;
    ((center - half).max(0.0), (center + half).min(1.0))
}

/// A benign entity that drew a finding at or above the threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenignHit {
    pub server: String,
    pub kind: String,
    pub name: String,
    pub rule: String,
    pub severity: Severity,
}

/// The whole benchmark result (`--format raw`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchReport {
    pub threshold: Severity,
    pub positives: usize,
    /// Tools of the benign manifests.
    pub negatives: usize,
    pub benign_manifests: usize,
    pub overall: Scores,
    /// Per paradigm and per risk category: TP/FN of that group against the shared negatives.
    pub by_paradigm: BTreeMap<String, Scores>,
    pub by_security_risk: BTreeMap<String, Scores>,
    /// Ids of poisoned records not detected at the threshold.
    pub missed_ids: Vec<String>,
    pub false_positives: Vec<BenignHit>,
    /// Benign resources, templates, prompts or server instructions with a finding at or above
    /// the threshold (not counted as negatives, listed so they are not hidden).
    pub benign_other_hits: Vec<BenignHit>,
}

/// Runs the benchmark.
pub fn run_mcptox(
    analyzer: &DescriptionAnalyzer<'_>,
    poisoned: &Path,
    benign_dir: &Path,
    threshold: Severity,
) -> Result<BenchReport, BenchError> {
    let text = std::fs::read_to_string(poisoned).map_err(|source| BenchError::Io {
        path: poisoned.to_path_buf(),
        source,
    })?;
    let mut hits_by: Vec<Outcome> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: Record = serde_json::from_str(line).map_err(|e| BenchError::Record {
            path: poisoned.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?;
        let fields = tool_fields(&r.poisoned_tool_name, &r.description);
        let found = analyzer
            .scan_fields(&fields, &Default::default())
            .iter()
            .any(|h| h.severity >= threshold);
        let id = match &r.id {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        hits_by.push(Outcome {
            paradigm: r.paradigm,
            risk: r.security_risk,
            found,
            id,
        });
    }

    let mut paths: Vec<PathBuf> = std::fs::read_dir(benign_dir)
        .map_err(|source| BenchError::Io {
            path: benign_dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json" || x == "jsonl"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(BenchError::NoBenign {
            path: benign_dir.to_path_buf(),
        });
    }
    let (mut fp, mut tn) = (0, 0);
    let mut false_positives = Vec::new();
    let mut benign_other_hits = Vec::new();
    for p in &paths {
        let out = mcp_scan_manifest::load(&p.to_string_lossy());
        if let Some(e) = out.errors.first() {
            return Err(BenchError::Manifest(e.to_string()));
        }
        for e in analyzer.scan_manifest(&out.manifest) {
            let worst = e
                .findings
                .iter()
                .filter(|f| f.severity >= threshold)
                .max_by_key(|f| f.severity);
            let hit = worst.map(|f| BenignHit {
                server: e.target.server.clone(),
                kind: e.target.kind.to_string(),
                name: e.target.name.clone(),
                rule: f.rule_id.clone(),
                severity: f.severity,
            });
            if e.target.kind == EntityKind::Tool {
                match hit {
                    Some(h) => {
                        fp += 1;
                        false_positives.push(h);
                    }
                    None => tn += 1,
                }
            } else if let Some(h) = hit {
                benign_other_hits.push(h);
            }
        }
    }

    let group = |key: fn(&Outcome) -> &str| {
        let mut m: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for h in &hits_by {
            let k = key(h);
            let k = if k.is_empty() { "(none)" } else { k };
            let e = m.entry(k.to_string()).or_default();
            if h.found {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
        m.into_iter()
            .map(|(k, (tp, fn_))| (k, Scores::new(tp, fn_, fp, tn)))
            .collect::<BTreeMap<_, _>>()
    };
    let tp = hits_by.iter().filter(|h| h.found).count();
    Ok(BenchReport {
        threshold,
        positives: hits_by.len(),
        negatives: fp + tn,
        benign_manifests: paths.len(),
        overall: Scores::new(tp, hits_by.len() - tp, fp, tn),
        by_paradigm: group(|h| h.paradigm.as_str()),
        by_security_risk: group(|h| h.risk.as_str()),
        missed_ids: hits_by
            .iter()
            .filter(|h| !h.found)
            .map(|h| h.id.clone())
            .collect(),
        false_positives,
        benign_other_hits,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_published_values() {
        // Reference values evaluated independently from the closed form.
        let (lo, hi) = wilson(81, 263);
        assert!(
            (lo - 0.2553).abs() < 1e-3 && (hi - 0.3662).abs() < 1e-3,
            "{lo} {hi}"
        );
        let (lo, hi) = wilson(10, 10);
        assert!(
            (lo - 0.7225).abs() < 1e-3 && (hi - 1.0).abs() < 1e-9,
            "{lo} {hi}"
        );
        assert_eq!(wilson(0, 0), (0.0, 0.0));
    }

    #[test]
    fn scores_derive_rates_from_the_confusion_matrix() {
        let s = Scores::new(90, 10, 5, 95);
        assert!((s.recall - 0.9).abs() < 1e-12);
        assert!((s.false_positive_rate - 0.05).abs() < 1e-12);
        assert!((s.precision - 90.0 / 95.0).abs() < 1e-12);
        assert!((s.f1 - 2.0 * 0.9 * (90.0 / 95.0) / (0.9 + 90.0 / 95.0)).abs() < 1e-12);
        assert_eq!(Scores::new(0, 0, 0, 0).f1, 0.0);
    }
}
