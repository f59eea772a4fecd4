//! The model's answer: one strict JSON object, validated against the template's threat list and
//! the evidence ids the prompt offered.

use crate::provider::AnswerSchema;
use crate::template::Template;
use serde::{Deserialize, Serialize};

/// What the model must answer (field names are the wire format).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVerdict {
    mismatch: bool,
    threat_name: Option<String>,
    description_claims: String,
    code_does: String,
    evidence: Vec<String>,
}

/// A validated verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub mismatch: bool,
    /// Canonical taxonomy threat name; `Some` exactly when `mismatch`.
    pub threat: Option<String>,
    pub description_claims: String,
    pub code_does: String,
    /// Evidence ids (`E1`, ...) the model cites, each one offered in the prompt.
    pub evidence: Vec<String>,
}

/// Why an answer was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidAnswer {
    #[error("the answer was cut off at the output token limit")]
    Truncated,
    #[error("the answer is empty")]
    Empty,
    #[error("the answer is not a single JSON object: {0}")]
    NotJson(String),
    #[error("threat_name `{0}` is not on the list")]
    UnknownThreat(String),
    #[error("mismatch is true but threat_name is missing")]
    MissingThreat,
    #[error("mismatch is false but threat_name is `{0}`")]
    ThreatWithoutMismatch(String),
    #[error("evidence id `{0}` was not offered in the prompt")]
    UnknownEvidence(String),
    #[error("the quoted evidence does not occur in the text")]
    QuoteNotInText,
    #[error("field `{0}` is empty or longer than {1} characters")]
    BadText(&'static str, usize),
    #[error("mismatch is true but no evidence id is cited")]
    MismatchWithoutEvidence,
    #[error("mismatch is true but the answer's own texts say the code does what is described")]
    SelfContradictory,
}

const MAX_TEXT: usize = 1000;

/// The answer's JSON schema for one prompt: the template's threat names and the evidence ids
/// this prompt offered are enums, so a schema-constrained model cannot answer outside them.
/// Only keywords every structured-output implementation accepts in strict mode are used
/// (`maxItems`, but no string length limits: [`parse_verdict`] still checks those). The
/// properties come out in key order (code_does, description_claims, evidence, mismatch,
/// threat_name), which the template's instructions follow: the model writes what the code does
/// before it decides.
pub fn verdict_schema(template: &Template, offered_evidence: &[String]) -> AnswerSchema {
    let mut threats: Vec<serde_json::Value> = template
        .threats
        .iter()
        .map(|t| serde_json::Value::String(t.name.clone()))
        .collect();
    threats.push(serde_json::Value::Null);
    let evidence_item = if offered_evidence.is_empty() {
        serde_json::json!({"type": "string"})
    } else {
        serde_json::json!({"type": "string", "enum": offered_evidence})
    };
    // At most one citation per offered id, and none when the prompt offered none: without the
    // cap a small model cites "E1", "E2" from nowhere (the answer then fails validation) or
    // repeats an id until it runs out of tokens.
    let evidence_max = offered_evidence.len();
    AnswerSchema {
        name: "alignment_verdict".into(),
        schema: serde_json::json!({
            "type": "object",
            // Written in key order, so the order is the same whether or not serde_json keeps
            // insertion order.
            "properties": {
                "code_does": {"type": "string"},
                "description_claims": {"type": "string"},
                "evidence": {"type": "array", "items": evidence_item, "maxItems": evidence_max},
                "mismatch": {"type": "boolean"},
                "threat_name": {"type": ["string", "null"], "enum": threats},
            },
            "required": ["code_does", "description_claims", "evidence", "mismatch", "threat_name"],
            "additionalProperties": false,
        }),
    }
}

/// Validates a raw answer. `truncated` is the provider's "stopped at max tokens" signal.
pub fn parse_verdict(
    text: &str,
    truncated: bool,
    template: &Template,
    offered_evidence: &[String],
) -> Result<Verdict, InvalidAnswer> {
    if truncated {
        return Err(InvalidAnswer::Truncated);
    }
    let body = strip_code_fence(text.trim());
    if body.is_empty() {
        return Err(InvalidAnswer::Empty);
    }
    let raw: RawVerdict =
        serde_json::from_str(body).map_err(|e| InvalidAnswer::NotJson(e.to_string()))?;
    let threat = match (raw.mismatch, raw.threat_name.as_deref().map(str::trim)) {
        (true, None | Some("")) => return Err(InvalidAnswer::MissingThreat),
        (true, Some(name)) => Some(
            template
                .threat(name)
                .ok_or_else(|| InvalidAnswer::UnknownThreat(clip(name, 80)))?
                .name
                .clone(),
        ),
        (false, None | Some("")) => None,
        (false, Some(name)) if name.eq_ignore_ascii_case("none") => None,
        (false, Some(name)) => return Err(InvalidAnswer::ThreatWithoutMismatch(clip(name, 80))),
    };
    for (field, value) in [
        ("description_claims", &raw.description_claims),
        ("code_does", &raw.code_does),
    ] {
        let n = value.trim().chars().count();
        if n == 0 || n > MAX_TEXT {
            return Err(InvalidAnswer::BadText(field, MAX_TEXT));
        }
    }
    if raw.mismatch && contradicts_itself(&raw.description_claims, &raw.code_does) {
        return Err(InvalidAnswer::SelfContradictory);
    }
    let mut evidence = Vec::new();
    for e in &raw.evidence {
        let id = e.trim().to_ascii_uppercase();
        if !offered_evidence.contains(&id) {
            // Citations only carry a mismatch (its finding's evidence). An aligned answer makes
            // no finding: a stray id there is dropped, not a reason to leave an honest tool
            // INCOMPLETE (a 1.5B model in json_object mode cites "E1" when none was offered).
            if !raw.mismatch {
                continue;
            }
            return Err(InvalidAnswer::UnknownEvidence(clip(e, 40)));
        }
        if !evidence.contains(&id) {
            evidence.push(id);
        }
    }
    // A mismatch has to point at what it saw, when there was anything to point at.
    if raw.mismatch && evidence.is_empty() && !offered_evidence.is_empty() {
        return Err(InvalidAnswer::MismatchWithoutEvidence);
    }
    Ok(Verdict {
        mismatch: raw.mismatch,
        threat,
        description_claims: raw.description_claims.trim().to_string(),
        code_does: raw.code_does.trim().to_string(),
        evidence,
    })
}

/// A "mismatch" whose `code_does` restates `description_claims` (the same words, give or take a
/// few) or says outright that nothing beyond the description happens. Small models do this when
/// biased towards "mismatch"; such an answer is rejected and retried, never a finding.
fn contradicts_itself(claims: &str, does: &str) -> bool {
    let words = |s: &str| -> std::collections::BTreeSet<String> {
        const FILLER: &[&str] = &[
            "the", "and", "code", "its", "their", "this", "that", "tool", "function", "then",
            "also", "with", "for", "from", "into", "given",
        ];
        s.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2)
            .map(str::to_lowercase)
            .filter(|w| !FILLER.contains(&w.as_str()))
            // "reads" restates "read".
            .map(|w| match w.strip_suffix('s') {
                Some(stem) if stem.len() > 2 && !stem.ends_with('s') => stem.to_string(),
                _ => w,
            })
            .collect()
    };
    let (a, b) = (words(claims), words(does));
    if a.is_empty() || b.is_empty() {
        return false;
    }
    let shared = a.intersection(&b).count();
    let union = a.union(&b).count();
    // Jaccard over content words: restating is near 1, a real mismatch adds what the code does.
    if shared * 10 >= union * 8 {
        return true;
    }
    let d = does.to_lowercase();
    [
        "nothing undeclared",
        "no undeclared",
        "matches the description",
        "consistent with the description",
        "does what the description says",
        "does what it says",
        "exactly what is described",
    ]
    .iter()
    .any(|p| d.contains(p))
}

/// Accepts one Markdown code fence around the object (common with local models); nothing else
/// may surround it.
pub(crate) fn strip_code_fence(s: &str) -> &str {
    let Some(rest) = s.strip_prefix("```") else {
        return s;
    };
    let rest = rest.strip_prefix("json").unwrap_or(rest);
    match rest.strip_suffix("```") {
        Some(inner) => inner.trim(),
        None => s,
    }
}

fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t() -> Template {
        Template::builtin().expect("template")
    }

    fn ids() -> Vec<String> {
        vec!["E1".into(), "E2".into()]
    }

    #[test]
    fn valid_mismatch_is_accepted_with_canonical_threat_name() {
        let v = parse_verdict(
            r#"{"mismatch": true, "threat_name": "data exfiltration", "description_claims": "formats a note", "code_does": "reads ~/.ssh/id_rsa and posts it", "evidence": ["E1", "e1"]}"#,
            false,
            &t(),
            &ids(),
        )
        .expect("valid");
        assert!(v.mismatch);
        assert_eq!(v.threat.as_deref(), Some("DATA EXFILTRATION"));
        assert_eq!(v.evidence, vec!["E1".to_string()]);
    }

    #[test]
    fn aligned_answer_in_a_code_fence_is_accepted() {
        let v = parse_verdict(
            "```json\n{\"mismatch\": false, \"threat_name\": null, \"description_claims\": \"adds\", \"code_does\": \"adds\", \"evidence\": []}\n```",
            false,
            &t(),
            &ids(),
        )
        .expect("valid");
        assert!(!v.mismatch);
        assert_eq!(v.threat, None);
    }

    #[test]
    fn schema_enumerates_the_templates_threats_and_only_the_offered_evidence() {
        let s = verdict_schema(&t(), &ids()).schema;
        let threats = s["properties"]["threat_name"]["enum"]
            .as_array()
            .expect("enum");
        assert_eq!(threats.len(), t().threats.len() + 1);
        assert!(threats.contains(&serde_json::Value::Null));
        assert!(threats.contains(&serde_json::json!("DATA EXFILTRATION")));
        assert_eq!(
            s["properties"]["evidence"]["items"]["enum"],
            serde_json::json!(["E1", "E2"])
        );
        assert_eq!(s["additionalProperties"], false);
        assert_eq!(s["properties"]["evidence"]["maxItems"], 2);
        // Every answer the schema admits with a listed threat parses.
        let answer = serde_json::json!({"mismatch": true, "threat_name": threats[0],
            "description_claims": "a", "code_does": "b", "evidence": ["E2"]});
        assert!(parse_verdict(&answer.to_string(), false, &t(), &ids()).is_ok());
    }

    #[test]
    fn schema_asks_for_what_the_code_does_before_the_verdict_and_no_ids_when_none_were_offered() {
        let s = verdict_schema(&t(), &[]).schema;
        // A prompt without evidence items (thin evidence, source code instead): citing any id
        // would fail validation, so the schema admits only an empty list.
        assert_eq!(s["properties"]["evidence"]["maxItems"], 0);
        let keys: Vec<&String> = s["properties"].as_object().expect("props").keys().collect();
        assert_eq!(
            keys,
            [
                "code_does",
                "description_claims",
                "evidence",
                "mismatch",
                "threat_name"
            ]
        );
        // The template lists the keys in the same order, for json_object mode too.
        let tpl = t().system;
        let pos = |k: &str| tpl.find(&format!("\"{k}\":")).expect(k);
        assert!(pos("code_does") < pos("description_claims"));
        assert!(pos("description_claims") < pos("evidence"));
        assert!(pos("evidence") < pos("mismatch"));
        assert!(pos("mismatch") < pos("threat_name"));
    }

    #[test]
    fn a_mismatch_that_restates_the_description_or_cites_nothing_is_rejected() {
        let restated = r#"{"mismatch": true, "threat_name": "DATA EXFILTRATION", "description_claims": "Adds two numbers and returns the sum.", "code_does": "The code adds two numbers and returns their sum.", "evidence": ["E1"]}"#;
        assert_eq!(
            parse_verdict(restated, false, &t(), &ids()),
            Err(InvalidAnswer::SelfContradictory)
        );
        let says_nothing = r#"{"mismatch": true, "threat_name": "DATA EXFILTRATION", "description_claims": "formats a note", "code_does": "nothing undeclared happens", "evidence": ["E1"]}"#;
        assert_eq!(
            parse_verdict(says_nothing, false, &t(), &ids()),
            Err(InvalidAnswer::SelfContradictory)
        );
        let uncited = r#"{"mismatch": true, "threat_name": "DATA EXFILTRATION", "description_claims": "formats a note", "code_does": "reads ~/.ssh/id_rsa and posts it", "evidence": []}"#;
        assert_eq!(
            parse_verdict(uncited, false, &t(), &ids()),
            Err(InvalidAnswer::MismatchWithoutEvidence)
        );
        // With nothing offered there is nothing to cite.
        assert!(parse_verdict(uncited, false, &t(), &[]).is_ok());
        // The twins: a real mismatch adds what the code does; an aligned answer may restate.
        let real = r#"{"mismatch": true, "threat_name": "DATA EXFILTRATION", "description_claims": "Formats a note as Markdown.", "code_does": "Formats the note, then reads ~/.ssh/id_rsa and posts it to a remote host.", "evidence": ["E1"]}"#;
        assert!(parse_verdict(real, false, &t(), &ids()).is_ok());
        let aligned = r#"{"mismatch": false, "threat_name": null, "description_claims": "Adds two numbers.", "code_does": "Adds two numbers.", "evidence": []}"#;
        assert!(parse_verdict(aligned, false, &t(), &ids()).is_ok());
    }

    #[test]
    fn an_aligned_answer_citing_an_id_never_offered_drops_it_and_a_mismatch_is_rejected() {
        let aligned = r#"{"code_does": "adds", "description_claims": "adds", "evidence": ["E1"], "mismatch": false, "threat_name": null}"#;
        let v = parse_verdict(aligned, false, &t(), &[]).expect("aligned stays valid");
        assert!(!v.mismatch);
        assert!(v.evidence.is_empty());
        let mismatch = r#"{"code_does": "posts the key to a remote host", "description_claims": "adds", "evidence": ["E1"], "mismatch": true, "threat_name": "DATA EXFILTRATION"}"#;
        assert_eq!(
            parse_verdict(mismatch, false, &t(), &[]),
            Err(InvalidAnswer::UnknownEvidence("E1".into()))
        );
    }

    #[test]
    fn malformed_truncated_or_inconsistent_answers_are_rejected() {
        let cases: &[(&str, bool)] = &[
            ("", false),
            ("The tool is safe.", false),
            (r#"{"mismatch": true, "threat_name": "DATA EXFIL"#, false),
            (
                r#"{"mismatch": false, "threat_name": null, "description_claims": "a", "code_does": "a", "evidence": []}"#,
                true,
            ),
            (
                r#"{"mismatch": true, "threat_name": null, "description_claims": "a", "code_does": "b", "evidence": []}"#,
                false,
            ),
            (
                r#"{"mismatch": true, "threat_name": "SAFE", "description_claims": "a", "code_does": "b", "evidence": []}"#,
                false,
            ),
            (
                r#"{"mismatch": false, "threat_name": "BACKDOOR", "description_claims": "a", "code_does": "b", "evidence": []}"#,
                false,
            ),
            (
                r#"{"mismatch": true, "threat_name": "BACKDOOR", "description_claims": "a", "code_does": "b", "evidence": ["E9"]}"#,
                false,
            ),
            (
                r#"{"mismatch": false, "threat_name": null, "description_claims": "", "code_does": "b", "evidence": []}"#,
                false,
            ),
            (
                r#"{"mismatch": "no", "threat_name": null, "description_claims": "a", "code_does": "b", "evidence": []}"#,
                false,
            ),
            (
                r#"{"mismatch": false, "threat_name": null, "description_claims": "a", "code_does": "b", "evidence": [], "safe": true}"#,
                false,
            ),
            (
                r#"Sure! {"mismatch": false, "threat_name": null, "description_claims": "a", "code_does": "b", "evidence": []}"#,
                false,
            ),
        ];
        for (text, truncated) in cases {
            assert!(
                parse_verdict(text, *truncated, &t(), &ids()).is_err(),
                "accepted: {text}"
            );
        }
    }
}
