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
use crate::models::{
    ArgSel, CollectionOp, ConstOp, DynamicCall, FormatStyle, Models, StrFold, TEXT_LABEL_PREFIX,
    When,
};
use crate::value::{Hop, Loc, MAX_ALTS, Ref, Taint, UNKNOWN, Val, concat, join_path};
use mcp_scan_ir::{Arg, Expr, ExprKind, FuncId, Import, Module, StmtKind, StrPart};
use petgraph::graph::NodeIndex;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
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

/// A parameter a helper checks with a guard.
#[derive(Debug, Clone, PartialEq)]
struct HelperGuard {
    param: usize,
    kinds: Vec<String>,
    /// A regex test whose patterns are the helper's parameter (`any(re.match(p, url) for p in
    /// allowed)`): it guards only where the caller's patterns all match this model guard's
    /// pattern (index into the models' guards), read at each call.
    patterns_from: Option<(usize, usize)>,
}

/// The parameters a helper checks with a guard.
type HelperGuards = Vec<HelperGuard>;

/// Sink kinds that act on a file path.
const FILE_KINDS: &[&str] = &[
    "file-read",
    "file-write",
    "file-delete",
    "file-list",
    "file-permission",
];

/// Sink kinds that send data off the machine.
const NETWORK_KINDS: &[&str] = &["network-send", "network-fetch", "socket", "dns"];
/// Marks, among the kinds a guard neutralised, a URL whose scheme and host the guard fixed,
/// followed by `/` (`re.match(r"^https://docs\.example\.com/", url)`): text appended after it
/// lands in the path or query and cannot move the destination.
const PINNED_HOST: &str = "<pinned-host>";

/// The kinds a model guard neutralises, with [`PINNED_HOST`] for a regex test whose pattern
/// pins a destination (the models' network regex guards all require a host then `/`).
fn guard_kinds(g: &crate::models::Guard) -> Vec<String> {
    let mut k = g.kinds.clone();
    if g.pattern.is_some() && k.iter().any(|x| x == "network-fetch") {
        k.push(PINNED_HOST.to_string());
    }
    k
}

/// Whether a value is a URL a guard checked down to a fixed scheme and host (all its taint
/// carries the mark).
fn host_pinned(v: &Val) -> bool {
    !v.taint.is_empty() && v.taint.values().all(|t| t.sanitized.contains(PINNED_HOST))
}

/// Whether text after `v` cannot move the destination: `v` is a URL a guard pinned, or a base
/// no parameter chose (`{base_url}` from configuration, a client attribute) followed by a fixed
/// `/` (`{base_url}/contacts/{id}`): a parameter after it lands in the path or query.
fn anchors_destination(v: &Val, next_text: Option<&str>) -> bool {
    let all = v.all_taint();
    let params = || all.iter().filter(|(l, _)| l.starts_with("param:"));
    // Parameters already placed after an anchored base (`{base}/projects/{id}`, then
    // `{that}/notes/{n}`) sit in its path: they do not choose the destination either.
    let no_param = params().all(|(_, t)| t.sanitized.contains(PINNED_HOST));
    // With `no_param`, every parameter there is such a path segment.
    let path_params = params().next().is_some();
    host_pinned(v)
        || (no_param
            && v.konst.is_none()
            && v.alts.is_empty()
            && v.fields.is_empty()
            && next_text.is_some_and(path_next))
        || (no_param
            && v.konst.as_deref().is_some_and(|k| {
                k.strip_prefix(UNKNOWN)
                    .is_some_and(|r| path_next(r) && (!r.contains(UNKNOWN) || path_params))
            }))
}

/// Text that continues a URL's path (`/contacts`), not a new authority (`//host`).
fn path_next(t: &str) -> bool {
    t.starts_with('/') && !t.starts_with("//")
}

/// Parameters appended after a pinned host: they cannot choose the destination. (What the
/// text carries, a secret or a file's content, still goes there.)
fn after_pinned_host(v: &Val) -> Val {
    let mut v = v.clone();
    let mut kinds: Vec<String> = NETWORK_KINDS.iter().map(|k| k.to_string()).collect();
    kinds.push(PINNED_HOST.to_string());
    v.sanitize_labels("param:", &kinds);
    v
}

/// Data stored into an object built from the caller's input.
pub const CALLER_DATA: &str = "caller-data";
/// What the tool returns to the model.
pub const TOOL_RESULT: &str = "tool-result";
/// A loop's count (`range(n)`).
const ITERATION: &str = "iteration";
/// A resource taken once per iteration of a counted loop (see [`ACQUIRING_KINDS`]).
pub const REPEATED_ACQUISITION: &str = "repeated-acquisition";
/// Kinds that take a scarce resource each time: a thread or process, a socket, an open file
/// for writing, a request. Done once per iteration of a loop whose count the caller picks (or a
/// huge one), they exhaust the host.
const ACQUIRING_KINDS: &[&str] = &[
    "background",
    "socket",
    "process-exec",
    "command-exec",
    "network-fetch",
    "network-send",
    "file-write",
];

/// The event for `acq` repeated once per iteration counted by `count` (a `range(...)` event):
/// the count's taint reaches it, and its detail is the count.
fn repeated_acquisition(count: &Event, acq: &Event) -> Event {
    let hop = Hop {
        loc: acq.loc.clone(),
        note: format!("{} {} once per iteration", acq.kind, acq.api),
    };
    Event {
        kind: REPEATED_ACQUISITION.to_string(),
        api: format!("{} {}", acq.kind, acq.api),
        detail: count.detail.clone(),
        loc: acq.loc.clone(),
        via: acq.via.clone(),
        taints: count
            .taints
            .iter()
            .map(|(l, t, into)| {
                let mut t = t.clone();
                t.path.push(hop.clone());
                (l.clone(), t, *into)
            })
            .collect(),
    }
}

/// The kind of work that may outlive a call.
pub const BACKGROUND: &str = "background";
/// Internal event: background work (named by its marker in `detail`) was waited for.
pub const JOINED: &str = "joined";
const BG_PREFIX: &str = "@background:";
/// The field of a `functools.partial` object holding its bound arguments.
const PARTIAL: &str = "@partial";
/// The pseudo-variable recording which variable `x` was derived from (`host = urlparse(url)
/// .hostname`), so that a guard on `host` also guards `url`.
const ALIAS_PREFIX: &str = "@from:";
/// The pseudo-variable holding what a checking helper's result (`ok`) vouches for.
const VERDICT_PREFIX: &str = "@verdict:";

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

/// `[[text]]` row indices per string literal (keyed by its address and length).
type TextHits = HashMap<(usize, usize), Rc<[usize]>>;

/// The scanned program: modules and an index from dotted module name to module.
pub struct Program<'m> {
    pub modules: &'m [Module],
    by_name: HashMap<&'m str, usize>,
    pub models: &'static Models,
    /// `[[text]]` rows each string literal matches, by the literal's address in the IR (which
    /// outlives the program): a literal is evaluated many times (fixpoints, every tool) and
    /// its text never changes.
    text_hits: std::cell::RefCell<TextHits>,
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
            text_hits: Default::default(),
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
    /// The module-level bindings made so far of a module whose top level is running and calls
    /// one of its own functions with a default naming a global (`Client()` at import).
    partial_globals: HashMap<usize, Vars>,
    /// Re-exported names being resolved (cycle guard).
    resolving: HashSet<(usize, String)>,
    stack: Vec<(usize, FuncId)>,
    /// Attributes assigned on instances of scanned classes (`self.x = ...`), per class.
    instance_fields: HashMap<(usize, String), Vars>,
    /// Variables of the enclosing function a nested function or lambda sees (closures),
    /// joined over every place it is defined or called from.
    closures: HashMap<(usize, FuncId), Vars>,
    /// Class-level attributes (the class body's bindings), per class, computed on demand.
    class_vars: HashMap<(usize, String), Rc<Vars>>,
    /// Which parameters a helper function checks with a guard (`def allowed(u): return
    /// urlparse(u).hostname in HOSTS`), per function: parameter index and kinds made safe.
    helper_guards: HashMap<(usize, FuncId, bool), Rc<HelperGuards>>,
    analyses: usize,
    /// Why the analysis is incomplete, if a limit was hit.
    pub limit: Option<String>,
}

impl<'p, 'm> Analyzer<'p, 'm> {
    /// Every function whose body this analyzer ran (the entry and the helpers it reached),
    /// as (module, function), sorted.
    pub fn analysed_functions(&self) -> Vec<(usize, FuncId)> {
        let mut v: Vec<(usize, FuncId)> = self.memo.keys().map(|k| (k.module, k.func)).collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    pub fn new(prog: &'p Program<'m>) -> Self {
        Analyzer {
            prog,
            memo: HashMap::new(),
            globals: HashMap::new(),
            globals_busy: HashSet::new(),
            partial_globals: HashMap::new(),
            resolving: HashSet::new(),
            stack: Vec::new(),
            closures: HashMap::new(),
            instance_fields: HashMap::new(),
            class_vars: HashMap::new(),
            helper_guards: HashMap::new(),
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
        // The count of each `for` over a counted iteration (`range(n)`), by head.
        let mut counts: HashMap<NodeIndex, Event> = HashMap::new();
        for ix in cfg.graph.node_indices() {
            if let Some(state) = &sol.input[ix.index()] {
                let node = cfg.graph[ix];
                if ix == cfg.exit {
                    exit_vars = state.clone();
                }
                let before = frame.rec.as_ref().map_or(0, |r| r.events.len());
                let _ = frame.transfer(ix, &node, &sol.input[ix.index()]);
                let Some(rec) = &mut frame.rec else { continue };
                let new = &rec.events[before..];
                if matches!(node, Node::ForHead { .. })
                    && let Some(count) =
                        new.iter().find(|e| e.kind == ITERATION && e.via.is_empty())
                {
                    counts.insert(ix, count.clone());
                }
                let repeated: Vec<Event> = cfg
                    .enclosing_fors(ix)
                    .filter_map(|head| counts.get(&head))
                    .flat_map(|count| {
                        new.iter()
                            .filter(|e| ACQUIRING_KINDS.contains(&e.kind.as_str()))
                            .map(|acq| repeated_acquisition(count, acq))
                    })
                    .collect();
                rec.events.extend(repeated);
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
        // A module's top level runs once, at import, whoever first reads its globals: it
        // starts at call depth 0, not at the depth of the call that happened to need it (a
        // global read eight calls deep would otherwise leave the module's own calls, a
        // `main()` under `if __name__ == "__main__"` among them, no depth at all).
        let outer = std::mem::take(&mut self.stack);
        let (_, vars) = self.analyze_fn(m, Module::TOP_LEVEL, Vec::new());
        self.stack = outer;
        self.globals_busy.remove(&m);
        let g = Rc::new(vars);
        self.globals.insert(m, g.clone());
        g
    }

    /// Class-level bindings of class `c` of module `m` (its body run once), computed on demand.
    fn class_vars(&mut self, m: usize, c: &str) -> Rc<Vars> {
        let key = (m, c.to_string());
        if let Some(v) = self.class_vars.get(&key) {
            return v.clone();
        }
        // Inserted first so that a class body reading its own class sees no attributes
        // rather than recursing.
        self.class_vars.insert(key.clone(), Rc::new(Vars::new()));
        let body = format!("{c}.<body>");
        let vars = match self.prog.modules[m].function_by_qualname(&body) {
            Some(fi) if self.stack.len() < MAX_CALL_DEPTH => {
                self.stack.push((m, fi));
                let (_, vars) = self.analyze_fn(m, fi, Vec::new());
                self.stack.pop();
                vars
            }
            _ => Vars::new(),
        };
        let v = Rc::new(vars);
        self.class_vars.insert(key, v.clone());
        v
    }

    /// The parameters function `f` of module `m` tests with a model guard, anywhere in its body
    /// (directly or through a local derived from the parameter), with the kinds made safe.
    fn helper_guards(&mut self, m: usize, f: FuncId) -> Rc<HelperGuards> {
        self.helper_guards_of(m, f, false)
    }

    /// The parameters function `f` checks with a model guard whose failure raises
    /// (`if not str(p.resolve()).startswith(root): raise ...`): calling it as a statement
    /// guards its arguments from then on.
    fn raising_helper_guards(&mut self, m: usize, f: FuncId) -> Rc<HelperGuards> {
        self.helper_guards_of(m, f, true)
    }

    fn helper_guards_of(&mut self, m: usize, f: FuncId, raising: bool) -> Rc<HelperGuards> {
        if let Some(g) = self.helper_guards.get(&(m, f, raising)) {
            return g.clone();
        }
        let mut out = Vec::new();
        if let Some(func) = self.prog.modules[m].functions.get(f) {
            // Locals derived from each parameter (`p = urlparse(u)`), to a fixed point.
            let mut origin: HashMap<String, usize> = func
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.clone(), i))
                .collect();
            let mut assigns = Vec::new();
            let mut tests = Vec::new();
            collect_helper_parts(&func.body, &mut assigns, &mut tests, 0);
            if raising {
                tests.clear();
                collect_raising_tests(&func.body, &mut tests, 0);
            }
            for _ in 0..4 {
                let mut changed = false;
                for (target, value) in &assigns {
                    if origin.contains_key(target) {
                        continue;
                    }
                    if let Some(i) = derived_from(value)
                        .iter()
                        .find_map(|r| origin.get(r).copied())
                    {
                        origin.insert(target.clone(), i);
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            let models = self.prog.models;
            let params: HashMap<&str, usize> = func
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.as_str(), i))
                .collect();
            let mut push = |g: HelperGuard| {
                if !out.contains(&g) {
                    out.push(g);
                }
            };
            for e in tests {
                for (root, kinds, pats) in guarded_roots(models, e) {
                    let Some(&i) = origin.get(&root) else {
                        continue;
                    };
                    let patterns_from = match pats {
                        PatternSource::Unconditional => None,
                        PatternSource::Name(n, gi, iterated) => match params.get(n.as_str()) {
                            Some(&pj) if iterated => Some((pj, gi)),
                            // One pattern passed in: not the shape read at call sites.
                            Some(_) => continue,
                            // A module constant: its value decides now.
                            None => {
                                let g = self.globals(m);
                                let ok =
                                    g.get(&n)
                                        .and_then(|v| {
                                            if iterated {
                                                v.any_element().candidates()
                                            } else {
                                                v.candidates()
                                            }
                                        })
                                        .is_some_and(|c| {
                                            !c.is_empty()
                                                && models.guards[gi].pattern.as_ref().is_some_and(
                                                    |p| c.iter().all(|k| p.is_match(k)),
                                                )
                                        });
                                if !ok {
                                    continue;
                                }
                                None
                            }
                        },
                    };
                    push(HelperGuard {
                        param: i,
                        kinds,
                        patterns_from,
                    });
                }
            }
        }
        let g = Rc::new(out);
        self.helper_guards.insert((m, f, raising), g.clone());
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
                None => match p.default.as_ref().map(|d| &d.kind) {
                    // A default naming a module-level value (`base_url: str = API_BASE_URL`)
                    // is that value, configuration read at import included.
                    Some(ExprKind::Name(n)) => {
                        let n = n.clone();
                        if self.globals_busy.contains(&m) {
                            self.partial_globals
                                .get(&m)
                                .and_then(|g| g.get(&n))
                                .cloned()
                        } else {
                            self.globals(m).get(&n).cloned()
                        }
                        .unwrap_or_default()
                    }
                    _ => p.default.as_ref().map(literal).unwrap_or_default(),
                },
            };
            if extra.is_tainted() && bindings.get(i).is_some() && (p.variadic || p.keywords) {
                v.absorb_taint(&extra);
            }
            let conventions = &self.prog.modules[m].conventions;
            if v.is_tainted() && !(i == 0 && next == 1 && func.is_receiver(&p.name, conventions)) {
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
            let depth = self.stack.len() >= MAX_CALL_DEPTH;
            self.limit.get_or_insert_with(|| {
                if depth {
                    format!("call depth limit ({MAX_CALL_DEPTH} nested calls) reached at {callee_name}()")
                } else {
                    format!("work limit ({MAX_ANALYSES} function analyses) reached at {callee_name}()")
                }
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

/// A static method (`@staticmethod`, by the language's conventions): called through an
/// instance, it gets no receiver.
fn is_static_method(module: &Module, f: FuncId) -> bool {
    module.functions.get(f).is_some_and(|func| {
        func.decorators.iter().any(|d| {
            d.dotted_path()
                .is_some_and(|p| module.conventions.static_decorators.contains(&p.as_str()))
        })
    })
}

/// The field of a client object holding the base URL it was built on (`[[base_url]]`); not
/// a Python identifier, so no attribute of the scanned code can collide with it.
const BASE_URL_FIELD: &str = "<base_url>";
/// The field of a request object (`urllib.request.Request(url, data=...)`) holding what it
/// carries (body, headers): the object itself is its URL.
const REQUEST_PAYLOAD_FIELD: &str = "<request_payload>";

/// The fixed `scheme://host/` a text starts with (`https://www.example.com/share/…`), if any:
/// whatever follows the `/` cannot change the host.
fn fixed_origin(text: &str) -> Option<&str> {
    let (scheme, rest) = text.split_once("://")?;
    let scheme_ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'));
    let host_end = rest.find('/')?;
    let host = &rest[..host_end];
    (scheme_ok
        && !host.is_empty()
        && !host.contains(UNKNOWN)
        && !host.chars().any(char::is_whitespace))
    .then(|| &text[..scheme.len() + 3 + host_end + 1])
}

/// The taint that decides where a sink acts: all of the value's, except what a request object
/// only carries.
fn destination_taint(t: &Val) -> BTreeMap<String, Taint> {
    if !t.fields.contains_key(REQUEST_PAYLOAD_FIELD) {
        return t.all_taint();
    }
    let mut v = t.clone();
    v.fields.remove(REQUEST_PAYLOAD_FIELD);
    v.all_taint()
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

    /// In place: the successor's state is not cloned, and a variable whose value is already
    /// the incoming one is neither cloned nor joined (most of them, at a loop head).
    fn join_into(&self, into: &mut Self::State, b: &Self::State) -> bool {
        let Some(b) = b else {
            return false;
        };
        let Some(a) = into else {
            *into = Some(b.clone());
            return true;
        };
        let mut changed = false;
        for (k, v) in b {
            match a.get_mut(k) {
                Some(mine) if mine == v => {}
                Some(mine) => {
                    let mut joined = mine.clone();
                    joined.join_in(v);
                    if joined != *mine {
                        *mine = joined;
                        changed = true;
                    }
                }
                None => {
                    a.insert(k.clone(), v.clone());
                    changed = true;
                }
            }
        }
        changed
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
                    // `url = validate(url)`: a helper that raises unless its check holds guards
                    // what it checked, and what it returns is the checked value.
                    let call = match &value.kind {
                        ExprKind::Await(x) => x.as_ref(),
                        _ => value,
                    };
                    if let ExprKind::Call { callee, args } = &call.kind {
                        let resolved = self.eval(vars, callee);
                        for (root, kinds) in self.raising_checked_roots(vars, &resolved.refs, args)
                        {
                            self.sanitize_var(vars, &root, &kinds);
                            v.sanitize(&kinds);
                        }
                    }
                    if v.is_tainted() {
                        let mut names = Vec::new();
                        for t in targets {
                            bound_names(t, &mut names);
                        }
                        v.push_hop(
                            &self.hop(&s.span, format!("assigned to `{}`", names.join("`, `"))),
                        );
                    }
                    self.record_helper_verdict(vars, targets, value);
                    for t in targets {
                        self.bind(vars, t, v.clone());
                        if let ExprKind::Name(n) = &t.kind {
                            let key = format!("{ALIAS_PREFIX}{n}");
                            match root_var(value) {
                                Some(r) if &r != n => {
                                    vars.insert(key, Val::konst(r));
                                }
                                _ => {
                                    vars.remove(&key);
                                }
                            }
                        }
                    }
                }
                StmtKind::AugAssign { target, op, value } => {
                    let old = self.eval(vars, target);
                    let mut new = self.eval(vars, value);
                    if op == "+" && anchors_destination(&old, new.konst.as_deref()) {
                        new = after_pinned_host(&new);
                    }
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
                    // `validate_access(path, root)`: a helper that raises unless its check
                    // holds guards what it checked once it returns.
                    let call = match &e.kind {
                        ExprKind::Await(x) => x.as_ref(),
                        _ => e,
                    };
                    if let ExprKind::Call { callee, args } = &call.kind {
                        let resolved = self.eval(vars, callee);
                        for (root, kinds) in self.raising_checked_roots(vars, &resolved.refs, args)
                        {
                            self.sanitize_var(vars, &root, &kinds);
                        }
                    }
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
            (ExprKind::Attribute { value: owner, attr }, _)
                if let ExprKind::Name(n) = &owner.kind =>
            {
                // `os.environ[key] = v`, `self.cache[key] = v`: a weak update of the attribute
                // stored into, not of its owner; tainting the owner would taint every other
                // attribute (`os.path.expanduser(...)` after a dotenv loader filled `os.environ`).
                // The stored-into value as held (not evaluated: reading `os.environ` here is
                // no read of the environment).
                let mut field = self
                    .lookup(vars, n)
                    .fields
                    .get(attr)
                    .cloned()
                    .unwrap_or_default();
                match key {
                    Some(k) => field.set_field(k, v),
                    None => field.absorb_taint(&v),
                }
                self.store_field(vars, owner, Some(attr), field);
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
                ExprKind::Name(n) => {
                    // The saved verdict of a checking helper (`ok, err = validate(p)`).
                    if let Some(v) = vars.get(&format!("{VERDICT_PREFIX}{n}")).cloned() {
                        for (root, kinds) in &v.fields {
                            let kinds: Vec<String> = kinds
                                .konst
                                .as_deref()
                                .unwrap_or("")
                                .split(',')
                                .filter(|k| !k.is_empty())
                                .map(str::to_string)
                                .collect();
                            self.sanitize_var(vars, root, &kinds);
                        }
                    }
                }
                ExprKind::Unary { operand, .. } => todo.push(operand),
                ExprKind::Await(x) => todo.push(x),
                ExprKind::Attribute { value, attr } => {
                    for g in &models.guards {
                        if g.attr.as_deref() == Some(attr.as_str())
                            && let Some(root) = root_var(value)
                        {
                            self.sanitize_var(vars, &root, &g.kinds);
                        }
                    }
                }
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
                                let kinds = narrow_prefix_guard(g.prefix, &g.kinds, args);
                                self.sanitize_var(vars, &root, &kinds);
                            }
                        }
                    }
                    // `any(str(p).startswith(str(root)) for root in ROOTS)`: the test made
                    // for each element is made on the variable.
                    todo.extend(quantified_tests(callee, args));
                    // `any(re.match(p, url) for p in PATTERNS)`: the test guards when every
                    // pattern the loop can take pins what the guard needs.
                    if let Some((gc, rest, iter)) = pattern_loop_test(callee, args) {
                        let patterns = self.eval(vars, iter).any_element().candidates();
                        let resolved = self.eval(vars, gc);
                        for g in &models.guards {
                            if let (Some(c), Some(p), Some(pats)) =
                                (&g.callee, &g.pattern, &patterns)
                                && resolved.refs.contains(&Ref::Api(c.clone()))
                                && !pats.is_empty()
                                && pats.iter().all(|k| p.is_match(k))
                            {
                                for a in rest {
                                    for root in all_root_vars(&a.value) {
                                        self.sanitize_var(vars, &root, &guard_kinds(g));
                                    }
                                }
                            }
                        }
                    }
                    let resolved = self.eval(vars, callee);
                    // A helper that checks its argument (`if not allowed(url): raise`).
                    for (root, kinds) in self.helper_checked_roots(vars, &resolved.refs, args) {
                        self.sanitize_var(vars, &root, &kinds);
                    }
                    for g in &models.guards {
                        if let Some(c) = &g.callee
                            && resolved.refs.contains(&Ref::Api(c.clone()))
                            && g.pattern.as_ref().is_none_or(|p| {
                                args.first().is_some_and(|a| {
                                    self.eval(vars, &a.value)
                                        .konst
                                        .is_some_and(|k| p.is_match(&k))
                                })
                            })
                        {
                            for a in args {
                                for root in all_root_vars(&a.value) {
                                    self.sanitize_var(vars, &root, &guard_kinds(g));
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// `ok = allowed(url)` / `ok, err = validate(path)`: remembers, under the first name
    /// bound, which variables the helper checked, so that testing `ok` later guards them.
    fn record_helper_verdict(&mut self, vars: &mut Vars, targets: &[Expr], value: &Expr) {
        let mut names = Vec::new();
        for t in targets {
            bound_names(t, &mut names);
        }
        let Some(first) = names.first().cloned() else {
            return;
        };
        let key = format!("{VERDICT_PREFIX}{first}");
        vars.remove(&key);
        let call = match &value.kind {
            ExprKind::Await(x) => x.as_ref(),
            _ => value,
        };
        let ExprKind::Call { callee, args } = &call.kind else {
            return;
        };
        let resolved = self.eval(vars, callee);
        let mut verdict = Val::default();
        for (root, kinds) in self.helper_checked_roots(vars, &resolved.refs, args) {
            verdict.set_field(&root, Val::konst(kinds.join(",")));
        }
        if !verdict.fields.is_empty() {
            vars.insert(key, verdict);
        }
    }

    /// The variables a call of a checking helper passes as the parameters it checks, each with
    /// the kinds it guards against.
    fn helper_checked_roots(
        &mut self,
        vars: &mut Vars,
        refs: &BTreeSet<Ref>,
        args: &[Arg],
    ) -> Vec<(String, Vec<String>)> {
        self.checked_roots(vars, refs, args, false)
    }

    fn raising_checked_roots(
        &mut self,
        vars: &mut Vars,
        refs: &BTreeSet<Ref>,
        args: &[Arg],
    ) -> Vec<(String, Vec<String>)> {
        self.checked_roots(vars, refs, args, true)
    }

    fn checked_roots(
        &mut self,
        vars: &mut Vars,
        refs: &BTreeSet<Ref>,
        args: &[Arg],
        raising: bool,
    ) -> Vec<(String, Vec<String>)> {
        let mut out = Vec::new();
        for r in refs {
            let (mi, fi, shift) = match r {
                Ref::Func(mi, fi) => (*mi, *fi, 0),
                Ref::Bound(mi, fi) => (*mi, *fi, 1),
                _ => continue,
            };
            let hg = if raising {
                self.an.raising_helper_guards(mi, fi)
            } else {
                self.an.helper_guards(mi, fi)
            };
            let arg_for = |pi: usize| -> Option<&Arg> {
                let ai = pi.checked_sub(shift)?;
                let pname = self.an.prog.modules[mi].functions[fi]
                    .params
                    .get(pi)
                    .map(|p| p.name.clone());
                args.iter()
                    .filter(|a| a.name.is_none() && !a.spread)
                    .nth(ai)
                    .or_else(|| args.iter().find(|a| a.name == pname))
            };
            for g in hg.iter() {
                let Some(a) = arg_for(g.param) else {
                    continue;
                };
                // The caller's patterns decide: every one must pin what the guard needs.
                if let Some((pj, gi)) = g.patterns_from {
                    let Some(pats_arg) = arg_for(pj) else {
                        continue;
                    };
                    let pats = self.eval(vars, &pats_arg.value).any_element().candidates();
                    let model = &self.models().guards[gi];
                    let pinned = pats.is_some_and(|c| {
                        !c.is_empty()
                            && model
                                .pattern
                                .as_ref()
                                .is_some_and(|p| c.iter().all(|k| p.is_match(k)))
                    });
                    if !pinned {
                        continue;
                    }
                }
                for root in all_root_vars(&a.value) {
                    out.push((root, g.kinds.clone()));
                }
            }
        }
        out
    }

    fn sanitize_var(&mut self, vars: &mut Vars, name: &str, kinds: &[String]) {
        let mut name = name.to_string();
        // The checked variable and the ones it was derived from (bounded chain).
        for _ in 0..4 {
            let mut v = self.lookup(vars, &name);
            v.sanitize(kinds);
            vars.insert(name.clone(), v);
            match vars
                .get(&format!("{ALIAS_PREFIX}{name}"))
                .and_then(|a| a.konst.clone())
            {
                Some(from) if from != name => name = from,
                _ => break,
            }
        }
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
        // `try: import x` / `except ImportError: x = None`: the fallback knows nothing, so the
        // import is what the name stands for.
        let imported = |v: &Val, module: &Module| {
            v.is_empty() && module.imports.iter().any(|i| i.local == name)
        };
        if let Some(v) = vars.get(name)
            && !imported(v, self.module())
        {
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
            if let Some(v) = g.get(name)
                && !imported(v, self.module())
            {
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
        // An unbound receiver name (`self` in a class body) is no API.
        if module.conventions.is_receiver(name) {
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
            ExprKind::Str(s) | ExprKind::Bytes(s) => {
                let mut v = Val::konst(s.clone());
                self.label_text(&mut v, s, e);
                v
            }
            ExprKind::Number(n) => Val::konst(n.clone()),
            ExprKind::Bool(b) => Val::konst(if *b { "true" } else { "false" }),
            ExprKind::Null => Val::default(),
            ExprKind::FormatStr(parts) => {
                let mut out = Val::default();
                let mut any_lit = false;
                // Literal parts as constants, expression parts as their values.
                let mut vals: Vec<Val> = Vec::with_capacity(parts.len());
                for p in parts {
                    match p {
                        StrPart::Lit(s) => {
                            any_lit = true;
                            self.label_text(&mut out, s, e);
                            vals.push(Val::konst(s.clone()));
                        }
                        StrPart::Expr(x) => {
                            let mut v = self.eval(vars, x);
                            // The text right after the first part: an earlier part, or
                            // this one (`{base}{path}` with `path = f"/users/{u}"`).
                            let next_text = vals
                                .get(1)
                                .map_or(v.konst.as_deref(), |n| n.konst.as_deref());
                            let anchored = vals.first().is_some_and(|first| {
                                host_pinned(first)
                                    || (matches!(parts.first(), Some(StrPart::Expr(_)))
                                        && anchors_destination(first, next_text))
                            });
                            if anchored {
                                v = after_pinned_host(&v);
                            }
                            out.absorb_taint(&v);
                            vals.push(v);
                        }
                    }
                }
                let refs: Vec<Option<&Val>> = vals.iter().map(Some).collect();
                set_const_over(&mut out, &refs, |c| {
                    let text: String = c
                        .iter()
                        .map(|k| k.clone().unwrap_or_else(|| UNKNOWN.to_string()))
                        .collect();
                    // Kept when any part is known: `{BASE}{endpoint}` with a fixed base URL
                    // still names its host when the endpoint is unknown. Only an all-unknown
                    // text (`{x}`) is no constant.
                    (any_lit || text.chars().any(|ch| ch != UNKNOWN))
                        .then(|| Val::konst(text).konst)?
                });
                out
            }
            ExprKind::Attribute { value, attr } => {
                let base = self.eval(vars, value);
                let models = self.models();
                let keyed = base.refs.iter().any(|r| {
                    matches!(r, Ref::Api(q) if models.subscript_sources.get(q).is_some_and(|s| s.attribute_keys))
                });
                if keyed {
                    // `env.TOKEN` on a mapping whose attributes are its keys: `env["TOKEN"]`.
                    let idx = Val {
                        konst: Some(attr.clone()),
                        ..Val::default()
                    };
                    return self.index(&base, &idx, e);
                }
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

    /// A string literal of a kind `[[text]]` models name (a lure, an instruction to the model,
    /// an escalation command) carries that kind's label from where it is written.
    fn label_text(&self, v: &mut Val, s: &str, e: &Expr) {
        let key = (s.as_ptr() as usize, s.len());
        let cached = self.an.prog.text_hits.borrow().get(&key).cloned();
        let hits = cached.unwrap_or_else(|| {
            let hits: Rc<[usize]> = self.models().text_rows_in(s).collect();
            self.an
                .prog
                .text_hits
                .borrow_mut()
                .insert(key, hits.clone());
            hits
        });
        for &i in hits.iter() {
            let Some(row) = self.models().texts.get(i) else {
                continue;
            };
            let excerpt: String = s.chars().take(60).collect();
            let more = if excerpt.len() < s.len() { "…" } else { "" };
            let hop = self.hop(
                &e.span,
                format!("constant text, {}: \"{excerpt}{more}\"", row.what),
            );
            v.taint
                .entry(row.label.clone())
                .or_insert_with(|| Taint::new(hop));
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
                    } else if !base.fields.contains_key(attr) {
                        // A class-level attribute (`conn = socket.socket()` in the class body),
                        // shared by every instance.
                        let cv = self.an.class_vars(mi, &c);
                        if let Some(v) = cv.get(attr) {
                            out.join_in(&v.clone());
                        }
                    }
                }
                Ref::Api(q) => {
                    // A method applied to its own result again (`s = s.replace(..)` in a loop,
                    // `.then().then()`) is the same API: the path must not grow with every
                    // iteration of a fixpoint.
                    let suffix = format!(".{attr}");
                    if q.ends_with(&suffix) {
                        out.refs.insert(Ref::Api(q));
                    } else {
                        out.refs.insert(Ref::Api(format!("{q}{suffix}")));
                    }
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
                let secret = row
                    .sensitive_label
                    .as_ref()
                    .zip(key.as_deref().and_then(|k| models.secret_env(k)));
                let hop = self.hop(
                    &e.span,
                    match &secret {
                        Some((_, (what, _))) => format!(
                            "reads {} from the environment ({what})",
                            key.as_deref().unwrap_or("")
                        ),
                        None => format!("reads {q}[{}]", key.as_deref().unwrap_or("…")),
                    },
                );
                let mut v = match &secret {
                    Some((sl, (_, service))) => {
                        let mut t = Taint::new(hop);
                        t.service = service.clone();
                        let mut v = Val::default();
                        v.taint.insert((*sl).clone(), t);
                        v
                    }
                    None => {
                        // A configuration variable: the service it locates, or a scratch label.
                        let (svc, label) = key
                            .as_deref()
                            .and_then(|k| models.config_env(k))
                            .unwrap_or((None, None));
                        let mut t = Taint::new(hop);
                        t.service = svc;
                        let mut v = Val::default();
                        v.taint.insert(label.unwrap_or(&row.label).to_string(), t);
                        v
                    }
                };
                // What the code stored under this very name (`os.environ["K"] = data`); a store
                // under a name it cannot know (a dotenv loader's loop) is configuration read
                // back by its name, judged by the source row above.
                if let Some(stored) = key.as_deref().and_then(|k| base.fields.get(k)) {
                    v.absorb_taint(stored);
                }
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
        // `client[name]`: an API object whose items have a modelled type (`[[type]]` row for
        // `<type>[]`), e.g. a database of a MongoDB client.
        for r in &base.refs {
            if let Ref::Api(q) = r
                && let Some(t) = models.types.get(&format!("{q}[]"))
            {
                out.refs.insert(Ref::Api(t.clone()));
            }
        }
        out
    }

    fn binary(&mut self, op: &str, l: &Val, r: &Val) -> Val {
        match op {
            "and" | "or" => l.join(r),
            "+" => {
                let mut out = Val::default();
                out.absorb_taint(l);
                // One of several paths (a route table's), each starting with `/`.
                let next = r.konst.clone().or_else(|| {
                    (!r.alts.is_empty() && r.alts.iter().all(|a| path_next(a)))
                        .then(|| "/".to_string())
                });
                if anchors_destination(l, next.as_deref()) {
                    out.absorb_taint(&after_pinned_host(r));
                } else {
                    out.absorb_taint(r);
                }
                set_const_over(&mut out, &[Some(l), Some(r)], |c| {
                    concat(c[0].as_deref(), c[1].as_deref())
                });
                out
            }
            _ if self.models().path_operators.contains_key(op) => {
                let mut out = Val::default();
                out.absorb_taint(l);
                out.absorb_taint(r);
                let prefixes = self.models().path_operators.get(op);
                let is_path = l.refs.iter().any(|x| {
                    matches!(x, Ref::Api(q)
                        if prefixes.is_some_and(|ps| ps.iter().any(|p| q.starts_with(p.as_str()))))
                });
                if is_path {
                    set_const_over(&mut out, &[Some(l), Some(r)], join_path);
                    out.refs = l.refs.clone();
                }
                out
            }
            _ if self.models().format_operators.get(op) == Some(&FormatStyle::Printf) => {
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
            "*" | "-" | "%" | "/" => {
                let mut out = Val::default();
                out.absorb_taint(l);
                out.absorb_taint(r);
                out
            }
            "|" => {
                // Mappings merged (`headers | {...}`): the left's keys, then the right's over
                // them, each with its taint.
                if !l.fields.is_empty() || !r.fields.is_empty() {
                    let mut out = Val::default();
                    for (l2, t) in l.taint.iter().chain(r.taint.iter()) {
                        let mut one = Val::default();
                        one.taint.insert(l2.clone(), t.clone());
                        out.absorb_taint(&one);
                    }
                    for (k, v) in l.fields.iter().chain(r.fields.iter()) {
                        out.set_field(k, v.clone());
                    }
                    return out;
                }
                // Flags (`mode | stat.S_ISUID`) read as the names or numbers they combine.
                let mut out = Val::default();
                out.absorb_taint(l);
                out.absorb_taint(r);
                let text = |v: &Val| v.konst.clone().or_else(|| self.const_text(v));
                let (a, b) = (text(l), text(r));
                if l.fields.is_empty() && r.fields.is_empty() && (a.is_some() || b.is_some()) {
                    out.konst = Some(format!(
                        "{} | {}",
                        a.unwrap_or_else(|| UNKNOWN.to_string()),
                        b.unwrap_or_else(|| UNKNOWN.to_string())
                    ));
                }
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
        if let Some(v) = self.dynamic_lookup(&fval, &argv) {
            return v;
        }
        if let Some(bound) = fval.fields.get(PARTIAL) {
            // A partial application: its bound arguments first, keywords overridable.
            let mut full: Vec<(Option<String>, Val, bool)> = Vec::new();
            let mut i = 0;
            while let Some(v) = bound.fields.get(&i.to_string()) {
                full.push((None, v.clone(), false));
                i += 1;
            }
            full.extend(argv.iter().cloned());
            for (k, v) in &bound.fields {
                if let Some(kw) = k.strip_prefix("kw:")
                    && !argv.iter().any(|(n, _, _)| n.as_deref() == Some(kw))
                {
                    full.push((Some(kw.to_string()), v.clone(), false));
                }
            }
            argv = full;
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
        if self.f == Module::TOP_LEVEL && fval.refs.iter().any(|r| self.defaults_a_global(r)) {
            self.an.partial_globals.insert(self.m, vars.clone());
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
                    if let Some(fi) = self.an.prog.modules[*mi].constructor_of(c) {
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
        let scanned = fval
            .refs
            .iter()
            .any(|r| matches!(r, Ref::Func(..) | Ref::Bound(..) | Ref::Class(..)));
        // `patterns.append(p)`: a list of known constants keeps each one as an element; an
        // element it cannot know makes the list's elements unknown.
        let collection_op = method.and_then(|m| self.models().collection_methods.get(m).copied());
        if let (
            Some(op @ (CollectionOp::Push | CollectionOp::Insert | CollectionOp::Extend)),
            ExprKind::Attribute { value, .. },
        ) = (collection_op, &callee.kind)
            && !scanned
            && let ExprKind::Name(list) = &value.kind
            && let Some(cur) = vars.get(list.as_str()).cloned()
            && cur.refs.is_empty()
            && cur.konst.is_none()
        {
            let added = match op {
                CollectionOp::Insert => positional(&argv, 1).cloned().unwrap_or_default(),
                CollectionOp::Extend => positional(&argv, 0)
                    .map(Val::any_element)
                    .unwrap_or_default(),
                _ => positional(&argv, 0).cloned().unwrap_or_default(),
            };
            // Bounded, and once an element is unknown nothing more is tracked: loops that
            // append reach their fixpoint.
            let unknown = crate::value::UNKNOWN.to_string();
            if !cur.fields.contains_key(&unknown) && !cur.fields.values().any(|f| *f == added) {
                let mut next = cur.clone();
                if added.candidates().is_some() && next.fields.len() < crate::value::MAX_ALTS {
                    let key = next.fields.len().to_string();
                    next.set_field(&key, added);
                } else {
                    next.set_field(&unknown, Val::default());
                }
                vars.insert(list.clone(), next);
            }
        }
        if let (Some(m), ExprKind::Attribute { value, .. }) = (method, &callee.kind)
            && !scanned
            && self.models().mutators.iter().any(|x| x == m)
        {
            let mut put = Val::default();
            for (_, v, _) in &argv {
                put.absorb_taint(v);
            }
            if put.is_tainted() {
                put.push_hop(&self.hop(&e.span, format!("stored by .{m}()")));
                self.record_caller_data(recv.as_ref(), &put, m, &site);
                self.taint_place(vars, value, &put);
            }
        }
        if !handled
            && let (Some(r), Some(m)) = (&recv, method)
            && let Some((kind, object_args)) = self.models().method_sinks.get(m)
            && (!object_args || argv.iter().any(|(_, v, spread)| *spread || is_object(v)))
            && r.is_tainted()
            // One of a few fixed templates picked by the caller (`FORMATS[kind].format(...)`)
            // is not the caller's text.
            && r.konst.as_ref().map_or(
                r.alts.is_empty() || r.alts.iter().any(|a| a.contains(UNKNOWN)),
                |k| k.contains(UNKNOWN),
            )
        {
            // A method that is a sink on any receiver (`fmt.format(obj)`): the receiver is
            // what is acted on.
            let detail = self.describe(r);
            let sink = Hop {
                loc: site.clone(),
                note: format!("{kind} .{m}({})", detail.as_deref().unwrap_or("")),
            };
            let taints = r
                .all_taint()
                .into_iter()
                .map(|(l, mut t)| {
                    t.path.push(sink.clone());
                    (l, t, true)
                })
                .collect();
            self.record(Event {
                kind: kind.clone(),
                api: format!(".{m}"),
                detail,
                loc: site.clone(),
                via: Vec::new(),
                taints,
            });
        }
        if !handled {
            // Unknown callee (a method of a value we know nothing about, e.g. str methods):
            // the result carries the receiver's and the arguments' taint.
            if let Some(r) = &recv {
                out.absorb_taint(r);
                let row = method.and_then(|m| self.models().string_method(m));
                out.konst = row.and_then(|row| str_method(&row.fold, r, &argv));
                if let Some(row) = row
                    && r.konst.is_none()
                    && !r.alts.is_empty()
                {
                    // One of several constants: the method folded over each.
                    let each: Option<BTreeSet<String>> = r
                        .alts
                        .iter()
                        .map(|a| str_method(&row.fold, &Val::konst(a.clone()), &argv))
                        .collect();
                    out.alts = each.unwrap_or_default();
                }
                let op = method.and_then(|m| self.models().collection_methods.get(m).copied());
                if let Some(view) = op.and_then(|op| mapping_view(op, r)) {
                    out = view;
                }
                if let Some(entry) = op.and_then(|op| keyed_lookup(op, r, &argv)) {
                    out = entry;
                }
            }
            for (_, v, _) in &argv {
                out.absorb_taint(v);
            }
        }
        // `name.replace("/", "_")` (a `cuts_separator` row): what is left has no separator,
        // so it names one entry of the directory it is joined to and cannot climb out of it.
        let cut = method
            .and_then(|m| self.models().string_method(m))
            .and_then(|row| row.cuts_separator);
        if let Some(i) = cut
            && positional(&argv, i)
                .and_then(|v| v.konst.as_deref())
                .is_some_and(|k| k == "/" || k == "\\")
        {
            out.sanitize(&FILE_KINDS.iter().map(|k| k.to_string()).collect::<Vec<_>>());
        }
        out
    }

    /// A value that is a module bound by `import m` (a scanned module, or an external one the
    /// current module imports whole).
    fn is_imported_module(&self, v: &Val) -> bool {
        !v.refs.is_empty()
            && v.refs.iter().all(|r| match r {
                Ref::Module(_) => true,
                Ref::Api(q) => self
                    .module()
                    .imports
                    .iter()
                    .any(|i| i.symbol.is_none() && (&i.module == q || &i.local == q)),
                _ => false,
            })
    }

    /// Whether `r` is a function (or a class's constructor) of this module with a parameter
    /// whose default names a variable.
    fn defaults_a_global(&self, r: &Ref) -> bool {
        let module = &self.an.prog.modules[self.m];
        let f = match r {
            Ref::Func(mi, fi) | Ref::Bound(mi, fi) if *mi == self.m => Some(*fi),
            Ref::Class(mi, c) if *mi == self.m => module.constructor_of(c),
            _ => None,
        };
        f.and_then(|f| module.functions.get(f)).is_some_and(|func| {
            func.params.iter().any(|p| {
                p.default
                    .as_ref()
                    .is_some_and(|d| matches!(d.kind, ExprKind::Name(_)))
            })
        })
    }

    /// A `[[dynamic_call]]` row's call (`getattr(obj, <constant>)`, `__import__(<constant>)`,
    /// `functools.partial(f, ...)`): what the call names, when the names are constants (or one
    /// of a few constants).
    fn dynamic_lookup(&mut self, fval: &Val, argv: &[(Option<String>, Val, bool)]) -> Option<Val> {
        let models = self.models();
        let op = fval.refs.iter().find_map(|r| match r {
            Ref::Api(q) => models.dynamic_calls.get(q).copied(),
            _ => None,
        })?;
        if op == DynamicCall::Attribute {
            let base = positional(argv, 0)?.clone();
            let names = positional(argv, 1)?.candidates()?;
            let mut out = Val::default();
            for n in names {
                let v = self.attr(&base, &n);
                out.join_in(&v);
            }
            if let Some(d) = positional(argv, 2) {
                out.join_in(d);
            }
            return Some(out);
        }
        if op == DynamicCall::Import {
            let names = positional(argv, 0)?.candidates()?;
            let mut out = Val::default();
            for n in names {
                out.refs.insert(match self.an.prog.module_named(&n) {
                    Some(mi) => Ref::Module(mi),
                    None => Ref::Api(n),
                });
            }
            return Some(out);
        }
        if op == DynamicCall::Partial {
            let f = positional(argv, 0)?;
            let mut out = Val {
                refs: f.refs.clone(),
                ..Val::default()
            };
            let mut bound = Val::default();
            for (i, v) in argv
                .iter()
                .filter(|(n, _, spread)| n.is_none() && !spread)
                .skip(1)
                .enumerate()
            {
                bound.set_field(&i.to_string(), v.1.clone());
            }
            for (n, v, _) in argv {
                if let Some(n) = n {
                    bound.set_field(&format!("kw:{n}"), v.clone());
                }
            }
            out.fields.insert(PARTIAL.to_string(), bound);
            return Some(out);
        }
        None
    }

    /// Adds the taint of `put` to the place `target` names (a variable, or one attribute of
    /// a variable): what a mutating method stored into it.
    fn taint_place(&mut self, vars: &mut Vars, target: &Expr, put: &Val) {
        // Only labels the place does not carry yet: re-storing known taint would only churn
        // its paths and slow the fixpoint.
        let fresh = |cur: &Val| {
            let have = cur.all_taint();
            let mut v = Val::default();
            for (l, t) in put.all_taint() {
                if !have.contains_key(&l) {
                    v.taint.insert(l, t);
                }
            }
            v
        };
        match &target.kind {
            ExprKind::Name(n) => {
                let mut cur = self.lookup(vars, n);
                let new = fresh(&cur);
                if new.taint.is_empty() {
                    return;
                }
                cur.absorb_taint(&new);
                vars.insert(n.clone(), cur);
            }
            ExprKind::Attribute { value, attr } if matches!(value.kind, ExprKind::Name(_)) => {
                let base = self.eval(vars, value);
                let mut cur = self.attr(&base, attr);
                let new = fresh(&cur);
                if new.taint.is_empty() {
                    return;
                }
                cur.absorb_taint(&new);
                self.store_field(vars, value, Some(attr), cur);
            }
            _ => {}
        }
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

    /// Modelled constant text (`text:*`) stored into an object built from the caller's input
    /// (`steps.copy().insert(0, {...})`): the tool changes what the caller handed it.
    fn record_caller_data(&mut self, recv: Option<&Val>, put: &Val, method: &str, site: &Loc) {
        let from_caller =
            recv.is_some_and(|r| r.all_taint().keys().any(|l| l.starts_with("param:")));
        if !from_caller {
            return;
        }
        let sink = Hop {
            loc: site.clone(),
            note: format!("caller-data .{method}()"),
        };
        let taints: Vec<(String, Taint, bool)> = put
            .taint
            .iter()
            .filter(|(l, _)| l.starts_with(TEXT_LABEL_PREFIX))
            .map(|(l, t)| {
                let mut t = t.clone();
                t.path.push(sink.clone());
                (l.clone(), t, true)
            })
            .collect();
        if taints.is_empty() {
            return;
        }
        self.record(Event {
            kind: CALLER_DATA.to_string(),
            api: format!(".{method}"),
            detail: None,
            loc: site.clone(),
            via: Vec::new(),
            taints,
        });
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
        let mut service_client = false;
        let mut stored_entry: Option<Val> = None;
        if let Some(r) = recv {
            // A client object built with a credential (`Client(api_key)`) returns the
            // service's answers, not the credential; string methods on the credential itself
            // still carry it.
            let method = q.rsplit('.').next().unwrap_or(q);
            let keeps_credential = models.string_method(method).is_some();
            // `os.getcwd()`: a function of a module, not a method of the data stored in the
            // module's attributes (`os.environ[k] = v`).
            let keyed_source = r
                .refs
                .iter()
                .any(|x| matches!(x, Ref::Api(m) if models.subscript_sources.contains_key(m)));
            let taint = if keyed_source {
                // `os.environ.get("K")`: the entry stored under that name, as for a subscript
                // (added after the source below).
                stored_entry = argv
                    .iter()
                    .find(|(n, _, spread)| n.is_none() && !spread)
                    .and_then(|(_, k, _)| k.konst.as_deref())
                    .and_then(|k| r.fields.get(k))
                    .cloned();
                BTreeMap::new()
            } else if self.is_imported_module(r) {
                r.taint.clone()
            } else {
                r.all_taint()
            };
            for (l, t) in taint {
                if l.starts_with("secret:") && t.service.is_some() && !keeps_credential {
                    service_client = true;
                    continue;
                }
                crate::value::merge_taint(&mut out.taint, &l, &t);
            }
        }
        for (_, v, _) in argv {
            if service_client && !models.propagators.contains_key(q) {
                // A question put to that service: the addresses in its answer (an image
                // link) are the service's, not a destination the caller chose.
                let mut v = v.clone();
                v.sanitize_labels(
                    "param:",
                    &NETWORK_KINDS
                        .iter()
                        .map(|k| k.to_string())
                        .collect::<Vec<_>>(),
                );
                out.absorb_taint(&v);
            } else {
                out.absorb_taint(v);
            }
        }
        if let Some(kinds) = models.sanitizers.get(q) {
            out.sanitize(kinds);
        }
        if let Some(rows) = models.pattern_sanitizers.get(q) {
            let konst = |i: usize| positional(argv, i).and_then(|v| v.konst.as_deref());
            for r in rows {
                let pattern_ok = konst(0).is_some_and(|p| r.pattern.is_match(p));
                let replacement_ok = r
                    .replacement
                    .as_ref()
                    .is_none_or(|re| konst(1).is_some_and(|t| re.is_match(t)));
                if pattern_ok && replacement_ok {
                    out.sanitize(&r.kinds);
                }
            }
        }
        let pos: Vec<Option<&Val>> = argv
            .iter()
            .filter(|(n, _, spread)| n.is_none() && !spread)
            .map(|(_, v, _)| Some(v))
            .collect();
        match models.propagators.get(q) {
            Some(ConstOp::Arg0) => {
                set_const_over(&mut out, &[pos.first().copied().flatten()], |c| {
                    c[0].clone()
                })
            }
            Some(ConstOp::Receiver) => set_const_over(&mut out, &[recv], |c| c[0].clone()),
            Some(ConstOp::JoinPath) => set_const_over(&mut out, &pos, join_path),
            Some(ConstOp::JoinPathReceiver) => {
                let mut parts = vec![recv];
                parts.extend(pos.iter().copied());
                set_const_over(&mut out, &parts, join_path)
            }
            Some(ConstOp::Home) => out.konst = Some("~".to_string()),
            Some(ConstOp::FirstUrlOfArg1) => {
                out.konst = None;
                out.alts.clear();
                if let Some(origin) = pos
                    .get(1)
                    .copied()
                    .flatten()
                    .and_then(|t| t.konst.as_deref())
                    .and_then(fixed_origin)
                {
                    let mut first = Val::default();
                    first.absorb_taint(&out);
                    first.konst = Some(format!("{origin}{UNKNOWN}"));
                    out.fields.insert("0".to_string(), first);
                }
            }
            Some(ConstOp::WrapsArg0) => {
                out.konst = None;
                if let Some(f) = pos.first().copied().flatten() {
                    out.refs.extend(f.refs.iter().cloned());
                }
            }
            Some(ConstOp::None) | None => out.konst = None,
        }
        if let Some(sel) = models.base_urls.get(q)
            && let Some(base) = select(sel, recv, argv)
        {
            out.fields.insert(BASE_URL_FIELD.to_string(), base.clone());
        }
        if let Some(sel) = models.requests.get(q)
            && let Some(url) = select(sel, recv, argv)
        {
            let mut payload = Val::default();
            for (_, v, _) in argv {
                if !std::ptr::eq(v, url) {
                    payload.absorb_taint(v);
                }
            }
            out.taint = url.taint.clone();
            out.konst = url.konst.clone();
            out.alts = url.alts.clone();
            out.fields
                .insert(REQUEST_PAYLOAD_FIELD.to_string(), payload);
        }
        out.refs.insert(Ref::Api(
            models
                .types
                .get(q)
                .cloned()
                .unwrap_or_else(|| q.to_string()),
        ));
        // Sources replace the propagated taint: file contents are not their path.
        let mut sourced: Option<Val> = None;
        let mut keeps_input = false;
        if let Some(rows) = models.sources.get(q) {
            for row in rows {
                if !self.when_holds(row.when.as_ref(), recv, argv) {
                    continue;
                }
                let path_val = select(&row.path, recv, argv);
                let path = path_val.map(|v| self.path_text(v));
                let env_name = if row.path.is_none() {
                    select(&row.detail, recv, argv).and_then(|v| v.konst.clone())
                } else {
                    None
                };
                let secret_env = env_name.as_deref().and_then(|n| models.secret_env(n));
                let mut service = None;
                let (label, note) = match (&path, &row.sensitive_label) {
                    (Some(Some(p)), Some(sl)) if models.sensitive_path(p).is_some() => (
                        sl.clone(),
                        format!("reads {p} ({})", models.sensitive_path(p).unwrap_or("")),
                    ),
                    (Some(Some(p)), _) => {
                        // A service's own configuration file (a folder named for it, or a path
                        // its own configuration variable names): what it holds is that
                        // service's settings, and sending them to it is their use.
                        service = models.config_file_service(p).or_else(|| {
                            let svcs: BTreeSet<Option<String>> = path_val?
                                .all_taint()
                                .into_iter()
                                .filter(|(l, _)| !l.starts_with("param:"))
                                .map(|(_, t)| t.service)
                                .collect();
                            (svcs.len() == 1).then(|| svcs.into_iter().next().flatten())?
                        });
                        (row.label.clone(), format!("reads {p}"))
                    }
                    (None, Some(sl)) if secret_env.is_some() => {
                        let (what, svc) = secret_env.clone().unwrap_or_default();
                        service = svc;
                        (
                            sl.clone(),
                            format!(
                                "reads {} from the environment ({what})",
                                env_name.as_deref().unwrap_or("")
                            ),
                        )
                    }
                    (None, Some(_)) if env_name.is_some() => {
                        let name = env_name.as_deref().unwrap_or("");
                        let (svc, label) = models.config_env(name).unwrap_or((None, None));
                        // A name that names no service (`BASE_URL`) locates the host of its
                        // default URL, the one used unless the user says otherwise.
                        service = svc.or_else(|| {
                            let d = select(&row.default, recv, argv)?.konst.as_deref()?;
                            d.contains("://").then(|| detail_host(d)).flatten()
                        });
                        (
                            label.map_or_else(|| row.label.clone(), str::to_string),
                            format!("reads {name} from the environment"),
                        )
                    }
                    _ => (row.label.clone(), format!("{} from {q}()", row.label)),
                };
                keeps_input |= row.keeps_input;
                let v = sourced.get_or_insert_with(Val::default);
                v.taint.entry(label).or_insert_with(|| {
                    let mut t = Taint::new(Hop {
                        loc: site.clone(),
                        note,
                    });
                    t.service = service;
                    t
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
            if keeps_input {
                for (l, t) in &s.taint {
                    crate::value::merge_taint(&mut out.taint, l, t);
                }
            } else {
                out.taint = s.taint;
                out.fields.clear();
            }
        }
        if let Some(stored) = &stored_entry {
            out.absorb_taint(stored);
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
            if matched
                .iter()
                .any(|r| NETWORK_KINDS.contains(&r.kind.as_str()))
            {
                self.record_payload_fields(q, recv, argv, &site);
            }
            for row in matched {
                if superseded.contains(&row.kind.as_str()) {
                    continue;
                }
                let target = select(&row.target, recv, argv);
                // A relative path on a client built on a base URL goes to the base's host.
                let based = target.and_then(|t| {
                    let base = recv?.fields.get(BASE_URL_FIELD)?;
                    let relative = |k: &str| !k.contains("://") && !k.starts_with(UNKNOWN);
                    // One of several paths (a route table's): relative only if each is.
                    let ok = match t.konst.as_deref() {
                        Some(k) => relative(k),
                        None => !t.alts.is_empty() && t.alts.iter().all(|a| relative(a)),
                    };
                    ok.then(|| self.binary("+", base, t))
                });
                let arg_target = target;
                let target = based.as_ref().or(target);
                // One of several constants (`http`/`https` picked from configuration): the
                // host they agree on, none when none fixes it, and no match when they differ.
                let dest_host = match target {
                    Some(t) if t.konst.is_none() && !t.alts.is_empty() => {
                        let hosts: BTreeSet<Option<String>> =
                            t.alts.iter().map(|a| detail_host(a)).collect();
                        match hosts.len() {
                            1 => hosts.into_iter().next().flatten(),
                            _ => Some(String::from(UNKNOWN)),
                        }
                    }
                    _ => target
                        .and_then(|v| self.describe(v))
                        .and_then(|d| detail_host(&d)),
                };
                let mut taints: Vec<(String, Taint, bool)> = Vec::new();
                if let Some(t) = target {
                    let reaching = match &row.code_keys {
                        Some(code) => structural_taint(t, code),
                        None => destination_taint(t),
                    };
                    for (l, tt) in reaching {
                        taints.push((l, tt, true));
                    }
                }
                if row.all_args || row.target.is_none() {
                    let mut others = Val::default();
                    for (i, (_, v, _)) in argv.iter().enumerate() {
                        let is_target = arg_target.is_some_and(|t| std::ptr::eq(t, &argv[i].1));
                        if !is_target {
                            others.absorb_taint(v);
                        }
                    }
                    if let Some(p) = target.and_then(|t| t.fields.get(REQUEST_PAYLOAD_FIELD)) {
                        others.absorb_taint(p);
                    }
                    for (l, tt) in others.all_taint() {
                        if !taints.iter().any(|(x, _, _)| x == &l) {
                            taints.push((l, tt, row.target.is_none()));
                        }
                    }
                }
                // A credential sent to the service it belongs to (`GITHUB_TOKEN` to
                // api.github.com) is its use, not a leak.
                // So is one sent to the host that service's configuration names
                // (`OBSIDIAN_API_KEY` to `OBSIDIAN_HOST`).
                if NETWORK_KINDS.contains(&row.kind.as_str()) {
                    let configured: BTreeSet<String> = target
                        .map(|t| {
                            t.all_taint()
                                .into_iter()
                                .filter(|(l, _)| !l.starts_with("secret:"))
                                .filter_map(|(_, t)| t.service)
                                .collect()
                        })
                        .unwrap_or_default();
                    taints.retain(|(l, t, _)| {
                        !(l.starts_with("secret:") || l.starts_with("file:"))
                            || !t.service.as_ref().is_some_and(|s| {
                                dest_host.as_ref().is_some_and(|h| h.contains(s.as_str()))
                                    || (dest_host.is_none()
                                        && configured.iter().any(|c| {
                                            c == s || (c.contains('.') && c.contains(s.as_str()))
                                        }))
                            })
                    });
                }
                // A target that is one of several constants (a loop over a constant tuple) is
                // one event per constant.
                let target_texts: Vec<Option<String>> = match target {
                    Some(t) if t.konst.is_none() && !t.alts.is_empty() => {
                        t.alts.iter().cloned().map(Some).collect()
                    }
                    _ => vec![target.and_then(|v| self.describe(v))],
                };
                let detail_is_target = row.detail == row.target;
                for target_text in target_texts {
                    let detail_text = if detail_is_target {
                        target_text.clone()
                    } else {
                        select(&row.detail, recv, argv).and_then(|v| self.describe(v))
                    };
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
                    let mut taints = taints.clone();
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
        }
        if let Some(cbrow) = models.callbacks.get(q)
            && let Some(cb) = select(&cbrow.target, recv, argv)
        {
            // The arguments the API passes on to the function it calls later.
            let mut pass: Vec<(Option<String>, Val, bool)> = Vec::new();
            if let Some(from) = cbrow.rest_from {
                pass.extend(
                    argv.iter()
                        .filter(|(n, _, spread)| n.is_none() && !spread)
                        .skip(from)
                        .cloned(),
                );
            }
            if !cbrow.args.is_none()
                && let Some(t) = select(&cbrow.args, recv, argv)
            {
                if t.fields.contains_key("0") {
                    let mut i = 0;
                    while let Some(f) = t.fields.get(&i.to_string()) {
                        pass.push((None, f.clone(), false));
                        i += 1;
                    }
                } else if t.is_tainted() {
                    pass.push((None, t.any_element(), false));
                }
            }
            if !cbrow.kwargs.is_none()
                && let Some(kw) = select(&cbrow.kwargs, recv, argv)
            {
                for (k, f) in &kw.fields {
                    pass.push((Some(k.clone()), f.clone(), false));
                }
            }
            for r in cb.refs.clone() {
                match r {
                    Ref::Func(mi, fi) => {
                        let o = self.an.call_fn(mi, fi, None, &pass, &site, q);
                        self.absorb_outcome(&o, &site);
                    }
                    Ref::Bound(mi, fi) => {
                        // The receiver the method was bound to is not known here.
                        let o = self
                            .an
                            .call_fn(mi, fi, Some(Val::default()), &pass, &site, q);
                        self.absorb_outcome(&o, &site);
                    }
                    // An API handed over (`submit(os.system, cmd)`) is called with the
                    // arguments passed on.
                    Ref::Api(api) if api != q => {
                        let _ = self.call_api(&api, None, &pass, e);
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// Fields of what a network call sends whose names a `payload_field` model matches and
    /// whose values hold a constant (a fixed `Bcc` address): one event each.
    fn record_payload_fields(
        &mut self,
        q: &str,
        recv: Option<&Val>,
        argv: &[(Option<String>, Val, bool)],
        site: &Loc,
    ) {
        let models = self.models();
        if models.payload_fields.is_empty() {
            return;
        }
        let mut found: BTreeSet<(String, String, String)> = BTreeSet::new();
        let mut todo: Vec<(&Val, usize)> = argv.iter().map(|(_, v, _)| (v, 0)).collect();
        if let Some(r) = recv {
            todo.push((r, 0));
        }
        while let Some((v, depth)) = todo.pop() {
            for (k, f) in &v.fields {
                if depth < 4 {
                    todo.push((f, depth + 1));
                }
                let Some(pf) = models.payload_fields.iter().find(|p| p.key.is_match(k)) else {
                    continue;
                };
                let mut consts = BTreeSet::new();
                collect_consts(f, 0, &mut consts);
                for c in consts {
                    found.insert((pf.kind.clone(), k.clone(), c));
                }
            }
        }
        for (kind, key, c) in found {
            self.record(Event {
                kind,
                api: q.to_string(),
                detail: Some(format!("{key} {c}")),
                loc: site.clone(),
                via: Vec::new(),
                taints: Vec::new(),
            });
        }
    }

    /// The path a value names: its constant, or the first of its alternatives that is a
    /// sensitive path (else the first alternative).
    fn path_text(&self, v: &Val) -> Option<String> {
        if v.konst.is_none() && !v.alts.is_empty() {
            let models = self.models();
            return v
                .alts
                .iter()
                .find(|a| models.sensitive_path(a).is_some())
                .or_else(|| v.alts.iter().next())
                .cloned();
        }
        self.const_text(v)
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
        let labels: Vec<String> = destination_taint(v).keys().cloned().collect();
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
        let selected = select(&w.arg, recv, argv);
        let selected = match &w.field {
            Some(f) => selected.and_then(|v| v.fields.get(f)),
            None => selected,
        };
        let text = match selected {
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

/// The taint that shapes a structured query rather than filling a slot of it: the value's own
/// taint (its structure came from the caller: parsed JSON, a merged dict) and everything under
/// a key matching `code`; a value in a slot under another constant key is bound data.
fn structural_taint(v: &Val, code: &regex::Regex) -> BTreeMap<String, Taint> {
    let mut out = v.taint.clone();
    code_slot_taint(v, code, &mut out);
    out
}

fn code_slot_taint(v: &Val, code: &regex::Regex, out: &mut BTreeMap<String, Taint>) {
    for (k, f) in &v.fields {
        if code.is_match(k) {
            for (l, t) in f.all_taint() {
                crate::value::merge_taint(out, &l, &t);
            }
        } else {
            code_slot_taint(f, code, out);
        }
    }
}

/// A value with attributes worth reaching through a format field (`{0.__init__.__globals__}`):
/// an instance, class or module of scanned code, or a mapping or sequence of values; not a
/// string or a number (nor a method reference, which is how a property read looks here).
fn is_object(v: &Val) -> bool {
    !v.fields.is_empty()
        || v.refs
            .iter()
            .any(|r| matches!(r, Ref::Instance(..) | Ref::Class(..) | Ref::Module(..)))
}

fn positional(argv: &[(Option<String>, Val, bool)], i: usize) -> Option<&Val> {
    argv.iter()
        .filter(|(n, _, spread)| n.is_none() && !spread)
        .nth(i)
        .map(|(_, v, _)| v)
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

/// The whole constants a value or its elements hold (a fixed address in a recipient list).
fn collect_consts(v: &Val, depth: usize, out: &mut BTreeSet<String>) {
    if let Some(c) = v.candidates() {
        out.extend(c.into_iter().filter(|c| !c.contains(UNKNOWN)));
    }
    if depth < 2 {
        for f in v.fields.values() {
            collect_consts(f, depth + 1, out);
        }
    }
}

/// `d.items()`, `d.values()`, `d.keys()` of a mapping whose fields are known: a list of
/// `(key, value)` pairs, of the values, of the keys, so that a loop over it sees each of them.
/// `arguments.get("path", default)` on a mapping whose entries are known: that entry (with
/// what was stored under unknown keys) or the default, not every entry of the mapping (a
/// dispatcher's argument mapping holds every parameter of the tool).
fn keyed_lookup(op: CollectionOp, recv: &Val, argv: &[(Option<String>, Val, bool)]) -> Option<Val> {
    if recv.fields.is_empty() || !recv.refs.is_empty() || op != CollectionOp::Lookup {
        return None;
    }
    let key = positional(argv, 0)?;
    let mut out = match key.konst.as_deref() {
        Some(k) if !k.contains(UNKNOWN) => recv.field(k),
        // A key the analysis cannot fold (`ROUTES.get(name)`): one of the mapping's values,
        // as `ROUTES[name]` reads it; the key only chooses among them.
        _ => {
            let mut v = recv.any_element();
            v.absorb_taint(key);
            v
        }
    };
    if let Some(default) = positional(argv, 1) {
        out.join_in(default);
    }
    Some(out)
}

fn mapping_view(op: CollectionOp, recv: &Val) -> Option<Val> {
    if recv.fields.is_empty()
        || !matches!(
            op,
            CollectionOp::Entries | CollectionOp::Values | CollectionOp::Keys
        )
    {
        return None;
    }
    let mut out = Val::default();
    out.absorb_taint(recv);
    for (i, (k, v)) in recv.fields.iter().enumerate() {
        let el = match op {
            CollectionOp::Entries => {
                let mut pair = Val::default();
                pair.set_field("0", Val::konst(k.clone()));
                pair.set_field("1", v.clone());
                pair
            }
            CollectionOp::Values => v.clone(),
            _ => Val::konst(k.clone()),
        };
        out.set_field(&i.to_string(), el);
    }
    Some(out)
}

/// Constants through a string method, as its model row folds them.
fn str_method(fold: &StrFold, recv: &Val, argv: &[(Option<String>, Val, bool)]) -> Option<String> {
    let arg = |i: i64| -> Option<&Val> {
        if i < 0 {
            Some(recv)
        } else {
            positional(argv, usize::try_from(i).ok()?)
        }
    };
    match fold {
        StrFold::Opaque => None,
        StrFold::Same => recv.konst.clone(),
        StrFold::Lower => recv.konst.as_deref().map(str::to_lowercase),
        StrFold::Upper => recv.konst.as_deref().map(str::to_uppercase),
        StrFold::Format => {
            let base = recv.konst.as_deref()?;
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
        StrFold::Replace => {
            let text = recv.konst.as_deref()?;
            let old = positional(argv, 0)?.konst.as_deref()?;
            let new = positional(argv, 1).and_then(|v| v.konst.as_deref());
            let exact = !text.contains(UNKNOWN) && !old.contains(UNKNOWN) && !old.is_empty();
            if exact
                && positional(argv, 2).is_none()
                && let Some(new) = new.filter(|n| !n.contains(UNKNOWN))
            {
                return Some(text.replace(old, new));
            }
            // Only `old`'s first character is known: a match starts at one of its occurrences
            // (or inside an unknown part), so the text before the first of those is kept.
            let first = old.chars().next().filter(|c| *c != UNKNOWN)?;
            match text.find([first, UNKNOWN]) {
                None => Some(text.to_string()),
                Some(0) => None,
                Some(i) => Some(format!("{}{UNKNOWN}", &text[..i])),
            }
        }
        StrFold::Join {
            separator,
            items,
            default_separator,
        } => {
            let sep = match arg(*separator) {
                Some(v) => v.konst.clone()?,
                None => default_separator.clone()?,
            };
            let list = arg(*items)?;
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
                Some(parts.join(&sep))
            }
        }
    }
}

/// Nesting of statements a helper summary looks into.
const MAX_HELPER_DEPTH: usize = 16;

/// The simple assignments (`name = value`) and the tested expressions (conditions, returned
/// and asserted values) of a function body.
/// Tests of `if` statements whose body raises (`if not ok(p): raise E`), at any depth.
fn collect_raising_tests<'e>(
    stmts: &'e [mcp_scan_ir::Stmt],
    tests: &mut Vec<&'e Expr>,
    depth: usize,
) {
    if depth >= MAX_HELPER_DEPTH {
        return;
    }
    for st in stmts {
        match &st.kind {
            StmtKind::If { test, then, orelse } => {
                if then.iter().any(|t| matches!(t.kind, StmtKind::Raise(_))) {
                    tests.push(test);
                }
                collect_raising_tests(then, tests, depth + 1);
                collect_raising_tests(orelse, tests, depth + 1);
            }
            StmtKind::For { body, orelse, .. } | StmtKind::While { body, orelse, .. } => {
                collect_raising_tests(body, tests, depth + 1);
                collect_raising_tests(orelse, tests, depth + 1);
            }
            StmtKind::Try {
                body,
                orelse,
                finally,
                ..
            } => {
                collect_raising_tests(body, tests, depth + 1);
                collect_raising_tests(orelse, tests, depth + 1);
                collect_raising_tests(finally, tests, depth + 1);
            }
            StmtKind::With { body, .. }
            | StmtKind::Labeled { body, .. }
            | StmtKind::Defer(body) => collect_raising_tests(body, tests, depth + 1),
            StmtKind::Switch { arms, .. } => {
                for a in arms {
                    collect_raising_tests(&a.body, tests, depth + 1);
                }
            }
            _ => {}
        }
    }
}

fn collect_helper_parts<'e>(
    stmts: &'e [mcp_scan_ir::Stmt],
    assigns: &mut Vec<(String, &'e Expr)>,
    tests: &mut Vec<&'e Expr>,
    depth: usize,
) {
    if depth >= MAX_HELPER_DEPTH {
        return;
    }
    for st in stmts {
        match &st.kind {
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    if let ExprKind::Name(n) = &t.kind {
                        assigns.push((n.clone(), value));
                    }
                }
            }
            StmtKind::Return(Some(e)) | StmtKind::Expr(e) => tests.push(e),
            StmtKind::If { test, then, orelse }
            | StmtKind::While {
                test,
                body: then,
                orelse,
            } => {
                tests.push(test);
                collect_helper_parts(then, assigns, tests, depth + 1);
                collect_helper_parts(orelse, assigns, tests, depth + 1);
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                ..
            } => {
                // `for info in socket.getaddrinfo(host, port)`: the loop variable comes from
                // what the loop walks.
                if let ExprKind::Name(n) = &target.kind {
                    assigns.push((n.clone(), iter));
                }
                collect_helper_parts(body, assigns, tests, depth + 1);
                collect_helper_parts(orelse, assigns, tests, depth + 1);
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                collect_helper_parts(body, assigns, tests, depth + 1);
                for h in handlers {
                    collect_helper_parts(&h.body, assigns, tests, depth + 1);
                }
                collect_helper_parts(orelse, assigns, tests, depth + 1);
                collect_helper_parts(finally, assigns, tests, depth + 1);
            }
            StmtKind::With { body, .. }
            | StmtKind::Labeled { body, .. }
            | StmtKind::Defer(body) => collect_helper_parts(body, assigns, tests, depth + 1),
            StmtKind::Match { arms, .. } | StmtKind::Switch { arms, .. } => {
                for a in arms {
                    collect_helper_parts(&a.body, assigns, tests, depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// Where a regex guard's patterns come from, when they are not a literal read off the syntax.
#[derive(Clone)]
enum PatternSource {
    /// No pattern, or literal patterns already checked.
    Unconditional,
    /// A name (a parameter or a module constant), the model guard's index, and whether the
    /// test loops over it (`any(re.match(p, u) for p in NAME)`) rather than using it whole.
    Name(String, usize, bool),
}

/// The patterns a regex guard's first argument (or loop) gives: literal ones checked against
/// the model's pattern now, a name left for the caller; None = the test guards nothing.
fn regex_pattern_source(
    pattern: &regex::Regex,
    gi: usize,
    e: &Expr,
    iterated: bool,
) -> Option<PatternSource> {
    let lits: Vec<&str> = match &e.kind {
        ExprKind::Str(s) if !iterated => vec![s.as_str()],
        ExprKind::Tuple(xs) | ExprKind::List(xs) if iterated => xs
            .iter()
            .map(|x| match &x.kind {
                ExprKind::Str(s) => Some(s.as_str()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()?,
        ExprKind::Name(n) => return Some(PatternSource::Name(n.clone(), gi, iterated)),
        _ => return None,
    };
    (!lits.is_empty() && lits.iter().all(|l| pattern.is_match(l)))
        .then_some(PatternSource::Unconditional)
}

/// The variables a value is computed from, for a helper's locals: the root of the value and,
/// for a call, of its arguments (`socket.getaddrinfo(parsed.hostname, 443)` comes from
/// `parsed`, `ipaddress.ip_address(addr)` from `addr`).
fn derived_from(e: &Expr) -> Vec<String> {
    let mut out: Vec<String> = root_var(e).into_iter().collect();
    let call = match &e.kind {
        ExprKind::Await(x) => x.as_ref(),
        _ => e,
    };
    if let ExprKind::Call { args, .. } = &call.kind {
        for a in args {
            out.extend(root_var(&a.value));
        }
    }
    out
}

/// `any(re.match(p, url) for p in PATTERNS)` / `all(...)`: the test's callee, the arguments
/// after the loop variable, and the collection the patterns come from.
fn pattern_loop_test<'e>(
    callee: &Expr,
    args: &'e [Arg],
) -> Option<(&'e Expr, &'e [Arg], &'e Expr)> {
    if !matches!(&callee.kind, ExprKind::Name(n) if n == "any" || n == "all") {
        return None;
    }
    let [arg] = args else { return None };
    let ExprKind::Comprehension {
        elements, clauses, ..
    } = &arg.value.kind
    else {
        return None;
    };
    let ([el], [(target, iter)]) = (elements.as_slice(), clauses.as_slice()) else {
        return None;
    };
    let ExprKind::Name(loopvar) = &target.kind else {
        return None;
    };
    let ExprKind::Call {
        callee: gc,
        args: gargs,
    } = &el.kind
    else {
        return None;
    };
    let [first, rest @ ..] = gargs.as_slice() else {
        return None;
    };
    matches!(&first.value.kind, ExprKind::Name(n) if n == loopvar).then_some((gc, rest, iter))
}

/// The tests inside `any(<test> for x in xs)` / `all(...)`.
fn quantified_tests<'e>(callee: &Expr, args: &'e [Arg]) -> Vec<&'e Expr> {
    match (&callee.kind, args) {
        (ExprKind::Name(n), [arg]) if n == "any" || n == "all" => match &arg.value.kind {
            ExprKind::Comprehension { elements, .. } => elements.iter().collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The variables a condition checks with a model guard (by method or operator), read off the
/// syntax, with the kinds each check makes safe and where a regex test's patterns come from.
fn guarded_roots(models: &Models, e: &Expr) -> Vec<(String, Vec<String>, PatternSource)> {
    let mut out = Vec::new();
    let mut todo = vec![e];
    let mut seen = 0usize;
    while let Some(e) = todo.pop() {
        seen += 1;
        if seen > 256 {
            break;
        }
        match &e.kind {
            ExprKind::Unary { operand, .. } => todo.push(operand),
            ExprKind::Await(x) => todo.push(x),
            ExprKind::Attribute { value, attr } => {
                for g in &models.guards {
                    if g.attr.as_deref() == Some(attr.as_str())
                        && let Some(root) = root_var(value)
                    {
                        out.push((root, g.kinds.clone(), PatternSource::Unconditional));
                    }
                }
            }
            ExprKind::Binary { op, left, right } => {
                let bare = op.trim_start_matches("not ").trim();
                for g in &models.guards {
                    if g.op.as_deref() == Some(bare)
                        && let Some(root) = root_var(left)
                    {
                        out.push((root, g.kinds.clone(), PatternSource::Unconditional));
                    }
                }
                todo.push(left);
                todo.push(right);
            }
            ExprKind::Call { callee, args } => {
                todo.extend(quantified_tests(callee, args));
                if let ExprKind::Attribute { value, attr } = &callee.kind {
                    for g in &models.guards {
                        if g.method.as_deref() == Some(attr.as_str())
                            && let Some(root) = root_var(value)
                        {
                            out.push((
                                root,
                                narrow_prefix_guard(g.prefix, &g.kinds, args),
                                PatternSource::Unconditional,
                            ));
                        }
                    }
                }
                let is_guard_callee = |c: &str, p: &str| c == p || c.ends_with(&format!(".{p}"));
                let path = callee.dotted_path();
                for (gi, g) in models.guards.iter().enumerate() {
                    if let (Some(c), Some(p)) = (&g.callee, &path)
                        && is_guard_callee(c, p)
                    {
                        let (checked, src) = match (&g.pattern, args.split_first()) {
                            (None, _) => (args.as_slice(), Some(PatternSource::Unconditional)),
                            (Some(pat), Some((first, rest))) => {
                                (rest, regex_pattern_source(pat, gi, &first.value, false))
                            }
                            (Some(_), None) => (args.as_slice(), None),
                        };
                        let Some(src) = src else { continue };
                        for a in checked {
                            for root in all_root_vars(&a.value) {
                                out.push((root, guard_kinds(g), src.clone()));
                            }
                        }
                    }
                }
                // `any(re.match(p, url) for p in PATTERNS)`
                if let Some((gc, rest, iter)) = pattern_loop_test(callee, args)
                    && let Some(p) = gc.dotted_path()
                {
                    for (gi, g) in models.guards.iter().enumerate() {
                        if let (Some(c), Some(pat)) = (&g.callee, &g.pattern)
                            && is_guard_callee(c, &p)
                            && let Some(src) = regex_pattern_source(pat, gi, iter, true)
                        {
                            for a in rest {
                                for root in all_root_vars(&a.value) {
                                    out.push((root, guard_kinds(g), src.clone()));
                                }
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// A prefix test guards what its prefix can contain: a bare scheme (`"https://"`) is no
/// allow-list at all, a scheme with a host (`"https://api.example.com/"`) pins a destination
/// (not a file path), and a path prefix contains paths (not URLs).
fn narrow_prefix_guard(prefix: bool, kinds: &[String], args: &[Arg]) -> Vec<String> {
    if !prefix {
        return kinds.to_vec();
    }
    let Some(first) = args.first() else {
        return kinds.to_vec();
    };
    let prefixes: Vec<&str> = match &first.value.kind {
        ExprKind::Str(s) => vec![s.as_str()],
        ExprKind::Tuple(xs) | ExprKind::List(xs) => {
            let lits: Vec<&str> = xs
                .iter()
                .filter_map(|x| match &x.kind {
                    ExprKind::Str(s) => Some(s.as_str()),
                    _ => None,
                })
                .collect();
            if lits.len() != xs.len() {
                return kinds.to_vec();
            }
            lits
        }
        _ => return kinds.to_vec(),
    };
    if prefixes.is_empty() {
        return kinds.to_vec();
    }
    let scheme_only = |p: &str| {
        p.strip_suffix("://").is_some_and(|s| {
            !s.is_empty()
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
        })
    };
    if prefixes.iter().all(|p| scheme_only(p)) {
        return Vec::new();
    }
    let is_net = |k: &String| NETWORK_KINDS.contains(&k.as_str());
    if prefixes.iter().all(|p| p.contains("://")) {
        let mut out: Vec<String> = kinds.iter().filter(|k| is_net(k)).cloned().collect();
        // `startswith("https://host/")`: the host is fixed, then `/`.
        let pins = |p: &str| {
            p.split_once("://")
                .and_then(|(_, rest)| rest.split_once('/'))
                .is_some_and(|(host, _)| !host.is_empty())
        };
        if !out.is_empty() && prefixes.iter().all(|p| pins(p)) {
            out.push(PINNED_HOST.to_string());
        }
        return out;
    }
    if prefixes.iter().all(|p| !p.contains("://")) {
        return kinds.iter().filter(|k| !is_net(k)).cloned().collect();
    }
    kinds.to_vec()
}

/// Every combination of the operands' possible constants (None = unknown part), or None when
/// there are more than [`MAX_ALTS`].
fn const_combos(parts: &[Option<&Val>]) -> Option<Vec<Vec<Option<String>>>> {
    let mut combos: Vec<Vec<Option<String>>> = vec![Vec::new()];
    for p in parts {
        let cands: Vec<Option<String>> = match p.and_then(|v| v.candidates()) {
            Some(c) => c.into_iter().map(Some).collect(),
            None => vec![None],
        };
        let mut next = Vec::with_capacity(combos.len() * cands.len());
        for c in &combos {
            for x in &cands {
                let mut c2 = c.clone();
                c2.push(x.clone());
                next.push(c2);
            }
        }
        if next.len() > MAX_ALTS {
            return None;
        }
        combos = next;
    }
    Some(combos)
}

/// Sets `out`'s constant from `f` applied to every combination of the operands' constants:
/// one result is a constant, several are alternatives.
fn set_const_over(
    out: &mut Val,
    parts: &[Option<&Val>],
    f: impl Fn(&[Option<String>]) -> Option<String>,
) {
    if parts.iter().all(|p| p.is_none_or(|v| v.alts.is_empty())) {
        let plain: Vec<Option<String>> = parts
            .iter()
            .map(|p| p.and_then(|v| v.konst.clone()))
            .collect();
        out.konst = f(&plain);
        out.alts.clear();
        return;
    }
    let Some(combos) = const_combos(parts) else {
        out.konst = None;
        out.alts.clear();
        return;
    };
    let mut results = BTreeSet::new();
    for c in combos {
        match f(&c) {
            Some(r) => {
                results.insert(r);
            }
            None => {
                out.konst = None;
                out.alts.clear();
                return;
            }
        }
    }
    out.set_candidates(results);
}

/// The host of a destination detail (`https://api.github.com/x`, `POST http://h/`,
/// `93.184.216.34 8443`), lowercased.
fn detail_host(detail: &str) -> Option<String> {
    let d = detail
        .rsplit(' ')
        .find(|w| w.contains("://"))
        .unwrap_or(detail);
    let d = d.split_once("://").map_or(d, |(_, rest)| rest);
    let d = d.rsplit_once('@').map_or(d, |(_, h)| h);
    let host: String = d
        .chars()
        .take_while(|c| !matches!(c, '/' | ':' | ' ' | '?' | '#'))
        .collect();
    // `⟨labels⟩` stands for a value with no known text: no host.
    if host.is_empty() || host.contains(UNKNOWN) || host.contains('⟨') {
        None
    } else {
        Some(host.to_ascii_lowercase())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Val {
        let mut v = Val::default();
        for (i, x) in items.iter().enumerate() {
            v.set_field(&i.to_string(), Val::konst(*x));
        }
        v
    }

    fn positional_args(vals: Vec<Val>) -> Vec<(Option<String>, Val, bool)> {
        vals.into_iter().map(|v| (None, v, false)).collect()
    }

    #[test]
    fn join_folds_with_the_separator_where_the_row_puts_it() {
        // Python: "/".join(["a", "b"])
        let py = StrFold::Join {
            separator: -1,
            items: 0,
            default_separator: None,
        };
        let args = positional_args(vec![list(&["a", "b"])]);
        assert_eq!(
            str_method(&py, &Val::konst("/"), &args).as_deref(),
            Some("a/b")
        );
        // JavaScript: ["a", "b"].join("/"), and .join() with its default ","
        let js = StrFold::Join {
            separator: 0,
            items: -1,
            default_separator: Some(",".into()),
        };
        let args = positional_args(vec![Val::konst("/")]);
        assert_eq!(
            str_method(&js, &list(&["a", "b"]), &args).as_deref(),
            Some("a/b")
        );
        assert_eq!(
            str_method(&js, &list(&["a", "b"]), &[]).as_deref(),
            Some("a,b")
        );
        // The Python order applied to a JavaScript call folds nothing rather than nonsense.
        assert_eq!(str_method(&py, &list(&["a", "b"]), &args), None);
    }

    #[test]
    fn format_and_case_folds_follow_the_receiver() {
        let args = vec![
            (None, Val::konst("x"), false),
            (Some("k".to_string()), Val::konst("y"), false),
        ];
        assert_eq!(
            str_method(&StrFold::Format, &Val::konst("{}-{k}-{1}"), &args).as_deref(),
            Some(format!("x-y-{UNKNOWN}").as_str())
        );
        assert_eq!(
            str_method(&StrFold::Upper, &Val::konst("ab"), &[]).as_deref(),
            Some("AB")
        );
        assert_eq!(str_method(&StrFold::Opaque, &Val::konst("ab"), &[]), None);
    }

    #[test]
    fn replace_folds_constants_and_keeps_the_text_before_an_unknown_placeholder() {
        let exact = vec![
            (None, Val::konst("{id}"), false),
            (None, Val::konst("7"), false),
        ];
        assert_eq!(
            str_method(&StrFold::Replace, &Val::konst("/t/{id}/h"), &exact).as_deref(),
            Some("/t/7/h")
        );
        // `"{" + key + "}"` filled with an argument: only the `{` is known.
        let placeholder = vec![
            (None, Val::konst(format!("{{{UNKNOWN}}}")), false),
            (None, Val::default(), false),
        ];
        assert_eq!(
            str_method(&StrFold::Replace, &Val::konst("/t/{id}"), &placeholder).as_deref(),
            Some(format!("/t/{UNKNOWN}").as_str())
        );
        assert_eq!(
            str_method(&StrFold::Replace, &Val::konst("/tickets"), &placeholder).as_deref(),
            Some("/tickets")
        );
        // A template starting with the placeholder keeps nothing: the host may be the value.
        assert_eq!(
            str_method(&StrFold::Replace, &Val::konst("{host}/t"), &placeholder),
            None
        );
        let unknown_old = vec![(None, Val::default(), false), (None, Val::default(), false)];
        assert_eq!(
            str_method(&StrFold::Replace, &Val::konst("/t/{id}"), &unknown_old),
            None
        );
    }
}
