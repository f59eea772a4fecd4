//! Description rules: weighted cues over the text of tools, resources and prompts.
//!
//! A rule scores each window of a field (a sentence, a sentence and its neighbour, or the whole
//! field): the score is the sum of the weights of the distinct cues found in the window, and the
//! best window's score picks a severity from the rule's levels. A lone weak cue ("must", a quoted
//! identifier) stays below the first level; combinations of cues aimed at the model reach
//! MEDIUM/HIGH. Negative weights let a rule discount benign phrasing (e.g. a warning *not* to
//! follow instructions found in fetched content). All cues, weights and levels are data in
//! `rules/description/*.toml`.

use crate::meta::{RawRuleMeta, RuleError, RuleMeta, SourceFile};
use mcp_scan_core::{Analyzer, Severity};
use regex::{Regex, RegexBuilder, RegexSet, RegexSetBuilder};
use serde::Deserialize;
use std::sync::OnceLock;

/// The built-in rule files, embedded at build time. A test checks that every file in
/// `rules/description/` is listed here.
pub const BUILTIN_FILES: &[(&str, &str)] = &[
    (
        "rules/description/D001-hidden-instruction-block.toml",
        include_str!("../../../rules/description/D001-hidden-instruction-block.toml"),
    ),
    (
        "rules/description/D002-conceal-from-user.toml",
        include_str!("../../../rules/description/D002-conceal-from-user.toml"),
    ),
    (
        "rules/description/D003-cross-tool-directive.toml",
        include_str!("../../../rules/description/D003-cross-tool-directive.toml"),
    ),
    (
        "rules/description/D004-argument-tampering.toml",
        include_str!("../../../rules/description/D004-argument-tampering.toml"),
    ),
    (
        "rules/description/D005-secret-access.toml",
        include_str!("../../../rules/description/D005-secret-access.toml"),
    ),
    (
        "rules/description/D006-exfiltration-destination.toml",
        include_str!("../../../rules/description/D006-exfiltration-destination.toml"),
    ),
    (
        "rules/description/D007-hidden-unicode.toml",
        include_str!("../../../rules/description/D007-hidden-unicode.toml"),
    ),
    (
        "rules/description/D008-ansi-escape.toml",
        include_str!("../../../rules/description/D008-ansi-escape.toml"),
    ),
    (
        "rules/description/D009-encoded-blob.toml",
        include_str!("../../../rules/description/D009-encoded-blob.toml"),
    ),
    (
        "rules/description/D010-tool-name-squatting.toml",
        include_str!("../../../rules/description/D010-tool-name-squatting.toml"),
    ),
    (
        "rules/description/D011-instruction-override.toml",
        include_str!("../../../rules/description/D011-instruction-override.toml"),
    ),
    (
        "rules/description/D012-spoofed-authority.toml",
        include_str!("../../../rules/description/D012-spoofed-authority.toml"),
    ),
    (
        "rules/description/D013-preference-manipulation.toml",
        include_str!("../../../rules/description/D013-preference-manipulation.toml"),
    ),
    (
        "rules/description/D014-context-harvesting.toml",
        include_str!("../../../rules/description/D014-context-harvesting.toml"),
    ),
    (
        "rules/description/D024-remote-script-order.toml",
        include_str!("../../../rules/description/D024-remote-script-order.toml"),
    ),
    (
        "rules/description/D020-response-injection.toml",
        include_str!("../../../rules/description/D020-response-injection.toml"),
    ),
    (
        "rules/description/D021-model-directed-order.toml",
        include_str!("../../../rules/description/D021-model-directed-order.toml"),
    ),
    (
        "rules/description/D022-prompt-format-markup.toml",
        include_str!("../../../rules/description/D022-prompt-format-markup.toml"),
    ),
    (
        "rules/description/D023-hidden-code-payload.toml",
        include_str!("../../../rules/description/D023-hidden-code-payload.toml"),
    ),
];

/// Which texts of an entity a rule reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldClass {
    /// Identifiers: entity names, property and argument names.
    Name,
    /// Prose: descriptions, titles, server instructions, every string value in `inputSchema`
    /// (property descriptions, defaults, enum values, examples), prompt argument descriptions.
    Text,
    /// What a tool or resource returned when called (`mcp-scan dynamic`): data the model reads,
    /// where naming files or tools is ordinary, so only rules written for answers read it.
    Response,
}

/// The span of text a rule's cues must share.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Window {
    /// One sentence (or line).
    Sentence,
    /// A sentence together with the next one.
    Adjacent,
    /// The whole field.
    Field,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    rule: toml::Spanned<RawRuleMeta>,
    #[serde(rename = "match")]
    matcher: RawMatch,
    fixtures: RawFixtures,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatch {
    fields: Vec<FieldClass>,
    window: Window,
    title: toml::Spanned<String>,
    observation: toml::Spanned<String>,
    #[serde(default)]
    requires_any: Vec<toml::Spanned<String>>,
    #[serde(rename = "level")]
    levels: Vec<toml::Spanned<RawLevel>>,
    #[serde(rename = "cue")]
    cues: Vec<toml::Spanned<RawCue>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLevel {
    score: i32,
    severity: Severity,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCue {
    id: String,
    label: String,
    weight: i32,
    #[serde(default)]
    sibling_weight: Option<i32>,
    #[serde(default)]
    not_in_instructions: bool,
    #[serde(default)]
    only_in_readings: bool,
    #[serde(default)]
    builtin: Option<Builtin>,
    #[serde(default)]
    patterns: Vec<toml::Spanned<String>>,
}

/// Cues found by the analyzer's own reading of the text's structure instead of by patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Builtin {
    /// A sentence after the first that opens with a verb in its bare form followed by its object
    /// ("Multiply each figure …", "Also cc every message …"): an order, whatever the verb. The
    /// first sentence of a field is its summary and is often imperative ("Read a file"), so it
    /// does not count, except in a hidden reading, which has no summary.
    ImperativeClause,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFixtures {
    fire: toml::Spanned<String>,
    benign: toml::Spanned<String>,
}

/// One cue: a few patterns that mean the same thing, and how much they weigh.
#[derive(Debug, Clone)]
pub struct Cue {
    pub id: String,
    /// Human words for the observation ("addresses another tool by name").
    pub label: String,
    pub weight: i32,
    /// Weight instead of `weight` when every match in the window names a tool of the same
    /// manifest: a workflow hint between a server's own tools is not shadowing.
    pub sibling_weight: Option<i32>,
    /// The cue does not count in a server's `instructions`, which address the model by design
    /// ("server instructions to the LLM" is their purpose, not a disguise).
    pub not_in_instructions: bool,
    /// The cue counts only in a hidden reading of a field (decoded base64, hex or escapes, tag
    /// text): code in a description is documentation, code hidden behind an encoding is a
    /// payload.
    pub only_in_readings: bool,
    /// Also (or only, without patterns) found by the analyzer's reading of the text's structure.
    pub builtin: Option<Builtin>,
    pub patterns: Vec<Pattern>,
}

/// One cue pattern, compiled on first use. The rule's [`RegexSet`] (compiled at load, from the
/// same source under the same limits) says whether it occurs at all; only then is it compiled
/// on its own to find where. Most patterns never occur in a scan, and compiling all of them at
/// start was half of the start-up time of `mcp-scan manifest`.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    fn new(source: String) -> Self {
        Pattern {
            source,
            compiled: OnceLock::new(),
        }
    }

    /// The pattern as compiled (after the ASCII word-boundary rewrite).
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The compiled pattern; `None` only if it no longer compiles alone, which cannot happen
    /// once its rule's set compiled (same source, same size limit).
    pub fn regex(&self) -> Option<&Regex> {
        self.compiled
            .get_or_init(|| compile_pattern(&self.source).ok())
            .as_ref()
    }
}

fn compile_pattern(source: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(source)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_CACHE_LIMIT)
        .build()
}

/// One compiled description rule.
#[derive(Debug, Clone)]
pub struct DescriptionRule {
    pub meta: RuleMeta,
    pub fields: Vec<FieldClass>,
    pub window: Window,
    pub title: String,
    /// Start of the observation sentence, e.g. "tells the model to act on other tools".
    pub observation: String,
    /// Indices into `cues`: a window scores only if one of these is present (empty: no need).
    pub requires_any: Vec<usize>,
    /// Ascending score thresholds with the severity each reaches (capped by `meta.severity`).
    pub levels: Vec<(i32, Severity)>,
    pub cues: Vec<Cue>,
    /// Fixture files (paths relative to the repository root): must fire / benign twin.
    pub fixture_fire: String,
    pub fixture_benign: String,
}

impl DescriptionRule {
    pub fn applies_to(&self, class: FieldClass) -> bool {
        self.fields.contains(&class)
    }

    /// The severity a window score reaches, if any.
    pub fn severity_for(&self, score: i32) -> Option<Severity> {
        self.levels
            .iter()
            .rev()
            .find(|(min, _)| score >= *min)
            .map(|(_, s)| (*s).min(self.meta.severity))
    }
}

/// Where one pattern of a rule's set comes from.
#[derive(Debug, Clone, Copy)]
pub struct PatternRef {
    pub cue: usize,
    pub pattern: usize,
}

/// All description rules, each with one [`RegexSet`] over its patterns so that a text is
/// scanned once per rule to learn which cues occur at all. (One set over every rule is faster
/// on clean text but several times slower on text that matches many cues.)
#[derive(Debug)]
pub struct DescriptionRules {
    pub rules: Vec<DescriptionRule>,
    /// Per rule: its pattern set and what each set index refers to.
    pub sets: Vec<(RegexSet, Vec<PatternRef>)>,
    /// Per rule with `requires_any`: what must occur for the rule to fire at all.
    pub prefilters: Vec<Option<Prefilter>>,
}

/// The required cues of a rule, checked before its whole pattern set. A window scores only if
/// one of them is present, so a field where none occurs cannot fire the rule; and the small
/// set of the required patterns costs far less to run than the rule's full set, whose lazy DFA
/// otherwise determinizes fresh states on nearly every new text (most of a scan's time).
#[derive(Debug, Clone)]
pub struct Prefilter {
    /// The patterns of the required cues (`None`: they have none, only a builtin).
    pub set: Option<RegexSet>,
    /// A required cue is also found by the analyzer's builtin reading.
    pub builtin: Option<Builtin>,
}

const REGEX_SIZE_LIMIT: usize = 64 << 20;
/// Capacity of each lazy DFA's cache of states. With the default (2 MiB) the pattern sets of
/// the larger rules refill their caches over and over on a big manifest: a third of the scan
/// went into rebuilding states. The cache grows only as states are built.
const DFA_CACHE_LIMIT: usize = 32 << 20;

impl DescriptionRules {
    /// Compiles rule files given as (name, text) pairs.
    pub fn compile(files: &[(&str, &str)]) -> Result<Self, RuleError> {
        let mut rules: Vec<DescriptionRule> = Vec::new();
        let mut sets = Vec::new();
        let mut prefilters = Vec::new();
        for (name, text) in files {
            let src = SourceFile::new(name, text);
            let (rule, set) = compile_file(&src)?;
            if let Some(prev) = rules.iter().find(|r| r.meta.id == rule.meta.id) {
                return Err(src.error(
                    0..0,
                    format!(
                        "duplicate rule id {} (also in {})",
                        rule.meta.id, prev.meta.origin
                    ),
                ));
            }
            prefilters.push(prefilter(&src, &rule)?);
            sets.push(set);
            rules.push(rule);
        }
        Ok(DescriptionRules {
            rules,
            sets,
            prefilters,
        })
    }

    /// The embedded rules of `rules/description/`, compiled once.
    pub fn builtin() -> Result<&'static DescriptionRules, RuleError> {
        static RULES: OnceLock<Result<DescriptionRules, RuleError>> = OnceLock::new();
        RULES
            .get_or_init(|| DescriptionRules::compile(BUILTIN_FILES))
            .as_ref()
            .map_err(Clone::clone)
    }

    pub fn get(&self, id: &str) -> Option<&DescriptionRule> {
        self.rules
            .iter()
            .find(|r| r.meta.id.eq_ignore_ascii_case(id))
    }
}

fn compile_file(
    src: &SourceFile<'_>,
) -> Result<(DescriptionRule, (RegexSet, Vec<PatternRef>)), RuleError> {
    let raw: RawFile = src.parse()?;
    let meta = raw
        .rule
        .get_ref()
        .compile(src, raw.rule.span(), Analyzer::Description, "MCPS-D")?;
    let m = raw.matcher;
    if m.fields.is_empty() {
        return Err(src.error(
            raw.rule.span(),
            "match.fields must name at least one field class",
        ));
    }
    for s in [&m.title, &m.observation] {
        if s.get_ref().trim().is_empty() {
            return Err(src.error(
                s.span(),
                "match.title and match.observation must not be empty",
            ));
        }
    }
    let mut cues: Vec<Cue> = Vec::new();
    for c in &m.cues {
        let raw_cue = c.get_ref();
        if cues.iter().any(|x| x.id == raw_cue.id) {
            return Err(src.error(c.span(), format!("duplicate cue id `{}`", raw_cue.id)));
        }
        if raw_cue.weight == 0
            || (raw_cue.patterns.is_empty() && raw_cue.builtin.is_none())
            || raw_cue.label.trim().is_empty()
        {
            return Err(src.error(
                c.span(),
                format!(
                    "cue `{}` needs a non-zero weight, a label and either patterns or a builtin",
                    raw_cue.id
                ),
            ));
        }
        let patterns = raw_cue
            .patterns
            .iter()
            .map(|p| Pattern::new(ascii_word_boundaries(p.get_ref())))
            .collect();
        cues.push(Cue {
            id: raw_cue.id.clone(),
            label: raw_cue.label.trim().to_string(),
            weight: raw_cue.weight,
            sibling_weight: raw_cue.sibling_weight,
            not_in_instructions: raw_cue.not_in_instructions,
            only_in_readings: raw_cue.only_in_readings,
            builtin: raw_cue.builtin,
            patterns,
        });
    }
    if cues.is_empty() {
        return Err(src.error(
            raw.rule.span(),
            "a description rule needs at least one [[match.cue]]",
        ));
    }
    let set = pattern_set(src, &m.cues, &cues)?;
    let mut requires_any = Vec::new();
    for r in &m.requires_any {
        let i = cues
            .iter()
            .position(|c| &c.id == r.get_ref())
            .ok_or_else(|| {
                src.error(
                    r.span(),
                    format!("requires_any names unknown cue `{}`", r.get_ref()),
                )
            })?;
        requires_any.push(i);
    }
    let mut levels: Vec<(i32, Severity)> = Vec::new();
    for l in &m.levels {
        let lv = l.get_ref();
        if let Some((prev_score, prev_sev)) = levels.last()
            && (lv.score <= *prev_score || lv.severity <= *prev_sev)
        {
            return Err(src.error(
                l.span(),
                "levels must rise in both score and severity, lowest first",
            ));
        }
        if lv.score <= 0 {
            return Err(src.error(l.span(), "level scores must be positive"));
        }
        levels.push((lv.score, lv.severity));
    }
    if levels.is_empty() {
        return Err(src.error(
            raw.rule.span(),
            "a description rule needs at least one [[match.level]]",
        ));
    }
    let rule = DescriptionRule {
        meta,
        fields: m.fields,
        window: m.window,
        title: m.title.get_ref().trim().to_string(),
        observation: m.observation.get_ref().trim().to_string(),
        requires_any,
        levels,
        cues,
        fixture_fire: raw.fixtures.fire.get_ref().clone(),
        fixture_benign: raw.fixtures.benign.get_ref().clone(),
    };
    Ok((rule, set))
}

/// The prefilter of a rule with required cues (see [`Prefilter`]).
fn prefilter(src: &SourceFile<'_>, rule: &DescriptionRule) -> Result<Option<Prefilter>, RuleError> {
    if rule.requires_any.is_empty() {
        return Ok(None);
    }
    let required = || rule.requires_any.iter().map(|&c| &rule.cues[c]);
    let sources: Vec<&str> = required()
        .flat_map(|c| c.patterns.iter().map(Pattern::as_str))
        .collect();
    let set = if sources.is_empty() {
        None
    } else {
        let set = RegexSetBuilder::new(&sources)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(DFA_CACHE_LIMIT)
            .build()
            .map_err(|e| src.error(0..0, format!("the required cues do not compile: {e}")))?;
        Some(set)
    };
    Ok(Some(Prefilter {
        set,
        builtin: required().find_map(|c| c.builtin),
    }))
}

/// The rule's patterns as one set, and what each set index refers to. A pattern that does not
/// compile is reported at its own line: the set fails first, then each pattern is compiled
/// alone to find it (the error path only; patterns compile alone lazily, see [`Pattern`]).
fn pattern_set(
    src: &SourceFile<'_>,
    raw: &[toml::Spanned<RawCue>],
    cues: &[Cue],
) -> Result<(RegexSet, Vec<PatternRef>), RuleError> {
    let mut sources = Vec::new();
    let mut index = Vec::new();
    for (ci, cue) in cues.iter().enumerate() {
        for (pi, p) in cue.patterns.iter().enumerate() {
            sources.push(p.as_str());
            index.push(PatternRef {
                cue: ci,
                pattern: pi,
            });
        }
    }
    match RegexSetBuilder::new(&sources)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_CACHE_LIMIT)
        .build()
    {
        Ok(set) => Ok((set, index)),
        Err(set_error) => {
            for (rc, cue) in raw.iter().zip(cues) {
                for (span, p) in rc.get_ref().patterns.iter().zip(&cue.patterns) {
                    if let Err(e) = compile_pattern(p.as_str()) {
                        return Err(src.error(span.span(), format!("bad pattern: {e}")));
                    }
                }
            }
            Err(src.error(
                0..0,
                format!("the rule's patterns do not compile together: {set_error}"),
            ))
        }
    }
}

/// Rewrites `\b` as `(?-u:\b)`. A Unicode word boundary stops the lazy DFA at the first
/// non-ASCII byte and the whole pattern set falls back to a far slower engine; descriptions
/// are mostly ASCII prose, and an ASCII boundary is what the rules mean.
fn ascii_word_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b') => out.push_str("(?-u:\\b)"),
            Some(n) => {
                out.push('\\');
                out.push(n);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_rule_compiles_with_docs_and_fixtures() {
        let rules = DescriptionRules::builtin().expect("built-in rules compile");
        assert!(!rules.rules.is_empty());
        for r in &rules.rules {
            // Patterns compile lazily; each must still compile alone.
            for c in &r.cues {
                for p in &c.patterns {
                    assert!(
                        p.regex().is_some(),
                        "{} {}: {}",
                        r.meta.id,
                        c.id,
                        p.as_str()
                    );
                }
            }
            assert!(r.meta.id.starts_with("MCPS-D"), "{}", r.meta.id);
            assert!(
                r.fixture_fire.starts_with("fixtures/description/"),
                "{}",
                r.meta.id
            );
            assert!(
                r.fixture_benign.starts_with("fixtures/description/"),
                "{}",
                r.meta.id
            );
            assert_ne!(r.fixture_fire, r.fixture_benign, "{}", r.meta.id);
        }
    }

    #[test]
    fn every_file_in_rules_description_is_embedded() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/description");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("rules/description exists")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .map(|n| format!("rules/description/{n}"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = BUILTIN_FILES.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(on_disk, embedded, "list new rule files in BUILTIN_FILES");
    }

    const MINIMAL: &str = r#"
[rule]
id = "MCPS-D900"
name = "test-rule"
threat = "TOOL POISONING"
severity = "medium"
[rule.docs]
what = "w"
why = "y"
example = "e"
fix = "f"

[match]
fields = ["text"]
window = "sentence"
title = "t"
observation = "o"

[[match.level]]
score = 2
severity = "low"

[[match.level]]
score = 4
severity = "high"

[[match.cue]]
id = "a"
label = "says a"
weight = 2
patterns = ['\ba\b']

[fixtures]
fire = "fixtures/description/x.fire.json"
benign = "fixtures/description/x.benign.json"
"#;

    #[test]
    fn word_boundaries_become_ascii_and_other_escapes_stay() {
        assert_eq!(ascii_word_boundaries(r"\bab\\b\B\d"), r"(?-u:\b)ab\\b\B\d");
        let re = Regex::new(&ascii_word_boundaries(r"(?i)\bsend\b")).expect("compiles");
        assert!(re.is_match("please SEND it \u{2019}now"));
        assert!(!re.is_match("resend"));
    }

    #[test]
    fn levels_are_capped_by_the_rule_severity() {
        let rules = DescriptionRules::compile(&[("t.toml", MINIMAL)]).expect("compiles");
        let r = &rules.rules[0];
        assert_eq!(r.severity_for(1), None);
        assert_eq!(r.severity_for(2), Some(Severity::Low));
        assert_eq!(
            r.severity_for(9),
            Some(Severity::Medium),
            "capped at rule severity"
        );
    }

    #[test]
    fn bad_pattern_is_reported_with_file_line_and_column() {
        let text = MINIMAL.replace(r"'\ba\b'", "'(unclosed'");
        let e = DescriptionRules::compile(&[("rules/description/t.toml", &text)])
            .expect_err("bad regex");
        assert_eq!(e.file, "rules/description/t.toml");
        let line = text
            .lines()
            .position(|l| l.contains("(unclosed"))
            .map(|i| i + 1);
        assert_eq!(Some(e.line), line, "{e}");
        assert!(e.message.contains("bad pattern"), "{e}");
    }

    #[test]
    fn unknown_required_cue_and_falling_levels_are_rejected() {
        let text = MINIMAL.replace(
            "observation = \"o\"",
            "observation = \"o\"\nrequires_any = [\"zzz\"]",
        );
        let e = DescriptionRules::compile(&[("t.toml", &text)]).expect_err("unknown cue");
        assert!(e.message.contains("zzz"), "{e}");
        let text = MINIMAL.replace("score = 4", "score = 1");
        let e = DescriptionRules::compile(&[("t.toml", &text)]).expect_err("falling levels");
        assert!(e.message.contains("levels must rise"), "{e}");
    }

    #[test]
    fn prefilter_holds_only_the_required_cues_patterns() {
        let rules = DescriptionRules::compile(&[("t.toml", MINIMAL)]).expect("compiles");
        assert!(
            rules.prefilters[0].is_none(),
            "no requires_any, no prefilter"
        );
        let text = MINIMAL
            .replace(
                "observation = \"o\"",
                "observation = \"o\"\nrequires_any = [\"b\"]",
            )
            .replace(
                "[fixtures]",
                "[[match.cue]]\nid = \"b\"\nlabel = \"says b\"\nweight = 1\npatterns = ['\\bb\\b']\n\n[fixtures]",
            );
        let rules = DescriptionRules::compile(&[("t.toml", &text)]).expect("compiles");
        let pre = rules.prefilters[0]
            .as_ref()
            .expect("requires_any has a prefilter");
        let set = pre.set.as_ref().expect("the required cue has patterns");
        assert!(set.is_match("then b"));
        assert!(!set.is_match("only a here"), "a is not required");
        assert_eq!(pre.builtin, None);
    }

    #[test]
    fn duplicate_rule_ids_are_rejected() {
        let e = DescriptionRules::compile(&[("a.toml", MINIMAL), ("b.toml", MINIMAL)])
            .expect_err("duplicate");
        assert!(e.message.contains("duplicate rule id MCPS-D900"), "{e}");
        assert_eq!(e.file, "b.toml");
    }
}
