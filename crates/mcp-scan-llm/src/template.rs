//! The prompt template: `rules/llm/alignment.toml`, deserialised raw and compiled (validated)
//! with file and line in every error.

use crate::error::TemplateError;
use mcp_scan_core::taxonomy;
use serde::Deserialize;
use std::ops::Range;
use toml::Spanned;

/// The built-in template, embedded at build time.
pub const BUILTIN_TEMPLATE: &str = include_str!("../../../rules/llm/alignment.toml");
/// The name errors in the built-in template point at.
pub const BUILTIN_TEMPLATE_PATH: &str = "rules/llm/alignment.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTemplate {
    version: Spanned<String>,
    max_prompt_tokens: Spanned<u32>,
    max_declared_chars: Spanned<u32>,
    max_item_chars: Spanned<u32>,
    max_output_tokens: Spanned<u32>,
    system: Spanned<String>,
    user: Spanned<String>,
    threat: Vec<RawThreat>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawThreat {
    name: Spanned<String>,
    hint: Spanned<String>,
}

/// A threat name the model may answer with, and the one line that explains it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreatLine {
    /// Exactly as in `rules/taxonomy.toml` (`threat`).
    pub name: String,
    pub hint: String,
}

/// A validated template.
#[derive(Debug, Clone)]
pub struct Template {
    pub version: String,
    pub max_prompt_tokens: u32,
    pub max_declared_chars: u32,
    pub max_item_chars: u32,
    pub max_output_tokens: u32,
    pub system: String,
    pub user: String,
    pub threats: Vec<ThreatLine>,
}

// The system text carries no per-request value: it is an identical prefix of every request.
const SYSTEM_PLACEHOLDERS: &[&str] = &["threats"];
const USER_PLACEHOLDERS: &[&str] = &["open", "close", "declared", "evidence", "omitted", "code"];
const USER_REQUIRED: &[&str] = &["open", "close", "declared", "evidence", "omitted"];

impl Template {
    /// The built-in template (validated by a unit test, so this cannot fail in a release).
    pub fn builtin() -> Result<Template, TemplateError> {
        Template::compile(BUILTIN_TEMPLATE, BUILTIN_TEMPLATE_PATH)
    }

    /// Parses and validates a template; `path` is only used in error messages.
    pub fn compile(text: &str, path: &str) -> Result<Template, TemplateError> {
        let raw: RawTemplate = toml::from_str(text).map_err(|e| TemplateError {
            path: path.to_string(),
            line: e.span().map(|s| line_of(text, s.start)),
            message: e.message().to_string(),
        })?;
        let err = |span: Range<usize>, message: String| TemplateError {
            path: path.to_string(),
            line: Some(line_of(text, span.start)),
            message,
        };
        if raw.version.get_ref().trim().is_empty() {
            return Err(err(
                raw.version.span(),
                "`version` must not be empty".into(),
            ));
        }
        for (field, value, min) in [
            ("max_prompt_tokens", &raw.max_prompt_tokens, 200),
            ("max_declared_chars", &raw.max_declared_chars, 100),
            ("max_item_chars", &raw.max_item_chars, 80),
            ("max_output_tokens", &raw.max_output_tokens, 64),
        ] {
            if *value.get_ref() < min {
                return Err(err(
                    value.span(),
                    format!("`{field}` must be at least {min}"),
                ));
            }
        }
        check_placeholders(
            raw.system.get_ref(),
            SYSTEM_PLACEHOLDERS,
            SYSTEM_PLACEHOLDERS,
        )
        .map_err(|m| err(raw.system.span(), format!("`system`: {m}")))?;
        check_placeholders(raw.user.get_ref(), USER_PLACEHOLDERS, USER_REQUIRED)
            .map_err(|m| err(raw.user.span(), format!("`user`: {m}")))?;
        if raw.threat.is_empty() {
            return Err(err(
                raw.system.span(),
                "at least one [[threat]] is required".into(),
            ));
        }
        let mut threats = Vec::with_capacity(raw.threat.len());
        for t in &raw.threat {
            let name = t.name.get_ref().trim();
            let Some(row) = taxonomy::by_threat(name) else {
                return Err(err(
                    t.name.span(),
                    format!("threat `{name}` is not a `threat` of rules/taxonomy.toml"),
                ));
            };
            if threats.iter().any(|x: &ThreatLine| x.name == row.threat) {
                return Err(err(
                    t.name.span(),
                    format!("threat `{name}` is listed twice"),
                ));
            }
            if t.hint.get_ref().trim().is_empty() || t.hint.get_ref().contains('\n') {
                return Err(err(
                    t.hint.span(),
                    "`hint` must be one non-empty line".into(),
                ));
            }
            threats.push(ThreatLine {
                name: row.threat.clone(),
                hint: t.hint.get_ref().trim().to_string(),
            });
        }
        Ok(Template {
            version: raw.version.get_ref().trim().to_string(),
            max_prompt_tokens: *raw.max_prompt_tokens.get_ref(),
            max_declared_chars: *raw.max_declared_chars.get_ref(),
            max_item_chars: *raw.max_item_chars.get_ref(),
            max_output_tokens: *raw.max_output_tokens.get_ref(),
            system: raw.system.get_ref().trim().to_string(),
            user: raw.user.get_ref().trim().to_string(),
            threats,
        })
    }

    /// The canonical threat name for what a model answered, if it is on this template's list.
    pub fn threat(&self, answered: &str) -> Option<&ThreatLine> {
        let answered = answered.trim();
        self.threats
            .iter()
            .find(|t| t.name.eq_ignore_ascii_case(answered))
    }
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> u32 {
    let upto = text.get(..offset.min(text.len())).unwrap_or(text);
    u32::try_from(upto.matches('\n').count() + 1).unwrap_or(u32::MAX)
}

/// Every `{name}` must be a known placeholder and every required one must appear. Braces that
/// are not a lowercase identifier (the JSON example) are left alone.
fn check_placeholders(text: &str, known: &[&str], required: &[&str]) -> Result<(), String> {
    for name in placeholders(text) {
        if !known.contains(&name) {
            return Err(format!(
                "unknown placeholder {{{name}}} (known: {})",
                known.join(", ")
            ));
        }
    }
    for r in required {
        if !placeholders(text).any(|n| n == *r) {
            return Err(format!("missing placeholder {{{r}}}"));
        }
    }
    Ok(())
}

/// `{identifier}` occurrences where the identifier is lowercase ASCII letters or `_`.
pub(crate) fn placeholders(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices('{').filter_map(move |(i, _)| {
        let rest = text.get(i + 1..)?;
        let end = rest.find('}')?;
        let name = rest.get(..end)?;
        (!name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
            .then_some(name)
    })
}

/// Replaces each `{name}` placeholder in one pass, so text substituted in is never scanned
/// again (a description containing `{evidence}` stays literal).
pub(crate) fn fill(text: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let replaced = after.find('}').and_then(|end| {
            let name = &after[..end];
            values
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (end, *v))
        });
        match replaced {
            Some((end, v)) => {
                out.push_str(v);
                rest = &after[end + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_template_compiles_and_lists_every_llm_threat_of_the_taxonomy() {
        let t = Template::builtin().expect("built-in template");
        assert_eq!(t.threats.len(), 14);
        for name in [
            "DATA EXFILTRATION",
            "GENERAL DESCRIPTION-CODE MISMATCH",
            "ARBITRARY RESOURCE READ/WRITE",
            "PROMPT INJECTION",
        ] {
            assert!(t.threat(name).is_some(), "{name}");
        }
        assert!(t.threat("SAFE").is_none());
        assert!(t.max_output_tokens >= 64);
    }

    #[test]
    fn template_with_unknown_threat_is_rejected_with_its_line() {
        let bad = BUILTIN_TEMPLATE.replace("name = \"BACKDOOR\"", "name = \"SPOOKY\"");
        let e = Template::compile(&bad, "x.toml").expect_err("unknown threat");
        let expected_line = bad
            .lines()
            .position(|l| l.contains("SPOOKY"))
            .map(|i| i as u32 + 1);
        assert_eq!(e.line, expected_line);
        assert!(e.to_string().starts_with("x.toml:"), "{e}");
        assert!(e.message.contains("SPOOKY"), "{e}");
    }

    #[test]
    fn template_missing_a_placeholder_or_using_an_unknown_one_is_rejected() {
        let missing = BUILTIN_TEMPLATE.replace("{evidence}", "evidence");
        let e = Template::compile(&missing, "t.toml").expect_err("missing");
        assert!(e.message.contains("missing placeholder {evidence}"), "{e}");
        let unknown = BUILTIN_TEMPLATE.replace("{omitted}", "{omitted}{secret_key}");
        let e = Template::compile(&unknown, "t.toml").expect_err("unknown");
        assert!(
            e.message.contains("unknown placeholder {secret_key}"),
            "{e}"
        );
        let syntax = Template::compile("version = ", "t.toml").expect_err("syntax");
        assert_eq!(syntax.line, Some(1));
    }

    #[test]
    fn fill_substitutes_once_and_never_rescans_inserted_text() {
        let out = fill(
            "a {x} b {y} {unknown} {\"json\": 1}",
            &[("x", "{y}"), ("y", "Y")],
        );
        assert_eq!(out, "a {y} b Y {unknown} {\"json\": 1}");
    }
}
