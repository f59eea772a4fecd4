//! Metadata and docs every rule carries, whatever analyzer applies it.
//!
//! A rule file holds a `[rule]` table:
//!
//! ```toml
//! [rule]
//! id = "MCPS-D001"
//! name = "hidden-instruction-block"
//! threat = "TOOL POISONING"        # a `threat` of rules/taxonomy.toml
//! severity = "high"
//! confidence = "medium"            # optional, default medium
//! [rule.docs]
//! what = "…"
//! why = "…"
//! example = "…"
//! fix = "…"
//! false_positives = "…"            # optional: when it fires on fine behaviour
//! ```
//!
//! Deserialize it as `toml::Spanned<RawRuleMeta>` (so errors can name its line) and call
//! [`RawRuleMeta::compile`].

use mcp_scan_core::taxonomy::{TaxonomyEntry, by_threat};
use mcp_scan_core::{Analyzer, Confidence, Severity};
use serde::Deserialize;
use std::fmt;
use std::ops::Range;

/// Documentation every rule must have; printed by `mcp-scan rule <ID>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleDocs {
    /// What the rule detects, in one or two sentences.
    pub what: String,
    /// Why it matters: the attack it points at.
    pub why: String,
    /// A short text (or code) that fires the rule.
    pub example: String,
    /// What a server author (or user) should do about it.
    pub fix: String,
    /// When the rule fires on behaviour that is fine, and how to tell (optional).
    pub false_positives: Option<String>,
}

/// Where a rule was defined: file as embedded (e.g. `rules/description/D001.toml`) and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleOrigin {
    pub file: String,
    pub line: usize,
}

impl fmt::Display for RuleOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Compiled, validated metadata of one rule.
#[derive(Debug, Clone)]
pub struct RuleMeta {
    /// `MCPS-D001`, `MCPS-S001`, …
    pub id: String,
    /// Kebab-case slug, e.g. `hidden-instruction-block`.
    pub name: String,
    /// The analyzer that applies the rule.
    pub analyzer: Analyzer,
    pub taxonomy: &'static TaxonomyEntry,
    /// The severity of a full match (a rule may report less for weaker evidence).
    pub severity: Severity,
    pub confidence: Confidence,
    pub docs: RuleDocs,
    pub origin: RuleOrigin,
}

impl RuleMeta {
    /// The rule's docs as `mcp-scan rule <ID>` prints them.
    pub fn render_docs(&self) -> String {
        format!(
            "{id}  {name}\n\
             analyzer:   {analyzer}\n\
             severity:   {sev} (confidence {conf})\n\
             taxonomy:   {tech} {tname} / {sub} {sname}\n\
             threat:     {threat}\n\
             defined in: {origin}\n\
             \n\
             What it detects\n{what}\n\
             \n\
             Why it matters\n{why}\n\
             \n\
             Example\n{example}\n\
             {false_positives}\
             \n\
             How to fix\n{fix}\n",
            id = self.id,
            name = self.name,
            analyzer = self.analyzer,
            sev = self.severity,
            conf = self.confidence,
            tech = self.taxonomy.technique,
            tname = self.taxonomy.technique_name,
            sub = self.taxonomy.subtechnique,
            sname = self.taxonomy.subtechnique_name,
            threat = self.taxonomy.threat,
            origin = self.origin,
            what = indent(&self.docs.what),
            why = indent(&self.docs.why),
            example = indent(&self.docs.example),
            fix = indent(&self.docs.fix),
            false_positives = self
                .docs
                .false_positives
                .as_deref()
                .map(|f| format!("\nFalse positives\n{}\n", indent(f)))
                .unwrap_or_default(),
        )
    }
}

fn indent(s: &str) -> String {
    s.trim_end()
        .lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("  {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `[rule.docs]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRuleDocs {
    pub what: toml::Spanned<String>,
    pub why: toml::Spanned<String>,
    pub example: toml::Spanned<String>,
    pub fix: toml::Spanned<String>,
    #[serde(default)]
    pub false_positives: Option<toml::Spanned<String>>,
}

/// The `[rule]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRuleMeta {
    pub id: toml::Spanned<String>,
    pub name: toml::Spanned<String>,
    pub threat: toml::Spanned<String>,
    pub severity: toml::Spanned<Severity>,
    #[serde(default)]
    pub confidence: Option<toml::Spanned<Confidence>>,
    pub docs: RawRuleDocs,
}

impl RawRuleMeta {
    /// Validates the table: id `<id_prefix>NNN`, kebab-case name, a known taxonomy threat and
    /// non-empty docs. `span` is the span of the `[rule]` table (from `toml::Spanned`).
    pub fn compile(
        &self,
        src: &SourceFile<'_>,
        span: Range<usize>,
        analyzer: Analyzer,
        id_prefix: &str,
    ) -> Result<RuleMeta, RuleError> {
        let id = self.id.get_ref();
        let digits = id.strip_prefix(id_prefix).unwrap_or("");
        if digits.len() != 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(src.error(
                self.id.span(),
                format!("rule id `{id}` must look like `{id_prefix}001`"),
            ));
        }
        let name = self.name.get_ref();
        let kebab = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && !name.starts_with('-')
            && !name.ends_with('-');
        if !kebab {
            return Err(src.error(
                self.name.span(),
                format!("rule name `{name}` must be kebab-case (a-z, 0-9, -)"),
            ));
        }
        let threat = self.threat.get_ref();
        let taxonomy = by_threat(threat).ok_or_else(|| {
            src.error(
                self.threat.span(),
                format!("unknown threat `{threat}` (see rules/taxonomy.toml)"),
            )
        })?;
        let d = &self.docs;
        for (field, value) in [
            ("what", &d.what),
            ("why", &d.why),
            ("example", &d.example),
            ("fix", &d.fix),
        ] {
            if value.get_ref().trim().is_empty() {
                return Err(src.error(value.span(), format!("docs.{field} must not be empty")));
            }
        }
        Ok(RuleMeta {
            id: id.clone(),
            name: name.clone(),
            analyzer,
            taxonomy,
            severity: *self.severity.get_ref(),
            confidence: self
                .confidence
                .as_ref()
                .map_or(Confidence::Medium, |c| *c.get_ref()),
            docs: RuleDocs {
                what: d.what.get_ref().trim().to_string(),
                why: d.why.get_ref().trim().to_string(),
                example: d.example.get_ref().trim().to_string(),
                fix: d.fix.get_ref().trim().to_string(),
                false_positives: d
                    .false_positives
                    .as_ref()
                    .map(|f| f.get_ref().trim().to_string())
                    .filter(|f| !f.is_empty()),
            },
            origin: RuleOrigin {
                file: src.name.to_string(),
                line: src.line_col(span.start).0,
            },
        })
    }
}

/// A rule file's name and text, for turning byte offsets into `file:line:column` errors.
#[derive(Debug, Clone, Copy)]
pub struct SourceFile<'a> {
    pub name: &'a str,
    pub text: &'a str,
}

impl<'a> SourceFile<'a> {
    pub fn new(name: &'a str, text: &'a str) -> Self {
        SourceFile { name, text }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, byte: usize) -> (usize, usize) {
        let byte = byte.min(self.text.len());
        let before = self.text.get(..byte).unwrap_or(self.text);
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }

    pub fn error(&self, span: Range<usize>, message: impl Into<String>) -> RuleError {
        let (line, column) = self.line_col(span.start);
        RuleError {
            file: self.name.to_string(),
            line,
            column,
            message: message.into(),
        }
    }

    /// Parses the file, turning a TOML error into a positioned [`RuleError`].
    pub fn parse<T: serde::de::DeserializeOwned>(&self) -> Result<T, RuleError> {
        toml::from_str(self.text).map_err(|e| {
            let span = e.span().unwrap_or(0..0);
            self.error(span, e.message().trim().to_string())
        })
    }
}

/// A rule file that does not load, with the place it is about.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}:{column}: {message}")]
pub struct RuleError {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct File {
        rule: toml::Spanned<RawRuleMeta>,
    }

    const GOOD: &str = r#"
[rule]
id = "MCPS-S001"
name = "shell-from-param"
threat = "INJECTION ATTACKS"
severity = "high"
[rule.docs]
what = "w"
why = "y"
example = "e"
fix = "f"
"#;

    fn compile(text: &str) -> Result<RuleMeta, RuleError> {
        let src = SourceFile::new("rules/static/x.toml", text);
        let f: File = src.parse()?;
        f.rule
            .get_ref()
            .compile(&src, f.rule.span(), Analyzer::Static, "MCPS-S")
    }

    #[test]
    fn valid_rule_table_compiles_with_taxonomy_and_origin() {
        let m = compile(GOOD).expect("compiles");
        assert_eq!(m.id, "MCPS-S001");
        assert_eq!(m.taxonomy.subtechnique, "AISubtech-9.1.4");
        assert_eq!(m.confidence, Confidence::Medium);
        assert_eq!(m.origin.to_string(), "rules/static/x.toml:2");
        let docs = m.render_docs();
        assert!(docs.contains("How to fix\n  f"), "{docs}");
    }

    #[test]
    fn unknown_threat_is_reported_at_its_line_and_column() {
        let text = GOOD.replace("INJECTION ATTACKS", "SPOOKY THINGS");
        let e = compile(&text).expect_err("must fail");
        assert_eq!((e.line, e.column), (5, 10), "{e}");
        assert!(
            e.to_string()
                .starts_with("rules/static/x.toml:5:10: unknown threat")
        );
    }

    #[test]
    fn empty_docs_and_bad_ids_are_rejected() {
        let e = compile(&GOOD.replace("fix = \"f\"", "fix = \"  \"")).expect_err("empty fix");
        assert!(e.message.contains("docs.fix"), "{e}");
        let e = compile(&GOOD.replace("MCPS-S001", "MCPS-D001")).expect_err("wrong family");
        assert!(e.message.contains("MCPS-S001"), "{e}");
        let e = compile(&GOOD.replace("shell-from-param", "Shell_From")).expect_err("not kebab");
        assert!(e.message.contains("kebab"), "{e}");
    }

    #[test]
    fn false_positive_notes_are_optional_and_printed_before_the_fix() {
        let m = compile(GOOD).expect("compiles");
        assert!(m.docs.false_positives.is_none());
        assert!(!m.render_docs().contains("False positives"));
        let text = GOOD.replace("fix = \"f\"", "fix = \"f\"\nfalse_positives = \"fp\"");
        let m = compile(&text).expect("compiles");
        assert_eq!(m.docs.false_positives.as_deref(), Some("fp"));
        assert!(
            m.render_docs()
                .contains("e\n\nFalse positives\n  fp\n\nHow to fix\n  f"),
            "{}",
            m.render_docs()
        );
    }

    #[test]
    fn missing_docs_field_is_a_positioned_toml_error() {
        let e = compile(&GOOD.replace("why = \"y\"\n", "")).expect_err("missing why");
        assert!(e.message.contains("why"), "{e}");
        assert!(e.line >= 2, "{e}");
    }
}
