//! Entry-point discovery: every registration form, each with a look-alike that must not count.

use mcp_scan_core::EntityKind;
use mcp_scan_ir::{EntryPoint, Module, StmtKind};
use mcp_scan_lang::{DiscoverOptions, python, scan_tree};

fn lower(src: &str) -> Module {
    python::lower("server.py", src).unwrap_or_else(|e| panic!("{e}"))
}

fn names(m: &Module) -> Vec<(EntityKind, String)> {
    m.entry_points
        .iter()
        .map(|e| (e.kind, e.name.clone()))
        .collect()
}

fn only(m: &Module) -> &EntryPoint {
    assert_eq!(m.entry_points.len(), 1, "{:#?}", names(m));
    &m.entry_points[0]
}

fn handler<'m>(m: &'m Module, e: &EntryPoint) -> &'m str {
    &m.functions[e.function].qualname
}

#[test]
fn fastmcp_tool_decorator_registers_a_tool_with_docstring_and_params() {
    let m = lower(
        r##"
from mcp.server.fastmcp import FastMCP, Context
mcp = FastMCP("notes")

@mcp.tool()
def format_note(title: str, body: str = "", ctx: Context = None) -> str:
    """Format a note as markdown."""
    return f"# {title}\n{body}"
"##,
    );
    let e = only(&m);
    assert_eq!((e.kind, e.name.as_str()), (EntityKind::Tool, "format_note"));
    assert_eq!(e.description.as_deref(), Some("Format a note as markdown."));
    assert_eq!(e.server_var, "mcp");
    assert_eq!(handler(&m, e), "format_note");
    let params: Vec<_> = e
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.type_hint.as_deref()))
        .collect();
    assert_eq!(params, [("title", Some("str")), ("body", Some("str"))]);
    assert_eq!(e.span.start_line, 5);
}

#[test]
fn tool_decorator_on_an_object_that_is_not_a_server_is_not_an_entry_point() {
    let m = lower(
        r#"
from mcp.server.fastmcp import FastMCP
from toolbox import Registry
registry = Registry()

@registry.tool()
def format_note(title: str) -> str:
    return title
"#,
    );
    assert!(m.entry_points.is_empty(), "{:?}", names(&m));
}

#[test]
fn a_local_class_named_fastmcp_is_not_an_mcp_server() {
    let m = lower(
        r#"
class FastMCP:
    def tool(self):
        return lambda f: f
mcp = FastMCP()

@mcp.tool()
def greet(name): return name
"#,
    );
    assert!(m.entry_points.is_empty(), "{:?}", names(&m));
}

#[test]
fn web_routes_are_not_entry_points() {
    let m = lower(
        r#"
from flask import Flask
from mcp.server.fastmcp import FastMCP
app = Flask(__name__)
mcp = FastMCP("x")

@app.route("/run")
def run(): return "ok"

@mcp.custom_route("/health", methods=["GET"])
async def health(request): return "ok"
"#,
    );
    assert!(m.entry_points.is_empty(), "{:?}", names(&m));
}

#[test]
fn bare_decorator_and_name_description_arguments_resolve_constants() {
    let m = lower(
        r#"
from fastmcp import FastMCP
PREFIX = "Reads "
DESC = PREFIX + "a file " "from the workspace."
mcp = FastMCP("files")

@mcp.tool
def bare(x: int) -> int:
    """Bare decorator."""
    return x

@mcp.tool(name="read_file", description=DESC)
def reader(path: str) -> str:
    """Docstring loses to the argument."""
    return open(path).read()

@mcp.tool("positional_name")
def positional(): pass
"#,
    );
    let got: Vec<_> = m
        .entry_points
        .iter()
        .map(|e| (e.name.as_str(), e.description.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("bare", Some("Bare decorator.")),
            ("read_file", Some("Reads a file from the workspace.")),
            ("positional_name", None),
        ]
    );
}

#[test]
fn resources_templates_and_prompts_are_found() {
    let m = lower(
        r#"
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("x")

@mcp.resource("config://app")
def config() -> str:
    return "{}"

@mcp.resource("notes://{note_id}")
def note(note_id: str) -> str:
    return note_id

@mcp.prompt()
def review(code: str) -> str:
    """Review code."""
    return code
"#,
    );
    assert_eq!(
        names(&m),
        [
            (EntityKind::Resource, "config://app".to_string()),
            (
                EntityKind::ResourceTemplate,
                "notes://{note_id}".to_string()
            ),
            (EntityKind::Prompt, "review".to_string()),
        ]
    );
}

#[test]
fn aliased_imports_and_module_aliases_are_resolved() {
    let m = lower(
        r#"
from mcp.server.fastmcp import FastMCP as F
import mcp.server.fastmcp as fm
import mcp
a = F("a")
b = fm.FastMCP("b")
c = mcp.server.fastmcp.FastMCP("c")

@a.tool()
def one(): pass
@b.tool()
def two(): pass
@c.tool()
def three(): pass
"#,
    );
    let got: Vec<_> = m
        .entry_points
        .iter()
        .map(|e| e.server_var.as_str())
        .collect();
    assert_eq!(got, ["a", "b", "c"]);
}

#[test]
fn mcp_2_mcpserver_is_a_server_from_both_import_paths() {
    let m = lower(
        r#"
from mcp.server import MCPServer
from mcp.server.mcpserver import MCPServer as M2
one = MCPServer("x")
two = M2("y")

@one.tool()
def a(): pass

@two.prompt()
def b(): pass
"#,
    );
    assert_eq!(
        names(&m),
        [
            (EntityKind::Tool, "a".to_string()),
            (EntityKind::Prompt, "b".to_string())
        ]
    );
}

#[test]
fn add_tool_registers_the_named_function() {
    let m = lower(
        r#"
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("x")

def format_note(title: str) -> str:
    """Format."""
    return title

mcp.add_tool(format_note, name="fmt", description="Formats a note.")
"#,
    );
    let e = only(&m);
    assert_eq!(e.name, "fmt");
    assert_eq!(e.description.as_deref(), Some("Formats a note."));
    assert_eq!(handler(&m, e), "format_note");
}

#[test]
fn decorator_called_directly_on_a_function_registers_it() {
    let m = lower(
        r#"
from fastmcp import FastMCP
mcp = FastMCP("x")
TOOL_NAME = "named"

def helper(path: str) -> str:
    return path

mcp.tool(helper, name="helper_tool")

@mcp.tool(TOOL_NAME)
def decorated(): pass
"#,
    );
    let got: Vec<_> = m
        .entry_points
        .iter()
        .map(|e| (e.name.as_str(), handler(&m, e)))
        .collect();
    assert_eq!(got, [("helper_tool", "helper"), ("named", "decorated")]);
}

#[test]
fn add_tool_on_an_unrelated_object_is_not_an_entry_point() {
    let m = lower(
        r#"
from mcp.server.fastmcp import FastMCP
from langchain.agents import Toolkit
kit = Toolkit()

def format_note(title: str) -> str:
    return title

kit.add_tool(format_note, name="fmt")
"#,
    );
    assert!(m.entry_points.is_empty(), "{:?}", names(&m));
}

const LOW_LEVEL_V1: &str = r#"
import os
import mcp.types as types
from mcp.server.lowlevel import Server

server = Server("files")
FETCH_DESC = "Fetch a URL."

@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="fetch",
            description=FETCH_DESC,
            inputSchema={"type": "object", "properties": {"url": {"type": "string", "description": "Where"}}},
        ),
        types.Tool(name="list_dir", description="List a directory.", inputSchema={"type": "object"}),
        types.Tool(name="stats", description="Stats.", inputSchema={"type": "object"}),
    ]

@server.call_tool()
async def call_tool(name: str, arguments: dict):
    args = arguments or {}
    if name == "fetch":
        return fetch(args["url"])
    elif name in ("list_dir", "ls"):
        return os.listdir(args["path"])
    raise ValueError(f"unknown tool {name}")
"#;

#[test]
fn low_level_dispatcher_is_split_into_one_function_per_arm() {
    let m = lower(LOW_LEVEL_V1);
    let got: Vec<_> = m
        .entry_points
        .iter()
        .map(|e| (e.name.as_str(), handler(&m, e), e.description.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("stats", "call_tool", Some("Stats.")),
            ("fetch", "call_tool[fetch]", Some("Fetch a URL.")),
            (
                "list_dir",
                "call_tool[list_dir|ls]",
                Some("List a directory.")
            ),
            ("ls", "call_tool[list_dir|ls]", None),
        ]
    );
    let fetch = m
        .entry_points
        .iter()
        .find(|e| e.name == "fetch")
        .expect("fetch");
    assert_eq!(fetch.params[0].name, "url");
    assert_eq!(fetch.params[0].description.as_deref(), Some("Where"));
    // The arm's body is the shared prefix, the branch and what follows the chain, and nothing
    // of the other arm.
    let body = &m.functions[fetch.function].body;
    assert_eq!(body.len(), 3, "{body:#?}");
    assert!(matches!(body[0].kind, StmtKind::Assign { .. }));
    assert!(matches!(body[1].kind, StmtKind::Return(_)));
    assert!(matches!(body[2].kind, StmtKind::Raise(_)));
    let params: Vec<_> = m.functions[fetch.function]
        .params
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(params, ["name", "arguments"]);
}

#[test]
fn list_tools_on_a_non_server_declares_nothing() {
    let src = LOW_LEVEL_V1.replace(
        "from mcp.server.lowlevel import Server",
        "from myframework import Server",
    );
    let m = lower(&src);
    assert!(m.entry_points.is_empty(), "{:?}", names(&m));
}

#[test]
fn low_level_match_dispatch_and_mcp_2_constructor_handlers() {
    let m = lower(
        r#"
from mcp.server import Server

async def handle_list(ctx, params):
    return ListToolsResult(tools=[Tool(name="echo", description="Echo.", input_schema={})])

async def handle_call(ctx, params):
    match params.name:
        case "echo":
            return params.arguments["text"]
        case "shout" | "yell":
            return params.arguments["text"].upper()
        case _:
            raise ValueError(params.name)

server = Server("demo", on_list_tools=handle_list, on_call_tool=handle_call)
"#,
    );
    let got: Vec<_> = m
        .entry_points
        .iter()
        .map(|e| (e.name.as_str(), handler(&m, e)))
        .collect();
    assert_eq!(
        got,
        [
            ("echo", "handle_call[echo]"),
            ("shout", "handle_call[shout|yell]"),
            ("yell", "handle_call[shout|yell]"),
        ]
    );
    assert_eq!(m.entry_points[0].description.as_deref(), Some("Echo."));
}

#[test]
fn low_level_guard_clause_makes_the_rest_of_the_body_the_arm() {
    let m = lower(
        r#"
from mcp.server.lowlevel import Server
app = Server("fetcher")

@app.call_tool()
async def fetch_tool(name: str, arguments: dict):
    if name != "fetch":
        raise ValueError(f"Unknown tool: {name}")
    if "url" not in arguments:
        raise ValueError("Missing required argument 'url'")
    return await fetch_website(arguments["url"])
"#,
    );
    let e = only(&m);
    assert_eq!(e.name, "fetch");
    assert_eq!(m.functions[e.function].body.len(), 2);
}

#[test]
fn registration_on_a_server_imported_from_another_module_is_linked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(&pkg).expect("mkdir");
    std::fs::write(pkg.join("__init__.py"), "").expect("write");
    std::fs::write(
        pkg.join("app.py"),
        "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\nregistry = dict()\n",
    )
    .expect("write");
    std::fs::write(
        pkg.join("tools.py"),
        "from .app import mcp, registry\n\n@mcp.tool()\ndef real(): pass\n\n@registry.tool()\ndef fake(): pass\n",
    )
    .expect("write");
    let tree = scan_tree(dir.path(), &DiscoverOptions::default()).expect("scan");
    let tools = tree.module("pkg/tools.py").expect("module");
    assert_eq!(names(tools), [(EntityKind::Tool, "real".to_string())]);
    assert!(
        tree.module("pkg/app.py")
            .expect("app")
            .entry_points
            .is_empty()
    );
}

#[test]
fn methods_and_context_parameters_are_not_declared_parameters() {
    let m = lower(
        r#"
from mcp.server.fastmcp import FastMCP, Context
import mcp.server.fastmcp as fm
mcp = FastMCP("x")

@mcp.tool()
async def report(query: str, limit: int = 10, *, ctx: fm.Context, **extra) -> str:
    return query
"#,
    );
    let e = only(&m);
    let got: Vec<_> = e.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(got, ["query", "limit"]);
}

#[test]
fn dispatcher_arms_keep_the_code_after_the_branch_but_not_other_arms() {
    let m = lower(
        r#"
import subprocess
from mcp.server.lowlevel import Server
server = Server("x")

@server.call_tool()
async def call_tool(name: str, arguments: dict):
    if name == "run":
        text = subprocess.run(arguments["cmd"], shell=True).stdout
    elif name == "time":
        text = "now"
    else:
        raise ValueError(name)
    if name == "echo":
        return arguments["echo_payload"]
    return [TextContent(type="text", text=text)]
"#,
    );
    let time = m
        .entry_points
        .iter()
        .find(|e| e.name == "time")
        .expect("time");
    let body = &m.functions[time.function].body;
    let text = format!("{body:?}");
    assert!(
        !text.contains("subprocess"),
        "the run arm leaked into time: {text}"
    );
    assert!(
        !text.contains("echo_payload"),
        "the echo arm leaked into time: {text}"
    );
    assert!(matches!(
        body.last().map(|s| &s.kind),
        Some(StmtKind::Return(Some(_)))
    ));
    let echo = m
        .entry_points
        .iter()
        .find(|e| e.name == "echo")
        .expect("echo");
    // `echo` is tested after the first chain, which runs (and falls into `raise`) first.
    let echo_text = format!("{:?}", m.functions[echo.function].body);
    assert!(!echo_text.contains("subprocess"), "{echo_text}");
}

#[test]
fn a_dispatcher_arm_gated_by_a_feature_flag_is_split_for_its_name_alone() {
    let m = lower(
        r#"
import subprocess
from mcp.server.lowlevel import Server
server = Server("x")
SHELL_ON = True
STATS_ON = True

@server.call_tool()
async def call_tool(name: str, arguments: dict):
    if name == "time":
        text = "now"
    elif name == "run" and SHELL_ON:
        text = subprocess.run(arguments["cmd"], shell=True).stdout
    elif STATS_ON and name == "stats":
        text = "0"
    else:
        raise ValueError(name)
    return [TextContent(type="text", text=text)]
"#,
    );
    let arm = |n: &str| {
        let e = m
            .entry_points
            .iter()
            .find(|e| e.name == n)
            .unwrap_or_else(|| panic!("{n}: no entry point"));
        format!("{:?}", m.functions[e.function].body)
    };
    assert!(arm("run").contains("subprocess"));
    let stats = arm("stats");
    assert!(
        !stats.contains("subprocess"),
        "the gated run arm leaked into stats: {stats}"
    );
    assert!(!arm("time").contains("subprocess"));
}
