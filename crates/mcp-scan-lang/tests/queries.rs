//! The capture-name contract between `grammars/**/*.scm` and the Rust that reads the matches,
//! and the framework model's raw → compiled checks.

use mcp_scan_lang::queries::{CAPTURE_NAMES, Frameworks, QueryFile, compile, query_files};
use mcp_scan_lang::{LowerError, ServerStyle};

#[test]
fn every_query_compiles_and_uses_only_contract_captures() {
    let files = query_files();
    assert!(!files.is_empty());
    for file in files {
        let q = compile(file).unwrap_or_else(|e| panic!("{e}"));
        assert!(q.pattern_count() > 0, "{} has no patterns", file.path);
        for name in q.capture_names() {
            assert!(CAPTURE_NAMES.contains(name), "{}: @{name}", file.path);
        }
    }
}

#[test]
fn every_query_file_on_disk_is_embedded() {
    let grammars = concat!(env!("CARGO_MANIFEST_DIR"), "/../../grammars");
    for lang in std::fs::read_dir(grammars).expect("grammars/ exists") {
        let lang = lang.expect("entry");
        if !lang.path().is_dir() {
            continue;
        }
        for f in std::fs::read_dir(lang.path()).expect("readable") {
            let p = f.expect("entry").path();
            if p.extension().is_some_and(|e| e == "scm") {
                let rel = format!(
                    "grammars/{}/{}",
                    lang.file_name().to_string_lossy(),
                    p.file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default()
                );
                assert!(
                    query_files().iter().any(|q| q.path == rel),
                    "{rel} is not listed in its adapter's queries(), so no test compiles it"
                );
            }
        }
    }
}

#[test]
fn a_capture_outside_the_contract_is_rejected_with_its_position() {
    let bad = QueryFile {
        language: "python",
        path: "grammars/python/bad.scm",
        source: "(call\n  function: (identifier) @callee.name)",
    };
    match compile(&bad) {
        Err(LowerError::Query { line, message, .. }) => {
            assert_eq!(line, 2);
            assert!(message.contains("@callee.name"), "{message}");
        }
        other => panic!("expected a contract error, got {other:?}"),
    }
}

#[test]
fn a_malformed_query_reports_file_and_line() {
    let bad = QueryFile {
        language: "python",
        path: "grammars/python/broken.scm",
        source: "(call)\n(no_such_node) @server.var",
    };
    match compile(&bad) {
        Err(e @ LowerError::Query { line: 2, .. }) => {
            assert!(
                e.to_string().starts_with("grammars/python/broken.scm:2:"),
                "{e}"
            )
        }
        other => panic!("expected a query error on line 2, got {other:?}"),
    }
}

#[test]
fn readme_lists_exactly_the_contract_captures() {
    let readme = include_str!("../../../grammars/README.md");
    let mut documented: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("| `@"))
        .filter_map(|l| l.split('`').next())
        .collect();
    documented.sort_unstable();
    let mut contract = CAPTURE_NAMES.to_vec();
    contract.sort_unstable();
    assert_eq!(documented, contract);
}

#[test]
fn framework_model_compiles_and_knows_both_sdk_generations() {
    let fw = mcp_scan_lang::python::python_frameworks_checked().expect("model compiles");
    for (callee, style) in [
        ("mcp.server.fastmcp.FastMCP", ServerStyle::Decorator),
        ("mcp.server.MCPServer", ServerStyle::Decorator),
        ("fastmcp.FastMCP", ServerStyle::Decorator),
        ("mcp.server.lowlevel.Server", ServerStyle::LowLevel),
    ] {
        assert_eq!(fw.server_style(callee), Some(style), "{callee}");
    }
    assert_eq!(fw.server_style("flask.Flask"), None);
}

#[test]
fn framework_model_rejects_unknown_style_and_fields() {
    let bad_style = r#"
[[server]]
callee = "x.Y"
style = "magic"
[[registration]]
method = "tool"
kind = "tool"
[low_level]
dispatcher_methods = []
dispatcher_keywords = []
listing_methods = []
listing_keywords = []
tool_declarations = []
name_keyword = "name"
description_keyword = "description"
schema_keywords = []
"#;
    let e = Frameworks::compile("f.toml", bad_style).expect_err("unknown style");
    assert!(e.to_string().contains("unknown style \"magic\""), "{e}");

    let unknown_field = bad_style.replace("style = \"magic\"", "style = \"decorator\"\ncolour = 1");
    let e = Frameworks::compile("f.toml", &unknown_field).expect_err("unknown field");
    assert!(
        e.to_string().contains("f.toml") && e.to_string().contains("line 5"),
        "{e}"
    );
}
