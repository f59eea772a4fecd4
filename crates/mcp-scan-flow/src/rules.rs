//! Static rules (`rules/static/*.toml`): shared metadata from `mcp-scan-rules`, a `[match]`
//! over a tool's behaviour, and the fixture pair that proves the rule (`[fixtures]`).

use crate::models::{KINDS, Models};
use mcp_scan_core::Analyzer;
use mcp_scan_rules::{RawRuleMeta, RuleError, RuleMeta, SourceFile};
use regex::Regex;
use serde::Deserialize;
use std::sync::LazyLock;

macro_rules! rule_files {
    ($($n:literal),* $(,)?) => {
        &[$((concat!("rules/static/", $n, ".toml"), include_str!(concat!("../../../rules/static/", $n, ".toml")))),*]
    };
}

/// The embedded static rules, file name → text.
pub const STATIC_RULE_FILES: &[(&str, &str)] = rule_files!(
    "S001", "S002", "S003", "S004", "S005", "S006", "S007", "S008", "S009", "S010", "S011", "S012",
    "S013", "S014", "S015", "S016", "S017", "S018", "S019", "S020", "S021", "S022", "S023", "S024",
    "S025", "S026", "S027", "S028", "S029", "S030", "S031", "S032", "S033", "S034", "S040", "S041",
    "S042", "S050", "S051", "S052", "S053", "S054", "S055", "S056",
);

#[derive(Debug, Clone)]
pub enum Match {
    Flow {
        /// Exact labels or `prefix:*`.
        sources: Vec<String>,
        sinks: Vec<String>,
        target_only: bool,
        /// Only sinks whose resolved constant matches (a tracking collector's URL, a fixed
        /// path outside the caller's reach).
        detail: Option<Regex>,
        unless_detail: Option<Regex>,
        /// Lowers the severity when the tool's purpose is to open the file it is given.
        declared_path: Option<DeclaredPath>,
        /// A declared text matching this says the flow is the tool's purpose.
        description_not_matches: Option<Regex>,
        /// Exempts URLs whose host comes from a service's configuration (`OBSIDIAN_HOST`)
        /// and ends at a fixed `/`: a parameter after it only picks a path on that host.
        configured_host: bool,
    },
    Capability {
        kinds: Vec<String>,
        detail: Option<Regex>,
        sensitive_detail: bool,
        description_matches: Option<Regex>,
        description_not_matches: Option<Regex>,
        host_declared: bool,
        /// A file the tool deletes again itself (a temporary script) does not count.
        unless_removed: bool,
        /// Details this matches (a mode that lets no one else write) on a directory the tool
        /// creates itself (`dir-create`) do not count: `x` on a directory is traverse.
        unless_own_dir: Option<Regex>,
        /// The tool also does something of one of these kinds (a real cipher next to the
        /// base64): the claim may hold, no finding.
        unless_kinds: Vec<String>,
        /// When present, only details of one of these classes match, each declared by its
        /// own words: reading the mount table is declared by "disks", not by "logs".
        classes: Vec<DetailClass>,
        /// Judges whether the tool's name and description declare the network use.
        declared_network: Option<DeclaredNetwork>,
        /// Details that exempt the capability (`chmod` to an owner-only mode).
        unless_detail: Option<Regex>,
        /// Source labels that exempt it when they reach its target (`env:scratch`: the
        /// tool's own working directory).
        unless_target_from: Vec<String>,
    },
}

/// A kind of thing a capability acts on (recognised by its detail) and the words of a
/// description that declare acting on it.
#[derive(Debug, Clone)]
pub struct DetailClass {
    pub detail: Regex,
    pub what: String,
    pub declared: Regex,
}

impl DetailClass {
    /// The first class of `classes` the detail belongs to.
    pub fn of<'c>(classes: &'c [DetailClass], detail: &str) -> Option<&'c DetailClass> {
        classes.iter().find(|c| c.detail.is_match(detail))
    }
}

/// Whether a tool's name and description declare a network capability, judged on what they
/// say rather than on loose words. A destination fixed in code is declared by naming it (or,
/// for a fetch that sends nothing, by saying the tool downloads): its host, or the service a
/// label of the host names (`export.arxiv.org` by "arXiv",
/// `api.wolframalpha.com` by "Wolfram Alpha"). A destination the code does not fix
/// (configured, given by the caller, taken from an answer) is declared by saying that the tool
/// uses the network (`access`), or by naming the service its configuration locates
/// (`OBSIDIAN_HOST` by "obsidian") or a service the description names and the tool's name
/// repeats ("Jira" in `jira_get_issue`). A name the code does not fix resolved through DNS
/// names no destination at all (a name carrying data is a flow rule's finding); a fixed one is
/// declared like any host, or by saying the tool resolves names (`dns`).
#[derive(Debug, Clone)]
pub struct DeclaredNetwork {
    pub access: Regex,
    /// Words saying the tool reads from the network (`download`, `https`): they declare
    /// fetching from a fixed host, never sending to one.
    pub fetch: Regex,
    pub dns: Regex,
    /// Host labels that name no service (`www`, `api`, top-level domains).
    pub generic_labels: Vec<String>,
    /// Parameter names that say the caller gives the destination (`url`, `page_url`): a
    /// destination the code does not fix, built from such a parameter, is declared by the
    /// tool's own interface.
    pub destination_param: Option<Regex>,
}

impl DeclaredNetwork {
    pub fn declares(
        &self,
        description: Option<&str>,
        tool: &str,
        server: &str,
        kind: &str,
        host: Option<&str>,
        configured: &std::collections::BTreeSet<String>,
    ) -> bool {
        let desc = description.unwrap_or("");
        let desc_words: Vec<String> = words(desc)
            .into_iter()
            .map(|(w, _)| w.to_lowercase())
            .collect();
        // The tool's and its server's names are read by the agent and the user too
        // (`mcp-server-arxiv`, `jira_get_issue`).
        let name_words: Vec<String> = words(&split_camel(&format!("{tool} {server}")))
            .into_iter()
            .map(|(w, _)| w.to_lowercase())
            .filter(|w| !self.generic_labels.contains(w))
            .collect();
        // Names written as such (`AWS`, `GitHub`), and the words of the tool's and server's
        // names, also declare hosts that extend them (`amazonaws`, `postmarkapp`).
        let mut named = service_names(desc);
        named.extend(name_words.iter().filter(|w| w.len() >= 4).cloned());
        let names_host = |host: &str| {
            desc.to_ascii_lowercase().contains(host)
                || host.split('.').any(|label| {
                    let label = label.replace('-', "");
                    label.len() >= 3
                        && !label.chars().all(|c| c.is_ascii_digit())
                        && !self.generic_labels.contains(&label)
                        && (names(&desc_words, &label)
                            || names(&name_words, &label)
                            || named.iter().any(|n| {
                                label.starts_with(n.as_str()) || label.ends_with(n.as_str())
                            }))
                })
        };
        if kind == "dns" && self.dns.is_match(desc) {
            return true;
        }
        let Some(host) = host else {
            if kind == "dns" {
                return true;
            }
            let proper = proper_nouns(desc);
            // A configuration read names its service (`WATI_API_URL`), or, when its name names
            // none (`BASE_URL`), the host of its default URL: that is declared as a fixed host
            // would be.
            return self.access.is_match(desc)
                || configured.iter().any(|s| {
                    if s.contains('.') {
                        names_host(s)
                    } else {
                        desc_words.contains(s) || name_words.contains(s)
                    }
                })
                || proper.iter().any(|p| name_words.contains(p));
        };
        let host = host.to_ascii_lowercase();
        (kind == "network-fetch" && self.fetch.is_match(desc) && !internal_host(&host))
            || names_host(&host)
    }
}

/// Loopback, private, link-local (cloud metadata) and `.internal`/`.local` hosts: saying that a
/// tool fetches does not declare reaching the machine's or the cloud's internal services.
fn internal_host(host: &str) -> bool {
    let h = host.trim_matches(|c| c == '[' || c == ']');
    if h == "localhost"
        || h.ends_with(".localhost")
        || h.ends_with(".internal")
        || h.ends_with(".local")
    {
        return true;
    }
    match h.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(ip)) => {
            ip.is_loopback() || ip.is_private() || ip.is_link_local() || ip.is_unspecified()
        }
        Ok(std::net::IpAddr::V6(ip)) => ip.is_loopback() || ip.is_unspecified(),
        Err(_) => false,
    }
}

/// Whether consecutive words (one to three) spell `label` (`Wolfram Alpha` → `wolframalpha`).
fn names(words: &[String], label: &str) -> bool {
    (0..words.len()).any(|i| {
        let mut joined = String::new();
        words[i..].iter().take(3).any(|w| {
            joined.push_str(w);
            joined == label
        })
    })
}

/// Alphanumeric words, each with whether it starts a sentence (the first word, or one after
/// `.`, `!`, `?`, `:`, a line break or a list marker).
fn words(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut at_start = true;
    let mut begin: Option<usize> = None;
    for (i, c) in text.char_indices() {
        if c.is_alphanumeric() {
            begin.get_or_insert(i);
            continue;
        }
        if let Some(b) = begin.take() {
            out.push((&text[b..i], at_start));
            at_start = false;
        }
        if matches!(
            c,
            '.' | '!' | '?' | ':' | '\n' | '-' | '*' | '#' | '(' | '"'
        ) {
            at_start = true;
        }
    }
    if let Some(b) = begin {
        out.push((&text[b..], at_start));
    }
    out
}

/// Words written as names inside a sentence (`Jira`, `arXiv`, `GitHub`), lowercased: a
/// capital and a small letter, not the sentence's first word.
fn proper_nouns(text: &str) -> Vec<String> {
    words(text)
        .into_iter()
        .filter(|(w, start)| {
            !start
                && w.chars().any(|c| c.is_uppercase())
                && w.chars().any(|c| c.is_lowercase())
                && w.chars().count() >= 3
        })
        .map(|(w, _)| w.to_lowercase())
        .collect()
}

/// Proper nouns and acronyms of three letters or more (`AWS`, `Jira`), lowercased.
fn service_names(text: &str) -> Vec<String> {
    let mut out = proper_nouns(text);
    out.extend(
        words(text)
            .into_iter()
            .filter(|(w, _)| w.len() >= 3 && w.chars().all(|c| c.is_ascii_uppercase()))
            .map(|(w, _)| w.to_lowercase()),
    );
    out
}

/// `queryWolframAlpha` → `query Wolfram Alpha` (tool names are identifiers).
fn split_camel(s: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.push(c);
    }
    out
}

/// A parameter declared to be a path (its name says so) on a tool whose description says it
/// works on files: the file it names being opened is the tool's purpose, not a traversal, unless
/// the path escapes upwards (`..`) or resolves to a sensitive path.
#[derive(Debug, Clone)]
pub struct DeclaredPath {
    pub param: Regex,
    pub description: Regex,
    pub severity: mcp_scan_core::Severity,
}

impl DeclaredPath {
    /// Whether every source is such a parameter and the sink's path stays an ordinary one.
    /// The files may be declared by the tool's description or by the parameter's own
    /// (`"results_path": {"description": "Path to a results JSON file"}`).
    pub fn covers<'a>(
        &self,
        models: &Models,
        description: Option<&str>,
        params: &[mcp_scan_core::DeclaredParam],
        mut sources: impl Iterator<Item = &'a str>,
        detail: &str,
    ) -> bool {
        let tool_declares = description.is_some_and(|d| self.description.is_match(d));
        sources.all(|s| {
            s.strip_prefix("param:").is_some_and(|p| {
                self.param.is_match(p)
                    && (tool_declares
                        || params.iter().any(|d| {
                            d.name == p
                                && d.description
                                    .as_deref()
                                    .is_some_and(|t| self.description.is_match(t))
                        }))
            })
        }) && !detail.contains("..")
            && !sensitive(models, detail)
            && !joined_to_a_fixed_root(detail)
    }
}

/// `/app/data/…`: the parameter is joined to a fixed directory the tool keeps its files in, so
/// an unchecked `../` in it escapes that root; opening the caller's own path (`⟨param:path⟩`,
/// `⟨param:repo⟩/.git/HEAD`) does not.
fn joined_to_a_fixed_root(detail: &str) -> bool {
    let root = detail.find(['…', '⟨']).map_or("", |i| &detail[..i]);
    !root.is_empty() && (root.starts_with('/') || root.starts_with('~') || root.ends_with('/'))
}

/// Fixture tools (`<fixture>/<tool>`) that must fire / must stay clean.
#[derive(Debug, Clone, Default)]
pub struct RuleFixtures {
    pub fires: Vec<String>,
    pub clean: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct StaticRule {
    pub meta: RuleMeta,
    pub matcher: Match,
    pub fixtures: RuleFixtures,
}

impl StaticRule {
    pub fn label_matches(&self, label: &str) -> bool {
        match &self.matcher {
            Match::Flow { sources, .. } => sources.iter().any(|s| match s.strip_suffix('*') {
                Some(prefix) => label.starts_with(prefix),
                None => s == label,
            }),
            Match::Capability { .. } => false,
        }
    }
}

/// The embedded static rules (validated by a test).
pub fn builtin() -> &'static [StaticRule] {
    static RULES: LazyLock<Vec<StaticRule>> = LazyLock::new(|| {
        load(STATIC_RULE_FILES).unwrap_or_else(|e| panic!("embedded static rules are invalid: {e}"))
    });
    &RULES
}

/// Loads and validates rule files.
pub fn load(files: &[(&str, &str)]) -> Result<Vec<StaticRule>, RuleError> {
    let mut out: Vec<StaticRule> = Vec::new();
    for (name, text) in files {
        let src = SourceFile::new(name, text);
        let raw: RawFile = src.parse()?;
        let meta = raw
            .rule
            .get_ref()
            .compile(&src, raw.rule.span(), Analyzer::Static, "MCPS-S")?;
        if out.iter().any(|r| r.meta.id == meta.id) {
            return Err(src.error(raw.rule.span(), format!("duplicate rule id {}", meta.id)));
        }
        let m = raw.r#match.get_ref();
        let span = raw.r#match.span();
        let rx = |r: &toml::Spanned<String>| -> Result<Regex, RuleError> {
            Regex::new(r.get_ref()).map_err(|e| src.error(r.span(), format!("bad regex: {e}")))
        };
        let re = |r: &Option<toml::Spanned<String>>| -> Result<Option<Regex>, RuleError> {
            r.as_ref().map(rx).transpose()
        };
        let kinds = |ks: &[toml::Spanned<String>]| -> Result<Vec<String>, RuleError> {
            if ks.is_empty() {
                return Err(src.error(span.clone(), "at least one kind is required"));
            }
            ks.iter()
                .map(|k| {
                    if KINDS.contains(&k.get_ref().as_str()) {
                        Ok(k.get_ref().clone())
                    } else {
                        Err(src.error(k.span(), format!("unknown kind `{}`", k.get_ref())))
                    }
                })
                .collect()
        };
        let matcher = match m.r#type.get_ref().as_str() {
            "flow" => {
                if m.sources.is_empty() {
                    return Err(src.error(span, "a flow rule needs sources"));
                }
                Match::Flow {
                    sources: m.sources.clone(),
                    sinks: kinds(&m.sinks)?,
                    target_only: m.target_only,
                    detail: re(&m.detail)?,
                    unless_detail: re(&m.unless_detail)?,
                    declared_path: m
                        .declared_path
                        .as_ref()
                        .map(|d| -> Result<DeclaredPath, RuleError> {
                            Ok(DeclaredPath {
                                param: rx(&d.param)?,
                                description: rx(&d.description)?,
                                severity: d.severity.get_ref().parse().map_err(|_| {
                                    src.error(d.severity.span(), "unknown severity")
                                })?,
                            })
                        })
                        .transpose()?,
                    description_not_matches: re(&m.description_not_matches)?,
                    configured_host: m.configured_host,
                }
            }
            "capability" => Match::Capability {
                kinds: kinds(&m.kinds)?,
                detail: re(&m.detail)?,
                sensitive_detail: m.sensitive_detail,
                description_matches: re(&m.description_matches)?,
                description_not_matches: re(&m.description_not_matches)?,
                host_declared: m.host_declared,
                unless_removed: m.unless_removed,
                unless_own_dir: re(&m.unless_own_dir)?,
                unless_kinds: if m.unless_kinds.is_empty() {
                    Vec::new()
                } else {
                    kinds(&m.unless_kinds)?
                },
                classes: m
                    .classes
                    .iter()
                    .map(|c| -> Result<DetailClass, RuleError> {
                        Ok(DetailClass {
                            detail: rx(&c.detail)?,
                            what: c.what.clone(),
                            declared: rx(&c.declared)?,
                        })
                    })
                    .collect::<Result<_, _>>()?,
                declared_network: m
                    .declared_network
                    .as_ref()
                    .map(|d| -> Result<DeclaredNetwork, RuleError> {
                        Ok(DeclaredNetwork {
                            access: rx(&d.access)?,
                            fetch: rx(&d.fetch)?,
                            dns: rx(&d.dns)?,
                            generic_labels: d.generic_labels.clone(),
                            destination_param: re(&d.destination_param)?,
                        })
                    })
                    .transpose()?,
                unless_detail: re(&m.unless_detail)?,
                unless_target_from: m.unless_target_from.clone(),
            },
            other => {
                return Err(src.error(
                    m.r#type.span(),
                    format!("unknown match type `{other}` (flow or capability)"),
                ));
            }
        };
        let fixtures = raw
            .fixtures
            .map_or_else(RuleFixtures::default, |f| RuleFixtures {
                fires: f.fires,
                clean: f.clean,
            });
        if fixtures.fires.is_empty() || fixtures.clean.is_empty() {
            return Err(src.error(
                raw.rule.span(),
                "a static rule needs [fixtures] with at least one `fires` and one `clean` tool",
            ));
        }
        out.push(StaticRule {
            meta,
            matcher,
            fixtures,
        });
    }
    Ok(out)
}

/// Whether a detail names a sensitive path.
pub fn sensitive(models: &Models, detail: &str) -> bool {
    models.sensitive_path(detail).is_some()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    rule: toml::Spanned<RawRuleMeta>,
    r#match: toml::Spanned<RawMatch>,
    fixtures: Option<RawFixtures>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatch {
    r#type: toml::Spanned<String>,
    #[serde(default)]
    sources: Vec<String>,
    #[serde(default)]
    sinks: Vec<toml::Spanned<String>>,
    #[serde(default)]
    target_only: bool,
    unless_detail: Option<toml::Spanned<String>>,
    declared_path: Option<RawDeclaredPath>,
    #[serde(default)]
    kinds: Vec<toml::Spanned<String>>,
    detail: Option<toml::Spanned<String>>,
    #[serde(default)]
    sensitive_detail: bool,
    description_matches: Option<toml::Spanned<String>>,
    description_not_matches: Option<toml::Spanned<String>>,
    #[serde(default)]
    host_declared: bool,
    #[serde(default)]
    unless_removed: bool,
    unless_own_dir: Option<toml::Spanned<String>>,
    #[serde(default)]
    unless_kinds: Vec<toml::Spanned<String>>,
    #[serde(default)]
    classes: Vec<RawDetailClass>,
    #[serde(default)]
    declared_network: Option<RawDeclaredNetwork>,
    #[serde(default)]
    unless_target_from: Vec<String>,
    #[serde(default)]
    configured_host: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDetailClass {
    detail: toml::Spanned<String>,
    what: String,
    declared: toml::Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeclaredNetwork {
    access: toml::Spanned<String>,
    fetch: toml::Spanned<String>,
    dns: toml::Spanned<String>,
    #[serde(default)]
    generic_labels: Vec<String>,
    destination_param: Option<toml::Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDeclaredPath {
    param: toml::Spanned<String>,
    description: toml::Spanned<String>,
    severity: toml::Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFixtures {
    #[serde(default)]
    fires: Vec<String>,
    #[serde(default)]
    clean: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_static_rules_load_with_docs_and_fixture_pairs() {
        let rules = load(STATIC_RULE_FILES).expect("rules load");
        assert_eq!(rules.len(), STATIC_RULE_FILES.len());
        for r in &rules {
            assert!(r.meta.id.starts_with("MCPS-S"), "{}", r.meta.id);
            assert!(!r.meta.docs.fix.is_empty());
            assert!(!r.fixtures.fires.is_empty() && !r.fixtures.clean.is_empty());
        }
        let threats: Vec<&str> = rules
            .iter()
            .map(|r| r.meta.taxonomy.threat.as_str())
            .collect();
        for t in [
            "DATA EXFILTRATION",
            "INJECTION ATTACKS",
            "UNAUTHORIZED OR UNSOLICITED CODE EXECUTION",
            "ARBITRARY RESOURCE READ/WRITE",
            "UNAUTHORIZED OR UNSOLICITED NETWORK ACCESS",
            "TEMPLATE INJECTION",
            "BACKDOOR",
            "GENERAL DESCRIPTION-CODE MISMATCH",
        ] {
            assert!(threats.contains(&t), "no rule for {t}");
        }
    }

    #[test]
    fn severities_follow_the_taxonomy_unless_the_docs_justify_the_change() {
        for r in load(STATIC_RULE_FILES).expect("rules load") {
            assert_ne!(
                r.meta.severity,
                mcp_scan_core::Severity::Critical,
                "{}: CRITICAL needs corroboration, static evidence alone never has it",
                r.meta.id
            );
            if r.meta.severity != r.meta.taxonomy.severity {
                let word = r.meta.severity.as_str().to_lowercase();
                assert!(
                    r.meta.docs.why.to_lowercase().contains(&word),
                    "{} deviates from the taxonomy severity ({} instead of {}) without saying why",
                    r.meta.id,
                    r.meta.severity,
                    r.meta.taxonomy.severity
                );
            }
        }
    }

    #[test]
    fn every_rule_file_in_the_directory_is_embedded() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../rules/static");
        let mut on_disk: Vec<String> = std::fs::read_dir(dir)
            .expect("rules/static")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".toml"))
            .collect();
        on_disk.sort();
        let embedded: Vec<String> = STATIC_RULE_FILES
            .iter()
            .map(|(n, _)| n.trim_start_matches("rules/static/").to_string())
            .collect();
        assert_eq!(on_disk, embedded);
    }

    #[test]
    fn rule_with_unknown_sink_kind_fails_at_its_line() {
        let (name, text) = STATIC_RULE_FILES[1];
        let bad = text.replace("sinks = [\"command-exec\"]", "sinks = [\"telepathy\"]");
        let e = load(&[(name, &bad)]).expect_err("unknown kind");
        assert!(e.message.contains("telepathy"), "{e}");
        let line = bad
            .lines()
            .position(|l| l.contains("telepathy"))
            .map(|i| i + 1);
        assert_eq!(Some(e.line), line, "{e}");
    }

    fn s010() -> DeclaredNetwork {
        let rules = load(STATIC_RULE_FILES).expect("rules load");
        let r = rules
            .iter()
            .find(|r| r.meta.id == "MCPS-S010")
            .expect("S010");
        match &r.matcher {
            Match::Capability {
                declared_network: Some(d),
                ..
            } => d.clone(),
            _ => panic!("S010 judges declared network use"),
        }
    }

    #[test]
    fn a_fixed_host_is_declared_by_its_name_or_its_service_and_not_by_loose_words() {
        let d = s010();
        let none = std::collections::BTreeSet::new();
        let says = |desc: &str, host: &str| {
            d.declares(
                Some(desc),
                "tool",
                "srv",
                "network-fetch",
                Some(host),
                &none,
            )
        };
        assert!(says("Download a paper from arXiv.", "export.arxiv.org"));
        assert!(says(
            "Use Wolfram Alpha to answer a question.",
            "api.wolframalpha.com"
        ));
        assert!(says(
            "Fetch services from AWS China documentation.",
            "docs.amazonaws.cn"
        ));
        assert!(says("Posts to hooks.example.com.", "hooks.example.com"));
        assert!(!says(
            "Formats a report for the API server.",
            "collector.metrics-hub.net"
        ));
        assert!(!says("Search the notes.", "93.184.216.34"));
        assert!(says(
            "Fetches a URL from the internet.",
            "telemetry.example.net"
        ));
        assert!(!says("Fetch data from an endpoint.", "169.254.169.254"));
        assert!(!says(
            "Fetch data from an endpoint.",
            "metadata.google.internal"
        ));
        assert!(!d.declares(
            Some("Fetches a URL from the internet."),
            "tool",
            "srv",
            "network-send",
            Some("telemetry.example.net"),
            &none
        ));
        // The server's name counts: a tool of `postmark-mcp` talks to postmarkapp.com.
        assert!(d.declares(
            Some("List email templates."),
            "list_templates",
            "postmark-mcp",
            "network-fetch",
            Some("api.postmarkapp.com"),
            &none
        ));
    }

    #[test]
    fn a_destination_the_code_does_not_fix_is_declared_by_access_words_or_its_service() {
        let d = s010();
        let none = std::collections::BTreeSet::new();
        let obsidian = std::collections::BTreeSet::from(["obsidian".to_string()]);
        assert!(d.declares(
            Some("Search the notes."),
            "notes",
            "srv",
            "network-send",
            None,
            &none
        ));
        assert!(d.declares(
            Some("Get details of a specific Jira issue."),
            "jira_get_issue",
            "srv",
            "network-fetch",
            None,
            &none
        ));
        assert!(d.declares(
            Some("Return a file of your vault."),
            "obsidian_get_file",
            "srv",
            "network-fetch",
            None,
            &obsidian
        ));
        assert!(!d.declares(
            Some("Return a file of your vault."),
            "get_file",
            "srv",
            "network-fetch",
            None,
            &none
        ));
        assert!(!d.declares(
            Some("Formats a note."),
            "format_note",
            "srv",
            "network-send",
            None,
            &obsidian
        ));
        // A name the code does not fix resolved through DNS names no destination; a fixed one
        // is declared only by saying the tool resolves names.
        assert!(d.declares(
            Some("Formats a note."),
            "format_note",
            "srv",
            "dns",
            None,
            &none
        ));
        assert!(!d.declares(
            Some("Formats a note."),
            "format_note",
            "srv",
            "dns",
            Some("beacon-relay.net"),
            &none
        ));
        assert!(d.declares(
            Some("Resolves a hostname."),
            "lookup",
            "srv",
            "dns",
            Some("example.com"),
            &none
        ));
    }

    #[test]
    fn a_server_named_for_its_service_declares_that_service_but_no_other_host() {
        let d = s010();
        let none = std::collections::BTreeSet::new();
        let desk = "ticketdesk-mcp";
        // A fixed host, and a configured one known by its service or its default URL's host.
        assert!(d.declares(
            Some("List open tickets."),
            "list_tickets",
            desk,
            "network-send",
            Some("api.ticketdesk.io"),
            &none
        ));
        let by_service = std::collections::BTreeSet::from(["ticketdesk".to_string()]);
        assert!(d.declares(
            Some("Close a ticket."),
            "close_ticket",
            desk,
            "network-send",
            None,
            &by_service
        ));
        let by_default = std::collections::BTreeSet::from(["app.ticketdesk.io".to_string()]);
        assert!(d.declares(
            Some("Close a ticket."),
            "close_ticket",
            desk,
            "network-send",
            None,
            &by_default
        ));
        // Another host, another service's configuration, another default: not declared.
        assert!(!d.declares(
            Some("Close a ticket."),
            "close_ticket",
            desk,
            "network-send",
            Some("relay.stats-sink.net"),
            &none
        ));
        let telemetry = std::collections::BTreeSet::from(["telemetry".to_string()]);
        assert!(!d.declares(
            Some("Close a ticket."),
            "close_ticket",
            desk,
            "network-send",
            None,
            &telemetry
        ));
        let other = std::collections::BTreeSet::from(["ingest.stats-sink.net".to_string()]);
        assert!(!d.declares(
            Some("Close a ticket."),
            "close_ticket",
            desk,
            "network-send",
            None,
            &other
        ));
        // Words every server's name carries (`mcp`, `server`, `tool`) name no host.
        assert!(!d.declares(
            Some("Close a ticket."),
            "close_ticket",
            "notes-mcp-server",
            "network-send",
            Some("mcp.stats-sink.net"),
            &none
        ));
        assert!(!d.declares(
            Some("Close a ticket."),
            "call_tool",
            "lyzr-tool-call",
            "network-send",
            Some("callback.stats-sink.net"),
            &none
        ));
    }

    #[test]
    fn a_chinese_description_declares_a_link_without_word_boundaries() {
        let d = s010();
        let none = std::collections::BTreeSet::new();
        assert!(d.declares(
            Some("读取分享链接指向的工单。"),
            "ticket_from_link",
            "desk",
            "network-fetch",
            None,
            &none
        ));
        assert!(!d.declares(
            Some("总结工单内容。"),
            "summarize",
            "desk",
            "network-fetch",
            None,
            &none
        ));
    }

    #[test]
    fn proper_nouns_are_capitalised_words_inside_a_sentence() {
        assert_eq!(
            proper_nouns("Get a Jira issue. Returns arXiv data"),
            vec!["jira", "arxiv"]
        );
        assert!(proper_nouns("Formats a note.").is_empty());
    }

    #[test]
    fn rule_without_benign_twin_is_rejected() {
        let (name, text) = STATIC_RULE_FILES[0];
        let cut = text.find("clean =").expect("clean line");
        let bad = &text[..cut];
        let e = load(&[(name, bad)]).expect_err("no twin");
        assert!(e.message.contains("clean"), "{e}");
    }
}
