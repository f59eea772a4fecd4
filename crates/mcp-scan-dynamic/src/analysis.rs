//! Attribution (startup, one request window, after a response, background) and the runtime
//! findings: declared behaviour against observed behaviour, per tool.

use crate::canary::CanarySet;
use crate::events::{Event, EventKind};
use crate::exercise::{CallRecord, Exercise, Target};
use crate::rules::{
    PersistGroup, PersistKind, ProbeKind, RuleId, RuntimeRules, glob_matches, path_matches,
};
use crate::sandbox::{SANDBOX_HOME, SANDBOX_WORK, SINK_ADDR_STR, SINK6_ADDR_STR};
use crate::sinks::Capture;
use mcp_scan_core::{
    Analyzer, Confidence, EntityKind, Evidence, Finding, FindingBuilder, Severity, ToolRef,
};
use serde_json::Value;
use std::collections::btree_map::Entry;
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

/// Threads a runtime starts in a batch (a libuv or executor pool warming up): this many or more
/// from one thread within [`POOL_BATCH_SECS`].
const POOL_BATCH: usize = 3;
const POOL_BATCH_SECS: f64 = 0.01;

/// Threads started during a call that are the call's own background work, not a worker of the
/// server's runtime: a thread started by a thread other than its process's main thread (a tool
/// body running on a worker starts it; runtimes start their pools from the main thread), or one
/// that did nothing the trace shows before its call answered (it waits, then acts: a timer, a
/// sleeping thread). A pool's batch of threads is never one. Thread id → the call's index.
fn background_threads(events: &[Event], calls: &[CallRecord]) -> HashMap<u32, usize> {
    let mut first: HashMap<u32, f64> = HashMap::new();
    for e in events {
        first.entry(e.pid).or_insert(e.ts);
    }
    let spawns: Vec<&Event> = events
        .iter()
        .filter(|e| e.kind == EventKind::Spawn && e.thread && e.child.is_some())
        .collect();
    let mut tgid: HashMap<u32, u32> = HashMap::new();
    let mut out = HashMap::new();
    for e in &spawns {
        let Some(child) = e.child else { continue };
        let leader = *tgid.get(&e.pid).unwrap_or(&e.pid);
        tgid.insert(child, leader);
        let Some(i) = window_of(calls, e.ts) else {
            continue;
        };
        let batch = spawns
            .iter()
            .filter(|o| o.pid == e.pid && (o.ts - e.ts).abs() <= POOL_BATCH_SECS)
            .count();
        if batch >= POOL_BATCH {
            continue;
        }
        let by_worker = leader != e.pid;
        let idle_in_call = first.get(&child).is_none_or(|&t| t > calls[i].end);
        if by_worker || idle_in_call {
            out.insert(child, i);
        }
    }
    out
}

/// Assigns a phase to every event (events must be in trace order).
pub fn attribute(events: &mut [Event], calls: &[CallRecord], startup_end: f64) -> Vec<Phase> {
    let mut owner: HashMap<u32, usize> = HashMap::new();
    // Processes (not threads) a call forked, and everything they start: their work belongs to
    // that call even when it lands in a later call's window (a daemon, a pool worker, a stage
    // of a pipeline). Threads of the server's runtime are not: its worker threads, made during
    // one call, serve the next ones. A thread that is the call's own background work (see
    // [`background_threads`]) is, like a process.
    let mut procs: HashMap<u32, usize> = HashMap::new();
    let threads = background_threads(events, calls);
    let mut phases = Vec::with_capacity(events.len());
    for e in events.iter_mut() {
        let mut moved_from = None;
        let phase = if let Some(&j) = procs.get(&e.pid) {
            if e.ts <= calls[j].end {
                Phase::Call(j)
            } else {
                Phase::After(j)
            }
        } else if let Some(&j) = threads.get(&e.pid) {
            match window_of(calls, e.ts) {
                Some(i) if i == j => Phase::Call(j),
                Some(i) => {
                    moved_from = Some(i);
                    Phase::After(j)
                }
                None if e.ts <= calls[j].end => Phase::Call(j),
                None => Phase::After(j),
            }
        } else if let Some(i) = window_of(calls, e.ts) {
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
            if procs.contains_key(&e.pid) || threads.contains_key(&e.pid) || !e.thread {
                procs.insert(child, i);
            }
        }
        e.phase = phase.label(calls);
        if let (Some(i), Some(j)) = (moved_from, phase.call()) {
            // Said in the evidence: the time window alone would have charged the other call.
            e.phase = format!(
                "{} ({THREAD_NOTE} {}, while {} ran)",
                e.phase,
                calls[j].phase(),
                calls[i].phase()
            );
        }
        phases.push(phase);
    }
    phases
}

/// How an event moved from another call's window to the call whose thread did it is labelled.
const THREAD_NOTE: &str = "by a thread started during";

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
pub(crate) fn entity_of(inp: &Inputs, phase: &Phase) -> ToolRef {
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

/// Name, title and description, lowercased, for declared-behaviour checks.
fn declared_text(inp: &Inputs, target: &ToolRef) -> String {
    entity_text(inp, target, &["name", "title", "description"])
}

fn entity_text(inp: &Inputs, target: &ToolRef, keys: &[&str]) -> String {
    entity_raw_text(inp, target, keys).replace(['_', '-'], " ")
}

/// The entity's texts under `keys`, lowercased, with `-` and `_` kept (host names need them).
fn entity_raw_text(inp: &Inputs, target: &ToolRef, keys: &[&str]) -> String {
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
            for k in keys {
                if let Some(v) = t.get(*k).and_then(Value::as_str) {
                    s.push_str(v);
                    s.push(' ');
                }
            }
            s.to_lowercase()
        })
        .unwrap_or_default()
}

fn has_word(text: &str, words: &[String]) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| words.iter().any(|x| x == w))
}

/// Whether `text` holds the words of `phrase` in a row (`exchangerate-api` in "the
/// exchangerate-api.io web API").
fn has_phrase(text: &str, phrase: &str) -> bool {
    let words = |t: &str| -> String {
        t.split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (text, phrase) = (words(text), words(phrase));
    !phrase.is_empty() && format!(" {text} ").contains(&format!(" {phrase} "))
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
    // The name alone declares nothing: `fetch_notes` described as reading local notes does not
    // say it talks to the network. The description, title or annotations must.
    has_word(&network_text(inp, target), &inp.rules.network_words)
}

fn is_sensitive(rules: &RuntimeRules, canaries: &CanarySet, path: &str) -> bool {
    canaries
        .canaries
        .iter()
        .filter_map(|c| c.home_path.as_deref())
        .any(|h| {
            path.strip_prefix(SANDBOX_HOME)
                .and_then(|r| r.strip_prefix('/'))
                == Some(h)
        })
        || rules.sensitive_paths.iter().any(|p| path_matches(p, path))
        || (rules.sensitive_dirs.iter().any(|d| {
            path.strip_prefix(d.as_str())
                .is_some_and(|r| r.starts_with('/'))
        }) && !rules.sensitive_public.iter().any(|p| glob_matches(p, path)))
}

/// The loopback ports the sandbox's own processes bound: the network namespace is private, so
/// anything else on loopback is not a service of the server's (a host's local service, reached
/// another way, or a probe for one).
#[derive(Debug, Default)]
struct Listeners {
    ports: std::collections::HashSet<u16>,
    /// Unix socket addresses (paths and abstract names) a sandbox process bound.
    unix: std::collections::HashSet<String>,
    /// A bind to port 0: the kernel chose a port the trace does not show.
    ephemeral: bool,
}

impl Listeners {
    fn of(events: &[Event]) -> Self {
        let mut l = Listeners::default();
        for e in events.iter().filter(|e| e.kind == EventKind::Bind) {
            if e.family.as_deref() == Some("AF_UNIX")
                && let Some(a) = &e.address
            {
                l.unix.insert(a.clone());
            }
            match e.port {
                Some(0) => l.ephemeral = true,
                Some(p) => {
                    l.ports.insert(p);
                }
                None => {}
            }
        }
        l
    }

    /// Whether a connection or datagram to a local address reaches a sandbox process.
    fn serves(&self, e: &Event) -> bool {
        let Some(port) = e.port else { return true };
        self.ports.contains(&port)
            // Connected: in a private namespace only a sandbox process can be listening.
            || (e.kind == EventKind::Connect && e.ok())
            || (self.ephemeral && e.error.as_deref() != Some("ECONNREFUSED"))
    }
}

/// The address as the kernel routes it: `::ffff:127.0.0.1` is IPv4's 127.0.0.1.
fn canonical_ip(addr: &str) -> Option<std::net::IpAddr> {
    match addr.parse::<std::net::IpAddr>().ok()? {
        std::net::IpAddr::V6(v6) => Some(
            v6.to_ipv4_mapped()
                .map_or(std::net::IpAddr::V6(v6), std::net::IpAddr::V4),
        ),
        ip => Some(ip),
    }
}

/// A sensitive path, or a directory holding one (a canary, a listed credential directory).
fn holds_sensitive(rules: &RuntimeRules, canaries: &CanarySet, path: &str) -> bool {
    is_sensitive(rules, canaries, path)
        || rules.sensitive_dirs.iter().any(|d| d == path)
        || canaries
            .canaries
            .iter()
            .filter_map(|c| c.home_path.as_deref())
            .any(|h| {
                format!("{SANDBOX_HOME}/{h}")
                    .strip_prefix(path)
                    .is_some_and(|r| r.starts_with('/'))
            })
}

fn is_egress(e: &Event, local: &Listeners) -> bool {
    if !matches!(e.kind, EventKind::Connect | EventKind::Send) {
        return false;
    }
    let Some(addr) = e.address.as_deref() else {
        return false;
    };
    if e.family.as_deref() == Some("AF_UNIX") || addr.starts_with('/') || addr.starts_with('@') {
        return false;
    }
    if addr == SINK_ADDR_STR || addr == SINK6_ADDR_STR {
        return false;
    }
    // 127.0.0.1 and ::1 (and the unspecified address, which means this host) stay local when a
    // sandbox process serves the port; every other address (127.0.0.10 included) is egress.
    let ip = canonical_ip(addr);
    let local_addr = ip.is_some_and(|ip| {
        ip == std::net::IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)
            || ip == std::net::IpAddr::V6(std::net::Ipv6Addr::LOCALHOST)
            || ip.is_unspecified()
    });
    !(local_addr && local.serves(e))
}

/// The well-known daemon a unix socket address (path or `@abstract` name) belongs to, if any:
/// reaching one hands the server the host (docker), the user's keys (ssh-agent) or session (D-Bus,
/// X11), or its services (systemd).
fn daemon_socket(addr: &str) -> Option<&'static str> {
    let a = addr.trim_start_matches('@').to_ascii_lowercase();
    let file = a.rsplit('/').next().unwrap_or("");
    if !host_socket(addr) && !a.starts_with('/') && !addr.starts_with('@') {
        return None;
    }
    if NSS_SOCKETS.iter().any(|p| a.starts_with(p)) {
        return None;
    }
    if file.starts_with("docker")
        || file.starts_with("podman")
        || file.starts_with("containerd")
        || a.contains("/docker/")
    {
        Some("docker")
    } else if file.contains("ssh-agent")
        || file == "s.gpg-agent.ssh"
        || (file.starts_with("agent.") && a.contains("/ssh-"))
        || (file == "ssh" && a.contains("/keyring/"))
    {
        Some("ssh-agent")
    } else if a.contains("dbus") || file == "bus" || file == "system_bus_socket" {
        Some("D-Bus")
    } else if a.contains(".x11-unix/") {
        Some("X11")
    } else if a.starts_with("/run/systemd/")
        || a.starts_with("/var/run/systemd/")
        || a.starts_with("/org/freedesktop/systemd")
    {
        Some("systemd")
    } else {
        None
    }
}

/// A unix socket address outside the sandbox: a host path, a well-known daemon's socket, or an
/// abstract name no sandbox process bound (abstract names of the host's network namespace are
/// not visible, so such a connect is refused; the attempt is what tells).
fn outside_socket(addr: &str, local: &Listeners) -> bool {
    !local.unix.contains(addr)
        && (host_socket(addr) || daemon_socket(addr).is_some() || addr.starts_with('@'))
}

/// The C library's own name-service sockets (nscd, systemd's resolver and user database): every
/// program resolving names uses them.
const NSS_SOCKETS: [&str; 4] = [
    "/run/nscd/",
    "/var/run/nscd/",
    "/run/systemd/resolve/",
    "/run/systemd/userdb/",
];

/// A unix socket path that belongs to the host, not to the sandbox: anything but the sandbox's
/// private areas (homes, /tmp and the other scratch directories), where only the server can have
/// made sockets. The C library's own name-service sockets (nscd, systemd's resolver and user
/// database) are left out: every program resolving names uses them.
fn host_socket(path: &str) -> bool {
    const PRIVATE: [&str; 6] = [
        "/home",
        "/root",
        "/tmp",
        "/var/tmp",
        "/dev/shm",
        "/run/user",
    ];
    path.starts_with('/')
        && !PRIVATE
            .iter()
            .any(|p| path == *p || path.starts_with(&format!("{p}/")))
        && !NSS_SOCKETS.iter().any(|p| path.starts_with(p))
}

/// `1.2.3.4:80`, `[2001:db8::10]:8080`: how sink captures name destinations.
fn host_port(addr: &str, port: u16) -> String {
    format!("{}:{port}", bracket_v6(addr))
}

fn bracket_v6(addr: &str) -> String {
    if addr.contains(':') {
        format!("[{addr}]")
    } else {
        addr.to_string()
    }
}

/// The IP address in a traced sockaddr: `inet_addr("1.2.3.4")` or
/// `inet_pton(AF_INET6, "2001:db8::10", &sin6_addr)`.
fn syscall_ip(line: &str) -> Option<&str> {
    line.split("inet_addr(\"")
        .nth(1)
        .or_else(|| line.split("inet_pton(AF_INET6, \"").nth(1))
        .and_then(|r| r.split('"').next())
}

/// The IP address and port a traced call names, in either tracer's notation: strace's
/// `inet_addr("1.2.3.4")` ... `htons(80)`, or the eBPF tracer's `{AF_INET, 1.2.3.4:80}`.
fn syscall_dest(line: &str) -> Option<(String, Option<String>)> {
    if let Some(ip) = syscall_ip(line) {
        let port = line
            .split("htons(")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .map(str::to_string);
        return Some((ip.to_string(), port));
    }
    let rest = line
        .split("{AF_INET, ")
        .nth(1)
        .or_else(|| line.split("{AF_INET6, ").nth(1))?;
    let a: std::net::SocketAddr = rest.split('}').next()?.parse().ok()?;
    Some((a.ip().to_string(), Some(a.port().to_string())))
}

pub(crate) fn syscall_ev(e: &Event) -> Evidence {
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
    if label.starts_with("after:") && label.contains(THREAD_NOTE) {
        " after its response, by a thread it started (during another tool's call)"
    } else if label.starts_with("after:") {
        " after its response"
    } else if label == "startup" {
        " at startup"
    } else if label == "background" {
        " in the background"
    } else {
        ""
    }
}

/// Evidence kept per finding: enough to show the pattern, bounded for the report.
const MAX_EVIDENCE: usize = 12;

/// The findings so far, one per (entity, key); later observations add evidence.
struct Acc {
    findings: BTreeMap<(ToolRef, String), Finding>,
}

impl Acc {
    fn add(&mut self, f: Finding, key: String) {
        self.findings.entry((f.target.clone(), key)).or_insert(f);
    }

    /// Records one observation: `ev` joins the finding under (`target`, `key`), which `make`
    /// builds the first time.
    fn observe(
        &mut self,
        target: &ToolRef,
        key: &str,
        ev: Evidence,
        make: impl FnOnce() -> FindingBuilder,
    ) {
        match self.findings.entry((target.clone(), key.to_string())) {
            Entry::Occupied(mut o) => {
                let f = o.get_mut();
                if f.evidence.len() < MAX_EVIDENCE && !f.evidence.contains(&ev) {
                    f.evidence.push(ev);
                }
            }
            Entry::Vacant(v) => {
                v.insert(make().evidence(ev).build());
            }
        }
    }
}

/// A finding of `rule` on `target`: title, taxonomy, default severity and confidence from the
/// rule's file in `rules/runtime/`, the declared text from the manifest.
pub(crate) fn finding(
    inp: &Inputs,
    rule: RuleId,
    target: &ToolRef,
    observation: String,
    key: &str,
) -> FindingBuilder {
    let r = inp.rules.rule(rule);
    Finding::builder(
        r.meta.id.clone(),
        Analyzer::Runtime,
        r.meta.taxonomy,
        target.clone(),
    )
    .severity(r.meta.severity)
    .confidence(r.meta.confidence)
    .title(r.title.clone())
    .observation(observation)
    .declared(description_of(inp, target))
    .key(key)
}

/// The cloud instance metadata address the SSRF probe points at.
const METADATA_ADDR: &str = "169.254.169.254";

/// MCPS-R008 on `target`: the SSRF probe reached the metadata address.
fn ssrf_finding(inp: &Inputs, target: &ToolRef) -> FindingBuilder {
    finding(
        inp,
        RuleId::SsrfMetadata,
        target,
        format!("given http://{METADATA_ADDR}/..., connected to the cloud metadata address"),
        "ssrf",
    )
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
    let local = Listeners::of(inp.events);
    // Tools that open /etc/passwd on ordinary calls too (curl and other programs look up the
    // user there): the traversal probe's open of it is no evidence then, unless the path opened
    // still carries the probe's `..`.
    let mut passwd_anyway: std::collections::HashSet<&str> = Default::default();
    for (e, p) in inp.events.iter().zip(inp.phases) {
        if is_egress(e, &local) {
            net_calls.insert(p.call());
        }
        if e.kind == EventKind::FileOpen
            && !e.write
            && e.ok()
            && e.effective_path() == Some("/etc/passwd")
            && let Some(i) = p.call()
            && calls[i].probe_kind.is_none()
        {
            passwd_anyway.insert(calls[i].name.as_str());
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
                        .is_some_and(|(a, p)| host_port(a, p) == *dest)
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
                    e.kind == EventKind::Send
                        && e.bytes == c.bytes
                        && (e.address.is_some() || e.fd.is_some())
                })
                && let Some(to) = send_destination(inp.events, e)
            {
                c.destination = Some(host_port(
                    to.address.as_deref().unwrap_or_default(),
                    to.port.unwrap_or(0),
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
    // Per entity: whether every egress went to a DNS name whose service the tool's text or the
    // server's name names (`api.github.com` for "Create an issue in a GitHub repository").
    let mut named: BTreeMap<ToolRef, bool> = BTreeMap::new();
    // Sink captures: egress evidence and canaries.
    for c in &captures {
        let p = capture_phase(c);
        let target = entity_of(inp, &p);
        let label = p.label(calls);
        let note = phase_note(&label);
        // The SSRF probe's request to the metadata address is MCPS-R008's evidence: folded into
        // the egress finding it would read as declared when the tool declares fetching URLs.
        // Judged by the original destination, not the Host header the server chose.
        if let Some(i) = p.call()
            && calls[i].probe_kind == Some(ProbeKind::Url)
            && c.destination
                .as_deref()
                .and_then(|d| d.rsplit_once(':'))
                .is_some_and(|(a, _)| a == METADATA_ADDR)
        {
            acc.observe(&target, "ssrf", capture_ev(c), || {
                ssrf_finding(inp, &target)
            });
        } else {
            // The host the DNS sink handed the address out for (or the name queried), never the
            // SNI or Host header, which the server chooses.
            let ok = c
                .host
                .as_deref()
                .is_some_and(|h| names_service(inp, &target, h));
            *named.entry(target.clone()).or_insert(true) &= ok;
            egress(&mut acc, inp, &target, note, capture_ev(c));
        }
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
        let hits = find_canaries(inp.canaries, &c.bytes);
        if !hits.is_empty() {
            let channel = if c.protocol == "dns" {
                "a DNS name"
            } else {
                "a network payload"
            };
            leak(&mut acc, inp, &target, channel, &hits, note, capture_ev(c));
        }
    }
    split_dns(&mut acc, inp, &captures, capture_phase);
    scattered(&mut acc, inp, &captures, capture_phase);
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

    // Files the server wrote, or made in memory, during the run.
    let made: std::collections::HashSet<&str> = inp
        .events
        .iter()
        .filter(|e| {
            e.ok() && ((e.kind == EventKind::FileOpen && e.write) || e.kind == EventKind::Memfd)
        })
        .filter_map(Event::effective_path)
        .collect();
    let pipelines = Pipelines::of(inp);
    // Failed opens of sensitive paths per entity: the paths (with the error) and evidence.
    let mut attempts: BTreeMap<ToolRef, (Vec<String>, Vec<Evidence>)> = BTreeMap::new();
    for (e, p) in inp.events.iter().zip(inp.phases) {
        let target = entity_of(inp, p);
        let note = phase_note(&e.phase);
        let security_relevant;
        match e.kind {
            EventKind::FileOpen if !e.write && !e.ok() && e.error.is_some() => {
                // A stealer tries every credential store it knows; the sandbox only has the
                // canaries, so the attempt at a missing one is the evidence.
                let eff = e.effective_path().unwrap_or_default().to_string();
                let req = e.path.clone().unwrap_or_default();
                if !(is_sensitive(inp.rules, inp.canaries, &eff)
                    || is_sensitive(inp.rules, inp.canaries, &req))
                {
                    continue;
                }
                security_relevant = true;
                note_cat(p, "sensitive-read");
                let shown = eff.replacen(SANDBOX_HOME, "~", 1);
                let err = e.error.clone().unwrap_or_default();
                let tried = attempts.entry(target.clone()).or_default();
                let item = format!("{shown} ({err})");
                if !tried.0.contains(&item) {
                    tried.0.push(item);
                }
                let ev = syscall_ev(e);
                if tried.1.len() < MAX_EVIDENCE && !tried.1.contains(&ev) {
                    tried.1.push(ev);
                }
            }
            // A bind or moved mount of a credential store that the sandbox refused (Landlock
            // forbids mounts): the attempt is the evidence, as a failed open is. A mount that
            // works is judged by what is read through it.
            EventKind::Mount
                if !e.ok()
                    && e.path.is_some()
                    && e.target.as_deref().is_some_and(|t| {
                        holds_sensitive(inp.rules, inp.canaries, t.trim_end_matches('/'))
                    }) =>
            {
                security_relevant = true;
                note_cat(p, "sensitive-read");
                let src = e.target.as_deref().unwrap_or_default();
                let shown = src.trim_end_matches('/').replacen(SANDBOX_HOME, "~", 1);
                let onto = e.effective_path().unwrap_or_default().to_string();
                let err = e.error.clone().unwrap_or_default();
                let key = format!("mount:{shown}");
                acc.observe(&target, &key, syscall_ev(e), || {
                    finding(
                        inp,
                        RuleId::SensitiveRead,
                        &target,
                        format!("tries to mount {shown} onto `{onto}` ({err}){note}, undeclared"),
                        &key,
                    )
                    .title("tries to read credentials")
                });
            }
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
                        && (req.contains("..") || !passwd_anyway.contains(calls[i].name.as_str()))
                    {
                        let key = "path-traversal";
                        acc.observe(&target, key, syscall_ev(e), || {
                            let given = calls[i]
                                .arguments
                                .as_ref()
                                .map(|a| Value::Object(a.clone()).to_string())
                                .unwrap_or_default();
                            finding(
                                inp,
                                RuleId::PathTraversal,
                                &target,
                                format!(
                                    "given `{}`, opened {eff} outside the workspace",
                                    excerpt(&given, 120)
                                ),
                                key,
                            )
                        });
                    }
                    continue;
                }
                security_relevant = true;
                note_cat(p, "sensitive-read");
                let http_file = inp
                    .rules
                    .http_client_files
                    .iter()
                    .any(|h| *h == eff || *h == req);
                let expected = http_file && net_calls.contains(&p.call());
                let via = if req != eff && !req.is_empty() {
                    format!(" (through `{req}`)")
                } else {
                    String::new()
                };
                let shown = eff.replacen(SANDBOX_HOME, "~", 1);
                let key = format!("read:{shown}");
                acc.observe(&target, &key, syscall_ev(e), || {
                    if expected {
                        // What HTTP clients do on every request: noted, not alarming.
                        finding(
                            inp,
                            RuleId::SensitiveRead,
                            &target,
                            format!(
                                "reads {shown}{via}{note}, as HTTP client libraries do on every request"
                            ),
                            &key,
                        )
                        .severity(Severity::Low)
                        .title("reads HTTP client credentials while making a request")
                    } else {
                        finding(
                            inp,
                            RuleId::SensitiveRead,
                            &target,
                            format!("reads {shown}{via}{note}, undeclared"),
                            &key,
                        )
                    }
                });
            }
            EventKind::Connect
                if e.ok()
                    && e.family.as_deref() == Some("AF_UNIX")
                    && e.address.as_deref().is_some_and(host_socket) =>
            {
                security_relevant = true;
                note_cat(p, "network");
                let path = e.address.clone().unwrap_or_default();
                let stem = path
                    .rsplit('/')
                    .next()
                    .and_then(|f| f.split('.').next())
                    .unwrap_or("")
                    .to_lowercase();
                let declared = declares_network(inp, &target)
                    || (stem.len() > 2 && has_word(&declared_text(inp, &target), &[stem]));
                let key = format!("host-socket:{path}");
                acc.observe(&target, &key, syscall_ev(e), || {
                    let f = finding(
                        inp,
                        RuleId::Egress,
                        &target,
                        format!(
                            "connects to {path}{note}, a socket of a service outside the sandbox: what it sends there is neither captured nor contained{}",
                            if declared { " (declared)" } else { ", undeclared" }
                        ),
                        &key,
                    )
                    .title("talks to a host service outside the sandbox");
                    if declared { f.severity(Severity::Info) } else { f }
                });
            }
            // A refused connect to a unix socket outside the sandbox: contained, but the attempt
            // is the evidence, as a failed credential read is. Aimed at a well-known daemon it
            // weighs what reaching it would have; any other such attempt is noted (LOW).
            EventKind::Connect
                if !e.ok()
                    && e.family.as_deref() == Some("AF_UNIX")
                    && e.address
                        .as_deref()
                        .is_some_and(|a| outside_socket(a, &local)) =>
            {
                security_relevant = true;
                note_cat(p, "network");
                let path = e.address.clone().unwrap_or_default();
                let err = e.error.clone().unwrap_or_default();
                let daemon = daemon_socket(&path);
                let declared = declares_network(inp, &target);
                let key = format!("host-socket:{path}");
                acc.observe(&target, &key, syscall_ev(e), || {
                    let what = match daemon {
                        Some(d) => format!("the {d} socket"),
                        None if path.starts_with('@') => {
                            "an abstract unix socket outside the sandbox".to_string()
                        }
                        None => "a socket of a service outside the sandbox".to_string(),
                    };
                    let f = finding(
                        inp,
                        RuleId::Egress,
                        &target,
                        format!(
                            "tries to connect to {path}{note}, {what} (refused by the sandbox: {err}){}",
                            if declared { " (declared)" } else { ", undeclared" }
                        ),
                        &key,
                    )
                    .title("tries to reach a host service outside the sandbox");
                    match (declared, daemon) {
                        (true, _) => f.severity(Severity::Info),
                        (false, Some(_)) => f,
                        (false, None) => f.severity(Severity::Low),
                    }
                });
            }
            EventKind::Connect | EventKind::Send if is_egress(e, &local) => {
                security_relevant = true;
                note_cat(p, "network");
                // SSRF probe reaching a metadata address.
                if let Some(i) = p.call()
                    && calls[i].probe_kind == Some(ProbeKind::Url)
                    && e.address.as_deref() == Some(METADATA_ADDR)
                {
                    acc.observe(&target, "ssrf", syscall_ev(e), || {
                        ssrf_finding(inp, &target)
                    });
                    continue;
                }
                // DNS lookups and connections to addresses the DNS sink handed out are judged by
                // their captures (which carry the name); a raw address names no service.
                let by_name = e.port == Some(53)
                    || e.address
                        .as_deref()
                        .is_some_and(|a| a.starts_with("11.") || a.starts_with("2d00:6d63:7073:"));
                if !by_name {
                    named.insert(target.clone(), false);
                }
                egress(&mut acc, inp, &target, note, syscall_ev(e));
            }
            EventKind::Exec if p.call().is_some() || matches!(p, Phase::Background) => {
                let argv = e.argv.clone().unwrap_or_default();
                let joined = format!("{} {}", e.path.clone().unwrap_or_default(), argv.join(" "));
                // Injection probe: our marker ran as a program, or a shell was handed it as code.
                if let Some(i) = p.call()
                    && let Some(m) = calls[i].marker.as_deref()
                    && joined.contains(m)
                    && probe_executed(e, m)
                {
                    security_relevant = true;
                    let key = format!("injection:{}", calls[i].label);
                    acc.observe(&target, &key, syscall_ev(e), || {
                        finding(
                            inp,
                            RuleId::InjectionExecuted,
                            &target,
                            format!(
                                "the {} probe's marker reached execve: {}",
                                calls[i].label,
                                excerpt(&argv.join(" "), 200)
                            ),
                            &key,
                        )
                    });
                } else if e.ok() {
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
                    // A declared command is not deferred security-relevant work by itself
                    // (MCPS-R010): what it touches is judged on its own events.
                    let mut relevant = !declared;
                    // One pipeline (`sh -c "a | b"`, a chain of forks and execs) is one finding,
                    // keyed by the program that started it.
                    let root = pipelines.root_program(e.pid).unwrap_or(&prog);
                    let key = format!("exec:{root}");
                    acc.observe(&target, &key, syscall_ev(e), || {
                        let run = excerpt(&argv.join(" "), 200);
                        if declared {
                            finding(
                                inp,
                                RuleId::Subprocess,
                                &target,
                                format!("runs `{run}`{note} (declared)"),
                                &key,
                            )
                            .severity(Severity::Info)
                        } else {
                            finding(
                                inp,
                                RuleId::Subprocess,
                                &target,
                                format!("runs `{run}`{note}, undeclared"),
                                &key,
                            )
                        }
                    });
                    if persistence_command(inp, &mut acc, &target, e, note) {
                        relevant = true;
                        note_cat(p, "persistence");
                    }
                    // A program run from memory, or from a file the server wrote itself, is
                    // never left on disk for the dropped-executable check to find.
                    let ran = e.effective_path().unwrap_or_default();
                    if made.contains(ran) {
                        relevant = true;
                        let memfd = ran.starts_with("/memfd:");
                        let key = format!("ran-own:{ran}");
                        acc.observe(&target, &key, syscall_ev(e), || {
                            let (what, title) = if memfd {
                                (
                                    format!("runs a program from memory ({ran}){note}: it never existed on disk"),
                                    "runs a program from memory",
                                )
                            } else {
                                (
                                    format!(
                                        "runs {}{note}, a program it wrote itself during the run",
                                        ran.replacen(SANDBOX_HOME, "~", 1)
                                    ),
                                    "runs a program it wrote itself",
                                )
                            };
                            let f = finding(inp, RuleId::Dropped, &target, what, &key).title(title);
                            if declared && !memfd {
                                f.severity(Severity::Medium)
                            } else {
                                f
                            }
                        });
                    }
                    security_relevant = relevant;
                } else if persistence_command(inp, &mut acc, &target, e, note) {
                    // The sandbox may have no `crontab`: the attempt is the evidence.
                    security_relevant = true;
                    note_cat(p, "persistence");
                } else {
                    continue;
                }
            }
            EventKind::Exec => {
                // A failed exec attempt of a probe marker (a shell looking it up on PATH) counts
                // too, later; so does an attempt at a program that installs a job (the sandbox
                // may have no `crontab`: the attempt is the evidence).
                if persistence_command(inp, &mut acc, &target, e, note) {
                    security_relevant = true;
                    note_cat(p, "persistence");
                } else {
                    continue;
                }
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
                let path = e.path.clone().unwrap_or_default();
                // git probes whether the file system keeps the x bit by setting it and at once
                // clearing it again (`core.filemode`): only a file left executable, or run
                // meanwhile, is dropped.
                let later = inp
                    .events
                    .iter()
                    .skip_while(|x| !std::ptr::eq(*x, e))
                    .skip(1)
                    .filter(|x| x.path.as_deref() == Some(path.as_str()));
                let mut cleared = false;
                for x in later {
                    if x.kind == EventKind::Exec {
                        break;
                    }
                    if x.kind == EventKind::Chmod && x.ok() && chmod_mode(x) & 0o111 == 0 {
                        cleared = true;
                        break;
                    }
                }
                if cleared {
                    continue;
                }
                security_relevant = true;
                note_cat(p, "dropped-executable");
                dropped(&mut acc, inp, &target, &path, note, syscall_ev(e));
            }
            EventKind::FileOpen
            | EventKind::Rename
            | EventKind::Symlink
            | EventKind::Unlink
            | EventKind::Link
                if e.write && (e.ok() || e.kind != EventKind::Unlink) =>
            {
                // Where the write lands: a rename's destination, a link's new name (an
                // O_TMPFILE file linked into place), else the path as the kernel resolved it.
                let path = match e.kind {
                    EventKind::Rename => e.target.clone(),
                    _ => e.effective_path().map(str::to_string),
                }
                .unwrap_or_default();
                if let Some(g) = persistence_hit(inp, &path) {
                    security_relevant = true;
                    note_cat(p, "persistence");
                    let shown = path.replacen(SANDBOX_HOME, "~", 1);
                    let verb = match (e.ok(), e.kind) {
                        (false, _) => "tries to write",
                        (true, EventKind::Rename) => "renames a file onto",
                        (true, EventKind::Link | EventKind::Symlink) => "links a file onto",
                        (true, EventKind::Unlink) => "removes",
                        (true, _) => "writes",
                    };
                    let err = e
                        .error
                        .as_deref()
                        .map(|x| format!(" ({x})"))
                        .unwrap_or_default();
                    let (rule, key, title) = match g.kind {
                        PersistKind::ClientConfig => {
                            (RuleId::ClientConfig, format!("client-config:{path}"), None)
                        }
                        PersistKind::Startup => (
                            RuleId::Dropped,
                            format!("persist:{path}"),
                            Some(if e.ok() {
                                "writes a persistence file"
                            } else {
                                "tries to write a persistence file"
                            }),
                        ),
                    };
                    let what = g.what.clone();
                    acc.observe(&target, &key, syscall_ev(e), || {
                        let f = finding(
                            inp,
                            rule,
                            &target,
                            format!("{verb} {shown}, {what}{err}{note}, undeclared"),
                            &key,
                        );
                        match title {
                            Some(t) => f.title(t),
                            None => f,
                        }
                    });
                } else if !e.ok() {
                    continue;
                } else if outside_workspace(&path) && p.call().is_some() {
                    security_relevant = true;
                    note_cat(p, "write-outside");
                    if let Some(dir) = own_state_dir(inp, &path) {
                        // A server's state under its own name in XDG folders is where it is
                        // supposed to keep it.
                        let key = format!("own-state:{dir}");
                        acc.observe(&target, &key, syscall_ev(e), || {
                            finding(
                                inp,
                                RuleId::WriteOutside,
                                &target,
                                format!(
                                    "modifies {}{note}, in its own folder {} (named after the server)",
                                    path.replacen(SANDBOX_HOME, "~", 1),
                                    dir.replacen(SANDBOX_HOME, "~", 1)
                                ),
                                &key,
                            )
                            .severity(Severity::Info)
                            .title("keeps state in its own folder")
                        });
                        continue;
                    }
                    let key = "write-outside";
                    acc.observe(&target, key, syscall_ev(e), || {
                        finding(
                            inp,
                            RuleId::WriteOutside,
                            &target,
                            format!(
                                "modifies {}{note}, outside the workspace",
                                path.replacen(SANDBOX_HOME, "~", 1)
                            ),
                            key,
                        )
                    });
                } else {
                    continue;
                }
            }
            EventKind::IoUring if e.ok() => {
                security_relevant = true;
                note_cat(p, "io_uring");
                let key = "io-uring";
                acc.observe(&target, key, syscall_ev(e), || {
                    finding(
                        inp,
                        RuleId::IoUring,
                        &target,
                        format!(
                            "set up io_uring{note}: files opened and read through it are not visible to the tracer, so what it accessed that way is unknown"
                        ),
                        key,
                    )
                });
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

    outliving_processes(&mut acc, inp);
    for (target, (paths, evs)) in attempts {
        let shown = if paths.len() > 6 {
            format!("{} and {} more", paths[..6].join(", "), paths.len() - 6)
        } else {
            paths.join(", ")
        };
        let key = "read-attempts";
        let mut f = finding(
            inp,
            RuleId::SensitiveRead,
            &target,
            format!(
                "tries to read sensitive paths the sandbox does not provide, undeclared: {shown}"
            ),
            key,
        )
        .title("tries to read credentials")
        .build();
        f.evidence = evs;
        acc.add(f, key.to_string());
    }

    // Exec attempts of probe markers that failed (the shell tried to run our marker).
    for (e, p) in inp.events.iter().zip(inp.phases) {
        if e.kind != EventKind::Exec || e.ok() {
            continue;
        }
        if let Some(i) = p.call()
            && let Some(m) = calls[i].marker.as_deref()
            && probe_executed(e, m)
        {
            let target = entity_of(inp, p);
            let key = format!("injection:{}", calls[i].label);
            acc.observe(&target, &key, syscall_ev(e), || {
                finding(
                    inp,
                    RuleId::InjectionExecuted,
                    &target,
                    format!(
                        "the {} probe made the server try to run `{m}`",
                        calls[i].label
                    ),
                    &key,
                )
            });
        }
    }

    // Canaries in traced payloads (UDP without a sink answer, unix sockets) and exec arguments.
    for (e, p) in inp.events.iter().zip(inp.phases) {
        let channel = match e.kind {
            EventKind::Send if is_egress(e, &local) => "a network payload",
            // A host service's socket: what reaches it leaves the sandbox uncaptured.
            // A socket outside the sandbox: what reaches it leaves uncaptured; what the sandbox
            // refused weighs the same (the attempt carried the secret). Connected sockets
            // (send/write without an address) have the address of their connect.
            EventKind::Send
                if e.family.as_deref() == Some("AF_UNIX")
                    && e.address
                        .as_deref()
                        .is_some_and(|a| outside_socket(a, &local)) =>
            {
                if e.ok() {
                    "a payload to a host socket"
                } else {
                    "a payload to a host socket (refused by the sandbox)"
                }
            }
            EventKind::Exec => "exec arguments",
            _ => continue,
        };
        let hits = find_canaries(inp.canaries, &e.bytes);
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
    // Canaries in responses, and in JSON-RPC error answers (message and data), which the agent
    // shows its model like any answer.
    for (i, c) in calls.iter().enumerate() {
        let answers = [
            (c.response.as_str(), "the tool's response", "response"),
            (
                c.failure.as_deref().unwrap_or_default(),
                "the tool's error answer",
                "error answer",
            ),
        ];
        for (text, channel, what) in answers {
            let hits = find_canaries(inp.canaries, text.as_bytes());
            if !hits.is_empty() {
                let target = entity_of(inp, &Phase::Call(i));
                leak(
                    &mut acc,
                    inp,
                    &target,
                    channel,
                    &hits,
                    "",
                    Evidence::Note {
                        text: format!("{} {what}: {}", c.phase(), excerpt(text, 300)),
                    },
                );
            }
        }
    }
    // Canaries in what the server sent on its own: log and progress notifications, resource
    // updates, sampling, elicitation and roots requests. The agent shows them, logs them or
    // hands them to its model (sampling) like answers.
    for m in &inp.exercise.server_messages {
        let hits = find_canaries(inp.canaries, m.text.as_bytes());
        if hits.is_empty() {
            continue;
        }
        let phase = match window_of(calls, m.ts) {
            Some(i) => Phase::Call(i),
            None if m.ts < inp.exercise.startup_end => Phase::Startup,
            None => Phase::Background,
        };
        let target = entity_of(inp, &phase);
        let channel = server_message_channel(&m.method);
        let label = phase.label(calls);
        leak(
            &mut acc,
            inp,
            &target,
            &channel,
            &hits,
            phase_note(&label),
            Evidence::Note {
                text: format!("server message `{}`: {}", m.method, excerpt(&m.text, 300)),
            },
        );
    }
    // Canaries in what the server says about itself (initialize answer, listings before and
    // after the calls): the agent hands it to its model without any call.
    let ex = inp.exercise;
    if let Some(info) = &ex.server_info {
        let text = info.to_string();
        let hits = find_canaries(inp.canaries, text.as_bytes());
        if !hits.is_empty() {
            let target = entity_of(inp, &Phase::Startup);
            let ev = Evidence::Note {
                text: format!("initialize answer: {}", excerpt(&text, 300)),
            };
            leak(
                &mut acc,
                inp,
                &target,
                "the initialize answer",
                &hits,
                "",
                ev,
            );
        }
    }
    let listings = [
        (&ex.tools, EntityKind::Tool, "name", "tools/list"),
        (&ex.resources, EntityKind::Resource, "uri", "resources/list"),
        (
            &ex.resource_templates,
            EntityKind::Resource,
            "uriTemplate",
            "resources/templates/list",
        ),
        (&ex.prompts, EntityKind::Prompt, "name", "prompts/list"),
    ];
    let after = ex
        .tools_after
        .iter()
        .map(|t| (t, EntityKind::Tool, "name", "tools/list after the calls"));
    for (items, kind, key, what) in listings.into_iter().chain(after) {
        for item in items {
            let text = item.to_string();
            let hits = find_canaries(inp.canaries, text.as_bytes());
            let Some(name) = item.get(key).and_then(Value::as_str) else {
                continue;
            };
            if hits.is_empty() {
                continue;
            }
            let target = ToolRef::new(inp.server, kind, name);
            let ev = Evidence::Note {
                text: format!("{what}: {}", excerpt(&text, 300)),
            };
            leak(&mut acc, inp, &target, "its listing", &hits, "", ev);
        }
    }
    // Files written: canaries copied elsewhere, executables dropped.
    for (path, bytes, exec) in inp.written_files {
        let hits = find_canaries(inp.canaries, bytes);
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
        // git's sample hooks are executable templates that git never runs (only a hook without
        // `.sample` does, and that one is still reported).
        let git_sample = path.contains("/.git/hooks/") && path.ends_with(".sample");
        if *exec && !git_sample {
            dropped(&mut acc, inp, &target, path, note, ev);
        }
    }

    // Activity after a response.
    for (target, evs) in after_activity {
        let key = "after-response";
        let mut f = finding(
            inp,
            RuleId::AfterResponse,
            &target,
            "a thread or process started by this tool kept doing security-relevant work after the response was sent".into(),
            key,
        )
        .build();
        f.evidence = evs.into_iter().take(8).collect();
        acc.add(f, key.to_string());
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
        let key = "nth-call";
        let mut sorted = new.clone();
        sorted.sort_unstable();
        sorted.dedup();
        acc.add(
            finding(
                inp,
                RuleId::LaterCall,
                &target,
                format!(
                    "call #{n} did what call #1 with a like input did not: {}",
                    sorted.join(", ")
                ),
                key,
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
            })
            .build(),
            key.to_string(),
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
            let key = "relisted";
            acc.add(
                finding(
                    inp,
                    RuleId::Relisted,
                    &target,
                    format!(
                        "`{name}` {change} between the first tools/list and the one after the calls"
                    ),
                    key,
                )
                .evidence(Evidence::Note {
                    text: format!("after: {}", excerpt(c, 400)),
                })
                .build(),
                key.to_string(),
            );
        }
    }
    sql_injection(&mut acc, inp);
    let candidates = background_candidates(inp);
    for ((target, _), f) in acc.findings.iter_mut() {
        // Work no call can be pinned on stays on the server, at full severity, and says which
        // calls may have started it.
        if target.kind == EntityKind::Server
            && !candidates.is_empty()
            && f.observation.contains(" in the background")
        {
            f.observation.push_str(&format!(
                "; not attributable to one call, candidates: {}",
                candidates.join(", ")
            ));
        }
    }
    for ((target, key), f) in acc.findings.iter_mut() {
        if key == "egress" {
            if named.get(target) == Some(&true) && f.severity > Severity::Info {
                declared_by_name(f);
            } else if named.get(target) == Some(&false) && f.severity == Severity::Info {
                let services = described_services(inp, target);
                if !services.is_empty() {
                    undeclared_destination(f, &services);
                }
            }
            summarize_egress(f);
        }
    }
    acc.findings.into_values().collect()
}

/// What a call answered: the response, or the JSON-RPC error message.
fn answer_text(c: &CallRecord) -> String {
    match &c.failure {
        Some(f) if !c.timed_out => format!("{}\n{f}", c.response),
        _ => c.response.clone(),
    }
}

/// The distinct non-empty lines of an answer, in order. The recorded answer lists every string of
/// the result: structured content repeats the text, and content type tags are not part of it.
fn answer_lines(text: &str) -> Vec<&str> {
    const CONTENT_TYPES: [&str; 5] = ["text", "image", "audio", "resource", "resource_link"];
    let mut out: Vec<&str> = Vec::new();
    for l in text.lines().map(str::trim) {
        if !l.is_empty() && !CONTENT_TYPES.contains(&l) && !out.contains(&l) {
            out.push(l);
        }
    }
    out
}

/// Records in an answer: its distinct lines, a line holding a JSON array counting its items.
fn records(text: &str) -> usize {
    answer_lines(text)
        .into_iter()
        .map(|l| match serde_json::from_str::<Value>(l) {
            Ok(Value::Array(a)) => a.len(),
            _ => 1,
        })
        .sum()
}

/// The line of `s` holding `range`, cut to `before`/`after` bytes around it.
fn excerpt_around(s: &str, range: std::ops::Range<usize>, before: usize, after: usize) -> String {
    let line_start = s[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = s[range.end..].find('\n').map_or(s.len(), |i| range.end + i);
    let mut start = range.start.saturating_sub(before).max(line_start);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    let mut end = (range.end + after).min(line_end);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}{}{}",
        if start > line_start { "..." } else { "" },
        s[start..end].trim(),
        if end < line_end { "..." } else { "" }
    )
}

/// MCPS-R014: a SQL probe's answer shows that the input reached a SQL parser, by a database error
/// no valid call's answer has, or by the tautology returning more records than the quote-free
/// control.
fn sql_injection(acc: &mut Acc, inp: &Inputs) {
    let calls = &inp.exercise.calls;
    let probe_value = |label: &str| {
        inp.rules
            .probes
            .iter()
            .find(|p| p.name == label)
            .map_or_else(|| label.to_string(), |p| p.value.clone())
    };
    let mut tools: Vec<&str> = calls
        .iter()
        .filter(|c| c.target == Target::Tool && c.probe_kind == Some(ProbeKind::Sql))
        .map(|c| c.name.as_str())
        .collect();
    tools.sort_unstable();
    tools.dedup();
    for name in tools {
        let of_tool = || {
            calls
                .iter()
                .enumerate()
                .filter(move |(_, c)| c.target == Target::Tool && c.name == name && !c.timed_out)
        };
        let valid: Vec<&CallRecord> = of_tool()
            .filter(|(_, c)| c.label == "valid")
            .map(|(_, c)| c)
            .collect();
        // Without an answered valid call there is nothing to tell a probe's error from.
        if valid.is_empty() {
            continue;
        }
        // A tool whose ordinary answers already carry SQL errors (a linter, a query console)
        // is not judged on errors.
        let valid_has_error = valid
            .iter()
            .any(|c| inp.rules.sql_error(&answer_text(c)).is_some());
        let clean = |c: &CallRecord| !c.is_error && c.failure.is_none();
        let control = of_tool()
            .map(|(_, c)| c)
            .find(|c| c.probe_kind == Some(ProbeKind::SqlControl) && clean(c));
        let mut errors: Vec<(usize, String, Evidence)> = Vec::new();
        let mut tautologies: Vec<(usize, String, Evidence)> = Vec::new();
        for (i, c) in of_tool().filter(|(_, c)| {
            matches!(
                c.probe_kind,
                Some(ProbeKind::Sql) | Some(ProbeKind::SqlControl)
            )
        }) {
            let value = probe_value(&c.label);
            let text = answer_text(c);
            if !valid_has_error && let Some((sig, range)) = inp.rules.sql_error(&text) {
                let matched = excerpt(text[range.clone()].trim(), 120);
                errors.push((
                    i,
                    format!(
                        "given `{value}`, the answer carries a {} error (`{matched}`) that no valid call's answer has: the input reached a SQL parser",
                        sig.engine
                    ),
                    Evidence::Note {
                        text: format!(
                            "{} ({}) answer: {}",
                            c.phase(),
                            c.label,
                            excerpt_around(&text, range, 120, 180)
                        ),
                    },
                ));
                continue;
            }
            if c.probe_kind != Some(ProbeKind::Sql) || !clean(c) {
                continue;
            }
            let Some(ctl) = control else {
                continue;
            };
            let (got, base) = (records(&c.response), records(&ctl.response));
            if got > base {
                tautologies.push((
                    i,
                    format!(
                        "given `{value}`, returned {got} records where the quote-free `{}` returned {base}: the quotes changed the query",
                        probe_value(&ctl.label)
                    ),
                    Evidence::Note {
                        text: format!(
                            "{} ({}) answer: {} | {} ({}) answer: {}",
                            c.phase(),
                            c.label,
                            excerpt(&answer_lines(&c.response).join(" / "), 300),
                            ctl.phase(),
                            ctl.label,
                            excerpt(&answer_lines(&ctl.response).join(" / "), 200)
                        ),
                    },
                ));
            }
        }
        // An error signature is the stronger signal; the tautology alone can be a fuzzy search.
        let confidence = if errors.is_empty() {
            Confidence::Medium
        } else {
            Confidence::High
        };
        // The first observation (an error if there is one) makes the finding; the rest add evidence.
        for (i, observation, ev) in errors.into_iter().chain(tautologies) {
            let target = entity_of(inp, &Phase::Call(i));
            let key = "sql-injection";
            acc.observe(&target, key, ev, || {
                finding(inp, RuleId::SqlInjection, &target, observation, key).confidence(confidence)
            });
        }
    }
}

/// Where a send went: its own address, else the address its socket was connected to (the
/// process's last `connect` on that descriptor before it), so a destination seen in `connect` is
/// never "unknown".
fn send_destination<'a>(events: &'a [Event], send: &'a Event) -> Option<&'a Event> {
    if send.address.is_some() {
        return Some(send);
    }
    let fd = send.fd?;
    events
        .iter()
        .take_while(|x| !std::ptr::eq(*x, send))
        .filter(|x| {
            x.kind == EventKind::Connect
                && x.pid == send.pid
                && x.fd == Some(fd)
                && x.address.is_some()
        })
        .last()
}

/// The calls that may have started background work: those that created a thread or process
/// (else every call), as `tool#n`, at most eight.
fn background_candidates(inp: &Inputs) -> Vec<String> {
    let calls = &inp.exercise.calls;
    let spawners: std::collections::BTreeSet<usize> = inp
        .events
        .iter()
        .zip(inp.phases)
        .filter(|(e, _)| e.kind == EventKind::Spawn && e.ok())
        .filter_map(|(_, p)| p.call())
        .collect();
    let picked: Vec<usize> = if spawners.is_empty() {
        (0..calls.len()).collect()
    } else {
        spawners.into_iter().collect()
    };
    let mut out: Vec<String> = Vec::new();
    for i in picked {
        let label = calls[i]
            .phase()
            .split_once(':')
            .map_or(String::new(), |x| x.1.to_string());
        if !label.is_empty() && !out.contains(&label) {
            out.push(label);
        }
    }
    if out.len() > 8 {
        let more = out.len() - 8;
        out.truncate(8);
        out.push(format!("{more} more"));
    }
    out
}

/// Process trees started by calls: which process began the pipeline a process belongs to.
struct Pipelines {
    /// Thread → its process (thread group leader).
    group: HashMap<u32, u32>,
    /// Process → the process that forked it, for processes forked during or after a call.
    parent: HashMap<u32, u32>,
    /// Process → the program it first ran (basename).
    program: HashMap<u32, String>,
}

impl Pipelines {
    fn of(inp: &Inputs) -> Self {
        let mut p = Pipelines {
            group: HashMap::new(),
            parent: HashMap::new(),
            program: HashMap::new(),
        };
        for (e, ph) in inp.events.iter().zip(inp.phases) {
            match e.kind {
                EventKind::Spawn if e.ok() => {
                    let Some(c) = e.child else { continue };
                    let me = p.process(e.pid);
                    if e.thread {
                        p.group.insert(c, me);
                    } else if ph.call().is_some() {
                        p.parent.insert(c, me);
                    }
                }
                EventKind::Exec if e.ok() => {
                    let me = p.process(e.pid);
                    if let Some(prog) = e.path.as_deref().and_then(|x| x.rsplit('/').next()) {
                        p.program.entry(me).or_insert_with(|| prog.to_string());
                    }
                }
                _ => {}
            }
        }
        p
    }

    fn process(&self, pid: u32) -> u32 {
        self.group.get(&pid).copied().unwrap_or(pid)
    }

    /// The program that began `pid`'s pipeline: of the processes forked during a call from
    /// `pid` up to (not including) the server, the topmost one that ran a program (a subshell
    /// or a forked worker that runs nothing itself is passed through).
    fn root_program(&self, pid: u32) -> Option<&str> {
        let mut q = self.process(pid);
        let mut found = self.program.get(&q);
        let mut seen = 0;
        while let Some(&par) = self.parent.get(&q) {
            if !self.parent.contains_key(&par) || seen > 64 {
                break;
            }
            q = par;
            seen += 1;
            if let Some(p) = self.program.get(&q) {
                found = Some(p);
            }
        }
        found.map(String::as_str)
    }
}

/// MCPS-R016: processes (not threads) created during a call, or by its descendants, with no
/// `exit_group` in the trace were still running at teardown; what they did later is unseen.
/// Calls that timed out are left out: their tool is INCOMPLETE already.
fn outliving_processes(acc: &mut Acc, inp: &Inputs) {
    let calls = &inp.exercise.calls;
    let mut group: HashMap<u32, u32> = HashMap::new();
    for e in inp.events {
        if e.kind == EventKind::Spawn
            && e.thread
            && let Some(c) = e.child
        {
            let g = group.get(&e.pid).copied().unwrap_or(e.pid);
            group.insert(c, g);
        }
    }
    let exited: std::collections::HashSet<u32> = inp
        .events
        .iter()
        .filter(|e| e.kind == EventKind::Exit)
        .map(|e| group.get(&e.pid).copied().unwrap_or(e.pid))
        .collect();
    for (e, p) in inp.events.iter().zip(inp.phases) {
        if e.kind != EventKind::Spawn || e.thread || !e.ok() {
            continue;
        }
        let (Some(child), Some(i)) = (e.child, p.call()) else {
            continue;
        };
        if calls[i].timed_out || exited.contains(&child) {
            continue;
        }
        let target = entity_of(inp, p);
        let note = phase_note(&e.phase);
        let key = "outlives-scan";
        acc.observe(&target, key, syscall_ev(e), || {
            finding(
                inp,
                RuleId::OutlivesScan,
                &target,
                format!(
                    "process {child}, started by this tool{note}, was still running when the scan ended: what it did after that was not observed"
                ),
                key,
            )
        });
    }
}

type DnsQueries<'a> = Vec<(&'a Capture, Vec<String>, Phase)>;

/// Canaries in `data` as sent and as a decoder would read it: URL-decoded, and without the line
/// breaks, blanks and JSON escapes that cut encoded text into pieces (`base64` wraps every 76
/// characters, `base64 -w 16` every 16; the search needs a dozen contiguous characters).
fn find_canaries(canaries: &CanarySet, data: &[u8]) -> Vec<crate::canary::CanaryHit> {
    let mut hits = canaries.find(data);
    let mut variants: Vec<Vec<u8>> = Vec::new();
    if data.contains(&b'%') {
        // Every level of escaping (`%2530` is `%30` is `0`), and form encoding (`+` a space).
        let mut d = url_decode(data);
        for _ in 0..3 {
            if !d.contains(&b'%') {
                break;
            }
            let next = url_decode(&d);
            if next == d {
                break;
            }
            variants.push(std::mem::replace(&mut d, next));
        }
        variants.push(d);
        if data.contains(&b'+') {
            let spaced: Vec<u8> = data
                .iter()
                .map(|&b| if b == b'+' { b' ' } else { b })
                .collect();
            variants.push(url_decode_all(&spaced));
        }
    }
    // Cut by punctuation (`/` between path segments, `-`, `.`, `&k=`): only letters and digits.
    let alnum: Vec<u8> = variants
        .last()
        .map_or(data, Vec::as_slice)
        .iter()
        .copied()
        .filter(u8::is_ascii_alphanumeric)
        .collect();
    if alnum.len() != data.len() {
        variants.push(alnum);
    }
    if data.windows(2).any(|w| w == b"\\u") {
        variants.push(json_unescape(data));
    }
    let sources: Vec<&[u8]> = std::iter::once(data)
        .chain(variants.iter().map(Vec::as_slice))
        .collect();
    let joined: Vec<Vec<u8>> = sources
        .iter()
        .map(|d| strip_breaks(d))
        .zip(&sources)
        .filter(|(v, d)| v.len() != d.len())
        .map(|(v, _)| v)
        .collect();
    variants.extend(joined);
    for v in &variants {
        for h in canaries.find(v) {
            if !hits.iter().any(|x| x.origin == h.origin) {
                hits.push(h);
            }
        }
    }
    hits
}

/// `data` without ASCII blanks and line breaks, nor the two-character escapes `\n`, `\r`.
fn strip_breaks(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'\\' if matches!(data.get(i + 1), Some(b'n' | b'r' | b't')) => i += 2,
            b' ' | b'\t' | b'\r' | b'\n' => i += 1,
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// Percent-decoding (`%2B` → `+`); `+` is kept, as base64 uses it.
fn url_decode(data: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'%'
            && let (Some(h), Some(l)) = (
                data.get(i + 1).copied().and_then(hex),
                data.get(i + 2).copied().and_then(hex),
            )
        {
            out.push(h << 4 | l);
            i += 3;
        } else if data[i] == b'%'
            && matches!(data.get(i + 1), Some(b'u' | b'U'))
            && let Some(u) = data
                .get(i + 2..i + 6)
                .filter(|d| d.iter().all(u8::is_ascii_hexdigit))
                .and_then(|d| std::str::from_utf8(d).ok())
                .and_then(|h| u32::from_str_radix(h, 16).ok())
        {
            let c = char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER);
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            i += 6;
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// Percent-decoding repeated until nothing is left to decode (at most four levels), with the
/// `%uXXXX` form some encoders use.
fn url_decode_all(data: &[u8]) -> Vec<u8> {
    let mut d = url_decode(data);
    for _ in 0..3 {
        if !d.contains(&b'%') {
            break;
        }
        let next = url_decode(&d);
        if next == d {
            break;
        }
        d = next;
    }
    d
}

/// JSON's `\\uXXXX` escapes decoded (a string escaped character by character reads as plain text
/// once parsed); anything else is kept as it is.
fn json_unescape(data: &[u8]) -> Vec<u8> {
    let unit = |d: &[u8]| -> Option<u32> {
        let h = std::str::from_utf8(d.get(..4)?).ok()?;
        u32::from_str_radix(h, 16).ok()
    };
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if data[i] == b'\\'
            && data.get(i + 1) == Some(&b'u')
            && let Some(u) = data.get(i + 2..).and_then(unit)
        {
            let c = char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER);
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            i += 6;
        } else {
            out.push(data[i]);
            i += 1;
        }
    }
    out
}

/// Base32 (RFC 4648, either case) decoded, other characters skipped.
fn base32_decode(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len() * 5 / 8);
    let (mut bits, mut n) = (0u64, 0u32);
    for &ch in s {
        let v = match ch {
            b'a'..=b'z' => ch - b'a',
            b'A'..=b'Z' => ch - b'A',
            b'2'..=b'7' => ch - b'2' + 26,
            _ => continue,
        };
        bits = (bits << 5) | u64::from(v);
        n += 5;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    out
}

/// Shortest piece of a canary accepted out of order: shorter pieces of a random hex token turn up
/// in honest hex data (hashes, ids) by chance.
const MIN_PIECE: usize = 6;
/// Pieces searched per entity at most (each is a few bytes; this bounds the work, not the data).
const MAX_PIECES: usize = 200_000;

/// Pieces of `data` a sender could have cut a secret into, lowercased: runs of letters and digits
/// (a sequence number in `3-ab12` stays apart), words without their inner punctuation (`ghp_ab`
/// is `ghpab`), and each of those decoded on its own (hex, base32, base64).
fn pieces_of(data: &[u8], out: &mut std::collections::HashSet<Vec<u8>>) {
    let add = |p: Vec<u8>, out: &mut std::collections::HashSet<Vec<u8>>| {
        if p.len() >= MIN_PIECE {
            out.insert(p);
        }
    };
    let runs = data.split(|b| !b.is_ascii_alphanumeric());
    let words = data
        .split(|b| b.is_ascii_whitespace() || b"./,;:&=?\"'[](){}<>|\\".contains(b))
        .map(|w| {
            w.iter()
                .copied()
                .filter(u8::is_ascii_alphanumeric)
                .collect::<Vec<u8>>()
        });
    let mut raw: Vec<Vec<u8>> = runs.map(<[u8]>::to_vec).collect();
    raw.extend(words);
    for run in raw {
        if run.len() < MIN_PIECE || run.len() > 512 {
            continue;
        }
        let alnum = |d: Vec<u8>| -> Vec<u8> {
            d.into_iter()
                .filter(u8::is_ascii_alphanumeric)
                .map(|b| b.to_ascii_lowercase())
                .collect()
        };
        if let Some(d) = mcp_scan_core::codec::hex_decode(&run) {
            add(alnum(d), out);
        }
        if run
            .iter()
            .all(|b| b.is_ascii_alphabetic() || (b'2'..=b'7').contains(b))
        {
            add(alnum(base32_decode(&run)), out);
        }
        if let Some(d) = base64_decode(&run) {
            add(alnum(d), out);
        }
        add(run.to_ascii_lowercase(), out);
    }
}

/// Standard or URL-safe base64 (see [`mcp_scan_core::codec::base64_decode`]: a dangling last
/// character is dropped, the bytes before it kept); `None` when `s` is not base64.
fn base64_decode(s: &[u8]) -> Option<Vec<u8>> {
    mcp_scan_core::codec::base64_decode(s)
}

/// Uncovered characters of a token's span tolerated: where a sender's chunk boundary leaves a
/// piece shorter than [`MIN_PIECE`] at either end of the token.
const UNCOVERED_SLACK: usize = 4;

/// The forms a canary's content takes when sent whole and then cut: letters and digits only,
/// hex, base32, base64 (each lowercased), with the span the token occupies in each.
fn piece_forms(c: &crate::canary::Canary) -> Vec<(Vec<u8>, std::ops::Range<usize>, &'static str)> {
    let content = c.content.as_bytes();
    let Some(start) = c.content.find(&c.token) else {
        return Vec::new();
    };
    let end = start + c.token.len();
    let mut forms = Vec::new();
    // Letters and digits only: the token's span shifts by the punctuation before it.
    let before = content[..start]
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .count();
    let alnum: Vec<u8> = content
        .iter()
        .filter(|b| b.is_ascii_alphanumeric())
        .map(u8::to_ascii_lowercase)
        .collect();
    forms.push((alnum, before..before + c.token.len(), "plain"));
    let hex: Vec<u8> = content
        .iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .collect();
    forms.push((hex, 2 * start..2 * end, "hex"));
    let b64 = crate::canary::base64(content)
        .to_ascii_lowercase()
        .into_bytes();
    forms.push((b64, (8 * start).div_ceil(6)..8 * end / 6, "base64"));
    let b32: Vec<u8> = {
        let mut bits: Vec<u8> = Vec::with_capacity(content.len() * 8);
        for b in content {
            bits.extend((0..8).rev().map(|i| (b >> i) & 1));
        }
        bits.chunks(5)
            .map(|ch| {
                let v = ch
                    .iter()
                    .chain(std::iter::repeat(&0))
                    .take(5)
                    .fold(0usize, |a, &b| (a << 1) | usize::from(b));
                b"abcdefghijklmnopqrstuvwxyz234567"[v]
            })
            .collect()
    };
    forms.push((b32, (8 * start).div_ceil(5)..8 * end / 5, "base32"));
    forms
}

/// Canaries cut into pieces sent in any order: per entity, every DNS name, TLS and HTTP name and
/// payload of the captures is cut into pieces (see [`pieces_of`]); when pieces long enough to be
/// no accident cover a token's span in one of the forms its content takes ([`piece_forms`]), it
/// left in pieces, whatever their order over queries and packets. Origins already found whole are
/// left to those findings.
fn scattered(
    acc: &mut Acc,
    inp: &Inputs,
    captures: &[Capture],
    phase_of: impl Fn(&Capture) -> Phase,
) {
    let mut groups: BTreeMap<ToolRef, Vec<(usize, Phase)>> = BTreeMap::new();
    for (i, c) in captures.iter().enumerate() {
        let p = phase_of(c);
        groups.entry(entity_of(inp, &p)).or_default().push((i, p));
    }
    let forms: Vec<_> = inp.canaries.canaries.iter().map(piece_forms).collect();
    for (target, items) in groups {
        // piece -> the captures it came from
        let mut from: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
        for (i, _) in &items {
            let c = &captures[*i];
            let mut out = std::collections::HashSet::new();
            for text in [c.host.as_deref(), c.sni.as_deref()].into_iter().flatten() {
                pieces_of(text.as_bytes(), &mut out);
            }
            for (_, v) in &c.http_headers {
                pieces_of(v.as_bytes(), &mut out);
            }
            if let Some(r) = &c.http_request {
                pieces_of(&url_decode_all(r.as_bytes()), &mut out);
            }
            pieces_of(&c.bytes, &mut out);
            if c.bytes.contains(&b'%') {
                pieces_of(&url_decode_all(&c.bytes), &mut out);
            }
            for p in out {
                from.entry(p).or_default().push(*i);
            }
            if from.len() > MAX_PIECES {
                break;
            }
        }
        if from.is_empty() {
            continue;
        }
        let pieces: Vec<&Vec<u8>> = from.keys().collect();
        let Ok(ac) = aho_corasick::AhoCorasick::new(&pieces) else {
            continue;
        };
        let mut hits: Vec<crate::canary::CanaryHit> = Vec::new();
        let mut used: Vec<usize> = Vec::new();
        for (c, cforms) in inp.canaries.canaries.iter().zip(&forms) {
            let whole = acc.findings.iter().any(|((t, k), f)| {
                *t == target && k.starts_with("leak:") && f.observation.contains(&c.origin)
            });
            if whole {
                continue;
            }
            for (form, span, encoding) in cforms {
                if span.is_empty() {
                    continue;
                }
                let mut cov = vec![false; form.len()];
                let mut srcs: Vec<usize> = Vec::new();
                for m in ac.find_overlapping_iter(form.as_slice()) {
                    // A piece that holds the whole span is a plain find's, not a cut.
                    if m.start() <= span.start && m.end() >= span.end {
                        continue;
                    }
                    if m.end() <= span.start || m.start() >= span.end {
                        continue;
                    }
                    cov[m.start()..m.end()].iter_mut().for_each(|x| *x = true);
                    srcs.extend(from[pieces[m.pattern().as_usize()]].iter().copied());
                }
                let missing = cov[span.clone()].iter().filter(|x| !**x).count();
                if missing <= UNCOVERED_SLACK && span.len() > 4 * UNCOVERED_SLACK {
                    hits.push(crate::canary::CanaryHit {
                        origin: c.origin.clone(),
                        encoding,
                    });
                    used.extend(srcs);
                    break;
                }
            }
        }
        if hits.is_empty() {
            continue;
        }
        used.sort_unstable();
        used.dedup();
        let channel = if used.len() > 1 {
            "network traffic cut into pieces (names and payloads, in any order)"
        } else {
            "a network payload cut into pieces"
        };
        for i in used.into_iter().take(MAX_EVIDENCE) {
            let p = items
                .iter()
                .find(|(j, _)| *j == i)
                .map_or(Phase::Background, |(_, p)| p.clone());
            let label = p.label(&inp.exercise.calls);
            leak(
                acc,
                inp,
                &target,
                channel,
                &hits,
                phase_note(&label),
                capture_ev(&captures[i]),
            );
        }
    }
}

/// Canaries in DNS names that no single name shows: a secret split over labels or over several
/// queries, plain, hex or base32 (the usual tunnel alphabet). Per entity and domain (the last two
/// labels), the labels in front of the part every name shares are joined in query order, once
/// whole and once leftmost labels only, and searched as they are and base32-decoded at every
/// alignment. Origins a single name already shows are left to the per-capture search.
fn split_dns(
    acc: &mut Acc,
    inp: &Inputs,
    captures: &[Capture],
    phase_of: impl Fn(&Capture) -> Phase,
) {
    // The names a server chose: DNS queries, and the TLS SNI and HTTP Host it sent (which need
    // not be the name it looked up: a raw address with data in the Host labels).
    let mut named: Vec<(&Capture, &str, &'static str)> = Vec::new();
    for c in captures {
        if c.protocol == "dns" {
            if let Some(h) = c.host.as_deref() {
                named.push((c, h, "DNS"));
            }
            continue;
        }
        if let Some(h) = c.sni.as_deref() {
            named.push((c, h, "TLS SNI"));
        }
        if let Some((_, h)) = c
            .http_headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("host"))
        {
            // `name:port` (a bracketed IPv6 literal has no labels worth joining).
            named.push((
                c,
                h.rsplit_once(':').map_or(h.as_str(), |x| x.0),
                "HTTP Host",
            ));
        }
    }
    named.sort_by(|a, b| a.0.ts.total_cmp(&b.0.ts));
    // (entity, kind, domain) -> its names in order: capture, labels, phase.
    let mut groups: BTreeMap<(ToolRef, &'static str, String), DnsQueries> = BTreeMap::new();
    for (c, host, kind) in named {
        let host = host.trim_end_matches('.');
        let labels: Vec<String> = host.split('.').map(str::to_string).collect();
        if labels.len() < 3 {
            continue;
        }
        let domain = labels[labels.len() - 2..].join(".").to_ascii_lowercase();
        let p = phase_of(c);
        groups
            .entry((entity_of(inp, &p), kind, domain))
            .or_default()
            .push((c, labels, p));
    }
    for ((target, kind, _), items) in groups {
        let min_len = items.iter().map(|(_, l, _)| l.len()).min().unwrap_or(0);
        let mut shared = 2;
        if items.len() > 1 {
            while shared < min_len - 1 {
                let k = shared + 1;
                let first = &items[0].1;
                let same = items
                    .iter()
                    .all(|(_, l, _)| l[l.len() - k].eq_ignore_ascii_case(&first[first.len() - k]));
                if !same {
                    break;
                }
                shared = k;
            }
        }
        let mut whole = String::new();
        let mut leftmost = String::new();
        for (_, l, _) in &items {
            whole.extend(l[..l.len() - shared].iter().map(String::as_str));
            leftmost.push_str(&l[0]);
        }
        let known: Vec<String> = items
            .iter()
            .flat_map(|(c, _, _)| find_canaries(inp.canaries, &c.bytes))
            .map(|h| h.origin)
            .collect();
        let mut hits: Vec<crate::canary::CanaryHit> = Vec::new();
        let mut add = |found: Vec<crate::canary::CanaryHit>, b32: bool| {
            for mut h in found {
                if b32 {
                    h.encoding = "base32";
                }
                if !known.contains(&h.origin) && !hits.iter().any(|x| x.origin == h.origin) {
                    hits.push(h);
                }
            }
        };
        // Fragments put back in order per request (each call sends its own set; a repeated
        // call repeats the same names), and over all of them.
        let mut sets: Vec<(String, Vec<Vec<String>>)> = Vec::new();
        for (_, l, p) in &items {
            let label = p.label(&inp.exercise.calls);
            let data = l[..l.len() - shared].to_vec();
            match sets.iter_mut().find(|(k, _)| *k == label) {
                Some((_, d)) if !d.contains(&data) => d.push(data),
                Some(_) => {}
                None => sets.push((label, vec![data])),
            }
        }
        let mut all: Vec<Vec<String>> = Vec::new();
        for (_, d) in &sets {
            for x in d {
                if !all.contains(x) {
                    all.push(x.clone());
                }
            }
        }
        let mut joins = vec![whole, leftmost];
        if sets.len() > 1 {
            for (_, d) in &sets {
                joins.extend(reordered(d));
            }
        }
        joins.extend(reordered(&all));
        joins.sort();
        joins.dedup();
        for joined in &joins {
            add(inp.canaries.find(joined.as_bytes()), false);
            let alpha: Vec<u8> = joined
                .bytes()
                .filter(|b| b.is_ascii_alphabetic() || (b'2'..=b'7').contains(b))
                .collect();
            for skip in 0..8.min(alpha.len()) {
                add(inp.canaries.find(&base32_decode(&alpha[skip..])), true);
            }
        }
        if hits.is_empty() {
            continue;
        }
        let channel = match (kind, items.len() > 1) {
            ("DNS", true) => "DNS names, split across queries".to_string(),
            ("DNS", false) => "a DNS name, split across labels".to_string(),
            (k, true) => format!("{k} names, split across connections"),
            (k, false) => format!("a {k} name, split across labels"),
        };
        for (c, _, p) in &items {
            let label = p.label(&inp.exercise.calls);
            leak(
                acc,
                inp,
                &target,
                &channel,
                &hits,
                phase_note(&label),
                capture_ev(c),
            );
        }
    }
}

/// Most fragments tried in every order when they carry no index (6! = 720 joins).
const MAX_UNORDERED: usize = 6;

/// A fragment's index, when it carries one: a label of digits only, or digits and `-`/`_` in
/// front of its first label (`3-mzxw6`). Returns the index and the data labels without it.
fn fragment_index(labels: &[String]) -> Option<(u32, Vec<String>)> {
    if let Some(i) = labels
        .iter()
        .position(|l| !l.is_empty() && l.len() <= 4 && l.bytes().all(|b| b.is_ascii_digit()))
    {
        let n = labels[i].parse().ok()?;
        let mut rest = labels.to_vec();
        rest.remove(i);
        return Some((n, rest));
    }
    let first = labels.first()?;
    let (n, data) = first.split_once(['-', '_'])?;
    if n.is_empty() || n.len() > 4 || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut rest = labels.to_vec();
    rest[0] = data.to_string();
    Some((n.parse().ok()?, rest))
}

/// The fragments' data (labels in front of the shared suffix, one list per name) joined in the
/// orders a sender could have shuffled them from: by the index each carries, else, for a few
/// fragments, every order.
fn reordered(data: &[Vec<String>]) -> Vec<String> {
    if data.len() < 2 {
        return Vec::new();
    }
    let indexed: Option<Vec<(u32, Vec<String>)>> = data.iter().map(|l| fragment_index(l)).collect();
    if let Some(mut ix) = indexed {
        ix.sort_by_key(|(n, _)| *n);
        return vec![
            ix.iter()
                .flat_map(|(_, l)| l.iter().map(String::as_str))
                .collect(),
        ];
    }
    if data.len() > MAX_UNORDERED {
        return Vec::new();
    }
    let parts: Vec<String> = data.iter().map(|l| l.concat()).collect();
    let mut out = Vec::new();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    // Heap's algorithm: every permutation once.
    let mut c = vec![0usize; order.len()];
    out.push(order.iter().map(|&i| parts[i].as_str()).collect::<String>());
    let mut i = 1;
    while i < order.len() {
        if c[i] < i {
            if i % 2 == 0 {
                order.swap(0, i);
            } else {
                order.swap(c[i], i);
            }
            out.push(order.iter().map(|&i| parts[i].as_str()).collect::<String>());
            c[i] += 1;
            i = 1;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    out
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
                && let Some((addr, port)) = syscall_dest(line)
            {
                let port = port.as_deref().unwrap_or("?");
                push(&mut dests, format!("{}:{port}", bracket_v6(&addr)));
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
            .find(" (declared")
            .map(|i| &tail[i..])
            .or_else(|| tail.find(", undeclared").map(|i| &tail[i..]))
            .unwrap_or("");
        f.observation = format!("{head} to {shown}{rest}");
    }
}

/// Whether an execve shows probe marker `m` executed: the marker is the program (a shell's PATH
/// lookup of it, even a failed one), or a shell got it in its `-c` script. The marker inside a
/// plain argument (`grep -F -- 'x; m #'`) or inside a program name taken verbatim from the input
/// (`$(m)` run without a shell by a command runner) was not interpreted.
fn probe_executed(e: &Event, m: &str) -> bool {
    let base = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let argv = e.argv.as_deref().unwrap_or_default();
    if e.path.as_deref().is_some_and(|p| base(p) == m) || argv.first().is_some_and(|a| base(a) == m)
    {
        return true;
    }
    const SHELLS: [&str; 7] = ["sh", "bash", "dash", "zsh", "ksh", "ash", "busybox"];
    let prog = e.path.as_deref().map(base).unwrap_or_default();
    let arg0 = argv.first().map(|a| base(a)).unwrap_or_default();
    if !(SHELLS.contains(&prog.as_str()) || SHELLS.contains(&arg0.as_str())) {
        return false;
    }
    // The script is the argument after `-c` (or `-lc`, `-ec`, ...); what follows it is data.
    let script = argv
        .iter()
        .skip(1)
        .position(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('c'))
        .and_then(|i| argv.get(i + 2));
    script.is_some_and(|s| shell_live(s, m))
}

/// Whether `m` appears in `script` where a POSIX shell would run it: as a command (at the start,
/// after `;`, `&`, `|`, a newline or a subshell's `(`, or first in a `$(...)`/backtick
/// substitution), outside single quotes, outside double quotes unless in a substitution there,
/// and outside comments. A properly quoted argument (`grep -- 'x; m #'`) is data, not an
/// injection; so is `m` as a plain argument.
fn shell_live(script: &str, m: &str) -> bool {
    #[derive(PartialEq, Clone, Copy)]
    enum Ctx {
        Plain,
        Single,
        Double,
        Subst,
        Backtick,
    }
    let b = script.as_bytes();
    let mut stack = vec![Ctx::Plain];
    let mut i = 0;
    while i < b.len() {
        let top = *stack.last().unwrap_or(&Ctx::Plain);
        // Bytes, not str slices: `i` may sit inside a multi-byte character.
        let rest = &b[i..];
        if matches!(top, Ctx::Plain | Ctx::Subst | Ctx::Backtick) && rest.starts_with(m.as_bytes())
        {
            let before = b[..i].iter().rev().find(|c| !matches!(c, b' ' | b'\t'));
            let command_position = match before {
                None => true,
                Some(b'`') => top == Ctx::Backtick,
                Some(c) => b";&|(\n".contains(c),
            };
            if command_position {
                return true;
            }
        }
        let at_word_start =
            i == 0 || b[i - 1].is_ascii_whitespace() || b";&|()".contains(&b[i - 1]);
        match (top, b[i]) {
            (Ctx::Single, b'\'') => {
                stack.pop();
            }
            (Ctx::Single, _) => {}
            (_, b'\\') => i += 1,
            (Ctx::Double, b'"') => {
                stack.pop();
            }
            (_, b'$') if rest.starts_with(b"$(") => {
                stack.push(Ctx::Subst);
                i += 1;
            }
            (Ctx::Backtick, b'`') => {
                stack.pop();
            }
            (_, b'`') => stack.push(Ctx::Backtick),
            (Ctx::Double, _) => {}
            (Ctx::Subst, b')') => {
                stack.pop();
            }
            (_, b'\'') => stack.push(Ctx::Single),
            (_, b'"') => stack.push(Ctx::Double),
            (_, b'#') if at_word_start => {
                // A comment runs to the end of the line.
                i += rest.iter().position(|c| *c == b'\n').unwrap_or(rest.len());
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// The mode a traced chmod sets (`0755`, `0100644`).
fn chmod_mode(e: &Event) -> u32 {
    e.flags
        .as_deref()
        .and_then(|m| u32::from_str_radix(m.trim_start_matches("0o"), 8).ok())
        .unwrap_or(0)
}

/// The service a DNS name belongs to: the label left of the public suffix (`github` for
/// `api.github.com`, `example` for `www.example.co.uk`).
fn service_label(host: &str) -> Option<String> {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let labels: Vec<&str> = host.split('.').collect();
    if labels.len() < 2 || host.parse::<std::net::IpAddr>().is_ok() {
        return None;
    }
    let mut i = labels.len() - 2;
    // Second-level suffixes under a country code (`co.uk`, `com.au`).
    const SLD: [&str; 9] = ["co", "com", "net", "org", "gov", "edu", "ac", "or", "ne"];
    if i > 0 && labels[labels.len() - 1].len() == 2 && SLD.contains(&labels[i]) {
        i -= 1;
    }
    let l = labels[i];
    (l.len() >= 3).then(|| l.to_string())
}

/// Whether the tool's description, title or annotations, or those of another tool of the same
/// server, name the service `host` belongs to ("Merge a pull request" beside tools that all say
/// "in a GitHub repository"). Names declare nothing: neither the tool's nor the server's (or its
/// serverInfo): an agent reads what the tools say they do.
fn names_service(inp: &Inputs, target: &ToolRef, host: &str) -> bool {
    let Some(label) = service_label(host) else {
        return false;
    };
    // A hyphenated service (`exchangerate-api`) is named when its words appear in a row.
    has_phrase(&network_text(inp, target), &label)
        || inp.exercise.tools.iter().any(|t| {
            let text: String = ["title", "description"]
                .iter()
                .filter_map(|k| t.get(*k).and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase();
            has_phrase(&text, &label)
        })
}

/// The tool's description, title and annotation title, lowercased: where it can declare network
/// use and name what it talks to.
fn network_text(inp: &Inputs, target: &ToolRef) -> String {
    let mut text = entity_text(inp, target, &["title", "description"]);
    if target.kind == EntityKind::Tool
        && let Some(t) = tool_decl(inp.exercise, &target.name)
            .and_then(|t| t.pointer("/annotations/title"))
            .and_then(Value::as_str)
    {
        text.push(' ');
        text.push_str(&t.replace(['_', '-'], " ").to_lowercase());
    }
    text
}

/// The services of the host names a tool's description names (`api.weather.gov` → `weather`).
fn described_services(inp: &Inputs, target: &ToolRef) -> Vec<String> {
    // Raw text: `exchangerate-api.io` is one host, not `exchangerate` and `api.io`.
    let mut text = entity_raw_text(inp, target, &["title", "description"]);
    if target.kind == EntityKind::Tool
        && let Some(t) = tool_decl(inp.exercise, &target.name)
            .and_then(|t| t.pointer("/annotations/title"))
            .and_then(Value::as_str)
    {
        text.push(' ');
        text.push_str(&t.to_lowercase());
    }
    let mut out: Vec<String> = Vec::new();
    for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ' '))) {
        for tok in word.split(' ') {
            let tok = tok.trim_matches(['.', '-']);
            let Some((_, tld)) = tok.rsplit_once('.') else {
                continue;
            };
            if !inp.rules.host_suffixes.iter().any(|s| s == tld) {
                continue;
            }
            if let Some(l) = service_label(tok)
                && !out.contains(&l)
            {
                out.push(l);
            }
        }
    }
    out
}

/// A declared egress finding of a tool whose description names the hosts it talks to, that also
/// went somewhere else: what was contacted is not what was declared, HIGH.
fn undeclared_destination(f: &mut Finding, services: &[String]) {
    f.severity = Severity::High;
    if let Some(i) = f.observation.find(" (declared)") {
        f.observation.truncate(i);
    }
    f.observation.push_str(&format!(
        ", undeclared: not the service its description names ({})",
        services.join(", ")
    ));
}

/// An undeclared egress finding whose every destination is a service the tool or server names:
/// declared, INFO.
fn declared_by_name(f: &mut Finding) {
    f.severity = Severity::Info;
    if let Some(i) = f.observation.find(", undeclared") {
        f.observation.truncate(i);
        f.observation
            .push_str(" (declared: the tool's description names the service)");
    }
}

/// The persistence group a write to `path` lands in, if any. A group with `when_contains` counts
/// only when the file left behind holds one of its words; a file gone after the run can run
/// nothing later, and one outside the collected areas (or a refused write there) is unknown and
/// counts.
fn persistence_hit<'a>(inp: &Inputs<'a>, path: &str) -> Option<&'a PersistGroup> {
    if path.is_empty() {
        return None;
    }
    inp.rules.persistence.iter().find(|g| {
        if !g.matches(path) {
            return false;
        }
        if g.when_contains.is_empty() {
            return true;
        }
        let collected = path.starts_with(&format!("{SANDBOX_HOME}/")) || path.starts_with("/tmp/");
        match inp.written_files.iter().find(|(p, _, _)| p == path) {
            Some((_, bytes, _)) => {
                let text = String::from_utf8_lossy(bytes).to_lowercase();
                g.when_contains.iter().any(|w| text.contains(w.as_str()))
            }
            None => !collected,
        }
    })
}

/// An exec (or attempt) of a program that installs a job that runs later (`crontab FILE`):
/// reported as persistence. Returns whether it was one.
fn persistence_command(
    inp: &Inputs,
    acc: &mut Acc,
    target: &ToolRef,
    e: &Event,
    note: &str,
) -> bool {
    let argv = e.argv.clone().unwrap_or_default();
    let prog = e
        .path
        .as_deref()
        .and_then(|x| x.rsplit('/').next())
        .unwrap_or("");
    let Some(c) = inp.rules.persistence_commands.iter().find(|c| {
        c.program == prog
            && !argv.iter().skip(1).any(|a| c.unless_args.contains(a))
            && (c.when_args.is_empty() || argv.iter().skip(1).any(|a| c.when_args.contains(a)))
    }) else {
        return false;
    };
    let key = format!("persist-cmd:{prog}");
    let run = excerpt(&argv.join(" "), 200);
    let tried = if e.ok() {
        String::new()
    } else {
        format!(
            " (tried: {})",
            e.error.as_deref().unwrap_or("the program is missing")
        )
    };
    let what = c.what.clone();
    acc.observe(target, &key, syscall_ev(e), || {
        finding(
            inp,
            RuleId::Dropped,
            target,
            format!("{what}: runs `{run}`{tried}{note}, undeclared"),
            &key,
        )
        .title("installs a job that runs later")
    });
    true
}

/// A letters-and-digits form of a name, without `mcp`/`server` affixes (`notes-mcp-server` and
/// `Notes` are both `notes`).
fn bare_name(name: &str) -> String {
    let mut n: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    loop {
        let before = n.len();
        for affix in ["mcp", "server"] {
            if n.len() > affix.len() {
                if let Some(r) = n.strip_prefix(affix) {
                    n = r.to_string();
                } else if let Some(r) = n.strip_suffix(affix) {
                    n = r.to_string();
                }
            }
        }
        if n.len() == before {
            return n;
        }
    }
}

/// The server's own XDG folder (`~/.config/<name>`, `~/.local/share/<name>`,
/// `~/.local/state/<name>`) `path` lies in, when the folder is named after the server.
fn own_state_dir(inp: &Inputs, path: &str) -> Option<String> {
    let server = bare_name(inp.server);
    // A server named after a credential store (`gcloud`) does not own that store.
    if server.len() < 3 || is_sensitive(inp.rules, inp.canaries, path) {
        return None;
    }
    for base in [".config", ".local/share", ".local/state"] {
        let root = format!("{SANDBOX_HOME}/{base}/");
        if let Some(rest) = path.strip_prefix(&root)
            && let Some((dir, file)) = rest.split_once('/')
            && !file.is_empty()
            && bare_name(dir) == server
        {
            return Some(format!("{root}{dir}"));
        }
    }
    None
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
        if !dup && f.evidence.len() < MAX_EVIDENCE && !f.evidence.contains(&ev) {
            f.evidence.push(ev);
        }
        return;
    }
    let declared = declares_network(inp, target);
    let dest = match &ev {
        Evidence::Network { destination, .. } => destination.clone(),
        Evidence::Syscall { line, .. } => match syscall_dest(line) {
            Some((addr, port)) => format!(
                "{}{}",
                bracket_v6(&addr),
                port.map(|p| format!(":{p}")).unwrap_or_default()
            ),
            None => "an outside address".into(),
        },
        _ => "an outside address".into(),
    };
    let f = if declared {
        finding(
            inp,
            RuleId::Egress,
            target,
            format!("network egress{note} to {dest} (declared)"),
            &key,
        )
        .severity(Severity::Info)
    } else {
        finding(
            inp,
            RuleId::Egress,
            target,
            format!(
                "network egress{note} to {dest}, undeclared: neither the description nor openWorldHint mentions network use"
            ),
            &key,
        )
    };
    acc.add(f.evidence(ev).build(), key);
}

/// How a report names a message the server sent on its own.
fn server_message_channel(method: &str) -> String {
    match method {
        "notifications/message" => "a log notification".into(),
        "notifications/progress" => "a progress notification".into(),
        "sampling/createMessage" => "a sampling request to the client's model".into(),
        "elicitation/create" => "an elicitation request to the user".into(),
        "roots/list" => "a roots request".into(),
        m if m.starts_with("notifications/resources/") => "a resource notification".into(),
        m => format!("a server message (`{m}`)"),
    }
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
        if f.evidence.len() < MAX_EVIDENCE && !f.evidence.contains(&ev) {
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
    acc.add(
        finding(
            inp,
            RuleId::CanaryLeak,
            target,
            format!(
                "the canary from {} appeared in {channel}{note}",
                origins.join(", ")
            ),
            &key,
        )
        .evidence(ev)
        .build(),
        key,
    );
}

fn dropped(acc: &mut Acc, inp: &Inputs, target: &ToolRef, path: &str, note: &str, ev: Evidence) {
    let key = format!("dropped:{path}");
    acc.observe(target, &key, ev, || {
        finding(
            inp,
            RuleId::Dropped,
            target,
            format!(
                "makes {} executable{note}",
                path.replacen(SANDBOX_HOME, "~", 1)
            ),
            &key,
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destinations_read_the_same_from_either_tracers_line() {
        let strace = r#"7 1.0 connect(3, {sa_family=AF_INET, sin_port=htons(6379), sin_addr=inet_addr("127.0.0.1")}, 16) = 0"#;
        let ebpf = "ebpf 7/7 connect(3, {AF_INET, 127.0.0.1:6379}) = 0";
        let v6 = "ebpf 7/7 connect(3, {AF_INET6, [::ffff:127.0.0.1]:11211}) = 0";
        let want = Some(("127.0.0.1".to_string(), Some("6379".to_string())));
        assert_eq!(syscall_dest(strace), want);
        assert_eq!(syscall_dest(ebpf), want);
        assert_eq!(
            syscall_dest(v6),
            Some(("::ffff:127.0.0.1".to_string(), Some("11211".to_string())))
        );
        // Twin: a unix address names no IP.
        assert_eq!(
            syscall_dest(r#"ebpf 7/7 connect(3, {AF_UNIX, "/run/x"}) = 0"#),
            None
        );
    }

    #[test]
    fn probe_marker_is_live_only_where_a_shell_would_run_it() {
        let m = "mcpscanprobe1";
        // Injected: the marker is a command, or a substitution, even inside double quotes.
        assert!(shell_live("grep -- x; mcpscanprobe1 # notes.txt", m));
        assert!(shell_live("echo \"$(mcpscanprobe1)\"", m));
        assert!(shell_live("echo `mcpscanprobe1`", m));
        assert!(shell_live("ls $(echo 'a' ; mcpscanprobe1)", m));
        // Data: quoted arguments, escaped, and comments.
        assert!(!shell_live("grep -- 'x; mcpscanprobe1 #' notes.txt", m));
        assert!(!shell_live("grep -- \"x; mcpscanprobe1 #\" notes.txt", m));
        assert!(!shell_live("echo '$(mcpscanprobe1)'", m));
        assert!(!shell_live("echo hi # mcpscanprobe1", m));
        assert!(!shell_live("echo \\`mcpscanprobe1\\`", m));
        assert!(!shell_live("grep -- x mcpscanprobe1 notes.txt", m));
        assert!(!shell_live("echo $(echo mcpscanprobe1)", m));
        // Multi-byte text around the marker does not trip the scanner.
        assert!(!shell_live("echo 'é mcpscanprobe1 ü'", m));
        assert!(shell_live("echo é; mcpscanprobe1", m));
    }

    fn net_event(p: &mut crate::trace::StraceParser, line: &str) -> Event {
        use crate::trace::TraceParser;
        crate::events::from_record(&p.feed(line)[0]).expect("event")
    }

    fn connect_line(addr: &str, port: u16, result: &str) -> String {
        if addr.contains(':') {
            format!(
                r#"1 1.0 connect(3<TCPv6:[1]>, {{sa_family=AF_INET6, sin6_port=htons({port}), sin6_flowinfo=htonl(0), inet_pton(AF_INET6, "{addr}", &sin6_addr), sin6_scope_id=0}}, 28) = {result}"#
            )
        } else {
            format!(
                r#"1 1.0 connect(3<TCP:[1]>, {{sa_family=AF_INET, sin_port=htons({port}), sin_addr=inet_addr("{addr}")}}, 16) = {result}"#
            )
        }
    }

    #[test]
    fn loopback_other_than_127_0_0_1_is_egress() {
        let mut p = crate::trace::StraceParser::default();
        let local = Listeners::default();
        let mut mk = |addr: &str| net_event(&mut p, &connect_line(addr, 80, "0"));
        assert!(is_egress(&mk("127.0.0.10"), &local));
        assert!(is_egress(&mk("93.184.216.34"), &local));
        assert!(is_egress(&mk("::ffff:127.0.0.10"), &local));
        assert!(!is_egress(&mk("127.0.0.1"), &local));
    }

    #[test]
    fn v4_mapped_loopback_is_loopback() {
        let mut p = crate::trace::StraceParser::default();
        let bind = net_event(
            &mut p,
            r#"1 1.0 bind(3<TCP:[1]>, {sa_family=AF_INET, sin_port=htons(8765), sin_addr=inet_addr("127.0.0.1")}, 16) = 0"#,
        );
        let local = Listeners::of(&[bind]);
        let e = net_event(
            &mut p,
            &connect_line(
                "::ffff:127.0.0.1",
                8765,
                "-1 EINPROGRESS (Operation now in progress)",
            ),
        );
        assert_eq!(e.address.as_deref(), Some("::ffff:127.0.0.1"));
        assert!(!is_egress(&e, &local));
    }

    #[test]
    fn loopback_port_no_sandbox_process_bound_is_egress() {
        let mut p = crate::trace::StraceParser::default();
        let bind = net_event(
            &mut p,
            r#"1 1.0 bind(3<TCP:[1]>, {sa_family=AF_INET, sin_port=htons(8765), sin_addr=inet_addr("0.0.0.0")}, 16) = 0"#,
        );
        let local = Listeners::of(&[bind]);
        let refused = "-1 ECONNREFUSED (Connection refused)";
        for addr in ["127.0.0.1", "::1", "::ffff:127.0.0.1"] {
            let other = net_event(&mut p, &connect_line(addr, 6379, refused));
            assert!(is_egress(&other, &local), "{addr}:6379");
            let own = net_event(&mut p, &connect_line(addr, 8765, "0"));
            assert!(!is_egress(&own, &local), "{addr}:8765");
        }
        // A port the kernel chose (bind to port 0) is the server's when the connect is not refused.
        let eph = Listeners {
            ephemeral: true,
            ..Listeners::default()
        };
        let pending = net_event(
            &mut p,
            &connect_line(
                "127.0.0.1",
                41234,
                "-1 EINPROGRESS (Operation now in progress)",
            ),
        );
        assert!(!is_egress(&pending, &eph));
        let other = net_event(&mut p, &connect_line("127.0.0.1", 6379, refused));
        assert!(is_egress(&other, &eph));
    }

    #[test]
    fn dns_fragments_are_joined_by_their_index_or_in_every_order() {
        let l = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<String>>();
        // Shuffled, each with an index label: one join, in index order.
        assert_eq!(
            reordered(&[l(&["cc", "2"]), l(&["aa", "0"]), l(&["bb", "1"])]),
            ["aabbcc"]
        );
        // An index in front of the data.
        assert_eq!(reordered(&[l(&["1-bb"]), l(&["0_aa"])]), ["aabb"]);
        // No index: every order of three.
        let mut all = reordered(&[l(&["cc"]), l(&["aa"]), l(&["bb"])]);
        all.sort();
        assert_eq!(
            all,
            ["aabbcc", "aaccbb", "bbaacc", "bbccaa", "ccaabb", "ccbbaa"]
        );
        assert_eq!(reordered(&vec![l(&["x"]); 7]).len(), 0);
        assert_eq!(reordered(&vec![l(&["x"]); 6]).len(), 720);
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
    fn a_thread_a_call_started_is_charged_to_it_inside_a_later_calls_window() {
        let calls = vec![
            call("open_notes", 1, 10.0, 11.0),
            call("save_note", 1, 12.0, 13.0),
        ];
        let mut evs = events(&[
            // A tool body on worker thread 8 (of process 7) starts thread 9, which waits.
            r#"8 10.5 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 9"#,
            // The main thread starts thread 10, which works at once: a runtime's worker.
            r#"7 10.6 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 10"#,
            r#"10 10.7 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
            r#"9 12.5 openat(AT_FDCWD</>, "/home/sandbox/.ssh/id_rsa", O_RDONLY) = 3</home/sandbox/.ssh/id_rsa>"#,
            r#"10 12.6 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
        ]);
        // Thread 8 is a worker the main thread started at startup.
        let mut all = events(&[r#"7 5.0 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 8"#]);
        all.append(&mut evs);
        let phases = attribute(&mut all, &calls, 6.0);
        assert_eq!(phases[4], Phase::After(0), "{}", all[4].phase);
        assert!(
            all[4]
                .phase
                .contains("by a thread started during call:open_notes#1")
        );
        assert!(all[4].phase.contains("while call:save_note#1 ran"));
        assert_eq!(
            phases[5],
            Phase::Call(1),
            "the runtime's worker serves the next call"
        );
    }

    #[test]
    fn a_pool_started_in_a_batch_during_a_call_serves_later_calls() {
        let calls = vec![call("a", 1, 10.0, 11.0), call("b", 1, 12.0, 13.0)];
        let mut evs = events(&[
            r#"7 10.500 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 20"#,
            r#"7 10.501 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 21"#,
            r#"7 10.502 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 22"#,
            r#"7 10.503 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 23"#,
            r#"22 12.5 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
        ]);
        let phases = attribute(&mut evs, &calls, 6.0);
        assert_eq!(phases[4], Phase::Call(1));
    }

    fn exec_findings(lines: &[&str]) -> Vec<Finding> {
        let calls = vec![call("render", 1, 10.0, 11.0)];
        let mut evs = events(lines);
        let phases = attribute(&mut evs, &calls, 6.0);
        let ex = Exercise {
            calls,
            ..Exercise::default()
        };
        findings(&Inputs {
            server: "s",
            exercise: &ex,
            events: &evs,
            phases: &phases,
            captures: &[],
            canaries: &CanarySet::default(),
            rules: RuntimeRules::builtin(),
            written_files: &[],
        })
        .into_iter()
        .filter(|f| f.rule_id == RuleId::Subprocess.id())
        .collect()
    }

    #[test]
    fn one_pipeline_of_processes_is_one_subprocess_finding() {
        let f = exec_findings(&[
            r#"7 10.1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 20"#,
            r#"20 10.2 execve("/bin/sh", ["sh", "-c", "cat k | base64"], 0x0 /* 3 vars */) = 0"#,
            r#"20 10.3 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 21"#,
            r#"21 10.4 execve("/bin/cat", ["cat", "k"], 0x0 /* 3 vars */) = 0"#,
            r#"20 10.5 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 22"#,
            r#"22 10.6 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 23"#,
            r#"23 10.7 execve("/usr/bin/base64", ["base64"], 0x0 /* 3 vars */) = 0"#,
        ]);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].observation.contains("sh -c cat k | base64"),
            "{}",
            f[0].observation
        );
        assert_eq!(f[0].evidence.len(), 3, "{:?}", f[0].evidence);
        // Twin: two programs the server itself started are two findings.
        let f = exec_findings(&[
            r#"7 10.1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 20"#,
            r#"20 10.2 execve("/usr/bin/git", ["git", "status"], 0x0 /* 3 vars */) = 0"#,
            r#"7 10.3 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 21"#,
            r#"21 10.4 execve("/usr/bin/curl", ["curl", "x"], 0x0 /* 3 vars */) = 0"#,
        ]);
        assert_eq!(f.len(), 2, "{f:?}");
    }

    #[test]
    fn a_process_forked_by_one_call_stays_that_calls_in_a_later_calls_window() {
        let calls = vec![call("sync", 1, 10.0, 11.0), call("greet", 1, 12.0, 13.0)];
        let mut evs = events(&[
            r#"7 10.1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 20"#,
            r#"20 10.2 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|SIGCHLD) = 21"#,
            // A runtime's worker thread, working in the call that started it, serves the next.
            r#"7 10.3 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 9"#,
            r#"9 10.4 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
            r#"20 10.9 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
            r#"21 12.5 openat(AT_FDCWD</>, "/home/sandbox/.ssh/id_rsa", O_RDONLY) = 3</home/sandbox/.ssh/id_rsa>"#,
            r#"9 12.6 openat(AT_FDCWD</>, "/etc/hosts", O_RDONLY) = 3</etc/hosts>"#,
        ]);
        attribute(&mut evs, &calls, 6.0);
        let labels: Vec<&str> = evs.iter().map(|e| e.phase.as_str()).collect();
        assert_eq!(
            labels,
            [
                "call:sync#1",
                "call:sync#1",
                "call:sync#1",
                "call:sync#1",
                "call:sync#1",
                // The grandchild, in greet's window, is still sync's.
                "after:sync#1",
                // A thread of the server itself does the current call's work.
                "call:greet#1",
            ]
        );
    }

    #[test]
    fn unattributable_background_work_is_full_severity_and_names_candidate_calls() {
        let calls = vec![call("greet", 1, 10.0, 11.0), call("ping", 1, 12.0, 13.0)];
        let mut evs = events(&[
            r#"7 10.5 clone3({flags=CLONE_VM|CLONE_THREAD}, 88) = 9"#,
            r#"7 20.0 openat(AT_FDCWD</>, "/home/sandbox/.ssh/id_rsa", O_RDONLY) = 3</home/sandbox/.ssh/id_rsa>"#,
        ]);
        let phases = attribute(&mut evs, &calls, 6.0);
        let ex = Exercise {
            calls,
            ..Exercise::default()
        };
        let f: Vec<Finding> = findings(&Inputs {
            server: "s",
            exercise: &ex,
            events: &evs,
            phases: &phases,
            captures: &[],
            canaries: &CanarySet::default(),
            rules: RuntimeRules::builtin(),
            written_files: &[],
        })
        .into_iter()
        .filter(|f| f.rule_id == RuleId::SensitiveRead.id())
        .collect();
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].target.kind, EntityKind::Server);
        assert_eq!(f[0].severity, Severity::High);
        assert!(
            f[0].observation.ends_with("candidates: greet#1"),
            "{}",
            f[0].observation
        );
    }

    #[test]
    fn own_xdg_folder_is_the_one_named_after_the_server_and_never_a_credential_store() {
        assert_eq!(bare_name("notes-mcp-server"), "notes");
        assert_eq!(bare_name("MCP Notes"), "notes");
        assert_eq!(bare_name("mcp"), "mcp");
        let ex = Exercise::default();
        let none = CanarySet::default();
        let inp = |server| Inputs {
            server,
            exercise: &ex,
            events: &[],
            phases: &[],
            captures: &[],
            canaries: &none,
            rules: RuntimeRules::builtin(),
            written_files: &[],
        };
        let home = SANDBOX_HOME;
        assert_eq!(
            own_state_dir(&inp("notes-mcp"), &format!("{home}/.config/notes/a.json")),
            Some(format!("{home}/.config/notes"))
        );
        assert_eq!(
            own_state_dir(&inp("notes-mcp"), &format!("{home}/.local/share/Notes/db")),
            Some(format!("{home}/.local/share/Notes"))
        );
        // Twins: another app's folder, a credential store named like the server.
        assert_eq!(
            own_state_dir(&inp("notes-mcp"), &format!("{home}/.config/todo/a.json")),
            None
        );
        assert_eq!(
            own_state_dir(
                &inp("gcloud"),
                &format!("{home}/.config/gcloud/credentials.db")
            ),
            None
        );
    }

    fn token_set() -> CanarySet {
        CanarySet::from_canaries(vec![crate::canary::Canary {
            origin: "$GITHUB_TOKEN".into(),
            token: "0123456789abcdef01234567".into(),
            content: "ghp_0123456789abcdef01234567".into(),
            home_path: None,
            env_name: Some("GITHUB_TOKEN".into()),
        }])
    }

    fn leaks_of(ex: &Exercise, canaries: &CanarySet) -> Vec<Finding> {
        findings(&Inputs {
            server: "s",
            exercise: ex,
            events: &[],
            phases: &[],
            captures: &[],
            canaries,
            rules: RuntimeRules::builtin(),
            written_files: &[],
        })
        .into_iter()
        .filter(|f| f.rule_id == RuleId::CanaryLeak.id())
        .collect()
    }

    #[test]
    fn canary_in_a_json_rpc_error_answer_is_a_leak() {
        let c = token_set();
        let mut v = call("lookup", 1, 1.0, 2.0);
        // What the client reports for an error answer: code, message and `error.data`.
        v.failure =
            Some(r#"Mcp error: -32603: lookup failed({"ctx":"76543210fedcba9876543210"})"#.into());
        let ex = Exercise {
            calls: vec![v],
            ..Exercise::default()
        };
        let f = leaks_of(&ex, &c);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].observation.contains("error answer"),
            "{}",
            f[0].observation
        );
        assert!(
            f[0].observation.contains("reversed"),
            "{}",
            f[0].observation
        );
        // Twin: an error answer with data that is not a canary.
        let mut v = call("lookup", 1, 1.0, 2.0);
        v.failure = Some(r#"Mcp error: -32603: lookup failed({"ctx":"7654321"})"#.into());
        let ex = Exercise {
            calls: vec![v],
            ..Exercise::default()
        };
        assert!(leaks_of(&ex, &c).is_empty());
    }

    fn dns(host: &str, ts: f64) -> Capture {
        Capture {
            ts,
            protocol: "dns".into(),
            destination: None,
            host: Some(host.into()),
            sni: None,
            http_request: None,
            http_headers: Vec::new(),
            body: String::new(),
            bytes: host.as_bytes().to_vec(),
        }
    }

    fn udp(payload: &str, ts: f64) -> Capture {
        Capture {
            ts,
            protocol: "udp".into(),
            destination: Some("203.0.113.9:9".into()),
            host: None,
            sni: None,
            http_request: None,
            http_headers: Vec::new(),
            body: payload.into(),
            bytes: payload.as_bytes().to_vec(),
        }
    }

    fn leaks_in(captures: &[Capture], canaries: &CanarySet) -> Vec<Finding> {
        let ex = Exercise {
            calls: vec![call("sync", 1, 1.0, 100.0)],
            ..Exercise::default()
        };
        findings(&Inputs {
            server: "s",
            exercise: &ex,
            events: &[],
            phases: &[],
            captures,
            canaries,
            rules: RuntimeRules::builtin(),
            written_files: &[],
        })
        .into_iter()
        .filter(|f| f.rule_id == RuleId::CanaryLeak.id())
        .collect()
    }

    #[test]
    fn canary_cut_into_pieces_sent_shuffled_over_queries_and_packets_is_a_leak() {
        let c = token_set();
        let value = "ghp_0123456789abcdef01234567";
        // DNS: 7-character chunks with sequence numbers, in reverse order.
        let chunks: Vec<&str> = value
            .as_bytes()
            .chunks(7)
            .map(|c| std::str::from_utf8(c).unwrap_or(""))
            .collect();
        let names: Vec<Capture> = chunks
            .iter()
            .enumerate()
            .rev()
            .map(|(i, ch)| dns(&format!("{i}-{ch}.t.metrics.example"), 10.0 + i as f64))
            .collect();
        let f = leaks_in(&names, &c);
        assert_eq!(f.len(), 1, "{f:?}");
        // Put back in order by the index each name carries (split_dns) before the pieces
        // search would see it.
        assert!(
            f[0].observation.contains("DNS names, split across queries"),
            "{}",
            f[0].observation
        );
        // UDP: the hex of the value in 10-character chunks, shuffled.
        let hex: String = value.bytes().map(|b| format!("{b:02x}")).collect();
        let mut parts: Vec<Capture> = hex
            .as_bytes()
            .chunks(10)
            .enumerate()
            .map(|(i, ch)| {
                udp(
                    &format!("{{\"seq\":{i},\"d\":\"{}\"}}", String::from_utf8_lossy(ch)),
                    20.0 + i as f64,
                )
            })
            .collect();
        parts.swap(0, 3);
        parts.swap(1, 4);
        let f = leaks_in(&parts, &c);
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].observation.contains("hex"), "{}", f[0].observation);
        // Each chunk base64-encoded on its own.
        let b64: Vec<Capture> = value
            .as_bytes()
            .chunks(9)
            .rev()
            .enumerate()
            .map(|(i, ch)| {
                dns(
                    &format!(
                        "{}.q.metrics.example",
                        crate::canary::base64(ch).trim_end_matches('=')
                    ),
                    i as f64 + 30.0,
                )
            })
            .collect();
        assert_eq!(leaks_in(&b64, &c).len(), 1);
    }

    #[test]
    fn ids_and_hashes_in_many_names_and_packets_are_not_a_cut_canary() {
        let c = token_set();
        // Hex ids of every length around the token's, which share short runs with any token.
        let mut caps = Vec::new();
        for i in 0..2000u32 {
            let id = format!(
                "{:08x}-{:04x}-{:06x}",
                i.wrapping_mul(2654435761),
                i * 7,
                i * 131
            );
            caps.push(dns(&format!("{id}.cdn.example"), f64::from(i)));
            caps.push(udp(&format!("id={id}&n={i}"), f64::from(i)));
        }
        // Fragments of the token shorter than a piece, and a piece of it alone.
        caps.push(udp("0123 4567 89ab", 1.0));
        caps.push(udp("89abcdef01", 2.0));
        assert!(leaks_in(&caps, &c).is_empty());
    }

    #[test]
    fn canary_in_every_url_escaping_is_found() {
        let c = token_set();
        let t = "0123456789abcdef01234567";
        let pct = |s: &str, upper: bool| -> String {
            s.bytes()
                .map(|b| {
                    if upper {
                        format!("%{b:02X}")
                    } else {
                        format!("%{b:02x}")
                    }
                })
                .collect()
        };
        let cases = [
            format!("/v1/{}", pct(t, false)),
            format!("q={}", pct(t, true)),
            // Double escaping: `%` itself escaped.
            format!("q={}", pct(t, true).replace('%', "%25")),
            format!("/a/{}", pct(&pct(t, false), false)),
            // `%uXXXX`, form encoding with `+` for blanks, and a token cut by path separators.
            format!(
                "q={}",
                t.bytes().map(|b| format!("%u{b:04x}")).collect::<String>()
            ),
            format!("k=KEY+{}+end", pct(t, false)),
            format!("/u/{}/{}/{}", &t[..8], &t[8..16], &t[16..]),
            format!("/u/{}-{}.{}", &t[..8], &t[8..16], &t[16..]),
        ];
        for u in &cases {
            assert_eq!(find_canaries(&c, u.as_bytes()).len(), 1, "{u}");
        }
        // Twin: escaped text that is no canary.
        for u in [
            "q=%30%31%32%33%34%35".to_string(),
            format!(
                "q={}",
                pct("not a secret at all, just text", true).replace('%', "%25")
            ),
            "/u/01234567/89abcdef/0123456".to_string(),
        ] {
            assert!(find_canaries(&c, u.as_bytes()).is_empty(), "{u}");
        }
    }

    #[test]
    fn canary_in_a_log_or_progress_notification_or_sampling_request_is_a_leak() {
        let c = token_set();
        for (method, channel) in [
            ("notifications/message", "a log notification"),
            ("notifications/progress", "a progress notification"),
            ("sampling/createMessage", "a sampling request"),
            ("elicitation/create", "an elicitation request"),
            ("notifications/resources/updated", "a resource notification"),
        ] {
            let ex = Exercise {
                calls: vec![call("sync", 1, 1.0, 2.0)],
                server_messages: vec![crate::exercise::ServerMessage {
                    ts: 1.5,
                    method: method.into(),
                    text: format!(
                        r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"message":"ctx ghp_0123456789abcdef01234567"}}}}"#
                    ),
                }],
                ..Exercise::default()
            };
            let f = leaks_of(&ex, &c);
            assert_eq!(f.len(), 1, "{method}: {f:?}");
            assert!(f[0].observation.contains(channel), "{}", f[0].observation);
            assert_eq!(f[0].target.name, "sync");
            // Twin: the same message without the secret.
            let ex = Exercise {
                calls: vec![call("sync", 1, 1.0, 2.0)],
                server_messages: vec![crate::exercise::ServerMessage {
                    ts: 1.5,
                    method: method.into(),
                    text: format!(
                        r#"{{"jsonrpc":"2.0","method":"{method}","params":{{"message":"indexed 3 of 10 files"}}}}"#
                    ),
                }],
                ..Exercise::default()
            };
            assert!(leaks_of(&ex, &c).is_empty());
        }
    }

    #[test]
    fn well_known_daemon_sockets_are_named_and_name_service_ones_are_not() {
        assert_eq!(daemon_socket("/var/run/docker.sock"), Some("docker"));
        assert_eq!(daemon_socket("/run/podman/podman.sock"), Some("docker"));
        assert_eq!(
            daemon_socket("/tmp/ssh-XXXXabc/agent.4242"),
            Some("ssh-agent")
        );
        assert_eq!(
            daemon_socket("/run/user/1000/gnupg/S.gpg-agent.ssh"),
            Some("ssh-agent")
        );
        assert_eq!(daemon_socket("/run/user/1000/bus"), Some("D-Bus"));
        assert_eq!(daemon_socket("@/tmp/dbus-3Xk2Lq"), Some("D-Bus"));
        assert_eq!(daemon_socket("/tmp/.X11-unix/X0"), Some("X11"));
        assert_eq!(daemon_socket("@/tmp/.X11-unix/X0"), Some("X11"));
        assert_eq!(daemon_socket("/run/systemd/private"), Some("systemd"));
        assert_eq!(
            daemon_socket("/run/systemd/resolve/io.systemd.Resolve"),
            None
        );
        assert_eq!(daemon_socket("/home/sandbox/workspace/app.sock"), None);
        assert_eq!(daemon_socket("/tmp/app-cache.sock"), None);
        let none = Listeners::default();
        assert!(outside_socket("@anything", &none));
        let mut own = Listeners::default();
        own.unix.insert("@own-worker".into());
        assert!(!outside_socket("@own-worker", &own));
        assert!(!outside_socket("/tmp/app-cache.sock", &none));
        assert!(outside_socket("/dev/log", &none));
    }

    #[test]
    fn canary_escaped_character_by_character_in_json_or_url_is_found() {
        let c = token_set();
        let esc = |f: &dyn Fn(u8) -> String| -> String {
            b"0123456789abcdef01234567".iter().map(|&b| f(b)).collect()
        };
        let json = format!(r#"{{"v":"{}"}}"#, esc(&|b| format!("\\u{b:04x}")));
        assert_eq!(find_canaries(&c, json.as_bytes()).len(), 1, "{json}");
        let url = format!("q={}", esc(&|b| format!("%{b:02X}")));
        assert_eq!(find_canaries(&c, url.as_bytes()).len(), 1, "{url}");
        assert!(find_canaries(&c, br#"{"v":"\u0030\u0031 caf\u00e9"}"#).is_empty());
        assert_eq!(json_unescape(br#"caf\u00e9 \u00"#), "café \\u00".as_bytes());
    }

    #[test]
    fn canary_sent_to_a_host_unix_socket_is_a_leak_and_to_a_private_one_is_not() {
        let c = token_set();
        let calls = vec![call("lookup", 1, 10.0, 11.0)];
        let send = |path: &str, data: &str| {
            format!(
                r#"7 10.5 sendto(3<UNIX:[9]>, "{data}", {}, 0, {{sa_family=AF_UNIX, sun_path="{path}"}}, 20) = -1 ENOENT (No such file or directory)"#,
                data.len()
            )
        };
        let run = |line: String| {
            let mut evs = events(&[&line]);
            let phases = attribute(&mut evs, &calls, 5.0);
            let ex = Exercise {
                calls: calls.clone(),
                ..Exercise::default()
            };
            findings(&Inputs {
                server: "s",
                exercise: &ex,
                events: &evs,
                phases: &phases,
                captures: &[],
                canaries: &c,
                rules: RuntimeRules::builtin(),
                written_files: &[],
            })
            .into_iter()
            .filter(|f| f.rule_id == RuleId::CanaryLeak.id())
            .collect::<Vec<_>>()
        };
        let f = run(send("/run/agent/ingest.sock", "k=0123456789abcdef01234567"));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].observation.contains("host socket"),
            "{}",
            f[0].observation
        );
        assert_eq!(f[0].target.name, "lookup");
        // Twins: the same payload to the sandbox's own socket, other data to the host socket.
        assert!(run(send("/tmp/worker.sock", "k=0123456789abcdef01234567")).is_empty());
        assert!(run(send("/run/agent/ingest.sock", "k=hello")).is_empty());
    }

    /// The valid call, the SQL probe and its control, answered as given (`Err` = an error result).
    fn sql_session(valid: &str, probe: Result<&str, &str>, control: &str) -> Exercise {
        let rules = RuntimeRules::builtin();
        let label_of = |k: ProbeKind| {
            rules
                .probes
                .iter()
                .find(|p| p.kind == k)
                .map(|p| p.name.clone())
                .expect("probe of that kind")
        };
        let mut v = call("lookup", 1, 1.0, 2.0);
        v.response = valid.into();
        let mut p = call("lookup", 2, 3.0, 4.0);
        p.label = label_of(ProbeKind::Sql);
        p.probe_kind = Some(ProbeKind::Sql);
        let (text, is_error) = match probe {
            Ok(t) => (t, false),
            Err(t) => (t, true),
        };
        p.response = text.into();
        p.is_error = is_error;
        let mut c = call("lookup", 3, 5.0, 6.0);
        c.label = label_of(ProbeKind::SqlControl);
        c.probe_kind = Some(ProbeKind::SqlControl);
        c.response = control.into();
        Exercise {
            calls: vec![v, p, c],
            ..Exercise::default()
        }
    }

    fn sql_findings(ex: &Exercise) -> Vec<Finding> {
        let canaries = CanarySet::default();
        findings(&Inputs {
            server: "db",
            exercise: ex,
            events: &[],
            phases: &[],
            captures: &[],
            canaries: &canaries,
            rules: RuntimeRules::builtin(),
            written_files: &[],
        })
        .into_iter()
        .filter(|f| f.rule_id == RuleId::SqlInjection.id())
        .collect()
    }

    #[test]
    fn sql_error_only_in_the_probe_answer_is_high_confidence_sql_injection() {
        let ex = sql_session(
            "no note hello",
            Ok("query failed: OperationalError: unrecognized token: \"' --\""),
            "query failed: no such column: mcpscan_nomatch",
        );
        let f = sql_findings(&ex);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::High);
        assert_eq!(f[0].confidence, Confidence::High);
        assert_eq!(f[0].target.name, "lookup");
        assert!(
            f[0].observation.contains("' OR '1'='1' --"),
            "{}",
            f[0].observation
        );
        assert!(
            f[0].observation.contains("sqlite error"),
            "{}",
            f[0].observation
        );
        assert!(
            matches!(&f[0].evidence[0], Evidence::Note { text } if text.contains("unrecognized token")),
            "{:?}",
            f[0].evidence
        );
    }

    #[test]
    fn sql_errors_in_the_valid_answer_too_are_not_judged() {
        let ex = sql_session(
            "near \"hello\": syntax error",
            Ok("unrecognized token: \"' --\""),
            "near \"mcpscan_nomatch\": syntax error",
        );
        assert!(sql_findings(&ex).is_empty());
    }

    #[test]
    fn tautology_returning_more_records_than_the_control_is_medium_confidence() {
        let ex = sql_session(
            "no user named hello",
            Ok("alice <alice@example.com>\nbob <bob@example.com>\ncarol <carol@example.com>"),
            "no user named mcpscan_nomatch OR 1=1 --",
        );
        let f = sql_findings(&ex);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].severity, Severity::High);
        assert_eq!(f[0].confidence, Confidence::Medium);
        assert!(
            f[0].observation.contains("returned 3 records where"),
            "{}",
            f[0].observation
        );
    }

    #[test]
    fn error_excerpt_is_the_matching_line_cut_around_the_match() {
        let text = "text\nquery failed: near \"1\": syntax error\nmore";
        let r = RuntimeRules::builtin()
            .sql_error(text)
            .expect("signature")
            .1;
        assert_eq!(
            excerpt_around(text, r.clone(), 120, 180),
            "query failed: near \"1\": syntax error"
        );
        assert_eq!(
            excerpt_around(text, r, 3, 0),
            "...d: near \"1\": syntax error"
        );
    }

    #[test]
    fn json_array_items_count_as_records() {
        assert_eq!(records("[{\"id\":1},{\"id\":2}]\n"), 2);
        assert_eq!(records("[]\n\n"), 0);
        assert_eq!(records("a\n\nb\n"), 2);
        assert_eq!(
            records("a\nb\na\nb\n"),
            2,
            "structured content repeats the text"
        );
        assert_eq!(records("no user named x\ntext\nno user named x\n"), 1);
    }

    #[test]
    fn echoed_probe_or_an_error_answer_is_not_sql_injection() {
        let echo = sql_session(
            "no user named hello",
            Ok("no user named ' OR '1'='1' --"),
            "no user named mcpscan_nomatch OR 1=1 --",
        );
        assert!(sql_findings(&echo).is_empty());
        let failed = sql_session(
            "no user named hello",
            Err("invalid name: quotes are not allowed\nsee the docs\nfor details"),
            "no user named mcpscan_nomatch OR 1=1 --",
        );
        assert!(sql_findings(&failed).is_empty());
    }

    #[test]
    fn only_sockets_outside_the_sandbox_private_areas_are_host_sockets() {
        assert!(host_socket("/run/docker.sock"));
        assert!(host_socket("/var/run/dbus/system_bus_socket"));
        assert!(!host_socket("/home/sandbox/workspace/app.sock"));
        assert!(!host_socket("/tmp/.X11-unix/X0"));
        assert!(!host_socket("/run/user/0/bus"));
        assert!(!host_socket("/var/run/nscd/socket"));
        assert!(!host_socket("@abstract"));
    }

    #[test]
    fn connect_to_a_host_service_socket_is_reported_refused_or_not_and_a_private_one_is_not() {
        let calls = vec![call("containers", 1, 10.0, 11.0)];
        let mut evs = events(&[
            r#"7 10.2 connect(3, {sa_family=AF_UNIX, sun_path="/run/docker.sock"}, 110) = 0"#,
            r#"7 10.3 connect(4, {sa_family=AF_UNIX, sun_path="/home/sandbox/workspace/db.sock"}, 110) = 0"#,
            r#"7 10.4 connect(5, {sa_family=AF_UNIX, sun_path="/run/dbus/system_bus_socket"}, 110) = -1 ENOENT (No such file or directory)"#,
        ]);
        let phases = attribute(&mut evs, &calls, 5.0);
        let ex = Exercise {
            calls,
            ..Exercise::default()
        };
        let canaries = CanarySet::default();
        let f: Vec<Finding> = findings(&Inputs {
            server: "s",
            exercise: &ex,
            events: &evs,
            phases: &phases,
            captures: &[],
            canaries: &canaries,
            rules: RuntimeRules::builtin(),
            written_files: &[],
        });
        // The refused connect to the D-Bus system socket weighs what reaching it would have.
        assert_eq!(f.len(), 2, "{f:?}");
        for (f, path) in f
            .iter()
            .zip(["/run/dbus/system_bus_socket", "/run/docker.sock"])
        {
            assert_eq!(f.rule_id, RuleId::Egress.id());
            assert_eq!(f.severity, Severity::High);
            assert!(f.observation.contains(path), "{}", f.observation);
        }
        assert!(f[0].observation.contains("refused by the sandbox: ENOENT"));
    }

    #[test]
    fn wrapped_escaped_and_url_encoded_text_is_searched_joined() {
        assert_eq!(strip_breaks(b"ab\ncd\r\n e\\nf"), b"abcdef");
        assert_eq!(url_decode(b"a%2Bb%2f%3D+%zz"), b"a+b/=+%zz");
        let token = "0123456789abcdef01234567";
        let c = CanarySet::from_canaries(vec![crate::canary::Canary {
            origin: "~/.ssh/id_rsa".into(),
            token: token.into(),
            content: token.into(),
            home_path: Some(".ssh/id_rsa".into()),
            env_name: None,
        }]);
        let b64 = crate::canary::base64(format!("key {token}\n").as_bytes());
        let wrapped: String = b64
            .as_bytes()
            .chunks(8)
            .map(|c| String::from_utf8_lossy(c).into_owned())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            c.find(wrapped.as_bytes()).is_empty(),
            "wrapping defeats the plain search"
        );
        assert_eq!(find_canaries(&c, wrapped.as_bytes()).len(), 1);
        let encoded = wrapped
            .replace('\n', "%0A")
            .replace('+', "%2B")
            .replace('/', "%2F");
        assert_eq!(find_canaries(&c, encoded.as_bytes()).len(), 1);
        // Twin: the same shapes without the token.
        let other = crate::canary::base64(b"key 9999999999999999999999\n");
        assert!(find_canaries(&c, other.as_bytes()).is_empty());
    }

    #[test]
    fn base32_decodes_either_case_and_skips_other_characters() {
        assert_eq!(base32_decode(b"MZXW6YTBOI"), b"foobar");
        assert_eq!(base32_decode(b"mzxw6.ytboi"), b"foobar");
    }

    fn process_findings(lines: &[&str]) -> Vec<Finding> {
        let calls = vec![call("schedule", 1, 10.0, 11.0)];
        let mut evs = events(lines);
        let phases = attribute(&mut evs, &calls, 5.0);
        let ex = Exercise {
            calls,
            ..Exercise::default()
        };
        let canaries = CanarySet::default();
        findings(&Inputs {
            server: "s",
            exercise: &ex,
            events: &evs,
            phases: &phases,
            captures: &[],
            canaries: &canaries,
            rules: RuntimeRules::builtin(),
            written_files: &[],
        })
        .into_iter()
        .filter(|f| f.rule_id == RuleId::OutlivesScan.id())
        .collect()
    }

    #[test]
    fn grandchild_without_exit_outlives_the_scan_and_an_exited_one_does_not() {
        let fork = |pid: u32, ts: f64, child: u32| {
            format!(
                r#"{pid} {ts} clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = {child}"#
            )
        };
        let (a, b) = (fork(7, 10.2, 8), fork(8, 10.3, 9));
        let left = process_findings(&[&a, &b, "8 10.4 exit_group(0) = ?"]);
        assert_eq!(left.len(), 1, "{left:?}");
        assert_eq!(left[0].target.name, "schedule");
        assert!(
            left[0].observation.contains("process 9"),
            "{}",
            left[0].observation
        );
        assert!(
            process_findings(&[
                &a,
                &b,
                "8 10.4 exit_group(0) = ?",
                "9 12.0 exit_group(0) = ?"
            ])
            .is_empty()
        );
        // Threads are not processes: a worker thread kept alive is not reported.
        let thread = r#"7 10.2 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM}, 88) = 8"#;
        assert!(process_findings(&[thread]).is_empty());
    }

    #[test]
    fn writes_in_workspace_and_tmp_are_not_outside() {
        assert!(!outside_workspace("/home/sandbox/workspace/out.txt"));
        assert!(!outside_workspace("/tmp/x"));
        assert!(outside_workspace("/home/sandbox/.bashrc"));
        assert!(outside_workspace("/etc/passwd"));
    }

    #[test]
    fn a_hyphenated_service_is_named_by_its_words_in_a_row() {
        let text = "fetch the rate from the exchangerate-api.io web api";
        assert!(has_phrase(text, "exchangerate-api"));
        assert!(has_phrase(&text.replace('-', " "), "exchangerate-api"));
        // Twin: the words apart, or only one of them, name another service.
        assert!(!has_phrase(
            "exchangerate data from any api",
            "exchangerate-api"
        ));
        assert!(!has_phrase(text, "api-exchangerate"));
        assert!(!has_phrase(text, ""));
    }

    #[test]
    fn service_label_is_the_name_left_of_the_public_suffix() {
        assert_eq!(service_label("api.github.com").as_deref(), Some("github"));
        assert_eq!(
            service_label("www.example.co.uk.").as_deref(),
            Some("example")
        );
        // A look-alike belongs to its own registrable name.
        assert_eq!(
            service_label("codeberg.org.collector.net").as_deref(),
            Some("collector")
        );
        assert_eq!(service_label("93.184.216.34"), None);
        assert_eq!(service_label("localhost"), None);
    }

    #[test]
    fn probe_marker_counts_as_executed_only_when_run_or_handed_to_a_shell() {
        let exec = |line: &str| {
            let mut p = crate::trace::StraceParser::default();
            use crate::trace::TraceParser;
            crate::events::from_record(&p.feed(line)[0]).expect("event")
        };
        let m = "mcpscanprobe1x1";
        let run = exec(
            r#"5 1.0 execve("/usr/bin/mcpscanprobe1x1", ["mcpscanprobe1x1"], 0x0 /* 3 vars */) = -1 ENOENT (No such file or directory)"#,
        );
        assert!(probe_executed(&run, m));
        let shell = exec(
            r#"5 1.0 execve("/bin/sh", ["/bin/sh", "-c", "grep x; mcpscanprobe1x1 #"], 0x0 /* 3 vars */) = 0"#,
        );
        assert!(probe_executed(&shell, m));
        let arg = exec(
            r#"5 1.0 execve("/usr/bin/grep", ["grep", "-F", "--", "x; mcpscanprobe1x1 #"], 0x0 /* 3 vars */) = 0"#,
        );
        assert!(!probe_executed(&arg, m));
        let verbatim = exec(
            r#"5 1.0 execve("/usr/bin/$(mcpscanprobe1x1)", ["$(mcpscanprobe1x1)"], 0x0 /* 3 vars */) = -1 ENOENT (No such file or directory)"#,
        );
        assert!(!probe_executed(&verbatim, m));
    }
}
