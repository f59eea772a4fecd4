//! `--format html`: one self-contained page (inline CSS and a small inline script, nothing
//! loaded from anywhere; a Content-Security-Policy forbids it) that reads fully with JavaScript
//! off. The script only adds the severity and witness filters.
//!
//! Every string that comes from a scanned server (names, descriptions, evidence, paths) is
//! untrusted: it goes through [`text`] (hidden characters made visible, then HTML-escaped) and is
//! only ever placed in element content or double-quoted attribute values, never in a URL, a
//! `<script>` or a `<style>`.
//!
//! Fields that newer reports carry (a trust score per item, one entry per server) are read from
//! the report's JSON form, so the page shows them as soon as the report holds them.

use crate::RenderOptions;
use crate::common::{View, entity_name, incomplete_reasons, plural, severity_counts};
use crate::style::{MAX_NAME_CHARS, MAX_TEXT_CHARS, Verdict, clip};
use mcp_scan_core::{
    Analyzer, AnalyzerState, DiagnosticLevel, EntityReport, Evidence, Finding, Report, Severity,
    ToolStatus,
};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

const CSS: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/filter.js");

/// HTML-escapes `s` for element content and double-quoted attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// An untrusted text, clipped, hidden characters made visible, escaped.
fn text(s: &str) -> String {
    esc(&clip(s, MAX_TEXT_CHARS))
}

/// An untrusted name, clipped shorter.
fn name(s: &str) -> String {
    esc(&clip(s, MAX_NAME_CHARS))
}

/// A source snippet: lines kept, each line cleaned and escaped.
fn snippet(s: &str) -> String {
    let lines: Vec<String> = s.lines().take(40).map(|l| esc(&clip(l, 300))).collect();
    lines.join("\n")
}

/// `'sha256-…'` for the CSP, so the page's own style and script run and nothing else does.
fn csp_hash(body: &str) -> String {
    let digest = Sha256::digest(body.as_bytes());
    format!("'sha256-{}'", mcp_scan_core::codec::base64_encode(&digest))
}

fn sev_class(s: Severity) -> &'static str {
    match s {
        Severity::Critical => "critical",
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Low => "low",
        Severity::Info => "info",
    }
}

fn verdict_html(v: Option<Verdict>, status: ToolStatus) -> String {
    match v {
        Some(Verdict::Severity(s)) => format!(
            "<span class=\"badge sev-{}\">{}</span>",
            sev_class(s),
            s.as_str()
        ),
        Some(Verdict::Incomplete) => {
            "<span class=\"badge incomplete\">INCOMPLETE</span>".to_string()
        }
        Some(Verdict::Safe) => "<span class=\"badge safe\">SAFE</span>".to_string(),
        // Unsafe, but every finding that made it so is below --min-severity.
        None => format!(
            "<span class=\"badge unsafe\">{} (findings hidden)</span>",
            status.as_str()
        ),
    }
}

/// The witness that produced a piece of evidence, by its kind; notes belong to the finding.
fn evidence_witness(e: &Evidence, f: &Finding) -> Option<Analyzer> {
    match e {
        Evidence::Text { .. } => Some(Analyzer::Description),
        Evidence::Source { .. } => Some(Analyzer::Static),
        Evidence::Syscall { .. } | Evidence::Network { .. } => Some(Analyzer::Runtime),
        Evidence::Llm { .. } => Some(Analyzer::Llm),
        Evidence::Note { .. } => f.analyzers.first().copied(),
    }
}

fn evidence_html(out: &mut String, e: &Evidence) {
    match e {
        Evidence::Text {
            field,
            excerpt,
            offset,
        } => {
            let at = offset.map(|o| format!(" at {o}")).unwrap_or_default();
            let _ = write!(
                out,
                "<li class=\"ev ev-text\"><span class=\"ek\">text</span> <code>{}</code>{at}: <q>{}</q></li>",
                name(field),
                text(excerpt)
            );
        }
        Evidence::Source { location, note } => {
            let _ = write!(
                out,
                "<li class=\"ev ev-source\"><span class=\"ek\">source</span> <code class=\"loc\">{}:{}:{}</code> {}",
                name(&location.file),
                location.line,
                location.column,
                text(note)
            );
            if let Some(s) = &location.snippet {
                let _ = write!(out, "<pre class=\"snippet\">{}</pre>", snippet(s));
            }
            out.push_str("</li>");
        }
        Evidence::Syscall { line, pid, phase } => {
            let _ = write!(
                out,
                "<li class=\"ev ev-syscall\"><span class=\"ek\">syscall</span>"
            );
            if let Some(p) = phase {
                let _ = write!(out, " <span class=\"phase\">[{}]</span>", name(p));
            }
            if let Some(pid) = pid {
                let _ = write!(out, " <span class=\"pid\">pid {pid}</span>");
            }
            let _ = write!(out, " <code>{}</code></li>", text(line));
        }
        Evidence::Network {
            destination,
            protocol,
            payload_excerpt,
        } => {
            let _ = write!(
                out,
                "<li class=\"ev ev-network\"><span class=\"ek\">network</span> {} <code>{}</code>",
                name(protocol),
                name(destination)
            );
            if let Some(p) = payload_excerpt {
                let _ = write!(out, ": <q>{}</q>", text(p));
            }
            out.push_str("</li>");
        }
        Evidence::Llm { model, rationale } => {
            let _ = write!(
                out,
                "<li class=\"ev ev-llm\"><span class=\"ek\">llm</span> <code>{}</code>: {}</li>",
                name(model),
                text(rationale)
            );
        }
        Evidence::Note { text: t } => {
            let _ = write!(
                out,
                "<li class=\"ev ev-note\"><span class=\"ek\">note</span> {}</li>",
                text(t)
            );
        }
    }
}

fn finding_html(out: &mut String, f: &Finding) {
    let analyzers: Vec<&str> = f.analyzers.iter().map(|a| a.as_str()).collect();
    let t = &f.taxonomy;
    let _ = writeln!(
        out,
        "<article class=\"finding\" data-severity=\"{sev}\" data-analyzers=\"{an}\">\n\
         <h3><span class=\"badge sev-{sev}\">{SEV}</span> <code class=\"rule\">{rule}</code> {title}</h3>",
        sev = sev_class(f.severity),
        SEV = f.severity.as_str(),
        an = esc(&analyzers.join(" ")),
        rule = name(&f.rule_id),
        title = text(&f.title),
    );
    let corroborated = if f.corroborated() {
        " <span class=\"corroborated\">corroborated</span>"
    } else {
        ""
    };
    let _ = writeln!(
        out,
        "<dl class=\"facts\"><dt>Item</dt><dd>{server}/{kind} <b>{item}</b></dd>\
         <dt>Seen by</dt><dd>{an}{corroborated}</dd>\
         <dt>Confidence</dt><dd>{conf}</dd>\
         <dt>Taxonomy</dt><dd><span class=\"tax\">{tc}</span> {tn} &gt; <span class=\"tax\">{sc}</span> {sn}</dd>",
        server = name(&f.target.server),
        kind = f.target.kind,
        item = name(&f.target.name),
        an = esc(&analyzers.join(", ")),
        conf = esc(&f.confidence.to_string()),
        tc = name(&t.technique),
        tn = text(&t.technique_name),
        sc = name(&t.subtechnique),
        sn = text(&t.subtechnique_name),
    );
    if let Some(loc) = &f.location {
        let _ = write!(
            out,
            "<dt>Source</dt><dd><code class=\"loc\">{}:{}:{}</code>",
            name(&loc.file),
            loc.line,
            loc.column
        );
        if let Some(s) = &loc.snippet {
            let _ = write!(out, "<pre class=\"snippet\">{}</pre>", snippet(s));
        }
        out.push_str("</dd>");
    }
    let _ = writeln!(
        out,
        "<dt>Fingerprint</dt><dd><code>{}</code></dd></dl>",
        name(&f.fingerprint)
    );
    let _ = writeln!(out, "<p class=\"observation\">{}</p>", text(&f.observation));
    if let Some(d) = &f.declared {
        let _ = writeln!(
            out,
            "<p class=\"declared\">Declared: <q>{}</q></p>",
            text(d)
        );
    }
    // Evidence side by side, one column per witness.
    let mut columns: Vec<(Option<Analyzer>, Vec<&Evidence>)> = Vec::new();
    for e in &f.evidence {
        let w = evidence_witness(e, f);
        match columns.iter_mut().find(|(a, _)| *a == w) {
            Some((_, list)) => list.push(e),
            None => columns.push((w, vec![e])),
        }
    }
    columns.sort_by_key(|(a, _)| *a);
    if !columns.is_empty() {
        out.push_str("<div class=\"witnesses\">\n");
        for (a, list) in columns {
            let label = a.map_or("evidence", Analyzer::as_str);
            let _ = write!(
                out,
                "<section class=\"witness\" data-witness=\"{label}\"><h4>{label}</h4><ul>"
            );
            for e in list {
                evidence_html(out, e);
            }
            out.push_str("</ul></section>\n");
        }
        out.push_str("</div>\n");
    }
    out.push_str("</article>\n");
}

/// Optional fields newer reports carry, read from the report's JSON form.
struct Extra {
    /// Trust score per entity, in entity order.
    trust: Vec<Option<u64>>,
    servers: Vec<serde_json::Value>,
}

fn extra(report: &Report) -> Extra {
    let v = serde_json::to_value(report).unwrap_or(serde_json::Value::Null);
    let trust = v["entities"]
        .as_array()
        .map(|es| es.iter().map(|e| e["trust"].as_u64()).collect())
        .unwrap_or_default();
    let servers = v["servers"].as_array().cloned().unwrap_or_default();
    Extra { trust, servers }
}

fn json_str(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn servers_section(out: &mut String, servers: &[serde_json::Value]) {
    if servers.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<section id=\"servers\"><h2>Servers ({})</h2>\n<table><thead><tr><th>Server</th><th>Verdict</th><th>Trust</th><th>Origin</th><th>Witnesses</th><th>Notes</th></tr></thead><tbody>",
        servers.len()
    );
    for s in servers {
        let status = json_str(&s["status"]);
        let class = match status.as_str() {
            "SAFE" => "safe",
            "INCOMPLETE" => "incomplete",
            _ => "unsafe",
        };
        let list = |key: &str| -> String {
            s[key]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|x| text(&json_str(x)))
                        .collect::<Vec<_>>()
                        .join("<br>")
                })
                .unwrap_or_default()
        };
        let witnesses = s["witnesses"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|w| {
                        let mut t = format!(
                            "{}: {}",
                            name(&json_str(&w["analyzer"])),
                            name(&json_str(&w["state"]))
                        );
                        if let Some(r) = w["reason"].as_str() {
                            let _ = write!(t, " ({})", text(r));
                        }
                        t
                    })
                    .collect::<Vec<_>>()
                    .join("<br>")
            })
            .unwrap_or_default();
        let mut origin = list("origin");
        if let Some(info) = s["server_info"].as_str() {
            let _ = write!(origin, "<br>serverInfo: {}", name(info));
        }
        let mut notes = list("notes");
        let env = list("env");
        if !env.is_empty() {
            let _ = write!(notes, "<br>env: {env}");
        }
        let _ = writeln!(
            out,
            "<tr><td><b>{}</b></td><td><span class=\"badge {class}\">{}</span></td><td class=\"trust\">{}</td><td>{}</td><td>{witnesses}</td><td>{notes}</td></tr>",
            name(&json_str(&s["name"])),
            name(&status),
            name(&json_str(&s["trust"])),
            origin,
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn overall(view: &View<'_>) -> (String, &'static str) {
    let r = view.report;
    match (r.max_severity(), r.incomplete()) {
        (Some(s), inc) if s >= Severity::Low => {
            let more = if inc {
                ", and the scan is INCOMPLETE"
            } else {
                ""
            };
            (
                format!("UNSAFE: worst finding {}{more}", s.as_str()),
                "unsafe",
            )
        }
        (_, true) => (
            "INCOMPLETE: part of the target was not analysed; nothing here is known to be safe"
                .to_string(),
            "incomplete",
        ),
        (_, false) if r.entities.is_empty() => (
            "NOTHING SCANNED: no items were found".to_string(),
            "incomplete",
        ),
        (_, false) => ("SAFE: no findings".to_string(), "safe"),
    }
}

pub(crate) fn render(view: &View<'_>, _opts: &RenderOptions<'_>) -> String {
    let r = view.report;
    let ex = extra(r);
    let mut out = String::with_capacity(16 * 1024);
    let csp = format!(
        "default-src 'none'; style-src {}; script-src {}; img-src 'none'; font-src 'none'; \
         connect-src 'none'; base-uri 'none'; form-action 'none'",
        csp_hash(CSS),
        csp_hash(SCRIPT)
    );
    let targets: Vec<String> = r.scan.targets.iter().map(|t| name(t)).collect();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>mcp-scan report ({cmd})</title>\n<style>{CSS}</style>\n</head>\n<body>\n\
         <header><h1>mcp-scan report</h1>\n<p class=\"meta\">{scanner} {version} · <b>{cmd}</b> · {targets}</p>\n",
        cmd = name(&r.scan.command),
        scanner = name(&r.scanner),
        version = name(&r.scanner_version),
        targets = if targets.is_empty() {
            "(no targets)".to_string()
        } else {
            targets.join(", ")
        },
    );
    let (verdict, class) = overall(view);
    let _ = writeln!(
        out,
        "<p id=\"overall\" class=\"overall {class}\">{}</p>\n</header>\n<main>",
        esc(&verdict)
    );

    // Summary: counts per severity (every finding), items per status, analyzers.
    let counts = severity_counts(r.findings());
    out.push_str("<section id=\"summary\"><h2>Summary</h2>\n<table id=\"counts\"><thead><tr>");
    for s in Severity::ALL {
        let _ = write!(out, "<th>{}</th>", s.as_str());
    }
    out.push_str("</tr></thead><tbody><tr>");
    for (s, n) in Severity::ALL.iter().zip(counts) {
        let _ = write!(
            out,
            "<td class=\"count sev-{c}\" data-severity=\"{c}\" data-count=\"{n}\">{n}</td>",
            c = sev_class(*s)
        );
    }
    out.push_str("</tr></tbody></table>\n");
    let n = r.entities.len();
    let _ = writeln!(
        out,
        "<p id=\"items-count\">{n} item{} scanned: <span class=\"badge unsafe\">{} UNSAFE</span> <span class=\"badge incomplete\">{} INCOMPLETE</span> <span class=\"badge safe\">{} SAFE</span></p>",
        plural(n),
        view.status_count(ToolStatus::Unsafe),
        view.status_count(ToolStatus::Incomplete),
        view.status_count(ToolStatus::Safe),
    );
    let analyzers: Vec<&str> = view.analyzers().iter().map(|a| a.as_str()).collect();
    let _ = writeln!(
        out,
        "<p>Analyzers: {}</p>",
        if analyzers.is_empty() {
            "none".to_string()
        } else {
            analyzers.join(", ")
        }
    );
    if let Some(min) = view.min {
        let hidden = view.hidden_findings();
        if hidden > 0 {
            let _ = writeln!(
                out,
                "<p class=\"note\">{hidden} finding{} below {min} left out by --min-severity; the counts and verdicts include them.</p>",
                plural(hidden)
            );
        }
    }
    out.push_str("</section>\n");

    // Coverage.
    if let Some(c) = &r.coverage {
        let files: Vec<String> = c
            .files_by_language
            .iter()
            .map(|(lang, n)| format!("{n} {} file{}", name(lang), plural(*n)))
            .collect();
        let _ = writeln!(
            out,
            "<section id=\"coverage\"><h2>Coverage</h2>\n<p>{}, {} registration site{}, {} item{} resolved, {} gap{}{}</p>",
            if files.is_empty() {
                "0 files".to_string()
            } else {
                files.join(", ")
            },
            c.registration_sites,
            plural(c.registration_sites),
            c.entities_resolved,
            plural(c.entities_resolved),
            c.gaps.len(),
            plural(c.gaps.len()),
            if c.gaps.is_empty() {
                ""
            } else {
                " <span class=\"badge incomplete\">INCOMPLETE</span>"
            }
        );
        if !c.gaps.is_empty() {
            out.push_str(
                "<p>Code not analysed; nothing here is known to be safe:</p>\n<ul class=\"gaps\">",
            );
            for g in &c.gaps {
                let _ = write!(out, "<li>{}</li>", text(&g.to_string()));
            }
            out.push_str("</ul>\n");
        }
        out.push_str("</section>\n");
    }

    servers_section(&mut out, &ex.servers);

    // Items: one row per entity with its verdict and every analyzer's state.
    let has_trust = ex.trust.iter().any(Option::is_some);
    let _ = write!(
        out,
        "<section id=\"items\"><h2>Items ({n})</h2>\n<table><thead><tr><th>Server</th><th>Kind</th><th>Name</th><th>Verdict</th>{}<th>Findings</th><th>Analyzers</th></tr></thead><tbody>\n",
        if has_trust { "<th>Trust</th>" } else { "" }
    );
    for (i, e) in view.entities.iter().enumerate() {
        let status_class = match e.status {
            ToolStatus::Safe => "safe",
            ToolStatus::Unsafe => "unsafe",
            ToolStatus::Incomplete => "incomplete",
        };
        let _ = write!(
            out,
            "<tr class=\"item {status_class}\"><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}",
            name(&e.entity.target.server),
            e.entity.target.kind,
            name(&e.entity.target.name),
            verdict_html(e.verdict, e.status),
        );
        if e.status == ToolStatus::Incomplete || !e.entity.complete() {
            let reasons: Vec<String> = incomplete_reasons(e.entity)
                .iter()
                .map(|s| esc(s))
                .collect();
            if !reasons.is_empty() {
                let _ = write!(out, "<div class=\"reasons\">{}</div>", reasons.join("<br>"));
            }
        }
        out.push_str("</td>");
        if has_trust {
            let t = ex.trust.get(i).copied().flatten();
            let _ = write!(
                out,
                "<td class=\"trust\">{}</td>",
                t.map_or("–".to_string(), |t| t.to_string())
            );
        }
        let _ = writeln!(
            out,
            "<td>{}</td><td>{}</td></tr>",
            e.entity.findings.len(),
            analyzer_states(e.entity)
        );
    }
    out.push_str("</tbody></table></section>\n");

    // Findings, with the filter form the script reveals.
    let shown: Vec<&Finding> = view.entities.iter().flat_map(|e| e.shown.clone()).collect();
    let _ = writeln!(
        out,
        "<section id=\"findings\"><h2>Findings ({})</h2>",
        shown.len()
    );
    out.push_str("<form id=\"filters\" hidden><fieldset><legend>Severity</legend>");
    for s in Severity::ALL {
        let c = sev_class(s);
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" name=\"severity\" value=\"{c}\" checked> {}</label> ",
            s.as_str()
        );
    }
    out.push_str("</fieldset><fieldset><legend>Witness</legend>");
    for a in view.analyzers() {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" name=\"witness\" value=\"{a}\" checked> {a}</label> "
        );
    }
    out.push_str("</fieldset><p id=\"shown\" aria-live=\"polite\"></p></form>\n");
    if shown.is_empty() {
        out.push_str("<p>No findings to show.</p>\n");
    }
    for f in shown {
        finding_html(&mut out, f);
    }
    out.push_str("</section>\n");

    // Static behaviour per tool (behavioral scans).
    if !r.behaviors.is_empty() {
        out.push_str("<section id=\"behaviour\"><h2>Static behaviour</h2>\n<ul>");
        for b in &r.behaviors {
            let caps = b.capabilities.len();
            let _ = write!(
                out,
                "<li><b>{}</b>: handler <code>{}</code> at <code class=\"loc\">{}:{}</code>{}{}</li>",
                name(&b.tool.name),
                name(&b.handler),
                name(&b.location.file),
                b.location.line,
                if caps == 0 {
                    String::new()
                } else {
                    format!(", {caps} capabilit{}", if caps == 1 { "y" } else { "ies" })
                },
                if b.complete {
                    ""
                } else {
                    " <span class=\"badge incomplete\">INCOMPLETE</span>"
                },
            );
        }
        out.push_str("</ul></section>\n");
    }

    if !r.containment.is_empty() {
        out.push_str("<section id=\"containment\"><h2>Sandbox containment</h2>\n<ul>");
        for c in &r.containment {
            let _ = write!(
                out,
                "<li><b>{}</b>: {} — {}</li>",
                name(&c.layer),
                if c.active { "active" } else { "NOT active" },
                text(&c.detail)
            );
        }
        out.push_str("</ul></section>\n");
    }

    let sup = &r.suppressions;
    if let Some(line) = sup.summary_line() {
        let _ = write!(
            out,
            "<section id=\"suppressions\"><h2>Suppressed</h2>\n<p>{}</p>\n<table><thead><tr><th>How</th><th>Severity</th><th>Rule</th><th>Server</th><th>Item</th><th>Observation</th><th>Where</th><th>Reason</th></tr></thead><tbody>",
            text(&line)
        );
        for s in &sup.suppressed {
            let f = &s.finding;
            let mut why = s
                .reason
                .clone()
                .unwrap_or_else(|| "(no reason given)".into());
            if let Some(e) = &s.expires {
                why.push_str(&format!(" (until {e})"));
            }
            let _ = write!(
                out,
                "<tr class=\"suppressed\" data-severity=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                f.severity.as_str(),
                s.kind.as_str(),
                f.severity.as_str(),
                text(&f.rule_id),
                text(&f.target.server),
                text(&entity_name(&f.target)),
                text(&f.observation),
                text(&s.origin),
                text(&why)
            );
        }
        out.push_str("</tbody></table>\n<ul>");
        for (rule, n) in &sup.deselected {
            let _ = write!(out, "<li>not selected: {} ({n})</li>", text(rule));
        }
        for e in &sup.expired {
            let _ = write!(
                out,
                "<li class=\"warning\">expired {}: {} {} counts again (reason was: {})</li>",
                text(e.expires.as_deref().unwrap_or("")),
                text(&e.rule),
                text(&e.target),
                text(&e.reason)
            );
        }
        for e in &sup.stale {
            let _ = write!(
                out,
                "<li class=\"warning\">stale baseline entry {} {} {}: matches no finding</li>",
                text(&e.fingerprint),
                text(&e.rule),
                text(&e.target)
            );
        }
        for w in &sup.warnings {
            let _ = write!(out, "<li class=\"warning\">{}</li>", text(w));
        }
        out.push_str("</ul></section>\n");
    }

    if !r.diagnostics.is_empty() {
        out.push_str("<section id=\"diagnostics\"><h2>Diagnostics</h2>\n<ul>");
        for d in &r.diagnostics {
            let class = match d.level {
                DiagnosticLevel::Error => "error",
                DiagnosticLevel::Warning => "warning",
            };
            let _ = write!(out, "<li class=\"{class}\">{}</li>", text(&d.to_string()));
        }
        out.push_str("</ul></section>\n");
    }

    let _ = write!(
        out,
        "</main>\n<footer>Generated by {} {}. This page loads nothing from the network.</footer>\n<script>{SCRIPT}</script>\n</body>\n</html>\n",
        name(&r.scanner),
        name(&r.scanner_version)
    );
    out
}

/// "description: complete, static: INCOMPLETE".
fn analyzer_states(e: &EntityReport) -> String {
    e.analyzers
        .iter()
        .map(|a| match a.state {
            AnalyzerState::Complete => format!("{}: complete", a.analyzer),
            AnalyzerState::Incomplete => format!(
                "{}: <span class=\"badge incomplete\">INCOMPLETE</span>",
                a.analyzer
            ),
        })
        .collect::<Vec<_>>()
        .join("<br>")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esc_neutralises_markup_and_quotes() {
        assert_eq!(
            esc("<script>\"x\"&'y'</style>"),
            "&lt;script&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/style&gt;"
        );
    }

    #[test]
    fn text_makes_bidi_and_zero_width_visible_before_escaping() {
        assert_eq!(text("a\u{202e}<b>\u{200b}"), "a\\u{202e}&lt;b&gt;\\u{200b}");
    }

    #[test]
    fn servers_from_a_newer_report_show_with_trust_witnesses_and_env_names_escaped() {
        let servers = vec![serde_json::json!({
            "name": "<b>notes</b>",
            "origin": ["config /home/u/.cursor/mcp.json (cursor)"],
            "env": ["API_TOKEN"],
            "server_info": "notes\u{202e}",
            "witnesses": [
                {"analyzer": "static", "state": "complete"},
                {"analyzer": "runtime", "state": "incomplete", "reason": "not run (no --run)"}
            ],
            "notes": ["static found tool `x` that the live listing lacks"],
            "status": "INCOMPLETE",
            "trust": 40
        })];
        let mut out = String::new();
        servers_section(&mut out, &servers);
        assert!(out.contains("<h2>Servers (1)</h2>"));
        assert!(out.contains("<td><b>&lt;b&gt;notes&lt;/b&gt;</b></td>"));
        assert!(out.contains("<span class=\"badge incomplete\">INCOMPLETE</span>"));
        assert!(out.contains("<td class=\"trust\">40</td>"));
        assert!(out.contains("runtime: incomplete (not run (no --run))"));
        assert!(out.contains("serverInfo: notes\\u{202e}"));
        assert!(out.contains("env: API_TOKEN"));
        let mut none = String::new();
        servers_section(&mut none, &[]);
        assert!(none.is_empty(), "no section without servers");
    }

    #[test]
    fn csp_hash_is_standard_base64_of_sha256() {
        // sha256("") = e3b0c442...; its base64 is the well-known value below.
        assert_eq!(
            csp_hash(""),
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
        );
    }
}
