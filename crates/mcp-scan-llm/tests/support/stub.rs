//! A stub LLM provider: a real HTTP/1.1 server on 127.0.0.1 that speaks the OpenAI
//! chat-completions wire format (`POST /v1/chat/completions`) and the Bedrock Converse wire
//! format (`POST /model/{id}/converse`, SigV4 signature accepted unchecked). Answers are scripted
//! by a responder function; every request is recorded.
//!
//! Shared by the integration tests and by `examples/llm_stub.rs` (used by benchmarks/llm).

#![allow(dead_code)]

use serde_json::{Value, json};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// One recorded request.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-cased header names.
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl Recorded {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// The system and user text, whichever wire format carried them.
    pub fn prompt_text(&self) -> String {
        let v = self.json();
        let mut out = String::new();
        if let Some(msgs) = v.get("messages").and_then(Value::as_array) {
            for m in msgs {
                match m.get("content") {
                    Some(Value::String(s)) => out.push_str(s),
                    Some(Value::Array(parts)) => {
                        for p in parts {
                            if let Some(t) = p.get("text").and_then(Value::as_str) {
                                out.push_str(t);
                            }
                        }
                    }
                    _ => {}
                }
                out.push('\n');
            }
        }
        if let Some(sys) = v.get("system").and_then(Value::as_array) {
            for p in sys {
                if let Some(t) = p.get("text").and_then(Value::as_str) {
                    out.push_str(t);
                    out.push('\n');
                }
            }
        }
        out
    }

    /// The user message alone (where the fenced data is).
    pub fn user_text(&self) -> String {
        let v = self.json();
        let Some(msgs) = v.get("messages").and_then(Value::as_array) else {
            return String::new();
        };
        msgs.iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
            .map(|m| match m.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts
                    .iter()
                    .filter_map(|p| p.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join(""),
                _ => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The tool name as declared in the prompt (`tool: <name>` line).
    pub fn tool_name(&self) -> Option<String> {
        self.prompt_text()
            .lines()
            .find_map(|l| l.strip_prefix("tool: ").map(|s| s.trim().to_string()))
    }

    /// For a built-in qualification case (run before the tools), its expected verdict: `true` for
    /// mismatch. `None` for every other request.
    pub fn qualification_case(&self) -> Option<bool> {
        static CASES: std::sync::OnceLock<mcp_scan_llm::qualification::Cases> =
            std::sync::OnceLock::new();
        CASES
            .get_or_init(|| mcp_scan_llm::qualification::Cases::builtin().expect("cases"))
            .expected(&self.tool_name()?)
    }

    pub fn is_bedrock(&self) -> bool {
        self.path.starts_with("/model/")
    }
}

/// What the stub answers.
#[derive(Debug, Clone)]
pub enum Reply {
    /// A complete HTTP response.
    Http {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Never answer (until the stub is dropped).
    Hang,
    /// Answer after a pause (the stub keeps serving other connections meanwhile).
    Delayed(Duration, Box<Reply>),
}

impl Reply {
    /// A chat-completions answer whose message content is `content`.
    pub fn openai(content: &str, finish_reason: &str) -> Reply {
        let body = json!({
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 1_700_000_000u32,
            "model": "stub-model",
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
                "logprobs": null
            }],
            "usage": {
                "prompt_tokens": 100,
                "completion_tokens": 20,
                "total_tokens": 120
            }
        });
        Reply::Http {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }

    /// A Converse answer whose text block is `content`.
    pub fn bedrock(content: &str, stop_reason: &str) -> Reply {
        let body = json!({
            "output": {"message": {"role": "assistant", "content": [{"text": content}]}},
            "stopReason": stop_reason,
            "usage": {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
            "metrics": {"latencyMs": 5}
        });
        Reply::Http {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }

    /// A Converse answer that is one call of the tool `name` with `input`.
    pub fn bedrock_tool_use(name: &str, input: Value) -> Reply {
        let body = json!({
            "output": {"message": {"role": "assistant", "content": [
                {"toolUse": {"toolUseId": "tooluse_stub", "name": name, "input": input}}
            ]}},
            "stopReason": "tool_use",
            "usage": {"inputTokens": 100, "outputTokens": 20, "totalTokens": 120},
            "metrics": {"latencyMs": 5}
        });
        Reply::Http {
            status: 200,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string(),
        }
    }

    /// What a competent model answers to a qualification case (citing its first evidence item
    /// for a mismatch); `None` when the request is not one.
    pub fn qualification_answer(req: &Recorded) -> Option<Reply> {
        let mismatch = req.qualification_case()?;
        let cite: Vec<&str> = if mismatch && req.prompt_text().contains("E1 ") {
            vec!["E1"]
        } else {
            vec![]
        };
        let v = json!({
            "mismatch": mismatch,
            "threat_name": if mismatch { Some("DATA EXFILTRATION") } else { None },
            "description_claims": "what the description says",
            "code_does": if mismatch {
                "also reads secrets, runs commands or sends data out"
            } else {
                "what the description says"
            },
            "evidence": cite,
        });
        Some(Reply::answer_for(req, &v.to_string()))
    }

    /// The right success envelope for the request's wire format.
    pub fn answer_for(req: &Recorded, content: &str) -> Reply {
        if req.is_bedrock() {
            Reply::bedrock(content, "end_turn")
        } else {
            Reply::openai(content, "stop")
        }
    }

    /// A cut-off answer (finish reason `length` / stop reason `max_tokens`).
    pub fn truncated_for(req: &Recorded, content: &str) -> Reply {
        if req.is_bedrock() {
            Reply::bedrock(content, "max_tokens")
        } else {
            Reply::openai(content, "length")
        }
    }

    /// An error status in the request's wire format.
    pub fn error_for(req: &Recorded, status: u16, retry_after: Option<&str>) -> Reply {
        let mut headers = vec![("content-type".to_string(), "application/json".to_string())];
        if let Some(r) = retry_after {
            headers.push(("retry-after".into(), r.into()));
        }
        let body = if req.is_bedrock() {
            let kind = match status {
                429 => "ThrottlingException",
                503 => "ServiceUnavailableException",
                s if s >= 500 => "InternalServerException",
                403 => "AccessDeniedException",
                _ => "ValidationException",
            };
            headers.push((
                "x-amzn-errortype".into(),
                format!("{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"),
            ));
            json!({"message": format!("stub {kind}")}).to_string()
        } else {
            json!({"error": {"message": format!("stub error {status}"), "type": "stub", "param": null, "code": null}})
                .to_string()
        };
        Reply::Http {
            status,
            headers,
            body,
        }
    }
}

type Responder = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

/// Requests received but not yet answered, and the most there ever were at once.
#[derive(Default)]
struct InFlight {
    now: std::sync::atomic::AtomicUsize,
    max: std::sync::atomic::AtomicUsize,
}

/// A running stub; stops when dropped.
pub struct Stub {
    pub addr: SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    in_flight: Arc<InFlight>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Stub {
    /// Starts a stub whose answers come from `responder(request, index_of_request)`.
    pub fn start(responder: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> Stub {
        Stub::start_on("127.0.0.1:0", responder)
    }

    pub fn start_on(
        bind: &str,
        responder: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static,
    ) -> Stub {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let responder: Arc<Responder> = Arc::new(responder);
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (shutdown_tx, shutdown_rx) = tokio::sync::oneshot::channel::<()>();
        let recorded = requests.clone();
        let in_flight = Arc::new(InFlight::default());
        let flight = in_flight.clone();
        let bind = bind.to_string();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("stub runtime");
            rt.block_on(async move {
                let listener = TcpListener::bind(&bind)
                    .await
                    .expect("bind stub on loopback");
                addr_tx
                    .send(listener.local_addr().expect("addr"))
                    .expect("send addr");
                let serve = async {
                    loop {
                        let Ok((sock, _)) = listener.accept().await else {
                            continue;
                        };
                        let recorded = recorded.clone();
                        let responder = responder.clone();
                        let flight = flight.clone();
                        tokio::spawn(async move {
                            let _ = serve_connection(sock, recorded, responder, flight).await;
                        });
                    }
                };
                tokio::select! {
                    _ = serve => {}
                    _ = shutdown_rx => {}
                }
            });
        });
        let addr = addr_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("stub did not start");
        Stub {
            addr,
            requests,
            in_flight,
            shutdown: Some(shutdown_tx),
            thread: Some(thread),
        }
    }

    /// Base URL for OpenAI-compatible clients (with `/v1`).
    pub fn openai_base(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Endpoint URL for the Bedrock SDK.
    pub fn bedrock_endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The most requests that were ever waiting for an answer at the same time.
    pub fn max_in_flight(&self) -> usize {
        self.in_flight.max.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for Stub {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

async fn serve_connection(
    sock: TcpStream,
    recorded: Arc<Mutex<Vec<Recorded>>>,
    responder: Arc<Responder>,
    flight: Arc<InFlight>,
) -> std::io::Result<()> {
    use std::sync::atomic::Ordering;
    let mut reader = BufReader::new(sock);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let method = parts.next().unwrap_or_default().to_string();
        let path = parts.next().unwrap_or_default().to_string();
        let mut headers = HashMap::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).await? == 0 {
                return Ok(());
            }
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
            }
        }
        let body = if headers
            .get("transfer-encoding")
            .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
        {
            let mut body = Vec::new();
            loop {
                let mut size = String::new();
                reader.read_line(&mut size).await?;
                let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                    .unwrap_or(0);
                let mut chunk = vec![0u8; n + 2];
                reader.read_exact(&mut chunk).await?;
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&chunk[..n]);
            }
            body
        } else {
            let n: usize = headers
                .get("content-length")
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0u8; n];
            reader.read_exact(&mut body).await?;
            body
        };
        let req = Recorded {
            method,
            path,
            headers,
            body: String::from_utf8_lossy(&body).into_owned(),
        };
        let index = {
            let mut r = recorded
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?;
            r.push(req.clone());
            r.len() - 1
        };
        let now = flight.now.fetch_add(1, Ordering::SeqCst) + 1;
        flight.max.fetch_max(now, Ordering::SeqCst);
        let mut reply = responder(&req, index);
        while let Reply::Delayed(d, inner) = reply {
            tokio::time::sleep(d).await;
            reply = *inner;
        }
        flight.now.fetch_sub(1, Ordering::SeqCst);
        match reply {
            Reply::Delayed(..) => {}
            Reply::Hang => {
                // Hold the connection open without answering until the stub shuts down.
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return Ok(());
            }
            Reply::Http {
                status,
                headers,
                body,
            } => {
                let mut head = format!("HTTP/1.1 {status} {}\r\n", reason(status));
                for (k, v) in &headers {
                    head.push_str(&format!("{k}: {v}\r\n"));
                }
                head.push_str(&format!("content-length: {}\r\n\r\n", body.len()));
                let sock = reader.get_mut();
                sock.write_all(head.as_bytes()).await?;
                sock.write_all(body.as_bytes()).await?;
                sock.flush().await?;
            }
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// A model stand-in: a secret reaching the network is exfiltration (citing that evidence id),
/// anything else is aligned.
pub fn keyword_model(req: &Recorded, _: usize) -> Reply {
    if let Some(r) = Reply::qualification_answer(req) {
        return r;
    }
    let user = req.user_text();
    let exfil = user
        .lines()
        .find(|l| l.contains(" flow: secret:") && l.contains("-> network"))
        .and_then(|l| l.split_whitespace().next());
    let verdict = match exfil {
        Some(id) => serde_json::json!({
            "mismatch": true,
            "threat_name": "DATA EXFILTRATION",
            "description_claims": "formats a note locally",
            "code_does": "reads ~/.ssh/id_rsa and posts it to 93.184.216.34",
            "evidence": [id],
        }),
        None => serde_json::json!({
            "mismatch": false,
            "threat_name": null,
            "description_claims": "formats a note locally",
            "code_does": "formats a note locally",
            "evidence": [],
        }),
    };
    Reply::answer_for(req, &verdict.to_string())
}
