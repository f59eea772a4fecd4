//! tree-sitter-go → IR. A direct walk; recursion is bounded by [`Limits::max_nesting`].
//!
//! Go constructs map onto the shared IR: methods are functions of a [`Class`] named after the
//! receiver's type, with the receiver as a [`Param::receiver`] first parameter; composite
//! literals of a named type are constructor calls with keyword fields (`&T{A: x}` →
//! `T(A=x)`); `&x`/`*x`/`x.(T)`/`T(x)` are transparent; a multiple return is a tuple; `go f(x)`
//! runs `f(x)` where it stands (its effects belong to the tool); `defer` is [`StmtKind::Defer`];
//! C-style `for` loops lower to the init plus a `While`.

use crate::{IssueKind, Limits, LowerIssue, Lowered};
use mcp_scan_ir::{
    Arg, Class, Expr, ExprKind, FuncId, Function, Import, Language, MatchArm, Module, Param, Span,
    Stmt, StmtKind,
};
use tree_sitter::{Node, Tree};

const UNKNOWN_TEXT_MAX: usize = 200;

pub(crate) fn span(n: Node) -> Span {
    let s = n.start_position();
    let e = n.end_position();
    Span {
        start_line: s.row as u32 + 1,
        start_col: s.column as u32 + 1,
        end_line: e.row as u32 + 1,
        end_col: e.column as u32 + 1,
        start_byte: n.start_byte(),
        end_byte: n.end_byte(),
    }
}

/// Named children without comments (comments are extras and may appear anywhere).
pub(crate) fn kids(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|k| k.kind() != "comment")
        .collect()
}

struct Lowerer<'a> {
    src: &'a str,
    functions: Vec<Function>,
    classes: Vec<Class>,
    imports: Vec<Import>,
    issues: Vec<LowerIssue>,
    depth: usize,
    limit: usize,
    deep_reported: bool,
    cur_func: FuncId,
    lambdas: usize,
}

pub(crate) fn lower_tree(rel_path: &str, src: &str, tree: &Tree, limits: &Limits) -> Lowered {
    let root = tree.root_node();
    let mut l = Lowerer {
        src,
        functions: Vec::new(),
        classes: Vec::new(),
        imports: Vec::new(),
        issues: Vec::new(),
        depth: 0,
        limit: limits.max_nesting.max(8),
        deep_reported: false,
        cur_func: 0,
        lambdas: 0,
    };
    if root.has_error() {
        l.report_syntax_error(root);
    }
    l.functions.push(Function {
        name: "<module>".into(),
        qualname: "<module>".into(),
        params: Vec::new(),
        body: Vec::new(),
        decorators: Vec::new(),
        docstring: None,
        is_async: false,
        parent: None,
        class: None,
        span: span(root),
    });
    let mut body = Vec::new();
    let mut package = None;
    for n in kids(root) {
        match n.kind() {
            "package_clause" => {
                package = kids(n).first().map(|k| l.text(*k).to_string());
            }
            "import_declaration" => l.import_decl(n),
            "function_declaration" | "method_declaration" => {
                l.func_decl(n);
            }
            "type_declaration" => l.type_decl(n),
            _ => l.stmt(n, &mut body),
        }
    }
    l.functions[0].body = body;
    // The package name is kept as the module docstring's stand-in: resolution groups files by
    // directory and checks they agree.
    l.functions[0].docstring = package;
    Lowered {
        module: Module {
            path: rel_path.to_string(),
            name: rel_path.to_string(),
            language: Language::Go,
            imports: l.imports,
            functions: l.functions,
            classes: l.classes,
            entry_points: Vec::new(),
            conventions: super::CONVENTIONS,
        },
        issues: l.issues,
        servers: Vec::new(),
    }
}

/// The package name an import path binds when the import names none: its last element,
/// without a major-version suffix (`.../v2`, `gopkg.in/yaml.v3`) or a `go-` prefix.
pub(crate) fn default_import_name(path: &str) -> String {
    let mut parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() > 1
        && parts.last().is_some_and(|l| {
            l.len() > 1 && l.starts_with('v') && l[1..].chars().all(|c| c.is_ascii_digit())
        })
    {
        parts.pop();
    }
    let last = parts.last().copied().unwrap_or(path);
    let last = match last.rsplit_once(".v") {
        Some((base, v)) if !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()) => base,
        _ => last,
    };
    let last = last.strip_prefix("go-").unwrap_or(last);
    let last = last.strip_suffix("-go").unwrap_or(last);
    last.replace(['-', '.'], "_")
}

fn go_string(raw: &str) -> String {
    if let Some(s) = raw.strip_prefix('`').and_then(|s| s.strip_suffix('`')) {
        return s.replace('\r', "");
    }
    let inner = raw
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| raw.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(raw);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some(k @ ('x' | 'u' | 'U')) => {
                let n = match k {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = chars.by_ref().take(n).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push('\\');
                        out.push(k);
                        out.push_str(&hex);
                    }
                }
            }
            Some(d @ '0'..='7') => {
                let mut v = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    if let Some(x) = chars.next().and_then(|c| c.to_digit(8)) {
                        v = v * 8 + x;
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\u{FFFD}'));
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

impl<'a> Lowerer<'a> {
    fn text(&self, n: Node) -> &'a str {
        self.src.get(n.byte_range()).unwrap_or("")
    }

    fn short_text(&self, n: Node) -> String {
        let t = self.text(n);
        if t.len() <= UNKNOWN_TEXT_MAX {
            return t.to_string();
        }
        let mut end = UNKNOWN_TEXT_MAX;
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        format!("{}…", &t[..end])
    }

    fn unknown_expr(&self, n: Node) -> Expr {
        Expr::new(ExprKind::Unknown(self.short_text(n)), span(n))
    }

    fn report_syntax_error(&mut self, root: Node) {
        self.issues
            .extend(crate::first_syntax_issue(root, self.src));
    }

    fn too_deep(&mut self, n: Node) {
        if !self.deep_reported {
            self.deep_reported = true;
            let p = n.start_position();
            self.issues.push(LowerIssue {
                kind: IssueKind::TooDeep,
                line: p.row as u32 + 1,
                column: p.column as u32 + 1,
                message: format!("more than {} nested levels", self.limit),
            });
        }
    }

    fn import_decl(&mut self, n: Node) {
        for k in kids(n) {
            match k.kind() {
                "import_spec" => self.import_spec(k),
                "import_spec_list" => {
                    for s in kids(k) {
                        if s.kind() == "import_spec" {
                            self.import_spec(s);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn import_spec(&mut self, n: Node) {
        let Some(path) = n.child_by_field_name("path") else {
            return;
        };
        let module = go_string(self.text(path));
        let local = match n.child_by_field_name("name") {
            // `import _ "x"` binds nothing; `import . "x"` merges names (not followed).
            Some(name) if name.kind() != "package_identifier" => return,
            Some(name) => self.text(name).to_string(),
            None => default_import_name(&module),
        };
        // The span is the spec alone (`"os/exec"`), never an `import` keyword.
        self.imports.push(Import {
            local,
            module,
            symbol: None,
            span: span(n),
        });
    }

    fn type_decl(&mut self, n: Node) {
        for spec in kids(n) {
            if spec.kind() != "type_spec" {
                continue;
            }
            let Some(name) = spec.child_by_field_name("name") else {
                continue;
            };
            let name = self.text(name).to_string();
            let mut fields = Vec::new();
            if let Some(t) = spec.child_by_field_name("type")
                && t.kind() == "struct_type"
            {
                for fl in kids(t) {
                    for fd in kids(fl) {
                        if fd.kind() != "field_declaration" {
                            continue;
                        }
                        let mut c = fd.walk();
                        for nm in fd.children_by_field_name("name", &mut c) {
                            fields.push(self.text(nm).to_string());
                        }
                    }
                }
            }
            let cls = self.class_mut(&name, span(spec));
            cls.fields = fields;
            cls.span = span(spec);
        }
    }

    fn class_mut(&mut self, name: &str, sp: Span) -> &mut Class {
        let i = match self.classes.iter().position(|c| c.name == name) {
            Some(i) => i,
            None => {
                self.classes.push(Class {
                    name: name.to_string(),
                    bases: Vec::new(),
                    methods: Vec::new(),
                    fields: Vec::new(),
                    span: sp,
                });
                self.classes.len() - 1
            }
        };
        &mut self.classes[i]
    }

    /// The type name of a receiver or parameter type (`*Server` → `Server`, `pkg.T[X]` → `pkg.T`).
    fn type_name(&self, t: Node) -> String {
        match t.kind() {
            "pointer_type" => kids(t)
                .first()
                .map(|k| self.type_name(*k))
                .unwrap_or_default(),
            "generic_type" => t
                .child_by_field_name("type")
                .map(|k| self.type_name(k))
                .unwrap_or_default(),
            _ => self.text(t).to_string(),
        }
    }

    fn params(&self, list: Node, receiver: bool) -> Vec<Param> {
        let mut out = Vec::new();
        for p in kids(list) {
            let variadic = p.kind() == "variadic_parameter_declaration";
            if p.kind() != "parameter_declaration" && !variadic {
                continue;
            }
            let ty = p.child_by_field_name("type");
            let annotation = ty.map(|t| {
                if receiver {
                    self.type_name(t)
                } else {
                    self.text(t).to_string()
                }
            });
            let mut c = p.walk();
            let names: Vec<Node> = p.children_by_field_name("name", &mut c).collect();
            if names.is_empty() {
                // An unnamed parameter still takes an argument's position.
                out.push(Param {
                    name: format!("_{}", out.len()),
                    annotation,
                    default: None,
                    variadic,
                    keywords: false,
                    injected: false,
                    receiver,
                });
                continue;
            }
            for nm in names {
                out.push(Param {
                    name: self.text(nm).to_string(),
                    annotation: annotation.clone(),
                    default: None,
                    variadic,
                    keywords: false,
                    injected: false,
                    receiver,
                });
            }
        }
        out
    }

    fn func_decl(&mut self, n: Node) -> FuncId {
        let name = n
            .child_by_field_name("name")
            .map(|k| self.text(k).to_string())
            .unwrap_or_default();
        let mut params = Vec::new();
        let mut class = None;
        if let Some(r) = n.child_by_field_name("receiver") {
            params = self.params(r, true);
            class = params.first().and_then(|p| p.annotation.clone());
            if params.is_empty() {
                // `func (T) m()`: no name, but the method still has a receiver.
                let t = kids(r)
                    .first()
                    .and_then(|p| p.child_by_field_name("type"))
                    .map(|t| self.type_name(t));
                class = t;
            }
        }
        if let Some(p) = n.child_by_field_name("parameters") {
            params.extend(self.params(p, false));
        }
        let qualname = match &class {
            Some(c) => format!("{c}.{name}"),
            None => name.clone(),
        };
        let fid = self.new_function(name, qualname, params, None, class.clone(), n);
        if let Some(c) = class {
            self.class_mut(&c, span(n)).methods.push(fid);
        }
        self.fill_body(fid, n);
        fid
    }

    fn new_function(
        &mut self,
        name: String,
        qualname: String,
        params: Vec<Param>,
        parent: Option<FuncId>,
        class: Option<String>,
        n: Node,
    ) -> FuncId {
        self.functions.push(Function {
            name,
            qualname,
            params,
            body: Vec::new(),
            decorators: Vec::new(),
            docstring: None,
            is_async: false,
            parent,
            class,
            span: span(n),
        });
        self.functions.len() - 1
    }

    fn fill_body(&mut self, fid: FuncId, n: Node) {
        let saved = self.cur_func;
        self.cur_func = fid;
        let mut body = Vec::new();
        if let Some(b) = n.child_by_field_name("body") {
            self.block(b, &mut body);
        }
        self.functions[fid].body = body;
        self.cur_func = saved;
    }

    fn block(&mut self, n: Node, out: &mut Vec<Stmt>) {
        for k in kids(n) {
            if k.kind() == "statement_list" {
                for s in kids(k) {
                    self.stmt(s, out);
                }
            } else {
                self.stmt(k, out);
            }
        }
    }

    fn block_of(&mut self, n: Option<Node>) -> Vec<Stmt> {
        let mut out = Vec::new();
        if let Some(n) = n {
            if n.kind() == "block" {
                self.block(n, &mut out);
            } else {
                self.stmt(n, &mut out);
            }
        }
        out
    }

    fn stmt(&mut self, n: Node, out: &mut Vec<Stmt>) {
        if self.depth >= self.limit {
            self.too_deep(n);
            out.push(Stmt {
                kind: StmtKind::Unknown {
                    text: self.short_text(n),
                },
                span: span(n),
            });
            return;
        }
        self.depth += 1;
        self.stmt_inner(n, out);
        self.depth -= 1;
    }

    fn exprs(&mut self, list: Option<Node>) -> Vec<Expr> {
        match list {
            Some(l) if l.kind() == "expression_list" => {
                kids(l).into_iter().map(|k| self.expr(k)).collect()
            }
            Some(l) => vec![self.expr(l)],
            None => Vec::new(),
        }
    }

    fn one_or_tuple(mut v: Vec<Expr>, sp: Span) -> Expr {
        if v.len() == 1 {
            v.remove(0)
        } else {
            Expr::new(ExprKind::Tuple(v), sp)
        }
    }

    fn assign(&mut self, left: Option<Node>, right: Option<Node>, sp: Span, out: &mut Vec<Stmt>) {
        let targets = self.exprs(left);
        let values = self.exprs(right);
        if targets.len() > 1 && targets.len() == values.len() {
            // `a, b := x, y`: pairwise (a tuple value would tie each to the other's taint).
            for (t, v) in targets.into_iter().zip(values) {
                out.push(Stmt {
                    kind: StmtKind::Assign {
                        targets: vec![t],
                        value: v,
                    },
                    span: sp,
                });
            }
            return;
        }
        let target = Self::one_or_tuple(targets, sp);
        let value = if values.is_empty() {
            Expr::new(ExprKind::Null, sp)
        } else {
            Self::one_or_tuple(values, sp)
        };
        out.push(Stmt {
            kind: StmtKind::Assign {
                targets: vec![target],
                value,
            },
            span: sp,
        });
    }

    fn stmt_inner(&mut self, n: Node, out: &mut Vec<Stmt>) {
        let sp = span(n);
        let kind = match n.kind() {
            "comment" | "empty_statement" | "fallthrough_statement" => return,
            "expression_statement" => match kids(n).first() {
                Some(e) => StmtKind::Expr(self.expr(*e)),
                None => return,
            },
            "short_var_declaration" => {
                return self.assign(
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                    sp,
                    out,
                );
            }
            "assignment_statement" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("=");
                if op == "=" {
                    return self.assign(
                        n.child_by_field_name("left"),
                        n.child_by_field_name("right"),
                        sp,
                        out,
                    );
                } else {
                    let target = Self::one_or_tuple(self.exprs(n.child_by_field_name("left")), sp);
                    let value = Self::one_or_tuple(self.exprs(n.child_by_field_name("right")), sp);
                    StmtKind::AugAssign {
                        target,
                        op: op.trim_end_matches('=').to_string(),
                        value,
                    }
                }
            }
            "inc_statement" | "dec_statement" => {
                let Some(t) = kids(n).first().copied() else {
                    return;
                };
                StmtKind::AugAssign {
                    target: self.expr(t),
                    op: if n.kind() == "inc_statement" {
                        "+"
                    } else {
                        "-"
                    }
                    .into(),
                    value: Expr::new(ExprKind::Number("1".into()), sp),
                }
            }
            "var_declaration" | "const_declaration" => {
                for spec in kids(n) {
                    let specs = if spec.kind() == "var_spec_list" {
                        kids(spec)
                    } else {
                        vec![spec]
                    };
                    for s in specs {
                        if s.kind() != "var_spec" && s.kind() != "const_spec" {
                            continue;
                        }
                        let mut c = s.walk();
                        let names: Vec<Expr> = s
                            .children_by_field_name("name", &mut c)
                            .filter(|k| k.kind() == "identifier")
                            .map(|k| Expr::new(ExprKind::Name(self.text(k).to_string()), span(k)))
                            .collect();
                        let values = self.exprs(s.child_by_field_name("value"));
                        let ssp = span(s);
                        if names.len() > 1 && names.len() == values.len() {
                            for (t, v) in names.into_iter().zip(values) {
                                out.push(Stmt {
                                    kind: StmtKind::Assign {
                                        targets: vec![t],
                                        value: v,
                                    },
                                    span: ssp,
                                });
                            }
                            continue;
                        }
                        if names.is_empty() {
                            continue;
                        }
                        let value = if values.is_empty() {
                            Expr::new(ExprKind::Null, ssp)
                        } else {
                            Self::one_or_tuple(values, ssp)
                        };
                        out.push(Stmt {
                            kind: StmtKind::Assign {
                                targets: vec![Self::one_or_tuple(names, ssp)],
                                value,
                            },
                            span: ssp,
                        });
                    }
                }
                return;
            }
            "return_statement" => {
                let v = kids(n).first().map(|l| {
                    let es = self.exprs(Some(*l));
                    Self::one_or_tuple(es, sp)
                });
                StmtKind::Return(v)
            }
            "if_statement" => {
                if let Some(init) = n.child_by_field_name("initializer") {
                    self.stmt(init, out);
                }
                let test = match n.child_by_field_name("condition") {
                    Some(c) => self.expr(c),
                    None => Expr::new(ExprKind::Bool(true), sp),
                };
                let then = self.block_of(n.child_by_field_name("consequence"));
                let orelse = self.block_of(n.child_by_field_name("alternative"));
                StmtKind::If { test, then, orelse }
            }
            "for_statement" => return self.for_stmt(n, out),
            "expression_switch_statement" | "type_switch_statement" | "select_statement" => {
                return self.switch(n, out);
            }
            "defer_statement" => {
                let Some(e) = kids(n).first().copied() else {
                    return;
                };
                let call = self.expr(e);
                StmtKind::Defer(vec![Stmt {
                    kind: StmtKind::Expr(call),
                    span: sp,
                }])
            }
            // The goroutine's effects are the tool's: its call runs where it stands.
            "go_statement" => match kids(n).first() {
                Some(e) => StmtKind::Expr(self.expr(*e)),
                None => return,
            },
            "send_statement" => {
                let ch = n.child_by_field_name("channel");
                let v = n.child_by_field_name("value");
                match (ch, v) {
                    (Some(ch), Some(v)) => {
                        let ch = self.expr(ch);
                        let v = self.expr(v);
                        StmtKind::Assign {
                            targets: vec![Expr::new(
                                ExprKind::Index {
                                    value: Box::new(ch),
                                    index: Box::new(Expr::new(ExprKind::Unknown("<-".into()), sp)),
                                },
                                sp,
                            )],
                            value: v,
                        }
                    }
                    _ => return,
                }
            }
            "labeled_statement" => {
                let label = n
                    .child_by_field_name("label")
                    .map(|l| self.text(l).to_string())
                    .unwrap_or_default();
                let mut body = Vec::new();
                for k in kids(n).into_iter().skip(1) {
                    self.stmt(k, &mut body);
                }
                StmtKind::Labeled { label, body }
            }
            "break_statement" | "continue_statement" => {
                let label = kids(n)
                    .into_iter()
                    .find(|k| k.kind() == "label_name")
                    .map(|l| self.text(l).to_string());
                match (n.kind(), label) {
                    ("break_statement", None) => StmtKind::Break,
                    ("break_statement", Some(l)) => StmtKind::BreakTo(l),
                    (_, None) => StmtKind::Continue,
                    (_, Some(l)) => StmtKind::ContinueTo(l),
                }
            }
            "block" => {
                self.block(n, out);
                return;
            }
            "type_declaration" => {
                self.type_decl(n);
                return;
            }
            "function_declaration" | "method_declaration" => {
                self.func_decl(n);
                return;
            }
            // A bare call or value used as a statement (inside case bodies).
            k if k.ends_with("_expression") || k == "identifier" => StmtKind::Expr(self.expr(n)),
            _ => StmtKind::Unknown {
                text: self.short_text(n),
            },
        };
        out.push(Stmt { kind, span: sp });
    }

    fn for_stmt(&mut self, n: Node, out: &mut Vec<Stmt>) {
        let sp = span(n);
        let mut body = self.block_of(n.child_by_field_name("body"));
        let head = kids(n)
            .into_iter()
            .find(|k| k.kind() != "block" && k.kind() != "comment");
        let kind = match head {
            Some(h) if h.kind() == "range_clause" => {
                let targets = self.exprs(h.child_by_field_name("left"));
                let iter = match h.child_by_field_name("right") {
                    Some(r) => self.expr(r),
                    None => Expr::new(ExprKind::Unknown("range".into()), sp),
                };
                // `for k, v := range xs`: the loop walks elements into `v`; the key is bound to
                // the collection's keys (unknown here).
                let mut targets = targets.into_iter();
                let first = targets.next();
                let second = targets.next();
                let target = match (first, second) {
                    (Some(k), Some(v)) => {
                        body.insert(
                            0,
                            Stmt {
                                kind: StmtKind::Assign {
                                    targets: vec![k],
                                    value: Expr::new(ExprKind::Unknown("range key".into()), sp),
                                },
                                span: sp,
                            },
                        );
                        v
                    }
                    (Some(k), None) => k,
                    _ => Expr::new(ExprKind::Name("_".into()), sp),
                };
                StmtKind::For {
                    target,
                    iter,
                    body,
                    orelse: Vec::new(),
                    is_async: false,
                }
            }
            Some(h) if h.kind() == "for_clause" => {
                if let Some(init) = h.child_by_field_name("initializer") {
                    self.stmt(init, out);
                }
                if let Some(upd) = h.child_by_field_name("update") {
                    self.stmt(upd, &mut body);
                }
                let test = match h.child_by_field_name("condition") {
                    Some(c) => self.expr(c),
                    None => Expr::new(ExprKind::Bool(true), sp),
                };
                StmtKind::While {
                    test,
                    body,
                    orelse: Vec::new(),
                }
            }
            Some(cond) => StmtKind::While {
                test: self.expr(cond),
                body,
                orelse: Vec::new(),
            },
            None => StmtKind::While {
                test: Expr::new(ExprKind::Bool(true), sp),
                body,
                orelse: Vec::new(),
            },
        };
        out.push(Stmt { kind, span: sp });
    }

    fn switch(&mut self, n: Node, out: &mut Vec<Stmt>) {
        let sp = span(n);
        if let Some(init) = n.child_by_field_name("initializer") {
            self.stmt(init, out);
        }
        let subject = match n.child_by_field_name("value") {
            Some(v) => self.expr(v),
            None => Expr::new(ExprKind::Bool(true), sp),
        };
        // `switch v := x.(type)`: each arm binds `v` to the subject.
        let alias: Vec<Expr> = self.exprs(n.child_by_field_name("alias"));
        let mut arms = Vec::new();
        for case in kids(n) {
            let ck = case.kind();
            if !matches!(
                ck,
                "expression_case" | "type_case" | "default_case" | "communication_case"
            ) {
                continue;
            }
            let mut body = Vec::new();
            for a in &alias {
                body.push(Stmt {
                    kind: StmtKind::Assign {
                        targets: vec![a.clone()],
                        value: subject.clone(),
                    },
                    span: span(case),
                });
            }
            let mut fallthrough = false;
            let mut pattern = None;
            for (i, k) in kids(case).into_iter().enumerate() {
                match (ck, i, k.kind()) {
                    ("expression_case", 0, "expression_list") => {
                        let es = self.exprs(Some(k));
                        pattern = Some(Self::one_or_tuple(es, span(k)));
                    }
                    ("type_case", _, _)
                        if case
                            .child_by_field_name("type")
                            .is_some_and(|t| t.id() == k.id())
                            || k.kind().ends_with("type")
                            || k.kind() == "type_identifier"
                            || k.kind() == "qualified_type" =>
                    {
                        if pattern.is_none() {
                            pattern = Some(self.unknown_expr(k));
                        }
                    }
                    ("communication_case", 0, _) => {
                        // `case v := <-ch`: the receive runs when the arm is chosen.
                        self.stmt(k, &mut body);
                        pattern = Some(self.unknown_expr(k));
                    }
                    (_, _, "fallthrough_statement") => fallthrough = true,
                    (_, _, "statement_list") => {
                        for s in kids(k) {
                            if s.kind() == "fallthrough_statement" {
                                fallthrough = true;
                            }
                            self.stmt(s, &mut body);
                        }
                    }
                    _ => {
                        if k.kind() == "fallthrough_statement" {
                            fallthrough = true;
                        }
                        self.stmt(k, &mut body);
                    }
                }
            }
            if ck != "default_case" && pattern.is_none() {
                pattern = Some(Expr::new(ExprKind::Unknown("case".into()), span(case)));
            }
            arms.push(MatchArm {
                pattern,
                body,
                fallthrough,
                span: span(case),
            });
        }
        out.push(Stmt {
            kind: StmtKind::Switch { subject, arms },
            span: sp,
        });
    }

    fn expr(&mut self, n: Node) -> Expr {
        if self.depth >= self.limit {
            self.too_deep(n);
            return self.unknown_expr(n);
        }
        self.depth += 1;
        let e = self.expr_inner(n);
        self.depth -= 1;
        e
    }

    fn expr_inner(&mut self, n: Node) -> Expr {
        let sp = span(n);
        let kind = match n.kind() {
            "identifier" | "field_identifier" | "package_identifier" | "type_identifier" => {
                match self.text(n) {
                    "nil" => ExprKind::Null,
                    "true" => ExprKind::Bool(true),
                    "false" => ExprKind::Bool(false),
                    t => ExprKind::Name(t.to_string()),
                }
            }
            "nil" => ExprKind::Null,
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            "iota" | "int_literal" | "float_literal" | "imaginary_literal" => {
                ExprKind::Number(self.text(n).to_string())
            }
            "interpreted_string_literal" | "raw_string_literal" | "rune_literal" => {
                ExprKind::Str(go_string(self.text(n)))
            }
            "parenthesized_expression" => {
                return match kids(n).first() {
                    Some(k) => self.expr(*k),
                    None => self.unknown_expr(n),
                };
            }
            "selector_expression" => {
                let (Some(op), Some(f)) = (
                    n.child_by_field_name("operand"),
                    n.child_by_field_name("field"),
                ) else {
                    return self.unknown_expr(n);
                };
                ExprKind::Attribute {
                    value: Box::new(self.expr(op)),
                    attr: self.text(f).to_string(),
                }
            }
            "qualified_type" => {
                let (Some(p), Some(t)) = (
                    n.child_by_field_name("package"),
                    n.child_by_field_name("name"),
                ) else {
                    return self.unknown_expr(n);
                };
                ExprKind::Attribute {
                    value: Box::new(Expr::new(ExprKind::Name(self.text(p).to_string()), span(p))),
                    attr: self.text(t).to_string(),
                }
            }
            "generic_type" => {
                return match n.child_by_field_name("type") {
                    Some(t) => self.expr(t),
                    None => self.unknown_expr(n),
                };
            }
            "call_expression" => {
                let Some(f) = n.child_by_field_name("function") else {
                    return self.unknown_expr(n);
                };
                let callee = self.expr(f);
                let mut args = Vec::new();
                if let Some(al) = n.child_by_field_name("arguments") {
                    for a in kids(al) {
                        let (spread, node) = if a.kind() == "variadic_argument" {
                            match kids(a).first() {
                                Some(x) => (true, *x),
                                None => continue,
                            }
                        } else {
                            (false, a)
                        };
                        let value = self.expr(node);
                        args.push(Arg {
                            name: None,
                            value,
                            spread,
                            spread_keywords: false,
                        });
                    }
                }
                ExprKind::Call {
                    callee: Box::new(callee),
                    args,
                }
            }
            "binary_expression" => {
                let (Some(l), Some(r), Some(o)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                    n.child_by_field_name("operator"),
                ) else {
                    return self.unknown_expr(n);
                };
                let op = match self.text(o) {
                    "&&" => "and",
                    "||" => "or",
                    other => other,
                }
                .to_string();
                ExprKind::Binary {
                    op,
                    left: Box::new(self.expr(l)),
                    right: Box::new(self.expr(r)),
                }
            }
            "unary_expression" => {
                let (Some(o), Some(x)) = (
                    n.child_by_field_name("operator"),
                    n.child_by_field_name("operand"),
                ) else {
                    return self.unknown_expr(n);
                };
                let operand = self.expr(x);
                match self.text(o) {
                    // Taking an address or dereferencing keeps the value.
                    "&" | "*" | "+" => return operand,
                    // A receive takes an element of the channel.
                    "<-" => ExprKind::Index {
                        value: Box::new(operand),
                        index: Box::new(Expr::new(ExprKind::Unknown("<-".into()), sp)),
                    },
                    "!" => ExprKind::Unary {
                        op: "not".into(),
                        operand: Box::new(operand),
                    },
                    op => ExprKind::Unary {
                        op: op.to_string(),
                        operand: Box::new(operand),
                    },
                }
            }
            // `*p` as an expression is a pointer_type-looking node in some positions.
            "pointer_type" => {
                return match kids(n).first() {
                    Some(k) => self.expr(*k),
                    None => self.unknown_expr(n),
                };
            }
            "index_expression" => {
                let (Some(o), Some(i)) = (
                    n.child_by_field_name("operand"),
                    n.child_by_field_name("index"),
                ) else {
                    return self.unknown_expr(n);
                };
                ExprKind::Index {
                    value: Box::new(self.expr(o)),
                    index: Box::new(self.expr(i)),
                }
            }
            "slice_expression" => {
                let Some(o) = n.child_by_field_name("operand") else {
                    return self.unknown_expr(n);
                };
                ExprKind::Index {
                    value: Box::new(self.expr(o)),
                    index: Box::new(Expr::new(ExprKind::Unknown(":".into()), sp)),
                }
            }
            "type_assertion_expression" | "type_conversion_expression" => {
                return match n.child_by_field_name("operand") {
                    Some(o) => self.expr(o),
                    None => self.unknown_expr(n),
                };
            }
            "composite_literal" => return self.composite(n),
            "func_literal" => {
                self.lambdas += 1;
                let params = n
                    .child_by_field_name("parameters")
                    .map(|p| self.params(p, false))
                    .unwrap_or_default();
                let parent = self.cur_func;
                let qual = format!(
                    "{}.<func@{}>",
                    self.functions[parent].qualname, sp.start_line
                );
                let fid = self.new_function(
                    format!("<func@{}>", sp.start_line),
                    qual,
                    params,
                    Some(parent),
                    None,
                    n,
                );
                self.fill_body(fid, n);
                ExprKind::Lambda(fid)
            }
            _ => ExprKind::Unknown(self.short_text(n)),
        };
        Expr::new(kind, sp)
    }

    fn literal_element(&mut self, n: Node) -> Expr {
        match n.kind() {
            "literal_element" => match kids(n).first() {
                Some(k) if k.kind() == "literal_value" => self.literal_value(*k, None),
                Some(k) => self.expr(*k),
                None => self.unknown_expr(n),
            },
            "literal_value" => self.literal_value(n, None),
            _ => self.expr(n),
        }
    }

    /// `{...}` of a composite literal: struct fields become keyword arguments of a call to the
    /// type when `ty` names one; maps become dicts, slices and arrays lists.
    fn literal_value(&mut self, n: Node, ty: Option<Node>) -> Expr {
        let sp = span(n);
        let elems = kids(n);
        let keyed = elems.iter().any(|e| e.kind() == "keyed_element");
        let ty_kind = ty.map(|t| t.kind()).unwrap_or("");
        let is_struct_type = matches!(
            ty_kind,
            "type_identifier" | "qualified_type" | "generic_type"
        );
        if ty_kind == "map_type" || (keyed && !is_struct_type) {
            let mut pairs = Vec::new();
            for e in elems {
                if e.kind() != "keyed_element" {
                    continue;
                }
                let (Some(k), Some(v)) =
                    (e.child_by_field_name("key"), e.child_by_field_name("value"))
                else {
                    continue;
                };
                // An elided struct literal's field names are keys, not variables.
                let key = match kids(k).first() {
                    Some(id) if id.kind() == "identifier" && ty_kind != "map_type" => {
                        Expr::new(ExprKind::Str(self.text(*id).to_string()), span(*id))
                    }
                    _ => self.literal_element(k),
                };
                let value = self.literal_element(v);
                pairs.push((Some(key), value));
            }
            return Expr::new(ExprKind::Dict(pairs), sp);
        }
        if let (true, Some(t)) = (is_struct_type, ty) {
            let callee = self.expr(t);
            let mut args = Vec::new();
            for e in elems {
                if e.kind() == "keyed_element" {
                    let (Some(k), Some(v)) =
                        (e.child_by_field_name("key"), e.child_by_field_name("value"))
                    else {
                        continue;
                    };
                    let name = self.text(k).trim().to_string();
                    let value = self.literal_element(v);
                    args.push(Arg {
                        name: Some(name),
                        value,
                        spread: false,
                        spread_keywords: false,
                    });
                } else if e.kind() != "comment" {
                    let value = self.literal_element(e);
                    args.push(Arg {
                        name: None,
                        value,
                        spread: false,
                        spread_keywords: false,
                    });
                }
            }
            return Expr::new(
                ExprKind::Call {
                    callee: Box::new(callee),
                    args,
                },
                sp,
            );
        }
        let items = elems
            .into_iter()
            .filter(|e| e.kind() != "comment")
            .map(|e| self.literal_element(e))
            .collect();
        Expr::new(ExprKind::List(items), sp)
    }

    fn composite(&mut self, n: Node) -> Expr {
        let ty = n.child_by_field_name("type");
        match n.child_by_field_name("body") {
            Some(b) => {
                let mut e = self.literal_value(b, ty);
                e.span = span(n);
                e
            }
            None => self.unknown_expr(n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn import_names_drop_version_suffixes_and_go_affixes() {
        assert_eq!(default_import_name("os/exec"), "exec");
        assert_eq!(
            default_import_name("github.com/mark3labs/mcp-go/mcp"),
            "mcp"
        );
        assert_eq!(
            default_import_name("github.com/google/go-github/v69/github"),
            "github"
        );
        assert_eq!(default_import_name("gopkg.in/yaml.v3"), "yaml");
        assert_eq!(default_import_name("github.com/x/go-foo"), "foo");
    }

    #[test]
    fn go_string_literals_decode_escapes_and_raw_strings_stay_raw() {
        assert_eq!(go_string(r#""a\tb\x41\u00e9""#), "a\tbAé");
        assert_eq!(go_string(r"`C:\path\n`"), r"C:\path\n");
    }
}
