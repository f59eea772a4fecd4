//! The MCP client side: initialize, list everything (all pages), call every tool with synthesised
//! inputs (one call in flight, per-call timeout), read resources, get prompts, list tools again.
//! Each request's time window is recorded for attribution.

use crate::inputs::{self, CallInput};
use crate::rules::Probe;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, GetPromptRequestParams, ReadResourceRequestParams};
use serde::Serialize;
use serde_json::{Map, Value};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// What kind of entity a request exercised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    Tool,
    Resource,
    Prompt,
}

/// One request and its time window.
#[derive(Debug, Clone, Serialize)]
pub struct CallRecord {
    pub target: Target,
    /// Tool or prompt name, or resource URI.
    pub name: String,
    /// 1-based count of requests to this entity.
    pub n: u32,
    /// `valid` or a probe name.
    pub label: String,
    pub start: f64,
    pub end: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// Text of the response (content and structured content), truncated.
    pub response: String,
    pub is_error: bool,
    pub timed_out: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
    #[serde(skip)]
    pub marker: Option<String>,
    #[serde(skip)]
    pub probe_kind: Option<crate::rules::ProbeKind>,
}

impl CallRecord {
    pub fn phase(&self) -> String {
        match self.target {
            Target::Tool => format!("call:{}#{}", self.name, self.n),
            Target::Resource => format!("read:{}#{}", self.name, self.n),
            Target::Prompt => format!("prompt:{}#{}", self.name, self.n),
        }
    }
}

/// What the client saw.
#[derive(Debug, Default, Serialize)]
pub struct Exercise {
    pub server_info: Option<Value>,
    pub tools: Vec<Value>,
    pub resources: Vec<Value>,
    pub resource_templates: Vec<Value>,
    pub prompts: Vec<Value>,
    /// tools/list after all calls.
    pub tools_after: Option<Vec<Value>>,
    pub calls: Vec<CallRecord>,
    /// When initialize + listing finished (end of startup).
    pub startup_end: f64,
    /// Why the session ended early, if it did.
    pub aborted: Option<String>,
    /// Problems that did not end the session (a list method failing, ...).
    pub notes: Vec<String>,
    /// What the server sent on its own: notifications (log, progress, resource updates) and
    /// requests to the client (sampling, elicitation, roots). An agent shows or forwards these
    /// like answers, so they are searched like answers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub server_messages: Vec<ServerMessage>,
}

/// A JSON-RPC message with a `method` the server sent (not an answer to the client).
#[derive(Debug, Clone, Serialize)]
pub struct ServerMessage {
    /// When its line was complete.
    pub ts: f64,
    pub method: String,
    /// The message as sent.
    pub text: String,
}

/// Longest line kept for inspection, and how much is kept in all: a server that floods its
/// stdout cannot make the scanner hold it all.
const MAX_LINE: usize = 4 << 20;
const MAX_KEPT: usize = 16 << 20;

/// Copies every server-initiated message off the server's stdout as the client reads it (rmcp's
/// client handler drops notifications it has no use for).
struct Tee<R> {
    inner: R,
    line: Vec<u8>,
    overflow: bool,
    kept: usize,
    out: std::sync::Arc<std::sync::Mutex<Vec<ServerMessage>>>,
}

impl<R> Tee<R> {
    fn feed(&mut self, mut data: &[u8]) {
        while !data.is_empty() {
            let (part, done) = match data.iter().position(|&b| b == b'\n') {
                Some(i) => (&data[..i], Some(i + 1)),
                None => (data, None),
            };
            if self.line.len() + part.len() > MAX_LINE {
                self.overflow = true;
                self.line.clear();
            } else if !self.overflow {
                self.line.extend_from_slice(part);
            }
            let Some(next) = done else { break };
            data = &data[next..];
            if !self.overflow {
                self.take_line();
            }
            self.line.clear();
            self.overflow = false;
        }
    }

    fn take_line(&mut self) {
        if self.kept >= MAX_KEPT || !self.line.windows(8).any(|w| w == b"\"method\"") {
            return;
        }
        let Ok(v) = serde_json::from_slice::<Value>(&self.line) else {
            return;
        };
        let Some(method) = v.get("method").and_then(Value::as_str) else {
            return;
        };
        self.kept += self.line.len();
        let msg = ServerMessage {
            ts: now(),
            method: method.to_string(),
            text: String::from_utf8_lossy(&self.line).into_owned(),
        };
        if let Ok(mut o) = self.out.lock() {
            o.push(msg);
        }
    }
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for Tee<R> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let r = std::pin::Pin::new(&mut this.inner).poll_read(cx, buf);
        if let std::task::Poll::Ready(Ok(())) = &r {
            this.feed(&buf.filled()[before..]);
        }
        r
    }
}

/// The MCP client the scanner introduces itself as (`clientInfo` and capabilities of
/// `initialize`): a server that sees a scanner library's name can stay dormant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientProfile {
    pub name: String,
    pub version: String,
    pub title: Option<String>,
    /// `capabilities` of the initialize request, as JSON.
    pub capabilities: Value,
}

impl Default for ClientProfile {
    /// VS Code's: it advertises roots, sampling and elicitation, so a server that waits for a
    /// client able to answer its own requests (and checks the name against the capabilities)
    /// gets one, and its requests are answered (see client.rs).
    fn default() -> Self {
        Self::named("vscode").unwrap_or_else(|| ClientProfile {
            name: "Visual Studio Code".into(),
            version: "1.104.1".into(),
            title: None,
            capabilities: serde_json::json!({}),
        })
    }
}

impl ClientProfile {
    /// The names `--client` accepts.
    pub const NAMES: &'static [&'static str] =
        &["vscode", "claude-desktop", "claude-code", "cursor"];

    /// What common clients send (as they introduce themselves in their initialize requests).
    pub fn named(name: &str) -> Option<Self> {
        let (n, v, t, caps) = match name {
            "claude-desktop" => ("claude-ai", "0.1.0", None, serde_json::json!({})),
            "claude-code" => (
                "claude-code",
                "2.0.14",
                None,
                serde_json::json!({"roots": {}}),
            ),
            "cursor" => (
                "cursor-vscode",
                "1.0.0",
                None,
                serde_json::json!({"roots": {"listChanged": false}}),
            ),
            "vscode" => (
                "Visual Studio Code",
                "1.104.1",
                None,
                serde_json::json!({"roots": {"listChanged": true}, "sampling": {}, "elicitation": {}}),
            ),
            _ => return None,
        };
        Some(ClientProfile {
            name: n.into(),
            version: v.into(),
            title: t,
            capabilities: caps,
        })
    }

    /// The initialize request's params exactly as the client sends them (the wire shim puts
    /// these on the wire, whatever rmcp's types would make of the capabilities).
    pub fn initialize_params(&self) -> Value {
        let mut info = serde_json::json!({
            "protocolVersion": "2025-06-18",
            "capabilities": self.capabilities,
            "clientInfo": {"name": self.name, "version": self.version},
        });
        if let Some(t) = &self.title {
            info["clientInfo"]["title"] = Value::String(t.clone());
        }
        info
    }

    pub(crate) fn client_info(&self) -> rmcp::model::ClientConfig {
        serde_json::from_value(self.initialize_params()).unwrap_or_default()
    }
}

/// Gaps between requests: a person and a model take time between listing the tools and the first
/// call, and between calls; a scanner firing everything within 50 ms is easy to recognise.
#[derive(Debug, Clone)]
pub struct Pacing {
    rng: crate::identity::Rng,
}

impl Pacing {
    pub fn new(seed: u64) -> Self {
        Pacing {
            rng: crate::identity::Rng::new(seed ^ 0x7ace),
        }
    }
    fn between(&mut self, lo_ms: u64, hi_ms: u64) -> Duration {
        Duration::from_millis(lo_ms + self.rng.below(hi_ms.saturating_sub(lo_ms).max(1)))
    }
    /// Before the first call (the model reading the tool list).
    pub fn think(&mut self) -> Duration {
        self.between(60, 120)
    }
    /// Before a valid call.
    pub fn gap(&mut self) -> Duration {
        self.between(22, 40)
    }
    /// Before a probe: none. Probes are attack-shaped anyway (a dormant server has judged the
    /// valid calls by then), and spreading them would only stretch the call windows that
    /// background activity is told apart from.
    pub fn probe_gap(&mut self) -> Duration {
        Duration::ZERO
    }
    /// Between repeat calls in a soak round: seconds, as a person reads one answer before the
    /// next request (a server that acts only on calls spaced like that sees them here; the
    /// default run, without `--soak`, keeps its short gaps).
    pub fn human_gap(&mut self) -> Duration {
        self.between(1500, 4000)
    }
    /// Before soak round `n` (1-based): growing delays, so triggers set on minutes fire.
    pub fn soak_delay(&mut self, n: u32) -> Duration {
        let base = 1000u64 << n.min(6);
        self.between(base / 2, base)
    }
}

pub struct ExerciseConfig {
    pub timeout: Duration,
    /// Time allowed for the server to start and answer initialize.
    pub startup_timeout: Duration,
    pub valid_calls: u32,
    pub probes: Vec<Probe>,
    /// Marker prefix unique to this run.
    pub marker_prefix: String,
    pub client: ClientProfile,
    pub style: inputs::InputStyle,
    /// `None` sends requests back to back.
    pub pacing: Option<Pacing>,
    /// Call the tools again after delays until this much time has passed (zero: off).
    pub soak: Duration,
}

const MAX_RESPONSE: usize = 512 * 1024;

fn to_values<T: Serialize>(v: &[T]) -> Vec<Value> {
    v.iter()
        .filter_map(|x| serde_json::to_value(x).ok())
        .collect()
}

fn response_text(v: &Value) -> String {
    let mut s = String::new();
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(t) => {
                out.push_str(t);
                out.push('\n');
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            Value::Object(o) => o.values().for_each(|x| walk(x, out)),
            _ => {}
        }
    }
    walk(v, &mut s);
    if s.len() > MAX_RESPONSE {
        let mut cut = MAX_RESPONSE;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    s
}

/// Runs the whole client session over `(read, write)`.
pub async fn run<R, W>(
    read: R,
    write: W,
    cfg: &ExerciseConfig,
    alive: &dyn Fn() -> bool,
) -> Exercise
where
    R: tokio::io::AsyncRead + Send + Unpin + 'static,
    W: tokio::io::AsyncWrite + Send + Unpin + 'static,
{
    let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let tee = Tee {
        inner: read,
        line: Vec::new(),
        overflow: false,
        kept: 0,
        out: out.clone(),
    };
    // What rmcp writes is reshaped into a common client's exact messages (wire.rs).
    let init = cfg.client.initialize_params();
    let mut ex = session(
        (tee, crate::wire::shim(write, Some(init))),
        cfg,
        alive,
        false,
    )
    .await;
    if let Ok(mut o) = out.lock() {
        ex.server_messages = std::mem::take(&mut *o);
    }
    ex
}

/// Lists everything a remote (streamable HTTP) server offers, without calling anything.
pub async fn manifest_only<T, E, A>(transport: T, cfg: &ExerciseConfig) -> Exercise
where
    T: rmcp::transport::IntoTransport<rmcp::RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    session(transport, cfg, &|| true, true).await
}

/// Sends `rec`'s tool call and records the answer in it. Returns why the session is over when
/// the server stopped answering: a JSON-RPC error answer is still an answer; a closed transport
/// is not.
async fn call_into(
    peer: &rmcp::service::Peer<rmcp::RoleClient>,
    rec: &mut CallRecord,
    t: std::time::Duration,
    alive: &dyn Fn() -> bool,
) -> Option<String> {
    let params = CallToolRequestParams::new(rec.name.clone())
        .with_arguments(rec.arguments.clone().unwrap_or_default());
    let mut stopped = None;
    match tokio::time::timeout(t, peer.call_tool(params)).await {
        Ok(Ok(res)) => {
            let v = serde_json::to_value(&res).unwrap_or(Value::Null);
            rec.is_error = v.get("isError").and_then(Value::as_bool).unwrap_or(false);
            rec.response = response_text(&v);
        }
        Ok(Err(e)) => {
            let msg = e.to_string();
            rec.failure = Some(msg.clone());
            if !alive() || msg.contains("closed") || msg.contains("Transport") {
                stopped = Some(format!("the server stopped during {}: {msg}", rec.phase()));
            }
        }
        Err(_) => {
            rec.timed_out = true;
            rec.failure = Some(format!("no answer within {}s", t.as_secs_f64()));
        }
    }
    rec.end = now();
    stopped
}

async fn session<T, E, A>(
    transport: T,
    cfg: &ExerciseConfig,
    alive: &dyn Fn() -> bool,
    list_only: bool,
) -> Exercise
where
    T: rmcp::transport::IntoTransport<rmcp::RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mut ex = Exercise::default();
    let t = cfg.timeout;
    let mut pacing = cfg.pacing.clone();
    let client = match tokio::time::timeout(
        cfg.startup_timeout,
        crate::client::Client {
            profile: cfg.client.clone(),
            project: cfg.style.work.clone(),
            seed: cfg.style.seed,
        }
        .serve(transport),
    )
    .await
    {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => {
            ex.aborted = Some(format!("initialize failed: {e}"));
            ex.startup_end = now();
            return ex;
        }
        Err(_) => {
            ex.aborted = Some(format!(
                "the server did not answer initialize within {}s",
                cfg.startup_timeout.as_secs_f64()
            ));
            ex.startup_end = now();
            return ex;
        }
    };
    // Never let a server-set TTL serve a stale tool list: the re-listing must hit the server.
    client
        .peer()
        .set_response_cache_config(rmcp::ClientCacheConfig::disabled())
        .await;
    ex.server_info = client
        .peer_info()
        .and_then(|i| serde_json::to_value(&*i).ok());
    let caps = ex
        .server_info
        .as_ref()
        .and_then(|i| i.get("capabilities"))
        .cloned()
        .unwrap_or(Value::Null);
    let has = |k: &str| caps.get(k).is_some();
    let peer = client.peer().clone();

    match tokio::time::timeout(t, peer.list_all_tools()).await {
        Ok(Ok(tools)) => ex.tools = to_values(&tools),
        Ok(Err(e)) => {
            if has("tools") {
                ex.aborted = Some(format!("tools/list failed: {e}"));
            } else {
                ex.notes.push(format!("tools/list failed: {e}"));
            }
        }
        Err(_) => ex.aborted = Some(format!("tools/list timed out after {}s", t.as_secs_f64())),
    }
    if ex.aborted.is_none() && has("resources") {
        match tokio::time::timeout(t, peer.list_all_resources()).await {
            Ok(Ok(r)) => ex.resources = to_values(&r),
            Ok(Err(e)) => ex.notes.push(format!("resources/list failed: {e}")),
            Err(_) => ex.notes.push("resources/list timed out".into()),
        }
        match tokio::time::timeout(t, peer.list_all_resource_templates()).await {
            Ok(Ok(r)) => ex.resource_templates = to_values(&r),
            // Servers that advertise resources but route no templates/list (the mcp 1.x low-level
            // `Server` without `@list_resource_templates`) have none: nothing was missed.
            Ok(Err(rmcp::ServiceError::McpError(e)))
                if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND => {}
            Ok(Err(e)) => ex
                .notes
                .push(format!("resources/templates/list failed: {e}")),
            Err(_) => ex.notes.push("resources/templates/list timed out".into()),
        }
    }
    if ex.aborted.is_none() && has("prompts") {
        match tokio::time::timeout(t, peer.list_all_prompts()).await {
            Ok(Ok(r)) => ex.prompts = to_values(&r),
            Ok(Err(e)) => ex.notes.push(format!("prompts/list failed: {e}")),
            Err(_) => ex.notes.push("prompts/list timed out".into()),
        }
    }
    ex.startup_end = now();
    if list_only {
        let _ = tokio::time::timeout(Duration::from_secs(1), client.cancel()).await;
        return ex;
    }

    let mut seq = 0usize;
    // Tools.
    let tools = ex.tools.clone();
    'tools: for tool in &tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        let schema = tool
            .get("inputSchema")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut inputs: Vec<CallInput> =
            inputs::synthesize_with(&schema, &cfg.probes, &cfg.style, &|i| {
                format!(
                    "{}{}{}",
                    cfg.marker_prefix,
                    seq,
                    (b'a' + (i % 26) as u8) as char
                )
            });
        seq += 1;
        // More valid calls before the probes, so behaviour that waits for the Nth call shows.
        // Each a like input, not the same one again (see inputs::valid_variant).
        let valid = inputs[0].clone();
        for n in (1..cfg.valid_calls.max(1)).rev() {
            let mut v = valid.clone();
            v.arguments = inputs::valid_variant(&schema, &cfg.style, u64::from(n));
            inputs.insert(1, v);
        }
        for (i, input) in inputs.into_iter().enumerate() {
            if ex.aborted.is_some() {
                break 'tools;
            }
            if let Some(p) = pacing.as_mut() {
                let first = ex.calls.is_empty();
                let d = if first {
                    p.think()
                } else if input.probe_kind.is_none() {
                    p.gap()
                } else {
                    p.probe_gap()
                };
                if !d.is_zero() {
                    tokio::time::sleep(d).await;
                }
            }
            let mut rec = CallRecord {
                target: Target::Tool,
                name: name.to_string(),
                n: (i + 1) as u32,
                label: input.label.clone(),
                start: now(),
                end: 0.0,
                arguments: Some(input.arguments.clone()),
                response: String::new(),
                is_error: false,
                timed_out: false,
                failure: None,
                marker: input.marker.clone(),
                probe_kind: input.probe_kind,
            };
            if let Some(why) = call_into(&peer, &mut rec, t, alive).await {
                ex.aborted = Some(why);
            }
            let timed_out = rec.timed_out;
            ex.calls.push(rec);
            if timed_out {
                // One call in flight: a server still busy with a timed-out call is not probed further.
                if !alive() {
                    ex.aborted = Some(format!("the server died during a call to `{name}`"));
                }
                continue 'tools;
            }
        }
    }
    // Soak: the valid calls again after growing delays, for time bombs and Nth-call triggers.
    if !cfg.soak.is_zero() && ex.aborted.is_none() {
        let until = std::time::Instant::now() + cfg.soak;
        let mut round = 0u32;
        'soak: loop {
            round += 1;
            let delay = pacing
                .as_mut()
                .map_or(Duration::from_secs(1) * round.min(30), |p| {
                    p.soak_delay(round)
                });
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                break;
            }
            tokio::time::sleep(delay.min(left)).await;
            if std::time::Instant::now() >= until {
                break;
            }
            for (k, tool) in tools.iter().enumerate() {
                let Some(name) = tool.get("name").and_then(Value::as_str) else {
                    continue;
                };
                if k > 0 {
                    let gap = pacing
                        .as_mut()
                        .map_or(Duration::from_millis(1500), Pacing::human_gap);
                    let left = until.saturating_duration_since(std::time::Instant::now());
                    if left.is_zero() {
                        break 'soak;
                    }
                    tokio::time::sleep(gap.min(left)).await;
                }
                let Some(valid) = ex
                    .calls
                    .iter()
                    .find(|c| c.target == Target::Tool && c.name == name && c.label == "valid")
                    .cloned()
                else {
                    continue;
                };
                if ex.calls.iter().any(|c| c.name == name && c.timed_out) {
                    continue;
                }
                let n = ex.calls.iter().filter(|c| c.name == name).count() as u32 + 1;
                let valids = ex
                    .calls
                    .iter()
                    .filter(|c| c.name == name && c.label == "valid")
                    .count() as u64;
                let schema = tool
                    .get("inputSchema")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                let mut rec = CallRecord {
                    n,
                    arguments: Some(inputs::valid_variant(&schema, &cfg.style, valids)),
                    // A repeat of the valid call: what it does that the first did not is MCPS-R011.
                    label: "valid".into(),
                    start: now(),
                    end: 0.0,
                    response: String::new(),
                    is_error: false,
                    timed_out: false,
                    failure: None,
                    ..valid
                };
                if let Some(why) = call_into(&peer, &mut rec, t, alive).await {
                    ex.aborted = Some(why);
                }
                ex.calls.push(rec);
                if ex.aborted.is_some() {
                    break 'soak;
                }
            }
        }
    }
    // Resources.
    let resources = ex.resources.clone();
    for r in &resources {
        if ex.aborted.is_some() {
            break;
        }
        let Some(uri) = r.get("uri").and_then(Value::as_str) else {
            continue;
        };
        let mut rec = CallRecord {
            target: Target::Resource,
            name: uri.to_string(),
            n: 1,
            label: "valid".into(),
            start: now(),
            end: 0.0,
            arguments: None,
            response: String::new(),
            is_error: false,
            timed_out: false,
            failure: None,
            marker: None,
            probe_kind: None,
        };
        match tokio::time::timeout(
            t,
            peer.read_resource(ReadResourceRequestParams::new(uri.to_string())),
        )
        .await
        {
            Ok(Ok(res)) => {
                rec.response = response_text(&serde_json::to_value(&res).unwrap_or(Value::Null))
            }
            Ok(Err(e)) => rec.failure = Some(e.to_string()),
            Err(_) => {
                rec.timed_out = true;
                rec.failure = Some(format!("no answer within {}s", t.as_secs_f64()));
            }
        }
        rec.end = now();
        ex.calls.push(rec);
    }
    // Prompts.
    let prompts = ex.prompts.clone();
    for p in &prompts {
        if ex.aborted.is_some() {
            break;
        }
        let Some(name) = p.get("name").and_then(Value::as_str) else {
            continue;
        };
        let args = p
            .get("arguments")
            .and_then(Value::as_array)
            .map(|a| inputs::prompt_arguments(a))
            .unwrap_or_default();
        let mut rec = CallRecord {
            target: Target::Prompt,
            name: name.to_string(),
            n: 1,
            label: "valid".into(),
            start: now(),
            end: 0.0,
            arguments: Some(args.clone()),
            response: String::new(),
            is_error: false,
            timed_out: false,
            failure: None,
            marker: None,
            probe_kind: None,
        };
        let mut params = GetPromptRequestParams::new(name.to_string());
        if !args.is_empty() {
            params = params.with_arguments(args);
        }
        match tokio::time::timeout(t, peer.get_prompt(params)).await {
            Ok(Ok(res)) => {
                rec.response = response_text(&serde_json::to_value(&res).unwrap_or(Value::Null))
            }
            Ok(Err(e)) => rec.failure = Some(e.to_string()),
            Err(_) => {
                rec.timed_out = true;
                rec.failure = Some(format!("no answer within {}s", t.as_secs_f64()));
            }
        }
        rec.end = now();
        ex.calls.push(rec);
    }
    if ex.calls.iter().any(|c| c.timed_out) {
        ex.notes.push(
            "tools/list was not re-read: a call timed out, so the server may still be busy".into(),
        );
    } else if ex.aborted.is_none() {
        match tokio::time::timeout(t, peer.list_all_tools()).await {
            Ok(Ok(tools)) => ex.tools_after = Some(to_values(&tools)),
            Ok(Err(e)) => ex.notes.push(format!("second tools/list failed: {e}")),
            Err(_) => ex.notes.push("second tools/list timed out".into()),
        }
    }
    let _ = tokio::time::timeout(Duration::from_secs(1), client.cancel()).await;
    ex
}

#[cfg(test)]
mod tee_tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[test]
    fn server_notifications_and_requests_are_kept_answers_are_not() {
        let lines = concat!(
            r#"{"jsonrpc":"2.0","id":1,"result":{"method":"in a result"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}"#,
            "\nnot json \"method\"\n",
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"m"}}"#,
        );
        let out = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut tee = Tee {
            inner: lines.as_bytes(),
            line: Vec::new(),
            overflow: false,
            kept: 0,
            out: out.clone(),
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        let mut got = Vec::new();
        rt.block_on(async {
            // Small reads: lines arrive in pieces.
            let mut b = [0u8; 7];
            loop {
                let n = tee.read(&mut b).await.expect("read");
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&b[..n]);
            }
        });
        // The client still reads every byte.
        assert_eq!(got, lines.as_bytes());
        let methods: Vec<String> = out
            .lock()
            .expect("lock")
            .iter()
            .map(|m| m.method.clone())
            .collect();
        // The last line has no newline yet: not complete, not kept.
        assert_eq!(methods, ["notifications/message", "sampling/createMessage"]);
    }
}
