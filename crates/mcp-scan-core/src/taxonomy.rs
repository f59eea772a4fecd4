//! The Cisco AI security taxonomy rows mcp-scan maps findings to, kept as data in
//! `rules/taxonomy.toml` and embedded at build time.

use crate::severity::Severity;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

const TAXONOMY_TOML: &str = include_str!("../../../rules/taxonomy.toml");

/// One row of the taxonomy table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct TaxonomyEntry {
    pub technique: String,
    pub technique_name: String,
    pub subtechnique: String,
    pub subtechnique_name: String,
    /// The behavioural threat name (the LLM verdict's `threat_name`).
    pub threat: String,
    pub severity: Severity,
    pub summary: String,
}

#[derive(Deserialize)]
struct TaxonomyFile {
    entry: Vec<TaxonomyEntry>,
}

static ENTRIES: LazyLock<Vec<TaxonomyEntry>> = LazyLock::new(|| {
    // Embedded data, validated by `embedded_taxonomy_parses_and_is_consistent`.
    toml::from_str::<TaxonomyFile>(TAXONOMY_TOML)
        .map(|f| f.entry)
        .unwrap_or_else(|e| panic!("rules/taxonomy.toml is invalid: {e}"))
});

/// Every taxonomy row, in file order.
pub fn entries() -> &'static [TaxonomyEntry] {
    &ENTRIES
}

/// The row with this behavioural threat name (case-insensitive), e.g. `DATA EXFILTRATION`.
pub fn by_threat(threat: &str) -> Option<&'static TaxonomyEntry> {
    entries()
        .iter()
        .find(|e| e.threat.eq_ignore_ascii_case(threat.trim()))
}

/// The first row with this sub-technique code, e.g. `AISubtech-8.2.3`.
pub fn by_subtechnique(code: &str) -> Option<&'static TaxonomyEntry> {
    entries().iter().find(|e| e.subtechnique == code)
}

/// The taxonomy codes and names a finding carries (owned, so findings serialise on their own).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TaxonomyRef {
    pub technique: String,
    pub technique_name: String,
    pub subtechnique: String,
    pub subtechnique_name: String,
    pub threat: String,
}

impl From<&TaxonomyEntry> for TaxonomyRef {
    fn from(e: &TaxonomyEntry) -> Self {
        TaxonomyRef {
            technique: e.technique.clone(),
            technique_name: e.technique_name.clone(),
            subtechnique: e.subtechnique.clone(),
            subtechnique_name: e.subtechnique_name.clone(),
            threat: e.threat.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_taxonomy_parses_and_is_consistent() {
        let all = entries();
        assert!(all.len() >= 18, "taxonomy rows: {}", all.len());
        for e in all {
            assert!(e.technique.starts_with("AITech-"), "{e:?}");
            assert!(e.subtechnique.starts_with("AISubtech-"), "{e:?}");
            let tech = e.technique.trim_start_matches("AITech-");
            let sub = e.subtechnique.trim_start_matches("AISubtech-");
            assert!(sub.starts_with(&format!("{tech}.")), "{e:?}");
        }
        let mut threats: Vec<_> = all.iter().map(|e| e.threat.as_str()).collect();
        threats.sort_unstable();
        threats.dedup();
        assert_eq!(threats.len(), all.len(), "threat names must be unique");
    }

    #[test]
    fn every_llm_threat_name_of_the_brief_resolves() {
        for name in [
            "PROMPT INJECTION",
            "INJECTION ATTACKS",
            "TEMPLATE INJECTION",
            "TOOL POISONING",
            "GOAL MANIPULATION",
            "DATA EXFILTRATION",
            "UNAUTHORIZED OR UNSOLICITED NETWORK ACCESS",
            "UNAUTHORIZED OR UNSOLICITED SYSTEM ACCESS",
            "ARBITRARY RESOURCE READ/WRITE",
            "UNAUTHORIZED OR UNSOLICITED CODE EXECUTION",
            "BACKDOOR",
            "DEFENSE EVASION",
            "RESOURCE EXHAUSTION",
            "GENERAL DESCRIPTION-CODE MISMATCH",
        ] {
            assert!(by_threat(name).is_some(), "{name}");
        }
        assert_eq!(
            by_threat("data exfiltration").map(|e| e.subtechnique.as_str()),
            Some("AISubtech-8.2.3")
        );
        assert_eq!(
            by_threat("GENERAL DESCRIPTION-CODE MISMATCH").map(|e| e.severity),
            Some(Severity::Info)
        );
        assert!(by_threat("SAFE").is_none());
    }
}
