//! Bad input gives a per-file diagnostic and an incomplete file, never a panic, a hang or a stack
//! overflow; good files next to bad ones are analysed as usual.

use mcp_scan_core::DiagnosticLevel;
use mcp_scan_lang::{DiscoverOptions, LowerError, ParsedTree, python, scan_tree};
use std::path::Path;

const GOOD: &str = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n\n@mcp.tool()\ndef echo(text: str) -> str:\n    return text\n";

fn write(dir: &Path, rel: &str, bytes: impl AsRef<[u8]>) {
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(p, bytes).expect("write");
}

fn scan(dir: &Path) -> ParsedTree {
    scan_tree(dir, &DiscoverOptions::default()).expect("scan")
}

fn diag_for<'t>(tree: &'t ParsedTree, file: &str) -> Vec<&'t mcp_scan_core::Diagnostic> {
    tree.diagnostics
        .iter()
        .filter(|d| d.file.as_deref() == Some(file))
        .collect()
}

#[test]
fn a_clean_file_gets_no_diagnostic_and_is_complete() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "server.py", GOOD);
    let tree = scan(dir.path());
    assert!(tree.diagnostics.is_empty(), "{:?}", tree.diagnostics);
    assert!(tree.incomplete_files.is_empty());
    assert_eq!(
        tree.module("server.py").expect("module").entry_points.len(),
        1
    );
    assert_eq!(
        tree.sources.get("server.py").map(String::as_str),
        Some(GOOD)
    );
}

#[test]
fn syntax_error_is_located_and_the_files_tools_are_incomplete() {
    let dir = tempfile::tempdir().expect("tempdir");
    let broken = format!("{GOOD}\ndef broken(:\n    pass\n");
    write(dir.path(), "server.py", &broken);
    write(dir.path(), "ok.py", "x = 1\n");
    let tree = scan(dir.path());
    assert_eq!(tree.incomplete_files, ["server.py"]);
    let d = diag_for(&tree, "server.py");
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].level, DiagnosticLevel::Warning);
    assert_eq!(d[0].line, Some(8));
    assert!(d[0].message.contains("syntax error"), "{}", d[0].message);
    // Still lowered: its tool is known (and will be reported INCOMPLETE downstream).
    assert_eq!(
        tree.module("server.py").expect("module").entry_points.len(),
        1
    );
    assert!(diag_for(&tree, "ok.py").is_empty());
    // The strict single-file API refuses it.
    assert!(matches!(
        python::lower("server.py", &broken),
        Err(LowerError::Syntax { line: 8, .. })
    ));
}

#[test]
fn invalid_utf8_gets_a_diagnostic_with_its_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "latin1.py", b"x = 1\ny = '\xe9t\xe9'\n");
    write(dir.path(), "server.py", GOOD);
    let tree = scan(dir.path());
    assert_eq!(tree.incomplete_files, ["latin1.py"]);
    let d = diag_for(&tree, "latin1.py");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0].line, Some(2));
    assert!(d[0].message.contains("UTF-8"), "{}", d[0].message);
    assert!(tree.module("latin1.py").is_none());
    assert!(tree.module("server.py").is_some());
}

#[test]
fn binary_file_with_py_extension_is_rejected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut bytes = b"\x7fELF\x02\x01\x01".to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 4096));
    write(dir.path(), "payload.py", &bytes);
    let tree = scan(dir.path());
    assert_eq!(tree.incomplete_files, ["payload.py"]);
    assert!(diag_for(&tree, "payload.py")[0].message.contains("binary"));
}

#[test]
fn a_50_mb_file_is_rejected_by_the_size_cap_without_being_parsed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let line = "value = 'padding padding padding padding padding padding padding'\n";
    let big = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    assert!(big.len() >= 50 * 1024 * 1024);
    write(dir.path(), "huge.py", &big);
    write(dir.path(), "server.py", GOOD);
    let tree = scan(dir.path());
    assert_eq!(tree.incomplete_files, ["huge.py"]);
    let d = diag_for(&tree, "huge.py");
    assert!(d[0].message.contains("larger than"), "{}", d[0].message);
    assert!(tree.module("huge.py").is_none());
    assert!(!tree.sources.contains_key("huge.py"));
    assert_eq!(
        tree.module("server.py").expect("server").entry_points.len(),
        1
    );
}

fn assert_too_deep(name: &str, src: String) {
    assert_too_deep_or(name, src, false)
}

/// `syntax_ok`: tree-sitter's Python scanner keeps a bounded indentation stack, so very deep
/// indentation is (also) a syntax error.
fn assert_too_deep_or(name: &str, src: String, syntax_ok: bool) {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), &format!("{name}.py"), &src);
    write(dir.path(), "server.py", GOOD);
    let tree = scan(dir.path());
    let file = format!("{name}.py");
    assert_eq!(
        tree.incomplete_files,
        std::slice::from_ref(&file),
        "{:?}",
        tree.diagnostics
    );
    let d = diag_for(&tree, &file);
    assert!(
        d.iter().any(|d| d.message.contains("nesting too deep")),
        "{d:?}"
    );
    assert_eq!(
        tree.module("server.py").expect("server").entry_points.len(),
        1
    );
    match python::lower(&file, &src) {
        Err(LowerError::TooDeep { limit: 256, .. }) => {}
        Err(LowerError::Syntax { .. }) if syntax_ok => {}
        other => panic!("expected TooDeep, got {:?}", other.map(|m| m.path)),
    }
}

#[test]
fn ten_thousand_nested_parentheses_do_not_overflow_the_stack() {
    let n = 10_000;
    assert_too_deep(
        "parens",
        format!("# mcp\nx = {}1{}\n", "(".repeat(n), ")".repeat(n)),
    );
}

#[test]
fn ten_thousand_nested_lists_do_not_overflow_the_stack() {
    let n = 10_000;
    assert_too_deep("lists", format!("x = {}{}\n", "[".repeat(n), "]".repeat(n)));
}

#[test]
fn ten_thousand_nested_calls_and_lambdas_do_not_overflow_the_stack() {
    let n = 10_000;
    assert_too_deep(
        "calls",
        format!("x = {}0{}\n", "f(".repeat(n), ")".repeat(n)),
    );
    assert_too_deep("lambdas", format!("g = {}0\n", "lambda: ".repeat(n)));
}

#[test]
fn ten_thousand_term_expression_chain_does_not_overflow_the_stack() {
    let terms: Vec<String> = (0..10_000).map(|i| format!("a{i}")).collect();
    assert_too_deep("chain", format!("x = {}\n", terms.join(" + ")));
}

#[test]
fn deeply_nested_if_statements_do_not_overflow_the_stack() {
    // 3,000 levels with one space of indentation each is 4.5 MB; 10,000 would be 50 MB, which
    // the size cap rejects before parsing (see the 50 MB test).
    let n = 3_000;
    let mut src = String::from("from mcp.server.fastmcp import FastMCP\n");
    for i in 0..n {
        src.push_str(&" ".repeat(i));
        src.push_str("if x:\n");
    }
    src.push_str(&" ".repeat(n));
    src.push_str("pass\n");
    assert_too_deep_or("ifs", src, true);
}

#[test]
fn nesting_within_the_limit_is_lowered_completely() {
    let src = format!("x = {}1{}\n", "(".repeat(100), ")".repeat(100));
    python::lower("ok.py", &src).expect("100 levels are fine");
}

#[test]
fn default_skips_drop_venvs_vendored_code_caches_and_tests() {
    let dir = tempfile::tempdir().expect("tempdir");
    for rel in [
        "server.py",
        "pkg/util.py",
        ".venv/lib/python3.11/site-packages/requests/api.py",
        "venv/lib/x.py",
        "node_modules/pkg/gen.py",
        "lib/site-packages/yaml/x.py",
        "pkg/__pycache__/util.py",
        ".git/hooks/x.py",
        "tests/test_server.py",
        "pkg/test/helpers.py",
        "pkg/test_util.py",
        "pkg/util_test.py",
        "conftest.py",
        "README.md",
    ] {
        write(dir.path(), rel, "x = 1\n");
    }
    let tree = scan(dir.path());
    let got: Vec<_> = tree.modules.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(got, ["pkg/util.py", "server.py"]);
    assert!(tree.diagnostics.is_empty());

    let opts = DiscoverOptions {
        include: vec!["tests/**".into()],
        exclude: vec!["pkg/**".into()],
        ..DiscoverOptions::default()
    };
    let tree = scan_tree(dir.path(), &opts).expect("scan");
    let got: Vec<_> = tree.modules.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(got, ["server.py", "tests/test_server.py"]);

    let opts = DiscoverOptions {
        default_excludes: false,
        ..DiscoverOptions::default()
    };
    assert_eq!(
        scan_tree(dir.path(), &opts).expect("scan").modules.len(),
        13
    );
}

#[test]
fn a_single_file_can_be_the_root() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "server.py", GOOD);
    let tree = scan(&dir.path().join("server.py"));
    assert_eq!(tree.modules.len(), 1);
    assert_eq!(tree.modules[0].name, "server");
}

#[test]
fn a_missing_root_and_a_bad_glob_are_errors_not_panics() {
    let e = scan_tree(
        Path::new("/nonexistent/mcp-scan-root"),
        &DiscoverOptions::default(),
    )
    .expect_err("missing root");
    assert!(e.to_string().contains("/nonexistent/mcp-scan-root"), "{e}");
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = DiscoverOptions {
        include: vec!["a/[b".into()],
        ..DiscoverOptions::default()
    };
    let e = scan_tree(dir.path(), &opts).expect_err("bad glob");
    assert!(e.to_string().contains("a/[b"), "{e}");
}

#[test]
fn parallel_scans_are_deterministic() {
    let dir = tempfile::tempdir().expect("tempdir");
    for i in 0..40 {
        write(
            dir.path(),
            &format!("m{i:02}.py"),
            format!("{GOOD}\ndef f{i}(): return {i}\n"),
        );
    }
    write(dir.path(), "bad.py", "def (:\n");
    let a = scan(dir.path());
    let b = scan_tree(
        dir.path(),
        &DiscoverOptions {
            threads: 1,
            ..DiscoverOptions::default()
        },
    )
    .expect("scan");
    assert_eq!(a.modules, b.modules);
    assert_eq!(a.diagnostics, b.diagnostics);
    assert_eq!(a.incomplete_files, ["bad.py"]);
    assert_eq!(a.lines, b.lines);
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_unreadable_entries_do_not_hang() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "server.py", GOOD);
    std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).expect("symlink");
    std::os::unix::fs::symlink("/nonexistent", dir.path().join("dangling.py")).expect("symlink");
    let tree = scan(dir.path());
    let got: Vec<_> = tree.modules.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(got, ["server.py"]);
}
