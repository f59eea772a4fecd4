//! Python front-end: tree-sitter-python → IR, plus MCP entry points (see `entry.rs`).

mod datafile;
mod dispatch;
mod entry;
mod lower;
mod resolve;

use crate::queries::{Frameworks, QueryFile};
use crate::{LanguageAdapter, Limits, LowerError, Lowered, Resolution};
use mcp_scan_ir::{Conventions, Language, Module};
use std::cell::RefCell;
use std::sync::OnceLock;
use tree_sitter::{Parser, Query};

/// The Python adapter (`.py`).
pub struct PythonAdapter;

/// Python's receivers, constructor and framework-filled handler parameters.
pub(crate) const CONVENTIONS: Conventions = Conventions {
    receivers: &["self", "cls"],
    constructor: Some("__init__"),
    injected_names: &["ctx", "context"],
    injected_types: &["Context"],
    number_types: &["int", "float", "bool"],
    null_types: &["None"],
    optional_wrappers: &["Optional[", "typing.Optional["],
    static_decorators: &["staticmethod"],
};

thread_local! {
    // One parser per worker thread: creating one per file would allocate its stacks each time.
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

pub(crate) fn language() -> tree_sitter::Language {
    tree_sitter::Language::new(tree_sitter_python::LANGUAGE)
}

/// The Python queries, from `grammars/python/`.
pub const QUERY_FILES: &[QueryFile] = &[QueryFile {
    language: "python",
    path: "grammars/python/entrypoints.scm",
    source: include_str!("../../../../grammars/python/entrypoints.scm"),
}];

pub const FRAMEWORKS_PATH: &str = "grammars/python/frameworks.toml";
const FRAMEWORKS: &str = include_str!("../../../../grammars/python/frameworks.toml");

/// Default skips of Python tooling: virtualenvs, caches, installed packages and test files.
const DEFAULT_EXCLUDES: &[&str] = &[
    "**/.venv/**",
    "**/venv/**",
    "**/.tox/**",
    "**/.nox/**",
    "**/site-packages/**",
    "**/__pycache__/**",
    "**/.mypy_cache/**",
    "**/.pytest_cache/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
];

/// The compiled Python entry-point query (compiled once per process).
pub(crate) fn python_entry_query() -> Result<&'static Query, LowerError> {
    static Q: OnceLock<Result<Query, LowerError>> = OnceLock::new();
    crate::queries::compiled(&Q, &QUERY_FILES[0])
}

/// The compiled Python framework table (`grammars/python/frameworks.toml`).
pub fn python_frameworks_checked() -> Result<&'static Frameworks, LowerError> {
    static F: OnceLock<Result<Frameworks, LowerError>> = OnceLock::new();
    crate::queries::frameworks_checked(&F, FRAMEWORKS_PATH, FRAMEWORKS)
}

/// Like [`python_frameworks_checked`], for hot paths that cannot fail.
pub(crate) fn python_frameworks() -> &'static Frameworks {
    crate::queries::frameworks_or_empty(python_frameworks_checked())
}

impl LanguageAdapter for PythonAdapter {
    fn language(&self) -> Language {
        Language::Python
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["py"]
    }

    fn decode(&self, bytes: &[u8]) -> Result<String, crate::DecodeError> {
        crate::encoding::decode_python(bytes)
    }

    fn conventions(&self) -> Conventions {
        CONVENTIONS
    }

    fn default_excludes(&self) -> &'static [&'static str] {
        DEFAULT_EXCLUDES
    }

    fn queries(&self) -> &'static [QueryFile] {
        QUERY_FILES
    }

    fn frameworks(&self) -> Option<(&'static str, &'static str)> {
        Some((FRAMEWORKS_PATH, FRAMEWORKS))
    }

    fn grammar(&self, query_language: &str) -> Option<tree_sitter::Language> {
        (query_language == "python").then(language)
    }

    fn resolve(&self, modules: &mut [Module], root: Option<&std::path::Path>) -> Resolution {
        let r = resolve::resolve_tree(modules, root);
        Resolution {
            registration_sites: r.registration_sites,
            gaps: r.gaps,
            data_files: r.data_files,
        }
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
