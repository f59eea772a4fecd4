//! Python front-end: tree-sitter-python → IR, plus MCP entry points (see `entry.rs`).

mod datafile;
mod dispatch;
mod entry;
mod lower;
mod resolve;

use crate::{LanguageAdapter, Limits, LowerError, Lowered};
use mcp_scan_ir::{Language, Module};
use std::cell::RefCell;
use tree_sitter::Parser;

/// The Python adapter (`.py`).
pub struct PythonAdapter;

thread_local! {
    // One parser per worker thread: creating one per file would allocate its stacks each time.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

pub(crate) fn language() -> tree_sitter::Language {
    tree_sitter::Language::new(tree_sitter_python::LANGUAGE)
}

impl LanguageAdapter for PythonAdapter {
    fn language(&self) -> Language {
        Language::Python
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["py"]
    }

    fn lower_file(
        &self,
        rel_path: &str,
        source: &str,
        limits: &Limits,
    ) -> Result<Lowered, LowerError> {
        let tree = PARSER.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                let mut p = Parser::new();
                p.set_language(&language())
                    .map_err(|e| LowerError::Grammar {
                        path: rel_path.to_string(),
                        language: "python",
                        message: e.to_string(),
                    })?;
                *slot = Some(p);
            }
            let parser = slot.as_mut().ok_or_else(|| LowerError::ParseFailed {
                path: rel_path.to_string(),
            })?;
            parser
                .parse(source, None)
                .ok_or_else(|| LowerError::ParseFailed {
                    path: rel_path.to_string(),
                })
        })?;
        let mut lowered = lower::lower_tree(rel_path, source, &tree, limits);
        entry::find_entry_points(source, &tree, &mut lowered)?;
        Ok(lowered.into_lowered())
    }
}

/// Lowers one Python file strictly: a syntax error or over-deep nesting is an error. Its
/// registrations are resolved as a tree of one file.
pub fn lower(rel_path: &str, source: &str) -> Result<Module, LowerError> {
    crate::with_big_stack(|| {
        let module = PythonAdapter.lower(rel_path, source)?;
        let mut mods = [module];
        resolve::resolve_tree(&mut mods, None);
        let [module] = mods;
        Ok(module)
    })
}

/// Lowers one Python file tolerantly, its registrations resolved as a tree of one file
/// ([`crate::scan_tree`] lowers per file and resolves across the tree).
pub fn lower_file(rel_path: &str, source: &str, limits: &Limits) -> Result<Lowered, LowerError> {
    crate::with_big_stack(|| {
        let mut lowered = PythonAdapter.lower_file(rel_path, source, limits)?;
        resolve_modules(std::slice::from_mut(&mut lowered.module));
        Ok(lowered)
    })
}

/// Resolves registrations across Python modules (names followed through imports, re-exports,
/// aliases, subclasses and attributes): appends entry points to the modules and returns the
/// registration sites seen and those that could not be resolved (coverage gaps).
pub fn resolve_modules(modules: &mut [Module]) -> (usize, Vec<mcp_scan_core::CoverageGap>) {
    let r = resolve::resolve_tree(modules, None);
    (r.registration_sites, r.gaps)
}

/// [`resolve_modules`] for a tree under `root`: data files the server bundles may name tools
/// (a dispatcher over a list loaded from `config/tools.yaml`); those read are returned too.
pub fn resolve_modules_in(
    modules: &mut [Module],
    root: &std::path::Path,
) -> (usize, Vec<mcp_scan_core::CoverageGap>, Vec<String>) {
    let r = resolve::resolve_tree(modules, Some(root));
    (r.registration_sites, r.gaps, r.data_files)
}

/// Dotted module name of a relative path: `pkg/sub/mod.py` → `pkg.sub.mod`,
/// `pkg/__init__.py` → `pkg`; the second value says whether the file is a package.
pub fn module_name(rel_path: &str) -> (String, bool) {
    let stem = rel_path
        .strip_suffix(".py")
        .or_else(|| rel_path.strip_suffix(".pyi"))
        .unwrap_or(rel_path);
    let mut parts: Vec<&str> = stem
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    let is_package = parts.last() == Some(&"__init__");
    if is_package {
        parts.pop();
    }
    (parts.join("."), is_package)
}

/// Resolves a relative import (`level` leading dots, then `rest`) against the importing module.
pub fn resolve_relative(module: &str, is_package: bool, level: usize, rest: &str) -> String {
    let mut parts: Vec<&str> = if module.is_empty() {
        Vec::new()
    } else {
        module.split('.').collect()
    };
    if !is_package {
        parts.pop();
    }
    for _ in 1..level {
        parts.pop();
    }
    if !rest.is_empty() {
        parts.extend(rest.split('.'));
    }
    parts.join(".")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_are_package_aware() {
        assert_eq!(module_name("pkg/sub/mod.py"), ("pkg.sub.mod".into(), false));
        assert_eq!(module_name("pkg/__init__.py"), ("pkg".into(), true));
        assert_eq!(module_name("server.py"), ("server".into(), false));
        assert_eq!(module_name("__init__.py"), ("".into(), true));
    }

    #[test]
    fn relative_imports_resolve_against_the_package() {
        assert_eq!(
            resolve_relative("pkg.sub.mod", false, 1, "util"),
            "pkg.sub.util"
        );
        assert_eq!(
            resolve_relative("pkg.sub.mod", false, 2, "util"),
            "pkg.util"
        );
        assert_eq!(resolve_relative("pkg.sub", true, 1, ""), "pkg.sub");
        assert_eq!(resolve_relative("pkg.sub", true, 2, "x.y"), "pkg.x.y");
        assert_eq!(resolve_relative("server", false, 1, "helpers"), "helpers");
    }
}
