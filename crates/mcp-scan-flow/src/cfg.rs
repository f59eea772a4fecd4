//! Per-function control-flow graphs over the IR (petgraph), a generic forward dataflow
//! fixpoint, and reaching definitions.
//!
//! Nodes are the IR's simple statements plus synthetic nodes for tests, loop heads, `with`
//! entries and exception handlers. Every node inside a `try` body has an exceptional edge to each
//! handler (and to `finally`), a `raise` goes to the innermost handlers or the exit, `return`
//! goes through `finally` to the exit.

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

struct LoopCtx {
    head: NodeIndex,
    breaks: Vec<NodeIndex>,
}

struct Builder<'a> {
    g: DiGraph<Node<'a>, Edge>,
    exit: NodeIndex,
    loops: Vec<LoopCtx>,
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
        let mut b = Builder {
            g,
            exit,
            loops: Vec::new(),
            for_bodies: Vec::new(),
            handlers: Vec::new(),
            finals: Vec::new(),
        };
        let out = b.block(body, vec![(entry, Edge::Normal)]);
        b.connect(&out, exit);
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
                let head = self.add(Node::Test(test), &cur);
                self.loops.push(LoopCtx {
                    head,
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
                let head = self.add(Node::ForHead { target, iter }, &cur);
                self.loops.push(LoopCtx {
                    head,
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
            StmtKind::Break => {
                let n = self.add(Node::Stmt(s), &cur);
                if let Some(l) = self.loops.last_mut() {
                    l.breaks.push(n);
                    Vec::new()
                } else {
                    vec![(n, Edge::Normal)]
                }
            }
            StmtKind::Continue => {
                let n = self.add(Node::Stmt(s), &cur);
                if let Some(l) = self.loops.last() {
                    let head = l.head;
                    self.g.add_edge(n, head, Edge::Normal);
                    Vec::new()
                } else {
                    vec![(n, Edge::Normal)]
                }
            }
            _ => {
                let n = self.add(Node::Stmt(s), &cur);
                vec![(n, Edge::Normal)]
            }
        }
    }
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
}
