//! The flow engine is language-neutral: a language's identifiers, receivers, constructor and
//! API models come from its adapter (`mcp_scan_ir::Conventions`) and from
//! `rules/models/<lang>/`, so adding a language never edits this crate. This test fails when
//! code of the crate (comments and unit tests aside) names a Python-only identifier again.

use std::path::Path;

/// Python-only names no code of the flow engine may spell (case-insensitive).
const FORBIDDEN: &[&str] = &[
    "\"self\"",
    "\"cls\"",
    "__init__",
    "python",
    "pathlib.",
    "functools.",
    "importlib.",
    "staticmethod",
    "optional[",
];

/// The code of a source file: line comments and the `#[cfg(test)]` module dropped.
fn code_of(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let code = match line.find("//") {
            // `//` inside a string literal (a URL) is code: only cut when no quote precedes.
            Some(pos) if !line[..pos].contains('"') => &line[..pos],
            _ => line,
        };
        out.push((i + 1, code.to_lowercase()));
    }
    out
}

#[test]
fn flow_engine_names_no_python_identifier() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut hits = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(&src)
        .expect("src/ is readable")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("build.rs"));
    assert!(files.len() > 3, "the crate's sources were not found");
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable source");
        for (line, code) in code_of(&text) {
            for word in FORBIDDEN {
                if code.contains(word) {
                    hits.push(format!("{}:{line}: {word}", file.display()));
                }
            }
        }
    }
    assert!(
        hits.is_empty(),
        "language-specific names belong in the adapter (Conventions) or in \
         rules/models/<lang>/:\n{}",
        hits.join("\n")
    );
}

#[test]
fn the_scan_fails_on_a_planted_python_identifier() {
    // The twin: the same scan over a line that names one does find it.
    let planted = "let ctor = format!(\"{c}.__init__\");\nif name == \"self\" {}\n";
    let found: Vec<_> = code_of(planted)
        .into_iter()
        .filter(|(_, code)| FORBIDDEN.iter().any(|w| code.contains(w)))
        .map(|(line, _)| line)
        .collect();
    assert_eq!(found, vec![1, 2]);
    // A comment naming it is not code.
    assert!(code_of("// Python's `self`\n")[0].1.trim().is_empty());
}
