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
    /// What makes it strong: `network`, `execution`, `secret` (empty when not strong).
    pub shows: Vec<&'static str>,
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

    /// Builds the prompt for one tool. The delimiter key is a hash of the data it fences, so
    /// unchanged code gets a byte-identical prompt (stable verdicts, cacheable by providers)
    /// while the server still cannot close the fence: its text would have to contain the hash
    /// of itself.
    pub fn build(&self, behavior: &ToolBehavior) -> Prompt {
        let mut h = Sha256::new();
        h.update(declared_text(behavior).as_bytes());
        for i in evidence_items(behavior, usize::MAX) {
            h.update([0u8]);
            h.update(i.text.as_bytes());
        }
        for c in &behavior.code {
            h.update([1u8]);
            h.update(c.text.as_bytes());
        }
        let seed = h.finalize();
        let mut nonce = content_nonce(&seed, 0);
        // Guards the invariant that no server text contains the real closing delimiter.
        let mut n = 0u32;
        while data_mentions(behavior, &nonce) {
            n += 1;
            nonce = content_nonce(&seed, n);
        }
        self.build_with_nonce(behavior, &nonce)
    }

    /// Builds the prompt with a given delimiter nonce (tests and the canonical form).
    pub fn build_with_nonce(&self, behavior: &ToolBehavior, nonce: &str) -> Prompt {
        let t = &self.template;
        let (declared, declared_truncated) =
            truncate_chars(&declared_text(behavior), t.max_declared_chars as usize);
        let items = evidence_items(behavior, t.max_item_chars as usize);
        let render = |nonce: &str, included: &[EvidenceItem], omitted: usize, code: &str| {
            let open = format!("<<<DATA {nonce}>>>");
            let close = format!("<<<END DATA {nonce}>>>");
            let threats: String = t
                .threats
                .iter()
                .map(|x| format!("- {}: {}", x.name, x.hint))
                .collect::<Vec<_>>()
                .join("\n");
            let system = fill(&t.system, &[("threats", &threats)]);
            let code_text = if code.is_empty() {
                String::new()
            } else {
                format!(
                    "\nSource of the tool and the helpers it calls (the static evidence is thin):\n{open}\n{code}\n{close}\n"
                )
            };
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
                    ("code", &code_text),
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
            let (s, u, _, _) = render(nonce, &candidate, items.len() - candidate.len(), "");
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
        // The code goes in last, in what the budget leaves (whole lines, handler first).
        let code = {
            let (s0, u0, _, _) = render(nonce, &included, omitted, "x");
            let left = budget.saturating_sub(estimate_tokens(&s0) + estimate_tokens(&u0));
            code_within(
                &behavior.code,
                usize::try_from(left.saturating_mul(4)).unwrap_or(0),
            )
        };
        let (system, user, open, close) = render(nonce, &included, omitted, &code);
        let (cs, cu, _, _) = render(CANONICAL_NONCE, &included, omitted, &code);
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

/// The excerpts as the model sees them, within `max` characters: each under a comment naming
/// the function and its location, cut at a line end with a note when space runs out.
fn code_within(code: &[mcp_scan_core::CodeExcerpt], max: usize) -> String {
    const CUT: &str = "# ... (cut to fit the size limit)";
    let mut out = String::new();
    for c in code {
        let head = format!("# {} ({})\n", c.function, loc(&c.location));
        let room = max.saturating_sub(out.chars().count() + head.chars().count() + 1);
        if room < CUT.len() + 40 {
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&head);
        if c.text.chars().count() <= room {
            out.push_str(c.text.trim_end());
            continue;
        }
        let mut used = 0usize;
        for line in c.text.lines() {
            let n = line.chars().count() + 1;
            if used + n + CUT.len() > room {
                break;
            }
            out.push_str(line);
            out.push('\n');
            used += n;
        }
        out.push_str(CUT);
        break;
    }
    out
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

fn data_mentions(b: &ToolBehavior, needle: &str) -> bool {
    declared_text(b).contains(needle)
        || evidence_items(b, usize::MAX)
            .iter()
            .any(|i| i.text.contains(needle))
        || b.code.iter().any(|c| c.text.contains(needle))
}

/// 32 hex characters from the data's hash and a counter.
fn content_nonce(seed: &[u8], n: u32) -> String {
    let mut h = Sha256::new();
    h.update(seed);
    h.update(n.to_le_bytes());
    let d = h.finalize();
    hex(d.get(..16).unwrap_or(&d))
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
    let header = format!(
        "{id} flow: {} -> {} via {}{}",
        f.source,
        f.sink_kind,
        f.sink_api,
        if f.sanitized { " (sanitized)" } else { "" }
    );
    let hop = |h: &mcp_scan_core::FlowStep, room: usize| {
        let at = loc(&h.location);
        let note = clip_code(
            &one_line(&h.note),
            room.saturating_sub(at.chars().count() + 4),
        );
        format!("\n   {at} {note}")
    };
    // Where the data ends up matters most: the last hop (the sink) is kept whole as long as
    // anything is; middle hops go first, then the source end shrinks.
    let n = f.path.len();
    let Some(last) = f.path.last() else {
        return truncate_chars(&header, max).0;
    };
    let sink = hop(last, max.saturating_sub(header.chars().count()));
    let mut firsts: Vec<String> = f
        .path
        .iter()
        .take(n.saturating_sub(1))
        .map(|h| hop(h, max / 3))
        .collect();
    let len = |firsts: &[String], elided: usize| {
        header.chars().count()
            + sink.chars().count()
            + firsts.iter().map(|x| x.chars().count()).sum::<usize>()
            + if elided > 0 { 24 } else { 0 }
    };
    let mut elided = 0usize;
    while len(&firsts, elided) > max && firsts.len() > 1 {
        firsts.remove(1.min(firsts.len() - 1));
        elided += 1;
    }
    if len(&firsts, elided) > max {
        firsts.clear();
        elided = n.saturating_sub(1);
    }
    let mut s = header.clone();
    for (i, x) in firsts.iter().enumerate() {
        s.push_str(x);
        if i == 0 && elided > 0 {
            s.push_str(&format!("\n   ... {elided} hop(s) ..."));
        }
    }
    if firsts.is_empty() && elided > 0 {
        s.push_str(&format!("\n   ... {elided} hop(s) ..."));
    }
    s.push_str(&sink);
    s
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
    let (mut s, _) = truncate_chars(&s, max / 2);
    if let Some(snip) = &c.location.snippet {
        let room = max.saturating_sub(s.chars().count() + 10);
        s.push_str(&format!("\n   code: {}", clip_code(&one_line(snip), room)));
    }
    if !c.via.is_empty() {
        let chain: Vec<String> = c.via.iter().map(loc).collect();
        let via = format!("\n   reached via {}", chain.join(" -> "));
        if s.chars().count() + via.chars().count() <= max {
            s.push_str(&via);
        }
    }
    s
}

/// Shortens a line of code to `max` characters without cutting a call in half: the innermost
/// bracketed arguments become `…` first (`requests.post(url, data=dumps(…))`, then
/// `requests.post(…)`), so the callee and the shape of the call stay.
pub(crate) fn clip_code(code: &str, max: usize) -> String {
    if code.chars().count() <= max {
        return code.to_string();
    }
    let depth_max = bracket_depths(code).into_iter().max().unwrap_or(0);
    for d in (1..=depth_max).rev() {
        let shorter = collapse_from_depth(code, d);
        if shorter.chars().count() <= max {
            return shorter;
        }
    }
    let collapsed = collapse_from_depth(code, 1);
    // Still too long (a very long callee chain or no brackets): keep the start.
    truncate_chars(&collapsed, max).0
}

/// Bracket depth of each character (inside string literals, brackets do not count).
fn bracket_depths(code: &str) -> Vec<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut out = Vec::with_capacity(code.len());
    let mut prev = '\0';
    for ch in code.chars() {
        match quote {
            Some(q) => {
                out.push(depth);
                if ch == q && prev != '\\' {
                    quote = None;
                }
            }
            None => match ch {
                '\'' | '"' => {
                    quote = Some(ch);
                    out.push(depth);
                }
                '(' | '[' | '{' => {
                    out.push(depth);
                    depth += 1;
                }
                ')' | ']' | '}' => {
                    depth = depth.saturating_sub(1);
                    out.push(depth);
                }
                _ => out.push(depth),
            },
        }
        prev = ch;
    }
    out
}

/// Replaces every run of characters at bracket depth `d` or deeper with `…`.
fn collapse_from_depth(code: &str, d: usize) -> String {
    let depths = bracket_depths(code);
    let mut out = String::new();
    let mut in_run = false;
    for (ch, depth) in code.chars().zip(depths) {
        if depth >= d {
            if !in_run {
                out.push('…');
                in_run = true;
            }
        } else {
            in_run = false;
            out.push(ch);
        }
    }
    out
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
    let mut raw: Vec<(RawItem<'_>, Vec<&'static str>)> = Vec::new();
    for (i, f) in b.flows.iter().enumerate() {
        let location = f
            .path
            .last()
            .map(|s| s.location.clone())
            .unwrap_or_else(|| b.location.clone());
        let note = format!("{} reaches {} ({})", f.source, f.sink_kind, f.sink_api);
        let mut shows = Vec::new();
        if !f.sanitized {
            for (yes, class) in [
                (f.source.starts_with("secret:"), "secret"),
                (is_network(&f.sink_kind), "network"),
                (is_execution(&f.sink_kind), "execution"),
            ] {
                if yes {
                    shows.push(class);
                }
            }
        }
        raw.push((
            (
                flow_priority(f),
                i,
                Box::new(move |id: &str| render_flow(id, f, max_item_chars)),
                location,
                note,
            ),
            shows,
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
            if is_network(&c.kind) {
                vec!["network"]
            } else if is_execution(&c.kind) {
                vec!["execution"]
            } else {
                vec![]
            },
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
            vec![],
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
            vec![],
        ));
    }
    raw.sort_by_key(|((p, i, ..), _)| (*p, *i));
    raw.into_iter()
        .enumerate()
        .map(|(n, ((priority, _, render, location, note), shows))| {
            let id = format!("E{}", n + 1);
            EvidenceItem {
                text: render(&id),
                id,
                priority,
                location,
                note,
                strong: !shows.is_empty(),
                shows,
            }
        })
        .collect()
}
