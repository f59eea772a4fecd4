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

/// The run's probe-marker prefix: a marker word and a pronounceable made-up name (`ledgertovami`).
/// Consonants that are not hex digits alternate with vowels, so no run of hex digits shows.
pub fn marker_prefix(seed: u64) -> String {
    let mut r = crate::identity::Rng::new(seed ^ 0x3a4c);
    loop {
        let mut s = (*r.pick(MARKER_WORDS)).to_string();
        for _ in 0..3 {
            s.push(*r.pick(&[
                'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z',
            ]));
            s.push(*r.pick(&['a', 'i', 'o', 'u']));
        }
        // Joined letters can spell a word a wary server looks for (`notes` + `ta`...).
        if !["test", "scan", "mcp", "probe", "canary"]
            .iter()
            .any(|w| s.contains(w))
        {
            return s;
        }
    }
}

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
    /// The style, the tool's salt, and which of the tool's valid calls this is (0: the first).
    static STYLE: std::cell::RefCell<(InputStyle, u64, u64)> =
        std::cell::RefCell::new((InputStyle::default(), 0, 0));
}

/// The plausible pick of `items` for the current style (fixed per run and key), moved on by
/// one per later valid call: a person asks a second question, not the same one twice, and a
/// server that compares successive inputs would take a repeat for a scanner's.
fn pick(items: &[&'static str], key: &str) -> &'static str {
    STYLE.with(|s| {
        let s = s.borrow();
        let h = key
            .bytes()
            .fold(s.0.seed ^ s.1, |h, b| h.rotate_left(5) ^ u64::from(b));
        let mut r = crate::identity::Rng::new(h);
        let base = r.below(items.len() as u64);
        items[((base + s.2) % items.len() as u64) as usize]
    })
}

/// Which valid call of the tool is being made (0: the first).
fn variant() -> u64 {
    STYLE.with(|s| s.borrow().2)
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

/// A key's words: `start_date`, `startDate` and `start-date` all give `start`, `date`.
fn key_words(key: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in key.chars() {
        if !ch.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_ascii_lowercase() || ch.is_ascii_digit();
        cur.push(ch.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

/// Whether one of `key`'s words is a date word (`start_date`, `dueDate`, `birthdate`; not
/// `update`, `validate` or `candidate`, which only end in the letters).
fn is_date_key(words: &[String]) -> bool {
    const NOT: &[&str] = &[
        "update",
        "validate",
        "candidate",
        "invalidate",
        "mandate",
        "accommodate",
    ];
    words
        .iter()
        .any(|w| w == "dates" || (w.ends_with("date") && !NOT.contains(&w.as_str())))
}

/// Keys whose value is something a person types as prose: a sentence or several words.
const PROSE_KEYS: &[&str] = &[
    "text",
    "message",
    "msg",
    "content",
    "body",
    "note",
    "notes",
    "comment",
    "description",
    "prompt",
    "question",
    "instructions",
    "instruction",
    "task",
    "reason",
    "feedback",
    "thought",
    "input",
    "request",
    "details",
    "context",
];
const TITLE_KEYS: &[&str] = &[
    "title", "subject", "summary", "headline", "caption", "topic",
];

fn key_hint(key: &str) -> Option<Value> {
    let k = key.to_ascii_lowercase();
    let words = key_words(key);
    let has = |w: &str| k.contains(w);
    let word = |w: &str| words.iter().any(|x| x == w);
    if has("url") || word("uri") || word("endpoint") || word("link") || has("website") {
        return Some(json!(pick_url(key)));
    }
    if has("path") || has("file") || k == "filename" {
        return Some(json!(format!("{}/{}", work_dir(), pick(FILES, key))));
    }
    if word("dir") || word("dirs") || has("directory") || has("folder") || k == "root" {
        return Some(json!(work_dir()));
    }
    if has("email") {
        return Some(json!(pick_or("user@example.com", EMAILS, key)));
    }
    if has("timezone") || k == "tz" {
        return Some(json!(pick_or("UTC", ZONES, key)));
    }
    if word("host") || word("hostname") || word("domain") {
        return Some(json!(pick_host(key)));
    }
    if has("query") || has("search") || k == "q" || word("keywords") {
        return Some(json!(pick_or("hello", QUERIES, key)));
    }
    if has("command") || k == "cmd" {
        return Some(json!(pick_or("echo hello", COMMANDS, key)));
    }
    if has("expression") || has("expr") || has("formula") {
        return Some(json!("2 + 3"));
    }
    if k == "time" {
        return Some(json!("12:00"));
    }
    if is_date_key(&words) {
        return Some(json!(recent_date(key, false)));
    }
    if word("city") || word("location") || word("place") || word("town") {
        return Some(json!(pick_or("hello", CITIES, key)));
    }
    if word("branch") {
        return Some(json!("main"));
    }
    if word("language") || word("lang") || word("locale") {
        return Some(json!("en"));
    }
    if word("currency") {
        return Some(json!(pick_or("USD", &["EUR", "USD", "GBP"], key)));
    }
    // The last word names what the value is: `commit_message` is prose, `note_id` an id.
    let head = words.last().map_or("", String::as_str);
    if TITLE_KEYS.contains(&head) {
        return Some(json!(pick_or("hello", TITLES, key)));
    }
    if PROSE_KEYS.contains(&head) {
        return Some(json!(pick_or("hello", SENTENCES, key)));
    }
    None
}

// What a person's agent passes: ordinary words, no shell or markup characters, nothing a
// scanner's corpus would hold (`hello`, `test`, `example.com`).
const QUERIES: &[&str] = &[
    "quarterly budget",
    "berlin offsite hotels",
    "onboarding checklist",
    "unpaid invoices",
    "release notes",
    "kubernetes upgrade plan",
    "team lunch friday",
];
const TITLES: &[&str] = &[
    "Quarterly budget review",
    "Offsite planning in Berlin",
    "Update the onboarding checklist",
    "Follow up on unpaid invoices",
    "Release notes for the next version",
];
const SENTENCES: &[&str] = &[
    "Please summarise the notes from the planning meeting on Tuesday.",
    "Remind the team that the quarterly budget review moved to Thursday.",
    "Draft a short reply thanking Anna for the updated roadmap.",
    "Find the invoices from last month that are still unpaid.",
    "List what changed in the onboarding checklist since the last release.",
];
const COMMANDS: &[&str] = &["ls -la", "pwd", "git status"];
const CITIES: &[&str] = &["Berlin", "Lisbon", "Toronto", "Melbourne", "Amsterdam"];
const ZONES: &[&str] = &["Europe/Berlin", "America/New_York", "Europe/London"];

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
            crate::identity::Rng::new(key.bytes().fold(
                s.0.seed ^ s.1 ^ s.2.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                |h, b| h.rotate_left(5) ^ u64::from(b),
            ))
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
            let v = min.max(1).min(max).max(min);
            // Later calls ask for a little more (a page size, a count), within the bounds.
            json!(v.saturating_add(variant() as i64).min(max).max(min))
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
            let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            let max = schema
                .get("maxLength")
                .and_then(Value::as_u64)
                .map(|m| m as usize);
            let hinted = key_hint(key).or_else(|| prose_by_description(key, schema));
            if let Some(v) = hinted
                && v.as_str()
                    .is_none_or(|s| max.is_none_or(|m| s.len() <= m) && s.len() >= min)
            {
                return v;
            }
            let mut s = pick_word(key).to_string();
            if max.is_some_and(|m| s.len() > m) {
                s = "memo".to_string();
            }
            // Padded with words, not a run of one letter.
            while s.len() < min {
                s.push_str(" notes");
            }
            json!(s)
        }
    }
}

/// Prose for a string whose own description says it is text a person writes.
fn prose_by_description(key: &str, schema: &Map<String, Value>) -> Option<Value> {
    let d = schema.get("description")?.as_str()?.to_ascii_lowercase();
    let says = |w: &str| {
        d.split(|c: char| !c.is_ascii_alphanumeric())
            .any(|x| x == w)
    };
    // A name, an id or a piece of a query is one token, whatever else the description says
    // ("Name of the table to describe").
    let token = [
        "name",
        "names",
        "id",
        "ids",
        "identifier",
        "key",
        "table",
        "column",
        "sql",
        "path",
        "url",
        "code",
        "symbol",
        "slug",
    ];
    if token.iter().any(|w| says(w)) {
        return None;
    }
    if says("search") || says("keywords") {
        return Some(json!(pick_or("hello", QUERIES, key)));
    }
    if [
        "text", "message", "question", "prompt", "sentence", "natural",
    ]
    .iter()
    .any(|w| says(w))
    {
        return Some(json!(pick_or("hello", SENTENCES, key)));
    }
    None
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
    let prev = STYLE.with(|s| s.replace((style.clone(), salt, 0)));
    let out = synthesize(input_schema, probes, marker);
    STYLE.with(|s| s.replace(prev));
    out
}

/// The tool's `n`-th valid input (0: the first, as [`synthesize_with`] makes it): as true to
/// the schema, with other picks (words, phrases, sites, counts) so no two calls repeat.
pub fn valid_variant(
    input_schema: &Map<String, Value>,
    style: &InputStyle,
    n: u64,
) -> Map<String, Value> {
    let salt = serde_json::to_string(input_schema)
        .unwrap_or_default()
        .bytes()
        .fold(0u64, |h, b| h.rotate_left(7) ^ u64::from(b));
    let prev = STYLE.with(|s| s.replace((style.clone(), salt, n)));
    let out = valid_object(input_schema, input_schema, 0);
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
            ProbeKind::Size => oversized(&m),
            _ => p.value.replace("{probe}", &m),
        };
        let mut args = valid.clone();
        for k in &string_keys {
            args.insert(k.clone(), json!(value));
        }
        // The SQL control's word is the marker's text only to look like data: it is no exec
        // probe (a tool passing it on as an argument executes nothing).
        let uses_marker = p.value.contains("{probe}") && p.kind != ProbeKind::SqlControl;
        calls.push(CallInput {
            label: p.name.clone(),
            arguments: args,
            marker: uses_marker.then_some(m),
            probe_kind: Some(p.kind),
        });
    }
    calls
}

/// 100,000 characters of pasted-looking text for the size probe: words picked from the run's
/// marker, not one letter repeated (a fixed `AAAA…` is a scanner's signature).
fn oversized(marker: &str) -> String {
    let mut r = crate::identity::Rng::new(
        marker
            .bytes()
            .fold(0x51a3_u64, |h, b| h.rotate_left(5) ^ u64::from(b)),
    );
    let mut s = String::with_capacity(100_100);
    while s.len() < 100_000 {
        if !s.is_empty() {
            s.push(if r.chance(8) { '\n' } else { ' ' });
        }
        let w: &&str = r.pick(WORDS);
        s.push_str(w);
    }
    s.truncate(100_000);
    s
}

/// Arguments for a prompt's declared arguments (all strings).
pub fn prompt_arguments(args: &[Value]) -> Map<String, Value> {
    let mut out = Map::new();
    for a in args {
        if let Some(name) = a.get("name").and_then(Value::as_str) {
            out.insert(
                name.to_string(),
                key_hint(name).unwrap_or_else(|| json!(pick_word(name))),
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

    #[test]
    fn date_hint_takes_date_words_not_update_or_validate() {
        assert!(is_date_key(&key_words("start_date")));
        assert!(is_date_key(&key_words("dueDate")));
        assert!(is_date_key(&key_words("birthdate")));
        assert!(!is_date_key(&key_words("update")));
        assert!(!is_date_key(&key_words("auto_update")));
        assert!(!is_date_key(&key_words("validate")));
        assert!(!is_date_key(&key_words("candidate_id")));
        assert_eq!(key_words("imageURL-path"), ["image", "url", "path"]);
        assert_eq!(key_words("startDate"), ["start", "date"]);
    }

    /// What a server waiting for a person's input checks: prose is several ordinary words, and
    /// nothing holds a scanner's words, a hex run, shell or markup characters or a stock value.
    fn looks_typed(v: &str) -> Result<(), String> {
        let l = v.to_ascii_lowercase();
        for w in [
            "mcp", "scan", "canary", "probe", "test", "example.", "hello", "169.254", "../",
            "<script",
        ] {
            if l.contains(w) {
                return Err(format!("{v}: holds {w}"));
            }
        }
        if v.chars().any(|c| "$`;|&<>{}\\*!".contains(c)) {
            return Err(format!("{v}: shell characters"));
        }
        let mut run = 0;
        for c in l.chars() {
            run = if c.is_ascii_hexdigit() { run + 1 } else { 0 };
            if run >= 6 {
                return Err(format!("{v}: hex run"));
            }
        }
        if v.len() > 200 {
            return Err(format!("{v}: too long"));
        }
        Ok(())
    }

    #[test]
    fn seeded_first_calls_look_typed_by_a_person_and_prose_is_several_words() {
        let s = obj(json!({
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "title": {"type": "string"},
                "query": {"type": "string"},
                "city": {"type": "string"},
                "command": {"type": "string"},
                "site": {"type": "string", "format": "uri"},
                "host": {"type": "string"},
                "contact_email": {"type": "string"},
                "last_update": {"type": "string"},
                "body": {"type": "string", "minLength": 3},
                "what": {"type": "string", "description": "The question to answer"},
                "label": {"type": "string", "minLength": 12},
                "note_id": {"type": "string"},
                "table_name": {"type": "string", "description": "Name of the table to describe"}
            }
        }));
        for seed in 1..40u64 {
            let style = InputStyle {
                work: "/home/maria/projects/ledger".into(),
                seed,
            };
            let a = &synthesize_with(&s, &[], &style, &|i| i.to_string())[0].arguments;
            for (k, v) in a {
                let v = v.as_str().expect("string");
                looks_typed(v).unwrap_or_else(|e| panic!("seed {seed} {k}: {e}"));
            }
            for k in ["message", "body", "what"] {
                let n = a[k].as_str().map_or(0, |v| v.split_whitespace().count());
                assert!(n >= 4, "seed {seed} {k}: {}", a[k]);
            }
            assert!(
                a["query"].as_str().is_some_and(|q| q.contains(' ')),
                "{}",
                a["query"]
            );
            // Ids and names are one word, not prose, whatever their descriptions say.
            for k in ["note_id", "table_name"] {
                assert!(
                    !a[k].as_str().is_some_and(|q| q.contains(' ')),
                    "{k}: {}",
                    a[k]
                );
            }
            // `last_update` is not a date.
            assert!(
                !a["last_update"]
                    .as_str()
                    .is_some_and(|d| d.starts_with("20"))
            );
            assert!(
                a["label"]
                    .as_str()
                    .is_some_and(|l| l.len() >= 12 && !l.contains("xx"))
            );
        }
    }

    #[test]
    fn later_valid_calls_ask_something_else_true_to_the_schema() {
        let s = obj(json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "message": {"type": "string"},
                "site": {"type": "string", "format": "uri"},
                "limit": {"type": "integer", "minimum": 1, "maximum": 3},
                "when": {"type": "string", "format": "date"},
                "mode": {"type": "string", "enum": ["fast", "slow"]}
            }
        }));
        for seed in 1..40u64 {
            let style = InputStyle {
                work: "/home/maria/projects/ledger".into(),
                seed,
            };
            let first = &synthesize_with(&s, &[], &style, &|i| i.to_string())[0].arguments;
            assert_eq!(first, &valid_variant(&s, &style, 0), "seed {seed}");
            let mut seen = vec![first.clone()];
            for n in 1..4u64 {
                let v = valid_variant(&s, &style, n);
                // Free text, sites and counts move on; enums stay valid; nothing repeats the
                // previous call's value (a server comparing successive inputs sees a person).
                let prev = seen.last().expect("one");
                for k in ["query", "message", "site"] {
                    assert_ne!(v[k], prev[k], "seed {seed} call {n} {k}");
                    looks_typed(v[k].as_str().expect("string"))
                        .unwrap_or_else(|e| panic!("seed {seed} {k}: {e}"));
                }
                let limit = v["limit"].as_i64().expect("integer");
                assert!((1..=3).contains(&limit), "{limit}");
                assert_eq!(v["mode"], json!("fast"));
                assert!(
                    !seen.contains(&v),
                    "seed {seed}: call {n} repeats an earlier one"
                );
                seen.push(v);
            }
        }
    }

    #[test]
    fn the_size_probe_is_words_not_one_letter_and_varies_with_the_marker() {
        let a = oversized("ledgertovami3f");
        assert_eq!(a.len(), 100_000);
        assert!(a.split_whitespace().count() > 5_000);
        assert!(!a.contains("AAAA"));
        assert_ne!(a, oversized("budgetkosalu3f"));
    }

    #[test]
    fn probe_marker_prefixes_hold_no_hex_run_and_differ_per_run() {
        let a = marker_prefix(1);
        assert_ne!(a, marker_prefix(2));
        for seed in 0..200u64 {
            let m = format!("{}12a", marker_prefix(seed));
            looks_typed(&m).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            assert!(m.len() >= 12, "{m}");
        }
    }
}
