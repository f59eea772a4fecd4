//! MCP entry points of a Python module. The query in `grammars/python/entrypoints.scm` locates
//! candidate sites; this file decides, through the module's imports and the framework model in
//! `grammars/python/frameworks.toml`, which are real registrations on an MCP server object, and
//! reads names, descriptions and parameters from the lowered IR.

use super::lower::{Draft, kids};
use super::{python_entry_query, python_frameworks_checked};
pub(crate) use crate::fold::{
    bound_to, bound_to_at, const_str, first_positional, known_text, kwarg, module_constants,
    schema_params,
};
use crate::queries::{Frameworks, Positional};
use crate::{LowerError, ServerBinding, ServerStyle};
use mcp_scan_core::{DeclaredParam, EntityKind};
use mcp_scan_ir::{
    Arg, EntryPoint, Expr, ExprKind, FuncId, Function, Import, Module, Span, Stmt, StmtKind,
    StrPart,
};
use std::collections::HashMap;
use tree_sitter::{Node, QueryCursor, StreamingIterator, Tree};

struct Binding<'t> {
    var: String,
    ctor: String,
    args: Option<Node<'t>>,
}

struct Site {
    object: String,
    method: String,
    /// Start byte of the decorator expression (decorator form).
    decorator_start: Option<usize>,
    /// Start byte of the decorated `function_definition` (decorator form).
    def_start: Option<usize>,
    /// Start byte of the registration call (imperative form) and the handler named in it.
    call_start: Option<usize>,
    handler_ref: Option<String>,
}

pub(crate) fn find_entry_points(
    source: &str,
    tree: &Tree,
    draft: &mut Draft,
) -> Result<(), LowerError> {
    let fw = python_frameworks_checked()?;
    let query = python_entry_query()?;
    if !fw.might_register(source) {
        return Ok(());
    }
    let cap = |name: &str| query.capture_index_for_name(name);
    let (c_var, c_ctor, c_args) = (cap("server.var"), cap("server.ctor"), cap("server.args"));
    let (c_obj, c_method) = (cap("registration.object"), cap("registration.method"));
    let (c_dec, c_def, c_ref, c_call) = (
        cap("registration.decorator"),
        cap("handler.def"),
        cap("handler.ref"),
        cap("registration.call"),
    );
    let text = |n: Node| source.get(n.byte_range()).unwrap_or("").to_string();

    let mut bindings = Vec::new();
    let mut sites = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), source.as_bytes());
    while let Some(m) = matches.next() {
        let mut var = None;
        let mut ctor = None;
        let mut args = None;
        let mut site = Site {
            object: String::new(),
            method: String::new(),
            decorator_start: None,
            def_start: None,
            call_start: None,
            handler_ref: None,
        };
        for c in m.captures() {
            let i = Some(c.index);
            if i == c_var {
                var = Some(text(c.node));
            } else if i == c_ctor {
                ctor = Some(text(c.node).split_whitespace().collect::<String>());
            } else if i == c_args {
                args = Some(c.node);
            } else if i == c_obj {
                site.object = text(c.node);
            } else if i == c_method {
                site.method = text(c.node);
            } else if i == c_dec {
                site.decorator_start = Some(c.node.start_byte());
            } else if i == c_def {
                site.def_start = Some(c.node.start_byte());
            } else if i == c_ref {
                site.handler_ref = Some(text(c.node));
            } else if i == c_call {
                site.call_start = Some(c.node.start_byte());
            }
        }
        if let (Some(var), Some(ctor)) = (var, ctor) {
            bindings.push(Binding { var, ctor, args });
        } else if !site.object.is_empty() {
            sites.push(site);
        }
    }

    let module = &draft.module;
    let consts = module_constants(module);
    let mut servers: HashMap<String, ServerStyle> = HashMap::new();
    let mut dispatchers: Vec<(FuncId, String, Span)> = Vec::new();
    let mut listings: Vec<FuncId> = Vec::new();
    for b in &bindings {
        let Some(canonical) = canonical_path(&b.ctor, &module.imports) else {
            continue;
        };
        let Some(style) = fw.server_style(&canonical) else {
            continue;
        };
        servers.insert(b.var.clone(), style);
        if style == ServerStyle::LowLevel
            && let Some(args) = b.args
        {
            // mcp 2.x: `Server("x", on_list_tools=list_tools, on_call_tool=call_tool)`.
            for k in kids(args)
                .into_iter()
                .filter(|k| k.kind() == "keyword_argument")
            {
                let (Some(kw), Some(val)) = (
                    k.child_by_field_name("name"),
                    k.child_by_field_name("value"),
                ) else {
                    continue;
                };
                let (kw, val) = (text(kw), text(val));
                let Some(func) = function_named(module, &val) else {
                    continue;
                };
                if fw.low_level.dispatcher_keywords.contains(&kw) {
                    dispatchers.push((func, b.var.clone(), super::lower::span(k)));
                } else if fw.low_level.listing_keywords.contains(&kw) {
                    listings.push(func);
                }
            }
        }
    }
    // Decorator-style registrations are resolved across the whole tree (`resolve.rs`); this
    // pass splits low-level dispatchers, which needs the parse-time call index.
    let mut entries = Vec::new();
    for s in &sites {
        if servers.get(&s.object).copied() != Some(ServerStyle::LowLevel) {
            continue;
        }
        let (Some(def), Some(dec)) = (s.def_start, s.decorator_start) else {
            continue;
        };
        let Some(&func) = draft.def_starts.get(&def) else {
            continue;
        };
        let f = &module.functions[func];
        let Some(decorator) = f.decorators.iter().find(|d| d.span.start_byte == dec) else {
            continue;
        };
        if fw.low_level.dispatcher_methods.contains(&s.method) {
            dispatchers.push((func, s.object.clone(), decorator.span));
        } else if fw.low_level.listing_methods.contains(&s.method) {
            listings.push(func);
        }
    }
    if !dispatchers.is_empty() {
        let calls: Vec<(Expr, FuncId)> = draft.calls.values().cloned().collect();
        low_level_entries(
            &mut draft.module,
            &calls,
            fw,
            &dispatchers,
            &listings,
            &consts,
            &mut entries,
        );
    }
    for (var, style) in servers {
        draft.servers.push(ServerBinding { var, style });
    }
    draft.servers.sort_by(|a, b| a.var.cmp(&b.var));
    entries.sort_by_key(|e| e.span.start_byte);
    draft.module.entry_points.extend(entries);
    Ok(())
}

/// `F` / `fm.FastMCP` / `mcp.server.fastmcp.FastMCP` → canonical import path, through the
/// module's imports. None when the head is not imported (a local look-alike class, say).
fn canonical_path(dotted: &str, imports: &[Import]) -> Option<String> {
    let (head, rest) = match dotted.split_once('.') {
        Some((h, r)) => (h, Some(r)),
        None => (dotted, None),
    };
    let import = imports.iter().rev().find(|i| i.local == head)?;
    let mut out = import.module.clone();
    if let Some(sym) = &import.symbol {
        out.push('.');
        out.push_str(sym);
    }
    if let Some(r) = rest {
        out.push('.');
        out.push_str(r);
    }
    Some(out)
}

/// A function by the name it is bound to: module level first, then any scope.
fn function_named(module: &Module, name: &str) -> Option<FuncId> {
    let name = name.trim();
    module
        .functions
        .iter()
        .position(|f| f.qualname == name)
        .or_else(|| module.functions.iter().position(|f| f.name == name))
}

/// Parameters the client fills in: not `self`/`cls`, not an injected `Context`, not `*args`.
pub(crate) fn declared_params(f: &Function) -> Vec<DeclaredParam> {
    f.params
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            !(p.variadic
                || p.keywords
                || (*i == 0 && f.class.is_some() && (p.name == "self" || p.name == "cls"))
                || p.annotation.as_deref().is_some_and(is_context_annotation))
        })
        .map(|(_, p)| DeclaredParam {
            name: p.name.clone(),
            type_hint: p.annotation.clone(),
            description: None,
        })
        .collect()
}

fn is_context_annotation(a: &str) -> bool {
    let base = a.split('[').next().unwrap_or(a).trim();
    let last = base.rsplit('.').next().unwrap_or(base);
    matches!(last, "Context" | "ServerRequestContext" | "RequestContext")
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn decorator_entry(
    kind: EntityKind,
    positional: Option<Positional>,
    args: &[Arg],
    func: FuncId,
    f: &Function,
    span: Span,
    object: &str,
    consts: &HashMap<String, String>,
) -> EntryPoint {
    let pos = first_positional(args).and_then(|e| const_str(e, consts));
    let named = kwarg(args, "name").and_then(|e| const_str(e, consts));
    let (kind, name) = match (kind, positional) {
        (EntityKind::Resource, _) => {
            let uri = pos.or_else(|| kwarg(args, "uri").and_then(|e| const_str(e, consts)));
            match uri {
                Some(u) if u.contains('{') => (EntityKind::ResourceTemplate, u),
                Some(u) => (EntityKind::Resource, u),
                None => (
                    EntityKind::Resource,
                    named.unwrap_or_else(|| f.name.clone()),
                ),
            }
        }
        (k, Some(Positional::Name)) => (k, named.or(pos).unwrap_or_else(|| f.name.clone())),
        (k, _) => (k, named.unwrap_or_else(|| f.name.clone())),
    };
    let description = kwarg(args, "description")
        .and_then(|e| const_str(e, consts))
        .or_else(|| f.docstring.clone());
    EntryPoint {
        kind,
        name,
        description,
        function: func,
        params: declared_params(f),
        span,
        server_var: object.to_string(),
    }
}

// ------------------------------------------------------------------ low-level servers

struct DeclaredTool {
    name: String,
    description: Option<String>,
    params: Vec<DeclaredParam>,
}

pub(crate) struct Arm {
    names: Vec<String>,
    body: Vec<Stmt>,
    span: Span,
}

pub(crate) fn low_level_entries(
    module: &mut Module,
    calls: &[(Expr, FuncId)],
    fw: &Frameworks,
    dispatchers: &[(FuncId, String, Span)],
    listings: &[FuncId],
    consts: &HashMap<String, String>,
    entries: &mut Vec<EntryPoint>,
) {
    let ll = &fw.low_level;
    // Tool declarations: `Tool(name=..., description=..., inputSchema={...})` in the listing
    // handlers; when there are none there (a module-level list), anywhere in the module.
    let is_decl = |e: &Expr| match &e.kind {
        ExprKind::Call { callee, .. } => {
            let last = match &callee.kind {
                ExprKind::Name(n) => n.as_str(),
                ExprKind::Attribute { attr, .. } => attr.as_str(),
                _ => "",
            };
            ll.tool_declarations.iter().any(|t| t == last)
        }
        _ => false,
    };
    let mut calls: Vec<&(Expr, FuncId)> = calls.iter().filter(|(e, _)| is_decl(e)).collect();
    calls.sort_by_key(|(e, _)| e.span.start_byte);
    let in_listing: Vec<&&(Expr, FuncId)> = calls
        .iter()
        .filter(|(_, f)| listings.contains(f) || is_nested_in(module, *f, listings))
        .collect();
    let chosen: Vec<&Expr> = if in_listing.is_empty() {
        calls.iter().map(|(e, _)| e).collect()
    } else {
        in_listing.iter().map(|(e, _)| e).collect()
    };
    let mut declared = Vec::new();
    for call in chosen {
        let ExprKind::Call { args, .. } = &call.kind else {
            continue;
        };
        let Some(name) = kwarg(args, &ll.name_keyword)
            .or_else(|| first_positional(args))
            .and_then(|e| const_str(e, consts))
        else {
            continue;
        };
        let description = kwarg(args, &ll.description_keyword)
            .and_then(|e| const_str(e, consts).or_else(|| known_text(e, consts)));
        let params = ll
            .schema_keywords
            .iter()
            .find_map(|k| kwarg(args, k))
            .map(|schema| schema_params(schema, consts))
            .unwrap_or_default();
        declared.push(DeclaredTool {
            name,
            description,
            params,
        });
    }

    for (disp, server_var, reg_span) in dispatchers {
        let d = module.functions[*disp].clone();
        // Names compared against may be parameters of an enclosing factory with a constant
        // default (`def create_server(tool_name: str = DEFAULT_NAME)`).
        let mut scope_consts = consts.clone();
        let mut up = d.parent;
        let mut steps = 0;
        while let Some(p) = up
            && steps < 16
        {
            for prm in &module.functions[p].params {
                if let Some(v) = prm.default.as_ref().and_then(|e| const_str(e, consts)) {
                    scope_consts.entry(prm.name.clone()).or_insert(v);
                }
            }
            up = module.functions[p].parent;
            steps += 1;
        }
        let subjects = Subjects {
            names: subject_names(&d),
            consts: &scope_consts,
        };
        let mut arms = Vec::new();
        find_arms(&d.body, &subjects, &[], &[], 0, &mut arms);
        // A dispatcher that hands the name to another function branching on it: that
        // function's arms are the tools, each charged only with its own arm.
        let mut hops = Vec::new();
        let owner = match arms.is_empty() {
            true => match delegate(module, *disp, &scope_consts) {
                Some((g, garms, chain)) => {
                    arms = garms;
                    hops = chain;
                    module.functions[g].clone()
                }
                None => d.clone(),
            },
            false => d.clone(),
        };
        let mut covered: Vec<String> = Vec::new();
        for arm in arms {
            let label = arm.names.join("|");
            let qualname = format!("{}[{label}]", owner.qualname);
            // The same arm reached from a second dispatcher (a wrapper delegating to one
            // already split) is the same function, not a second copy of the tool.
            let existing = module
                .functions
                .iter()
                .position(|g| g.qualname == qualname && g.span == arm.span);
            let arm_id = match existing {
                Some(id) => id,
                None => {
                    module.functions.push(Function {
                        name: format!("{}[{label}]", owner.name),
                        qualname,
                        params: owner.params.clone(),
                        body: arm.body,
                        decorators: Vec::new(),
                        docstring: None,
                        is_async: owner.is_async,
                        parent: owner.parent,
                        class: owner.class.clone(),
                        span: arm.span,
                    });
                    module.functions.len() - 1
                }
            };
            // The code of the dispatcher (and of each function between it and the arms) runs
            // for every tool: each tool is a chain of copies calling on only towards its arm.
            let mut id = arm_id;
            for &(caller, h) in hops.iter().rev() {
                let cd = module.functions[caller].clone();
                id = per_tool_copy(module, caller, &cd, h, &label, id);
            }
            // An arm another dispatcher already made an entry of (a compat wrapper beside its
            // own dispatcher) stays one tool.
            let reused = existing.is_some();
            for name in arm.names {
                if covered.contains(&name) {
                    continue;
                }
                // An arm another dispatcher already made an entry of: one tool, not two.
                if entries
                    .iter()
                    .chain(module.entry_points.iter())
                    .any(|e| e.name == name && (e.function == id || reused))
                {
                    covered.push(name);
                    continue;
                }
                let decl = declared.iter().find(|t| t.name == name);
                entries.push(EntryPoint {
                    kind: EntityKind::Tool,
                    name: name.clone(),
                    description: decl.and_then(|t| t.description.clone()),
                    function: id,
                    params: decl.map(|t| t.params.clone()).unwrap_or_default(),
                    span: arm.span,
                    server_var: server_var.clone(),
                });
                covered.push(name);
            }
        }
        // Declared tools the dispatcher does not visibly branch on (a dict of handlers, say):
        // the whole dispatcher is their body, an over-approximation rather than a gap.
        for t in &declared {
            if covered.contains(&t.name) {
                continue;
            }
            entries.push(EntryPoint {
                kind: EntityKind::Tool,
                name: t.name.clone(),
                description: t.description.clone(),
                function: *disp,
                params: t.params.clone(),
                span: *reg_span,
                server_var: server_var.clone(),
            });
            covered.push(t.name.clone());
        }
        if covered.is_empty() {
            entries.push(EntryPoint {
                kind: EntityKind::Tool,
                name: d.name.clone(),
                description: d.docstring.clone(),
                function: *disp,
                params: Vec::new(),
                span: *reg_span,
                server_var: server_var.clone(),
            });
        }
    }
}

/// The function a dispatcher hands the requested tool name to, when that function branches on
/// it (`return self._dispatch(name, args)`, `await on_call_tool(None, CallToolRequestParams(
/// name=name, ...))`), with its arms. Followed through at most three such hand-offs.
pub(crate) fn delegate(
    module: &Module,
    f: FuncId,
    consts: &HashMap<String, String>,
) -> Option<(FuncId, Vec<Arm>, Hops)> {
    let mut cur = f;
    let mut hops = Vec::new();
    let mut seen = vec![f];
    for _ in 0..3 {
        let d = module.functions.get(cur)?;
        let (g, carried, call) = hand_off(module, d, &subject_names(d))?;
        if seen.contains(&g) {
            return None;
        }
        seen.push(g);
        hops.push((cur, call));
        let gd = module.functions.get(g)?;
        let subjects = Subjects {
            names: names_from(gd, carried),
            consts,
        };
        let mut arms = Vec::new();
        find_arms(&gd.body, &subjects, &[], &[], 0, &mut arms);
        if !arms.is_empty() {
            return Some((g, arms, hops));
        }
        cur = g;
    }
    None
}

/// Each function on the way from the dispatcher to the branching one, with its hand-off.
pub(crate) type Hops = Vec<(FuncId, HandOff)>;

/// Where a dispatcher hands the name on: the call's span, and whether it calls a method of
/// `self` (`self._dispatch(...)`) rather than a plain function.
#[derive(Clone, Copy)]
pub(crate) struct HandOff {
    span: Span,
    on_self: bool,
}

/// The copy of `disp` (`d`) for one tool, whose hand-off `h` calls `target` instead (the arm,
/// or the next copy on the way to it: `self.<target>` for a method, the function itself
/// otherwise); made once.
fn per_tool_copy(
    module: &mut Module,
    disp: FuncId,
    d: &Function,
    h: HandOff,
    label: &str,
    target: FuncId,
) -> FuncId {
    let qualname = format!("{}[{label}]", d.qualname);
    if let Some(w) = module.functions.iter().position(|g| g.qualname == qualname) {
        return w;
    }
    let callee = match h.on_self {
        true => Expr::new(
            ExprKind::Attribute {
                value: Box::new(Expr::new(ExprKind::Name("self".into()), h.span)),
                attr: module.functions[target].name.clone(),
            },
            h.span,
        ),
        false => Expr::new(ExprKind::Lambda(target), h.span),
    };
    let span = module.functions[target].span;
    module.functions.push(Function {
        name: format!("{}[{label}]", d.name),
        qualname,
        params: d.params.clone(),
        body: redirect(&d.body, h.span, &callee),
        decorators: Vec::new(),
        docstring: None,
        is_async: d.is_async,
        parent: d.parent,
        class: d.class.clone(),
        span,
    });
    let w = module.functions.len() - 1;
    // Defined beside the dispatcher, so it closes over the same variables (`self` of the
    // method it is nested in).
    if let Some(p) = d.parent
        && p != Module::TOP_LEVEL
        && let Some(pf) = module.functions.get_mut(p)
    {
        define_beside(&mut pf.body, disp, w, &format!("{}[{label}]", d.name));
    }
    w
}

/// Adds `def <name>` for function `new` right after the definition of `beside` in `body`.
fn define_beside(body: &mut Vec<Stmt>, beside: FuncId, new: FuncId, name: &str) -> bool {
    let at = body
        .iter()
        .position(|s| matches!(&s.kind, StmtKind::FunctionDef { func, .. } if *func == beside));
    if let Some(i) = at {
        let span = body[i].span;
        body.insert(
            i + 1,
            Stmt {
                kind: StmtKind::FunctionDef {
                    name: name.to_string(),
                    func: new,
                },
                span,
            },
        );
        return true;
    }
    for s in body.iter_mut() {
        let done = match &mut s.kind {
            StmtKind::If { then, orelse, .. } => {
                define_beside(then, beside, new, name) || define_beside(orelse, beside, new, name)
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                define_beside(body, beside, new, name)
                    || handlers
                        .iter_mut()
                        .any(|h| define_beside(&mut h.body, beside, new, name))
                    || define_beside(orelse, beside, new, name)
                    || define_beside(finally, beside, new, name)
            }
            StmtKind::With { body, .. }
            | StmtKind::While { body, .. }
            | StmtKind::For { body, .. } => define_beside(body, beside, new, name),
            _ => false,
        };
        if done {
            return true;
        }
    }
    false
}

/// A copy of the dispatcher's body in which the hand-off call `span` calls `callee` instead:
/// the dispatcher's own code (argument unpacking, what it does with the result) kept for one
/// tool, whose arm replaces the whole branching function.
fn redirect(body: &[Stmt], span: Span, callee: &Expr) -> Vec<Stmt> {
    fn expr(e: &mut Expr, span: Span, callee: &Expr) {
        if let ExprKind::Call { callee: c, .. } = &mut e.kind
            && e.span == span
        {
            **c = callee.clone();
        }
        match &mut e.kind {
            ExprKind::Call { callee: c, args } => {
                expr(c, span, callee);
                for a in args {
                    expr(&mut a.value, span, callee);
                }
            }
            ExprKind::Attribute { value, .. }
            | ExprKind::Await(value)
            | ExprKind::Starred(value)
            | ExprKind::NamedExpr { value, .. } => expr(value, span, callee),
            ExprKind::Unary { operand, .. } => expr(operand, span, callee),
            ExprKind::Index { value, index } => {
                expr(value, span, callee);
                expr(index, span, callee);
            }
            ExprKind::Binary { left, right, .. } => {
                expr(left, span, callee);
                expr(right, span, callee);
            }
            ExprKind::Conditional { test, body, orelse } => {
                expr(test, span, callee);
                expr(body, span, callee);
                expr(orelse, span, callee);
            }
            ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => {
                xs.iter_mut().for_each(|x| expr(x, span, callee))
            }
            ExprKind::Dict(items) => {
                for (k, v) in items {
                    if let Some(k) = k {
                        expr(k, span, callee);
                    }
                    expr(v, span, callee);
                }
            }
            ExprKind::FormatStr(parts) => {
                for p in parts {
                    if let StrPart::Expr(x) = p {
                        expr(x, span, callee);
                    }
                }
            }
            _ => {}
        }
    }
    fn stmts(body: &mut [Stmt], span: Span, callee: &Expr) {
        for s in body {
            match &mut s.kind {
                StmtKind::Assign { targets, value } => {
                    targets.iter_mut().for_each(|t| expr(t, span, callee));
                    expr(value, span, callee);
                }
                StmtKind::AugAssign { value, .. } => expr(value, span, callee),
                StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Raise(Some(e)) => {
                    expr(e, span, callee)
                }
                StmtKind::If { test, then, orelse } => {
                    expr(test, span, callee);
                    stmts(then, span, callee);
                    stmts(orelse, span, callee);
                }
                StmtKind::While { test, body, orelse } => {
                    expr(test, span, callee);
                    stmts(body, span, callee);
                    stmts(orelse, span, callee);
                }
                StmtKind::For {
                    iter, body, orelse, ..
                } => {
                    expr(iter, span, callee);
                    stmts(body, span, callee);
                    stmts(orelse, span, callee);
                }
                StmtKind::Try {
                    body,
                    handlers,
                    orelse,
                    finally,
                } => {
                    stmts(body, span, callee);
                    for h in handlers {
                        stmts(&mut h.body, span, callee);
                    }
                    stmts(orelse, span, callee);
                    stmts(finally, span, callee);
                }
                StmtKind::With { items, body, .. } => {
                    for i in items {
                        expr(&mut i.context, span, callee);
                    }
                    stmts(body, span, callee);
                }
                StmtKind::Match { subject, arms } => {
                    expr(subject, span, callee);
                    for a in arms {
                        stmts(&mut a.body, span, callee);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = body.to_vec();
    stmts(&mut out, span, callee);
    out
}

/// The first call in `d` to a function of the module that receives the tool name (a subject,
/// `x.name`, or a name built from one), with the parameters it arrives in.
fn hand_off(
    module: &Module,
    d: &Function,
    subjects: &[String],
) -> Option<(FuncId, Vec<String>, HandOff)> {
    // Names assigned from an expression carrying the tool name (`params = P(name=name)`).
    let mut carriers: Vec<String> = subjects.to_vec();
    for s in &d.body {
        if let StmtKind::Assign { targets, value } = &s.kind
            && let [
                Expr {
                    kind: ExprKind::Name(t),
                    ..
                },
            ] = targets.as_slice()
            && carries(value, &carriers)
            && !carriers.contains(t)
        {
            carriers.push(t.clone());
        }
    }
    let class = {
        let mut c = d.class.clone();
        let mut up = d.parent;
        let mut steps = 0;
        while c.is_none()
            && let Some(p) = up
            && steps < 16
        {
            c = module.functions.get(p).and_then(|x| x.class.clone());
            up = module.functions.get(p).and_then(|x| x.parent);
            steps += 1;
        }
        c
    };
    let mut calls = Vec::new();
    super::dispatch::walk(&d.body, &mut |e| super::dispatch::calls_in(e, &mut calls));
    for call in calls {
        let ExprKind::Call { callee, args } = &call.kind else {
            continue;
        };
        let (g, skip, on_self) = match &callee.kind {
            ExprKind::Name(n) => match visible_function(module, d, n) {
                Some(g) => (g, 0, false),
                None => continue,
            },
            ExprKind::Attribute { value, attr } if matches!(&value.kind, ExprKind::Name(n) if n == "self") =>
            {
                let Some(c) = &class else { continue };
                match module
                    .functions
                    .iter()
                    .position(|g| &g.name == attr && g.class.as_ref() == Some(c))
                {
                    Some(g) => (g, 1, true),
                    None => continue,
                }
            }
            _ => continue,
        };
        let gd = &module.functions[g];
        let mut carried = Vec::new();
        for (i, p) in gd.params.iter().enumerate().skip(skip) {
            if p.variadic || p.keywords {
                continue;
            }
            if bound_to(args, &p.name, i - skip).is_some_and(|a| carries(&a.value, &carriers)) {
                carried.push(p.name.clone());
            }
        }
        if !carried.is_empty() {
            let call = HandOff {
                span: call.span,
                on_self,
            };
            return Some((g, carried, call));
        }
    }
    None
}

/// Whether an expression carries the requested tool name: a carrier, `x.name`, or a call or
/// container built from one.
fn carries(e: &Expr, carriers: &[String]) -> bool {
    match &e.kind {
        ExprKind::Name(n) => carriers.contains(n),
        ExprKind::Attribute { attr, .. } => attr == "name",
        ExprKind::Call { args, .. } => args.iter().any(|a| carries(&a.value, carriers)),
        ExprKind::Await(v) => carries(v, carriers),
        ExprKind::Tuple(xs) | ExprKind::List(xs) => xs.iter().any(|x| carries(x, carriers)),
        ExprKind::Dict(items) => items.iter().any(|(_, v)| carries(v, carriers)),
        _ => false,
    }
}

/// A plain function named `n` visible from `d`: nested in it or an enclosing function, or at
/// module level.
fn visible_function(module: &Module, d: &Function, n: &str) -> Option<FuncId> {
    let me = module.functions.iter().position(|g| std::ptr::eq(g, d));
    let mut scope = me;
    let mut steps = 0;
    while let Some(sc) = scope
        && steps < 16
    {
        if let Some(i) = module
            .functions
            .iter()
            .position(|g| g.name == n && g.parent == Some(sc) && g.class.is_none())
        {
            return Some(i);
        }
        scope = module.functions.get(sc).and_then(|g| g.parent);
        steps += 1;
    }
    module
        .functions
        .iter()
        .position(|g| g.name == n && g.parent.is_none() && g.class.is_none() && g.qualname == n)
}

fn is_nested_in(module: &Module, mut f: FuncId, ancestors: &[FuncId]) -> bool {
    let mut steps = 0;
    while let Some(p) = module.functions.get(f).and_then(|x| x.parent) {
        if ancestors.contains(&p) {
            return true;
        }
        f = p;
        steps += 1;
        if steps > 64 {
            break;
        }
    }
    false
}

/// Names that hold the requested tool name: the dispatcher's first parameter (mcp 1.x
/// `call_tool(name, arguments)`) and locals assigned from it or from `<x>.name` (mcp 2.x
/// `params.name`).
fn subject_names(d: &Function) -> Vec<String> {
    names_from(
        d,
        d.params
            .first()
            .map(|p| p.name.clone())
            .into_iter()
            .collect(),
    )
}

/// `names` and the names `d` assigns from them or from `x.name`.
fn names_from(d: &Function, mut names: Vec<String>) -> Vec<String> {
    for s in &d.body {
        if let StmtKind::Assign { targets, value } = &s.kind
            && let [
                Expr {
                    kind: ExprKind::Name(t),
                    ..
                },
            ] = targets.as_slice()
        {
            let from_name = match &value.kind {
                ExprKind::Attribute { attr, .. } => attr == "name",
                ExprKind::Name(n) => names.contains(n),
                _ => false,
            };
            if from_name {
                names.push(t.clone());
            }
        }
    }
    names
}

/// Names holding the requested tool name, and the constants tool names are compared with.
struct Subjects<'c> {
    names: Vec<String>,
    consts: &'c HashMap<String, String>,
}

fn is_subject(e: &Expr, subjects: &Subjects) -> bool {
    match &e.kind {
        ExprKind::Name(n) => subjects.names.contains(n),
        ExprKind::Attribute { attr, .. } => attr == "name",
        _ => false,
    }
}

/// Tool names a test selects: `name == "x"`, `"x" == name`, `name in ("a", "b")`, `a or b`,
/// `name == "x" and <other condition>`, and match patterns `"x"` / `"a" | "b"`.
fn selected_names(test: &Expr, subjects: &Subjects, negated: bool) -> Option<Vec<String>> {
    let lit = |e: &Expr| const_str(e, subjects.consts);
    match &test.kind {
        ExprKind::Binary { op, left, right } => {
            let eq = if negated { "!=" } else { "==" };
            let inn = if negated { "not in" } else { "in" };
            if op == eq {
                if is_subject(left, subjects) {
                    return lit(right).map(|s| vec![s]);
                }
                if is_subject(right, subjects) {
                    return lit(left).map(|s| vec![s]);
                }
                None
            } else if op == inn && is_subject(left, subjects) {
                match &right.kind {
                    ExprKind::Tuple(xs) | ExprKind::List(xs) | ExprKind::Set(xs) => {
                        xs.iter().map(lit).collect()
                    }
                    _ => None,
                }
            } else if (op == "or" && !negated) || (op == "and" && negated) {
                let mut l = selected_names(left, subjects, negated)?;
                l.extend(selected_names(right, subjects, negated)?);
                Some(l)
            } else if (op == "and" && !negated) || (op == "or" && negated) {
                // `name == "x" and FEATURE_ON`: the branch still runs only for "x" (the other
                // operand narrows it further); when it is false, the later arms do not name "x".
                match (
                    selected_names(left, subjects, negated),
                    selected_names(right, subjects, negated),
                ) {
                    (Some(l), Some(r)) => Some(l.into_iter().filter(|n| r.contains(n)).collect()),
                    (Some(n), None) | (None, Some(n)) => Some(n),
                    (None, None) => None,
                }
            } else {
                None
            }
        }
        _ => None,
    }
}

fn pattern_names(p: &Expr) -> Option<Vec<String>> {
    match &p.kind {
        ExprKind::Str(s) => Some(vec![s.clone()]),
        ExprKind::Binary { op, left, right } if op == "|" => {
            let mut l = pattern_names(left)?;
            l.extend(pattern_names(right)?);
            Some(l)
        }
        _ => None,
    }
}

fn ends_abruptly(body: &[Stmt]) -> bool {
    matches!(
        body.last().map(|s| &s.kind),
        Some(StmtKind::Raise(_) | StmtKind::Return(_))
    )
}

enum Part<'a> {
    /// An if/elif chain or a match: (names, branch body, span) per arm.
    Arms(Vec<(Vec<String>, &'a [Stmt], Span)>),
    /// `if name != "x": raise ...`: the rest of the body is the arm for these names.
    Guard(Vec<String>, Span),
    /// A `try`/`with` whose body holds arms.
    Nested(&'a [Stmt]),
    Other,
}

fn classify<'a>(s: &'a Stmt, subjects: &Subjects, depth: usize) -> Part<'a> {
    match &s.kind {
        StmtKind::If { test, then, orelse } => {
            if let Some(names) = selected_names(test, subjects, false) {
                let mut arms = vec![(names, then.as_slice(), s.span)];
                let mut rest = orelse;
                while let [
                    Stmt {
                        kind: StmtKind::If { test, then, orelse },
                        span,
                    },
                ] = rest.as_slice()
                {
                    let Some(names) = selected_names(test, subjects, false) else {
                        break;
                    };
                    arms.push((names, then.as_slice(), *span));
                    rest = orelse;
                }
                return Part::Arms(arms);
            }
            match selected_names(test, subjects, true) {
                Some(names) if ends_abruptly(then) => Part::Guard(names, s.span),
                _ => Part::Other,
            }
        }
        StmtKind::Match { subject, arms } if is_subject(subject, subjects) => Part::Arms(
            arms.iter()
                .filter_map(|a| {
                    let names = a.pattern.as_ref().and_then(pattern_names)?;
                    Some((names, a.body.as_slice(), a.span))
                })
                .collect(),
        ),
        StmtKind::Try { body, .. } | StmtKind::With { body, .. } if depth < 4 => {
            let mut probe = Vec::new();
            find_arms(body, subjects, &[], &[], depth + 1, &mut probe);
            if probe.is_empty() {
                Part::Other
            } else {
                Part::Nested(body)
            }
        }
        _ => Part::Other,
    }
}

/// Splits a dispatcher body into per-tool arms. Each arm's body is what runs for that name: the
/// statements before the branch (argument unpacking), the branch, and the statements after it
/// (building the result), but never another arm's branch.
fn find_arms(
    body: &[Stmt],
    subjects: &Subjects,
    prefix: &[Stmt],
    suffix: &[Stmt],
    depth: usize,
    out: &mut Vec<Arm>,
) {
    let parts: Vec<Part> = body.iter().map(|s| classify(s, subjects, depth)).collect();
    let others = |range: std::ops::Range<usize>| -> Vec<Stmt> {
        range
            .filter(|&j| matches!(parts[j], Part::Other))
            .map(|j| body[j].clone())
            .collect()
    };
    for (i, part) in parts.iter().enumerate() {
        if matches!(part, Part::Other) {
            continue;
        }
        let mut before = prefix.to_vec();
        before.extend(others(0..i));
        match part {
            Part::Guard(names, span) => {
                let mut arm = before;
                arm.extend(body[i + 1..].iter().cloned());
                arm.extend(suffix.iter().cloned());
                out.push(Arm {
                    names: names.clone(),
                    body: arm,
                    span: *span,
                });
                return;
            }
            Part::Arms(arms) => {
                let mut after = others(i + 1..body.len());
                after.extend(suffix.iter().cloned());
                for (names, then, span) in arms {
                    let mut arm = before.clone();
                    arm.extend(then.iter().cloned());
                    arm.extend(after.iter().cloned());
                    out.push(Arm {
                        names: names.clone(),
                        body: arm,
                        span: *span,
                    });
                }
            }
            Part::Nested(inner) => {
                let mut after = others(i + 1..body.len());
                after.extend(suffix.iter().cloned());
                find_arms(inner, subjects, &before, &after, depth + 1, out);
            }
            Part::Other => {}
        }
    }
}
