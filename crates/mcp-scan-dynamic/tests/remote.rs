//! `--url`: real streamable-HTTP and HTTP+SSE servers on 127.0.0.1, listed but never run or
//! traced by us; small loopback HTTP stubs for the ways an SSE server can misbehave.

use mcp_scan_core::{Analyzer, AnalyzerState, ExitKind, FailOn, Report, ToolStatus};
use mcp_scan_dynamic::{DynamicOutcome, RemoteOptions, RemoteTransport, scan_remote};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

struct KillOnDrop(std::process::Child);
impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn interpreter(var: &str, venv: &str) -> String {
    let py = std::env::var(var)
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            repo()
                .join(venv)
                .join("bin/python")
                .to_string_lossy()
                .into_owned()
        });
    assert!(
        Path::new(&py).exists(),
        "{py} not found: run scripts/test-deps to create the Python venvs with the mcp SDK"
    );
    py
}

fn python() -> String {
    interpreter("MCP_SCAN_TEST_PYTHON", ".venv/mcp2")
}

fn python_mcp1() -> String {
    interpreter("MCP_SCAN_TEST_PYTHON_MCP1", ".venv/mcp1")
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// Starts `fixtures/runtime/remote_server` and waits until its port accepts connections.
fn start_fixture(py: &str, transport: &str, header_log: Option<&Path>) -> (KillOnDrop, u16) {
    let port = free_port();
    let mut cmd = std::process::Command::new(py);
    cmd.arg(repo().join("fixtures/runtime/remote_server/server.py"))
        .arg(port.to_string())
        .arg(transport);
    if let Some(log) = header_log {
        cmd.arg(log);
    }
    let child = KillOnDrop(
        cmd.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("start server"),
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "fixture server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    (child, port)
}

fn options(url: String, transport: RemoteTransport, timeout: Duration) -> RemoteOptions {
    RemoteOptions {
        url,
        transport,
        headers: vec![],
        timeout,
        pin_dir: None,
        accept_changes: false,
        out_dir: None,
    }
}

fn assert_listed_manifest_only(outcome: &DynamicOutcome) {
    assert!(
        outcome.exercise.aborted.is_none(),
        "{:?}",
        outcome.exercise.aborted
    );
    assert!(outcome.exercise.calls.is_empty(), "nothing is called");
    let r = &outcome.report;
    let tool = r
        .entities
        .iter()
        .find(|e| e.target.name == "add")
        .expect("tool add listed");
    assert_eq!(tool.status(), ToolStatus::Incomplete);
    let status = |a: Analyzer| tool.analyzers.iter().find(|s| s.analyzer == a);
    assert!(
        status(Analyzer::Runtime)
            .and_then(|s| s.reason.as_deref())
            .is_some_and(|x| x.contains("manifest only")),
        "{:?}",
        tool.analyzers
    );
    // The listing itself was read: the description rules ran on it.
    assert!(
        status(Analyzer::Description).is_some_and(|s| s.state == AnalyzerState::Complete),
        "{:?}",
        tool.analyzers
    );
    assert_eq!(r.exit_kind(FailOn::default()), ExitKind::Incomplete);
    assert!(
        r.diagnostics
            .iter()
            .any(|d| d.message.contains("manifest only"))
    );
    assert!(
        !r.diagnostics.iter().any(|d| d.message.contains("skipped")),
        "{:?}",
        r.diagnostics
    );
}

/// The reason the server entity is incomplete (the connection error), asserting that nothing in
/// the report looks clean.
fn failure_reason(r: &Report) -> String {
    assert_eq!(r.exit_kind(FailOn::default()), ExitKind::Incomplete);
    assert!(
        r.entities.iter().all(|e| e.status() != ToolStatus::Safe),
        "nothing may be SAFE: {:?}",
        r.entities
    );
    let server = r
        .entities
        .iter()
        .find(|e| e.target.kind == mcp_scan_core::EntityKind::Server)
        .expect("server entity");
    assert_eq!(server.status(), ToolStatus::Incomplete);
    server.analyzers[0].reason.clone().unwrap_or_default()
}

#[test]
fn remote_server_is_listed_and_reported_manifest_only_incomplete() {
    let (_server, port) = start_fixture(&python(), "streamable-http", None);
    let pins = tempfile::tempdir().expect("tmp");
    let mut opts = options(
        format!("http://127.0.0.1:{port}/mcp"),
        RemoteTransport::StreamableHttp,
        Duration::from_secs(10),
    );
    opts.headers = vec![("X-Scan".into(), "1".into())];
    opts.pin_dir = Some(pins.path().to_path_buf());
    let outcome = scan_remote(&opts).expect("scan");
    assert_listed_manifest_only(&outcome);
}

#[test]
fn sse_server_is_listed_and_reported_manifest_only_incomplete() {
    let (_server, port) = start_fixture(&python(), "sse", None);
    let pins = tempfile::tempdir().expect("tmp");
    let mut opts = options(
        format!("http://127.0.0.1:{port}/sse"),
        RemoteTransport::Sse,
        Duration::from_secs(10),
    );
    opts.pin_dir = Some(pins.path().to_path_buf());
    let outcome = scan_remote(&opts).expect("scan");
    assert_listed_manifest_only(&outcome);
    assert_eq!(
        outcome.exercise.tools.len(),
        1,
        "{:?}",
        outcome.exercise.tools
    );
}

#[test]
fn sse_server_on_mcp1_is_listed_and_reported_manifest_only_incomplete() {
    let (_server, port) = start_fixture(&python_mcp1(), "sse", None);
    let opts = options(
        format!("http://127.0.0.1:{port}/sse"),
        RemoteTransport::Sse,
        Duration::from_secs(10),
    );
    let outcome = scan_remote(&opts).expect("scan");
    assert_listed_manifest_only(&outcome);
}

#[test]
fn sse_header_reaches_the_server_on_get_and_every_post() {
    let dir = tempfile::tempdir().expect("tmp");
    let log = dir.path().join("headers.log");
    let (_server, port) = start_fixture(&python(), "sse", Some(&log));
    let url = format!("http://127.0.0.1:{port}/sse");
    let read_log = || std::fs::read_to_string(&log).unwrap_or_default();

    // Twin first: without --header the server sees no X-Scan, so the log can tell them apart.
    let outcome = scan_remote(&options(
        url.clone(),
        RemoteTransport::Sse,
        Duration::from_secs(10),
    ))
    .expect("scan");
    assert_listed_manifest_only(&outcome);
    let plain = read_log();
    assert!(plain.contains("GET /sse -"), "{plain}");
    assert!(plain.contains("POST /messages/ -"), "{plain}");
    std::fs::remove_file(&log).expect("clear log");

    let mut opts = options(url, RemoteTransport::Sse, Duration::from_secs(10));
    opts.headers = vec![("X-Scan".into(), "token-42".into())];
    let outcome = scan_remote(&opts).expect("scan");
    assert_listed_manifest_only(&outcome);
    let seen = read_log();
    let lines: Vec<&str> = seen.lines().collect();
    assert!(
        lines.contains(&"GET /sse token-42"),
        "GET without the header:\n{seen}"
    );
    let posts: Vec<&&str> = lines.iter().filter(|l| l.starts_with("POST ")).collect();
    // initialize, notifications/initialized, tools/list at least.
    assert!(posts.len() >= 3, "{seen}");
    assert!(
        posts.iter().all(|l| l.ends_with(" token-42")),
        "a POST without the header:\n{seen}"
    );
}

#[test]
fn sse_transport_on_a_streamable_http_url_fails_clearly_and_is_not_clean() {
    let (_server, port) = start_fixture(&python(), "streamable-http", None);
    let url = format!("http://127.0.0.1:{port}/mcp");
    // Twin: the same URL with the right transport lists the tool.
    let ok = scan_remote(&options(
        url.clone(),
        RemoteTransport::StreamableHttp,
        Duration::from_secs(10),
    ))
    .expect("scan");
    assert_listed_manifest_only(&ok);

    let outcome =
        scan_remote(&options(url, RemoteTransport::Sse, Duration::from_secs(5))).expect("scan");
    assert!(outcome.exercise.tools.is_empty());
    let reason = failure_reason(&outcome.report);
    assert!(reason.contains("SSE connection failed"), "{reason}");
    assert!(
        reason.contains("answered HTTP 4") || reason.contains("not `text/event-stream`"),
        "{reason}"
    );
}

// ---- loopback stubs ------------------------------------------------------------------------

/// A request as the stub saw it.
#[derive(Debug, Clone)]
struct Seen {
    line: String,
    body: String,
}

/// A one-handler HTTP/1.1 server on 127.0.0.1 that records every request; each connection is
/// handled on its own thread and closed when the handler returns.
struct Stub {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Stub {
    fn start(handler: impl Fn(&Seen, &mut TcpStream, u16) + Send + Sync + 'static) -> Stub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let handler = Arc::new(handler);
        let log = seen.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(mut conn) = conn else { break };
                let handler = handler.clone();
                let log = log.clone();
                std::thread::spawn(move || {
                    if let Some(req) = read_request(&mut conn) {
                        log.lock().expect("log").push(req.clone());
                        handler(&req, &mut conn, port);
                    }
                });
            }
        });
        Stub { port, seen }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/sse", self.port)
    }

    fn posts(&self) -> Vec<Seen> {
        self.seen
            .lock()
            .expect("log")
            .iter()
            .filter(|s| s.line.starts_with("POST "))
            .cloned()
            .collect()
    }
}

fn read_request(conn: &mut TcpStream) -> Option<Seen> {
    conn.set_read_timeout(Some(Duration::from_secs(10))).ok()?;
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        if conn.read(&mut byte).ok()? == 0 {
            return None;
        }
        buf.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&buf).into_owned();
    let len = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse::<usize>().ok())?
        })
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    conn.read_exact(&mut body).ok()?;
    Some(Seen {
        line: head.lines().next().unwrap_or("").to_string(),
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

const SSE_HEAD: &str = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n";

/// Keeps the stream open with comments until the client goes away (or 30 s pass).
fn ping_until_gone(conn: &mut TcpStream) {
    for _ in 0..150 {
        if conn.write_all(b": ping\r\n\r\n").is_err() {
            return;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn accept_post(conn: &mut TcpStream) {
    let _ = conn.write_all(
        b"HTTP/1.1 202 Accepted\r\nContent-Length: 8\r\nConnection: close\r\n\r\nAccepted",
    );
}

/// An SSE stub that announces `endpoint` and accepts POSTs without ever answering them.
fn endpoint_stub(endpoint: impl Fn(u16) -> String + Send + Sync + 'static) -> Stub {
    Stub::start(move |req, conn, port| {
        if req.line.starts_with("GET ") {
            let ev = format!(
                "{SSE_HEAD}event: endpoint\r\ndata: {}\r\n\r\n",
                endpoint(port)
            );
            if conn.write_all(ev.as_bytes()).is_ok() {
                ping_until_gone(conn);
            }
        } else {
            accept_post(conn);
        }
    })
}

#[test]
fn sse_url_answering_html_is_refused_with_the_content_type() {
    let stub = Stub::start(|_, conn, _| {
        let body = "<html>hello</html>";
        let _ = write!(
            conn,
            "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(5),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(
        reason.contains("Content-Type `text/html; charset=utf-8`, not `text/event-stream`"),
        "{reason}"
    );
    assert!(stub.posts().is_empty());
}

#[test]
fn sse_url_answering_404_is_refused_with_the_status() {
    let stub = Stub::start(|_, conn, _| {
        let _ = conn
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    });
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(5),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(reason.contains("answered HTTP 404"), "{reason}");
}

#[test]
fn sse_url_answering_a_redirect_is_not_followed() {
    let target = endpoint_stub(|_| "/messages".into());
    let location = target.url();
    let stub = Stub::start(move |_, conn, _| {
        let _ = write!(
            conn,
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
    });
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(5),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(reason.contains("answered HTTP 307"), "{reason}");
    assert!(reason.contains("redirects are not followed"), "{reason}");
    assert!(
        target.seen.lock().expect("log").is_empty(),
        "the redirect target was contacted"
    );
}

#[test]
fn sse_server_that_never_sends_the_endpoint_ends_within_the_timeout() {
    let stub = Stub::start(|_, conn, _| {
        if conn.write_all(SSE_HEAD.as_bytes()).is_ok() {
            ping_until_gone(conn);
        }
    });
    let start = Instant::now();
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(2),
    ))
    .expect("scan");
    let took = start.elapsed();
    let reason = failure_reason(&outcome.report);
    assert!(reason.contains("no `endpoint` event within 2s"), "{reason}");
    assert!(took >= Duration::from_secs(2), "gave up early: {took:?}");
    assert!(took < Duration::from_secs(6), "took {took:?}");
}

#[test]
fn sse_stream_closed_before_the_endpoint_is_reported() {
    let stub = Stub::start(|_, conn, _| {
        let _ = conn.write_all(format!("{SSE_HEAD}: hello\r\n\r\n").as_bytes());
    });
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(5),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(
        reason.contains("closed the SSE stream before sending its `endpoint` event"),
        "{reason}"
    );
}

#[test]
fn sse_endpoint_on_another_origin_is_refused_and_never_posted_to() {
    // Same host and port, but `localhost` is another origin than `127.0.0.1`.
    let stub = endpoint_stub(|port| format!("http://localhost:{port}/messages?s=1"));
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(3),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(reason.contains("another origin"), "{reason}");
    assert!(reason.contains("http://127.0.0.1:"), "{reason}");
    assert!(stub.posts().is_empty(), "{:?}", stub.posts());
}

#[test]
fn sse_relative_endpoint_is_resolved_against_the_sse_url_and_posted_to() {
    // Twin of the cross-origin case: a same-origin endpoint gets the initialize POST. The stub
    // never answers it, so the scan ends INCOMPLETE on the initialize timeout.
    let stub = endpoint_stub(|_| "messages?s=1".into());
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(2),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(reason.contains("did not answer initialize"), "{reason}");
    let posts = stub.posts();
    assert!(
        posts.first().is_some_and(
            |p| p.line == "POST /messages?s=1 HTTP/1.1" && p.body.contains("\"initialize\"")
        ),
        "{posts:?}"
    );
}

#[test]
fn sse_stream_closed_after_the_endpoint_says_so() {
    // The stream ends as soon as the endpoint is announced: initialize can never be answered.
    let stub = Stub::start(|req, conn, _| {
        if req.line.starts_with("GET ") {
            let _ = conn.write_all(
                format!("{SSE_HEAD}event: endpoint\r\ndata: /messages\r\n\r\n").as_bytes(),
            );
        } else {
            accept_post(conn);
        }
    });
    let start = Instant::now();
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(10),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(reason.contains("initialize failed"), "{reason}");
    assert!(
        reason.contains("the server closed the SSE stream"),
        "{reason}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(8),
        "should not wait for the timeout"
    );
}

#[test]
fn sse_message_that_is_not_json_rpc_is_skipped_and_noted() {
    let stub = Stub::start(|req, conn, _| {
        if req.line.starts_with("GET ") {
            let evs = format!(
                "{SSE_HEAD}event: endpoint\r\ndata: /messages\r\n\r\n\
                 event: message\r\ndata: {{\"jsonrpc\":\"2.0\",\"method\":\"vendor/hello\"}}\r\n\r\n\
                 event: message\r\ndata: not json\r\n\r\n"
            );
            if conn.write_all(evs.as_bytes()).is_ok() {
                ping_until_gone(conn);
            }
        } else {
            accept_post(conn);
        }
    });
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(2),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(reason.contains("did not answer initialize"), "{reason}");
    let notes: Vec<&str> = outcome
        .report
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .filter(|m| m.contains("skipped"))
        .collect();
    // The unknown notification is tolerated silently; the garbage is named.
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("not a JSON-RPC message"), "{notes:?}");
    assert!(notes[0].ends_with(": not json"), "{notes:?}");
}

#[test]
fn sse_event_flood_is_cut_off_at_the_event_limit() {
    let stub = Stub::start(|_, conn, _| {
        if conn
            .write_all(format!("{SSE_HEAD}data: ").as_bytes())
            .is_err()
        {
            return;
        }
        let chunk = vec![b'x'; 64 * 1024];
        // 64 MiB at most: the client must give up long before.
        for _ in 0..1024 {
            if conn.write_all(&chunk).is_err() {
                return;
            }
        }
    });
    let outcome = scan_remote(&options(
        stub.url(),
        RemoteTransport::Sse,
        Duration::from_secs(20),
    ))
    .expect("scan");
    let reason = failure_reason(&outcome.report);
    assert!(
        reason.contains(&format!(
            "grew past {} bytes",
            mcp_scan_dynamic::sse::MAX_EVENT_BYTES
        )),
        "{reason}"
    );
}

#[test]
fn non_http_url_is_rejected() {
    for transport in [RemoteTransport::StreamableHttp, RemoteTransport::Sse] {
        let opts = options(
            "ftp://example.com/mcp".into(),
            transport,
            Duration::from_secs(1),
        );
        let err = scan_remote(&opts).err().expect("rejected").to_string();
        assert!(err.contains("http:// or https://"), "{err}");
    }
}
