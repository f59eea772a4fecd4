//! Attribution (startup, one request window, after a response, background) and the runtime
//! findings: declared behaviour against observed behaviour, per tool.

use crate::canary::CanarySet;
use crate::events::{Event, EventKind};
use crate::exercise::{CallRecord, Exercise, Target};
use crate::rules::{ProbeKind, RuntimeRules, path_matches};
use crate::sandbox::{SANDBOX_HOME, SANDBOX_WORK, SINK_ADDR_STR};
use crate::sinks::Capture;
use mcp_scan_core::taxonomy::by_threat;
use mcp_scan_core::{Analyzer, Confidence, EntityKind, Evidence, Finding, Severity, ToolRef};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Where an event happened, relative to the client's requests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    Startup,
    /// During request `calls[i]`.
    Call(usize),
    /// After request `calls[i]` answered, by a thread or process it created.
    After(usize),
    Background,
}

impl Phase {
    pub fn label(&self, calls: &[CallRecord]) -> String {
        match self {
            Phase::Startup => "startup".into(),
            Phase::Background => "background".into(),
            Phase::Call(i) => calls[*i].phase(),
            Phase::After(i) => format!(
                "after:{}",
                calls[*i].phase().split_once(':').map_or("", |x| x.1)
            ),
        }
    }
    fn call(&self) -> Option<usize> {
        match self {
            Phase::Call(i) | Phase::After(i) => Some(*i),
            _ => None,
        }
    }
}

fn window_of(calls: &[CallRecord], ts: f64) -> Option<usize> {
    calls.iter().position(|c| ts >= c.start && ts <= c.end)
}

/// Assigns a phase to every event (events must be in trace order).
pub fn attribute(events: &mut [Event], calls: &[CallRecord], startup_end: f64) -> Vec<Phase> {
    let mut owner: HashMap<u32, usize> = HashMap::new();
    let mut phases = Vec::with_capacity(events.len());
    for e in events.iter_mut() {
        let phase = if let Some(i) = window_of(calls, e.ts) {
            Phase::Call(i)
        } else if let Some(&i) = owner.get(&e.pid) {
            Phase::After(i)
        } else if e.ts < startup_end || calls.is_empty() || e.ts < calls[0].start {
            Phase::Startup
        } else {
            Phase::Background
        };
        if e.kind == EventKind::Spawn
            && let (Some(child), Some(i)) = (e.child, phase.call())
        {
            owner.insert(child, i);
        }
        e.phase = phase.label(calls);
        phases.push(phase);
    }
    phases
}

/// Everything the analysis needs.
pub struct Inputs<'a> {
    pub server: &'a str,
    pub exercise: &'a Exercise,
    pub events: &'a [Event],
    pub phases: &'a [Phase],
    pub captures: &'a [Capture],
    pub canaries: &'a CanarySet,
    pub rules: &'a RuntimeRules,
    /// Files written in the writable areas after the run: (sandbox path, bytes, executable).
    pub written_files: &'a [(String, Vec<u8>, bool)],
}

/// The entity a phase belongs to.
fn entity_of(inp: &Inputs, phase: &Phase) -> ToolRef {
    match phase.call() {
        Some(i) => {
            let c = &inp.exercise.calls[i];
            let kind = match c.target {
                Target::Tool => EntityKind::Tool,
                Target::Resource => EntityKind::Resource,
                Target::Prompt => EntityKind::Prompt,
            };
            ToolRef::new(inp.server, kind, c.name.clone())
        }
        None => ToolRef::new(inp.server, EntityKind::Server, inp.server),
    }
}

fn tool_decl<'a>(ex: &'a Exercise, name: &str) -> Option<&'a Value> {
    ex.tools
        .iter()
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
}

/// Description plus title, lowercased, for declared-behaviour checks.
fn declared_text(inp: &Inputs, target: &ToolRef) -> String {
    let list = match target.kind {
        EntityKind::Tool => &inp.exercise.tools,
        EntityKind::Resource => &inp.exercise.resources,
        EntityKind::Prompt => &inp.exercise.prompts,
        _ => return String::new(),
    };
    let key = if target.kind == EntityKind::Resource {
        "uri"
    } else {
        "name"
    };
    list.iter()
        .find(|t| t.get(key).and_then(Value::as_str) == Some(target.name.as_str()))
        .map(|t| {
            let mut s = String::new();
            for k in ["name", "title", "description"] {
                if let Some(v) = t.get(k).and_then(Value::as_str) {
                    s.push_str(v);
                    s.push(' ');
                }
            }
            s.replace(['_', '-'], " ").to_lowercase()
        })
        .unwrap_or_default()
}

fn has_word(text: &str, words: &[String]) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| words.iter().any(|x| x == w))
}

fn declares_network(inp: &Inputs, target: &ToolRef) -> bool {
    if target.kind == EntityKind::Tool
        && let Some(t) = tool_decl(inp.exercise, &target.name)
        && t.pointer("/annotations/openWorldHint")
            .and_then(Value::as_bool)
            == Some(true)
    {
        return true;
    }
    has_word(&declared_text(inp, target), &inp.rules.network_words)
}

fn expand(p: &str) -> String {
    p.replace("{home}", SANDBOX_HOME)
}

fn is_sensitive(rules: &RuntimeRules, canaries: &CanarySet, path: &str) -> bool {
    canaries
        .canaries
        .iter()
        .filter_map(|c| c.home_path.as_deref())
        .any(|h| path == format!("{SANDBOX_HOME}/{h}"))
        || rules
            .sensitive_paths
            .iter()
            .any(|p| path_matches(&expand(p), path))
        || rules
            .sensitive_dirs
            .iter()
            .any(|d| path.starts_with(&format!("{}/", expand(d))))
}

fn is_egress(e: &Event) -> bool {
    if !matches!(e.kind, EventKind::Connect | EventKind::Send) {
        return false;
    }
    let Some(addr) = e.address.as_deref() else {
        return false;
    };
    if e.family.as_deref() == Some("AF_UNIX") || addr.starts_with('/') || addr.starts_with('@') {
        return false;
    }
    // 127.0.0.1 and ::1 stay local; every other address (127.0.0.10 included) is egress.
    !(addr == "127.0.0.1" || addr == "::1" || addr == SINK_ADDR_STR || addr == "0.0.0.0")
}

fn syscall_ev(e: &Event) -> Evidence {
    let mut line = e.raw.clone();
    if line.len() > 600 {
        let mut cut = 600;
        while !line.is_char_boundary(cut) {
            cut -= 1;
        }
        line.truncate(cut);
        line.push_str("...");
    }
    Evidence::Syscall {
        line,
        pid: Some(e.pid),
        phase: Some(e.phase.clone()),
    }
}

fn excerpt(s: &str, n: usize) -> String {
    let t: String = s.chars().take(n).collect();
    if t.len() < s.len() {
        format!("{t}...")
    } else {
        t
    }
}

fn capture_ev(c: &Capture) -> Evidence {
    Evidence::Network {
        destination: c.describe(),
        protocol: c.protocol.clone(),
        payload_excerpt: (!c.body.is_empty()).then(|| excerpt(&c.body, 300)),
    }
}

fn phase_note(label: &str) -> &'static str {
    if label.starts_with("after:") {
        " after its response"
    } else if label == "startup" {
        " at startup"
    } else if label == "background" {
        " in the background"
    } else {
        ""
    }
}

/// Adds evidence to a built finding (the fingerprint does not depend on it).
trait WithEvidence {
    fn evidence(self, e: Evidence) -> Self;
}

impl WithEvidence for Finding {
    fn evidence(mut self, e: Evidence) -> Self {
        self.evidence.push(e);
        self
    }
}

struct Acc {
    findings: BTreeMap<(ToolRef, String), Finding>,
}

impl Acc {
    fn add(&mut self, f: Finding, key: String) {
        self.findings.entry((f.target.clone(), key)).or_insert(f);
    }
    fn add_evidence(&mut self, target: &ToolRef, key: &str, e: Evidence) -> bool {
        if let Some(f) = self.findings.get_mut(&(target.clone(), key.to_string())) {
            if f.evidence.len() < 12 && !f.evidence.contains(&e) {
                f.evidence.push(e);
            }
            true
        } else {
            false
        }
    }
}

fn row(threat: &str) -> &'static mcp_scan_core::TaxonomyEntry {
    // Names from TAXONOMY.md; covered by `every_threat_used_resolves`.
    by_threat(threat).unwrap_or_else(|| panic!("taxonomy row {threat}"))
}

pub const THREATS_USED: &[&str] = &[
    "DATA EXFILTRATION",
    "UNAUTHORIZED OR UNSOLICITED SYSTEM ACCESS",
    "UNAUTHORIZED OR UNSOLICITED NETWORK ACCESS",
    "UNAUTHORIZED OR UNSOLICITED CODE EXECUTION",
    "INJECTION ATTACKS",
    "BACKDOOR",
    "ARBITRARY RESOURCE READ/WRITE",
    "DEFENSE EVASION",
    "TOOL POISONING",
];

#[allow(clippy::too_many_arguments)]
fn finding(
    rule: &str,
    threat: &str,
    target: &ToolRef,
    severity: Severity,
    title: &str,
    observation: String,
    declared: Option<String>,
    key: &str,
) -> Finding {
    Finding::builder(rule, Analyzer::Runtime, row(threat), target.clone())
        .severity(severity)
        .confidence(Confidence::High)
        .title(title)
        .observation(observation)
        .declared(declared)
        .key(key)
        .build()
}

fn description_of(inp: &Inputs, target: &ToolRef) -> Option<String> {
    (target.kind == EntityKind::Tool)
        .then(|| tool_decl(inp.exercise, &target.name))
        .flatten()
        .and_then(|t| t.get("description").and_then(Value::as_str))
        .map(str::to_string)
}

/// Every runtime finding.
pub fn findings(inp: &Inputs) -> Vec<Finding> {
    let mut acc = Acc {
        findings: BTreeMap::new(),
    };
    let calls = &inp.exercise.calls;
    // Which calls (per phase index) made network requests: an HTTP client reading ~/.netrc is
    // expected there.
    let mut net_calls: std::collections::HashSet<Option<usize>> = Default::default();
    for (e, p) in inp.events.iter().zip(inp.phases) {
        if is_egress(e) {
            net_calls.insert(p.call());
        }
    }
    // A sink records a connection when it accepts it, a little after the connect: attribute a
    // capture through the connect that made it (same original destination), else by time with a
    // small tolerance.
    let capture_phase = |c: &Capture| -> Phase {
        if let Some(dest) = &c.destination
            && let Some((_, p)) = inp.events.iter().zip(inp.phases).rev().find(|(e, _)| {
                matches!(e.kind, EventKind::Connect | EventKind::Send)
                    && e.ts <= c.ts
                    && e.address
                        .as_deref()
                        .zip(e.port)
                        .is_some_and(|(a, p)| format!("{a}:{p}") == *dest)
            })
        {
            return p.clone();
        }
        match window_of(calls, c.ts) {
            Some(i) => Phase::Call(i),
            None if c.ts < inp.exercise.startup_end => Phase::Startup,
            None => match calls.iter().rposition(|w| w.end <= c.ts) {
                Some(i) if c.ts - calls[i].end < 0.25 => Phase::Call(i),
                _ => Phase::Background,
            },
        }
    };
    // UDP sinks cannot recover the destination; the traced sendto with the same payload has it.
    let captures: Vec<Capture> = inp
        .captures
        .iter()
        .cloned()
        .map(|mut c| {
            if c.protocol == "udp"
                && c.destination.is_none()
                && let Some(e) = inp.events.iter().find(|e| {
                    e.kind == EventKind::Send && e.address.is_some() && e.bytes == c.bytes
                })
            {
                c.destination = Some(format!(
                    "{}:{}",
                    e.address.clone().unwrap_or_default(),
                    e.port.unwrap_or(0)
                ));
            }
            c
        })
        .collect();
    for c in &captures {
        if c.protocol == "dns" {
            net_calls.insert(capture_phase(c).call());
        }
    }

    // Per-entity behaviour categories per valid call number, for "changes on the Nth call".
    let mut categories: BTreeMap<(String, u32), Vec<&'static str>> = BTreeMap::new();
    let mut after_activity: BTreeMap<ToolRef, Vec<Evidence>> = BTreeMap::new();
    // Sink captures: egress evidence and canaries.
    for c in &captures {
        let p = capture_phase(c);
        let target = entity_of(inp, &p);
        let label = p.label(calls);
        let note = phase_note(&label);
        egress(&mut acc, inp, &target, note, capture_ev(c));
        if let Some(i) = p.call() {
            let cat = if c.protocol == "dns" {
                "dns"
            } else {
                "network"
            };
            if calls[i].label == "valid" {
                categories
                    .entry((calls[i].name.clone(), calls[i].n))
                    .or_default()
                    .push(cat);
            }
        }
        let hits = inp.canaries.find(&c.bytes);
        if !hits.is_empty() {
            let channel = if c.protocol == "dns" {
                "a DNS name"
            } else {
                "a network payload"
            };
            leak(&mut acc, inp, &target, channel, &hits, note, capture_ev(c));
        }
    }
    let mut note_cat = |p: &Phase, cat: &'static str| {
        if let Some(i) = p.call() {
            let c = &calls[i];
            if c.label == "valid" && c.target == Target::Tool {
                categories
                    .entry((c.name.clone(), c.n))
                    .or_default()
                    .push(cat);
            }
        }
    };

    for (e, p) in inp.events.iter().zip(inp.phases) {
        let target = entity_of(inp, p);
        let note = phase_note(&e.phase);
        let security_relevant;
        match e.kind {
            EventKind::FileOpen if !e.write && e.ok() => {
                let eff = e.effective_path().unwrap_or_default().to_string();
                let req = e.path.clone().unwrap_or_default();
                if !(is_sensitive(inp.rules, inp.canaries, &eff)
                    || is_sensitive(inp.rules, inp.canaries, &req))
                {
                    // Path traversal probe that escaped the workspace.
                    if let Some(i) = p.call()
                        && calls[i].probe_kind == Some(ProbeKind::Path)
                        && eff == "/etc/passwd"
                    {
                        let key = "path-traversal".to_string();
                        if !acc.add_evidence(&target, &key, syscall_ev(e)) {
                            acc.add(
                                finding(
                                    "MCP-R007",
                                    "ARBITRARY RESOURCE READ/WRITE",
                                    &target,
                                    Severity::Medium,
                                    "path traversal reaches files outside the workspace",
                                    format!(
                                        "given `{}`, opened {eff} outside the workspace",
                                        excerpt(
                                            &calls[i]
                                                .arguments
                                                .as_ref()
                                                .map(|a| Value::Object(a.clone()).to_string())
                                                .unwrap_or_default(),
                                            120
                                        )
                                    ),
                                    description_of(inp, &target),
                                    &key,
                                )
                                .evidence(syscall_ev(e)),
                                key,
                            );
                        }
                    }
                    continue;
                }
                security_relevant = true;
                note_cat(p, "sensitive-read");
                let http_file = inp
                    .rules
                    .http_client_files
                    .iter()
                    .any(|h| expand(h) == eff || expand(h) == req);
                let expected = http_file && net_calls.contains(&p.call());
                let via = if req != eff && !req.is_empty() {
                    format!(" (through `{req}`)")
                } else {
                    String::new()
                };
                let shown = eff.replacen(SANDBOX_HOME, "~", 1);
                let key = format!("read:{shown}");
                if !acc.add_evidence(&target, &key, syscall_ev(e)) {
                    let (sev, title, obs) = if expected {
                        (
                            Severity::Low,
                            "reads HTTP client credentials while making a request",
                            format!(
                                "reads {shown}{via}{note}, as HTTP client libraries do on every request"
                            ),
                        )
                    } else {
                        (
                            Severity::High,
                            "reads a sensitive file",
                            format!("reads {shown}{via}{note}, undeclared"),
                        )
                    };
                    acc.add(
                        finding(
                            "MCP-R002",
                            "UNAUTHORIZED OR UNSOLICITED SYSTEM ACCESS",
                            &target,
                            sev,
                            title,
                            obs,
                            description_of(inp, &target),
                            &key,
                        )
                        .evidence(syscall_ev(e)),
                        key,
                    );
                }
            }
            EventKind::Connect | EventKind::Send if is_egress(e) => {
                security_relevant = true;
                note_cat(p, "network");
                // SSRF probe reaching a metadata address.
                if let Some(i) = p.call()
                    && calls[i].probe_kind == Some(ProbeKind::Url)
                    && e.address.as_deref() == Some("169.254.169.254")
                {
                    let key = "ssrf".to_string();
                    if !acc.add_evidence(&target, &key, syscall_ev(e)) {
                        acc.add(
                            finding(
                                "MCP-R008",
                                "UNAUTHORIZED OR UNSOLICITED NETWORK ACCESS",
                                &target,
                                Severity::Medium,
                                "fetches cloud metadata addresses it is given (SSRF)",
                                "given http://169.254.169.254/..., connected to the cloud metadata address".into(),
                                description_of(inp, &target),
                                &key,
                            )
                            .evidence(syscall_ev(e)),
                            key,
                        );
                    }
                    continue;
                }
                egress(&mut acc, inp, &target, note, syscall_ev(e));
            }
            EventKind::Exec if p.call().is_some() || matches!(p, Phase::Background) => {
                let argv = e.argv.clone().unwrap_or_default();
                let joined = format!("{} {}", e.path.clone().unwrap_or_default(), argv.join(" "));
                // Injection probe: our marker reached an execve (as program or argument).
                if let Some(i) = p.call()
                    && let Some(m) = calls[i].marker.as_deref()
                    && joined.contains(m)
                {
                    security_relevant = true;
                    let key = format!("injection:{}", calls[i].label);
                    if !acc.add_evidence(&target, &key, syscall_ev(e)) {
                        acc.add(
                            finding(
                                "MCP-R006",
                                "INJECTION ATTACKS",
                                &target,
                                Severity::High,
                                "an injection probe was executed",
                                format!(
                                    "the {} probe's marker reached execve: {}",
                                    calls[i].label,
                                    excerpt(&argv.join(" "), 200)
                                ),
                                description_of(inp, &target),
                                &key,
                            )
                            .evidence(syscall_ev(e)),
                            key,
                        );
                    }
                } else if e.ok() {
                    security_relevant = true;
                    note_cat(p, "exec");
                    let prog = e
                        .path
                        .as_deref()
                        .and_then(|x| x.rsplit('/').next())
                        .unwrap_or("")
                        .to_string();
                    let decl = declared_text(inp, &target);
                    let declared = has_word(&decl, &inp.rules.exec_words)
                        || (!prog.is_empty() && has_word(&decl, &[prog.to_lowercase()]));
                    let key = format!("exec:{prog}");
                    if !acc.add_evidence(&target, &key, syscall_ev(e)) {
                        let (sev, obs) = if declared {
                            (
                                Severity::Info,
                                format!(
                                    "runs `{}`{note} (declared)",
                                    excerpt(&argv.join(" "), 200)
                                ),
                            )
                        } else {
                            (
                                Severity::Medium,
                                format!(
                                    "runs `{}`{note}, undeclared",
                                    excerpt(&argv.join(" "), 200)
                                ),
                            )
                        };
                        acc.add(
                            finding(
                                "MCP-R004",
                                "UNAUTHORIZED OR UNSOLICITED CODE EXECUTION",
                                &target,
                                sev,
                                "starts a subprocess",
                                obs,
                                description_of(inp, &target),
                                &key,
                            )
                            .evidence(syscall_ev(e)),
                            key,
                        );
                    }
                } else {
                    continue;
                }
            }
            EventKind::Exec => {
                // A failed exec attempt of a probe marker (a shell looking it up on PATH) counts too.
                continue;
            }
            EventKind::Chmod if e.ok() => {
                let mode = e
                    .flags
                    .as_deref()
                    .and_then(|m| {
                        u32::from_str_radix(m.trim_start_matches("0o").trim_start_matches('0'), 8)
                            .ok()
                            .or(Some(0))
                    })
                    .unwrap_or(0);
                if mode & 0o111 == 0 {
                    continue;
                }
                security_relevant = true;
                note_cat(p, "dropped-executable");
                let path = e.path.clone().unwrap_or_default();
                dropped(&mut acc, inp, &target, &path, note, syscall_ev(e));
            }
            EventKind::FileOpen | EventKind::Rename | EventKind::Symlink | EventKind::Unlink
                if e.write && e.ok() =>
            {
                let path = match e.kind {
                    EventKind::Rename => e.target.clone(),
                    _ => e.effective_path().map(str::to_string),
                }
                .unwrap_or_default();
                if inp
                    .rules
                    .persistence_paths
                    .iter()
                    .any(|pp| path_matches(&expand(pp), &path))
                {
                    security_relevant = true;
                    note_cat(p, "persistence");
                    let key = format!("persist:{path}");
                    if !acc.add_evidence(&target, &key, syscall_ev(e)) {
                        acc.add(
                            finding(
                                "MCP-R005",
                                "BACKDOOR",
                                &target,
                                Severity::High,
                                "writes a persistence file",
                                format!("writes {}{note}", path.replacen(SANDBOX_HOME, "~", 1)),
                                description_of(inp, &target),
                                &key,
                            )
                            .evidence(syscall_ev(e)),
                            key,
                        );
                    }
                } else if outside_workspace(&path) && p.call().is_some() {
                    security_relevant = true;
                    note_cat(p, "write-outside");
                    let key = "write-outside".to_string();
                    if !acc.add_evidence(&target, &key, syscall_ev(e)) {
                        acc.add(
                            finding(
                                "MCP-R009",
                                "ARBITRARY RESOURCE READ/WRITE",
                                &target,
                                Severity::Medium,
                                "writes outside the workspace",
                                format!(
                                    "modifies {}{note}, outside the workspace",
                                    path.replacen(SANDBOX_HOME, "~", 1)
                                ),
                                description_of(inp, &target),
                                &key,
                            )
                            .evidence(syscall_ev(e)),
                            key,
                        );
                    }
                } else {
                    continue;
                }
            }
            _ => continue,
        }
        if security_relevant && e.phase.starts_with("after:") {
            after_activity
                .entry(target)
                .or_default()
                .push(syscall_ev(e));
        }
    }

    // Exec attempts of probe markers that failed (the shell tried to run our marker).
    for (e, p) in inp.events.iter().zip(inp.phases) {
        if e.kind != EventKind::Exec || e.ok() {
            continue;
        }
        if let Some(i) = p.call()
            && let Some(m) = calls[i].marker.as_deref()
            && e.path.as_deref().is_some_and(|x| x.contains(m))
        {
            let target = entity_of(inp, p);
            let key = format!("injection:{}", calls[i].label);
            if !acc.add_evidence(&target, &key, syscall_ev(e)) {
                acc.add(
                    finding(
                        "MCP-R006",
                        "INJECTION ATTACKS",
                        &target,
                        Severity::High,
                        "an injection probe was executed",
                        format!(
                            "the {} probe made the server try to run `{m}`",
                            calls[i].label
                        ),
                        description_of(inp, &target),
                        &key,
                    )
                    .evidence(syscall_ev(e)),
                    key,
                );
            }
        }
    }

    // Canaries in traced payloads (UDP without a sink answer, unix sockets) and exec arguments.
    for (e, p) in inp.events.iter().zip(inp.phases) {
        let channel = match e.kind {
            EventKind::Send if is_egress(e) => "a network payload",
            EventKind::Exec => "exec arguments",
            _ => continue,
        };
        let hits = inp.canaries.find(&e.bytes);
        if !hits.is_empty() {
            let target = entity_of(inp, p);
            leak(
                &mut acc,
                inp,
                &target,
                channel,
                &hits,
                phase_note(&e.phase),
                syscall_ev(e),
            );
        }
    }
    // Canaries in responses.
    for (i, c) in calls.iter().enumerate() {
        let hits = inp.canaries.find(c.response.as_bytes());
        if !hits.is_empty() {
            let target = entity_of(inp, &Phase::Call(i));
            leak(
                &mut acc,
                inp,
                &target,
                "the tool's response",
                &hits,
                "",
                Evidence::Note {
                    text: format!("{} response: {}", c.phase(), excerpt(&c.response, 300)),
                },
            );
        }
    }
    // Files written: canaries copied elsewhere, executables dropped.
    for (path, bytes, exec) in inp.written_files {
        let hits = inp.canaries.find(bytes);
        let writer = inp
            .events
            .iter()
            .zip(inp.phases)
            .find(|(e, _)| e.write && e.effective_path() == Some(path.as_str()));
        let (target, note, ev) = match writer {
            Some((e, p)) => (entity_of(inp, p), phase_note(&e.phase), syscall_ev(e)),
            None => (
                entity_of(inp, &Phase::Background),
                "",
                Evidence::Note {
                    text: format!("{path} found after the run"),
                },
            ),
        };
        if !hits.is_empty() {
            leak(
                &mut acc,
                inp,
                &target,
                "a file it wrote",
                &hits,
                note,
                ev.clone(),
            );
        }
        if *exec {
            dropped(&mut acc, inp, &target, path, note, ev);
        }
    }

    // Activity after a response.
    for (target, evs) in after_activity {
        let key = "after-response".to_string();
        let mut f = finding(
            "MCP-R010",
            "DEFENSE EVASION",
            &target,
            Severity::Medium,
            "keeps acting after its response",
            "a thread or process started by this tool kept doing security-relevant work after the response was sent".into(),
            description_of(inp, &target),
            &key,
        );
        f.evidence = evs.into_iter().take(8).collect();
        acc.add(f, key);
    }

    // Behaviour that appears only on a later call.
    let mut first: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for ((name, n), cats) in &categories {
        if *n == 1 {
            first.insert(name.clone(), cats.clone());
        }
    }
    for ((name, n), cats) in &categories {
        if *n <= 1 {
            continue;
        }
        let base = first.get(name).cloned().unwrap_or_default();
        let new: Vec<&str> = cats.iter().copied().filter(|c| !base.contains(c)).collect();
        if new.is_empty() {
            continue;
        }
        let target = ToolRef::tool(inp.server, name.clone());
        let key = "nth-call".to_string();
        let mut sorted = new.clone();
        sorted.sort_unstable();
        sorted.dedup();
        acc.add(
            finding(
                "MCP-R011",
                "DEFENSE EVASION",
                &target,
                Severity::Low,
                "behaves differently on a later call",
                format!(
                    "call #{n} did what call #1 with the same input did not: {}",
                    sorted.join(", ")
                ),
                description_of(inp, &target),
                &key,
            )
            .evidence(Evidence::Note {
                text: format!(
                    "call #1: {}; call #{n}: {}",
                    if base.is_empty() {
                        "nothing security-relevant".to_string()
                    } else {
                        base.join(", ")
                    },
                    sorted.join(", ")
                ),
            }),
            key,
        );
    }

    // Tool list drift within the session.
    if let Some(after) = &inp.exercise.tools_after {
        let index = |v: &[Value]| -> BTreeMap<String, String> {
            v.iter()
                .filter_map(|t| {
                    Some((
                        t.get("name")?.as_str()?.to_string(),
                        crate::pins::canonical(t),
                    ))
                })
                .collect()
        };
        let before = index(&inp.exercise.tools);
        let later = index(after);
        for (name, c) in &later {
            let change = match before.get(name) {
                Some(b) if b != c => "changed its definition",
                None => "appeared",
                _ => continue,
            };
            let target = ToolRef::tool(inp.server, name.clone());
            let key = "relisted".to_string();
            acc.add(
                finding(
                    "MCP-R012",
                    "TOOL POISONING",
                    &target,
                    Severity::High,
                    "tool changed between listings",
                    format!(
                        "`{name}` {change} between the first tools/list and the one after the calls"
                    ),
                    description_of(inp, &target),
                    &key,
                )
                .evidence(Evidence::Note {
                    text: format!("after: {}", excerpt(c, 400)),
                }),
                key,
            );
        }
    }
    for ((_, key), f) in acc.findings.iter_mut() {
        if key == "egress" {
            summarize_egress(f);
        }
    }
    acc.findings.into_values().collect()
}

/// Rewrites an egress observation to list every destination seen (HTTP requests and TLS names
/// first, then DNS names, then raw addresses).
fn summarize_egress(f: &mut Finding) {
    let mut dests: Vec<String> = Vec::new();
    let push = |dests: &mut Vec<String>, d: String| {
        if !dests.contains(&d) {
            dests.push(d);
        }
    };
    for e in &f.evidence {
        if let Evidence::Network {
            destination,
            protocol,
            ..
        } = e
            && protocol != "dns"
        {
            push(&mut dests, destination.clone());
        }
    }
    for e in &f.evidence {
        if let Evidence::Network {
            destination,
            protocol,
            ..
        } = e
            && protocol == "dns"
        {
            push(&mut dests, destination.clone());
        }
    }
    if dests.is_empty() {
        for e in &f.evidence {
            if let Evidence::Syscall { line, .. } = e
                && let Some(addr) = line
                    .split("inet_addr(\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
            {
                let port = line
                    .split("htons(")
                    .nth(1)
                    .and_then(|r| r.split(')').next())
                    .unwrap_or("?");
                push(&mut dests, format!("{addr}:{port}"));
            }
        }
    }
    if dests.is_empty() {
        return;
    }
    let shown = if dests.len() > 4 {
        format!("{} and {} more", dests[..4].join(", "), dests.len() - 4)
    } else {
        dests.join(", ")
    };
    if let Some((head, tail)) = f.observation.split_once(" to ") {
        let rest = tail
            .find(" (declared)")
            .map(|i| &tail[i..])
            .or_else(|| tail.find(", undeclared").map(|i| &tail[i..]))
            .unwrap_or("");
        f.observation = format!("{head} to {shown}{rest}");
    }
}

fn outside_workspace(path: &str) -> bool {
    if path.is_empty() || !path.starts_with('/') {
        return false;
    }
    let ok_prefixes = [
        format!("{SANDBOX_WORK}/"),
        "/tmp/".into(),
        "/dev/".into(),
        "/proc/".into(),
        format!("{SANDBOX_HOME}/.cache/"),
        format!("{SANDBOX_HOME}/.npm/"),
    ];
    path != SANDBOX_WORK && !ok_prefixes.iter().any(|p| path.starts_with(p.as_str()))
}

fn egress(acc: &mut Acc, inp: &Inputs, target: &ToolRef, note: &str, ev: Evidence) {
    let key = "egress".to_string();
    if let Some(f) = acc.findings.get_mut(&(target.clone(), key.clone())) {
        // One syscall line per destination is enough evidence; keep room for captures.
        let dest_of = |e: &Evidence| match e {
            Evidence::Syscall { line, .. } => line
                .split(", {")
                .nth(1)
                .map(|d| d.split('}').next().unwrap_or("").to_string()),
            _ => None,
        };
        let d = dest_of(&ev);
        let dup = d.is_some() && f.evidence.iter().any(|x| dest_of(x) == d);
        if !dup && f.evidence.len() < 12 && !f.evidence.contains(&ev) {
            f.evidence.push(ev);
        }
        return;
    }
    let declared = declares_network(inp, target);
    let dest = match &ev {
        Evidence::Network { destination, .. } => destination.clone(),
        Evidence::Syscall { line, .. } => {
            let e = line
                .split("inet_addr(\"")
                .nth(1)
                .and_then(|r| r.split('"').next())
                .unwrap_or("an outside address");
            let port = line
                .split("htons(")
                .nth(1)
                .and_then(|r| r.split(')').next())
                .map(|p| format!(":{p}"))
                .unwrap_or_default();
            format!("{e}{port}")
        }
        _ => "an outside address".into(),
    };
    let (sev, obs) = if declared {
        (
            Severity::Info,
            format!("network egress{note} to {dest} (declared)"),
        )
    } else {
        (
            Severity::High,
            format!(
                "network egress{note} to {dest}, undeclared: neither the description nor openWorldHint mentions network use"
            ),
        )
    };
    acc.add(
        finding(
            "MCP-R003",
            "UNAUTHORIZED OR UNSOLICITED NETWORK ACCESS",
            target,
            sev,
            "network egress",
            obs,
            description_of(inp, target),
            &key,
        )
        .evidence(ev),
        key,
    );
}

fn leak(
    acc: &mut Acc,
    inp: &Inputs,
    target: &ToolRef,
    channel: &str,
    hits: &[crate::canary::CanaryHit],
    note: &str,
    ev: Evidence,
) {
    let key = format!("leak:{channel}");
    let mut origins: Vec<String> = hits
        .iter()
        .map(|h| {
            if h.encoding == "plain" {
                h.origin.clone()
            } else {
                format!("{} ({})", h.origin, h.encoding)
            }
        })
        .collect();
    if let Some(f) = acc.findings.get_mut(&(target.clone(), key.clone())) {
        if f.evidence.len() < 12 && !f.evidence.contains(&ev) {
            f.evidence.push(ev);
        }
        // Keep every origin seen on this channel in the observation.
        for o in std::mem::take(&mut origins) {
            if !f.observation.contains(&o) {
                f.observation =
                    f.observation
                        .replacen(" appeared in", &format!(", {o} appeared in"), 1);
            }
        }
        return;
    }
    let threat = "DATA EXFILTRATION";
    acc.add(
        finding(
            "MCP-R001",
            threat,
            target,
            Severity::Critical,
            "canary secret leaked",
            format!(
                "the canary from {} appeared in {channel}{note}",
                origins.join(", ")
            ),
            description_of(inp, target),
            &key,
        )
        .evidence(ev),
        key,
    );
}

fn dropped(acc: &mut Acc, inp: &Inputs, target: &ToolRef, path: &str, note: &str, ev: Evidence) {
    let key = format!("dropped:{path}");
    if acc.add_evidence(target, &key, ev.clone()) {
        return;
    }
    acc.add(
        finding(
            "MCP-R005",
            "BACKDOOR",
            target,
            Severity::High,
            "drops an executable file",
            format!(
                "makes {} executable{note}",
                path.replacen(SANDBOX_HOME, "~", 1)
            ),
            description_of(inp, target),
            &key,
        )
        .evidence(ev),
        key,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_threat_used_resolves() {
        for t in THREATS_USED {
            assert!(by_threat(t).is_some(), "{t}");
        }
    }

    #[test]
    fn loopback_other_than_127_0_0_1_is_egress() {
        let mut p = crate::trace::StraceParser::default();
        use crate::trace::TraceParser;
        let mk = |p: &mut crate::trace::StraceParser, addr: &str| {
            let line = format!(
                r#"1 1.0 connect(3<TCP:[1]>, {{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("{addr}")}}, 16) = 0"#
            );
            crate::events::from_record(&p.feed(&line)[0]).expect("event")
        };
        assert!(is_egress(&mk(&mut p, "127.0.0.10")));
        assert!(is_egress(&mk(&mut p, "93.184.216.34")));
        assert!(!is_egress(&mk(&mut p, "127.0.0.1")));
    }

    fn call(name: &str, n: u32, start: f64, end: f64) -> CallRecord {
        CallRecord {
            target: Target::Tool,
            name: name.into(),
            n,
            label: "valid".into(),
            start,
            end,
            arguments: None,
            response: String::new(),
            is_error: false,
            timed_out: false,
            failure: None,
            marker: None,
            probe_kind: None,
        }
    }

    fn events(lines: &[&str]) -> Vec<Event> {
        use crate::trace::TraceParser;
        let mut p = crate::trace::StraceParser::default();
        lines
            .iter()
            .flat_map(|l| p.feed(l))
            .filter_map(|r| crate::events::from_record(&r))
            .collect()
    }

    #[test]
    fn events_are_attributed_to_startup_call_after_and_background() {
        let calls = vec![call("greet", 1, 10.0, 11.0), call("greet", 2, 12.0, 13.0)];
        let mut evs = events(&[
            r#"7 5.0 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
            r#"7 10.5 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 9"#,
            r#"9 11.5 openat(AT_FDCWD</>, "/home/sandbox/.ssh/id_rsa", O_RDONLY) = 3</home/sandbox/.ssh/id_rsa>"#,
            r#"7 12.5 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
            r#"7 14.0 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
        ]);
        let phases = attribute(&mut evs, &calls, 6.0);
        let labels: Vec<&str> = evs.iter().map(|e| e.phase.as_str()).collect();
        assert_eq!(
            labels,
            [
                "startup",
                "call:greet#1",
                "after:greet#1",
                "call:greet#2",
                "background"
            ]
        );
        assert_eq!(phases[2], Phase::After(0));
    }

    #[test]
    fn writes_in_workspace_and_tmp_are_not_outside() {
        assert!(!outside_workspace("/home/sandbox/workspace/out.txt"));
        assert!(!outside_workspace("/tmp/x"));
        assert!(outside_workspace("/home/sandbox/.bashrc"));
        assert!(outside_workspace("/etc/passwd"));
    }
}
