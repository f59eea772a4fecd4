//! Every format rendered from the one shared sample report, snapshotted as users see it, plus the
//! properties every format must keep: INCOMPLETE never shown as SAFE, corroboration, taxonomy,
//! evidence and diagnostics visible, colour only when asked, hostile text defused.

mod sample;

use mcp_scan_core::{Analyzer, AnalyzerStatus, Report, ScanInfo, Severity, ToolRef};
use mcp_scan_report::{Format, RenderOptions, render};
use sample::sample_report;

const HUMAN: [Format; 6] = [
    Format::Summary,
    Format::Detailed,
    Format::ByTool,
    Format::ByAnalyzer,
    Format::BySeverity,
    Format::Table,
];

fn plain(format: Format) -> String {
    render(&sample_report(), format, &RenderOptions::default())
}

fn coloured(format: Format) -> String {
    render(
        &sample_report(),
        format,
        &RenderOptions {
            color: true,
            min_severity: None,
            ..RenderOptions::default()
        },
    )
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{text}"))
}

#[test]
fn summary_counts_items_and_lists_unsafe_incomplete_and_safe_items() {
    let out = plain(Format::Summary);
    insta::assert_snapshot!("summary", out);
    assert!(out.contains("Items scanned: 8"));
    assert!(line_with(&out, "files/tool run_command").contains("INCOMPLETE"));
    assert!(line_with(&out, "notes/tool list_notes").contains("SAFE"));
    assert!(line_with(&out, "notes/tool send_note").contains("CRITICAL"));
}

#[test]
fn detailed_shows_every_finding_with_taxonomy_evidence_and_behaviour() {
    let out = plain(Format::Detailed);
    insta::assert_snapshot!("detailed", out);
    assert!(out.contains("AITech-8.2 Data Exfiltration / Exposure > AISubtech-8.2.3"));
    assert!(out.contains("seen by: static+runtime (corroborated)"));
    for kind in ["text ", "source ", "syscall ", "network ", "llm ", "note "] {
        assert!(out.contains(&format!("* {kind}")), "evidence kind {kind}");
    }
    assert!(out.contains("Static behaviour: handler server.send_note"));
}

#[test]
fn by_tool_prints_one_line_per_item_with_its_worst_severity() {
    let out = plain(Format::ByTool);
    insta::assert_snapshot!("by_tool", out);
    let report = sample_report();
    for e in &report.entities {
        let name = format!("{}/{} {}", e.target.server, e.target.kind, e.target.name);
        assert_eq!(
            out.lines().filter(|l| l.contains(&name)).count(),
            1,
            "{name}"
        );
    }
    assert!(line_with(&out, "weather/tool get_forecast").starts_with("HIGH"));
}

#[test]
fn by_analyzer_reports_items_analysed_severities_and_incomplete_work() {
    let out = plain(Format::ByAnalyzer);
    insta::assert_snapshot!("by_analyzer", out);
    let runtime = out.split("\nruntime\n").nth(1).expect("runtime section");
    assert!(runtime.contains("items analysed: 6 (5 complete, 1 incomplete)"));
    assert!(runtime.contains("INCOMPLETE files/tool run_command: call timed out after 30 s"));
}

#[test]
fn by_severity_groups_items_under_every_heading_including_incomplete() {
    let out = plain(Format::BySeverity);
    insta::assert_snapshot!("by_severity", out);
    let incomplete = out.split("INCOMPLETE (1 item)").nth(1).unwrap_or_default();
    let incomplete = incomplete.split("SAFE (1 item)").next().unwrap_or_default();
    assert!(incomplete.contains("files/tool run_command"));
    let safe = out.split("SAFE (1 item)").nth(1).unwrap_or_default();
    assert!(!safe.contains("run_command"));
}

/// The section of `out` under the heading that starts with `label (`, and the heading itself.
fn section<'a>(out: &'a str, label: &str) -> (&'a str, &'a str) {
    let start = out
        .find(&format!("\n{label} ("))
        .unwrap_or_else(|| panic!("no {label} heading in:\n{out}"))
        + 1;
    let rest = &out[start..];
    let heading_end = rest.find('\n').unwrap_or(rest.len());
    let body = &rest[heading_end..];
    let body_end = body.find("\n\n").unwrap_or(body.len());
    (&rest[..heading_end], &body[..body_end])
}

#[test]
fn by_severity_headings_count_exactly_the_findings_and_items_listed_under_them() {
    let out = plain(Format::BySeverity);
    let mut total = 0;
    for sev in ["CRITICAL", "HIGH", "MEDIUM", "LOW", "INFO"] {
        let (heading, body) = section(&out, sev);
        let findings = body.lines().filter(|l| l.starts_with("    - ")).count();
        let items = body
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && *l != "  (none)")
            .count();
        // Every finding line under a heading is of that heading's severity.
        assert!(
            body.lines()
                .filter(|l| l.starts_with("    - "))
                .all(|l| l.starts_with(&format!("    - {sev} "))),
            "{heading}\n{body}"
        );
        let want = format!(
            "{sev} ({findings} finding{}, {items} item{})",
            if findings == 1 { "" } else { "s" },
            if items == 1 { "" } else { "s" }
        );
        assert_eq!(heading, want, "{body}");
        total += findings;
    }
    let in_report: usize = sample_report()
        .entities
        .iter()
        .map(|e| e.findings.len())
        .sum();
    assert_eq!(total, in_report, "every finding is listed exactly once");
    for label in ["INCOMPLETE", "SAFE"] {
        let (heading, body) = section(&out, label);
        let items = body
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .count();
        assert_eq!(
            heading,
            format!(
                "{label} ({items} item{})",
                if items == 1 { "" } else { "s" }
            )
        );
    }
}

#[test]
fn table_has_one_column_per_analyzer_that_ran() {
    let out = plain(Format::Table);
    insta::assert_snapshot!("table", out);
    let header = out.lines().nth(2).expect("header");
    for col in [
        "TARGET",
        "TYPE",
        "NAME",
        "STATUS",
        "DESCRIPTION",
        "STATIC",
        "LLM",
        "RUNTIME",
        "SEVERITY",
        "FINDINGS",
    ] {
        assert!(header.contains(col), "{col} in {header}");
    }
    let row: Vec<&str> = line_with(&out, "run_command").split_whitespace().collect();
    assert_eq!(row[3], "INCOMPLETE", "{row:?}");
}

#[test]
fn table_columns_follow_the_analyzers_that_ran() {
    // A manifest-only scan has one analyzer column, not four.
    let mut r = Report::new(ScanInfo {
        command: "manifest".into(),
        targets: vec!["tools.json".into()],
        analyzers: vec![Analyzer::Description],
    });
    r.scanner_version = "0.0.0-test".into();
    let mut e = mcp_scan_core::EntityReport::new(ToolRef::tool("s", "add"), None);
    e.analyzers
        .push(AnalyzerStatus::complete(Analyzer::Description));
    r.entities.push(e);
    let out = render(&r, Format::Table, &RenderOptions::default());
    let header = out.lines().nth(2).expect("header");
    assert!(header.contains("DESCRIPTION"));
    assert!(!header.contains("RUNTIME") && !header.contains("STATIC"));
}

#[test]
fn colour_appears_only_when_asked_and_never_in_machine_formats() {
    for f in HUMAN {
        assert!(!plain(f).contains('\x1b'), "{f} without colour");
        assert!(coloured(f).contains("\x1b["), "{f} with colour");
    }
    for f in [Format::Raw, Format::Sarif] {
        assert!(!coloured(f).contains('\x1b'), "{f} must never carry ANSI");
        assert_eq!(coloured(f), plain(f), "{f} ignores the colour option");
    }
    insta::assert_snapshot!("summary_colour", coloured(Format::Summary));
}

#[test]
fn hostile_escape_sequences_in_server_text_are_shown_not_executed() {
    // The poisoned description carries a raw ESC[8m (hidden text); it must be visible as text.
    for f in HUMAN {
        assert!(!plain(f).contains('\x1b'), "{f}");
    }
    assert!(plain(Format::Detailed).contains("\\u{1b}[8m<IMPORTANT>"));
}

#[test]
fn incomplete_item_is_never_listed_as_safe() {
    for f in [
        Format::Summary,
        Format::ByTool,
        Format::BySeverity,
        Format::Detailed,
    ] {
        let out = plain(f);
        let line = line_with(&out, "files/tool run_command");
        assert!(!line.contains("SAFE"), "{f}: {line}");
    }
    // Benign twin: a fully analysed item without findings is SAFE.
    let out = plain(Format::ByTool);
    assert!(line_with(&out, "notes/tool list_notes").starts_with("SAFE"));
}

#[test]
fn corroboration_is_marked_only_on_findings_seen_by_two_analyzers() {
    let out = plain(Format::Detailed);
    assert_eq!(out.matches("(corroborated)").count(), 1);
    assert!(out.contains("seen by: description\n"));
    let by_tool = plain(Format::ByTool);
    assert!(line_with(&by_tool, "send_note").contains("1 corroborated"));
    assert!(!line_with(&by_tool, "get_forecast").contains("corroborated"));
}

#[test]
fn diagnostics_appear_in_every_human_format() {
    for f in HUMAN {
        let out = plain(f);
        assert!(
            out.contains("error: manifests/extra.json:3:14: expected `,` or `}`"),
            "{f}"
        );
        assert!(out.contains("warning: files_server.py:88:"), "{f}");
    }
}

#[test]
fn min_severity_hides_lower_findings_without_making_items_safe() {
    let opts = RenderOptions {
        color: false,
        min_severity: Some(Severity::High),
        ..RenderOptions::default()
    };
    let out = render(&sample_report(), Format::Summary, &opts);
    insta::assert_snapshot!("summary_min_high", out);
    // read_file (MEDIUM) is still counted UNSAFE, and never listed as SAFE.
    assert!(out.contains("UNSAFE      5"), "{out}");
    assert!(!out.contains("read_file"));
    assert!(out.contains("hidden by --min-severity"));
    let detailed = render(&sample_report(), Format::Detailed, &opts);
    assert!(!detailed.contains("MCPS-S005"));
    assert!(detailed.contains("MCPS-S001"));
    // Benign twin: without the filter nothing is said to be hidden.
    assert!(!plain(Format::Summary).contains("hidden by --min-severity"));
    assert!(plain(Format::Detailed).contains("MCPS-S005"));
}

#[test]
fn a_clean_complete_scan_reports_only_safe_items() {
    let mut r = Report::new(ScanInfo {
        command: "manifest".into(),
        targets: vec!["tools.json".into()],
        analyzers: vec![Analyzer::Description],
    });
    r.scanner_version = "0.0.0-test".into();
    for name in ["add", "subtract"] {
        let mut e = mcp_scan_core::EntityReport::new(ToolRef::tool("calc", name), None);
        e.analyzers
            .push(AnalyzerStatus::complete(Analyzer::Description));
        r.entities.push(e);
    }
    r.normalize();
    let out = render(&r, Format::Summary, &RenderOptions::default());
    insta::assert_snapshot!("summary_clean", out);
    assert!(!out.contains("Unsafe items"));
    assert!(!out.contains("Incomplete items"));
    assert!(out.contains("Safe items (2)"));
}

#[test]
fn an_item_no_analyzer_examined_is_incomplete_in_every_format() {
    let mut r = Report::new(ScanInfo {
        command: "manifest".into(),
        targets: vec![],
        analyzers: vec![],
    });
    r.entities.push(mcp_scan_core::EntityReport::new(
        ToolRef::tool("s", "unexamined"),
        None,
    ));
    for f in HUMAN {
        let out = render(&r, f, &RenderOptions::default());
        let line = line_with(
            &out,
            if f == Format::Table {
                "unexamined"
            } else {
                "s/tool unexamined"
            },
        );
        assert!(
            line.contains("INCOMPLETE") || out.contains("INCOMPLETE (1 item)"),
            "{f}:\n{out}"
        );
        assert!(!line.contains("SAFE"), "{f}: {line}");
    }
    let raw: serde_json::Value =
        serde_json::from_str(&render(&r, Format::Raw, &RenderOptions::default())).expect("json");
    assert_eq!(raw["entities"][0]["status"], "INCOMPLETE");
    let sarif = render(&r, Format::Sarif, &RenderOptions::default());
    assert!(sarif.contains("no analyzer examined it"));
}

#[test]
fn an_empty_report_renders_in_every_format() {
    let r = Report::new(ScanInfo {
        command: "manifest".into(),
        targets: vec![],
        analyzers: vec![],
    });
    for f in Format::ALL {
        assert!(!render(&r, f, &RenderOptions::default()).is_empty(), "{f}");
    }
    let summary = render(&r, Format::Summary, &RenderOptions::default());
    assert!(summary.contains("Items scanned: 0"));
    assert!(!summary.contains("Safe items"));
    let sarif: serde_json::Value =
        serde_json::from_str(&render(&r, Format::Sarif, &RenderOptions::default())).expect("json");
    assert_eq!(sarif["runs"][0]["results"], serde_json::json!([]));
}

/// A description finding on a tool whose name, description, observation, evidence, incomplete
/// reason and diagnostic are far longer than a screen: 5,000 characters each, with a marker at
/// the end that only a whole text contains.
fn long_text_report() -> Report {
    use mcp_scan_core::taxonomy::by_threat;
    use mcp_scan_core::{Diagnostic, DiagnosticLevel, EntityReport, Evidence, Finding};
    let long = |what: &str| format!("{what}: {}END-OF-{what}", "word ".repeat(1000));
    let mut r = Report::new(ScanInfo {
        command: "manifest".into(),
        targets: vec!["tools.json".into()],
        analyzers: vec![Analyzer::Description],
    });
    r.scanner_version = "0.0.0-test".into();
    let target = ToolRef::tool("calc", format!("add_{}", "x".repeat(300)));
    let mut e = EntityReport::new(target.clone(), Some(long("description")));
    e.analyzers.push(AnalyzerStatus::incomplete(
        Analyzer::Description,
        long("reason"),
    ));
    let tax = by_threat("TOOL POISONING").expect("taxonomy row");
    e.findings.push(
        Finding::builder("MCPS-D001", Analyzer::Description, tax, target)
            .severity(Severity::High)
            .title("instructions set apart for the model")
            .observation(long("observation"))
            .declared(Some(long("description")))
            .evidence(Evidence::Text {
                field: "description".into(),
                excerpt: long("excerpt"),
                offset: Some(0),
            })
            .key("k")
            .build(),
    );
    r.entities.push(e);
    r.diagnostics.push(Diagnostic {
        level: DiagnosticLevel::Warning,
        file: Some("tools.json".into()),
        line: Some(1),
        column: None,
        message: long("diagnostic"),
    });
    r.normalize();
    r
}

#[test]
fn human_formats_cut_long_texts_with_a_note_and_raw_keeps_them_whole() {
    let r = long_text_report();
    insta::assert_snapshot!(
        "detailed_long_texts",
        render(&r, Format::Detailed, &RenderOptions::default())
    );
    insta::assert_snapshot!(
        "summary_long_texts",
        render(&r, Format::Summary, &RenderOptions::default())
    );
    for f in HUMAN {
        let out = render(&r, f, &RenderOptions::default());
        assert!(
            !out.contains("END-OF-"),
            "{f} printed a whole long text:\n{out}"
        );
        assert!(
            out.lines().all(|l| l.chars().count() < 1200),
            "{f} has a line longer than the cut allows:\n{out}"
        );
        assert!(
            out.contains("more chars)"),
            "{f} does not say what it cut:\n{out}"
        );
    }
    let raw: serde_json::Value =
        serde_json::from_str(&render(&r, Format::Raw, &RenderOptions::default())).expect("json");
    let text = raw.to_string();
    for what in [
        "description",
        "observation",
        "excerpt",
        "reason",
        "diagnostic",
    ] {
        assert!(
            text.contains(&format!("END-OF-{what}")),
            "raw lost the end of the {what}"
        );
    }
    assert!(text.contains(&"x".repeat(300)), "raw keeps the whole name");
}

#[test]
fn html_puts_each_witness_evidence_side_by_side_and_never_reads_incomplete_as_safe() {
    let out = plain(Format::Html);
    insta::assert_snapshot!("html", out);
    assert!(out.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert!(out.contains("http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"));
    // No reference to anything outside the file (URLs in findings are text, not links).
    for remote in [
        "src=", "href=", "@import", "url(", "<link", "<iframe", "<img",
    ] {
        assert!(!out.contains(remote), "{remote}");
    }
    // The corroborated finding shows static and runtime evidence in separate columns.
    let corroborated = out
        .split("<article ")
        .find(|a| a.contains("data-analyzers=\"static runtime\""))
        .expect("the corroborated finding");
    assert!(corroborated.contains("<section class=\"witness\" data-witness=\"static\">"));
    assert!(corroborated.contains("<section class=\"witness\" data-witness=\"runtime\">"));
    assert!(corroborated.contains("<span class=\"corroborated\">corroborated</span>"));
    // The INCOMPLETE item says why, and the page as a whole is not SAFE.
    let row = out
        .lines()
        .find(|l| l.contains("<b>run_command</b>"))
        .expect("run_command row");
    assert!(row.contains("badge incomplete\">INCOMPLETE") && row.contains("class=\"reasons\""));
    assert!(!out.contains("SAFE: no findings"));
}
