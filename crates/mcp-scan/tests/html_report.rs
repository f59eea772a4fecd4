//! `--format html` checked in a real headless browser (Debian's `chromium`, installed by
//! `scripts/test-deps`): the fixture reports render, screenshot, and read right in the DOM the
//! browser built; the filters hide and show findings; hostile text from a scanned server never
//! becomes markup; and the page makes no request at all (netlog). Chromium always runs inside
//! `unshare -rn` (a network namespace with no route out), so even its own background traffic
//! cannot leave the host.
//!
//! When chromium is missing, these tests say so and pass on a developer machine, but fail in CI
//! (`CI` set), so the browser check can never be skipped silently there.

use mcp_scan_core::{
    Analyzer, AnalyzerStatus, EntityReport, Evidence, Finding, Report, ScanInfo, Severity,
    SourceLocation, ToolRef, taxonomy,
};
use mcp_scan_report::{Format, RenderOptions, render};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn chromium() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("MCP_SCAN_CHROMIUM").map(PathBuf::from),
        Some(PathBuf::from("/usr/bin/chromium")),
        Some(PathBuf::from("/usr/bin/chromium-browser")),
    ];
    let found = candidates.into_iter().flatten().find(|p| p.is_file());
    if found.is_none() {
        let msg = "chromium is not installed (run scripts/test-deps): the HTML report was NOT \
                   checked in a browser";
        assert!(std::env::var_os("CI").is_none(), "{msg}");
        eprintln!("SKIPPED: {msg}");
    }
    found
}

/// Runs `mcp-scan ARGS --format html` from the repository root; returns the page.
fn scan_html(args: &[&str]) -> (String, i32) {
    let o = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(args)
        .args(["--format", "html"])
        .current_dir(repo())
        .stdin(Stdio::null())
        .output()
        .expect("mcp-scan runs");
    let page = String::from_utf8(o.stdout).expect("utf-8");
    assert!(
        page.starts_with("<!DOCTYPE html>"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (page, o.status.code().expect("exited"))
}

struct Browser {
    bin: PathBuf,
    dir: tempfile::TempDir,
}

impl Browser {
    fn new(bin: PathBuf, page: &str) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("report.html"), page).expect("write page");
        Browser { bin, dir }
    }

    fn url(&self, query: &str) -> String {
        format!(
            "file://{}{query}",
            self.dir.path().join("report.html").display()
        )
    }

    fn run(&self, profile: &str, args: &[String]) -> Output {
        let profile = self.dir.path().join(profile);
        Command::new("unshare")
            .arg("-rn")
            .arg(&self.bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
            ])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("chromium runs")
    }

    /// The DOM after the page's script ran (with `query` in the URL), and every URL the page
    /// itself asked for (from chromium's netlog; the browser's own requests are left out).
    fn dom(&self, query: &str) -> (String, Vec<String>) {
        let netlog = self.dir.path().join(format!("net{}.json", query.len()));
        let o = self.run(
            &format!("profile{}", query.len()),
            &[
                format!("--log-net-log={}", netlog.display()),
                "--virtual-time-budget=3000".to_string(),
                "--dump-dom".to_string(),
                self.url(query),
            ],
        );
        let dom = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            dom.contains("</html>"),
            "chromium printed no DOM: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        (dom, page_requests(&netlog))
    }

    /// A PNG screenshot of the page.
    fn screenshot(&self) -> Vec<u8> {
        let png = self.dir.path().join("shot.png");
        let args = vec![
            format!("--screenshot={}", png.display()),
            "--window-size=1280,1600".to_string(),
            self.url(""),
        ];
        let o = self.run("shot", &args);
        std::fs::read(&png).unwrap_or_else(|e| {
            panic!(
                "no screenshot ({e}): {}",
                String::from_utf8_lossy(&o.stderr)
            )
        })
    }
}

/// URLs requested on behalf of a page (any initiator other than the browser itself), except the
/// page's own file.
fn page_requests(netlog: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(netlog).expect("chromium wrote a netlog");
    let log: serde_json::Value = serde_json::from_str(&text).expect("netlog is JSON");
    let start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"].as_u64();
    assert!(start_job.is_some(), "netlog has no event-type table");
    log["events"]
        .as_array()
        .expect("netlog events")
        .iter()
        .filter(|e| e["type"].as_u64() == start_job)
        .filter(|e| e["params"]["initiator"].as_str() != Some("not an origin"))
        .filter_map(|e| e["params"]["url"].as_str())
        .filter(|u| !u.starts_with("file://"))
        .map(str::to_string)
        .collect()
}

fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

/// Findings per severity in the page's count table, as the browser read it.
fn shown_count(dom: &str, sev: &str) -> usize {
    let key = format!("data-severity=\"{sev}\" data-count=\"");
    let start = dom.find(&key).expect("count cell") + key.len();
    let end = start + dom[start..].find('"').expect("closing quote");
    dom[start..end].parse().expect("number")
}

/// Findings the browser shows: `<article class="finding" …>` tags without `hidden`.
fn visible_findings(dom: &str) -> usize {
    dom.split("<article class=\"finding\"")
        .skip(1)
        .filter(|rest| !rest[..rest.find('>').unwrap_or(rest.len())].contains("hidden"))
        .count()
}

const SEVERITIES: [&str; 5] = ["critical", "high", "medium", "low", "info"];

#[test]
fn evil_server_report_counts_agree_with_its_findings_and_the_filters_hide_and_show_rows() {
    let (page, code) = scan_html(&["behavioral", "fixtures/python/evil_server"]);
    assert_eq!(code, 3);
    let Some(bin) = chromium() else { return };
    let b = Browser::new(bin, &page);
    let png = b.screenshot();
    assert!(
        png.len() > 1000 && png.starts_with(b"\x89PNG"),
        "a real PNG"
    );

    let (dom, requests) = b.dom("");
    assert!(requests.is_empty(), "the page asked for {requests:?}");
    assert!(dom.contains("UNSAFE: worst finding HIGH"));
    let total = count(&dom, "<article class=\"finding\"");
    assert!(total >= 5, "{total} findings");
    let mut sum = 0;
    for sev in SEVERITIES {
        let articles = count(&dom, &format!("class=\"finding\" data-severity=\"{sev}\""));
        assert_eq!(shown_count(&dom, sev), articles, "{sev}");
        sum += articles;
    }
    assert_eq!(sum, total);
    // The script ran: the filters are visible and every finding is shown.
    assert!(dom.contains("<form id=\"filters\">"), "filters revealed");
    assert!(dom.contains(&format!("data-shown=\"{total}\"")));
    assert_eq!(visible_findings(&dom), total);
    // Source lines and taxonomy are on the page.
    assert!(dom.contains("server.py:36:16") && dom.contains("eval(expression)"));
    assert!(dom.contains("AITech-9.1") && dom.contains("AISubtech-9.1.1"));

    // Severity filter from the query string: only HIGH stays visible.
    let high = count(&dom, "class=\"finding\" data-severity=\"high\"");
    let (dom_high, requests) = b.dom("?severity=high");
    assert!(requests.is_empty(), "{requests:?}");
    assert_eq!(visible_findings(&dom_high), high);
    assert!(dom_high.contains(&format!("data-shown=\"{high}\"")));
    assert!(high > 0 && high < total, "the filter must hide something");

    // Witness filter: description alone hides every static-only finding.
    let description = count(&dom, "data-analyzers=\"description\"");
    let (dom_desc, _) = b.dom("?witness=description");
    assert_eq!(visible_findings(&dom_desc), description);
    assert!(description < total);
}

#[test]
fn good_server_report_reads_safe_with_no_findings() {
    let (page, code) = scan_html(&["behavioral", "fixtures/python/good_server"]);
    assert_eq!(code, 0);
    let Some(bin) = chromium() else { return };
    let b = Browser::new(bin, &page);
    let (dom, requests) = b.dom("");
    assert!(requests.is_empty(), "{requests:?}");
    assert!(dom.contains("SAFE: no findings"));
    assert_eq!(count(&dom, "<article class=\"finding\""), 0);
    for sev in SEVERITIES {
        assert_eq!(shown_count(&dom, sev), 0);
    }
    assert!(!dom.contains("INCOMPLETE</span> <span") || dom.contains("0 INCOMPLETE"));
}

#[test]
fn incomplete_scan_never_reads_as_safe_and_shows_its_coverage_reasons() {
    let (page, code) = scan_html(&["behavioral", "fixtures/coverage/missing_relative_import"]);
    assert_eq!(code, 4);
    let Some(bin) = chromium() else { return };
    let b = Browser::new(bin, &page);
    let (dom, requests) = b.dom("");
    assert!(requests.is_empty(), "{requests:?}");
    assert!(dom.contains("id=\"overall\" class=\"overall incomplete\""));
    assert!(dom.contains("INCOMPLETE: part of the target was not analysed"));
    assert!(!dom.contains("SAFE: no findings"));
    assert!(
        dom.contains("<ul class=\"gaps\"><li>"),
        "gap reasons listed"
    );
    assert!(dom.contains("unanalysed-import"), "the gap's kind");
}

#[test]
fn manifest_report_shows_description_evidence_side_by_side() {
    let (page, code) = scan_html(&["manifest", "fixtures/manifests/poisoned-demo.json"]);
    assert_eq!(code, 3);
    let Some(bin) = chromium() else { return };
    let b = Browser::new(bin, &page);
    let (dom, requests) = b.dom("?severity=critical,high");
    assert!(requests.is_empty(), "{requests:?}");
    assert!(dom.contains("<section class=\"witness\" data-witness=\"description\">"));
    assert!(dom.contains("<span class=\"ek\">text</span>"));
    let at_least_high = count(&dom, "data-severity=\"critical\" data-analyzers")
        + count(&dom, "data-severity=\"high\" data-analyzers");
    assert_eq!(visible_findings(&dom), at_least_high);
}

#[test]
fn dynamic_run_report_shows_the_runtime_events_and_the_sandbox() {
    let python = std::env::var("MCP_SCAN_TEST_PYTHON")
        .ok()
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| {
            repo()
                .join(".venv/mcp2/bin/python")
                .to_string_lossy()
                .into_owned()
        });
    let server = repo().join("fixtures/runtime/evil_server/server.py");
    let pins = tempfile::tempdir().expect("tmp");
    let o = Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(["dynamic", "--startup-timeout", "40", "--timeout", "10"])
        .args(["--format", "html", "--"])
        .arg(python)
        .arg(server)
        .env("XDG_DATA_HOME", pins.path())
        .stdin(Stdio::null())
        .output()
        .expect("mcp-scan runs");
    let page = String::from_utf8(o.stdout).expect("utf-8");
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let Some(bin) = chromium() else { return };
    let b = Browser::new(bin, &page);
    let (dom, requests) = b.dom("?witness=runtime");
    assert!(requests.is_empty(), "{requests:?}");
    let total = count(&dom, "<article class=\"finding\"");
    assert!(total > 0);
    assert_eq!(
        visible_findings(&dom),
        total,
        "every finding is a runtime one"
    );
    assert!(dom.contains("<section class=\"witness\" data-witness=\"runtime\">"));
    assert!(
        dom.contains("<li class=\"ev ev-syscall\">"),
        "syscall events listed"
    );
    assert!(
        dom.contains("<section id=\"containment\">"),
        "sandbox layers listed"
    );
    let mut sum = 0;
    for sev in SEVERITIES {
        sum += shown_count(&dom, sev);
    }
    assert_eq!(sum, total);
}

/// Strings a hostile server controls, each aimed at a different way out of the page.
const HOSTILE: [&str; 6] = [
    "<script>document.title='PWNED'</script>",
    "</style><img src=x onerror=\"document.title='PWNED'\">",
    "\" onmouseover=\"document.title='PWNED'\" x=\"",
    "javascript:document.title='PWNED'",
    "safe\u{202e}txt.exe\u{200b}",
    "</textarea></title><svg onload=\"document.title='PWNED'\">",
];

fn hostile_report() -> Report {
    let mut r = Report::new(ScanInfo {
        command: HOSTILE[2].to_string(),
        targets: vec![HOSTILE[0].to_string(), HOSTILE[3].to_string()],
        analyzers: vec![Analyzer::Description, Analyzer::Static, Analyzer::Runtime],
    });
    let tax = taxonomy::by_threat("TOOL POISONING").expect("taxonomy row");
    for (i, h) in HOSTILE.iter().enumerate() {
        let target = ToolRef::tool(*h, format!("{h}{i}"));
        let mut e = EntityReport::new(target.clone(), Some(h.to_string()));
        e.analyzers.push(AnalyzerStatus::complete(Analyzer::Static));
        e.analyzers
            .push(AnalyzerStatus::incomplete(Analyzer::Runtime, *h));
        let mut loc = SourceLocation::new(*h, 3, 1);
        loc.snippet = Some(format!("{h}\n{h}"));
        let f = Finding::builder(*h, Analyzer::Static, tax, target)
            .severity(Severity::High)
            .title(*h)
            .observation(*h)
            .declared(Some(h.to_string()))
            .location(loc.clone())
            .evidence(Evidence::Text {
                field: h.to_string(),
                excerpt: h.to_string(),
                offset: None,
            })
            .evidence(Evidence::Source {
                location: loc,
                note: h.to_string(),
            })
            .evidence(Evidence::Network {
                destination: h.to_string(),
                protocol: h.to_string(),
                payload_excerpt: Some(h.to_string()),
            })
            .evidence(Evidence::Syscall {
                line: h.to_string(),
                pid: Some(7),
                phase: Some(h.to_string()),
            })
            .evidence(Evidence::Llm {
                model: h.to_string(),
                rationale: h.to_string(),
            })
            .key(i.to_string())
            .build();
        e.findings.push(f);
        r.entities.push(e);
    }
    r.normalize();
    r
}

/// In the page as written: nothing hostile unescaped, bidi/zero-width characters made visible.
fn assert_page_text_clean(page: &str) {
    for bad in [
        "<script>document",
        "<img",
        "<svg",
        "onmouseover=\"",
        "\u{202e}",
        "\u{200b}",
    ] {
        assert!(!page.contains(bad), "{bad:?} reached the page");
    }
}

#[test]
fn hostile_server_text_stays_text_in_the_browser() {
    let report = hostile_report();
    let page = render(&report, Format::Html, &RenderOptions::default());
    let Some(bin) = chromium() else {
        // No browser (a developer machine): at least the page as written must be clean.
        assert_page_text_clean(&page);
        return;
    };
    let b = Browser::new(bin, &page);
    let (dom, requests) = b.dom("?severity=high");
    assert!(requests.is_empty(), "{requests:?}");
    // In the DOM the browser built: our one script, no injected element or handler, the title
    // untouched, and every finding present (nothing broke out of its element and ate the rest).
    assert_eq!(count(&dom, "<script"), 1, "only the page's own script");
    // Every tag before the script (text is serialised with `<` escaped, so these are elements).
    let body = &dom[..dom.find("<script").expect("script")];
    for tag in body.split('<').skip(1) {
        let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
        let name = tag.split([' ', '/']).next().unwrap_or("");
        assert!(
            !["img", "svg", "a", "iframe"].contains(&name),
            "element <{tag}>"
        );
        for bad in [
            " onerror=",
            " onload=",
            " onmouseover=",
            " href=",
            " x=",
            "PWNED",
        ] {
            assert!(!tag.contains(bad), "element <{tag}> carries {bad}");
        }
    }
    assert!(!dom.contains("<title>PWNED") && dom.contains("<title>mcp-scan report ("));
    assert_eq!(count(&dom, "<article class=\"finding\""), HOSTILE.len());
    assert_eq!(
        visible_findings(&dom),
        HOSTILE.len(),
        "the filter script still runs"
    );
    assert!(dom.contains("&lt;script&gt;document.title='PWNED'&lt;/script&gt;"));
    assert!(dom.contains("safe\\u{202e}txt.exe\\u{200b}"));
    assert!(
        dom.contains("javascript:document.title='PWNED'"),
        "shown as text"
    );
    assert!(!dom.contains("\u{202e}"));
    assert_page_text_clean(&page);
}

#[test]
fn the_request_check_sees_a_page_that_loads_something() {
    // The twin of every `requests.is_empty()` above: a page that does load a remote image must
    // be caught, or the check proves nothing. (Inside `unshare -rn` the load fails, but the
    // request is still made and logged.)
    let Some(bin) = chromium() else { return };
    let page = "<!DOCTYPE html><html><head><title>t</title></head><body>\
                <img src=\"http://192.0.2.1/pixel.png\"></body></html>";
    let b = Browser::new(bin, page);
    let (_, requests) = b.dom("");
    assert_eq!(requests, vec!["http://192.0.2.1/pixel.png".to_string()]);
}

#[test]
fn the_page_is_readable_with_javascript_off() {
    let (page, _) = scan_html(&["behavioral", "fixtures/python/evil_server"]);
    let Some(bin) = chromium() else { return };
    // Headless chromium's --blink-settings=scriptEnabled=false also stops --dump-dom, so the
    // script is switched off the way the page itself would be: its CSP allows no script.
    let csp_script = page
        .split("script-src ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .expect("a script-src in the CSP");
    let no_js = page.replacen(csp_script, "'none'", 1);
    let b = Browser::new(bin.clone(), &no_js);
    let png = b.screenshot();
    assert!(png.starts_with(b"\x89PNG") && png.len() > 1000);
    let (dom, requests) = b.dom("?severity=critical");
    assert!(requests.is_empty(), "{requests:?}");
    // The script did not run: no filter bar, no count of shown findings, and every finding is
    // visible whatever the query string says.
    assert!(
        dom.contains("<form id=\"filters\" hidden=\"\">"),
        "filters stay hidden"
    );
    assert!(!dom.contains("data-shown="));
    let total = count(&dom, "<article class=\"finding\"");
    assert!(total >= 5);
    assert_eq!(visible_findings(&dom), total);
    // Twin: with the script allowed, the same query does hide findings.
    let (dom_js, _) = Browser::new(bin, &page).dom("?severity=critical");
    assert!(visible_findings(&dom_js) < total);
}

#[test]
fn html_of_the_evil_server_scan_is_stable() {
    let (page, _) = scan_html(&["behavioral", "fixtures/python/evil_server"]);
    insta::assert_snapshot!("html_evil_server", page);
}

#[test]
fn html_of_the_poisoned_manifest_scan_is_stable() {
    let (page, _) = scan_html(&["manifest", "fixtures/manifests/poisoned-demo.json"]);
    insta::assert_snapshot!("html_poisoned_manifest", page);
}
