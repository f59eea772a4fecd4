//! The legacy MCP HTTP+SSE client transport (protocol 2024-11-05) for `--url --transport sse`;
//! rmcp 3.9 only ships a streamable-HTTP client. The client GETs the SSE URL, the server's first
//! event is `endpoint` with the URL to POST to (same origin), every JSON-RPC message the client
//! sends is one POST there, and everything the server sends arrives as `event: message` on the
//! stream.

use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Largest event (data plus the line being read) kept in memory. A tools/list with big schemas is
/// well below this; a server streaming one endless event is cut off here.
pub const MAX_EVENT_BYTES: usize = 8 << 20;

/// Messages that could not be used are noted, up to this many.
const MAX_NOTES: usize = 5;

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, `message` when absent.
    pub event: String,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// An event grew past the parser's limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "an SSE event grew past {limit} bytes without ending (no blank line), so the stream was dropped"
)]
pub struct Oversized {
    pub limit: usize,
}

/// Streaming parser for `text/event-stream` (WHATWG HTML, "Parsing an event stream"): lines end
/// in CRLF, LF or CR, a line starting with `:` is a comment, `data:` lines accumulate, a blank line
/// dispatches. Chunk boundaries may fall anywhere, even between the CR and LF of one line end.
#[derive(Debug)]
pub struct SseParser {
    max_event: usize,
    line: Vec<u8>,
    /// The previous chunk ended in CR: a LF starting the next one belongs to that line end.
    after_cr: bool,
    first_line: bool,
    event: String,
    data: String,
    failed: bool,
}

impl SseParser {
    pub fn new(max_event: usize) -> Self {
        SseParser {
            max_event,
            line: Vec::new(),
            after_cr: false,
            first_line: true,
            event: String::new(),
            data: String::new(),
            failed: false,
        }
    }

    /// Feeds bytes; completed events are appended to `out` (also those before an error). After
    /// an error the parser stays failed.
    pub fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<SseEvent>) -> Result<(), Oversized> {
        if self.failed {
            return Err(Oversized {
                limit: self.max_event,
            });
        }
        while !chunk.is_empty() {
            if self.after_cr {
                self.after_cr = false;
                if chunk[0] == b'\n' {
                    chunk = &chunk[1..];
                    continue;
                }
            }
            match chunk.iter().position(|b| *b == b'\n' || *b == b'\r') {
                Some(i) => {
                    self.push(&chunk[..i])?;
                    self.after_cr = chunk[i] == b'\r';
                    self.end_line(out)?;
                    chunk = &chunk[i + 1..];
                }
                None => {
                    self.push(chunk)?;
                    break;
                }
            }
        }
        Ok(())
    }

    fn push(&mut self, bytes: &[u8]) -> Result<(), Oversized> {
        self.line.extend_from_slice(bytes);
        self.check()
    }

    fn check(&mut self) -> Result<(), Oversized> {
        if self.line.len() + self.data.len() + self.event.len() > self.max_event {
            self.failed = true;
            self.line = Vec::new();
            self.data = String::new();
            return Err(Oversized {
                limit: self.max_event,
            });
        }
        Ok(())
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) -> Result<(), Oversized> {
        let raw = std::mem::take(&mut self.line);
        let mut bytes = raw.as_slice();
        if std::mem::take(&mut self.first_line) {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        if bytes.is_empty() {
            // Dispatch. An event without data is dropped, as browsers do.
            let event = std::mem::take(&mut self.event);
            let mut data = std::mem::take(&mut self.data);
            if !data.is_empty() {
                data.pop(); // the `\n` after the last data line
                out.push(SseEvent {
                    event: if event.is_empty() {
                        "message".into()
                    } else {
                        event
                    },
                    data,
                });
            }
            return Ok(());
        }
        if bytes[0] == b':' {
            return Ok(());
        }
        let line = String::from_utf8_lossy(bytes);
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = value.to_string(),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
            }
            // `id` and `retry` only matter for reconnection, which this transport does not do.
            _ => {}
        }
        self.check()
    }
}

/// Why the SSE session could not start or a message could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    #[error("`{url}` is not a valid URL: {reason}")]
    BadUrl { url: String, reason: String },
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
    #[error("GET {url} failed: {reason}")]
    Connect { url: String, reason: String },
    #[error("GET {url} did not answer within {secs}s")]
    NoResponse { url: String, secs: f64 },
    #[error("GET {url} answered HTTP {status}{detail}, expected 200 with an SSE stream")]
    Status {
        url: String,
        status: u16,
        /// The body's start, or where a redirect pointed.
        detail: String,
    },
    #[error(
        "GET {url} answered with Content-Type `{got}`, not `text/event-stream`: this is not a legacy HTTP+SSE endpoint (for a streamable HTTP server use --transport streamable-http)"
    )]
    ContentType { url: String, got: String },
    #[error("the server sent no `endpoint` event within {secs}s of opening the SSE stream")]
    NoEndpoint { secs: f64 },
    #[error("the server closed the SSE stream before sending its `endpoint` event")]
    ClosedBeforeEndpoint,
    #[error("the SSE stream failed before the `endpoint` event: {0}")]
    StreamBeforeEndpoint(String),
    #[error("the `endpoint` event `{data}` is not a URL relative to {base}: {reason}")]
    BadEndpoint {
        data: String,
        base: String,
        reason: String,
    },
    #[error(
        "the `endpoint` event points to {endpoint}, another origin than the SSE URL ({origin}); the HTTP+SSE transport requires the same origin, so nothing is sent there"
    )]
    CrossOrigin { endpoint: String, origin: String },
    #[error(transparent)]
    Oversized(#[from] Oversized),
    #[error("POST {url} failed: {reason}")]
    Post { url: String, reason: String },
    #[error("POST {url} answered HTTP {status}{body}")]
    PostStatus {
        url: String,
        status: u16,
        body: String,
    },
    #[error("cannot encode a message: {0}")]
    Encode(String),
}

/// What happened to the stream after the session started: shared with the reader task.
#[derive(Debug, Default, Clone)]
pub struct SseLog {
    /// Why the stream ended, when the server (not the client) ended it.
    pub ended: Option<String>,
    /// Events that were not usable messages (first few).
    pub notes: Vec<String>,
}

/// Full error text, causes included (reqwest's own message is only "error sending request").
fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut src = e.source();
    while let Some(x) = src {
        let m = x.to_string();
        if !s.contains(&m) {
            s.push_str(": ");
            s.push_str(&m);
        }
        src = x.source();
    }
    s
}

/// A short, single-line, escaped excerpt of server-controlled text for a message.
fn snippet(s: &str) -> String {
    let mut cut = s.len().min(120);
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut out: String = s[..cut]
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect();
    if cut < s.len() {
        out.push('…');
    }
    out
}

/// An rmcp client transport over HTTP+SSE. Created by [`SseTransport::connect`], which returns
/// once the endpoint is known; hand it to `serve()`.
pub struct SseTransport {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    post_timeout: Duration,
    rx: tokio::sync::mpsc::Receiver<ServerJsonRpcMessage>,
    reader: tokio::task::AbortHandle,
    log: Arc<Mutex<SseLog>>,
}

impl SseTransport {
    /// Opens the SSE stream at `url` (with `headers`, which also go on every POST) and waits
    /// for the `endpoint` event. `timeout` bounds the whole wait and each later POST.
    pub async fn connect(
        url: &str,
        headers: reqwest::header::HeaderMap,
        timeout: Duration,
    ) -> Result<Self, SseError> {
        let base = reqwest::Url::parse(url).map_err(|e| SseError::BadUrl {
            url: url.into(),
            reason: e.to_string(),
        })?;
        let client = reqwest::Client::builder()
            .default_headers(headers)
            // A redirect could lead the stream to another origin than the one the user named.
            .redirect(reqwest::redirect::Policy::none())
            .connect_timeout(timeout)
            .build()
            .map_err(|e| SseError::Client(chain(&e)))?;
        let deadline = tokio::time::Instant::now() + timeout;
        let secs = timeout.as_secs_f64();
        let get = client
            .get(base.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .header(reqwest::header::CACHE_CONTROL, "no-cache")
            .send();
        let mut resp = tokio::time::timeout_at(deadline, get)
            .await
            .map_err(|_| SseError::NoResponse {
                url: url.into(),
                secs,
            })?
            .map_err(|e| SseError::Connect {
                url: url.into(),
                reason: chain(&e),
            })?;
        let status = resp.status();
        if status != reqwest::StatusCode::OK {
            let detail = match resp.headers().get(reqwest::header::LOCATION) {
                Some(l) if status.is_redirection() => format!(
                    " (to {}; redirects are not followed)",
                    snippet(&String::from_utf8_lossy(l.as_bytes()))
                ),
                _ => tokio::time::timeout_at(deadline, resp.chunk())
                    .await
                    .ok()
                    .and_then(|c| c.ok().flatten())
                    .map(|b| String::from_utf8_lossy(&b).trim().to_string())
                    .filter(|b| !b.is_empty())
                    .map(|b| format!(" ({})", snippet(&b)))
                    .unwrap_or_default(),
            };
            return Err(SseError::Status {
                url: url.into(),
                status: status.as_u16(),
                detail,
            });
        }
        let content_type = resp
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
            .unwrap_or_default();
        let essence = content_type.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("text/event-stream") {
            return Err(SseError::ContentType {
                url: url.into(),
                got: if content_type.is_empty() {
                    "(none)".into()
                } else {
                    snippet(&content_type)
                },
            });
        }

        let mut parser = SseParser::new(MAX_EVENT_BYTES);
        let mut events = Vec::new();
        let (endpoint_data, rest) = loop {
            if let Some(i) = events.iter().position(|e: &SseEvent| e.event == "endpoint") {
                let rest = events.split_off(i + 1);
                let ep = events.pop().map(|e| e.data).unwrap_or_default();
                break (ep, rest);
            }
            // Anything before the endpoint has nowhere to go: the spec sends the endpoint first.
            events.clear();
            let chunk = tokio::time::timeout_at(deadline, resp.chunk())
                .await
                .map_err(|_| SseError::NoEndpoint { secs })?
                .map_err(|e| SseError::StreamBeforeEndpoint(chain(&e)))?
                .ok_or(SseError::ClosedBeforeEndpoint)?;
            parser.feed(&chunk, &mut events)?;
        };
        let endpoint = base
            .join(endpoint_data.trim())
            .map_err(|e| SseError::BadEndpoint {
                data: snippet(&endpoint_data),
                base: base.to_string(),
                reason: e.to_string(),
            })?;
        if endpoint.origin() != base.origin() {
            return Err(SseError::CrossOrigin {
                endpoint: snippet(endpoint.as_str()),
                origin: base.origin().ascii_serialization(),
            });
        }

        // Small: rmcp drains it at once, and each message may be up to MAX_EVENT_BYTES.
        let (tx, rx) = tokio::sync::mpsc::channel(8);
        let log = Arc::new(Mutex::new(SseLog::default()));
        let reader = tokio::spawn(read_stream(resp, parser, rest, tx, log.clone())).abort_handle();
        Ok(SseTransport {
            client,
            endpoint,
            post_timeout: timeout,
            rx,
            reader,
            log,
        })
    }

    /// Where messages are POSTed.
    pub fn endpoint(&self) -> &reqwest::Url {
        &self.endpoint
    }

    /// A handle on what the reader saw; still readable after the transport is gone.
    pub fn log(&self) -> Arc<Mutex<SseLog>> {
        self.log.clone()
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

fn note(log: &Mutex<SseLog>, f: impl FnOnce(&mut SseLog)) {
    if let Ok(mut l) = log.lock() {
        f(&mut l);
    }
}

fn is_notification(data: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(data).is_ok_and(|v| {
        v.get("id").is_none() && v.get("method").is_some_and(serde_json::Value::is_string)
    })
}

/// Reads the stream after the endpoint event and forwards `message` events as JSON-RPC messages.
/// Dropping `tx` (on return) tells rmcp the transport is closed.
async fn read_stream(
    mut resp: reqwest::Response,
    mut parser: SseParser,
    mut batch: Vec<SseEvent>,
    tx: tokio::sync::mpsc::Sender<ServerJsonRpcMessage>,
    log: Arc<Mutex<SseLog>>,
) {
    let mut fault: Option<String> = None;
    loop {
        for ev in batch.drain(..) {
            if ev.event != "message" {
                continue;
            }
            // Like rmcp's stdio transport, unusable input is skipped rather than fatal.
            match serde_json::from_str::<ServerJsonRpcMessage>(&ev.data) {
                Ok(m) => {
                    if tx.send(m).await.is_err() {
                        return; // the client is gone
                    }
                }
                // A notification rmcp has no type for (a vendor extension) is no fault.
                Err(_) if is_notification(&ev.data) => {}
                Err(e) => note(&log, |l| {
                    if l.notes.len() < MAX_NOTES {
                        l.notes.push(format!(
                            "SSE: skipped a `message` event that is not a JSON-RPC message ({e}): {}",
                            snippet(&ev.data)
                        ));
                    }
                }),
            }
        }
        if let Some(reason) = fault {
            note(&log, |l| l.ended = Some(reason));
            return;
        }
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if let Err(e) = parser.feed(&chunk, &mut batch) {
                    fault = Some(e.to_string());
                }
            }
            Ok(None) => fault = Some("the server closed the SSE stream".into()),
            Err(e) => fault = Some(format!("the SSE stream failed: {}", chain(&e))),
        }
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn name() -> std::borrow::Cow<'static, str> {
        "sse".into()
    }

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let client = self.client.clone();
        let url = self.endpoint.clone();
        let timeout = self.post_timeout;
        async move {
            let body = serde_json::to_vec(&item).map_err(|e| SseError::Encode(e.to_string()))?;
            let resp = client
                .post(url.clone())
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .timeout(timeout)
                .body(body)
                .send()
                .await
                .map_err(|e| SseError::Post {
                    url: url.to_string(),
                    reason: chain(&e),
                })?;
            let status = resp.status();
            if status.is_success() {
                return Ok(());
            }
            let body = resp
                .text()
                .await
                .ok()
                .map(|b| b.trim().to_string())
                .filter(|b| !b.is_empty())
                .map(|b| format!(": {}", snippet(&b)))
                .unwrap_or_default();
            Err(SseError::PostStatus {
                url: url.to_string(),
                status: status.as_u16(),
                body,
            })
        }
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        self.rx.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.rx.close();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn parse_all(bytes: &[u8], max: usize) -> (Vec<SseEvent>, bool) {
        let mut p = SseParser::new(max);
        let mut out = Vec::new();
        let failed = p.feed(bytes, &mut out).is_err();
        (out, failed)
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn only_method_without_id_counts_as_a_notification() {
        assert!(is_notification(
            r#"{"jsonrpc":"2.0","method":"vendor/thing","params":{}}"#
        ));
        assert!(!is_notification(
            r#"{"jsonrpc":"2.0","id":1,"method":"vendor/thing"}"#
        ));
        assert!(!is_notification(r#"{"jsonrpc":"2.0","result":{}}"#));
        assert!(!is_notification("not json"));
    }

    #[test]
    fn snippets_are_short_and_escape_control_characters() {
        assert_eq!(snippet("a\nb\x1b[31m"), "a\\nb\\u{1b}[31m");
        let long = "é".repeat(100);
        let s = snippet(&long);
        assert!(s.ends_with('…') && s.chars().count() == 61, "{s}");
    }

    #[test]
    fn parses_endpoint_then_message_with_crlf_line_ends() {
        let s = b"event: endpoint\r\ndata: /messages/?session_id=ab\r\n\r\nevent: message\r\ndata: {\"x\":1}\r\n\r\n";
        let (evs, failed) = parse_all(s, 1024);
        assert!(!failed);
        assert_eq!(
            evs,
            vec![
                ev("endpoint", "/messages/?session_id=ab"),
                ev("message", "{\"x\":1}")
            ]
        );
    }

    #[test]
    fn joins_multi_line_data_with_newlines_and_defaults_to_message() {
        let (evs, _) = parse_all(b"data: first\ndata:second\ndata:  third\n\n", 1024);
        assert_eq!(evs, vec![ev("message", "first\nsecond\n third")]);
    }

    #[test]
    fn skips_comments_and_unknown_fields_and_drops_events_without_data() {
        let s =
            b": ping - 2024-01-01\nid: 7\nretry: 10\nevent: endpoint\n\n:another\nfoo\ndata: x\n\n";
        let (evs, _) = parse_all(s, 1024);
        assert_eq!(evs, vec![ev("message", "x")]);
    }

    #[test]
    fn accepts_lone_cr_line_ends_and_a_leading_bom() {
        let (evs, _) = parse_all(b"\xEF\xBB\xBFevent: a\rdata: 1\r\rdata: 2\n\n", 1024);
        assert_eq!(evs, vec![ev("a", "1"), ev("message", "2")]);
    }

    #[test]
    fn keeps_an_unterminated_event_pending() {
        let mut p = SseParser::new(1024);
        let mut out = Vec::new();
        p.feed(b"data: part", &mut out).expect("feed");
        assert!(out.is_empty());
        p.feed(b"ial\n", &mut out).expect("feed");
        assert!(out.is_empty(), "no blank line yet");
        p.feed(b"\n", &mut out).expect("feed");
        assert_eq!(out, vec![ev("message", "partial")]);
    }

    #[test]
    fn cr_and_lf_split_across_chunks_make_one_line_end() {
        let mut p = SseParser::new(1024);
        let mut out = Vec::new();
        for c in [&b"data: a\r"[..], b"\n", b"\r", b"\ndata: b\r", b"\n\r\n"] {
            p.feed(c, &mut out).expect("feed");
        }
        assert_eq!(out, vec![ev("message", "a"), ev("message", "b")]);
    }

    #[test]
    fn an_endless_line_is_refused_at_the_limit() {
        let mut p = SseParser::new(1000);
        let mut out = Vec::new();
        let chunk = [b'x'; 100];
        let mut fed = 0;
        let err = loop {
            match p.feed(&chunk, &mut out) {
                Ok(()) => fed += chunk.len(),
                Err(e) => break e,
            }
            assert!(fed <= 1000, "no error after {fed} bytes");
        };
        assert_eq!(err.limit, 1000);
        assert!(err.to_string().contains("1000 bytes"), "{err}");
        // Stays failed, even for well-formed input.
        assert!(p.feed(b"\n\ndata: ok\n\n", &mut out).is_err());
        assert!(out.is_empty());
    }

    #[test]
    fn an_endless_event_of_short_data_lines_is_refused_at_the_limit() {
        let mut s = Vec::new();
        for _ in 0..200 {
            s.extend_from_slice(b"data: 0123456789\n");
        }
        let (evs, failed) = parse_all(&s, 1000);
        assert!(failed);
        assert!(evs.is_empty());
    }

    #[test]
    fn events_below_the_limit_pass_and_the_limit_is_per_event() {
        let mut s = Vec::new();
        for _ in 0..50 {
            s.extend_from_slice(b"data: 0123456789\n\n");
        }
        let (evs, failed) = parse_all(&s, 100);
        assert!(!failed);
        assert_eq!(evs.len(), 50);
    }

    fn piece() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            Just(b"data: ".to_vec()),
            Just(b"data:".to_vec()),
            Just(b"event: endpoint".to_vec()),
            Just(b"event:".to_vec()),
            Just(b": comment".to_vec()),
            Just(b"id: 3".to_vec()),
            Just(b"\r\n".to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\r".to_vec()),
            Just(b"\xEF\xBB\xBF".to_vec()),
            "[a-z{}\":, ]{0,12}".prop_map(|s| s.into_bytes()),
            proptest::collection::vec(any::<u8>(), 0..6),
        ]
    }

    fn split_feed(bytes: &[u8], cuts: &[usize], max: usize) -> (Vec<SseEvent>, bool) {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        cuts.sort_unstable();
        let mut p = SseParser::new(max);
        let mut out = Vec::new();
        let mut at = 0;
        for c in cuts.into_iter().chain(std::iter::once(bytes.len())) {
            if p.feed(&bytes[at..c], &mut out).is_err() {
                return (out, true);
            }
            at = c;
        }
        (out, false)
    }

    /// Writes events the way a server would, with one line-end style per stream.
    fn serialize(events: &[(Option<String>, Vec<String>)], eol: &str, comments: bool) -> Vec<u8> {
        let mut s = String::new();
        for (event, lines) in events {
            if comments {
                s.push_str(": keep-alive");
                s.push_str(eol);
            }
            if let Some(e) = event {
                s.push_str(&format!("event: {e}{eol}"));
            }
            for l in lines {
                s.push_str(&format!("data: {l}{eol}"));
            }
            s.push_str(eol);
        }
        s.into_bytes()
    }

    proptest! {
        #[test]
        fn any_chunk_split_gives_the_same_events(
            pieces in proptest::collection::vec(piece(), 0..40),
            cuts in proptest::collection::vec(any::<usize>(), 0..12),
            max in prop_oneof![Just(64usize), Just(1 << 20)],
        ) {
            let bytes: Vec<u8> = pieces.concat();
            let whole = parse_all(&bytes, max);
            let split = split_feed(&bytes, &cuts, max);
            prop_assert_eq!(whole, split);
        }

        #[test]
        fn serialized_events_parse_back_under_any_split_and_line_end(
            events in proptest::collection::vec(
                (proptest::option::of("[a-z]{1,8}"), proptest::collection::vec("[^\r\n]{0,20}", 1..4)),
                0..8,
            ),
            eol in prop_oneof![Just("\n"), Just("\r\n"), Just("\r")],
            comments in any::<bool>(),
            cuts in proptest::collection::vec(any::<usize>(), 0..12),
        ) {
            let bytes = serialize(&events, eol, comments);
            let expected: Vec<SseEvent> = events
                .iter()
                .map(|(e, lines)| SseEvent {
                    event: e.clone().unwrap_or_else(|| "message".into()),
                    data: lines.join("\n"),
                })
                .collect();
            let (got, failed) = split_feed(&bytes, &cuts, 1 << 20);
            prop_assert!(!failed);
            prop_assert_eq!(got, expected);
        }
    }
}
