//! tree-sitter-typescript (TS and TSX grammars) → IR. A method's first parameter is its
//! receiver `this` (the adapter's [`super::CONVENTIONS`]), so `this.x` reads the instance; a
//! class's constructor is the method `constructor`, field initialisers prepended to it.
//!
//! Recursion is bounded by [`Limits::max_nesting`] so no input can overflow the stack.

use super::{CONSTRUCTOR, RECEIVER};
use crate::strings::decode_escapes;
use crate::{IssueKind, Limits, LowerIssue};
use mcp_scan_ir::{
    Arg, Class, Expr, ExprKind, FuncId, Function, Handler, Import, Language, MatchArm, Module,
    Param, Span, Stmt, StmtKind, StrPart,
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

fn kids(n: Node) -> Vec<Node> {
    let mut c = n.walk();
    n.named_children(&mut c)
        .filter(|k| !matches!(k.kind(), "comment" | "html_comment"))
        .collect()
}

/// Module name of a TS/JS file: `./` + the path without its extension, `index` files named by
/// their folder (as Python names a package by its `__init__`). The `./` keeps local modules
/// apart from packages (`fs`, `child_process`), whose calls the models name.
pub fn module_name(rel_path: &str) -> String {
    let stem = strip_ext(rel_path);
    let stem = stem.strip_suffix("/index").unwrap_or(stem);
    let stem = if stem == "index" { "" } else { stem };
    format!("./{stem}")
}

const EXTS: &[&str] = &[
    ".d.ts", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs",
];

fn strip_ext(p: &str) -> &str {
    for e in EXTS {
        if let Some(s) = p.strip_suffix(e) {
            return s;
        }
    }
    p
}

/// Resolves an import specifier against the importing file: a relative one (`./x.js`,
/// `../lib/index.js`) to the module name of the file it names, a package one (`node:fs`,
/// `fs/promises`, `@scope/pkg/sub.js`) to its name without the `node:` scheme.
pub fn resolve_specifier(importer: &str, spec: &str) -> String {
    if !(spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == "..") {
        return spec.strip_prefix("node:").unwrap_or(spec).to_string();
    }
    let mut parts: Vec<&str> = importer.split('/').collect();
    parts.pop();
    for seg in spec.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    let joined = parts.join("/");
    module_name(&joined)
}

pub(crate) struct Draft {
    pub module: Module,
    pub issues: Vec<LowerIssue>,
}

struct Lowerer<'a> {
    src: &'a str,
    path: String,
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
    tmp: usize,
}

pub(crate) fn lower_tree(
    rel_path: &str,
    src: &str,
    tree: &Tree,
    limits: &Limits,
    language: Language,
) -> Draft {
    let root = tree.root_node();
    let mut l = Lowerer {
        src,
        path: rel_path.to_string(),
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
        tmp: 0,
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
    let body = l.block_of(root);
    l.functions[0].body = body;
    Draft {
        module: Module {
            path: rel_path.to_string(),
            name: module_name(rel_path),
            language,
            imports: l.imports,
            functions: l.functions,
            classes: l.classes,
            entry_points: Vec::new(),
            conventions: super::CONVENTIONS,
        },
        issues: l.issues,
    }
}

fn name_expr(n: &str, sp: Span) -> Expr {
    Expr::new(ExprKind::Name(n.to_string()), sp)
}

fn attr(value: Expr, a: &str, sp: Span) -> Expr {
    Expr::new(
        ExprKind::Attribute {
            value: Box::new(value),
            attr: a.to_string(),
        },
        sp,
    )
}

fn assign(target: Expr, value: Expr, sp: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Assign {
            targets: vec![target],
            value,
        },
        span: sp,
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

    fn unknown(&self, n: Node) -> Expr {
        Expr::new(ExprKind::Unknown(self.short_text(n)), span(n))
    }

    fn fresh(&mut self, what: &str) -> String {
        self.tmp += 1;
        format!("<{what}{}>", self.tmp)
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

    // ---------------------------------------------------------------- statements

    fn block_of(&mut self, n: Node) -> Vec<Stmt> {
        let mut out = Vec::new();
        for k in kids(n) {
            self.stmt(k, &mut out);
        }
        out
    }

    fn body(&mut self, n: Option<Node>) -> Vec<Stmt> {
        let mut out = Vec::new();
        if let Some(n) = n {
            if n.kind() == "statement_block" {
                return self.block_of(n);
            }
            self.stmt(n, &mut out);
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

    fn push(out: &mut Vec<Stmt>, kind: StmtKind, n: Node) {
        out.push(Stmt {
            kind,
            span: span(n),
        });
    }

    fn stmt_inner(&mut self, n: Node, out: &mut Vec<Stmt>) {
        let sp = span(n);
        match n.kind() {
            "expression_statement" => {
                for k in kids(n) {
                    self.expr_stmt(k, out);
                }
            }
            "lexical_declaration" | "variable_declaration" => self.declaration(n, out),
            "return_statement" => {
                let v = kids(n).first().map(|k| self.expr(*k));
                Self::push(out, StmtKind::Return(v), n);
            }
            "throw_statement" => {
                let v = kids(n).first().map(|k| self.expr(*k));
                Self::push(out, StmtKind::Raise(v), n);
            }
            "break_statement" => {
                let k = match n.child_by_field_name("label") {
                    Some(l) => StmtKind::BreakTo(self.text(l).to_string()),
                    None => StmtKind::Break,
                };
                Self::push(out, k, n);
            }
            "continue_statement" => {
                let k = match n.child_by_field_name("label") {
                    Some(l) => StmtKind::ContinueTo(self.text(l).to_string()),
                    None => StmtKind::Continue,
                };
                Self::push(out, k, n);
            }
            "statement_block" => out.extend(self.block_of(n)),
            "labeled_statement" => {
                let label = n
                    .child_by_field_name("label")
                    .map(|l| self.text(l).to_string())
                    .unwrap_or_default();
                let mut body = Vec::new();
                if let Some(b) = n.child_by_field_name("body") {
                    self.stmt(b, &mut body);
                }
                Self::push(out, StmtKind::Labeled { label, body }, n);
            }
            "if_statement" => {
                let test = self.opt_expr(n.child_by_field_name("condition"), n);
                let then = self.body(n.child_by_field_name("consequence"));
                let orelse = match n.child_by_field_name("alternative") {
                    Some(e) => {
                        let mut o = Vec::new();
                        for k in kids(e) {
                            self.stmt(k, &mut o);
                        }
                        o
                    }
                    None => Vec::new(),
                };
                Self::push(out, StmtKind::If { test, then, orelse }, n);
            }
            "while_statement" => {
                let test = self.opt_expr(n.child_by_field_name("condition"), n);
                let body = self.body(n.child_by_field_name("body"));
                Self::push(
                    out,
                    StmtKind::While {
                        test,
                        body,
                        orelse: Vec::new(),
                    },
                    n,
                );
            }
            "do_statement" => {
                // The body runs at least once: once before the loop, then as a loop.
                let body = self.body(n.child_by_field_name("body"));
                let test = self.opt_expr(n.child_by_field_name("condition"), n);
                out.extend(body.clone());
                Self::push(
                    out,
                    StmtKind::While {
                        test,
                        body,
                        orelse: Vec::new(),
                    },
                    n,
                );
            }
            "for_statement" => {
                if let Some(init) = n.child_by_field_name("initializer") {
                    self.stmt(init, out);
                }
                let test = match n.child_by_field_name("condition") {
                    Some(c) => match kids(c).first() {
                        Some(e) if c.kind() == "expression_statement" => self.expr(*e),
                        _ if c.kind() == "empty_statement" => Expr::new(ExprKind::Bool(true), sp),
                        _ => self.expr(c),
                    },
                    None => Expr::new(ExprKind::Bool(true), sp),
                };
                let mut body = self.body(n.child_by_field_name("body"));
                if let Some(inc) = n.child_by_field_name("increment") {
                    self.expr_stmt(inc, &mut body);
                }
                Self::push(
                    out,
                    StmtKind::While {
                        test,
                        body,
                        orelse: Vec::new(),
                    },
                    n,
                );
            }
            "for_in_statement" => {
                let target = match n.child_by_field_name("left") {
                    Some(l) => self.pattern_target(l, out),
                    None => self.unknown(n),
                };
                let iter = self.opt_expr(n.child_by_field_name("right"), n);
                let body = self.body(n.child_by_field_name("body"));
                let is_async = (0..n.child_count())
                    .filter_map(|i| n.child(i))
                    .any(|c| c.kind() == "await");
                Self::push(
                    out,
                    StmtKind::For {
                        target,
                        iter,
                        body,
                        orelse: Vec::new(),
                        is_async,
                    },
                    n,
                );
            }
            "switch_statement" => {
                let subject = self.opt_expr(n.child_by_field_name("value"), n);
                let mut arms = Vec::new();
                if let Some(b) = n.child_by_field_name("body") {
                    let cases = kids(b);
                    for c in &cases {
                        let pattern = if c.kind() == "switch_case" {
                            c.child_by_field_name("value").map(|v| self.expr(v))
                        } else {
                            None
                        };
                        let value_node = c.child_by_field_name("value");
                        let mut body = Vec::new();
                        for k in kids(*c) {
                            if Some(k) == value_node {
                                continue;
                            }
                            self.stmt(k, &mut body);
                        }
                        // A case that does not end in a jump runs on into the next one.
                        let fallthrough = !body.last().is_some_and(|s| {
                            matches!(
                                s.kind,
                                StmtKind::Break
                                    | StmtKind::BreakTo(_)
                                    | StmtKind::Return(_)
                                    | StmtKind::Raise(_)
                                    | StmtKind::Continue
                                    | StmtKind::ContinueTo(_)
                            )
                        });
                        arms.push(MatchArm {
                            pattern,
                            body,
                            fallthrough,
                            span: span(*c),
                        });
                    }
                }
                Self::push(out, StmtKind::Switch { subject, arms }, n);
            }
            "try_statement" => {
                let body = self.body(n.child_by_field_name("body"));
                let mut handlers = Vec::new();
                if let Some(h) = n.child_by_field_name("handler") {
                    let mut hb = Vec::new();
                    let mut name = None;
                    if let Some(p) = h.child_by_field_name("parameter") {
                        if p.kind() == "identifier" {
                            name = Some(self.text(p).to_string());
                        } else {
                            let t = self.fresh("err");
                            let target = self.pattern_target(p, &mut Vec::new());
                            hb.push(assign(target, name_expr(&t, span(p)), span(p)));
                            name = Some(t);
                        }
                    }
                    hb.extend(self.body(h.child_by_field_name("body")));
                    handlers.push(Handler {
                        kind: None,
                        name,
                        body: hb,
                        span: span(h),
                    });
                }
                let finally = match n.child_by_field_name("finalizer") {
                    Some(f) => self.body(f.child_by_field_name("body")),
                    None => Vec::new(),
                };
                Self::push(
                    out,
                    StmtKind::Try {
                        body,
                        handlers,
                        orelse: Vec::new(),
                        finally,
                    },
                    n,
                );
            }
            "function_declaration" | "generator_function_declaration" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|x| self.text(x).to_string())
                    .unwrap_or_default();
                let func = self.function(n, &name, None);
                Self::push(out, StmtKind::FunctionDef { name, func }, n);
            }
            "class_declaration" | "abstract_class_declaration" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|x| self.text(x).to_string())
                    .unwrap_or_default();
                self.class(n, &name);
                Self::push(out, StmtKind::ClassDef { name }, n);
            }
            "import_statement" => self.import(n, out),
            "export_statement" => self.export(n, out),
            "empty_statement"
            | "type_alias_declaration"
            | "interface_declaration"
            | "ambient_declaration"
            | "abstract_method_signature"
            | "function_signature"
            | "import_alias"
            | "hash_bang_line"
            | "debugger_statement" => {}
            "enum_declaration" => {
                // Members are constants: `E.A` folds to its initializer when it has one.
                let name = n
                    .child_by_field_name("name")
                    .map(|x| self.text(x).to_string())
                    .unwrap_or_default();
                let mut items = Vec::new();
                if let Some(b) = n.child_by_field_name("body") {
                    for m in kids(b) {
                        match m.kind() {
                            "enum_assignment" => {
                                let key = m
                                    .child_by_field_name("name")
                                    .map(|k| self.prop_key(k))
                                    .unwrap_or_default();
                                let v = self.opt_expr(m.child_by_field_name("value"), m);
                                items.push((Some(Expr::new(ExprKind::Str(key), span(m))), v));
                            }
                            _ => {
                                let key = self.prop_key(m);
                                items.push((
                                    Some(Expr::new(ExprKind::Str(key.clone()), span(m))),
                                    Expr::new(ExprKind::Str(key), span(m)),
                                ));
                            }
                        }
                    }
                }
                out.push(assign(
                    name_expr(&name, sp),
                    Expr::new(ExprKind::Dict(items), sp),
                    sp,
                ));
            }
            "module" | "internal_module" => {
                if let Some(b) = n.child_by_field_name("body") {
                    out.extend(self.block_of(b));
                }
            }
            _ => {
                if n.is_named() && !n.is_error() && n.kind().ends_with("expression") {
                    self.expr_stmt(n, out);
                } else {
                    Self::push(
                        out,
                        StmtKind::Unknown {
                            text: self.short_text(n),
                        },
                        n,
                    );
                }
            }
        }
    }

    fn expr_stmt(&mut self, e: Node, out: &mut Vec<Stmt>) {
        match e.kind() {
            "assignment_expression" => {
                let value = self.opt_expr(e.child_by_field_name("right"), e);
                match e.child_by_field_name("left") {
                    Some(left) => self.assign_to(left, value, e, out),
                    None => Self::push(out, StmtKind::Expr(value), e),
                }
            }
            "augmented_assignment_expression" => {
                let target = self.opt_expr(e.child_by_field_name("left"), e);
                let value = self.opt_expr(e.child_by_field_name("right"), e);
                let op = e
                    .child_by_field_name("operator")
                    .map(|o| self.text(o).trim_end_matches('=').to_string())
                    .unwrap_or_default();
                let op = match op.as_str() {
                    "&&" => "and".to_string(),
                    "||" | "??" => "or".to_string(),
                    _ => op,
                };
                Self::push(out, StmtKind::AugAssign { target, op, value }, e);
            }
            "sequence_expression" => {
                for k in kids(e) {
                    self.expr_stmt(k, out);
                }
            }
            "parenthesized_expression" => {
                for k in kids(e) {
                    self.expr_stmt(k, out);
                }
            }
            _ => {
                let x = self.expr(e);
                Self::push(out, StmtKind::Expr(x), e);
            }
        }
    }

    /// `left = value`, with CommonJS exports also bound as module globals, so that an importer's
    /// `require('./x').name` finds them like an ES `export`.
    fn assign_to(&mut self, left: Node, value: Expr, at: Node, out: &mut Vec<Stmt>) {
        let text = self.text(left);
        if self.cur_func == Module::TOP_LEVEL {
            if text == "module.exports" || text == "exports" {
                if let ExprKind::Dict(items) = &value.kind {
                    for (k, v) in items {
                        if let Some(ExprKind::Str(k)) = k.as_ref().map(|k| &k.kind)
                            && !matches!(&v.kind, ExprKind::Name(n) if n == k)
                        {
                            out.push(assign(name_expr(k, v.span), v.clone(), span(at)));
                        }
                    }
                } else if !matches!(value.kind, ExprKind::Name(_)) {
                    out.push(assign(name_expr("default", value.span), value, span(at)));
                }
                return;
            }
            let exported = text
                .strip_prefix("module.exports.")
                .or_else(|| text.strip_prefix("exports."));
            if let Some(name) = exported
                && !name.contains(['.', '['])
            {
                let t = self.expr(left);
                let mut targets = vec![t];
                if !matches!(&value.kind, ExprKind::Name(n) if n == name) {
                    targets.push(name_expr(name, span(left)));
                }
                out.push(Stmt {
                    kind: StmtKind::Assign { targets, value },
                    span: span(at),
                });
                return;
            }
        }
        match left.kind() {
            "object_pattern" | "array_pattern" => self.destructure(left, value, at, out),
            _ => {
                let t = self.expr(left);
                out.push(assign(t, value, span(at)));
            }
        }
    }

    fn declaration(&mut self, n: Node, out: &mut Vec<Stmt>) {
        for d in kids(n) {
            if d.kind() != "variable_declarator" {
                continue;
            }
            let Some(name) = d.child_by_field_name("name") else {
                continue;
            };
            let Some(vnode) = d.child_by_field_name("value") else {
                if name.kind() == "identifier" {
                    let sp = span(d);
                    out.push(assign(self.expr(name), Expr::new(ExprKind::Null, sp), sp));
                }
                continue;
            };
            // `const x = require("m")`, `const { a, b: c } = require("m")`
            if let Some(spec) = self.require_of(vnode) {
                let module = resolve_specifier(&self.path, &spec);
                match name.kind() {
                    "identifier" => {
                        self.add_import(self.text(name), &module, None, d, out);
                        continue;
                    }
                    "object_pattern" if self.simple_object_pattern(name) => {
                        for (local, sym) in self.object_pattern_names(name) {
                            self.add_import(&local, &module, Some(&sym), d, out);
                        }
                        continue;
                    }
                    _ => {}
                }
            }
            // Functions and classes bound to a name get that name (`const f = () => ...`).
            let value = match vnode.kind() {
                "arrow_function" | "function_expression" | "function" | "generator_function"
                    if name.kind() == "identifier" =>
                {
                    let fname = self.text(name).to_string();
                    let func = self.function(vnode, &fname, None);
                    Expr::new(ExprKind::Lambda(func), span(vnode))
                }
                "class" if name.kind() == "identifier" => {
                    let cname = self.text(name).to_string();
                    self.class(vnode, &cname);
                    out.push(Stmt {
                        kind: StmtKind::ClassDef {
                            name: cname.clone(),
                        },
                        span: span(d),
                    });
                    continue;
                }
                _ => self.expr(vnode),
            };
            match name.kind() {
                "object_pattern" | "array_pattern" => self.destructure(name, value, d, out),
                _ => {
                    let t = self.expr(name);
                    out.push(assign(t, value, span(d)));
                }
            }
        }
    }

    fn simple_object_pattern(&self, p: Node) -> bool {
        kids(p).iter().all(|k| match k.kind() {
            "shorthand_property_identifier_pattern" => true,
            "pair_pattern" => k
                .child_by_field_name("value")
                .is_some_and(|v| v.kind() == "identifier"),
            _ => false,
        })
    }

    fn object_pattern_names(&self, p: Node) -> Vec<(String, String)> {
        kids(p)
            .iter()
            .filter_map(|k| match k.kind() {
                "shorthand_property_identifier_pattern" => {
                    let t = self.text(*k).to_string();
                    Some((t.clone(), t))
                }
                "pair_pattern" => {
                    let key = self.prop_key(k.child_by_field_name("key")?);
                    let v = self.text(k.child_by_field_name("value")?).to_string();
                    Some((v, key))
                }
                _ => None,
            })
            .collect()
    }

    /// The module a `require("m")` (or `await import("m")`) names, through `.default`/`.x`.
    fn require_of(&self, n: Node) -> Option<String> {
        let n = match n.kind() {
            "await_expression" => *kids(n).first()?,
            _ => n,
        };
        if n.kind() != "call_expression" {
            return None;
        }
        let f = n.child_by_field_name("function")?;
        // Compiled output wraps requires in interop helpers (`__importDefault(require("fs"))`,
        // `_interopRequireDefault(...)`): the module is the wrapped one.
        let fname = self.text(f);
        if fname.starts_with("__import") || fname.starts_with("_interopRequire") {
            let args = n.child_by_field_name("arguments")?;
            return self.require_of(*kids(args).first()?);
        }
        if !matches!(fname, "require" | "import") {
            return None;
        }
        let args = n.child_by_field_name("arguments")?;
        let first = *kids(args).first()?;
        if first.kind() != "string" {
            return None;
        }
        Some(self.string_value(first))
    }

    fn add_import(
        &mut self,
        local: &str,
        module: &str,
        symbol: Option<&str>,
        at: Node,
        out: &mut Vec<Stmt>,
    ) {
        let imp = Import {
            local: local.to_string(),
            module: module.to_string(),
            symbol: symbol.map(str::to_string),
            span: span(at),
        };
        self.imports.push(imp.clone());
        if self.cur_func != Module::TOP_LEVEL {
            out.push(Stmt {
                kind: StmtKind::Import(vec![imp]),
                span: span(at),
            });
        }
    }

    fn import(&mut self, n: Node, out: &mut Vec<Stmt>) {
        let Some(src) = n.child_by_field_name("source") else {
            return;
        };
        let module = resolve_specifier(&self.path, &self.string_value(src));
        for c in kids(n) {
            if c.kind() != "import_clause" {
                continue;
            }
            for part in kids(c) {
                match part.kind() {
                    // `import fs from "fs"`: a package's default export is the package object
                    // for CommonJS packages; a local module's is its `default` binding.
                    "identifier" => {
                        let local = self.text(part).to_string();
                        if module.starts_with("./") {
                            self.add_import(&local, &module, Some("default"), n, out);
                        } else {
                            self.add_import(&local, &module, None, n, out);
                        }
                    }
                    "namespace_import" => {
                        if let Some(id) = kids(part).into_iter().find(|k| k.kind() == "identifier")
                        {
                            let local = self.text(id).to_string();
                            self.add_import(&local, &module, None, n, out);
                        }
                    }
                    "named_imports" => {
                        for spec in kids(part) {
                            if spec.kind() != "import_specifier" {
                                continue;
                            }
                            let Some(nm) = spec.child_by_field_name("name") else {
                                continue;
                            };
                            let sym = self.prop_key(nm);
                            let local = spec
                                .child_by_field_name("alias")
                                .map(|a| self.text(a).to_string())
                                .unwrap_or_else(|| sym.clone());
                            if sym == "default" && !module.starts_with("./") {
                                self.add_import(&local, &module, None, n, out);
                            } else {
                                self.add_import(&local, &module, Some(&sym), n, out);
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    fn export(&mut self, n: Node, out: &mut Vec<Stmt>) {
        if let Some(d) = n.child_by_field_name("declaration") {
            self.stmt(d, out);
            return;
        }
        let is_default = (0..n.child_count())
            .filter_map(|i| n.child(i))
            .any(|c| c.kind() == "default");
        if let Some(v) = n.child_by_field_name("value") {
            let value = match v.kind() {
                "arrow_function" | "function_expression" | "function" => {
                    let func = self.function(v, "default", None);
                    Expr::new(ExprKind::Lambda(func), span(v))
                }
                _ => self.expr(v),
            };
            if is_default {
                out.push(assign(name_expr("default", span(n)), value, span(n)));
            } else {
                Self::push(out, StmtKind::Expr(value), n);
            }
            return;
        }
        // `export { a as b } from "./m"`: re-exports are imports of the exporting module.
        let source = n
            .child_by_field_name("source")
            .map(|s| resolve_specifier(&self.path, &self.string_value(s)));
        for c in kids(n) {
            if c.kind() != "export_clause" {
                if c.kind() == "namespace_export" {
                    continue;
                }
                if is_default && c.kind().ends_with("declaration") {
                    self.stmt(c, out);
                }
                continue;
            }
            for spec in kids(c) {
                let Some(nm) = spec.child_by_field_name("name") else {
                    continue;
                };
                let sym = self.prop_key(nm);
                let alias = spec
                    .child_by_field_name("alias")
                    .map(|a| self.prop_key(a))
                    .unwrap_or_else(|| sym.clone());
                match &source {
                    Some(m) => self.add_import(&alias, m, Some(&sym), n, out),
                    None if alias != sym => {
                        out.push(assign(
                            name_expr(&alias, span(spec)),
                            name_expr(&sym, span(spec)),
                            span(spec),
                        ));
                    }
                    None => {}
                }
            }
        }
    }

    /// Object/array destructuring: the value once into a temporary, then each name from it.
    fn destructure(&mut self, pat: Node, value: Expr, at: Node, out: &mut Vec<Stmt>) {
        let sp = span(at);
        let base = match &value.kind {
            ExprKind::Name(_) => value,
            _ => {
                let t = self.fresh("d");
                out.push(assign(name_expr(&t, sp), value, sp));
                name_expr(&t, sp)
            }
        };
        self.bind_pattern(pat, base, out);
    }

    fn bind_pattern(&mut self, pat: Node, base: Expr, out: &mut Vec<Stmt>) {
        if self.depth >= self.limit {
            self.too_deep(pat);
            return;
        }
        self.depth += 1;
        let sp = span(pat);
        match pat.kind() {
            "identifier" | "shorthand_property_identifier_pattern" => {
                let n = self.text(pat).to_string();
                out.push(assign(name_expr(&n, sp), base, sp));
            }
            "object_pattern" => {
                for k in kids(pat) {
                    match k.kind() {
                        "shorthand_property_identifier_pattern" => {
                            let n = self.text(k).to_string();
                            out.push(assign(
                                name_expr(&n, span(k)),
                                attr(base.clone(), &n, span(k)),
                                span(k),
                            ));
                        }
                        "pair_pattern" => {
                            let key = k
                                .child_by_field_name("key")
                                .map(|x| self.prop_key(x))
                                .unwrap_or_default();
                            if let Some(v) = k.child_by_field_name("value") {
                                self.bind_pattern(v, attr(base.clone(), &key, span(k)), out);
                            }
                        }
                        "object_assignment_pattern" => {
                            if let Some(left) = k.child_by_field_name("left") {
                                let key = self.text(left).to_string();
                                let dflt = self.opt_expr(k.child_by_field_name("right"), k);
                                let v = Expr::new(
                                    ExprKind::Binary {
                                        op: "or".into(),
                                        left: Box::new(attr(base.clone(), &key, span(k))),
                                        right: Box::new(dflt),
                                    },
                                    span(k),
                                );
                                self.bind_pattern(left, v, out);
                            }
                        }
                        "rest_pattern" => {
                            if let Some(id) = kids(k).first() {
                                self.bind_pattern(*id, base.clone(), out);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "array_pattern" => {
                for (i, k) in kids(pat).into_iter().enumerate() {
                    let idx = Expr::new(ExprKind::Number(i.to_string()), span(k));
                    let item = Expr::new(
                        ExprKind::Index {
                            value: Box::new(base.clone()),
                            index: Box::new(idx),
                        },
                        span(k),
                    );
                    match k.kind() {
                        "rest_pattern" => {
                            if let Some(id) = kids(k).first() {
                                self.bind_pattern(*id, base.clone(), out);
                            }
                        }
                        _ => self.bind_pattern(k, item, out),
                    }
                }
            }
            "assignment_pattern" => {
                if let Some(left) = pat.child_by_field_name("left") {
                    let dflt = self.opt_expr(pat.child_by_field_name("right"), pat);
                    let v = Expr::new(
                        ExprKind::Binary {
                            op: "or".into(),
                            left: Box::new(base),
                            right: Box::new(dflt),
                        },
                        sp,
                    );
                    self.bind_pattern(left, v, out);
                }
            }
            "rest_pattern" => {
                if let Some(id) = kids(pat).first() {
                    self.bind_pattern(*id, base, out);
                }
            }
            _ => {
                let t = self.expr(pat);
                out.push(assign(t, base, sp));
            }
        }
        self.depth -= 1;
    }

    /// The loop variable of `for (const x of xs)`; patterns bind from a temporary.
    fn pattern_target(&mut self, l: Node, _out: &mut Vec<Stmt>) -> Expr {
        match l.kind() {
            "identifier" => self.expr(l),
            "lexical_declaration" | "variable_declaration" => {
                match kids(l)
                    .into_iter()
                    .find(|k| k.kind() == "variable_declarator")
                {
                    Some(d) => match d.child_by_field_name("name") {
                        Some(nm) if nm.kind() == "identifier" => self.expr(nm),
                        Some(nm) if nm.kind() == "array_pattern" => {
                            let items = kids(nm).into_iter().map(|k| self.expr(k)).collect();
                            Expr::new(ExprKind::Tuple(items), span(nm))
                        }
                        _ => self.unknown(l),
                    },
                    None => self.unknown(l),
                }
            }
            "array_pattern" => {
                let items = kids(l).into_iter().map(|k| self.expr(k)).collect();
                Expr::new(ExprKind::Tuple(items), span(l))
            }
            _ => self.expr(l),
        }
    }

    // ---------------------------------------------------------------- functions and classes

    /// Lowers a function-like node (declaration, expression, arrow, method) into the arena.
    fn function(&mut self, n: Node, name: &str, class: Option<&str>) -> FuncId {
        let id = self.functions.len();
        let qual = match (class, self.scope.last()) {
            (Some(c), _) => format!("{c}.{name}"),
            (None, Some(outer)) => format!("{outer}.{name}"),
            (None, None) => name.to_string(),
        };
        let qualname = if name.is_empty() || name.starts_with('<') {
            format!("<lambda@{}>", n.start_position().row + 1)
        } else {
            qual
        };
        let is_async = (0..n.child_count())
            .filter_map(|i| n.child(i))
            .any(|c| c.kind() == "async");
        self.functions.push(Function {
            name: name.to_string(),
            qualname: qualname.clone(),
            params: Vec::new(),
            body: Vec::new(),
            decorators: Vec::new(),
            docstring: None,
            is_async,
            parent: Some(self.cur_func),
            class: class.map(str::to_string),
            span: span(n),
        });
        if self.cur_func == Module::TOP_LEVEL && class.is_none() {
            self.functions[id].parent = None;
        }
        let saved = (self.cur_func, self.cur_class.clone());
        self.cur_func = id;
        self.cur_class = class.map(str::to_string);
        self.scope.push(qualname);
        let mut params = Vec::new();
        let mut prologue = Vec::new();
        if class.is_some() {
            params.push(Param {
                name: RECEIVER.into(),
                annotation: None,
                default: None,
                variadic: false,
                keywords: false,
                injected: false,
                receiver: false,
            });
        }
        if let Some(p) = n.child_by_field_name("parameter") {
            // `x => ...`
            params.push(Param {
                name: self.text(p).to_string(),
                annotation: None,
                default: None,
                variadic: false,
                keywords: false,
                injected: false,
                receiver: false,
            });
        }
        if let Some(ps) = n.child_by_field_name("parameters") {
            for (i, p) in kids(ps).into_iter().enumerate() {
                self.param(p, i, &mut params, &mut prologue);
            }
        }
        let mut body = prologue;
        match n.child_by_field_name("body") {
            Some(b) if b.kind() == "statement_block" => body.extend(self.block_of(b)),
            Some(b) => {
                // An arrow's expression body is its return value.
                let v = self.expr(b);
                body.push(Stmt {
                    kind: StmtKind::Return(Some(v)),
                    span: span(b),
                });
            }
            None => {}
        }
        self.scope.pop();
        self.cur_func = saved.0;
        self.cur_class = saved.1;
        self.functions[id].params = params;
        self.functions[id].body = body;
        id
    }

    fn param(&mut self, p: Node, i: usize, params: &mut Vec<Param>, prologue: &mut Vec<Stmt>) {
        let annotation = p
            .child_by_field_name("type")
            .map(|t| self.text(t).trim_start_matches(':').trim().to_string());
        let pattern = p.child_by_field_name("pattern").unwrap_or(p);
        let default = p.child_by_field_name("value").map(|v| self.expr(v));
        match pattern.kind() {
            "identifier" => params.push(Param {
                name: self.text(pattern).to_string(),
                annotation,
                default,
                variadic: false,
                keywords: false,
                injected: false,
                receiver: false,
            }),
            "this" => {}
            "rest_pattern" => {
                let name = kids(pattern)
                    .first()
                    .map(|k| self.text(*k).to_string())
                    .unwrap_or_else(|| format!("<rest{i}>"));
                params.push(Param {
                    name,
                    annotation,
                    default: None,
                    variadic: true,
                    keywords: false,
                    injected: false,
                    receiver: false,
                });
            }
            "object_pattern" | "array_pattern" | "assignment_pattern" => {
                // A destructured parameter: one parameter object, its fields bound first thing.
                let name = format!("<arg{i}>");
                params.push(Param {
                    name: name.clone(),
                    annotation,
                    default,
                    variadic: false,
                    keywords: false,
                    injected: false,
                    receiver: false,
                });
                self.bind_pattern(pattern, name_expr(&name, span(pattern)), prologue);
            }
            _ => params.push(Param {
                name: self.text(pattern).to_string(),
                annotation,
                default,
                variadic: false,
                keywords: false,
                injected: false,
                receiver: false,
            }),
        }
    }

    fn class(&mut self, n: Node, name: &str) {
        let mut bases = Vec::new();
        for k in kids(n) {
            if k.kind() == "class_heritage" {
                for h in kids(k) {
                    if h.kind() == "extends_clause" {
                        if let Some(v) = h.child_by_field_name("value") {
                            bases.push(self.text(v).to_string());
                        } else if let Some(v) = kids(h).first() {
                            bases.push(self.text(*v).to_string());
                        }
                    }
                }
            }
        }
        let ci = self.classes.len();
        self.classes.push(Class {
            name: name.to_string(),
            bases,
            methods: Vec::new(),
            fields: Vec::new(),
            span: span(n),
        });
        let mut methods = Vec::new();
        let mut fields = Vec::new();
        let mut field_inits: Vec<Stmt> = Vec::new();
        if let Some(body) = n.child_by_field_name("body") {
            for m in kids(body) {
                match m.kind() {
                    "method_definition" | "method_signature" => {
                        let Some(nm) = m.child_by_field_name("name") else {
                            continue;
                        };
                        let mname = self.prop_key(nm);
                        let f = self.function(m, &mname, Some(name));
                        methods.push(f);
                    }
                    "public_field_definition" | "field_definition" => {
                        let Some(nm) = m
                            .child_by_field_name("name")
                            .or_else(|| m.child_by_field_name("property"))
                        else {
                            continue;
                        };
                        let fname = self.prop_key(nm);
                        fields.push(fname.clone());
                        if let Some(v) = m.child_by_field_name("value") {
                            // Arrow-function fields are methods bound to the instance.
                            if matches!(v.kind(), "arrow_function" | "function_expression") {
                                let f = self.function(v, &fname, Some(name));
                                methods.push(f);
                            } else {
                                let saved = self.cur_class.replace(name.to_string());
                                let value = self.expr(v);
                                self.cur_class = saved;
                                field_inits.push(assign(
                                    attr(name_expr(RECEIVER, span(m)), &fname, span(m)),
                                    value,
                                    span(m),
                                ));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        // Field initialisers run at construction, before the constructor body.
        if !field_inits.is_empty() {
            match methods
                .iter()
                .copied()
                .find(|&f| self.functions[f].name == CONSTRUCTOR)
            {
                Some(init) => {
                    let mut body = field_inits;
                    body.append(&mut self.functions[init].body);
                    self.functions[init].body = body;
                }
                None => {
                    let id = self.functions.len();
                    self.functions.push(Function {
                        name: CONSTRUCTOR.into(),
                        qualname: format!("{name}.{CONSTRUCTOR}"),
                        params: vec![Param {
                            name: RECEIVER.into(),
                            annotation: None,
                            default: None,
                            variadic: false,
                            keywords: false,
                            injected: false,
                            receiver: false,
                        }],
                        body: field_inits,
                        decorators: Vec::new(),
                        docstring: None,
                        is_async: false,
                        parent: Some(self.cur_func),
                        class: Some(name.to_string()),
                        span: span(n),
                    });
                    methods.push(id);
                }
            }
        }
        self.classes[ci].methods = methods;
        self.classes[ci].fields = fields;
    }

    // ---------------------------------------------------------------- expressions

    fn opt_expr(&mut self, n: Option<Node>, parent: Node) -> Expr {
        match n {
            Some(n) => self.expr(n),
            None => self.unknown(parent),
        }
    }

    fn prop_key(&self, k: Node) -> String {
        match k.kind() {
            "string" => self.string_value(k),
            _ => self.text(k).to_string(),
        }
    }

    fn string_value(&self, n: Node) -> String {
        let mut out = String::new();
        for k in kids(n) {
            match k.kind() {
                "string_fragment" => out.push_str(self.text(k)),
                "escape_sequence" => decode_escapes(self.text(k), &mut out),
                _ => {}
            }
        }
        out
    }

    fn expr(&mut self, n: Node) -> Expr {
        if self.depth >= self.limit {
            self.too_deep(n);
            return self.unknown(n);
        }
        self.depth += 1;
        let e = self.expr_inner(n);
        self.depth -= 1;
        e
    }

    fn args(&mut self, n: Option<Node>) -> Vec<Arg> {
        let Some(n) = n else {
            return Vec::new();
        };
        if n.kind() == "template_string" {
            // A tagged template: the tag receives the template.
            return vec![Arg {
                name: None,
                value: self.expr(n),
                spread: false,
                spread_keywords: false,
            }];
        }
        kids(n)
            .into_iter()
            .map(|a| {
                if a.kind() == "spread_element" {
                    let v = match kids(a).first() {
                        Some(x) => self.expr(*x),
                        None => self.unknown(a),
                    };
                    Arg {
                        name: None,
                        value: v,
                        spread: true,
                        spread_keywords: false,
                    }
                } else {
                    Arg {
                        name: None,
                        value: self.expr(a),
                        spread: false,
                        spread_keywords: false,
                    }
                }
            })
            .collect()
    }

    fn expr_inner(&mut self, n: Node) -> Expr {
        let sp = span(n);
        let kind = match n.kind() {
            "identifier" | "shorthand_property_identifier" | "property_identifier" => {
                match self.text(n) {
                    "undefined" => ExprKind::Null,
                    t => ExprKind::Name(t.to_string()),
                }
            }
            "this" => ExprKind::Name(RECEIVER.into()),
            "super" => ExprKind::Name("super".into()),
            "undefined" | "null" => ExprKind::Null,
            "true" => ExprKind::Bool(true),
            "false" => ExprKind::Bool(false),
            "number" => ExprKind::Number(self.text(n).replace('_', "")),
            "string" => ExprKind::Str(self.string_value(n)),
            "regex" => ExprKind::Str(self.text(n).to_string()),
            "template_string" => {
                let mut parts = Vec::new();
                for k in kids(n) {
                    match k.kind() {
                        "string_fragment" => parts.push(StrPart::Lit(self.text(k).to_string())),
                        "escape_sequence" => {
                            let mut s = String::new();
                            decode_escapes(self.text(k), &mut s);
                            parts.push(StrPart::Lit(s));
                        }
                        "template_substitution" => {
                            if let Some(e) = kids(k).first() {
                                let e = self.expr(*e);
                                parts.push(StrPart::Expr(e));
                            }
                        }
                        _ => {}
                    }
                }
                // The fragments between substitutions are not separate nodes in every grammar
                // version: take the text between the substitutions when none were seen.
                if !parts.iter().any(|p| matches!(p, StrPart::Lit(_))) {
                    parts = self.template_parts(n);
                }
                if parts.iter().all(|p| matches!(p, StrPart::Lit(_))) {
                    let s: String = parts
                        .iter()
                        .map(|p| match p {
                            StrPart::Lit(s) => s.as_str(),
                            StrPart::Expr(_) => "",
                        })
                        .collect();
                    ExprKind::Str(s)
                } else {
                    ExprKind::FormatStr(parts)
                }
            }
            "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression"
            | "type_assertion" => match kids(n).into_iter().find(|k| {
                !matches!(
                    k.kind(),
                    "type_annotation"
                        | "type_arguments"
                        | "predefined_type"
                        | "type_identifier"
                        | "generic_type"
                        | "object_type"
                        | "union_type"
                        | "array_type"
                        | "literal_type"
                        | "nested_type_identifier"
                        | "tuple_type"
                )
            }) {
                Some(k) => return self.expr(k),
                None => ExprKind::Unknown(self.short_text(n)),
            },
            "member_expression" => {
                let value = self.opt_expr(n.child_by_field_name("object"), n);
                let a = n
                    .child_by_field_name("property")
                    .map(|p| self.text(p).to_string())
                    .unwrap_or_default();
                // A package's `default` export through an interop helper (`fs_1.default`) is the
                // package object itself.
                if a == "default"
                    && let ExprKind::Name(local) = &value.kind
                    && self.imports.iter().any(|i| {
                        &i.local == local && i.symbol.is_none() && !i.module.starts_with("./")
                    })
                {
                    return value;
                }
                ExprKind::Attribute {
                    value: Box::new(value),
                    attr: a,
                }
            }
            "subscript_expression" => {
                let value = self.opt_expr(n.child_by_field_name("object"), n);
                let index = self.opt_expr(n.child_by_field_name("index"), n);
                ExprKind::Index {
                    value: Box::new(value),
                    index: Box::new(index),
                }
            }
            "call_expression" => {
                let f = n.child_by_field_name("function");
                // `import("m")` is a dynamic import: a call of the `import` API.
                let callee = match f {
                    Some(f) if f.kind() == "import" => name_expr("import", span(f)),
                    _ => self.opt_expr(f, n),
                };
                let args = self.args(n.child_by_field_name("arguments"));
                ExprKind::Call {
                    callee: Box::new(callee),
                    args,
                }
            }
            "new_expression" => {
                let callee = self.opt_expr(n.child_by_field_name("constructor"), n);
                let args = self.args(n.child_by_field_name("arguments"));
                ExprKind::Call {
                    callee: Box::new(callee),
                    args,
                }
            }
            "await_expression" => match kids(n).first() {
                Some(k) => ExprKind::Await(Box::new(self.expr(*k))),
                None => ExprKind::Unknown(self.short_text(n)),
            },
            "yield_expression" => match kids(n).first() {
                Some(k) => return self.expr(*k),
                None => ExprKind::Null,
            },
            "binary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                let op = match op {
                    "===" => "==",
                    "!==" => "!=",
                    "&&" => "and",
                    "||" | "??" => "or",
                    o => o,
                }
                .to_string();
                let left = self.opt_expr(n.child_by_field_name("left"), n);
                let right = self.opt_expr(n.child_by_field_name("right"), n);
                ExprKind::Binary {
                    op,
                    left: Box::new(left),
                    right: Box::new(right),
                }
            }
            "unary_expression" => {
                let op = n
                    .child_by_field_name("operator")
                    .map(|o| self.text(o))
                    .unwrap_or("");
                let op = if op == "!" { "not" } else { op }.to_string();
                let operand = self.opt_expr(n.child_by_field_name("argument"), n);
                ExprKind::Unary {
                    op,
                    operand: Box::new(operand),
                }
            }
            "update_expression" => match n.child_by_field_name("argument") {
                Some(a) => return self.expr(a),
                None => ExprKind::Unknown(self.short_text(n)),
            },
            "ternary_expression" => {
                let test = self.opt_expr(n.child_by_field_name("condition"), n);
                let body = self.opt_expr(n.child_by_field_name("consequence"), n);
                let orelse = self.opt_expr(n.child_by_field_name("alternative"), n);
                ExprKind::Conditional {
                    test: Box::new(test),
                    body: Box::new(body),
                    orelse: Box::new(orelse),
                }
            }
            "array" => {
                let items = kids(n)
                    .into_iter()
                    .map(|k| {
                        if k.kind() == "spread_element" {
                            let v = match kids(k).first() {
                                Some(x) => self.expr(*x),
                                None => self.unknown(k),
                            };
                            Expr::new(ExprKind::Starred(Box::new(v)), span(k))
                        } else {
                            self.expr(k)
                        }
                    })
                    .collect();
                ExprKind::List(items)
            }
            "object" => {
                let mut items = Vec::new();
                for k in kids(n) {
                    match k.kind() {
                        "pair" => {
                            let key = match k.child_by_field_name("key") {
                                Some(key) if key.kind() == "computed_property_name" => {
                                    match kids(key).first() {
                                        Some(x) => self.expr(*x),
                                        None => self.unknown(key),
                                    }
                                }
                                Some(key) => {
                                    Expr::new(ExprKind::Str(self.prop_key(key)), span(key))
                                }
                                None => self.unknown(k),
                            };
                            let value = match k.child_by_field_name("value") {
                                Some(v)
                                    if matches!(
                                        v.kind(),
                                        "arrow_function" | "function_expression" | "function"
                                    ) =>
                                {
                                    let nm = key.as_str().unwrap_or("").to_string();
                                    let f = self.function(v, &nm, None);
                                    Expr::new(ExprKind::Lambda(f), span(v))
                                }
                                v => self.opt_expr(v, k),
                            };
                            items.push((Some(key), value));
                        }
                        "shorthand_property_identifier" => {
                            let t = self.text(k).to_string();
                            items.push((
                                Some(Expr::new(ExprKind::Str(t.clone()), span(k))),
                                name_expr(&t, span(k)),
                            ));
                        }
                        "spread_element" => {
                            let v = match kids(k).first() {
                                Some(x) => self.expr(*x),
                                None => self.unknown(k),
                            };
                            items.push((None, v));
                        }
                        "method_definition" => {
                            let nm = k
                                .child_by_field_name("name")
                                .map(|x| self.prop_key(x))
                                .unwrap_or_default();
                            let f = self.function(k, &nm, None);
                            items.push((
                                Some(Expr::new(ExprKind::Str(nm), span(k))),
                                Expr::new(ExprKind::Lambda(f), span(k)),
                            ));
                        }
                        _ => {}
                    }
                }
                ExprKind::Dict(items)
            }
            "arrow_function" | "function_expression" | "function" | "generator_function" => {
                let nm = n
                    .child_by_field_name("name")
                    .map(|x| self.text(x).to_string())
                    .unwrap_or_default();
                let f = self.function(n, &nm, None);
                ExprKind::Lambda(f)
            }
            "class" => {
                let nm = n
                    .child_by_field_name("name")
                    .map(|x| self.text(x).to_string())
                    .unwrap_or_else(|| format!("<class@{}>", sp.start_line));
                self.class(n, &nm);
                ExprKind::Name(nm)
            }
            "assignment_expression" => {
                // An assignment used as a value: its value (the binding itself is lost).
                match n.child_by_field_name("right") {
                    Some(r) => return self.expr(r),
                    None => ExprKind::Unknown(self.short_text(n)),
                }
            }
            "augmented_assignment_expression" => {
                let left = self.opt_expr(n.child_by_field_name("left"), n);
                let right = self.opt_expr(n.child_by_field_name("right"), n);
                ExprKind::Binary {
                    op: "+".into(),
                    left: Box::new(left),
                    right: Box::new(right),
                }
            }
            "sequence_expression" => match kids(n).last() {
                Some(k) => return self.expr(*k),
                None => ExprKind::Unknown(self.short_text(n)),
            },
            "spread_element" => match kids(n).first() {
                Some(k) => ExprKind::Starred(Box::new(self.expr(*k))),
                None => ExprKind::Unknown(self.short_text(n)),
            },
            "jsx_element" | "jsx_self_closing_element" | "jsx_fragment" => {
                ExprKind::Unknown(self.short_text(n))
            }
            _ => ExprKind::Unknown(self.short_text(n)),
        };
        Expr::new(kind, sp)
    }

    /// Template parts from the raw text between `${…}` substitutions.
    fn template_parts(&mut self, n: Node) -> Vec<StrPart> {
        let mut parts = Vec::new();
        let mut pos = n.start_byte() + 1;
        let end = n.end_byte().saturating_sub(1);
        for k in kids(n) {
            if k.kind() != "template_substitution" {
                continue;
            }
            if let Some(lit) = self.src.get(pos..k.start_byte())
                && !lit.is_empty()
            {
                let mut s = String::new();
                decode_escapes(lit, &mut s);
                parts.push(StrPart::Lit(s));
            }
            if let Some(e) = kids(k).first() {
                let e = self.expr(*e);
                parts.push(StrPart::Expr(e));
            }
            pos = k.end_byte();
        }
        if let Some(lit) = self.src.get(pos..end)
            && !lit.is_empty()
        {
            let mut s = String::new();
            decode_escapes(lit, &mut s);
            parts.push(StrPart::Lit(s));
        }
        parts
    }
}
