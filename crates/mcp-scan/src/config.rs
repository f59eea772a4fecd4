//! `mcp-scan.toml`: the project's configuration file, and the user's
//! (`$XDG_CONFIG_HOME/mcp-scan/config.toml`, else `~/.config/mcp-scan/config.toml`).
//!
//! Precedence: command line > project file > user file > built-in defaults. `--config FILE`
//! names the only file read; `--no-config` reads none. Unknown keys are errors with their line,
//! never silently ignored. Secrets never go in the file: the LLM key stays in an environment
//! variable the file may name (`api-key-env`).

use mcp_scan_core::{FailOn, Severity};
use mcp_scan_report::Format;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The project file's name.
pub const PROJECT_FILE: &str = "mcp-scan.toml";

/// One configuration file as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FileConfig {
    format: Option<Spanned<String>>,
    fail_on: Option<Spanned<String>>,
    min_severity: Option<Spanned<String>>,
    timeout: Option<Spanned<f64>>,
    calls: Option<Spanned<u32>>,
    max_file_size: Option<Spanned<String>>,
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    /// Relative to the file's folder.
    baseline: Option<PathBuf>,
    rules: Option<RulesTable>,
    llm: Option<LlmTable>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RulesTable {
    select: Option<Vec<String>>,
    ignore: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct LlmTable {
    provider: Option<String>,
    model: Option<String>,
    base_url: Option<String>,
    /// The *name* of the environment variable holding the key.
    api_key_env: Option<String>,
    api_version: Option<String>,
    aws_region: Option<String>,
    aws_profile: Option<String>,
    timeout: Option<f64>,
    max_tokens: Option<u64>,
    /// Refused with its line: a key in a file ends up in version control.
    api_key: Option<Spanned<toml::Value>>,
}

/// Reads one `[llm]` setting as text.
type LlmGetter = fn(&LlmTable) -> Option<String>;

/// Where a setting's value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    CommandLine,
    Project(PathBuf),
    User(PathBuf),
    /// `--config FILE`.
    File(PathBuf),
    Default,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::CommandLine => f.write_str("command line"),
            Origin::Project(p) => write!(f, "project {}", p.display()),
            Origin::User(p) => write!(f, "user {}", p.display()),
            Origin::File(p) => write!(f, "--config {}", p.display()),
            Origin::Default => f.write_str("default"),
        }
    }
}

/// A file read and checked.
#[derive(Debug)]
pub struct Layer {
    pub origin: Origin,
    pub path: PathBuf,
    config: FileConfig,
}

/// How to find the files.
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// `--config FILE`.
    pub explicit: Option<PathBuf>,
    /// `--no-config`.
    pub none: bool,
    /// The scanned path whose nearest ancestor holding `mcp-scan.toml` is the project (the
    /// current directory when there is none).
    pub start: Option<PathBuf>,
}

/// The files in effect, highest precedence first.
#[derive(Debug, Default)]
pub struct Layers {
    pub layers: Vec<Layer>,
}

/// A configuration value a layer gave, with where it came from.
pub struct Sourced<T> {
    pub value: T,
    pub origin: Origin,
}

impl Layers {
    /// Finds and reads the files (see the module docs).
    pub fn discover(d: &Discovery) -> anyhow::Result<Layers> {
        if d.none {
            return Ok(Layers::default());
        }
        if let Some(p) = &d.explicit {
            return Ok(Layers {
                layers: vec![read(p, Origin::File(p.clone()))?],
            });
        }
        let mut layers = Vec::new();
        if let Some(p) = project_file(d.start.as_deref()) {
            layers.push(read(&p, Origin::Project(p.clone()))?);
        }
        if let Some(p) = user_file().filter(|p| p.is_file()) {
            layers.push(read(&p, Origin::User(p.clone()))?);
        }
        Ok(Layers { layers })
    }

    fn first<T>(&self, get: impl Fn(&FileConfig) -> Option<T>) -> Option<Sourced<T>> {
        self.layers.iter().find_map(|l| {
            get(&l.config).map(|value| Sourced {
                value,
                origin: l.origin.clone(),
            })
        })
    }

    fn folder_of(&self, origin: &Origin) -> PathBuf {
        self.layers
            .iter()
            .find(|l| &l.origin == origin)
            .and_then(|l| l.path.parent().map(Path::to_path_buf))
            .unwrap_or_default()
    }
}

/// The nearest `mcp-scan.toml` from `start` (a file's folder, or the folder itself) upwards,
/// else from the current directory.
fn project_file(start: Option<&Path>) -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok();
    let from = start
        .map(|p| {
            let abs = if p.is_absolute() {
                p.to_path_buf()
            } else {
                cwd.clone().unwrap_or_default().join(p)
            };
            if abs.is_dir() {
                abs
            } else {
                abs.parent().map(Path::to_path_buf).unwrap_or(abs)
            }
        })
        .or(cwd)?;
    from.ancestors()
        .map(|d| d.join(PROJECT_FILE))
        .find(|p| p.is_file())
}

/// `$XDG_CONFIG_HOME/mcp-scan/config.toml`, else `~/.config/mcp-scan/config.toml`.
pub fn user_file() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("mcp-scan").join("config.toml"))
}

fn read(path: &Path, origin: Origin) -> anyhow::Result<Layer> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read configuration {}: {e}", path.display()))?;
    let config = parse(&text).map_err(|m| anyhow::anyhow!("{}: {m}", path.display()))?;
    Ok(Layer {
        origin,
        path: path.to_path_buf(),
        config,
    })
}

/// Parses and checks one file's text; the error names the offending line.
pub fn parse(text: &str) -> Result<FileConfig, String> {
    let c: FileConfig =
        toml::from_str(text).map_err(|e| mcp_scan_engine::suppress::toml_error(text, &e))?;
    let at = |span: std::ops::Range<usize>| {
        let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
        format!("line {line}")
    };
    if let Some(k) = c.llm.as_ref().and_then(|l| l.api_key.as_ref()) {
        return Err(format!(
            "{}: `api-key`: secrets never go in the configuration file; name the environment \
             variable that holds the key instead (`api-key-env = \"MY_LLM_KEY\"`)",
            at(k.span())
        ));
    }
    if let Some(v) = &c.format {
        v.get_ref()
            .parse::<Format>()
            .map_err(|e| format!("{}: format: {e}", at(v.span())))?;
    }
    if let Some(v) = &c.fail_on {
        v.get_ref()
            .parse::<FailOn>()
            .map_err(|e| format!("{}: fail-on: {e} or never", at(v.span())))?;
    }
    if let Some(v) = &c.min_severity {
        v.get_ref()
            .parse::<Severity>()
            .map_err(|e| format!("{}: min-severity: {e}", at(v.span())))?;
    }
    if let Some(v) = &c.max_file_size {
        crate::commands::behavioral::parse_size(v.get_ref())
            .map_err(|e| format!("{}: max-file-size: {e}", at(v.span())))?;
    }
    if let Some(v) = &c.timeout
        && !(v.get_ref().is_finite() && *v.get_ref() > 0.0 && *v.get_ref() <= 3600.0)
    {
        return Err(format!(
            "{}: timeout must be between 0 and 3600 seconds",
            at(v.span())
        ));
    }
    if let Some(v) = &c.calls
        && !(1..=20).contains(v.get_ref())
    {
        return Err(format!("{}: calls must be 1 to 20", at(v.span())));
    }
    Ok(c)
}

/// Every setting `scan` takes from a file, resolved against the command line.
pub struct Effective {
    pub format: Sourced<Format>,
    pub fail_on: Sourced<FailOn>,
    pub min_severity: Option<Sourced<Severity>>,
    pub timeout: Sourced<f64>,
    pub calls: Sourced<u32>,
    pub max_file_size: Sourced<u64>,
    pub include: Sourced<Vec<String>>,
    pub exclude: Sourced<Vec<String>>,
    pub select: Sourced<Vec<String>>,
    pub ignore: Sourced<Vec<String>>,
    pub baseline: Option<Sourced<PathBuf>>,
    /// `(key, value, origin)` for every `[llm]` setting a file gives (flags override them).
    pub llm: Vec<(&'static str, String, Origin)>,
}

/// What the command line said: `Some` for a value the user typed.
#[derive(Debug, Default, Clone)]
pub struct CliValues {
    pub format: Option<Format>,
    pub fail_on: Option<FailOn>,
    pub min_severity: Option<Severity>,
    pub timeout: Option<f64>,
    pub calls: Option<u32>,
    pub max_file_size: Option<u64>,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub select: Vec<String>,
    pub ignore: Vec<String>,
    pub baseline: Option<PathBuf>,
}

fn cli_or<T>(cli: Option<T>, file: Option<Sourced<T>>, default: T) -> Sourced<T> {
    match (cli, file) {
        (Some(value), _) => Sourced {
            value,
            origin: Origin::CommandLine,
        },
        (None, Some(s)) => s,
        (None, None) => Sourced {
            value: default,
            origin: Origin::Default,
        },
    }
}

fn list(cli: Vec<String>, file: Option<Sourced<Vec<String>>>) -> Sourced<Vec<String>> {
    cli_or((!cli.is_empty()).then_some(cli), file, Vec::new())
}

impl Layers {
    /// Resolves every setting (validated at load, so the parses here cannot fail).
    pub fn resolve(&self, cli: CliValues) -> Effective {
        let s = |o: &Option<Spanned<String>>| o.as_ref().map(|v| v.get_ref().clone());
        let baseline = match cli.baseline {
            Some(p) => Some(Sourced {
                value: p,
                origin: Origin::CommandLine,
            }),
            None => self.first(|c| c.baseline.clone()).map(|b| Sourced {
                value: self.folder_of(&b.origin).join(&b.value),
                origin: b.origin,
            }),
        };
        let mut llm = Vec::new();
        let llm_keys: [(&'static str, LlmGetter); 9] = [
            ("provider", |l| l.provider.clone()),
            ("model", |l| l.model.clone()),
            ("base-url", |l| l.base_url.clone()),
            ("api-key-env", |l| l.api_key_env.clone()),
            ("api-version", |l| l.api_version.clone()),
            ("aws-region", |l| l.aws_region.clone()),
            ("aws-profile", |l| l.aws_profile.clone()),
            ("timeout", |l| l.timeout.map(|t| t.to_string())),
            ("max-tokens", |l| l.max_tokens.map(|t| t.to_string())),
        ];
        for (key, get) in llm_keys {
            if let Some(v) = self.first(|c| c.llm.as_ref().and_then(get)) {
                llm.push((key, v.value, v.origin));
            }
        }
        Effective {
            format: cli_or(
                cli.format,
                self.first(|c| s(&c.format).and_then(|v| v.parse().ok())),
                Format::Summary,
            ),
            fail_on: cli_or(
                cli.fail_on,
                self.first(|c| s(&c.fail_on).and_then(|v| v.parse().ok())),
                FailOn::default(),
            ),
            min_severity: match cli.min_severity {
                Some(value) => Some(Sourced {
                    value,
                    origin: Origin::CommandLine,
                }),
                None => self.first(|c| s(&c.min_severity).and_then(|v| v.parse().ok())),
            },
            timeout: cli_or(
                cli.timeout,
                self.first(|c| c.timeout.as_ref().map(|v| *v.get_ref())),
                15.0,
            ),
            calls: cli_or(
                cli.calls,
                self.first(|c| c.calls.as_ref().map(|v| *v.get_ref())),
                2,
            ),
            max_file_size: cli_or(
                cli.max_file_size,
                self.first(|c| {
                    s(&c.max_file_size)
                        .and_then(|v| crate::commands::behavioral::parse_size(&v).ok())
                }),
                8 << 20,
            ),
            include: list(cli.include, self.first(|c| c.include.clone())),
            exclude: list(cli.exclude, self.first(|c| c.exclude.clone())),
            select: list(
                cli.select,
                self.first(|c| c.rules.as_ref().and_then(|r| r.select.clone())),
            ),
            ignore: list(
                cli.ignore,
                self.first(|c| c.rules.as_ref().and_then(|r| r.ignore.clone())),
            ),
            baseline,
            llm,
        }
    }
}

impl Effective {
    /// Fills the LLM flags the user did not give from the files' `[llm]` table.
    pub fn apply_llm(&self, args: &mut mcp_scan_llm::LlmArgs) {
        for (key, value, _) in &self.llm {
            match *key {
                "provider" => fill(&mut args.llm_provider, value.clone()),
                "model" => fill(&mut args.llm_model, value.clone()),
                "base-url" => fill(&mut args.llm_base_url, value.clone()),
                "api-key-env" => fill(&mut args.llm_api_key_env, value.clone()),
                "api-version" => fill(&mut args.llm_api_version, value.clone()),
                "aws-region" => fill(&mut args.llm_aws_region, value.clone()),
                "aws-profile" => fill(&mut args.llm_aws_profile, value.clone()),
                "timeout" => {
                    if let Ok(t) = value.parse() {
                        fill(&mut args.llm_timeout, t);
                    }
                }
                "max-tokens" => {
                    if let Ok(t) = value.parse() {
                        fill(&mut args.llm_max_tokens, t);
                    }
                }
                _ => {}
            }
        }
    }

    /// `mcp-scan config show`: every setting, its value and where it came from.
    pub fn show(&self, layers: &Layers) -> String {
        let q = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
        let arr = |v: &[String]| {
            format!(
                "[{}]",
                v.iter().map(|s| q(s)).collect::<Vec<_>>().join(", ")
            )
        };
        let mut rows: Vec<(String, String, String)> = vec![
            (
                "format".into(),
                q(self.format.value.as_str()),
                self.format.origin.to_string(),
            ),
            (
                "fail-on".into(),
                q(&match self.fail_on.value {
                    FailOn::Never => "never".to_string(),
                    FailOn::At(s) => s.to_string().to_ascii_lowercase(),
                }),
                self.fail_on.origin.to_string(),
            ),
            match &self.min_severity {
                Some(m) => (
                    "min-severity".into(),
                    q(&m.value.to_string().to_ascii_lowercase()),
                    m.origin.to_string(),
                ),
                None => (
                    "min-severity".into(),
                    "(none)".into(),
                    Origin::Default.to_string(),
                ),
            },
            (
                "timeout".into(),
                self.timeout.value.to_string(),
                self.timeout.origin.to_string(),
            ),
            (
                "calls".into(),
                self.calls.value.to_string(),
                self.calls.origin.to_string(),
            ),
            (
                "max-file-size".into(),
                self.max_file_size.value.to_string(),
                self.max_file_size.origin.to_string(),
            ),
            (
                "include".into(),
                arr(&self.include.value),
                self.include.origin.to_string(),
            ),
            (
                "exclude".into(),
                arr(&self.exclude.value),
                self.exclude.origin.to_string(),
            ),
            match &self.baseline {
                Some(b) => (
                    "baseline".into(),
                    q(&b.value.display().to_string()),
                    b.origin.to_string(),
                ),
                None => (
                    "baseline".into(),
                    "(none)".into(),
                    Origin::Default.to_string(),
                ),
            },
            (
                "rules.select".into(),
                arr(&self.select.value),
                self.select.origin.to_string(),
            ),
            (
                "rules.ignore".into(),
                arr(&self.ignore.value),
                self.ignore.origin.to_string(),
            ),
        ];
        for (k, v, o) in &self.llm {
            rows.push((format!("llm.{k}"), q(v), o.to_string()));
        }
        let width = rows
            .iter()
            .map(|(k, v, _)| k.len() + v.len() + 3)
            .max()
            .unwrap_or(0);
        let mut out = String::from("# files read (highest precedence first):");
        if layers.layers.is_empty() {
            out.push_str(" none");
        }
        out.push('\n');
        for l in &layers.layers {
            out.push_str(&format!("#   {}\n", l.origin));
        }
        for (k, v, o) in rows {
            let kv = format!("{k} = {v}");
            out.push_str(&format!("{kv:<width$}  # {o}\n"));
        }
        out
    }
}

fn fill<T>(slot: &mut Option<T>, v: T) {
    if slot.is_none() {
        *slot = Some(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_key_is_an_error_naming_its_line() {
        let e = parse("format = \"raw\"\n\n[rules]\nselect = [\"S\"]\nignored = [\"S012\"]\n")
            .expect_err("unknown key");
        assert!(e.contains("line 5") && e.contains("ignored"), "{e}");
    }

    #[test]
    fn a_secret_in_the_file_is_refused_and_a_bad_value_names_its_line() {
        let e = parse("[llm]\nprovider = \"openai\"\napi-key = \"sk-123\"\n").expect_err("secret");
        assert!(e.contains("line 3") && e.contains("api-key-env"), "{e}");
        assert!(!e.contains("sk-123"), "{e}");
        let e = parse("fail-on = \"sometimes\"\n").expect_err("bad");
        assert!(e.contains("line 1") && e.contains("fail-on"), "{e}");
    }

    #[test]
    fn the_command_line_beats_the_project_which_beats_the_user() {
        let layer = |origin: Origin, text: &str| Layer {
            origin,
            path: PathBuf::from("/p/mcp-scan.toml"),
            config: parse(text).expect("parses"),
        };
        let layers = Layers {
            layers: vec![
                layer(
                    Origin::Project("/p/mcp-scan.toml".into()),
                    "fail-on = \"medium\"\n",
                ),
                layer(
                    Origin::User("/u/config.toml".into()),
                    "fail-on = \"low\"\nformat = \"raw\"\n",
                ),
            ],
        };
        let e = layers.resolve(CliValues::default());
        assert_eq!(e.fail_on.value, FailOn::At(Severity::Medium));
        assert!(matches!(e.fail_on.origin, Origin::Project(_)));
        assert_eq!(e.format.value, Format::Raw);
        assert!(matches!(e.format.origin, Origin::User(_)));
        assert_eq!(e.timeout.origin, Origin::Default);
        let e = layers.resolve(CliValues {
            fail_on: Some(FailOn::Never),
            ..CliValues::default()
        });
        assert_eq!(e.fail_on.value, FailOn::Never);
        assert_eq!(e.fail_on.origin, Origin::CommandLine);
    }
}

/// The configuration flags of every scanning command (`scan`, `behavioral`, `manifest`,
/// `dynamic`): one set of files, rule selection and baseline for all of them.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ConfigArgs {
    /// Read this configuration file only (instead of the project's mcp-scan.toml and the
    /// user's config.toml).
    #[arg(long, value_name = "FILE", help_heading = "Configuration")]
    pub config: Option<PathBuf>,

    /// Read no configuration file.
    #[arg(long, conflicts_with = "config", help_heading = "Configuration")]
    pub no_config: bool,

    /// Only report these rules: ids or prefixes (`S012`, `S0`, `MCPS-D`). Comma-separated,
    /// repeatable; replaces the file's `[rules] select`.
    #[arg(
        long,
        value_name = "RULES",
        value_delimiter = ',',
        help_heading = "Configuration"
    )]
    pub select: Vec<String>,

    /// Never report these rules: ids or prefixes. The longest matching pattern of `select` and
    /// `ignore` decides.
    #[arg(
        long,
        value_name = "RULES",
        value_delimiter = ',',
        help_heading = "Configuration"
    )]
    pub ignore: Vec<String>,

    /// Accepted findings (TOML, see --write-baseline): they do not fail the scan, and are listed
    /// as suppressed; an expired entry counts again, an entry matching nothing is reported stale.
    #[arg(long, value_name = "FILE", help_heading = "Configuration")]
    pub baseline: Option<PathBuf>,

    /// Write every current finding to FILE as a baseline (new entries get a placeholder reason
    /// to replace; entries of the baseline in use keep theirs).
    #[arg(long, value_name = "FILE", help_heading = "Configuration")]
    pub write_baseline: Option<PathBuf>,
}

/// Whether the user typed the argument `id` (a clap default is not typed); without matches every
/// value counts as typed.
pub fn typed_by(m: Option<&clap::ArgMatches>) -> impl Fn(&str) -> bool + '_ {
    move |id: &str| {
        m.is_none_or(|m| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
    }
}

impl CliValues {
    /// The output settings the user typed.
    pub fn of_output(o: &crate::cli::OutputArgs, set: &dyn Fn(&str) -> bool) -> CliValues {
        CliValues {
            format: set("format").then_some(o.format),
            fail_on: set("fail_on").then_some(o.fail_on),
            min_severity: o.min_severity,
            ..CliValues::default()
        }
    }
}

/// Reads the configuration files for a scan of `start`, resolves every setting against what was
/// typed, fills the output (and LLM) flags from it and builds the finding policy.
pub fn resolve(
    cfg: &ConfigArgs,
    start: Option<PathBuf>,
    mut cli: CliValues,
    output: &mut crate::cli::OutputArgs,
    llm: Option<&mut mcp_scan_llm::LlmArgs>,
) -> anyhow::Result<(Effective, mcp_scan_engine::suppress::Policy)> {
    use mcp_scan_engine::suppress::{Baseline, Policy, RuleSelection};
    cli.select = cfg.select.clone();
    cli.ignore = cfg.ignore.clone();
    cli.baseline = cfg.baseline.clone();
    let layers = Layers::discover(&Discovery {
        explicit: cfg.config.clone(),
        none: cfg.no_config,
        start,
    })?;
    let eff = layers.resolve(cli);
    if let Some(llm) = llm {
        eff.apply_llm(llm);
    }
    output.format = eff.format.value;
    output.fail_on = eff.fail_on.value;
    output.min_severity = eff.min_severity.as_ref().map(|m| m.value);
    // A baseline about to be written for the first time need not exist yet.
    let baseline = match &eff.baseline {
        Some(b) if b.value.is_file() || cfg.write_baseline.as_ref() != Some(&b.value) => {
            let loaded = Baseline::load(&b.value)?;
            Some((loaded, b.value.display().to_string()))
        }
        _ => None,
    };
    let policy = Policy {
        rules: RuleSelection {
            select: eff.select.value.clone(),
            ignore: eff.ignore.value.clone(),
        },
        baseline,
        no_inline: false,
        today: None,
        source_root: None,
    };
    Ok((eff, policy))
}

/// After a witness command built its report: applies the policy, then [`finish`].
pub fn apply_and_finish(
    report: &mut mcp_scan_core::Report,
    policy: &mcp_scan_engine::suppress::Policy,
    cfg: &ConfigArgs,
) -> anyhow::Result<()> {
    mcp_scan_engine::suppress::apply(report, policy);
    finish(report, policy, cfg)
}

/// After the policy was applied (`scan`'s engine does it before scoring): prints its warnings
/// and writes the baseline the user asked for.
pub fn finish(
    report: &mut mcp_scan_core::Report,
    policy: &mcp_scan_engine::suppress::Policy,
    cfg: &ConfigArgs,
) -> anyhow::Result<()> {
    use anyhow::Context;
    use mcp_scan_engine::suppress::{PLACEHOLDER_REASON, baseline_of};
    for w in &report.suppressions.warnings {
        eprintln!("mcp-scan: warning: {w}");
    }
    if let Some(path) = &cfg.write_baseline {
        let previous = policy.baseline.as_ref().map(|(b, _)| b);
        let b = baseline_of(report, previous);
        let new = b
            .entries
            .iter()
            .filter(|e| e.reason == PLACEHOLDER_REASON)
            .count();
        std::fs::write(path, b.to_toml())
            .with_context(|| format!("cannot write baseline {}", path.display()))?;
        eprintln!(
            "mcp-scan: wrote {} baseline entr{} to {} ({new} with the placeholder reason: replace \
             it with why each finding is accepted)",
            b.entries.len(),
            if b.entries.len() == 1 { "y" } else { "ies" },
            path.display()
        );
    }
    Ok(())
}
