//! Language adapters: find the source files of a server, parse them in parallel with tree-sitter,
//! lower each into the language-neutral [`mcp_scan_ir::Module`], and find the MCP entry points
//! (tools, resources, prompts) it registers.
//!
//! The analyses (`mcp-scan-flow`) only see the IR. Adding a language means a new
//! [`LanguageAdapter`] plus its query folder under `grammars/<lang>/`; see `grammars/README.md`.
//!
//! Robustness contract: no input makes this crate panic or overflow the stack. A file that
//! cannot be read, is binary, is not valid in its encoding (UTF-8 or its PEP 263 declaration),
//! is over the size cap, has syntax errors or nests deeper than [`Limits::max_nesting`] gets a
//! [`Diagnostic`] and is listed in [`ParsedTree::incomplete_files`]; tools defined in such a
//! file must be reported INCOMPLETE. Whatever the scan could not analyse at all (such files,
//! sources in languages without an adapter, imports it could not follow, symlinks leading out
//! of the root) is a gap in [`ParsedTree::coverage`].

pub mod discover;
mod encoding;
mod fold;
pub mod go;
mod imports;
pub mod python;
pub mod queries;
mod scan;
mod strings;
pub mod typescript;

pub use discover::{
    COMMON_EXCLUDES, DiscoverError, DiscoverOptions, Discovered, OutsideLink, SourceFile,
    UNSUPPORTED_SOURCES, default_excludes, discover_files, unsupported_language,
};
pub use encoding::DecodeError;
pub use scan::{ParsedTree, ScanError, scan_tree};

pub use mcp_scan_ir::Conventions;
use mcp_scan_ir::{Language, Module};
use thiserror::Error;

/// Bounds that keep lowering linear and the stack shallow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Deepest statement/expression nesting lowered; deeper subtrees become `Unknown` and the
    /// file is flagged incomplete. CPython itself refuses more than 200 nested parentheses.
    pub max_nesting: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_nesting: 256 }
    }
}

/// Why a single file could not be lowered at all (strict mode, [`LanguageAdapter::lower`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LowerError {
    #[error("{path}:{line}:{column}: syntax error: {message}")]
    Syntax {
        path: String,
        line: u32,
        column: u32,
        message: String,
    },
    #[error("{path}:{line}:{column}: nesting deeper than {limit} levels is not analysed")]
    TooDeep {
        path: String,
        line: u32,
        column: u32,
        limit: usize,
    },
    #[error("{path}: the parser gave up on this file")]
    ParseFailed { path: String },
    #[error("{path}: cannot load the {language} grammar: {message}")]
    Grammar {
        path: String,
        language: &'static str,
        message: String,
    },
    #[error("{file}:{line}:{column}: invalid query: {message}")]
    Query {
        file: String,
        line: u32,
        column: u32,
        message: String,
    },
    #[error("{file}: invalid framework model: {message}")]
    Model { file: String, message: String },
}

/// Something wrong in a file that still lowered (tolerant mode, [`LanguageAdapter::lower_file`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LowerIssue {
    pub kind: IssueKind,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// The first error or missing node of a parse tree, as a syntax issue (tolerant lowering reports
/// the first only).
pub(crate) fn first_syntax_issue(root: tree_sitter::Node, src: &str) -> Option<LowerIssue> {
    let mut c = root.walk();
    loop {
        let n = c.node();
        if n.is_error() || n.is_missing() {
            let p = n.start_position();
            let message = if n.is_missing() {
                format!("missing {}", n.kind())
            } else {
                let t = src.get(n.byte_range()).unwrap_or("");
                let first: String = t
                    .lines()
                    .next()
                    .unwrap_or("")
                    .trim()
                    .chars()
                    .take(40)
                    .collect();
                format!("unexpected `{first}`")
            };
            return Some(LowerIssue {
                kind: IssueKind::Syntax,
                line: p.row as u32 + 1,
                column: p.column as u32 + 1,
                message,
            });
        }
        if n.has_error() && c.goto_first_child() {
            continue;
        }
        while !c.goto_next_sibling() {
            if !c.goto_parent() {
                return None;
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueKind {
    /// The parser recovered from an error; the affected code is `Unknown` in the IR.
    Syntax,
    /// A subtree nested deeper than [`Limits::max_nesting`] became `Unknown`.
    TooDeep,
}

/// What kind of server object a variable holds: decides which registrations count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerStyle {
    /// `FastMCP` / `MCPServer`: `@x.tool()`, `@x.resource(uri)`, `@x.prompt()`, `x.add_tool(fn)`.
    Decorator,
    /// The low-level `Server`: `@x.list_tools()` + `@x.call_tool()` (mcp 1.x) or
    /// `Server(on_list_tools=..., on_call_tool=...)` (mcp 2.x), split per tool name.
    LowLevel,
}

/// A server object bound to a name at module level (or inside a function) of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerBinding {
    pub var: String,
    pub style: ServerStyle,
}

/// One file, lowered tolerantly.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowered {
    pub module: Module,
    pub issues: Vec<LowerIssue>,
    pub servers: Vec<ServerBinding>,
}

/// What resolving registrations across a tree's modules found (see
/// [`LanguageAdapter::resolve`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Resolution {
    /// Registration sites seen.
    pub registration_sites: usize,
    /// Registrations that could not be resolved.
    pub gaps: Vec<mcp_scan_core::CoverageGap>,
    /// Data files the server bundles that tool names were read from.
    pub data_files: Vec<String>,
}

/// A language front-end. Implementations are stateless and shared across threads.
///
/// Everything language-specific lives behind this trait and in data: the grammar and queries
/// (`grammars/<lang>/`), the framework table, the default skips, the conventions the analyses
/// need ([`Conventions`]: receivers, constructor, injected parameters) and the API models
/// (`rules/models/<lang>/`, read by `mcp-scan-flow` by [`Language::name`]).
pub trait LanguageAdapter: Send + Sync {
    fn language(&self) -> Language;
    /// Whether this adapter lowers modules of `language` (one adapter may produce several,
    /// e.g. TypeScript and JavaScript).
    fn handles(&self, language: Language) -> bool {
        language == self.language()
    }
    /// File extensions without the dot (`py`, `pyi`).
    fn extensions(&self) -> &'static [&'static str];
    /// Decodes a source file's bytes: UTF-8, unless the language lets a file declare another
    /// encoding (Python's PEP 263).
    fn decode(&self, bytes: &[u8]) -> Result<String, DecodeError> {
        encoding::utf8(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
    }
    /// Receivers, constructor name and framework-filled parameters; copied into every
    /// [`Module`] the adapter lowers.
    fn conventions(&self) -> Conventions;
    /// Globs skipped by default for this language's tooling (virtualenvs, caches, test files),
    /// on top of [`COMMON_EXCLUDES`].
    fn default_excludes(&self) -> &'static [&'static str] {
        &[]
    }
    /// The adapter's query files (`grammars/<lang>/*.scm`), embedded.
    fn queries(&self) -> &'static [queries::QueryFile] {
        &[]
    }
    /// The framework table (`grammars/<lang>/frameworks.toml`): path and text.
    fn frameworks(&self) -> Option<(&'static str, &'static str)> {
        None
    }
    /// The tree-sitter grammar a query file of `query_language` is written for, if this
    /// adapter owns it.
    fn grammar(&self, query_language: &str) -> Option<tree_sitter::Language> {
        let _ = query_language;
        None
    }
    /// Resolves registrations across the tree's modules this adapter [`handles`]
    /// (names followed through imports, aliases, subclasses): appends entry points to the
    /// modules. `root` is the scanned directory, for data files a server bundles.
    ///
    /// [`handles`]: LanguageAdapter::handles
    fn resolve(&self, modules: &mut [Module], root: Option<&std::path::Path>) -> Resolution {
        let _ = (modules, root);
        Resolution::default()
    }
    /// Lowers a file, tolerating errors: syntax errors and over-deep nesting become `Unknown`
    /// nodes plus [`LowerIssue`]s. Fails only when the parser cannot produce a tree at all.
    fn lower_file(
        &self,
        rel_path: &str,
        source: &str,
        limits: &Limits,
    ) -> Result<Lowered, LowerError>;

    /// Strict lowering for single files and tests: any issue is an error.
    ///
    /// Trait methods run on the caller's stack; lowering recursion is bounded, but deep inputs
    /// in unoptimised builds want more than a default 2 MiB thread stack. [`scan_tree`],
    /// [`python::lower`] and [`python::lower_file`] run on [`LOWERING_STACK`]-sized stacks.
    fn lower(&self, rel_path: &str, source: &str) -> Result<Module, LowerError> {
        let lowered = self.lower_file(rel_path, source, &Limits::default())?;
        match lowered.issues.into_iter().next() {
            None => Ok(lowered.module),
            Some(issue) => Err(issue_error(rel_path, issue, Limits::default().max_nesting)),
        }
    }
}

fn issue_error(path: &str, issue: LowerIssue, limit: usize) -> LowerError {
    match issue.kind {
        IssueKind::Syntax => LowerError::Syntax {
            path: path.to_string(),
            line: issue.line,
            column: issue.column,
            message: issue.message,
        },
        IssueKind::TooDeep => LowerError::TooDeep {
            path: path.to_string(),
            line: issue.line,
            column: issue.column,
            limit,
        },
    }
}

/// Stack for threads that lower: lowering recursion is bounded by [`Limits::max_nesting`], and
/// this leaves a wide margin for it even in unoptimised builds (pages are only committed when
/// touched).
pub const LOWERING_STACK: usize = 64 * 1024 * 1024;

/// Runs `f` on a thread with [`LOWERING_STACK`] bytes of stack, so callers on small default
/// stacks (test threads, async runtimes) can lower any input.
pub fn with_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    let slot = std::sync::Mutex::new(Some(f));
    let take = || slot.lock().ok().and_then(|mut g| g.take());
    let spawned = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .name("mcp-scan-lower".into())
            .stack_size(LOWERING_STACK)
            .spawn_scoped(s, || take().map(|f| f()));
        match handle {
            Ok(h) => match h.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            Err(_) => None,
        }
    });
    match spawned {
        Some(v) => v,
        // Thread creation failed (out of resources): run here rather than fail.
        None => match take() {
            Some(f) => f(),
            None => unreachable!("the closure runs exactly once"),
        },
    }
}

/// Every adapter this build knows, in a fixed order.
pub fn adapters() -> &'static [&'static dyn LanguageAdapter] {
    static ADAPTERS: [&dyn LanguageAdapter; 3] = [
        &python::PythonAdapter,
        &typescript::TypeScriptAdapter,
        &go::GoAdapter,
    ];
    &ADAPTERS
}

/// The adapter for a file name, by extension.
pub fn adapter_for(path: &str) -> Option<&'static dyn LanguageAdapter> {
    // Type declarations carry no code.
    if [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|s| path.ends_with(s))
    {
        return None;
    }
    let ext = path.rsplit_once('.')?.1;
    adapters()
        .iter()
        .copied()
        .find(|a| a.extensions().contains(&ext))
}
