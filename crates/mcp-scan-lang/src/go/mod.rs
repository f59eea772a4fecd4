//! Go front-end: tree-sitter-go → IR (`lower.rs`), then packages linked and MCP entry points
//! resolved across the tree (`resolve.rs`) from the framework table `grammars/go/frameworks.toml`.

pub(crate) mod lower;
mod resolve;

use crate::{LanguageAdapter, Limits, LowerError, Lowered, Resolution};
use mcp_scan_ir::{Conventions, Language, Module};
use serde::Deserialize;
use std::cell::RefCell;
use std::sync::OnceLock;
use tree_sitter::Parser;

/// The Go adapter (`.go`).
pub struct GoAdapter;

/// Go names its receivers per method ([`mcp_scan_ir::Param::receiver`]) and has no
/// constructor; a `context.Context` parameter is the framework's.
pub(crate) const CONVENTIONS: Conventions = Conventions {
    receivers: &[],
    constructor: None,
    injected_names: &[],
    injected_types: &["context.Context"],
    number_types: &[
        "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
        "float32", "float64", "bool", "number", "integer", "boolean",
    ],
    null_types: &[],
    optional_wrappers: &[],
    static_decorators: &[],
};

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

pub(crate) fn language() -> tree_sitter::Language {
    tree_sitter::Language::new(tree_sitter_go::LANGUAGE)
}

pub const FRAMEWORKS_PATH: &str = "grammars/go/frameworks.toml";
const FRAMEWORKS: &str = include_str!("../../../../grammars/go/frameworks.toml");

/// Default skips of Go tooling: vendored modules and tests.
const DEFAULT_EXCLUDES: &[&str] = &["**/vendor/**", "**/*_test.go", "**/testdata/**"];

/// `grammars/go/frameworks.toml`.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct GoFrameworks {
    #[serde(default)]
    pub packages: Vec<String>,
    #[serde(default)]
    pub injected_types: Vec<String>,
    #[serde(default)]
    pub server: Vec<ServerRow>,
    #[serde(default)]
    pub registration: Vec<RegistrationRow>,
    #[serde(default)]
    pub definition: Vec<DefinitionRow>,
    #[serde(default)]
    pub definition_struct: Vec<DefinitionStructRow>,
    #[serde(default)]
    pub option: Vec<OptionRow>,
    #[serde(default)]
    pub handler_wrapper: Vec<WrapperRow>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerRow {
    pub callee: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RegistrationRow {
    #[serde(default)]
    pub callee: Option<String>,
    #[serde(default)]
    pub method: Option<String>,
    pub kind: String,
    pub definition: usize,
    pub handler: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefinitionRow {
    pub callee: String,
    pub name: usize,
    pub options: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DefinitionStructRow {
    #[serde(rename = "type")]
    pub ty: String,
    pub name: String,
    pub description: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionRow {
    pub callee: String,
    pub role: String,
    #[serde(default, rename = "type")]
    pub ty: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrapperRow {
    pub callee: String,
    pub arg: usize,
}

/// The parsed framework table, or why it is invalid.
pub fn go_frameworks_checked() -> Result<&'static GoFrameworks, LowerError> {
    static F: OnceLock<Result<GoFrameworks, LowerError>> = OnceLock::new();
    F.get_or_init(|| {
        let f: GoFrameworks = toml::from_str(FRAMEWORKS).map_err(|e| LowerError::Model {
            file: FRAMEWORKS_PATH.to_string(),
            message: e.to_string(),
        })?;
        for r in &f.registration {
            if r.callee.is_some() == r.method.is_some() {
                return Err(LowerError::Model {
                    file: FRAMEWORKS_PATH.to_string(),
                    message: "a [[registration]] names exactly one of `callee` and `method`".into(),
                });
            }
            if !["tool", "resource", "prompt"].contains(&r.kind.as_str()) {
                return Err(LowerError::Model {
                    file: FRAMEWORKS_PATH.to_string(),
                    message: format!("unknown registration kind `{}`", r.kind),
                });
            }
        }
        for o in &f.option {
            if !["description", "param", "param-description"].contains(&o.role.as_str()) {
                return Err(LowerError::Model {
                    file: FRAMEWORKS_PATH.to_string(),
                    message: format!("unknown option role `{}`", o.role),
                });
            }
        }
        Ok(f)
    })
    .as_ref()
    .map_err(Clone::clone)
}

impl LanguageAdapter for GoAdapter {
    fn language(&self) -> Language {
        Language::Go
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["go"]
    }

    fn conventions(&self) -> Conventions {
        CONVENTIONS
    }

    fn default_excludes(&self) -> &'static [&'static str] {
        DEFAULT_EXCLUDES
    }

    fn frameworks(&self) -> Option<(&'static str, &'static str)> {
        Some((FRAMEWORKS_PATH, FRAMEWORKS))
    }

    fn grammar(&self, query_language: &str) -> Option<tree_sitter::Language> {
        (query_language == "go").then(language)
    }

    fn resolve(&self, modules: &mut [Module], root: Option<&std::path::Path>) -> Resolution {
        resolve::resolve_tree(modules, root)
    }

    fn lower_file(
        &self,
        rel_path: &str,
        source: &str,
        limits: &Limits,
    ) -> Result<Lowered, LowerError> {
        let tree = PARSER.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                let mut p = Parser::new();
                p.set_language(&language())
                    .map_err(|e| LowerError::Grammar {
                        path: rel_path.to_string(),
                        language: "go",
                        message: e.to_string(),
                    })?;
                *slot = Some(p);
            }
            let parser = slot.as_mut().ok_or_else(|| LowerError::ParseFailed {
                path: rel_path.to_string(),
            })?;
            parser
                .parse(source, None)
                .ok_or_else(|| LowerError::ParseFailed {
                    path: rel_path.to_string(),
                })
        })?;
        Ok(lower::lower_tree(rel_path, source, &tree, limits))
    }
}

/// Lowers Go files (relative path, source) tolerantly and resolves them as one tree: packages
/// linked, entry points attached. For tests and single files; [`crate::scan_tree`] does the same
/// for a directory (and reads `go.mod` there).
pub fn lower_files(files: &[(&str, &str)]) -> Result<(Vec<Module>, Resolution), LowerError> {
    crate::with_big_stack(|| {
        let mut mods = Vec::new();
        for (path, src) in files {
            mods.push(GoAdapter.lower_file(path, src, &Limits::default())?.module);
        }
        let r = resolve::resolve_tree(&mut mods, None);
        Ok((mods, r))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_scan_core::EntityKind;
    use mcp_scan_ir::{ExprKind, StmtKind};

    fn one(src: &str) -> Module {
        crate::with_big_stack(|| GoAdapter.lower("main.go", src)).expect("lowers")
    }

    fn func<'a>(m: &'a Module, qualname: &str) -> &'a mcp_scan_ir::Function {
        let i = m.function_by_qualname(qualname).expect(qualname);
        &m.functions[i]
    }

    #[test]
    fn methods_have_their_receiver_as_first_parameter_and_belong_to_the_type() {
        let m = one(
            "package p\ntype S struct{ db string; n int }\nfunc (s *S) Get(ctx context.Context, name string) string { return s.db + name }\n",
        );
        let f = func(&m, "S.Get");
        assert_eq!(f.class.as_deref(), Some("S"));
        assert!(f.params[0].receiver && f.params[0].name == "s");
        assert_eq!(f.params.len(), 3);
        assert!(
            m.conventions.is_injected(&f.params[1]),
            "a context is the framework's"
        );
        let cls = m.classes.iter().find(|c| c.name == "S").expect("class S");
        assert_eq!(cls.fields, vec!["db", "n"]);
        assert!(
            cls.methods
                .contains(&m.function_by_qualname("S.Get").unwrap_or(0))
        );
    }

    #[test]
    fn imports_bind_their_package_name_and_keep_the_path() {
        let m = one("package p\nimport (\n\t\"os/exec\"\n\tx \"net/http\"\n\t_ \"embed\"\n)\n");
        let got: Vec<(&str, &str)> = m
            .imports
            .iter()
            .map(|i| (i.local.as_str(), i.module.as_str()))
            .collect();
        assert_eq!(got, vec![("exec", "os/exec"), ("x", "net/http")]);
    }

    #[test]
    fn defer_switch_fallthrough_labels_and_type_switches_lower_to_their_ir_nodes() {
        let m = one(r#"package p
func f(x any, n int) (string, error) {
	defer cleanup(n)
outer:
	for i := 0; i < n; i++ {
		switch n {
		case 1:
			fallthrough
		case 2:
			break outer
		default:
			continue outer
		}
	}
	switch v := x.(type) {
	case string:
		return v, nil
	}
	go work(x)
	return "", nil
}"#);
        let body = &func(&m, "f").body;
        assert!(matches!(body[0].kind, StmtKind::Defer(_)));
        let StmtKind::Labeled { label, body: lb } = &body[1].kind else {
            panic!("labeled: {:?}", body[1].kind)
        };
        assert_eq!(label, "outer");
        // `i := 0` then the loop.
        let StmtKind::While { body: wb, .. } = &lb[1].kind else {
            panic!("while: {:?}", lb[1].kind)
        };
        let StmtKind::Switch { arms, .. } = &wb[0].kind else {
            panic!("switch")
        };
        assert!(arms[0].fallthrough && !arms[1].fallthrough);
        assert!(matches!(arms[1].body[0].kind, StmtKind::BreakTo(ref l) if l == "outer"));
        assert!(matches!(arms[2].body[0].kind, StmtKind::ContinueTo(ref l) if l == "outer"));
        assert!(arms[2].pattern.is_none());
        let StmtKind::Switch { arms, .. } = &body[2].kind else {
            panic!("type switch")
        };
        // The alias is bound in the arm.
        assert!(
            matches!(&arms[0].body[0].kind, StmtKind::Assign { targets, .. } if matches!(&targets[0].kind, ExprKind::Name(n) if n == "v"))
        );
        assert!(
            matches!(&body[3].kind, StmtKind::Expr(e) if matches!(e.kind, ExprKind::Call { .. }))
        );
        assert!(
            matches!(&body[4].kind, StmtKind::Return(Some(e)) if matches!(e.kind, ExprKind::Tuple(_)))
        );
    }

    #[test]
    fn composite_literals_are_constructor_calls_dicts_and_lists() {
        let m = one(r#"package p
func f() {
	t := &mcp.Tool{Name: "x", Description: "y"}
	m := map[string]int{"a": 1}
	l := []string{"a", "b"}
	h := func(a int) int { return a }
}"#);
        let body = &func(&m, "f").body;
        let value = |i: usize| match &body[i].kind {
            StmtKind::Assign { value, .. } => value.kind.clone(),
            k => panic!("{k:?}"),
        };
        let ExprKind::Call { callee, args } = value(0) else {
            panic!("call")
        };
        assert_eq!(callee.dotted_path().as_deref(), Some("mcp.Tool"));
        assert_eq!(args[0].name.as_deref(), Some("Name"));
        assert!(matches!(value(1), ExprKind::Dict(ref kv) if kv.len() == 1));
        assert!(matches!(value(2), ExprKind::List(ref xs) if xs.len() == 2));
        let ExprKind::Lambda(fid) = value(3) else {
            panic!("closure")
        };
        assert_eq!(m.functions[fid].parent, m.function_by_qualname("f"));
    }

    #[test]
    fn syntax_errors_are_issues_not_panics() {
        let r = GoAdapter.lower_file("main.go", "package p\nfunc f( {\n", &Limits::default());
        let l = r.expect("tolerant");
        assert!(l.issues.iter().any(|i| i.kind == crate::IssueKind::Syntax));
    }

    const MCP_GO: &str = r#"package main

import (
	"context"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const toolName = "greet"

func main() {
	s := server.NewMCPServer("demo", "1.0.0")
	t := mcp.NewTool(toolName,
		mcp.WithDescription("Says hello."),
		mcp.WithString("name", mcp.Required(), mcp.Description("who")),
		mcp.WithNumber("times"),
	)
	s.AddTool(t, greet)
	s.AddTool(mcp.NewTool("inline"), func(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
	s.AddTool(mcp.NewTool("opaque"), handlers[0])
	s.AddPrompt(mcp.NewPrompt("review", mcp.WithPromptDescription("Reviews.")), review)
}

func greet(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil }
func review(ctx context.Context, r mcp.GetPromptRequest) (*mcp.GetPromptResult, error) { return nil, nil }
"#;

    #[test]
    fn mcp_go_tools_take_names_descriptions_and_parameters_from_their_options() {
        let (mods, res) = lower_files(&[("main.go", MCP_GO)]).expect("lowers");
        let eps = &mods[0].entry_points;
        let names: Vec<&str> = eps.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, vec!["greet", "inline", "review"]);
        let greet = &eps[0];
        assert_eq!(greet.description.as_deref(), Some("Says hello."));
        assert_eq!(greet.params.len(), 2);
        assert_eq!(greet.params[0].name, "name");
        assert_eq!(greet.params[0].description.as_deref(), Some("who"));
        assert_eq!(greet.params[1].type_hint.as_deref(), Some("number"));
        assert_eq!(greet.server_var, "s");
        assert_eq!(eps[2].kind, EntityKind::Prompt);
        // The handler `handlers[0]` cannot be followed: a gap, never a silent miss.
        assert_eq!(res.registration_sites, 4);
        assert_eq!(res.gaps.len(), 1, "{:?}", res.gaps);
        assert!(res.gaps[0].line == Some(20), "{:?}", res.gaps);
    }

    #[test]
    fn go_sdk_tools_resolve_across_files_and_packages_of_the_module() {
        let main = r#"package main
import (
	"example.com/x/internal/tools"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)
func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "x"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "a", Description: "A."}, local)
	mcp.AddTool(server, &mcp.Tool{Name: "b"}, tools.B)
	mcp.AddTool(server, &mcp.Tool{Name: "c"}, tools.Missing)
}
"#;
        let other = "package main\nfunc local(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) { return nil, nil, nil }\n";
        let tools = "package tools\nfunc B(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) { return nil, nil, nil }\n";
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("go.mod"), "module example.com/x\n").expect("go.mod");
        let mut mods = Vec::new();
        for (p, s) in [
            ("main.go", main),
            ("other.go", other),
            ("internal/tools/t.go", tools),
        ] {
            mods.push(GoAdapter.lower(p, s).expect("lowers"));
        }
        let res = crate::with_big_stack(|| resolve::resolve_tree(&mut mods, Some(dir.path())));
        assert_eq!(mods[2].name, "example.com/x/internal/tools");
        let names: Vec<&str> = mods[0]
            .entry_points
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(names, vec!["a", "b"]);
        assert_eq!(res.registration_sites, 3);
        assert_eq!(res.gaps.len(), 1, "{:?}", res.gaps);
        assert!(
            res.gaps[0].reason.contains("Missing") || res.gaps[0].reason.contains("not found"),
            "{:?}",
            res.gaps
        );
        // The sibling file's function is visible from main.go.
        assert!(
            mods[0]
                .imports
                .iter()
                .any(|i| i.local == "local" && i.symbol.as_deref() == Some("local"))
        );
    }

    #[test]
    fn a_function_returning_a_tool_and_its_handler_is_an_entry_point() {
        let src = r#"package github
import (
	"context"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)
func GetIssue(getClient GetClientFn) (tool mcp.Tool, handler server.ToolHandlerFunc) {
	return mcp.NewTool("get_issue", mcp.WithDescription("Gets an issue."), mcp.WithNumber("issue_number")),
		func(ctx context.Context, request mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, nil
		}
}
"#;
        let (mods, res) = lower_files(&[("pkg/github/issues.go", src)]).expect("lowers");
        let eps = &mods[0].entry_points;
        assert_eq!(eps.len(), 1);
        assert_eq!(eps[0].name, "get_issue");
        assert_eq!(eps[0].params[0].name, "issue_number");
        assert!(res.gaps.is_empty());
    }

    #[test]
    fn an_add_tool_method_outside_mcp_server_code_is_no_registration() {
        let src = "package p\nfunc f(r *Registry) { r.AddTool(x, y) }\n";
        let (mods, res) = lower_files(&[("p.go", src)]).expect("lowers");
        assert!(mods[0].entry_points.is_empty());
        assert_eq!(res.registration_sites, 0);
        assert!(res.gaps.is_empty());
    }

    #[test]
    fn a_method_value_takes_the_method_of_the_receivers_type_and_missing_module_packages_are_gaps()
    {
        let main = r#"package main
import (
	"github.com/example/srv/internal/transport"
	"github.com/example/srv/internal/gone"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)
func main() {
	server := mcp.NewServer(nil, nil)
	t := transport.New(gone.Service())
	mcp.AddTool(server, &mcp.Tool{Name: "run"}, t.Run)
}
"#;
        let transport = r#"package transport
type Transport struct{}
type Other struct{}
func New(s any) *Transport { return &Transport{} }
func (t *Transport) Run(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) { return nil, nil, nil }
func (o *Other) Run() {}
"#;
        // No go.mod: the module path comes from the tree's own imports.
        let (mods, res) = lower_files(&[("main.go", main), ("internal/transport/t.go", transport)])
            .expect("lowers");
        assert_eq!(mods[1].name, "github.com/example/srv/internal/transport");
        let eps = &mods[0].entry_points;
        assert_eq!(eps.len(), 1, "{:?}", res.gaps);
        let gaps: Vec<_> = res
            .gaps
            .iter()
            .map(|g| (g.kind, g.reason.clone()))
            .collect();
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        assert_eq!(gaps[0].0, mcp_scan_core::GapKind::UnanalysedImport);
        assert!(gaps[0].1.contains("internal/gone"), "{gaps:?}");
    }

    #[test]
    fn a_call_no_file_of_the_package_defines_means_a_missing_file_and_is_a_gap() {
        let a = r#"package tools
func All(t T) []any {
	local := func() int { return len("x") }
	var n = local()
	return []any{GetIssue(t), Defined(n), string(rune(n))}
}
"#;
        let b = "package tools
func Defined(n int) int { return n }
";
        let (_, res) =
            lower_files(&[("pkg/tools/a.go", a), ("pkg/tools/b.go", b)]).expect("lowers");
        let gaps: Vec<&str> = res.gaps.iter().map(|g| g.reason.as_str()).collect();
        assert_eq!(gaps.len(), 1, "{gaps:?}");
        assert!(gaps[0].contains("`GetIssue`"), "{gaps:?}");
        assert_eq!(res.gaps[0].kind, mcp_scan_core::GapKind::UnanalysedFile);
    }

    #[test]
    fn the_framework_table_parses() {
        let f = go_frameworks_checked().expect("grammars/go/frameworks.toml");
        assert!(!f.registration.is_empty() && !f.definition.is_empty());
    }
}
