//! Every Go fixture server under `fixtures/go/` parsed by the real Go front-end and analysed:
//! tools and findings must equal its `expected.toml` exactly, every tool complete, and no
//! coverage gap. Each risky fixture has an honest twin of the same shapes.

use mcp_scan_core::{Finding, Severity};
use mcp_scan_flow::{Input, ToolResult, analyze};
use mcp_scan_lang::{DiscoverOptions, ParsedTree, scan_tree};
use serde::Deserialize;
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/go")
}

#[derive(Deserialize)]
struct Expected {
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    finding: Vec<ExpectedFinding>,
}

#[derive(Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ExpectedFinding {
    rule: String,
    tool: String,
    severity: Severity,
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
        for fl in &r.behavior.flows {
            s.push_str(&format!(
                "  flow {} -> {} {}\n",
                fl.source, fl.sink_kind, fl.sink_api
            ));
        }
        for f in &r.findings {
            s.push_str(&format!(
                "  finding {} {}: {}\n",
                f.rule_id, f.severity, f.observation
            ));
        }
    }
    s
}

fn check_fixture(name: &str) -> Vec<ToolResult> {
    let (tree, results) = scan(name);
    let path = fixtures_dir().join(name).join("expected.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let exp: Expected = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        tree.incomplete_files.is_empty(),
        "{name}: {:?}",
        tree.incomplete_files
    );
    assert!(
        tree.coverage.gaps.is_empty(),
        "{name}: gaps {:?}",
        tree.coverage.gaps
    );
    let mut tools: Vec<String> = results.iter().map(|r| r.target.name.clone()).collect();
    tools.sort();
    let mut want_tools = exp.tools.clone();
    want_tools.sort();
    assert_eq!(
        tools,
        want_tools,
        "{name}: entry points\n{}",
        describe(&results)
    );
    let mut got: Vec<ExpectedFinding> = results
        .iter()
        .flat_map(|r| r.findings.iter())
        .map(|f: &Finding| ExpectedFinding {
            rule: f.rule_id.clone(),
            tool: f.target.name.clone(),
            severity: f.severity,
        })
        .collect();
    got.sort();
    let mut want = exp.finding.clone();
    want.sort();
    assert_eq!(got, want, "{name}: findings differ\n{}", describe(&results));
    for r in &results {
        assert!(
            r.behavior.complete,
            "{name}/{}: {:?}",
            r.target.name, r.incomplete
        );
    }
    results
}

fn max_severity(results: &[ToolResult], tool: &str) -> Option<Severity> {
    results
        .iter()
        .filter(|r| r.target.name == tool)
        .flat_map(|r| r.findings.iter())
        .map(|f| f.severity)
        .max()
}

#[test]
fn mcp_go_risky_server_shows_shell_secret_egress_env_and_sql_flows() {
    check_fixture("mcpgo_risky");
}

#[test]
fn mcp_go_honest_twin_stays_below_medium() {
    let results = check_fixture("mcpgo_honest");
    for r in &results {
        assert!(
            max_severity(&results, &r.target.name).is_none_or(|s| s < Severity::Medium),
            "{}\n{}",
            r.target.name,
            describe(&results)
        );
    }
}

#[test]
fn go_sdk_risky_server_shows_flows_across_files_and_packages() {
    check_fixture("gosdk_risky");
}

#[test]
fn go_sdk_honest_twin_stays_below_medium() {
    let results = check_fixture("gosdk_honest");
    for r in &results {
        assert!(
            max_severity(&results, &r.target.name).is_none_or(|s| s < Severity::Medium),
            "{}\n{}",
            r.target.name,
            describe(&results)
        );
    }
}
