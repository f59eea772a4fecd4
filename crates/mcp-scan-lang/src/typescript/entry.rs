//! MCP entry points of a TypeScript/JavaScript module, found on the IR by the framework table in
//! `grammars/typescript/frameworks.toml`: server objects are values constructed from a server
//! class imported (ES `import`, `require`, aliases, namespaces) from a framework package, instance
//! fields holding one (`this.server`), parameters typed with one, and — for registration files
//! that receive the server from elsewhere — parameters and imported names called with the exact
//! registration shape (`x.tool("name", ..., handler)`). The low-level `setRequestHandler(
//! CallToolRequestSchema, handler)` is split per tool on `switch`/`if` of the requested name and
//! on handler maps; each arm becomes a synthetic function, so every entry point has one body.

use crate::LowerError;
use mcp_scan_core::{CoverageGap, DeclaredParam, EntityKind, GapKind};
use mcp_scan_ir::{
    Arg, EntryPoint, Expr, ExprKind, FuncId, Function, MatchArm, Module, Param, Span, Stmt,
    StmtKind, StrPart,
};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

pub(crate) const FRAMEWORKS_FILE: &str = "grammars/typescript/frameworks.toml";
pub(crate) const FRAMEWORKS: &str = include_str!("../../../../grammars/typescript/frameworks.toml");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Frameworks {
    server_class: Vec<ServerClass>,
    register: Vec<Register>,
    low_level: LowLevel,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerClass {
    name: String,
    #[allow(dead_code)]
    style: String,
    packages: Vec<String>,
    /// Constructor style: the key of the constructor's config object holding the tools.
    #[serde(default)]
    tools_key: Option<String>,
    #[serde(default)]
    handler_key: Option<String>,
    #[serde(default)]
    schema_keys: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Register {
    method: String,
    kind: String,
    shape: String,
    #[serde(default)]
    uri_arg: Option<usize>,
    #[serde(default)]
    schema_keys: Vec<String>,
    #[serde(default)]
    handler_key: Option<String>,
    #[serde(default)]
    name_key: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LowLevel {
    method: String,
    call_schema: String,
    list_schema: String,
    schema_packages: Vec<String>,
    #[serde(default)]
    inner_fields: Vec<String>,
}

static TABLE: LazyLock<Result<Frameworks, String>> =
    LazyLock::new(|| toml::from_str::<Frameworks>(FRAMEWORKS).map_err(|e| e.to_string()));

pub(crate) fn table() -> Result<&'static Frameworks, LowerError> {
    TABLE.as_ref().map_err(|e| LowerError::Model {
        file: FRAMEWORKS_FILE.to_string(),
        message: e.clone(),
    })
}

/// Whether `module` belongs to a package of the framework table.
pub(crate) fn is_framework_module(module: &str) -> bool {
    table().is_ok_and(|t| {
        t.server_class
            .iter()
            .any(|c| in_package(module, &c.packages))
    })
}

fn in_package(module: &str, packages: &[String]) -> bool {
    packages
        .iter()
        .any(|p| module == p || module.starts_with(&format!("{p}/")))
}

/// How a receiver was recognised as a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    /// Constructed from (or typed as) a framework server class.
    Server,
    /// A parameter or an import from a local module: counts only with the exact shape.
    ByShape,
}

struct Ctx<'t> {
    t: &'t Frameworks,
    /// Local names (and `ns.Name` paths) of the server classes.
    classes: Vec<String>,
    /// Local names of constructor-style classes (`new C({ tools })`) and their rows.
    ctor_classes: Vec<(String, &'t ServerClass)>,
    call_schemas: Vec<String>,
    list_schemas: Vec<String>,
    servers: HashMap<String, Known>,
}

/// What resolving one module found.
#[derive(Debug, Default)]
pub(crate) struct Found {
    pub sites: usize,
    pub gaps: Vec<CoverageGap>,
    /// Module-level names bound to a server object (what importers may register on).
    pub servers: Vec<String>,
    /// CallTool handlers that hand the tool name to a function to split across the tree.
    pub delegations: Vec<Delegation>,
}

/// A function a CallTool handler may delegate to: its module and the function.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub module: String,
    pub func: FuncRef,
    /// Per parameter position: the handler passes nothing of the request there (a server
    /// object, a logger), so the parameter is not the caller's.
    pub injected: Vec<bool>,
}

#[derive(Debug, Clone)]
pub(crate) enum FuncRef {
    Id(FuncId),
    Name(String),
}

/// A CallTool handler whose tools (all, or those its own `if`/`switch` does not name) are
/// decided by a call it makes with the request: resolved over the whole tree
/// ([`split_delegate`]); when no candidate splits, a coverage gap and `fallback`.
#[derive(Debug)]
pub(crate) struct Delegation {
    pub module: String,
    pub file: String,
    pub line: u32,
    pub recv: String,
    pub candidates: Vec<Candidate>,
    /// Tools the handler already split itself.
    pub own: Vec<String>,
    /// The whole-handler entry points used when no candidate splits (module `module`).
    pub fallback: Vec<EntryPoint>,
}

/// Finds the entry points of `module` and appends them (and the synthetic functions of split
/// dispatchers) to it. `imported_servers` are the local names of server objects other modules
/// of the tree export (`import { server } from "./server.js"`).
pub(crate) fn find_entry_points(
    module: &mut Module,
    imported_servers: &[String],
) -> Result<Found, LowerError> {
    let t = table()?;
    let mut cx = Ctx {
        t,
        classes: Vec::new(),
        ctor_classes: Vec::new(),
        call_schemas: Vec::new(),
        list_schemas: Vec::new(),
        servers: HashMap::new(),
    };
    for imp in &module.imports {
        for c in &t.server_class {
            if in_package(&imp.module, &c.packages) {
                let local = match &imp.symbol {
                    Some(s) if *s == c.name => imp.local.clone(),
                    None => format!("{}.{}", imp.local, c.name),
                    _ => continue,
                };
                if c.tools_key.is_some() {
                    cx.ctor_classes.push((local.clone(), c));
                }
                cx.classes.push(local);
            }
        }
        if in_package(&imp.module, &t.low_level.schema_packages) {
            match &imp.symbol {
                Some(s) if *s == t.low_level.call_schema => cx.call_schemas.push(imp.local.clone()),
                Some(s) if *s == t.low_level.list_schema => cx.list_schemas.push(imp.local.clone()),
                None => {
                    cx.call_schemas
                        .push(format!("{}.{}", imp.local, t.low_level.call_schema));
                    cx.list_schemas
                        .push(format!("{}.{}", imp.local, t.low_level.list_schema));
                }
                _ => {}
            }
        }
        if imp.module.starts_with("./") {
            let known = if imported_servers.contains(&imp.local) {
                Known::Server
            } else {
                Known::ByShape
            };
            cx.servers.insert(imp.local.clone(), known);
        }
    }
    // Subclasses of a server class construct servers too.
    let mut grew = true;
    while grew {
        grew = false;
        for c in &module.classes {
            if !cx.classes.contains(&c.name) && c.bases.iter().any(|b| cx.classes.contains(b)) {
                cx.classes.push(c.name.clone());
                grew = true;
            }
        }
    }
    // Functions that return a new server (`function createServer() { return new FastMCP() }`,
    // or a local they bound to one) construct servers too.
    let mut factories: Vec<String> = Vec::new();
    let mut grew = true;
    while grew {
        grew = false;
        for f in &module.functions {
            if factories.contains(&f.qualname) {
                continue;
            }
            let makes =
                |c: &str| cx.classes.iter().any(|k| k == c) || factories.iter().any(|k| k == c);
            let mut locals: Vec<String> = Vec::new();
            let mut returns: Vec<Expr> = Vec::new();
            walk_stmts(
                &f.body,
                &mut |s| match &s.kind {
                    StmtKind::Assign { targets, value }
                        if constructed(value).is_some_and(|c| makes(&c)) =>
                    {
                        locals.extend(targets.iter().filter_map(Expr::dotted_path));
                    }
                    StmtKind::Return(Some(e)) => returns.push(e.clone()),
                    _ => {}
                },
                &mut |_| {},
            );
            let returns_server = returns.iter().any(|e| {
                constructed(e).is_some_and(|c| makes(&c))
                    || e.dotted_path().is_some_and(|p| locals.contains(&p))
            });
            if returns_server {
                factories.push(f.qualname.clone());
                grew = true;
            }
        }
    }
    // Names bound to an object literal: their methods are the literal's, whatever they are
    // called (a local registrar `{ addTool: (t) => ... }` is not a server).
    let mut literals: Vec<String> = Vec::new();
    let mut calls: Vec<(FuncId, Expr)> = Vec::new();
    for (fi, f) in module.functions.iter().enumerate() {
        for p in &f.params {
            let typed = p
                .annotation
                .as_deref()
                .is_some_and(|a| cx.classes.iter().any(|c| a == c));
            let known = if typed { Known::Server } else { Known::ByShape };
            cx.servers.entry(p.name.clone()).or_insert(known);
        }
        walk_stmts(
            &f.body,
            &mut |s| {
                if let StmtKind::Assign { targets, value } = &s.kind
                    && let Some(callee) = constructed(value)
                    && (cx.classes.contains(&callee) || factories.contains(&callee))
                {
                    for tg in targets {
                        if let Some(p) = tg.dotted_path() {
                            cx.servers.insert(p, Known::Server);
                        }
                    }
                }
                if let StmtKind::Assign { targets, value } = &s.kind
                    && matches!(value.kind, ExprKind::Dict(_))
                {
                    literals.extend(targets.iter().filter_map(Expr::dotted_path));
                }
            },
            &mut |e| {
                if matches!(e.kind, ExprKind::Call { .. }) {
                    calls.push((fi, e.clone()));
                }
            },
        );
    }
    let mut found = Found {
        servers: cx
            .servers
            .iter()
            .filter(|(k, v)| **v == Known::Server && !k.contains('.'))
            .filter(|(k, _)| {
                // Module-level bindings only: a parameter of the same name is not exported.
                module.functions.first().is_some_and(|top| {
                    top.body.iter().any(|st| match &st.kind {
                        StmtKind::Assign { targets, .. } => targets
                            .iter()
                            .any(|t| matches!(&t.kind, ExprKind::Name(n) if n == *k)),
                        _ => false,
                    })
                })
            })
            .map(|(k, _)| k.clone())
            .collect(),
        ..Found::default()
    };
    let mut sites = 0;
    let mut eps = Vec::new();
    for (fi, call) in &calls {
        let ExprKind::Call { callee, args } = &call.kind else {
            continue;
        };
        if let Some(path) = callee.dotted_path()
            && let Some((_, class)) = cx.ctor_classes.iter().find(|(l, _)| *l == path)
        {
            let (found_eps, unresolved) = constructor_tools(module, *fi, class, args, call.span);
            sites += usize::from(!found_eps.is_empty() || unresolved > 0);
            if unresolved > 0 {
                found.gaps.push(CoverageGap {
                    kind: GapKind::UnresolvedRegistration,
                    file: Some(module.path.clone()),
                    line: Some(call.span.start_line),
                    reason: format!(
                        "`new {path}(...)` is given {unresolved} tool(s) whose id or handler the scan cannot follow"
                    ),
                });
            }
            eps.extend(found_eps);
            continue;
        }
        let ExprKind::Attribute { value: recv, attr } = &callee.kind else {
            continue;
        };
        // `new McpServer(...).tool(...)` chains and `server.tool(...).tool(...)` are rare; the
        // receiver is a name or a field path.
        let Some(recv_path) = recv.dotted_path() else {
            continue;
        };
        // `mcpServer.server`: the low-level server inside a high-level one.
        let known = cx.servers.get(&recv_path).copied().or_else(|| {
            let (outer, field) = recv_path.rsplit_once('.')?;
            (cx.t.low_level.inner_fields.iter().any(|f| f == field)
                && cx.servers.get(outer) == Some(&Known::Server))
            .then_some(Known::Server)
        });
        let Some(known) = known else {
            // A call with a registration's exact shape on a receiver the scan cannot follow to
            // a server object, in a module that imports a server framework: tools may be
            // registered there that nobody analysed, so the scan says so rather than drop them.
            if !cx.classes.is_empty()
                && !literals.contains(&recv_path)
                && let Some(reg) = cx.t.register.iter().find(|r| r.method == *attr)
                && registration_shaped(module, reg, args)
            {
                sites += 1;
                found.gaps.push(CoverageGap {
                    kind: GapKind::UnresolvedRegistration,
                    file: Some(module.path.clone()),
                    line: Some(call.span.start_line),
                    reason: format!(
                        "`{recv_path}.{attr}(...)` has the shape of a {} registration, but the scan cannot follow `{recv_path}` to a server object",
                        reg.kind
                    ),
                });
            }
            continue;
        };
        if *attr == cx.t.low_level.method {
            let Some(first) = args.first().and_then(|a| a.value.dotted_path()) else {
                continue;
            };
            if cx.call_schemas.contains(&first)
                || (known == Known::ByShape && first.ends_with(&cx.t.low_level.call_schema))
            {
                sites += 1;
                if let Some(h) = args.get(1) {
                    let (found_eps, split, delegation) =
                        low_level(module, *fi, &h.value, call.span, &recv_path, &cx);
                    if let Some(d) = delegation {
                        // Split (or not) once the whole tree is known.
                        found.delegations.push(d);
                    } else if !split {
                        found.gaps.push(CoverageGap {
                            kind: GapKind::UnresolvedRegistration,
                            file: Some(module.path.clone()),
                            line: Some(call.span.start_line),
                            reason: format!(
                                "the CallTool handler of `{recv_path}` is not split per tool (no switch, if or handler map on the tool name the scan can follow){}",
                                if found_eps.is_empty() {
                                    String::new()
                                } else {
                                    format!("; its {} listed tools are each reported with the whole handler", found_eps.len())
                                }
                            ),
                        });
                    }
                    eps.extend(found_eps);
                }
            }
            continue;
        }
        let Some(reg) = cx.t.register.iter().find(|r| r.method == *attr) else {
            continue;
        };
        match registration(module, *fi, reg, args, call.span, &recv_path, known) {
            Some(ep) => {
                sites += 1;
                eps.push(ep);
            }
            // A registration on a known server whose name or handler is computed (a loop over
            // a tool table): tools nobody analysed, so the scan says so. On a receiver known
            // only by shape, a function literal passed as the handler is the evidence.
            None if known == Known::Server
                || (args.len() >= 2
                    && args
                        .last()
                        .is_some_and(|a| matches!(a.value.kind, ExprKind::Lambda(_)))) =>
            {
                sites += 1;
                found.gaps.push(CoverageGap {
                    kind: GapKind::UnresolvedRegistration,
                    file: Some(module.path.clone()),
                    line: Some(call.span.start_line),
                    reason: format!(
                        "`{recv_path}.{attr}(...)` registers a {} whose name or handler is not a constant or a function the scan can follow",
                        reg.kind
                    ),
                });
            }
            None => {}
        }
    }
    module.entry_points.extend(eps);
    found.sites = sites;
    Ok(found)
}

/// The callee of `new C(...)` / `C(...)` / `await C.create(...)`.
fn constructed(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Call { callee, .. } => callee.dotted_path(),
        ExprKind::Await(inner) => constructed(inner),
        _ => None,
    }
}

fn walk_stmts(stmts: &[Stmt], fs: &mut dyn FnMut(&Stmt), fe: &mut dyn FnMut(&Expr)) {
    for s in stmts {
        fs(s);
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    walk_expr(t, fe);
                }
                walk_expr(value, fe);
            }
            StmtKind::AugAssign { target, value, .. } => {
                walk_expr(target, fe);
                walk_expr(value, fe);
            }
            StmtKind::Expr(e) => walk_expr(e, fe),
            StmtKind::Return(e) | StmtKind::Raise(e) => {
                if let Some(e) = e {
                    walk_expr(e, fe);
                }
            }
            StmtKind::If { test, then, orelse } => {
                walk_expr(test, fe);
                walk_stmts(then, fs, fe);
                walk_stmts(orelse, fs, fe);
            }
            StmtKind::While { test, body, orelse } => {
                walk_expr(test, fe);
                walk_stmts(body, fs, fe);
                walk_stmts(orelse, fs, fe);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                ..
            } => {
                walk_expr(target, fe);
                walk_expr(iter, fe);
                walk_stmts(body, fs, fe);
                walk_stmts(orelse, fs, fe);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                walk_stmts(body, fs, fe);
                for h in handlers {
                    walk_stmts(&h.body, fs, fe);
                }
                walk_stmts(orelse, fs, fe);
                walk_stmts(finally, fs, fe);
            }
            StmtKind::With { items, body, .. } => {
                for i in items {
                    walk_expr(&i.context, fe);
                }
                walk_stmts(body, fs, fe);
            }
            StmtKind::Match { subject, arms } | StmtKind::Switch { subject, arms } => {
                walk_expr(subject, fe);
                for a in arms {
                    walk_stmts(&a.body, fs, fe);
                }
            }
            StmtKind::Labeled { body, .. } => walk_stmts(body, fs, fe),
            StmtKind::Delete(es) => {
                for e in es {
                    walk_expr(e, fe);
                }
            }
            _ => {}
        }
    }
}

fn walk_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Attribute { value, .. } => walk_expr(value, f),
        ExprKind::Index { value, index } => {
            walk_expr(value, f);
            walk_expr(index, f);
        }
        ExprKind::Call { callee, args } => {
            walk_expr(callee, f);
            for a in args {
                walk_expr(&a.value, f);
            }
        }
        ExprKind::FormatStr(parts) => {
            for p in parts {
                if let StrPart::Expr(x) = p {
                    walk_expr(x, f);
                }
            }
        }
        ExprKind::Binary { left, right, .. } => {
            walk_expr(left, f);
            walk_expr(right, f);
        }
        ExprKind::Unary { operand, .. } => walk_expr(operand, f),
        ExprKind::Conditional { test, body, orelse } => {
            walk_expr(test, f);
            walk_expr(body, f);
            walk_expr(orelse, f);
        }
        ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => {
            for x in xs {
                walk_expr(x, f);
            }
        }
        ExprKind::Dict(items) => {
            for (k, v) in items {
                if let Some(k) = k {
                    walk_expr(k, f);
                }
                walk_expr(v, f);
            }
        }
        ExprKind::Await(x) | ExprKind::Starred(x) => walk_expr(x, f),
        ExprKind::NamedExpr { value, .. } => walk_expr(value, f),
        _ => {}
    }
}

fn is_function(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Lambda(_) | ExprKind::Name(_) => true,
        ExprKind::Attribute { .. } => true,
        // `this.handle.bind(this)`
        ExprKind::Call { callee, .. } => {
            matches!(&callee.kind, ExprKind::Attribute { attr, .. } if attr == "bind")
        }
        _ => false,
    }
}

/// Whether a call has the arguments a registration of `reg` takes: an object with a constant
/// name and a handler (object shape), or a constant name and a function literal.
fn registration_shaped(module: &Module, reg: &Register, args: &[Arg]) -> bool {
    let Some(first) = args.first() else {
        return false;
    };
    if reg.shape == "object" {
        let obj = with_spreads(module, resolve_const(module, &first.value), 0);
        let name_key = reg.name_key.as_deref().unwrap_or("name");
        return dict_get(&obj, name_key).is_some_and(|n| const_str(module, n).is_some())
            && reg
                .handler_key
                .as_deref()
                .is_some_and(|h| dict_get(&obj, h).is_some_and(is_function));
    }
    const_str(module, &first.value).is_some()
        && args[1..]
            .iter()
            .any(|a| matches!(a.value.kind, ExprKind::Lambda(_)))
}

/// An object literal with the entries of the module-level objects it spreads
/// (`{ ...scrapeTool, _meta }`) written out in place, later entries winning as in JavaScript.
fn with_spreads(module: &Module, e: &Expr, depth: usize) -> Expr {
    let ExprKind::Dict(items) = &e.kind else {
        return e.clone();
    };
    if depth > 4 || items.iter().all(|(k, _)| k.is_some()) {
        return e.clone();
    }
    let mut out = Vec::new();
    for (k, v) in items {
        match k {
            Some(_) => out.push((k.clone(), v.clone())),
            None => match with_spreads(module, resolve_const(module, v), depth + 1).kind {
                ExprKind::Dict(inner) => out.extend(inner),
                _ => out.push((None, v.clone())),
            },
        }
    }
    Expr::new(ExprKind::Dict(out), e.span)
}

/// A module-level constant a name is bound to (`const schema = {...}`), for schemas and names
/// declared apart from the registration.
fn resolve_const<'m>(module: &'m Module, e: &'m Expr) -> &'m Expr {
    let mut cur = e;
    for _ in 0..8 {
        let ExprKind::Name(n) = &cur.kind else {
            return cur;
        };
        let found = module.functions.first().and_then(|top| {
            top.body.iter().rev().find_map(|s| match &s.kind {
                StmtKind::Assign { targets, value }
                    if targets
                        .iter()
                        .any(|t| matches!(&t.kind, ExprKind::Name(x) if x == n)) =>
                {
                    Some(value)
                }
                _ => None,
            })
        });
        match found {
            Some(v) => cur = v,
            None => return cur,
        }
    }
    cur
}

fn const_str(module: &Module, e: &Expr) -> Option<String> {
    match &resolve_const(module, e).kind {
        ExprKind::Str(s) => Some(s.clone()),
        // `TOOLS.repo_list` of a module-level `const TOOLS = { repo_list: "repo_list" }`.
        ExprKind::Attribute { value, attr } => {
            let obj = resolve_const(module, value);
            const_str(module, dict_get(obj, attr)?)
        }
        ExprKind::Binary { op, left, right } if op == "+" => {
            Some(const_str(module, left)? + &const_str(module, right)?)
        }
        _ => None,
    }
}

fn dict_get<'e>(e: &'e Expr, key: &str) -> Option<&'e Expr> {
    let ExprKind::Dict(items) = &e.kind else {
        return None;
    };
    items.iter().rev().find_map(|(k, v)| match k {
        Some(k) if k.as_str() == Some(key) => Some(v),
        _ => None,
    })
}

/// Parameters from a zod shape (`{ a: z.string().describe("...") }`, `z.object({...})`) or a
/// JSON-schema literal (`{ type: "object", properties: {...} }`).
fn schema_params(module: &Module, e: &Expr) -> Vec<DeclaredParam> {
    let e = resolve_const(module, e);
    // `Schema.shape` of a `z.object(...)` constant.
    if let ExprKind::Attribute { value, attr } = &e.kind
        && attr == "shape"
    {
        return schema_params(module, value);
    }
    // `z.object({...})` and its `.strict()`/`.describe()` chain.
    if let ExprKind::Call { callee, args } = &e.kind
        && let ExprKind::Attribute { value, attr } = &callee.kind
    {
        if attr == "object"
            && let Some(a) = args.first()
        {
            return schema_params(module, &a.value);
        }
        return schema_params(module, value);
    }
    if let Some(props) = dict_get(e, "properties") {
        let props = resolve_const(module, props);
        let ExprKind::Dict(items) = &props.kind else {
            return Vec::new();
        };
        return items
            .iter()
            .filter_map(|(k, v)| {
                let name = k.as_ref()?.as_str()?.to_string();
                let v = resolve_const(module, v);
                Some(DeclaredParam {
                    name,
                    type_hint: dict_get(v, "type").and_then(|t| const_str(module, t)),
                    description: dict_get(v, "description").and_then(|d| const_str(module, d)),
                })
            })
            .collect();
    }
    let ExprKind::Dict(items) = &e.kind else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|(k, v)| {
            let name = k.as_ref()?.as_str()?.to_string();
            let (type_hint, description) = zod_field(module, v);
            Some(DeclaredParam {
                name,
                type_hint,
                description,
            })
        })
        .collect()
}

/// The base type and `.describe(...)` text of a zod chain (`z.string().min(1).describe("x")`).
fn zod_field(module: &Module, e: &Expr) -> (Option<String>, Option<String>) {
    let mut ty = None;
    let mut desc = None;
    let mut cur = e;
    for _ in 0..32 {
        let ExprKind::Call { callee, args } = &cur.kind else {
            break;
        };
        let ExprKind::Attribute { value, attr } = &callee.kind else {
            break;
        };
        if attr == "describe" && desc.is_none() {
            desc = args.first().and_then(|a| const_str(module, &a.value));
        }
        if matches!(&value.kind, ExprKind::Name(_)) {
            ty = Some(attr.clone());
            break;
        }
        cur = value;
    }
    (ty, desc)
}

fn kind_of(k: &str) -> EntityKind {
    match k {
        "resource" => EntityKind::Resource,
        "prompt" => EntityKind::Prompt,
        _ => EntityKind::Tool,
    }
}

/// A wrapper function calling a handler that is not a function literal (a name, an imported
/// function, `this.handle.bind(this)`): the flow engine follows the call from it.
fn wrapper(module: &mut Module, parent: FuncId, handler: &Expr, span: Span) -> FuncId {
    let id = module.functions.len();
    let arg = |n: &str| Arg {
        name: None,
        value: Expr::new(ExprKind::Name(n.to_string()), span),
        spread: false,
        spread_keywords: false,
    };
    let class = module.functions.get(parent).and_then(|f| f.class.clone());
    let mut params = Vec::new();
    if class.is_some() {
        params.push(plain_param(super::RECEIVER));
    }
    params.push(plain_param("<args>"));
    params.push(plain_param("<extra>"));
    module.functions.push(Function {
        name: format!("<handler@{}>", span.start_line),
        qualname: format!("<handler@{}>", span.start_line),
        params,
        body: vec![Stmt {
            kind: StmtKind::Return(Some(Expr::new(
                ExprKind::Call {
                    callee: Box::new(handler.clone()),
                    args: vec![arg("<args>"), arg("<extra>")],
                },
                span,
            ))),
            span,
        }],
        decorators: Vec::new(),
        docstring: None,
        is_async: true,
        parent: Some(parent),
        class,
        span,
    });
    id
}

fn plain_param(n: &str) -> Param {
    Param {
        name: n.to_string(),
        annotation: None,
        default: None,
        variadic: false,
        keywords: false,
        injected: false,
        receiver: false,
    }
}

fn handler_func(module: &mut Module, parent: FuncId, h: &Expr, span: Span) -> FuncId {
    match &h.kind {
        ExprKind::Lambda(f) => *f,
        _ => wrapper(module, parent, h, span),
    }
}

/// The entry point of a tool object (`{ name, description, parameters, execute }`): its
/// description and schema read from the object, its handler the given function.
fn object_entry(
    module: &mut Module,
    fi: FuncId,
    obj: &Expr,
    handler: &Expr,
    schema_keys: &[String],
    (kind, name, span, recv): (EntityKind, String, Span, &str),
) -> EntryPoint {
    let description = dict_get(obj, "description").and_then(|d| const_str(module, d));
    let params = schema_keys
        .iter()
        .find_map(|k| dict_get(obj, k))
        .map(|s| schema_params(module, s))
        .unwrap_or_default();
    let function = handler_func(module, fi, handler, span);
    EntryPoint {
        kind,
        name,
        description,
        function,
        params,
        span,
        server_var: recv.to_string(),
    }
}

fn registration(
    module: &mut Module,
    fi: FuncId,
    reg: &Register,
    args: &[Arg],
    span: Span,
    recv: &str,
    known: Known,
) -> Option<EntryPoint> {
    let kind = kind_of(&reg.kind);
    match reg.shape.as_str() {
        "object" => {
            let obj = with_spreads(module, resolve_const(module, &args.first()?.value), 0);
            let name_key = reg.name_key.as_deref().unwrap_or("name");
            let name = dict_get(&obj, name_key).and_then(|n| const_str(module, n))?;
            let handler = dict_get(&obj, reg.handler_key.as_deref()?)?.clone();
            if known == Known::ByShape && !is_function(&handler) {
                return None;
            }
            Some(object_entry(
                module,
                fi,
                &obj,
                &handler,
                &reg.schema_keys,
                (kind, name, span, recv),
            ))
        }
        _ => {
            let first = &args.first()?.value;
            let name_at = if kind == EntityKind::Resource {
                reg.uri_arg.unwrap_or(0)
            } else {
                0
            };
            let label = const_str(module, first)?;
            let name = args
                .get(name_at)
                .and_then(|a| const_str(module, &a.value))
                .or_else(|| {
                    // `new ResourceTemplate("x://{id}", ...)`
                    let a = &args.get(name_at)?.value;
                    if let ExprKind::Call { args, .. } = &a.kind {
                        const_str(module, &args.first()?.value)
                    } else {
                        None
                    }
                })
                .unwrap_or(label);
            let handler_at = args.iter().rposition(|a| is_function(&a.value))?;
            if handler_at == 0 {
                return None;
            }
            let handler = args[handler_at].value.clone();
            if known == Known::ByShape && !matches!(handler.kind, ExprKind::Lambda(_)) {
                // Without a recognised server the shape is the evidence: a literal handler.
                if !matches!(handler.kind, ExprKind::Name(_)) {
                    return None;
                }
            }
            let mut description = None;
            let mut params = Vec::new();
            for a in &args[1..handler_at] {
                let v = resolve_const(module, &a.value);
                match &v.kind {
                    ExprKind::Str(_) | ExprKind::Binary { .. } if description.is_none() => {
                        if let Some(s) = const_str(module, v) {
                            description = Some(s);
                        }
                    }
                    ExprKind::Dict(_) | ExprKind::Call { .. } if reg.shape == "config" => {
                        if description.is_none() {
                            description = dict_get(v, "description")
                                .and_then(|d| const_str(module, d))
                                .or_else(|| {
                                    dict_get(v, "title").and_then(|d| const_str(module, d))
                                });
                        }
                        if params.is_empty()
                            && let Some(s) = reg.schema_keys.iter().find_map(|k| dict_get(v, k))
                        {
                            params = schema_params(module, s);
                        }
                    }
                    ExprKind::Dict(_) | ExprKind::Call { .. } if params.is_empty() => {
                        // The first object is the parameter shape; a later one the annotations.
                        params = schema_params(module, v);
                        if params.is_empty() {
                            continue;
                        }
                    }
                    _ => {}
                }
            }
            let function = handler_func(module, fi, &handler, span);
            Some(EntryPoint {
                kind,
                name,
                description,
                function,
                params,
                span,
                server_var: recv.to_string(),
            })
        }
    }
}

/// The tools a constructor-style server is given (`new MCPServer({ tools: { id: tool } })`):
/// one entry point per key whose value (an object literal, a constant bound to one, or a
/// `createTool({...})` call on one) has a handler; the count of entries it cannot follow.
fn constructor_tools(
    module: &mut Module,
    fi: FuncId,
    class: &ServerClass,
    args: &[Arg],
    span: Span,
) -> (Vec<EntryPoint>, usize) {
    let (Some(cfg), Some(key), Some(hkey)) = (args.first(), &class.tools_key, &class.handler_key)
    else {
        return (Vec::new(), 0);
    };
    let cfg = with_spreads(module, resolve_const(module, &cfg.value), 0);
    let Some(tools) = dict_get(&cfg, key) else {
        return (Vec::new(), 0);
    };
    let tools = with_spreads(module, resolve_const(module, tools), 0);
    let ExprKind::Dict(items) = &tools.kind else {
        return (Vec::new(), 1);
    };
    let mut eps = Vec::new();
    let mut unresolved = 0;
    for (k, v) in items {
        let Some(name) = k.as_ref().and_then(|k| const_str(module, k)) else {
            unresolved += 1;
            continue;
        };
        let mut obj = resolve_const(module, v);
        if let ExprKind::Call { args, .. } = &obj.kind
            && let Some(a) = args.first()
        {
            obj = resolve_const(module, &a.value);
        }
        let obj = with_spreads(module, obj, 0);
        let Some(handler) = dict_get(&obj, hkey).filter(|h| is_function(h)).cloned() else {
            unresolved += 1;
            continue;
        };
        let recv = format!("new {}", class.name);
        eps.push(object_entry(
            module,
            fi,
            &obj,
            &handler,
            &class.schema_keys,
            (EntityKind::Tool, name, span, &recv),
        ));
    }
    (eps, unresolved)
}

/// Tool declarations in the module (`{ name: "x", description, inputSchema }` literals, as the
/// `tools/list` handler returns them), by name.
fn declared_tools(module: &Module) -> Declared {
    let mut out = BTreeMap::new();
    for f in &module.functions {
        walk_stmts(&f.body, &mut |_| {}, &mut |e| {
            if let Some(n) = dict_get(e, "name")
                && let Some(name) = const_str(module, n)
                && let Some(schema) =
                    dict_get(e, "inputSchema").or_else(|| dict_get(e, "input_schema"))
            {
                let desc = dict_get(e, "description").and_then(|d| const_str(module, d));
                let params = schema_params(module, schema);
                out.insert(name, (desc, params));
            }
        });
    }
    out
}

/// Splits a `CallToolRequestSchema` handler per tool name: on its own `switch`/`if`/handler
/// map, or — when it hands the request to a function (`handleToolCall(name, args)`, in this
/// module or another) — as a [`Delegation`] resolved over the tree.
fn low_level(
    module: &mut Module,
    fi: FuncId,
    handler: &Expr,
    span: Span,
    recv: &str,
    _cx: &Ctx<'_>,
) -> (Vec<EntryPoint>, bool, Option<Delegation>) {
    let hid = handler_id(module, handler, 0);
    let declared = declared_tools(module);
    let ep = |name: String, function: FuncId| {
        let (description, params) = declared.get(&name).cloned().unwrap_or_default();
        EntryPoint {
            kind: EntityKind::Tool,
            name,
            description,
            function,
            params,
            span,
            server_var: recv.to_string(),
        }
    };
    let Some(hid) = hid else {
        let f = wrapper(module, fi, handler, span);
        return (
            whole(declared.keys().cloned().collect(), f, ep),
            false,
            None,
        );
    };

    let h = module.functions[hid].clone();
    let body = module.functions[unwrapped(module, hid)].body.clone();
    let mut arms: Vec<(String, Vec<Stmt>)> = Vec::new();
    let mut residual: Vec<Stmt> = Vec::new();
    find_arms(&body, &[], &declared, &mut arms, &mut residual, 0);
    if arms.is_empty() {
        arms = map_arms(module, &body, h.span);
    }
    dedup_arms(&mut arms);
    let rest = if arms.is_empty() { &body } else { &residual };
    let candidates = delegates(module, hid, &h, &body, rest);
    let mut out = Vec::new();
    for (name, body) in &arms {
        let id = module.functions.len();
        let mut params = Vec::new();
        let mut pro = Vec::new();
        let mut rest = h.params.iter();
        if h.class.is_some() {
            params.push(plain_param(super::RECEIVER));
            rest.next();
        }
        params.push(plain_param("<request>"));
        params.push(plain_param("<extra>"));
        // The handler's own parameters see the request: `request.params.arguments`.
        if let Some(p) = rest.next() {
            pro.push(Stmt {
                kind: StmtKind::Assign {
                    targets: vec![Expr::new(ExprKind::Name(p.name.clone()), span)],
                    value: Expr::new(
                        ExprKind::Dict(vec![
                            (
                                Some(Expr::new(ExprKind::Str("params".into()), span)),
                                Expr::new(ExprKind::Name("<request>".into()), span),
                            ),
                            (
                                Some(Expr::new(ExprKind::Str("method".into()), span)),
                                Expr::new(ExprKind::Str("tools/call".into()), span),
                            ),
                        ]),
                        span,
                    ),
                },
                span,
            });
        }
        if let Some(p) = rest.next() {
            pro.push(Stmt {
                kind: StmtKind::Assign {
                    targets: vec![Expr::new(ExprKind::Name(p.name.clone()), span)],
                    value: Expr::new(ExprKind::Name("<extra>".into()), span),
                },
                span,
            });
        }
        pro.extend(body.iter().cloned());
        module.functions.push(Function {
            name: format!("<call_tool:{name}>"),
            qualname: format!("{}.<call_tool:{name}>", h.qualname),
            params,
            body: pro,
            decorators: Vec::new(),
            docstring: None,
            is_async: h.is_async,
            parent: h.parent,
            class: h.class.clone(),
            span: h.span,
        });
        out.push(ep(name.clone(), id));
    }
    if !candidates.is_empty() {
        let fallback = if arms.is_empty() {
            whole(declared.keys().cloned().collect(), hid, ep)
        } else {
            Vec::new()
        };
        let d = Delegation {
            module: module.name.clone(),
            file: module.path.clone(),
            line: span.start_line,
            recv: recv.to_string(),
            candidates,
            own: arms.iter().map(|(n, _)| n.clone()).collect(),
            fallback,
        };
        return (out, true, Some(d));
    }
    if arms.is_empty() {
        return (
            whole(declared.keys().cloned().collect(), hid, ep),
            false,
            None,
        );
    }
    (out, true, None)
}

/// The function a handler expression is: a function literal, a named function, or the
/// function a wrapper call is given (`log.wrap("CallTool", monitor(async (req) => ...))`).
fn handler_id(module: &Module, e: &Expr, depth: usize) -> Option<FuncId> {
    if depth > 4 {
        return None;
    }
    match &e.kind {
        ExprKind::Lambda(f) => Some(*f),
        ExprKind::Name(n) => module.function_by_qualname(n),
        ExprKind::Call { args, .. } => args
            .iter()
            .rev()
            .find_map(|a| handler_id(module, &a.value, depth + 1)),
        _ => None,
    }
}

/// The function whose body does the work: a body that only returns a helper's call on a
/// function literal (`return __awaiter(this, void 0, void 0, function* () {...})`, a retry or
/// timing wrapper) is that literal's.
fn unwrapped(module: &Module, fid: FuncId) -> FuncId {
    let mut cur = fid;
    for _ in 0..4 {
        let Some(f) = module.functions.get(cur) else {
            break;
        };
        let [
            Stmt {
                kind: StmtKind::Return(Some(e)),
                ..
            },
        ] = f.body.as_slice()
        else {
            break;
        };
        let e = match &e.kind {
            ExprKind::Await(x) => x,
            _ => e,
        };
        let ExprKind::Call { args, .. } = &e.kind else {
            break;
        };
        match args.iter().find_map(|a| match a.value.kind {
            ExprKind::Lambda(g) => Some(g),
            _ => None,
        }) {
            Some(g) => cur = g,
            None => break,
        }
    }
    cur
}

/// Whether `e` reads one of `names`.
fn mentions(e: &Expr, names: &[String]) -> bool {
    let mut hit = false;
    walk_expr(e, &mut |x| {
        if let ExprKind::Name(n) = &x.kind
            && names.contains(n)
        {
            hit = true;
        }
    });
    hit
}

/// The calls of a CallTool handler (in `rest`: the statements its own dispatch leaves to
/// others) that pass on the request or a value taken from it, to a function the scan can find:
/// the functions the tool name may be dispatched in.
fn delegates(
    module: &Module,
    hid: FuncId,
    h: &Function,
    body: &[Stmt],
    rest: &[Stmt],
) -> Vec<Candidate> {
    let Some(req) = h
        .params
        .iter()
        .find(|p| !p.receiver && p.name != super::RECEIVER)
    else {
        return Vec::new();
    };
    // Names bound from the request (`const { name, arguments: args } = request.params`).
    let mut derived = vec![req.name.clone()];
    let mut grew = true;
    while grew {
        grew = false;
        walk_stmts(
            body,
            &mut |s| {
                if let StmtKind::Assign { targets, value } = &s.kind
                    && mentions(value, &derived)
                {
                    for t in targets {
                        walk_expr(t, &mut |x| {
                            if let ExprKind::Name(n) = &x.kind
                                && !derived.contains(n)
                            {
                                derived.push(n.clone());
                                grew = true;
                            }
                        });
                    }
                }
            },
            &mut |_| {},
        );
    }
    let mut out: Vec<Candidate> = Vec::new();
    walk_stmts(rest, &mut |_| {}, &mut |e| {
        if let ExprKind::Call { callee, args } = &e.kind
            && args.iter().any(|a| mentions(&a.value, &derived))
            && let Some((m, func)) = resolve_callee(module, hid, callee, 0)
        {
            let injected = args.iter().map(|a| !mentions(&a.value, &derived)).collect();
            out.push(Candidate {
                module: m,
                func,
                injected,
            });
        }
    });
    out
}

/// The value a name is bound to in `from` or the functions around it (the module last).
fn binding(module: &Module, from: FuncId, n: &str) -> Option<Expr> {
    let mut cur = Some(from);
    let mut seen = 0;
    while let Some(fid) = cur {
        let f = module.functions.get(fid)?;
        let mut found = None;
        walk_stmts(
            &f.body,
            &mut |s| {
                if let StmtKind::Assign { targets, value } = &s.kind
                    && targets
                        .iter()
                        .any(|t| matches!(&t.kind, ExprKind::Name(x) if x == n))
                {
                    found = Some(value.clone());
                }
            },
            &mut |_| {},
        );
        if found.is_some() {
            return found;
        }
        seen += 1;
        cur = if fid == Module::TOP_LEVEL || seen > 16 {
            None
        } else {
            Some(f.parent.unwrap_or(Module::TOP_LEVEL))
        };
    }
    None
}

/// The function a callee names, in this module or (through a relative import) another one:
/// a function, a function literal bound to a name, a wrapper's call on one
/// (`const h = log.wrapToolHandler(handleToolCall)`), `ns.f` of a namespace import.
fn resolve_callee(
    module: &Module,
    from: FuncId,
    callee: &Expr,
    depth: usize,
) -> Option<(String, FuncRef)> {
    if depth > 4 {
        return None;
    }
    match &callee.kind {
        ExprKind::Name(n) => {
            if let Some(v) = binding(module, from, n) {
                match &v.kind {
                    ExprKind::Lambda(g) => return Some((module.name.clone(), FuncRef::Id(*g))),
                    ExprKind::Call { args, .. } => {
                        return args
                            .iter()
                            .find_map(|a| resolve_callee(module, from, &a.value, depth + 1));
                    }
                    ExprKind::Name(_) | ExprKind::Attribute { .. } => {
                        return resolve_callee(module, from, &v, depth + 1);
                    }
                    _ => {}
                }
            }
            if module.function_by_qualname(n).is_some() {
                return Some((module.name.clone(), FuncRef::Name(n.clone())));
            }
            module.imports.iter().find_map(|i| match &i.symbol {
                Some(s) if i.local == *n && i.module.starts_with("./") && s != "default" => {
                    Some((i.module.clone(), FuncRef::Name(s.clone())))
                }
                _ => None,
            })
        }
        ExprKind::Attribute { value, attr } => {
            let ExprKind::Name(ns) = &value.kind else {
                return None;
            };
            module.imports.iter().find_map(|i| {
                (i.local == *ns && i.symbol.is_none() && i.module.starts_with("./"))
                    .then(|| (i.module.clone(), FuncRef::Name(attr.clone())))
            })
        }
        _ => None,
    }
}

/// Tool declarations of every module of the tree, by name (a dispatcher's tools may be listed
/// in another module than the one that splits them).
pub(crate) fn declared_in(modules: &[Module]) -> Declared {
    let mut out = Declared::new();
    for m in modules {
        for (k, v) in declared_tools(m) {
            out.entry(k).or_insert(v);
        }
    }
    out
}

pub(crate) type Declared = BTreeMap<String, (Option<String>, Vec<DeclaredParam>)>;

/// Splits the function a CallTool handler delegates to, in the module that defines it: one
/// synthetic function per tool name its `switch`/`if`/map dispatches on (those in `skip`, the
/// handler's own, left out). Its parameters the handler fills with something other than the
/// request are marked injected.
pub(crate) fn split_delegate(
    module: &mut Module,
    func: &FuncRef,
    injected: &[bool],
    recv: &str,
    declared: &Declared,
    skip: &[String],
) -> Vec<EntryPoint> {
    let fid = match func {
        FuncRef::Id(g) => Some(*g),
        FuncRef::Name(n) => module.function_by_qualname(n).or_else(|| {
            match binding(module, Module::TOP_LEVEL, n).map(|v| v.kind) {
                Some(ExprKind::Lambda(g)) => Some(g),
                _ => None,
            }
        }),
    };
    let Some(fid) = fid.filter(|f| *f < module.functions.len()) else {
        return Vec::new();
    };
    let f = module.functions[fid].clone();
    let bid = unwrapped(module, fid);
    let b = module.functions[bid].clone();
    // A wrapper passing `arguments` on (`__awaiter(this, arguments, ..., function* (a, b))`)
    // gives the literal the function's own arguments; a literal without parameters reads the
    // function's as a closure.
    let shape = if bid != fid && !b.params.is_empty() {
        &b
    } else {
        &f
    };
    let mut arms = Vec::new();
    let mut residual = Vec::new();
    find_arms(&b.body, &[], declared, &mut arms, &mut residual, 0);
    if arms.is_empty() {
        arms = map_arms(module, &b.body, b.span);
    }
    dedup_arms(&mut arms);
    let mut params = shape.params.clone();
    let mut pos = 0;
    for p in &mut params {
        if p.receiver || p.name == super::RECEIVER {
            continue;
        }
        if injected.get(pos).is_none_or(|i| *i) {
            p.injected = true;
        }
        pos += 1;
    }
    let mut out = Vec::new();
    for (name, body) in arms {
        if skip.contains(&name) || out.iter().any(|e: &EntryPoint| e.name == name) {
            continue;
        }
        let id = module.functions.len();
        module.functions.push(Function {
            name: format!("<call_tool:{name}>"),
            qualname: format!("{}.<call_tool:{name}>", f.qualname),
            params: params.clone(),
            body,
            decorators: Vec::new(),
            docstring: None,
            is_async: b.is_async,
            parent: b.parent,
            class: b.class.clone(),
            span: b.span,
        });
        let (description, dparams) = declared.get(&name).cloned().unwrap_or_default();
        out.push(EntryPoint {
            kind: EntityKind::Tool,
            name,
            description,
            function: id,
            params: dparams,
            span: f.span,
            server_var: recv.to_string(),
        });
    }
    out
}

/// A name dispatched twice (an early `if (name === "x")` that returns, then a `case "x"` that
/// is never reached) keeps its first arm, the one that runs.
fn dedup_arms(arms: &mut Vec<(String, Vec<Stmt>)>) {
    let mut seen = std::collections::HashSet::new();
    arms.retain(|(n, _)| seen.insert(n.clone()));
}

/// Every declared tool handled by the whole dispatcher, when it cannot be split: each tool is
/// reported with everything the dispatcher can do (an over-approximation), and the caller
/// records a gap, since tools the module does not list may hide behind it.
fn whole(
    names: Vec<String>,
    f: FuncId,
    ep: impl Fn(String, FuncId) -> EntryPoint,
) -> Vec<EntryPoint> {
    names.into_iter().map(|n| ep(n, f)).collect()
}

/// A handler map (`const handlers = { a: handleA, ...others }; handlers[name](args)`): one arm
/// per key, the dispatcher's body with the map lookup replaced by that key's function. A map of
/// data keyed by the tool name (`const kind = KINDS[name]`, every value a constant) gives one
/// arm per key with the whole body: the name picks data, the code is the same.
fn map_arms(module: &Module, body: &[Stmt], span: Span) -> Vec<(String, Vec<Stmt>)> {
    let mut maps: Vec<(String, bool)> = Vec::new();
    walk_stmts(body, &mut |_| {}, &mut |e| {
        if let Some((m, index)) = lookup_of(e)
            && (subject_names_tool(index) || matches!(index.kind, ExprKind::Name(_)))
            && !maps.iter().any(|(x, _)| x == m)
        {
            maps.push((m.to_string(), subject_names_tool(index)));
        }
    });
    for (m, by_name) in maps {
        let map = Expr::new(ExprKind::Name(m.clone()), span);
        let mut entries = Vec::new();
        map_entries(module, &map, &mut entries, 0);
        if entries.is_empty() {
            if by_name && let Some(keys) = data_keys(module, &map) {
                return keys.into_iter().map(|k| (k, body.to_vec())).collect();
            }
            continue;
        }
        return entries
            .into_iter()
            .map(|(name, f)| {
                let mut body = body.to_vec();
                replace_lookup(&mut body, &m, &f);
                (name, body)
            })
            .collect();
    }
    Vec::new()
}

/// A lookup in a named map: `m[key]` or `m.get(key)` (a `Map`).
fn lookup_of(e: &Expr) -> Option<(&str, &Expr)> {
    match &e.kind {
        ExprKind::Index { value, index } => match &value.kind {
            ExprKind::Name(m) => Some((m, index)),
            _ => None,
        },
        ExprKind::Call { callee, args } if args.len() == 1 => match &callee.kind {
            ExprKind::Attribute { value, attr } if attr == "get" => match &value.kind {
                ExprKind::Name(m) => Some((m, &args[0].value)),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The keys of a module-level map literal whose every key is a string and every value a
/// constant (a string, a number).
fn data_keys(module: &Module, e: &Expr) -> Option<Vec<String>> {
    let ExprKind::Dict(items) = &resolve_const(module, e).kind else {
        return None;
    };
    let mut keys = Vec::new();
    for (k, v) in items {
        let k = k.as_ref()?.as_str()?;
        if !matches!(
            resolve_const(module, v).kind,
            ExprKind::Str(_) | ExprKind::Number(_)
        ) {
            return None;
        }
        keys.push(k.to_string());
    }
    (!keys.is_empty()).then_some(keys)
}

/// The constant-keyed functions of a map literal, through spreads of other map constants and of
/// factories' results (`...createLogsHandlers(api)`, a function returning a map literal).
fn map_entries(module: &Module, e: &Expr, out: &mut Vec<(String, Expr)>, depth: usize) {
    if depth > 8 {
        return;
    }
    let e = resolve_const(module, e);
    // `new Map([["a", fa], ...])`, `Object.fromEntries([["a", fa], ...])`.
    if let ExprKind::Call { callee, args } = &e.kind
        && callee
            .dotted_path()
            .is_some_and(|p| p == "Map" || p == "Object.fromEntries")
    {
        if let Some(a) = args.first()
            && let ExprKind::List(pairs) = &resolve_const(module, &a.value).kind
        {
            for pair in pairs {
                if let ExprKind::List(kv) | ExprKind::Tuple(kv) = &pair.kind
                    && let [k, v] = kv.as_slice()
                    && let Some(name) = const_str(module, k)
                    && matches!(
                        v.kind,
                        ExprKind::Lambda(_) | ExprKind::Name(_) | ExprKind::Attribute { .. }
                    )
                {
                    out.push((name, v.clone()));
                }
            }
        }
        return;
    }
    if let ExprKind::Call { callee, .. } = &e.kind {
        for d in returned_dicts(module, callee) {
            map_entries(module, &d, out, depth + 1);
        }
        return;
    }
    let ExprKind::Dict(items) = &e.kind else {
        return;
    };
    for (k, v) in items {
        match k {
            Some(k) => {
                if let Some(name) = k.as_str()
                    && matches!(
                        v.kind,
                        ExprKind::Lambda(_) | ExprKind::Name(_) | ExprKind::Attribute { .. }
                    )
                {
                    out.push((name.to_string(), v.clone()));
                }
            }
            None => map_entries(module, v, out, depth + 1),
        }
    }
}

/// The map literals a module function (or a function literal bound at module level) returns.
fn returned_dicts(module: &Module, callee: &Expr) -> Vec<Expr> {
    let ExprKind::Name(n) = &callee.kind else {
        return Vec::new();
    };
    let fid = module
        .function_by_qualname(n)
        .or_else(|| match resolve_const(module, callee).kind {
            ExprKind::Lambda(g) => Some(g),
            _ => None,
        });
    let Some(f) = fid.and_then(|g| module.functions.get(g)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    walk_stmts(
        &f.body,
        &mut |s| {
            if let StmtKind::Return(Some(e)) = &s.kind
                && matches!(e.kind, ExprKind::Dict(_))
            {
                out.push(e.clone());
            }
        },
        &mut |_| {},
    );
    out
}

fn replace_lookup(stmts: &mut [Stmt], map: &str, with: &Expr) {
    for s in stmts {
        match &mut s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    replace_in(t, map, with);
                }
                replace_in(value, map, with);
            }
            StmtKind::AugAssign { target, value, .. } => {
                replace_in(target, map, with);
                replace_in(value, map, with);
            }
            StmtKind::Expr(e) => replace_in(e, map, with),
            StmtKind::Return(Some(e)) | StmtKind::Raise(Some(e)) => replace_in(e, map, with),
            StmtKind::If { test, then, orelse } => {
                replace_in(test, map, with);
                replace_lookup(then, map, with);
                replace_lookup(orelse, map, with);
            }
            StmtKind::While { test, body, orelse } => {
                replace_in(test, map, with);
                replace_lookup(body, map, with);
                replace_lookup(orelse, map, with);
            }
            StmtKind::For {
                iter, body, orelse, ..
            } => {
                replace_in(iter, map, with);
                replace_lookup(body, map, with);
                replace_lookup(orelse, map, with);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                replace_lookup(body, map, with);
                for h in handlers {
                    replace_lookup(&mut h.body, map, with);
                }
                replace_lookup(orelse, map, with);
                replace_lookup(finally, map, with);
            }
            StmtKind::Match { subject, arms } | StmtKind::Switch { subject, arms } => {
                replace_in(subject, map, with);
                for a in arms {
                    replace_lookup(&mut a.body, map, with);
                }
            }
            StmtKind::Labeled { body, .. } => replace_lookup(body, map, with),
            _ => {}
        }
    }
}

fn replace_in(e: &mut Expr, map: &str, with: &Expr) {
    if lookup_of(e).is_some_and(|(m, _)| m == map) {
        *e = Expr::new(with.kind.clone(), e.span);
        return;
    }
    match &mut e.kind {
        ExprKind::Attribute { value, .. } => replace_in(value, map, with),
        ExprKind::Index { value, index } => {
            replace_in(value, map, with);
            replace_in(index, map, with);
        }
        ExprKind::Call { callee, args } => {
            replace_in(callee, map, with);
            for a in args {
                replace_in(&mut a.value, map, with);
            }
        }
        ExprKind::FormatStr(parts) => {
            for p in parts {
                if let StrPart::Expr(x) = p {
                    replace_in(x, map, with);
                }
            }
        }
        ExprKind::Binary { left, right, .. } => {
            replace_in(left, map, with);
            replace_in(right, map, with);
        }
        ExprKind::Unary { operand, .. } => replace_in(operand, map, with),
        ExprKind::Conditional { test, body, orelse } => {
            replace_in(test, map, with);
            replace_in(body, map, with);
            replace_in(orelse, map, with);
        }
        ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => {
            for x in xs {
                replace_in(x, map, with);
            }
        }
        ExprKind::Dict(items) => {
            for (k, v) in items {
                if let Some(k) = k {
                    replace_in(k, map, with);
                }
                replace_in(v, map, with);
            }
        }
        ExprKind::Await(x) | ExprKind::Starred(x) => replace_in(x, map, with),
        _ => {}
    }
}

fn name_test(test: &Expr) -> Option<(&Expr, &str)> {
    let ExprKind::Binary { op, left, right } = &test.kind else {
        return None;
    };
    if op != "==" {
        return None;
    }
    match (left.as_str(), right.as_str()) {
        (None, Some(s)) => Some((left, s)),
        (Some(s), None) => Some((right, s)),
        _ => None,
    }
}

fn subject_names_tool(subject: &Expr) -> bool {
    subject
        .dotted_path()
        .and_then(|p| p.rsplit('.').next().map(|s| s.to_ascii_lowercase()))
        .is_some_and(|last| last.contains("name") || last == "tool")
}

/// Arms of the dispatch: `switch (name)` cases and `if (name === "x")` chains, with the
/// statements before them (`prefix`) kept in front of each arm. What runs for the other names
/// (a `default:` arm, the statements after an `if` chain) goes to `residual`.
fn find_arms(
    stmts: &[Stmt],
    prefix: &[Stmt],
    declared: &Declared,
    out: &mut Vec<(String, Vec<Stmt>)>,
    residual: &mut Vec<Stmt>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    for (i, s) in stmts.iter().enumerate() {
        let mut pre: Vec<Stmt> = prefix.to_vec();
        pre.extend(stmts[..i].iter().cloned());
        match &s.kind {
            StmtKind::Match { subject, arms } | StmtKind::Switch { subject, arms } => {
                let joined = arm_bodies(arms);
                let names: Vec<(&MatchArm, &Vec<Stmt>)> = arms
                    .iter()
                    .zip(&joined)
                    .filter(|(a, _)| a.pattern.as_ref().and_then(|p| p.as_str()).is_some())
                    .collect();
                let relevant = subject_names_tool(subject)
                    || names.iter().any(|(a, _)| {
                        a.pattern
                            .as_ref()
                            .and_then(|p| p.as_str())
                            .is_some_and(|n| declared.contains_key(n))
                    });
                if relevant && !names.is_empty() {
                    for (a, arm_body) in arms.iter().zip(&joined) {
                        if a.pattern.is_none() {
                            residual.extend(arm_body.iter().cloned());
                        }
                    }
                    for (a, arm_body) in names {
                        if let Some(n) = a.pattern.as_ref().and_then(|p| p.as_str()) {
                            let mut body = pre.clone();
                            body.extend(arm_body.iter().cloned());
                            out.push((n.to_string(), body));
                        }
                    }
                    then_rest(&stmts[i + 1..], &pre, declared, out, residual, depth);
                    return;
                }
            }
            StmtKind::If { test, .. } if name_test(test).is_some() => {
                let mut found = false;
                let mut cur: Option<&Stmt> = Some(s);
                let mut j = i;
                let mut rest: Option<&[Stmt]> = None;
                // `if/else if` chains and consecutive `if`s that each return.
                while let Some(st) = cur {
                    let StmtKind::If { test, then, orelse } = &st.kind else {
                        break;
                    };
                    let Some((subj, lit)) = name_test(test) else {
                        break;
                    };
                    if !(subject_names_tool(subj) || declared.contains_key(lit)) {
                        break;
                    }
                    found = true;
                    let mut body = pre.clone();
                    body.extend(then.iter().cloned());
                    out.push((lit.to_string(), body));
                    // The chain's remainder: an `else` that is not another name test, or the
                    // statements after the last `if`.
                    cur = match orelse.as_slice() {
                        [one] if matches!(one.kind, StmtKind::If { .. }) => {
                            rest = Some(std::slice::from_ref(one));
                            Some(one)
                        }
                        [] => {
                            j += 1;
                            rest = Some(&stmts[j.min(stmts.len())..]);
                            stmts.get(j)
                        }
                        other => {
                            rest = Some(other);
                            None
                        }
                    };
                }
                if found {
                    then_rest(
                        rest.unwrap_or_default(),
                        &pre,
                        declared,
                        out,
                        residual,
                        depth,
                    );
                    return;
                }
            }
            StmtKind::Try { body, .. } => {
                let before = out.len();
                find_arms(body, &pre, declared, out, residual, depth + 1);
                if out.len() > before {
                    return;
                }
            }
            _ => {}
        }
    }
}

/// The statements after a dispatch, for the names it did not take: a further dispatch there
/// (`switch (name)` for one group of tools, then `if (name === "x")`, then another `switch`)
/// adds its arms, with the statements in between in front; otherwise they are the residual.
fn then_rest(
    rest: &[Stmt],
    pre: &[Stmt],
    declared: &Declared,
    out: &mut Vec<(String, Vec<Stmt>)>,
    residual: &mut Vec<Stmt>,
    depth: usize,
) {
    let before = out.len();
    let mut more = Vec::new();
    find_arms(rest, pre, declared, out, &mut more, depth + 1);
    if out.len() > before {
        residual.extend(more);
    } else {
        residual.extend(rest.iter().cloned());
    }
}

/// What each arm of a `switch` runs when it is the one chosen: its own body, then the bodies it
/// falls into, up to the `break` that leaves the switch (dropped: the arm's end leaves too).
fn arm_bodies(arms: &[MatchArm]) -> Vec<Vec<Stmt>> {
    (0..arms.len())
        .map(|i| {
            let mut body = Vec::new();
            for a in &arms[i..] {
                body.extend(a.body.iter().cloned());
                if !a.fallthrough {
                    break;
                }
            }
            if matches!(body.last().map(|s| &s.kind), Some(StmtKind::Break)) {
                body.pop();
            }
            body
        })
        .collect()
}
