//! Which files a server's imports load, so code under a default-skipped folder (`tests/`,
//! vendored dirs) is analysed when the server imports it, and an import of the server's own code
//! that resolves to nothing is a coverage gap.
//!
//! The rule (documented in docs/raw-report.md, "gap"):
//! - a relative import (`from .x import y`, `from .. import z`) must resolve to a file or folder
//!   of the tree; if it does not, it is an `UnanalysedImport` gap;
//! - an absolute import (`import a.b`, `from a.b import c`) is looked up as Python would with the
//!   importing file's folder, each folder above it up to the root, and `<root>/src` on the path.
//!   When its top-level name is not in the tree it is an installed package (we cannot tell
//!   which): no gap. When the top-level name is the tree's own but the rest resolves to nothing,
//!   it is a gap;
//! - every file the import runs (`a/__init__.py`, `a/b.py`, and for `from a import c` a submodule
//!   `a/c.py`) is analysed even under a default-skipped folder; one the user excluded with
//!   `--exclude`, or one reached through a symlink leading outside the root, is a gap;
//! - dynamic imports (`importlib.import_module`, `__import__`) are not followed.

use mcp_scan_ir::{Expr, ExprKind, Module, Stmt, StmtKind};
use std::collections::HashSet;
use std::path::Path;

/// One import statement, as far as loading files goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ImportRequest {
    /// Leading dots; 0 for an absolute import.
    pub level: usize,
    /// The dotted module path after the dots, split (`a.b` → `["a", "b"]`; empty for `from .`).
    pub path: Vec<String>,
    /// For `from m import a, b`: the imported names (may be submodules); empty for `import m`
    /// and `from m import *`.
    pub names: Vec<String>,
    pub line: u32,
    /// Inside `try:` with a handler for `ImportError` (or wider), or under `if TYPE_CHECKING:`:
    /// the code copes with the module being absent, so its absence is no gap.
    pub optional: bool,
}

/// The import requests of a lowered module, read from each import statement's source text (the
/// IR keeps `import a.b.c` as `a` and forgets whether an import was relative).
pub(crate) fn requests(module: &Module, source: &str) -> Vec<ImportRequest> {
    // The statements parsed here are Python's; other adapters resolve their imports by module
    // name in their own `resolve`.
    if module.language != mcp_scan_ir::Language::Python {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut optional = HashSet::new();
    for f in &module.functions {
        mark_optional(&f.body, false, &mut optional);
    }
    for imp in &module.imports {
        if !seen.insert(imp.span.start_byte) {
            continue;
        }
        let Some(text) = source.get(imp.span.start_byte..imp.span.end_byte) else {
            continue;
        };
        let is_optional = optional.contains(&imp.span.start_byte);
        out.extend(
            parse_statement(text, imp.span.start_line)
                .into_iter()
                .map(|r| ImportRequest {
                    optional: is_optional,
                    ..r
                }),
        );
    }
    out
}

/// Start bytes of import statements that run under a guard for their failure (or never run).
fn mark_optional(stmts: &[Stmt], guarded: bool, out: &mut HashSet<usize>) {
    for st in stmts {
        match &st.kind {
            StmtKind::Import(_) if guarded => {
                out.insert(st.span.start_byte);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                let catches = handlers
                    .iter()
                    .any(|h| h.kind.as_ref().is_none_or(catches_import_error));
                mark_optional(body, guarded || catches, out);
                for h in handlers {
                    mark_optional(&h.body, guarded, out);
                }
                mark_optional(orelse, guarded, out);
                mark_optional(finally, guarded, out);
            }
            StmtKind::If { test, then, orelse } => {
                mark_optional(then, guarded || names(test, "TYPE_CHECKING"), out);
                mark_optional(orelse, guarded, out);
            }
            StmtKind::While { body, orelse, .. } | StmtKind::For { body, orelse, .. } => {
                mark_optional(body, guarded, out);
                mark_optional(orelse, guarded, out);
            }
            StmtKind::With { body, .. }
            | StmtKind::Labeled { body, .. }
            | StmtKind::Defer(body) => mark_optional(body, guarded, out),
            StmtKind::Match { arms, .. } | StmtKind::Switch { arms, .. } => {
                for a in arms {
                    mark_optional(&a.body, guarded, out);
                }
            }
            _ => {}
        }
    }
}

fn catches_import_error(kind: &Expr) -> bool {
    [
        "ImportError",
        "ModuleNotFoundError",
        "Exception",
        "BaseException",
    ]
    .iter()
    .any(|n| names(kind, n))
}

/// Whether `e` is the name `n`, `x.n`, or a tuple holding one.
fn names(e: &Expr, n: &str) -> bool {
    match &e.kind {
        ExprKind::Name(s) => s == n,
        ExprKind::Attribute { attr, .. } => attr == n,
        ExprKind::Tuple(items) | ExprKind::List(items) => items.iter().any(|i| names(i, n)),
        _ => false,
    }
}

/// Parses `import a.b as c, d` or `from ..a import (b as c, d)`.
fn parse_statement(text: &str, line: u32) -> Vec<ImportRequest> {
    // Drop comments, line continuations and parentheses: what is left is words and commas.
    let mut flat = String::with_capacity(text.len());
    for l in text.lines() {
        let l = l.split('#').next().unwrap_or("");
        flat.push_str(l.trim_end().trim_end_matches('\\'));
        flat.push(' ');
    }
    let flat = flat.replace(['(', ')'], " ");
    let flat = flat.trim();
    if let Some(rest) = flat.strip_prefix("import") {
        return rest
            .split(',')
            .filter_map(|item| {
                let dotted = item.split_whitespace().next()?;
                Some(ImportRequest {
                    level: 0,
                    path: dotted_parts(dotted)?,
                    names: Vec::new(),
                    line,
                    optional: false,
                })
            })
            .collect();
    }
    let Some(rest) = flat.strip_prefix("from") else {
        return Vec::new();
    };
    let Some((module, names)) = split_word(rest, "import") else {
        return Vec::new();
    };
    let module: String = module.split_whitespace().collect();
    let level = module.chars().take_while(|c| *c == '.').count();
    let dotted = &module[level..];
    let path = if dotted.is_empty() {
        Vec::new()
    } else {
        match dotted_parts(dotted) {
            Some(p) => p,
            None => return Vec::new(),
        }
    };
    let names = names
        .split(',')
        .filter_map(|item| item.split_whitespace().next())
        .filter(|n| *n != "*" && is_identifier(n))
        .map(str::to_string)
        .collect();
    vec![ImportRequest {
        level,
        path,
        names,
        line,
        optional: false,
    }]
}

/// `a from b import c` split at the word `import` (not inside a name like `important`).
fn split_word<'a>(s: &'a str, word: &str) -> Option<(&'a str, &'a str)> {
    let mut from = 0;
    while let Some(i) = s[from..].find(word) {
        let at = from + i;
        let before = s[..at].chars().next_back();
        let after = s[at + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if boundary(before) && boundary(after) {
            return Some((&s[..at], &s[at + word.len()..]));
        }
        from = at + word.len();
    }
    None
}

fn dotted_parts(dotted: &str) -> Option<Vec<String>> {
    let parts: Vec<String> = dotted.split('.').map(str::to_string).collect();
    parts.iter().all(|p| is_identifier(p)).then_some(parts)
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// What one import resolves to in the tree.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Resolution {
    /// Relative paths (`/`-separated) of the `.py` files the import runs.
    pub files: Vec<String>,
    /// Why the import is a gap, when it is the server's own code and resolves to nothing.
    pub missing: Option<String>,
}

/// Resolves `req`, made by the file at `importer` (relative path), against the tree at `root`.
pub(crate) fn resolve(root: &Path, importer: &str, req: &ImportRequest) -> Resolution {
    let importer_dir: Vec<&str> = {
        let mut parts: Vec<&str> = importer.split('/').collect();
        parts.pop();
        parts
    };
    let mut out = Resolution::default();
    let shown = display(req);
    if req.level > 0 {
        let up = req.level - 1;
        if up > importer_dir.len() {
            out.missing = Some(format!(
                "`{shown}` climbs above the scanned root; scan the folder that holds the package"
            ));
            return out;
        }
        let base: Vec<String> = importer_dir[..importer_dir.len() - up]
            .iter()
            .map(|s| s.to_string())
            .collect();
        if !walk_module(root, &base, &req.path, &req.names, &mut out.files) {
            out.missing = missing(root, &base, req, &shown, || {
                format!("`{shown}` resolves to no file in the scanned tree")
            });
        }
        return out;
    }
    let Some(top) = req.path.first() else {
        return out;
    };
    // Candidate sys.path entries: the importer's folder and each folder above it that is not a
    // package (a script's folder, or the parent of a top-level package), then `src/` (the src
    // layout). A package folder is not on sys.path: `import importlib` inside a package that has
    // an `importlib/` subpackage still means the standard library.
    let mut bases: Vec<Vec<String>> = (0..=importer_dir.len())
        .rev()
        .map(|n| {
            importer_dir[..n]
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
        })
        .filter(|b| b.is_empty() || !root.join(rel(b, &[])).join("__init__.py").is_file())
        .collect();
    bases.push(vec!["src".to_string()]);
    for base in bases {
        if !top_level_exists(root, &base, top) {
            continue;
        }
        if !walk_module(root, &base, &req.path, &req.names, &mut out.files) {
            out.missing = missing(root, &base, req, &shown, || {
                format!(
                    "`{shown}`: `{top}` is this tree's own package but the module resolves to no file"
                )
            });
        }
        return out;
    }
    out
}

/// The gap for a module that is not a Python file: a compiled extension is native code nobody
/// analysed (a gap even when the import is guarded: when present, it is what runs); otherwise a
/// gap unless the code copes with the module's absence.
fn missing(
    root: &Path,
    base: &[String],
    req: &ImportRequest,
    shown: &str,
    absent: impl FnOnce() -> String,
) -> Option<String> {
    if let Some((last, parents)) = req.path.split_last() {
        let dir = root.join(rel(base, parents));
        let native = std::fs::read_dir(&dir).ok().and_then(|entries| {
            entries.flatten().find_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                let stem = name
                    .strip_suffix(".so")
                    .or_else(|| name.strip_suffix(".pyd"))?;
                let module = stem.split('.').next()?;
                (module == last).then_some(name)
            })
        });
        if let Some(name) = native {
            return Some(format!(
                "`{shown}` loads the compiled extension `{}`: native code is not analysed",
                rel(base, &[parents.to_vec(), vec![name]].concat())
            ));
        }
    }
    (!req.optional).then(absent)
}

fn display(req: &ImportRequest) -> String {
    let module = format!("{}{}", ".".repeat(req.level), req.path.join("."));
    if req.level > 0 || !req.names.is_empty() {
        if req.names.is_empty() {
            format!("from {module} import *")
        } else {
            format!("from {module} import {}", req.names.join(", "))
        }
    } else {
        format!("import {module}")
    }
}

fn rel(base: &[String], parts: &[String]) -> String {
    base.iter()
        .chain(parts)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join("/")
}

/// A top-level name belongs to the tree when `name.py`, `name/__init__.py` or a folder of Python
/// files `name/` sits in `base`. A folder of data that happens to share a standard module's name
/// does not shadow it.
fn top_level_exists(root: &Path, base: &[String], top: &str) -> bool {
    let dir = root.join(rel(base, &[top.to_string()]));
    if dir.with_extension("py").is_file() || dir.join("__init__.py").is_file() {
        return true;
    }
    std::fs::read_dir(&dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let p = e.path();
            p.extension().is_some_and(|x| x == "py") && p.is_file()
        })
    })
}

/// Collects the files `import base/path` (and `from … import names`) runs. False when the module
/// itself resolves to nothing. The base folder's own `__init__.py` is not listed: for a relative
/// import it is the importer's package, already loaded.
fn walk_module(
    root: &Path,
    base: &[String],
    path: &[String],
    names: &[String],
    files: &mut Vec<String>,
) -> bool {
    let mut cur: Vec<String> = Vec::new();
    for (i, part) in path.iter().enumerate() {
        cur.push(part.clone());
        let as_dir = rel(base, &cur);
        let init = format!("{as_dir}/__init__.py");
        let module = format!("{as_dir}.py");
        let last = i + 1 == path.len();
        if root.join(&init).is_file() {
            files.push(init);
        } else if root.join(&module).is_file() {
            files.push(module);
            // A module, not a package: nothing below it is a file.
            return last;
        } else if !root.join(&as_dir).is_dir() {
            return false;
        }
    }
    // `from pkg import name`: `name` may be a submodule.
    let pkg = rel(base, &cur);
    for name in names {
        let sub = if pkg.is_empty() {
            name.clone()
        } else {
            format!("{pkg}/{name}")
        };
        let init = format!("{sub}/__init__.py");
        let module = format!("{sub}.py");
        if root.join(&init).is_file() {
            files.push(init);
        } else if root.join(&module).is_file() {
            files.push(module);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(level: usize, path: &[&str], names: &[&str]) -> ImportRequest {
        ImportRequest {
            level,
            path: path.iter().map(|s| s.to_string()).collect(),
            names: names.iter().map(|s| s.to_string()).collect(),
            line: 1,
            optional: false,
        }
    }

    #[test]
    fn statements_parse_with_dots_aliases_parentheses_and_comments() {
        assert_eq!(
            parse_statement("import a.b as c, d", 3),
            vec![
                ImportRequest {
                    line: 3,
                    ..req(0, &["a", "b"], &[])
                },
                ImportRequest {
                    line: 3,
                    ..req(0, &["d"], &[])
                }
            ]
        );
        assert_eq!(
            parse_statement("from ..pkg.sub import (\n  x as y,  # why\n  z,\n)", 1),
            vec![req(2, &["pkg", "sub"], &["x", "z"])]
        );
        assert_eq!(
            parse_statement("from . import helpers", 1),
            vec![req(1, &[], &["helpers"])]
        );
        assert_eq!(
            parse_statement("from important import importer", 1),
            vec![req(0, &["important"], &["importer"])]
        );
        assert_eq!(
            parse_statement("from m import *", 1),
            vec![req(0, &["m"], &[])]
        );
    }

    fn tree(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        for f in files {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, "x = 1\n").expect("write");
        }
        dir
    }

    #[test]
    fn absolute_imports_of_the_trees_own_package_resolve_through_every_package_file() {
        let t = tree(&["server.py", "tests/__init__.py", "tests/helpers.py"]);
        let r = resolve(t.path(), "server.py", &req(0, &["tests", "helpers"], &[]));
        assert_eq!(r.files, ["tests/__init__.py", "tests/helpers.py"]);
        assert_eq!(r.missing, None);
        let r = resolve(
            t.path(),
            "server.py",
            &req(0, &["tests"], &["helpers", "VALUE"]),
        );
        assert_eq!(r.files, ["tests/__init__.py", "tests/helpers.py"]);
        assert_eq!(r.missing, None);
    }

    #[test]
    fn installed_packages_are_not_gaps_but_missing_own_modules_are() {
        let t = tree(&["app/__init__.py", "app/server.py"]);
        let r = resolve(t.path(), "app/server.py", &req(0, &["requests"], &[]));
        assert_eq!(r, Resolution::default());
        let r = resolve(t.path(), "app/server.py", &req(0, &["app", "gone"], &[]));
        assert!(r.missing.is_some_and(|m| m.contains("own package")));
        let r = resolve(t.path(), "app/server.py", &req(1, &["gone"], &["f"]));
        assert!(r.missing.is_some());
        let r = resolve(t.path(), "app/server.py", &req(3, &["x"], &[]));
        assert!(
            r.missing
                .is_some_and(|m| m.contains("above the scanned root"))
        );
    }

    #[test]
    fn relative_imports_resolve_from_the_importers_package() {
        let t = tree(&["pkg/__init__.py", "pkg/server.py", "pkg/_vendor/lib.py"]);
        let r = resolve(
            t.path(),
            "pkg/server.py",
            &req(1, &["_vendor", "lib"], &["f"]),
        );
        assert_eq!(r.files, ["pkg/_vendor/lib.py"]);
        assert_eq!(r.missing, None);
        let r = resolve(t.path(), "pkg/server.py", &req(1, &[], &["_vendor"]));
        assert_eq!(r.missing, None);
    }

    #[test]
    fn a_subpackage_named_like_a_standard_module_does_not_shadow_it_outside_its_package() {
        let t = tree(&[
            "pkg/__init__.py",
            "pkg/meta/__init__.py",
            "pkg/meta/importlib/__init__.py",
        ]);
        let r = resolve(
            t.path(),
            "pkg/meta/__init__.py",
            &req(0, &["importlib", "metadata"], &[]),
        );
        assert_eq!(r, Resolution::default());
    }

    #[test]
    fn optional_imports_are_followed_but_their_absence_is_no_gap() {
        let t = tree(&["app/__init__.py", "app/server.py"]);
        let mut r = req(1, &["_speedups"], &["fast"]);
        r.optional = true;
        assert_eq!(
            resolve(t.path(), "app/server.py", &r),
            Resolution::default()
        );
    }

    #[test]
    fn imports_under_try_import_error_and_type_checking_are_optional() {
        let src = "try:\n    from ._c import f\nexcept ImportError:\n    f = None\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .types import T\ntry:\n    import a\nexcept ValueError:\n    pass\nfrom .real import g\n";
        let module = crate::python::lower("pkg/m.py", src).expect("lower");
        let got: Vec<(String, bool)> = requests(&module, src)
            .into_iter()
            .map(|r| (r.path.join("."), r.optional))
            .collect();
        assert_eq!(
            got,
            [
                ("_c".to_string(), true),
                ("typing".to_string(), false),
                ("types".to_string(), true),
                ("a".to_string(), false),
                ("real".to_string(), false),
            ]
        );
    }

    #[test]
    fn a_compiled_extension_is_a_gap_even_when_the_import_is_guarded() {
        let t = tree(&[
            "app/__init__.py",
            "app/server.py",
            "app/_fast.cpython-312-x86_64-linux-gnu.so",
        ]);
        let mut r = req(1, &["_fast"], &["f"]);
        r.optional = true;
        let got = resolve(t.path(), "app/server.py", &r);
        assert!(
            got.missing
                .as_deref()
                .is_some_and(|m| m.contains("app/_fast.cpython-312-x86_64-linux-gnu.so")),
            "{got:?}"
        );
    }

    #[test]
    fn a_data_folder_named_like_a_standard_module_does_not_shadow_it() {
        let t = tree(&["server.py", "json/schema.json"]);
        let r = resolve(t.path(), "server.py", &req(0, &["json", "decoder"], &[]));
        assert_eq!(r, Resolution::default());
    }
}
