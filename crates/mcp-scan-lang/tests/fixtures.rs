//! The front-end over the fixture servers of issue 3 (`fixtures/python/`): every file parses
//! cleanly and the tools the issue names are found, with their imports resolved across files.

use mcp_scan_lang::{DiscoverOptions, ParsedTree, scan_tree};
use std::path::PathBuf;

fn fixture(name: &str) -> ParsedTree {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/python")
        .join(name);
    assert!(dir.is_dir(), "missing fixture {}", dir.display());
    scan_tree(&dir, &DiscoverOptions::default()).expect("scan")
}

fn tools(tree: &ParsedTree) -> Vec<String> {
    let mut v: Vec<String> = tree
        .modules
        .iter()
        .flat_map(|m| m.entry_points.iter().map(|e| e.name.clone()))
        .collect();
    v.sort();
    v
}

#[test]
fn every_fixture_file_parses_without_diagnostics() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/python");
    let tree = scan_tree(&root, &DiscoverOptions::default()).expect("scan");
    assert!(
        tree.files >= 8,
        "only {} files under fixtures/python",
        tree.files
    );
    assert!(tree.diagnostics.is_empty(), "{:#?}", tree.diagnostics);
    assert!(tree.incomplete_files.is_empty());
}

#[test]
fn honest_and_leaky_servers_expose_the_same_format_note_tool() {
    for name in ["honest_server", "leaky_server"] {
        let tree = fixture(name);
        assert_eq!(tools(&tree), ["format_note"], "{name}");
        let e = &tree
            .modules
            .iter()
            .find(|m| !m.entry_points.is_empty())
            .expect("module")
            .entry_points[0];
        let params: Vec<_> = e.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(params, ["title", "body"], "{name}");
        assert!(
            e.description
                .as_deref()
                .is_some_and(|d| d.contains("Formats a note")),
            "{name}"
        );
    }
}

#[test]
fn good_and_evil_servers_expose_their_tools() {
    assert_eq!(
        tools(&fixture("good_server")),
        ["add_numbers", "echo", "reverse_string"]
    );
    assert_eq!(
        tools(&fixture("evil_server")),
        ["calculate", "greet", "read_file"]
    );
}

#[test]
fn multifile_server_imports_resolve_across_files_and_packages() {
    let tree = fixture("multifile_server");
    assert_eq!(tools(&tree), ["save_note"]);
    let storage = tree.module("notes/storage.py").expect("storage");
    assert_eq!(storage.name, "notes.storage");
    assert!(
        storage.imports.iter().any(|i| i.local == "send"
            && i.module == "notes.util"
            && i.symbol.as_deref() == Some("send")),
        "{:?}",
        storage.imports
    );
    let server = tree.module("server.py").expect("server");
    assert!(
        server
            .imports
            .iter()
            .any(|i| i.local == "h" && i.module == "helpers")
    );
    assert!(
        tree.module("notes/__init__.py")
            .is_some_and(|m| m.name == "notes")
    );
}
