//! Static rules (`rules/static/*.toml`): shared metadata from `mcp-scan-rules`, a `[match]`
//! over a tool's behaviour, and the fixture pair that proves the rule (`[fixtures]`).

use crate::models::{KINDS, Models};
use mcp_scan_core::Analyzer;
use mcp_scan_rules::{RawRuleMeta, RuleError, RuleMeta, SourceFile};
use regex::Regex;
use serde::Deserialize;
use std::sync::LazyLock;

macro_rules! rule_files {
    ($($n:literal),* $(,)?) => {
        &[$((concat!("rules/static/", $n, ".toml"), include_str!(concat!("../../../rules/static/", $n, ".toml")))),*]
    };
}

/// The embedded static rules, file name → text.
pub const STATIC_RULE_FILES: &[(&str, &str)] = rule_files!(
    "S001", "S002", "S003", "S004", "S005", "S006", "S007", "S008", "S009", "S010", "S011", "S012",
    "S013", "S014", "S015", "S016", "S017", "S018", "S019", "S020", "S021", "S022", "S023", "S024",
    "S025", "S026", "S027", "S028", "S029", "S030", "S031", "S032", "S033", "S034", "S040", "S041",
    "S042", "S050", "S051", "S052", "S053", "S054", "S055", "S056",
);

#[derive(Debug, Clone)]
pub enum Match {
    Flow {
        /// Exact labels or `prefix:*`.
        sources: Vec<String>,
        sinks: Vec<String>,
        target_only: bool,
        /// Only sinks whose resolved constant matches (a tracking collector's URL, a fixed
        /// path outside the caller's reach).
        detail: Option<Regex>,
        unless_detail: Option<Regex>,
        /// Lowers the severity when the tool's purpose is to open the file it is given.
        declared_path: Option<DeclaredPath>,
        /// A declared text matching this says the flow is the tool's purpose.
        description_not_matches: Option<Regex>,
    },
    Capability {
        kinds: Vec<String>,
        detail: Option<Regex>,
        sensitive_detail: bool,
        description_matches: Option<Regex>,
        description_not_matches: Option<Regex>,
        host_declared: bool,
        /// A file the tool deletes again itself (a temporary script) does not count.
        unless_removed: bool,
        /// The tool also does something of one of these kinds (a real cipher next to the
        /// base64): the claim may hold, no finding.
        unless_kinds: Vec<String>,
        /// When present, only details of one of these classes match, each declared by its
        /// own words: reading the mount table is declared by "disks", not by "logs".
        classes: Vec<DetailClass>,
    },
}

/// A kind of thing a capability acts on (recognised by its detail) and the words of a
/// description that declare acting on it.
#[derive(Debug, Clone)]
pub struct DetailClass {
    pub detail: Regex,
    pub what: String,
    pub declared: Regex,
}

impl DetailClass {
    /// The first class of `classes` the detail belongs to.
    pub fn of<'c>(classes: &'c [DetailClass], detail: &str) -> Option<&'c DetailClass> {
        classes.iter().find(|c| c.detail.is_match(detail))
    }
}

/// A parameter declared to be a path (its name says so) on a tool whose description says it
/// works on files: the file it names being opened is the tool's purpose, not a traversal, unless
/// the path escapes upwards (`..`) or resolves to a sensitive path.
#[derive(Debug, Clone)]
pub struct DeclaredPath {
    pub param: Regex,
    pub description: Regex,
    pub severity: mcp_scan_core::Severity,
}

impl DeclaredPath {
    /// Whether every source is such a parameter and the sink's path stays an ordinary one.
    pub fn covers<'a>(
        &self,
        models: &Models,
        description: Option<&str>,
        mut sources: impl Iterator<Item = &'a str>,
        detail: &str,
    ) -> bool {
        description.is_some_and(|d| self.description.is_match(d))
            && sources.all(|s| {
                s.strip_prefix("param:")
                    .is_some_and(|p| self.param.is_match(p))
            })
            && !detail.contains("..")
            && !sensitive(models, detail)
            && !joined_to_a_fixed_root(detail)
    }
}

/// `/app/data/…`: the parameter is joined to a fixed directory the tool keeps its files in, so
/// an unchecked `../` in it escapes that root; opening the caller's own path (`⟨param:path⟩`,
/// `⟨param:repo⟩/.git/HEAD`) does not.
fn joined_to_a_fixed_root(detail: &str) -> bool {
    let root = detail.find(['…', '⟨']).map_or("", |i| &detail[..i]);
    !root.is_empty() && (root.starts_with('/') || root.starts_with('~') || root.ends_with('/'))
}

/// Fixture tools (`<fixture>/<tool>`) that must fire / must stay clean.
#[derive(Debug, Clone, Default)]
pub struct RuleFixtures {
    pub fires: Vec<String>,
    pub clean: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct StaticRule {
    pub meta: RuleMeta,
    pub matcher: Match,
    pub fixtures: RuleFixtures,
}

impl StaticRule {
    pub fn label_matches(&self, label: &str) -> bool {
        match &self.matcher {
            Match::Flow { sources, .. } => sources.iter().any(|s| match s.strip_suffix('*') {
                Some(prefix) => label.starts_with(prefix),
                None => s == label,
            }),
            Match::Capability { .. } => false,
        }
    }
}

/// The embedded static rules (validated by a test).
pub fn builtin() -> &'static [StaticRule] {
    static RULES: LazyLock<Vec<StaticRule>> = LazyLock::new(|| {
        load(STATIC_RULE_FILES).unwrap_or_else(|e| panic!("embedded static rules are invalid: {e}"))
    });
    &RULES
}

/// Loads and validates rule files.
pub fn load(files: &[(&str, &str)]) -> Result<Vec<StaticRule>, RuleError> {
    let mut out: Vec<StaticRule> = Vec::new();
    for (name, text) in files {
        let src = SourceFile::new(name, text);
        let raw: RawFile = src.parse()?;
        let meta = raw
            .rule
            .get_ref()
            .compile(&src, raw.rule.span(), Analyzer::Static, "MCPS-S")?;
        if out.iter().any(|r| r.meta.id == meta.id) {
            return Err(src.error(raw.rule.span(), format!("duplicate rule id {}", meta.id)));
        }
        let m = raw.r#match.get_ref();
        let span = raw.r#match.span();
        let re = |r: &Option<toml::Spanned<String>>| -> Result<Option<Regex>, RuleError> {
            r.as_ref()
                .map(|r| {
                    Regex::new(r.get_ref())
                        .map_err(|e| src.error(r.span(), format!("bad regex: {e}")))
                })
                .transpose()
        };
        let kinds = |ks: &[toml::Spanned<String>]| -> Result<Vec<String>, RuleError> {
            if ks.is_empty() {
                return Err(src.error(span.clone(), "at least one kind is required"));
            }
            ks.iter()
                .map(|k| {
                    if KINDS.contains(&k.get_ref().as_str()) {
                        Ok(k.get_ref().clone())
                    } else {
                        Err(src.error(k.span(), format!("unknown kind `{}`", k.get_ref())))
                    }
                })
                .collect()
        };
        let matcher = match m.r#type.get_ref().as_str() {
            "flow" => {
                if m.sources.is_empty() {
                    return Err(src.error(span, "a flow rule needs sources"));
                }
                Match::Flow {
                    sources: m.sources.clone(),
                    sinks: kinds(&m.sinks)?,
                    target_only: m.target_only,
                    detail: re(&m.detail)?,
                    unless_detail: re(&m.unless_detail)?,
                    declared_path: m
                        .declared_path
                        .as_ref()
                        .map(|d| -> Result<DeclaredPath, RuleError> {
                            let rx = |r: &toml::Spanned<String>| {
                                Regex::new(r.get_ref())
                                    .map_err(|e| src.error(r.span(), format!("bad regex: {e}")))
                            };
                            Ok(DeclaredPath {
                                param: rx(&d.param)?,
                                description: rx(&d.description)?,
                                severity: d.severity.get_ref().parse().map_err(|_| {
                                    src.error(d.severity.span(), "unknown severity")
                                })?,
                            })
                        })
                        .transpose()?,
                    description_not_matches: re(&m.description_not_matches)?,
                }
            }
            "capability" => Match::Capability {
                kinds: kinds(&m.kinds)?,
                detail: re(&m.detail)?,
                sensitive_detail: m.sensitive_detail,
                description_matches: re(&m.description_matches)?,
                description_not_matches: re(&m.description_not_matches)?,
                host_declared: m.host_declared,
                unless_removed: m.unless_removed,
                unless_kinds: if m.unless_kinds.is_empty() {
                    Vec::new()
                } else {
                    kinds(&m.unless_kinds)?
                },
                classes: m
                    .classes
                    .iter()
                    .map(|c| -> Result<DetailClass, RuleError> {
                        let rx = |r: &toml::Spanned<String>| {
                            Regex::new(r.get_ref())
                                .map_err(|e| src.error(r.span(), format!("bad regex: {e}")))
                        };
                        Ok(DetailClass {
                            detail: rx(&c.detail)?,
                            what: c.what.clone(),
                            declared: rx(&c.declared)?,
                        })
                    })
                    .collect::<Result<_, _>>()?,
            },
            other => {
                return Err(src.error(
                    m.r#type.span(),
                    format!("unknown match type `{other}` (flow or capability)"),
                ));
            }
        };
        let fixtures = raw
            .fixtures
            .map_or_else(RuleFixtures::default, |f| RuleFixtures {
                fires: f.fires,
                clean: f.clean,
            });
        if fixtures.fires.is_empty() || fixtures.clean.is_empty() {
            return Err(src.error(
                raw.rule.span(),
                "a static rule needs [fixtures] with at least one `fires` and one `clean` tool",
            ));
        }
        out.push(StaticRule {
            meta,
            matcher,
            fixtures,
        });
    }
    Ok(out)
}

/// Whether a detail names a sensitive path.
pub fn sensitive(models: &Models, detail: &str) -> bool {
    models.sensitive_path(detail).is_some()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    rule: toml::Spanned<RawRuleMeta>,
    r#match: toml::Spanned<RawMatch>,
    fixtures: Option<RawFixtures>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatch {
    r#type: toml::Spanned<String>,
    #[serde(default)]
    sources: Vec<String>,
    #[serde(default)]
    sinks: Vec<toml::Spanned<String>>,
    #[serde(default)]
    target_only: bool,
    unless_detail: Option<toml::Spanned<String>>,
    declared_path: Option<RawDeclaredPath>,
    #[serde(default)]
    kinds: Vec<toml::Spanned<String>>,
    detail: Option<toml::Spanned<String>>,
    #[serde(default)]
    sensitive_detail: bool,
    description_matches: Option<toml::Spanned<String>>,
    description_not_matches: Option<toml::Spanned<String>>,
    #[serde(default)]
    host_declared: bool,
    #[serde(default)]
    unless_removed: bool,
    #[serde(default)]
    unless_kinds: Vec<toml::Spanned<String>>,
    #[serde(default)]
    classes: Vec<RawDetailClass>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDetailClass {
    detail: toml::Spanned<String>,
    what: String,
    declared: toml::Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeclaredPath {
    param: toml::Spanned<String>,
    description: toml::Spanned<String>,
    severity: toml::Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFixtures {
    #[serde(default)]
    fires: Vec<String>,
    #[serde(default)]
    clean: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_static_rules_load_with_docs_and_fixture_pairs() {
        let rules = load(STATIC_RULE_FILES).expect("rules load");
        assert_eq!(rules.len(), STATIC_RULE_FILES.len());
        for r in &rules {
            assert!(r.meta.id.starts_with("MCPS-S"), "{}", r.meta.id);
            assert!(!r.meta.docs.fix.is_empty());
            assert!(!r.fixtures.fires.is_empty() && !r.fixtures.clean.is_empty());
        }
        let threats: Vec<&str> = rules
            .iter()
            .map(|r| r.meta.taxonomy.threat.as_str())
            .collect();
        for t in [
            "DATA EXFILTRATION",
            "INJECTION ATTACKS",
            "UNAUTHORIZED OR UNSOLICITED CODE EXECUTION",
            "ARBITRARY RESOURCE READ/WRITE",
            "UNAUTHORIZED OR UNSOLICITED NETWORK ACCESS",
            "TEMPLATE INJECTION",
            "BACKDOOR",
            "GENERAL DESCRIPTION-CODE MISMATCH",
        ] {
            assert!(threats.contains(&t), "no rule for {t}");
        }
    }

    #[test]
    fn severities_follow_the_taxonomy_unless_the_docs_justify_the_change() {
        for r in load(STATIC_RULE_FILES).expect("rules load") {
            assert_ne!(
                r.meta.severity,
                mcp_scan_core::Severity::Critical,
                "{}: CRITICAL needs corroboration, static evidence alone never has it",
                r.meta.id
            );
            if r.meta.severity != r.meta.taxonomy.severity {
                let word = r.meta.severity.as_str().to_lowercase();
                assert!(
                    r.meta.docs.why.to_lowercase().contains(&word),
                    "{} deviates from the taxonomy severity ({} instead of {}) without saying why",
                    r.meta.id,
                    r.meta.severity,
                    r.meta.taxonomy.severity
                );
            }
        }
    }

    #[test]
    fn every_rule_file_in_the_directory_is_embedded() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/static");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("rules/static")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let embedded: Vec<String> = STATIC_RULE_FILES
            .iter()
            .map(|(n, _)| n.trim_start_matches("rules/static/").to_string())
            .collect();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn rule_with_unknown_sink_kind_fails_at_its_line() {
        let (name, text) = STATIC_RULE_FILES[1];
        let bad = text.replace("sinks = [\"command-exec\"]", "sinks = [\"telepathy\"]");
        let e = load(&[(name, &bad)]).expect_err("unknown kind");
        assert!(e.message.contains("telepathy"), "{e}");
        let line = bad
            .lines()
            .position(|l| l.contains("telepathy"))
            .map(|i| i + 1);
        assert_eq!(Some(e.line), line, "{e}");
    }

    #[test]
    fn rule_without_benign_twin_is_rejected() {
        let (name, text) = STATIC_RULE_FILES[0];
        let cut = text.find("clean =").expect("clean line");
        let bad = &text[..cut];
        let e = load(&[(name, bad)]).expect_err("no twin");
        assert!(e.message.contains("clean"), "{e}");
    }
}
