//! Low-level `call_tool` dispatchers, after resolution: split per tool name when the server is
//! bound where the per-file pass could not see it, and when the dispatcher does not branch on
//! literal names, follow the handler-object pattern (`Tool(name=self.name, ...)` declared in a
//! handler class, the dispatcher calling `handler.run_tool(arguments)`). A dispatcher that still
//! cannot be attributed per tool is a coverage gap.

use super::entry::{
    const_str, declared_params, delegate, first_positional, known_text, kwarg, low_level_entries,
    module_constants, schema_params,
};
use crate::queries::Frameworks;
use mcp_scan_core::{CoverageGap, DeclaredParam, EntityKind, GapKind};
use mcp_scan_ir::{EntryPoint, Expr, ExprKind, FuncId, Module, Span, Stmt, StmtKind};
use std::collections::HashMap;

/// A dispatcher registration seen by the resolver.
pub(crate) struct Site {
    pub module: usize,
    pub func: FuncId,
    pub span: Span,
    pub server: String,
    /// Tool name → handler (module, function) from a mapping the dispatcher indexes.
    pub mapping: Vec<(String, usize, FuncId)>,
    /// Tool names from a bundled data file the dispatcher looks its tool up in.
    pub data_names: Vec<String>,
}

/// A tool declaration (`Tool(name=..., ...)`) anywhere in the tree.
struct Decl {
    module: usize,
    /// The class whose method builds the declaration, for handler objects.
    class: Option<String>,
    /// The function the declaration is written in (not the handler).
    within: FuncId,
    name: String,
    description: Option<String>,
    params: Vec<DeclaredParam>,
    /// A function of the same module named by a `handler=`-like keyword
    /// (`Tool(name="x", handler=handle_x)`): the declaration carries its handler.
    handler: Option<FuncId>,
}

/// Keywords with which a tool declaration names the function that runs it.
const HANDLER_KEYWORDS: &[&str] = &["handler", "fn", "func", "function", "callback"];

pub(crate) fn split_dispatchers(
    mods: &mut [Module],
    fw: &Frameworks,
    sites: &[Site],
    gaps: &mut Vec<CoverageGap>,
) {
    if sites.is_empty() {
        if undescribed(mods) {
            let decls = declared_tools(mods, fw);
            describe_from_declarations(mods, &decls);
        }
        return;
    }
    let mut decls: Option<Vec<Decl>> = None;
    for site in sites {
        let (m, f) = (site.module, site.func);
        let Some(dname) = mods
            .get(m)
            .and_then(|md| md.functions.get(f))
            .map(|d| d.name.clone())
        else {
            continue;
        };
        if !is_split(&mods[m], f) && !mods[m].entry_points.iter().any(|e| e.function == f) {
            // The server is bound in another module (or not by a plain assignment).
            let calls = module_calls(&mods[m], fw);
            let consts = module_constants(&mods[m]);
            let mut entries = Vec::new();
            low_level_entries(
                &mut mods[m],
                &calls,
                fw,
                &[(f, site.server.clone(), site.span)],
                &[],
                &consts,
                &mut entries,
            );
            mods[m].entry_points.extend(entries);
        }
        // The dispatcher's own arms, else those of the function it hands the name to.
        let owner = if is_split(&mods[m], f) {
            Some(f)
        } else {
            delegate(&mods[m], f, &module_constants(&mods[m]))
                .map(|(g, _, _)| g)
                .filter(|&g| is_split(&mods[m], g))
        };
        if let Some(owner) = owner {
            // Literal branches cover some tools; the tools declared beside the dispatcher that
            // no branch names run through whatever the dispatcher looks up.
            let prefix = format!("{}[", mods[m].functions[owner].qualname);
            let split: Vec<String> = mods[m]
                .entry_points
                .iter()
                .filter(|e| {
                    mods[m]
                        .functions
                        .get(e.function)
                        .is_some_and(|h| h.qualname.starts_with(&prefix))
                })
                .map(|e| e.name.clone())
                .collect();
            let decls = decls.get_or_insert_with(|| declared_tools(mods, fw));
            let mut unattributed = Vec::new();
            for d in decls.iter().filter(|d| d.module == m && d.class.is_none()) {
                if split.contains(&d.name)
                    || mods[m]
                        .entry_points
                        .iter()
                        .any(|e| e.name == d.name && e.function != f)
                {
                    continue;
                }
                // A declared name over-approximated by the whole dispatcher: its declared
                // handler is what runs.
                let whole = mods[m]
                    .entry_points
                    .iter()
                    .any(|e| e.name == d.name && e.function == f);
                match d.handler {
                    None if whole => {}
                    Some(h) => {
                        mods[m]
                            .entry_points
                            .retain(|e| !(e.name == d.name && e.function == f));
                        let span = mods[m].functions[h].span;
                        mods[m].entry_points.push(EntryPoint {
                            kind: EntityKind::Tool,
                            name: d.name.clone(),
                            description: d.description.clone(),
                            function: h,
                            params: d.params.clone(),
                            span,
                            server_var: site.server.clone(),
                        });
                    }
                    None => unattributed.push(d.name.clone()),
                }
            }
            if !unattributed.is_empty() {
                gaps.push(CoverageGap {
                    kind: GapKind::UnresolvedRegistration,
                    file: Some(mods[m].path.clone()),
                    line: Some(site.span.start_line),
                    reason: format!(
                        "the `call_tool` dispatcher `{dname}` names only some tools in its branches; declared tools {} could not be attributed to a handler",
                        unattributed.join(", ")
                    ),
                });
            }
            continue;
        }
        let decls = decls.get_or_insert_with(|| declared_tools(mods, fw));
        if !site.mapping.is_empty() {
            mods[m].entry_points.retain(|e| e.function != f);
            for (name, hm, hf) in &site.mapping {
                let Some(h) = mods.get(*hm).and_then(|md| md.functions.get(*hf)) else {
                    continue;
                };
                let decl = decls.iter().find(|d| &d.name == name);
                let entry = EntryPoint {
                    kind: EntityKind::Tool,
                    name: name.clone(),
                    description: decl
                        .and_then(|d| d.description.clone())
                        .or_else(|| h.docstring.clone()),
                    function: *hf,
                    params: decl
                        .map(|d| d.params.clone())
                        .filter(|p| !p.is_empty())
                        .unwrap_or_else(|| declared_params(h)),
                    span: h.span,
                    server_var: site.server.clone(),
                };
                if !mods[*hm]
                    .entry_points
                    .iter()
                    .any(|x| x.name == entry.name && x.function == entry.function)
                {
                    mods[*hm].entry_points.push(entry);
                }
            }
            // Tools declared for this server that the mapping has no handler for run whatever
            // the dispatcher does when the lookup misses: the whole dispatcher stands for them
            // (analysed, never silently absent). With several dispatchers in the tree only the
            // declarations beside this one are known to be its own.
            let dspan = mods[m].functions[f].span;
            let mut rest: Vec<EntryPoint> = Vec::new();
            for d in decls
                .iter()
                .filter(|d| d.class.is_none() && (sites.len() == 1 || d.module == m))
            {
                if site.mapping.iter().any(|(n, _, _)| n == &d.name)
                    || rest.iter().any(|e| e.name == d.name)
                    || mods
                        .iter()
                        .any(|md| md.entry_points.iter().any(|e| e.name == d.name))
                {
                    continue;
                }
                rest.push(EntryPoint {
                    kind: EntityKind::Tool,
                    name: d.name.clone(),
                    description: d.description.clone(),
                    function: f,
                    params: d.params.clone(),
                    span: dspan,
                    server_var: site.server.clone(),
                });
            }
            mods[m].entry_points.extend(rest);
            continue;
        }
        let called = called_methods(&mods[m].functions[f].body);
        let mut found: Vec<(usize, EntryPoint)> = Vec::new();
        for d in decls.iter() {
            let Some(class) = &d.class else { continue };
            let Some(h) = handler_method(&mods[d.module], class, &called, d.within, 0) else {
                continue;
            };
            let span = mods[d.module].functions[h].span;
            found.push((
                d.module,
                EntryPoint {
                    kind: EntityKind::Tool,
                    name: d.name.clone(),
                    description: d.description.clone(),
                    function: h,
                    params: d.params.clone(),
                    span,
                    server_var: site.server.clone(),
                },
            ));
        }
        if !found.is_empty() {
            mods[m].entry_points.retain(|e| e.function != f);
            for (hm, e) in found {
                if !mods[hm]
                    .entry_points
                    .iter()
                    .any(|x| x.name == e.name && x.function == e.function)
                {
                    mods[hm].entry_points.push(e);
                }
            }
            continue;
        }
        if !site.data_names.is_empty() {
            // Each tool the data file lists runs the whole dispatcher: analysed per name.
            mods[m].entry_points.retain(|e| e.function != f);
            let h = &mods[m].functions[f];
            let (span, params) = (h.span, declared_params(h));
            for name in &site.data_names {
                if mods[m].entry_points.iter().any(|e| &e.name == name) {
                    continue;
                }
                mods[m].entry_points.push(EntryPoint {
                    kind: EntityKind::Tool,
                    name: name.clone(),
                    description: None,
                    function: f,
                    params: params.clone(),
                    span,
                    server_var: site.server.clone(),
                });
            }
            continue;
        }
        let declared_whole = mods[m]
            .entry_points
            .iter()
            .any(|e| e.function == f && e.name != dname);
        if declared_whole {
            // Declared tools over-approximated by the whole dispatcher: analysed, not a gap.
            continue;
        }
        gaps.push(CoverageGap {
            kind: GapKind::UnresolvedRegistration,
            file: Some(mods[m].path.clone()),
            line: Some(site.span.start_line),
            reason: format!(
                "the `call_tool` dispatcher `{dname}` could not be split per tool (no literal tool-name branches, declarations or handler objects)"
            ),
        });
    }
    if undescribed(mods) {
        let decls = decls.unwrap_or_else(|| declared_tools(mods, fw));
        describe_from_declarations(mods, &decls);
    }
}

/// Fail closed: a tree that imports an MCP server class, or calls a registration or dispatcher
/// API, and still ends with no tool (nor resource or prompt) has registrations the analyzer did not recognise. That is a
/// gap at the import (or the first module that knows the framework), never "no tools found".
pub(crate) fn no_tool_gap(
    mods: &[Module],
    fw: &Frameworks,
    registration_sites: usize,
    gaps: &mut Vec<CoverageGap>,
) {
    // Resources or prompts found mean the server's registrations were recognised (a server
    // with only resources is not an unanalysed one).
    let has_entry = mods.iter().any(|m| !m.entry_points.is_empty());
    if has_entry || !gaps.is_empty() {
        return;
    }
    let server_import = mods.iter().find_map(|m| {
        m.imports
            .iter()
            .find(|i| imports_server_class(i, fw) || builds_server_through(m, i, fw))
            .map(|i| (m, i))
    });
    let (module, line, reason) = match server_import {
        Some((m, i)) => (
            m,
            Some(i.span.start_line),
            format!(
                "imports the MCP server class `{}` but no tool registration was recognised ({} registration site(s) seen): its tools were not analysed",
                match &i.symbol {
                    Some(s) => format!("{}.{s}", i.module),
                    None => i.module.clone(),
                },
                registration_sites
            ),
        ),
        None if registration_sites > 0 => {
            let Some(m) = mods.iter().find(|m| {
                m.imports.iter().any(|i| {
                    fw.server_classes
                        .iter()
                        .flat_map(|c| c.packages.iter())
                        .any(|p| in_package(&i.module, p))
                })
            }) else {
                return;
            };
            (
                m,
                None,
                format!(
                    "{registration_sites} registration site(s) of the MCP framework seen but none resolved to a tool: its tools were not analysed"
                ),
            )
        }
        None => return,
    };
    gaps.push(CoverageGap {
        kind: GapKind::UnresolvedRegistration,
        file: Some(module.path.clone()),
        line,
        reason,
    });
}

/// `import fastmcp` (or `import mcp.server as srv`) and a server class called through it
/// (`fastmcp.FastMCP("x")`, `srv.lowlevel.Server("x")`).
fn builds_server_through(m: &Module, i: &mcp_scan_ir::Import, fw: &Frameworks) -> bool {
    if i.symbol.is_some() {
        return false;
    }
    let mut calls = Vec::new();
    for f in &m.functions {
        walk(&f.body, &mut |e| calls_in(e, &mut calls));
    }
    calls.iter().any(|c| {
        let ExprKind::Call { callee, .. } = &c.kind else {
            return false;
        };
        let Some(path) = callee.dotted_path() else {
            return false;
        };
        let Some(rest) = path.strip_prefix(i.local.as_str()) else {
            return false;
        };
        if !rest.starts_with('.') {
            return false;
        }
        let full = format!("{}{rest}", i.module);
        fw.servers.iter().any(|(callee, _)| callee == &full)
            || fw.server_classes.iter().any(|c| {
                full.rsplit_once('.').is_some_and(|(pkg, name)| {
                    name == c.name && c.packages.iter().any(|p| in_package(pkg, p))
                })
            })
    })
}

fn in_package(module: &str, package: &str) -> bool {
    module == package
        || module
            .strip_prefix(package)
            .is_some_and(|r| r.starts_with('.'))
}

/// `from mcp.server.fastmcp import FastMCP`, `from fastmcp import FastMCP`, `from mcp.server
/// import lowlevel`, `import mcp.server.fastmcp`: an import naming a server class of the
/// frameworks table or a module on the way to one (a bare `import mcp` names neither).
fn imports_server_class(i: &mcp_scan_ir::Import, fw: &Frameworks) -> bool {
    let full = match &i.symbol {
        Some(s) => format!("{}.{s}", i.module),
        None => i.module.clone(),
    };
    let by_class = i.symbol.as_ref().is_some_and(|s| {
        fw.server_classes
            .iter()
            .any(|c| &c.name == s && c.packages.iter().any(|p| in_package(&i.module, p)))
    });
    by_class
        || (full.contains('.')
            && fw.servers.iter().any(|(callee, _)| {
                callee == &full
                    || callee
                        .strip_prefix(full.as_str())
                        .is_some_and(|r| r.starts_with('.'))
            }))
}

fn undescribed(mods: &[Module]) -> bool {
    mods.iter().any(|md| {
        md.entry_points
            .iter()
            .any(|e| e.kind == EntityKind::Tool && e.description.is_none())
    })
}

/// The module's constants and those it imports from scanned modules (`from .utils import
/// Tools` makes `Tools.SEARCH` known), so that declarations naming a tool by an imported enum
/// member resolve.
fn constants_with_imports(mods: &[Module], md: &Module) -> HashMap<String, String> {
    let mut consts = module_constants(md);
    for imp in &md.imports {
        let Some(src) = mods.iter().find(|m| m.name == imp.module) else {
            continue;
        };
        for (k, v) in module_constants(src) {
            let local = match &imp.symbol {
                Some(sym) if &k == sym => imp.local.clone(),
                Some(sym) => match k.strip_prefix(&format!("{sym}.")) {
                    Some(rest) => format!("{}.{rest}", imp.local),
                    None => continue,
                },
                None => format!("{}.{k}", imp.local),
            };
            consts.entry(local).or_insert(v);
        }
    }
    consts
}

/// Tools whose declaration sits in another module than the dispatcher that runs them
/// (`download_tool = types.Tool(...)` in `tools/download.py`) take its description, when the
/// declarations of that name agree.
fn describe_from_declarations(mods: &mut [Module], decls: &[Decl]) {
    for md in mods.iter_mut() {
        for e in md.entry_points.iter_mut() {
            if e.kind != EntityKind::Tool || e.description.is_some() {
                continue;
            }
            let mut found = decls
                .iter()
                .filter(|d| d.name == e.name)
                .filter_map(|d| d.description.as_ref());
            if let Some(first) = found.next()
                && found.all(|d| d == first)
            {
                e.description = Some(first.clone());
            }
        }
    }
}

fn is_split(md: &Module, f: FuncId) -> bool {
    let Some(d) = md.functions.get(f) else {
        return false;
    };
    let prefix = format!("{}[", d.qualname);
    md.entry_points.iter().any(|e| {
        md.functions
            .get(e.function)
            .is_some_and(|h| h.qualname.starts_with(&prefix))
    })
}

pub(crate) fn walk<'s>(stmts: &'s [Stmt], f: &mut impl FnMut(&'s Expr)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                targets.iter().for_each(&mut *f);
                f(value);
            }
            StmtKind::AugAssign { value, .. } => f(value),
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Raise(Some(e)) => f(e),
            StmtKind::If { test, .. } | StmtKind::While { test, .. } => f(test),
            StmtKind::For { iter, .. } => f(iter),
            StmtKind::With { items, .. } => items.iter().for_each(|i| f(&i.context)),
            StmtKind::Match { subject, .. } => f(subject),
            _ => {}
        }
        match &s.kind {
            StmtKind::If { then, orelse, .. } => {
                walk(then, f);
                walk(orelse, f);
            }
            StmtKind::While { body, orelse, .. } | StmtKind::For { body, orelse, .. } => {
                walk(body, f);
                walk(orelse, f);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                walk(body, f);
                for h in handlers {
                    walk(&h.body, f);
                }
                walk(orelse, f);
                walk(finally, f);
            }
            StmtKind::With { body, .. } => walk(body, f),
            StmtKind::Match { arms, .. } => {
                for a in arms {
                    walk(&a.body, f);
                }
            }
            _ => {}
        }
    }
}

pub(crate) fn calls_in<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Call { callee, args } => {
            out.push(e);
            calls_in(callee, out);
            for a in args {
                calls_in(&a.value, out);
            }
        }
        ExprKind::Attribute { value, .. } | ExprKind::Await(value) => calls_in(value, out),
        ExprKind::List(xs) | ExprKind::Tuple(xs) => xs.iter().for_each(|x| calls_in(x, out)),
        ExprKind::Dict(items) => items.iter().for_each(|(_, v)| calls_in(v, out)),
        ExprKind::Comprehension { elements, .. } => elements.iter().for_each(|x| calls_in(x, out)),
        ExprKind::Conditional { body, orelse, .. } => {
            calls_in(body, out);
            calls_in(orelse, out);
        }
        _ => {}
    }
}

/// Tool-declaration calls of a module with the function they are in.
fn module_calls(md: &Module, fw: &Frameworks) -> Vec<(Expr, FuncId)> {
    let mut out = Vec::new();
    for (fi, func) in md.functions.iter().enumerate() {
        walk(&func.body, &mut |e| {
            let mut cs = Vec::new();
            calls_in(e, &mut cs);
            for c in cs {
                if is_decl(c, fw) {
                    out.push((c.clone(), fi));
                }
            }
        });
    }
    out
}

fn is_decl(c: &Expr, fw: &Frameworks) -> bool {
    let ExprKind::Call { callee, .. } = &c.kind else {
        return false;
    };
    let last = match &callee.kind {
        ExprKind::Name(n) => n.as_str(),
        ExprKind::Attribute { attr, .. } => attr.as_str(),
        _ => return false,
    };
    fw.low_level.tool_declarations.iter().any(|t| t == last)
}

/// Methods the dispatcher calls on objects (`handler.run_tool(arguments)`).
fn called_methods(body: &[Stmt]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    walk(body, &mut |e| {
        let mut cs = Vec::new();
        calls_in(e, &mut cs);
        for c in cs {
            if let ExprKind::Call { callee, .. } = &c.kind
                && let ExprKind::Attribute { attr, .. } = &callee.kind
                && !out.contains(attr)
            {
                out.push(attr.clone());
            }
        }
    });
    out
}

fn declared_tools(mods: &[Module], fw: &Frameworks) -> Vec<Decl> {
    let ll = &fw.low_level;
    let mut out = Vec::new();
    for (mi, md) in mods.iter().enumerate() {
        let calls = module_calls(md, fw);
        if calls.is_empty() {
            continue;
        }
        let consts = constants_with_imports(mods, md);
        for (call, within) in calls {
            let ExprKind::Call { args, .. } = &call.kind else {
                continue;
            };
            let class = md.functions[within].class.clone();
            let resolve = |e: &Expr| -> Option<String> {
                const_str(e, &consts).or_else(|| {
                    let (ExprKind::Attribute { value, attr }, Some(c)) = (&e.kind, &class) else {
                        return None;
                    };
                    matches!(&value.kind, ExprKind::Name(n) if n == "self")
                        .then(|| self_attr_str(md, c, attr, &consts, 0))
                        .flatten()
                })
            };
            let Some(name) = kwarg(args, &ll.name_keyword)
                .or_else(|| first_positional(args))
                .and_then(resolve)
            else {
                continue;
            };
            let text = kwarg(args, &ll.description_keyword);
            let description = text
                .and_then(resolve)
                .or_else(|| {
                    class
                        .as_ref()
                        .and_then(|c| self_attr_str(md, c, &ll.description_keyword, &consts, 0))
                })
                .or_else(|| text.and_then(|e| known_text(e, &consts)));
            let params = ll
                .schema_keywords
                .iter()
                .find_map(|k| kwarg(args, k))
                .map(|schema| schema_params(schema, &consts))
                .unwrap_or_default();
            let handler = HANDLER_KEYWORDS
                .iter()
                .find_map(|k| kwarg(args, k))
                .and_then(|e| match &e.kind {
                    ExprKind::Name(n) => handler_fn(md, within, n),
                    _ => None,
                });
            out.push(Decl {
                module: mi,
                class,
                within,
                name,
                description,
                params,
                handler,
            });
        }
    }
    out
}

/// A function named `name` visible from `within`: nested in it or an enclosing function, or at
/// module level.
fn handler_fn(md: &Module, within: FuncId, name: &str) -> Option<FuncId> {
    let mut scope = Some(within);
    while let Some(sc) = scope {
        if let Some(i) = md
            .functions
            .iter()
            .position(|g| g.name == name && g.parent == Some(sc) && g.class.is_none())
        {
            return Some(i);
        }
        scope = md.functions.get(sc).and_then(|g| g.parent);
    }
    md.functions.iter().position(|g| {
        g.name == name && g.parent.is_none() && g.class.is_none() && g.qualname == name
    })
}

/// A string attribute of a handler class: a class constant, `self.x = "..."` in `__init__`, or
/// `super().__init__("...")` into a base whose `__init__` stores its parameter in `self.x`.
fn self_attr_str(
    md: &Module,
    class: &str,
    attr: &str,
    consts: &HashMap<String, String>,
    depth: usize,
) -> Option<String> {
    if depth > 4 {
        return None;
    }
    if let Some(v) = consts.get(&format!("{class}.{attr}")) {
        return Some(v.clone());
    }
    let c = md.classes.iter().find(|c| c.name == class)?;
    let init = c
        .methods
        .iter()
        .copied()
        .find(|&m| md.functions[m].name == "__init__");
    if let Some(init) = init {
        let mut found = None;
        let mut super_args = None;
        walk(&md.functions[init].body, &mut |e| {
            let mut cs = Vec::new();
            calls_in(e, &mut cs);
            for call in cs {
                if let ExprKind::Call { callee, args } = &call.kind
                    && let ExprKind::Attribute { value, attr: a } = &callee.kind
                    && a == "__init__"
                    && matches!(&value.kind, ExprKind::Call { callee, .. }
                        if matches!(&callee.kind, ExprKind::Name(n) if n == "super"))
                {
                    super_args = Some(args.clone());
                }
            }
        });
        for s in &md.functions[init].body {
            if let StmtKind::Assign { targets, value } = &s.kind
                && targets.iter().any(|t| is_self_attr(t, attr))
                && let Some(v) = const_str(value, consts)
            {
                found = Some(v);
            }
        }
        if found.is_some() {
            return found;
        }
        if let Some(args) = super_args
            && let Some(base) = c.bases.first()
        {
            let base = base.rsplit('.').next().unwrap_or(base);
            if let Some(b) = md.classes.iter().find(|b| b.name == base)
                && let Some(binit) = b
                    .methods
                    .iter()
                    .copied()
                    .find(|&m| md.functions[m].name == "__init__")
            {
                let bf = &md.functions[binit];
                for s in &bf.body {
                    if let StmtKind::Assign { targets, value } = &s.kind
                        && targets.iter().any(|t| is_self_attr(t, attr))
                        && let ExprKind::Name(p) = &value.kind
                        && let Some(i) = bf.params.iter().position(|x| &x.name == p)
                    {
                        let arg = args
                            .iter()
                            .find(|a| a.name.as_deref() == Some(p.as_str()))
                            .or_else(|| {
                                i.checked_sub(1).and_then(|pos| {
                                    args.iter().filter(|a| a.name.is_none()).nth(pos)
                                })
                            });
                        if let Some(v) = arg.and_then(|a| const_str(&a.value, consts)) {
                            return Some(v);
                        }
                    }
                }
            }
        }
    }
    for base in &c.bases {
        let base = base.rsplit('.').next().unwrap_or(base);
        if base != class
            && let Some(v) = self_attr_str(md, base, attr, consts, depth + 1)
        {
            return Some(v);
        }
    }
    None
}

fn is_self_attr(t: &Expr, attr: &str) -> bool {
    matches!(&t.kind, ExprKind::Attribute { value, attr: a }
        if a == attr && matches!(&value.kind, ExprKind::Name(n) if n == "self"))
}

/// The method of a handler class (or a base in the same module) that the dispatcher calls.
fn handler_method(
    md: &Module,
    class: &str,
    called: &[String],
    within: FuncId,
    depth: usize,
) -> Option<FuncId> {
    if depth > 4 {
        return None;
    }
    let c = md.classes.iter().find(|c| c.name == class)?;
    for name in called {
        if name.starts_with("__") {
            continue;
        }
        if let Some(&m) = c
            .methods
            .iter()
            .find(|&&m| m != within && &md.functions[m].name == name)
        {
            return Some(m);
        }
    }
    for base in &c.bases {
        let base = base.rsplit('.').next().unwrap_or(base);
        if base != class
            && let Some(m) = handler_method(md, base, called, within, depth + 1)
        {
            return Some(m);
        }
    }
    None
}
