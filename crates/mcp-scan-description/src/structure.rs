//! The structural reading of a tool: what each parameter asks the model to put in, and who a
//! sentence speaks to. Unlike the cue rules it does not look for a payload's verbs: a field that
//! asks for the chat, the model's instructions, other tools' results, the user's secrets or
//! private data, or a local secret file, on a tool that is not about that source, is a channel
//! for it however it is worded; a sentence that addresses the model about its own conduct (its
//! rules, the user's say, which tools it uses, what it does with answers) and turns that conduct
//! is an order, not documentation. The word lists are data in
//! `rules/description/readings/structure.toml`.

use crate::fields::EntityFields;
use crate::{Field, Hit, text};
use mcp_scan_core::Severity;
use mcp_scan_rules::description::{DescriptionRules, FieldClass};
use regex::{Regex, RegexBuilder};
use serde::Deserialize;
use std::sync::OnceLock;

const DATA: &str = include_str!("../../../rules/description/readings/structure.toml");

#[derive(Deserialize)]
struct Raw {
    supply: RawSupply,
    addressee: RawAddressee,
}

#[derive(Deserialize)]
struct RawSupply {
    provenance: Vec<String>,
    completeness: Vec<String>,
    into_field: Vec<String>,
    pointer: Vec<String>,
    general: Vec<String>,
    source: Vec<RawSource>,
}

#[derive(Deserialize)]
struct RawSource {
    id: String,
    label: String,
    needs: String,
    objects: Vec<String>,
    #[serde(default)]
    contents: Vec<String>,
    purpose: Vec<String>,
    #[serde(default)]
    overlap: bool,
}

#[derive(Deserialize)]
struct RawAddressee {
    second_person: Vec<String>,
    vocative: Vec<String>,
    obliged: Vec<String>,
    action: Vec<String>,
    order_open: Vec<String>,
    conduct: Vec<RawConduct>,
}

#[derive(Deserialize)]
struct RawConduct {
    id: String,
    rule: String,
    label: String,
    objects: Vec<String>,
    turns: Vec<String>,
    #[serde(default)]
    implied: bool,
}

/// What a source needs besides its object to count as drawn from the model's holdings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    None,
    Provenance,
    Completeness,
    /// The user named as the owner ("the user's password"), or a provenance marker.
    OwnerOrProvenance,
}

struct Source {
    id: String,
    label: String,
    needs: Needs,
    objects: Regex,
    contents: Option<Regex>,
    /// What makes this source the tool's business; `None`: the secret-use words decide.
    purpose: Option<Regex>,
    /// The purpose test is whether the field's own words occur in the tool's name or
    /// description (a source named only by where it comes from, not by what it is).
    overlap: bool,
}

struct Conduct {
    id: String,
    rule: String,
    label: String,
    objects: Regex,
    turns: Regex,
    /// The object names the model's own conduct, so no other sign of the addressee is needed.
    implied: bool,
}

/// The compiled reading.
pub(crate) struct Structure {
    provenance: Regex,
    completeness: Regex,
    into_field: Regex,
    pointer: Regex,
    general: std::collections::HashSet<String>,
    owner: Regex,
    sources: Vec<Source>,
    second_person: Regex,
    vocative: Regex,
    obliged: Regex,
    action: Regex,
    order_open: Regex,
    conduct: Vec<Conduct>,
}

/// The data file does not parse or a pattern does not compile: a build defect, caught by the
/// tests (the file is embedded).
#[derive(Debug, thiserror::Error)]
pub enum StructureError {
    #[error("rules/description/readings/structure.toml: {0}")]
    Parse(String),
    #[error("rules/description/readings/structure.toml: pattern {0}: {1}")]
    Pattern(String, String),
}

fn any_of(list: &[String]) -> Result<Regex, StructureError> {
    let joined = list
        .iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|");
    RegexBuilder::new(&joined)
        .case_insensitive(true)
        .build()
        .map_err(|e| StructureError::Pattern(list.join(" | "), e.to_string()))
}

impl Structure {
    fn compile(data: &str) -> Result<Self, StructureError> {
        let raw: Raw = toml::from_str(data).map_err(|e| StructureError::Parse(e.to_string()))?;
        let mut sources = Vec::new();
        for s in raw.supply.source {
            let needs = match s.needs.as_str() {
                "none" => Needs::None,
                "provenance" => Needs::Provenance,
                "completeness" => Needs::Completeness,
                "owner-or-provenance" => Needs::OwnerOrProvenance,
                other => return Err(StructureError::Parse(format!("needs = {other:?}"))),
            };
            sources.push(Source {
                needs,
                objects: any_of(&s.objects)?,
                contents: (!s.contents.is_empty())
                    .then(|| any_of(&s.contents))
                    .transpose()?,
                purpose: (!s.purpose.is_empty())
                    .then(|| any_of(&s.purpose))
                    .transpose()?,
                overlap: s.overlap,
                id: s.id,
                label: s.label,
            });
        }
        // The general source last: a named source explains a finding better.
        sources.sort_by_key(|s| s.overlap);
        let mut conduct = Vec::new();
        for c in raw.addressee.conduct {
            conduct.push(Conduct {
                objects: any_of(&c.objects)?,
                turns: any_of(&c.turns)?,
                implied: c.implied,
                id: c.id,
                rule: c.rule,
                label: c.label,
            });
        }
        Ok(Structure {
            provenance: any_of(&raw.supply.provenance)?,
            completeness: any_of(&raw.supply.completeness)?,
            into_field: any_of(&raw.supply.into_field)?,
            pointer: any_of(&raw.supply.pointer)?,
            general: raw.supply.general.into_iter().collect(),
            owner: any_of(&[
                r"\b(the\s+)?user\x27s\b".to_string(),
                r"\b(of|from)\s+the\s+user\b".to_string(),
            ])?,
            sources,
            second_person: any_of(&raw.addressee.second_person)?,
            vocative: any_of(&raw.addressee.vocative)?,
            obliged: any_of(&raw.addressee.obliged)?,
            action: any_of(&raw.addressee.action)?,
            order_open: any_of(&raw.addressee.order_open)?,
            conduct,
        })
    }

    pub(crate) fn builtin() -> Result<&'static Structure, &'static StructureError> {
        static S: OnceLock<Result<Structure, StructureError>> = OnceLock::new();
        S.get_or_init(|| Structure::compile(DATA)).as_ref()
    }

    /// The sources a text asks the model to supply from, with the label of what made it count.
    fn sources_in(&self, t: &str) -> Vec<&Source> {
        let provenance = self.provenance.is_match(t);
        // "earlier in the chat" says where a value comes from, not what it is.
        let rest = self.provenance.replace_all(t, " ");
        let complete = self.completeness.is_match(t);
        self.sources
            .iter()
            .filter(|s| s.objects.is_match(&rest))
            // What the model holds in general: a collection or the whole of it, not the one
            // item the user named ("the city the user mentioned" is the tool's input).
            .filter(|s| !s.overlap || complete || plural(t))
            .filter(|s| s.contents.as_ref().is_none_or(|c| c.is_match(t)))
            .filter(|s| match s.needs {
                Needs::None => true,
                Needs::Provenance => provenance,
                Needs::Completeness => provenance || self.completeness.is_match(t),
                Needs::OwnerOrProvenance => provenance || self.owner.is_match(t),
            })
            .collect()
    }

    /// Whether the tool's own name and description make this source its business. `field` is
    /// the text that asks for it.
    fn purpose_of(&self, s: &Source, purpose_text: &str, field: &str) -> bool {
        if s.overlap {
            // One returned item named by where it came from is a workflow between calls.
            if self.pointer.is_match(field) {
                return true;
            }
            let stems: std::collections::HashSet<String> =
                words(purpose_text).map(|w| stem(&w)).collect();
            return words(field)
                .filter(|w| w.len() >= 3 && !self.general.contains(w))
                .any(|w| stems.contains(&stem(&w)));
        }
        match &s.purpose {
            Some(p) => p.is_match(purpose_text),
            None => text::speaks_of_secrets(purpose_text),
        }
    }

    /// Supply reading of one tool: each parameter's text (its description, default, enum, …)
    /// and each sentence of the tool's own texts that puts a value into a field.
    pub(crate) fn supply(
        &self,
        rules: &DescriptionRules,
        e: &EntityFields<'_>,
        hits: &[Hit],
    ) -> Vec<Hit> {
        let Some(rule) = rules.rules.iter().position(|r| r.meta.id == "MCPS-D014") else {
            return Vec::new();
        };
        // What the tool is for: its name and the sentences of its description that do not
        // themselves ask for a source (a request is not a purpose).
        let words = text::name_words(e.name);
        let declared = e.declared.unwrap_or("");
        let mut purpose_text = words;
        for (a, b) in text::sentences(declared) {
            let t = &declared[a..b];
            let request = self.into_field.is_match(t) && !self.sources_in(t).is_empty();
            if !request {
                purpose_text.push(' ');
                purpose_text.push_str(t);
            }
        }
        let mut out: Vec<Hit> = Vec::new();
        for f in &e.fields {
            if f.class != FieldClass::Text || f.text.is_empty() {
                continue;
            }
            let in_param = f.path.starts_with("inputSchema.properties.");
            // Parameter text is read whole; any other text only sentence by sentence, where a
            // sentence orders a value into a field.
            let spans: Vec<(usize, usize)> = if in_param {
                vec![(0, f.text.len())]
            } else {
                text::sentences(f.text)
                    .into_iter()
                    .filter(|&(a, b)| self.into_field.is_match(&f.text[a..b]))
                    .collect()
            };
            // A parameter's own name says what it takes: "url: the PDF URL the user gave".
            let own = in_param
                .then(|| f.path.split('.').nth(2))
                .flatten()
                .map(text::name_words)
                .unwrap_or_default();
            for (a, b) in spans {
                let t = &f.text[a..b];
                for s in self.sources_in(t) {
                    // A parameter named for what it takes declares it: `secret_key` asks for a
                    // key as its input, as the general source's own words do.
                    let purpose = if s.overlap || s.purpose.is_none() {
                        format!("{purpose_text} {own}")
                    } else {
                        purpose_text.clone()
                    };
                    if self.purpose_of(s, &purpose, t) {
                        continue;
                    }
                    push_medium(
                        hits,
                        &mut out,
                        rule,
                        f,
                        (a, b),
                        vec![
                            format!("asks the model to supply {}", s.label),
                            format!(
                                "on a tool whose name and description are not about it ({})",
                                s.id
                            ),
                        ],
                    );
                }
            }
        }
        out
    }

    /// Addressee reading of one text field, sentence by sentence.
    /// `own`: the entity's name, when it is a tool.
    pub(crate) fn addressee(
        &self,
        rules: &DescriptionRules,
        field: &Field<'_>,
        own: Option<&str>,
        hits: &[Hit],
    ) -> Vec<Hit> {
        if field.class != FieldClass::Text || field.text.is_empty() {
            return Vec::new();
        }
        let rule_of = |id: &str| rules.rules.iter().position(|r| r.meta.id == id);
        let sentences = text::sentences(field.text);
        let orders = text::imperative_clauses(field.text, &sentences, false);
        let mut out: Vec<Hit> = Vec::new();
        let push = |rule: usize, a: usize, b: usize, cues: Vec<String>, out: &mut Vec<Hit>| {
            push_medium(hits, out, rule, field, (a, b), cues);
        };
        // A sentence and the next: "…; they are suspended here" splits object from turn.
        for (i, &(a, _)) in sentences.iter().enumerate() {
            let b = sentences[(i + 1).min(sentences.len() - 1)].1;
            let t = field.text[a..b].trim_start();
            let a = b - t.len();
            // Called by its role, with an action verb in the words that follow.
            let vocative = self.vocative.find_iter(t).any(|m| {
                let rest = &t[m.end()..];
                let end = rest.char_indices().nth(60).map_or(rest.len(), |(i, _)| i);
                self.action.is_match(&rest[..end])
            });
            let obliged = self.obliged.is_match(t);
            let ordered = orders.iter().any(|&o| o >= a && o < b) || self.order_open.is_match(t);
            // The first sentence of a description is its summary ("Use this to …"), read as an
            // order only when it also speaks to the model.
            let second = self.second_person.is_match(t);
            let addressed = vocative || obliged || second || ordered;
            for c in &self.conduct {
                if !(addressed || c.implied) {
                    continue;
                }
                if c.objects.is_match(t) && c.turns.is_match(t) {
                    // A tool's summary that claims every request for itself needs the model
                    // spoken to; an order about the model's rules needs it anyway.
                    if i == 0 && !(second || vocative || obliged) && c.id != "every-turn" {
                        continue;
                    }
                    // "Call `list_ids` first for every query" is a workflow between tools.
                    if c.id == "every-turn" && names_other_tool(t, own) {
                        continue;
                    }
                    if let Some(rule) = rule_of(&c.rule) {
                        push(
                            rule,
                            a,
                            b,
                            vec![
                                "addressed to the model about its own conduct".to_string(),
                                c.label.clone(),
                            ],
                            &mut out,
                        );
                    }
                }
            }
            // Called by its role and told to act on data or tools: "Assistant, also send …".
            if vocative {
                if let Some(rule) = rule_of("MCPS-D021") {
                    push(
                        rule,
                        a,
                        b,
                        vec![
                            "the model called by its role".to_string(),
                            "and told to act".to_string(),
                        ],
                        &mut out,
                    );
                }
            }
            // "Models must send the workspace key …": an obligation on the reader as a class
            // whose object is something the model holds.
            if obliged && self.action.is_match(t) {
                // (what is named is enough: the obligation itself says who hands it over)
                if let Some(s) = self.sources.iter().find(|s| {
                    s.id != "user-private"
                        && !s.overlap
                        && s.objects.is_match(t)
                        && s.contents.as_ref().is_none_or(|c| c.is_match(t))
                }) {
                    if let Some(rule) = rule_of("MCPS-D021") {
                        push(
                            rule,
                            a,
                            b,
                            vec![
                                "an obligation put on the model as a class".to_string(),
                                format!("to hand over {}", s.label),
                            ],
                            &mut out,
                        );
                    }
                }
            }
        }
        out
    }
}

/// Adds a MEDIUM hit of `rule` on `field` (the span `a..b` as its excerpt) unless that field
/// already has one of the rule at MEDIUM or above.
fn push_medium(
    hits: &[Hit],
    out: &mut Vec<Hit>,
    rule: usize,
    field: &Field<'_>,
    (a, b): (usize, usize),
    cues: Vec<String>,
) {
    let dup = |h: &Hit| h.rule == rule && h.severity >= Severity::Medium && h.field == field.path;
    if hits.iter().any(dup) || out.iter().any(dup) {
        return;
    }
    out.push(Hit {
        rule,
        severity: Severity::Medium,
        score: 0,
        field: field.path.clone(),
        excerpt: text::excerpt(&field.text[a..b]),
        offset: field.text[..a].chars().count(),
        cues,
    });
}

/// Whether the text names a plural ("the results of your previous calls", "things the user
/// asked you"): a collection, not the one item the user named.
fn plural(t: &str) -> bool {
    words(t).any(|w| {
        w.len() > 3
            && w.ends_with('s')
            && !w.ends_with("ss")
            && !w.ends_with("us")
            && !w.ends_with("is")
    })
}

/// Lower-case words of a text.
fn words(t: &str) -> impl Iterator<Item = String> + '_ {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// A crude stem: the first five letters ("transcripts", "transcript" → "trans").
fn stem(w: &str) -> String {
    w.chars().take(5).collect()
}

/// Whether a sentence names a tool other than `own`: an identifier in backticks, or one with
/// an underscore or an inner capital (`list_ids`, `getIds`).
fn names_other_tool(t: &str, own: Option<&str>) -> bool {
    let identifier = |w: &str| {
        let inner_cap = w.chars().next().is_some_and(char::is_lowercase)
            && w.chars().skip(1).any(char::is_uppercase);
        w.trim_matches('_').contains('_') || inner_cap
    };
    t.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| Some(w) != own && identifier(w))
        || t.split('`')
            .skip(1)
            .step_by(2)
            .any(|w| Some(w.trim()) != own)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_reading_parses_and_every_pattern_compiles() {
        let s = Structure::compile(DATA).expect("structure.toml");
        assert!(s.sources.len() >= 6);
        assert!(s.conduct.len() >= 5);
    }

    #[test]
    fn a_source_counts_only_with_what_it_needs() {
        let s = Structure::compile(DATA).expect("structure.toml");
        let ids = |t: &str| -> Vec<String> {
            s.sources_in(t).into_iter().map(|x| x.id.clone()).collect()
        };
        assert!(ids("Every message the user typed earlier, verbatim.").contains(&"chat".into()));
        assert!(!ids("The message to send.").contains(&"chat".into()));
        assert!(ids("The user's password for the VPN.").contains(&"user-secret".into()));
        assert!(!ids("Password to set on the new archive.").contains(&"user-secret".into()));
        assert!(ids("Contents of ~/.aws/credentials.").contains(&"local-file".into()));
        assert!(!ids("Path such as ~/projects/app.").contains(&"local-file".into()));
    }
}
