//! Living with findings: rule selection, inline suppression comments and the baseline.
//!
//! Applied to the merged report, before trust is scored. Suppression only moves findings out of
//! the verdict into [`Report::suppressions`], where every format counts and lists them; entity
//! and witness coverage is untouched, so a suppressed finding never turns an INCOMPLETE entity
//! into a SAFE one.
//!
//! - **Selection** (`select`/`ignore`, like ruff): a pattern is a rule id or a prefix of one,
//!   with or without the `MCPS-` family prefix (`S012`, `S0`, `MCPS-D`). The longest matching
//!   pattern decides; a tie goes to `ignore`; with no `select`, every rule is selected.
//! - **Inline**: `# mcp-scan: ignore[S012] reason` (`//` for TypeScript and Go) on the
//!   finding's line, or alone on the line above. Ids are exact (with or without `MCPS-`).
//!   A comment without a reason still suppresses, and is itself a warning.
//! - **Baseline**: accepted findings by [`baseline_fingerprint`], each with a reason and an
//!   optional expiry date. An expired entry stops suppressing and says so on the finding; an
//!   entry that matches nothing is reported stale.

use mcp_scan_core::{
    BaselineEntryNote, Evidence, Finding, Report, SuppressedFinding, SuppressionKind,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

/// The reason `--write-baseline` writes: a warning until someone replaces it.
pub const PLACEHOLDER_REASON: &str = "TODO: say why this finding is accepted";

/// Which rules count (`[rules] select`/`ignore`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSelection {
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

impl RuleSelection {
    /// Whether findings of `rule_id` count.
    pub fn selected(&self, rule_id: &str) -> bool {
        let best =
            |patterns: &[String]| patterns.iter().filter_map(|p| match_len(p, rule_id)).max();
        let select = if self.select.is_empty() {
            Some(0)
        } else {
            best(&self.select)
        };
        match (select, best(&self.ignore)) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(s), Some(i)) => s > i,
        }
    }
}

/// How much of `rule_id` the pattern covers, when it is a prefix of it (case-insensitive; the
/// `MCPS-` family prefix may be left out).
fn match_len(pattern: &str, rule_id: &str) -> Option<usize> {
    let p = pattern.trim().to_ascii_uppercase();
    let id = rule_id.to_ascii_uppercase();
    if p.is_empty() {
        return None;
    }
    let short = id.rsplit_once('-').map_or(id.as_str(), |(_, s)| s);
    if id.starts_with(&p) {
        Some(p.len())
    } else if short.starts_with(&p) {
        Some(p.len() + (id.len() - short.len()))
    } else {
        None
    }
}

/// Whether an inline comment's id names `rule_id` exactly.
fn names_rule(id: &str, rule_id: &str) -> bool {
    let id = id.trim();
    id.eq_ignore_ascii_case(rule_id)
        || rule_id
            .rsplit_once('-')
            .is_some_and(|(_, short)| id.eq_ignore_ascii_case(short))
}

/// A baseline file: `[[finding]]` tables.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    #[serde(default, rename = "finding")]
    pub entries: Vec<BaselineEntry>,
}

/// One accepted finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    /// [`baseline_fingerprint`] of the finding.
    pub fingerprint: String,
    /// The rule, server and entity, for people reading the file (the fingerprint decides).
    pub rule: String,
    pub server: String,
    pub entity: String,
    /// What the finding said when it was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observation: Option<String>,
    /// Why it is accepted.
    pub reason: String,
    /// `YYYY-MM-DD`: after this day the entry no longer suppresses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// What can be wrong with a baseline file.
#[derive(Debug, thiserror::Error)]
pub enum BaselineError {
    #[error("cannot read baseline {path}: {message}")]
    Read { path: String, message: String },
    #[error("{path}: {message}")]
    Parse { path: String, message: String },
}

impl Baseline {
    /// Reads and checks a baseline file (unknown keys and bad dates are errors with their line).
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let text = std::fs::read_to_string(path).map_err(|e| BaselineError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    pub fn parse(text: &str, shown: &str) -> Result<Baseline, BaselineError> {
        let err = |message: String| BaselineError::Parse {
            path: shown.to_string(),
            message,
        };
        let b: Baseline = toml::from_str(text).map_err(|e| err(toml_error(text, &e)))?;
        for e in &b.entries {
            if let Some(d) = &e.expires
                && parse_date(d).is_none()
            {
                let line = text
                    .find(&format!("\"{d}\""))
                    .map(|o| line_of(text, o))
                    .map_or(String::new(), |l| format!("line {l}: "));
                return Err(err(format!(
                    "{line}expires = \"{d}\" is not a date (YYYY-MM-DD)"
                )));
            }
        }
        Ok(b)
    }

    /// The file text, entries sorted by server, entity and rule.
    pub fn to_toml(&self) -> String {
        let mut b = self.clone();
        b.entries.sort_by(|x, y| {
            (&x.server, &x.entity, &x.rule, &x.fingerprint).cmp(&(
                &y.server,
                &y.entity,
                &y.rule,
                &y.fingerprint,
            ))
        });
        let body = toml::to_string(&b).unwrap_or_default();
        format!(
            "# mcp-scan baseline: accepted findings, matched by fingerprint (docs/configuration.md).\n\
             # Give each entry a real reason; `expires = \"YYYY-MM-DD\"` makes it count again after that day.\n\n{body}"
        )
    }
}

/// A toml error as `line L, column C: message` (toml reports the span of the offending key).
pub fn toml_error(text: &str, e: &toml::de::Error) -> String {
    let msg = e.message().trim().to_string();
    match e.span() {
        Some(span) => {
            let line = line_of(text, span.start);
            let col = span.start - text[..span.start].rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {col}: {msg}")
        }
        None => msg,
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// `YYYY-MM-DD` as days since 1970-01-01.
pub fn parse_date(s: &str) -> Option<i64> {
    let mut it = s.trim().splitn(3, '-');
    let y: i64 = it.next()?.parse().ok()?;
    let m: i64 = it.next()?.parse().ok()?;
    let d: i64 = it.next()?.parse().ok()?;
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || !(1970..=9999).contains(&y) {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// Today (UTC) as days since 1970-01-01.
pub fn today() -> i64 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    i64::try_from(secs / 86_400).unwrap_or(0)
}

/// A fingerprint that survives line shifts and unrelated edits: the rule, the server and entity,
/// and, for a finding in source, the file's name and the normalised text of the flagged line
/// (never its line number); any other finding's own key (a field, a destination) is already
/// free of positions.
pub fn baseline_fingerprint(f: &Finding) -> String {
    let anchor = match &f.location {
        Some(l) => {
            let name = Path::new(&l.file)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = l
                .snippet
                .as_deref()
                .map(collapse_ws)
                .unwrap_or_else(|| strip_positions(&f.observation));
            format!("src:{name}:{text}")
        }
        None => format!("key:{}", f.fingerprint),
    };
    mcp_scan_core::fingerprint(&f.rule_id, &f.target, &anchor)
}

fn collapse_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The observation without `:LINE` / `:LINE:COL` suffixes.
fn strip_positions(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == ':' && chars.peek().is_some_and(char::is_ascii_digit) {
            while chars
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || *c == ':')
            {
                chars.next();
            }
            continue;
        }
        out.push(c);
    }
    collapse_ws(&out)
}

/// Everything `scan` does to findings after the merge.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    pub rules: RuleSelection,
    /// The baseline and the path it is shown as.
    pub baseline: Option<(Baseline, String)>,
    /// Read `mcp-scan: ignore[...]` comments from the source (on unless turned off).
    pub no_inline: bool,
    /// Days since 1970-01-01 to judge expiry by (today when `None`).
    pub today: Option<i64>,
    /// The folder relative finding locations are relative to (`behavioral` reports paths from
    /// the scanned root; `scan` rebases them to the current directory and leaves this `None`).
    pub source_root: Option<PathBuf>,
}

/// An inline directive: the rule ids it names and its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    pub rules: Vec<String>,
    pub reason: Option<String>,
}

/// Parses `# mcp-scan: ignore[S012, S014] reason` or `// mcp-scan: ignore[S012] reason` in a
/// source line, when the marker sits in a comment.
pub fn parse_directive(line: &str) -> Option<Directive> {
    let at = line.find("mcp-scan:")?;
    let before = line[..at].trim_end();
    if !(before.ends_with('#') || before.ends_with("//")) {
        return None;
    }
    let rest = line[at + "mcp-scan:".len()..].trim_start();
    let rest = rest.strip_prefix("ignore")?;
    let rest = rest.strip_prefix('[')?;
    let (ids, reason) = rest.split_once(']')?;
    let rules: Vec<String> = ids
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    let reason = reason
        .trim()
        .trim_start_matches([':', '-', '—'])
        .trim()
        .trim_end_matches("*/")
        .trim();
    Some(Directive {
        rules,
        reason: (!reason.is_empty()).then(|| reason.to_string()),
    })
}

fn is_comment_only(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with('#') || t.starts_with("//")
}

/// Source lines by file, read once.
#[derive(Default)]
struct Sources {
    root: Option<PathBuf>,
    files: HashMap<String, Option<Vec<String>>>,
}

impl Sources {
    fn line(&mut self, file: &str, line: u32) -> Option<&str> {
        let root = self.root.as_deref();
        let lines = self.files.entry(file.to_string()).or_insert_with(|| {
            let path = match root {
                Some(r) if Path::new(file).is_relative() => r.join(file),
                _ => PathBuf::from(file),
            };
            std::fs::read(path).ok().map(|b| {
                String::from_utf8_lossy(&b)
                    .lines()
                    .map(str::to_string)
                    .collect()
            })
        });
        let i = usize::try_from(line).ok()?.checked_sub(1)?;
        lines.as_ref()?.get(i).map(String::as_str)
    }

    /// The directive that applies to a finding at `file:line`: on that line, or alone on the
    /// line above. Returns it with the line it is on.
    fn directive(&mut self, file: &str, line: u32) -> Option<(Directive, u32)> {
        if let Some(d) = self.line(file, line).and_then(parse_directive) {
            return Some((d, line));
        }
        let above = line.checked_sub(1).filter(|l| *l > 0)?;
        let text = self.line(file, above)?;
        if !is_comment_only(text) {
            return None;
        }
        parse_directive(text).map(|d| (d, above))
    }
}

fn target_label(f: &Finding) -> String {
    format!("{}/{} {}", f.target.server, f.target.kind, f.target.name)
}

fn entry_note(e: &BaselineEntry) -> BaselineEntryNote {
    BaselineEntryNote {
        fingerprint: e.fingerprint.clone(),
        rule: e.rule.clone(),
        target: format!("{}/{}", e.server, e.entity),
        reason: e.reason.clone(),
        expires: e.expires.clone(),
    }
}

/// Applies selection, inline comments and the baseline to a merged report (see the module docs).
pub fn apply(report: &mut Report, policy: &Policy) {
    let today = policy.today.unwrap_or_else(today);
    let mut sources = Sources {
        root: policy.source_root.clone(),
        ..Sources::default()
    };
    let sup = &mut report.suppressions;
    let entries: &[BaselineEntry] = policy
        .baseline
        .as_ref()
        .map_or(&[], |(b, _)| b.entries.as_slice());
    let origin = policy
        .baseline
        .as_ref()
        .map_or(String::new(), |(_, o)| o.clone());
    let mut by_fp: BTreeMap<&str, &BaselineEntry> = BTreeMap::new();
    for e in entries {
        by_fp.entry(e.fingerprint.as_str()).or_insert(e);
        if e.reason.trim().is_empty() || e.reason == PLACEHOLDER_REASON {
            let w = format!(
                "{origin}: baseline entry {} ({} on {}/{}) gives no reason",
                e.fingerprint, e.rule, e.server, e.entity
            );
            if !sup.warnings.contains(&w) {
                sup.warnings.push(w);
            }
        }
    }
    let mut matched: BTreeSet<String> = BTreeSet::new();
    let mut expired_seen: BTreeSet<String> = BTreeSet::new();
    for ent in &mut report.entities {
        let findings = std::mem::take(&mut ent.findings);
        for mut f in findings {
            if !policy.rules.selected(&f.rule_id) {
                *sup.deselected.entry(f.rule_id.clone()).or_default() += 1;
                continue;
            }
            let fp = baseline_fingerprint(&f);
            let entry = by_fp.get(fp.as_str()).copied();
            if entry.is_some() {
                matched.insert(fp.clone());
            }
            let inline = match (&f.location, policy.no_inline) {
                (Some(l), false) => sources
                    .directive(&l.file, l.line)
                    .filter(|(d, _)| d.rules.iter().any(|r| names_rule(r, &f.rule_id)))
                    .map(|(d, at)| (d, format!("{}:{at}", l.file))),
                _ => None,
            };
            if let Some((d, at)) = inline {
                if d.reason.is_none() {
                    sup.warnings.push(format!(
                        "{at}: inline suppression of {} gives no reason",
                        f.rule_id
                    ));
                }
                sup.suppressed.push(SuppressedFinding {
                    kind: SuppressionKind::Inline,
                    reason: d.reason,
                    origin: at,
                    expires: None,
                    baseline_fingerprint: fp,
                    finding: f,
                });
                continue;
            }
            if let Some(e) = entry {
                let expired = e
                    .expires
                    .as_deref()
                    .and_then(parse_date)
                    .is_some_and(|d| today > d);
                if expired {
                    f.evidence.push(Evidence::Note {
                        text: format!(
                            "baseline entry expired on {} (reason was: {}): no longer suppressed",
                            e.expires.as_deref().unwrap_or(""),
                            e.reason
                        ),
                    });
                    if expired_seen.insert(fp.clone()) {
                        sup.expired.push(entry_note(e));
                    }
                    ent.findings.push(f);
                    continue;
                }
                sup.suppressed.push(SuppressedFinding {
                    kind: SuppressionKind::Baseline,
                    reason: Some(e.reason.clone()),
                    origin: origin.clone(),
                    expires: e.expires.clone(),
                    baseline_fingerprint: fp,
                    finding: f,
                });
                continue;
            }
            ent.findings.push(f);
        }
    }
    for e in entries {
        if !matched.contains(&e.fingerprint) {
            sup.stale.push(entry_note(e));
        }
    }
    sup.suppressed.sort_by(|a, b| {
        (target_label(&a.finding), &a.finding.rule_id, &a.origin).cmp(&(
            target_label(&b.finding),
            &b.finding.rule_id,
            &b.origin,
        ))
    });
}

/// A baseline accepting every finding of `report` (those still counted and those a baseline
/// already suppresses, whose reasons and expiry are kept); new entries get the placeholder
/// reason. Inline-suppressed findings stay in the source.
pub fn baseline_of(report: &Report, previous: Option<&Baseline>) -> Baseline {
    let keep: BTreeMap<&str, &BaselineEntry> = previous
        .map(|b| {
            b.entries
                .iter()
                .map(|e| (e.fingerprint.as_str(), e))
                .collect()
        })
        .unwrap_or_default();
    let mut seen = BTreeSet::new();
    let mut entries = Vec::new();
    let active = report.findings();
    let baselined = report
        .suppressions
        .suppressed
        .iter()
        .filter(|s| s.kind == SuppressionKind::Baseline)
        .map(|s| &s.finding);
    for f in active.chain(baselined) {
        let fp = baseline_fingerprint(f);
        if !seen.insert(fp.clone()) {
            continue;
        }
        let old = keep.get(fp.as_str());
        // An expired entry is written again without its expiry only if the user renews it.
        entries.push(BaselineEntry {
            fingerprint: fp,
            rule: f.rule_id.clone(),
            server: f.target.server.clone(),
            entity: format!("{} {}", f.target.kind, f.target.name),
            observation: Some(f.observation.clone()),
            reason: old.map_or(PLACEHOLDER_REASON.to_string(), |e| e.reason.clone()),
            expires: old.and_then(|e| e.expires.clone()),
        });
    }
    Baseline { entries }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_scan_core::taxonomy::by_threat;
    use mcp_scan_core::{Analyzer, SourceLocation, ToolRef};

    fn static_finding(server: &str, line: u32, snippet: &str) -> Finding {
        let mut loc = SourceLocation::new("srv/server.py", line, 5);
        loc.snippet = Some(snippet.into());
        Finding::builder(
            "MCPS-S012",
            Analyzer::Static,
            by_threat("DATA EXFILTRATION").expect("row"),
            ToolRef::tool(server, "fetch"),
        )
        .observation(format!("urlopen at server.py:{line}:5"))
        .location(loc.clone())
        .key(format!("{}:{}:{}", loc.file, loc.line, loc.column))
        .build()
    }

    #[test]
    fn selection_is_by_id_or_prefix_and_the_longest_pattern_wins() {
        let sel = RuleSelection {
            select: vec!["S".into()],
            ignore: vec!["S01".into()],
        };
        assert!(sel.selected("MCPS-S002"));
        assert!(!sel.selected("MCPS-S012"));
        assert!(!sel.selected("MCPS-D001"));
        let sel = RuleSelection {
            select: vec!["S012".into()],
            ignore: vec!["S0".into()],
        };
        assert!(sel.selected("MCPS-S012"), "the more specific select wins");
        assert!(!sel.selected("MCPS-S013"));
        assert!(RuleSelection::default().selected("MCPS-R003"));
        let full = RuleSelection {
            select: vec!["MCPS-".into()],
            ignore: vec![],
        };
        assert!(full.selected("MCPS-L001"));
    }

    #[test]
    fn the_baseline_fingerprint_survives_line_shifts_but_not_a_changed_line_or_server() {
        let a = static_finding("notes", 12, "urlopen(url,  data)");
        let b = static_finding("notes", 40, "urlopen(url, data)");
        assert_ne!(
            a.fingerprint, b.fingerprint,
            "the report fingerprint has the line"
        );
        assert_eq!(baseline_fingerprint(&a), baseline_fingerprint(&b));
        let edited = static_finding("notes", 12, "urlopen(other_url, data)");
        assert_ne!(baseline_fingerprint(&a), baseline_fingerprint(&edited));
        let other_server = static_finding("weather", 12, "urlopen(url,  data)");
        assert_ne!(
            baseline_fingerprint(&a),
            baseline_fingerprint(&other_server)
        );
    }

    #[test]
    fn directives_need_a_comment_marker_and_carry_ids_and_reason() {
        assert_eq!(
            parse_directive("x = open(p)  # mcp-scan: ignore[S012, MCPS-S014] reads our own file"),
            Some(Directive {
                rules: vec!["S012".into(), "MCPS-S014".into()],
                reason: Some("reads our own file".into()),
            })
        );
        assert_eq!(
            parse_directive("  // mcp-scan: ignore[S001]"),
            Some(Directive {
                rules: vec!["S001".into()],
                reason: None,
            })
        );
        assert_eq!(parse_directive("s = 'mcp-scan: ignore[S001] no'"), None);
        assert_eq!(parse_directive("# mcp-scan: ignore everything"), None);
    }

    #[test]
    fn dates_parse_and_order() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("2000-03-01"), Some(11_017));
        assert!(parse_date("2026-13-01").is_none());
        assert!(parse_date("tomorrow").is_none());
        assert!(parse_date("2026-11-24") < parse_date("2026-11-25"));
    }

    #[test]
    fn a_baseline_with_an_unknown_key_is_an_error_naming_its_line() {
        let e = Baseline::parse(
            "[[finding]]\nfingerprint = \"x\"\nrule = \"R\"\nserver = \"s\"\nentity = \"tool t\"\nreason = \"ok\"\nexpiry = \"2026-01-01\"\n",
            "b.toml",
        )
        .expect_err("unknown key")
        .to_string();
        assert!(
            e.contains("b.toml") && e.contains("line 7") && e.contains("expiry"),
            "{e}"
        );
    }
}
