//! Per-function control-flow graphs over the IR (petgraph), a generic forward dataflow
//! fixpoint, and reaching definitions.
//!
//! Nodes are the IR's simple statements plus synthetic nodes for tests, loop heads, `with`
//! entries and exception handlers. Every node inside a `try` body has an exceptional edge to each
//! handler (and to `finally`), a `raise` goes to the innermost handlers or the exit, `return`
//! goes through `finally` to the exit.
//!
//! C-family constructs: a `switch` arm may fall through into the next one and `break` leaves
//! the switch; `break label`/`continue label` leave or restart the labelled statement; `defer`
//! bodies run on the way to the exit from every exit (return, raise, the end), latest first,
//! each one skippable since a path may leave before reaching its `defer`.

use mcp_scan_ir::{Expr, ExprKind, Function, Handler, Stmt, StmtKind, WithItem};
use petgraph::Direction;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{DfsPostOrder, EdgeRef};
use std::collections::{BTreeSet, VecDeque};

#[derive(Debug, Clone, Copy)]
pub enum Node<'a> {
    Entry,
    Exit,
    /// A simple statement (assign, expression, return, raise, def, import, ...).
    Stmt(&'a Stmt),
    /// The condition of an `if`/`while`, or a match subject.
    Test(&'a Expr),
    /// The head of a `for` loop: binds `target` to an element of `iter`.
    ForHead {
        target: &'a Expr,
        iter: &'a Expr,
    },
    /// Entering a `with`: evaluates the contexts, binds the targets.
    WithEnter(&'a [WithItem]),
    /// Entering an `except` handler: binds the exception name.
    Handler(&'a Handler),
    /// A join point with no effect (after a loop, `finally` entry).
    Join,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edge {
    Normal,
    True,
    False,
    Exception,
}

pub struct Cfg<'a> {
    pub graph: DiGraph<Node<'a>, Edge>,
    pub entry: NodeIndex,
    pub exit: NodeIndex,
    /// Each `for` head with the node indices of its body (built right after the head, so a
    /// contiguous range; the `else` block is not part of it).
    pub for_bodies: Vec<(NodeIndex, std::ops::Range<usize>)>,
}

/// A statement `break` can leave: a loop (which `continue` restarts at `head`), a `switch`, or
/// a labelled block.
struct LoopCtx<'a> {
    /// The loop head; None for a switch or a labelled block (`continue` skips those).
    head: Option<NodeIndex>,
    /// Whether an unlabelled `break` leaves it (loops and switches; not labelled blocks).
    plain_break: bool,
    label: Option<&'a str>,
    breaks: Vec<NodeIndex>,
}

struct Builder<'a> {
    g: DiGraph<Node<'a>, Edge>,
    /// Where returns, raises and the end go: the real exit, or the start of the deferred
    /// bodies when the function has any.
    exit: NodeIndex,
    loops: Vec<LoopCtx<'a>>,
    /// The label of a `Labeled` statement whose body is the loop being built next.
    pending_label: Option<&'a str>,
    /// `defer` bodies met so far, in order.
    defers: Vec<&'a [Stmt]>,
    for_bodies: Vec<(NodeIndex, std::ops::Range<usize>)>,
    /// Handler entry nodes of the enclosing `try`s, innermost last.
    handlers: Vec<Vec<NodeIndex>>,
    /// `finally` entries of the enclosing `try`s (where a `return` goes first).
    finals: Vec<NodeIndex>,
}

impl<'a> Cfg<'a> {
    pub fn build(func: &'a Function) -> Cfg<'a> {
        Self::build_body(&func.body)
    }

    pub fn build_body(body: &'a [Stmt]) -> Cfg<'a> {
        let mut g = DiGraph::new();
        let entry = g.add_node(Node::Entry);
        let exit = g.add_node(Node::Exit);
        // With `defer`s, every exit first passes through their bodies.
        let deferred = has_defer(body).then(|| g.add_node(Node::Join));
        let mut b = Builder {
            g,
            exit: deferred.unwrap_or(exit),
            loops: Vec::new(),
            pending_label: None,
            defers: Vec::new(),
            for_bodies: Vec::new(),
            handlers: Vec::new(),
            finals: Vec::new(),
        };
        let out = b.block(body, vec![(entry, Edge::Normal)]);
        if let Some(d) = deferred {
            b.connect(&out, d);
            // Latest first; each may be skipped (the path may have left before its `defer`).
            let mut cur: Frontier = vec![(d, Edge::Normal)];
            for body in std::mem::take(&mut b.defers).into_iter().rev() {
                let mut ran = b.block(body, cur.clone());
                ran.extend(cur);
                cur = ran;
            }
            b.connect(&cur, exit);
        } else {
            b.connect(&out, exit);
        }
        Cfg {
            graph: b.g,
            entry,
            exit,
            for_bodies: b.for_bodies,
        }
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    /// Nodes in reverse postorder from the entry (a good worklist order for forward analyses).
    pub fn reverse_postorder(&self) -> Vec<NodeIndex> {
        let mut dfs = DfsPostOrder::new(&self.graph, self.entry);
        let mut order = Vec::new();
        while let Some(n) = dfs.next(&self.graph) {
            order.push(n);
        }
        order.reverse();
        order
    }

    /// The `for` heads whose body holds `node`.
    pub fn enclosing_fors(&self, node: NodeIndex) -> impl Iterator<Item = NodeIndex> + '_ {
        self.for_bodies
            .iter()
            .filter(move |(_, body)| body.contains(&node.index()))
            .map(|(head, _)| *head)
    }

    /// Whether `from` has an outgoing edge of this kind.
    pub fn has_edge_kind(&self, from: NodeIndex, kind: Edge) -> bool {
        self.graph.edges(from).any(|e| *e.weight() == kind)
    }
}

type Frontier = Vec<(NodeIndex, Edge)>;

impl<'a> Builder<'a> {
    fn add(&mut self, n: Node<'a>, preds: &Frontier) -> NodeIndex {
        let ix = self.g.add_node(n);
        self.connect(preds, ix);
        // Anything inside a try may raise into its handlers.
        if let Some(hs) = self.handlers.last() {
            for h in hs.clone() {
                self.g.add_edge(ix, h, Edge::Exception);
            }
        }
        ix
    }

    fn connect(&mut self, preds: &Frontier, to: NodeIndex) {
        for (p, e) in preds {
            self.g.add_edge(*p, to, *e);
        }
    }

    fn block(&mut self, stmts: &'a [Stmt], mut cur: Frontier) -> Frontier {
        for s in stmts {
            cur = self.stmt(s, cur);
        }
        cur
    }

    fn stmt(&mut self, s: &'a Stmt, cur: Frontier) -> Frontier {
        match &s.kind {
            StmtKind::If { test, then, orelse } => {
                let t = self.add(Node::Test(test), &cur);
                let mut out = self.block(then, vec![(t, Edge::True)]);
                out.extend(self.block(orelse, vec![(t, Edge::False)]));
                out
            }
            StmtKind::While { test, body, orelse } => {
                let label = self.pending_label.take();
                let head = self.add(Node::Test(test), &cur);
                self.loops.push(LoopCtx {
                    head: Some(head),
                    plain_break: true,
                    label,
                    breaks: Vec::new(),
                });
                let body_out = self.block(body, vec![(head, Edge::True)]);
                self.connect(&body_out, head);
                let ctx = self.loops.pop();
                // `while True:` only leaves through break/return/raise.
                let infinite = matches!(test.kind, ExprKind::Bool(true));
                let mut out = if infinite {
                    Vec::new()
                } else {
                    self.block(orelse, vec![(head, Edge::False)])
                };
                if let Some(ctx) = ctx {
                    out.extend(ctx.breaks.into_iter().map(|b| (b, Edge::Normal)));
                }
                out
            }
            StmtKind::For {
                target,
                iter,
                body,
                orelse,
                ..
            } => {
                let label = self.pending_label.take();
                let head = self.add(Node::ForHead { target, iter }, &cur);
                self.loops.push(LoopCtx {
                    head: Some(head),
                    plain_break: true,
                    label,
                    breaks: Vec::new(),
                });
                let body_out = self.block(body, vec![(head, Edge::True)]);
                self.for_bodies
                    .push((head, head.index() + 1..self.g.node_count()));
                self.connect(&body_out, head);
                let ctx = self.loops.pop();
                let mut out = self.block(orelse, vec![(head, Edge::False)]);
                if let Some(ctx) = ctx {
                    out.extend(ctx.breaks.into_iter().map(|b| (b, Edge::Normal)));
                }
                out
            }
            StmtKind::Try {
                body,
                handlers,
                orelse,
                finally,
            } => {
                let fin = if finally.is_empty() {
                    None
                } else {
                    Some(self.g.add_node(Node::Join))
                };
                // Handler entries exist before the body so body nodes can edge to them.
                let hnodes: Vec<NodeIndex> = handlers
                    .iter()
                    .map(|h| self.g.add_node(Node::Handler(h)))
                    .collect();
                let mut raise_targets = hnodes.clone();
                if let Some(f) = fin {
                    raise_targets.push(f);
                    self.finals.push(f);
                }
                // A try with a finally but no handlers still routes exceptions through finally.
                self.handlers.push(raise_targets);
                let entry = self.add(Node::Join, &cur);
                let body_out = self.block(body, vec![(entry, Edge::Normal)]);
                self.handlers.pop();
                if fin.is_some() {
                    // Handlers' bodies still run finally on the way out.
                    self.handlers.push(fin.into_iter().collect());
                }
                let mut out = self.block(orelse, body_out);
                for (h, hn) in handlers.iter().zip(&hnodes) {
                    out.extend(self.block(&h.body, vec![(*hn, Edge::Normal)]));
                }
                if let Some(f) = fin {
                    self.handlers.pop();
                    self.finals.pop();
                    self.connect(&out, f);
                    let fin_out = self.block(finally, vec![(f, Edge::Normal)]);
                    // Finally is also the way out for returns and uncaught exceptions.
                    let exit = self.exit;
                    self.connect(&fin_out, exit);
                    fin_out
                } else {
                    out
                }
            }
            StmtKind::With { items, body, .. } => {
                let w = self.add(Node::WithEnter(items), &cur);
                self.block(body, vec![(w, Edge::Normal)])
            }
            StmtKind::Match { subject, arms } => {
                let t = self.add(Node::Test(subject), &cur);
                let mut out = Vec::new();
                let mut has_default = false;
                for arm in arms {
                    has_default |= arm.pattern.is_none();
                    out.extend(self.block(&arm.body, vec![(t, Edge::True)]));
                }
                if !has_default {
                    out.push((t, Edge::False));
                }
                out
            }
            StmtKind::Return(_) => {
                let n = self.add(Node::Stmt(s), &cur);
                let to = self.finals.last().copied().unwrap_or(self.exit);
                self.g.add_edge(n, to, Edge::Normal);
                Vec::new()
            }
            StmtKind::Raise(_) => {
                // `add` already edges to the innermost handlers; outside a try, to the exit.
                let n = self.add(Node::Stmt(s), &cur);
                if self.handlers.is_empty() {
                    let exit = self.exit;
                    self.g.add_edge(n, exit, Edge::Exception);
                }
                Vec::new()
            }
            StmtKind::Break | StmtKind::BreakTo(_) => {
                let n = self.add(Node::Stmt(s), &cur);
                let label = match &s.kind {
                    StmtKind::BreakTo(l) => Some(l.as_str()),
                    _ => None,
                };
                let target = self.loops.iter_mut().rev().find(|l| match label {
                    Some(name) => l.label == Some(name),
                    None => l.plain_break,
                });
                if let Some(l) = target {
                    l.breaks.push(n);
                    Vec::new()
                } else {
                    vec![(n, Edge::Normal)]
                }
            }
            StmtKind::Continue | StmtKind::ContinueTo(_) => {
                let n = self.add(Node::Stmt(s), &cur);
                let label = match &s.kind {
                    StmtKind::ContinueTo(l) => Some(l.as_str()),
                    _ => None,
                };
                let head = self
                    .loops
                    .iter()
                    .rev()
                    .filter(|l| l.head.is_some())
                    .find(|l| label.is_none_or(|name| l.label == Some(name)))
                    .and_then(|l| l.head);
                if let Some(head) = head {
                    self.g.add_edge(n, head, Edge::Normal);
                    Vec::new()
                } else {
                    vec![(n, Edge::Normal)]
                }
            }
            StmtKind::Labeled { label, body } => {
                let is_loop =
                    |st: &Stmt| matches!(st.kind, StmtKind::While { .. } | StmtKind::For { .. });
                if let [only] = body.as_slice()
                    && is_loop(only)
                {
                    // The label names the loop: `continue label` restarts it.
                    self.pending_label = Some(label);
                    return self.stmt(only, cur);
                }
                self.loops.push(LoopCtx {
                    head: None,
                    plain_break: false,
                    label: Some(label),
                    breaks: Vec::new(),
                });
                let mut out = self.block(body, cur);
                if let Some(ctx) = self.loops.pop() {
                    out.extend(ctx.breaks.into_iter().map(|b| (b, Edge::Normal)));
                }
                out
            }
            StmtKind::Switch { subject, arms } => {
                let t = self.add(Node::Test(subject), &cur);
                self.loops.push(LoopCtx {
                    head: None,
                    plain_break: true,
                    label: self.pending_label.take(),
                    breaks: Vec::new(),
                });
                let mut out = Vec::new();
                let mut has_default = false;
                let mut falling: Frontier = Vec::new();
                for (i, arm) in arms.iter().enumerate() {
                    has_default |= arm.pattern.is_none();
                    let mut into = vec![(t, Edge::True)];
                    into.append(&mut falling);
                    let arm_out = self.block(&arm.body, into);
                    if arm.fallthrough && i + 1 < arms.len() {
                        falling = arm_out;
                    } else {
                        out.extend(arm_out);
                    }
                }
                if !has_default {
                    out.push((t, Edge::False));
                }
                if let Some(ctx) = self.loops.pop() {
                    out.extend(ctx.breaks.into_iter().map(|b| (b, Edge::Normal)));
                }
                out
            }
            StmtKind::Defer(body) => {
                // The body runs on the way out (see `build_body`); here the statement is only
                // reached.
                self.defers.push(body);
                let n = self.add(Node::Join, &cur);
                vec![(n, Edge::Normal)]
            }
            _ => {
                let n = self.add(Node::Stmt(s), &cur);
                vec![(n, Edge::Normal)]
            }
        }
    }
}

/// Whether a body holds a `defer` (nested functions are functions of their own).
fn has_defer(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match &s.kind {
        StmtKind::Defer(_) => true,
        StmtKind::If { then, orelse, .. } => has_defer(then) || has_defer(orelse),
        StmtKind::While { body, orelse, .. } | StmtKind::For { body, orelse, .. } => {
            has_defer(body) || has_defer(orelse)
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finally,
        } => {
            has_defer(body)
                || handlers.iter().any(|h| has_defer(&h.body))
                || has_defer(orelse)
                || has_defer(finally)
        }
        StmtKind::With { body, .. } | StmtKind::Labeled { body, .. } => has_defer(body),
        StmtKind::Match { arms, .. } | StmtKind::Switch { arms, .. } => {
            arms.iter().any(|a| has_defer(&a.body))
        }
        _ => false,
    })
}

/// A forward dataflow problem over a [`Cfg`].
pub trait Forward<'a> {
    type State: Clone + PartialEq;
    /// The state nothing has reached yet.
    fn bottom(&self) -> Self::State;
    fn join(&self, a: &Self::State, b: &Self::State) -> Self::State;
    /// `into := join(into, b)`, and whether `into` changed. A problem with large states
    /// overrides it to join in place instead of building and comparing a whole new state.
    fn join_into(&self, into: &mut Self::State, b: &Self::State) -> bool {
        let joined = self.join(into, b);
        if joined != *into {
            *into = joined;
            true
        } else {
            false
        }
    }
    fn transfer(&mut self, ix: NodeIndex, node: &Node<'a>, input: &Self::State) -> Self::State;
}

/// In-states of every node after the fixpoint, and whether it converged within the budget.
pub struct Solution<S> {
    pub input: Vec<S>,
    pub converged: bool,
}

/// Worklist fixpoint in reverse postorder. `budget` caps node visits per node (a guard: with
/// the bounded lattices here it converges long before).
pub fn solve<'a, P: Forward<'a>>(
    cfg: &Cfg<'a>,
    problem: &mut P,
    init: P::State,
    budget: usize,
) -> Solution<P::State> {
    let n = cfg.graph.node_count();
    let mut input: Vec<P::State> = vec![problem.bottom(); n];
    let mut output: Vec<Option<P::State>> = vec![None; n];
    input[cfg.entry.index()] = init;
    let order = cfg.reverse_postorder();
    let mut rank = vec![usize::MAX; n];
    for (i, ix) in order.iter().enumerate() {
        rank[ix.index()] = i;
    }
    let mut queued = vec![false; n];
    let mut work: VecDeque<NodeIndex> = VecDeque::new();
    for ix in &order {
        work.push_back(*ix);
        queued[ix.index()] = true;
    }
    let mut visits = 0usize;
    let max_visits = budget.saturating_mul(n.max(1));
    let mut converged = true;
    while let Some(ix) = work.pop_front() {
        queued[ix.index()] = false;
        visits += 1;
        if visits > max_visits {
            converged = false;
            break;
        }
        let node = cfg.graph[ix];
        let out = problem.transfer(ix, &node, &input[ix.index()]);
        if output[ix.index()].as_ref() == Some(&out) {
            continue;
        }
        for e in cfg.graph.edges_directed(ix, Direction::Outgoing) {
            let succ = e.target();
            // The join runs first, always; only a changed state requeues.
            if problem.join_into(&mut input[succ.index()], &out) && !queued[succ.index()] {
                queued[succ.index()] = true;
                // Keep roughly reverse-postorder: earlier nodes first.
                if work
                    .front()
                    .is_some_and(|f| rank[f.index()] > rank[succ.index()])
                {
                    work.push_front(succ);
                } else {
                    work.push_back(succ);
                }
            }
        }
        output[ix.index()] = Some(out);
    }
    Solution { input, converged }
}

/// A definition: variable name and the node that assigns it.
pub type Def = (String, NodeIndex);

/// Reaching definitions: which assignments of each variable may reach each node.
pub struct ReachingDefs;

/// Names an lvalue binds (`a`, `a, b`, `*rest`; `x.f`/`x[i]` update `x`).
pub fn bound_names(target: &Expr, out: &mut Vec<String>) {
    match &target.kind {
        ExprKind::Name(n) => out.push(n.clone()),
        ExprKind::Tuple(xs) | ExprKind::List(xs) => {
            for x in xs {
                bound_names(x, out);
            }
        }
        ExprKind::Starred(x) => bound_names(x, out),
        ExprKind::Attribute { value, .. } | ExprKind::Index { value, .. } => {
            bound_names(value, out)
        }
        _ => {}
    }
}

/// Names a node defines.
pub fn defined_names(node: &Node<'_>) -> Vec<String> {
    let mut out = Vec::new();
    match node {
        Node::Stmt(s) => match &s.kind {
            StmtKind::Assign { targets, .. } => {
                for t in targets {
                    bound_names(t, &mut out);
                }
            }
            StmtKind::AugAssign { target, .. } => bound_names(target, &mut out),
            StmtKind::FunctionDef { name, .. } | StmtKind::ClassDef { name } => {
                out.push(name.clone())
            }
            StmtKind::Import(imports) => out.extend(imports.iter().map(|i| i.local.clone())),
            _ => {}
        },
        Node::ForHead { target, .. } => bound_names(target, &mut out),
        Node::WithEnter(items) => {
            for i in items.iter() {
                if let Some(t) = &i.target {
                    bound_names(t, &mut out);
                }
            }
        }
        Node::Handler(h) => out.extend(h.name.iter().cloned()),
        _ => {}
    }
    out
}

impl<'a> Forward<'a> for ReachingDefs {
    type State = BTreeSet<Def>;
    fn bottom(&self) -> Self::State {
        BTreeSet::new()
    }
    fn join(&self, a: &Self::State, b: &Self::State) -> Self::State {
        a.union(b).cloned().collect()
    }
    fn transfer(&mut self, ix: NodeIndex, node: &Node<'a>, input: &Self::State) -> Self::State {
        let defs = defined_names(node);
        if defs.is_empty() {
            return input.clone();
        }
        let mut out: BTreeSet<Def> = input
            .iter()
            .filter(|(name, _)| !defs.contains(name))
            .cloned()
            .collect();
        for d in defs {
            out.insert((d, ix));
        }
        out
    }
}

/// Reaching definitions at the entry of every node (kill on plain reassignment; a field or
/// index store `x.f = ...` also counts as a definition of `x`).
pub fn reaching_definitions(cfg: &Cfg<'_>) -> Vec<BTreeSet<Def>> {
    // Sets only grow and are bounded by the definitions in the function: the budget is never hit.
    solve(cfg, &mut ReachingDefs, BTreeSet::new(), 1_000).input
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_scan_ir::Span;

    fn sp(line: u32) -> Span {
        Span {
            start_line: line,
            start_col: 1,
            end_line: line,
            end_col: 10,
            start_byte: 0,
            end_byte: 0,
        }
    }
    fn name(n: &str) -> Expr {
        Expr::new(ExprKind::Name(n.into()), sp(1))
    }
    fn assign(t: &str, v: Expr, line: u32) -> Stmt {
        Stmt {
            kind: StmtKind::Assign {
                targets: vec![name(t)],
                value: v,
            },
            span: sp(line),
        }
    }
    fn lit(s: &str) -> Expr {
        Expr::new(ExprKind::Str(s.into()), sp(1))
    }
    fn stmt(kind: StmtKind, line: u32) -> Stmt {
        Stmt {
            kind,
            span: sp(line),
        }
    }

    fn defs_at_exit(body: &[Stmt], var: &str) -> Vec<u32> {
        let cfg = Cfg::build_body(body);
        let rd = reaching_definitions(&cfg);
        let mut lines: Vec<u32> = rd[cfg.exit.index()]
            .iter()
            .filter(|(n, _)| n == var)
            .filter_map(|(_, ix)| match cfg.graph[*ix] {
                Node::Stmt(s) => Some(s.span.start_line),
                _ => None,
            })
            .collect();
        lines.sort_unstable();
        lines
    }

    #[test]
    fn reassignment_kills_earlier_definition() {
        let body = vec![assign("x", lit("a"), 1), assign("x", lit("b"), 2)];
        assert_eq!(defs_at_exit(&body, "x"), vec![2]);
    }

    #[test]
    fn both_branch_definitions_reach_the_join() {
        let body = vec![
            assign("x", lit("a"), 1),
            stmt(
                StmtKind::If {
                    test: name("c"),
                    then: vec![assign("x", lit("b"), 3)],
                    orelse: vec![],
                },
                2,
            ),
        ];
        assert_eq!(defs_at_exit(&body, "x"), vec![1, 3]);
    }

    #[test]
    fn early_return_definition_does_not_reach_fallthrough_but_reaches_exit() {
        // if c: x = "a"; return x
        // x = "b"
        let body = vec![
            stmt(
                StmtKind::If {
                    test: name("c"),
                    then: vec![
                        assign("x", lit("a"), 2),
                        stmt(StmtKind::Return(Some(name("x"))), 3),
                    ],
                    orelse: vec![],
                },
                1,
            ),
            assign("x", lit("b"), 4),
        ];
        assert_eq!(defs_at_exit(&body, "x"), vec![2, 4]);
        let cfg = Cfg::build_body(&body);
        let rd = reaching_definitions(&cfg);
        let last = cfg
            .graph
            .node_indices()
            .find(|ix| matches!(cfg.graph[*ix], Node::Stmt(s) if s.span.start_line == 4))
            .expect("node for line 4");
        assert!(
            rd[last.index()].iter().all(|(n, _)| n != "x"),
            "x=a returned early"
        );
    }

    #[test]
    fn loop_body_definition_reaches_loop_head_through_back_edge() {
        let body = vec![
            assign("x", lit("a"), 1),
            stmt(
                StmtKind::While {
                    test: name("c"),
                    body: vec![assign("x", lit("b"), 3)],
                    orelse: vec![],
                },
                2,
            ),
        ];
        assert_eq!(defs_at_exit(&body, "x"), vec![1, 3]);
    }

    #[test]
    fn lowers_try_except_into_exceptional_edges() {
        // try: x = "a"; y = risky()  except: x = "b"  finally: z = x
        let body = vec![stmt(
            StmtKind::Try {
                body: vec![assign("x", lit("a"), 2), assign("y", name("risky"), 3)],
                handlers: vec![Handler {
                    kind: None,
                    name: Some("e".into()),
                    body: vec![assign("x", lit("b"), 5)],
                    span: sp(4),
                }],
                orelse: vec![],
                finally: vec![assign("z", name("x"), 7)],
            },
            1,
        )];
        let cfg = Cfg::build_body(&body);
        let exc_edges = cfg
            .graph
            .edge_references()
            .filter(|e| *e.weight() == Edge::Exception)
            .count();
        assert!(
            exc_edges >= 2,
            "each try-body statement may raise: {exc_edges}"
        );
        assert_eq!(defs_at_exit(&body, "x"), vec![2, 5]);
    }

    #[test]
    fn raise_outside_try_goes_to_exit_and_stops_fallthrough() {
        let body = vec![stmt(StmtKind::Raise(None), 1), assign("x", lit("dead"), 2)];
        assert_eq!(defs_at_exit(&body, "x"), Vec::<u32>::new());
    }

    fn arm(pattern: Option<&str>, body: Vec<Stmt>, fallthrough: bool) -> mcp_scan_ir::MatchArm {
        mcp_scan_ir::MatchArm {
            pattern: pattern.map(lit),
            body,
            fallthrough,
            span: sp(1),
        }
    }

    fn switch(arms: Vec<mcp_scan_ir::MatchArm>) -> Stmt {
        stmt(
            StmtKind::Switch {
                subject: name("s"),
                arms,
            },
            2,
        )
    }

    #[test]
    fn switch_arm_falls_through_into_the_next_arm() {
        // case "a": x = "b"  (falls through)   case "c": x = "c"
        let body = vec![
            assign("x", lit("a"), 1),
            switch(vec![
                arm(Some("a"), vec![assign("x", lit("b"), 3)], true),
                arm(Some("c"), vec![assign("x", lit("c"), 4)], false),
            ]),
        ];
        // Every path through line 3 continues into line 4, which overwrites it.
        assert_eq!(defs_at_exit(&body, "x"), vec![1, 4]);
    }

    #[test]
    fn switch_arm_without_fallthrough_leaves_the_switch() {
        let body = vec![
            assign("x", lit("a"), 1),
            switch(vec![
                arm(Some("a"), vec![assign("x", lit("b"), 3)], false),
                arm(Some("c"), vec![assign("x", lit("c"), 4)], false),
            ]),
        ];
        assert_eq!(defs_at_exit(&body, "x"), vec![1, 3, 4]);
    }

    #[test]
    fn break_inside_a_switch_leaves_the_switch_not_the_loop() {
        // while c: switch s { case "a": x = "b"; break  (would fall through) case "c": x = "c" }
        //          y = x
        let body = vec![
            assign("x", lit("a"), 1),
            stmt(
                StmtKind::While {
                    test: name("c"),
                    body: vec![
                        switch(vec![
                            arm(
                                Some("a"),
                                vec![assign("x", lit("b"), 3), stmt(StmtKind::Break, 4)],
                                true,
                            ),
                            arm(Some("c"), vec![assign("x", lit("c"), 5)], false),
                        ]),
                        assign("y", name("x"), 6),
                    ],
                    orelse: vec![],
                },
                2,
            ),
        ];
        assert_eq!(defs_at_exit(&body, "x"), vec![1, 3, 5]);
        // The break went to the statement after the switch, inside the loop.
        assert_eq!(defs_at_exit(&body, "y"), vec![6]);
    }

    /// outer: while c { while d { x = 3; BREAK } x = 5 }
    fn nested_loops(brk: StmtKind) -> Vec<Stmt> {
        let inner = stmt(
            StmtKind::While {
                test: name("d"),
                body: vec![assign("x", lit("three"), 3), stmt(brk, 4)],
                orelse: vec![],
            },
            2,
        );
        vec![
            assign("x", lit("one"), 1),
            stmt(
                StmtKind::Labeled {
                    label: "outer".into(),
                    body: vec![stmt(
                        StmtKind::While {
                            test: name("c"),
                            body: vec![inner, assign("x", lit("five"), 5)],
                            orelse: vec![],
                        },
                        2,
                    )],
                },
                2,
            ),
        ]
    }

    #[test]
    fn labelled_break_leaves_both_nested_loops() {
        let body = nested_loops(StmtKind::BreakTo("outer".into()));
        // Line 3 reaches the exit only by jumping over `x = 5`.
        assert_eq!(defs_at_exit(&body, "x"), vec![1, 3, 5]);
    }

    #[test]
    fn plain_break_leaves_only_the_inner_loop() {
        let body = nested_loops(StmtKind::Break);
        assert_eq!(defs_at_exit(&body, "x"), vec![1, 5]);
    }

    #[test]
    fn labelled_continue_restarts_the_outer_loop() {
        let body = nested_loops(StmtKind::ContinueTo("outer".into()));
        // Back to the outer head, skipping `x = 5`; the outer loop then exits with line 3.
        assert_eq!(defs_at_exit(&body, "x"), vec![1, 3, 5]);
        let cfg = Cfg::build_body(&body);
        let cont = node_at(&cfg, 4);
        let outer_head = cfg
            .graph
            .node_indices()
            .find(|ix| matches!(cfg.graph[*ix], Node::Test(e) if e.dotted_path().as_deref() == Some("c")))
            .expect("outer head");
        assert!(cfg.graph.contains_edge(cont, outer_head));
    }

    fn node_at(cfg: &Cfg<'_>, line: u32) -> NodeIndex {
        cfg.graph
            .node_indices()
            .find(|ix| matches!(cfg.graph[*ix], Node::Stmt(s) if s.span.start_line == line))
            .unwrap_or_else(|| panic!("no statement node on line {line}"))
    }

    fn reaches(cfg: &Cfg<'_>, from: NodeIndex, to: NodeIndex) -> bool {
        petgraph::algo::has_path_connecting(&cfg.graph, from, to, None)
    }

    #[test]
    fn defer_runs_at_every_exit() {
        // defer { d = "x" }   if c { return }   if e { raise }   y = 1
        let body = vec![
            stmt(StmtKind::Defer(vec![assign("d", lit("x"), 2)]), 1),
            stmt(
                StmtKind::If {
                    test: name("c"),
                    then: vec![stmt(StmtKind::Return(None), 4)],
                    orelse: vec![],
                },
                3,
            ),
            stmt(
                StmtKind::If {
                    test: name("e"),
                    then: vec![stmt(StmtKind::Raise(None), 6)],
                    orelse: vec![],
                },
                5,
            ),
            assign("y", lit("1"), 7),
        ];
        let cfg = Cfg::build_body(&body);
        let deferred = node_at(&cfg, 2);
        for exit_line in [4, 6, 7] {
            let from = node_at(&cfg, exit_line);
            assert!(reaches(&cfg, from, deferred), "line {exit_line}");
            assert!(!reaches(&cfg, deferred, from), "line {exit_line}");
        }
        assert!(reaches(&cfg, deferred, cfg.exit));
        assert_eq!(defs_at_exit(&body, "d"), vec![2]);
    }

    #[test]
    fn defers_run_latest_first_and_not_before_they_are_reached() {
        // if c { return }   defer { x = 3 }   defer { x = 4 }
        let body = vec![
            stmt(
                StmtKind::If {
                    test: name("c"),
                    then: vec![stmt(StmtKind::Return(None), 2)],
                    orelse: vec![],
                },
                1,
            ),
            stmt(StmtKind::Defer(vec![assign("x", lit("a"), 3)]), 3),
            stmt(StmtKind::Defer(vec![assign("x", lit("b"), 4)]), 4),
        ];
        let cfg = Cfg::build_body(&body);
        let (first, second) = (node_at(&cfg, 3), node_at(&cfg, 4));
        assert!(reaches(&cfg, second, first));
        assert!(!reaches(&cfg, first, second));
        // The early return may leave before either defer was reached: the exit can be reached
        // without running them.
        let early = node_at(&cfg, 2);
        let mut g = cfg.graph.clone();
        g.retain_nodes(|_, ix| ix != first && ix != second);
        assert!(petgraph::algo::has_path_connecting(
            &g, early, cfg.exit, None
        ));
        // Each defer may be skipped (a path may leave before reaching it), so both writes may
        // reach the exit; on the path running both, the first-declared one runs last.
        assert_eq!(defs_at_exit(&body, "x"), vec![3, 4]);
    }
}
