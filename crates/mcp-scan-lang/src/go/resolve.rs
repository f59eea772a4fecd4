//! Go resolution over a tree's modules:
//! 1. Packages: the files of a directory are one package. Each module is named after its import
//!    path (`<go.mod module>/<dir>`; the first file of a package carries the package's name,
//!    the others `<package>#<file>`), and a file sees its siblings' top-level names through
//!    synthetic imports, so calls cross files of a package and, through the package's first
//!    file, across packages of the module.
//! 2. Entry points: registrations of `grammars/go/frameworks.toml` (`s.AddTool(def, handler)`,
//!    `mcp.AddTool(s, &mcp.Tool{...}, handler)`), with definitions followed through local
//!    variables and functions that return them, and handlers through function values, method
//!    values, closures, handler wrappers and functions that return a handler. Functions that
//!    return a definition together with its handler (`func GetX() (mcp.Tool, server.ToolHandlerFunc)`)
//!    are entry points too: the tree registers them through code that may not be present.
//!    Each entry point's handler is called from a synthetic function whose parameters are the
//!    declared parameters (the request the framework passes carries them all).
//!    A registration whose definition or handler cannot be followed is a coverage gap.

use super::{GoFrameworks, go_frameworks_checked};
use crate::Resolution;
use mcp_scan_core::{CoverageGap, DeclaredParam, EntityKind, GapKind};
use mcp_scan_ir::{
    Arg, EntryPoint, Expr, ExprKind, FuncId, Function, Import, Module, Param, Span, Stmt, StmtKind,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// How deep definitions and handlers are followed through variables and returns.
const MAX_HOPS: usize = 8;

pub(crate) fn resolve_tree(mods: &mut [Module], root: Option<&Path>) -> Resolution {
    let mut out = Resolution::default();
    let fw = match go_frameworks_checked() {
        Ok(f) => f,
        Err(e) => {
            for m in mods.iter() {
                out.gaps.push(CoverageGap {
                    kind: GapKind::UnresolvedRegistration,
                    file: Some(m.path.clone()),
                    line: None,
                    reason: e.to_string(),
                });
            }
            return out;
        }
    };
    // A tree without its go.mod (a partial copy) still names its packages by import path: the
    // module path is what the tree's own imports put before its directories.
    let module = root
        .and_then(read_go_mod)
        .map(|p| (p, String::new()))
        .or_else(|| infer_module_path(mods));
    link_packages(mods, module.as_ref());
    first_results(mods);
    if let Some((mp, _)) = module.as_ref() {
        missing_packages(mods, mp, &mut out);
    }
    undefined_calls(mods, &mut out);
    let found = {
        let r = Resolver { mods, fw };
        r.find_all(&mut out)
    };
    let mut seen = BTreeSet::new();
    for ep in found {
        if !seen.insert((ep.module, ep.kind, ep.name.clone())) {
            continue;
        }
        attach(&mut mods[ep.module], ep);
    }
    out
}

/// The module path declared by `go.mod` at the root.
fn read_go_mod(root: &Path) -> Option<String> {
    let text = std::fs::read_to_string(root.join("go.mod")).ok()?;
    text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("module")?;
        let p = rest.trim().trim_matches('"');
        (!p.is_empty()).then(|| p.to_string())
    })
}

/// The module path and the directory of the tree its go.mod would be in: the split of some
/// directory's path whose tail the tree's own imports end with, by most imports.
fn infer_module_path(mods: &[Module]) -> Option<(String, String)> {
    let dirs: BTreeSet<&str> = mods
        .iter()
        .map(|m| dir_of(&m.path))
        .filter(|d| !d.is_empty())
        .collect();
    let mut votes: BTreeMap<(String, String), usize> = BTreeMap::new();
    for m in mods {
        for imp in &m.imports {
            for d in &dirs {
                let segs: Vec<&str> = d.split('/').collect();
                for k in 0..segs.len() {
                    let rest = segs[k..].join("/");
                    if let Some(prefix) = imp
                        .module
                        .strip_suffix(rest.as_str())
                        .and_then(|p| p.strip_suffix('/'))
                        && !prefix.is_empty()
                    {
                        *votes
                            .entry((prefix.to_string(), segs[..k].join("/")))
                            .or_default() += 1;
                        break;
                    }
                }
            }
        }
    }
    if let Some(best) = votes.into_iter().max_by_key(|(_, n)| *n).map(|(p, _)| p) {
        return Some(best);
    }
    // Go lets only code inside `X` import `X/internal/...`: the tree (at its root) is in `X`.
    mods.iter()
        .flat_map(|m| m.imports.iter())
        .filter_map(|i| {
            let p = i.module.as_str();
            p.find("/internal/")
                .map(|at| &p[..at])
                .or_else(|| p.strip_suffix("/internal"))
        })
        .filter(|x| x.contains('/'))
        .min_by_key(|x| x.len())
        .map(|x| (x.to_string(), String::new()))
}

/// Go's predeclared functions and types (callable as conversions).
const PREDECLARED: &[&str] = &[
    "append",
    "cap",
    "clear",
    "close",
    "complex",
    "copy",
    "delete",
    "imag",
    "len",
    "make",
    "max",
    "min",
    "new",
    "panic",
    "print",
    "println",
    "real",
    "recover",
    "bool",
    "byte",
    "complex64",
    "complex128",
    "error",
    "float32",
    "float64",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "rune",
    "string",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uintptr",
    "any",
];

/// A call of a bare name that nothing in its package defines: Go would not compile it, so a
/// file of the package is missing from the tree (a partial copy). Its code is not analysed.
fn undefined_calls(mods: &[Module], out: &mut Resolution) {
    let mut by_pkg: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for m in mods {
        let pkg = m.name.split_once('#').map_or(m.name.as_str(), |(p, _)| p);
        by_pkg.entry(pkg).or_default().extend(top_level_names(m));
    }
    for m in mods {
        let pkg = m.name.split_once('#').map_or(m.name.as_str(), |(p, _)| p);
        let defined = &by_pkg[pkg];
        let mut reported = BTreeSet::new();
        for (fi, f) in m.functions.iter().enumerate() {
            // Locals of this function and every enclosing one (closures see them).
            let mut locals: BTreeSet<String> = BTreeSet::new();
            let mut cur = Some(fi);
            while let Some(c) = cur {
                let Some(g) = m.functions.get(c) else { break };
                locals.extend(g.params.iter().map(|p| p.name.clone()));
                bound_names(&g.body, &mut locals);
                cur = g.parent;
            }
            let mut calls: Vec<(String, u32)> = Vec::new();
            visit_stmts(&f.body, &mut |e| {
                if let ExprKind::Call { callee, .. } = &e.kind
                    && let ExprKind::Name(n) = &callee.kind
                {
                    calls.push((n.clone(), e.span.start_line));
                }
            });
            for (n, line) in calls {
                if PREDECLARED.contains(&n.as_str())
                    || defined.contains(&n)
                    || locals.contains(&n)
                    || m.imports.iter().any(|i| i.local == n)
                    || !reported.insert(n.clone())
                {
                    continue;
                }
                out.gaps.push(CoverageGap {
                    kind: GapKind::UnanalysedFile,
                    file: Some(m.path.clone()),
                    line: Some(line),
                    reason: format!(
                        "calls `{n}`, which no file of its package in the tree defines (a file of the package is missing)"
                    ),
                });
            }
        }
    }
}

/// Names a body binds (assignments, loop targets, type-switch aliases), nested blocks included.
fn bound_names(stmts: &[Stmt], out: &mut BTreeSet<String>) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    collect_target_names(t, out);
                }
            }
            StmtKind::For {
                target,
                body,
                orelse,
                ..
            } => {
                collect_target_names(target, out);
                bound_names(body, out);
                bound_names(orelse, out);
            }
            StmtKind::FunctionDef { name, .. } => {
                out.insert(name.clone());
            }
            StmtKind::If { then, orelse, .. }
            | StmtKind::While {
                body: then, orelse, ..
            } => {
                bound_names(then, out);
                bound_names(orelse, out);
            }
            StmtKind::Labeled { body, .. } | StmtKind::Defer(body) => bound_names(body, out),
            StmtKind::Switch { arms, .. } | StmtKind::Match { arms, .. } => {
                for a in arms {
                    bound_names(&a.body, out);
                }
            }
            _ => {}
        }
    }
}

/// Imports of the module's own packages that the tree does not hold: code the server runs that
/// was not analysed (fail closed).
fn missing_packages(mods: &[Module], module_path: &str, out: &mut Resolution) {
    let have: BTreeSet<&str> = mods
        .iter()
        .map(|m| m.name.split_once('#').map_or(m.name.as_str(), |(p, _)| p))
        .collect();
    let inside = format!("{module_path}/");
    for m in mods {
        let mut seen = BTreeSet::new();
        for imp in &m.imports {
            if imp.symbol.is_some()
                || !(imp.module == module_path || imp.module.starts_with(&inside))
                || have.contains(imp.module.as_str())
                || !seen.insert(imp.module.as_str())
            {
                continue;
            }
            out.gaps.push(CoverageGap {
                kind: GapKind::UnanalysedImport,
                file: Some(m.path.clone()),
                line: Some(imp.span.start_line),
                reason: format!(
                    "imports `{}`, a package of the module not in the tree",
                    imp.module
                ),
            });
        }
    }
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Top-level names a module defines: functions, types and package-level variables.
fn top_level_names(m: &Module) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in m.functions.iter().skip(1) {
        if f.parent.is_none() && f.class.is_none() {
            out.insert(f.qualname.clone());
        }
    }
    for c in &m.classes {
        out.insert(c.name.clone());
    }
    if let Some(top) = m.functions.first() {
        for s in &top.body {
            if let StmtKind::Assign { targets, .. } = &s.kind {
                for t in targets {
                    collect_target_names(t, &mut out);
                }
            }
        }
    }
    out
}

fn collect_target_names(e: &Expr, out: &mut BTreeSet<String>) {
    match &e.kind {
        ExprKind::Name(n) => {
            out.insert(n.clone());
        }
        ExprKind::Tuple(xs) | ExprKind::List(xs) => {
            for x in xs {
                collect_target_names(x, out);
            }
        }
        _ => {}
    }
}

/// Every name a module's code refers to.
fn used_names(m: &Module) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for f in &m.functions {
        visit_stmts(&f.body, &mut |e| {
            if let ExprKind::Name(n) = &e.kind {
                out.insert(n.clone());
            }
        });
    }
    out
}

fn link_packages(mods: &mut [Module], module: Option<&(String, String)>) {
    let mut by_dir: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, m) in mods.iter().enumerate() {
        by_dir
            .entry(dir_of(&m.path).to_string())
            .or_default()
            .push(i);
    }
    for (dir, mut idx) in by_dir {
        idx.sort_by(|a, b| mods[*a].path.cmp(&mods[*b].path));
        let pkg = match module {
            Some((mp, root)) if dir == *root => mp.clone(),
            Some((mp, root)) if root.is_empty() => format!("{mp}/{dir}"),
            Some((mp, root)) => match dir.strip_prefix(&format!("{root}/")) {
                Some(rest) => format!("{mp}/{rest}"),
                None => dir.clone(),
            },
            None if dir.is_empty() => ".".to_string(),
            None => dir.clone(),
        };
        for (k, &i) in idx.iter().enumerate() {
            mods[i].name = if k == 0 {
                pkg.clone()
            } else {
                format!("{pkg}#{}", mods[i].path.rsplit('/').next().unwrap_or(""))
            };
        }
        let defs: Vec<BTreeSet<String>> = idx.iter().map(|&i| top_level_names(&mods[i])).collect();
        for (k, &i) in idx.iter().enumerate() {
            let own = &defs[k];
            let locals: BTreeSet<String> =
                mods[i].imports.iter().map(|x| x.local.clone()).collect();
            // The package's first file stands for the package: it re-exports every name.
            let wanted: BTreeSet<String> = if k == 0 {
                defs.iter().flatten().cloned().collect()
            } else {
                used_names(&mods[i])
            };
            let mut extra = Vec::new();
            for name in wanted {
                if own.contains(&name) || locals.contains(&name) {
                    continue;
                }
                if let Some(j) = (0..idx.len()).find(|&j| j != k && defs[j].contains(&name)) {
                    extra.push(Import {
                        local: name.clone(),
                        module: mods[idx[j]].name.clone(),
                        symbol: Some(name),
                        span: Span::default(),
                    });
                }
            }
            mods[i].imports.extend(extra);
        }
    }
}

/// `v, err := f()`: a function of the tree returns a tuple (`return v, nil`), but a library
/// call's model describes its first result, the value; the others are errors and flags. So the
/// first target of a multiple assignment from a call to no function of the tree takes the call's
/// value and the rest nothing.
fn first_results(mods: &mut [Module]) {
    let mut known: BTreeSet<String> = BTreeSet::new();
    for m in mods.iter() {
        for f in m.functions.iter().skip(1) {
            if f.parent.is_none() {
                known.insert(f.name.clone());
            }
        }
    }
    for m in mods.iter_mut() {
        for f in &mut m.functions {
            rewrite_first_results(&mut f.body, &known);
        }
    }
}

fn rewrite_first_results(stmts: &mut Vec<Stmt>, known: &BTreeSet<String>) {
    let mut i = 0;
    while i < stmts.len() {
        let mut extra: Vec<Stmt> = Vec::new();
        let sp = stmts[i].span;
        match &mut stmts[i].kind {
            StmtKind::Assign { targets, value } => {
                let library_call = match &value.kind {
                    ExprKind::Call { callee, .. } => match &callee.kind {
                        ExprKind::Name(n) => !known.contains(n),
                        ExprKind::Attribute { attr, .. } => !known.contains(attr),
                        ExprKind::Lambda(_) => false,
                        _ => true,
                    },
                    _ => false,
                };
                if library_call
                    && targets.len() == 1
                    && let ExprKind::Tuple(xs) = &targets[0].kind
                    && xs.len() > 1
                {
                    let xs = xs.clone();
                    targets[0] = xs[0].clone();
                    for x in xs.into_iter().skip(1) {
                        extra.push(Stmt {
                            kind: StmtKind::Assign {
                                targets: vec![x],
                                value: Expr::new(ExprKind::Null, sp),
                            },
                            span: sp,
                        });
                    }
                }
            }
            StmtKind::If { then, orelse, .. }
            | StmtKind::While {
                body: then, orelse, ..
            } => {
                rewrite_first_results(then, known);
                rewrite_first_results(orelse, known);
            }
            StmtKind::For { body, orelse, .. } => {
                rewrite_first_results(body, known);
                rewrite_first_results(orelse, known);
            }
            StmtKind::Labeled { body, .. } | StmtKind::Defer(body) => {
                rewrite_first_results(body, known)
            }
            StmtKind::Switch { arms, .. } | StmtKind::Match { arms, .. } => {
                for a in arms {
                    rewrite_first_results(&mut a.body, known);
                }
            }
            _ => {}
        }
        let n = extra.len();
        for (k, st) in extra.into_iter().enumerate() {
            stmts.insert(i + 1 + k, st);
        }
        i += 1 + n;
    }
}

/// Calls every sub-expression of `stmts` (not into nested functions' bodies).
pub(crate) fn visit_stmts(stmts: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    visit_expr(t, f);
                }
                visit_expr(value, f);
            }
            StmtKind::AugAssign { target, value, .. } => {
                visit_expr(target, f);
                visit_expr(value, f);
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) | StmtKind::Raise(Some(e)) => {
                visit_expr(e, f)
            }
            StmtKind::If { test, then, orelse }
            | StmtKind::While {
                test,
                body: then,
                orelse,
            } => {
                visit_expr(test, f);
                visit_stmts(then, f);
                visit_stmts(orelse, f);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                ..
            } => {
                visit_expr(target, f);
                visit_expr(iter, f);
                visit_stmts(body, f);
                visit_stmts(orelse, f);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                visit_stmts(body, f);
                for h in handlers {
                    visit_stmts(&h.body, f);
                }
                visit_stmts(orelse, f);
                visit_stmts(finally, f);
            }
            StmtKind::With { items, body, .. } => {
                for it in items {
                    visit_expr(&it.context, f);
                }
                visit_stmts(body, f);
            }
            StmtKind::Match { subject, arms } | StmtKind::Switch { subject, arms } => {
                visit_expr(subject, f);
                for a in arms {
                    if let Some(p) = &a.pattern {
                        visit_expr(p, f);
                    }
                    visit_stmts(&a.body, f);
                }
            }
            StmtKind::Labeled { body, .. } | StmtKind::Defer(body) => visit_stmts(body, f),
            StmtKind::Delete(es) => {
                for e in es {
                    visit_expr(e, f);
                }
            }
            _ => {}
        }
    }
}

fn visit_expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    match &e.kind {
        ExprKind::Attribute { value, .. }
        | ExprKind::Await(value)
        | ExprKind::Starred(value)
        | ExprKind::NamedExpr { value, .. } => visit_expr(value, f),
        ExprKind::Unary { operand, .. } => visit_expr(operand, f),
        ExprKind::Index { value, index } => {
            visit_expr(value, f);
            visit_expr(index, f);
        }
        ExprKind::Call { callee, args } => {
            visit_expr(callee, f);
            for a in args {
                visit_expr(&a.value, f);
            }
        }
        ExprKind::Binary { left, right, .. } => {
            visit_expr(left, f);
            visit_expr(right, f);
        }
        ExprKind::Conditional { test, body, orelse } => {
            visit_expr(test, f);
            visit_expr(body, f);
            visit_expr(orelse, f);
        }
        ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => {
            for x in xs {
                visit_expr(x, f);
            }
        }
        ExprKind::Dict(kv) => {
            for (k, v) in kv {
                if let Some(k) = k {
                    visit_expr(k, f);
                }
                visit_expr(v, f);
            }
        }
        ExprKind::FormatStr(parts) => {
            for p in parts {
                if let mcp_scan_ir::StrPart::Expr(x) = p {
                    visit_expr(x, f);
                }
            }
        }
        _ => {}
    }
}

/// An entry point found, before its synthetic handler function is added.
struct Found {
    module: usize,
    kind: EntityKind,
    name: String,
    description: Option<String>,
    params: Vec<DeclaredParam>,
    /// The handler as an expression callable from the module's top level.
    handler: Expr,
    /// Per handler parameter: whether the framework fills it (a context) rather than the
    /// request; None when the handler's parameters are not known.
    handler_params: Option<Vec<bool>>,
    span: Span,
    server_var: String,
}

struct Def {
    name: String,
    description: Option<String>,
    params: Vec<DeclaredParam>,
}

struct Handler {
    expr: Expr,
    params: Option<Vec<bool>>,
}

struct Resolver<'a> {
    mods: &'a [Module],
    fw: &'a GoFrameworks,
}

impl Resolver<'_> {
    /// `pkg.Name` with `pkg` an import of module `mi` → `<import path>.Name`.
    fn qualify(&self, mi: usize, e: &Expr) -> Option<String> {
        let ExprKind::Attribute { value, attr } = &e.kind else {
            return None;
        };
        let ExprKind::Name(local) = &value.kind else {
            return None;
        };
        let imp = self.mods[mi]
            .imports
            .iter()
            .find(|i| &i.local == local && i.symbol.is_none())?;
        Some(format!("{}.{attr}", imp.module))
    }

    fn package_modules(&self, name: &str) -> Vec<usize> {
        let prefix = format!("{name}#");
        (0..self.mods.len())
            .filter(|&i| self.mods[i].name == name || self.mods[i].name.starts_with(&prefix))
            .collect()
    }

    fn package_of(&self, mi: usize) -> &str {
        let n = &self.mods[mi].name;
        n.split_once('#').map_or(n.as_str(), |(p, _)| p)
    }

    fn top_function(&self, mi: usize, name: &str) -> Option<FuncId> {
        self.mods[mi]
            .functions
            .iter()
            .position(|f| f.parent.is_none() && f.class.is_none() && f.qualname == name)
            .filter(|&i| i != Module::TOP_LEVEL)
    }

    /// A function named by `e` in module `mi`'s package (`f`) or an imported package of the
    /// tree (`pkg.F`).
    fn find_func(&self, mi: usize, e: &Expr) -> Option<(usize, FuncId)> {
        let (pkg, name) = match &e.kind {
            ExprKind::Name(n) => (self.package_of(mi).to_string(), n.as_str()),
            ExprKind::Attribute { value, attr } => {
                let ExprKind::Name(local) = &value.kind else {
                    return None;
                };
                let imp = self.mods[mi]
                    .imports
                    .iter()
                    .find(|i| &i.local == local && i.symbol.is_none())?;
                (imp.module.clone(), attr.as_str())
            }
            _ => return None,
        };
        self.package_modules(&pkg)
            .into_iter()
            .find_map(|m| self.top_function(m, name).map(|f| (m, f)))
    }

    /// The last value assigned to `name` in function `fid` of module `mi`, else at package level.
    fn value_of(&self, mi: usize, fid: FuncId, name: &str) -> Option<(usize, FuncId, Expr)> {
        let mut found = None;
        let look = |m: usize, f: FuncId, found: &mut Option<(usize, FuncId, Expr)>| {
            let Some(func) = self.mods[m].functions.get(f) else {
                return;
            };
            assigned(&func.body, name, &mut |v| *found = Some((m, f, v.clone())));
        };
        let mut f = Some(fid);
        while let Some(cur) = f {
            look(mi, cur, &mut found);
            if found.is_some() {
                return found;
            }
            f = self.mods[mi].functions.get(cur).and_then(|x| x.parent);
        }
        for m in self.package_modules(self.package_of(mi)) {
            look(m, Module::TOP_LEVEL, &mut found);
            if found.is_some() {
                return found;
            }
        }
        None
    }

    fn const_str(&self, mi: usize, fid: FuncId, e: &Expr, hops: usize) -> Option<String> {
        if hops > MAX_HOPS {
            return None;
        }
        match &e.kind {
            ExprKind::Str(s) => Some(s.clone()),
            ExprKind::Name(n) => {
                let (m, f, v) = self.value_of(mi, fid, n)?;
                self.const_str(m, f, &v, hops + 1)
            }
            ExprKind::Binary { op, left, right } if op == "+" => Some(
                self.const_str(mi, fid, left, hops + 1)?
                    + &self.const_str(mi, fid, right, hops + 1)?,
            ),
            ExprKind::Attribute { value, attr } => {
                let ExprKind::Name(local) = &value.kind else {
                    return None;
                };
                let imp = self.mods[mi]
                    .imports
                    .iter()
                    .find(|i| &i.local == local && i.symbol.is_none())?;
                let m = *self.package_modules(&imp.module).first()?;
                let (m, f, v) = self.value_of(m, Module::TOP_LEVEL, attr)?;
                self.const_str(m, f, &v, hops + 1)
            }
            _ => None,
        }
    }

    /// The values a function returns (the first element of a multiple return when `first`).
    fn returns(&self, mi: usize, fid: FuncId, element: Option<usize>) -> Vec<Expr> {
        let mut out = Vec::new();
        let Some(f) = self.mods[mi].functions.get(fid) else {
            return out;
        };
        returns_of(&f.body, &mut |e| match (&e.kind, element) {
            (ExprKind::Tuple(xs), Some(i)) => {
                if let Some(x) = xs.get(i) {
                    out.push(x.clone());
                }
            }
            (_, None) => out.push(e.clone()),
            _ => {}
        });
        out
    }

    /// The type (a class of the tree, by name) of the value `e` in function `fid` of module
    /// `mi`: a parameter's annotation, a composite literal, or what a constructor returns.
    fn type_of(&self, mi: usize, fid: FuncId, e: &Expr, hops: usize) -> Option<String> {
        if hops > MAX_HOPS {
            return None;
        }
        let is_class = |n: &str| {
            self.mods
                .iter()
                .any(|m| m.classes.iter().any(|c| c.name == n))
        };
        match &e.kind {
            ExprKind::Name(n) => {
                let mut f = Some(fid);
                while let Some(cur) = f {
                    let func = self.mods[mi].functions.get(cur)?;
                    if let Some(p) = func.params.iter().find(|p| &p.name == n) {
                        let a = p.annotation.as_deref()?;
                        let t = a.trim_start_matches('*');
                        let t = t.rsplit('.').next().unwrap_or(t).to_string();
                        return is_class(&t).then_some(t);
                    }
                    f = func.parent;
                }
                let (m, f, v) = self.value_of(mi, fid, n)?;
                self.type_of(m, f, &v, hops + 1)
            }
            ExprKind::Call { callee, .. } => {
                let last = match &callee.kind {
                    ExprKind::Name(n) => n.clone(),
                    ExprKind::Attribute { attr, .. } => attr.clone(),
                    _ => return None,
                };
                if is_class(&last) && self.find_func(mi, callee).is_none() {
                    return Some(last);
                }
                let (m, f) = self.find_func(mi, callee)?;
                self.returns(m, f, None).iter().find_map(|r| {
                    let r = match &r.kind {
                        ExprKind::Tuple(xs) => xs.first()?,
                        _ => r,
                    };
                    self.type_of(m, f, r, hops + 1)
                })
            }
            _ => None,
        }
    }

    fn definition(&self, mi: usize, fid: FuncId, e: &Expr, hops: usize) -> Result<Def, String> {
        if hops > MAX_HOPS {
            return Err("definition followed too far".into());
        }
        match &e.kind {
            ExprKind::Call { callee, args } => {
                let q = self.qualify(mi, callee);
                if let Some(row) = q
                    .as_deref()
                    .and_then(|q| self.fw.definition.iter().find(|r| r.callee == q))
                {
                    let positional: Vec<&Expr> = args.iter().map(|a| &a.value).collect();
                    let name = positional
                        .get(row.name)
                        .and_then(|x| self.const_str(mi, fid, x, 0))
                        .ok_or_else(|| "the entry point's name is not a constant".to_string())?;
                    let mut def = Def {
                        name,
                        description: None,
                        params: Vec::new(),
                    };
                    for opt in positional.iter().skip(row.options) {
                        self.option(mi, fid, opt, &mut def);
                    }
                    return Ok(def);
                }
                if let Some(row) = q
                    .as_deref()
                    .and_then(|q| self.fw.definition_struct.iter().find(|r| r.ty == q))
                {
                    let field = |n: &str| {
                        args.iter()
                            .find(|a| a.name.as_deref() == Some(n))
                            .and_then(|a| self.const_str(mi, fid, &a.value, 0))
                    };
                    let name = field(&row.name)
                        .ok_or_else(|| "the entry point's name is not a constant".to_string())?;
                    return Ok(Def {
                        name,
                        description: field(&row.description),
                        params: Vec::new(),
                    });
                }
                match self.find_func(mi, callee) {
                    Some((m, f)) => {
                        let rets = self.returns(m, f, None);
                        let first = rets.iter().find_map(|r| {
                            let r = match &r.kind {
                                ExprKind::Tuple(xs) => xs.first()?,
                                _ => r,
                            };
                            self.definition(m, f, r, hops + 1).ok()
                        });
                        first.ok_or_else(|| {
                            format!(
                                "`{}` returns no definition the framework table knows",
                                callee.dotted_path().unwrap_or_default()
                            )
                        })
                    }
                    None => Err(format!(
                        "definition made by `{}`, not found in the tree",
                        callee.dotted_path().unwrap_or_else(|| "a call".into())
                    )),
                }
            }
            ExprKind::Index { value, index } => {
                let (ExprKind::Call { callee, .. }, ExprKind::Number(i)) =
                    (&value.kind, &index.kind)
                else {
                    return Err("definition is an element of an unknown value".into());
                };
                let i: usize = i.parse().map_err(|_| "bad element index".to_string())?;
                let (m, f) = self.find_func(mi, callee).ok_or_else(|| {
                    format!(
                        "definition made by `{}`, not found in the tree",
                        callee.dotted_path().unwrap_or_else(|| "a call".into())
                    )
                })?;
                self.returns(m, f, Some(i))
                    .iter()
                    .find_map(|r| self.definition(m, f, r, hops + 1).ok())
                    .ok_or_else(|| "no definition among the returns".to_string())
            }
            ExprKind::Name(n) => match self.value_of(mi, fid, n) {
                Some((m, f, v)) => self.definition(m, f, &v, hops + 1),
                None => Err(format!("definition `{n}` is not assigned in the tree")),
            },
            _ => Err("definition is not a call, literal or variable".into()),
        }
    }

    fn option(&self, mi: usize, fid: FuncId, e: &Expr, def: &mut Def) {
        let ExprKind::Call { callee, args } = &e.kind else {
            return;
        };
        let Some(q) = self.qualify(mi, callee) else {
            return;
        };
        let Some(row) = self.fw.option.iter().find(|r| r.callee == q) else {
            return;
        };
        let first = args
            .first()
            .and_then(|a| self.const_str(mi, fid, &a.value, 0));
        match row.role.as_str() {
            "description" => def.description = first,
            "param" => {
                let Some(name) = first else { return };
                let mut p = DeclaredParam {
                    name,
                    type_hint: row.ty.clone(),
                    description: None,
                };
                for a in args.iter().skip(1) {
                    if let ExprKind::Call { callee, args } = &a.value.kind
                        && let Some(q) = self.qualify(mi, callee)
                        && self
                            .fw
                            .option
                            .iter()
                            .any(|r| r.callee == q && r.role == "param-description")
                    {
                        p.description = args
                            .first()
                            .and_then(|x| self.const_str(mi, fid, &x.value, 0));
                    }
                }
                def.params.push(p);
            }
            _ => {}
        }
    }

    fn lambda_params(&self, mi: usize, f: FuncId) -> Vec<bool> {
        self.mods[mi].functions[f]
            .params
            .iter()
            .map(|p| {
                p.receiver
                    || p.annotation.as_deref().is_some_and(|a| {
                        self.fw
                            .injected_types
                            .iter()
                            .any(|t| a.contains(t.as_str()))
                    })
            })
            .collect()
    }

    /// The handler `e` (in function `fid` of module `mi`) as an expression callable from module
    /// `at`'s top level.
    fn handler(
        &self,
        at: usize,
        mi: usize,
        fid: FuncId,
        e: &Expr,
        hops: usize,
    ) -> Result<Handler, String> {
        if hops > MAX_HOPS {
            return Err("handler followed too far".into());
        }
        let desc = || e.dotted_path().unwrap_or_else(|| "expression".into());
        match &e.kind {
            ExprKind::Lambda(f) if mi == at => Ok(Handler {
                expr: e.clone(),
                params: Some(self.lambda_params(mi, *f)),
            }),
            ExprKind::Lambda(_) => Err("a closure of another file".into()),
            ExprKind::Name(n) => {
                if let Some((m, f)) = self.find_func(mi, e) {
                    if self.package_of(m) == self.package_of(at) {
                        return Ok(Handler {
                            expr: e.clone(),
                            params: Some(self.lambda_params(m, f)),
                        });
                    }
                    return Err(format!("`{n}` is in another package"));
                }
                match self.value_of(mi, fid, n) {
                    Some((m, f, v)) => self.handler(at, m, f, &v, hops + 1),
                    None => Err(format!("handler `{n}` is not defined in the tree")),
                }
            }
            ExprKind::Attribute { value, attr } => {
                if let Some((m, f)) = self.find_func(mi, e) {
                    if mi == at {
                        return Ok(Handler {
                            expr: e.clone(),
                            params: Some(self.lambda_params(m, f)),
                        });
                    }
                    return Err(format!("`{}` is named from another file", desc()));
                }
                // A method value `x.m`: the method of that name on a type of the tree, called
                // with no receiver state (its fields are not the caller's).
                let methods: Vec<(usize, FuncId)> = (0..self.mods.len())
                    .flat_map(|m| {
                        self.mods[m]
                            .functions
                            .iter()
                            .enumerate()
                            .filter(|(_, f)| f.class.is_some() && f.name == *attr)
                            .map(move |(i, _)| (m, i))
                    })
                    .collect();
                // Several types have the method: the receiver's type decides.
                let methods = if methods.len() > 1 {
                    match self.type_of(mi, fid, value, 0) {
                        Some(t) => methods
                            .into_iter()
                            .filter(|(m, f)| {
                                self.mods[*m].functions[*f].class.as_deref() == Some(t.as_str())
                            })
                            .collect(),
                        None => methods,
                    }
                } else {
                    methods
                };
                let [(m, f)] = methods.as_slice() else {
                    return Err(if methods.is_empty() {
                        format!("method value `{}`: no method `{attr}` in the tree", desc())
                    } else {
                        format!(
                            "method value `{}`: several types have a method `{attr}`",
                            desc()
                        )
                    });
                };
                let class = self.mods[*m].functions[*f]
                    .class
                    .clone()
                    .unwrap_or_default();
                let owner = if self.package_of(*m) == self.package_of(at) {
                    Expr::new(ExprKind::Name(class), e.span)
                } else {
                    let pkg = self.package_of(*m).to_string();
                    let Some(imp) = self.mods[at]
                        .imports
                        .iter()
                        .find(|i| i.module == pkg && i.symbol.is_none())
                    else {
                        return Err(format!(
                            "method value `{}` of a package this file does not import",
                            desc()
                        ));
                    };
                    Expr::new(
                        ExprKind::Attribute {
                            value: Box::new(Expr::new(ExprKind::Name(imp.local.clone()), e.span)),
                            attr: class,
                        },
                        e.span,
                    )
                };
                Ok(Handler {
                    expr: Expr::new(
                        ExprKind::Attribute {
                            value: Box::new(owner),
                            attr: attr.clone(),
                        },
                        e.span,
                    ),
                    params: Some(self.lambda_params(*m, *f)),
                })
            }
            ExprKind::Call { callee, args } => {
                if let Some(q) = self.qualify(mi, callee)
                    && let Some(w) = self.fw.handler_wrapper.iter().find(|w| w.callee == q)
                {
                    let inner = args
                        .get(w.arg)
                        .ok_or_else(|| format!("`{q}` without its handler argument"))?;
                    return self.handler(at, mi, fid, &inner.value, hops + 1);
                }
                let Some((m, f)) = self.find_func(mi, callee) else {
                    return Err(format!(
                        "handler made by `{}`, not found in the tree",
                        callee.dotted_path().unwrap_or_else(|| "a call".into())
                    ));
                };
                // A factory: the handler is what it returns.
                let rets = self.returns(m, f, None);
                let inner = rets.iter().find_map(|r| match &r.kind {
                    ExprKind::Lambda(l) => Some(self.lambda_params(m, *l)),
                    _ => self
                        .handler(m, m, f, r, hops + 1)
                        .ok()
                        .and_then(|h| h.params),
                });
                if rets.is_empty() {
                    return Err(format!(
                        "`{}` returns no handler",
                        callee.dotted_path().unwrap_or_default()
                    ));
                }
                if mi != at {
                    return Err("a handler factory called from another file".into());
                }
                Ok(Handler {
                    expr: e.clone(),
                    params: inner,
                })
            }
            ExprKind::Index { value, index } => {
                let (ExprKind::Call { callee, .. }, ExprKind::Number(i)) =
                    (&value.kind, &index.kind)
                else {
                    return Err(format!(
                        "handler `{}` is an element of an unknown value",
                        desc()
                    ));
                };
                let i: usize = i.parse().map_err(|_| "bad element index".to_string())?;
                let (m, f) = self.find_func(mi, callee).ok_or_else(|| {
                    format!(
                        "handler made by `{}`, not found in the tree",
                        callee.dotted_path().unwrap_or_else(|| "a call".into())
                    )
                })?;
                let params = self
                    .returns(m, f, Some(i))
                    .iter()
                    .find_map(|r| match &r.kind {
                        ExprKind::Lambda(l) => Some(self.lambda_params(m, *l)),
                        _ => None,
                    });
                if mi != at {
                    return Err("a handler factory called from another file".into());
                }
                Ok(Handler {
                    expr: e.clone(),
                    params,
                })
            }
            _ => Err(format!(
                "handler `{}` is not a function, method or closure",
                desc()
            )),
        }
    }

    fn find_all(&self, out: &mut Resolution) -> Vec<Found> {
        let mut found = Vec::new();
        let mut pair_sites: BTreeSet<(usize, usize)> = BTreeSet::new();
        for mi in 0..self.mods.len() {
            let is_server_code = self.mods[mi]
                .imports
                .iter()
                .any(|i| self.fw.packages.contains(&i.module));
            if !is_server_code {
                continue;
            }
            for (fid, func) in self.mods[mi].functions.iter().enumerate() {
                let mut calls: Vec<Expr> = Vec::new();
                visit_stmts(&func.body, &mut |e| {
                    if matches!(e.kind, ExprKind::Call { .. }) {
                        calls.push(e.clone());
                    }
                });
                for call in calls {
                    self.registration(mi, fid, &call, out, &mut found);
                }
                // A function returning a definition with its handler.
                let rets = self.returns(mi, fid, None);
                for r in rets {
                    let ExprKind::Tuple(xs) = &r.kind else {
                        continue;
                    };
                    let [d, h, ..] = xs.as_slice() else { continue };
                    let Ok(def) = self.definition(mi, fid, d, 0) else {
                        continue;
                    };
                    if !pair_sites.insert((mi, d.span.start_byte)) {
                        continue;
                    }
                    out.registration_sites += 1;
                    match self.handler(mi, mi, fid, h, 0) {
                        Ok(hd) => found.push(Found {
                            module: mi,
                            kind: EntityKind::Tool,
                            name: def.name,
                            description: def.description,
                            params: def.params,
                            handler: hd.expr,
                            handler_params: hd.params,
                            span: d.span,
                            server_var: String::new(),
                        }),
                        Err(reason) => self.gap(out, mi, d.span, def.name, reason),
                    }
                }
            }
        }
        found
    }

    fn gap(&self, out: &mut Resolution, mi: usize, span: Span, name: String, reason: String) {
        out.gaps.push(CoverageGap {
            kind: GapKind::UnresolvedRegistration,
            file: Some(self.mods[mi].path.clone()),
            line: Some(span.start_line),
            reason: if name.is_empty() {
                reason
            } else {
                format!("`{name}`: {reason}")
            },
        });
    }

    fn registration(
        &self,
        mi: usize,
        fid: FuncId,
        call: &Expr,
        out: &mut Resolution,
        found: &mut Vec<Found>,
    ) {
        let ExprKind::Call { callee, args } = &call.kind else {
            return;
        };
        let q = self.qualify(mi, callee);
        let row = self
            .fw
            .registration
            .iter()
            .find(|r| match (&r.callee, &r.method) {
                (Some(c), _) => q.as_deref() == Some(c.as_str()),
                (None, Some(m)) => {
                    q.is_none()
                        && matches!(&callee.kind, ExprKind::Attribute { attr, .. } if attr == m)
                }
                _ => false,
            });
        let Some(row) = row else { return };
        out.registration_sites += 1;
        let kind = match row.kind.as_str() {
            "resource" => EntityKind::Resource,
            "prompt" => EntityKind::Prompt,
            _ => EntityKind::Tool,
        };
        let server_var = match (&callee.kind, &row.callee) {
            (ExprKind::Attribute { value, .. }, None) => value.dotted_path().unwrap_or_default(),
            _ => args
                .first()
                .and_then(|a| a.value.dotted_path())
                .unwrap_or_default(),
        };
        let (Some(d), Some(h)) = (args.get(row.definition), args.get(row.handler)) else {
            self.gap(
                out,
                mi,
                call.span,
                String::new(),
                "registration without its definition and handler".into(),
            );
            return;
        };
        let def = match self.definition(mi, fid, &d.value, 0) {
            Ok(def) => def,
            Err(reason) => return self.gap(out, mi, call.span, String::new(), reason),
        };
        match self.handler(mi, mi, fid, &h.value, 0) {
            Ok(hd) => found.push(Found {
                module: mi,
                kind,
                name: def.name,
                description: def.description,
                params: def.params,
                handler: hd.expr,
                handler_params: hd.params,
                span: call.span,
                server_var,
            }),
            Err(reason) => self.gap(out, mi, call.span, def.name, reason),
        }
    }
}

fn assigned(stmts: &[Stmt], name: &str, f: &mut dyn FnMut(&Expr)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    match &t.kind {
                        ExprKind::Name(n) if n == name => f(value),
                        ExprKind::Tuple(xs) => {
                            if let Some(i) = xs
                                .iter()
                                .position(|x| matches!(&x.kind, ExprKind::Name(n) if n == name))
                            {
                                // `tool, handler := GetX()`: that element of the call's returns.
                                let el = Expr::new(
                                    ExprKind::Index {
                                        value: Box::new(value.clone()),
                                        index: Box::new(Expr::new(
                                            ExprKind::Number(i.to_string()),
                                            value.span,
                                        )),
                                    },
                                    value.span,
                                );
                                f(&el);
                            }
                        }
                        _ => {}
                    }
                }
            }
            StmtKind::If { then, orelse, .. }
            | StmtKind::While {
                body: then, orelse, ..
            } => {
                assigned(then, name, f);
                assigned(orelse, name, f);
            }
            StmtKind::For { body, .. } | StmtKind::Labeled { body, .. } => assigned(body, name, f),
            StmtKind::Switch { arms, .. } | StmtKind::Match { arms, .. } => {
                for a in arms {
                    assigned(&a.body, name, f);
                }
            }
            _ => {}
        }
    }
}

fn returns_of(stmts: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    for s in stmts {
        match &s.kind {
            StmtKind::Return(Some(e)) => f(e),
            StmtKind::If { then, orelse, .. }
            | StmtKind::While {
                body: then, orelse, ..
            } => {
                returns_of(then, f);
                returns_of(orelse, f);
            }
            StmtKind::For { body, .. } | StmtKind::Labeled { body, .. } => returns_of(body, f),
            StmtKind::Switch { arms, .. } | StmtKind::Match { arms, .. } => {
                for a in arms {
                    returns_of(&a.body, f);
                }
            }
            _ => {}
        }
    }
}

/// Adds the synthetic function that calls the handler with the framework's arguments, and the
/// entry point on it.
fn attach(m: &mut Module, ep: Found) {
    let sp = ep.span;
    let mut names: Vec<String> = ep
        .params
        .iter()
        .map(|p| p.name.clone())
        .filter(|n| !n.is_empty())
        .collect();
    // Unknown parameters: the request carries whatever the caller sends.
    if names.is_empty() {
        names.push("arguments".into());
    }
    let params: Vec<Param> = names
        .iter()
        .map(|n| Param {
            name: n.clone(),
            annotation: ep
                .params
                .iter()
                .find(|p| &p.name == n)
                .and_then(|p| p.type_hint.clone()),
            default: None,
            variadic: false,
            keywords: false,
            injected: false,
            receiver: false,
        })
        .collect();
    // The request object: every argument the caller chose. With declared parameters it is a
    // mapping of them (its accessors, `GetString("path", "")`, are lookups: Go models'
    // `[[collection_method]]`), also under `Params.Arguments`; otherwise all of them at once.
    let request = if ep.params.is_empty() {
        Expr::new(ExprKind::Name(names[0].clone()), sp)
    } else {
        let entries: Vec<(Option<Expr>, Expr)> = names
            .iter()
            .map(|n| {
                (
                    Some(Expr::new(ExprKind::Str(n.clone()), sp)),
                    Expr::new(ExprKind::Name(n.clone()), sp),
                )
            })
            .collect();
        let args = Expr::new(ExprKind::Dict(entries.clone()), sp);
        let params = Expr::new(
            ExprKind::Dict(vec![(
                Some(Expr::new(ExprKind::Str("Arguments".into()), sp)),
                args,
            )]),
            sp,
        );
        let mut all = entries;
        all.push((Some(Expr::new(ExprKind::Str("Params".into()), sp)), params));
        Expr::new(ExprKind::Dict(all), sp)
    };
    let filled = ep
        .handler_params
        .unwrap_or_else(|| vec![true, false, false]);
    let args = filled
        .iter()
        .map(|ctx| Arg {
            name: None,
            value: if *ctx {
                Expr::new(ExprKind::Null, sp)
            } else {
                request.clone()
            },
            spread: false,
            spread_keywords: false,
        })
        .collect();
    let call = Expr::new(
        ExprKind::Call {
            callee: Box::new(ep.handler),
            args,
        },
        sp,
    );
    let kind_name = match ep.kind {
        EntityKind::Resource => "resource",
        EntityKind::Prompt => "prompt",
        _ => "tool",
    };
    let fname = format!("<{kind_name} {}>", ep.name);
    m.functions.push(Function {
        name: fname.clone(),
        qualname: fname,
        params,
        body: vec![Stmt {
            kind: StmtKind::Return(Some(call)),
            span: sp,
        }],
        decorators: Vec::new(),
        docstring: None,
        is_async: false,
        parent: None,
        class: None,
        span: sp,
    });
    let function = m.functions.len() - 1;
    m.entry_points.push(EntryPoint {
        kind: ep.kind,
        name: ep.name,
        description: ep.description,
        function,
        params: ep.params,
        span: sp,
        server_var: ep.server_var,
    });
}
