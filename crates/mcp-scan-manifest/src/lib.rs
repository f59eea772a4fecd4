//! MCP manifests in every shape users have, read into one typed [`Manifest`].
//!
//! Accepted, alone or as a stream of JSON values (JSON Lines, or several documents one after
//! another), each value being one of:
//! - a bare array of tools, or a single tool object;
//! - a `tools/list`, `resources/list`, `resources/templates/list` or `prompts/list` result
//!   (`{"tools": [...]}`, …), or an `initialize` result (`serverInfo`, `instructions`);
//! - a whole JSON-RPC response wrapping any of those in `result` (error responses are skipped);
//! - a manifest with `name`/`serverInfo`, `instructions`, `tools`, `resources`,
//!   `resourceTemplates` and `prompts`.
//!
//! Everything found is merged into one manifest per input. A malformed value is reported with
//! file, line and column ([`ManifestError`]); in a JSON Lines input the lines after it are still
//! read. Each entity carries the line where it is defined when that can be found.

mod offsets;

use offsets::children;
use serde_json::{Map, Value};
use std::fmt;
use std::io::Read;
use std::path::Path;

/// Inputs larger than this are refused rather than read into memory.
pub const MAX_MANIFEST_BYTES: u64 = 64 * 1024 * 1024;

/// How far ahead of the previous entity an entity's name is looked for (for its line).
const NAME_SEARCH_WINDOW: usize = 1 << 20;

/// Errors reported per input before giving up on it.
const MAX_ERRORS: usize = 20;

/// A tool as listed by `tools/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// The JSON Schema of the arguments, as declared (`Value::Null` when absent).
    pub input_schema: Value,
    /// `annotations` and `outputSchema` as declared (`Value::Null` when absent): the model
    /// reads them too.
    pub annotations: Value,
    pub output_schema: Value,
    /// 1-based line of the entity in its input, when found.
    pub line: Option<u32>,
}

/// A resource (`resources/list`) or resource template (`resources/templates/list`).
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    /// `uri` for a resource, `uriTemplate` for a template.
    pub uri: Option<String>,
    pub line: Option<u32>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptArgument {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
}

/// A prompt as listed by `prompts/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub arguments: Vec<PromptArgument>,
    pub line: Option<u32>,
}

/// Everything one input declares.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Manifest {
    /// `name` or `serverInfo.name`, else the file stem (`stdin` for `-`).
    pub server: String,
    /// The input as the user named it (`-` for standard input).
    pub source: String,
    /// Server `instructions` from `initialize`, if present, with its line.
    pub instructions: Option<String>,
    pub instructions_line: Option<u32>,
    pub tools: Vec<Tool>,
    pub resources: Vec<Resource>,
    pub resource_templates: Vec<Resource>,
    pub prompts: Vec<Prompt>,
}

impl Manifest {
    pub fn entity_count(&self) -> usize {
        self.tools.len() + self.resources.len() + self.resource_templates.len() + self.prompts.len()
    }
}

/// A problem with an input, with the place it is about when known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ManifestError {
    pub file: String,
    pub line: Option<u32>,
    pub column: Option<u32>,
    pub message: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "{}:{l}:{c}: {}", self.file, self.message),
            (Some(l), None) => write!(f, "{}:{l}: {}", self.file, self.message),
            _ => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// What reading one input produced: everything that could be read, and every problem.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LoadOutcome {
    pub manifest: Manifest,
    pub errors: Vec<ManifestError>,
    /// Read, but something may have been skipped or there was nothing to scan (the scan is then
    /// INCOMPLETE, not clean).
    pub warnings: Vec<ManifestError>,
}

/// Reads a manifest file, or standard input for `-`.
pub fn load(path: &str) -> LoadOutcome {
    load_with_limit(path, MAX_MANIFEST_BYTES)
}

/// [`load`] with a custom size cap.
pub fn load_with_limit(path: &str, max_bytes: u64) -> LoadOutcome {
    let fallback = if path == "-" {
        "stdin".to_string()
    } else {
        Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.to_string())
    };
    let fail = |message: String| LoadOutcome {
        manifest: Manifest {
            server: fallback.clone(),
            source: path.to_string(),
            ..Manifest::default()
        },
        errors: vec![ManifestError {
            file: path.to_string(),
            line: None,
            column: None,
            message,
        }],
        warnings: Vec::new(),
    };
    let mut bytes = Vec::new();
    let read = if path == "-" {
        std::io::stdin()
            .lock()
            .take(max_bytes + 1)
            .read_to_end(&mut bytes)
    } else {
        match std::fs::File::open(path) {
            Ok(f) => f.take(max_bytes + 1).read_to_end(&mut bytes),
            Err(e) => return fail(format!("cannot open: {e}")),
        }
    };
    if let Err(e) = read {
        return fail(format!("cannot read: {e}"));
    }
    if bytes.len() as u64 > max_bytes {
        return fail(format!(
            "input is larger than the {} MiB limit for manifests",
            max_bytes / (1024 * 1024)
        ));
    }
    match String::from_utf8(bytes) {
        Ok(text) => parse(path, &fallback, &text),
        Err(e) => {
            let valid = e.utf8_error().valid_up_to();
            let (line, column) = line_col(e.as_bytes(), valid);
            LoadOutcome {
                manifest: Manifest {
                    server: fallback,
                    source: path.to_string(),
                    ..Manifest::default()
                },
                errors: vec![ManifestError {
                    file: path.to_string(),
                    line: Some(line),
                    column: Some(column),
                    message: "input is not valid UTF-8".into(),
                }],
                warnings: Vec::new(),
            }
        }
    }
}

/// Parses manifest text. `source` names the input in errors; `fallback_server` is the server
/// name when the text names none.
pub fn parse(source: &str, fallback_server: &str, text: &str) -> LoadOutcome {
    let mut b = Builder {
        source,
        text,
        out: LoadOutcome {
            manifest: Manifest {
                source: source.to_string(),
                ..Manifest::default()
            },
            errors: Vec::new(),
            warnings: Vec::new(),
        },
        server: None,
        search_from: 0,
        newlines: None,
        values: 0,
        rpc_errors: 0,
    };
    // A UTF-8 byte-order mark (Windows editors write one) is not part of the JSON.
    let mut start = if text.starts_with('\u{feff}') { 3 } else { 0 };
    while start < text.len() {
        let rest = &text[start..];
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let mut value_start = start + leading_ws(rest);
        let mut failed_at: Option<usize> = None;
        while let Some(item) = stream.next() {
            let end = start + stream.byte_offset();
            match item {
                Ok(v) => {
                    b.values += 1;
                    b.value(&v, value_start, end);
                    value_start = end + leading_ws(&text[end..]);
                }
                Err(e) => {
                    let (line, column) = if e.line() == 0 {
                        line_col(text.as_bytes(), text.len())
                    } else {
                        let (l0, _) = line_col(text.as_bytes(), start);
                        let col = if e.line() == 1 {
                            line_col(text.as_bytes(), start).1 + e.column() as u32 - 1
                        } else {
                            e.column() as u32
                        };
                        (l0 + e.line() as u32 - 1, col.max(1))
                    };
                    b.error(Some(line), Some(column), strip_position(&e.to_string()));
                    // Resuming only makes sense when the broken value is one line of JSON
                    // Lines; inside a pretty-printed document it would only cascade.
                    let value_line = line_col(text.as_bytes(), value_start).0;
                    if value_line == line && b.out.errors.len() < MAX_ERRORS {
                        failed_at = Some(line as usize);
                    }
                    break;
                }
            }
        }
        match failed_at {
            // Resume after the bad line: in JSON Lines the next line is a new value.
            Some(line) => match nth_line_start(text, line) {
                Some(next) if next > start => start = next,
                _ => break,
            },
            None => break,
        }
    }
    if b.values == 0 && b.out.errors.is_empty() {
        b.error(None, None, "input is empty: expected a manifest, a tools array, a tools/list result or JSON-RPC responses".into());
    } else if b.out.manifest.entity_count() == 0 && b.out.errors.is_empty() {
        let why = if b.rpc_errors > 0 {
            "only JSON-RPC error responses: the server returned no listing"
        } else {
            "no tools, resources or prompts"
        };
        b.warn(None, format!("{why}; nothing was scanned"));
    }
    let mut out = b.out;
    out.manifest.server = b.server.unwrap_or_else(|| fallback_server.to_string());
    out
}

struct Builder<'a> {
    source: &'a str,
    text: &'a str,
    out: LoadOutcome,
    server: Option<String>,
    /// Entities are searched for in order, so each lookup starts after the previous find.
    search_from: usize,
    /// Byte offsets of every newline, built on the first line lookup.
    newlines: Option<Vec<usize>>,
    values: usize,
    rpc_errors: usize,
}

/// List keys as MCP names them, and as `mcp-scan dynamic --out-dir` writes them.
const LIST_KEYS: [(&str, List); 7] = [
    ("tools", List::Tools),
    ("resources", List::Resources),
    ("resourceTemplates", List::Templates),
    ("resource_templates", List::Templates),
    ("prompts", List::Prompts),
    // The second `tools/list` of a dynamic run: scanned too, a changed text is poison as well.
    ("tools_after_calls", List::ToolsAgain),
    ("toolsAfterCalls", List::ToolsAgain),
];

#[derive(Clone, Copy, PartialEq)]
enum List {
    Tools,
    ToolsAgain,
    Resources,
    Templates,
    Prompts,
}

/// Top-level keys of a manifest that carry nothing to scan.
const KNOWN_KEYS: [&str; 10] = [
    "name",
    "version",
    "serverInfo",
    "server_info",
    "protocolVersion",
    "capabilities",
    "instructions",
    "nextCursor",
    "_meta",
    "description",
];

/// Keys MCP clients use for their server lists (Claude Desktop, Claude Code, Cursor, Windsurf,
/// Gemini CLI: `mcpServers`; VS Code: `servers`, or `mcp.servers` in settings.json).
fn client_config_servers(obj: &Map<String, Value>) -> Option<&Map<String, Value>> {
    let servers = obj
        .get("mcpServers")
        .or_else(|| obj.get("servers"))
        .or_else(|| obj.get("mcp").and_then(|m| m.get("servers")))?;
    servers.as_object()
}

impl Builder<'_> {
    fn error(&mut self, line: Option<u32>, column: Option<u32>, message: String) {
        self.out.errors.push(ManifestError {
            file: self.source.to_string(),
            line,
            column,
            message,
        });
    }

    fn error_at(&mut self, byte: usize, message: String) {
        let (l, c) = line_col(self.text.as_bytes(), byte);
        self.error(Some(l), Some(c), message);
    }

    fn warn(&mut self, byte: Option<usize>, message: String) {
        let (line, column) = match byte {
            Some(b) => {
                let (l, c) = line_col(self.text.as_bytes(), b);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        self.out.warnings.push(ManifestError {
            file: self.source.to_string(),
            line,
            column,
            message,
        });
    }

    fn value(&mut self, v: &Value, start: usize, end: usize) {
        self.search_from = start;
        match v {
            Value::Array(items) => {
                let elems = children(self.text, start);
                self.tools(items, start, end, elems.elements(), false)
            }
            Value::Object(obj) => self.object(obj, start, end, 0),
            _ => self.error_at(
                start,
                "expected a JSON object or array (a manifest, a tools array, a tools/list result or a JSON-RPC response)".into(),
            ),
        }
    }

    fn object(&mut self, obj: &Map<String, Value>, start: usize, end: usize, depth: u8) {
        let kids = children(self.text, start);
        // A JSON-RPC response: its `result` is one of the shapes; errors carry nothing to scan.
        if obj.contains_key("jsonrpc")
            || (obj.contains_key("id") && (obj.contains_key("result") || obj.contains_key("error")))
        {
            match obj.get("result") {
                Some(Value::Object(r)) if depth == 0 => {
                    let at = kids.key("result").unwrap_or(start);
                    self.object(r, at, end, depth + 1)
                }
                Some(_) => self.error_at(start, "JSON-RPC `result` is not an object".into()),
                None if obj.contains_key("error") => self.rpc_errors += 1,
                None => self.error_at(
                    start,
                    "JSON-RPC message without `result` (requests are not manifests)".into(),
                ),
            }
            return;
        }
        if let Some(servers) = client_config_servers(obj)
            && !LIST_KEYS.iter().any(|(k, _)| obj.contains_key(*k))
        {
            let names: Vec<&str> = servers.keys().map(String::as_str).take(8).collect();
            self.error_at(
                start,
                format!(
                    "this looks like an MCP client configuration (servers: {}), which says how to launch servers, not what they offer; scan a server by running it with `mcp-scan dynamic -- <its command>`, or its source with `mcp-scan behavioral <path>`",
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                ),
            );
            return;
        }
        let mut recognised = false;
        if let Some(Value::String(n)) = obj.get("name")
            && LIST_KEYS.iter().any(|(k, _)| obj.contains_key(*k))
        {
            self.server.get_or_insert_with(|| n.clone());
        }
        if let Some(Value::Object(info)) = obj.get("serverInfo").or_else(|| obj.get("server_info"))
        {
            recognised = true;
            if let Some(Value::String(n)) = info.get("name") {
                self.server.get_or_insert_with(|| n.clone());
            }
        }
        if let Some(v) = obj.get("instructions") {
            recognised = true;
            if let Value::String(s) = v
                && !s.trim().is_empty()
            {
                let line = self.find_key_line("instructions", start, end);
                self.out.manifest.instructions = Some(s.clone());
                self.out.manifest.instructions_line = line;
            }
        }
        for (key, list) in LIST_KEYS {
            let Some(v) = obj.get(key) else { continue };
            recognised = true;
            match v {
                Value::Array(items) => {
                    let at = kids.key(key).unwrap_or(start);
                    let elems = children(self.text, at);
                    let elems = elems.elements();
                    match list {
                        List::Tools => self.tools(items, start, end, elems, false),
                        List::ToolsAgain => self.tools(items, start, end, elems, true),
                        List::Prompts => self.prompts(items, start, end, elems),
                        List::Resources | List::Templates => {
                            self.resources(key, list, items, start, end, elems)
                        }
                    }
                }
                Value::Null => {}
                // A client dump records "Method not found" in place of a list the server
                // does not offer: there is nothing to scan, and nothing is wrong.
                Value::Object(o) if o.contains_key("code") && o.contains_key("message") => {}
                _ => self.error_at(start, format!("`{key}` must be an array")),
            }
        }
        if recognised {
            let unknown: Vec<&str> = obj
                .keys()
                .map(String::as_str)
                .filter(|k| !KNOWN_KEYS.contains(k) && !LIST_KEYS.iter().any(|(l, _)| l == k))
                .collect();
            if !unknown.is_empty() {
                self.warn(
                    Some(start),
                    format!(
                        "unknown top-level key(s) not scanned: {}",
                        unknown.join(", ")
                    ),
                );
            }
        }
        // A single tool object on its own (a line of a JSON Lines file of tools).
        if !recognised
            && obj.get("name").is_some_and(Value::is_string)
            && (obj.contains_key("inputSchema") || obj.contains_key("description"))
        {
            self.tools(
                std::slice::from_ref(&Value::Object(obj.clone())),
                start,
                end,
                &[start],
                false,
            );
            return;
        }
        if !recognised {
            self.error_at(
                start,
                "unrecognised JSON object: expected `tools`, `resources`, `resourceTemplates`, `prompts`, `serverInfo` or a JSON-RPC response".into(),
            );
        }
    }

    fn tools(&mut self, items: &[Value], start: usize, end: usize, elems: &[usize], again: bool) {
        for (i, item) in items.iter().enumerate() {
            let at = elems.get(i).copied().unwrap_or(start);
            let Some((obj, name)) = self.named(item, "tools", i, at) else {
                continue;
            };
            if again
                && self.out.manifest.tools.iter().any(|t| {
                    t.name == name
                        && t.description.as_deref()
                            == obj.get("description").and_then(Value::as_str)
                })
            {
                continue;
            }
            let line = self.find_name_line(&name, start, end);
            self.check_text_types(obj, &format!("tools[{i}] `{name}`"), at);
            self.out.manifest.tools.push(Tool {
                annotations: obj.get("annotations").cloned().unwrap_or(Value::Null),
                output_schema: obj
                    .get("outputSchema")
                    .or_else(|| obj.get("output_schema"))
                    .cloned()
                    .unwrap_or(Value::Null),
                title: str_field(obj, "title"),
                description: str_field(obj, "description"),
                input_schema: obj
                    .get("inputSchema")
                    .or_else(|| obj.get("input_schema"))
                    .or_else(|| obj.get("parameters"))
                    .cloned()
                    .unwrap_or(Value::Null),
                name,
                line,
            });
        }
    }

    fn resources(
        &mut self,
        key: &str,
        list: List,
        items: &[Value],
        start: usize,
        end: usize,
        elems: &[usize],
    ) {
        for (i, item) in items.iter().enumerate() {
            let at = elems.get(i).copied().unwrap_or(start);
            let Some((obj, name)) = self.named(item, key, i, at) else {
                continue;
            };
            let line = self.find_name_line(&name, start, end);
            self.check_text_types(obj, &format!("{key}[{i}] `{name}`"), at);
            let r = Resource {
                title: str_field(obj, "title"),
                description: str_field(obj, "description"),
                uri: str_field(obj, "uri").or_else(|| str_field(obj, "uriTemplate")),
                name,
                line,
            };
            if list == List::Resources {
                self.out.manifest.resources.push(r);
            } else {
                self.out.manifest.resource_templates.push(r);
            }
        }
    }

    fn prompts(&mut self, items: &[Value], start: usize, end: usize, elems: &[usize]) {
        for (i, item) in items.iter().enumerate() {
            let at = elems.get(i).copied().unwrap_or(start);
            let Some((obj, name)) = self.named(item, "prompts", i, at) else {
                continue;
            };
            let line = self.find_name_line(&name, start, end);
            self.check_text_types(obj, &format!("prompts[{i}] `{name}`"), at);
            let arguments = match obj.get("arguments") {
                Some(Value::Array(args)) => args
                    .iter()
                    .filter_map(Value::as_object)
                    .map(|a| PromptArgument {
                        name: str_field(a, "name").unwrap_or_default(),
                        title: str_field(a, "title"),
                        description: str_field(a, "description"),
                    })
                    .collect(),
                _ => Vec::new(),
            };
            self.out.manifest.prompts.push(Prompt {
                title: str_field(obj, "title"),
                description: str_field(obj, "description"),
                arguments,
                name,
                line,
            });
        }
    }

    /// A `description` or `title` that is not a string is text the model may still be shown
    /// (clients stringify it) but that no rule reads: an error, so the scan is not SAFE.
    fn check_text_types(&mut self, obj: &Map<String, Value>, what: &str, at: usize) {
        for key in ["description", "title"] {
            match obj.get(key) {
                None | Some(Value::String(_)) | Some(Value::Null) => {}
                Some(v) => {
                    let kind = match v {
                        Value::Bool(_) => "a boolean",
                        Value::Number(_) => "a number",
                        Value::Array(_) => "an array",
                        _ => "an object",
                    };
                    self.error_at(
                        at,
                        format!("{what}: `{key}` is {kind}, not a string; it was not scanned"),
                    );
                }
            }
        }
    }

    /// The object and name of one list entry; anything else is an error naming the entry.
    fn named<'v>(
        &mut self,
        item: &'v Value,
        list: &str,
        index: usize,
        start: usize,
    ) -> Option<(&'v Map<String, Value>, String)> {
        match item {
            Value::Object(obj) => match obj.get("name") {
                Some(Value::String(n)) if !n.is_empty() => Some((obj, n.clone())),
                _ => {
                    self.error_at(start, format!("{list}[{index}] has no `name` string"));
                    None
                }
            },
            _ => {
                self.error_at(start, format!("{list}[{index}] is not an object"));
                None
            }
        }
    }

    /// Line of the next `"name": "<name>"` in this value, searching forward.
    fn find_name_line(&mut self, name: &str, start: usize, end: usize) -> Option<u32> {
        let needle = serde_json::to_string(name).ok()?;
        // Bounded, so names written with other escapes (not found) cannot make this quadratic.
        let from_byte = self.search_from.max(start);
        let to_byte = end.min(from_byte.saturating_add(NAME_SEARCH_WINDOW));
        let hay = self.text.get(from_byte..to_byte)?;
        let mut from = 0;
        while let Some(pos) = hay[from..].find(&needle) {
            let at = from + pos;
            let before = hay[..at].trim_end();
            if let Some(b) = before.strip_suffix(':')
                && b.trim_end().ends_with("\"name\"")
            {
                let abs = from_byte + at;
                self.search_from = abs + needle.len();
                return Some(self.line_of(abs));
            }
            from = at + needle.len();
        }
        None
    }

    fn find_key_line(&mut self, key: &str, start: usize, end: usize) -> Option<u32> {
        let hay = self.text.get(start..end)?;
        let at = hay.find(&format!("\"{key}\""))?;
        Some(self.line_of(start + at))
    }

    /// 1-based line of a byte offset, by binary search over the newline offsets (collected
    /// once), so a manifest of 10,000 tools stays linear whatever the key order.
    fn line_of(&mut self, byte: usize) -> u32 {
        let text = self.text;
        let newlines = self.newlines.get_or_insert_with(|| {
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i)
                .collect()
        });
        (newlines.partition_point(|&nl| nl < byte) + 1) as u32
    }
}

fn str_field(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key).and_then(Value::as_str).map(str::to_string)
}

fn leading_ws(s: &str) -> usize {
    s.len() - s.trim_start().len()
}

/// Byte offset where 1-based line `line + 1` starts.
fn nth_line_start(text: &str, line: usize) -> Option<usize> {
    text.match_indices('\n')
        .nth(line.checked_sub(1)?)
        .map(|(i, _)| i + 1)
}

/// 1-based line and column (characters) of a byte offset.
fn line_col(bytes: &[u8], byte: usize) -> (u32, u32) {
    let byte = byte.min(bytes.len());
    let before = &bytes[..byte];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line as u32, col as u32)
}

/// serde_json appends " at line L column C"; the caller prints its own position.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}
