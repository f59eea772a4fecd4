//! The interprocedural analysis: per function, a forward fixpoint over its CFG of a state
//! mapping variables to [`Val`]s (taint labels with paths, string constants, references,
//! fields), then one recording pass that collects what the function does ([`Event`]s).
//!
//! Calls into scanned code are analysed in the calling context (the abstract arguments) and
//! memoised on it, which makes the memo table the function summaries: (function, abstract
//! arguments) → (return value, events). Depth is bounded ([`MAX_CALL_DEPTH`]), recursion and
//! cycles are cut (the recursive call returns its arguments' taint), and a budget bounds the
//! total work per tool.

use crate::cfg::{Cfg, Forward, Node, bound_names, solve};
use crate::models::{ArgSel, ConstOp, Models, When};
use crate::value::{Hop, Loc, Ref, Taint, UNKNOWN, Val, concat, join_path};
use mcp_scan_ir::{Arg, Expr, ExprKind, FuncId, Import, Module, StmtKind, StrPart};
use petgraph::graph::NodeIndex;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

/// Calls deeper than this are not followed (the tool is then marked incomplete).
pub const MAX_CALL_DEPTH: usize = 8;
/// Function analyses per tool before giving up (the tool is then marked incomplete).
pub const MAX_ANALYSES: usize = 4_000;
/// Modules whose globals are being evaluated at once (a chain of modules whose top-level code
/// uses the next one's globals).
const MAX_GLOBALS_NESTING: usize = 32;
/// Fixpoint visits per CFG node before giving up.
const FIXPOINT_BUDGET: usize = 64;

pub type Vars = BTreeMap<String, Val>;

/// The kind of work that may outlive a call.
pub const BACKGROUND: &str = "background";
/// Internal event: background work (named by its marker in `detail`) was waited for.
pub const JOINED: &str = "joined";
const BG_PREFIX: &str = "@background:";

/// The field that marks a value as a handle on background work started at `site`.
pub fn bg_marker(site: &Loc) -> String {
    format!("{BG_PREFIX}{}:{}", site.module, site.start_byte)
}

/// Something the code does: a modelled call (capability) and the taint reaching it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub kind: String,
    pub api: String,
    pub detail: Option<String>,
    pub loc: Loc,
    /// Call sites from the analysed entry down to the function holding `loc`.
    pub via: Vec<Loc>,
    /// Labels reaching the sink: label, how, and whether it reached the target argument.
    pub taints: Vec<(String, Taint, bool)>,
}

#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub ret: Val,
    pub events: Vec<Event>,
    /// Why this summary is truncated (a limit was hit inside it).
    pub limit: Option<String>,
}

#[derive(Hash, PartialEq, Eq)]
struct CallKey {
    module: usize,
    func: FuncId,
    bindings: Vec<Val>,
}

/// The scanned program: modules and an index from dotted module name to module.
pub struct Program<'m> {
    pub modules: &'m [Module],
    by_name: HashMap<&'m str, usize>,
    pub models: &'static Models,
}

impl<'m> Program<'m> {
    pub fn new(modules: &'m [Module], models: &'static Models) -> Self {
        let by_name = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.as_str(), i))
            .collect();
        Program {
            modules,
            by_name,
            models,
        }
    }

    pub fn module_named(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }
}

/// Analysis state for one entry point (memo, globals, call stack, budget).
pub struct Analyzer<'p, 'm> {
    prog: &'p Program<'m>,
    memo: HashMap<CallKey, Rc<Outcome>>,
    globals: HashMap<usize, Rc<Vars>>,
    globals_busy: HashSet<usize>,
    /// Re-exported names being resolved (cycle guard).
    resolving: HashSet<(usize, String)>,
    stack: Vec<(usize, FuncId)>,
    /// Attributes assigned on instances of scanned classes (`self.x = ...`), per class.
    instance_fields: HashMap<(usize, String), Vars>,
    /// Variables of the enclosing function a nested function or lambda sees (closures),
    /// joined over every place it is defined or called from.
    closures: HashMap<(usize, FuncId), Vars>,
    analyses: usize,
    /// Why the analysis is incomplete, if a limit was hit.
    pub limit: Option<String>,
}

impl<'p, 'm> Analyzer<'p, 'm> {
    pub fn new(prog: &'p Program<'m>) -> Self {
        Analyzer {
            prog,
            memo: HashMap::new(),
            globals: HashMap::new(),
            globals_busy: HashSet::new(),
            resolving: HashSet::new(),
            stack: Vec::new(),
            closures: HashMap::new(),
            instance_fields: HashMap::new(),
            analyses: 0,
            limit: None,
        }
    }

    /// Analyses `func` of `module` with its parameters bound to `bindings` (in order).
    pub fn analyze_entry(&mut self, module: usize, func: FuncId, bindings: Vec<Val>) -> Outcome {
        self.stack.push((module, func));
        let (out, _) = self.analyze_fn(module, func, bindings);
        self.stack.pop();
        out
    }

    fn analyze_fn(&mut self, m: usize, f: FuncId, bindings: Vec<Val>) -> (Outcome, Vars) {
        self.analyses += 1;
        let Some(func) = self.prog.modules[m].functions.get(f) else {
            return (Outcome::default(), Vars::new());
        };
        let mut init = Vars::new();
        for (p, v) in func.params.iter().zip(bindings) {
            init.insert(p.name.clone(), v);
        }
        let cfg = Cfg::build(func);
        let mut frame = Frame {
            an: self,
            m,
            f,
            rec: None,
        };
        let sol = solve(&cfg, &mut frame, Some(init), FIXPOINT_BUDGET);
        if !sol.converged {
            frame.an.limit.get_or_insert_with(|| {
                format!(
                    "dataflow did not converge in {}",
                    frame.an.prog.modules[m].functions[f].qualname
                )
            });
        }
        // Recording pass over the fixed point.
        frame.rec = Some(Recording::default());
        let mut exit_vars = Vars::new();
        for ix in cfg.graph.node_indices() {
            if let Some(state) = &sol.input[ix.index()] {
                let node = cfg.graph[ix];
                if ix == cfg.exit {
                    exit_vars = state.clone();
                }
                let _ = frame.transfer(ix, &node, &sol.input[ix.index()]);
            }
        }
        let rec = frame.rec.take().unwrap_or_default();
        (
            Outcome {
                ret: rec.ret,
                events: rec.events,
                limit: None,
            },
            exit_vars,
        )
    }

    /// Module-level bindings of module `m` (its `<module>` code run once), computed on demand.
    fn globals(&mut self, m: usize) -> Rc<Vars> {
        if let Some(g) = self.globals.get(&m) {
            return g.clone();
        }
        if self.globals_busy.len() >= MAX_GLOBALS_NESTING {
            self.limit
                .get_or_insert_with(|| "module globals nested too deeply".to_string());
            return Rc::new(Vars::new());
        }
        if !self.globals_busy.insert(m) {
            // Import cycle: the module is being evaluated; see no globals rather than loop.
            return Rc::new(Vars::new());
        }
        let (_, vars) = self.analyze_fn(m, Module::TOP_LEVEL, Vec::new());
        self.globals_busy.remove(&m);
        let g = Rc::new(vars);
        self.globals.insert(m, g.clone());
        g
    }

    fn call_fn(
        &mut self,
        m: usize,
        f: FuncId,
        recv: Option<Val>,
        args: &[(Option<String>, Val, bool)],
        site: &Loc,
        callee_name: &str,
    ) -> Rc<Outcome> {
        let Some(func) = self.prog.modules[m].functions.get(f) else {
            return Rc::new(Outcome::default());
        };
        let params = &func.params;
        let mut bindings: Vec<Option<Val>> = vec![None; params.len()];
        let mut next = 0;
        if let Some(r) = recv
            && !params.is_empty()
        {
            bindings[0] = Some(r);
            next = 1;
        }
        let mut extra = Val::default();
        for (name, v, spread) in args {
            match name {
                None if !spread => {
                    while next < params.len() && (params[next].keywords) {
                        next += 1;
                    }
                    if next < params.len() {
                        if params[next].variadic {
                            bindings[next]
                                .get_or_insert_with(Val::default)
                                .absorb_taint(v);
                        } else {
                            bindings[next] = Some(v.clone());
                            next += 1;
                        }
                    } else {
                        extra.absorb_taint(v);
                    }
                }
                Some(k) => match params.iter().position(|p| &p.name == k) {
                    Some(i) => bindings[i] = Some(v.clone()),
                    None => match params.iter().position(|p| p.keywords) {
                        Some(i) => {
                            let slot = bindings[i].get_or_insert_with(Val::default);
                            slot.set_field(k, v.clone());
                        }
                        None => extra.absorb_taint(v),
                    },
                },
                None => extra.absorb_taint(v),
            }
        }
        let mut bound: Vec<Val> = Vec::with_capacity(params.len());
        for (i, p) in params.iter().enumerate() {
            let mut v = match bindings[i].take() {
                Some(v) => v,
                None => p.default.as_ref().map(literal).unwrap_or_default(),
            };
            if extra.is_tainted() && bindings.get(i).is_some() && (p.variadic || p.keywords) {
                v.absorb_taint(&extra);
            }
            if v.is_tainted() && !(i == 0 && next == 1 && p.name == "self") {
                v.push_hop(&Hop {
                    loc: site.clone(),
                    note: format!("passed to {callee_name}() as `{}`", p.name),
                });
            }
            bound.push(v);
        }
        if self.stack.contains(&(m, f)) {
            // Recursion: the inner call returns its arguments' taint; its effects are those of
            // the outer activation, which is being analysed.
            let mut ret = Val::default();
            for b in &bound {
                ret.absorb_taint(b);
            }
            return Rc::new(Outcome {
                ret,
                events: Vec::new(),
                limit: None,
            });
        }
        if self.stack.len() >= MAX_CALL_DEPTH || self.analyses >= MAX_ANALYSES {
            self.limit.get_or_insert_with(|| {
                format!("call depth or work limit reached at {callee_name}()")
            });
            let mut ret = Val::default();
            for b in &bound {
                ret.absorb_taint(b);
            }
            return Rc::new(Outcome {
                ret,
                events: Vec::new(),
                limit: None,
            });
        }
        let nested = func.parent.is_some_and(|p| p != Module::TOP_LEVEL);
        if nested {
            // A closure's result depends on its captured variables too: not memoised.
            self.stack.push((m, f));
            let (out, _) = self.analyze_fn(m, f, bound);
            self.stack.pop();
            return Rc::new(out);
        }
        let key = CallKey {
            module: m,
            func: f,
            bindings: bound.iter().map(Val::shape).collect(),
        };
        if let Some(o) = self.memo.get(&key) {
            if let Some(l) = &o.limit {
                self.limit.get_or_insert_with(|| l.clone());
            }
            return o.clone();
        }
        let outer_limit = self.limit.take();
        self.stack.push((m, f));
        let (mut out, _) = self.analyze_fn(m, f, bound);
        self.stack.pop();
        // Remember whether this summary is truncated, for every later use of it.
        out.limit = self.limit.clone();
        self.limit = outer_limit.or(out.limit.clone());
        let out = Rc::new(out);
        self.memo.insert(key, out.clone());
        out
    }
}

/// `@staticmethod` on a method: called through an instance, it gets no `self`.
fn is_static_method(module: &Module, f: FuncId) -> bool {
    module.functions.get(f).is_some_and(|func| {
        func.decorators
            .iter()
            .any(|d| d.dotted_path().as_deref() == Some("staticmethod"))
    })
}

/// A literal default value.
fn literal(e: &Expr) -> Val {
    match &e.kind {
        ExprKind::Str(s) | ExprKind::Bytes(s) => Val::konst(s.clone()),
        ExprKind::Number(n) => Val::konst(n.clone()),
        ExprKind::Bool(b) => Val::konst(if *b { "true" } else { "false" }),
        _ => Val::default(),
    }
}

#[derive(Default)]
struct Recording {
    ret: Val,
    events: Vec<Event>,
}

/// One function being analysed.
struct Frame<'a, 'p, 'm> {
    an: &'a mut Analyzer<'p, 'm>,
    m: usize,
    f: FuncId,
    rec: Option<Recording>,
}

impl<'ir> Forward<'ir> for Frame<'_, '_, '_> {
    /// None = not reached.
    type State = Option<Vars>;

    fn bottom(&self) -> Self::State {
        None
    }

    fn join(&self, a: &Self::State, b: &Self::State) -> Self::State {
        match (a, b) {
            (None, x) | (x, None) => x.clone(),
            (Some(a), Some(b)) => {
                let mut out = a.clone();
                for (k, v) in b {
                    match out.get_mut(k) {
                        Some(mine) => mine.join_in(v),
                        None => {
                            out.insert(k.clone(), v.clone());
                        }
                    }
                }
                Some(out)
            }
        }
    }

    fn transfer(&mut self, _ix: NodeIndex, node: &Node<'ir>, input: &Self::State) -> Self::State {
        let mut vars = input.clone()?;
        self.step(node, &mut vars);
        Some(vars)
    }
}

impl Frame<'_, '_, '_> {
    fn models(&self) -> &'static Models {
        self.an.prog.models
    }

    fn module(&self) -> &Module {
        &self.an.prog.modules[self.m]
    }

    fn hop(&self, span: &mcp_scan_ir::Span, note: impl Into<String>) -> Hop {
        Hop {
            loc: Loc::new(self.m, span),
            note: note.into(),
        }
    }

    fn step(&mut self, node: &Node<'_>, vars: &mut Vars) {
        match node {
            Node::Entry | Node::Exit | Node::Join => {}
            Node::Test(e) => {
                let _ = self.eval(vars, e);
                self.apply_guards(vars, e);
            }
            Node::ForHead { target, iter } => {
                let mut v = self.eval(vars, iter).any_element();
                if v.is_tainted() {
                    v.push_hop(&self.hop(&target.span, "loop variable"));
                }
                self.bind(vars, target, v);
            }
            Node::WithEnter(items) => {
                for item in items.iter() {
                    let mut v = self.eval(vars, &item.context);
                    // `with Popen(...) as p:` waits for the process when the block ends.
                    self.record_joined(&v, &Loc::new(self.m, &item.context.span));
                    if let Some(t) = &item.target {
                        if v.is_tainted() {
                            v.push_hop(&self.hop(&item.context.span, "bound by with"));
                        }
                        self.bind(vars, t, v);
                    }
                }
            }
            Node::Handler(h) => {
                if let Some(n) = &h.name {
                    vars.insert(n.clone(), Val::default());
                }
            }
            Node::Stmt(s) => match &s.kind {
                StmtKind::Assign { targets, value } => {
                    let mut v = self.eval(vars, value);
                    if v.is_tainted() {
                        let mut names = Vec::new();
                        for t in targets {
                            bound_names(t, &mut names);
                        }
                        v.push_hop(
                            &self.hop(&s.span, format!("assigned to `{}`", names.join("`, `"))),
                        );
                    }
                    for t in targets {
                        self.bind(vars, t, v.clone());
                    }
                }
                StmtKind::AugAssign { target, op, value } => {
                    let old = self.eval(vars, target);
                    let new = self.eval(vars, value);
                    let mut v = old.join(&new);
                    v.konst = if op == "+" {
                        concat(old.konst.as_deref(), new.konst.as_deref())
                    } else {
                        None
                    };
                    if new.is_tainted() {
                        v.push_hop(&self.hop(&s.span, "appended"));
                    }
                    self.bind(vars, target, v);
                }
                StmtKind::Expr(e) => {
                    let _ = self.eval(vars, e);
                }
                StmtKind::Return(e) => {
                    let mut v = match e {
                        Some(e) => self.eval(vars, e),
                        None => Val::default(),
                    };
                    if let Some(rec) = &mut self.rec {
                        if v.is_tainted() {
                            let qual = &self.an.prog.modules[self.m].functions[self.f].qualname;
                            v.push_hop(&Hop {
                                loc: Loc::new(self.m, &s.span),
                                note: format!("returned from {qual}()"),
                            });
                        }
                        rec.ret.join_in(&v);
                    }
                }
                StmtKind::Raise(Some(e)) => {
                    let _ = self.eval(vars, e);
                }
                StmtKind::FunctionDef { name, func } => {
                    self.capture(*func, vars);
                    vars.insert(name.clone(), Val::with_ref(Ref::Func(self.m, *func)));
                }
                StmtKind::ClassDef { name } => {
                    vars.insert(
                        name.clone(),
                        Val::with_ref(Ref::Class(self.m, name.clone())),
                    );
                }
                StmtKind::Import(imports) => {
                    // Resolved lazily at use (lookup falls back to the module's imports), so
                    // evaluating one module's globals does not evaluate everything it imports.
                    for imp in imports {
                        vars.remove(&imp.local);
                    }
                }
                StmtKind::Delete(targets) => {
                    for t in targets {
                        if let ExprKind::Name(n) = &t.kind {
                            vars.remove(n);
                        }
                    }
                }
                _ => {}
            },
        }
    }

    /// Binds an lvalue. Field and index stores update the root variable's fields.
    fn bind(&mut self, vars: &mut Vars, target: &Expr, v: Val) {
        match &target.kind {
            ExprKind::Name(n) => {
                vars.insert(n.clone(), v);
            }
            ExprKind::Tuple(xs) | ExprKind::List(xs) => {
                for (i, x) in xs.iter().enumerate() {
                    let part = if let ExprKind::Starred(_) = x.kind {
                        v.any_element()
                    } else if v.fields.contains_key(&i.to_string()) {
                        v.field(&i.to_string())
                    } else {
                        v.any_element()
                    };
                    self.bind(vars, x, part);
                }
            }
            ExprKind::Starred(x) => self.bind(vars, x, v),
            ExprKind::Attribute { value, attr } => self.store_field(vars, value, Some(attr), v),
            ExprKind::Index { value, index } => {
                let key = self.eval(vars, index).konst;
                self.store_field(vars, value, key.as_deref(), v);
            }
            _ => {}
        }
    }

    fn store_field(&mut self, vars: &mut Vars, base: &Expr, key: Option<&str>, v: Val) {
        match (&base.kind, key) {
            (ExprKind::Name(n), Some(k)) => {
                let mut cur = self.lookup(vars, n);
                // `self.x = v` is seen by every method of the class (flow-insensitively).
                for r in &cur.refs {
                    if let Ref::Instance(mi, c) = r {
                        let slot = self
                            .an
                            .instance_fields
                            .entry((*mi, c.clone()))
                            .or_default()
                            .entry(k.to_string())
                            .or_default();
                        slot.join_in(&v);
                    }
                }
                cur.set_field(k, v);
                vars.insert(n.clone(), cur);
            }
            _ => {
                // Unknown key or deeper path: a weak update of the root variable's taint.
                if let Some(root) = root_var(base) {
                    let mut cur = self.lookup(vars, &root);
                    cur.absorb_taint(&v);
                    vars.insert(root, cur);
                }
            }
        }
    }

    /// Applies model guards found in a branch condition to the variables they test.
    fn apply_guards(&mut self, vars: &mut Vars, e: &Expr) {
        let models = self.models();
        if models.guards.is_empty() {
            return;
        }
        let mut todo = vec![e];
        while let Some(e) = todo.pop() {
            match &e.kind {
                ExprKind::Unary { operand, .. } => todo.push(operand),
                ExprKind::Await(x) => todo.push(x),
                ExprKind::Binary { op, left, right } => {
                    let bare = op.trim_start_matches("not ").trim();
                    for g in &models.guards {
                        if g.op.as_deref() == Some(bare)
                            && let Some(root) = root_var(left)
                        {
                            self.sanitize_var(vars, &root, &g.kinds);
                        }
                    }
                    todo.push(left);
                    todo.push(right);
                }
                ExprKind::Call { callee, args } => {
                    if let ExprKind::Attribute { value, attr } = &callee.kind {
                        for g in &models.guards {
                            if g.method.as_deref() == Some(attr.as_str())
                                && let Some(root) = root_var(value)
                            {
                                self.sanitize_var(vars, &root, &g.kinds);
                            }
                        }
                    }
                    let resolved = self.eval(vars, callee);
                    for g in &models.guards {
                        if let Some(c) = &g.callee
                            && resolved.refs.contains(&Ref::Api(c.clone()))
                        {
                            for a in args {
                                for root in all_root_vars(&a.value) {
                                    self.sanitize_var(vars, &root, &g.kinds);
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn sanitize_var(&mut self, vars: &mut Vars, name: &str, kinds: &[String]) {
        let mut v = self.lookup(vars, name);
        v.sanitize(kinds);
        vars.insert(name.to_string(), v);
    }

    fn resolve_import(&mut self, imp: &Import) -> Val {
        let prog = self.an.prog;
        match &imp.symbol {
            None => {
                // `import a.b` binds `a`; `import a.b as c` binds `c` to `a.b`.
                let target = if imp.module.starts_with(&format!("{}.", imp.local)) {
                    imp.local.clone()
                } else {
                    imp.module.clone()
                };
                match prog.module_named(&target) {
                    Some(mi) => Val::with_ref(Ref::Module(mi)),
                    None => Val::with_ref(Ref::Api(target)),
                }
            }
            Some(sym) => {
                let full = format!("{}.{}", imp.module, sym);
                if let Some(mi) = prog.module_named(&full) {
                    return Val::with_ref(Ref::Module(mi));
                }
                if let Some(mi) = prog.module_named(&imp.module) {
                    let v = self.module_member(mi, sym);
                    if !v.refs.is_empty() || v.konst.is_some() || v.is_tainted() {
                        return v;
                    }
                }
                Val::with_ref(Ref::Api(full))
            }
        }
    }

    /// `name` as seen from module `mi` from outside (a function, class, global or re-export).
    fn module_member(&mut self, mi: usize, name: &str) -> Val {
        let module = &self.an.prog.modules[mi];
        if let Some(fi) = module
            .functions
            .iter()
            .position(|f| f.qualname == name && f.parent.is_none_or(|p| p == Module::TOP_LEVEL))
        {
            return Val::with_ref(Ref::Func(mi, fi));
        }
        if module.classes.iter().any(|c| c.name == name) {
            return Val::with_ref(Ref::Class(mi, name.to_string()));
        }
        if let Some(child) = self
            .an
            .prog
            .module_named(&format!("{}.{}", module.name, name))
        {
            return Val::with_ref(Ref::Module(child));
        }
        let globals = self.an.globals(mi);
        if let Some(v) = globals.get(name) {
            return v.clone();
        }
        if let Some(imp) = module.imports.iter().rev().find(|i| i.local == name) {
            // Re-exports can form cycles (`a` imports x from `b`, `b` from `a`): cut them.
            if !self.an.resolving.insert((mi, name.to_string())) {
                return Val::default();
            }
            let imp = imp.clone();
            let saved = self.m;
            self.m = mi;
            let v = self.resolve_import(&imp);
            self.m = saved;
            self.an.resolving.remove(&(mi, name.to_string()));
            return v;
        }
        Val::default()
    }

    fn lookup(&mut self, vars: &Vars, name: &str) -> Val {
        if let Some(v) = vars.get(name) {
            return v.clone();
        }
        if let Some(v) = self
            .an
            .closures
            .get(&(self.m, self.f))
            .and_then(|env| env.get(name))
        {
            return v.clone();
        }
        if self.f != Module::TOP_LEVEL {
            let g = self.an.globals(self.m);
            if let Some(v) = g.get(name) {
                return v.clone();
            }
        }
        let module = self.module();
        if let Some(imp) = module.imports.iter().rev().find(|i| i.local == name) {
            let imp = imp.clone();
            return self.resolve_import(&imp);
        }
        let m = self.m;
        let module = self.module();
        if let Some(fi) = module
            .functions
            .iter()
            .position(|f| f.qualname == name && f.parent.is_none_or(|p| p == Module::TOP_LEVEL))
        {
            return Val::with_ref(Ref::Func(m, fi));
        }
        if module.classes.iter().any(|c| c.name == name) {
            return Val::with_ref(Ref::Class(m, name.to_string()));
        }
        // A builtin (or a name we cannot see): an API by its bare name.
        let mut v = Val::with_ref(Ref::Api(name.to_string()));
        if name == "self" || name == "cls" {
            v.refs.clear();
        }
        v
    }

    fn eval(&mut self, vars: &mut Vars, e: &Expr) -> Val {
        match &e.kind {
            ExprKind::Name(n) => {
                let v = self.lookup(vars, n);
                self.bare_source(v, e)
            }
            ExprKind::Str(s) | ExprKind::Bytes(s) => Val::konst(s.clone()),
            ExprKind::Number(n) => Val::konst(n.clone()),
            ExprKind::Bool(b) => Val::konst(if *b { "true" } else { "false" }),
            ExprKind::Null => Val::default(),
            ExprKind::FormatStr(parts) => {
                let mut out = Val::default();
                let mut text = String::new();
                let mut any_lit = false;
                for p in parts {
                    match p {
                        StrPart::Lit(s) => {
                            any_lit = true;
                            text.push_str(s);
                        }
                        StrPart::Expr(x) => {
                            let v = self.eval(vars, x);
                            match &v.konst {
                                Some(k) => text.push_str(k),
                                None => text.push(UNKNOWN),
                            }
                            out.absorb_taint(&v);
                        }
                    }
                }
                if any_lit || !text.contains(UNKNOWN) {
                    out.konst = Val::konst(text).konst;
                }
                out
            }
            ExprKind::Attribute { value, attr } => {
                let base = self.eval(vars, value);
                let v = self.attr(&base, attr);
                self.bare_source(v, e)
            }
            ExprKind::Index { value, index } => {
                let base = self.eval(vars, value);
                let idx = self.eval(vars, index);
                self.index(&base, &idx, e)
            }
            ExprKind::Call { callee, args } => self.call(vars, callee, args, e),
            ExprKind::Binary { op, left, right } => {
                let l = self.eval(vars, left);
                let r = self.eval(vars, right);
                self.binary(op, &l, &r)
            }
            ExprKind::Unary { op, operand } => {
                let v = self.eval(vars, operand);
                if op == "not" {
                    Val::default()
                } else {
                    let mut out = Val::default();
                    out.absorb_taint(&v);
                    out
                }
            }
            ExprKind::Conditional { test, body, orelse } => {
                let _ = self.eval(vars, test);
                let a = self.eval(vars, body);
                let b = self.eval(vars, orelse);
                a.join(&b)
            }
            ExprKind::List(xs) | ExprKind::Tuple(xs) | ExprKind::Set(xs) => {
                let mut out = Val::default();
                for (i, x) in xs.iter().enumerate() {
                    let v = self.eval(vars, x);
                    if let ExprKind::Starred(_) = x.kind {
                        out.absorb_taint(&v);
                    } else {
                        out.set_field(&i.to_string(), v);
                    }
                }
                out
            }
            ExprKind::Dict(pairs) => {
                let mut out = Val::default();
                for (k, v) in pairs {
                    let val = self.eval(vars, v);
                    let key = k.as_ref().map(|k| self.eval(vars, k));
                    match key.and_then(|k| k.konst) {
                        Some(k) => out.set_field(&k, val),
                        None => out.absorb_taint(&val),
                    }
                }
                out
            }
            ExprKind::Comprehension {
                elements,
                clauses,
                conditions,
            } => {
                let mut inner = vars.clone();
                for (target, iter) in clauses {
                    let v = self.eval(&mut inner, iter).any_element();
                    self.bind(&mut inner, target, v);
                }
                for c in conditions {
                    let _ = self.eval(&mut inner, c);
                }
                let mut out = Val::default();
                for el in elements {
                    let v = self.eval(&mut inner, el);
                    out.absorb_taint(&v);
                }
                out
            }
            ExprKind::Lambda(fid) => {
                self.capture(*fid, vars);
                Val::with_ref(Ref::Func(self.m, *fid))
            }
            ExprKind::Await(x) | ExprKind::Starred(x) => self.eval(vars, x),
            ExprKind::NamedExpr { target, value } => {
                let v = self.eval(vars, value);
                vars.insert(target.clone(), v.clone());
                v
            }
            ExprKind::Unknown(_) => Val::default(),
        }
    }

    /// A bare reference to a mapping source (`dict(os.environ)`) carries its label.
    fn bare_source(&mut self, mut v: Val, e: &Expr) -> Val {
        let models = self.models();
        let mut labels = Vec::new();
        for r in &v.refs {
            if let Ref::Api(q) = r
                && models.subscript_sources.contains_key(q)
                && let Some(rows) = models.sources.get(q)
            {
                labels.extend(rows.iter().map(|r| r.label.clone()));
            }
        }
        for l in labels {
            let hop = self.hop(
                &e.span,
                format!("reads {}", e.dotted_path().unwrap_or_default()),
            );
            v.taint.entry(l).or_insert_with(|| Taint::new(hop));
        }
        v
    }

    fn attr(&mut self, base: &Val, attr: &str) -> Val {
        let mut out = base.field(attr);
        for r in base.refs.clone() {
            let bound = matches!(r, Ref::Instance(..));
            match r {
                Ref::Module(mi) => {
                    let v = self.module_member(mi, attr);
                    out.join_in(&v);
                    if v.refs.is_empty() && v.konst.is_none() {
                        let name = self.an.prog.modules[mi].name.clone();
                        out.refs.insert(Ref::Api(format!("{name}.{attr}")));
                    }
                }
                Ref::Class(mi, c) | Ref::Instance(mi, c) => {
                    if bound
                        && !base.fields.contains_key(attr)
                        && let Some(v) = self
                            .an
                            .instance_fields
                            .get(&(mi, c.clone()))
                            .and_then(|fs| fs.get(attr))
                    {
                        out.join_in(&v.clone());
                    }
                    let qual = format!("{c}.{attr}");
                    if let Some(fi) = self.an.prog.modules[mi].function_by_qualname(&qual) {
                        // A static method takes no receiver, even when called on an instance.
                        let takes_receiver =
                            bound && !is_static_method(&self.an.prog.modules[mi], fi);
                        out.refs.insert(if takes_receiver {
                            Ref::Bound(mi, fi)
                        } else {
                            Ref::Func(mi, fi)
                        });
                    }
                }
                Ref::Api(q) => {
                    out.refs.insert(Ref::Api(format!("{q}.{attr}")));
                }
                Ref::Func(..) | Ref::Bound(..) => {}
            }
        }
        out
    }

    fn index(&mut self, base: &Val, idx: &Val, e: &Expr) -> Val {
        let models = self.models();
        for r in &base.refs {
            if let Ref::Api(q) = r
                && let Some(row) = models.subscript_sources.get(q)
            {
                let key = idx.konst.clone();
                let hop = self.hop(
                    &e.span,
                    format!("reads {q}[{}]", key.as_deref().unwrap_or("…")),
                );
                let mut v = Val::labelled(&row.label, hop);
                if matches!(key.as_deref(), Some("HOME") | Some("USERPROFILE")) {
                    v.konst = Some("~".to_string());
                }
                if let Some(kind) = &row.kind {
                    self.record(Event {
                        kind: kind.clone(),
                        api: q.clone(),
                        detail: key,
                        loc: Loc::new(self.m, &e.span),
                        via: Vec::new(),
                        taints: Vec::new(),
                    });
                }
                return v;
            }
        }
        let mut out = match &idx.konst {
            Some(k) if base.fields.contains_key(k) => base.field(k),
            _ => base.any_element(),
        };
        out.absorb_taint(idx);
        out
    }

    fn binary(&mut self, op: &str, l: &Val, r: &Val) -> Val {
        match op {
            "and" | "or" => l.join(r),
            "+" => {
                let mut out = Val::default();
                out.absorb_taint(l);
                out.absorb_taint(r);
                out.konst = concat(l.konst.as_deref(), r.konst.as_deref());
                out
            }
            "/" => {
                let mut out = Val::default();
                out.absorb_taint(l);
                out.absorb_taint(r);
                let is_path = l
                    .refs
                    .iter()
                    .any(|x| matches!(x, Ref::Api(q) if q.starts_with("pathlib.")));
                if is_path {
                    out.konst = join_path(&[l.konst.clone(), r.konst.clone()]);
                    out.refs = l.refs.clone();
                }
                out
            }
            "%" => {
                let mut out = Val::default();
                out.absorb_taint(l);
                out.absorb_taint(r);
                if let Some(fmt) = &l.konst {
                    let mut args: Vec<Option<String>> = Vec::new();
                    if r.fields.is_empty() {
                        args.push(r.konst.clone());
                    } else {
                        for i in 0..r.fields.len() {
                            args.push(r.fields.get(&i.to_string()).and_then(|f| f.konst.clone()));
                        }
                    }
                    out.konst = Some(printf(fmt, &args));
                }
                out
            }
            "*" | "-" => {
                let mut out = Val::default();
                out.absorb_taint(l);
                out.absorb_taint(r);
                out
            }
            // Comparisons and membership tests yield booleans.
            _ => Val::default(),
        }
    }

    fn call(&mut self, vars: &mut Vars, callee: &Expr, args: &[Arg], e: &Expr) -> Val {
        let (recv, fval, method) = match &callee.kind {
            ExprKind::Attribute { value, attr } => {
                let r = self.eval(vars, value);
                let f = self.attr(&r, attr);
                (Some(r), f, Some(attr.as_str()))
            }
            _ => (None, self.eval(vars, callee), None),
        };
        let mut argv: Vec<(Option<String>, Val, bool)> = Vec::with_capacity(args.len());
        for a in args {
            let v = self.eval(vars, &a.value);
            argv.push((a.name.clone(), v, a.spread || a.spread_keywords));
        }
        let site = Loc::new(self.m, &e.span);
        if let (Some(r), Some(m)) = (&recv, method)
            && self.models().joiners.iter().any(|j| j == m)
        {
            self.record_joined(r, &site);
        }
        let callee_name = callee
            .dotted_path()
            .unwrap_or_else(|| method.unwrap_or("<call>").to_string());
        for r in &fval.refs {
            if let Ref::Func(mi, fi) = r
                && *mi == self.m
            {
                self.capture(*fi, vars);
            }
        }
        let mut out = Val::default();
        let mut handled = false;
        for r in &fval.refs {
            match r {
                Ref::Func(mi, fi) => {
                    handled = true;
                    let o = self.an.call_fn(*mi, *fi, None, &argv, &site, &callee_name);
                    self.absorb_outcome(&o, &site);
                    out.join_in(&o.ret);
                }
                Ref::Bound(mi, fi) => {
                    handled = true;
                    let o = self
                        .an
                        .call_fn(*mi, *fi, recv.clone(), &argv, &site, &callee_name);
                    self.absorb_outcome(&o, &site);
                    out.join_in(&o.ret);
                }
                Ref::Class(mi, c) => {
                    handled = true;
                    let inst = Val::with_ref(Ref::Instance(*mi, c.clone()));
                    if let Some(fi) =
                        self.an.prog.modules[*mi].function_by_qualname(&format!("{c}.__init__"))
                    {
                        let o = self.an.call_fn(
                            *mi,
                            fi,
                            Some(inst.clone()),
                            &argv,
                            &site,
                            &callee_name,
                        );
                        self.absorb_outcome(&o, &site);
                    }
                    out.join_in(&inst);
                }
                Ref::Api(q) => {
                    handled = true;
                    let v = self.call_api(q, recv.as_ref(), &argv, e);
                    out.join_in(&v);
                }
                Ref::Instance(..) | Ref::Module(..) => {}
            }
        }
        if !handled {
            // Unknown callee (a method of a value we know nothing about, e.g. str methods):
            // the result carries the receiver's and the arguments' taint.
            if let Some(r) = &recv {
                out.absorb_taint(r);
                out.konst = str_method(method.unwrap_or(""), r, &argv);
            }
            for (_, v, _) in &argv {
                out.absorb_taint(v);
            }
        }
        out
    }

    fn absorb_outcome(&mut self, o: &Outcome, site: &Loc) {
        if let Some(rec) = &mut self.rec {
            for ev in &o.events {
                let mut ev = ev.clone();
                ev.via.insert(0, site.clone());
                rec.events.push(ev);
            }
        }
    }

    /// Makes the current variables visible to `func` if it is nested in the current function.
    fn capture(&mut self, func: FuncId, vars: &Vars) {
        let Some(f) = self.an.prog.modules[self.m].functions.get(func) else {
            return;
        };
        if f.parent != Some(self.f) || self.f == Module::TOP_LEVEL {
            return;
        }
        let env = self.an.closures.entry((self.m, func)).or_default();
        for (k, v) in vars {
            match env.get_mut(k) {
                Some(mine) => mine.join_in(v),
                None => {
                    env.insert(k.clone(), v.clone());
                }
            }
        }
    }

    /// Records that the background objects `v` stands for are waited for here.
    fn record_joined(&mut self, v: &Val, site: &Loc) {
        let markers: Vec<String> = v
            .fields
            .keys()
            .filter(|k| k.starts_with(BG_PREFIX))
            .cloned()
            .collect();
        for m in markers {
            self.record(Event {
                kind: JOINED.to_string(),
                api: String::new(),
                detail: Some(m),
                loc: site.clone(),
                via: Vec::new(),
                taints: Vec::new(),
            });
        }
    }

    fn record(&mut self, ev: Event) {
        if let Some(rec) = &mut self.rec {
            rec.events.push(ev);
        }
    }

    fn call_api(
        &mut self,
        q: &str,
        recv: Option<&Val>,
        argv: &[(Option<String>, Val, bool)],
        e: &Expr,
    ) -> Val {
        let models = self.models();
        let site = Loc::new(self.m, &e.span);
        let mut out = Val::default();
        if let Some(r) = recv {
            out.absorb_taint(r);
        }
        for (_, v, _) in argv {
            out.absorb_taint(v);
        }
        if let Some(kinds) = models.sanitizers.get(q) {
            out.sanitize(kinds);
        }
        out.konst = match models.propagators.get(q) {
            Some(ConstOp::Arg0) => positional(argv, 0).and_then(|v| v.konst.clone()),
            Some(ConstOp::Receiver) => recv.and_then(|r| r.konst.clone()),
            Some(ConstOp::JoinPath) => join_path(&positional_consts(argv)),
            Some(ConstOp::JoinPathReceiver) => {
                let mut parts = vec![recv.and_then(|r| r.konst.clone())];
                parts.extend(positional_consts(argv));
                join_path(&parts)
            }
            Some(ConstOp::Home) => Some("~".to_string()),
            Some(ConstOp::None) | None => None,
        };
        out.refs.insert(Ref::Api(
            models
                .types
                .get(q)
                .cloned()
                .unwrap_or_else(|| q.to_string()),
        ));
        // Sources replace the propagated taint: file contents are not their path.
        let mut sourced: Option<Val> = None;
        if let Some(rows) = models.sources.get(q) {
            for row in rows {
                if !self.when_holds(row.when.as_ref(), recv, argv) {
                    continue;
                }
                let path = select(&row.path, recv, argv).map(|v| self.const_text(v));
                let (label, note) = match (&path, &row.sensitive_label) {
                    (Some(Some(p)), Some(sl)) if models.sensitive_path(p).is_some() => (
                        sl.clone(),
                        format!("reads {p} ({})", models.sensitive_path(p).unwrap_or("")),
                    ),
                    (Some(Some(p)), _) => (row.label.clone(), format!("reads {p}")),
                    _ => (row.label.clone(), format!("{} from {q}()", row.label)),
                };
                let v = sourced.get_or_insert_with(Val::default);
                v.taint.entry(label).or_insert_with(|| {
                    Taint::new(Hop {
                        loc: site.clone(),
                        note,
                    })
                });
                if let Some(kind) = &row.kind {
                    let detail = select(&row.detail, recv, argv).and_then(|v| self.const_text(v));
                    self.record(Event {
                        kind: kind.clone(),
                        api: q.to_string(),
                        detail,
                        loc: site.clone(),
                        via: Vec::new(),
                        taints: Vec::new(),
                    });
                }
            }
        }
        if let Some(s) = sourced {
            out.taint = s.taint;
            out.fields.clear();
        }
        if let Some(rows) = models.sinks.get(q)
            && rows.iter().any(|r| r.kind == BACKGROUND)
        {
            // The object stands for work that may outlive the call, until it is waited for.
            out.fields.insert(bg_marker(&site), Val::default());
        }
        if self.rec.is_some()
            && let Some(rows) = models.sinks.get(q)
        {
            let matched: Vec<&crate::models::SinkRow> = rows
                .iter()
                .filter(|row| self.when_holds(row.when.as_ref(), recv, argv))
                .collect();
            let superseded: Vec<&str> = matched
                .iter()
                .filter_map(|r| r.supersedes.as_deref())
                .collect();
            for row in matched {
                if superseded.contains(&row.kind.as_str()) {
                    continue;
                }
                let target = select(&row.target, recv, argv);
                let mut taints: Vec<(String, Taint, bool)> = Vec::new();
                if let Some(t) = target {
                    for (l, tt) in t.all_taint() {
                        taints.push((l, tt, true));
                    }
                }
                if row.all_args || row.target.is_none() {
                    let mut others = Val::default();
                    for (i, (_, v, _)) in argv.iter().enumerate() {
                        let is_target = target.is_some_and(|t| std::ptr::eq(t, &argv[i].1));
                        if !is_target {
                            others.absorb_taint(v);
                        }
                    }
                    for (l, tt) in others.all_taint() {
                        if !taints.iter().any(|(x, _, _)| x == &l) {
                            taints.push((l, tt, row.target.is_none()));
                        }
                    }
                }
                let target_text = target.and_then(|v| self.describe(v));
                let detail_text = select(&row.detail, recv, argv).and_then(|v| self.describe(v));
                let mut detail = match &row.detail_format {
                    Some(fmt) => Some(
                        fmt.replace("{target}", target_text.as_deref().unwrap_or("…"))
                            .replace("{detail}", detail_text.as_deref().unwrap_or("…")),
                    ),
                    None => detail_text,
                };
                if let (Some(verb), Some(d)) = (&row.verb, &detail) {
                    detail = Some(format!("{verb} {d}"));
                }
                let sink_hop = Hop {
                    loc: site.clone(),
                    note: format!("{} {q}({})", row.kind, detail.as_deref().unwrap_or("")),
                };
                for (_, t, _) in &mut taints {
                    t.path.push(sink_hop.clone());
                }
                self.record(Event {
                    kind: row.kind.clone(),
                    api: q.to_string(),
                    detail,
                    loc: site.clone(),
                    via: Vec::new(),
                    taints,
                });
            }
        }
        if let Some(sel) = models.callbacks.get(q)
            && let Some(cb) = select(sel, recv, argv)
        {
            for r in cb.refs.clone() {
                if let Ref::Func(mi, fi) | Ref::Bound(mi, fi) = r {
                    let o = self.an.call_fn(mi, fi, None, &[], &site, q);
                    self.absorb_outcome(&o, &site);
                }
            }
        }
        out
    }

    /// The constant text of a value, or the name of the API/type it refers to.
    fn const_text(&self, v: &Val) -> Option<String> {
        if let Some(k) = &v.konst {
            return Some(k.clone());
        }
        v.refs.iter().find_map(|r| match r {
            Ref::Api(q) => Some(q.clone()),
            _ => None,
        })
    }

    /// What to show for an argument: its constant, else the labels it carries.
    fn describe(&self, v: &Val) -> Option<String> {
        if let Some(k) = &v.konst {
            return Some(k.clone());
        }
        // An argument list (`["crontab", path]`) reads as the command line it stands for.
        if v.fields.contains_key("0") {
            let mut parts = Vec::new();
            let mut i = 0;
            while let Some(f) = v.fields.get(&i.to_string()) {
                parts.push(
                    f.konst
                        .clone()
                        .or_else(|| self.describe(f))
                        .unwrap_or_else(|| UNKNOWN.to_string()),
                );
                i += 1;
            }
            return Some(parts.join(" "));
        }
        let labels: Vec<String> = v.all_taint().keys().cloned().collect();
        if labels.is_empty() {
            None
        } else {
            Some(format!("⟨{}⟩", labels.join(", ")))
        }
    }

    fn when_holds(
        &self,
        when: Option<&When>,
        recv: Option<&Val>,
        argv: &[(Option<String>, Val, bool)],
    ) -> bool {
        let Some(w) = when else { return true };
        let text = match select(&w.arg, recv, argv) {
            Some(v) => match self.const_text(v) {
                Some(t) => t,
                // Present but not constant: either way is possible; keep the row.
                None => return true,
            },
            None => match &w.default {
                Some(d) => d.clone(),
                None => return false,
            },
        };
        if let Some(is) = &w.is
            && &text != is
        {
            return false;
        }
        if let Some(re) = &w.matches
            && !re.is_match(&text)
        {
            return false;
        }
        true
    }
}

fn positional(argv: &[(Option<String>, Val, bool)], i: usize) -> Option<&Val> {
    argv.iter()
        .filter(|(n, _, spread)| n.is_none() && !spread)
        .nth(i)
        .map(|(_, v, _)| v)
}

fn positional_consts(argv: &[(Option<String>, Val, bool)]) -> Vec<Option<String>> {
    argv.iter()
        .filter(|(n, _, spread)| n.is_none() && !spread)
        .map(|(_, v, _)| v.konst.clone())
        .collect()
}

/// The argument a selector names: the keyword if given at the call, else the position
/// (`-1` = the receiver).
fn select<'v>(
    sel: &ArgSel,
    recv: Option<&'v Val>,
    argv: &'v [(Option<String>, Val, bool)],
) -> Option<&'v Val> {
    if let Some(k) = &sel.keyword
        && let Some((_, v, _)) = argv.iter().find(|(n, _, _)| n.as_deref() == Some(k))
    {
        return Some(v);
    }
    match sel.index {
        Some(-1) => recv,
        Some(i) if i >= 0 => positional(argv, i as usize),
        _ => None,
    }
}

/// The variable an expression is "about" (`p` in `p.resolve()`, `str(p)`, `p.name`).
fn root_var(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.clone()),
        ExprKind::Attribute { value, .. } | ExprKind::Index { value, .. } => root_var(value),
        ExprKind::Await(x) => root_var(x),
        ExprKind::Call { callee, args } => match &callee.kind {
            ExprKind::Attribute { value, .. } => root_var(value),
            _ => args.first().and_then(|a| root_var(&a.value)),
        },
        _ => None,
    }
}

fn all_root_vars(e: &Expr) -> Vec<String> {
    match &e.kind {
        ExprKind::List(xs) | ExprKind::Tuple(xs) => xs.iter().filter_map(root_var).collect(),
        _ => root_var(e).into_iter().collect(),
    }
}

/// `"%s/%d" % (a, b)` with unknown parts as `…`.
fn printf(fmt: &str, args: &[Option<String>]) -> String {
    let mut out = String::new();
    let mut it = args.iter();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            match chars.peek() {
                Some('%') => {
                    chars.next();
                    out.push('%');
                }
                Some(_) => {
                    // Skip flags/width up to the conversion letter.
                    while let Some(&n) = chars.peek() {
                        chars.next();
                        if n.is_ascii_alphabetic() {
                            break;
                        }
                    }
                    match it.next() {
                        Some(Some(s)) => out.push_str(s),
                        _ => out.push(UNKNOWN),
                    }
                }
                None => out.push('%'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Constants through the common `str` methods.
fn str_method(method: &str, recv: &Val, argv: &[(Option<String>, Val, bool)]) -> Option<String> {
    let base = recv.konst.as_deref()?;
    match method {
        "format" => {
            let mut out = String::new();
            let mut pos = 0usize;
            let mut rest = base;
            while let Some(open) = rest.find('{') {
                out.push_str(&rest[..open]);
                let Some(close) = rest[open..].find('}') else {
                    out.push_str(&rest[open..]);
                    rest = "";
                    break;
                };
                let name = &rest[open + 1..open + close];
                let v = if name.is_empty() {
                    let v = positional(argv, pos);
                    pos += 1;
                    v
                } else if let Ok(i) = name.parse::<usize>() {
                    positional(argv, i)
                } else {
                    argv.iter()
                        .find(|(n, _, _)| n.as_deref() == Some(name))
                        .map(|(_, v, _)| v)
                };
                match v.and_then(|v| v.konst.as_deref()) {
                    Some(s) => out.push_str(s),
                    None => out.push(UNKNOWN),
                }
                rest = &rest[open + close + 1..];
            }
            out.push_str(rest);
            Some(out)
        }
        "join" => {
            let list = positional(argv, 0)?;
            let mut parts = Vec::new();
            for i in 0..list.fields.len() {
                parts.push(
                    list.fields
                        .get(&i.to_string())
                        .and_then(|f| f.konst.clone())
                        .unwrap_or_else(|| UNKNOWN.to_string()),
                );
            }
            if parts.is_empty() {
                None
            } else {
                Some(parts.join(base))
            }
        }
        "strip" | "rstrip" | "lstrip" | "encode" | "decode" => Some(base.to_string()),
        "lower" | "casefold" => Some(base.to_lowercase()),
        "upper" => Some(base.to_uppercase()),
        _ => None,
    }
}
