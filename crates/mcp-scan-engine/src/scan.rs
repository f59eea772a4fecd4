//! `mcp-scan scan`: targets into servers, every witness that applies run on each server, one
//! report scored across witnesses.
//!
//! For each server:
//! - **description** rules on every declared text: the source's docstrings and `description=`
//!   (with the static witness), and the live listing when the server runs or is listed;
//! - **static** analysis of its source: a directory target, the folder of the script a launch
//!   command runs (`python srv/server.py` → `srv/`), or a source folder the caller fetched
//!   ([`ConfiguredServer::source`], e.g. a registry package unpacked by `mcp-scan-clients`);
//! - the **LLM** alignment check over the static summaries when a provider is configured;
//! - **runtime** analysis only with `--run` (running a server is the user's decision, even
//!   sandboxed); a remote URL is only listed (manifest-only check), never called.
//!
//! Environment values from client configurations are secrets: a [`ConfiguredServer`] carries
//! the variable names only, the report shows names, and the sandbox never receives the values
//! (it gives the server its own persona's environment).

use crate::identity::{self, ServerIdentity};
use crate::{EngineError, runtime, scorer, source};
use mcp_scan_core::{
    Analyzer, AnalyzerState, AnalyzerStatus, Coverage, Diagnostic, DiagnosticLevel, EntityKind,
    EntityReport, Report, ScanInfo, ServerReport, ToolRef, ToolStatus,
};
use mcp_scan_dynamic::{DynamicOptions, RemoteOptions, RemoteTransport};
use mcp_scan_lang::DiscoverOptions;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// One thing the user asked to scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A server's source tree (or one file).
    Directory(PathBuf),
    /// A launch command (`-- python server.py`).
    Command(Vec<String>),
    /// A remote server's URL (manifest-only).
    Url(String),
    /// An MCP client configuration file (`{"mcpServers": {...}}`).
    Config(PathBuf),
    /// A server's manifest (a `tools/list` result, a tools array, ...): the description witness.
    Manifest(PathBuf),
}

impl Target {
    /// A positional argument: a URL; a JSON file that declares `mcpServers` (or VS Code's
    /// `servers`) is a client configuration, any other JSON or JSON Lines file a manifest;
    /// anything else a source path.
    pub fn parse(arg: &str) -> Target {
        let path = Path::new(arg);
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if arg.starts_with("http://") || arg.starts_with("https://") {
            Target::Url(arg.to_string())
        } else if path.is_file() && matches!(ext.as_deref(), Some("json" | "jsonl")) {
            if is_client_config(path) {
                Target::Config(PathBuf::from(arg))
            } else {
                Target::Manifest(PathBuf::from(arg))
            }
        } else {
            Target::Directory(PathBuf::from(arg))
        }
    }

    fn shown(&self) -> String {
        match self {
            Target::Directory(p) | Target::Config(p) | Target::Manifest(p) => {
                p.display().to_string()
            }
            Target::Command(c) => c.join(" "),
            Target::Url(u) => u.clone(),
        }
    }
}

/// How a configured server is started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launch {
    /// A local process over stdio: program, arguments, working directory.
    Command {
        command: Vec<String>,
        cwd: Option<PathBuf>,
    },
    /// A remote server (streamable HTTP, or the legacy SSE transport).
    Url { url: String, sse: bool },
}

/// A server as a client configuration declares it. This is the shape `mcp-scan-clients`
/// discovery yields (one per configured server); `scan` takes a list of them. It never holds an
/// environment or header *value*.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredServer {
    /// The key the user gave it in the configuration.
    pub name: String,
    /// The client whose configuration it is (`claude-desktop`, `cursor`, …), when known.
    pub client: Option<String>,
    /// The configuration file it came from.
    pub config: PathBuf,
    pub launch: Launch,
    /// Names of the environment variables the configuration sets.
    pub env_names: Vec<String>,
    /// Its source, when the caller has it (a registry package fetched and unpacked); otherwise
    /// the engine looks for the script the launch command runs.
    pub source: Option<PathBuf>,
    /// Why the caller could not get its source (a fetch that failed, a container image): the
    /// static witness is then INCOMPLETE with this reason, never silently absent.
    pub source_gap: Option<String>,
}

/// Everything `scan` needs besides the targets.
#[derive(Debug, Clone)]
pub struct ScanOptions {
    /// Run local servers in the sandbox (`--run`).
    pub run: bool,
    /// Source discovery (include/exclude globs, size cap).
    pub discover: DiscoverOptions,
    /// The runtime witness's settings; `command` is replaced per server.
    pub dynamic: DynamicOptions,
    /// LLM provider flags (the check runs when a provider is configured).
    pub llm: mcp_scan_llm::LlmArgs,
    /// `--server-name`: only with a single server.
    pub server_name: Option<String>,
    /// Rule selection, inline suppression and the baseline (`mcp-scan.toml`, `--baseline`).
    pub policy: crate::suppress::Policy,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            run: false,
            discover: DiscoverOptions::default(),
            dynamic: DynamicOptions::new(Vec::new()),
            llm: mcp_scan_llm::LlmArgs::default(),
            server_name: None,
            policy: crate::suppress::Policy::default(),
        }
    }
}

/// The scored report and what the caller should print on stderr.
pub struct ScanOutcome {
    pub report: Report,
    /// One line each: LLM statistics, second-run notes, warnings.
    pub messages: Vec<String>,
}

/// One server to scan, with everything known about it.
#[derive(Debug, Clone, Default)]
struct ServerSpec {
    user_name: Option<String>,
    source: Option<PathBuf>,
    command: Option<Vec<String>>,
    cwd: Option<PathBuf>,
    url: Option<(String, bool)>,
    manifest: Option<PathBuf>,
    origin: Vec<String>,
    env_names: Vec<String>,
    source_gap: Option<String>,
}

/// Whether a JSON file is a client configuration (a `mcpServers` or `servers` object).
fn is_client_config(path: &Path) -> bool {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .is_some_and(|v| {
            v.get("mcpServers").is_some_and(|x| x.is_object())
                || v.get("servers").is_some_and(|x| x.is_object())
        })
}

/// Reads an MCP client configuration: `{"mcpServers": {...}}` (Claude Desktop, Cursor, Claude
/// Code `.mcp.json`, Windsurf, Gemini CLI) or VS Code's `{"servers": {...}}`.
pub fn read_config(path: &Path) -> Result<Vec<ConfiguredServer>, EngineError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| EngineError::Target(format!("cannot read {}: {e}", path.display())))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        EngineError::Target(format!(
            "{}:{}:{}: not a JSON client configuration: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    let servers = json
        .get("mcpServers")
        .or_else(|| json.get("servers"))
        .and_then(|v| v.as_object())
        .ok_or_else(|| {
            EngineError::Target(format!(
                "{}: no `mcpServers` (or `servers`) object: not an MCP client configuration",
                path.display()
            ))
        })?;
    let base = path.parent().unwrap_or(Path::new("."));
    let mut out = Vec::new();
    for (name, entry) in servers {
        let str_of = |k: &str| entry.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let launch = if let Some(url) = str_of("url").or_else(|| str_of("serverUrl")) {
            let sse = str_of("type").or_else(|| str_of("transport")).as_deref() == Some("sse")
                || url.trim_end_matches('/').ends_with("/sse");
            Launch::Url { url, sse }
        } else if let Some(program) = str_of("command") {
            let mut command = vec![program];
            if let Some(args) = entry.get("args").and_then(|v| v.as_array()) {
                command.extend(args.iter().filter_map(|a| a.as_str()).map(str::to_string));
            }
            Launch::Command {
                command,
                cwd: str_of("cwd").map(|c| base.join(c)),
            }
        } else {
            return Err(EngineError::Target(format!(
                "{}: server `{name}` has neither `command` nor `url`",
                path.display()
            )));
        };
        let mut env_names: Vec<String> = entry
            .get("env")
            .and_then(|v| v.as_object())
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default();
        env_names.sort();
        out.push(ConfiguredServer {
            name: name.clone(),
            client: None,
            config: path.to_path_buf(),
            launch,
            env_names,
            source: None,
            source_gap: None,
        });
    }
    Ok(out)
}

/// The source folder a launch command runs from: the folder of the first argument that is an
/// existing source file (`python srv/server.py`, `node build/index.js`), resolved from `cwd`.
pub fn command_source(command: &[String], cwd: Option<&Path>) -> Option<PathBuf> {
    const SOURCE_EXT: [&str; 7] = ["py", "js", "mjs", "cjs", "ts", "go", "pyw"];
    command.iter().skip(1).find_map(|a| {
        let p = match cwd {
            Some(c) if Path::new(a).is_relative() => c.join(a),
            _ => PathBuf::from(a),
        };
        let is_source = p
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCE_EXT.contains(&e));
        (is_source && p.is_file()).then(|| p.parent().map(Path::to_path_buf))?
    })
}

fn specs_from(
    targets: &[Target],
    configured: &[ConfiguredServer],
) -> Result<Vec<ServerSpec>, EngineError> {
    let mut specs: Vec<ServerSpec> = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut from_configs: Vec<ConfiguredServer> = configured.to_vec();
    for t in targets {
        match t {
            Target::Directory(d) => dirs.push(d.clone()),
            Target::Command(c) => specs.push(ServerSpec {
                source: command_source(c, None),
                command: Some(c.clone()),
                origin: vec![format!("command {}", c.join(" "))],
                ..Default::default()
            }),
            Target::Url(u) => specs.push(ServerSpec {
                url: Some((u.clone(), u.trim_end_matches('/').ends_with("/sse"))),
                origin: vec![format!("url {}", redact_url(u))],
                ..Default::default()
            }),
            Target::Config(p) => from_configs.extend(read_config(p)?),
            Target::Manifest(p) => specs.push(ServerSpec {
                manifest: Some(p.clone()),
                origin: vec![format!("manifest {}", p.display())],
                ..Default::default()
            }),
        }
    }
    for c in from_configs {
        let mut spec = ServerSpec {
            user_name: Some(c.name.clone()),
            env_names: c.env_names.clone(),
            origin: vec![match &c.client {
                Some(client) => format!("config {} ({client})", c.config.display()),
                None => format!("config {}", c.config.display()),
            }],
            ..Default::default()
        };
        match &c.launch {
            Launch::Command { command, cwd } => {
                spec.source = c
                    .source
                    .clone()
                    .or_else(|| command_source(command, cwd.as_deref()));
                if spec.source.is_none() {
                    spec.source_gap = c.source_gap.clone();
                }
                spec.command = Some(command.clone());
                spec.cwd = cwd.clone();
            }
            Launch::Url { url, sse } => spec.url = Some((url.clone(), *sse)),
        }
        specs.push(spec);
    }
    // A directory holding the script a launch command runs is that server's source.
    for d in dirs {
        let canon = d.canonicalize().unwrap_or_else(|_| d.clone());
        let owner = specs.iter_mut().find(|s| {
            s.source
                .as_ref()
                .and_then(|src| src.canonicalize().ok())
                .is_some_and(|src| src.starts_with(&canon))
        });
        match owner {
            Some(s) => {
                s.source = Some(d.clone());
                s.origin.insert(0, format!("directory {}", d.display()));
            }
            None => specs.push(ServerSpec {
                source: Some(d.clone()),
                origin: vec![format!("directory {}", d.display())],
                ..Default::default()
            }),
        }
    }
    Ok(specs)
}

/// A URL as it may be shown: without user info or query (both can carry credentials).
fn redact_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let rest = match rest.split_once('/') {
        Some((auth, path)) => format!("{}/{path}", auth.rsplit_once('@').map_or(auth, |(_, h)| h)),
        None => rest.rsplit_once('@').map_or(rest, |(_, h)| h).to_string(),
    };
    if scheme.is_empty() {
        rest
    } else {
        format!("{scheme}://{rest}")
    }
}

/// Scans every target and configured server; one report, scored across witnesses.
pub fn scan(
    targets: &[Target],
    configured: &[ConfiguredServer],
    opts: &ScanOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ScanOutcome, EngineError> {
    let specs = specs_from(targets, configured)?;
    if specs.is_empty() {
        return Err(EngineError::Target(
            "nothing to scan: give a source directory, a client configuration file, a URL or a \
             launch command after --"
                .into(),
        ));
    }
    if opts.server_name.is_some() && specs.len() > 1 {
        return Err(EngineError::Target(
            "--server-name names one server, but the targets are several servers".into(),
        ));
    }
    let llm = mcp_scan_llm::resolve(&opts.llm, env).map_err(mcp_scan_llm::LlmError::from)?;
    let mut shown: Vec<String> = targets.iter().map(Target::shown).collect();
    shown.extend(
        configured
            .iter()
            .map(|c| format!("{} ({})", c.name, c.config.display())),
    );
    let mut report = Report::new(ScanInfo {
        command: "scan".into(),
        targets: shown,
        analyzers: Vec::new(),
    });
    let mut messages = Vec::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    for spec in &specs {
        let part = scan_server(spec, opts, llm.as_ref(), &mut messages)?;
        let mut name = part.server.name.clone();
        // Two servers never share a name: their findings would read as one server's.
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{}~{n}", part.server.name);
            n += 1;
        }
        names.insert(name.clone());
        absorb(&mut report, part, &name);
    }
    scorer::merge_report(&mut report);
    crate::suppress::apply(&mut report, &opts.policy);
    scorer::score_trust(&mut report);
    Ok(ScanOutcome { report, messages })
}

/// One server's report before it joins the others.
struct ServerPart {
    server: ServerReport,
    report: Report,
}

fn scan_server(
    spec: &ServerSpec,
    opts: &ScanOptions,
    llm: Option<&mcp_scan_llm::LlmSettings>,
    messages: &mut Vec<String>,
) -> Result<ServerPart, EngineError> {
    let mut ident = ServerIdentity {
        origin: spec.origin.clone(),
        ..Default::default()
    };
    let mut notes: Vec<String> = Vec::new();
    let mut witnesses: Vec<AnalyzerStatus> = Vec::new();

    // Static + description over the source, and the LLM over its summaries.
    let mut statics: Option<Report> = None;
    if let Some(src) = &spec.source {
        let mut r = source::build_report(src, opts.discover.clone(), None)?;
        rebase_locations(&mut r, src);
        if let Some(settings) = llm {
            let outcome = mcp_scan_llm::check_blocking(settings, &r.behaviors)?;
            mcp_scan_llm::apply_to_report(&mut r, &outcome);
            messages.extend(outcome.warnings.iter().map(|w| format!("warning: {w}")));
            messages.push(format!("llm {}", outcome.summary("tool(s)")));
        }
        statics = Some(r);
    } else if let Some(reason) = &spec.source_gap {
        notes.push(format!("static: not run: {reason}"));
    } else {
        notes.push(match (&spec.command, &spec.url) {
            (_, Some(_)) => "static: not run: a remote server's source is not available".into(),
            (Some(c), _) => format!(
                "static: not run: no source for `{}` (no local script in the command; a \
                 registry package's source is fetched by the client discovery)",
                c.join(" ")
            ),
            _ if spec.manifest.is_some() => "static: not run: a manifest carries no source".into(),
            _ => "static: not run: no source".into(),
        });
    }
    if statics.is_some() && llm.is_none() {
        notes.push("llm: not run: no LLM provider configured".into());
    }

    // A manifest: the description witness over its declared texts.
    let mut manifest_name = None::<String>;
    let mut listed: Option<Report> = None;
    if let Some(m) = &spec.manifest {
        let file = m.display().to_string();
        let scanned = crate::manifest::build_report(std::slice::from_ref(&file))?;
        manifest_name = scanned
            .report
            .entities
            .first()
            .map(|e| e.target.server.clone());
        listed = Some(scanned.report);
    }

    // Runtime: only with --run; a URL is only listed.
    let mut failed: Vec<AnalyzerStatus> = Vec::new();
    let mut live: Option<Report> = None;
    let mut announced: Option<String> = None;
    if let Some((url, sse)) = &spec.url {
        let remote = RemoteOptions {
            url: url.clone(),
            transport: if *sse {
                RemoteTransport::Sse
            } else {
                RemoteTransport::StreamableHttp
            },
            headers: Vec::new(),
            timeout: opts.dynamic.timeout,
            pin_dir: opts.dynamic.pin_dir.clone(),
            accept_changes: opts.dynamic.accept_changes,
            out_dir: None,
        };
        match runtime::run_remote(&remote) {
            Ok(o) => {
                announced = announced_name(&o);
                live = Some(o.report);
            }
            Err(e) => failed.push(AnalyzerStatus::incomplete(
                Analyzer::Runtime,
                format!("the remote listing failed: {e}"),
            )),
        }
    } else if let Some(cmd) = &spec.command {
        if opts.run {
            let mut d = opts.dynamic.clone();
            d.command = cmd.clone();
            if let Some(cwd) = &spec.cwd {
                notes.push(format!(
                    "runtime: the configured working directory {} is not applied in the sandbox \
                     (paths in the command were resolved from it)",
                    cwd.display()
                ));
                d.command = cmd
                    .iter()
                    .enumerate()
                    .map(|(i, a)| {
                        let p = cwd.join(a);
                        if i > 0 && Path::new(a).is_relative() && p.exists() {
                            p.display().to_string()
                        } else {
                            a.clone()
                        }
                    })
                    .collect();
            }
            match runtime::run_command(&d) {
                Ok(o) => {
                    if let Some(t) = &o.tracer {
                        messages.push(format!("note: runtime tracer: {t}"));
                    }
                    if let Some(n) = &o.second_run {
                        messages.push(format!("note: {n}"));
                    }
                    announced = announced_name(&o);
                    live = Some(o.report);
                }
                Err(e @ EngineError::Sandbox(_)) => return Err(e),
                // Asked to run and could not: not known to be safe.
                Err(e) => failed.push(AnalyzerStatus::incomplete(Analyzer::Runtime, e.to_string())),
            }
        } else {
            notes.push("runtime: not run (pass --run to run the server in the sandbox)".into());
        }
    }

    // One name for every witness (identity.rs documents the order).
    ident.server_info = announced;
    ident.name = opts
        .server_name
        .clone()
        .or_else(|| spec.user_name.clone())
        .or_else(|| spec.source.as_deref().map(identity::directory_name))
        .or_else(|| ident.server_info.clone())
        .or(manifest_name)
        .or_else(|| spec.command.as_deref().map(identity::command_name))
        .or_else(|| spec.url.as_ref().map(|(u, _)| identity::url_name(u)))
        .unwrap_or_else(|| "server".into());

    let mut report = Report::new(ScanInfo {
        command: "scan".into(),
        targets: Vec::new(),
        analyzers: Vec::new(),
    });
    let ran_static = statics.is_some();
    let ran_live = live.is_some();
    let live_complete_listing = live.as_ref().is_some_and(|r| {
        r.scan.analyzers.contains(&Analyzer::Runtime)
            && r.entities
                .iter()
                .any(|e| e.target.kind == EntityKind::Server && e.complete())
    });
    for mut part in statics.into_iter().chain(listed).chain(live) {
        identity::rename_server(&mut part, &ident.name);
        merge_into(&mut report, part);
    }
    if ran_static && ran_live {
        cross_check(&mut report, live_complete_listing, &mut notes);
    }
    for a in Analyzer::ALL {
        let on: Vec<&AnalyzerStatus> = report
            .entities
            .iter()
            .flat_map(|e| e.analyzers.iter())
            .filter(|s| s.analyzer == a)
            .collect();
        if on.is_empty() && !report.scan.analyzers.contains(&a) {
            continue;
        }
        witnesses.push(
            match on.iter().find(|s| s.state == AnalyzerState::Incomplete) {
                Some(s) => AnalyzerStatus::incomplete(
                    a,
                    s.reason
                        .clone()
                        .unwrap_or_else(|| "did not complete".into()),
                ),
                None => AnalyzerStatus::complete(a),
            },
        );
    }
    if let Some(reason) = spec.source_gap.as_ref().filter(|_| !ran_static) {
        failed.push(AnalyzerStatus::incomplete(
            Analyzer::Static,
            format!("its source could not be analysed: {reason}"),
        ));
    }
    for f in failed {
        witnesses.retain(|w| w.analyzer != f.analyzer);
        witnesses.push(f);
    }
    let server = ServerReport {
        name: ident.name.clone(),
        origin: ident.origin.clone(),
        env: spec.env_names.clone(),
        server_info: ident.server_info.clone(),
        witnesses,
        notes,
        status: ToolStatus::Incomplete,
        trust: 0,
    };
    Ok(ServerPart { server, report })
}

/// Source paths from the directory mcp-scan ran in (as the user named the source), not from the
/// scanned root: a scan covers several servers, so `server.py` alone would be ambiguous, and
/// SARIF viewers resolve `artifactLocation` from where the tool ran. Fingerprints keep the
/// root-relative path they were computed from.
fn rebase_locations(r: &mut Report, src: &Path) {
    let base = if src.is_file() {
        src.parent().unwrap_or(Path::new(""))
    } else {
        src
    };
    if base.as_os_str().is_empty() || base == Path::new(".") {
        return;
    }
    let fix = |l: &mut mcp_scan_core::SourceLocation| {
        if Path::new(&l.file).is_relative() {
            l.file = base.join(&l.file).display().to_string();
        }
    };
    for e in &mut r.entities {
        for f in &mut e.findings {
            if let Some(l) = &mut f.location {
                fix(l);
            }
            for ev in &mut f.evidence {
                if let mcp_scan_core::Evidence::Source { location, .. } = ev {
                    fix(location);
                }
            }
        }
    }
    for b in &mut r.behaviors {
        fix(&mut b.location);
        for c in &mut b.capabilities {
            fix(&mut c.location);
            c.via.iter_mut().for_each(fix);
        }
        for fl in &mut b.flows {
            for st in &mut fl.path {
                fix(&mut st.location);
            }
        }
    }
    if let Some(c) = &mut r.coverage {
        for g in &mut c.gaps {
            if let Some(f) = &mut g.file {
                *f = base.join(&*f).display().to_string();
            }
        }
    }
}

/// The `serverInfo.name` the server announced in `initialize`, if it got that far.
fn announced_name(o: &mcp_scan_dynamic::DynamicOutcome) -> Option<String> {
    o.exercise
        .server_info
        .as_ref()
        .and_then(|i| i.pointer("/serverInfo/name"))
        .and_then(|v| v.as_str())
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

/// Adds one witness's report to a server's: entities joined on their identity.
fn merge_into(into: &mut Report, part: Report) {
    for a in &part.scan.analyzers {
        if !into.scan.analyzers.contains(a) {
            into.scan.analyzers.push(*a);
        }
    }
    for e in part.entities {
        match into.entities.iter_mut().find(|x| x.target == e.target) {
            Some(x) => {
                if x.declared.is_none() {
                    x.declared = e.declared;
                }
                for st in e.analyzers {
                    match x.analyzers.iter_mut().find(|s| s.analyzer == st.analyzer) {
                        // The same witness twice (description on source and on the live
                        // listing): incomplete if either was.
                        Some(s) => {
                            if st.state == AnalyzerState::Incomplete {
                                *s = st;
                            }
                        }
                        None => x.analyzers.push(st),
                    }
                }
                x.findings.extend(e.findings);
            }
            None => into.entities.push(e),
        }
    }
    into.diagnostics.extend(part.diagnostics);
    into.behaviors.extend(part.behaviors);
    if let Some(c) = part.coverage {
        let acc = into.coverage.get_or_insert_with(Coverage::default);
        for (lang, n) in c.files_by_language {
            *acc.files_by_language.entry(lang).or_default() += n;
        }
        acc.registration_sites += c.registration_sites;
        acc.entities_resolved += c.entities_resolved;
        acc.gaps.extend(c.gaps);
    }
    for layer in part.containment {
        if !into.containment.iter().any(|l| l.layer == layer.layer) {
            into.containment.push(layer);
        }
    }
}

/// Tools the running server listed that static analysis did not find leave the static witness
/// INCOMPLETE for them; tools found in code but not listed are reported (the run never saw or
/// called them).
fn cross_check(report: &mut Report, listing_complete: bool, notes: &mut Vec<String>) {
    let kinds = [EntityKind::Tool, EntityKind::Prompt, EntityKind::Resource];
    let has = |e: &EntityReport, a: Analyzer| e.analyzers.iter().any(|s| s.analyzer == a);
    let mut unlisted: Vec<String> = Vec::new();
    let mut unfound: Vec<String> = Vec::new();
    for e in &mut report.entities {
        if !kinds.contains(&e.target.kind) {
            continue;
        }
        let seen_static = has(e, Analyzer::Static);
        let seen_live = has(e, Analyzer::Runtime);
        if seen_live && !seen_static {
            e.analyzers.push(AnalyzerStatus::incomplete(
                Analyzer::Static,
                "listed by the running server but not found in its source: its code was not \
                 analysed",
            ));
            unfound.push(label(&e.target));
        } else if seen_static && !seen_live && listing_complete {
            e.analyzers.push(AnalyzerStatus::incomplete(
                Analyzer::Runtime,
                "found in the source but not in the running server's listing: the run never \
                 saw or called it",
            ));
            unlisted.push(label(&e.target));
        }
    }
    if !unfound.is_empty() {
        notes.push(format!(
            "coverage: listed by the running server, not found by static analysis (static \
             INCOMPLETE for them): {}",
            unfound.join(", ")
        ));
        report.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Warning,
            file: None,
            line: None,
            column: None,
            message: format!(
                "{}: static analysis did not find {} the server lists: {}",
                report
                    .entities
                    .first()
                    .map(|e| e.target.server.as_str())
                    .unwrap_or("server"),
                if unfound.len() == 1 {
                    "one item"
                } else {
                    "items"
                },
                unfound.join(", ")
            ),
        });
    }
    if !unlisted.is_empty() {
        notes.push(format!(
            "coverage: found in the source, not listed by the running server: {}",
            unlisted.join(", ")
        ));
    }
}

fn label(t: &ToolRef) -> String {
    format!("{} {}", t.kind, t.name)
}

/// Adds a scanned server's report to the whole scan's.
fn absorb(report: &mut Report, mut part: ServerPart, name: &str) {
    if part.server.name != name {
        identity::rename_server(&mut part.report, name);
        part.server.name = name.to_string();
    }
    for a in &part.report.scan.analyzers {
        if !report.scan.analyzers.contains(a) {
            report.scan.analyzers.push(*a);
        }
    }
    merge_into(report, part.report);
    report.servers.push(part.server);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_yields_servers_with_env_names_and_never_values() {
        let dir = tempfile::tempdir().expect("tmp");
        let p = dir.path().join("claude_desktop_config.json");
        std::fs::write(
            &p,
            r#"{"mcpServers": {
                "notes": {"command": "python3", "args": ["srv/notes.py"],
                          "env": {"NOTES_TOKEN": "s3cr3t-value", "A": "b"}},
                "remote": {"url": "https://mcp.example.com/sse"}
            }}"#,
        )
        .expect("write");
        let servers = read_config(&p).expect("parses");
        assert_eq!(servers.len(), 2);
        let notes = servers.iter().find(|s| s.name == "notes").expect("notes");
        assert_eq!(
            notes.env_names,
            vec!["A".to_string(), "NOTES_TOKEN".to_string()]
        );
        assert!(!format!("{servers:?}").contains("s3cr3t-value"));
        let remote = servers.iter().find(|s| s.name == "remote").expect("remote");
        assert!(matches!(&remote.launch, Launch::Url { sse: true, .. }));
    }

    #[test]
    fn a_config_without_servers_is_refused_with_the_file_named() {
        let dir = tempfile::tempdir().expect("tmp");
        let p = dir.path().join("x.json");
        std::fs::write(&p, r#"{"editor.fontSize": 12}"#).expect("write");
        let e = read_config(&p)
            .expect_err("not a client config")
            .to_string();
        assert!(e.contains("x.json") && e.contains("mcpServers"), "{e}");
    }

    #[test]
    fn a_directory_holding_the_commands_script_is_one_server() {
        let dir = tempfile::tempdir().expect("tmp");
        let script = dir.path().join("server.py");
        std::fs::write(&script, "").expect("write");
        let specs = specs_from(
            &[
                Target::Directory(dir.path().to_path_buf()),
                Target::Command(vec!["python3".into(), script.display().to_string()]),
            ],
            &[],
        )
        .expect("specs");
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].source.as_deref(), Some(dir.path()));
        assert!(specs[0].command.is_some());
    }

    #[test]
    fn urls_shown_lose_credentials_and_queries() {
        assert_eq!(
            redact_url("https://u:pw@mcp.example.com/sse?token=abc"),
            "https://mcp.example.com/sse"
        );
    }
}
