//! One prompt per tool: the template, the tool's declared text and its static evidence, with the
//! server's own text fenced by random per-request delimiters and the evidence capped by priority.

use crate::template::{Template, fill};
use mcp_scan_core::{Capability, SourceLocation, TaintFlow, ToolBehavior};
use sha2::{Digest, Sha256};

/// Approximate token count: one token per four characters (rounded up). Close to BPE tokenizers
/// on English and code and needs no vocabulary; the budget leaves margin for the difference.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

/// One piece of static evidence as the model sees it, with the id it may cite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceItem {
    /// `E1`, `E2`, ... in priority order.
    pub id: String,
    /// Lower is more important.
    pub priority: u8,
    /// The rendered line(s).
    pub text: String,
    /// Where it points to in the source.
    pub location: SourceLocation,
    /// A short note for the finding's evidence list.
    pub note: String,
    /// Shows a capability a description could leave undeclared and that makes a mismatch
    /// serious: a secret read, egress, code or command execution (an unsanitized flow into
    /// such a sink, or the capability itself). Only a mismatch citing one may be HIGH.
    pub strong: bool,
}

/// A prompt ready to send.
#[derive(Debug, Clone)]
pub struct Prompt {
    pub system: String,
    pub user: String,
    /// The evidence items included, in order; verdicts may cite only these ids.
    pub evidence: Vec<EvidenceItem>,
    /// How many evidence items were left out to respect the size cap.
    pub omitted: usize,
    /// Whether the declared text was shortened.
    pub declared_truncated: bool,
    /// `estimate_tokens(system) + estimate_tokens(user)`.
    pub estimated_tokens: u64,
    /// Hash of the prompt rendered with a fixed delimiter: equal for equal inputs, so the cache
    /// key does not change with the random delimiter.
    pub canonical_hash: String,
    /// The per-request delimiters actually used.
    pub open: String,
    pub close: String,
}

/// Builds prompts from a template.
#[derive(Debug, Clone)]
pub struct PromptBuilder {
    template: Template,
}

impl PromptBuilder {
    pub fn new(template: Template) -> Self {
        PromptBuilder { template }
    }

    pub fn template(&self) -> &Template {
        &self.template
    }

    /// Builds the prompt for one tool with fresh random delimiters.
    pub fn build(&self, behavior: &ToolBehavior) -> Prompt {
        let declared = declared_text(behavior);
        let mut nonce = random_nonce();
        // The nonce is 128 random bits, so this loop runs once; it guards the invariant that no
        // server text can contain the real closing delimiter.
        while declared.contains(&nonce) || evidence_mentions(behavior, &nonce) {
            nonce = random_nonce();
        }
        self.build_with_nonce(behavior, &nonce)
    }

    /// Builds the prompt with a given delimiter nonce (tests and the canonical form).
    pub fn build_with_nonce(&self, behavior: &ToolBehavior, nonce: &str) -> Prompt {
        let t = &self.template;
        let (declared, declared_truncated) =
            truncate_chars(&declared_text(behavior), t.max_declared_chars as usize);
        let items = evidence_items(behavior, t.max_item_chars as usize);
        let render = |nonce: &str, included: &[EvidenceItem], omitted: usize| {
            let open = format!("<<<DATA {nonce}>>>");
            let close = format!("<<<END DATA {nonce}>>>");
            let threats: String = t
                .threats
                .iter()
                .map(|x| format!("- {}: {}", x.name, x.hint))
                .collect::<Vec<_>>()
                .join("\n");
            let system = fill(
                &t.system,
                &[("threats", &threats), ("open", &open), ("close", &close)],
            );
            let evidence = if included.is_empty() {
                "(static analysis found no capabilities or data flows)".to_string()
            } else {
                included
                    .iter()
                    .map(|i| i.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            let omitted_text = if omitted == 0 {
                String::new()
            } else {
                format!(
                    "({omitted} lower-priority evidence item(s) omitted to fit the size limit.)\n"
                )
            };
            let user = fill(
                &t.user,
                &[
                    ("open", &open),
                    ("close", &close),
                    ("declared", &declared),
                    ("evidence", &evidence),
                    ("omitted", &omitted_text),
                ],
            );
            (system, user, open, close)
        };
        // Greedy by priority: keep adding items while the whole prompt fits the budget. The
        // instructions are never cut; with a tiny budget only the evidence shrinks (to nothing).
        let budget = u64::from(t.max_prompt_tokens);
        let mut included: Vec<EvidenceItem> = Vec::new();
        let mut omitted = 0usize;
        for item in &items {
            let mut candidate = included.clone();
            candidate.push(item.clone());
            let (s, u, _, _) = render(nonce, &candidate, items.len() - candidate.len());
            if estimate_tokens(&s) + estimate_tokens(&u) <= budget {
                included = candidate;
            } else {
                omitted += 1;
            }
        }
        // Renumber so the ids the model sees are contiguous in the order shown.
        for (n, item) in included.iter_mut().enumerate() {
            let new_id = format!("E{}", n + 1);
            item.text = item.text.replacen(&item.id, &new_id, 1);
            item.id = new_id;
        }
        let (system, user, open, close) = render(nonce, &included, omitted);
        let (cs, cu, _, _) = render(CANONICAL_NONCE, &included, omitted);
        let mut h = Sha256::new();
        for part in [cs.as_str(), cu.as_str()] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        let canonical_hash = hex(&h.finalize());
        Prompt {
            estimated_tokens: estimate_tokens(&system) + estimate_tokens(&user),
            system,
            user,
            evidence: included,
            omitted,
            declared_truncated,
            canonical_hash,
            open,
            close,
        }
    }
}

const CANONICAL_NONCE: &str = "00000000000000000000000000000000";

pub(crate) fn random_nonce() -> String {
    let mut buf = [0u8; 16];
    if getrandom::fill(&mut buf).is_err() {
        // No OS randomness: fall back to a per-process SipHash key (still secret to the server).
        use std::hash::{BuildHasher, Hasher};
        let s = std::collections::hash_map::RandomState::new();
        for chunk in buf.chunks_mut(8) {
            let mut h = s.build_hasher();
            h.write_usize(chunk.as_ptr() as usize);
            chunk.copy_from_slice(&h.finish().to_le_bytes()[..chunk.len()]);
        }
    }
    hex(&buf)
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn evidence_mentions(b: &ToolBehavior, needle: &str) -> bool {
    evidence_items(b, usize::MAX)
        .iter()
        .any(|i| i.text.contains(needle))
}

/// Tool name, description and parameters, as the server declares them (all untrusted).
fn declared_text(b: &ToolBehavior) -> String {
    let mut s = format!("tool: {}\n", b.tool.name);
    match &b.declared {
        Some(d) if !d.trim().is_empty() => s.push_str(&format!("description: {}\n", d.trim())),
        _ => s.push_str("description: (none)\n"),
    }
    if b.parameters.is_empty() {
        s.push_str("parameters: (none)");
    } else {
        s.push_str("parameters:");
        for p in &b.parameters {
            s.push_str(&format!("\n- {}", p.name));
            if let Some(t) = &p.type_hint {
                s.push_str(&format!(" ({t})"));
            }
            if let Some(d) = &p.description {
                s.push_str(&format!(": {}", d.trim()));
            }
        }
    }
    s
}

/// Cuts `text` to at most `max` characters, saying how much was cut.
pub(crate) fn truncate_chars(text: &str, max: usize) -> (String, bool) {
    let n = text.chars().count();
    if n <= max {
        return (text.to_string(), false);
    }
    let marker = format!(" [... {} more characters cut]", n.saturating_sub(max));
    let keep = max.saturating_sub(marker.chars().count());
    let mut s: String = text.chars().take(keep).collect();
    s.push_str(&marker);
    (s, true)
}

/// Kinds whose presence alone matters most for alignment.
fn capability_priority(kind: &str) -> u8 {
    match kind {
        "command-exec" | "process-exec" | "code-eval" | "deserialize" => 2,
        k if k.starts_with("network") => 3,
        "socket" | "dns" | "env-read" | "file-permission" | "background" => 3,
        "file-write" | "file-delete" | "sql" | "template" => 4,
        "file-read" | "file-list" => 5,
        _ => 6,
    }
}

fn is_execution(kind: &str) -> bool {
    matches!(
        kind,
        "command-exec" | "process-exec" | "code-eval" | "deserialize"
    )
}

fn is_network(kind: &str) -> bool {
    kind.starts_with("network") || kind == "socket" || kind == "dns"
}

fn flow_priority(f: &TaintFlow) -> u8 {
    let secret = f.source.starts_with("secret:");
    let network = is_network(&f.sink_kind);
    match (f.sanitized, secret, network) {
        (false, true, true) => 0,
        (false, true, _) | (false, _, true) => 1,
        (false, false, false) => match f.sink_kind.as_str() {
            "command-exec" | "process-exec" | "code-eval" | "deserialize" | "sql" | "template" => 1,
            _ => 2,
        },
        (true, _, _) => 7,
    }
}

fn loc(l: &SourceLocation) -> String {
    format!("{}:{}", l.file, l.line)
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn render_flow(id: &str, f: &TaintFlow, max: usize) -> String {
    let mut s = format!(
        "{id} flow: {} -> {} via {}{}",
        f.source,
        f.sink_kind,
        f.sink_api,
        if f.sanitized { " (sanitized)" } else { "" }
    );
    // Long paths keep their first two and last two hops: where the data comes from and where
    // it ends up matter most.
    let hops: Vec<&mcp_scan_core::FlowStep> = if f.path.len() > 5 {
        f.path
            .iter()
            .take(2)
            .chain(f.path.iter().skip(f.path.len() - 2))
            .collect()
    } else {
        f.path.iter().collect()
    };
    for (i, h) in hops.iter().enumerate() {
        if f.path.len() > 5 && i == 2 {
            s.push_str(&format!("\n   ... {} hop(s) ...", f.path.len() - 4));
        }
        s.push_str(&format!("\n   {} {}", loc(&h.location), one_line(&h.note)));
    }
    truncate_chars(&s, max).0
}

fn render_capability(id: &str, c: &Capability, max: usize) -> String {
    let mut s = format!(
        "{id} capability: {} via {} at {}",
        c.kind,
        c.api,
        loc(&c.location)
    );
    if let Some(d) = &c.detail {
        s.push_str(&format!(" [{}]", one_line(d)));
    }
    if let Some(snip) = &c.location.snippet {
        s.push_str(&format!("\n   code: {}", one_line(snip)));
    }
    if !c.via.is_empty() {
        let chain: Vec<String> = c.via.iter().map(loc).collect();
        s.push_str(&format!("\n   reached via {}", chain.join(" -> ")));
    }
    truncate_chars(&s, max).0
}

/// (priority, position in the behaviour, renderer given the id, location, short note)
type RawItem<'a> = (
    u8,
    usize,
    Box<dyn Fn(&str) -> String + 'a>,
    SourceLocation,
    String,
);

/// Every evidence item of a behaviour, most important first, ids assigned in that order.
pub fn evidence_items(b: &ToolBehavior, max_item_chars: usize) -> Vec<EvidenceItem> {
    let mut raw: Vec<(RawItem<'_>, bool)> = Vec::new();
    for (i, f) in b.flows.iter().enumerate() {
        let location = f
            .path
            .last()
            .map(|s| s.location.clone())
            .unwrap_or_else(|| b.location.clone());
        let note = format!("{} reaches {} ({})", f.source, f.sink_kind, f.sink_api);
        let strong = !f.sanitized
            && (f.source.starts_with("secret:")
                || is_network(&f.sink_kind)
                || is_execution(&f.sink_kind));
        raw.push((
            (
                flow_priority(f),
                i,
                Box::new(move |id: &str| render_flow(id, f, max_item_chars)),
                location,
                note,
            ),
            strong,
        ));
    }
    let nflows = b.flows.len();
    for (i, c) in b.capabilities.iter().enumerate() {
        let note = match &c.detail {
            Some(d) => format!("{} via {} ({})", c.kind, c.api, one_line(d)),
            None => format!("{} via {}", c.kind, c.api),
        };
        raw.push((
            (
                capability_priority(&c.kind),
                nflows + i,
                Box::new(move |id: &str| render_capability(id, c, max_item_chars)),
                c.location.clone(),
                note,
            ),
            is_network(&c.kind) || is_execution(&c.kind),
        ));
    }
    let ncap = nflows + b.capabilities.len();
    for (i, n) in b.notes.iter().enumerate() {
        let text = one_line(n);
        raw.push((
            (
                8,
                ncap + i,
                Box::new(move |id: &str| {
                    truncate_chars(&format!("{id} note: {text}"), max_item_chars).0
                }),
                b.location.clone(),
                one_line(n),
            ),
            false,
        ));
    }
    if !b.complete {
        raw.push((
            (
                1,
                usize::MAX,
                Box::new(|id: &str| {
                    format!("{id} note: static analysis of this tool is incomplete; absence of evidence is not evidence of absence")
                }),
                b.location.clone(),
                "static analysis incomplete".to_string(),
            ),
            false,
        ));
    }
    raw.sort_by_key(|((p, i, ..), _)| (*p, *i));
    raw.into_iter()
        .enumerate()
        .map(|(n, ((priority, _, render, location, note), strong))| {
            let id = format!("E{}", n + 1);
            EvidenceItem {
                text: render(&id),
                id,
                priority,
                location,
                note,
                strong,
            }
        })
        .collect()
}
