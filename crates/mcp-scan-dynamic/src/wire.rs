//! What the client puts on the wire, byte for byte. rmcp writes every request with
//! `"params":{"_meta":{"progressToken":N}}`, its keys sorted, `jsonrpc` first: a server reading the
//! raw line can tell the scanner's client library from the TypeScript SDK that Claude Desktop,
//! Claude Code, Cursor and VS Code are built on. Each line rmcp writes is rewritten here into the
//! TypeScript SDK's shape: `{"method","params","jsonrpc","id"}` in that order (the SDK spreads
//! the request, then adds `jsonrpc` and `id`), no progress token (the SDK adds one only when the
//! caller asks for progress), no `params` on list requests without a cursor, initialize's params
//! in the SDK's order (`protocolVersion`, `capabilities`, `clientInfo`), a tool call's as
//! `name`, `arguments`; responses as `{"result","jsonrpc","id"}`.

use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

fn js(v: &Value) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "null".into())
}

/// An object's members in `order` first, the rest after (sorted, as serde_json keeps them).
fn ordered(o: &Map<String, Value>, order: &[&str]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for k in order {
        if let Some(v) = o.get(*k) {
            parts.push(format!("{}:{}", js(&Value::String((*k).into())), js(v)));
        }
    }
    for (k, v) in o {
        if !order.contains(&k.as_str()) {
            parts.push(format!("{}:{}", js(&Value::String(k.clone())), js(v)));
        }
    }
    format!("{{{}}}", parts.join(","))
}

/// Initialize's params in the order the clients write them: `protocolVersion`, `capabilities`
/// (`roots`, `sampling`, `elicitation`, as the clients added them), `clientInfo` (`name`,
/// `version`, `title`).
fn initialize_params(p: &Map<String, Value>) -> String {
    let mut parts: Vec<String> = Vec::new();
    let key = |k: &str| js(&Value::String(k.into()));
    if let Some(v) = p.get("protocolVersion") {
        parts.push(format!("{}:{}", key("protocolVersion"), js(v)));
    }
    match p.get("capabilities") {
        Some(Value::Object(c)) => parts.push(format!(
            "{}:{}",
            key("capabilities"),
            ordered(c, &["roots", "sampling", "elicitation"])
        )),
        Some(v) => parts.push(format!("{}:{}", key("capabilities"), js(v))),
        None => {}
    }
    match p.get("clientInfo") {
        Some(Value::Object(c)) => parts.push(format!(
            "{}:{}",
            key("clientInfo"),
            ordered(c, &["name", "version", "title"])
        )),
        Some(v) => parts.push(format!("{}:{}", key("clientInfo"), js(v))),
        None => {}
    }
    for (k, v) in p {
        if !["protocolVersion", "capabilities", "clientInfo"].contains(&k.as_str()) {
            parts.push(format!("{}:{}", key(k), js(v)));
        }
    }
    format!("{{{}}}", parts.join(","))
}

/// One JSON-RPC message as the TypeScript SDK writes it (`line` without its newline). Anything
/// that is not a JSON object is passed through unchanged.
pub fn rewrite(line: &str) -> String {
    rewrite_with(line, None)
}

/// [`rewrite`], with initialize's params replaced by `init` (the profile's exact params).
pub fn rewrite_with(line: &str, init: Option<&Value>) -> String {
    let Ok(Value::Object(mut m)) = serde_json::from_str::<Value>(line) else {
        return line.to_string();
    };
    if let Some(init) = init
        && m.get("method").and_then(Value::as_str) == Some("initialize")
    {
        m.insert("params".into(), init.clone());
    }
    if let Some(Value::Object(p)) = m.get_mut("params") {
        if let Some(Value::Object(meta)) = p.get_mut("_meta") {
            meta.remove("progressToken");
            if meta.is_empty() {
                p.remove("_meta");
            }
        }
        if p.is_empty() {
            m.remove("params");
        }
    }
    let method = m.get("method").and_then(Value::as_str).unwrap_or_default();
    let params = match m.get("params") {
        Some(Value::Object(p)) => Some(match method {
            "initialize" => initialize_params(p),
            "tools/call" => ordered(p, &["name", "arguments"]),
            "resources/read" => ordered(p, &["uri"]),
            "prompts/get" => ordered(p, &["name", "arguments"]),
            _ => ordered(p, &[]),
        }),
        Some(v) => Some(js(v)),
        None => None,
    };
    let mut parts: Vec<String> = Vec::new();
    let field = |k: &str, v: String| format!("{}:{v}", js(&Value::String(k.into())));
    if m.contains_key("method") {
        parts.push(field("method", js(&m["method"])));
        if let Some(p) = params {
            parts.push(field("params", p));
        }
    } else if let Some(r) = m.get("result") {
        parts.push(field("result", js(r)));
    }
    parts.push(field("jsonrpc", js(&Value::String("2.0".into()))));
    if let Some(id) = m.get("id") {
        parts.push(field("id", js(id)));
    }
    if let Some(e) = m.get("error") {
        parts.push(field("error", js(e)));
    }
    format!("{{{}}}", parts.join(","))
}

/// A writer for rmcp whose lines reach `out` rewritten by [`rewrite`]. The forwarding task runs
/// on the current runtime and ends when rmcp drops its end or `out` fails.
pub fn shim<W>(out: W, init: Option<Value>) -> tokio::io::DuplexStream
where
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (mine, theirs) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        let mut out = out;
        let mut lines = tokio::io::BufReader::new(theirs).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let msg = rewrite_with(&line, init.as_ref());
            if out.write_all(format!("{msg}\n").as_bytes()).await.is_err()
                || out.flush().await.is_err()
            {
                break;
            }
        }
        let _ = out.shutdown().await;
    });
    mine
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_take_the_typescript_sdks_shape_without_progress_tokens() {
        assert_eq!(
            rewrite(
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"},"protocolVersion":"2025-06-18"}}"#
            ),
            r#"{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-ai","version":"0.1.0"}},"jsonrpc":"2.0","id":0}"#
        );
        assert_eq!(
            rewrite(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#
        );
        assert_eq!(
            rewrite(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":0}}}"#
            ),
            r#"{"method":"tools/list","jsonrpc":"2.0","id":1}"#
        );
        assert_eq!(
            rewrite(
                r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"_meta":{"progressToken":4},"arguments":{"q":"budget"},"name":"t"}}"#
            ),
            r#"{"method":"tools/call","params":{"name":"t","arguments":{"q":"budget"}},"jsonrpc":"2.0","id":5}"#
        );
        // A cursor stays; other _meta members stay.
        assert_eq!(
            rewrite(
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"progressToken":1,"x":1},"cursor":"c2"}}"#
            ),
            r#"{"method":"tools/list","params":{"_meta":{"x":1},"cursor":"c2"},"jsonrpc":"2.0","id":2}"#
        );
    }

    #[test]
    fn responses_and_non_json_lines_keep_their_content() {
        assert_eq!(
            rewrite(r#"{"jsonrpc":"2.0","id":"s1","result":{"roots":[]}}"#),
            r#"{"result":{"roots":[]},"jsonrpc":"2.0","id":"s1"}"#
        );
        assert_eq!(
            rewrite(r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"m"}}"#),
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"m"}}"#
        );
        assert_eq!(rewrite("not json"), "not json");
        // Whatever the shape, the message parses to the same JSON minus the progress token.
        let line = r#"{"jsonrpc":"2.0","id":9,"method":"prompts/get","params":{"arguments":{"a":"b"},"name":"p"}}"#;
        let a: Value = serde_json::from_str(line).expect("json");
        let b: Value = serde_json::from_str(&rewrite(line)).expect("json");
        assert_eq!(a, b);
    }

    #[test]
    fn initialize_carries_the_profiles_exact_params() {
        let profile = crate::exercise::ClientProfile::default();
        let init = profile.initialize_params();
        let line = rewrite_with(
            r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{}}},"clientInfo":{"name":"x","version":"1"},"protocolVersion":"2025-06-18"}}"#,
            Some(&init),
        );
        assert_eq!(
            line,
            r#"{"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"Visual Studio Code","version":"1.104.1"}},"jsonrpc":"2.0","id":0}"#
        );
        // Other messages are untouched by the override.
        assert_eq!(
            rewrite_with(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#,
                Some(&init)
            ),
            r#"{"method":"tools/list","jsonrpc":"2.0","id":1}"#
        );
    }
}
