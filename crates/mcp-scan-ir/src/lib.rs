//! A small, language-neutral IR. Language adapters (`mcp-scan-lang`) lower tree-sitter trees into
//! it; the analyses (`mcp-scan-flow`) never see tree-sitter nodes. Adding a language means an
//! adapter that produces [`Module`]s; nothing downstream changes.
//!
//! Design rules:
//! - Every statement and expression carries a [`Span`] so findings can point at source.
//! - Functions live in one flat arena per module ([`Module::functions`]); nesting is by index
//!   ([`Function::parent`]), so closures, lambdas and methods are all plain functions.
//! - Module-level code is the synthetic function `<module>` at index 0.
//! - Constructs an adapter cannot lower become [`StmtKind::Unknown`] / [`ExprKind::Unknown`]
//!   with their span, never silently dropped: analyses treat them conservatively.

use mcp_scan_core::{DeclaredParam, EntityKind, SourceLocation};
use serde::{Deserialize, Serialize};

/// Index of a function in [`Module::functions`].
pub type FuncId = usize;

/// Source language of a module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    Python,
    TypeScript,
    JavaScript,
    Go,
}

impl Language {
    /// Lower-case name, as serialised (`python`, `typescript`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::TypeScript => "typescript",
            Language::JavaScript => "javascript",
            Language::Go => "go",
        }
    }

    /// The folder of its API models, `rules/models/<dir>/`: JavaScript shares TypeScript's.
    pub fn models_dir(self) -> &'static str {
        match self {
            Language::JavaScript => "typescript",
            other => other.name(),
        }
    }
}

/// 1-based lines and columns, 0-based byte offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Span {
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
    pub start_byte: usize,
    pub end_byte: usize,
}

impl Span {
    /// A [`SourceLocation`] in `file` (relative path), with `source` used for the snippet.
    pub fn location(&self, file: &str, source: &str) -> SourceLocation {
        let snippet = source.get(self.start_byte..self.end_byte).map(|s| {
            s.lines()
                .next()
                .unwrap_or("")
                .trim()
                .chars()
                .take(160)
                .collect()
        });
        SourceLocation {
            file: file.to_string(),
            line: self.start_line,
            column: self.start_col,
            end_line: Some(self.end_line),
            end_column: Some(self.end_col),
            snippet,
        }
    }
}

/// One source file, lowered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Module {
    /// Path relative to the scanned root, `/`-separated.
    pub path: String,
    /// Dotted module name used to resolve imports (`pkg.util` for `pkg/util.py`; for TS/JS the
    /// path without extension).
    pub name: String,
    pub language: Language,
    pub imports: Vec<Import>,
    /// Index 0 is `<module>` (top-level code).
    pub functions: Vec<Function>,
    /// Classes with their methods (by FuncId), for `self.method()` and `Class.method` resolution.
    pub classes: Vec<Class>,
    pub entry_points: Vec<EntryPoint>,
    /// The language's conventions, from its adapter (not serialised: they are the adapter's,
    /// not the file's).
    #[serde(skip)]
    pub conventions: Conventions,
}

/// What the analyses must know about a language that its syntax alone does not say, supplied
/// by the language's adapter so that no analysis names a language's identifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Conventions {
    /// Names that denote the object a method is called on when they are a method's first
    /// parameter, or free in its body (Python `self`/`cls`, JavaScript `this`). A method
    /// with a receiver of its own name (Go's `func (s *S) m()`) says so in
    /// [`Param::receiver`].
    pub receivers: &'static [&'static str],
    /// The method name of a class's constructor (`__init__`, `constructor`); None when the
    /// language has none (Go).
    pub constructor: Option<&'static str>,
    /// Handler parameter names the MCP framework fills rather than the caller (`ctx`).
    pub injected_names: &'static [&'static str],
    /// Annotation fragments of parameters the framework fills (`Context`).
    pub injected_types: &'static [&'static str],
    /// Type names of numbers (`int`, `float`, `bool`): a parameter annotated with one carries
    /// no quote, path or shell syntax once the framework converted it.
    pub number_types: &'static [&'static str],
    /// Type names of the null value, allowed beside a number type in a union (`int | None`).
    pub null_types: &'static [&'static str],
    /// Generic wrappers that make a type nullable, with their opening bracket (`Optional[`).
    pub optional_wrappers: &'static [&'static str],
    /// Decorators that make a method static: called through an instance, it gets no receiver.
    pub static_decorators: &'static [&'static str],
}

impl Conventions {
    /// Whether an annotation is a number type, optionally nullable (`Optional[int]`,
    /// `int | None`).
    pub fn is_number_annotation(&self, a: &str) -> bool {
        let a = a.trim();
        let inner = self
            .optional_wrappers
            .iter()
            .find_map(|w| a.strip_prefix(w).and_then(|x| x.strip_suffix(']')))
            .unwrap_or(a);
        let parts: Vec<&str> = inner.split('|').map(str::trim).collect();
        parts.iter().any(|p| self.number_types.contains(p))
            && parts
                .iter()
                .all(|p| self.number_types.contains(p) || self.null_types.contains(p))
    }

    /// Whether `name` is the receiver of a method of this language.
    pub fn is_receiver(&self, name: &str) -> bool {
        self.receivers.contains(&name)
    }

    /// Whether a handler parameter is filled by the framework, not chosen by the caller.
    pub fn is_injected(&self, p: &Param) -> bool {
        p.injected
            || p.receiver
            || self.is_receiver(&p.name)
            || self.injected_names.contains(&p.name.as_str())
            || p.annotation
                .as_deref()
                .is_some_and(|a| self.injected_types.iter().any(|t| a.contains(t)))
    }
}

impl Module {
    pub const TOP_LEVEL: FuncId = 0;

    /// The constructor of the class named `class` (`Helper.__init__`), by the language's
    /// convention.
    pub fn constructor_of(&self, class: &str) -> Option<FuncId> {
        let ctor = self.conventions.constructor?;
        self.function_by_qualname(&format!("{class}.{ctor}"))
    }

    /// The function named by `qualname` (e.g. `Helper.send`, `outer.inner`).
    pub fn function_by_qualname(&self, qualname: &str) -> Option<FuncId> {
        self.functions.iter().position(|f| f.qualname == qualname)
    }
}

/// `import a.b as c` → local `c`, target `a.b`, symbol None.
/// `from .util import send as s` → local `s`, target `<pkg>.util` (resolved), symbol `send`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub local: String,
    /// Absolute dotted module path (relative imports already resolved against [`Module::name`]).
    pub module: String,
    /// The imported name, for `from m import name`; None for `import m`.
    pub symbol: Option<String>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Class {
    pub name: String,
    pub bases: Vec<String>,
    pub methods: Vec<FuncId>,
    /// Names annotated in the class body (`x: int`, `y: str = ""`), in order: the fields of a
    /// dataclass, `NamedTuple` or model, which its constructor binds positionally.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Expr>,
    /// `*args` / `...rest`
    #[serde(default)]
    pub variadic: bool,
    /// `**kwargs`
    #[serde(default)]
    pub keywords: bool,
    /// Filled by the framework, not by the caller (a Go `context.Context`, an injected request
    /// context); see also [`Conventions::is_injected`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub injected: bool,
    /// The receiver of a method, named by the method itself (Go's `s` in
    /// `func (s *Server) m()`); it is the first parameter. Languages with a fixed receiver name
    /// say so in [`Conventions::receivers`] instead.
    #[serde(default, skip_serializing_if = "is_false")]
    pub receiver: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Function {
    pub name: String,
    /// Dotted within the module: `send`, `Helper.send`, `outer.inner`, `<lambda@12>`.
    pub qualname: String,
    pub params: Vec<Param>,
    pub body: Vec<Stmt>,
    pub decorators: Vec<Expr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docstring: Option<String>,
    pub is_async: bool,
    /// Enclosing function (closures see its variables).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<FuncId>,
    /// Enclosing class, for methods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    pub span: Span,
}

impl Function {
    /// Whether `name` is this function's receiver: a parameter the adapter marked
    /// ([`Param::receiver`]) or a name the language reserves ([`Conventions::receivers`]).
    pub fn is_receiver(&self, name: &str, conventions: &Conventions) -> bool {
        conventions.is_receiver(name) || self.params.iter().any(|p| p.receiver && p.name == name)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Handler {
    /// The exception type expression, None for a bare `except:` / `catch`.
    pub kind: Option<Expr>,
    pub name: Option<String>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WithItem {
    pub context: Expr,
    pub target: Option<Expr>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchArm {
    /// The case pattern as an expression (a literal for `case "x"` / `case 'x':`); None = default.
    pub pattern: Option<Expr>,
    pub body: Vec<Stmt>,
    /// Control reaching the end of the body continues into the next arm's body (a JavaScript
    /// `case` without `break`, Go's `fallthrough`). Only meaningful in [`StmtKind::Switch`].
    #[serde(default, skip_serializing_if = "is_false")]
    pub fallthrough: bool,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StmtKind {
    /// `a = b = value`, `a, b = value`, `x.y = value`, `x[i] = value`. Targets are lvalue
    /// expressions (Name, Attribute, Index, Tuple/List of those, Starred).
    Assign {
        targets: Vec<Expr>,
        value: Expr,
    },
    /// `x += value` (op without `=`).
    AugAssign {
        target: Expr,
        op: String,
        value: Expr,
    },
    /// An expression evaluated for its effect (usually a call).
    Expr(Expr),
    Return(Option<Expr>),
    If {
        test: Expr,
        then: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    While {
        test: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
    },
    /// `for target in iter` (also TS `for..of/in`; C-style loops lower to init + While).
    For {
        target: Expr,
        iter: Expr,
        body: Vec<Stmt>,
        orelse: Vec<Stmt>,
        is_async: bool,
    },
    Try {
        body: Vec<Stmt>,
        handlers: Vec<Handler>,
        orelse: Vec<Stmt>,
        finally: Vec<Stmt>,
    },
    With {
        items: Vec<WithItem>,
        body: Vec<Stmt>,
        is_async: bool,
    },
    /// Python `match`: the first arm whose pattern matches runs, then control leaves; `break`
    /// inside it belongs to the enclosing loop.
    Match {
        subject: Expr,
        arms: Vec<MatchArm>,
    },
    /// A C-family `switch` (TypeScript/JavaScript, Go): the first matching arm runs and, where
    /// [`MatchArm::fallthrough`] says so, the following ones; a `break` leaves the switch.
    Switch {
        subject: Expr,
        arms: Vec<MatchArm>,
    },
    Raise(Option<Expr>),
    Break,
    Continue,
    /// A statement with a label (`outer: for ...`), the target of [`StmtKind::BreakTo`] and
    /// [`StmtKind::ContinueTo`].
    Labeled {
        label: String,
        body: Vec<Stmt>,
    },
    /// `break label`: leaves the labelled statement.
    BreakTo(String),
    /// `continue label`: the next iteration of the labelled loop.
    ContinueTo(String),
    /// Go's `defer f(x)`: the body runs when the function exits, by any path, after the
    /// statement was reached (later defers first).
    Defer(Vec<Stmt>),
    /// A nested `def`/`function`/method bound to a local name.
    FunctionDef {
        name: String,
        func: FuncId,
    },
    /// A nested class definition bound to a local name.
    ClassDef {
        name: String,
    },
    /// `import`/`from` inside a function body (also recorded in [`Module::imports`]).
    Import(Vec<Import>),
    /// `global`/`nonlocal` names.
    Scope {
        names: Vec<String>,
    },
    /// `del x`
    Delete(Vec<Expr>),
    /// A statement the adapter does not lower; its text is kept for evidence.
    Unknown {
        text: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Arg {
    /// Keyword name for `f(x=1)`; None for positional.
    pub name: Option<String>,
    pub value: Expr,
    /// `*xs` / `...xs`
    #[serde(default)]
    pub spread: bool,
    /// `**kw`
    #[serde(default)]
    pub spread_keywords: bool,
}

/// A piece of an f-string / template literal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum StrPart {
    Lit(String),
    Expr(Expr),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ExprKind {
    Name(String),
    /// `value.attr`
    Attribute {
        value: Box<Expr>,
        attr: String,
    },
    /// `value[index]` (slices lower to Index with an Unknown index)
    Index {
        value: Box<Expr>,
        index: Box<Expr>,
    },
    Call {
        callee: Box<Expr>,
        args: Vec<Arg>,
    },
    /// A string literal, escapes decoded, implicit concatenation joined.
    Str(String),
    /// f-string / template literal.
    FormatStr(Vec<StrPart>),
    /// Bytes literal, decoded lossily.
    Bytes(String),
    Number(String),
    Bool(bool),
    /// None / null / undefined / nil
    Null,
    /// Binary operators (`+`, `/`, `%`, `and`, `or`, `==`, `in`, ...); comparisons chained
    /// `a < b < c` lower to `and` of pairs.
    Binary {
        op: String,
        left: Box<Expr>,
        right: Box<Expr>,
    },
    Unary {
        op: String,
        operand: Box<Expr>,
    },
    /// `body if test else orelse` / `test ? body : orelse`
    Conditional {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    List(Vec<Expr>),
    Tuple(Vec<Expr>),
    Set(Vec<Expr>),
    /// Keys None for `**spread` entries.
    Dict(Vec<(Option<Expr>, Expr)>),
    /// A comprehension/generator: element expressions and the `for target in iter` clauses,
    /// conditions included as plain expressions.
    Comprehension {
        elements: Vec<Expr>,
        clauses: Vec<(Expr, Expr)>,
        conditions: Vec<Expr>,
    },
    /// A lambda / arrow function / closure, lowered as a function of the module.
    Lambda(FuncId),
    Await(Box<Expr>),
    /// `*x` in an lvalue or literal.
    Starred(Box<Expr>),
    /// `x := value`
    NamedExpr {
        target: String,
        value: Box<Expr>,
    },
    /// An expression the adapter does not lower; its text is kept.
    Unknown(String),
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Self {
        Expr { kind, span }
    }

    /// `a.b.c` for a Name/Attribute chain, None otherwise (calls in the chain break it).
    pub fn dotted_path(&self) -> Option<String> {
        match &self.kind {
            ExprKind::Name(n) => Some(n.clone()),
            ExprKind::Attribute { value, attr } => {
                value.dotted_path().map(|base| format!("{base}.{attr}"))
            }
            _ => None,
        }
    }

    /// The literal string value, if this is a plain string literal.
    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// An MCP tool, resource or prompt handler found by the adapter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntryPoint {
    pub kind: EntityKind,
    /// The name the client sees (decorator `name=`, the function name, or the dispatcher arm's
    /// literal); for resources, the URI or template.
    pub name: String,
    /// Declared description (decorator `description=`, docstring, or the registration's
    /// description argument), constants resolved; None when the server declares none.
    pub description: Option<String>,
    /// The handler. For a low-level `call_tool` dispatcher the adapter lowers each arm into a
    /// synthetic function of its own, so every entry point has exactly one body.
    pub function: FuncId,
    pub params: Vec<DeclaredParam>,
    /// The registration (decorator or `add_tool`/`server.tool(...)` call).
    pub span: Span,
    /// The server object the handler is registered on (`mcp`, `server`).
    pub server_var: String,
}
