//! Tool arguments synthesised from a JSON Schema: one valid call (enums, formats, defaults and
//! key-name hints such as a path inside the workspace or a URL on a sink host), then adversarial
//! variants that put one probe into every string argument.

use crate::rules::{Probe, ProbeKind};
use crate::sandbox::SANDBOX_WORK;
use serde_json::{Map, Value, json};

/// A sample file planted in the workspace so "valid" path arguments point at something real.
pub const SAMPLE_FILE: &str = "notes.txt";
pub const SAMPLE_CONTENT: &str = "meeting notes: ship the release on friday\n";

/// Words probe markers start with: a marker must be unique and found again in an `execve`, but
/// a fixed literal (`mcpscanprobe…`) is a scanner's signature a server can wait for.
pub const MARKER_WORDS: &[&str] = &[
    "invoice", "report", "backup", "sync", "draft", "export", "summary", "ledger", "notes",
    "archive", "budget", "photos", "release", "meeting",
];

/// How valid values look in one run: paths under the run's workspace, and plausible strings
/// picked from the seed (not the same `hello` and `example.com` every run).
#[derive(Debug, Clone)]
pub struct InputStyle {
    /// The workspace as the server sees it.
    pub work: String,
    pub seed: u64,
}

impl Default for InputStyle {
    fn default() -> Self {
        InputStyle {
            work: SANDBOX_WORK.to_string(),
            seed: 0,
        }
    }
}

// Single words: a phrase pasted into a query string is a syntax error before any probe, which
// would make a tool look like it always answers with SQL errors. No SQL keywords either.
const WORDS: &[&str] = &[
    "roadmap",
    "invoices",
    "kubernetes",
    "berlin",
    "offsite",
    "dataclass",
    "budget",
    "quarterly",
    "onboarding",
    "groceries",
];
// Plain http: the sinks answer HTTP, not TLS, so a fetch gets an answer to act on.
const URLS: &[&str] = &[
    "http://docs.python.org/3/library/json.html",
    "http://en.wikipedia.org/wiki/Model_Context_Protocol",
    "http://github.com/rust-lang/rust/blob/master/README.md",
    "http://news.ycombinator.com/",
    "http://developer.mozilla.org/en-US/docs/Web/HTTP",
];
const HOSTS: &[&str] = &["github.com", "docs.python.org", "wikipedia.org", "pypi.org"];
const FILES: &[&str] = &["notes.txt"];

thread_local! {
    static STYLE: std::cell::RefCell<(InputStyle, u64)> =
        std::cell::RefCell::new((InputStyle::default(), 0));
}

/// The n-th plausible pick of `items` for the current style (fixed per run and key).
fn pick(items: &[&'static str], key: &str) -> &'static str {
    STYLE.with(|s| {
        let s = s.borrow();
        let h = key
            .bytes()
            .fold(s.0.seed ^ s.1, |h, b| h.rotate_left(5) ^ u64::from(b));
        let mut r = crate::identity::Rng::new(h);
        *r.pick(items)
    })
}

fn work_dir() -> String {
    STYLE.with(|s| s.borrow().0.work.clone())
}

/// One set of arguments to call a tool with.
#[derive(Debug, Clone, PartialEq)]
pub struct CallInput {
    /// `valid` or the probe name.
    pub label: String,
    pub arguments: Map<String, Value>,
    /// The unique marker placed in command/code probes (`None` for valid calls).
    pub marker: Option<String>,
    pub probe_kind: Option<ProbeKind>,
}

fn key_hint(key: &str) -> Option<Value> {
    let k = key.to_ascii_lowercase();
    let has = |w: &str| k.contains(w);
    if has("url") || has("uri") || has("endpoint") || has("link") || has("website") {
        return Some(json!(pick_url(key)));
    }
    if has("path") || has("file") || k == "filename" {
        return Some(json!(format!("{}/{}", work_dir(), pick(FILES, key))));
    }
    if has("dir") || has("folder") || k == "root" {
        return Some(json!(work_dir()));
    }
    if has("email") {
        return Some(json!(pick_or("user@example.com", EMAILS, key)));
    }
    if has("timezone") || k == "tz" {
        return Some(json!("UTC"));
    }
    if has("host") || has("domain") {
        return Some(json!(pick_host(key)));
    }
    if has("query") || has("search") || k == "q" {
        return Some(json!(pick_word(key)));
    }
    if has("command") || k == "cmd" {
        return Some(json!("echo hello"));
    }
    if has("expression") || has("expr") || has("formula") {
        return Some(json!("2 + 3"));
    }
    if k == "time" {
        return Some(json!("12:00"));
    }
    if has("date") {
        return Some(json!(recent_date(key, false)));
    }
    None
}

/// The stock value for the unseeded style (tests, remote listings); a pick of `seeded` else.
fn pick_or(stock: &'static str, seeded: &[&'static str], key: &str) -> &'static str {
    if STYLE.with(|s| s.borrow().0.seed == 0) {
        stock
    } else {
        pick(seeded, key)
    }
}

fn pick_url(key: &str) -> &'static str {
    pick_or("http://example.com/", URLS, key)
}

fn pick_host(key: &str) -> &'static str {
    pick_or("example.com", HOSTS, key)
}

fn pick_word(key: &str) -> &'static str {
    pick_or("hello", WORDS, key)
}

fn format_value(format: &str) -> Option<Value> {
    Some(match format {
        "uri" | "url" | "iri" | "uri-reference" => json!(pick_url(format)),
        "email" => json!(pick_or("user@example.com", EMAILS, format)),
        "date" => json!(recent_date(format, false)),
        "date-time" => json!(recent_date(format, true)),
        "time" => json!(pick_or(
            "12:00:00",
            &["09:30:00", "14:15:00", "16:45:00"],
            format
        )),
        "uuid" => json!(seeded_uuid(format)),
        "ipv4" => json!(pick_or(
            "192.0.2.1",
            &["192.168.1.23", "10.0.0.14", "192.168.0.101"],
            format
        )),
        "hostname" => json!(pick_host(format)),
        _ => return None,
    })
}

// The documentation values (`2024-01-15`, Wikipedia's example UUID, TEST-NET addresses) are what a
// scanner sends; a user's agent sends today's dates and ids that differ every time.
const EMAILS: &[&str] = &[
    "maria.garcia@posteo.de",
    "j.novak@outlook.com",
    "sam.lee@fastmail.com",
];

fn seeded(key: &str) -> Option<crate::identity::Rng> {
    STYLE.with(|s| {
        let s = s.borrow();
        (s.0.seed != 0).then(|| {
            crate::identity::Rng::new(
                key.bytes()
                    .fold(s.0.seed ^ s.1, |h, b| h.rotate_left(5) ^ u64::from(b)),
            )
        })
    })
}

/// A date a few days back from today (`2024-01-15` for the unseeded style).
fn recent_date(key: &str, with_time: bool) -> String {
    let Some(mut r) = seeded(key) else {
        return if with_time {
            "2024-01-15T12:00:00Z".into()
        } else {
            "2024-01-15".into()
        };
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(1_750_000_000);
    let t = now - 86_400 * r.below(10) as i64;
    let (y, m, d) = civil(t.div_euclid(86_400));
    if with_time {
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:00Z",
            8 + r.below(10),
            r.below(60)
        )
    } else {
        format!("{y:04}-{m:02}-{d:02}")
    }
}

/// Days since 1970-01-01 to (year, month, day) (Howard Hinnant's civil_from_days).
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// A version-4 UUID from the run's seed (Wikipedia's example for the unseeded style).
fn seeded_uuid(key: &str) -> String {
    let Some(mut r) = seeded(key) else {
        return "123e4567-e89b-12d3-a456-426614174000".into();
    };
    let (a, b) = (r.next_u64(), r.next_u64());
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        0x8000 | (b >> 48) & 0x3fff,
        b & 0xffff_ffff_ffff
    )
}

fn schema_type(schema: &Map<String, Value>) -> Option<String> {
    match schema.get("type") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .map(str::to_string),
        _ => {
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(alts)) = schema.get(key) {
                    for alt in alts {
                        if let Some(o) = alt.as_object()
                            && let Some(t) = schema_type(o)
                            && t != "null"
                        {
                            return Some(t);
                        }
                    }
                }
            }
            schema.contains_key("properties").then(|| "object".into())
        }
    }
}

fn resolve<'a>(
    schema: &'a Map<String, Value>,
    root: &'a Map<String, Value>,
) -> &'a Map<String, Value> {
    if let Some(Value::String(r)) = schema.get("$ref")
        && let Some(name) = r.rsplit('/').next()
    {
        for defs in ["$defs", "definitions"] {
            if let Some(target) = root
                .get(defs)
                .and_then(|d| d.get(name))
                .and_then(Value::as_object)
            {
                return target;
            }
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(alts)) = schema.get(key)
            && !schema.contains_key("type")
            && let Some(o) = alts
                .iter()
                .filter_map(Value::as_object)
                .find(|o| o.get("type").and_then(Value::as_str) != Some("null"))
        {
            return resolve(o, root);
        }
    }
    schema
}

/// A valid value for `schema`, using `key` as a hint. `depth` bounds recursion.
pub fn valid_value(
    key: &str,
    schema: &Map<String, Value>,
    root: &Map<String, Value>,
    depth: u32,
) -> Value {
    let schema = resolve(schema, root);
    if let Some(Value::Array(e)) = schema.get("enum")
        && let Some(first) = e.first()
    {
        return first.clone();
    }
    if let Some(c) = schema.get("const") {
        return c.clone();
    }
    if let Some(d) = schema.get("default")
        && !d.is_null()
    {
        return d.clone();
    }
    if let Some(Value::Array(ex)) = schema.get("examples")
        && let Some(first) = ex.first()
    {
        return first.clone();
    }
    match schema_type(schema).as_deref() {
        Some("integer") => {
            let min = schema.get("minimum").and_then(Value::as_i64).unwrap_or(1);
            let max = schema
                .get("maximum")
                .and_then(Value::as_i64)
                .unwrap_or(i64::MAX);
            json!(min.max(1).min(max).max(min))
        }
        Some("number") => {
            let min = schema.get("minimum").and_then(Value::as_f64).unwrap_or(1.0);
            json!(min.max(1.0))
        }
        Some("boolean") => json!(false),
        Some("array") => {
            let item = schema
                .get("items")
                .and_then(Value::as_object)
                .map(|i| valid_value(key, i, root, depth + 1))
                .unwrap_or(json!("item"));
            json!([item])
        }
        Some("object") if depth < 4 => Value::Object(valid_object(schema, root, depth + 1)),
        Some("object") => json!({}),
        Some("null") => Value::Null,
        _ => {
            if let Some(f) = schema.get("format").and_then(Value::as_str)
                && let Some(v) = format_value(f)
            {
                return v;
            }
            if let Some(v) = key_hint(key) {
                return v;
            }
            let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let max = schema
                .get("maxLength")
                .and_then(Value::as_u64)
                .map(|m| m as usize);
            let mut s = pick_word(key).to_string();
            if max.is_some_and(|m| s.len() > m) {
                s = "hello".to_string();
            }
            while s.len() < min {
                s.push('x');
            }
            json!(s)
        }
    }
}

fn valid_object(
    schema: &Map<String, Value>,
    root: &Map<String, Value>,
    depth: u32,
) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(Value::Object(props)) = schema.get("properties") {
        for (k, v) in props {
            if let Some(o) = v.as_object() {
                out.insert(k.clone(), valid_value(k, o, root, depth));
            }
        }
    }
    out
}

/// Whether a (resolved) property schema accepts strings.
fn is_string(schema: &Map<String, Value>, root: &Map<String, Value>) -> bool {
    let s = resolve(schema, root);
    schema_type(s).is_none_or(|t| t == "string") && !s.contains_key("enum")
}

/// [`synthesize`] with values in `style` (the run's workspace and plausible picks).
pub fn synthesize_with(
    input_schema: &Map<String, Value>,
    probes: &[Probe],
    style: &InputStyle,
    marker: &dyn Fn(usize) -> String,
) -> Vec<CallInput> {
    // Each tool gets its own picks: the salt is the schema's text.
    let salt = serde_json::to_string(input_schema)
        .unwrap_or_default()
        .bytes()
        .fold(0u64, |h, b| h.rotate_left(7) ^ u64::from(b));
    let prev = STYLE.with(|s| s.replace((style.clone(), salt)));
    let out = synthesize(input_schema, probes, marker);
    STYLE.with(|s| s.replace(prev));
    out
}

/// The valid call, then one call per probe with the probe in every string argument.
pub fn synthesize(
    input_schema: &Map<String, Value>,
    probes: &[Probe],
    marker: &dyn Fn(usize) -> String,
) -> Vec<CallInput> {
    let valid = valid_object(input_schema, input_schema, 0);
    let mut calls = vec![CallInput {
        label: "valid".into(),
        arguments: valid.clone(),
        marker: None,
        probe_kind: None,
    }];
    let string_keys: Vec<String> = input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| {
            p.iter()
                .filter(|(_, v)| v.as_object().is_some_and(|o| is_string(o, input_schema)))
                .map(|(k, _)| k.clone())
                .collect()
        })
        .unwrap_or_default();
    if string_keys.is_empty() {
        return calls;
    }
    for (i, p) in probes.iter().enumerate() {
        let m = marker(i);
        let value = match p.kind {
            ProbeKind::Size => "A".repeat(100_000),
            _ => p.value.replace("{probe}", &m),
        };
        let mut args = valid.clone();
        for k in &string_keys {
            args.insert(k.clone(), json!(value));
        }
        let uses_marker = p.value.contains("{probe}");
        calls.push(CallInput {
            label: p.name.clone(),
            arguments: args,
            marker: uses_marker.then_some(m),
            probe_kind: Some(p.kind),
        });
    }
    calls
}

/// Arguments for a prompt's declared arguments (all strings).
pub fn prompt_arguments(args: &[Value]) -> Map<String, Value> {
    let mut out = Map::new();
    for a in args {
        if let Some(name) = a.get("name").and_then(Value::as_str) {
            out.insert(
                name.to_string(),
                key_hint(name).unwrap_or_else(|| json!("hello")),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn valid_call_uses_enums_formats_and_key_hints() {
        let s = obj(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "mode": {"type": "string", "enum": ["fast", "slow"]},
                "site": {"type": "string", "format": "uri"},
                "count": {"type": "integer", "minimum": 3},
                "flag": {"type": "boolean"},
                "tags": {"type": "array", "items": {"type": "string"}},
                "opt": {"anyOf": [{"type": "null"}, {"type": "integer"}]}
            },
            "required": ["path"]
        }));
        let calls = synthesize(&s, &[], &|i| format!("m{i}"));
        let a = &calls[0].arguments;
        assert_eq!(a["path"], json!(format!("{SANDBOX_WORK}/{SAMPLE_FILE}")));
        assert_eq!(a["mode"], json!("fast"));
        assert_eq!(a["site"], json!("http://example.com/"));
        assert_eq!(a["count"], json!(3));
        assert_eq!(a["flag"], json!(false));
        assert_eq!(a["tags"], json!(["hello"]));
        assert_eq!(a["opt"], json!(1));
    }

    #[test]
    fn probes_fill_every_string_argument_and_carry_their_marker() {
        let s = obj(json!({
            "type": "object",
            "properties": {"expression": {"type": "string"}, "n": {"type": "integer"}}
        }));
        let probes = crate::rules::RuntimeRules::builtin().probes.clone();
        let calls = synthesize(&s, &probes, &|i| format!("mcpprobe{i}"));
        assert_eq!(calls.len(), 1 + probes.len());
        let code = calls
            .iter()
            .find(|c| c.probe_kind == Some(ProbeKind::Code))
            .expect("code probe");
        let m = code.marker.clone().expect("marker");
        assert!(
            code.arguments["expression"]
                .as_str()
                .is_some_and(|v| v.contains(&m))
        );
        assert_eq!(
            code.arguments["n"],
            json!(1),
            "non-string arguments stay valid"
        );
    }

    #[test]
    fn tools_without_string_arguments_get_only_the_valid_call() {
        let s = obj(json!({"type": "object", "properties": {"a": {"type": "number"}}}));
        let probes = crate::rules::RuntimeRules::builtin().probes.clone();
        assert_eq!(synthesize(&s, &probes, &|i| i.to_string()).len(), 1);
    }

    #[test]
    fn seeded_dates_ids_and_addresses_are_recent_and_vary_not_documentation_values() {
        let s = obj(json!({
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date"},
                "at": {"type": "string", "format": "date-time"},
                "id": {"type": "string", "format": "uuid"},
                "ip": {"type": "string", "format": "ipv4"},
                "start_date": {"type": "string"}
            }
        }));
        let run = |seed| {
            let style = InputStyle {
                work: SANDBOX_WORK.into(),
                seed,
            };
            synthesize_with(&s, &[], &style, &|i| i.to_string())[0]
                .arguments
                .clone()
        };
        let (a, b) = (run(11), run(12));
        let today = civil(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .expect("clock")
                .as_secs() as i64
                / 86_400,
        );
        let year = format!("{:04}-", today.0);
        for k in ["when", "at", "start_date"] {
            let v = a[k].as_str().expect("string");
            assert!(
                v.starts_with(&year) || v.starts_with(&format!("{:04}-", today.0 - 1)),
                "{k}: {v}"
            );
            assert!(!v.starts_with("2024-01-15"), "{k}: {v}");
        }
        assert_ne!(a["id"], json!("123e4567-e89b-12d3-a456-426614174000"));
        assert_ne!(a["id"], b["id"], "ids differ per run");
        assert_eq!(a["id"].as_str().map(str::len), Some(36));
        assert_ne!(a["ip"], json!("192.0.2.1"));
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(19_723), (2024, 1, 1));
    }

    #[test]
    fn refs_into_defs_are_followed() {
        let s = obj(json!({
            "type": "object",
            "properties": {"cfg": {"$ref": "#/$defs/Cfg"}},
            "$defs": {"Cfg": {"type": "object", "properties": {"url": {"type": "string"}}}}
        }));
        let calls = synthesize(&s, &[], &|i| i.to_string());
        assert_eq!(
            calls[0].arguments["cfg"]["url"],
            json!("http://example.com/")
        );
    }
}
