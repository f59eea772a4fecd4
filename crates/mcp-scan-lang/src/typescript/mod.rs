//! TypeScript/JavaScript front-end: tree-sitter-typescript → IR, plus MCP entry points
//! (see `entry.rs`). `.ts`/`.mts`/`.cts` parse with the TypeScript grammar; `.tsx` and every
//! JavaScript file (`.js`, `.jsx`, `.mjs`, `.cjs`) with the TSX grammar, which also accepts
//! JSX and plain JavaScript (the TypeScript grammar reads `<T>x` as a cast, which JSX is not).

mod entry;
mod lower;

pub use lower::{module_name, resolve_specifier};

use crate::{LanguageAdapter, Limits, LowerError, Lowered, Resolution};
use mcp_scan_ir::{Conventions, Language, Module};
use std::cell::RefCell;
use tree_sitter::Parser;

/// The receiver of a method: `this`, the method's first parameter in the IR.
pub(crate) const RECEIVER: &str = "this";
/// The method name of a class's constructor.
pub(crate) const CONSTRUCTOR: &str = "constructor";

pub(crate) const CONVENTIONS: Conventions = Conventions {
    receivers: &[RECEIVER],
    constructor: Some(CONSTRUCTOR),
    // The SDK's second handler argument (`RequestHandlerExtra`: signal, session, auth) and
    // fastmcp's context are the framework's, not the caller's.
    injected_names: &["extra", "context", "ctx", "<extra>"],
    injected_types: &["RequestHandlerExtra", "Context"],
    number_types: &["number", "boolean", "bigint"],
    null_types: &["null", "undefined"],
    optional_wrappers: &[],
    static_decorators: &[],
};

/// TypeScript and JavaScript sources, ESM and CommonJS: one adapter, since a tree mixes them
/// (compiled `.js` beside `.ts`, `.mjs` entry points importing `.ts` tools) and registrations
/// are resolved across both.
pub struct TypeScriptAdapter;

thread_local! {
    static TS_PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
    static TSX_PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

fn uses_tsx(rel_path: &str) -> bool {
    !(rel_path.ends_with(".ts") || rel_path.ends_with(".mts") || rel_path.ends_with(".cts"))
}

/// The language of a file by its extension: TypeScript for `.ts`/`.tsx`/`.mts`/`.cts`,
/// JavaScript otherwise.
fn language_of(rel_path: &str) -> Language {
    let ext = rel_path.rsplit_once('.').map_or("", |(_, e)| e);
    if TS_EXTENSIONS.contains(&ext) {
        Language::TypeScript
    } else {
        Language::JavaScript
    }
}

const TS_EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "cts"];

fn parse(rel_path: &str, source: &str) -> Result<tree_sitter::Tree, LowerError> {
    let tsx = uses_tsx(rel_path);
    let cell = if tsx { &TSX_PARSER } else { &TS_PARSER };
    cell.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let lang: tree_sitter::Language = if tsx {
                tree_sitter_typescript::LANGUAGE_TSX.into()
            } else {
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
            };
            let mut p = Parser::new();
            p.set_language(&lang).map_err(|e| LowerError::Grammar {
                path: rel_path.to_string(),
                language: if tsx { "tsx" } else { "typescript" },
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
    })
}

impl LanguageAdapter for TypeScriptAdapter {
    fn language(&self) -> Language {
        Language::TypeScript
    }

    fn handles(&self, language: Language) -> bool {
        matches!(language, Language::TypeScript | Language::JavaScript)
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["ts", "tsx", "mts", "cts", "js", "jsx", "mjs", "cjs"]
    }

    fn conventions(&self) -> Conventions {
        CONVENTIONS
    }

    fn frameworks(&self) -> Option<(&'static str, &'static str)> {
        Some((entry::FRAMEWORKS_FILE, entry::FRAMEWORKS))
    }

    fn grammar(&self, query_language: &str) -> Option<tree_sitter::Language> {
        match query_language {
            "typescript" => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
            "tsx" => Some(tree_sitter_typescript::LANGUAGE_TSX.into()),
            _ => None,
        }
    }

    fn resolve(&self, modules: &mut [Module], _root: Option<&std::path::Path>) -> Resolution {
        resolve_modules(modules)
    }

    fn lower_file(
        &self,
        rel_path: &str,
        source: &str,
        limits: &Limits,
    ) -> Result<Lowered, LowerError> {
        let tree = parse(rel_path, source)?;
        let draft = lower::lower_tree(rel_path, source, &tree, limits, language_of(rel_path));
        // Entry points are found over the whole tree (`resolve`): a server object may be
        // created in one file and registered on in another. The table must load, though.
        entry::table()?;
        Ok(Lowered {
            module: draft.module,
            issues: draft.issues,
            servers: Vec::new(),
        })
    }
}

/// Lowers one TS/JS file strictly (any syntax error is an error), its entry points resolved as
/// a tree of one file.
pub fn lower(rel_path: &str, source: &str) -> Result<Module, LowerError> {
    crate::with_big_stack(|| {
        let module = TypeScriptAdapter.lower(rel_path, source)?;
        let mut mods = [module];
        resolve_modules(&mut mods);
        let [module] = mods;
        Ok(module)
    })
}

/// Finds the entry points of the tree's TypeScript/JavaScript modules: server objects followed
/// across files (a module-level server another file imports), registrations on them and on
/// parameters with the registration shape, plus the registration sites seen and the
/// registrations that could not be resolved (coverage gaps).
fn resolve_modules(modules: &mut [Module]) -> Resolution {
    // Pass 1: which modules bind a server at module level.
    let mut exported: std::collections::HashMap<String, Vec<String>> = Default::default();
    for m in modules.iter() {
        // Only a module importing a framework package can bind a server.
        if !m
            .imports
            .iter()
            .any(|i| entry::is_framework_module(&i.module))
        {
            continue;
        }
        let mut probe = m.clone();
        if let Ok(found) = entry::find_entry_points(&mut probe, &[]) {
            exported.insert(m.name.clone(), found.servers);
        }
    }
    // Pass 2: with the names each module imports from those.
    let mut sites = 0;
    let mut gaps = Vec::new();
    let mut delegations = Vec::new();
    for m in modules.iter_mut() {
        let imported: Vec<String> = m
            .imports
            .iter()
            .filter(|i| {
                i.symbol.as_ref().is_some_and(|s| {
                    exported
                        .get(&i.module)
                        .is_some_and(|names| names.contains(s))
                })
            })
            .map(|i| i.local.clone())
            .collect();
        match entry::find_entry_points(m, &imported) {
            Ok(found) => {
                sites += found.sites;
                gaps.extend(found.gaps);
                delegations.extend(found.delegations);
            }
            Err(e) => gaps.push(mcp_scan_core::CoverageGap {
                kind: mcp_scan_core::GapKind::UnresolvedRegistration,
                file: Some(m.path.clone()),
                line: None,
                reason: e.to_string(),
            }),
        }
    }
    // Pass 3: CallTool handlers that hand the tool name on, split where it is dispatched.
    if !delegations.is_empty() {
        let declared = entry::declared_in(modules);
        for d in delegations {
            let mut split = false;
            for c in &d.candidates {
                let Some(j) = modules.iter().position(|m| m.name == c.module) else {
                    continue;
                };
                let eps = entry::split_delegate(
                    &mut modules[j],
                    &c.func,
                    &c.injected,
                    &d.recv,
                    &declared,
                    &d.own,
                );
                if !eps.is_empty() {
                    modules[j].entry_points.extend(eps);
                    split = true;
                    break;
                }
            }
            if split {
                continue;
            }
            let n = d.fallback.len();
            if let Some(m) = modules.iter_mut().find(|m| m.name == d.module) {
                m.entry_points.extend(d.fallback);
            }
            gaps.push(mcp_scan_core::CoverageGap {
                kind: mcp_scan_core::GapKind::UnresolvedRegistration,
                file: Some(d.file),
                line: Some(d.line),
                reason: if d.own.is_empty() {
                    format!(
                        "the CallTool handler of `{}` is not split per tool (it hands the request to a function with no switch, if or handler map on the tool name the scan can follow){}",
                        d.recv,
                        if n == 0 { String::new() } else { format!("; its {n} listed tools are each reported with the whole handler") }
                    )
                } else {
                    format!(
                        "the CallTool handler of `{}` splits {} tool(s) itself and hands the others to a function the scan cannot split per tool",
                        d.recv,
                        d.own.len()
                    )
                },
            });
        }
    }
    Resolution {
        registration_sites: sites,
        gaps,
        data_files: Vec::new(),
    }
}

#[cfg(test)]
mod tests;
