//! Tree-wide resolution of MCP registrations, the way Python would bind the names.
//!
//! A small abstract interpreter over the IR: names resolve through assignments, imports,
//! re-exports, `try/except ImportError` shims, class bases, instance attributes (`self.mcp`),
//! function returns and call sites (a `register(mcp)` helper's parameter), to one of a handful of
//! abstract values ([`Val`]). A server class is one whose last name and defining package match
//! `[[server_class]]` in `grammars/python/frameworks.toml`; everything else follows from
//! resolution, never from a table of import paths.
//!
//! Every registration site seen on a resolved server (decorator, `tool(fn)`, `add_tool(fn)`,
//! an alias, a wrapper that calls `server.tool`, a low-level dispatcher) is counted; a site whose
//! handler cannot be followed to a function becomes a coverage gap, so the scan is INCOMPLETE
//! rather than SAFE.
//!
//! A loop a registration sits in is unrolled over the value set of its collection (literals,
//! returns of tree functions, dict lookups by unknown keys, list additions), bounded in depth
//! and size; a collection not followed leaves the site a gap.

use super::entry::{bound_to, bound_to_at, const_str, decorator_entry, kwarg, module_constants};
use super::python_frameworks;
use crate::ServerStyle;
use crate::queries::{Frameworks, Positional};
use mcp_scan_core::{CoverageGap, EntityKind, GapKind};
use mcp_scan_ir::{
    Arg, EntryPoint, Expr, ExprKind, FuncId, Function, Import, Module, Span, Stmt, StmtKind,
};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// Bound on nested evaluation (name → assignment → call → return → ...).
const MAX_DEPTH: usize = 40;
/// Elements of a literal collection a registration loop is unrolled over.
const MAX_UNROLL: usize = 512;
/// Call sites inspected to infer one parameter's value.
const MAX_CALLERS: usize = 64;
/// Bound on following a data file's value and path back to where they are written.
const MAX_DATA_DEPTH: usize = 32;
/// Functions that parse a data file (or its text) into the value they return.
const DATA_LOADERS: &[&str] = &[
    "json.load",
    "json.loads",
    "yaml.safe_load",
    "yaml.load",
    "yaml.full_load",
];
/// Bound on the value-set evaluation of a loop's collection (names, calls, returns, lookups).
const MAX_SET_DEPTH: usize = 12;
/// Builtins whose result holds only elements of one positional argument (its position):
/// reordered, filtered or copied.
const PASS_THROUGH: &[(&str, usize)] = &[
    ("list", 0),
    ("tuple", 0),
    ("set", 0),
    ("frozenset", 0),
    ("sorted", 0),
    ("reversed", 0),
    ("iter", 0),
    ("filter", 1),
];

/// What an expression evaluates to, as far as registrations care.
#[derive(Debug, Clone)]
enum Val {
    /// A module (in the tree or not), by dotted path.
    Module(String),
    /// A server class of the framework (not a subclass defined in the tree).
    ServerClass(ServerStyle),
    /// A server object; the id names a server bound at module level (for `mount`).
    Server(ServerStyle, Option<u32>),
    /// `server.tool` (not yet called); `server` is the object's source text.
    Method {
        style: ServerStyle,
        method: String,
        server: String,
    },
    /// `server.tool(...)`: a decorator carrying the registration arguments, written in module
    /// `module` (for constant names and descriptions).
    Decorator {
        style: ServerStyle,
        method: String,
        args: Vec<Arg>,
        module: usize,
        server: String,
    },
    /// A class defined in the tree, and an instance of it.
    Class(usize, String),
    /// An instance of a tree class; the id as for [`Val::Server`] when it is a server.
    Instance(usize, String, Option<u32>),
    Func(usize, FuncId),
    /// Something from outside the tree that is known not to be a server (`toolbox.Registry()`).
    External,
    /// `importlib.import_module(f"pkg.{name}.tools")`: one of the tree's modules whose dotted
    /// name starts with the constant prefix (`pkg.`) and ends with the constant suffix
    /// (`.tools`), which one unknown.
    DynModule(String, String),
    /// An attribute of a [`Val::DynModule`] (prefix, suffix, attribute): the module-level
    /// binding of that name in any of the modules it may be.
    DynAttr(String, String, String),
}

type BindTable<'a> = HashMap<&'a str, Vec<Bind<'a>>>;
/// Calls by the last segment of their callee: (module, function, call).
type CallIndex<'a> = HashMap<&'a str, Vec<(usize, FuncId, &'a Expr)>>;
/// Calls of a `for` loop's variable (`for reg in discover(): reg(mcp)`): (module, function,
/// call, the loop's target, the loop's iterable).
type LoopCalls<'a> = Vec<(usize, FuncId, &'a Expr, &'a Expr, &'a Expr)>;
type DictItems = Vec<(Option<Expr>, Expr)>;
/// An element of a collection with the module and function it is written in.
type Elem = (Expr, usize, FuncId);
/// What is added to a list after its literal; `None` when an addition is not followed.
type Additions = Option<Vec<Elem>>;

/// A name bound in a function body (or at module level).
enum Bind<'a> {
    Value(&'a Expr),
    Def(FuncId),
    Class(&'a str),
    Import(&'a Import),
    /// `a, b, c = value`: element `.1` of the `.2`-tuple `value` evaluates to (a compat shim's
    /// `Server, Context, MAJOR = _resolve()`).
    Element(&'a Expr, usize, usize),
}

/// A loop variable bound to one element of a literal collection while its body is unrolled;
/// the element is evaluated where the collection was written.
#[derive(Clone)]
struct Subst {
    name: String,
    value: Expr,
    module: usize,
    func: FuncId,
}

#[derive(Clone, Copy)]
struct Env<'s> {
    m: usize,
    f: FuncId,
    subst: &'s [Subst],
}

impl<'s> Env<'s> {
    /// The argument a call bound to parameter `name`, and the environment it is read in.
    fn bound(&self, name: &str) -> Option<(&'s Expr, Env<'s>)> {
        let s = self.subst.iter().rev().find(|s| s.name == name)?;
        let inner = Env {
            m: s.module,
            f: s.func,
            subst: &[],
        };
        Some((&s.value, inner))
    }
}

/// A function that registers one of its parameters (`def register(fn): mcp.tool()(fn)`).
#[derive(Clone)]
struct Wrapper {
    param: usize,
    param_name: String,
    style: ServerStyle,
    method: String,
    args: Vec<Arg>,
    module: usize,
    server: String,
    /// The registration call inside the wrapper.
    span: Span,
}

enum Handler {
    /// Functions with the registration arguments the handler expression itself carries
    /// (`Tool.from_function(fn, name="x")`).
    Funcs(Vec<(usize, FuncId, Vec<Arg>)>),
    /// A parameter (index, name) of the function `(module, func)` it belongs to: that function
    /// is a registration wrapper. Usually the enclosing one; a registry decorator's when the
    /// parameter reached the site as an element of a list it appends to.
    Param(usize, String, usize, FuncId),
    /// A declared non-function object from a framework (a `TextResource`): nothing to analyse.
    Opaque,
    Unresolved(String),
}

/// A low-level `call_tool` dispatcher registered on a resolved server.
#[derive(Debug, Clone)]
struct Dispatcher {
    module: usize,
    func: FuncId,
    span: Span,
    server: String,
    /// Tool name → handler, when the dispatcher looks the handler up in a mapping.
    mapping: Vec<(String, usize, FuncId)>,
    /// Tool names read from a bundled data file the dispatcher finds its tool in.
    data_names: Vec<String>,
}

/// A function marked by a standalone component decorator, served by whichever provider's
/// folder holds its file.
struct StandaloneMark {
    module: usize,
    func: FuncId,
    span: Span,
    decorator: String,
    kind: EntityKind,
    args: Vec<Arg>,
}

/// A component provider handed to a server: the folder (relative to the scanned root, `""` for
/// the root itself) whose files it serves.
struct ProviderUse {
    root: String,
    server: String,
    namespace: Option<String>,
}

/// Result of [`resolve_tree`].
#[derive(Debug, Default)]
pub(crate) struct Resolution {
    pub registration_sites: usize,
    pub gaps: Vec<CoverageGap>,
    /// Data files (relative to the root) tool names were read from.
    pub data_files: Vec<String>,
}

struct Resolver<'a> {
    mods: &'a [Module],
    /// The scanned directory, for data files the server bundles (none for a lone file).
    root: Option<&'a Path>,
    fw: &'static Frameworks,
    by_name: HashMap<&'a str, usize>,
    /// Suffix lookups of [`Resolver::module_idx`], hits and misses.
    suffix_memo: RefCell<HashMap<String, Option<usize>>>,
    /// Modules that import a framework package: an unresolved `.tool` there is ambiguous.
    framework_aware: Vec<bool>,
    /// Some module of the tree imports a framework package: an unresolved registration-shaped
    /// decorator or call anywhere in it may be a registration the analyzer could not follow.
    tree_framework_aware: bool,
    /// (host, guest): the host module runs the guest file in its own globals (`exec(compile(
    /// open(p).read(), p, "exec"), globals())`), so each resolves free names in the other.
    includes: Vec<(usize, usize)>,
    binds: RefCell<HashMap<(usize, FuncId), BindTable<'a>>>,
    memo: RefCell<HashMap<(usize, FuncId, String), Option<Val>>>,
    class_styles: RefCell<HashMap<(usize, String), Option<ServerStyle>>>,
    /// Calls by the last segment of their callee, for parameter inference (built lazily).
    calls_by_name: RefCell<Option<CallIndex<'a>>>,
    /// Calls through a loop variable, for parameter inference (built lazily).
    loop_calls: RefCell<Option<LoopCalls<'a>>>,
    /// Locals whose assignments are being unioned by [`Resolver::bound_elements`].
    set_visiting: RefCell<Vec<(usize, FuncId, String)>>,
    /// [`Resolver::list_additions`] by (module, scope, name): a module-level list's additions
    /// are looked for in every function of the module once.
    additions: RefCell<HashMap<(usize, FuncId, String), Additions>>,
    wrappers: HashMap<(usize, FuncId), Wrapper>,
    /// Wrappers some resolved site went through; the others are gaps.
    used_wrappers: HashSet<(usize, FuncId)>,
    /// Methods with a mixin marker decorator: (module, method, decorator span).
    marked: Vec<(usize, FuncId, Span, String)>,
    /// Marked methods a resolved `register_all(server)` reached.
    mixin_registered: HashSet<(usize, FuncId)>,
    /// Functions marked by a standalone component decorator (`@tool()` from `fastmcp.tools`).
    standalone: Vec<StandaloneMark>,
    /// Names a registration may be reached through: registration methods, wrapper names and
    /// names assigned from `x.tool` / `x.tool(...)`; calls of anything else are not inspected.
    candidates: HashSet<String>,
    entries: Vec<Vec<EntryPoint>>,
    seen: HashSet<(usize, FuncId, EntityKind, String)>,
    consts: HashMap<usize, HashMap<String, String>>,
    dispatchers: Vec<Dispatcher>,
    /// Servers bound at module level, by id.
    server_ids: RefCell<Vec<(usize, String)>>,
    /// `parent.mount(child, namespace="x")`: (child id, prefix).
    mounts: Vec<(u32, String)>,
    /// The server id of each entry in `entries`, in step.
    entry_sids: Vec<Vec<Option<u32>>>,
    out: Resolution,
}

/// Resolves every module's registrations; entries are appended to the modules.
pub(crate) fn resolve_tree(mods: &mut [Module], root: Option<&Path>) -> Resolution {
    let fw = python_frameworks();
    let (entries, mut out, dispatchers) = {
        let mut r = Resolver::new(mods, fw, root);
        r.run();
        r.apply_mounts();
        r.external_mains();
        (r.entries, r.out, r.dispatchers)
    };
    for (m, mut es) in mods.iter_mut().zip(entries) {
        m.entry_points.append(&mut es);
    }
    super::dispatch::split_dispatchers(mods, fw, &dispatchers_of(dispatchers), &mut out.gaps);
    super::dispatch::no_tool_gap(mods, fw, out.registration_sites, &mut out.gaps);
    for m in mods.iter_mut() {
        m.entry_points.sort_by_key(|e| e.span.start_byte);
    }
    out
}

fn dispatchers_of(ds: Vec<Dispatcher>) -> Vec<super::dispatch::Site> {
    ds.into_iter()
        .map(|d| super::dispatch::Site {
            module: d.module,
            func: d.func,
            span: d.span,
            server: d.server,
            mapping: d.mapping,
            data_names: d.data_names,
        })
        .collect()
}

fn last_segment(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Name(n) => Some(n),
        ExprKind::Attribute { attr, .. } => Some(attr),
        _ => None,
    }
}

fn text_of(e: &Expr) -> String {
    e.dotted_path().unwrap_or_else(|| match &e.kind {
        ExprKind::Call { callee, .. } => format!("{}()", text_of(callee)),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::FormatStr(parts) => {
            let mut out = String::from("f\"");
            for p in parts {
                match p {
                    mcp_scan_ir::StrPart::Lit(l) => out.push_str(l),
                    mcp_scan_ir::StrPart::Expr(x) => out.push_str(&format!("{{{}}}", text_of(x))),
                }
            }
            out.push('"');
            out
        }
        ExprKind::Attribute { value, attr } => format!("{}.{attr}", text_of(value)),
        _ => "<expr>".to_string(),
    })
}

/// Whether the function `g` (its decorators or body) calls `name` or hands it to `wraps`.
fn calls_or_wraps(g: &Function, name: &str) -> bool {
    let mut calls = Vec::new();
    for d in &g.decorators {
        each_call(d, &mut calls);
    }
    walk_stmts(&g.body, &mut |st| {
        for e in stmt_exprs(st) {
            each_call(e, &mut calls);
        }
    });
    calls.iter().any(|c| {
        let ExprKind::Call { callee, args } = &c.kind else {
            return false;
        };
        matches!(&callee.kind, ExprKind::Name(n) if n == name)
            || (last_segment(callee) == Some("wraps")
                && args
                    .first()
                    .is_some_and(|a| matches!(&a.value.kind, ExprKind::Name(n) if n == name)))
    })
}

/// Every call expression inside `e` (not inside lambdas, which are functions of their own).
fn each_call<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    each_call_in(e, out, &mut None);
}

/// Like [`each_call`]; with `comps`, comprehensions are handed back whole (their iterables'
/// calls still collected) so their elements can be visited once per literal element.
fn each_call_in<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>, comps: &mut Option<&mut Vec<&'e Expr>>) {
    let each_call =
        |x: &'e Expr, out: &mut Vec<&'e Expr>, comps: &mut Option<&mut Vec<&'e Expr>>| {
            each_call_in(x, out, comps)
        };
    match &e.kind {
        ExprKind::Call { callee, args } => {
            out.push(e);
            each_call(callee, out, comps);
            for a in args {
                each_call(&a.value, out, comps);
            }
        }
        ExprKind::Attribute { value, .. } => each_call(value, out, comps),
        ExprKind::Index { value, index } => {
            each_call(value, out, comps);
            each_call(index, out, comps);
        }
        ExprKind::Binary { left, right, .. } => {
            each_call(left, out, comps);
            each_call(right, out, comps);
        }
        ExprKind::Unary { operand: x, .. }
        | ExprKind::Await(x)
        | ExprKind::Starred(x)
        | ExprKind::NamedExpr { value: x, .. } => each_call(x, out, comps),
        ExprKind::Conditional { test, body, orelse } => {
            each_call(test, out, comps);
            each_call(body, out, comps);
            each_call(orelse, out, comps);
        }
        ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => {
            for x in xs {
                each_call(x, out, comps);
            }
        }
        ExprKind::Dict(items) => {
            for (k, v) in items {
                if let Some(k) = k {
                    each_call(k, out, comps);
                }
                each_call(v, out, comps);
            }
        }
        ExprKind::Comprehension {
            elements,
            clauses,
            conditions,
        } => {
            if let Some(c) = comps.as_deref_mut() {
                c.push(e);
                for (_, it) in clauses {
                    each_call(it, out, comps);
                }
                return;
            }
            for x in elements.iter().chain(conditions) {
                each_call(x, out, comps);
            }
            for (_, it) in clauses {
                each_call(it, out, comps);
            }
        }
        ExprKind::FormatStr(parts) => {
            for p in parts {
                if let mcp_scan_ir::StrPart::Expr(x) = p {
                    each_call(x, out, comps);
                }
            }
        }
        _ => {}
    }
}

/// Expressions a statement evaluates directly (not its nested blocks).
fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    match &s.kind {
        StmtKind::Assign { targets, value } => {
            let mut v: Vec<&Expr> = targets.iter().collect();
            v.push(value);
            v
        }
        StmtKind::AugAssign { target, value, .. } => vec![target, value],
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Raise(Some(e)) => vec![e],
        StmtKind::If { test, .. } | StmtKind::While { test, .. } => vec![test],
        StmtKind::For { iter, .. } => vec![iter],
        StmtKind::With { items, .. } => items.iter().map(|i| &i.context).collect(),
        StmtKind::Match { subject, .. } => vec![subject],
        StmtKind::Delete(xs) => xs.iter().collect(),
        _ => Vec::new(),
    }
}

/// Nested statement blocks of a statement.
fn stmt_blocks(s: &Stmt) -> Vec<&[Stmt]> {
    match &s.kind {
        StmtKind::If { then, orelse, .. } => vec![then, orelse],
        StmtKind::While { body, orelse, .. } | StmtKind::For { body, orelse, .. } => {
            vec![body, orelse]
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finally,
        } => {
            let mut v: Vec<&[Stmt]> = vec![body, orelse, finally];
            v.extend(handlers.iter().map(|h| h.body.as_slice()));
            v
        }
        StmtKind::With { body, .. } => vec![body],
        StmtKind::Match { arms, .. } => arms.iter().map(|a| a.body.as_slice()).collect(),
        _ => Vec::new(),
    }
}

fn collect_binds<'a>(stmts: &'a [Stmt], out: &mut HashMap<&'a str, Vec<Bind<'a>>>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    bind_target(t, value, out);
                }
            }
            StmtKind::FunctionDef { name, func } => {
                out.entry(name.as_str()).or_default().push(Bind::Def(*func));
            }
            StmtKind::ClassDef { name } => {
                out.entry(name.as_str())
                    .or_default()
                    .push(Bind::Class(name.as_str()));
            }
            StmtKind::Import(imports) => {
                for i in imports {
                    out.entry(i.local.as_str())
                        .or_default()
                        .push(Bind::Import(i));
                }
            }
            StmtKind::With { items, .. } => {
                for i in items {
                    if let Some(t) = &i.target {
                        bind_target(t, &i.context, out);
                    }
                }
            }
            _ => {}
        }
        for b in stmt_blocks(s) {
            collect_binds(b, out);
        }
    }
}

fn bind_target<'a>(t: &'a Expr, value: &'a Expr, out: &mut HashMap<&'a str, Vec<Bind<'a>>>) {
    match (&t.kind, &value.kind) {
        (ExprKind::Name(n), _) => out.entry(n.as_str()).or_default().push(Bind::Value(value)),
        (ExprKind::Tuple(ts) | ExprKind::List(ts), ExprKind::Tuple(vs) | ExprKind::List(vs))
            if ts.len() == vs.len() =>
        {
            for (t, v) in ts.iter().zip(vs) {
                bind_target(t, v, out);
            }
        }
        // Unpacking a value that is not written as a tuple (a call's result): each name is an
        // element of whatever tuple the value evaluates to. A starred target shifts the
        // positions after it, so those names stay unbound.
        (ExprKind::Tuple(ts) | ExprKind::List(ts), _) => {
            let arity = ts.len();
            for (i, t) in ts.iter().enumerate() {
                match &t.kind {
                    ExprKind::Name(n) => out
                        .entry(n.as_str())
                        .or_default()
                        .push(Bind::Element(value, i, arity)),
                    ExprKind::Starred(_) => break,
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// `Optional["FastMCP"]`, `FastMCP | None`, `"mcp.server.FastMCP"` → the dotted class names in
/// an annotation.
fn annotation_names(a: &str) -> Vec<String> {
    a.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|s| !s.is_empty() && !s.starts_with(|c: char| c.is_ascii_digit()))
        .filter(|s| !matches!(*s, "Optional" | "Union" | "None" | "typing" | "Annotated"))
        .map(str::to_string)
        .collect()
}

impl<'a> Resolver<'a> {
    fn new(mods: &'a [Module], fw: &'static Frameworks, root: Option<&'a Path>) -> Self {
        let mut by_name: HashMap<&'a str, usize> = HashMap::new();
        for (i, m) in mods.iter().enumerate() {
            by_name.entry(m.name.as_str()).or_insert(i);
        }
        let framework_aware: Vec<bool> = mods
            .iter()
            .map(|m| m.imports.iter().any(|i| fw.is_framework_module(&i.module)))
            .collect();
        let tree_framework_aware = framework_aware.iter().any(|&a| a);
        let mut candidates: HashSet<String> =
            fw.registrations.iter().map(|r| r.method.clone()).collect();
        candidates.extend(fw.low_level.dispatcher_methods.iter().cloned());
        candidates.extend(fw.low_level.request_methods.iter().cloned());
        for c in &fw.server_classes {
            candidates.insert(c.name.clone());
        }
        if let Some(mx) = &fw.mixin {
            candidates.extend(mx.register_methods.iter().cloned());
        }
        candidates.insert("mount".to_string());
        candidates.insert("import_server".to_string());
        Resolver {
            mods,
            root,
            fw,
            by_name,
            suffix_memo: RefCell::new(HashMap::new()),
            framework_aware,
            tree_framework_aware,
            includes: Vec::new(),
            binds: RefCell::new(HashMap::new()),
            memo: RefCell::new(HashMap::new()),
            class_styles: RefCell::new(HashMap::new()),
            calls_by_name: RefCell::new(None),
            loop_calls: RefCell::new(None),
            set_visiting: RefCell::new(Vec::new()),
            additions: RefCell::new(HashMap::new()),
            wrappers: HashMap::new(),
            used_wrappers: HashSet::new(),
            marked: Vec::new(),
            mixin_registered: HashSet::new(),
            standalone: Vec::new(),
            candidates,
            entries: vec![Vec::new(); mods.len()],
            seen: HashSet::new(),
            consts: HashMap::new(),
            dispatchers: Vec::new(),
            server_ids: RefCell::new(Vec::new()),
            mounts: Vec::new(),
            entry_sids: vec![Vec::new(); mods.len()],
            out: Resolution::default(),
        }
    }

    /// A module of the tree by dotted path; a tree scanned above its import root
    /// (`src/pkg/app.py` imported as `pkg.app`) matches on a dotted suffix.
    fn module_idx(&self, path: &str) -> Option<usize> {
        if path.is_empty() {
            return None;
        }
        if let Some(&i) = self.by_name.get(path) {
            return Some(i);
        }
        if let Some(hit) = self.suffix_memo.borrow().get(path) {
            return *hit;
        }
        let suffix = format!(".{path}");
        let hit = self.mods.iter().position(|m| m.name.ends_with(&suffix));
        self.suffix_memo.borrow_mut().insert(path.to_string(), hit);
        hit
    }

    fn func(&self, m: usize, f: FuncId) -> Option<&'a Function> {
        self.mods.get(m).and_then(|md| md.functions.get(f))
    }

    fn with_binds<T>(
        &self,
        m: usize,
        f: FuncId,
        name: &str,
        k: impl FnOnce(&[Bind<'a>]) -> T,
    ) -> T {
        let mut binds = self.binds.borrow_mut();
        let table = binds.entry((m, f)).or_insert_with(|| {
            let mut t = HashMap::new();
            if let Some(func) = self.func(m, f) {
                collect_binds(&func.body, &mut t);
            }
            t
        });
        let list = table.get(name).map(Vec::as_slice).unwrap_or(&[]);
        // Copy out what the continuation needs: binds borrow the modules, not the table.
        let copied: Vec<Bind<'a>> = list
            .iter()
            .map(|b| match b {
                Bind::Value(e) => Bind::Value(e),
                Bind::Def(d) => Bind::Def(*d),
                Bind::Class(c) => Bind::Class(c),
                Bind::Import(i) => Bind::Import(i),
                Bind::Element(e, i, n) => Bind::Element(e, *i, *n),
            })
            .collect();
        drop(binds);
        k(&copied)
    }

    // ------------------------------------------------------------------ evaluation

    fn lookup(&self, m: usize, f: FuncId, name: &str, depth: usize) -> Option<Val> {
        if depth > MAX_DEPTH {
            return None;
        }
        let key = (m, f, name.to_string());
        if let Some(v) = self.memo.borrow().get(&key) {
            return v.clone();
        }
        self.memo.borrow_mut().insert(key.clone(), None);
        let v = self.lookup_uncached(m, f, name, depth);
        self.memo.borrow_mut().insert(key, v.clone());
        v
    }

    fn lookup_uncached(&self, m: usize, f: FuncId, name: &str, depth: usize) -> Option<Val> {
        let env = Env { m, f, subst: &[] };
        let (found, bound) = self.with_binds(m, f, name, |binds| {
            let mut found = None;
            for b in binds.iter().rev() {
                let v = match b {
                    Bind::Value(e) => self.eval(e, env, depth + 1),
                    Bind::Def(d) => Some(Val::Func(m, *d)),
                    Bind::Class(c) => Some(Val::Class(m, c.to_string())),
                    Bind::Import(i) => self.resolve_import(i, depth + 1),
                    Bind::Element(e, i, n) => self.eval_element(e, *i, *n, env, depth + 1),
                };
                if v.is_some() {
                    found = v;
                    break;
                }
            }
            (found, !binds.is_empty())
        });
        if f == Module::TOP_LEVEL {
            let is_server = match &found {
                Some(Val::Server(_, None)) => true,
                Some(Val::Instance(cm, c, None)) => self.class_style(*cm, c, depth + 1).is_some(),
                _ => false,
            };
            if is_server {
                let mut ids = self.server_ids.borrow_mut();
                let id = ids.len() as u32;
                ids.push((m, name.to_string()));
                drop(ids);
                return match found {
                    Some(Val::Server(style, _)) => Some(Val::Server(style, Some(id))),
                    Some(Val::Instance(cm, c, _)) => Some(Val::Instance(cm, c, Some(id))),
                    other => other,
                };
            }
        }
        if found.is_some() {
            return found;
        }
        let func = self.func(m, f)?;
        if f != Module::TOP_LEVEL {
            if let Some(i) = func.params.iter().position(|p| p.name == name) {
                return self.param_value(m, f, i, depth + 1);
            }
            if bound {
                // A local that resolves to nothing we know: Python would not look further out.
                return None;
            }
            let outer = func.parent.unwrap_or(Module::TOP_LEVEL);
            return self.lookup(m, outer, name, depth + 1);
        }
        // Module level: imports (all of them, so a `try/except ImportError` shim resolves
        // through whichever branch names a server), then `from x import *`.
        let md = &self.mods[m];
        for i in md.imports.iter().rev().filter(|i| i.local == name) {
            if let Some(v) = self.resolve_import(i, depth + 1) {
                return Some(v);
            }
        }
        for i in md.imports.iter().filter(|i| i.local == "*") {
            if let Some(mi) = self.module_idx(&i.module)
                && mi != m
                && let Some(v) = self.lookup(mi, Module::TOP_LEVEL, name, depth + 1)
            {
                return Some(v);
            }
        }
        // A file exec'd into this module's globals, or the module that exec's this file into
        // its own: one namespace.
        for &(h, g) in &self.includes {
            let other = match (h == m, g == m) {
                (true, false) => g,
                (false, true) => h,
                _ => continue,
            };
            if let Some(v) = self.lookup(other, Module::TOP_LEVEL, name, depth + 1) {
                return Some(v);
            }
        }
        None
    }

    fn resolve_import(&self, i: &Import, depth: usize) -> Option<Val> {
        match i.symbol.as_deref() {
            Some("*") => None,
            Some(sym) => {
                let full = format!("{}.{sym}", i.module);
                if let Some(mi) = self.module_idx(&i.module)
                    && let Some(v) = self.lookup(mi, Module::TOP_LEVEL, sym, depth + 1)
                {
                    return Some(self.shadowed_framework_class(&full, v, depth));
                }
                if self.module_idx(&full).is_some() {
                    return Some(Val::Module(full));
                }
                if self.module_idx(&i.module).is_some() {
                    return None;
                }
                match self.fw.server_style(&full) {
                    Some(s) => Some(Val::ServerClass(s)),
                    None => Some(Val::Module(full)),
                }
            }
            None => Some(Val::Module(i.module.clone())),
        }
    }

    /// A framework server class imported by its framework path (`from mcp.server.fastmcp
    /// import FastMCP`) that resolves to a class the tree itself defines there: the tree ships
    /// its own copy or test stub of the SDK module, and at run time the name is the SDK's
    /// server either way (a stub is swapped for the real package), so it registers like one.
    /// A class deriving a server already carries its style and is kept as a subclass.
    fn shadowed_framework_class(&self, full: &str, v: Val, depth: usize) -> Val {
        match &v {
            Val::Class(cm, c)
                if full.rsplit('.').next() == Some(c.as_str())
                    && self.class_style(*cm, c, depth + 1).is_none() =>
            {
                match self.fw.server_style(full) {
                    Some(s) => Val::ServerClass(s),
                    None => v,
                }
            }
            _ => v,
        }
    }

    /// A parameter: `self`/`cls` of a method, an annotation naming a server class, or what
    /// the function's callers in the tree pass for it.
    fn param_value(&self, m: usize, f: FuncId, i: usize, depth: usize) -> Option<Val> {
        let func = self.func(m, f)?;
        let p = func.params.get(i)?;
        if i == 0
            && let Some(class) = &func.class
        {
            let is_static = func
                .decorators
                .iter()
                .any(|d| last_segment(d) == Some("staticmethod"));
            let is_classmethod = func
                .decorators
                .iter()
                .any(|d| last_segment(d) == Some("classmethod"));
            if !is_static {
                return Some(if is_classmethod {
                    Val::Class(m, class.clone())
                } else {
                    Val::Instance(m, class.clone(), None)
                });
            }
        }
        let outer = Env {
            m,
            f: func.parent.unwrap_or(Module::TOP_LEVEL),
            subst: &[],
        };
        if let Some(a) = &p.annotation {
            for name in annotation_names(a) {
                match self.eval_dotted(&name, outer, depth + 1) {
                    Some(Val::ServerClass(s)) => return Some(Val::Server(s, None)),
                    Some(Val::Class(cm, c)) => return Some(Val::Instance(cm, c, None)),
                    _ => {}
                }
            }
        }
        self.param_from_callers(m, f, i, depth + 1)
    }

    fn param_from_callers(&self, m: usize, f: FuncId, i: usize, depth: usize) -> Option<Val> {
        let func = self.func(m, f)?;
        let p = func.params.get(i)?;
        if p.variadic || p.keywords {
            return None;
        }
        let calls = self.calls_named(&func.name);
        for (cm, cf, call) in calls.into_iter().take(MAX_CALLERS) {
            let ExprKind::Call { callee, args } = &call.kind else {
                continue;
            };
            let env = Env {
                m: cm,
                f: cf,
                subst: &[],
            };
            let reaches = |v: Option<Val>| match v {
                Some(Val::Func(tm, tf)) => tm == m && tf == f,
                // `importlib.import_module(f"pkg.tools.{n}").register(mcp)` reaches the
                // module-level `register` of every module under `pkg.tools.`.
                Some(Val::DynAttr(prefix, suffix, attr)) => {
                    attr == func.name
                        && func.parent.is_none_or(|p| p == Module::TOP_LEVEL)
                        && func.class.is_none()
                        && dyn_module_matches(&self.mods[m].name, &prefix, &suffix)
                }
                _ => false,
            };
            if !reaches(self.eval(callee, env, depth + 1)) {
                // `x.register(...)` where the local `x` is assigned more than once (one plugin
                // loop per package): any of its assignments may be the one the call sees.
                let ExprKind::Attribute { value, attr } = &callee.kind else {
                    continue;
                };
                let ExprKind::Name(n) = &value.kind else {
                    continue;
                };
                let values: Vec<&'a Expr> = self.with_binds(cm, cf, n, |bs| {
                    bs.iter()
                        .filter_map(|b| match b {
                            Bind::Value(e) => Some(*e),
                            _ => None,
                        })
                        .collect()
                });
                if values.len() < 2
                    || !values.into_iter().any(|x| {
                        reaches(
                            self.eval(x, env, depth + 1)
                                .and_then(|v| self.attr(v, attr, n, depth + 1)),
                        )
                    })
                {
                    continue;
                }
            }
            // A bound method call does not pass `self` positionally.
            let offset = usize::from(
                func.class.is_some() && matches!(callee.kind, ExprKind::Attribute { .. }),
            );
            let arg = bound_to_at(args, &p.name, i.checked_sub(offset), false);
            if let Some(a) = arg
                && let Some(v) = self.eval(&a.value, env, depth + 1)
            {
                return Some(v);
            }
        }
        self.param_from_loop_callers(m, f, i, depth)
    }

    /// A parameter of a function that is called through a loop variable, the loop iterating
    /// over what a discovery function returns or a collection of registrars
    /// (`for reg in discover_registrations(): reg(mcp, api)`): the argument of such a call when
    /// an element the loop may bind evaluates to this function. Only module-level functions
    /// and functions of a loop's elements are reached this way; anything else stays a gap.
    fn param_from_loop_callers(&self, m: usize, f: FuncId, i: usize, depth: usize) -> Option<Val> {
        let func = self.func(m, f)?;
        if func.class.is_some() {
            return None;
        }
        let p = func.params.get(i)?;
        self.ensure_loop_calls();
        let calls = self.loop_calls.borrow().clone().unwrap_or_default();
        for (cm, cf, call, target, iter) in calls.into_iter().take(MAX_CALLERS) {
            let ExprKind::Call { callee, args } = &call.kind else {
                continue;
            };
            let arg = bound_to(args, &p.name, i);
            let Some(arg) = arg else {
                continue;
            };
            let env = Env {
                m: cm,
                f: cf,
                subst: &[],
            };
            let Some(elems) = self.literal_elements(iter, env, 0) else {
                continue;
            };
            for (el, em, ef) in elems {
                let mut subst = Vec::new();
                bind_element(target, &el, em, ef, &mut subst);
                let inner = Env {
                    m: cm,
                    f: cf,
                    subst: &subst,
                };
                let reaches = match self.eval(callee, inner, depth + 1) {
                    Some(Val::Func(tm, tf)) => tm == m && tf == f,
                    Some(Val::DynAttr(prefix, suffix, attr)) => {
                        attr == func.name
                            && func.parent.is_none_or(|p| p == Module::TOP_LEVEL)
                            && dyn_module_matches(&self.mods[m].name, &prefix, &suffix)
                    }
                    _ => false,
                };
                if reaches && let Some(v) = self.eval(&arg.value, inner, depth + 1) {
                    return Some(v);
                }
            }
        }
        None
    }

    fn ensure_loop_calls(&self) {
        if self.loop_calls.borrow().is_some() {
            return;
        }
        fn scan<'a>(
            stmts: &'a [Stmt],
            at: (usize, FuncId),
            loops: &mut Vec<(&'a Expr, &'a Expr)>,
            out: &mut LoopCalls<'a>,
        ) {
            for s in stmts {
                let mut calls = Vec::new();
                for e in stmt_exprs(s) {
                    each_call(e, &mut calls);
                }
                for c in calls {
                    if let ExprKind::Call { callee, .. } = &c.kind
                        && let ExprKind::Name(n) = &callee.kind
                        && let Some((t, it)) = loops.iter().rev().find(|(t, _)| binds_name(t, n))
                    {
                        out.push((at.0, at.1, c, t, it));
                    }
                }
                if let StmtKind::For {
                    target,
                    iter,
                    body,
                    orelse,
                    ..
                } = &s.kind
                {
                    loops.push((target, iter));
                    scan(body, at, loops, out);
                    loops.pop();
                    scan(orelse, at, loops, out);
                    continue;
                }
                for b in stmt_blocks(s) {
                    scan(b, at, loops, out);
                }
            }
        }
        let mut out = Vec::new();
        for (mi, md) in self.mods.iter().enumerate() {
            for (fi, func) in md.functions.iter().enumerate() {
                scan(&func.body, (mi, fi), &mut Vec::new(), &mut out);
            }
        }
        *self.loop_calls.borrow_mut() = Some(out);
    }

    /// Every call in the tree whose callee's last segment is `name`, with its module and
    /// function (the index is built on first use).
    fn calls_named(&self, name: &str) -> Vec<(usize, FuncId, &'a Expr)> {
        self.ensure_call_index();
        self.calls_by_name
            .borrow()
            .as_ref()
            .and_then(|idx| idx.get(name).cloned())
            .unwrap_or_default()
    }

    fn ensure_call_index(&self) {
        if self.calls_by_name.borrow().is_some() {
            return;
        }
        let mut idx: HashMap<&'a str, Vec<(usize, FuncId, &'a Expr)>> = HashMap::new();
        for (mi, md) in self.mods.iter().enumerate() {
            for (fi, func) in md.functions.iter().enumerate() {
                let mut calls = Vec::new();
                walk_stmts(&func.body, &mut |s| {
                    for e in stmt_exprs(s) {
                        each_call(e, &mut calls);
                    }
                });
                for c in calls {
                    if let ExprKind::Call { callee, .. } = &c.kind
                        && let Some(last) = last_segment(callee)
                    {
                        idx.entry(last).or_default().push((mi, fi, c));
                    }
                }
            }
        }
        *self.calls_by_name.borrow_mut() = Some(idx);
    }

    fn eval_dotted(&self, dotted: &str, env: Env, depth: usize) -> Option<Val> {
        let mut parts = dotted.split('.');
        let head = parts.next()?;
        let mut v = self.lookup(env.m, env.f, head, depth + 1)?;
        for p in parts {
            v = self.attr(v, p, dotted, depth + 1)?;
        }
        Some(v)
    }

    fn eval(&self, e: &Expr, env: Env, depth: usize) -> Option<Val> {
        if depth > MAX_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Name(n) => {
                if let Some((v, inner)) = env.bound(n) {
                    return self.eval(v, inner, depth + 1);
                }
                self.lookup(env.m, env.f, n, depth + 1)
            }
            ExprKind::Attribute { value, attr } => {
                let v = self.eval(value, env, depth + 1)?;
                self.attr(v, attr, &text_of(value), depth + 1)
            }
            ExprKind::Call { callee, args } => {
                // `getattr(obj, "name")` with a constant name is `obj.name`.
                if matches!(&callee.kind, ExprKind::Name(n) if n == "getattr")
                    && let [obj, name, ..] = args.as_slice()
                    && let Some(attr) = self.const_of(&name.value, env, depth + 1)
                {
                    let v = self.eval(&obj.value, env, depth + 1)?;
                    return self.attr(v, &attr, &text_of(&obj.value), depth + 1);
                }
                let v = self.eval(callee, env, depth + 1)?;
                self.call(v, args, env, depth + 1)
            }
            ExprKind::Await(x) | ExprKind::NamedExpr { value: x, .. } => {
                self.eval(x, env, depth + 1)
            }
            // `globals()[<folded name>]`: the module-level binding of that name.
            ExprKind::Index { value, index }
                if matches!(&value.kind, ExprKind::Call { callee, args }
                    if args.is_empty() && matches!(&callee.kind, ExprKind::Name(g) if g == "globals")) =>
            {
                let name = self.fold_str(index, env, 0)?;
                self.lookup(env.m, Module::TOP_LEVEL, &name, depth + 1)
            }
            ExprKind::Conditional { body, orelse, .. } => self
                .eval(body, env, depth + 1)
                .or_else(|| self.eval(orelse, env, depth + 1)),
            ExprKind::Binary { op, left, right } if op == "or" => self
                .eval(left, env, depth + 1)
                .or_else(|| self.eval(right, env, depth + 1)),
            ExprKind::Lambda(f) => Some(Val::Func(env.m, *f)),
            _ => None,
        }
    }

    fn server_attr(&self, style: ServerStyle, attr: &str, server: &str) -> Option<Val> {
        let known = match style {
            ServerStyle::Decorator => self.fw.registration(attr).is_some(),
            ServerStyle::LowLevel => {
                self.fw
                    .low_level
                    .dispatcher_methods
                    .iter()
                    .any(|m| m == attr)
                    || self.fw.low_level.listing_methods.iter().any(|m| m == attr)
                    || self.fw.low_level.request_methods.iter().any(|m| m == attr)
            }
        };
        known.then(|| Val::Method {
            style,
            method: attr.to_string(),
            server: server.to_string(),
        })
    }

    fn attr(&self, v: Val, attr: &str, server: &str, depth: usize) -> Option<Val> {
        if depth > MAX_DEPTH {
            return None;
        }
        match v {
            Val::Module(p) => {
                let full = format!("{p}.{attr}");
                if let Some(mi) = self.module_idx(&p) {
                    if let Some(v) = self.lookup(mi, Module::TOP_LEVEL, attr, depth + 1) {
                        return Some(self.shadowed_framework_class(&full, v, depth));
                    }
                    return self.module_idx(&full).map(|_| Val::Module(full));
                }
                if self.module_idx(&full).is_some() {
                    return Some(Val::Module(full));
                }
                match self.fw.server_style(&full) {
                    Some(s) => Some(Val::ServerClass(s)),
                    None => Some(Val::Module(full)),
                }
            }
            Val::Server(ServerStyle::Decorator, sid)
                if self
                    .fw
                    .low_level
                    .inner_server_attributes
                    .iter()
                    .any(|a| a == attr) =>
            {
                Some(Val::Server(ServerStyle::LowLevel, sid))
            }
            Val::Server(style, sid) => self
                .server_attr(style, attr, &tag_server(server, sid))
                .or(Some(Val::External)),
            // `FastMCP.from_openapi(...)`, `FastMCP.as_proxy(...)`: alternate constructors.
            Val::ServerClass(s) => Some(Val::ServerClass(s)),
            Val::Instance(cm, c, sid) => {
                if let Some(style) = self.class_style(cm, &c, depth + 1)
                    && let Some(v) = self.server_attr(style, attr, &tag_server(server, sid))
                {
                    return Some(v);
                }
                self.member(cm, &c, attr, true, depth + 1)
            }
            Val::Class(cm, c) => self.member(cm, &c, attr, false, depth + 1),
            // A static or class method's function, and a bound method's.
            Val::Func(..) if attr == "__func__" => Some(v),
            Val::DynModule(prefix, suffix) => Some(Val::DynAttr(prefix, suffix, attr.to_string())),
            Val::External => Some(Val::External),
            _ => None,
        }
    }

    /// An attribute of a tree class or its instances: `self.x = ...` in a method, a class-body
    /// assignment, a method; then the bases defined in the tree.
    fn member(
        &self,
        m: usize,
        class: &str,
        attr: &str,
        instance: bool,
        depth: usize,
    ) -> Option<Val> {
        if depth > MAX_DEPTH {
            return None;
        }
        let md = &self.mods[m];
        let c = md.classes.iter().find(|c| c.name == class)?;
        for &meth in &c.methods {
            if md.functions[meth].name == attr {
                return Some(Val::Func(m, meth));
            }
        }
        // Class body code lives in a synthetic `<body>` function.
        for (fi, f) in md.functions.iter().enumerate() {
            if f.name == "<body>" && f.class.as_deref() == Some(class) {
                if let Some(v) = self.lookup_local_only(m, fi, attr, depth + 1) {
                    return Some(v);
                }
            }
        }
        if instance {
            for &meth in &c.methods {
                let mut found = None;
                walk_stmts(&md.functions[meth].body, &mut |s| {
                    if found.is_some() {
                        return;
                    }
                    if let StmtKind::Assign { targets, value } = &s.kind {
                        for t in targets {
                            if let ExprKind::Attribute {
                                value: obj,
                                attr: a,
                            } = &t.kind
                                && a == attr
                                && matches!(&obj.kind, ExprKind::Name(n) if n == "self")
                            {
                                found = Some(value);
                            }
                        }
                    }
                });
                if let Some(value) = found {
                    let env = Env {
                        m,
                        f: meth,
                        subst: &[],
                    };
                    if let Some(v) = self.eval(value, env, depth + 1) {
                        return Some(v);
                    }
                }
            }
        }
        let outer = Env {
            m,
            f: Module::TOP_LEVEL,
            subst: &[],
        };
        for b in &c.bases {
            let base = b.split('[').next().unwrap_or(b);
            if let Some(Val::Class(bm, bc)) = self.eval_dotted(base, outer, depth + 1)
                && !(bm == m && bc == class)
                && let Some(v) = self.member(bm, &bc, attr, instance, depth + 1)
            {
                return Some(v);
            }
        }
        None
    }

    fn lookup_local_only(&self, m: usize, f: FuncId, name: &str, depth: usize) -> Option<Val> {
        let env = Env { m, f, subst: &[] };
        self.with_binds(m, f, name, |binds| {
            binds.iter().rev().find_map(|b| match b {
                Bind::Value(e) => self.eval(e, env, depth + 1),
                Bind::Def(d) => Some(Val::Func(m, *d)),
                Bind::Class(c) => Some(Val::Class(m, c.to_string())),
                Bind::Import(i) => self.resolve_import(i, depth + 1),
                Bind::Element(e, i, n) => self.eval_element(e, *i, *n, env, depth + 1),
            })
        })
    }

    /// The server style a tree class inherits, through its bases.
    fn class_style(&self, m: usize, class: &str, depth: usize) -> Option<ServerStyle> {
        let key = (m, class.to_string());
        if let Some(s) = self.class_styles.borrow().get(&key) {
            return *s;
        }
        self.class_styles.borrow_mut().insert(key.clone(), None);
        let md = &self.mods[m];
        let mut style = None;
        if let Some(c) = md.classes.iter().find(|c| c.name == class) {
            let env = Env {
                m,
                f: Module::TOP_LEVEL,
                subst: &[],
            };
            for b in &c.bases {
                let base = b.split('[').next().unwrap_or(b);
                style = match self.eval_dotted(base, env, depth + 1) {
                    Some(Val::ServerClass(s)) => Some(s),
                    Some(Val::Class(bm, bc)) => self.class_style(bm, &bc, depth + 1),
                    _ => None,
                };
                if style.is_some() {
                    break;
                }
            }
        }
        self.class_styles.borrow_mut().insert(key, style);
        style
    }

    fn call(&self, v: Val, args: &[Arg], env: Env, depth: usize) -> Option<Val> {
        match v {
            Val::ServerClass(s) => Some(Val::Server(s, None)),
            Val::Class(m, c) => Some(Val::Instance(m, c, None)),
            Val::Method {
                style,
                method,
                server,
            } => {
                if style == ServerStyle::Decorator {
                    let reg = self.fw.registration(&method)?;
                    // `mcp.tool(fn)` registers directly and returns a tool, not a decorator.
                    if reg.imperative || self.first_arg_is_handler(args, env, depth) {
                        return Some(Val::External);
                    }
                }
                Some(Val::Decorator {
                    style,
                    method,
                    args: self.fold_names(substitute(args, env.subst), env),
                    module: env.m,
                    server,
                })
            }
            Val::Func(m, f) => {
                let subst = self.call_subst(m, f, args, env);
                self.returns(m, f, &subst, depth + 1)
            }
            Val::Module(p) if p == "importlib.import_module" => self.import_module(args, env),
            Val::Module(p) if self.module_idx(&p).is_none() => Some(Val::External),
            Val::External => Some(Val::External),
            _ => None,
        }
    }

    /// Parameters bound to a call's arguments, so `return mcp.resource(uri)` keeps the caller's
    /// URI.
    fn call_subst(&self, m: usize, f: FuncId, args: &[Arg], env: Env) -> Vec<Subst> {
        let mut subst = Vec::new();
        if let Some(func) = self.func(m, f) {
            let positional = args
                .iter()
                .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords);
            let params = func.params.iter().filter(|p| !(p.variadic || p.keywords));
            let skip = usize::from(func.class.is_some());
            for (p, a) in params.skip(skip).zip(positional) {
                subst.push(bound_arg(&p.name, &a.value, env));
            }
            for a in args {
                if let Some(n) = &a.name
                    && func.params.iter().any(|p| &p.name == n)
                {
                    subst.push(bound_arg(n, &a.value, env));
                }
            }
        }
        subst
    }

    /// Element `i` of the `arity`-tuple `e` evaluates to: a tuple written out, or what a tree
    /// function called there returns (`return server_cls, Context, 2`), through names and
    /// `await`.
    fn eval_element(
        &self,
        e: &Expr,
        i: usize,
        arity: usize,
        env: Env,
        depth: usize,
    ) -> Option<Val> {
        if depth > MAX_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Tuple(vs) | ExprKind::List(vs) => {
                if vs.len() != arity || vs.iter().any(|v| matches!(v.kind, ExprKind::Starred(_))) {
                    return None;
                }
                self.eval(vs.get(i)?, env, depth + 1)
            }
            ExprKind::Await(x) => self.eval_element(x, i, arity, env, depth + 1),
            ExprKind::Name(n) => {
                if let Some((v, inner)) = env.bound(n) {
                    return self.eval_element(v, i, arity, inner, depth + 1);
                }
                let values: Vec<&'a Expr> = self.with_binds(env.m, env.f, n, |bs| {
                    bs.iter()
                        .filter_map(|b| match b {
                            Bind::Value(x) => Some(*x),
                            _ => None,
                        })
                        .collect()
                });
                let plain = Env { subst: &[], ..env };
                values
                    .into_iter()
                    .rev()
                    .find_map(|x| self.eval_element(x, i, arity, plain, depth + 1))
            }
            ExprKind::Call { callee, args } => {
                let Some(Val::Func(m, f)) = self.eval(callee, env, depth + 1) else {
                    return None;
                };
                let subst = self.call_subst(m, f, args, env);
                let func = self.func(m, f)?;
                let inner = Env {
                    m,
                    f,
                    subst: &subst,
                };
                let mut found = None;
                walk_stmts(&func.body, &mut |s| {
                    if found.is_none()
                        && let StmtKind::Return(Some(r)) = &s.kind
                    {
                        found = self.eval_element(r, i, arity, inner, depth + 1);
                    }
                });
                found
            }
            _ => None,
        }
    }

    /// `name=`/`uri=` arguments folded where they are written, so a name built by a helper
    /// or from a loop variable reaches the entry as a string.
    fn fold_names(&self, mut args: Vec<Arg>, env: Env) -> Vec<Arg> {
        for a in &mut args {
            if matches!(a.name.as_deref(), Some("name" | "uri"))
                && !matches!(a.value.kind, ExprKind::Str(_))
                && let Some(s) = self.fold_str(&a.value, env, 0)
            {
                a.value = Expr::new(ExprKind::Str(s), a.value.span);
            }
        }
        args
    }

    /// `importlib.import_module(name, package=...)`: the module when the name folds, else the
    /// tree's modules under the name's constant prefix (a plugin loop over module names).
    fn import_module(&self, args: &[Arg], env: Env) -> Option<Val> {
        let a = args
            .iter()
            .find(|a| a.name.is_none() && !a.spread && !a.spread_keywords)?;
        let (name, exact) = match self.fold_str(&a.value, env, 0) {
            Some(n) => (n, true),
            None => (const_prefix(&a.value), false),
        };
        let suffix = if exact {
            String::new()
        } else {
            const_suffix(&a.value)
        };
        let dots = name.chars().take_while(|c| *c == '.').count();
        let name = if dots > 0 {
            // Relative to the importing module's package (`package=__name__`/`__package__`).
            let md = &self.mods[env.m];
            let mut base: Vec<&str> = md.name.split('.').collect();
            if !md.path.ends_with("__init__.py") {
                base.pop();
            }
            for _ in 1..dots {
                base.pop();
            }
            let rest = &name[dots..];
            if base.is_empty() {
                rest.to_string()
            } else {
                format!("{}.{rest}", base.join("."))
            }
        } else {
            name
        };
        if exact {
            // A constant name is the module `import <name>` would bind, in the tree or not
            // (`importlib.import_module("mcp.server.fastmcp").FastMCP` is the server class).
            return Some(Val::Module(name));
        }
        // Without a package prefix the module could be anything, in or out of the tree.
        (name.contains('.')).then_some(Val::DynModule(name, suffix))
    }

    /// `mcp.tool(fn)` (fastmcp) registers directly; `mcp.tool("name")` builds a decorator.
    fn first_arg_is_handler(&self, args: &[Arg], env: Env, depth: usize) -> bool {
        match args.first() {
            Some(a) if a.name.is_none() && !a.spread && !a.spread_keywords => {
                matches!(self.handler(&a.value, env, depth + 1), Handler::Funcs(_))
            }
            _ => false,
        }
    }

    /// What a tree function returns: the first `return` that resolves.
    fn returns(&self, m: usize, f: FuncId, subst: &[Subst], depth: usize) -> Option<Val> {
        if depth > MAX_DEPTH {
            return None;
        }
        let func = self.func(m, f)?;
        let env = Env { m, f, subst };
        let mut found = None;
        walk_stmts(&func.body, &mut |s| {
            if found.is_none()
                && let StmtKind::Return(Some(e)) = &s.kind
            {
                found = self.eval(e, env, depth + 1);
            }
        });
        if found.is_none() && func.name.starts_with("<lambda") {
            // Lambdas lower to a single `return`; nothing else to try.
            return None;
        }
        found
    }

    // ------------------------------------------------------------------ sites

    fn run(&mut self) {
        self.exec_includes();
        self.collect_candidates();
        // Wrappers first: decorators and calls elsewhere are resolved through them.
        for pass in [Pass::Wrappers, Pass::Sites] {
            for m in 0..self.mods.len() {
                for f in 0..self.mods[m].functions.len() {
                    // A scope without parameters registers no parameter of its own, but a loop
                    // there may register the elements a registry decorator appended.
                    if pass == Pass::Wrappers
                        && (f == Module::TOP_LEVEL || self.mods[m].functions[f].params.is_empty())
                        && !has_loop(&self.mods[m].functions[f].body)
                    {
                        continue;
                    }
                    if pass == Pass::Sites {
                        self.decorators(m, f);
                    }
                    let mods = self.mods;
                    let body = &mods[m].functions[f].body;
                    let env = Env { m, f, subst: &[] };
                    self.walk_body(body, env, pass, 0);
                }
            }
            if pass == Pass::Wrappers {
                self.chain_wrappers();
                for w in self.wrappers.keys() {
                    let name = &self.mods[w.0].functions[w.1].name;
                    self.candidates.insert(name.clone());
                }
                // A decorator factory returning a wrapper: `@tool("x")`.
                let mut factories = Vec::new();
                for &(m, f) in self.wrappers.keys() {
                    if let Some(p) = self.mods[m].functions[f].parent {
                        factories.push(self.mods[m].functions[p].name.clone());
                    }
                }
                self.candidates.extend(factories);
            }
        }
        // A function that registers its parameter on a server, with no resolved use: whatever
        // it registers was not seen.
        let mut unused: Vec<((usize, FuncId), Span)> = self
            .wrappers
            .iter()
            .filter(|(k, _)| !self.used_wrappers.contains(k))
            .map(|(k, w)| (*k, w.span))
            .collect();
        unused.sort_by_key(|((m, f), _)| (*m, *f));
        self.serve_standalone();
        let marked = std::mem::take(&mut self.marked);
        for (m, f, span, deco) in marked {
            if self.mixin_registered.contains(&(m, f)) {
                continue;
            }
            let name = self.mods[m].functions[f].qualname.clone();
            self.gap(
                m,
                span,
                format!(
                    "`{name}` is marked for registration by the mixin decorator `@{deco}`, but no registration of its class on a resolved MCP server was found"
                ),
            );
        }
        for ((m, f), span) in unused {
            let name = self.mods[m].functions[f].qualname.clone();
            self.out.registration_sites += 1;
            self.gap(
                m,
                span,
                format!(
                    "`{name}` registers its parameter on an MCP server, but no call or decorator use of it could be resolved"
                ),
            );
        }
    }

    /// An unresolved registration-shaped decorator or call on `receiver` may register on an
    /// MCP server: its module imports a framework package, or another module of the tree does
    /// and the receiver itself resolves to nothing (a file of the tree can get its server
    /// without importing anything: `exec` into a module's globals, a parameter, a name injected
    /// at run time). A receiver that resolves to a tree class of its own is not a server.
    fn may_register(&self, receiver: &Expr, env: Env) -> bool {
        self.framework_aware[env.m]
            || (self.tree_framework_aware && self.eval(receiver, env, 0).is_none())
    }

    /// Files run in a module's own globals: `exec(compile(open(p).read(), p, "exec"),
    /// globals())`, `exec(Path(p).read_text())` at module level, `runpy.run_path(p,
    /// init_globals=globals())`, `globals().update(runpy.run_path(p))`. A path that folds to a
    /// module of the tree joins the two namespaces ([`Resolver::includes`]); any other is a
    /// gap: whatever that code registers was not analysed.
    fn exec_includes(&mut self) {
        let mods = self.mods;
        // (module, scope, call, source, source is a path rather than the file's text)
        let mut sites: Vec<(usize, FuncId, &'a Expr, &'a Expr, bool)> = Vec::new();
        for (m, md) in mods.iter().enumerate() {
            for (f, func) in md.functions.iter().enumerate() {
                walk_stmts(&func.body, &mut |s| {
                    for e in stmt_exprs(s) {
                        let mut calls = Vec::new();
                        each_call(e, &mut calls);
                        for c in calls {
                            if let Some((src, is_path)) =
                                exec_into_globals(c, f == Module::TOP_LEVEL)
                            {
                                sites.push((m, f, c, src, is_path));
                            }
                        }
                    }
                });
            }
        }
        if sites.is_empty() {
            return;
        }
        for (m, f, call, src, is_path) in sites {
            let env = Env { m, f, subst: &[] };
            if is_path {
                // `run_path` of something other than runpy's is not an include.
                let ExprKind::Call { callee, .. } = &call.kind else {
                    continue;
                };
                let callee = match &callee.kind {
                    // `globals().update(runpy.run_path(p))`
                    ExprKind::Attribute { attr, .. } if attr == "update" => match &call.kind {
                        ExprKind::Call { args, .. } => match args.first().map(|a| &a.value.kind) {
                            Some(ExprKind::Call { callee, .. }) => callee.as_ref(),
                            _ => continue,
                        },
                        _ => continue,
                    },
                    _ => callee.as_ref(),
                };
                if !matches!(self.eval(callee, env, 0), Some(Val::Module(p)) if p == "runpy.run_path")
                {
                    continue;
                }
            } else if matches!(src.kind, ExprKind::Str(_)) {
                // Literal code is in the source for anyone to read; it names no file.
                continue;
            }
            let path = if is_path {
                self.fold_path(src, env, 0)
            } else {
                self.file_of(src, env, 0)
            };
            let target = path.as_deref().and_then(super::datafile::normalize);
            let guest = target.as_deref().and_then(|t| {
                mods.iter()
                    .position(|md| super::datafile::normalize(&md.path).as_deref() == Some(t))
            });
            match guest {
                Some(g) if g != m => {
                    if !self.includes.contains(&(m, g)) {
                        self.includes.push((m, g));
                    }
                }
                Some(_) => {}
                None => {
                    let what = match &target {
                        Some(t) => {
                            format!("`{t}`, which is not a Python module of the scanned tree")
                        }
                        None => format!(
                            "`{}`, code the analyzer could not trace to a file of the scanned tree",
                            text_of(src)
                        ),
                    };
                    self.out.gaps.push(CoverageGap {
                        kind: GapKind::UnanalysedImport,
                        file: Some(mods[m].path.clone()),
                        line: Some(call.span.start_line),
                        reason: format!(
                            "`{}` runs {what} in this module's globals; what it defines or registers was not analysed",
                            text_of(call)
                        ),
                    });
                }
            }
        }
        // Names looked up while folding the paths resolved before the namespaces were joined.
        self.memo.borrow_mut().clear();
        self.class_styles.borrow_mut().clear();
    }

    /// Wrappers of wrappers (`def deco(fn): register_tool(server, fn)` with `register_tool`
    /// registering its parameter): the functions calling a newly found wrapper are walked
    /// again, a bounded number of rounds.
    fn chain_wrappers(&mut self) {
        let mut known: HashSet<(usize, FuncId)> = HashSet::new();
        for _ in 0..4 {
            let fresh: Vec<(usize, FuncId)> = self
                .wrappers
                .keys()
                .filter(|k| !known.contains(*k))
                .copied()
                .collect();
            if fresh.is_empty() {
                break;
            }
            let mut callers: Vec<(usize, FuncId)> = Vec::new();
            for &(m, f) in &fresh {
                known.insert((m, f));
                let name = self.mods[m].functions[f].name.clone();
                self.candidates.insert(name.clone());
                for (cm, cf, _) in self.calls_named(&name) {
                    if cf != Module::TOP_LEVEL
                        && !self.mods[cm].functions[cf].params.is_empty()
                        && !self.wrappers.contains_key(&(cm, cf))
                        && !callers.contains(&(cm, cf))
                    {
                        callers.push((cm, cf));
                    }
                }
            }
            callers.sort_unstable();
            for (m, f) in callers {
                let mods = self.mods;
                let body = &mods[m].functions[f].body;
                let env = Env { m, f, subst: &[] };
                self.walk_body(body, env, Pass::Wrappers, 0);
            }
        }
    }

    /// Names assigned from `x.tool` / `x.tool(...)` anywhere (aliases of registration methods).
    fn collect_candidates(&mut self) {
        let regs: HashSet<String> = self.candidates.clone();
        let mut found = Vec::new();
        for md in self.mods {
            for func in &md.functions {
                walk_stmts(&func.body, &mut |s| {
                    if let StmtKind::Assign { targets, value } = &s.kind {
                        let inner = match &value.kind {
                            ExprKind::Call { callee, .. } => callee.as_ref(),
                            _ => value,
                        };
                        if last_segment(inner).is_some_and(|l| regs.contains(l)) {
                            for t in targets {
                                if let Some(n) = last_segment(t) {
                                    found.push(n.to_string());
                                }
                            }
                        }
                    }
                });
            }
        }
        self.candidates.extend(found);
    }

    fn walk_body(&mut self, body: &'a [Stmt], env: Env, pass: Pass, depth: usize) {
        for s in body {
            if let StmtKind::For {
                target,
                iter,
                body: inner,
                orelse,
                ..
            } = &s.kind
                && depth < 4
                && self.has_candidate(inner)
                && let Some(elems) = self.literal_elements(iter, env, 0)
                && !elems.is_empty()
            {
                self.visit_exprs(iter, env, pass);
                for (el, em, ef) in &elems {
                    let (em, ef) = (*em, *ef);
                    let mut subst = env.subst.to_vec();
                    bind_element(target, el, em, ef, &mut subst);
                    let inner_env = Env {
                        m: env.m,
                        f: env.f,
                        subst: &subst,
                    };
                    self.walk_body(inner, inner_env, pass, depth + 1);
                }
                self.walk_body(orelse, env, pass, depth + 1);
                continue;
            }
            for e in stmt_exprs(s) {
                self.visit_exprs(e, env, pass);
            }
            for b in stmt_blocks(s) {
                self.walk_body(b, env, pass, depth + 1);
            }
        }
    }

    fn has_candidate(&self, body: &[Stmt]) -> bool {
        let mut yes = false;
        walk_stmts(body, &mut |s| {
            if yes {
                return;
            }
            let mut calls = Vec::new();
            for e in stmt_exprs(s) {
                each_call(e, &mut calls);
            }
            yes = calls.iter().any(|c| self.is_candidate(c));
        });
        yes
    }

    fn is_candidate(&self, call: &Expr) -> bool {
        let ExprKind::Call { callee, .. } = &call.kind else {
            return false;
        };
        match &callee.kind {
            ExprKind::Call { .. } => true,
            _ => last_segment(callee).is_some_and(|l| self.candidates.contains(l)),
        }
    }

    fn visit_exprs(&mut self, e: &'a Expr, env: Env, pass: Pass) {
        let mut calls = Vec::new();
        let mut comps = Vec::new();
        each_call_in(e, &mut calls, &mut Some(&mut comps));
        for c in calls {
            if let ExprKind::Call { callee, args } = &c.kind
                && self.is_candidate(c)
            {
                self.call_site(c, callee, args, env, pass);
            }
        }
        for comp in comps {
            let ExprKind::Comprehension {
                elements,
                clauses,
                conditions,
            } = &comp.kind
            else {
                continue;
            };
            // `[mcp.add_tool(f) for f in (a, b)]`: once per element.
            if let [(target, iter)] = clauses.as_slice()
                && let Some(elems) = self.literal_elements(iter, env, 0)
                && !elems.is_empty()
            {
                for (el, em, ef) in &elems {
                    let (em, ef) = (*em, *ef);
                    let mut subst = env.subst.to_vec();
                    bind_element(target, el, em, ef, &mut subst);
                    let inner = Env {
                        m: env.m,
                        f: env.f,
                        subst: &subst,
                    };
                    for x in elements {
                        self.visit_exprs(x, inner, pass);
                    }
                }
                continue;
            }
            for x in elements.iter().chain(conditions) {
                self.visit_exprs(x, env, pass);
            }
        }
    }

    /// The elements a loop may iterate over, each with the module and function it is written
    /// in: a literal collection (through names, imports and `.items()`/`.values()`), and, as a
    /// bounded over-approximation, what a tree function returns (parameters bound), a literal
    /// dict indexed by an unknown key (the union of its values), a comprehension projecting
    /// its loop variables, `a + b`, both arms of a conditional, every assignment of a local and
    /// the builtins that only reorder or filter their argument. `None` when any part is not
    /// followed: the registration stays a gap.
    fn literal_elements(&self, e: &Expr, env: Env, depth: usize) -> Option<Vec<Elem>> {
        if depth > MAX_SET_DEPTH {
            return None;
        }
        let out = match &e.kind {
            ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => {
                let mut out = Vec::new();
                for x in xs {
                    match &x.kind {
                        // `[*BASE, extra]`
                        ExprKind::Starred(inner) => {
                            out.extend(self.literal_elements(inner, env, depth + 1)?)
                        }
                        _ => out.push((x.clone(), env.m, env.f)),
                    }
                }
                out
            }
            ExprKind::Dict(items) => items
                .iter()
                .filter_map(|(k, _)| k.clone())
                .map(|k| (k, env.m, env.f))
                .collect(),
            ExprKind::Call { callee, args }
                if args.is_empty()
                    && matches!(&callee.kind, ExprKind::Attribute { attr, .. }
                        if matches!(attr.as_str(), "items" | "values" | "keys")) =>
            {
                let ExprKind::Attribute { value, attr } = &callee.kind else {
                    return None;
                };
                let Some((items, m, f)) = self.literal_dict(value, env, 0) else {
                    return self.class_members(value, attr, env, depth + 1);
                };
                match attr.as_str() {
                    "items" => items
                        .into_iter()
                        .filter_map(|(k, v)| {
                            let k = k?;
                            let span = k.span;
                            Some((Expr::new(ExprKind::Tuple(vec![k, v]), span), m, f))
                        })
                        .collect(),
                    "values" => items.into_iter().map(|(_, v)| (v, m, f)).collect(),
                    _ => items
                        .into_iter()
                        .filter_map(|(k, _)| k)
                        .map(|k| (k, m, f))
                        .collect(),
                }
            }
            ExprKind::Name(n) if env.bound(n).is_some() => {
                let (v, inner) = env.bound(n)?;
                self.literal_elements(v, inner, depth + 1)?
            }
            ExprKind::Name(_) | ExprKind::Attribute { .. } => self
                .literal_binding(e, env, depth + 1)
                .and_then(|(x, m, f)| {
                    let mut out = self.literal_elements(x, Env { m, f, subst: &[] }, depth + 1)?;
                    if let Some(n) = self.name_at(e, env, m) {
                        // A list filled in a loop over a parameter's value (`tools.append(...)`
                        // inside `for ... in cls.__dict__.items()`) depends on this call's
                        // bindings: computed with them, not cached.
                        if !env.subst.is_empty() && m == env.m && f == env.f {
                            out.extend(self.list_additions_uncached(
                                &n,
                                m,
                                f,
                                env.subst,
                                depth + 1,
                            )?);
                        } else {
                            out.extend(self.list_additions(&n, m, f, depth + 1)?);
                        }
                    }
                    Some(out)
                })
                .or_else(|| self.bound_elements(e, env, depth + 1))?,
            ExprKind::Call { callee, args }
                if last_segment(callee) == Some("getmembers")
                    && self.eval(callee, env, 0).is_none_or(
                        |v| matches!(v, Val::Module(ref p) if p == "inspect.getmembers"),
                    ) =>
            {
                let first = args.first().filter(|a| a.name.is_none() && !a.spread)?;
                self.class_members(&first.value, "getmembers", env, depth + 1)?
            }
            ExprKind::Call { callee, args } => self.call_elements(callee, args, env, depth + 1)?,
            ExprKind::Comprehension {
                elements, clauses, ..
            } => {
                // `[(f, n) for f, n, ro in SPECS if ro]`: the loop variables projected; the
                // condition is ignored (a superset).
                let ([elt], [(target, iter)]) = (elements.as_slice(), clauses.as_slice()) else {
                    return None;
                };
                let mut out = Vec::new();
                for (el, em, ef) in self.literal_elements(iter, env, depth + 1)? {
                    let mut subst = Vec::new();
                    bind_element(target, &el, em, ef, &mut subst);
                    out.push(project(elt, &subst)?);
                }
                out
            }
            ExprKind::Index { value, index } => {
                let mut out = Vec::new();
                for (v, m, f) in self.indexed(value, index, env)? {
                    out.extend(self.literal_elements(&v, Env { m, f, subst: &[] }, depth + 1)?);
                }
                out
            }
            ExprKind::Binary { op, left, right } if op == "+" => {
                let mut out = self.literal_elements(left, env, depth + 1)?;
                out.extend(self.literal_elements(right, env, depth + 1)?);
                out
            }
            ExprKind::Conditional { body, orelse, .. } => {
                let mut out = self.literal_elements(body, env, depth + 1)?;
                out.extend(self.literal_elements(orelse, env, depth + 1)?);
                out
            }
            _ => return None,
        };
        (out.len() <= MAX_UNROLL).then_some(out)
    }

    /// Every value a local is assigned in the nearest scope that binds it (or the module it is
    /// imported from), as one union; a self-referential assignment (`xs = keep(xs)`) adds
    /// nothing while it is being evaluated.
    fn bound_elements(&self, e: &Expr, env: Env, depth: usize) -> Option<Vec<Elem>> {
        let ExprKind::Name(n) = &e.kind else {
            return None;
        };
        let mut f = env.f;
        loop {
            let values: Vec<&'a Expr> = self.with_binds(env.m, f, n, |binds| {
                binds
                    .iter()
                    .filter_map(|b| match b {
                        Bind::Value(x) => Some(*x),
                        _ => None,
                    })
                    .collect()
            });
            let bound = self.with_binds(env.m, f, n, |binds| !binds.is_empty());
            if bound {
                let key = (env.m, f, n.clone());
                if self.set_visiting.borrow().contains(&key) {
                    return Some(Vec::new());
                }
                if values.is_empty() {
                    return None;
                }
                self.set_visiting.borrow_mut().push(key);
                let inner = Env {
                    m: env.m,
                    f,
                    subst: if f == env.f { env.subst } else { &[] },
                };
                let mut out = Some(Vec::new());
                for x in values {
                    match (self.literal_elements(x, inner, depth + 1), out.as_mut()) {
                        (Some(xs), Some(acc)) => acc.extend(xs),
                        _ => {
                            out = None;
                            break;
                        }
                    }
                }
                if let Some(acc) = out.as_mut() {
                    // Bound by this call (see `literal_elements`): not cached.
                    let more = if f == env.f && !env.subst.is_empty() {
                        self.list_additions_uncached(n, env.m, f, env.subst, depth + 1)
                    } else {
                        self.list_additions(n, env.m, f, depth + 1)
                    };
                    match more {
                        Some(more) => acc.extend(more),
                        None => out = None,
                    }
                }
                self.set_visiting.borrow_mut().pop();
                return out;
            }
            if f == Module::TOP_LEVEL {
                break;
            }
            let func = self.func(env.m, f)?;
            if func.params.iter().any(|p| &p.name == n) {
                return None;
            }
            f = func.parent.unwrap_or(Module::TOP_LEVEL);
        }
        let md = &self.mods[env.m];
        let imp = md.imports.iter().rev().find(|i| &i.local == n)?;
        let sym = imp.symbol.as_deref().filter(|s| *s != "*")?;
        let mi = self.module_idx(&imp.module)?;
        let name = Expr::new(ExprKind::Name(sym.to_string()), e.span);
        let inner = Env {
            m: mi,
            f: Module::TOP_LEVEL,
            subst: &[],
        };
        self.literal_elements(&name, inner, depth + 1)
    }

    /// The name a local or imported name `e` has in module `m`, where its binding was found.
    fn name_at(&self, e: &Expr, env: Env, m: usize) -> Option<String> {
        let ExprKind::Name(n) = &e.kind else {
            return None;
        };
        if m == env.m {
            return Some(n.clone());
        }
        let md = &self.mods[env.m];
        let imp = md.imports.iter().rev().find(|i| &i.local == n)?;
        imp.symbol.clone()
    }

    /// Elements added to the list `name` bound in scope `(m, f)` after its literal:
    /// `name.append(x)`, `.add(x)`, `.insert(i, x)`, `.extend(xs)`, `name += xs`, in that
    /// scope (and, for a module-level list, in any function of the module that does not bind
    /// its own `name`). `None` when an addition cannot be followed (a collection computed at
    /// run time): the loop then stays a gap. A parameter appended by a registry decorator is
    /// kept as that function's parameter (see [`Handler::Param`]).
    fn list_additions(&self, name: &str, m: usize, f: FuncId, depth: usize) -> Option<Vec<Elem>> {
        let key = (m, f, name.to_string());
        if let Some(hit) = self.additions.borrow().get(&key) {
            return hit.clone();
        }
        // A cycle through the list's own additions adds nothing while it is being computed.
        self.additions
            .borrow_mut()
            .insert(key.clone(), Some(Vec::new()));
        let out = self.list_additions_uncached(name, m, f, &[], depth);
        self.additions.borrow_mut().insert(key, out.clone());
        out
    }

    fn list_additions_uncached(
        &self,
        name: &str,
        m: usize,
        f: FuncId,
        subst: &[Subst],
        depth: usize,
    ) -> Option<Vec<Elem>> {
        let md = self.mods.get(m)?;
        let scopes: Vec<FuncId> = if f == Module::TOP_LEVEL {
            (0..md.functions.len())
                .filter(|&g| g == f || self.with_binds(m, g, name, |b| b.is_empty()))
                .collect()
        } else {
            vec![f]
        };
        let mut out = Vec::new();
        for g in scopes {
            let func = &md.functions[g];
            let genv = Env {
                m,
                f: g,
                subst: if g == f { subst } else { &[] },
            };
            // Additions inside a loop over a followed collection, one per element the loop's
            // guards keep, rebuilt with the element bound; the rest as written.
            let mut unrolled: Vec<(usize, usize)> = Vec::new();
            out.extend(self.unrolled_additions(
                name,
                &func.body,
                genv,
                depth + 1,
                &mut unrolled,
            )?);
            let mut ok = true;
            walk_stmts(&func.body, &mut |st| {
                if !ok
                    || unrolled
                        .iter()
                        .any(|&(a, b)| a <= st.span.start_byte && st.span.end_byte <= b)
                {
                    return;
                }
                let is_name = |x: &Expr| matches!(&x.kind, ExprKind::Name(k) if k == name);
                match &st.kind {
                    StmtKind::Expr(x) => {
                        let ExprKind::Call { callee, args } = &x.kind else {
                            return;
                        };
                        let ExprKind::Attribute { value, attr } = &callee.kind else {
                            return;
                        };
                        if !is_name(value) {
                            return;
                        }
                        let positional: Vec<&Expr> = args
                            .iter()
                            .filter(|a| a.name.is_none() && !a.spread)
                            .map(|a| &a.value)
                            .collect();
                        match (attr.as_str(), positional.as_slice()) {
                            // A parameter appended (`def collect(fn): TOOLS.append(fn)`) stays
                            // a parameter of `g`: a loop registering it makes `g` a registration
                            // wrapper, whose uses are the sites (unresolved ones are gaps).
                            ("append" | "add", [x]) | ("insert", [_, x]) => {
                                out.push(((*x).clone(), m, g));
                            }
                            ("extend" | "update", [xs]) => {
                                match self.literal_elements(xs, genv, depth + 1) {
                                    Some(more) => out.extend(more),
                                    None => ok = false,
                                }
                            }
                            _ => {}
                        }
                    }
                    // `REGISTRY["x"] = handler`: a key of a dict iterated over.
                    StmtKind::Assign { targets, .. } => {
                        for t in targets {
                            if let ExprKind::Index { value, index } = &t.kind
                                && is_name(value)
                            {
                                out.push(((**index).clone(), m, g));
                            }
                        }
                    }
                    StmtKind::AugAssign { target, value, .. } if is_name(target) => {
                        match self.literal_elements(value, genv, depth + 1) {
                            Some(more) => out.extend(more),
                            None => ok = false,
                        }
                    }
                    _ => {}
                }
            });
            if !ok {
                return None;
            }
        }
        Some(out)
    }

    /// What a call yields: the union of what each tree function it may call returns (its
    /// parameters bound to the arguments), or the argument of a builtin that only reorders or
    /// filters it.
    fn call_elements(
        &self,
        callee: &Expr,
        args: &[Arg],
        env: Env,
        depth: usize,
    ) -> Option<Vec<Elem>> {
        if let ExprKind::Name(n) = &callee.kind
            && let Some(pos) = PASS_THROUGH.iter().find(|(b, _)| b == n).map(|(_, p)| *p)
            && self.eval(callee, env, 0).is_none()
        {
            let a = args
                .iter()
                .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords)
                .nth(pos)?;
            return self.literal_elements(&a.value, env, depth + 1);
        }
        let mut out = Vec::new();
        for (fm, ff) in self.callees(callee, env, depth + 1)? {
            let func = self.func(fm, ff)?;
            let mut subst = Vec::new();
            let positional = args
                .iter()
                .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords);
            let params = func.params.iter().filter(|p| !(p.variadic || p.keywords));
            let skip = usize::from(
                func.class.is_some() && matches!(callee.kind, ExprKind::Attribute { .. }),
            );
            for (p, a) in params.skip(skip).zip(positional) {
                subst.push(bound_arg(&p.name, &a.value, env));
            }
            for a in args {
                if let Some(n) = &a.name
                    && func.params.iter().any(|p| &p.name == n)
                {
                    subst.push(bound_arg(n, &a.value, env));
                }
            }
            let mut rets: Vec<&'a Expr> = Vec::new();
            let mut yields = false;
            walk_stmts(&func.body, &mut |s| match &s.kind {
                StmtKind::Return(Some(r)) => rets.push(r),
                StmtKind::Expr(x) if matches!(&x.kind, ExprKind::Unknown(t) if t.starts_with("yield")) => {
                    yields = true
                }
                _ => {}
            });
            if rets.is_empty() || yields {
                return None;
            }
            let fenv = Env {
                m: fm,
                f: ff,
                subst: &subst,
            };
            for r in rets {
                out.extend(self.literal_elements(r, fenv, depth + 1)?);
                if out.len() > MAX_UNROLL {
                    return None;
                }
            }
        }
        Some(out)
    }

    /// The tree functions a callee may be: one it resolves to, or every value of a literal
    /// dict it is looked up in (`HANDLERS[kind]`, the key unknown), through local names.
    fn callees(&self, callee: &Expr, env: Env, depth: usize) -> Option<Vec<(usize, FuncId)>> {
        if depth > MAX_SET_DEPTH {
            return None;
        }
        if let Some(Val::Func(m, f)) = self.eval(callee, env, 0) {
            return Some(vec![(m, f)]);
        }
        match &callee.kind {
            ExprKind::Name(n) => {
                if let Some((v, inner)) = env.bound(n) {
                    return self.callees(v, inner, depth + 1);
                }
                let is_index = |x: &Expr| matches!(x.kind, ExprKind::Index { .. });
                let (x, m, f) = self.binding_where(callee, env, &is_index, 0)?;
                let inner = Env {
                    m,
                    f,
                    subst: if m == env.m && f == env.f {
                        env.subst
                    } else {
                        &[]
                    },
                };
                self.callees(x, inner, depth + 1)
            }
            ExprKind::Index { value, index } => {
                let mut out = Vec::new();
                for (v, m, f) in self.indexed(value, index, env)? {
                    out.extend(self.callees(&v, Env { m, f, subst: &[] }, depth + 1)?);
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// `D[k]` with `D` a literal dict: the value under a constant key, else every value.
    fn indexed(&self, value: &Expr, index: &Expr, env: Env) -> Option<Vec<Elem>> {
        let (items, m, f) = self.literal_dict(value, env, 0)?;
        let denv = Env { m, f, subst: &[] };
        if let Some(key) = self.const_of(index, env, 0) {
            let hit: Vec<Elem> = items
                .iter()
                .filter(|(k, _)| {
                    k.as_ref()
                        .and_then(|k| self.const_of(k, denv, 0))
                        .as_deref()
                        == Some(key.as_str())
                })
                .map(|(_, v)| (v.clone(), m, f))
                .collect();
            if !hit.is_empty() {
                return Some(hit);
            }
        }
        // `**OTHER` spread into the literal is not followed here.
        if items.iter().any(|(k, _)| k.is_none()) {
            return None;
        }
        Some(items.into_iter().map(|(_, v)| (v, m, f)).collect())
    }

    fn literal_dict(&self, e: &Expr, env: Env, depth: usize) -> Option<(DictItems, usize, FuncId)> {
        match &e.kind {
            ExprKind::Dict(items) => Some((items.clone(), env.m, env.f)),
            ExprKind::Name(_) | ExprKind::Attribute { .. } if depth < 6 => {
                let (x, m, f) = self.literal_binding(e, env, depth + 1)?;
                let (mut items, im, ifn) =
                    self.literal_dict(x, Env { m, f, subst: &[] }, depth + 1)?;
                if let ExprKind::Name(n) = &e.kind {
                    self.dict_additions(n, m, f, &mut items);
                }
                Some((items, im, ifn))
            }
            _ => None,
        }
    }

    /// Entries added to a dict after its literal, in the scope that binds it:
    /// `NAME.update({...})`, `NAME.update(k=v)`, `NAME[k] = v`.
    fn dict_additions(&self, name: &str, m: usize, f: FuncId, items: &mut DictItems) {
        let Some(func) = self.func(m, f) else {
            return;
        };
        let is_name = |x: &Expr| matches!(&x.kind, ExprKind::Name(k) if k == name);
        walk_stmts(&func.body, &mut |st| match &st.kind {
            StmtKind::Expr(x) => {
                if let ExprKind::Call { callee, args } = &x.kind
                    && let ExprKind::Attribute { value, attr } = &callee.kind
                    && attr == "update"
                    && is_name(value)
                {
                    for a in args {
                        match (&a.name, &a.value.kind) {
                            (None, ExprKind::Dict(more)) => items.extend(more.iter().cloned()),
                            (Some(k), _) => items.push((
                                Some(Expr::new(ExprKind::Str(k.clone()), a.value.span)),
                                a.value.clone(),
                            )),
                            _ => {}
                        }
                    }
                }
            }
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    if let ExprKind::Index { value: obj, index } = &t.kind
                        && is_name(obj)
                    {
                        items.push((Some((**index).clone()), value.clone()));
                    }
                }
            }
            _ => {}
        });
    }

    /// The literal a name is assigned (`TOOLS = [a, b]`), here, in an enclosing scope, or in
    /// the module it is imported from.
    fn literal_binding(
        &self,
        e: &Expr,
        env: Env,
        depth: usize,
    ) -> Option<(&'a Expr, usize, FuncId)> {
        let is_lit = |x: &Expr| {
            matches!(
                x.kind,
                ExprKind::List(_)
                    | ExprKind::Tuple(_)
                    | ExprKind::Set(_)
                    | ExprKind::Dict(_)
                    | ExprKind::Name(_)
                    | ExprKind::Attribute { .. }
            )
        };
        self.binding_where(e, env, &is_lit, depth)
    }

    /// The last expression assigned to a name that satisfies `pred`, in this scope, an enclosing
    /// one, or the module it is imported from.
    fn binding_where(
        &self,
        e: &Expr,
        env: Env,
        is_lit: &dyn Fn(&Expr) -> bool,
        depth: usize,
    ) -> Option<(&'a Expr, usize, FuncId)> {
        if depth > 6 {
            return None;
        }
        match &e.kind {
            ExprKind::Name(n) => {
                let mut f = env.f;
                loop {
                    let hit = self.with_binds(env.m, f, n, |binds| {
                        binds.iter().rev().find_map(|b| match b {
                            Bind::Value(x) if is_lit(x) => Some(*x),
                            _ => None,
                        })
                    });
                    if let Some(x) = hit {
                        if matches!(&x.kind, ExprKind::Name(k) if k == n) {
                            return None;
                        }
                        return Some((x, env.m, f));
                    }
                    if f == Module::TOP_LEVEL {
                        break;
                    }
                    f = self.func(env.m, f)?.parent.unwrap_or(Module::TOP_LEVEL);
                }
                let md = &self.mods[env.m];
                let imp = md.imports.iter().rev().find(|i| &i.local == n)?;
                let sym = imp.symbol.as_deref()?;
                let mi = self.module_idx(&imp.module)?;
                let name = Expr::new(ExprKind::Name(sym.to_string()), e.span);
                let (x, m, f) = self.binding_where(
                    &name,
                    Env {
                        m: mi,
                        f: Module::TOP_LEVEL,
                        subst: &[],
                    },
                    is_lit,
                    depth + 1,
                )?;
                Some((x, m, f))
            }
            _ => None,
        }
    }

    // ------------------------------------------------------------------ introspected members

    /// The members of a tree class a loop enumerates (`cls.__dict__.items()`,
    /// `vars(cls).items()`, `inspect.getmembers(cls)`; `.keys()`/`.values()` for names or
    /// members): each method as `(name, <class expr>.name)`, written where the class
    /// expression is, so a loop variable bound to one of several classes yields each one's
    /// members. Names the class body assigns are members too (a handler stored as an
    /// attribute). `None` when the object is not a tree class (or instance) the resolver knows.
    fn class_members(&self, obj: &Expr, how: &str, env: Env, depth: usize) -> Option<Vec<Elem>> {
        if depth > MAX_SET_DEPTH {
            return None;
        }
        // `cls.__dict__` / `vars(cls)`; `getmembers` takes the object itself.
        let cls = if how == "getmembers" {
            obj
        } else {
            match &obj.kind {
                ExprKind::Attribute { value, attr } if attr == "__dict__" => value.as_ref(),
                ExprKind::Call { callee, args }
                    if matches!(&callee.kind, ExprKind::Name(n) if n == "vars")
                        && self.eval(callee, env, 0).is_none() =>
                {
                    &args
                        .first()
                        .filter(|a| a.name.is_none() && !a.spread)?
                        .value
                }
                _ => return None,
            }
        };
        // Follow a loop variable or bound parameter to where the class expression is written.
        let (mut cexpr, mut cenv) = (cls, env);
        while let ExprKind::Name(n) = &cexpr.kind {
            let Some((v, inner)) = cenv.bound(n) else {
                break;
            };
            (cexpr, cenv) = (v, inner);
        }
        let (cm, class, with_bases) = match self.eval(cexpr, cenv, depth + 1)? {
            Val::Class(cm, c) => (cm, c, how == "getmembers"),
            Val::Instance(cm, c, _) => (cm, c, how == "getmembers"),
            _ => return None,
        };
        let mut names: Vec<String> = Vec::new();
        let mut classes = vec![(cm, class)];
        let mut visited = 0;
        while let Some((km, kc)) = classes.pop() {
            visited += 1;
            if visited > 8 {
                return None;
            }
            let md = &self.mods[km];
            let c = md.classes.iter().find(|c| c.name == kc)?;
            for &meth in &c.methods {
                names.push(md.functions[meth].name.clone());
            }
            for (fi, f) in md.functions.iter().enumerate() {
                if f.name == "<body>" && f.class.as_deref() == Some(kc.as_str()) {
                    let mut binds = HashMap::new();
                    collect_binds(&md.functions[fi].body, &mut binds);
                    for (n, bs) in binds {
                        if bs.iter().any(|b| matches!(b, Bind::Value(_))) && !n.starts_with("__") {
                            names.push(n.to_string());
                        }
                    }
                }
            }
            if with_bases {
                let outer = Env {
                    m: km,
                    f: Module::TOP_LEVEL,
                    subst: &[],
                };
                for b in &c.bases {
                    let base = b.split('[').next().unwrap_or(b);
                    if let Some(Val::Class(bm, bc)) = self.eval_dotted(base, outer, depth + 1) {
                        classes.push((bm, bc));
                    }
                }
            }
        }
        names.sort();
        names.dedup();
        let span = obj.span;
        let out: Vec<Elem> = names
            .into_iter()
            .map(|n| {
                let name = Expr::new(ExprKind::Str(n.clone()), span);
                let member = Expr::new(
                    ExprKind::Attribute {
                        value: Box::new(cexpr.clone()),
                        attr: n,
                    },
                    span,
                );
                let x = match how {
                    "keys" => name,
                    "values" => member,
                    _ => Expr::new(ExprKind::Tuple(vec![name, member]), span),
                };
                (x, cenv.m, cenv.f)
            })
            .collect();
        (out.len() <= MAX_UNROLL).then_some(out)
    }

    /// Additions to the list `name` inside `for` loops of `stmts` whose collection is
    /// followed: the loop unrolled, each element bound, the elements its guards
    /// (`if not keep(n): continue`) reject dropped, and each added value rebuilt with the
    /// element in it ([`Resolver::rebuild`]). The byte ranges of the loops handled are pushed on
    /// `unrolled`; a loop whose added value cannot be rebuilt is left to the caller as written.
    fn unrolled_additions(
        &self,
        name: &str,
        stmts: &'a [Stmt],
        env: Env,
        depth: usize,
        unrolled: &mut Vec<(usize, usize)>,
    ) -> Option<Vec<Elem>> {
        let mut out = Vec::new();
        if depth > MAX_SET_DEPTH {
            return Some(out);
        }
        for st in stmts {
            if let StmtKind::For {
                target, iter, body, ..
            } = &st.kind
                && adds_to(body, name)
                && let Some(elems) = self.literal_elements(iter, env, depth + 1)
            {
                let mut got = Vec::new();
                let mut ok = true;
                for (el, em, ef) in &elems {
                    let mut subst = env.subst.to_vec();
                    bind_element(target, el, *em, *ef, &mut subst);
                    let inner = Env {
                        m: env.m,
                        f: env.f,
                        subst: &subst,
                    };
                    if self.guard_skips(body, inner) {
                        continue;
                    }
                    let (mut added, mut extended) = (Vec::new(), Vec::new());
                    appended_values(body, name, &mut added, &mut extended);
                    for x in added {
                        match self.rebuild(x, body, inner, 0) {
                            Some(e) => got.push(e),
                            None => ok = false,
                        }
                    }
                    for xs in extended {
                        match self.literal_elements(xs, inner, depth + 1) {
                            Some(more) => got.extend(more),
                            None => ok = false,
                        }
                    }
                }
                if ok {
                    out.extend(got);
                    unrolled.push((st.span.start_byte, st.span.end_byte));
                }
                continue;
            }
            for b in stmt_blocks(st) {
                out.extend(self.unrolled_additions(name, b, env, depth + 1, unrolled)?);
            }
        }
        Some(out)
    }

    /// Whether a loop body's leading guard (`if <test>: continue`) rejects the element bound
    /// in `env`: the test folds to true.
    fn guard_skips(&self, body: &[Stmt], env: Env) -> bool {
        for st in body {
            match &st.kind {
                StmtKind::If { test, then, orelse }
                    if orelse.is_empty()
                        && matches!(then.as_slice(), [x] if matches!(x.kind, StmtKind::Continue)) =>
                {
                    if self.fold_bool(test, env, 0) == Some(true) {
                        return true;
                    }
                }
                // Assignments before the guard are what it reads.
                StmtKind::Assign { .. } | StmtKind::Expr(_) => {}
                _ => return false,
            }
        }
        false
    }

    /// A condition on constant strings, three-valued: `s.startswith(p)`, `==`/`!=`, `in` a
    /// literal, `not`, `and`/`or`, and a tree predicate returning such a condition with its
    /// parameters bound; `None` when unknown.
    fn fold_bool(&self, e: &Expr, env: Env, depth: usize) -> Option<bool> {
        if depth > 8 {
            return None;
        }
        match &e.kind {
            ExprKind::Bool(b) => Some(*b),
            ExprKind::Unary { op, operand } if op == "not" => {
                self.fold_bool(operand, env, depth + 1).map(|b| !b)
            }
            ExprKind::Binary { op, left, right } if op == "and" || op == "or" => {
                let l = self.fold_bool(left, env, depth + 1);
                let r = self.fold_bool(right, env, depth + 1);
                let and = op == "and";
                match (l, r) {
                    (Some(x), _) | (_, Some(x)) if x != and => Some(x),
                    (Some(x), Some(y)) => Some(if and { x && y } else { x || y }),
                    _ => None,
                }
            }
            ExprKind::Binary { op, left, right } if op == "==" || op == "!=" => {
                let l = self.fold_str(left, env, depth + 1)?;
                let r = self.fold_str(right, env, depth + 1)?;
                Some((l == r) == (op == "=="))
            }
            ExprKind::Call { callee, args } => {
                if let ExprKind::Attribute { value, attr } = &callee.kind
                    && matches!(attr.as_str(), "startswith" | "endswith")
                    && let [a] = args.as_slice()
                    && a.name.is_none()
                {
                    let base = self.fold_str(value, env, depth + 1)?;
                    let pats: Vec<String> = match &a.value.kind {
                        ExprKind::Tuple(xs) => xs
                            .iter()
                            .map(|x| self.fold_str(x, env, depth + 1))
                            .collect::<Option<_>>()?,
                        _ => vec![self.fold_str(&a.value, env, depth + 1)?],
                    };
                    let hit = pats.iter().any(|p| {
                        if attr == "startswith" {
                            base.starts_with(p.as_str())
                        } else {
                            base.ends_with(p.as_str())
                        }
                    });
                    return Some(hit);
                }
                // A tree predicate: its single return folded with the arguments bound.
                let Some(Val::Func(fm, ff)) = self.eval(callee, env, 0) else {
                    return None;
                };
                let func = self.func(fm, ff)?;
                let mut subst = Vec::new();
                let positional = args
                    .iter()
                    .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords);
                for (p, a) in func.params.iter().zip(positional) {
                    subst.push(bound_arg(&p.name, &a.value, env));
                }
                let ret = sole_return(&func.body)?;
                let fenv = Env {
                    m: fm,
                    f: ff,
                    subst: &subst,
                };
                self.fold_bool(ret, fenv, depth + 1)
            }
            _ => None,
        }
    }

    /// The value a loop body adds, rebuilt so that it reads only the loop's element and
    /// constants: locals the body assigns are replaced by their values, constant strings
    /// folded, `f.__func__` is `f`, and a record built by keywords (`dict(name=..., fn=...)`,
    /// a `TypedDict` or other tree class called with keywords only) becomes a dict literal.
    /// Everything it still reads must come from one place (where the element is written).
    fn rebuild(&self, x: &Expr, body: &[Stmt], env: Env, depth: usize) -> Option<Elem> {
        fn go(
            r: &Resolver,
            x: &Expr,
            body: &[Stmt],
            env: Env,
            depth: usize,
            at: &mut Option<(usize, FuncId)>,
        ) -> Option<Expr> {
            if depth > 8 {
                return None;
            }
            if !matches!(x.kind, ExprKind::Dict(_) | ExprKind::Call { .. })
                && let Some(s) = r.fold_str(x, env, 0)
            {
                return Some(Expr::new(ExprKind::Str(s), x.span));
            }
            match &x.kind {
                ExprKind::Name(n) => {
                    if let Some(s) = env.subst.iter().rev().find(|s| &s.name == n) {
                        if at.is_some_and(|a| a != (s.module, s.func)) {
                            return None;
                        }
                        *at = Some((s.module, s.func));
                        return Some(s.value.clone());
                    }
                    let mut assigned = None;
                    for st in body {
                        if let StmtKind::Assign { targets, value } = &st.kind
                            && targets
                                .iter()
                                .any(|t| matches!(&t.kind, ExprKind::Name(k) if k == n))
                        {
                            assigned = Some(value);
                        }
                    }
                    go(r, assigned?, body, env, depth + 1, at)
                }
                ExprKind::Attribute { value, attr } if attr == "__func__" => {
                    go(r, value, body, env, depth + 1, at)
                }
                ExprKind::Attribute { value, attr } => Some(Expr::new(
                    ExprKind::Attribute {
                        value: Box::new(go(r, value, body, env, depth + 1, at)?),
                        attr: attr.clone(),
                    },
                    x.span,
                )),
                ExprKind::Call { callee, args }
                    if !args.is_empty()
                        && args.iter().all(|a| a.name.is_some())
                        && match r.eval(callee, env, 0) {
                            Some(Val::Class(..)) => true,
                            None => matches!(&callee.kind, ExprKind::Name(n) if n == "dict"),
                            _ => false,
                        } =>
                {
                    let mut items = Vec::new();
                    for a in args {
                        let key = Expr::new(ExprKind::Str(a.name.clone()?), a.value.span);
                        items.push((Some(key), go(r, &a.value, body, env, depth + 1, at)?));
                    }
                    Some(Expr::new(ExprKind::Dict(items), x.span))
                }
                ExprKind::Dict(items) => {
                    let mut out = Vec::new();
                    for (k, v) in items {
                        let k = match k {
                            Some(k) => Some(go(r, k, body, env, depth + 1, at)?),
                            None => return None,
                        };
                        out.push((k, go(r, v, body, env, depth + 1, at)?));
                    }
                    Some(Expr::new(ExprKind::Dict(out), x.span))
                }
                ExprKind::Tuple(xs) | ExprKind::List(xs) => {
                    let xs = xs
                        .iter()
                        .map(|e| go(r, e, body, env, depth + 1, at))
                        .collect::<Option<Vec<_>>>()?;
                    Some(Expr::new(ExprKind::Tuple(xs), x.span))
                }
                ExprKind::Str(_) | ExprKind::Number(_) | ExprKind::Bool(_) | ExprKind::Null => {
                    Some(x.clone())
                }
                _ => None,
            }
        }
        let mut at = None;
        let e = go(self, x, body, env, depth, &mut at)?;
        let (m, f) = at?;
        Some((e, m, f))
    }

    /// A slice bound written as text: an integer, `-k`, a constant name or `len(<constant>)`.
    fn fold_int(&self, text: &str, env: Env, depth: usize) -> Option<i64> {
        if depth > 8 {
            return None;
        }
        let t = text.trim();
        if let Ok(v) = t.parse::<i64>() {
            return Some(v);
        }
        if let Some(rest) = t.strip_prefix('-') {
            return self.fold_int(rest, env, depth + 1).map(|v| -v);
        }
        let span = Span::default();
        if let Some(inner) = t.strip_prefix("len(").and_then(|r| r.strip_suffix(')')) {
            let inner = inner.trim();
            if !is_identifier(inner) {
                return None;
            }
            let e = Expr::new(ExprKind::Name(inner.to_string()), span);
            return self
                .fold_str(&e, env, depth + 1)
                .map(|s| s.chars().count() as i64);
        }
        if !is_identifier(t) {
            return None;
        }
        let e = Expr::new(ExprKind::Name(t.to_string()), span);
        let (x, inner) = self.name_value(&e, t, env)?;
        match &x.kind {
            ExprKind::Number(v) => v.parse().ok(),
            ExprKind::Call { callee, args }
                if matches!(&callee.kind, ExprKind::Name(n) if n == "len") && args.len() == 1 =>
            {
                self.fold_str(&args[0].value, inner, depth + 1)
                    .map(|s| s.chars().count() as i64)
            }
            ExprKind::Name(n) => self.fold_int(&n.clone(), inner, depth + 1),
            _ => None,
        }
    }

    /// `rec["key"]` where `rec` is (bound to) a dict literal with a constant key: the value
    /// and where it is read.
    fn dict_entry<'s>(
        &self,
        value: &Expr,
        index: &Expr,
        env: Env<'s>,
    ) -> Option<(&'s Expr, Env<'s>)>
    where
        'a: 's,
    {
        let key = self.const_of(index, env, 0)?;
        let ExprKind::Name(n) = &value.kind else {
            return None;
        };
        let (d, inner) = env.bound(n)?;
        let ExprKind::Dict(items) = &d.kind else {
            return None;
        };
        items.iter().find_map(|(k, v)| {
            let k = k.as_ref()?;
            (k.as_str() == Some(key.as_str())).then_some((v, inner))
        })
    }

    fn decorators(&mut self, m: usize, f: FuncId) {
        let mods = self.mods;
        let md = &mods[m];
        let func = &md.functions[f];
        if func.decorators.is_empty() {
            return;
        }
        let env = Env {
            m,
            f: func.parent.unwrap_or(Module::TOP_LEVEL),
            subst: &[],
        };
        for d in &func.decorators {
            if let Some((kind, args)) = self.standalone_marker(d, env) {
                self.out.registration_sites += 1;
                self.standalone.push(StandaloneMark {
                    module: m,
                    func: f,
                    span: d.span,
                    decorator: text_of(d),
                    kind,
                    args,
                });
                continue;
            }
            if self.mixin_marker(d, env).is_some() {
                self.out.registration_sites += 1;
                self.marked.push((m, f, d.span, text_of(d)));
                continue;
            }
            if let Some(what) = self.unmodelled_framework_decorator(d, env) {
                self.out.registration_sites += 1;
                self.gap(
                    m,
                    d.span,
                    format!(
                        "`@{}` on `{}` is a registration decorator from the MCP framework (`{what}`) that the analyzer does not model",
                        text_of(d),
                        func.name
                    ),
                );
                continue;
            }
            let v = self.eval(d, env, 0);
            match v {
                Some(Val::Decorator {
                    style: ServerStyle::Decorator,
                    method,
                    args,
                    module,
                    server,
                }) => {
                    let Some(reg) = self.fw.registration(&method) else {
                        continue;
                    };
                    self.out.registration_sites += 1;
                    let (kind, positional) = (reg.kind, reg.positional);
                    self.add_entry(kind, positional, &args, module, m, f, d.span, &server, &[]);
                }
                Some(Val::Method {
                    style: ServerStyle::Decorator,
                    method,
                    server,
                }) => {
                    // `@mcp.tool` without parentheses.
                    let Some(reg) = self.fw.registration(&method).filter(|r| !r.imperative) else {
                        continue;
                    };
                    self.out.registration_sites += 1;
                    let (kind, positional) = (reg.kind, reg.positional);
                    self.add_entry(kind, positional, &[], m, m, f, d.span, &server, &[]);
                }
                Some(Val::Decorator {
                    style: ServerStyle::LowLevel,
                    method,
                    server,
                    ..
                }) if self.fw.low_level.dispatcher_methods.contains(&method) => {
                    self.out.registration_sites += 1;
                    self.check_dispatcher(m, f, d.span, &server);
                }
                Some(Val::Func(wm, wf)) if self.wrappers.contains_key(&(wm, wf)) => {
                    let Some(w) = self.wrappers.get(&(wm, wf)).cloned() else {
                        continue;
                    };
                    self.used_wrappers.insert((wm, wf));
                    self.out.registration_sites += 1;
                    // `@tool("x")` with `def tool(name): def deco(fn): ...name=name...`: the
                    // name is the factory's argument.
                    let extra = match &d.kind {
                        ExprKind::Call { callee, args } => {
                            match (self.eval(callee, env, 0), self.func(wm, wf)) {
                                (Some(Val::Func(fm, ff)), Some(wfn))
                                    if fm == wm && wfn.parent == Some(ff) =>
                                {
                                    self.wrapper_names(&w, fm, ff, args, env)
                                }
                                _ => Vec::new(),
                            }
                        }
                        _ => Vec::new(),
                    };
                    self.wrapper_entry(&w, m, f, d.span, &extra);
                }
                None => {
                    let inner = match &d.kind {
                        ExprKind::Call { callee, .. } => callee.as_ref(),
                        _ => d,
                    };
                    if let ExprKind::Attribute { value, attr } = &inner.kind
                        && self.fw.registration(attr).is_some_and(|r| !r.imperative)
                        && self.may_register(value, env)
                    {
                        self.out.registration_sites += 1;
                        self.gap(
                            m,
                            d.span,
                            format!(
                                "`@{}.{attr}` on `{}`: `{}` could not be resolved to an MCP server",
                                text_of(value),
                                func.name,
                                text_of(value)
                            ),
                        );
                    }
                }
                _ => {}
            }
        }
    }

    /// A mixin marker decorator (`@mcp_tool(name="x")`): what it registers and its arguments.
    fn mixin_marker(&self, d: &Expr, env: Env) -> Option<(EntityKind, Vec<Arg>)> {
        let mx = self.fw.mixin.as_ref()?;
        let (path, args) = self.external_decorator(d, env)?;
        let root = path.split('.').next().unwrap_or(&path);
        if !mx.packages.iter().any(|p| p == root) {
            return None;
        }
        let last = path.rsplit('.').next().unwrap_or(&path);
        let kind = mx.markers.iter().find(|(n, _)| n == last)?.1;
        Some((kind, args))
    }

    /// A standalone component decorator (`@tool()` from `fastmcp.tools`): what it marks and its
    /// arguments.
    fn standalone_marker(&self, d: &Expr, env: Env) -> Option<(EntityKind, Vec<Arg>)> {
        let sa = self.fw.standalone.as_ref()?;
        let (path, args) = self.external_decorator(d, env)?;
        let kind = sa.markers.iter().find(|(p, _)| *p == path)?.1;
        Some((kind, args))
    }

    /// A decorator (`@x` or `@x(...)`) naming something outside the tree: its dotted path and
    /// its arguments.
    fn external_decorator(&self, d: &Expr, env: Env) -> Option<(String, Vec<Arg>)> {
        let (head, args) = match &d.kind {
            ExprKind::Call { callee, args } => (callee.as_ref(), args.clone()),
            _ => (d, Vec::new()),
        };
        if !matches!(head.kind, ExprKind::Name(_) | ExprKind::Attribute { .. }) {
            return None;
        }
        let Some(Val::Module(path)) = self.eval(head, env, 0) else {
            return None;
        };
        if self.module_idx(&path).is_some() {
            return None;
        }
        Some((path, args))
    }

    /// Serves each standalone-marked function through the providers whose folder holds its
    /// file; one no provider of a resolved server serves (and no `add_tool` registered) is a gap.
    fn serve_standalone(&mut self) {
        let marks = std::mem::take(&mut self.standalone);
        if marks.is_empty() {
            return;
        }
        let uses = self.provider_uses();
        let mods = self.mods;
        for mk in marks {
            let md = &mods[mk.module];
            let func = &md.functions[mk.func];
            let file = md.path.rsplit('/').next().unwrap_or(&md.path);
            let serving: Vec<&ProviderUse> = uses
                .iter()
                .filter(|u| {
                    u.root.is_empty()
                        || md
                            .path
                            .strip_prefix(u.root.as_str())
                            .is_some_and(|r| r.starts_with('/'))
                })
                .collect();
            // The provider imports the file and serves its public module-level functions.
            let served = func.parent.is_none()
                && func.class.is_none()
                && !func.name.starts_with('_')
                && file != "__init__.py";
            if served && !serving.is_empty() {
                for u in serving {
                    self.add_standalone_entry(&mk, u);
                }
                continue;
            }
            if self
                .seen
                .iter()
                .any(|(m, f, _, _)| *m == mk.module && *f == mk.func)
            {
                continue;
            }
            let why = if serving.is_empty() {
                "no component provider of a resolved MCP server has its file under its folder"
            } else {
                "it is not a public module-level function, which is all a provider serves"
            };
            let name = func.qualname.clone();
            self.gap(
                mk.module,
                mk.span,
                format!(
                    "`{name}` is marked by the standalone decorator `@{}`, but {why}",
                    mk.decorator
                ),
            );
        }
    }

    fn add_standalone_entry(&mut self, mk: &StandaloneMark, u: &ProviderUse) {
        let positional = self
            .fw
            .registrations
            .iter()
            .find(|r| r.kind == mk.kind && !r.imperative)
            .and_then(|r| r.positional);
        let Some(ns) = &u.namespace else {
            self.add_entry(
                mk.kind,
                positional,
                &mk.args,
                mk.module,
                mk.module,
                mk.func,
                mk.span,
                &u.server,
                &[],
            );
            return;
        };
        // `add_provider(p, namespace="ns")`: the listed name (or URI) carries the namespace.
        let Some(func) = self.func(mk.module, mk.func) else {
            return;
        };
        let consts = self.constants_with_imports(mk.module);
        let e = decorator_entry(
            mk.kind, positional, &mk.args, mk.func, func, mk.span, "", &consts,
        );
        let (key, value) = match e.kind {
            EntityKind::Resource | EntityKind::ResourceTemplate => match e.name.split_once("://") {
                Some((scheme, rest)) => ("uri", format!("{scheme}://{ns}/{rest}")),
                None => ("uri", format!("{ns}/{}", e.name)),
            },
            _ => ("name", format!("{ns}_{}", e.name)),
        };
        let mut args: Vec<Arg> = mk
            .args
            .iter()
            .filter(|a| {
                a.name.is_some() && !matches!(a.name.as_deref(), Some("name") | Some("uri"))
            })
            .cloned()
            .collect();
        args.push(Arg {
            name: Some(key.to_string()),
            value: Expr::new(ExprKind::Str(value), mk.span),
            spread: false,
            spread_keywords: false,
        });
        self.add_entry(
            mk.kind,
            positional,
            &args,
            mk.module,
            mk.module,
            mk.func,
            mk.span,
            &u.server,
            &[],
        );
    }

    /// Providers handed to resolved servers (`FastMCP(providers=[p])`, `server.add_provider(p)`)
    /// whose folder folds to a path in the tree.
    fn provider_uses(&mut self) -> Vec<ProviderUse> {
        let Some(sa) = self.fw.standalone.as_ref() else {
            return Vec::new();
        };
        let mods = self.mods;
        let mut sites: Vec<(usize, FuncId, &'a Expr, Option<&'a Expr>)> = Vec::new();
        for (m, md) in mods.iter().enumerate() {
            for (f, func) in md.functions.iter().enumerate() {
                walk_stmts(&func.body, &mut |s| {
                    let target = match &s.kind {
                        StmtKind::Assign { targets, .. } if targets.len() == 1 => Some(&targets[0]),
                        _ => None,
                    };
                    for e in stmt_exprs(s) {
                        let mut calls = Vec::new();
                        each_call(e, &mut calls);
                        for c in calls {
                            let ExprKind::Call { callee, args } = &c.kind else {
                                continue;
                            };
                            let adds = matches!(&callee.kind, ExprKind::Attribute { attr, .. }
                                if sa.add_provider_methods.contains(attr));
                            let builds = args
                                .iter()
                                .any(|a| a.name.as_deref() == Some(sa.providers_keyword.as_str()));
                            if adds || builds {
                                sites.push((m, f, c, target));
                            }
                        }
                    }
                });
            }
        }
        let mut uses = Vec::new();
        for (m, f, call, target) in sites {
            let env = Env { m, f, subst: &[] };
            let ExprKind::Call { callee, args } = &call.kind else {
                continue;
            };
            let is_server = |v: Option<Val>| match v {
                Some(Val::Server(_, sid)) => Some(sid),
                Some(Val::Instance(sm, sc, sid)) if self.class_style(sm, &sc, 0).is_some() => {
                    Some(sid)
                }
                _ => None,
            };
            let (server, providers, namespace) = match &callee.kind {
                ExprKind::Attribute { value, attr } if sa.add_provider_methods.contains(attr) => {
                    let Some(sid) = is_server(self.eval_in_scope(value, env)) else {
                        continue;
                    };
                    let Some(p) = bound_to(args, "provider", 0) else {
                        continue;
                    };
                    let ns = match kwarg(args, &sa.namespace_keyword) {
                        None => None,
                        Some(e) => match self.fold_str(e, env, 0) {
                            Some(n) if n.is_empty() => None,
                            Some(n) => Some(n),
                            None => {
                                self.gap(
                                    m,
                                    call.span,
                                    format!(
                                        "provider added to `{}` under the namespace `{}`, which could not be resolved, so the listed names are unknown",
                                        text_of(value),
                                        text_of(e)
                                    ),
                                );
                                continue;
                            }
                        },
                    };
                    (tag_server(&text_of(value), sid), vec![(&p.value, env)], ns)
                }
                _ => {
                    let Some(sid) = is_server(self.eval(call, env, 0)) else {
                        continue;
                    };
                    let Some(list) = kwarg(args, &sa.providers_keyword) else {
                        continue;
                    };
                    let text = target.map(text_of).unwrap_or_else(|| text_of(call));
                    (tag_server(&text, sid), self.elements_of(list, env, 0), None)
                }
            };
            for (p, penv) in providers {
                if let Some(root) = self.provider_root(p, penv, 0) {
                    uses.push(ProviderUse {
                        root,
                        server: server.clone(),
                        namespace: namespace.clone(),
                    });
                }
            }
        }
        uses
    }

    /// The elements of a literal list or tuple (through names bound to one), else the
    /// expression itself.
    fn elements_of<'s>(&self, e: &'s Expr, env: Env<'s>, depth: usize) -> Vec<(&'s Expr, Env<'s>)>
    where
        'a: 's,
    {
        match &e.kind {
            ExprKind::List(xs) | ExprKind::Tuple(xs) => xs.iter().map(|x| (x, env)).collect(),
            ExprKind::Name(n) if depth < MAX_DEPTH => match self.name_value(e, n, env) {
                Some((x, inner)) => self.elements_of(x, inner, depth + 1),
                None => vec![(e, env)],
            },
            _ => vec![(e, env)],
        }
    }

    /// The folder a provider expression serves (`FileSystemProvider(root=Path(__file__).parent
    /// / "components")`), relative to the scanned root; `None` when it is not such a provider or
    /// its folder does not fold to a path inside the tree.
    fn provider_root(&self, e: &Expr, env: Env, depth: usize) -> Option<String> {
        let sa = self.fw.standalone.as_ref()?;
        if depth > MAX_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Name(n) => {
                let (x, inner) = self.name_value(e, n, env)?;
                self.provider_root(x, inner, depth + 1)
            }
            ExprKind::Call { callee, args } => {
                let Some(Val::Module(path)) = self.eval(callee, env, 0) else {
                    return None;
                };
                let (module, class) = path.rsplit_once('.')?;
                let package = module.split('.').next().unwrap_or(module);
                if self.module_idx(&path).is_some()
                    || !sa.packages.iter().any(|p| p == package)
                    || !sa.provider_classes.iter().any(|c| c == class)
                {
                    return None;
                }
                // No folder means the working directory at run time: not known here.
                let root = bound_to(args, &sa.root_keyword, 0)?;
                let folded = self.fold_path(&root.value, env, 0)?;
                super::datafile::normalize_dir(&folded)
            }
            _ => None,
        }
    }

    /// `obj.register_all(server, prefix=...)` on an instance of a tree class whose methods
    /// carry mixin markers: each marked method is registered on the server.
    fn mixin_register(&mut self, value: &Expr, args: &[Arg], env: Env) -> bool {
        let Some(mx) = self.fw.mixin.as_ref() else {
            return false;
        };
        let Some(Val::Instance(cm, class, _)) = self.eval_in_scope(value, env) else {
            return false;
        };
        let server_arg = bound_to(args, "mcp_server", 0);
        let Some(server_arg) = server_arg else {
            return false;
        };
        let server = match self.eval_in_scope(&server_arg.value, env) {
            Some(Val::Server(..)) => text_of(&server_arg.value),
            Some(Val::Instance(sm, sc, _)) if self.class_style(sm, &sc, 0).is_some() => {
                text_of(&server_arg.value)
            }
            _ => return false,
        };
        let kw = |k: &str| args.iter().find(|a| a.name.as_deref() == Some(k));
        let prefix = kw(&mx.prefix_keyword).and_then(|a| self.fold_str(&a.value, env, 0));
        let separator = kw(&mx.separator_keyword)
            .and_then(|a| self.fold_str(&a.value, env, 0))
            .unwrap_or_else(|| mx.default_separator.clone());
        let mods = self.mods;
        let methods: Vec<FuncId> = (0..mods[cm].functions.len())
            .filter(|&f| mods[cm].functions[f].class.as_deref() == Some(class.as_str()))
            .collect();
        for f in methods {
            let func = &mods[cm].functions[f];
            let denv = Env {
                m: cm,
                f: func.parent.unwrap_or(Module::TOP_LEVEL),
                subst: &[],
            };
            for d in &func.decorators {
                let Some((kind, margs)) = self.mixin_marker(d, denv) else {
                    continue;
                };
                self.mixin_registered.insert((cm, f));
                let consts = self.constants_with_imports(cm);
                let base = margs
                    .iter()
                    .find(|a| a.name.as_deref() == Some("name"))
                    .and_then(|a| super::entry::const_str(&a.value, &consts))
                    .unwrap_or_else(|| func.name.clone());
                let full = match &prefix {
                    Some(p) => format!("{p}{separator}{base}"),
                    None => base,
                };
                let mut reg: Vec<Arg> = margs
                    .iter()
                    .filter(|a| a.name.is_some() && a.name.as_deref() != Some("name"))
                    .cloned()
                    .collect();
                reg.push(Arg {
                    name: Some("name".to_string()),
                    value: Expr::new(ExprKind::Str(full), d.span),
                    spread: false,
                    spread_keywords: false,
                });
                self.add_entry(kind, None, &reg, cm, cm, f, d.span, &server, &[]);
            }
        }
        true
    }

    /// What the name `n` (the expression `e`) stands for: the argument a call bound to it, else
    /// its assignment, read in the scope it was written in (keeping the loop substitutions when
    /// that is this scope).
    fn name_value<'s>(&self, e: &Expr, n: &str, env: Env<'s>) -> Option<(&'s Expr, Env<'s>)>
    where
        'a: 's,
    {
        if let Some(bound) = env.bound(n) {
            return Some(bound);
        }
        let (x, m, f) = self.binding_where(e, env, &|_| true, 0)?;
        let subst = if m == env.m && f == env.f {
            env.subst
        } else {
            &[]
        };
        Some((x, Env { m, f, subst }))
    }

    /// An expression evaluated where it stands, a local name through its assignment with the
    /// loop substitutions kept (`m = cls()` inside `for cls in (A, B)`).
    fn eval_in_scope(&self, e: &Expr, env: Env) -> Option<Val> {
        if let ExprKind::Name(n) = &e.kind
            && !env.subst.iter().any(|s| &s.name == n)
            && let Some((x, bm, bf)) = self.binding_where(e, env, &|_| true, 0)
            && bm == env.m
            && bf == env.f
        {
            return self.eval(x, env, 0);
        }
        self.eval(e, env, 0)
    }

    /// A string folded from constants, f-strings, class `__name__`s and the pure string methods
    /// names are usually built with.
    fn fold_str(&self, e: &Expr, env: Env, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        if let Some(c) = self.const_of(e, env, 0) {
            return Some(c);
        }
        match &e.kind {
            ExprKind::FormatStr(parts) => {
                let mut out = String::new();
                for p in parts {
                    match p {
                        mcp_scan_ir::StrPart::Lit(l) => out.push_str(l),
                        mcp_scan_ir::StrPart::Expr(x) => {
                            out.push_str(&self.fold_str(x, env, depth + 1)?)
                        }
                    }
                }
                Some(out)
            }
            ExprKind::Name(n) => {
                let (x, inner) = self.name_value(e, n, env)?;
                self.fold_str(x, inner, depth + 1)
            }
            ExprKind::Attribute { value, attr } if attr == "__name__" => {
                match self.eval(value, env, 0)? {
                    Val::Class(_, c) => Some(c.rsplit('.').next().unwrap_or(&c).to_string()),
                    Val::Func(fm, ff) => self.func(fm, ff).map(|f| f.name.clone()),
                    _ => None,
                }
            }
            ExprKind::Binary { op, left, right } if op == "+" => {
                let mut l = self.fold_str(left, env, depth + 1)?;
                l.push_str(&self.fold_str(right, env, depth + 1)?);
                Some(l)
            }
            ExprKind::Attribute { value, attr } => self.fold_member(value, attr, env, depth + 1),
            ExprKind::Index { value, index } => {
                if let Some((v, inner)) = self.dict_entry(value, index, env) {
                    return self.fold_str(v, inner, depth + 1);
                }
                // `name[len(PREFIX):]`: a slice with constant bounds (lowered as its text).
                let ExprKind::Unknown(text) = &index.kind else {
                    return None;
                };
                let (lo, hi) = text.split_once(':')?;
                if hi.contains(':') {
                    return None;
                }
                let base: Vec<char> = self.fold_str(value, env, depth + 1)?.chars().collect();
                let n = base.len() as i64;
                let bound = |t: &str, default: i64| -> Option<i64> {
                    let t = t.trim();
                    if t.is_empty() {
                        return Some(default);
                    }
                    let v = self.fold_int(t, env, depth + 1)?;
                    Some(if v < 0 { (n + v).max(0) } else { v.min(n) })
                };
                let (lo, hi) = (bound(lo, 0)?, bound(hi, n)?);
                Some(if lo >= hi {
                    String::new()
                } else {
                    base[lo as usize..hi as usize].iter().collect()
                })
            }
            // A tree function that builds the name from its arguments (`_name("x")` returning
            // `"prefix_" + x.replace("-", "_")`): its return folded with the arguments bound.
            ExprKind::Call { callee, args } if matches!(callee.kind, ExprKind::Name(_)) => {
                let Some(Val::Func(fm, ff)) = self.eval(callee, env, 0) else {
                    return None;
                };
                let func = self.func(fm, ff)?;
                let mut subst = Vec::new();
                let positional = args
                    .iter()
                    .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords);
                for (p, a) in func.params.iter().zip(positional) {
                    // Folded here: the argument may read names bound only in this environment
                    // (`_name(self.upstream)` inside a property).
                    subst.push(match self.fold_str(&a.value, env, depth + 1) {
                        Some(v) => Subst {
                            name: p.name.clone(),
                            value: Expr::new(ExprKind::Str(v), a.value.span),
                            module: env.m,
                            func: env.f,
                        },
                        None => bound_arg(&p.name, &a.value, env),
                    });
                }
                let ret = sole_return(&func.body)?;
                self.fold_str(
                    ret,
                    Env {
                        m: fm,
                        f: ff,
                        subst: &subst,
                    },
                    depth + 1,
                )
            }
            ExprKind::Call { callee, args } => {
                let ExprKind::Attribute { value, attr } = &callee.kind else {
                    return None;
                };
                let base = self.fold_str(value, env, depth + 1)?;
                let arg = |i: usize| {
                    args.get(i)
                        .filter(|a| a.name.is_none())
                        .and_then(|a| self.fold_str(&a.value, env, depth + 1))
                };
                match (attr.as_str(), args.len()) {
                    ("lower", 0) => Some(base.to_lowercase()),
                    ("upper", 0) => Some(base.to_uppercase()),
                    ("strip", 0) => Some(base.trim().to_string()),
                    ("replace", 2) => Some(base.replace(&arg(0)?, &arg(1)?)),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `spec.name` where `spec` is a tree class built with constant arguments
    /// (`ToolSpec("x-y", ...)`, a dataclass or `NamedTuple`): a field read through the
    /// constructor's arguments (positionally in the order the class annotates its fields), or a
    /// `@property` folded with `self` bound to that construction.
    fn fold_member(&self, value: &Expr, attr: &str, env: Env, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        let Some((call, cm, cf)) = self.construction(value, env, depth + 1) else {
            return self.returned_keyword(value, attr, env, depth + 1);
        };
        let ExprKind::Call { callee, args } = &call.kind else {
            return None;
        };
        let cenv = Env {
            m: cm,
            f: cf,
            subst: &[],
        };
        let Some(Val::Class(km, kname)) = self.eval(callee, cenv, 0) else {
            return None;
        };
        let md = &self.mods[km];
        let class = md.classes.iter().find(|c| c.name == kname)?;
        for &meth in &class.methods {
            let func = &md.functions[meth];
            if func.name != attr
                || !func
                    .decorators
                    .iter()
                    .any(|d| last_segment(d) == Some("property"))
            {
                continue;
            }
            let (Some(ret), Some(this)) = (sole_return(&func.body), func.params.first()) else {
                return None;
            };
            let subst = [Subst {
                name: this.name.clone(),
                value: call.clone(),
                module: cm,
                func: cf,
            }];
            let penv = Env {
                m: km,
                f: meth,
                subst: &subst,
            };
            return self.fold_str(ret, penv, depth + 1);
        }
        let i = class.fields.iter().position(|f| f == attr)?;
        let arg = bound_to_at(args, attr, Some(i), true)?;
        self.fold_str(&arg.value, cenv, depth + 1)
    }

    /// `tool_def.name` where `tool_def = make_tool()` (the assignment nearest before the use,
    /// so each of several `tool_def = ...` blocks keeps its own) and the tree function
    /// `make_tool` returns one declaration `Tool(name=..., ...)` of a class outside the tree:
    /// the keyword that declaration was built with.
    fn returned_keyword(&self, value: &Expr, attr: &str, env: Env, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        let (x, xenv) = match &value.kind {
            ExprKind::Name(n) => match env.bound(n) {
                Some(b) => b,
                None => {
                    let before = value.span.start_byte;
                    let x = self.with_binds(env.m, env.f, n, |binds| {
                        binds
                            .iter()
                            .filter_map(|b| match b {
                                Bind::Value(x) if x.span.start_byte < before => Some(*x),
                                _ => None,
                            })
                            .max_by_key(|x| x.span.start_byte)
                    })?;
                    (x, env)
                }
            },
            ExprKind::Call { .. } => (value, env),
            _ => return None,
        };
        let ExprKind::Call { callee, .. } = &x.kind else {
            return None;
        };
        let Some(Val::Func(fm, ff)) = self.eval(callee, xenv, 0) else {
            return None;
        };
        let func = self.func(fm, ff)?;
        let ret = sole_return(&func.body)?;
        let ExprKind::Call {
            callee: rcallee,
            args: rargs,
        } = &ret.kind
        else {
            return None;
        };
        let fenv = Env {
            m: fm,
            f: ff,
            subst: &[],
        };
        if matches!(
            self.eval(rcallee, fenv, 0),
            Some(Val::Class(..) | Val::Func(..))
        ) {
            // A tree class or function: its own fields and returns decide, not a keyword.
            return None;
        }
        self.fold_str(kwarg(rargs, attr)?, fenv, depth + 1)
    }

    /// The constructor call of a tree class an expression is bound to, with where it is written.
    fn construction(&self, e: &Expr, env: Env, depth: usize) -> Option<(Expr, usize, FuncId)> {
        if depth > 8 {
            return None;
        }
        match &e.kind {
            ExprKind::Name(n) => {
                if let Some((v, inner)) = env.bound(n) {
                    return self.construction(v, inner, depth + 1);
                }
                let (x, bm, bf) = self.binding_where(e, env, &|_| true, 0)?;
                let inner = Env {
                    m: bm,
                    f: bf,
                    subst: &[],
                };
                self.construction(x, inner, depth + 1)
            }
            ExprKind::Call { callee, .. } => match self.eval(callee, env, 0)? {
                Val::Class(..) => Some((e.clone(), env.m, env.f)),
                _ => None,
            },
            _ => None,
        }
    }

    /// A registration written in a helper with a name built from the helper's parameters
    /// (`def _register(mcp, spec): mcp.tool(name=spec.name)(handler)`), folded once per call of
    /// the helper (unrolling a caller's loop over a literal collection). `None` unless every
    /// call folds.
    fn names_per_caller(
        &self,
        args: &[Arg],
        args_module: usize,
        env: Env,
    ) -> Option<(String, Vec<String>)> {
        let (key, expr) = ["name", "uri"].into_iter().find_map(|k| {
            kwarg(args, k)
                .filter(|e| !matches!(e.kind, ExprKind::Str(_) | ExprKind::Null))
                .map(|e| (k, e))
        })?;
        if env.f == Module::TOP_LEVEL || !env.subst.is_empty() || args_module != env.m {
            return None;
        }
        let func = self.func(env.m, env.f)?;
        if func.class.is_some() || func.params.iter().any(|p| p.variadic || p.keywords) {
            return None;
        }
        let mut names = Vec::new();
        for (cm, cf, call) in self.calls_named(&func.name).into_iter().take(MAX_CALLERS) {
            let ExprKind::Call {
                callee,
                args: cargs,
            } = &call.kind
            else {
                continue;
            };
            let plain = Env {
                m: cm,
                f: cf,
                subst: &[],
            };
            if !matches!(self.eval(callee, plain, 0), Some(Val::Func(tm, tf)) if tm == env.m && tf == env.f)
            {
                continue;
            }
            let caller = self.func(cm, cf)?;
            let outers: Vec<Vec<Subst>> = match enclosing_for(&caller.body, call) {
                Some((target, iter)) => {
                    let elems = self.literal_elements(iter, plain, 0)?;
                    elems
                        .iter()
                        .map(|(el, em, ef)| {
                            let mut v = Vec::new();
                            bind_element(target, el, *em, *ef, &mut v);
                            v
                        })
                        .collect()
                }
                None => vec![Vec::new()],
            };
            for outer in &outers {
                let cenv = Env {
                    m: cm,
                    f: cf,
                    subst: outer,
                };
                let positional = cargs
                    .iter()
                    .take_while(|a| a.name.is_none() && !a.spread && !a.spread_keywords);
                let mut subst: Vec<Subst> = func
                    .params
                    .iter()
                    .zip(positional)
                    .map(|(p, a)| bound_arg(&p.name, &a.value, cenv))
                    .collect();
                for a in cargs {
                    if let Some(n) = &a.name
                        && func.params.iter().any(|p| &p.name == n)
                    {
                        subst.push(bound_arg(n, &a.value, cenv));
                    }
                }
                let fenv = Env {
                    m: env.m,
                    f: env.f,
                    subst: &subst,
                };
                names.push(self.fold_str(expr, fenv, 0)?);
            }
        }
        (!names.is_empty()).then(|| (key.to_string(), names))
    }

    /// A decorator imported from a framework package whose name says it registers something
    /// (`fastmcp.contrib.mcp_mixin.mcp_tool`) but that is not a server method the resolver
    /// models: the path of the framework module, else `None`.
    fn unmodelled_framework_decorator(&self, d: &Expr, env: Env) -> Option<String> {
        let head = match &d.kind {
            ExprKind::Call { callee, .. } => callee.as_ref(),
            _ => d,
        };
        if !matches!(head.kind, ExprKind::Name(_) | ExprKind::Attribute { .. }) {
            return None;
        }
        let Some(Val::Module(path)) = self.eval(head, env, 0) else {
            return None;
        };
        if self.module_idx(&path).is_some() || !self.fw.is_framework_module(&path) {
            return None;
        }
        let last = path
            .rsplit('.')
            .next()
            .unwrap_or(&path)
            .to_ascii_lowercase();
        let registers = last.split('_').any(|w| {
            self.fw
                .registrations
                .iter()
                .any(|r| r.method == w && !r.imperative)
        });
        registers.then_some(path)
    }

    /// Tool names for a dispatcher that finds its tool by name in a list loaded from a data
    /// file the server bundles (`for t in self.config["tools"]: if t["name"] == name`), the
    /// file's path folded from `__file__` or a literal; empty when any step is not followed.
    fn data_tools(&mut self, m: usize, f: FuncId) -> Vec<String> {
        let (Some(root), Some(func)) = (self.root, self.func(m, f)) else {
            return Vec::new();
        };
        let subject = func.params.first().map(|p| p.name.clone());
        let is_subject = |e: &Expr| match &e.kind {
            ExprKind::Name(n) => Some(n) == subject.as_ref(),
            ExprKind::Attribute { attr, .. } => attr == "name",
            _ => false,
        };
        let mut lookups: Vec<(&'a Expr, String)> = Vec::new();
        walk_stmts(&func.body, &mut |s| {
            let StmtKind::For {
                target, iter, body, ..
            } = &s.kind
            else {
                return;
            };
            let ExprKind::Name(t) = &target.kind else {
                return;
            };
            let mut field = None;
            walk_stmts(body, &mut |st| {
                for e in stmt_exprs(st) {
                    any_subexpr(e, &mut |x| {
                        if let ExprKind::Binary { op, left, right } = &x.kind
                            && op == "=="
                        {
                            for (a, b) in [(left, right), (right, left)] {
                                if is_subject(b)
                                    && let Some(k) = element_field(a, t)
                                {
                                    field = Some(k);
                                }
                            }
                        }
                    });
                }
            });
            if let Some(k) = field {
                lookups.push((iter, k));
            }
        });
        let env = Env { m, f, subst: &[] };
        for (iter, field) in lookups {
            let Some((path, keys)) = self.data_of(iter, env, 0) else {
                continue;
            };
            if let Some(names) = super::datafile::names_in(root, &path, &keys, &field) {
                if let Some(p) = super::datafile::normalize(&path)
                    && !self.out.data_files.contains(&p)
                {
                    self.out.data_files.push(p);
                }
                return names;
            }
        }
        Vec::new()
    }

    /// A value loaded from a data file, as (path relative to the root, keys indexed into it):
    /// `json.load(f)` / `yaml.safe_load(f)` of an opened file, through locals, instance
    /// attributes, subscripts and the tree functions that return it.
    fn data_of(&self, e: &Expr, env: Env, depth: usize) -> Option<(String, Vec<String>)> {
        if depth > MAX_DATA_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Index { value, index } => {
                let k = self.const_of(index, env, 0)?;
                let (p, mut keys) = self.data_of(value, env, depth + 1)?;
                keys.push(k);
                Some((p, keys))
            }
            ExprKind::Name(n) => {
                let (x, inner) = self.name_value(e, n, env)?;
                self.data_of(x, inner, depth + 1)
            }
            ExprKind::Attribute { value, attr } => {
                let (x, am, af) = self.self_attr_value(value, attr, env)?;
                self.data_of(
                    x,
                    Env {
                        m: am,
                        f: af,
                        subst: &[],
                    },
                    depth + 1,
                )
            }
            ExprKind::Await(x) => self.data_of(x, env, depth + 1),
            ExprKind::Call { callee, args } => {
                if let ExprKind::Attribute { value, attr } = &callee.kind
                    && attr == "get"
                    && let Some(k) = args
                        .first()
                        .filter(|a| a.name.is_none())
                        .and_then(|a| self.const_of(&a.value, env, 0))
                {
                    let (p, mut keys) = self.data_of(value, env, depth + 1)?;
                    keys.push(k);
                    return Some((p, keys));
                }
                match self.eval(callee, env, 0) {
                    Some(Val::Module(p)) if DATA_LOADERS.contains(&p.as_str()) => {
                        let a = args.first().filter(|a| a.name.is_none())?;
                        Some((self.file_of(&a.value, env, depth + 1)?, Vec::new()))
                    }
                    Some(Val::Func(fm, ff)) => {
                        let func = self.func(fm, ff)?;
                        let subst = self.bind_params(func, callee, args, env);
                        let ret = sole_return(&func.body)?;
                        let fenv = Env {
                            m: fm,
                            f: ff,
                            subst: &subst,
                        };
                        self.data_of(ret, fenv, depth + 1)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The path of a file object or its text: `open(p)`, `Path(p).read_text()`, `f.read()`.
    fn file_of(&self, e: &Expr, env: Env, depth: usize) -> Option<String> {
        if depth > MAX_DATA_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Name(n) => {
                let (x, inner) = self.name_value(e, n, env)?;
                self.file_of(x, inner, depth + 1)
            }
            ExprKind::Call { callee, args } => match &callee.kind {
                ExprKind::Name(n) if n == "open" => {
                    let a = args.first().filter(|a| a.name.is_none())?;
                    self.fold_path(&a.value, env, depth + 1)
                }
                ExprKind::Attribute { value, attr }
                    if matches!(attr.as_str(), "read" | "read_text" | "open") =>
                {
                    self.file_of(value, env, depth + 1)
                        .or_else(|| self.fold_path(value, env, depth + 1))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// A file path relative to the root: literals, `__file__`, `os.path.join`/`dirname`,
    /// `Path(...)`, `.parent`, `/`, the default of `os.environ.get(k, default)` (the bundled
    /// file; an override is the user's own data), locals, and a parameter every caller in the
    /// tree passes the same path for.
    fn fold_path(&self, e: &Expr, env: Env, depth: usize) -> Option<String> {
        use super::datafile::{join, normalize, parent};
        if depth > MAX_DATA_DEPTH {
            return None;
        }
        match &e.kind {
            ExprKind::Str(s) => Some(s.clone()),
            ExprKind::Name(n) if n == "__file__" => Some(self.mods[env.m].path.clone()),
            ExprKind::Name(n) => {
                if let Some((x, inner)) = self.name_value(e, n, env) {
                    return self.fold_path(x, inner, depth + 1);
                }
                self.param_path(n, env, depth + 1)
            }
            ExprKind::Attribute { value, attr } if attr == "parent" => Some(parent(&normalize(
                &self.fold_path(value, env, depth + 1)?,
            )?)),
            ExprKind::Binary { op, left, right } if op == "/" => Some(join(
                &self.fold_path(left, env, depth + 1)?,
                &self.fold_path(right, env, depth + 1)?,
            )),
            ExprKind::Call { callee, args } => {
                let positional: Vec<&Expr> = args
                    .iter()
                    .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords)
                    .map(|a| &a.value)
                    .collect();
                let target = match self.eval(callee, env, 0) {
                    Some(Val::Module(p)) => p,
                    _ => match &callee.kind {
                        // `Path(__file__).resolve()`, `.absolute()`
                        ExprKind::Attribute { value, attr }
                            if matches!(attr.as_str(), "resolve" | "absolute" | "expanduser") =>
                        {
                            return self.fold_path(value, env, depth + 1);
                        }
                        // `Path(__file__).with_name("x.py")`
                        ExprKind::Attribute { value, attr } if attr == "with_name" => {
                            let dir =
                                parent(&normalize(&self.fold_path(value, env, depth + 1)?)?);
                            return Some(join(
                                &dir,
                                &self.fold_path(positional.first()?, env, depth + 1)?,
                            ));
                        }
                        // `str(Path(...))`
                        ExprKind::Name(n) if n == "str" => {
                            return self.fold_path(positional.first()?, env, depth + 1);
                        }
                        _ => return None,
                    },
                };
                let last = target.rsplit('.').next().unwrap_or(&target);
                match last {
                    "join" | "joinpath" if target.starts_with("os.path") => {
                        let mut out = String::new();
                        for p in positional {
                            out = join(&out, &self.fold_path(p, env, depth + 1)?);
                        }
                        Some(out)
                    }
                    "dirname" => Some(parent(&normalize(&self.fold_path(
                        positional.first()?,
                        env,
                        depth + 1,
                    )?)?)),
                    "abspath" | "realpath" | "normpath" | "Path" | "PurePath" => {
                        self.fold_path(positional.first()?, env, depth + 1)
                    }
                    "get" | "getenv" if target.starts_with("os.") => {
                        self.fold_path(positional.get(1)?, env, depth + 1)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A path parameter: what every resolved caller of the function (of the class, for
    /// `__init__`) passes for it, when they all agree; else its constant default.
    fn param_path(&self, name: &str, env: Env, depth: usize) -> Option<String> {
        let func = self.func(env.m, env.f)?;
        if env.f == Module::TOP_LEVEL {
            return None;
        }
        let i = func.params.iter().position(|p| p.name == name)?;
        let p = &func.params[i];
        if p.variadic || p.keywords {
            return None;
        }
        let (called, class) = match (&func.class, func.name.as_str()) {
            (Some(c), "__init__") => (c.clone(), Some(c.clone())),
            _ => (func.name.clone(), None),
        };
        let mut found: Option<String> = None;
        for (cm, cf, call) in self.calls_named(&called).into_iter().take(MAX_CALLERS) {
            let ExprKind::Call { callee, args } = &call.kind else {
                continue;
            };
            let cenv = Env {
                m: cm,
                f: cf,
                subst: &[],
            };
            let reaches = match (self.eval(callee, cenv, 0), &class) {
                (Some(Val::Class(km, k)), Some(c)) => km == env.m && &k == c,
                (Some(Val::Func(fm, ff)), None) => fm == env.m && ff == env.f,
                _ => false,
            };
            if !reaches {
                continue;
            }
            let offset = usize::from(
                func.class.is_some()
                    && (class.is_some() || matches!(callee.kind, ExprKind::Attribute { .. })),
            );
            let arg = bound_to_at(args, name, i.checked_sub(offset), true);
            let path = match arg {
                Some(a) => self.fold_path(&a.value, cenv, depth + 1)?,
                None => self.fold_path(p.default.as_ref()?, env, depth + 1)?,
            };
            match &found {
                Some(f) if super::datafile::normalize(f) != super::datafile::normalize(&path) => {
                    return None;
                }
                _ => found = Some(path),
            }
        }
        found.or_else(|| {
            let d = p.default.as_ref()?;
            self.fold_path(d, env, depth + 1)
        })
    }

    /// `self.attr` read in a method: the value a method of the class assigns it.
    fn self_attr_value(
        &self,
        value: &Expr,
        attr: &str,
        env: Env,
    ) -> Option<(&'a Expr, usize, FuncId)> {
        let Some(Val::Instance(cm, class, _)) = self.eval(value, env, 0) else {
            return None;
        };
        let md = &self.mods[cm];
        let c = md.classes.iter().find(|c| c.name == class)?;
        for &meth in &c.methods {
            let mut found = None;
            walk_stmts(&md.functions[meth].body, &mut |s| {
                if let StmtKind::Assign { targets, value } = &s.kind {
                    for t in targets {
                        if let ExprKind::Attribute {
                            value: obj,
                            attr: a,
                        } = &t.kind
                            && a == attr
                            && matches!(&obj.kind, ExprKind::Name(n) if n == "self")
                            && found.is_none()
                        {
                            found = Some(value);
                        }
                    }
                }
            });
            if let Some(v) = found {
                return Some((v, cm, meth));
            }
        }
        None
    }

    /// Parameters of `func` bound to a call's arguments (`self` skipped for a bound method).
    fn bind_params(&self, func: &Function, callee: &Expr, args: &[Arg], env: Env) -> Vec<Subst> {
        let mut subst = Vec::new();
        let positional = args
            .iter()
            .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords);
        let params = func.params.iter().filter(|p| !(p.variadic || p.keywords));
        let skip =
            usize::from(func.class.is_some() && matches!(callee.kind, ExprKind::Attribute { .. }));
        for (p, a) in params.skip(skip).zip(positional) {
            subst.push(bound_arg(&p.name, &a.value, env));
        }
        for a in args {
            if let Some(n) = &a.name
                && func.params.iter().any(|p| &p.name == n)
            {
                subst.push(bound_arg(n, &a.value, env));
            }
        }
        subst
    }

    /// A low-level dispatcher: split after resolution (`dispatch::split_dispatchers`).
    fn check_dispatcher(&mut self, m: usize, f: FuncId, span: Span, server: &str) {
        if !self
            .dispatchers
            .iter()
            .any(|d| d.module == m && d.func == f)
        {
            let mapping = self.handler_mapping(m, f);
            let data_names = if mapping.is_empty() {
                self.data_tools(m, f)
            } else {
                Vec::new()
            };
            self.dispatchers.push(Dispatcher {
                module: m,
                func: f,
                span,
                server: untag_server(server).0.to_string(),
                mapping,
                data_names,
            });
        }
    }

    fn call_site(
        &mut self,
        call: &'a Expr,
        callee: &'a Expr,
        args: &'a [Arg],
        env: Env,
        pass: Pass,
    ) {
        if let ExprKind::Attribute { value, attr } = &callee.kind
            && matches!(attr.as_str(), "mount" | "import_server")
        {
            if pass == Pass::Sites {
                self.mount(value, args, env);
            }
            return;
        }
        if let ExprKind::Attribute { value, attr } = &callee.kind
            && self
                .fw
                .mixin
                .as_ref()
                .is_some_and(|mx| mx.register_methods.contains(attr))
        {
            if pass == Pass::Sites {
                self.mixin_register(value, args, env);
            }
            return;
        }
        // A decorator built in the loop body (`d = mcp.resource(f"x/{kind}")`, then `d(fn)`)
        // is evaluated with the loop variables bound.
        let v = if env.subst.is_empty() {
            self.eval(callee, env, 0)
        } else {
            self.eval_in_scope(callee, env)
        };
        let (style, method, reg_args, reg_module, server, handler_args): (
            ServerStyle,
            String,
            Vec<Arg>,
            usize,
            String,
            &[Arg],
        ) = match v {
            Some(Val::Method {
                style: ServerStyle::Decorator,
                method,
                server,
            }) => {
                let Some(reg) = self.fw.registration(&method) else {
                    return;
                };
                if !reg.imperative && !self.first_arg_is_handler(args, env, 0) {
                    // `mcp.tool(name="x")` builds a decorator; its application is the site.
                    return;
                }
                let rest: Vec<Arg> =
                    self.fold_names(substitute(args.get(1..).unwrap_or(&[]), env.subst), env);
                (ServerStyle::Decorator, method, rest, env.m, server, args)
            }
            Some(Val::Decorator {
                style: ServerStyle::Decorator,
                method,
                args: dargs,
                module,
                server,
            }) => (ServerStyle::Decorator, method, dargs, module, server, args),
            Some(Val::Func(wm, wf)) if self.wrappers.contains_key(&(wm, wf)) => {
                let Some(w) = self.wrappers.get(&(wm, wf)).cloned() else {
                    return;
                };
                let arg = bound_to(args, &w.param_name, w.param);
                // `def decorator(fn): register_tool(server, fn, name=name)` where
                // `register_tool` registers its parameter: `decorator` is a wrapper too; its
                // own uses are the sites.
                if let Some(a) = arg
                    && (env.m, env.f) != (wm, wf)
                    && let Handler::Param(i, name, pm, pf) = self.handler(&a.value, env, 0)
                    && (pm, pf) == (env.m, env.f)
                {
                    if pass == Pass::Wrappers && !self.wrappers.contains_key(&(env.m, env.f)) {
                        // The inner wrapper's name parameter bound to this call's argument:
                        // folded, or (the caller's own parameter) kept as a name to fold where
                        // the outer wrapper is used.
                        let mut chained = w.clone();
                        let names = self.wrapper_names(&w, wm, wf, args, env);
                        for k in ["name", "uri"] {
                            if self.param_arg(&w, wm, wf, k, args).is_none() {
                                continue;
                            }
                            chained.args.retain(|a| a.name.as_deref() != Some(k));
                            if let Some(n) = names.iter().find(|n| n.name.as_deref() == Some(k)) {
                                chained.args.push(n.clone());
                            } else if let Some(p) = self.passed_param(&w, wm, wf, k, args) {
                                chained.args.push(Arg {
                                    name: Some(k.to_string()),
                                    value: Expr::new(ExprKind::Name(p), call.span),
                                    spread: false,
                                    spread_keywords: false,
                                });
                            }
                        }
                        chained.param = i;
                        chained.param_name = name;
                        chained.span = call.span;
                        self.wrappers.insert((env.m, env.f), chained);
                    }
                    self.used_wrappers.insert((wm, wf));
                    if self.wrappers.contains_key(&(env.m, env.f)) {
                        return;
                    }
                }
                if pass == Pass::Wrappers {
                    return;
                }
                self.used_wrappers.insert((wm, wf));
                self.out.registration_sites += 1;
                let names = self.wrapper_names(&w, wm, wf, args, env);
                match arg {
                    Some(a) => match self.handler(&a.value, env, 0) {
                        Handler::Funcs(fs) => {
                            for (hm, hf, mut extra) in fs {
                                let span = if hm == env.m { call.span } else { self.def_span(hm, hf) };
                                for n in &names {
                                    if !extra.iter().any(|x| x.name == n.name) {
                                        extra.push(n.clone());
                                    }
                                }
                                self.wrapper_entry(&w, hm, hf, span, &extra);
                            }
                        }
                        Handler::Opaque | Handler::Param(..) | Handler::Unresolved(_) => self.gap(
                            env.m,
                            call.span,
                            format!(
                                "`{}(...)` registers a handler that could not be resolved to a function",
                                text_of(callee)
                            ),
                        ),
                    },
                    None => self.gap(
                        env.m,
                        call.span,
                        format!("`{}(...)` registers no visible handler", text_of(callee)),
                    ),
                }
                return;
            }
            Some(Val::ServerClass(ServerStyle::LowLevel)) => {
                if pass == Pass::Sites {
                    self.low_level_ctor(env, call, args);
                }
                return;
            }
            Some(Val::Decorator {
                style: ServerStyle::LowLevel,
                method,
                server,
                ..
            }) if self.fw.low_level.dispatcher_methods.contains(&method) => {
                // `server.call_tool()(fn)`: the decorator applied directly.
                if pass == Pass::Sites {
                    self.out.registration_sites += 1;
                    let first = args
                        .iter()
                        .find(|a| a.name.is_none() && !a.spread && !a.spread_keywords);
                    match first.map(|a| self.handler(&a.value, env, 0)) {
                        Some(Handler::Funcs(fs)) => {
                            for (hm, hf, _) in fs {
                                self.check_dispatcher(hm, hf, call.span, &server);
                            }
                        }
                        _ => self.gap(
                            env.m,
                            call.span,
                            format!(
                                "`{}(...)` registers a tool dispatcher that could not be resolved to a function",
                                text_of(callee)
                            ),
                        ),
                    }
                }
                return;
            }
            Some(Val::Method {
                style: ServerStyle::LowLevel,
                method,
                server,
            }) if self.fw.low_level.request_methods.contains(&method) => {
                if pass == Pass::Sites {
                    self.request_handler(env, call, callee, args, &server);
                }
                return;
            }
            // Both shapes below require the receiver itself to be unresolved.
            None if pass == Pass::Sites && self.tree_framework_aware => {
                // `x.tool(...)(fn)`: the decorator applied directly.
                if let ExprKind::Call { callee: inner, .. } = &callee.kind
                    && let ExprKind::Attribute { value, attr } = &inner.kind
                    && self.fw.registration(attr).is_some_and(|r| !r.imperative)
                    && self.eval(value, env, 0).is_none()
                {
                    self.out.registration_sites += 1;
                    self.gap(
                        env.m,
                        call.span,
                        format!(
                            "`{}.{attr}(...)(...)`: `{}` could not be resolved to an MCP server",
                            text_of(value),
                            text_of(value)
                        ),
                    );
                } else if let ExprKind::Attribute { value, attr } = &callee.kind
                    && let Some(reg) = self.fw.registration(attr)
                    && reg.imperative
                    && self.eval(value, env, 0).is_none()
                {
                    self.out.registration_sites += 1;
                    self.gap(
                        env.m,
                        call.span,
                        format!(
                            "`{}.{attr}(...)`: `{}` could not be resolved to an MCP server",
                            text_of(value),
                            text_of(value)
                        ),
                    );
                }
                return;
            }
            _ => return,
        };
        let Some(reg) = self.fw.registration(&method) else {
            return;
        };
        let (kind, positional) = (reg.kind, reg.positional);
        let positional = if reg.imperative {
            Some(Positional::Name)
        } else {
            positional
        };
        let first = handler_args
            .iter()
            .find(|a| a.name.is_none() && !a.spread && !a.spread_keywords)
            .or_else(|| {
                handler_args.iter().find(|a| {
                    matches!(a.name.as_deref(), Some("fn" | "func" | "function" | "tool"))
                })
            });
        let _ = style;
        match first.map(|a| self.handler(&a.value, env, 0)) {
            Some(Handler::Param(i, name, pm, pf)) => {
                // `def register(fn): mcp.tool()(fn)`: a wrapper; its callers are the sites.
                // `for fn in TOOLS: mcp.add_tool(fn)` with `TOOLS.append(fn)` in a registry
                // decorator: the decorator is the wrapper, its uses the sites.
                self.wrappers.entry((pm, pf)).or_insert(Wrapper {
                    param: i,
                    param_name: name,
                    style: ServerStyle::Decorator,
                    method,
                    args: reg_args,
                    module: reg_module,
                    server,
                    span: call.span,
                });
            }
            _ if pass == Pass::Wrappers => {}
            Some(Handler::Funcs(fs)) => {
                self.out.registration_sites += 1;
                let per_caller = self.names_per_caller(&reg_args, reg_module, env);
                for (hm, hf, extra) in fs {
                    let span = if hm == env.m {
                        call.span
                    } else {
                        self.def_span(hm, hf)
                    };
                    let Some((key, names)) = &per_caller else {
                        self.add_entry(
                            kind, positional, &reg_args, reg_module, hm, hf, span, &server, &extra,
                        );
                        continue;
                    };
                    for n in names {
                        let mut args = reg_args.clone();
                        for a in &mut args {
                            if a.name.as_deref() == Some(key.as_str()) {
                                a.value = Expr::new(ExprKind::Str(n.clone()), a.value.span);
                            }
                        }
                        self.add_entry(
                            kind, positional, &args, reg_module, hm, hf, span, &server, &extra,
                        );
                    }
                }
            }
            // A declared resource object (`TextResource(...)`) has no code to analyse; a tool
            // or prompt handler from outside the tree has, and it was not analysed.
            Some(Handler::Opaque) if kind == EntityKind::Resource => {
                self.out.registration_sites += 1;
            }
            Some(Handler::Opaque) => {
                self.out.registration_sites += 1;
                self.gap(
                    env.m,
                    call.span,
                    format!(
                        "`{}(...)` on server `{}` registers a handler defined outside the scanned tree",
                        text_of(callee),
                        untag_server(&server).0
                    ),
                );
            }
            Some(Handler::Unresolved(what)) => {
                self.out.registration_sites += 1;
                self.gap(
                    env.m,
                    call.span,
                    format!(
                        "`{}(...)` on server `{}` registers `{what}`, which could not be resolved to a function",
                        text_of(callee),
                        untag_server(&server).0
                    ),
                );
            }
            None => {
                self.out.registration_sites += 1;
                self.gap(
                    env.m,
                    call.span,
                    format!(
                        "`{}(...)` on server `{}` registers no visible handler",
                        text_of(callee),
                        untag_server(&server).0
                    ),
                );
            }
        }
    }

    /// fastmcp `parent.mount(child, namespace="x")` / `mount("x", child)` /
    /// `import_server(child, prefix="x")`: the child's tools are listed as `x_<name>`.
    fn mount(&mut self, parent: &Expr, args: &[Arg], env: Env) {
        let is_server = match self.eval(parent, env, 0) {
            Some(Val::Server(..)) => true,
            Some(Val::Instance(cm, c, _)) => self.class_style(cm, &c, 0).is_some(),
            _ => false,
        };
        if !is_server {
            return;
        }
        let mut child = None;
        let mut prefix = None;
        for a in args {
            match a.name.as_deref() {
                Some("namespace" | "prefix") => prefix = self.const_of(&a.value, env, 0),
                Some("server") | None => match self.eval(&a.value, env, 0) {
                    Some(Val::Server(_, Some(id)) | Val::Instance(_, _, Some(id))) => {
                        child = Some(id)
                    }
                    _ if a.name.is_none() && prefix.is_none() => {
                        prefix = self.const_of(&a.value, env, 0)
                    }
                    _ => {}
                },
                _ => {}
            }
        }
        if let (Some(c), Some(p)) = (child, prefix)
            && !p.is_empty()
        {
            self.mounts.push((c, p));
        }
    }

    /// mcp 2.x `Server("x", on_call_tool=handler)`: split by the per-file pass when local.
    fn low_level_ctor(&mut self, env: Env, call: &Expr, args: &[Arg]) {
        for a in args {
            let Some(kw) = a.name.as_deref() else {
                continue;
            };
            if !self
                .fw
                .low_level
                .dispatcher_keywords
                .iter()
                .any(|k| k == kw)
            {
                continue;
            }
            self.out.registration_sites += 1;
            match self.handler(&a.value, env, 0) {
                Handler::Funcs(fs) => {
                    for (hm, hf, _) in fs {
                        self.check_dispatcher(hm, hf, call.span, "server");
                    }
                }
                _ => self.gap(
                    env.m,
                    call.span,
                    format!("`{kw}=` names a dispatcher that could not be resolved to a function"),
                ),
            }
        }
    }

    /// `server.add_request_handler("tools/call", Params, handler)`: the handler of the tool
    /// request is the dispatcher. A request name that does not fold to a constant may be
    /// `tools/call`: a gap, as is a handler that is not a visible function.
    fn request_handler(
        &mut self,
        env: Env,
        call: &Expr,
        callee: &Expr,
        args: &[Arg],
        server: &str,
    ) {
        // The request's name first, the handler last (`add_request_handler(method, Params, fn)`).
        let n = args
            .iter()
            .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords)
            .count();
        let request = bound_to(args, "method", 0);
        let handler = bound_to_at(args, "handler", (n >= 2).then(|| n - 1), false);
        match request.and_then(|a| self.const_of(&a.value, env, 0)) {
            Some(r) if !self.fw.low_level.dispatcher_requests.contains(&r) => return,
            Some(_) => {}
            None => {
                self.out.registration_sites += 1;
                self.gap(
                    env.m,
                    call.span,
                    format!(
                        "`{}(...)` registers a handler for a request whose name could not be determined (it may be the tool dispatcher)",
                        text_of(callee)
                    ),
                );
                return;
            }
        }
        self.out.registration_sites += 1;
        match handler.map(|a| self.handler(&a.value, env, 0)) {
            Some(Handler::Funcs(fs)) => {
                for (hm, hf, _) in fs {
                    self.check_dispatcher(hm, hf, call.span, server);
                }
            }
            _ => self.gap(
                env.m,
                call.span,
                format!(
                    "`{}(...)` registers a tool dispatcher that could not be resolved to a function",
                    text_of(callee)
                ),
            ),
        }
    }

    /// A string constant: a literal, a module constant, or a loop variable / parameter bound to
    /// one.
    fn const_of(&self, e: &Expr, env: Env, depth: usize) -> Option<String> {
        if depth > MAX_DEPTH {
            return None;
        }
        if let ExprKind::Name(n) = &e.kind
            && let Some((v, inner)) = env.bound(n)
        {
            return self.const_of(v, inner, depth + 1);
        }
        if let Some(v) = e.as_str() {
            return Some(v.to_string());
        }
        let consts = self.constants_with_imports(env.m);
        super::entry::const_str(e, &consts)
    }

    /// Tool name → handler for a dispatcher that looks its handler up in a mapping
    /// (`HANDLERS[name]`, `registry.get(params.name)`, also inside a helper it passes the
    /// mapping to); the mapping is a literal dict or a dict comprehension over a literal
    /// collection (`{n: getattr(obj, n) for n in NAMES}`), possibly returned by a function.
    fn handler_mapping(&self, m: usize, f: FuncId) -> Vec<(String, usize, FuncId)> {
        let Some(func) = self.func(m, f) else {
            return Vec::new();
        };
        let subject = func.params.first().map(|p| p.name.clone());
        let env = Env { m, f, subst: &[] };
        let mut out = Vec::new();
        self.mapping_lookups(&func.body, subject.as_deref(), env, 0, &mut out);
        out
    }

    fn mapping_lookups(
        &self,
        body: &'a [Stmt],
        subject: Option<&str>,
        env: Env,
        depth: usize,
        out: &mut Vec<(String, usize, FuncId)>,
    ) {
        if depth > 3 {
            return;
        }
        let is_subject = |e: &Expr| match &e.kind {
            ExprKind::Name(n) => Some(n.as_str()) == subject,
            ExprKind::Attribute { attr, .. } => attr == "name",
            _ => false,
        };
        let mut exprs: Vec<&'a Expr> = Vec::new();
        walk_stmts(body, &mut |s| exprs.extend(stmt_exprs(s)));
        let mut maps: Vec<&'a Expr> = Vec::new();
        let mut helpers: Vec<&'a Expr> = Vec::new();
        for e in exprs {
            let mut stack = vec![e];
            while let Some(x) = stack.pop() {
                match &x.kind {
                    ExprKind::Index { value, index } => {
                        if is_subject(index) {
                            maps.push(value);
                        }
                        stack.push(value);
                    }
                    ExprKind::Call { callee, args } => {
                        if let ExprKind::Attribute { value, attr } = &callee.kind
                            && attr == "get"
                            && args.first().is_some_and(|a| is_subject(&a.value))
                        {
                            maps.push(value);
                        }
                        if args.iter().any(|a| {
                            is_subject(&a.value) || matches!(&a.value.kind, ExprKind::Name(_))
                        }) {
                            helpers.push(x);
                        }
                        stack.push(callee);
                        stack.extend(args.iter().map(|a| &a.value));
                    }
                    ExprKind::Attribute { value, .. } | ExprKind::Await(value) => stack.push(value),
                    _ => {}
                }
            }
        }
        for x in maps {
            self.mapping_of(x, env, 0, out);
        }
        if !out.is_empty() {
            return;
        }
        // `return await call_registered(registry, params)`: the helper's parameters bound to
        // the arguments.
        for call in helpers {
            let ExprKind::Call { callee, args } = &call.kind else {
                continue;
            };
            let Some(Val::Func(hm, hf)) = self.eval(callee, env, 0) else {
                continue;
            };
            let Some(h) = self.func(hm, hf) else { continue };
            let mut subst: Vec<Subst> = env.subst.to_vec();
            let positional = args.iter().filter(|a| a.name.is_none() && !a.spread);
            for (p, a) in h.params.iter().zip(positional) {
                subst.push(bound_arg(&p.name, &a.value, env));
            }
            let inner_subject = h
                .params
                .iter()
                .zip(args.iter())
                .find(|(_, a)| is_subject(&a.value))
                .map(|(p, _)| p.name.clone());
            let inner = Env {
                m: hm,
                f: hf,
                subst: &subst,
            };
            self.mapping_lookups(&h.body, inner_subject.as_deref(), inner, depth + 1, out);
            if !out.is_empty() {
                return;
            }
        }
    }

    /// A module-level registry dict filled after it is bound: `REG[k] = fn` / `REG.update(...)`
    /// anywhere in its module, and `register(REG)` calls into tree functions that fill their
    /// parameter the same way (`def register(registry): registry["x"] = handle_x`).
    fn registry_additions(
        &self,
        name: &str,
        m: usize,
        depth: usize,
        out: &mut Vec<(String, usize, FuncId)>,
    ) {
        if depth > 6 {
            return;
        }
        for f in 0..self.mods[m].functions.len() {
            self.param_additions(name, m, f, depth + 1, out);
            let env = Env { m, f, subst: &[] };
            let mut calls = Vec::new();
            walk_stmts(&self.mods[m].functions[f].body, &mut |st| {
                for e in stmt_exprs(st) {
                    each_call(e, &mut calls);
                }
            });
            for call in calls {
                let ExprKind::Call { callee, args } = &call.kind else {
                    continue;
                };
                let Some(pos) = args.iter().position(|a| {
                    a.name.is_none()
                        && !a.spread
                        && matches!(&a.value.kind, ExprKind::Name(k) if k == name)
                }) else {
                    continue;
                };
                let Some(Val::Func(cm, cf)) = self.eval(callee, env, 0) else {
                    continue;
                };
                let Some(p) = self.func(cm, cf).and_then(|c| c.params.get(pos)) else {
                    continue;
                };
                self.param_additions(&p.name, cm, cf, depth + 1, out);
            }
        }
    }

    /// Entries a function adds to the dict it names `name`: `name[k] = fn`, `name.update({...})`,
    /// `name.update(OTHER)` with `OTHER` a mapping.
    fn param_additions(
        &self,
        name: &str,
        m: usize,
        f: FuncId,
        depth: usize,
        out: &mut Vec<(String, usize, FuncId)>,
    ) {
        let env = Env { m, f, subst: &[] };
        let mut items = Vec::new();
        self.dict_additions(name, m, f, &mut items);
        for (k, v) in &items {
            let (Some(k), Handler::Funcs(fs)) = (k, self.handler(v, env, 0)) else {
                continue;
            };
            if let Some(key) = self.const_of(k, env, 0) {
                out.extend(fs.into_iter().map(|(hm, hf, _)| (key.clone(), hm, hf)));
            }
        }
        let Some(func) = self.func(m, f) else {
            return;
        };
        walk_stmts(&func.body, &mut |st| {
            if let StmtKind::Expr(x) = &st.kind
                && let ExprKind::Call { callee, args } = &x.kind
                && let ExprKind::Attribute { value, attr } = &callee.kind
                && attr == "update"
                && matches!(&value.kind, ExprKind::Name(k) if k == name)
            {
                for a in args {
                    if a.name.is_none() && matches!(a.value.kind, ExprKind::Name(_)) {
                        self.mapping_of(&a.value, env, depth + 1, out);
                    }
                }
            }
        });
    }

    fn mapping_of(&self, e: &Expr, env: Env, depth: usize, out: &mut Vec<(String, usize, FuncId)>) {
        if depth > 6 {
            return;
        }
        match &e.kind {
            ExprKind::Name(n) => {
                if let Some((v, inner)) = env.bound(n) {
                    return self.mapping_of(v, inner, depth + 1, out);
                }
                let mut f = env.f;
                loop {
                    let hit = self.with_binds(env.m, f, n, |binds| {
                        binds.iter().rev().find_map(|b| match b {
                            Bind::Value(x) => Some(*x),
                            _ => None,
                        })
                    });
                    if let Some(x) = hit {
                        let inner = Env {
                            m: env.m,
                            f,
                            subst: &[],
                        };
                        self.mapping_of(x, inner, depth + 1, out);
                        if f == Module::TOP_LEVEL {
                            self.registry_additions(n, env.m, depth + 1, out);
                        }
                        return;
                    }
                    if f == Module::TOP_LEVEL {
                        break;
                    }
                    match self.func(env.m, f).map(|x| x.parent) {
                        Some(p) => f = p.unwrap_or(Module::TOP_LEVEL),
                        None => break,
                    }
                }
                // `from .tools import HANDLERS`: the mapping where the module binds it.
                let md = &self.mods[env.m];
                if let Some(imp) = md.imports.iter().rev().find(|i| &i.local == n)
                    && let Some(sym) = imp.symbol.as_deref().filter(|s| *s != "*")
                    && let Some(mi) = self.module_idx(&imp.module)
                    && mi != env.m
                {
                    let name = Expr::new(ExprKind::Name(sym.to_string()), e.span);
                    let inner = Env {
                        m: mi,
                        f: Module::TOP_LEVEL,
                        subst: &[],
                    };
                    self.mapping_of(&name, inner, depth + 1, out);
                }
            }
            ExprKind::Dict(items) => {
                for (k, v) in items {
                    let (Some(k), Handler::Funcs(fs)) = (k, self.handler(v, env, 0)) else {
                        continue;
                    };
                    if let Some(name) = self.const_of(k, env, 0) {
                        for (hm, hf, _) in fs {
                            out.push((name.clone(), hm, hf));
                        }
                    }
                }
            }
            ExprKind::Comprehension {
                elements, clauses, ..
            } => {
                let ([k, v], [(target, iter)]) = (elements.as_slice(), clauses.as_slice()) else {
                    return;
                };
                let Some(elems) = self.literal_elements(iter, env, 0) else {
                    return;
                };
                for (el, em, ef) in &elems {
                    let (em, ef) = (*em, *ef);
                    let mut subst = env.subst.to_vec();
                    bind_element(target, el, em, ef, &mut subst);
                    let inner = Env {
                        m: env.m,
                        f: env.f,
                        subst: &subst,
                    };
                    let Handler::Funcs(fs) = self.handler(v, inner, 0) else {
                        continue;
                    };
                    for (hm, hf, _) in fs {
                        let name = self.const_of(k, inner, 0).or_else(|| {
                            // `{f.__name__: f for f in FUNCS}`
                            matches!(&k.kind, ExprKind::Attribute { attr, .. } if attr == "__name__")
                                .then(|| self.func(hm, hf).map(|x| x.name.clone()))
                                .flatten()
                        });
                        if let Some(name) = name {
                            out.push((name, hm, hf));
                        }
                    }
                }
            }
            ExprKind::Call { callee, args } => {
                // A function returning the mapping: its `return` with parameters bound.
                let Some(Val::Func(fm, ff)) = self.eval(callee, env, 0) else {
                    return;
                };
                let Some(func) = self.func(fm, ff) else {
                    return;
                };
                let mut subst = Vec::new();
                let positional = args.iter().filter(|a| a.name.is_none() && !a.spread);
                for (p, a) in func.params.iter().zip(positional) {
                    subst.push(bound_arg(&p.name, &a.value, env));
                }
                let inner = Env {
                    m: fm,
                    f: ff,
                    subst: &subst,
                };
                for r in returns(&func.body) {
                    self.mapping_of(r, inner, depth + 1, out);
                }
            }
            _ => {}
        }
    }

    fn handler(&self, e: &Expr, env: Env, depth: usize) -> Handler {
        if depth > 8 {
            return Handler::Unresolved(text_of(e));
        }
        match &e.kind {
            ExprKind::Name(n) => {
                if let Some((v, inner)) = env.bound(n) {
                    return self.handler(v, inner, depth + 1);
                }
                // `p = Prompt.from_function(fn, name=...)` then `mcp.add_prompt(p)`.
                let wraps = |x: &Expr| {
                    matches!(&x.kind, ExprKind::Call { callee, .. }
                        if matches!(last_segment(callee), Some("from_function" | "partial")))
                };
                if let Some((x, bm, bf)) = self.binding_where(e, env, &wraps, 0) {
                    // Assigned in this scope: inside an unrolled loop it reads the element.
                    let inner = Env {
                        m: bm,
                        f: bf,
                        subst: if (bm, bf) == (env.m, env.f) {
                            env.subst
                        } else {
                            &[]
                        },
                    };
                    return self.handler(x, inner, depth + 1);
                }
                if env.f != Module::TOP_LEVEL
                    && let Some(func) = self.func(env.m, env.f)
                    && let Some(i) = func.params.iter().position(|p| &p.name == n)
                    && self.with_binds(env.m, env.f, n, |b| b.is_empty())
                    && !(i == 0 && func.class.is_some())
                {
                    return Handler::Param(i, n.clone(), env.m, env.f);
                }
            }
            ExprKind::Call { callee, args } => {
                // `mcp.tool()(guard(fn))` with `fn` a parameter: the parameter is registered,
                // wrapped; the function is a registration wrapper.
                // A handler factory fed data (`make_handler(name)`) is not: its result is
                // followed below.
                if let Some(p) = args
                    .iter()
                    .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords)
                    .enumerate()
                    .find_map(|(i, a)| match &a.value.kind {
                        ExprKind::Name(_) => match self.handler(&a.value, env, depth + 1) {
                            p @ Handler::Param(..) if self.wraps_param(callee, i, env) => Some(p),
                            _ => None,
                        },
                        _ => None,
                    })
                {
                    return p;
                }
                let last = last_segment(callee);
                if matches!(last, Some("from_function" | "partial" | "wraps"))
                    && let Some(first) = args.first().filter(|a| a.name.is_none())
                {
                    let mut extra: Vec<Arg> = substitute(
                        &args
                            .iter()
                            .skip(1)
                            .filter(|a| a.name.is_some())
                            .cloned()
                            .collect::<Vec<_>>(),
                        env.subst,
                    );
                    // `Tool.from_function(fn, name)`: the SDKs take the name second.
                    if last == Some("from_function")
                        && let Some(n) = args.get(1).filter(|a| a.name.is_none() && !a.spread)
                        && let Some(folded) = self.fold_str(&n.value, env, 0)
                    {
                        extra.push(Arg {
                            name: Some("name".into()),
                            value: Expr::new(ExprKind::Str(folded), n.value.span),
                            spread: false,
                            spread_keywords: false,
                        });
                    }
                    return match self.handler(&first.value, env, depth + 1) {
                        Handler::Funcs(fs) => Handler::Funcs(
                            fs.into_iter()
                                .map(|(m, f, mut x)| {
                                    x.extend(extra.iter().cloned());
                                    (m, f, x)
                                })
                                .collect(),
                        ),
                        other => other,
                    };
                }
            }
            // `rec["fn"]` with `rec` an unrolled loop's record.
            ExprKind::Index { value, index } => {
                if let Some((v, inner)) = self.dict_entry(value, index, env) {
                    return self.handler(v, inner, depth + 1);
                }
            }
            _ => {}
        }
        match self.eval(e, env, depth + 1) {
            Some(Val::Func(m, f)) => match self.closure_of_param(env, m, f) {
                // `def tool(fn): @wraps(fn) def wrapper(...): ... fn(...); mcp.tool()(wrapper)`:
                // what is registered is a closure over the parameter, once per decorated
                // function, so the enclosing function is a wrapper like one registering `fn`.
                Some((i, name)) => Handler::Param(i, name, env.m, env.f),
                None => Handler::Funcs(vec![(m, f, Vec::new())]),
            },
            Some(Val::External) => Handler::Opaque,
            _ => Handler::Unresolved(text_of(e)),
        }
    }

    /// The parameter of the function `env` is in that the function `(m, f)`, defined inside
    /// it, calls or hands to `wraps`: a closure standing for that parameter.
    fn closure_of_param(&self, env: Env, m: usize, f: FuncId) -> Option<(usize, String)> {
        if env.f == Module::TOP_LEVEL || m != env.m || f == env.f {
            return None;
        }
        let outer = self.func(env.m, env.f)?;
        let inner = self.func(m, f)?;
        if !inner
            .qualname
            .strip_prefix(outer.qualname.as_str())
            .is_some_and(|r| r.starts_with('.'))
        {
            return None;
        }
        outer.params.iter().enumerate().find_map(|(i, p)| {
            let n = &p.name;
            (!(i == 0 && outer.class.is_some())
                && calls_or_wraps(inner, n)
                && self.with_binds(env.m, env.f, n, |b| b.is_empty()))
            .then(|| (i, n.clone()))
        })
    }

    /// Whether a call's `i`-th positional parameter is a function it wraps: the callee (or a
    /// function nested in it) calls the parameter or hands it to `wraps`. A callee outside the
    /// tree applied to a function parameter is taken to wrap it.
    fn wraps_param(&self, callee: &Expr, i: usize, env: Env) -> bool {
        let Some(Val::Func(cm, cf)) = self.eval(callee, env, 0) else {
            return true;
        };
        let Some(func) = self.func(cm, cf) else {
            return true;
        };
        let offset =
            usize::from(func.class.is_some() && !matches!(&callee.kind, ExprKind::Name(_)));
        let Some(pname) = func.params.get(i + offset).map(|p| p.name.clone()) else {
            return false;
        };
        let prefix = format!("{}.", func.qualname);
        let mods = self.mods;
        let md = &mods[cm];
        md.functions.iter().enumerate().any(|(gi, g)| {
            (gi == cf || g.qualname.starts_with(&prefix)) && calls_or_wraps(g, &pname)
        })
    }

    /// The registration's `name=`/`uri=` when it is a parameter of the function `(fm, ff)`
    /// (the wrapper itself, or the factory it is nested in) and the call `args` of that
    /// function passes a value that folds: `register(fn, "x")`, `@tool("x")`. `skip`
    /// positional arguments are not parameters of the call (none for a factory).
    fn wrapper_names(
        &self,
        w: &Wrapper,
        fm: usize,
        ff: FuncId,
        args: &[Arg],
        env: Env,
    ) -> Vec<Arg> {
        let mut out = Vec::new();
        for k in ["name", "uri"] {
            let Some(a) = self.param_arg(w, fm, ff, k, args) else {
                continue;
            };
            if let Some(v) = self.fold_str(&a.value, env, 0) {
                out.push(Arg {
                    name: Some(k.to_string()),
                    value: Expr::new(ExprKind::Str(v), a.value.span),
                    spread: false,
                    spread_keywords: false,
                });
            }
        }
        out
    }

    /// The call argument bound to the parameter a wrapper's `k=` registration argument names.
    fn param_arg<'x>(
        &self,
        w: &Wrapper,
        fm: usize,
        ff: FuncId,
        k: &str,
        args: &'x [Arg],
    ) -> Option<&'x Arg> {
        let ExprKind::Name(n) = &kwarg(&w.args, k)?.kind else {
            return None;
        };
        let func = self.func(fm, ff)?;
        let skip = usize::from(func.class.is_some());
        let i = func.params.iter().position(|p| &p.name == n)?;
        // After a `*args` parameter the argument is bound by keyword only.
        let pos = match func.params[..i].iter().any(|p| p.variadic || p.keywords) {
            true => None,
            false => i.checked_sub(skip),
        };
        bound_to_at(args, n, pos, true)
    }

    /// The name of the caller's variable passed for the wrapper's `k=` parameter when it does
    /// not fold (`register_tool(server, fn, name=name)` inside a factory taking `name`).
    fn passed_param(
        &self,
        w: &Wrapper,
        fm: usize,
        ff: FuncId,
        k: &str,
        args: &[Arg],
    ) -> Option<String> {
        match &self.param_arg(w, fm, ff, k, args)?.value.kind {
            ExprKind::Name(n) => Some(n.clone()),
            _ => None,
        }
    }

    fn def_span(&self, m: usize, f: FuncId) -> Span {
        self.func(m, f).map(|x| x.span).unwrap_or_default()
    }

    fn wrapper_entry(&mut self, w: &Wrapper, hm: usize, hf: FuncId, span: Span, extra: &[Arg]) {
        let Some(reg) = self.fw.registration(&w.method) else {
            return;
        };
        let positional = if reg.imperative {
            Some(Positional::Name)
        } else {
            reg.positional
        };
        let _ = w.style;
        let (kind, args, module, server) = (reg.kind, w.args.clone(), w.module, w.server.clone());
        self.add_entry(
            kind, positional, &args, module, hm, hf, span, &server, extra,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn add_entry(
        &mut self,
        kind: EntityKind,
        positional: Option<Positional>,
        args: &[Arg],
        args_module: usize,
        hm: usize,
        hf: FuncId,
        span: Span,
        server: &str,
        extra: &[Arg],
    ) {
        let Some(func) = self.func(hm, hf) else {
            return;
        };
        // Arguments of `Tool.from_function(fn, name=...)` win over the registration's.
        let mut all: Vec<Arg> = extra.to_vec();
        all.extend(
            args.iter()
                .filter(|a| a.name.is_none() || !extra.iter().any(|x| x.name == a.name))
                .cloned(),
        );
        let all = if extra.is_empty() { args.to_vec() } else { all };
        if !self.consts.contains_key(&args_module) {
            let c = self.constants_with_imports(args_module);
            self.consts.insert(args_module, c);
        }
        let Some(consts) = self.consts.get(&args_module) else {
            return;
        };
        let (server, sid) = untag_server(server);
        // A name written as an expression the resolver cannot fold (a name read from data, a
        // property, a call) is not the handler's name: which tools the server lists is unknown.
        let unfolded = ["name", "uri"].into_iter().find_map(|k| {
            // A bare name may be a wrapper's `name=None` default (the handler's name then).
            kwarg(&all, k)
                .filter(|e| !matches!(e.kind, ExprKind::Name(_) | ExprKind::Null))
                .filter(|e| const_str(e, consts).is_none())
                .map(|e| (k, text_of(e)))
        });
        let handler_name = func.name.clone();
        let factory = func.parent.filter(|p| *p != Module::TOP_LEVEL);
        let entry = decorator_entry(kind, positional, &all, hf, func, span, server, consts);
        // A closure registered once (a server factory reading a configured prefix) is one tool
        // under the handler's name, analysed; one registered by a factory called repeatedly
        // (per spec, per agent fetched at run time) stands for tools whose names and count are
        // unknown.
        let unfolded = unfolded.filter(|_| factory.is_none_or(|p| self.called_repeatedly(hm, p)));
        if let Some((k, text)) = unfolded {
            self.gap(
                args_module,
                span,
                format!(
                    "{} registered for `{handler_name}` with {k}=`{text}`: the {k} could not be resolved, so the listed name is unknown",
                    entry.kind.as_str()
                ),
            );
        }
        if !self.seen.insert((hm, hf, entry.kind, entry.name.clone())) {
            return;
        }
        self.entries[hm].push(entry);
        self.entry_sids[hm].push(sid);
    }

    /// Whether a tree function is called from more than one place, or from inside a loop or a
    /// comprehension.
    fn called_repeatedly(&self, m: usize, f: FuncId) -> bool {
        let Some(func) = self.func(m, f) else {
            return true;
        };
        let calls = self.calls_named(&func.name);
        let mut sites = 0;
        for (cm, cf, call) in calls.into_iter().take(MAX_CALLERS) {
            let ExprKind::Call { callee, .. } = &call.kind else {
                continue;
            };
            let env = Env {
                m: cm,
                f: cf,
                subst: &[],
            };
            if !matches!(self.eval(callee, env, 0), Some(Val::Func(tm, tf)) if tm == m && tf == f) {
                continue;
            }
            sites += 1;
            if sites > 1
                || self
                    .func(cm, cf)
                    .is_some_and(|c| in_loop(&c.body, call, false))
            {
                return true;
            }
        }
        false
    }

    /// A module's string constants plus those it imports from modules of the tree
    /// (`from .names import TOOL_NAME`, `from .tools import GitTools`).
    fn constants_with_imports(&self, m: usize) -> HashMap<String, String> {
        let md = &self.mods[m];
        let mut consts = module_constants(md);
        for i in &md.imports {
            let (Some(sym), Some(src)) = (i.symbol.as_deref(), self.module_idx(&i.module)) else {
                continue;
            };
            if src == m || consts.contains_key(&i.local) {
                continue;
            }
            let theirs = module_constants(&self.mods[src]);
            if let Some(v) = theirs.get(sym) {
                consts.insert(i.local.clone(), v.clone());
            }
            let prefix = format!("{sym}.");
            for (k, v) in &theirs {
                if let Some(rest) = k.strip_prefix(&prefix) {
                    consts.insert(format!("{}.{rest}", i.local), v.clone());
                }
            }
        }
        consts
    }

    fn apply_mounts(&mut self) {
        // A server mounted twice is listed under each prefix; keep the first (rare).
        let mut seen = HashSet::new();
        for (child, prefix) in self.mounts.clone() {
            if !seen.insert(child) {
                continue;
            }
            for (es, sids) in self.entries.iter_mut().zip(&self.entry_sids) {
                for (e, sid) in es.iter_mut().zip(sids) {
                    if *sid == Some(child)
                        && matches!(e.kind, EntityKind::Tool | EntityKind::Prompt)
                    {
                        e.name = format!("{prefix}_{}", e.name);
                    }
                }
            }
        }
    }

    /// A `__main__` that hands the process to a function of a package outside the tree (not
    /// the MCP SDK), using nothing of the tree: whatever that package serves was never scanned.
    fn external_mains(&mut self) {
        for m in 0..self.mods.len() {
            let module = &self.mods[m];
            if !(module.path == "__main__.py" || module.path.ends_with("/__main__.py")) {
                continue;
            }
            let Some(top) = module.functions.get(Module::TOP_LEVEL) else {
                continue;
            };
            let mut calls = Vec::new();
            let mut todo: Vec<&[Stmt]> = vec![&top.body];
            while let Some(body) = todo.pop() {
                for st in body {
                    for e in stmt_exprs(st) {
                        each_call_in(e, &mut calls, &mut None);
                    }
                    todo.extend(stmt_blocks(st));
                }
            }
            let defined = |n: &str| {
                module.functions.iter().any(|f| f.qualname == n)
                    || module.classes.iter().any(|c| c.name == n)
            };
            // Where a name comes from: Some(true) the tree or the SDK, Some(false) another
            // package, None a builtin or unknown.
            let origin = |n: &str| -> Option<bool> {
                if defined(n) {
                    return Some(true);
                }
                let i = module.imports.iter().find(|i| i.local == n)?;
                let full = match &i.symbol {
                    Some(sym) => format!("{}.{sym}", i.module),
                    None => i.module.clone(),
                };
                // Scanned from inside the package, `pkg.server` is the tree's `server`.
                let unprefixed = |p: &str| p.split_once('.').map(|(_, rest)| rest.to_string());
                let in_tree = [
                    Some(i.module.clone()),
                    Some(full.clone()),
                    unprefixed(&i.module),
                    unprefixed(&full),
                ]
                .into_iter()
                .flatten()
                .any(|p| self.module_idx(&p).is_some());
                Some(in_tree || self.fw.is_framework_module(&i.module))
            };
            let root = |e: &Expr| {
                e.dotted_path()
                    .map(|d| d.split('.').next().unwrap_or_default().to_string())
            };
            let mut external = None;
            let mut uses_tree = false;
            for c in &calls {
                let ExprKind::Call { callee, args } = &c.kind else {
                    continue;
                };
                match root(callee).as_deref().and_then(origin) {
                    Some(true) => uses_tree = true,
                    Some(false) => {
                        // The last one in the file is the one that takes the process over.
                        let at = (callee.dotted_path().unwrap_or_default(), c.span);
                        if external
                            .as_ref()
                            .is_none_or(|(_, sp): &(String, Span)| sp.start_byte < at.1.start_byte)
                        {
                            external = Some(at);
                        }
                    }
                    None => {}
                }
                uses_tree |= args
                    .iter()
                    .any(|a| root(&a.value).as_deref().and_then(origin) == Some(true));
            }
            if let (Some((name, span)), false) = (external, uses_tree) {
                let first = name.split('.').next().unwrap_or_default();
                let name = match module.imports.iter().find(|i| i.local == first) {
                    Some(i) if i.module != name => format!("{name}` from `{}`", i.module),
                    _ => format!("{name}`"),
                };
                self.out.gaps.push(CoverageGap {
                    kind: GapKind::UnanalysedImport,
                    file: Some(self.mods[m].path.clone()),
                    line: Some(span.start_line),
                    reason: format!(
                        "`__main__` hands the server to `{name}, outside the scanned tree; the tools that package serves were not analysed"
                    ),
                });
            }
        }
    }

    fn gap(&mut self, m: usize, span: Span, reason: String) {
        self.out.gaps.push(CoverageGap {
            kind: GapKind::UnresolvedRegistration,
            file: Some(self.mods[m].path.clone()),
            line: Some(span.start_line),
            reason,
        });
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    Wrappers,
    Sites,
}

/// Whether `call` sits in a loop body (or a comprehension) among `stmts`.
fn in_loop(stmts: &[Stmt], call: &Expr, looping: bool) -> bool {
    for s in stmts {
        let inner = looping || matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. });
        for e in stmt_exprs(s) {
            let (mut direct, mut comps) = (Vec::new(), Vec::new());
            each_call_in(e, &mut direct, &mut Some(&mut comps));
            if direct.iter().any(|c| std::ptr::eq(*c, call)) {
                return looping;
            }
            for comp in comps {
                let mut all = Vec::new();
                each_call(comp, &mut all);
                if all.iter().any(|c| std::ptr::eq(*c, call)) {
                    return true;
                }
            }
        }
        for b in stmt_blocks(s) {
            if in_loop(b, call, inner) {
                return true;
            }
        }
    }
    false
}

/// Whether a `for` target (`x`, `(name, x)`, `[*xs]`) binds `n`.
fn binds_name(target: &Expr, n: &str) -> bool {
    match &target.kind {
        ExprKind::Name(t) => t == n,
        ExprKind::Tuple(ts) | ExprKind::List(ts) => ts.iter().any(|t| binds_name(t, n)),
        ExprKind::Starred(t) => binds_name(t, n),
        _ => false,
    }
}

/// The innermost `for` statement whose body holds `call`: its target and iterable.
fn enclosing_for<'s>(stmts: &'s [Stmt], call: &Expr) -> Option<(&'s Expr, &'s Expr)> {
    let (a, b) = (call.span.start_byte, call.span.end_byte);
    for s in stmts {
        if s.span.start_byte > a || s.span.end_byte < b {
            continue;
        }
        if let StmtKind::For {
            target, iter, body, ..
        } = &s.kind
        {
            return enclosing_for(body, call).or(Some((target, iter)));
        }
        for blk in stmt_blocks(s) {
            if let Some(x) = enclosing_for(blk, call) {
                return Some(x);
            }
        }
    }
    None
}

/// Whether `p` holds for `e` or any expression inside it (not inside lambdas).
fn any_subexpr(e: &Expr, p: &mut dyn FnMut(&Expr)) {
    p(e);
    match &e.kind {
        ExprKind::Call { callee, args } => {
            any_subexpr(callee, p);
            for a in args {
                any_subexpr(&a.value, p);
            }
        }
        ExprKind::Attribute { value: x, .. }
        | ExprKind::Unary { operand: x, .. }
        | ExprKind::Await(x)
        | ExprKind::Starred(x)
        | ExprKind::NamedExpr { value: x, .. } => any_subexpr(x, p),
        ExprKind::Index { value, index } => {
            any_subexpr(value, p);
            any_subexpr(index, p);
        }
        ExprKind::Binary { left, right, .. } => {
            any_subexpr(left, p);
            any_subexpr(right, p);
        }
        ExprKind::Conditional { test, body, orelse } => {
            any_subexpr(test, p);
            any_subexpr(body, p);
            any_subexpr(orelse, p);
        }
        ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => {
            for x in xs {
                any_subexpr(x, p);
            }
        }
        _ => {}
    }
}

/// `t["name"]` / `t.get("name")` for the loop variable `t`: the field read.
fn element_field(e: &Expr, t: &str) -> Option<String> {
    let is_t = |x: &Expr| matches!(&x.kind, ExprKind::Name(n) if n == t);
    match &e.kind {
        ExprKind::Index { value, index } if is_t(value) => index.as_str().map(str::to_string),
        ExprKind::Call { callee, args } => match &callee.kind {
            ExprKind::Attribute { value, attr } if attr == "get" && is_t(value) => {
                args.first()?.value.as_str().map(str::to_string)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether a statement list (nested blocks included) adds to the list `name`
/// (`name.append(x)`, `.add`, `.insert`).
fn adds_to(stmts: &[Stmt], name: &str) -> bool {
    let (mut v, mut w) = (Vec::new(), Vec::new());
    appended_values(stmts, name, &mut v, &mut w);
    !v.is_empty() || !w.is_empty()
}

/// The values a statement list appends to `name` (`out`) and the collections it extends it
/// by (`more`: `.extend(xs)`, `+= xs`), nested blocks included.
fn appended_values<'s>(
    stmts: &'s [Stmt],
    name: &str,
    out: &mut Vec<&'s Expr>,
    more: &mut Vec<&'s Expr>,
) {
    walk_stmts(stmts, &mut |st| {
        if let StmtKind::AugAssign { target, op, value } = &st.kind
            && op == "+"
            && matches!(&target.kind, ExprKind::Name(k) if k == name)
        {
            more.push(value);
        }
        if let StmtKind::Expr(x) = &st.kind
            && let ExprKind::Call { callee, args } = &x.kind
            && let ExprKind::Attribute { value, attr } = &callee.kind
            && matches!(&value.kind, ExprKind::Name(k) if k == name)
        {
            let positional: Vec<&Expr> = args
                .iter()
                .filter(|a| a.name.is_none() && !a.spread)
                .map(|a| &a.value)
                .collect();
            match (attr.as_str(), positional.as_slice()) {
                ("append" | "add", [x]) | ("insert", [_, x]) => out.push(x),
                ("extend" | "update", [xs]) => more.push(xs),
                _ => {}
            }
        }
    });
}

fn is_identifier(t: &str) -> bool {
    let mut cs = t.chars();
    cs.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && cs.all(|c| c.is_alphanumeric() || c == '_')
}

/// Every `return <expr>` of a body, nested blocks included, in order.
fn returns(body: &[Stmt]) -> Vec<&Expr> {
    let mut rets = Vec::new();
    walk_stmts(body, &mut |st| {
        if let StmtKind::Return(Some(r)) = &st.kind {
            rets.push(r);
        }
    });
    rets
}

/// The body's only `return <expr>`, when it has exactly one.
fn sole_return(body: &[Stmt]) -> Option<&Expr> {
    match returns(body).as_slice() {
        [ret] => Some(*ret),
        _ => None,
    }
}

/// Whether a body has a `for` loop (at any depth).
fn has_loop(stmts: &[Stmt]) -> bool {
    let mut found = false;
    walk_stmts(stmts, &mut |s| {
        found |= matches!(s.kind, StmtKind::For { .. })
    });
    found
}

/// `globals()`.
fn is_globals_call(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { callee, args }
        if args.is_empty() && matches!(&callee.kind, ExprKind::Name(g) if g == "globals"))
}

/// A call that runs code in its module's globals, and what names the code: `exec(x,
/// globals())` or `exec(x)` at module level (`x` the code, unwrapped from `compile(x, ...)`;
/// false), `run_path(p, init_globals=globals())` or `globals().update(run_path(p))` (the
/// path; true; the callee is checked to be runpy's by the caller).
fn exec_into_globals(call: &Expr, top_level: bool) -> Option<(&Expr, bool)> {
    let ExprKind::Call { callee, args } = &call.kind else {
        return None;
    };
    let positional: Vec<&Expr> = args
        .iter()
        .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords)
        .map(|a| &a.value)
        .collect();
    let keyword = |k: &str| {
        args.iter()
            .find(|a| a.name.as_deref() == Some(k))
            .map(|a| &a.value)
    };
    match &callee.kind {
        ExprKind::Name(n) if n == "exec" => {
            let code = *positional.first()?;
            let globals = positional.get(1).copied().or_else(|| keyword("globals"));
            let into_module = match globals {
                None => top_level,
                Some(g) => is_globals_call(g),
            };
            if !into_module {
                return None;
            }
            let code = match &code.kind {
                ExprKind::Call { callee, args } if matches!(&callee.kind, ExprKind::Name(c) if c == "compile") => {
                    &args
                        .iter()
                        .find(|a| a.name.is_none() || a.name.as_deref() == Some("source"))?
                        .value
                }
                _ => code,
            };
            Some((code, false))
        }
        ExprKind::Attribute { value, attr } if attr == "update" && is_globals_call(value) => {
            let inner = *positional.first()?;
            let ExprKind::Call {
                callee: ic,
                args: ia,
            } = &inner.kind
            else {
                return None;
            };
            if last_segment(ic) != Some("run_path") {
                return None;
            }
            let p = ia.iter().find(|a| a.name.is_none() && !a.spread)?;
            Some((&p.value, true))
        }
        _ if last_segment(callee) == Some("run_path") => {
            let globals = positional
                .get(1)
                .copied()
                .or_else(|| keyword("init_globals"))?;
            is_globals_call(globals).then_some((*positional.first()?, true))
        }
        _ => None,
    }
}

fn walk_stmts<'s>(stmts: &'s [Stmt], f: &mut impl FnMut(&'s Stmt)) {
    for s in stmts {
        f(s);
        for b in stmt_blocks(s) {
            walk_stmts(b, f);
        }
    }
}

/// The server's id rides along with its display text (`mcp` + NUL + id) through registration
/// values, so entries can be renamed when their server is mounted under a prefix.
fn tag_server(text: &str, sid: Option<u32>) -> String {
    match sid {
        Some(id) => format!("{text}\0{id}"),
        None => text.to_string(),
    }
}

fn untag_server(s: &str) -> (&str, Option<u32>) {
    match s.split_once('\0') {
        Some((text, id)) => (text, id.parse().ok()),
        None => (s, None),
    }
}

/// Loop variables in registration arguments (`name=name`) replaced by the element they are
/// bound to, so names and descriptions resolve.
fn substitute(args: &[Arg], subst: &[Subst]) -> Vec<Arg> {
    args.iter()
        .map(|a| {
            let mut a = a.clone();
            if !subst.is_empty() {
                a.value = substitute_expr(&a.value, subst, 0);
            }
            a
        })
        .collect()
}

/// The constant start of a string built at run time (`f"pkg.tools.{name}"`, `"pkg." + name`).
fn const_prefix(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Str(s) => s.clone(),
        ExprKind::FormatStr(parts) => {
            let mut out = String::new();
            for p in parts {
                match p {
                    mcp_scan_ir::StrPart::Lit(l) => out.push_str(l),
                    mcp_scan_ir::StrPart::Expr(_) => break,
                }
            }
            out
        }
        ExprKind::Binary { op, left, .. } if op == "+" => const_prefix(left),
        _ => String::new(),
    }
}

/// The constant end of a string built at run time (`.tools` of `f"pkg.{name}.tools"`).
fn const_suffix(e: &Expr) -> String {
    match &e.kind {
        ExprKind::FormatStr(parts) => {
            let mut out = Vec::new();
            for p in parts.iter().rev() {
                match p {
                    mcp_scan_ir::StrPart::Lit(l) => out.push(l.as_str()),
                    mcp_scan_ir::StrPart::Expr(_) => break,
                }
            }
            out.into_iter().rev().collect()
        }
        ExprKind::Binary { op, right, .. } if op == "+" => match &right.kind {
            ExprKind::Str(s) => s.clone(),
            _ => const_suffix(right),
        },
        _ => String::new(),
    }
}

/// Whether the tree module `name` may be the one a [`Val::DynModule`] with this constant
/// prefix and suffix names: the prefix starts a dotted segment (the tree may sit under a
/// source folder) and what follows it ends with the suffix.
fn dyn_module_matches(name: &str, prefix: &str, suffix: &str) -> bool {
    let full = format!(".{name}");
    let pat = format!(".{prefix}");
    full.match_indices(&pat).any(|(i, _)| {
        let rest = &full[i + pat.len()..];
        rest.len() >= suffix.len() && rest.ends_with(suffix)
    })
}

/// A bound name replaced by its value, also inside the string-building expressions names are
/// written with (`f"prefix_{name}"`, `"prefix_" + name`).
fn substitute_expr(e: &Expr, subst: &[Subst], depth: usize) -> Expr {
    if depth > 8 {
        return e.clone();
    }
    match &e.kind {
        ExprKind::Name(n) => subst
            .iter()
            .rev()
            .find(|s| &s.name == n)
            .map_or_else(|| e.clone(), |s| s.value.clone()),
        ExprKind::FormatStr(parts) => Expr::new(
            ExprKind::FormatStr(
                parts
                    .iter()
                    .map(|p| match p {
                        mcp_scan_ir::StrPart::Expr(x) => {
                            mcp_scan_ir::StrPart::Expr(substitute_expr(x, subst, depth + 1))
                        }
                        lit => lit.clone(),
                    })
                    .collect(),
            ),
            e.span,
        ),
        ExprKind::Binary { op, left, right } if op == "+" => Expr::new(
            ExprKind::Binary {
                op: op.clone(),
                left: Box::new(substitute_expr(left, subst, depth + 1)),
                right: Box::new(substitute_expr(right, subst, depth + 1)),
            },
            e.span,
        ),
        _ => e.clone(),
    }
}

/// A parameter bound to a call argument written in `env` (a loop variable there stays bound).
fn bound_arg(name: &str, value: &Expr, env: Env) -> Subst {
    if let ExprKind::Name(n) = &value.kind
        && let Some(s) = env.subst.iter().rev().find(|s| &s.name == n)
    {
        return Subst {
            name: name.to_string(),
            ..s.clone()
        };
    }
    Subst {
        name: name.to_string(),
        value: value.clone(),
        module: env.m,
        func: env.f,
    }
}

fn bind_element(target: &Expr, el: &Expr, m: usize, f: FuncId, out: &mut Vec<Subst>) {
    match (&target.kind, &el.kind) {
        (ExprKind::Name(n), _) => out.push(Subst {
            name: n.clone(),
            value: el.clone(),
            module: m,
            func: f,
        }),
        (ExprKind::Tuple(ts) | ExprKind::List(ts), ExprKind::Tuple(es) | ExprKind::List(es)) => {
            // `a, b, *rest = (x, y, z, w)`: the starred target takes the middle as a list.
            match ts
                .iter()
                .position(|t| matches!(t.kind, ExprKind::Starred(_)))
            {
                None if ts.len() == es.len() => {
                    for (t, e) in ts.iter().zip(es) {
                        bind_element(t, e, m, f, out);
                    }
                }
                Some(i) if es.len() + 1 >= ts.len() => {
                    let tail = ts.len() - i - 1;
                    for (t, e) in ts[..i].iter().zip(es) {
                        bind_element(t, e, m, f, out);
                    }
                    for (t, e) in ts[i + 1..].iter().zip(&es[es.len() - tail..]) {
                        bind_element(t, e, m, f, out);
                    }
                    if let ExprKind::Starred(rest) = &ts[i].kind {
                        let middle = es[i..es.len() - tail].to_vec();
                        bind_element(rest, &Expr::new(ExprKind::List(middle), el.span), m, f, out);
                    }
                }
                _ => {}
            }
        }
        _ => {}
    }
}

/// A comprehension's element rebuilt from the loop variables an element bound
/// (`(f, name)` from `for f, name, ro in SPECS`), with where it is written; `None` when it
/// computes anything else, or mixes elements written in different places.
fn project(elt: &Expr, subst: &[Subst]) -> Option<Elem> {
    fn go(e: &Expr, subst: &[Subst], at: &mut Option<(usize, FuncId)>) -> Option<Expr> {
        match &e.kind {
            ExprKind::Name(n) => {
                let s = subst.iter().rev().find(|s| &s.name == n)?;
                if at.is_some_and(|a| a != (s.module, s.func)) {
                    return None;
                }
                *at = Some((s.module, s.func));
                Some(s.value.clone())
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => {
                let xs = xs
                    .iter()
                    .map(|x| go(x, subst, at))
                    .collect::<Option<Vec<_>>>()?;
                Some(Expr::new(ExprKind::Tuple(xs), e.span))
            }
            ExprKind::Str(_) | ExprKind::Number(_) | ExprKind::Bool(_) | ExprKind::Null => {
                Some(e.clone())
            }
            _ => None,
        }
    }
    let mut at = None;
    let x = go(elt, subst, &mut at)?;
    let (m, f) = at?;
    Some((x, m, f))
}
