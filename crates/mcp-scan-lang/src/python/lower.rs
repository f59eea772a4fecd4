//! tree-sitter-python → IR. A direct, allocation-light walk; recursion is bounded by
//! [`Limits::max_nesting`] so no input can overflow the stack.

use super::{module_name, resolve_relative};
use crate::strings::{clean_doc, decode_escapes, parse_prefix};
use crate::{IssueKind, Limits, LowerIssue, Lowered, ServerBinding};
use mcp_scan_ir::{
    Arg, Class, Expr, ExprKind, FuncId, Function, Handler, Import, Language, MatchArm, Module,
    Param, Span, Stmt, StmtKind, StrPart, WithItem,
};
use std::collections::HashMap;
use tree_sitter::{Node, Tree};

/// Lowering result before entry points are attached.
pub(crate) struct Draft {
    pub module: Module,
    pub issues: Vec<LowerIssue>,
    /// Start byte of each `function_definition` node → its function.
    pub def_starts: HashMap<usize, FuncId>,
    /// Calls whose callee ends in a name the framework model cares about, by start byte, with
    /// the function they occur in.
    pub calls: HashMap<usize, (Expr, FuncId)>,
    pub servers: Vec<ServerBinding>,
}

impl Draft {
    pub fn into_lowered(self) -> Lowered {
        Lowered {
            module: self.module,
            issues: self.issues,
            servers: self.servers,
        }
    }
}

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
        .filter(|k| k.kind() != "comment" && k.kind() != "line_continuation")
        .collect()
}

struct Lowerer<'a> {
    src: &'a str,
    module_name: String,
    is_package: bool,
    functions: Vec<Function>,
    classes: Vec<Class>,
    imports: Vec<Import>,
    issues: Vec<LowerIssue>,
    depth: usize,
    limit: usize,
    deep_reported: bool,
    scope: Vec<String>,
    cur_func: FuncId,
    cur_class: Option<String>,
    def_starts: HashMap<usize, FuncId>,
    calls: HashMap<usize, (Expr, FuncId)>,
}

pub(crate) fn lower_tree(rel_path: &str, src: &str, tree: &Tree, limits: &Limits) -> Draft {
    let (name, is_package) = module_name(rel_path);
    let root = tree.root_node();
    let mut l = Lowerer {
        src,
        module_name: name.clone(),
        is_package,
        functions: Vec::new(),
        classes: Vec::new(),
        imports: Vec::new(),
        issues: Vec::new(),
        depth: 0,
        limit: limits.max_nesting.max(8),
        deep_reported: false,
        scope: Vec::new(),
        cur_func: 0,
        cur_class: None,
        def_starts: HashMap::new(),
        calls: HashMap::new(),
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
    let (body, doc) = l.body_with_doc(root);
    l.functions[0].body = body;
    l.functions[0].docstring = doc;
    Draft {
        module: Module {
            path: rel_path.to_string(),
            name,
            language: Language::Python,
            imports: l.imports,
            functions: l.functions,
            classes: l.classes,
            entry_points: Vec::new(),
            conventions: super::CONVENTIONS,
        },
        issues: l.issues,
        def_starts: l.def_starts,
        calls: l.calls,
        servers: Vec::new(),
    }
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

    /// Finds the first ERROR or MISSING node iteratively (the tree may be arbitrarily deep).
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

    // ---------------------------------------------------------------- statements

    /// A block's statements plus its docstring (first statement, a plain string), which is not
    /// kept as a statement.
    fn body_with_doc(&mut self, block: Node) -> (Vec<Stmt>, Option<String>) {
        let ks = kids(block);
        let mut doc = None;
        let mut start = 0;
        if let Some(first) = ks.first()
            && first.kind() == "expression_statement"
        {
            let inner = kids(*first);
            if inner.len() == 1
                && matches!(inner[0].kind(), "string" | "concatenated_string")
                && let ExprKind::Str(s) = self.expr(inner[0]).kind
            {
                doc = Some(clean_doc(&s));
                start = 1;
            }
        }
        let mut out = Vec::with_capacity(ks.len());
        for k in &ks[start..] {
            self.stmt(*k, &mut out);
        }
        (out, doc)
    }

    fn block(&mut self, n: Option<Node>) -> Vec<Stmt> {
        let mut out = Vec::new();
        if let Some(n) = n {
            for k in kids(n) {
                self.stmt(k, &mut out);
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

    fn stmt_inner(&mut self, n: Node, out: &mut Vec<Stmt>) {
        let sp = span(n);
        let kind = match n.kind() {
            "expression_statement" => {
                let ks = kids(n);
                match ks.as_slice() {
                    [one] => match one.kind() {
                        "assignment" => self.assignment(*one),
                        "augmented_assignment" => {
                            let target = self.opt_expr(one.child_by_field_name("left"), *one);
                            let value = self.opt_expr(one.child_by_field_name("right"), *one);
                            let op = one
                                .child_by_field_name("operator")
                                .map(|o| self.text(o).trim_end_matches('=').to_string())
                                .unwrap_or_default();
                            Some(StmtKind::AugAssign { target, op, value })
                        }
                        _ => Some(StmtKind::Expr(self.expr(*one))),
                    },
                    [] => None,
                    many => {
                        let items = many.iter().map(|k| self.expr(*k)).collect();
                        Some(StmtKind::Expr(Expr::new(ExprKind::Tuple(items), sp)))
                    }
                }
            }
            "return_statement" => Some(StmtKind::Return(kids(n).first().map(|k| self.expr(*k)))),
            "pass_statement" | "future_import_statement" | "type_alias_statement" => None,
            "break_statement" => Some(StmtKind::Break),
            "continue_statement" => Some(StmtKind::Continue),
            "if_statement" => Some(self.if_stmt(n)),
            "while_statement" => {
                let test = self.opt_expr(n.child_by_field_name("condition"), n);
                let body = self.block(n.child_by_field_name("body"));
                let orelse = self.else_body(n.child_by_field_name("alternative"));
                Some(StmtKind::While { test, body, orelse })
            }
            "for_statement" => {
                let target = self.opt_expr(n.child_by_field_name("left"), n);
                let iter = self.opt_expr(n.child_by_field_name("right"), n);
                let body = self.block(n.child_by_field_name("body"));
                let orelse = self.else_body(n.child_by_field_name("alternative"));
                let is_async = n.child(0).is_some_and(|c| c.kind() == "async");
                Some(StmtKind::For {
                    target,
                    iter,
                    body,
                    orelse,
                    is_async,
                })
            }
            "try_statement" => Some(self.try_stmt(n)),
            "with_statement" => Some(self.with_stmt(n)),
            "match_statement" => Some(self.match_stmt(n)),
            "raise_statement" => {
                let value = kids(n)
                    .into_iter()
                    .find(|k| n.child_by_field_name("cause") != Some(*k))
                    .map(|k| self.expr(k));
                Some(StmtKind::Raise(value))
            }
            "function_definition" => {
                let func = self.function(n, Vec::new());
                Some(StmtKind::FunctionDef {
                    name: self.functions[func].name.clone(),
                    func,
                })
            }
            "class_definition" => Some(self.class(n)),
            "decorated_definition" => {
                let decorators: Vec<Expr> = kids(n)
                    .into_iter()
                    .filter(|k| k.kind() == "decorator")
                    .map(|d| match kids(d).first() {
                        Some(e) => self.expr(*e),
                        None => Expr::new(ExprKind::Unknown(self.short_text(d)), span(d)),
                    })
                    .collect();
                match n.child_by_field_name("definition") {
                    Some(def) if def.kind() == "function_definition" => {
                        let func = self.function(def, decorators);
                        Some(StmtKind::FunctionDef {
                            name: self.functions[func].name.clone(),
                            func,
                        })
                    }
                    Some(def) if def.kind() == "class_definition" => {
                        // Class decorators run in the enclosing scope: keep them as expressions there.
                        for d in decorators {
                            let dsp = d.span;
                            out.push(Stmt {
                                kind: StmtKind::Expr(d),
                                span: dsp,
                            });
                        }
                        Some(self.class(def))
                    }
                    _ => Some(StmtKind::Unknown {
                        text: self.short_text(n),
                    }),
                }
            }
            "import_statement" | "import_from_statement" => {
                let imports = self.import(n);
                self.imports.extend(imports.iter().cloned());
                Some(StmtKind::Import(imports))
            }
            "global_statement" | "nonlocal_statement" => Some(StmtKind::Scope {
                names: kids(n).iter().map(|k| self.text(*k).to_string()).collect(),
            }),
            "delete_statement" => {
                let mut targets = Vec::new();
                for k in kids(n) {
                    match self.expr(k) {
                        Expr {
                            kind: ExprKind::Tuple(items),
                            ..
                        } if k.kind() == "expression_list" => targets.extend(items),
                        e => targets.push(e),
                    }
                }
                Some(StmtKind::Delete(targets))
            }
            "assert_statement" => kids(n).first().map(|k| StmtKind::Expr(self.expr(*k))),
            // Python 2 statements that are really calls.
            "exec_statement" | "print_statement" => {
                let name = if n.kind() == "exec_statement" {
                    "exec"
                } else {
                    "print"
                };
                let args = kids(n)
                    .into_iter()
                    .filter(|k| k.kind() != "chevron")
                    .map(|k| Arg {
                        name: None,
                        value: self.expr(k),
                        spread: false,
                        spread_keywords: false,
                    })
                    .collect();
                let callee = Expr::new(ExprKind::Name(name.into()), sp);
                Some(StmtKind::Expr(Expr::new(
                    ExprKind::Call {
                        callee: Box::new(callee),
                        args,
                    },
                    sp,
                )))
            }
            _ => Some(StmtKind::Unknown {
                text: self.short_text(n),
            }),
        };
        if let Some(kind) = kind {
            out.push(Stmt { kind, span: sp });
        }
    }

    /// `a = b = value`, `x: int = 1`; a bare annotation `x: int` declares nothing at runtime.
    fn assignment(&mut self, n: Node) -> Option<StmtKind> {
        let mut targets = Vec::new();
        let mut cur = n;
        loop {
            if let Some(left) = cur.child_by_field_name("left") {
                targets.push(self.expr(left));
            }
            match cur.child_by_field_name("right") {
                Some(r) if r.kind() == "assignment" && targets.len() < self.limit => cur = r,
                Some(r) => {
                    let value = self.expr(r);
                    return Some(StmtKind::Assign { targets, value });
                }
                None => return None,
            }
        }
    }

    fn else_body(&mut self, alt: Option<Node>) -> Vec<Stmt> {
        match alt {
            Some(e) => self.block(e.child_by_field_name("body")),
            None => Vec::new(),
        }
    }

    fn if_stmt(&mut self, n: Node) -> StmtKind {
        let test = self.opt_expr(n.child_by_field_name("condition"), n);
        let then = self.block(n.child_by_field_name("consequence"));
        let mut c = n.walk();
        let alts: Vec<Node> = n.children_by_field_name("alternative", &mut c).collect();
        // elif chains nest to the right: lower from the last clause backwards.
        let mut orelse = Vec::new();
        for alt in alts.into_iter().rev() {
            match alt.kind() {
                "else_clause" => orelse = self.block(alt.child_by_field_name("body")),
                "elif_clause" => {
                    let t = self.opt_expr(alt.child_by_field_name("condition"), alt);
                    let b = self.block(alt.child_by_field_name("consequence"));
                    orelse = vec![Stmt {
                        kind: StmtKind::If {
                            test: t,
                            then: b,
                            orelse,
                        },
                        span: span(alt),
                    }];
                }
                _ => {}
            }
        }
        StmtKind::If { test, then, orelse }
    }

    fn try_stmt(&mut self, n: Node) -> StmtKind {
        let body = self.block(n.child_by_field_name("body"));
        let mut handlers = Vec::new();
        let mut orelse = Vec::new();
        let mut finally = Vec::new();
        for k in kids(n) {
            match k.kind() {
                "except_clause" | "except_group_clause" => {
                    let ks = kids(k);
                    let block = ks.iter().rev().find(|c| c.kind() == "block").copied();
                    let mut kind = None;
                    let mut name = None;
                    let value = k
                        .child_by_field_name("value")
                        .or_else(|| ks.iter().find(|c| c.kind() != "block").copied());
                    if let Some(first) = value {
                        // `except (A, B) as e` parses as an as_pattern in the value position.
                        if first.kind() == "as_pattern" {
                            let inner = kids(first);
                            if let Some(e) = inner.first() {
                                kind = Some(self.expr(*e));
                            }
                            name = first
                                .child_by_field_name("alias")
                                .map(|a| self.text(a).to_string());
                        } else {
                            kind = Some(self.expr(first));
                            name = k
                                .child_by_field_name("alias")
                                .map(|a| self.text(a).to_string());
                        }
                    }
                    handlers.push(Handler {
                        kind,
                        name,
                        body: self.block(block),
                        span: span(k),
                    });
                }
                "else_clause" => orelse = self.block(k.child_by_field_name("body")),
                "finally_clause" => {
                    let b = kids(k).into_iter().find(|c| c.kind() == "block");
                    finally = self.block(b);
                }
                _ => {}
            }
        }
        StmtKind::Try {
            body,
            handlers,
            orelse,
            finally,
        }
    }

    fn with_stmt(&mut self, n: Node) -> StmtKind {
        let is_async = n.child(0).is_some_and(|c| c.kind() == "async");
        let mut items = Vec::new();
        for clause in kids(n).into_iter().filter(|k| k.kind() == "with_clause") {
            for item in kids(clause) {
                let Some(v) = item.child_by_field_name("value") else {
                    continue;
                };
                if v.kind() == "as_pattern" {
                    let context = match kids(v).first() {
                        Some(c) => self.expr(*c),
                        None => Expr::new(ExprKind::Unknown(self.short_text(v)), span(v)),
                    };
                    let target = v
                        .child_by_field_name("alias")
                        .map(|a| match kids(a).first() {
                            Some(t) => self.expr(*t),
                            None => self.expr(a),
                        });
                    items.push(WithItem { context, target });
                } else {
                    items.push(WithItem {
                        context: self.expr(v),
                        target: None,
                    });
                }
            }
        }
        let body = self.block(n.child_by_field_name("body"));
        StmtKind::With {
            items,
            body,
            is_async,
        }
    }

    fn match_stmt(&mut self, n: Node) -> StmtKind {
        let mut c = n.walk();
        let subjects: Vec<Node> = n.children_by_field_name("subject", &mut c).collect();
        let subject = match subjects.as_slice() {
            [one] => self.expr(*one),
            [] => Expr::new(ExprKind::Unknown(String::new()), span(n)),
            many => {
                let items = many.iter().map(|s| self.expr(*s)).collect();
                Expr::new(ExprKind::Tuple(items), span(n))
            }
        };
        let mut arms = Vec::new();
        if let Some(body) = n.child_by_field_name("body") {
            for clause in kids(body).into_iter().filter(|k| k.kind() == "case_clause") {
                let patterns: Vec<Node> = kids(clause)
                    .into_iter()
                    .filter(|k| k.kind() == "case_pattern")
                    .collect();
                let pattern = match patterns.as_slice() {
                    [one] => self.pattern(*one),
                    [] => None,
                    many => {
                        let items = many.iter().filter_map(|p| self.pattern(*p)).collect();
                        Some(Expr::new(ExprKind::Tuple(items), span(clause)))
                    }
                };
                let mut body = self.block(clause.child_by_field_name("consequence"));
                if let Some(guard) = clause.child_by_field_name("guard") {
                    let test = match kids(guard).first() {
                        Some(g) => self.expr(*g),
                        None => Expr::new(ExprKind::Unknown(self.short_text(guard)), span(guard)),
                    };
                    body = vec![Stmt {
                        kind: StmtKind::If {
                            test,
                            then: body,
                            orelse: Vec::new(),
                        },
                        span: span(guard),
                    }];
                }
                arms.push(MatchArm {
                    pattern,
                    body,
                    fallthrough: false,
                    span: span(clause),
                });
            }
        }
        StmtKind::Match { subject, arms }
    }

    /// A case pattern as an expression: literals stay literals, `a | b` becomes `|` of both
    /// sides, `_` (the wildcard) is None.
    fn pattern(&mut self, n: Node) -> Option<Expr> {
        if self.depth >= self.limit {
            self.too_deep(n);
            return Some(Expr::new(ExprKind::Unknown(self.short_text(n)), span(n)));
        }
        let ks = kids(n);
        let sp = span(n);
        match n.kind() {
            "case_pattern" => match ks.as_slice() {
                [] => None,
                [one] => {
                    self.depth += 1;
                    let p = self.pattern(*one);
                    self.depth -= 1;
                    p
                }
                _ => Some(Expr::new(ExprKind::Unknown(self.short_text(n)), sp)),
            },
            "union_pattern" => {
                self.depth += 1;
                let mut parts = ks.iter().filter_map(|k| self.pattern(*k));
                let first = parts.next();
                let res = first.map(|f| {
                    parts.fold(f, |acc, p| {
                        Expr::new(
                            ExprKind::Binary {
                                op: "|".into(),
                                left: Box::new(acc),
                                right: Box::new(p),
                            },
                            sp,
                        )
                    })
                });
                self.depth -= 1;
                res
            }
            "string" | "concatenated_string" | "integer" | "float" | "true" | "false" | "none" => {
                Some(self.expr(n))
            }
            "dotted_name" => Some(self.dotted(n)),
            _ if self.text(n) == "_" => None,
            _ => Some(Expr::new(ExprKind::Unknown(self.short_text(n)), sp)),
        }
    }

    fn dotted(&mut self, n: Node) -> Expr {
        let sp = span(n);
        let mut parts = kids(n).into_iter();
        let Some(first) = parts.next() else {
            return Expr::new(ExprKind::Name(self.text(n).to_string()), sp);
        };
        let mut e = Expr::new(ExprKind::Name(self.text(first).to_string()), span(first));
        for p in parts {
            e = Expr::new(
                ExprKind::Attribute {
                    value: Box::new(e),
                    attr: self.text(p).to_string(),
                },
                sp,
            );
        }
        e
    }

    fn import(&mut self, n: Node) -> Vec<Import> {
        let sp = span(n);
        let mut out = Vec::new();
        if n.kind() == "import_statement" {
            let mut c = n.walk();
            for name in n.children_by_field_name("name", &mut c) {
                let (dotted, alias) = self.aliased(name);
                // `import a.b.c` binds `a` (to package `a`); `import a.b as c` binds `c` to `a.b`.
                let (local, module) = match alias {
                    Some(a) => (a, dotted),
                    None => {
                        let first = dotted.split('.').next().unwrap_or("").to_string();
                        (first.clone(), first)
                    }
                };
                out.push(Import {
                    local,
                    module,
                    symbol: None,
                    span: sp,
                });
            }
            return out;
        }
        let module = match n.child_by_field_name("module_name") {
            Some(m) if m.kind() == "relative_import" => {
                let ks = kids(m);
                let level = ks
                    .iter()
                    .find(|k| k.kind() == "import_prefix")
                    .map(|p| self.text(*p).chars().filter(|c| *c == '.').count())
                    .unwrap_or(1);
                let rest = ks
                    .iter()
                    .find(|k| k.kind() == "dotted_name")
                    .map(|d| self.text(*d).to_string())
                    .unwrap_or_default();
                resolve_relative(&self.module_name, self.is_package, level, &rest)
            }
            Some(m) => self.text(m).to_string(),
            None => String::new(),
        };
        if kids(n).iter().any(|k| k.kind() == "wildcard_import") {
            out.push(Import {
                local: "*".into(),
                module: module.clone(),
                symbol: Some("*".into()),
                span: sp,
            });
        }
        let mut c = n.walk();
        for name in n.children_by_field_name("name", &mut c) {
            let (symbol, alias) = self.aliased(name);
            out.push(Import {
                local: alias.unwrap_or_else(|| symbol.clone()),
                module: module.clone(),
                symbol: Some(symbol),
                span: sp,
            });
        }
        out
    }

    /// `dotted_name` or `aliased_import` → (dotted text without spaces, alias).
    fn aliased(&self, n: Node) -> (String, Option<String>) {
        if n.kind() == "aliased_import" {
            let name = n
                .child_by_field_name("name")
                .map(|d| self.text(d).split_whitespace().collect::<String>())
                .unwrap_or_default();
            let alias = n
                .child_by_field_name("alias")
                .map(|a| self.text(a).to_string());
            (name, alias)
        } else {
            (self.text(n).split_whitespace().collect(), None)
        }
    }

    // ---------------------------------------------------------------- definitions

    fn qualname(&self, name: &str) -> String {
        if self.scope.is_empty() {
            name.to_string()
        } else {
            format!("{}.{}", self.scope.join("."), name)
        }
    }

    fn function(&mut self, n: Node, decorators: Vec<Expr>) -> FuncId {
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x).to_string())
            .unwrap_or_else(|| "<anonymous>".into());
        let is_async = n.child(0).is_some_and(|c| c.kind() == "async");
        let class = self.cur_class.take();
        let id = self.functions.len();
        self.functions.push(Function {
            name: name.clone(),
            qualname: self.qualname(&name),
            params: Vec::new(),
            body: Vec::new(),
            decorators,
            docstring: None,
            is_async,
            parent: self.parent_of_new(),
            class: class.clone(),
            span: span(n),
        });
        self.def_starts.insert(n.start_byte(), id);
        let params = self.params(n.child_by_field_name("parameters"));
        let saved_func = std::mem::replace(&mut self.cur_func, id);
        self.scope.push(name);
        let (body, doc) = match n.child_by_field_name("body") {
            Some(b) => self.body_with_doc(b),
            None => (Vec::new(), None),
        };
        self.scope.pop();
        self.cur_func = saved_func;
        self.cur_class = class;
        let f = &mut self.functions[id];
        f.params = params;
        f.body = body;
        f.docstring = doc;
        id
    }

    /// Module-level definitions have no parent; nested ones have the enclosing function.
    fn parent_of_new(&self) -> Option<FuncId> {
        if self.cur_func == 0 {
            None
        } else {
            Some(self.cur_func)
        }
    }

    fn params(&mut self, n: Option<Node>) -> Vec<Param> {
        let mut out = Vec::new();
        let Some(n) = n else { return out };
        for k in kids(n) {
            let mut p = Param {
                name: String::new(),
                annotation: None,
                default: None,
                variadic: false,
                keywords: false,
                injected: false,
                receiver: false,
            };
            let mut target = k;
            match k.kind() {
                "typed_parameter" => {
                    p.annotation = k
                        .child_by_field_name("type")
                        .map(|t| self.text(t).to_string());
                    if let Some(inner) = kids(k).into_iter().find(|c| c.kind() != "type") {
                        target = inner;
                    }
                }
                "default_parameter" | "typed_default_parameter" => {
                    p.annotation = k
                        .child_by_field_name("type")
                        .map(|t| self.text(t).to_string());
                    p.default = k.child_by_field_name("value").map(|v| self.expr(v));
                    if let Some(nm) = k.child_by_field_name("name") {
                        target = nm;
                    }
                }
                "keyword_separator" | "positional_separator" => continue,
                _ => {}
            }
            match target.kind() {
                "list_splat_pattern" => {
                    p.variadic = true;
                    p.name = self.text(target).trim_start_matches('*').trim().to_string();
                }
                "dictionary_splat_pattern" => {
                    p.keywords = true;
                    p.name = self.text(target).trim_start_matches('*').trim().to_string();
                }
                _ => p.name = self.text(target).to_string(),
            }
            out.push(p);
        }
        out
    }

    fn class(&mut self, n: Node) -> StmtKind {
        let name = n
            .child_by_field_name("name")
            .map(|x| self.text(x).to_string())
            .unwrap_or_else(|| "<anonymous>".into());
        let bases = n
            .child_by_field_name("superclasses")
            .map(|s| {
                kids(s)
                    .into_iter()
                    .filter(|k| k.kind() != "keyword_argument")
                    .map(|k| self.text(k).split_whitespace().collect::<String>())
                    .collect()
            })
            .unwrap_or_default();
        let class_idx = self.classes.len();
        let fields = n
            .child_by_field_name("body")
            .map(|b| self.annotated_fields(b))
            .unwrap_or_default();
        self.classes.push(Class {
            name: name.clone(),
            bases,
            methods: Vec::new(),
            fields,
            span: span(n),
        });
        self.scope.push(name.clone());
        let mut methods = Vec::new();
        let mut other = Vec::new();
        if let Some(body) = n.child_by_field_name("body") {
            let (stmts, _doc) = {
                let saved = self.cur_class.replace(name.clone());
                let r = self.body_with_doc(body);
                self.cur_class = saved;
                r
            };
            for s in stmts {
                match &s.kind {
                    StmtKind::FunctionDef { func, .. }
                        if self.functions[*func].class.as_deref() == Some(name.as_str()) =>
                    {
                        methods.push(*func)
                    }
                    _ => other.push(s),
                }
            }
        }
        self.scope.pop();
        // Class-body code (attribute assignments, calls) runs once at definition time; it lives
        // in a synthetic function `<Class>.<body>` so it is neither lost nor mistaken for locals.
        if !other.is_empty() {
            self.functions.push(Function {
                name: "<body>".into(),
                qualname: self.qualname(&format!("{name}.<body>")),
                params: Vec::new(),
                body: other,
                decorators: Vec::new(),
                docstring: None,
                is_async: false,
                parent: self.parent_of_new(),
                class: Some(name.clone()),
                span: span(n),
            });
        }
        self.classes[class_idx].methods = methods;
        StmtKind::ClassDef { name }
    }

    /// `x: int` and `y: str = ""` written directly in a class body, in order (a bare annotation
    /// lowers to no statement, yet it is a dataclass field).
    fn annotated_fields(&self, body: Node) -> Vec<String> {
        let mut out = Vec::new();
        for st in kids(body) {
            if st.kind() != "expression_statement" {
                continue;
            }
            let Some(a) = kids(st).into_iter().next() else {
                continue;
            };
            if a.kind() == "assignment"
                && a.child_by_field_name("type").is_some()
                && let Some(left) = a.child_by_field_name("left")
                && left.kind() == "identifier"
            {
                out.push(self.text(left).to_string());
            }
        }
        out
    }

    // ---------------------------------------------------------------- expressions

    fn opt_expr(&mut self, n: Option<Node>, parent: Node) -> Expr {
        match n {
            Some(n) => self.expr(n),
            None => Expr::new(ExprKind::Unknown(String::new()), span(parent)),
        }
    }

    pub(crate) fn expr(&mut self, n: Node) -> Expr {
        if self.depth >= self.limit {
            self.too_deep(n);
            return Expr::new(ExprKind::Unknown(self.short_text(n)), span(n));
        }
        self.depth += 1;
        let e = self.expr_inner(n);
        self.depth -= 1;
        e
    }

    fn boxed(&mut self, n: Option<Node>, parent: Node) -> Box<Expr> {
        Box::new(self.opt_expr(n, parent))
    }

    fn expr_inner(&mut self, n: Node) -> Expr {
        let sp = span(n);
        let kind = match n.kind() {
            "identifier" => ExprKind::Name(self.text(n).to_string()),
            "attribute" => ExprKind::Attribute {
                value: self.boxed(n.child_by_field_name("object"), n),
                attr: n
                    .child_by_field_name("attribute")
                    .map(|a| self.text(a).to_string())
                    .unwrap_or_default(),
            },
            "subscript" => {
                let value = self.boxed(n.child_by_field_name("value"), n);
                let mut c = n.walk();
                let subs: Vec<Node> = n.children_by_field_name("subscript", &mut c).collect();
                let index = match subs.as_slice() {
                    [one] => self.expr(*one),
                    many => {
                        let items = many.iter().map(|s| self.expr(*s)).collect();
                        Expr::new(ExprKind::Tuple(items), sp)
                    }
                };
                ExprKind::Index {
                    value,
                    index: Box::new(index),
                }
            }
            "slice" => ExprKind::Unknown(self.short_text(n)),
            "call" => return self.call(n),
            "string" => return self.string(n),
            "concatenated_string" => return self.concatenated(n),
            "integer" | "float" => ExprKind::Number(self.text(n).to_string()),
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            "none" => ExprKind::Null,
            "binary_operator" | "boolean_operator" => ExprKind::Binary {
                op: n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default(),
                left: self.boxed(n.child_by_field_name("left"), n),
                right: self.boxed(n.child_by_field_name("right"), n),
            },
            "comparison_operator" => return self.comparison(n),
            "not_operator" => ExprKind::Unary {
                op: "not".into(),
                operand: self.boxed(n.child_by_field_name("argument"), n),
            },
            "unary_operator" => ExprKind::Unary {
                op: n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default(),
                operand: self.boxed(n.child_by_field_name("argument"), n),
            },
            "conditional_expression" => {
                let ks = kids(n);
                if ks.len() == 3 {
                    ExprKind::Conditional {
                        body: Box::new(self.expr(ks[0])),
                        test: Box::new(self.expr(ks[1])),
                        orelse: Box::new(self.expr(ks[2])),
                    }
                } else {
                    ExprKind::Unknown(self.short_text(n))
                }
            }
            "list" | "list_pattern" => ExprKind::List(self.exprs(n)),
            "tuple" | "tuple_pattern" | "expression_list" | "pattern_list" => {
                ExprKind::Tuple(self.exprs(n))
            }
            "set" => ExprKind::Set(self.exprs(n)),
            "dictionary" => {
                let mut items = Vec::new();
                for k in kids(n) {
                    match k.kind() {
                        "pair" => {
                            let key = self.opt_expr(k.child_by_field_name("key"), k);
                            let value = self.opt_expr(k.child_by_field_name("value"), k);
                            items.push((Some(key), value));
                        }
                        "dictionary_splat" => {
                            let inner = kids(k).first().map(|i| self.expr(*i));
                            items.push((
                                None,
                                inner.unwrap_or_else(|| {
                                    Expr::new(ExprKind::Unknown(String::new()), span(k))
                                }),
                            ));
                        }
                        _ => {}
                    }
                }
                ExprKind::Dict(items)
            }
            "list_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "dictionary_comprehension" => {
                let mut elements = Vec::new();
                let mut clauses = Vec::new();
                let mut conditions = Vec::new();
                if let Some(body) = n.child_by_field_name("body") {
                    if body.kind() == "pair" {
                        elements.push(self.opt_expr(body.child_by_field_name("key"), body));
                        elements.push(self.opt_expr(body.child_by_field_name("value"), body));
                    } else {
                        elements.push(self.expr(body));
                    }
                }
                for k in kids(n) {
                    match k.kind() {
                        "for_in_clause" => {
                            let target = self.opt_expr(k.child_by_field_name("left"), k);
                            let iter = self.opt_expr(k.child_by_field_name("right"), k);
                            clauses.push((target, iter));
                        }
                        "if_clause" => {
                            if let Some(c) = kids(k).first() {
                                conditions.push(self.expr(*c));
                            }
                        }
                        _ => {}
                    }
                }
                ExprKind::Comprehension {
                    elements,
                    clauses,
                    conditions,
                }
            }
            "lambda" => ExprKind::Lambda(self.lambda(n)),
            "await" => match kids(n).first() {
                Some(inner) => ExprKind::Await(Box::new(self.expr(*inner))),
                None => ExprKind::Unknown(self.short_text(n)),
            },
            "parenthesized_expression" => match kids(n).as_slice() {
                [one] => return self.expr(*one),
                _ => ExprKind::Unknown(self.short_text(n)),
            },
            "list_splat" | "list_splat_pattern" | "parenthesized_list_splat" => {
                match kids(n).first() {
                    Some(inner) => ExprKind::Starred(Box::new(self.expr(*inner))),
                    None => ExprKind::Unknown(self.short_text(n)),
                }
            }
            "named_expression" => ExprKind::NamedExpr {
                target: n
                    .child_by_field_name("name")
                    .map(|t| self.text(t).to_string())
                    .unwrap_or_default(),
                value: self.boxed(n.child_by_field_name("value"), n),
            },
            "dotted_name" => return self.dotted(n),
            "as_pattern_target" => match kids(n).first() {
                Some(inner) => return self.expr(*inner),
                None => ExprKind::Unknown(self.short_text(n)),
            },
            _ => ExprKind::Unknown(self.short_text(n)),
        };
        Expr::new(kind, sp)
    }

    fn exprs(&mut self, n: Node) -> Vec<Expr> {
        kids(n).into_iter().map(|k| self.expr(k)).collect()
    }

    fn comparison(&mut self, n: Node) -> Expr {
        let sp = span(n);
        let mut operands = Vec::new();
        let mut ops: Vec<String> = Vec::new();
        let mut pending = String::new();
        let mut c = n.walk();
        for ch in n.children(&mut c) {
            if ch.is_named() {
                if ch.kind() == "comment" {
                    continue;
                }
                if !operands.is_empty() {
                    ops.push(std::mem::take(&mut pending));
                }
                operands.push(ch);
            } else {
                if !pending.is_empty() {
                    pending.push(' ');
                }
                pending.push_str(self.text(ch));
            }
        }
        if operands.len() < 2 || ops.len() != operands.len() - 1 {
            return Expr::new(ExprKind::Unknown(self.short_text(n)), sp);
        }
        let lowered: Vec<Expr> = operands.iter().map(|o| self.expr(*o)).collect();
        let mut pairs = Vec::new();
        for (i, op) in ops.into_iter().enumerate() {
            pairs.push(Expr::new(
                ExprKind::Binary {
                    op,
                    left: Box::new(lowered[i].clone()),
                    right: Box::new(lowered[i + 1].clone()),
                },
                sp,
            ));
        }
        let mut it = pairs.into_iter();
        let first = it
            .next()
            .unwrap_or_else(|| Expr::new(ExprKind::Unknown(String::new()), sp));
        it.fold(first, |acc, p| {
            Expr::new(
                ExprKind::Binary {
                    op: "and".into(),
                    left: Box::new(acc),
                    right: Box::new(p),
                },
                sp,
            )
        })
    }

    fn call(&mut self, n: Node) -> Expr {
        let sp = span(n);
        let callee = self.opt_expr(n.child_by_field_name("function"), n);
        let mut args = Vec::new();
        if let Some(a) = n.child_by_field_name("arguments") {
            if a.kind() == "generator_expression" {
                args.push(Arg {
                    name: None,
                    value: self.expr(a),
                    spread: false,
                    spread_keywords: false,
                });
            } else {
                for k in kids(a) {
                    let arg = match k.kind() {
                        "keyword_argument" => Arg {
                            name: k
                                .child_by_field_name("name")
                                .map(|x| self.text(x).to_string()),
                            value: self.opt_expr(k.child_by_field_name("value"), k),
                            spread: false,
                            spread_keywords: false,
                        },
                        "list_splat" => Arg {
                            name: None,
                            value: match kids(k).first() {
                                Some(i) => self.expr(*i),
                                None => Expr::new(ExprKind::Unknown(self.short_text(k)), span(k)),
                            },
                            spread: true,
                            spread_keywords: false,
                        },
                        "dictionary_splat" => Arg {
                            name: None,
                            value: match kids(k).first() {
                                Some(i) => self.expr(*i),
                                None => Expr::new(ExprKind::Unknown(self.short_text(k)), span(k)),
                            },
                            spread: false,
                            spread_keywords: true,
                        },
                        _ => Arg {
                            name: None,
                            value: self.expr(k),
                            spread: false,
                            spread_keywords: false,
                        },
                    };
                    args.push(arg);
                }
            }
        }
        let last = match &callee.kind {
            ExprKind::Name(x) => Some(x.as_str()),
            ExprKind::Attribute { attr, .. } => Some(attr.as_str()),
            _ => None,
        };
        let interesting = last.is_some_and(|l| super::python_frameworks().is_interesting_call(l));
        let e = Expr::new(
            ExprKind::Call {
                callee: Box::new(callee),
                args,
            },
            sp,
        );
        if interesting {
            self.calls
                .insert(n.start_byte(), (e.clone(), self.cur_func));
        }
        e
    }

    fn lambda(&mut self, n: Node) -> FuncId {
        let line = n.start_position().row + 1;
        let name = format!("<lambda@{line}>");
        let id = self.functions.len();
        self.functions.push(Function {
            name: "<lambda>".into(),
            qualname: self.qualname(&name),
            params: Vec::new(),
            body: Vec::new(),
            decorators: Vec::new(),
            docstring: None,
            is_async: false,
            parent: self.parent_of_new(),
            class: None,
            span: span(n),
        });
        let params = self.params(n.child_by_field_name("parameters"));
        let saved = std::mem::replace(&mut self.cur_func, id);
        let saved_class = self.cur_class.take();
        self.scope.push(name);
        let body = n.child_by_field_name("body").map(|b| self.expr(b));
        self.scope.pop();
        self.cur_func = saved;
        self.cur_class = saved_class;
        let f = &mut self.functions[id];
        f.params = params;
        f.body = vec![Stmt {
            kind: StmtKind::Return(body),
            span: span(n),
        }];
        id
    }

    /// The parts of one `string` node; `None` parts list means a plain (non-format) literal.
    fn string_parts(&mut self, n: Node, parts: &mut Vec<StrPart>) -> (bool, bool) {
        let mut c = n.walk();
        let mut prefix = Default::default();
        let mut buf = String::new();
        for ch in n.named_children(&mut c) {
            match ch.kind() {
                "string_start" => prefix = parse_prefix(self.text(ch)),
                "string_content" => {
                    let t = self.text(ch);
                    let mut piece = String::new();
                    if parse_raw(&prefix) {
                        piece.push_str(t);
                    } else {
                        decode_escapes(t, &mut piece);
                    }
                    if prefix.format {
                        piece = piece.replace("{{", "{").replace("}}", "}");
                    }
                    buf.push_str(&piece);
                }
                "interpolation" => {
                    if !buf.is_empty() {
                        push_lit(parts, std::mem::take(&mut buf));
                    }
                    let e = match ch.child_by_field_name("expression") {
                        Some(x) => self.expr(x),
                        None => Expr::new(ExprKind::Unknown(self.short_text(ch)), span(ch)),
                    };
                    parts.push(StrPart::Expr(e));
                }
                _ => {}
            }
        }
        if !buf.is_empty() {
            push_lit(parts, buf);
        }
        (prefix.format, prefix.bytes)
    }

    fn string(&mut self, n: Node) -> Expr {
        let mut parts = Vec::new();
        let (format, bytes) = self.string_parts(n, &mut parts);
        Expr::new(finish_string(parts, format, bytes), span(n))
    }

    /// Implicit concatenation: `"a" "b"` is one literal; with an f-string inside it is one
    /// format string.
    fn concatenated(&mut self, n: Node) -> Expr {
        let mut parts = Vec::new();
        let mut any_format = false;
        let mut any_bytes = false;
        for k in kids(n) {
            if k.kind() == "string" {
                let (f, b) = self.string_parts(k, &mut parts);
                any_format |= f;
                any_bytes |= b;
            }
        }
        Expr::new(finish_string(parts, any_format, any_bytes), span(n))
    }
}

fn parse_raw(p: &crate::strings::Prefix) -> bool {
    p.raw
}

fn push_lit(parts: &mut Vec<StrPart>, s: String) {
    if let Some(StrPart::Lit(prev)) = parts.last_mut() {
        prev.push_str(&s);
    } else {
        parts.push(StrPart::Lit(s));
    }
}

fn finish_string(parts: Vec<StrPart>, format: bool, bytes: bool) -> ExprKind {
    let all_lit = parts.iter().all(|p| matches!(p, StrPart::Lit(_)));
    if format && !all_lit {
        return ExprKind::FormatStr(parts);
    }
    let s: String = parts
        .into_iter()
        .map(|p| match p {
            StrPart::Lit(s) => s,
            StrPart::Expr(_) => String::new(),
        })
        .collect();
    if bytes {
        ExprKind::Bytes(s)
    } else {
        ExprKind::Str(s)
    }
}
