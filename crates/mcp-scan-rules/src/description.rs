//! Description rules: weighted cues over the text of tools, resources and prompts.
//!
//! A rule scores each window of a field (a sentence, a sentence and its neighbour, or the whole
//! field): the score is the sum of the weights of the distinct cues found in the window, and the
//! best window's score picks a severity from the rule's levels. A lone weak cue ("must", a quoted
//! identifier) stays below the first level; combinations of cues aimed at the model reach
//! MEDIUM/HIGH. Negative weights let a rule discount benign phrasing (e.g. a warning *not* to
//! follow instructions found in fetched content). All cues, weights and levels are data in
//! `rules/description/*.toml`.

use crate::literals::{Conjunction, Screen, required_literals};
use crate::meta::{RawRuleMeta, RuleError, RuleMeta, SourceFile};
use mcp_scan_core::{Analyzer, Severity};
use regex::{Regex, RegexBuilder};
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
        "rules/description/D027-declared-exfiltration.toml",
        include_str!("../../../rules/description/D027-declared-exfiltration.toml"),
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
    lone_weight: Option<i32>,
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
    /// Weight instead of `weight` on a tool that is the only tool of its manifest: "before any
    /// other tool" can then only mean another server's tools, not a step of its own workflow.
    pub lone_weight: Option<i32>,
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

/// One cue pattern, compiled on first use: only when the [`Screen`] says a text may contain
/// it. Most patterns never occur in a scan, and compiling every rule's patterns at start was
/// most of the start-up time.
#[derive(Debug, Clone)]
pub struct Pattern {
    source: String,
    /// Index among every pattern of every rule (rule by rule, cue by cue), as in the screen.
    id: usize,
    compiled: OnceLock<Option<Regex>>,
}

impl Pattern {
    fn new(source: String) -> Self {
        Pattern {
            source,
            id: 0,
            compiled: OnceLock::new(),
        }
    }

    /// The pattern as compiled (after the ASCII word-boundary rewrite).
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The pattern's index in [`DescriptionRules::screen`].
    pub fn id(&self) -> usize {
        self.id
    }

    /// The compiled pattern; `None` only if it parses but exceeds the size limit, which the
    /// built-in rules' test rules out.
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

/// All description rules, and one literal screen over every pattern of every rule.
///
/// A text is read once by the screen (an Aho-Corasick automaton over the literals each pattern
/// needs); then only the patterns it admits run, each on its own. Rule-wide pattern sets were
/// tried before: their lazy DFAs determinized fresh states on nearly every new text (most of a
/// scan's time) and compiling them was most of the start-up.
#[derive(Debug)]
pub struct DescriptionRules {
    pub rules: Vec<DescriptionRule>,
    /// Which patterns (by [`Pattern::id`]) may occur in a text.
    pub screen: Screen,
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
        let mut literals = Vec::new();
        for (name, text) in files {
            let src = SourceFile::new(name, text);
            let (mut rule, lits) = compile_file(&src)?;
            if let Some(prev) = rules.iter().find(|r| r.meta.id == rule.meta.id) {
                return Err(src.error(
                    0..0,
                    format!(
                        "duplicate rule id {} (also in {})",
                        rule.meta.id, prev.meta.origin
                    ),
                ));
            }
            for p in rule.cues.iter_mut().flat_map(|c| c.patterns.iter_mut()) {
                p.id += literals.len();
            }
            literals.extend(lits);
            rules.push(rule);
        }
        let screen = Screen::new(&literals).map_err(|e| RuleError {
            file: "rules/description".into(),
            line: 0,
            column: 0,
            message: format!("the literal screen does not build: {e}"),
        })?;
        Ok(DescriptionRules { rules, screen })
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

/// One rule file, with the literal set of each of its patterns in order (each pattern's `id`
/// is its index in the file; [`DescriptionRules::compile`] offsets it).
fn compile_file(
    src: &SourceFile<'_>,
) -> Result<(DescriptionRule, Vec<Option<Conjunction>>), RuleError> {
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
    let mut literals = Vec::new();
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
        let mut patterns = Vec::new();
        for p in &raw_cue.patterns {
            let mut pattern = Pattern::new(ascii_word_boundaries(p.get_ref()));
            // Parsed now for its literals and its errors, compiled when first needed.
            let hir = regex_syntax::ParserBuilder::new()
                .build()
                .parse(pattern.as_str())
                .map_err(|e| src.error(p.span(), format!("bad pattern: {e}")))?;
            pattern.id = literals.len();
            literals.push(required_literals(&hir));
            patterns.push(pattern);
        }
        cues.push(Cue {
            id: raw_cue.id.clone(),
            label: raw_cue.label.trim().to_string(),
            weight: raw_cue.weight,
            sibling_weight: raw_cue.sibling_weight,
            lone_weight: raw_cue.lone_weight,
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
    Ok((rule, literals))
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
    fn pattern_ids_run_across_files_and_the_screen_admits_by_them() {
        let second = MINIMAL
            .replace("MCPS-D900", "MCPS-D901")
            .replace(r"'\ba\b'", r"'(?i)\bsecond\s+thing\b', '[A-Z][a-z]+'");
        let rules = DescriptionRules::compile(&[("a.toml", MINIMAL), ("b.toml", &second)])
            .expect("compiles");
        let ids: Vec<usize> = rules
            .rules
            .iter()
            .flat_map(|r| {
                r.cues
                    .iter()
                    .flat_map(|c| c.patterns.iter().map(Pattern::id))
            })
            .collect();
        assert_eq!(ids, [0, 1, 2]);
        let c = rules.screen.candidates("a SECOND thing");
        assert!(c.contains(0) && c.contains(1));
        assert!(c.contains(2), "a pattern without literals always runs");
        let c = rules.screen.candidates("nothing here");
        assert!(!c.contains(0) && !c.contains(1) && c.contains(2));
    }

    #[test]
    fn duplicate_rule_ids_are_rejected() {
        let e = DescriptionRules::compile(&[("a.toml", MINIMAL), ("b.toml", MINIMAL)])
            .expect_err("duplicate");
        assert!(e.message.contains("duplicate rule id MCPS-D900"), "{e}");
        assert_eq!(e.file, "b.toml");
    }
}
