//! The real binary on the runtime rules' docs: `mcp-scan rule MCPS-R0xx`.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp-scan"))
        .args(args)
        .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .stdin(Stdio::null())
        .output()
        .expect("mcp-scan runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8(b.to_vec()).expect("utf-8")
}

#[test]
fn rule_mcps_r002_prints_docs_with_false_positive_notes() {
    let o = run(&["rule", "MCPS-R002"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("analyzer:   runtime"), "{out}");
    assert!(
        out.contains("defined in: rules/runtime/R002.toml:"),
        "{out}"
    );
    insta::assert_snapshot!("rule_mcps_r002", out);
    let by_name = run(&["rule", "sensitive-file-read"]);
    assert_eq!(by_name.stdout, o.stdout);
}

#[test]
fn rule_mcps_r014_documents_both_sql_injection_signals() {
    let o = run(&["rule", "mcps-r014"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("severity:   HIGH (confidence high)"), "{out}");
    assert!(out.contains("database error signature"), "{out}");
    assert!(out.contains("more records"), "{out}");
}
