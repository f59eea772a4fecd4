//! Where the well-known MCP clients keep their server configuration, and reading it.
//!
//! Locations and shapes, as documented (checked November 2026):
//! - **Claude Desktop**: `claude_desktop_config.json` in `~/Library/Application Support/Claude/`
//!   (macOS) and, for the Linux builds, `$XDG_CONFIG_HOME/Claude/` (`~/.config/Claude/`); a
//!   top-level `mcpServers` map of `{command, args, env}`.
//!   <https://modelcontextprotocol.io/quickstart/user>,
//!   <https://raw.githubusercontent.com/confluentinc/mcp-confluent/master/docs/configuring-claude-desktop.md>
//! - **Claude Code**: `~/.claude.json`, whose top-level `mcpServers` is the user scope and whose
//!   `projects["/abs/path"].mcpServers` are the local (per-project, private) scope; `.mcp.json` at
//!   a project's root is the shared project scope. Entries carry `type` (`stdio`, `http`, `sse`),
//!   `command`/`args`/`env` or `url`/`headers`.
//!   <https://docs.anthropic.com/en/docs/claude-code/mcp> (scopes), summarised at
//!   <https://dev.to/aicoding-guide/claude-mcp-add-scope-local-vs-project-vs-user-and-which-to-pick-4ajm>
//! - **Cursor**: `~/.cursor/mcp.json` (global) and `.cursor/mcp.json` (project); `mcpServers` with
//!   `command`/`args`/`env` or `url`/`headers`. <https://cursor.com/docs/mcp>
//! - **VS Code**: `mcp.json` in the user profile folder (`~/.config/Code/User/`,
//!   `~/Library/Application Support/Code/User/`, and `User/profiles/<id>/` for each profile;
//!   Insiders in `Code - Insiders`) and
//!   `.vscode/mcp.json` in the workspace: a top-level `servers` map (`type` `stdio`/`http`/`sse`,
//!   `command`, `args`, `env`, `envFile`, `cwd`, `url`, `headers`) and an `inputs` array whose ids
//!   `${input:id}` references resolve. Older releases kept the same under `"mcp": {servers, inputs}`
//!   in `settings.json`. Both files are JSONC (comments, trailing commas).
//!   <https://code.visualstudio.com/docs/copilot/reference/mcp-configuration>
//! - **Windsurf**: `~/.codeium/windsurf/mcp_config.json`; `mcpServers` with `command`/`args`/`env`,
//!   remote servers under `serverUrl` (+ `headers`), `disabled`.
//!   <https://docs.windsurf.com/windsurf/cascade/mcp>,
//!   <https://raw.githubusercontent.com/github/github-mcp-server/main/docs/installation-guides/install-windsurf.md>
//! - **Gemini CLI**: `~/.gemini/settings.json` and `.gemini/settings.json` in a project, and each
//!   installed extension's `~/.gemini/extensions/<name>/gemini-extension.json`;
//!   `mcpServers` with `command`/`args`/`env`/`cwd`, `url` (SSE) or `httpUrl` (streamable HTTP),
//!   `headers`. <https://github.com/google-gemini/gemini-cli/blob/main/docs/tools/mcp-server.md>

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::jsonc;

/// The operating system whose paths are searched. Both are testable on any host with a fake HOME.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    Linux,
    Macos,
}

impl Platform {
    /// The platform this binary runs on, when it is one whose paths we know.
    pub fn current() -> Option<Platform> {
        if cfg!(target_os = "macos") {
            Some(Platform::Macos)
        } else if cfg!(target_os = "linux") {
            Some(Platform::Linux)
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Client {
    ClaudeDesktop,
    ClaudeCode,
    Cursor,
    Vscode,
    Windsurf,
    GeminiCli,
    /// A configuration file named on the command line whose client is not recognisable.
    Unknown,
}

impl Client {
    pub fn label(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::ClaudeCode => "Claude Code",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Windsurf => "Windsurf",
            Client::GeminiCli => "Gemini CLI",
            Client::Unknown => "MCP client",
        }
    }

    /// The stable id used in JSON output (`claude-desktop`, `vscode`, …).
    pub fn id(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "claude-desktop",
            Client::ClaudeCode => "claude-code",
            Client::Cursor => "cursor",
            Client::Vscode => "vscode",
            Client::Windsurf => "windsurf",
            Client::GeminiCli => "gemini-cli",
            Client::Unknown => "unknown",
        }
    }

    /// Whether the client itself reads the file as JSONC (no warning for comments then).
    fn reads_jsonc(self) -> bool {
        matches!(self, Client::Vscode)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

/// How the client reaches the server. Header and environment *values* are never kept, and
/// credentials in arguments and URLs are masked when read ([`crate::redact`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Transport {
    Stdio {
        command: String,
        args: Vec<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<PathBuf>,
    },
    Remote {
        url: String,
        protocol: RemoteProtocol,
        /// Names of the HTTP headers the client sends (values are credentials).
        header_names: Vec<String>,
    },
}

impl Transport {
    /// The program and its arguments, as one argument vector (stdio servers only).
    pub fn argv(&self) -> Option<Vec<String>> {
        match self {
            Transport::Stdio { command, args, .. } => Some(
                std::iter::once(command.clone())
                    .chain(args.iter().cloned())
                    .collect(),
            ),
            Transport::Remote { .. } => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RemoteProtocol {
    StreamableHttp,
    Sse,
    /// The file does not say; clients try streamable HTTP, then SSE.
    Unspecified,
}

/// One server entry of one configuration file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfiguredServer {
    pub name: String,
    pub client: Client,
    pub config_file: PathBuf,
    pub scope: Scope,
    /// The project the entry applies to: the directory of a project file, or the key of a Claude
    /// Code `projects` section.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<PathBuf>,
    pub transport: Transport,
    /// Names of the environment variables the client sets (values are secrets).
    pub env_names: Vec<String>,
    /// VS Code's `envFile`: a file the client loads more variables from (its path, never read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env_file: Option<PathBuf>,
    /// `${input:id}` ids the entry references (VS Code prompts the user for these).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub input_refs: Vec<String>,
    /// The entry is present but switched off (`"disabled": true`).
    pub disabled: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DiagnosticLevel {
    Warning,
    Error,
}

/// A problem with one configuration file. Messages name keys, never values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigDiagnostic {
    pub level: DiagnosticLevel,
    pub file: PathBuf,
    /// 1-based line and column when the problem is a syntax error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for ConfigDiagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ":{l}:{c}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A configuration file that exists and was read (whether or not it configured anything).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub client: Client,
    pub scope: Scope,
    pub servers: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Discovery {
    pub files: Vec<ConfigFile>,
    pub servers: Vec<ConfiguredServer>,
    pub diagnostics: Vec<ConfigDiagnostic>,
}

impl Discovery {
    fn merge(&mut self, other: Discovery) {
        self.files.extend(other.files);
        self.servers.extend(other.servers);
        self.diagnostics.extend(other.diagnostics);
    }
}

/// Where to look: a HOME, the platform whose paths apply, and the project the user works in.
#[derive(Debug, Clone)]
pub struct DiscoveryContext {
    pub home: PathBuf,
    pub platform: Platform,
    /// `$XDG_CONFIG_HOME` on Linux; `HOME/.config` when unset.
    pub config_home: Option<PathBuf>,
    pub project: Option<PathBuf>,
}

impl DiscoveryContext {
    fn linux_config(&self) -> PathBuf {
        self.config_home
            .clone()
            .unwrap_or_else(|| self.home.join(".config"))
    }

    /// Every well-known file for this platform, with its client and scope, in a fixed order.
    pub fn candidates(&self) -> Vec<(PathBuf, Client, Scope)> {
        let h = &self.home;
        let app_support = h.join("Library/Application Support");
        let mut c = Vec::new();
        let desktop = match self.platform {
            Platform::Macos => app_support.join("Claude"),
            Platform::Linux => self.linux_config().join("Claude"),
        };
        c.push((
            desktop.join("claude_desktop_config.json"),
            Client::ClaudeDesktop,
            Scope::User,
        ));
        c.push((h.join(".claude.json"), Client::ClaudeCode, Scope::User));
        c.push((h.join(".cursor/mcp.json"), Client::Cursor, Scope::User));
        let code_root = match self.platform {
            Platform::Macos => app_support,
            Platform::Linux => self.linux_config(),
        };
        for flavour in ["Code", "Code - Insiders"] {
            let user = code_root.join(flavour).join("User");
            c.push((user.join("mcp.json"), Client::Vscode, Scope::User));
            c.push((user.join("settings.json"), Client::Vscode, Scope::User));
            // Every profile other than the default keeps its own mcp.json.
            for profile in subdirs(&user.join("profiles")) {
                c.push((profile.join("mcp.json"), Client::Vscode, Scope::User));
            }
        }
        c.push((
            h.join(".codeium/windsurf/mcp_config.json"),
            Client::Windsurf,
            Scope::User,
        ));
        c.push((
            h.join(".gemini/settings.json"),
            Client::GeminiCli,
            Scope::User,
        ));
        // Installed extensions bring their own servers.
        // <https://github.com/google-gemini/gemini-cli/blob/main/docs/extensions/index.md>
        for ext in subdirs(&h.join(".gemini/extensions")) {
            c.push((
                ext.join("gemini-extension.json"),
                Client::GeminiCli,
                Scope::User,
            ));
        }
        if let Some(p) = &self.project {
            c.push((p.join(".mcp.json"), Client::ClaudeCode, Scope::Project));
            c.push((p.join(".cursor/mcp.json"), Client::Cursor, Scope::Project));
            c.push((p.join(".vscode/mcp.json"), Client::Vscode, Scope::Project));
            c.push((
                p.join(".vscode/settings.json"),
                Client::Vscode,
                Scope::Project,
            ));
            c.push((
                p.join(".gemini/settings.json"),
                Client::GeminiCli,
                Scope::Project,
            ));
        }
        c
    }
}

/// The subdirectories of `dir`, sorted; none when it does not exist.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Reads every well-known configuration file that exists under the context and parses all the
/// servers they configure. Missing files are not an error; unreadable or malformed ones are
/// diagnostics, and the rest are still read.
pub fn discover(ctx: &DiscoveryContext) -> Discovery {
    let mut out = Discovery::default();
    for (path, client, scope) in ctx.candidates() {
        match std::fs::metadata(&path) {
            Ok(m) if m.is_file() => {}
            Ok(_) => continue,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                out.diagnostics
                    .push(diag(&path, format!("cannot read: {e}")));
                continue;
            }
        }
        // The project file and the user file are the same when the project is HOME.
        if out.files.iter().any(|f| f.path == path) {
            continue;
        }
        out.merge(read_config(&path, client, scope));
    }
    out
}

/// Reads one configuration file named by the user; the client is guessed from its path.
pub fn read_named_config(path: &Path) -> Discovery {
    let (client, scope) = guess_client(path);
    read_config(path, client, scope)
}

/// The client and scope a file's path suggests.
pub fn guess_client(path: &Path) -> (Client, Scope) {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let parent = path
        .parent()
        .and_then(|p| p.file_name())
        .and_then(|n| n.to_str())
        .unwrap_or("");
    let s = path.to_string_lossy();
    match (name, parent) {
        ("claude_desktop_config.json", _) => (Client::ClaudeDesktop, Scope::User),
        (".claude.json", _) => (Client::ClaudeCode, Scope::User),
        (".mcp.json", _) => (Client::ClaudeCode, Scope::Project),
        ("mcp.json", ".cursor") => (Client::Cursor, Scope::Project),
        ("mcp.json" | "settings.json", ".vscode") => (Client::Vscode, Scope::Project),
        ("mcp.json" | "settings.json", "User") if s.contains("Code") => {
            (Client::Vscode, Scope::User)
        }
        ("mcp_config.json", "windsurf") => (Client::Windsurf, Scope::User),
        ("settings.json", ".gemini") => (Client::GeminiCli, Scope::Project),
        ("gemini-extension.json", _) => (Client::GeminiCli, Scope::User),
        _ => (Client::Unknown, Scope::Project),
    }
}

fn diag(file: &Path, message: String) -> ConfigDiagnostic {
    ConfigDiagnostic {
        level: DiagnosticLevel::Error,
        file: file.to_path_buf(),
        line: None,
        column: None,
        message,
    }
}

fn warn(file: &Path, message: String) -> ConfigDiagnostic {
    ConfigDiagnostic {
        level: DiagnosticLevel::Warning,
        ..diag(file, message)
    }
}

/// Configuration files are small; anything bigger is not one.
const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// Reads and parses one file as `client`'s configuration at `scope`.
pub fn read_config(path: &Path, client: Client, scope: Scope) -> Discovery {
    let mut out = Discovery::default();
    let text = match std::fs::metadata(path) {
        Ok(m) if m.len() > MAX_CONFIG_BYTES => {
            out.diagnostics.push(diag(
                path,
                format!(
                    "{} bytes, more than the {MAX_CONFIG_BYTES} a configuration file may have; not read",
                    m.len()
                ),
            ));
            return out;
        }
        _ => match std::fs::read(path) {
            Ok(b) => b,
            Err(e) => {
                out.diagnostics
                    .push(diag(path, format!("cannot read: {e}")));
                return out;
            }
        },
    };
    let text = match String::from_utf8(text) {
        Ok(t) => t,
        Err(_) => {
            out.diagnostics
                .push(diag(path, "not UTF-8 text; not read".to_string()));
            return out;
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let root = match serde_json::from_str::<Value>(text) {
        Ok(v) => v,
        Err(strict) => {
            let (lenient, found) = jsonc::strip(text);
            match serde_json::from_str::<Value>(&lenient) {
                Ok(v) if found.any() => {
                    if !client.reads_jsonc() {
                        let what = match (found.comments, found.trailing_commas) {
                            (true, true) => "comments and trailing commas",
                            (true, false) => "comments",
                            _ => "trailing commas",
                        };
                        out.diagnostics.push(ConfigDiagnostic {
                            line: Some(strict.line()),
                            column: Some(strict.column()),
                            ..warn(
                                path,
                                format!(
                                    "not strict JSON ({what}); read leniently, but {} may reject this file",
                                    client.label()
                                ),
                            )
                        });
                    }
                    v
                }
                Ok(v) => v,
                Err(e) => {
                    // serde_json's syntax errors name positions, never the text at them.
                    out.diagnostics.push(ConfigDiagnostic {
                        line: Some(e.line()),
                        column: Some(e.column()),
                        ..diag(
                            path,
                            format!(
                                "not valid JSON{}: {}",
                                if client.reads_jsonc() { "C" } else { "" },
                                syntax_only(&e)
                            ),
                        )
                    });
                    return out;
                }
            }
        }
    };
    let before = out.servers.len();
    parse_root(path, client, scope, &root, &mut out);
    out.files.push(ConfigFile {
        path: path.to_path_buf(),
        client,
        scope,
        servers: out.servers.len() - before,
    });
    out
}

/// serde_json's message without its trailing " at line L column C" (we print those ourselves).
fn syntax_only(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

fn parse_root(path: &Path, client: Client, scope: Scope, root: &Value, out: &mut Discovery) {
    let Some(obj) = root.as_object() else {
        out.diagnostics.push(diag(
            path,
            format!(
                "the top level is {}, not an object; no servers read",
                kind_of(root)
            ),
        ));
        return;
    };
    let project = match scope {
        Scope::Project => project_of(path),
        Scope::User => None,
    };
    let mut found_key = false;
    let inputs = declared_inputs(path, obj, out);
    for key in ["mcpServers", "servers"] {
        if let Some(v) = obj.get(key) {
            found_key = true;
            parse_servers(path, client, scope, project.clone(), key, v, &inputs, out);
        }
    }
    // VS Code's settings.json before mcp.json existed: "mcp": { "servers": {...}, "inputs": [...] }.
    if let Some(mcp) = obj.get("mcp").and_then(Value::as_object)
        && let Some(v) = mcp.get("servers")
    {
        found_key = true;
        let inputs = declared_inputs(path, mcp, out);
        parse_servers(
            path,
            client,
            scope,
            project.clone(),
            "mcp.servers",
            v,
            &inputs,
            out,
        );
    }
    // Claude Code's private per-project sections.
    if let Some(projects) = obj.get("projects") {
        match projects.as_object() {
            Some(projects) => {
                for (dir, section) in projects {
                    if let Some(v) = section.get("mcpServers") {
                        found_key = true;
                        let at = format!("projects[{dir:?}].mcpServers");
                        parse_servers(
                            path,
                            client,
                            Scope::Project,
                            Some(PathBuf::from(dir)),
                            &at,
                            v,
                            &[],
                            out,
                        );
                    }
                }
            }
            None if client == Client::ClaudeCode => out.diagnostics.push(diag(
                path,
                format!(
                    "`projects` is {}, not an object; skipped",
                    kind_of(projects)
                ),
            )),
            None => {}
        }
    }
    // A settings file without MCP servers is normal; a file whose only job is MCP is not.
    let mcp_only = matches!(
        path.file_name().and_then(|n| n.to_str()),
        Some("mcp.json" | ".mcp.json" | "mcp_config.json" | "claude_desktop_config.json")
    );
    if !found_key && (mcp_only || client == Client::Unknown) {
        out.diagnostics.push(warn(
            path,
            "no `mcpServers`, `servers` or `mcp.servers` key; no servers read".to_string(),
        ));
    }
}

fn project_of(path: &Path) -> Option<PathBuf> {
    let dir = path.parent()?;
    let name = dir.file_name().and_then(|n| n.to_str());
    if matches!(name, Some(".cursor" | ".vscode" | ".gemini")) {
        dir.parent().map(Path::to_path_buf)
    } else {
        Some(dir.to_path_buf())
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn declared_inputs(path: &Path, obj: &Map<String, Value>, out: &mut Discovery) -> Vec<String> {
    let Some(inputs) = obj.get("inputs") else {
        return Vec::new();
    };
    let Some(arr) = inputs.as_array() else {
        out.diagnostics.push(warn(
            path,
            format!("`inputs` is {}, not an array; ignored", kind_of(inputs)),
        ));
        return Vec::new();
    };
    arr.iter()
        .filter_map(|i| i.get("id").and_then(Value::as_str).map(str::to_string))
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn parse_servers(
    path: &Path,
    client: Client,
    scope: Scope,
    project: Option<PathBuf>,
    at: &str,
    v: &Value,
    inputs: &[String],
    out: &mut Discovery,
) {
    let Some(map) = v.as_object() else {
        out.diagnostics.push(diag(
            path,
            format!("`{at}` is {}, not an object; no servers read", kind_of(v)),
        ));
        return;
    };
    for (name, entry) in map {
        let mut problems = Vec::new();
        match parse_entry(client, entry, &mut problems) {
            Some(parsed) => {
                for p in &problems {
                    out.diagnostics
                        .push(warn(path, format!("server {name:?} in `{at}`: {p}")));
                }
                let undeclared: Vec<&String> = parsed
                    .input_refs
                    .iter()
                    .filter(|r| !inputs.is_empty() && !inputs.contains(r))
                    .collect();
                for r in undeclared {
                    out.diagnostics.push(warn(
                        path,
                        format!("server {name:?} in `{at}`: references ${{input:{r}}}, which `inputs` does not declare"),
                    ));
                }
                out.servers.push(ConfiguredServer {
                    name: name.clone(),
                    client,
                    config_file: path.to_path_buf(),
                    scope,
                    project: project.clone(),
                    transport: parsed.transport,
                    env_names: parsed.env_names,
                    env_file: parsed.env_file,
                    input_refs: parsed.input_refs,
                    disabled: parsed.disabled,
                });
            }
            None => out.diagnostics.push(diag(
                path,
                format!(
                    "server {name:?} in `{at}`: {}; not scanned",
                    problems.join("; ")
                ),
            )),
        }
    }
}

struct ParsedEntry {
    transport: Transport,
    env_names: Vec<String>,
    env_file: Option<PathBuf>,
    input_refs: Vec<String>,
    disabled: bool,
}

/// One server entry. `None` (with the reason in `problems`) when it names no way to reach a
/// server; `problems` also collects what was ignored from a usable entry.
fn parse_entry(client: Client, entry: &Value, problems: &mut Vec<String>) -> Option<ParsedEntry> {
    let Some(obj) = entry.as_object() else {
        problems.push(format!("the entry is {}, not an object", kind_of(entry)));
        return None;
    };
    let mut input_refs = BTreeSet::new();
    collect_input_refs(entry, &mut input_refs);
    let declared_type = obj.get("type").and_then(Value::as_str);
    let command = obj.get("command");
    let url_key = ["url", "serverUrl", "httpUrl"]
        .into_iter()
        .find(|k| obj.contains_key(*k));
    let transport = match (command, url_key) {
        (Some(cmd), _) => {
            let Some(cmd) = cmd.as_str().filter(|c| !c.trim().is_empty()) else {
                problems.push(format!(
                    "`command` is {}, not a non-empty string",
                    kind_of(cmd)
                ));
                return None;
            };
            if url_key.is_some() {
                problems.push("has both `command` and a URL; the command is used".to_string());
            }
            let args = match obj.get("args") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(a)) => {
                    let mut args = Vec::with_capacity(a.len());
                    for (i, x) in a.iter().enumerate() {
                        match x {
                            Value::String(s) => args.push(s.clone()),
                            Value::Number(n) => args.push(n.to_string()),
                            Value::Bool(b) => args.push(b.to_string()),
                            other => {
                                problems.push(format!(
                                    "`args[{i}]` is {}, not a string",
                                    kind_of(other)
                                ));
                                return None;
                            }
                        }
                    }
                    args
                }
                Some(other) => {
                    problems.push(format!("`args` is {}, not an array", kind_of(other)));
                    return None;
                }
            };
            let cwd = match obj.get("cwd") {
                Some(Value::String(s)) => Some(PathBuf::from(s)),
                None | Some(Value::Null) => None,
                Some(other) => {
                    problems.push(format!(
                        "`cwd` is {}, not a string; ignored",
                        kind_of(other)
                    ));
                    None
                }
            };
            Transport::Stdio {
                command: cmd.to_string(),
                args: crate::redact::args(args),
                cwd,
            }
        }
        (None, Some(key)) => {
            let Some(url) = obj.get(key).and_then(Value::as_str) else {
                problems.push(format!("`{key}` is not a string"));
                return None;
            };
            let protocol = match (key, declared_type) {
                ("httpUrl", _) => RemoteProtocol::StreamableHttp,
                (_, Some("http" | "streamable-http" | "streamableHttp")) => {
                    RemoteProtocol::StreamableHttp
                }
                (_, Some("sse")) => RemoteProtocol::Sse,
                // Gemini CLI reads a bare `url` as SSE (`httpUrl` is its streamable HTTP).
                ("url", None) if client == Client::GeminiCli => RemoteProtocol::Sse,
                _ => RemoteProtocol::Unspecified,
            };
            Transport::Remote {
                url: crate::redact::url(url),
                protocol,
                header_names: names_of(obj.get("headers"), "headers", problems),
            }
        }
        (None, None) => {
            problems.push("neither `command` nor `url`/`serverUrl`/`httpUrl`".to_string());
            return None;
        }
    };
    let env_file = obj
        .get("envFile")
        .and_then(Value::as_str)
        .map(PathBuf::from);
    Some(ParsedEntry {
        transport,
        env_names: names_of(obj.get("env"), "env", problems),
        env_file,
        input_refs: input_refs.into_iter().collect(),
        disabled: obj.get("disabled").and_then(Value::as_bool) == Some(true),
    })
}

/// The keys of an `env`/`headers` object; values are read only to find `${input:…}` references.
fn names_of(v: Option<&Value>, what: &str, problems: &mut Vec<String>) -> Vec<String> {
    match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => m.keys().cloned().collect(),
        Some(other) => {
            problems.push(format!(
                "`{what}` is {}, not an object; ignored",
                kind_of(other)
            ));
            Vec::new()
        }
    }
}

fn collect_input_refs(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            let mut rest = s.as_str();
            while let Some(i) = rest.find("${input:") {
                rest = &rest[i + "${input:".len()..];
                if let Some(end) = rest.find('}') {
                    out.insert(rest[..end].to_string());
                    rest = &rest[end..];
                } else {
                    break;
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_input_refs(x, out)),
        Value::Object(m) => m.values().for_each(|x| collect_input_refs(x, out)),
        _ => {}
    }
}

/// `https://user:token@host/…` → `https://user:***@host/…`: a password in a URL is a credential.
pub fn redact_userinfo(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    match authority.rsplit_once('@') {
        Some((userinfo, host)) => {
            let user = userinfo.split(':').next().unwrap_or("");
            let masked = if userinfo.contains(':') {
                format!("{user}:***")
            } else {
                "***".to_string()
            };
            format!("{scheme}://{masked}@{host}{}", &rest[end..])
        }
        None => url.to_string(),
    }
}
