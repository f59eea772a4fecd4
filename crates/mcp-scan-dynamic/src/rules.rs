//! Runtime analysis data from `rules/runtime/runtime.toml`: canary files and variables, sensitive
//! and persistence paths, words that declare network or command use, adversarial probes, SQL
//! error signatures. Every rule the analysis reports ([`RuleId`]) has its own file
//! `rules/runtime/R0xx.toml` with the metadata and docs shared by all rule families (title,
//! taxonomy, default severity and confidence come from there).
//! Raw TOML deserialises into `Raw*`; [`RuntimeRules::compile`] validates it.

use mcp_scan_core::Analyzer;
use mcp_scan_rules::{RawRuleMeta, RuleError, RuleMeta, SourceFile};
use regex::Regex;
use serde::Deserialize;
use std::sync::OnceLock;

const RUNTIME_TOML: &str = include_str!("../../../rules/runtime/runtime.toml");
const RUNTIME_PATH: &str = "rules/runtime/runtime.toml";

/// The per-rule files, embedded at build time. A test checks that every `R*.toml` in
/// `rules/runtime/` is listed here.
pub const RULE_FILES: &[(&str, &str)] = &[
    (
        "rules/runtime/R001.toml",
        include_str!("../../../rules/runtime/R001.toml"),
    ),
    (
        "rules/runtime/R002.toml",
        include_str!("../../../rules/runtime/R002.toml"),
    ),
    (
        "rules/runtime/R003.toml",
        include_str!("../../../rules/runtime/R003.toml"),
    ),
    (
        "rules/runtime/R004.toml",
        include_str!("../../../rules/runtime/R004.toml"),
    ),
    (
        "rules/runtime/R005.toml",
        include_str!("../../../rules/runtime/R005.toml"),
    ),
    (
        "rules/runtime/R006.toml",
        include_str!("../../../rules/runtime/R006.toml"),
    ),
    (
        "rules/runtime/R007.toml",
        include_str!("../../../rules/runtime/R007.toml"),
    ),
    (
        "rules/runtime/R008.toml",
        include_str!("../../../rules/runtime/R008.toml"),
    ),
    (
        "rules/runtime/R009.toml",
        include_str!("../../../rules/runtime/R009.toml"),
    ),
    (
        "rules/runtime/R010.toml",
        include_str!("../../../rules/runtime/R010.toml"),
    ),
    (
        "rules/runtime/R011.toml",
        include_str!("../../../rules/runtime/R011.toml"),
    ),
    (
        "rules/runtime/R012.toml",
        include_str!("../../../rules/runtime/R012.toml"),
    ),
    (
        "rules/runtime/R013.toml",
        include_str!("../../../rules/runtime/R013.toml"),
    ),
    (
        "rules/runtime/R014.toml",
        include_str!("../../../rules/runtime/R014.toml"),
    ),
    (
        "rules/runtime/R015.toml",
        include_str!("../../../rules/runtime/R015.toml"),
    ),
    (
        "rules/runtime/R016.toml",
        include_str!("../../../rules/runtime/R016.toml"),
    ),
    (
        "rules/runtime/R017.toml",
        include_str!("../../../rules/runtime/R017.toml"),
    ),
    (
        "rules/runtime/R019.toml",
        include_str!("../../../rules/runtime/R019.toml"),
    ),
];

macro_rules! runtime_rules {
    ($($(#[$doc:meta])* $variant:ident = $id:literal,)*) => {
        /// Every rule the runtime analysis can report. Findings are made only through these, so
        /// [`RuleId::ALL`] is the set of ids the analysis emits; each needs a file in
        /// `rules/runtime/` (checked when the rules compile).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum RuleId {
            $($(#[$doc])* $variant,)*
        }

        impl RuleId {
            pub const ALL: &'static [RuleId] = &[$(RuleId::$variant,)*];

            pub fn id(self) -> &'static str {
                match self {
                    $(RuleId::$variant => $id,)*
                }
            }
        }
    };
}

runtime_rules! {
    /// A canary token in a payload, DNS name, response, written file or argv.
    CanaryLeak = "MCPS-R001",
    /// A sensitive path opened for reading.
    SensitiveRead = "MCPS-R002",
    /// Traffic to anything but the server's own loopback.
    Egress = "MCPS-R003",
    /// A program run during a call.
    Subprocess = "MCPS-R004",
    /// An executable or persistence file planted.
    Dropped = "MCPS-R005",
    /// A command/code injection probe's marker reached execve.
    InjectionExecuted = "MCPS-R006",
    /// The path traversal probe opened /etc/passwd.
    PathTraversal = "MCPS-R007",
    /// The SSRF probe reached the metadata address.
    SsrfMetadata = "MCPS-R008",
    /// A write outside the workspace.
    WriteOutside = "MCPS-R009",
    /// Security-relevant work after the response.
    AfterResponse = "MCPS-R010",
    /// A later valid call did something the first did not.
    LaterCall = "MCPS-R011",
    /// tools/list changed within the session.
    Relisted = "MCPS-R012",
    /// An entity differs from its pin (rug pull; reported by `pins`).
    RugPull = "MCPS-R013",
    /// A SQL probe's answer shows the input reached a SQL parser.
    SqlInjection = "MCPS-R014",
    /// io_uring set up: operations through the ring bypass the tracer.
    IoUring = "MCPS-R015",
    /// A process started by a call was still running when the scan ended.
    OutlivesScan = "MCPS-R016",
    /// Another MCP client's configuration written (client configuration hijack).
    ClientConfig = "MCPS-R017",
    /// Reads only a sandbox detector makes (uid_map, PID 1, TracerPid, the parent's name).
    SandboxProbe = "MCPS-R019",
}

/// One runtime rule: shared metadata and docs, plus the title its findings carry.
#[derive(Debug, Clone)]
pub struct RuntimeRule {
    pub meta: RuleMeta,
    pub title: String,
}

/// A database error message that shows an input reached a SQL parser.
#[derive(Debug, Clone)]
pub struct SqlSignature {
    /// `sqlite`, `postgresql`, `mysql`, …
    pub engine: String,
    pub pattern: Regex,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum RulesError {
    #[error("{file}:{line}: {message}")]
    Invalid {
        file: String,
        line: usize,
        message: String,
    },
    /// A per-rule file (`rules/runtime/R0xx.toml`) that does not load.
    #[error(transparent)]
    Rule(#[from] RuleError),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRules {
    canary_file: Vec<RawTemplate>,
    canary_env: Vec<RawEnv>,
    sensitive: RawSensitive,
    persistence: Vec<RawPersistence>,
    #[serde(default)]
    persistence_command: Vec<RawPersistenceCommand>,
    declared: RawDeclared,
    probe: Vec<RawProbe>,
    sql_error: Vec<RawSqlError>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSqlError {
    engine: String,
    pattern: toml::Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRuleFile {
    rule: toml::Spanned<RawRuleMeta>,
    finding: RawFinding,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFinding {
    title: toml::Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTemplate {
    path: String,
    template: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnv {
    name: String,
    template: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSensitive {
    paths: Vec<String>,
    dirs: Vec<String>,
    #[serde(default)]
    public: Vec<String>,
    http_client_files: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPersistence {
    kind: String,
    what: String,
    paths: Vec<String>,
    #[serde(default)]
    except: Vec<String>,
    #[serde(default)]
    when_contains: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPersistenceCommand {
    program: String,
    what: String,
    #[serde(default)]
    unless_args: Vec<String>,
    #[serde(default)]
    when_args: Vec<String>,
}

/// Which rule reports a write to a persistence location.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PersistKind {
    /// Another MCP client's configuration: client configuration hijack (MCPS-R017).
    ClientConfig,
    /// Something that runs later on its own: start-up files, cron, units, hooks (MCPS-R005).
    Startup,
}

/// A group of persistence locations (`[[persistence]]`).
#[derive(Debug, Clone)]
pub struct PersistGroup {
    pub kind: PersistKind,
    /// What the location is, for the observation ("Cursor's MCP configuration").
    pub what: String,
    /// Patterns (see [`glob_matches`]), `{home}` expanded.
    pub paths: Vec<String>,
    pub except: Vec<String>,
    /// Lowercased: the write counts only when the file left behind holds one of these (a git or
    /// ssh config can hold harmless settings too); when its content is unknown, it counts.
    pub when_contains: Vec<String>,
}

impl PersistGroup {
    pub fn matches(&self, path: &str) -> bool {
        self.paths.iter().any(|p| glob_matches(p, path))
            && !self.except.iter().any(|p| glob_matches(p, path))
    }
}

/// A program whose run installs something that runs later (`crontab FILE`).
#[derive(Debug, Clone)]
pub struct PersistCommand {
    pub program: String,
    pub what: String,
    /// Arguments that make the run harmless (`-l` lists).
    pub unless_args: Vec<String>,
    /// When not empty, one of these must be an argument (`enable` for systemctl).
    pub when_args: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeclared {
    network_words: Vec<String>,
    exec_words: Vec<String>,
    host_suffixes: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProbe {
    name: String,
    kind: String,
    value: String,
}

/// A canary file: path relative to HOME and a template with `{token}` / `{token_upper}`.
#[derive(Debug, Clone)]
pub struct CanaryTemplate {
    pub path: String,
    pub template: String,
}

/// What an adversarial probe tries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeKind {
    Path,
    Command,
    Code,
    Sql,
    /// The quote-free twin of the SQL probe: what a non-matching value returns.
    SqlControl,
    Url,
    Size,
}

#[derive(Debug, Clone)]
pub struct Probe {
    pub name: String,
    pub kind: ProbeKind,
    pub value: String,
}

/// The compiled runtime rules.
#[derive(Debug, Clone)]
pub struct RuntimeRules {
    pub canary_files: Vec<CanaryTemplate>,
    pub canary_env: Vec<(String, String)>,
    pub sensitive_paths: Vec<String>,
    pub sensitive_dirs: Vec<String>,
    /// Files in the sensitive directories that hold nothing secret (public keys, the hosts a
    /// client has seen).
    pub sensitive_public: Vec<String>,
    pub http_client_files: Vec<String>,
    pub persistence: Vec<PersistGroup>,
    pub persistence_commands: Vec<PersistCommand>,
    pub network_words: Vec<String>,
    pub exec_words: Vec<String>,
    /// Top-level domains that make a word of a description a host name (`api.github.com`).
    pub host_suffixes: Vec<String>,
    pub probes: Vec<Probe>,
    pub sql_errors: Vec<SqlSignature>,
    /// In [`RuleId::ALL`] order, one per id (checked by `compile`).
    rules: Vec<RuntimeRule>,
}

impl RuntimeRules {
    /// Parses and validates the data file and the per-rule files, given as (name, text) pairs;
    /// errors carry file and line.
    pub fn compile(
        file: &str,
        text: &str,
        rule_files: &[(&str, &str)],
    ) -> Result<Self, RulesError> {
        let err = |line: usize, message: String| RulesError::Invalid {
            file: file.to_string(),
            line,
            message,
        };
        let line_of = |needle: &str| {
            text.find(needle)
                .map(|i| text[..i].matches('\n').count() + 1)
                .unwrap_or(1)
        };
        let raw: RawRules = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
                .unwrap_or(1);
            err(line, e.message().to_string())
        })?;
        for t in &raw.canary_file {
            if !t.template.contains("{token") {
                return Err(err(
                    line_of(&t.path),
                    format!("canary file `{}` has no {{token}} in its template", t.path),
                ));
            }
            if t.path.starts_with('/') || t.path.contains("..") {
                return Err(err(
                    line_of(&t.path),
                    format!("canary file `{}` must be relative to HOME", t.path),
                ));
            }
        }
        for e in &raw.canary_env {
            if !e.template.contains("{token") {
                return Err(err(
                    line_of(&e.name),
                    format!("canary variable `{}` has no {{token}}", e.name),
                ));
            }
        }
        let mut probes = Vec::new();
        for p in raw.probe {
            let kind = match p.kind.as_str() {
                "path" => ProbeKind::Path,
                "command" => ProbeKind::Command,
                "code" => ProbeKind::Code,
                "sql" => ProbeKind::Sql,
                "sql-control" => ProbeKind::SqlControl,
                "url" => ProbeKind::Url,
                "size" => ProbeKind::Size,
                other => {
                    return Err(err(
                        line_of(&format!("name = \"{}\"", p.name)),
                        format!(
                            "probe `{}` has unknown kind `{other}` (path, command, code, sql, sql-control, url, size)",
                            p.name
                        ),
                    ));
                }
            };
            // The control must not be able to change a query, or comparing with it proves nothing.
            if kind == ProbeKind::SqlControl && p.value.contains(['\'', '"', '`', '\\']) {
                return Err(err(
                    line_of(&format!("name = \"{}\"", p.name)),
                    format!("sql-control probe `{}` must not contain quotes", p.name),
                ));
            }
            if kind == ProbeKind::SqlControl && probes.iter().any(|q: &Probe| q.kind == kind) {
                return Err(err(
                    line_of(&format!("name = \"{}\"", p.name)),
                    format!("a second sql-control probe `{}`: one is compared", p.name),
                ));
            }
            if matches!(kind, ProbeKind::Command | ProbeKind::Code) && !p.value.contains("{probe}")
            {
                return Err(err(
                    line_of(&format!("name = \"{}\"", p.name)),
                    format!("probe `{}` must contain {{probe}} to be detectable", p.name),
                ));
            }
            probes.push(Probe {
                name: p.name,
                kind,
                value: p.value,
            });
        }
        let mut sql_errors = Vec::new();
        for s in raw.sql_error {
            let line = text[..s.pattern.span().start.min(text.len())]
                .matches('\n')
                .count()
                + 1;
            let pattern = Regex::new(s.pattern.get_ref())
                .map_err(|e| err(line, format!("bad sql_error pattern: {e}")))?;
            sql_errors.push(SqlSignature {
                engine: s.engine,
                pattern,
            });
        }
        let mut persistence = Vec::new();
        for g in raw.persistence {
            let kind = match g.kind.as_str() {
                "client-config" => PersistKind::ClientConfig,
                "startup" => PersistKind::Startup,
                other => {
                    return Err(err(
                        line_of(&format!("what = \"{}\"", g.what)),
                        format!(
                            "persistence `{}` has unknown kind `{other}` (client-config, startup)",
                            g.what
                        ),
                    ));
                }
            };
            if let Some(bad) =
                g.paths.iter().chain(&g.except).find(|p| {
                    !(p.starts_with('/') || p.starts_with("{home}/") || p.starts_with("**/"))
                })
            {
                return Err(err(
                    line_of(bad),
                    format!("persistence path `{bad}` must start with /, {{home}}/ or **/"),
                ));
            }
            persistence.push(PersistGroup {
                kind,
                what: g.what,
                paths: home_expanded(g.paths),
                except: home_expanded(g.except),
                when_contains: g.when_contains.iter().map(|w| w.to_lowercase()).collect(),
            });
        }
        let rules = compile_rule_files(rule_files)?;
        let lower = |v: Vec<String>| v.into_iter().map(|w| w.to_lowercase()).collect();
        Ok(RuntimeRules {
            canary_files: raw
                .canary_file
                .into_iter()
                .map(|t| CanaryTemplate {
                    path: t.path,
                    template: t.template,
                })
                .collect(),
            canary_env: raw
                .canary_env
                .into_iter()
                .map(|e| (e.name, e.template))
                .collect(),
            // `{home}` is expanded once here: these are matched against every traced file event.
            sensitive_paths: home_expanded(raw.sensitive.paths),
            sensitive_dirs: home_expanded(raw.sensitive.dirs),
            sensitive_public: home_expanded(raw.sensitive.public),
            http_client_files: home_expanded(raw.sensitive.http_client_files),
            persistence,
            persistence_commands: raw
                .persistence_command
                .into_iter()
                .map(|c| PersistCommand {
                    program: c.program,
                    what: c.what,
                    unless_args: c.unless_args,
                    when_args: c.when_args,
                })
                .collect(),
            network_words: lower(raw.declared.network_words),
            exec_words: lower(raw.declared.exec_words),
            host_suffixes: lower(raw.declared.host_suffixes),
            probes,
            sql_errors,
            rules,
        })
    }

    /// The built-in rules embedded from `rules/runtime/`, compiled once.
    pub fn load() -> Result<&'static RuntimeRules, RulesError> {
        static RULES: OnceLock<Result<RuntimeRules, RulesError>> = OnceLock::new();
        RULES
            .get_or_init(|| RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML, RULE_FILES))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// [`RuntimeRules::load`] for code that runs after a scan has loaded them.
    pub fn builtin() -> &'static RuntimeRules {
        // Embedded data, validated by `embedded_runtime_rules_compile`.
        Self::load().unwrap_or_else(|e| panic!("embedded runtime rules are invalid: {e}"))
    }

    /// The rule behind a finding.
    pub fn rule(&self, id: RuleId) -> &RuntimeRule {
        // `compile` stores exactly one rule per id, in `RuleId::ALL` order.
        &self.rules[id as usize]
    }

    pub fn rules(&self) -> &[RuntimeRule] {
        &self.rules
    }

    /// The first SQL error signature in `text`: the signature and the matched range.
    pub fn sql_error(&self, text: &str) -> Option<(&SqlSignature, std::ops::Range<usize>)> {
        self.sql_errors
            .iter()
            .find_map(|s| s.pattern.find(text).map(|m| (s, m.range())))
    }
}

/// The metadata of every runtime rule, for the rule catalog (`mcp-scan rules`).
pub fn rule_metas() -> Result<Vec<RuleMeta>, RulesError> {
    Ok(RuntimeRules::load()?
        .rules
        .iter()
        .map(|r| r.meta.clone())
        .collect())
}

/// Compiles `rules/runtime/R0xx.toml` files: one per [`RuleId`], file named after its id.
fn compile_rule_files(files: &[(&str, &str)]) -> Result<Vec<RuntimeRule>, RuleError> {
    let mut found: Vec<Option<RuntimeRule>> = vec![None; RuleId::ALL.len()];
    for (name, text) in files {
        let src = SourceFile::new(name, text);
        let raw: RawRuleFile = src.parse()?;
        let span = raw.rule.span();
        let meta = raw
            .rule
            .get_ref()
            .compile(&src, span.clone(), Analyzer::Runtime, "MCPS-R")?;
        let stem = name
            .rsplit('/')
            .next()
            .and_then(|f| f.strip_suffix(".toml"))
            .unwrap_or(name);
        if meta.id.strip_prefix("MCPS-") != Some(stem) {
            return Err(src.error(
                span,
                format!(
                    "rule {} must live in a file named {}.toml",
                    meta.id,
                    &meta.id[5..]
                ),
            ));
        }
        let Some(index) = RuleId::ALL.iter().position(|r| r.id() == meta.id) else {
            return Err(src.error(
                span,
                format!("rule {} is not one the runtime analysis reports", meta.id),
            ));
        };
        if found[index].is_some() {
            return Err(src.error(span, format!("duplicate rule id {}", meta.id)));
        }
        let title = raw.finding.title.get_ref().trim();
        if title.is_empty() {
            return Err(src.error(raw.finding.title.span(), "finding.title must not be empty"));
        }
        found[index] = Some(RuntimeRule {
            meta,
            title: title.to_string(),
        });
    }
    let mut rules = Vec::with_capacity(found.len());
    for (id, rule) in RuleId::ALL.iter().zip(found) {
        let Some(rule) = rule else {
            return Err(RuleError {
                file: format!("rules/runtime/{}.toml", &id.id()[5..]),
                line: 1,
                column: 1,
                message: format!(
                    "missing: the runtime analysis reports {} but no rule file defines it",
                    id.id()
                ),
            });
        };
        rules.push(rule);
    }
    Ok(rules)
}

/// Matches `path` against a pattern where `*` stands for exactly one path component.
pub fn path_matches(pattern: &str, path: &str) -> bool {
    // Without allocating: called for every pattern on every traced file event.
    let mut p = pattern.split('/');
    let mut s = path.split('/');
    loop {
        match (p.next(), s.next()) {
            (None, None) => return true,
            (Some(a), Some(b)) if a == "*" || a == b => {}
            _ => return false,
        }
    }
}

/// Matches `path` against a pattern where `*` stands for any run of characters within one path
/// component (`*.pth`, `python3*`) and a `**` component for any number of components.
pub fn glob_matches(pattern: &str, path: &str) -> bool {
    fn comp(p: &str, s: &str) -> bool {
        match p.split_once('*') {
            None => p == s,
            Some((head, rest)) => {
                let Some(s) = s.strip_prefix(head) else {
                    return false;
                };
                (0..=s.len())
                    .filter(|i| s.is_char_boundary(*i))
                    .any(|i| comp(rest, &s[i..]))
            }
        }
    }
    fn go(p: &[&str], s: &[&str]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some((&"**", rest)) => (0..=s.len()).any(|i| go(rest, &s[i..])),
            Some((head, rest)) => s
                .split_first()
                .is_some_and(|(x, more)| comp(head, x) && go(rest, more)),
        }
    }
    let p: Vec<&str> = pattern.split('/').collect();
    let s: Vec<&str> = path.split('/').collect();
    go(&p, &s)
}

/// Paths with `{home}` replaced by the sandbox's HOME.
fn home_expanded(paths: Vec<String>) -> Vec<String> {
    paths
        .into_iter()
        .map(|p| p.replace("{home}", crate::sandbox::SANDBOX_HOME))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_runtime_rules_compile() {
        let r = RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML, RULE_FILES).expect("valid");
        assert!(r.canary_files.len() >= 11);
        for needed in [
            ".ssh/id_rsa",
            ".ssh/id_ed25519",
            ".aws/credentials",
            ".env",
            ".netrc",
            ".npmrc",
            ".pypirc",
            ".git-credentials",
            ".config/gh/hosts.yml",
            ".kube/config",
            ".docker/config.json",
        ] {
            assert!(
                r.canary_files.iter().any(|c| c.path == needed),
                "missing canary {needed}"
            );
        }
        assert!(r.probes.iter().any(|p| p.kind == ProbeKind::Command));
    }

    #[test]
    fn glob_star_stays_in_one_component_and_double_star_spans_any() {
        assert!(glob_matches(
            "**/site-packages/*.pth",
            "/usr/lib/python3/site-packages/x.pth"
        ));
        assert!(glob_matches(
            "**/site-packages/*.pth",
            "/h/.local/lib/python3.12/site-packages/a.pth"
        ));
        assert!(!glob_matches(
            "**/site-packages/*.pth",
            "/usr/lib/site-packages/sub/x.pth"
        ));
        assert!(!glob_matches(
            "**/site-packages/*.pth",
            "/usr/lib/site-packages/x.pth.txt"
        ));
        assert!(glob_matches(
            "/h/.config/systemd/**",
            "/h/.config/systemd/user/default.target.wants/x.service"
        ));
        assert!(glob_matches(
            "**/.git/hooks/*",
            "/w/repo/.git/hooks/pre-commit"
        ));
        assert!(glob_matches("**/.git/hooks/*", "/w/.git/hooks/pre-commit"));
        assert!(!glob_matches(
            "**/.git/hooks/*",
            "/w/.git/hooksx/pre-commit"
        ));
        assert!(glob_matches("/h/.claude.json.*", "/h/.claude.json.tmp.123"));
        assert!(!glob_matches("/h/.claude.json", "/h/.claude.jsonx"));
    }

    #[test]
    fn persistence_locations_are_data_by_kind() {
        let r = RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML, RULE_FILES).expect("valid");
        let home = crate::sandbox::SANDBOX_HOME;
        let kind_of = |p: &str| {
            r.persistence
                .iter()
                .find(|g| g.matches(&p.replace("~", home)))
                .map(|g| g.kind)
        };
        for client in [
            "~/.claude.json",
            "~/.claude/settings.json",
            "~/workspace/.claude/settings.local.json",
            "~/.cursor/mcp.json",
            "~/.config/Code/User/mcp.json",
            "~/workspace/.vscode/settings.json",
            "~/.codeium/windsurf/mcp_config.json",
            "~/.gemini/settings.json",
            "~/.config/Claude/claude_desktop_config.json",
        ] {
            assert_eq!(kind_of(client), Some(PersistKind::ClientConfig), "{client}");
        }
        for startup in [
            "~/.bashrc",
            "~/.local/lib/python3.12/site-packages/evil.pth",
            "/usr/lib/python3/dist-packages/usercustomize.py",
            "~/.ssh/config",
            "/var/spool/cron/crontabs/sandbox",
            "~/.config/systemd/user/default.target.wants/x.service",
            "~/workspace/.git/hooks/post-merge",
            "~/.gitconfig",
            "~/.config/autostart/x.desktop",
        ] {
            assert_eq!(kind_of(startup), Some(PersistKind::Startup), "{startup}");
        }
        for plain in [
            "~/workspace/.git/hooks/pre-commit.sample",
            "~/workspace/notes.md",
            "~/.config/notes/settings.json",
            "~/.local/share/notes/db.sqlite",
        ] {
            assert_eq!(kind_of(plain), None, "{plain}");
        }
        assert!(
            r.persistence_commands
                .iter()
                .any(|c| c.program == "crontab"),
            "crontab"
        );
    }

    #[test]
    fn invalid_rules_report_file_and_line() {
        let bad = RUNTIME_TOML.replace("kind = \"sql\"", "kind = \"nosql\"");
        let e = RuntimeRules::compile("x.toml", &bad, RULE_FILES).expect_err("unknown kind");
        let msg = e.to_string();
        assert!(msg.starts_with("x.toml:"), "{msg}");
        assert!(msg.contains("unknown kind `nosql`"), "{msg}");
        let line: usize = msg
            .split(':')
            .nth(1)
            .and_then(|l| l.parse().ok())
            .expect("line number");
        assert!(
            bad.lines()
                .nth(line - 1)
                .is_some_and(|l| l.contains("sql-injection")),
            "line {line} should point at the probe"
        );
        let syntax =
            RuntimeRules::compile("y.toml", "canary_file = 3\n", RULE_FILES).expect_err("syntax");
        assert!(syntax.to_string().starts_with("y.toml:1:"), "{syntax}");
    }

    fn line_of_error(e: &RulesError) -> usize {
        e.to_string()
            .split(':')
            .nth(1)
            .and_then(|l| l.parse().ok())
            .expect("line number")
    }

    #[test]
    fn bad_sql_error_pattern_and_quoted_sql_control_are_rejected_at_their_line() {
        let bad = RUNTIME_TOML.replace(
            "pattern = 'unrecognized token: \"'",
            "pattern = '(unclosed'",
        );
        assert_ne!(bad, RUNTIME_TOML);
        let e = RuntimeRules::compile("x.toml", &bad, RULE_FILES).expect_err("bad regex");
        assert!(e.to_string().contains("bad sql_error pattern"), "{e}");
        assert!(
            bad.lines()
                .nth(line_of_error(&e) - 1)
                .is_some_and(|l| l.contains("(unclosed")),
            "{e}"
        );
        let quoted = RUNTIME_TOML.replace("mcpscan_nomatch OR", "mcpscan_nomatch' OR");
        assert_ne!(quoted, RUNTIME_TOML);
        let e = RuntimeRules::compile("x.toml", &quoted, RULE_FILES).expect_err("quoted control");
        assert!(e.to_string().contains("must not contain quotes"), "{e}");
        assert!(
            quoted
                .lines()
                .nth(line_of_error(&e) - 1)
                .is_some_and(|l| l.contains("sql-control")),
            "{e}"
        );
    }

    #[test]
    fn every_rule_file_in_rules_runtime_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../rules/runtime");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .expect("rules/runtime")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml") && n != "runtime.toml")
            .map(|n| format!("rules/runtime/{n}"))
            .collect();
        on_disk.sort();
        let embedded: Vec<String> = RULE_FILES.iter().map(|(n, _)| n.to_string()).collect();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn every_rule_id_has_its_file_with_title_and_docs() {
        let r = RuntimeRules::load().expect("embedded rules load");
        assert_eq!(r.rules().len(), RuleId::ALL.len());
        for id in RuleId::ALL {
            let rule = r.rule(*id);
            assert_eq!(rule.meta.id, id.id());
            assert_eq!(rule.meta.analyzer, Analyzer::Runtime);
            assert!(!rule.title.is_empty());
            assert!(rule.meta.docs.false_positives.is_some(), "{}", id.id());
        }
    }

    #[test]
    fn missing_misnamed_and_unknown_rule_files_are_errors_naming_the_file() {
        let missing = RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML, &RULE_FILES[1..])
            .expect_err("R001 missing");
        assert!(
            missing
                .to_string()
                .starts_with("rules/runtime/R001.toml:1:1: missing"),
            "{missing}"
        );
        let (_, r002) = RULE_FILES[1];
        let mut files = RULE_FILES.to_vec();
        files[1] = ("rules/runtime/R099.toml", r002);
        let e = RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML, &files).expect_err("misnamed");
        assert!(
            e.to_string()
                .contains("MCPS-R002 must live in a file named R002.toml"),
            "{e}"
        );
        let r099 = r002.replace("MCPS-R002", "MCPS-R099");
        files[1] = ("rules/runtime/R099.toml", &r099);
        let e = RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML, &files).expect_err("unknown");
        assert!(
            e.to_string()
                .contains("not one the runtime analysis reports"),
            "{e}"
        );
        let no_title = r002.replace("title = \"reads a sensitive file\"", "title = \" \"");
        assert_ne!(no_title, r002);
        files[1] = ("rules/runtime/R002.toml", &no_title);
        let e = RuntimeRules::compile(RUNTIME_PATH, RUNTIME_TOML, &files).expect_err("title");
        assert!(
            e.to_string().contains("finding.title must not be empty"),
            "{e}"
        );
        assert!(e.to_string().starts_with("rules/runtime/R002.toml:"), "{e}");
    }

    #[test]
    fn sql_signatures_match_database_errors_and_not_plain_syntax_errors() {
        let r = RuntimeRules::builtin();
        for (text, engine) in [
            ("query failed: unrecognized token: \"' --\"", "sqlite"),
            ("OperationalError: near \"OR\": syntax error", "sqlite"),
            ("sqlite3.OperationalError: incomplete input", "sqlite"),
            ("ERROR:  syntax error at or near \"1\"", "postgresql"),
            (
                "unterminated quoted string at or near \"' --\"",
                "postgresql",
            ),
            (
                "You have an error in your SQL syntax; check the manual",
                "mysql",
            ),
            ("SQLSTATE[42000]: Syntax error or access violation", "pdo"),
            (
                "[Microsoft][ODBC SQL Server Driver] Unclosed quotation mark after the character string",
                "sqlserver",
            ),
            ("ORA-01756: quoted string not properly terminated", "oracle"),
        ] {
            let hit = r.sql_error(text).map(|(s, _)| s.engine.as_str());
            assert_eq!(hit, Some(engine), "{text}");
        }
        for benign in [
            "syntax error at line 1: expected '='",
            "SyntaxError: invalid syntax",
            "no user named ' OR '1'='1' --",
        ] {
            assert!(r.sql_error(benign).is_none(), "{benign}");
        }
    }

    #[test]
    fn star_matches_exactly_one_component() {
        assert!(path_matches("/proc/*/environ", "/proc/12/environ"));
        assert!(!path_matches("/proc/*/environ", "/proc/12/task/12/environ"));
        assert!(!path_matches("/proc/*/environ", "/proc/12/status"));
    }
}
