//! Every fixture server under `fixtures/typescript/` parsed by the real TypeScript/JavaScript
//! front-end and analysed with the TypeScript models: the tools found and the findings must
//! equal `expected.toml` exactly (the Python fixtures' format). Each malicious fixture has an
//! honest twin whose expected findings are none.

use mcp_scan_core::{GapKind, Severity};
use mcp_scan_flow::{Input, ToolResult, analyze};
use mcp_scan_lang::{DiscoverOptions, ParsedTree, scan_tree};
use serde::Deserialize;
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/typescript")
}

fn scan(name: &str) -> (ParsedTree, Vec<ToolResult>) {
    let dir = fixtures_dir().join(name);
    let tree = scan_tree(&dir, &DiscoverOptions::default())
        .unwrap_or_else(|e| panic!("scanning {name}: {e}"));
    let input = Input {
        server: name,
        modules: &tree.modules,
        sources: &tree.sources,
        incomplete_files: &tree.incomplete_files,
    };
    let results = analyze(&input);
    (tree, results)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    tools: Vec<String>,
    #[serde(default)]
    incomplete: Vec<String>,
    #[serde(default)]
    finding: Vec<ExpectedFinding>,
}

#[derive(Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ExpectedFinding {
    rule: String,
    tool: String,
    severity: Severity,
}

fn expected(name: &str) -> Expected {
    let path = fixtures_dir().join(name).join("expected.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn describe(results: &[ToolResult]) -> String {
    let mut s = String::new();
    for r in results {
        s.push_str(&format!(
            "== {} (complete: {})\n",
            r.target.name, r.behavior.complete
        ));
        for c in &r.behavior.capabilities {
            s.push_str(&format!("  cap {} {} {:?}\n", c.kind, c.api, c.detail));
        }
        for f in &r.findings {
            s.push_str(&format!(
                "  finding {} {:?}: {}\n",
                f.rule_id, f.severity, f.observation
            ));
        }
    }
    s
}

fn check(name: &str) {
    let exp = expected(name);
    let (_, results) = scan(name);
    let mut tools: Vec<String> = results.iter().map(|r| r.target.name.clone()).collect();
    tools.sort();
    let mut want_tools = exp.tools.clone();
    want_tools.sort();
    assert_eq!(tools, want_tools, "{name}: tools\n{}", describe(&results));
    let mut incomplete: Vec<String> = results
        .iter()
        .filter(|r| r.incomplete.is_some())
        .map(|r| r.target.name.clone())
        .collect();
    incomplete.sort();
    let mut want_incomplete = exp.incomplete.clone();
    want_incomplete.sort();
    assert_eq!(
        incomplete,
        want_incomplete,
        "{name}: incomplete tools\n{}",
        describe(&results)
    );
    let mut got: Vec<ExpectedFinding> = results
        .iter()
        .flat_map(|r| r.findings.iter())
        .map(|f| ExpectedFinding {
            rule: f.rule_id.clone(),
            tool: f.target.name.clone(),
            severity: f.severity,
        })
        .collect();
    got.sort();
    let mut want = exp.finding.clone();
    want.sort();
    assert_eq!(got, want, "{name}: findings\n{}", describe(&results));
}

#[test]
fn every_typescript_fixture_matches_its_expected_findings() {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .expect("fixtures/typescript")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("expected.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 14, "{names:?}");
    for n in &names {
        check(n);
    }
}

#[test]
fn every_malicious_fixture_has_an_honest_twin_without_findings() {
    for (bad, good) in [
        ("shell_exec", "shell_exec_honest"),
        ("secret_read", "secret_read_honest"),
        ("egress", "egress_honest"),
        ("env_exfil", "env_exfil_honest"),
        ("eval_tool", "eval_tool_honest"),
        ("lowlevel_delegate", "lowlevel_delegate_honest"),
        ("lowlevel_factory_map", "lowlevel_factory_map_honest"),
        ("lowlevel_data_map", "lowlevel_data_map_honest"),
        ("inner_server_dispatch", "inner_server_dispatch_honest"),
        ("mastra_tools", "mastra_tools_honest"),
        ("lowlevel_map_object", "lowlevel_map_object_honest"),
        ("path_after_base_host", "path_after_base"),
        ("url_object_host", "url_object"),
    ] {
        let (_, b) = scan(bad);
        let (_, g) = scan(good);
        assert!(
            b.iter()
                .any(|r| r.findings.iter().any(|f| f.severity >= Severity::High)),
            "{bad} must have a HIGH finding\n{}",
            describe(&b)
        );
        assert!(
            g.iter()
                .all(|r| r.findings.iter().all(|f| f.severity < Severity::Medium)),
            "{good} must stay below MEDIUM\n{}",
            describe(&g)
        );
    }
}

#[test]
fn a_tree_mixing_python_and_typescript_analyses_both() {
    let (tree, results) = scan("mixed_tree");
    assert_eq!(tree.coverage.files_by_language.get("python"), Some(&1));
    assert_eq!(tree.coverage.files_by_language.get("typescript"), Some(&1));
    assert!(tree.coverage.gaps.is_empty(), "{:?}", tree.coverage.gaps);
    let names: Vec<&str> = results.iter().map(|r| r.target.name.as_str()).collect();
    assert!(
        names.contains(&"echo") && names.contains(&"show_config"),
        "{names:?}"
    );
}

#[test]
fn rust_files_beside_a_typescript_server_stay_a_coverage_gap() {
    let (tree, results) = scan("unsupported_rust");
    assert!(
        tree.coverage
            .gaps
            .iter()
            .any(|g| g.kind == GapKind::UnsupportedLanguage && g.reason.contains("Rust")),
        "{:?}",
        tree.coverage.gaps
    );
    // The tool itself is analysed; the scan as a whole is INCOMPLETE through the gap.
    assert_eq!(results.len(), 1);
}

#[test]
fn a_registration_on_a_server_the_scan_cannot_follow_is_a_gap_not_silence() {
    let (tree, results) = scan("server_unresolved");
    assert!(results.is_empty(), "{}", describe(&results));
    let gaps: Vec<_> = tree
        .coverage
        .gaps
        .iter()
        .filter(|g| g.kind == GapKind::UnresolvedRegistration)
        .collect();
    // One for `server.addTool`, none for the local object's own `addTool`.
    assert_eq!(gaps.len(), 1, "{:?}", tree.coverage.gaps);
    assert_eq!(gaps[0].line, Some(11), "{gaps:?}");
    assert!(gaps[0].reason.contains("`server`"), "{}", gaps[0].reason);
}

#[test]
fn a_server_from_a_local_factory_has_its_tools_found_and_no_gap() {
    let (tree, results) = scan("server_factory");
    assert!(tree.coverage.gaps.is_empty(), "{:?}", tree.coverage.gaps);
    assert_eq!(results.len(), 2, "{}", describe(&results));
    assert!(results.iter().all(|r| r.incomplete.is_none()));
}

/// The tools found in a fixture, sorted, with the file each one's handler is in.
fn tools_and_files(tree: &ParsedTree) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = tree
        .modules
        .iter()
        .flat_map(|m| {
            m.entry_points
                .iter()
                .map(|e| (e.name.clone(), m.path.clone()))
        })
        .collect();
    v.sort();
    v
}

#[test]
fn a_call_tool_handler_delegating_through_wrappers_to_another_module_is_split_where_the_name_is_switched_on()
 {
    for name in ["lowlevel_delegate", "lowlevel_delegate_honest"] {
        let (tree, results) = scan(name);
        assert!(
            tree.coverage.gaps.is_empty(),
            "{name}: {:?}",
            tree.coverage.gaps
        );
        assert_eq!(
            tools_and_files(&tree),
            vec![
                (
                    "archive_folder".to_string(),
                    "src/toolHandler.ts".to_string()
                ),
                ("count_lines".to_string(), "src/toolHandler.ts".to_string()),
            ],
            "{name}"
        );
        // Each tool has its own arm: count_lines runs no command even in the malicious tree.
        let count = results
            .iter()
            .find(|r| r.target.name == "count_lines")
            .unwrap();
        assert!(count.findings.is_empty(), "{}", describe(&results));
    }
}

#[test]
fn the_server_a_handler_passes_to_its_delegate_is_not_a_tool_parameter() {
    let (tree, _) = scan("lowlevel_delegate");
    let m = tree
        .modules
        .iter()
        .find(|m| m.path == "src/toolHandler.ts")
        .unwrap();
    let ep = m
        .entry_points
        .iter()
        .find(|e| e.name == "archive_folder")
        .unwrap();
    let f = &m.functions[ep.function];
    let flags: Vec<(&str, bool)> = f
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.injected))
        .collect();
    assert_eq!(
        flags,
        vec![("name", false), ("args", false), ("server", true)]
    );
}

#[test]
fn a_delegate_with_no_dispatch_the_scan_can_follow_is_a_coverage_gap_with_the_listed_tools() {
    let (tree, results) = scan("lowlevel_delegate_unsplit");
    let gaps: Vec<_> = tree
        .coverage
        .gaps
        .iter()
        .filter(|g| g.kind == GapKind::UnresolvedRegistration)
        .collect();
    assert_eq!(gaps.len(), 1, "{:?}", tree.coverage.gaps);
    assert_eq!(gaps[0].line, Some(16), "{gaps:?}");
    assert!(
        gaps[0].reason.contains("not split per tool"),
        "{}",
        gaps[0].reason
    );
    assert_eq!(results.len(), 2, "{}", describe(&results));
}

#[test]
fn a_handler_map_spread_from_factory_results_is_split_per_key() {
    no_gap_and_no_finding_on("lowlevel_factory_map", "list_notes");
}

#[test]
fn a_map_of_data_keyed_by_tool_name_in_an_awaiter_body_gives_one_tool_per_key() {
    let (tree, _) = scan("lowlevel_data_map");
    assert!(tree.coverage.gaps.is_empty(), "{:?}", tree.coverage.gaps);
    assert_eq!(
        tools_and_files(&tree),
        vec![
            (
                "generate_bar_chart".to_string(),
                "build/utils/callTool.js".to_string()
            ),
            (
                "generate_pie_chart".to_string(),
                "build/utils/callTool.js".to_string()
            ),
        ]
    );
}

#[test]
fn the_inner_server_of_a_high_level_server_registers_a_low_level_dispatcher() {
    let (tree, _) = scan("inner_server_dispatch");
    assert!(tree.coverage.registration_sites >= 1);
    // discover_tools is answered by the handler itself, not by the delegate's shell command.
    no_gap_and_no_finding_on("inner_server_dispatch", "discover_tools");
}

#[test]
fn constructor_style_server_tools_are_the_keys_of_its_tools_object() {
    no_gap_and_no_finding_on("mastra_tools", "projectReadme");
}

#[test]
fn parameters_in_the_path_after_a_configured_base_stay_path_segments_across_two_steps() {
    clean_unless_the_caller_picks_the_host("path_after_base", "path_after_base_host");
}

#[test]
fn a_url_object_keeps_the_host_its_text_fixes_through_search_params_and_to_string() {
    clean_unless_the_caller_picks_the_host("url_object", "url_object_host");
}

/// `clean` has no finding at all; `caught` (the same shape with the caller's host) has the
/// secret-sent and caller-chosen-destination findings.
fn clean_unless_the_caller_picks_the_host(clean: &str, caught: &str) {
    let (_, results) = scan(clean);
    assert!(
        results.iter().all(|r| r.findings.is_empty()),
        "{}",
        describe(&results)
    );
    let (_, results) = scan(caught);
    let rules: Vec<&str> = results
        .iter()
        .flat_map(|r| r.findings.iter().map(|f| f.rule_id.as_str()))
        .collect();
    assert!(
        rules.contains(&"MCPS-S007") && rules.contains(&"MCPS-S001"),
        "{rules:?}"
    );
}

/// The fixture resolves without a coverage gap and `tool` (the one that only dispatches to
/// harmless code) has no finding.
fn no_gap_and_no_finding_on(fixture: &str, tool: &str) {
    let (tree, results) = scan(fixture);
    assert!(tree.coverage.gaps.is_empty(), "{:?}", tree.coverage.gaps);
    let r = results.iter().find(|r| r.target.name == tool).unwrap();
    assert!(r.findings.is_empty(), "{}", describe(&results));
}
