//! What `scan_tree` accounts for: every file the server could load is analysed or is a coverage
//! gap with its reason (issue 9 §2).

use mcp_scan_core::GapKind;
use mcp_scan_lang::{DiscoverOptions, ParsedTree, scan_tree};
use std::path::Path;

fn write(root: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

fn scan(root: &Path) -> ParsedTree {
    scan_tree(root, &DiscoverOptions::default()).expect("scan")
}

fn modules(t: &ParsedTree) -> Vec<&str> {
    t.modules.iter().map(|m| m.path.as_str()).collect()
}

fn gap_kinds(t: &ParsedTree) -> Vec<(GapKind, String)> {
    t.coverage
        .gaps
        .iter()
        .map(|g| (g.kind, g.file.clone().unwrap_or_default()))
        .collect()
}

const SERVER: &str = "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n\n@mcp.tool()\ndef echo(m: str) -> str:\n    \"\"\"Echoes.\"\"\"\n    return m\n";

#[test]
fn sources_without_an_adapter_are_one_gap_per_language_and_declarations_are_not_code() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "server.py", SERVER);
    write(dir.path(), "web/a.ts", "export const a = 1;\n");
    write(dir.path(), "web/b.tsx", "export const b = 2;\n");
    write(dir.path(), "web/types.d.ts", "export type T = string;\n");
    write(dir.path(), "web/main.go", "package main\n");
    write(dir.path(), "native/lib.rs", "pub fn f() {}\n");
    write(
        dir.path(),
        "node_modules/x/index.js",
        "module.exports = 1;\n",
    );
    write(dir.path(), "package.json", "{}\n");
    write(dir.path(), "README.md", "# x\n");
    let t = scan(dir.path());
    // TypeScript has an adapter: analysed, not a gap; Rust has none.
    assert_eq!(
        gap_kinds(&t),
        [(GapKind::UnsupportedLanguage, "native/lib.rs".to_string())]
    );
    assert_eq!(
        modules(&t),
        ["server.py", "web/a.ts", "web/b.tsx", "web/main.go"],
        "declarations (.d.ts) are not code"
    );
    assert_eq!(t.coverage.files_by_language.get("python"), Some(&1));
    assert_eq!(t.coverage.files_by_language.get("typescript"), Some(&2));
    // Go has an adapter: its file is analysed, not a gap.
    assert_eq!(t.coverage.files_by_language.get("go"), Some(&1));
    assert!(
        t.diagnostics
            .iter()
            .any(|d| d.message.contains("no Rust adapter")),
        "{:?}",
        t.diagnostics
    );
}

#[test]
fn a_python_only_tree_has_no_gaps() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "server.py", SERVER);
    write(dir.path(), "docs/index.md", "# docs\n");
    write(dir.path(), "types.d.ts", "export type T = string;\n");
    let t = scan(dir.path());
    assert!(t.coverage.gaps.is_empty(), "{:?}", t.coverage.gaps);
    assert!(t.diagnostics.is_empty(), "{:?}", t.diagnostics);
}

#[test]
fn modules_imported_from_default_skipped_folders_are_analysed_and_others_are_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "server.py",
        format!("from tests.support import helper\nimport vendor_pkg.deep\n{SERVER}"),
    );
    write(dir.path(), "tests/__init__.py", "");
    write(
        dir.path(),
        "tests/support.py",
        "from .more import inner\ndef helper():\n    return inner()\n",
    );
    write(dir.path(), "tests/more.py", "def inner():\n    return 1\n");
    write(
        dir.path(),
        "tests/test_server.py",
        "def test_x():\n    pass\n",
    );
    write(dir.path(), ".venv/lib/vendor_pkg/deep.py", "x = 1\n");
    let t = scan(dir.path());
    assert_eq!(
        modules(&t),
        [
            "server.py",
            "tests/__init__.py",
            "tests/more.py",
            "tests/support.py"
        ],
        "imported modules (and what they import) are in; the unimported test and the venv are out"
    );
    assert!(t.coverage.gaps.is_empty(), "{:?}", t.coverage.gaps);
}

#[test]
fn an_import_the_user_excluded_or_a_missing_relative_module_is_a_gap() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(
        dir.path(),
        "app/server.py",
        format!("from .gone import f\nfrom app.helpers import g\nimport requests\n{SERVER}"),
    );
    write(dir.path(), "app/__init__.py", "");
    write(dir.path(), "app/helpers.py", "def g():\n    return 1\n");
    let opts = DiscoverOptions {
        exclude: vec!["app/helpers.py".into()],
        ..DiscoverOptions::default()
    };
    let t = scan_tree(dir.path(), &opts).expect("scan");
    let got: Vec<(GapKind, Option<u32>)> =
        t.coverage.gaps.iter().map(|g| (g.kind, g.line)).collect();
    assert_eq!(
        got,
        [
            (GapKind::UnanalysedImport, Some(1)),
            (GapKind::UnanalysedImport, Some(2)),
        ]
    );
    assert!(t.coverage.gaps[1].reason.contains("--exclude"));
}

#[cfg(unix)]
#[test]
fn symlinked_folders_are_walked_once_loops_finish_and_links_out_of_the_root_are_gaps() {
    let outside = tempfile::tempdir().expect("tempdir");
    write(outside.path(), "shared/util.py", "x = 1\n");
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "pkg/server.py", SERVER);
    write(dir.path(), "real/lib.py", "y = 2\n");
    std::os::unix::fs::symlink(dir.path().join("real"), dir.path().join("pkg/linked"))
        .expect("symlink");
    std::os::unix::fs::symlink(dir.path(), dir.path().join("real/loop")).expect("symlink");
    std::os::unix::fs::symlink(dir.path().join("pkg/server.py"), dir.path().join("main.py"))
        .expect("symlink");
    std::os::unix::fs::symlink(outside.path().join("shared"), dir.path().join("shared"))
        .expect("symlink");
    let t = scan(dir.path());
    assert_eq!(
        modules(&t),
        ["pkg/server.py", "real/lib.py"],
        "the alias, the loop and the file link add nothing twice"
    );
    assert_eq!(
        gap_kinds(&t),
        [(GapKind::UnanalysedFile, "shared".to_string())]
    );
    assert!(
        t.coverage.gaps[0]
            .reason
            .contains("outside the scanned root")
    );
}

#[cfg(unix)]
#[test]
fn a_symlinked_folder_whose_target_is_skipped_is_walked_under_its_own_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "server.py", SERVER);
    write(dir.path(), "tests/fixtures_lib/tool.py", "z = 3\n");
    std::os::unix::fs::symlink(
        dir.path().join("tests/fixtures_lib"),
        dir.path().join("toolkit"),
    )
    .expect("symlink");
    let t = scan(dir.path());
    assert_eq!(modules(&t), ["server.py", "toolkit/tool.py"]);
}

#[test]
fn a_latin1_source_with_a_coding_line_is_lowered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut src = b"# -*- coding: latin-1 -*-\n".to_vec();
    src.extend_from_slice(SERVER.replace("Echoes.", "R\u{e9}p\u{e8}te.").as_bytes());
    // Re-encode the docstring's accents as latin-1 bytes.
    let text = String::from_utf8(src).expect("utf8");
    let latin1: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
    write(dir.path(), "server.py", latin1);
    let t = scan(dir.path());
    assert!(t.coverage.gaps.is_empty(), "{:?}", t.coverage.gaps);
    assert_eq!(modules(&t), ["server.py"]);
    assert!(t.sources["server.py"].contains("Répète."));
}

#[test]
fn an_over_cap_file_is_a_gap_and_a_larger_cap_analyses_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "server.py", SERVER);
    let small = DiscoverOptions {
        max_file_bytes: 64,
        ..DiscoverOptions::default()
    };
    let t = scan_tree(dir.path(), &small).expect("scan");
    assert_eq!(
        gap_kinds(&t),
        [(GapKind::UnanalysedFile, "server.py".to_string())]
    );
    assert!(t.coverage.gaps[0].reason.contains("64-byte limit"));
    assert!(scan(dir.path()).coverage.gaps.is_empty());
}
