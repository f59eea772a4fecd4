//! Entry points found by resolution across the tree: every way Python can bind a server and a
//! handler (imports the SDK does not export, shims, re-exports, subclasses, attributes, aliases,
//! wrappers, loops), each with its honest look-alike; and registration sites that cannot be
//! followed become coverage gaps (INCOMPLETE), never silence.

use mcp_scan_core::{EntityKind, GapKind};
use mcp_scan_lang::{DiscoverOptions, ParsedTree, scan_tree};

fn scan(files: &[(&str, &str)]) -> ParsedTree {
    let dir = tempfile::tempdir().expect("tempdir");
    for (path, text) in files {
        let p = dir.path().join(path);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&p, text).expect("write");
    }
    scan_tree(dir.path(), &DiscoverOptions::default()).expect("scan")
}

/// (kind, name, handler qualname) of every entry point in the tree, sorted.
fn entries(t: &ParsedTree) -> Vec<(EntityKind, String, String)> {
    let mut out: Vec<_> = t
        .modules
        .iter()
        .flat_map(|m| {
            m.entry_points.iter().map(move |e| {
                (
                    e.kind,
                    e.name.clone(),
                    m.functions[e.function].qualname.clone(),
                )
            })
        })
        .collect();
    out.sort();
    out
}

fn tools(t: &ParsedTree) -> Vec<String> {
    let mut v: Vec<String> = entries(t)
        .into_iter()
        .filter(|(k, _, _)| *k == EntityKind::Tool)
        .map(|(_, n, _)| n)
        .collect();
    v.sort();
    v
}

fn no_gaps(t: &ParsedTree) {
    assert!(t.coverage.gaps.is_empty(), "{:#?}", t.coverage.gaps);
}

fn unresolved_gaps(t: &ParsedTree) -> Vec<(String, u32)> {
    t.coverage
        .gaps
        .iter()
        .filter(|g| g.kind == GapKind::UnresolvedRegistration)
        .map(|g| (g.file.clone().unwrap_or_default(), g.line.unwrap_or(0)))
        .collect()
}

#[test]
fn fastmcp_imported_from_a_path_the_sdk_does_not_export_is_a_server() {
    let t = scan(&[(
        "server.py",
        "from mcp import FastMCP\napp = FastMCP('x')\n\n@app.tool\ndef ping() -> str:\n    return 'pong'\n",
    )]);
    assert_eq!(tools(&t), ["ping"]);
    assert_eq!(t.coverage.registration_sites, 1);
    no_gaps(&t);
}

#[test]
fn mcp2_mcpserver_and_standalone_fastmcp_are_servers() {
    let t = scan(&[
        (
            "a.py",
            "from mcp.server import MCPServer\ns = MCPServer('a')\n@s.tool()\ndef one(): pass\n",
        ),
        (
            "b.py",
            "import fastmcp\nm = fastmcp.FastMCP('b')\n@m.prompt\ndef two(): return 'x'\n@m.resource('data://{id}')\ndef three(id: str): return id\n",
        ),
    ]);
    assert_eq!(
        entries(&t),
        [
            (EntityKind::Tool, "one".into(), "one".into()),
            (
                EntityKind::ResourceTemplate,
                "data://{id}".into(),
                "three".into()
            ),
            (EntityKind::Prompt, "two".into(), "two".into()),
        ]
    );
    no_gaps(&t);
}

#[test]
fn a_compat_shim_in_another_module_and_a_package_reexport_resolve_the_server_class() {
    let t = scan(&[
        (
            "pkg/compat.py",
            "try:\n    from mcp.server import MCPServer as Base\nexcept ImportError:\n    from mcp.server.fastmcp import FastMCP as Base\n",
        ),
        (
            "pkg/__init__.py",
            "from .compat import Base\nServer = Base\n",
        ),
        (
            "pkg/server.py",
            "from pkg import Server\nmcp = Server('x')\n\n@mcp.tool()\ndef hello(name: str) -> str:\n    return name\n",
        ),
    ]);
    assert_eq!(tools(&t), ["hello"]);
    no_gaps(&t);
}

#[test]
fn a_local_class_named_like_the_sdk_class_is_not_a_server() {
    let t = scan(&[(
        "server.py",
        "import mcp.types\nclass FastMCP:\n    def tool(self):\n        return lambda f: f\nmcp = FastMCP()\n\n@mcp.tool()\ndef greet(name): return name\n",
    )]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    no_gaps(&t);
}

#[test]
fn subclass_registers_through_self_and_through_an_instance() {
    let t = scan(&[(
        "server.py",
        r#"
from mcp.server.fastmcp import FastMCP

class Notes(FastMCP):
    def __init__(self):
        super().__init__("notes")
        self.tool()(self.list_notes)

        @self.tool()
        def add_note(text: str) -> str:
            return text

    def list_notes(self) -> list:
        return []

server = Notes()

@server.tool()
def count() -> int:
    return 0

server.add_tool(len, name="length")
"#,
    )]);
    assert_eq!(
        entries(&t)
            .into_iter()
            .map(|(_, n, q)| (n, q))
            .collect::<Vec<_>>(),
        [
            (
                "add_note".to_string(),
                "Notes.__init__.add_note".to_string()
            ),
            ("count".into(), "count".into()),
            ("list_notes".into(), "Notes.list_notes".into()),
        ]
    );
    // `len` is a builtin, not a function of the tree: a site that cannot be followed.
    assert_eq!(t.coverage.registration_sites, 4);
    assert_eq!(unresolved_gaps(&t), [("server.py".to_string(), 22)]);
}

#[test]
fn servers_held_in_attributes_register_tools() {
    let t = scan(&[(
        "server.py",
        r#"
from mcp.server.fastmcp import FastMCP

class App:
    def __init__(self):
        self.mcp = FastMCP("x")
        self.mcp.add_tool(self.search)

        @self.mcp.tool()
        def fetch(url: str) -> str:
            return url

    def search(self, q: str) -> str:
        return q

app = App()

@app.mcp.tool()
def status() -> str:
    return "ok"
"#,
    )]);
    assert_eq!(tools(&t), ["fetch", "search", "status"]);
    no_gaps(&t);
}

#[test]
fn decorator_aliases_direct_calls_and_from_function_register_tools() {
    let t = scan(&[(
        "server.py",
        r#"
from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.tools import Tool
mcp = FastMCP("x")
tool = mcp.tool
register = mcp.tool(description="Registered.")

@tool()
def a(): pass

@register
def b(): pass

def c(): pass
mcp.tool(name="cee")(c)

def d(): pass
mcp.add_tool(Tool.from_function(d, name="dee", description="Dee."))
"#,
    )]);
    let e = entries(&t);
    let names: Vec<_> = e.iter().map(|(_, n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "cee", "dee"]);
    let b = t.modules[0]
        .entry_points
        .iter()
        .find(|e| e.name == "b")
        .expect("b");
    assert_eq!(b.description.as_deref(), Some("Registered."));
    let d = t.modules[0]
        .entry_points
        .iter()
        .find(|e| e.name == "dee")
        .expect("dee");
    assert_eq!(d.description.as_deref(), Some("Dee."));
    assert_eq!(t.coverage.registration_sites, 4);
    no_gaps(&t);
}

#[test]
fn loops_over_literal_lists_tuples_and_dicts_register_each_function() {
    let t = scan(&[
        (
            "tools.py",
            "def one(): pass\ndef two(): pass\nTOOLS = [one, two]\n",
        ),
        (
            "server.py",
            r#"
from fastmcp import FastMCP
from tools import TOOLS
mcp = FastMCP("x")
for fn in TOOLS:
    mcp.add_tool(fn)

def three(): pass
def four(): pass
NAMED = {"tri": three, "quad": four}
for name, fn in NAMED.items():
    mcp.tool(name=name)(fn)

def five(): pass
def p1(): return "p"
for f in (five,):
    mcp.tool(f)
[mcp.prompt()(g) for g in [p1]]
"#,
        ),
    ]);
    assert_eq!(
        entries(&t)
            .into_iter()
            .map(|(k, n, _)| (k, n))
            .collect::<Vec<_>>(),
        [
            (EntityKind::Tool, "five".to_string()),
            (EntityKind::Tool, "one".into()),
            (EntityKind::Tool, "quad".into()),
            (EntityKind::Tool, "tri".into()),
            (EntityKind::Tool, "two".into()),
            (EntityKind::Prompt, "p1".into()),
        ]
    );
    no_gaps(&t);
}

#[test]
fn registry_decorators_that_call_the_server_register_the_decorated_function() {
    let t = scan(&[
        (
            "app.py",
            "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n",
        ),
        (
            "registry.py",
            r#"
from app import mcp

def register(fn):
    mcp.add_tool(fn)
    return fn

def tool(name=None, **kw):
    def deco(fn):
        mcp.tool(name=name, **kw)(fn)
        return fn
    return deco

def resource(uri):
    return mcp.resource(uri)
"#,
        ),
        (
            "handlers.py",
            r#"
from registry import register, tool, resource

@register
def alpha(): pass

@tool()
def beta(): pass

@resource("notes://all")
def notes(): return ""
"#,
        ),
    ]);
    assert_eq!(
        entries(&t)
            .into_iter()
            .map(|(k, n, _)| (k, n))
            .collect::<Vec<_>>(),
        [
            (EntityKind::Tool, "alpha".to_string()),
            (EntityKind::Tool, "beta".into()),
            (EntityKind::Resource, "notes://all".into()),
        ]
    );
    no_gaps(&t);
}

#[test]
fn a_helper_receiving_the_server_registers_on_it() {
    let t = scan(&[
        (
            "tools/files.py",
            "def register_tools(server):\n    @server.tool()\n    def read(path: str) -> str:\n        return path\n",
        ),
        (
            "tools/web.py",
            "from mcp.server.fastmcp import FastMCP\ndef setup(m: FastMCP) -> None:\n    @m.tool()\n    def fetch(url: str) -> str:\n        return url\n",
        ),
        (
            "main.py",
            "from mcp.server.fastmcp import FastMCP\nfrom tools.files import register_tools\nmcp = FastMCP('x')\nregister_tools(mcp)\n",
        ),
    ]);
    assert_eq!(tools(&t), ["fetch", "read"]);
    no_gaps(&t);
}

#[test]
fn an_add_tool_argument_that_cannot_be_followed_is_a_gap_with_its_location() {
    let t = scan(&[(
        "server.py",
        r#"
import importlib
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("x")

@mcp.tool()
def visible(): pass

handler = getattr(importlib.import_module("plugins"), "run")
mcp.add_tool(handler)
"#,
    )]);
    assert_eq!(tools(&t), ["visible"]);
    assert_eq!(t.coverage.registration_sites, 2);
    assert_eq!(unresolved_gaps(&t), [("server.py".to_string(), 10)]);
    let reason = &t.coverage.gaps[0].reason;
    assert!(reason.contains("handler"), "{reason}");
}

#[test]
fn a_tool_decorator_on_an_unresolvable_object_in_an_mcp_module_is_a_gap() {
    let t = scan(&[(
        "plugin.py",
        "from mcp.server.fastmcp import Context\n\ndef install(server):\n    @server.tool()\n    def hidden(ctx: Context) -> str:\n        return 'x'\n",
    )]);
    assert!(tools(&t).is_empty());
    assert_eq!(unresolved_gaps(&t), [("plugin.py".to_string(), 4)]);
}

#[test]
fn a_low_level_dispatcher_on_a_server_from_another_module_is_split() {
    let t = scan(&[
        (
            "app.py",
            "from mcp.server.lowlevel import Server\nserver = Server('x')\n",
        ),
        (
            "handlers.py",
            "from app import server\n\n@server.call_tool()\nasync def call_tool(name, arguments):\n    if name == 'a':\n        return []\n",
        ),
    ]);
    assert_eq!(tools(&t), ["a"]);
    assert_eq!(t.coverage.registration_sites, 1);
    no_gaps(&t);
}

#[test]
fn a_dispatcher_that_forwards_every_name_elsewhere_is_a_gap() {
    let t = scan(&[(
        "proxy.py",
        "from mcp.server import Server\nserver = Server('proxy')\n\n@server.call_tool()\nasync def call_tool(name, arguments):\n    return await remote.send('tools/call', name=name, arguments=arguments)\n",
    )]);
    assert_eq!(t.coverage.registration_sites, 1);
    assert_eq!(unresolved_gaps(&t), [("proxy.py".to_string(), 4)]);
}

#[test]
fn handler_objects_declaring_tools_are_split_onto_their_run_method() {
    let t = scan(&[
        (
            "tools.py",
            r#"
from mcp.types import Tool
LIST = "notes_list"

class Handler:
    def __init__(self, name: str):
        self.name = name
    def describe(self) -> Tool:
        raise NotImplementedError
    def run(self, args: dict):
        raise NotImplementedError

class ListNotes(Handler):
    def __init__(self):
        super().__init__(LIST)
    def describe(self) -> Tool:
        return Tool(name=self.name, description="Lists notes.", inputSchema={"type": "object", "properties": {"folder": {"type": "string"}}})
    def run(self, args: dict):
        return []

class Shell:
    name = "shell_run"
    description = "Runs an allowed command."
    def describe(self) -> Tool:
        return Tool(name=self.name, description=f"{self.description} (allow-listed)", inputSchema={})
    async def run(self, args: dict):
        return []
"#,
        ),
        (
            "server.py",
            r#"
from mcp.server import Server
import tools
app = Server("notes")
handlers = {h.name: h for h in (tools.ListNotes(), tools.Shell())}

@app.call_tool()
async def call_tool(name: str, arguments: dict):
    handler = handlers.get(name)
    if handler is None:
        raise ValueError(name)
    return await handler.run(arguments)
"#,
        ),
    ]);
    assert_eq!(
        entries(&t),
        [
            (
                EntityKind::Tool,
                "notes_list".to_string(),
                "ListNotes.run".to_string()
            ),
            (EntityKind::Tool, "shell_run".into(), "Shell.run".into()),
        ]
    );
    let shell = t
        .module("tools.py")
        .and_then(|m| m.entry_points.iter().find(|e| e.name == "shell_run"))
        .expect("shell_run");
    assert_eq!(
        shell.description.as_deref(),
        Some("Runs an allowed command.")
    );
    no_gaps(&t);
}

#[test]
fn dispatchers_that_look_handlers_up_in_a_mapping_are_split_per_key() {
    let t = scan(&[
        (
            "dict_server.py",
            r#"
from mcp.server.lowlevel import Server
server = Server("d")

def read_note(path: str) -> str:
    """Reads a note."""
    return path

async def write_note(path: str, text: str) -> None:
    return None

HANDLERS = {"read": read_note, "write": write_note}

@server.call_tool()
async def call_tool(name: str, arguments: dict):
    return await HANDLERS[name](**arguments)
"#,
        ),
        (
            "getattr_server.py",
            r#"
from mcp.server import Server
NAMES = ("get_price", "get_news")

class Finance:
    def get_price(self, symbol: str) -> float:
        return 1.0
    def get_news(self, symbol: str) -> list:
        return []

def build(fin: Finance) -> dict:
    return {n: getattr(fin, n) for n in NAMES}

async def call_registered(registry, params):
    return registry[params.name](**params.arguments)

def serve():
    registry = build(Finance())
    async def on_call_tool(ctx, params):
        return await call_registered(registry, params)
    return Server("f", on_call_tool=on_call_tool)
"#,
        ),
    ]);
    assert_eq!(
        entries(&t),
        [
            (
                EntityKind::Tool,
                "get_news".to_string(),
                "Finance.get_news".to_string()
            ),
            (
                EntityKind::Tool,
                "get_price".into(),
                "Finance.get_price".into()
            ),
            (EntityKind::Tool, "read".into(), "read_note".into()),
            (EntityKind::Tool, "write".into(), "write_note".into()),
        ]
    );
    no_gaps(&t);
}

#[test]
fn tools_of_a_mounted_server_are_listed_under_its_namespace() {
    let t = scan(&[
        (
            "jira.py",
            "from fastmcp import FastMCP\nclass Mine(FastMCP):\n    pass\njira = Mine('jira')\n@jira.tool()\ndef search(q: str) -> str:\n    return q\n",
        ),
        (
            "main.py",
            "from fastmcp import FastMCP\nfrom jira import jira\nmain = FastMCP('main')\nmain.mount(jira, namespace='jira')\n@main.tool()\ndef ping() -> str:\n    return 'pong'\n",
        ),
    ]);
    assert_eq!(tools(&t), ["jira_search", "ping"]);
    no_gaps(&t);
}

#[test]
fn a_guard_against_a_factory_parameter_with_a_constant_default_names_the_tool() {
    let t = scan(&[(
        "server.py",
        r#"
from mcp.server import Server
DEFAULT = "search"

def create_server(tool_name: str = DEFAULT):
    async def on_call_tool(ctx, params):
        if params.name != tool_name:
            raise ValueError(params.name)
        return []
    return Server("s", on_call_tool=on_call_tool)
"#,
    )]);
    assert_eq!(tools(&t), ["search"]);
    no_gaps(&t);
}

#[test]
fn a_low_level_server_from_any_sdk_path_is_split_without_gaps() {
    let t = scan(&[(
        "server.py",
        "from mcp import Server\nserver = Server('x')\n\n@server.call_tool()\nasync def call_tool(name, arguments):\n    if name == 'a':\n        return []\n    elif name == 'b':\n        return []\n",
    )]);
    assert_eq!(tools(&t), ["a", "b"]);
    assert_eq!(t.coverage.registration_sites, 1);
    no_gaps(&t);
}

#[test]
fn tool_decorators_of_other_libraries_are_neither_tools_nor_gaps() {
    let t = scan(&[
        (
            "agent.py",
            r#"
from mcp.server.fastmcp import FastMCP
from langchain.agents import Agent
from toolkit import tool as lc_tool
mcp = FastMCP("x")
agent = Agent()

@agent.tool()
def search(q: str) -> str:
    return q

@lc_tool
def lookup(q: str) -> str:
    return q

agent.add_tool(search)

@mcp.tool()
def ping() -> str:
    return "pong"
"#,
        ),
        (
            "tests/conftest.py",
            "import pytest\n@pytest.fixture\ndef client(): pass\n",
        ),
        (
            "cli.py",
            "class Registry:\n    def tool(self, f=None):\n        return f\nreg = Registry()\n@reg.tool()\ndef x(): pass\nreg.add_tool(x)\n",
        ),
    ]);
    // Only the server's own tool: the other libraries' `tool`/`add_tool` are neither tools nor
    // registration sites.
    assert_eq!(tools(&t), ["ping"], "{:?}", entries(&t));
    assert_eq!(t.coverage.registration_sites, 1);
    no_gaps(&t);
}

#[test]
fn registry_class_whose_decorator_factory_wraps_server_tool_registers_each_decorated_function() {
    let t = scan(&[
        (
            "pkg/registry.py",
            r#"
import functools
from mcp.server import MCPServer

def guard(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)
    return wrapper

class Registry:
    def __init__(self, server: MCPServer, read_only: bool) -> None:
        self.server = server
        self.read_only = read_only

    def reader(self, title: str):
        return self._register(title)

    def _register(self, title: str):
        def decorate(function):
            self.server.tool(title=title)(guard(function))
            return function
        return decorate
"#,
        ),
        (
            "pkg/files.py",
            r#"
from pkg.registry import Registry

def register(tools: Registry) -> None:
    @tools.reader("Read file")
    def read_file(path: str) -> str:
        return open(path).read()

    @tools.reader("Stat file")
    def stat_file(path: str) -> int:
        return 0
"#,
        ),
        (
            "pkg/server.py",
            r#"
from mcp.server import MCPServer
from pkg.registry import Registry
from pkg import files

def build() -> MCPServer:
    server = MCPServer("x")
    files.register(Registry(server, False))
    return server
"#,
        ),
    ]);
    assert_eq!(
        tools(&t),
        vec!["read_file", "stat_file"],
        "{:#?}",
        t.coverage.gaps
    );
    no_gaps(&t);
}

#[test]
fn registration_wrapper_whose_uses_cannot_be_resolved_is_a_gap() {
    let t = scan(&[(
        "registry.py",
        r#"
from mcp.server import MCPServer

class Registry:
    def __init__(self, server: MCPServer) -> None:
        self.server = server

    def make(self):
        def decorate(function):
            self.server.tool()(function)
            return function
        return decorate

REGISTRIES = {}

def lookup(name):
    return REGISTRIES[name]

@lookup("files").make()
def read_file(path: str) -> str:
    return open(path).read()
"#,
    )]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(unresolved_gaps(&t).len(), 1, "{:#?}", t.coverage.gaps);
    assert!(t.coverage.gaps[0].reason.contains("Registry.make.decorate"));
}

#[test]
fn decorator_applied_directly_on_an_unresolved_receiver_in_an_mcp_module_is_a_gap() {
    let t = scan(&[(
        "tools.py",
        r#"
from mcp.server import MCPServer

def install(holder, fn):
    holder.server.tool(title="x")(fn)
"#,
    )]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(unresolved_gaps(&t), vec![("tools.py".to_string(), 5)]);
}

#[test]
fn decorator_applied_directly_by_another_library_is_neither_tool_nor_gap() {
    let t = scan(&[(
        "agent.py",
        r#"
from langchain.agents import Agent

def install(holder, fn):
    holder.server.tool(title="x")(fn)
"#,
    )]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(t.coverage.registration_sites, 0);
    no_gaps(&t);
}

#[test]
fn registration_decorator_from_the_framework_that_is_not_modelled_is_a_gap() {
    let t = scan(&[(
        "mixins.py",
        r#"
from fastmcp.contrib.mcp_mixin import MCPMixin, mcp_tool

class Files(MCPMixin):
    @mcp_tool(name="read_file")
    def read_file(self, path: str) -> str:
        return open(path).read()
"#,
    )]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(unresolved_gaps(&t), vec![("mixins.py".to_string(), 5)]);
    assert!(t.coverage.gaps[0].reason.contains("mcp_tool"));
}

#[test]
fn non_registration_decorators_from_the_framework_are_not_gaps() {
    let t = scan(&[(
        "util.py",
        r#"
from mcp.server.fastmcp.utilities import deprecated
from mcp.shared import cached_property

class Settings:
    @cached_property
    def value(self) -> int:
        return 1

@deprecated
def old() -> None:
    pass
"#,
    )]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    no_gaps(&t);
}

const PARTIAL_DISPATCHER: &str = r#"
import mcp.types as types
from mcp.server import Server
from pydantic import BaseModel

class Tool(BaseModel):
    name: str
    description: str
    input_schema: dict
    handler: object = None

async def handle_list(arguments, db):
    return db.list()

async def handle_query(arguments, db):
    return db.run(arguments["query"])

async def main(db):
    server = Server("x")
    tools = [
        Tool(name="list_items", description="List", input_schema={}, handler=handle_list),
        Tool(name="run_query", description="Query", input_schema={}, HANDLER_KW),
    ]

    @server.list_tools()
    async def handle_list_tools():
        return [types.Tool(name=t.name, description=t.description, inputSchema=t.input_schema) for t in tools]

    @server.call_tool()
    async def handle_call_tool(name, arguments):
        handler = next((t.handler for t in tools if t.name == name), None)
        if name in ["list_items"]:
            return await handler(arguments, db)
        else:
            return await handler(arguments, db)
"#;

#[test]
fn dispatcher_split_on_some_names_finds_the_other_tools_through_their_declared_handlers() {
    let src = PARTIAL_DISPATCHER.replace("HANDLER_KW", "handler=handle_query");
    let t = scan(&[("server.py", &src)]);
    assert_eq!(tools(&t), vec!["list_items", "run_query"]);
    let e = entries(&t);
    assert!(
        e.iter()
            .any(|(_, n, q)| n == "run_query" && q == "handle_query"),
        "{e:?}"
    );
    no_gaps(&t);
}

#[test]
fn dispatcher_split_on_some_names_with_declared_tools_it_cannot_attribute_is_a_gap() {
    let src = PARTIAL_DISPATCHER.replace("HANDLER_KW", "handler=None");
    let t = scan(&[("server.py", &src)]);
    assert_eq!(tools(&t), vec!["list_items"]);
    assert_eq!(unresolved_gaps(&t).len(), 1, "{:#?}", t.coverage.gaps);
    assert!(t.coverage.gaps[0].reason.contains("run_query"));
}

#[test]
fn dispatcher_looking_up_a_handler_mapping_imported_from_a_package_finds_every_tool() {
    let t = scan(&[
        (
            "srv/server.py",
            r#"
from mcp.server import Server
from .tools import HANDLERS

server = Server("x")

@server.call_tool()
async def handle_call_tool(name, arguments):
    handler = HANDLERS.get(name)
    if not handler:
        raise ValueError(name)
    return await handler(arguments)
"#,
        ),
        (
            "srv/tools/__init__.py",
            "from .files import handle_read, handle_write\nHANDLERS = {\n    \"read_file\": handle_read,\n    \"write_file\": handle_write,\n}\n",
        ),
        (
            "srv/tools/files.py",
            "async def handle_read(arguments):\n    return open(arguments['path']).read()\n\nasync def handle_write(arguments):\n    return None\n",
        ),
    ]);
    assert_eq!(tools(&t), vec!["read_file", "write_file"]);
    no_gaps(&t);
}

#[test]
fn dispatcher_looking_up_an_imported_name_that_is_not_a_mapping_stays_a_gap() {
    let t = scan(&[
        (
            "srv/server.py",
            r#"
from mcp.server import Server
from .tools import lookup

server = Server("x")

@server.call_tool()
async def handle_call_tool(name, arguments):
    handler = lookup.get(name)
    return await handler(arguments)
"#,
        ),
        (
            "srv/tools/__init__.py",
            "import importlib\nlookup = importlib.import_module('srv.plugins')\n",
        ),
    ]);
    assert!(
        tools(&t).iter().all(|n| n == "handle_call_tool"),
        "{:?}",
        tools(&t)
    );
    assert_eq!(unresolved_gaps(&t).len(), 1, "{:#?}", t.coverage.gaps);
}

#[test]
fn mixin_methods_marked_by_the_framework_are_registered_under_the_folded_prefix() {
    let t = scan(&[
        (
            "pdf/mixins.py",
            r#"
from fastmcp.contrib.mcp_mixin import MCPMixin, mcp_tool, mcp_prompt

class TextMixin(MCPMixin):
    @mcp_tool(name="extract_text", description="Extracts text.")
    def extract(self, path: str) -> str:
        return open(path).read()

    @mcp_prompt()
    def summarise(self) -> str:
        return "Summarise"

    def helper(self) -> None:
        pass

class FormsMixin(MCPMixin):
    @mcp_tool()
    def fill_form(self, path: str) -> None:
        pass
"#,
        ),
        (
            "pdf/server.py",
            r#"
from fastmcp import FastMCP
from pdf.mixins import TextMixin, FormsMixin

class PdfServer:
    def __init__(self):
        self.mcp = FastMCP("pdf")
        for mixin_class in [TextMixin, FormsMixin]:
            mixin = mixin_class()
            prefix = mixin_class.__name__.replace("Mixin", "").lower()
            mixin.register_all(self.mcp, prefix=f"{prefix}_")
"#,
        ),
    ]);
    assert_eq!(
        tools(&t),
        vec!["forms__fill_form", "text__extract_text"],
        "{:#?}",
        t.coverage.gaps
    );
    let e = entries(&t);
    assert!(
        e.iter().any(|(k, n, q)| *k == EntityKind::Prompt
            && n == "text__summarise"
            && q == "TextMixin.summarise"),
        "{e:?}"
    );
    no_gaps(&t);
}

#[test]
fn register_all_of_a_class_that_is_not_a_framework_mixin_registers_nothing() {
    let t = scan(&[(
        "plugins.py",
        r#"
from fastmcp import FastMCP

def tool_marker(name=None):
    def wrap(f):
        return f
    return wrap

class Plugins:
    @tool_marker(name="x")
    def run(self) -> None:
        pass

    def register_all(self, server, prefix=None):
        pass

mcp = FastMCP("x")
Plugins().register_all(mcp, prefix="p")

@mcp.tool()
def ping() -> str:
    return "pong"
"#,
    )]);
    // Only the server's own tool (a server with none at all is a gap: see
    // `a_server_with_no_recognised_registration_is_a_gap_not_no_tools`).
    assert_eq!(tools(&t), ["ping"], "{:?}", entries(&t));
    no_gaps(&t);
}

#[test]
fn handler_factory_fed_a_name_parameter_is_followed_not_taken_for_a_wrapper() {
    let t = scan(&[(
        "server.py",
        r#"
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

def make_handler(label):
    def handler(q: str) -> str:
        return label + q
    return handler

def install(label):
    mcp.tool()(make_handler(label))

install("greet")
"#,
    )]);
    assert_eq!(tools(&t), vec!["handler"], "{:#?}", t.coverage.gaps);
    no_gaps(&t);
}

// ---------------------------------------------------------------- plugin loading and folding

const PLUGIN_SERVER: &str = r#"
import importlib
from fastmcp import FastMCP

def load_tools(mcp: FastMCP) -> None:
    from pkg.authored import tool_list as authored
    for name in authored:
        module = importlib.import_module(f"pkg.authored.{name}")
        if hasattr(module, "register_tools"):
            module.register_tools(mcp)
    from pkg.generated import tool_list as generated
    for name in generated:
        module = importlib.import_module(f"pkg.generated.{name}")
        module.register_tools(mcp)

def create():
    mcp = FastMCP("x")
    load_tools(mcp)
    return mcp
"#;

#[test]
fn plugin_modules_loaded_by_import_module_under_a_package_prefix_register_their_tools() {
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/server.py", PLUGIN_SERVER),
        ("pkg/authored/__init__.py", "tool_list = ['transfer']\n"),
        (
            "pkg/authored/transfer.py",
            "def register_tools(mcp):\n    @mcp.tool(name='Download_File')\n    def download(path: str) -> str:\n        return path\n",
        ),
        (
            "pkg/generated/__init__.py",
            "tool_list = ['file', 'user']\n",
        ),
        (
            "pkg/generated/file.py",
            "def register_tools(mcp):\n    @mcp.tool(name='Copy_File')\n    def copy_file(src: str) -> str:\n        return src\n",
        ),
        (
            "pkg/generated/user.py",
            "def register_tools(mcp):\n    @mcp.tool\n    def list_users() -> list:\n        return []\n",
        ),
    ]);
    assert_eq!(tools(&t), ["Copy_File", "Download_File", "list_users"]);
    no_gaps(&t);
}

#[test]
fn a_register_function_outside_the_imported_package_prefix_stays_a_gap() {
    // Twin: the same plugin shape, but the module with the decorator is not under any prefix
    // the server imports from; nothing reaches it, so it is not listed, and not silently SAFE.
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/server.py", PLUGIN_SERVER),
        ("pkg/authored/__init__.py", "tool_list = []\n"),
        ("pkg/generated/__init__.py", "tool_list = []\n"),
        (
            "other/extra.py",
            "from fastmcp import FastMCP\n\ndef register_tools(mcp):\n    @mcp.tool\n    def wipe() -> None:\n        pass\n",
        ),
    ]);
    assert!(tools(&t).is_empty(), "{:?}", tools(&t));
    assert_eq!(unresolved_gaps(&t), [("other/extra.py".to_string(), 4)]);
}

#[test]
fn handlers_looked_up_in_globals_by_a_folded_name_over_an_extended_dict_are_registered() {
    let t = scan(&[(
        "server.py",
        r#"
from mcp.server import MCPServer
mcp = MCPServer("m")

async def m_get_usage() -> str:
    return ""

async def m_list_models() -> str:
    return ""

async def m_mint_receipt() -> str:
    return ""

async def m_prewarm() -> str:
    return ""

DESCRIPTIONS: dict[str, str] = {"get_usage": "Usage.", "list_models": "Models."}
DESCRIPTIONS.update({"mint_receipt": "Mint."})
DESCRIPTIONS["prewarm"] = "Prewarm."

def _register() -> None:
    for short, desc in DESCRIPTIONS.items():
        mcp.tool(name=f"m_{short}", description=desc)(globals()[f"m_{short}"])

_register()
"#,
    )]);
    assert_eq!(
        tools(&t),
        [
            "m_get_usage",
            "m_list_models",
            "m_mint_receipt",
            "m_prewarm"
        ]
    );
    no_gaps(&t);
}

#[test]
fn a_globals_lookup_by_a_name_from_data_is_a_gap() {
    // Twin: the handler name comes from the environment, not from a literal the loop walks.
    let t = scan(&[(
        "server.py",
        r#"
import os
from mcp.server import MCPServer
mcp = MCPServer("m")

def m_a() -> str:
    return ""

for short in os.environ["TOOLS"].split(","):
    mcp.tool(name=short)(globals()["m_" + short])
"#,
    )]);
    assert!(tools(&t).is_empty(), "{:?}", tools(&t));
    assert_eq!(unresolved_gaps(&t), [("server.py".to_string(), 10)]);
}

#[test]
fn a_tool_name_built_from_runtime_data_is_a_gap_not_the_handler_name() {
    let t = scan(&[(
        "server.py",
        r#"
import httpx
from fastmcp import FastMCP
mcp = FastMCP("agents")

def make_tool(agent_name: str, agent_id: str):
    @mcp.tool(name=f"call_agent_{agent_name}")
    def agent_tool(message: str) -> str:
        return httpx.post("https://example.invalid/chat", json={"id": agent_id, "m": message}).text
    return agent_tool

def main():
    for agent in httpx.get("https://example.invalid/agents").json():
        make_tool(agent["name"], agent["_id"])
    mcp.run()
"#,
    )]);
    // The handler is still analysed, but the listed name is unknown: INCOMPLETE, never SAFE.
    assert_eq!(unresolved_gaps(&t), [("server.py".to_string(), 7)]);
    assert!(
        t.coverage.gaps[0]
            .reason
            .contains("call_agent_{agent_name}"),
        "{}",
        t.coverage.gaps[0].reason
    );
}

#[test]
fn a_tool_name_built_by_a_helper_from_constants_is_folded() {
    // Twin: the name is computed, but from constants a helper transforms.
    let t = scan(&[(
        "server.py",
        r#"
from mcp.server import MCPServer
mcp = MCPServer("ui")

def _ui_name(upstream: str) -> str:
    return "nb_ui_" + upstream.replace("-", "_")

@mcp.tool(name=_ui_name("console_create-new"))
async def create_console() -> str:
    return ""
"#,
    )]);
    assert_eq!(tools(&t), ["nb_ui_console_create_new"]);
    no_gaps(&t);
}

#[test]
fn a_server_factory_called_once_with_a_configured_name_prefix_lists_the_handler_without_a_gap() {
    // Twin of the runtime-data case: one registration per handler, only a configured prefix
    // unknown; the handler is one tool, analysed, and the scan is not made INCOMPLETE for it.
    let t = scan(&[(
        "server.py",
        r#"
from fastmcp import FastMCP

def create_server(namespace: str = "") -> FastMCP:
    mcp = FastMCP("db")
    prefix = f"{namespace}-" if namespace else ""

    @mcp.tool(name=prefix + "read_rows")
    def read_rows(query: str) -> str:
        return query

    return mcp

def main():
    create_server().run()
"#,
    )]);
    assert_eq!(tools(&t), ["read_rows"]);
    no_gaps(&t);
}

fn description_of(t: &ParsedTree, tool: &str) -> Option<String> {
    t.modules
        .iter()
        .flat_map(|m| m.entry_points.iter())
        .find(|e| e.kind == EntityKind::Tool && e.name == tool)
        .and_then(|e| e.description.clone())
}

#[test]
fn low_level_tools_take_descriptions_declared_in_other_modules_by_imported_names() {
    // The dispatcher branches on literal names; the declarations name the tools by an enum
    // imported from another module and add run-time text, or sit in another module entirely.
    let t = scan(&[
        (
            "names.py",
            "from enum import Enum\n\nclass Tools(str, Enum):\n    SEARCH = \"search_notes\"\n",
        ),
        (
            "fetch_decl.py",
            "import mcp.types as types\n\nfetch_tool = types.Tool(\n    name=\"fetch_paper\",\n    description=(\n        \"Download a paper from arXiv. \"\n        \"Returns its text.\"\n    ),\n    inputSchema={\"type\": \"object\"},\n)\n",
        ),
        (
            "server.py",
            "import mcp.types as types\nfrom mcp.server import Server\nfrom names import Tools\nfrom fetch_decl import fetch_tool\n\nserver = Server(\"notes\")\n\n@server.list_tools()\nasync def list_tools():\n    suffix = load_suffix()\n    return [\n        types.Tool(name=Tools.SEARCH.value, description=\"Search the notes in Acme.\" + suffix, inputSchema={\"type\": \"object\"}),\n        fetch_tool,\n    ]\n\n@server.call_tool()\nasync def call_tool(name, arguments):\n    match name:\n        case \"search_notes\":\n            return search(arguments[\"q\"])\n        case \"fetch_paper\":\n            return fetch(arguments[\"id\"])\n    raise ValueError(name)\n",
        ),
    ]);
    assert_eq!(tools(&t), vec!["fetch_paper", "search_notes"]);
    assert_eq!(
        description_of(&t, "search_notes").as_deref(),
        Some("Search the notes in Acme.")
    );
    assert_eq!(
        description_of(&t, "fetch_paper").as_deref(),
        Some("Download a paper from arXiv. Returns its text.")
    );
}

#[test]
fn class_body_annotations_are_lowered_as_fields_in_order() {
    let t = scan(&[(
        "spec.py",
        r#"
from dataclasses import dataclass

@dataclass(frozen=True)
class Spec:
    """A spec."""
    upstream: str
    title: str = ""
    LIMIT = 3

    def method(self):
        local: int = 1
        return local
"#,
    )]);
    let class = &t.modules[0].classes[0];
    assert_eq!(class.fields, ["upstream", "title"]);
}

const SPEC_HELPER_SERVER: &str = r#"
from dataclasses import dataclass
from typing import NamedTuple
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("ui")

@dataclass(frozen=True)
class UiSpec:
    upstream: str
    description: str

    @property
    def name(self) -> str:
        return _ui_name(self.upstream)

class Plain(NamedTuple):
    tool_name: str
    doc: str

def _ui_name(upstream: str) -> str:
    return "ui_" + upstream.replace("-", "_")

SPECS = (
    UiSpec("console-create", "Create a console."),
    UiSpec(description="Close the tab.", upstream="tab-close"),
)

def _register(server, spec):
    async def tool(session_id: str) -> str:
        return spec.upstream + session_id
    server.tool(name=spec.name, description=spec.description)(tool)

def _register_plain(server, spec):
    def plain(x: str) -> str:
        return x
    server.tool(name=spec.tool_name, description=spec.doc)(plain)

def register(server):
    for spec in SPECS:
        _register(server, spec)
    for spec in [Plain("plain_echo", "Echo."), Plain("plain_again", "Again.")]:
        _register_plain(server, spec)

register(mcp)
"#;

#[test]
fn names_from_dataclass_fields_and_properties_are_folded_per_call_of_a_registration_helper() {
    let t = scan(&[("server.py", SPEC_HELPER_SERVER)]);
    assert_eq!(
        tools(&t),
        [
            "plain_again",
            "plain_echo",
            "ui_console_create",
            "ui_tab_close"
        ]
    );
    no_gaps(&t);
}

#[test]
fn a_registration_helper_fed_specs_read_at_run_time_stays_a_gap() {
    // Twin: the same helper, but the specs come from a file read at run time; which tools the
    // server lists is unknown, so the scan is INCOMPLETE rather than naming the closure.
    let t = scan(&[(
        "server.py",
        &SPEC_HELPER_SERVER.replace(
            "for spec in SPECS:",
            "import json\n    for spec in json.load(open('specs.json')):",
        ),
    )]);
    assert!(tools(&t).contains(&"plain_echo".to_string()));
    assert!(
        !tools(&t).iter().any(|n| n.starts_with("ui_")),
        "{:?}",
        tools(&t)
    );
    assert_eq!(unresolved_gaps(&t).len(), 1, "{:#?}", t.coverage.gaps);
}

const REGISTRY_FILLED_BY_REGISTER_FUNCTIONS: &[(&str, &str)] = &[
    ("pkg/__init__.py", ""),
    (
        "pkg/tools/__init__.py",
        r#"
HANDLERS: dict = {}

def register_all() -> None:
    from . import notes, extra
    notes.register(HANDLERS)
    extra.register(HANDLERS)

def get_handler(name: str):
    return HANDLERS.get(name)
"#,
    ),
    (
        "pkg/tools/notes.py",
        r#"
def register(registry: dict) -> None:
    registry["read_note"] = handle_read
    registry["write_note"] = handle_write

async def handle_read(arguments, ctx):
    return open(arguments["path"]).read()

async def handle_write(arguments, ctx):
    return None
"#,
    ),
    (
        "pkg/tools/extra.py",
        r#"
async def handle_stats(arguments, ctx):
    return {}

EXTRA = {"stats": handle_stats}

def register(handlers: dict) -> None:
    handlers.update(EXTRA)
"#,
    ),
    (
        "pkg/server.py",
        r#"
from mcp.server import Server
from mcp.types import Tool
from .tools import get_handler, register_all

server = Server("notes")
register_all()

TOOLS = [
    Tool(name="read_note", description="Read a note.", inputSchema={}),
    Tool(name="write_note", description="Write a note.", inputSchema={}),
    Tool(name="stats", description="Statistics.", inputSchema={}),
    Tool(name="archive", description="Archive notes (not implemented yet).", inputSchema={}),
]

@server.list_tools()
async def list_tools():
    return TOOLS

@server.call_tool()
async def call_tool(name: str, arguments: dict):
    handler = get_handler(name)
    if handler is not None:
        return await handler(arguments, None)
    return [f"unknown tool {name}"]
"#,
    ),
];

#[test]
fn a_registry_dict_filled_by_register_functions_splits_the_dispatcher_per_key() {
    let t = scan(REGISTRY_FILLED_BY_REGISTER_FUNCTIONS);
    let e = entries(&t);
    assert!(
        e.contains(&(EntityKind::Tool, "read_note".into(), "handle_read".into())),
        "{e:?}"
    );
    assert!(
        e.contains(&(EntityKind::Tool, "write_note".into(), "handle_write".into())),
        "{e:?}"
    );
    assert!(
        e.contains(&(EntityKind::Tool, "stats".into(), "handle_stats".into())),
        "{e:?}"
    );
    // Declared but absent from the registry: the dispatcher's miss path is what runs, and it is
    // analysed under the declared name rather than left out.
    assert!(
        e.contains(&(EntityKind::Tool, "archive".into(), "call_tool".into())),
        "{e:?}"
    );
    assert_eq!(tools(&t), ["archive", "read_note", "stats", "write_note"]);
    no_gaps(&t);
}

#[test]
fn a_registry_dict_filled_from_data_at_run_time_leaves_the_dispatcher_a_gap() {
    // Twin: the register function fills the registry from a plugin list read at run time; no
    // key is known, no tool is declared, so the dispatcher stays unsplit and INCOMPLETE.
    let files: Vec<(&str, &str)> = REGISTRY_FILLED_BY_REGISTER_FUNCTIONS
        .iter()
        .map(|(p, text)| match *p {
            "pkg/tools/notes.py" => (
                *p,
                r#"
import importlib, json
def register(registry: dict) -> None:
    for spec in json.load(open("plugins.json")):
        registry[spec["name"]] = getattr(importlib.import_module(spec["module"]), "run")
"#,
            ),
            "pkg/tools/extra.py" => (*p, "def register(handlers: dict) -> None:\n    pass\n"),
            "pkg/server.py" => (*p, SERVER_WITHOUT_DECLARATIONS),
            _ => (*p, *text),
        })
        .collect();
    let t = scan(&files);
    assert!(
        tools(&t).is_empty() || tools(&t) == ["call_tool"],
        "{:?}",
        tools(&t)
    );
    assert_eq!(unresolved_gaps(&t).len(), 1, "{:#?}", t.coverage.gaps);
}

const SERVER_WITHOUT_DECLARATIONS: &str = r#"
from mcp.server import Server
from .tools import get_handler, register_all

server = Server("notes")
register_all()

@server.call_tool()
async def call_tool(name: str, arguments: dict):
    handler = get_handler(name)
    if handler is not None:
        return await handler(arguments, None)
    return [f"unknown tool {name}"]
"#;

#[test]
fn a_main_handing_the_server_to_an_external_package_is_a_gap() {
    // The tree's own handlers are registered, but the process is served by another package's
    // `run()`, which builds its own tools: not a complete scan.
    let server = r#"
from fastmcp import FastMCP
mcp = FastMCP("models")

@mcp.tool
def model(action: str) -> str:
    return action
"#;
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/server.py", server),
        (
            "pkg/__main__.py",
            "import logging\nfrom connector_sdk import run\n\nif __name__ == \"__main__\":\n    logging.basicConfig()\n    run()\n",
        ),
    ]);
    assert_eq!(tools(&t), ["model"]);
    let gaps: Vec<_> = t
        .coverage
        .gaps
        .iter()
        .filter(|g| g.kind == GapKind::UnanalysedImport)
        .collect();
    assert_eq!(gaps.len(), 1, "{:#?}", t.coverage.gaps);
    assert!(
        gaps[0].reason.contains("`run` from `connector_sdk`"),
        "{}",
        gaps[0].reason
    );
}

#[test]
fn a_main_running_the_trees_own_server_is_complete() {
    // Twins: the server's own main, an SDK run, or an external runner given the tree's app.
    let server = r#"
from fastmcp import FastMCP
mcp = FastMCP("models")

@mcp.tool
def model(action: str) -> str:
    return action

def main() -> None:
    mcp.run()
"#;
    for main in [
        "from pkg.server import main\n\nmain()\n",
        "from .server import main\nimport sys\n\nsys.exit(main())\n",
        "import anyio\nfrom pkg.server import mcp\n\nanyio.run(mcp.run_stdio_async)\n",
        "from pkg.server import mcp\nmcp.run()\n",
    ] {
        let t = scan(&[
            ("pkg/__init__.py", ""),
            ("pkg/server.py", server),
            ("pkg/__main__.py", main),
        ]);
        assert_eq!(tools(&t), ["model"], "{main}");
        no_gaps(&t);
    }
}

/// A registration loop over what a function looked up in a dict of groups returns (the key
/// from the command line), possibly narrowed by a filter, unpacked with a starred target.
fn tool_groups_tree(group_body: &str) -> ParsedTree {
    scan(&[
        (
            "pkg/server.py",
            "from fastmcp import FastMCP\napp = FastMCP('groups')\n",
        ),
        (
            "pkg/groups/files.py",
            &format!(
                r#"
def read_file(path: str) -> str:
    return open(path).read()

def delete_file(path: str) -> None:
    import os
    os.remove(path)

def get_all_functions():
{group_body}
"#
            ),
        ),
        (
            "pkg/groups/net.py",
            r#"
def fetch(url: str) -> str:
    return url

def get_all_functions():
    return [(fetch, "net_fetch", "Fetch a URL", True)]
"#,
        ),
        (
            "pkg/main.py",
            r#"
import sys
from fastmcp.tools import Tool
from pkg.groups.files import get_all_functions as files_functions
from pkg.groups.net import get_all_functions as net_functions

GROUPS = {"files": files_functions, "net": net_functions}

def read_only(functions):
    return [(f, n, d, ro) for f, n, d, ro in functions if ro]

def main(groups: list[str], ro: bool) -> None:
    from pkg.server import app
    for g in groups:
        get_functions = GROUPS[g]
        functions = get_functions()
        if ro:
            functions = read_only(functions)
        for func, name, description, *_ in functions:
            app.add_tool(Tool.from_function(func, name=name, description=description))
    app.run()

if __name__ == "__main__":
    main(sys.argv[1:], False)
"#,
        ),
    ])
}

#[test]
fn a_loop_over_function_groups_looked_up_by_a_runtime_key_registers_every_group() {
    let t = tool_groups_tree(
        r#"    return [
        (read_file, "files_read", "Read a file", True),
        (delete_file, "files_delete", "Delete a file", False),
    ]"#,
    );
    assert_eq!(
        entries(&t)
            .into_iter()
            .filter(|(k, _, _)| *k == EntityKind::Tool)
            .map(|(_, n, q)| (n, q))
            .collect::<Vec<_>>(),
        [
            ("files_delete".to_string(), "delete_file".to_string()),
            ("files_read".into(), "read_file".into()),
            ("net_fetch".into(), "fetch".into()),
        ]
    );
    no_gaps(&t);
}

#[test]
fn a_loop_over_a_function_group_read_from_data_stays_a_gap() {
    // The group's list is built from a file at run time: which functions it holds is unknown.
    let t = tool_groups_tree(
        r#"    import json
    return [tuple(x) for x in json.load(open("groups.json"))]"#,
    );
    assert!(!tools(&t).contains(&"files_read".to_string()));
    assert_eq!(unresolved_gaps(&t), [("pkg/main.py".to_string(), 20)]);
}

/// A decorator factory defined inside a registration function whose decorator hands the
/// function to a helper that registers its parameter on the server.
fn nested_factory_tree(uses: &str) -> ParsedTree {
    scan(&[
        (
            "pkg/registration.py",
            r#"
from mcp.server.mcpserver import MCPServer

def register_tool(server: MCPServer, fn, *, name: str, title: str) -> None:
    fn.__doc__ = (fn.__doc__ or "") + title
    server.add_tool(fn, name=name, title=title)
"#,
        ),
        (
            "pkg/tools.py",
            &format!(
                r#"
from mcp.server.mcpserver import MCPServer
from pkg.registration import register_tool

def register_file_tools(server: MCPServer, enabled: set) -> None:
    def tool(name: str):
        def decorator(fn):
            if name not in enabled:
                return fn
            register_tool(server, fn, name=name, title=name.title())
            return fn
        return decorator
{uses}
"#
            ),
        ),
        (
            "pkg/server.py",
            r#"
from mcp.server.mcpserver import MCPServer
from pkg.tools import register_file_tools
server = MCPServer("files")
register_file_tools(server, {"files_read"})
"#,
        ),
    ])
}

#[test]
fn a_nested_decorator_factory_calling_a_registration_helper_registers_each_decorated_function() {
    let t = nested_factory_tree(
        r#"
    @tool("files_read")
    def read_file(path: str) -> str:
        return open(path).read()

    @tool("files_stat")
    def stat_file(path: str) -> int:
        import os
        return os.stat(path).st_size
"#,
    );
    assert_eq!(
        entries(&t),
        [
            (
                EntityKind::Tool,
                "files_read".to_string(),
                "register_file_tools.read_file".to_string()
            ),
            (
                EntityKind::Tool,
                "files_stat".into(),
                "register_file_tools.stat_file".into()
            ),
        ]
    );
    no_gaps(&t);
}

#[test]
fn a_nested_decorator_factory_handed_to_plugins_loaded_at_run_time_is_a_gap() {
    // The decorator is only passed to code chosen at run time: what it registers is unknown.
    let t = nested_factory_tree(
        r#"
    import importlib, os
    plugin = importlib.import_module(os.environ["FILES_PLUGIN"])
    plugin.setup(tool)
"#,
    );
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(unresolved_gaps(&t), [("pkg/tools.py".to_string(), 10)]);
}

fn resource_loop_tree(kinds: &str) -> ParsedTree {
    scan(&[(
        "server.py",
        &format!(
            r#"
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("docs")

def summary(kind: str) -> str:
    return kind

def register_resources(server: FastMCP) -> None:
    for kind in {kinds}:
        decorator = server.resource(
            f"docs://schema/{{kind.lower()}}",
            name=f"schema-{{kind.lower()}}",
        )

        def build(target: str):
            async def schema_doc() -> str:
                return summary(target)
            return schema_doc

        decorator(build(kind))

register_resources(mcp)
"#
        ),
    )])
}

#[test]
fn a_decorator_built_in_a_loop_body_takes_the_loop_variable_in_its_name() {
    let t = resource_loop_tree(r#"("System", "Chassis")"#);
    assert_eq!(
        entries(&t)
            .into_iter()
            .map(|(k, n, _)| (k, n))
            .collect::<Vec<_>>(),
        [
            (EntityKind::Resource, "schema-chassis".to_string()),
            (EntityKind::Resource, "schema-system".into()),
        ]
    );
    no_gaps(&t);
}

#[test]
fn a_decorator_built_in_a_loop_over_run_time_data_is_a_gap() {
    let t = resource_loop_tree(r#"open("kinds.txt").read().split()"#);
    assert!(!unresolved_gaps(&t).is_empty(), "{:?}", entries(&t));
}

/// A low-level server whose `call_tool` finds its tool by name in a list loaded from a YAML
/// file; `config_path` is what `main` passes for the file's path.
fn config_dispatcher_tree(config_path: &str) -> ParsedTree {
    scan(&[
        (
            "config/api.yaml",
            r#"# endpoints exposed as tools
base_url: "https://api.example.com"
tools:
  - name: enrich_company
    description: >
      Enrich a company
      by domain.
    endpoint: /enrich
    parameters:
      - name: domain
        type: string
  - name: 'search_people'
    endpoint: /people
"#,
        ),
        (
            "src/server.py",
            &format!(
                r#"
import os
import yaml
import httpx
from mcp.server import Server

class ApiServer:
    def __init__(self, config_path: str):
        self.config = self._load(config_path)
        self.server = Server("api")
        self._register()

    def _load(self, path):
        with open(path) as f:
            return yaml.safe_load(f)

    def _register(self):
        @self.server.call_tool()
        async def call_tool(name: str, arguments: dict):
            spec = None
            for tool in self.config["tools"]:
                if tool["name"] == name:
                    spec = tool
            return httpx.get(self.config["base_url"] + spec["endpoint"], params=arguments).text

def main():
    config_path = {config_path}
    ApiServer(config_path)
"#
            ),
        ),
    ])
}

#[test]
fn a_dispatcher_over_tools_listed_in_a_bundled_yaml_file_is_split_per_listed_name() {
    let t = config_dispatcher_tree(
        r#"os.environ.get("API_CONFIG", os.path.join(os.path.dirname(__file__), "../config/api.yaml"))"#,
    );
    assert_eq!(
        entries(&t),
        [
            (
                EntityKind::Tool,
                "enrich_company".to_string(),
                "ApiServer._register.call_tool".to_string()
            ),
            (
                EntityKind::Tool,
                "search_people".into(),
                "ApiServer._register.call_tool".into()
            ),
        ]
    );
    no_gaps(&t);
    assert_eq!(t.coverage.files_by_language.get("data"), Some(&1));
}

#[test]
fn a_dispatcher_over_a_config_path_given_at_run_time_stays_a_gap() {
    // The file is named only by the environment: which tools it lists is unknown.
    let t = config_dispatcher_tree(r#"os.environ["API_CONFIG"]"#);
    assert!(tools(&t).is_empty() || !tools(&t).contains(&"enrich_company".to_string()));
    assert_eq!(unresolved_gaps(&t), [("src/server.py".to_string(), 18)]);
    assert_eq!(t.coverage.files_by_language.get("data"), None);
}

fn appended_list_tree(adds: &str) -> ParsedTree {
    scan(&[(
        "server.py",
        &format!(
            r#"
from mcp.server.fastmcp import FastMCP
mcp = FastMCP("x")

def ping() -> str:
    return "pong"

def echo(text: str) -> str:
    return text

def shout(text: str) -> str:
    return text.upper()

TOOLS = [ping]
{adds}

for fn in TOOLS:
    mcp.add_tool(fn)
"#
        ),
    )])
}

#[test]
fn a_tool_list_extended_after_its_literal_registers_every_added_function() {
    let t = appended_list_tree("TOOLS.append(echo)\nTOOLS += [shout]\n");
    assert_eq!(tools(&t), ["echo", "ping", "shout"]);
    no_gaps(&t);
}

#[test]
fn a_tool_list_filled_by_a_registry_decorator_registers_every_decorated_function() {
    // `collect` appends whatever it decorates: the loop registers the literal's function and
    // every function `collect` decorates.
    let t = appended_list_tree(
        "def collect(f):\n    TOOLS.append(f)\n    return f\n\n@collect\ndef hidden(path: str) -> str:\n    return open(path).read()\n",
    );
    assert_eq!(tools(&t), ["hidden", "ping"]);
    no_gaps(&t);
}

#[test]
fn a_tool_list_filled_by_a_registry_decorator_applied_to_an_unresolvable_value_is_a_gap() {
    // What `collect` is handed comes from the environment: the loop's elements are not known.
    let t = appended_list_tree(
        "import importlib, os\ndef collect(f):\n    TOOLS.append(f)\n    return f\n\ncollect(getattr(importlib.import_module(os.environ['P']), 'run'))\n",
    );
    assert_eq!(tools(&t), ["ping"]);
    assert!(!unresolved_gaps(&t).is_empty(), "{:?}", entries(&t));
}

#[test]
fn a_registry_decorator_that_is_never_used_leaves_its_list_loop_a_gap() {
    let t = appended_list_tree("def collect(f):\n    TOOLS.append(f)\n    return f\n");
    assert_eq!(tools(&t), ["ping"]);
    assert!(!unresolved_gaps(&t).is_empty(), "{:?}", entries(&t));
}

#[test]
fn pairs_recorded_by_a_registry_decorator_factory_in_other_modules_register_each_function() {
    let t = scan(&[
        (
            "registry.py",
            "TOOLS = []\n\ndef tool(title):\n    def record(fn):\n        TOOLS.append((fn, title))\n        return fn\n    return record\n",
        ),
        (
            "shop/catalog.py",
            "from registry import tool\n\n@tool(\"Search\")\nasync def search(q: str) -> str:\n    return q\n\n@tool(\"Deals\")\nasync def deals() -> str:\n    return ''\n",
        ),
        (
            "server.py",
            r#"
import functools
from mcp.server.fastmcp import FastMCP
from shop import catalog
from registry import TOOLS

mcp = FastMCP("x")

def compact(fn):
    @functools.wraps(fn)
    async def run(*a, **k):
        return await fn(*a, **k)
    return run

for fn, title in TOOLS:
    mcp.add_tool(compact(fn), title=title)
"#,
        ),
    ]);
    assert_eq!(tools(&t), ["deals", "search"]);
    no_gaps(&t);
}

/// A compat module that picks the SDK's server class at import time and hands it out through
/// a tuple (`Server, Context, MAJOR = _resolve()`), and a factory that builds the server with it.
const COMPAT_TUPLE: &str = r#"
def _resolve():
    import mcp.server as _mcp_server

    server_cls = getattr(_mcp_server, "MCPServer", None)
    if server_cls is not None:
        from mcp.server.mcpserver.context import Context
        return server_cls, Context, 2
    import importlib
    fastmcp = importlib.import_module("mcp.server.fastmcp")
    return fastmcp.FastMCP, fastmcp.Context, 1


MCPServer, Context, MCP_MAJOR = _resolve()


def build_server(name, version):
    if MCP_MAJOR >= 2:
        return MCPServer(name, version=version)
    server = MCPServer(name)
    server._mcp_server.version = version
    return server
"#;

const COMPAT_TUPLE_SERVER: &str = r#"
from pkg._compat import build_server

server = build_server("bank", "1.0")


@server.tool(title="List")
def list_profiles() -> list:
    return []


@server.prompt()
def lint_payload(xml: str) -> str:
    return xml


@server.resource("profile://{name}")
def profile(name: str) -> str:
    return name
"#;

#[test]
fn a_server_class_unpacked_from_a_compat_function_returning_a_tuple_builds_a_server() {
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/_compat.py", COMPAT_TUPLE),
        ("pkg/server.py", COMPAT_TUPLE_SERVER),
    ]);
    assert_eq!(tools(&t), ["list_profiles"]);
    let kinds: Vec<EntityKind> = entries(&t).into_iter().map(|(k, _, _)| k).collect();
    assert!(kinds.contains(&EntityKind::Prompt), "{:?}", entries(&t));
    assert!(
        kinds.contains(&EntityKind::ResourceTemplate),
        "{:?}",
        entries(&t)
    );
    no_gaps(&t);
}

#[test]
fn a_server_class_from_importlib_import_module_of_the_sdk_is_a_server() {
    // The 1.x branch first: the class is an attribute of a module imported by a constant name.
    let compat = "import importlib\n\ndef _resolve():\n    try:\n        mod = importlib.import_module('mcp.server.fastmcp')\n        return mod.FastMCP, 1\n    except ImportError:\n        from mcp.server import MCPServer\n        return MCPServer, 2\n\nServer, MAJOR = _resolve()\n";
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/compat.py", compat),
        (
            "pkg/server.py",
            "from pkg.compat import Server\nmcp = Server('x')\n\n@mcp.tool()\ndef ping() -> str:\n    return 'pong'\n",
        ),
    ]);
    assert_eq!(tools(&t), ["ping"]);
    no_gaps(&t);
}

#[test]
fn a_tuple_unpacked_from_a_function_returning_a_local_class_is_not_a_server() {
    // Honest twin: the same unpacking shape hands out the tree's own registry class, whose
    // `tool` decorator is not the SDK's.
    let compat = "class Registry:\n    def tool(self, *a, **k):\n        return lambda f: f\n\ndef _resolve():\n    return Registry, 2\n\nServer, MAJOR = _resolve()\n";
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/compat.py", compat),
        (
            "pkg/server.py",
            "from pkg.compat import Server\nreg = Server()\n\n@reg.tool()\ndef ping() -> str:\n    return 'pong'\n",
        ),
    ]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    no_gaps(&t);
}

#[test]
fn a_tuple_unpacked_with_another_arity_than_the_returned_tuple_is_not_followed() {
    // Python raises on `a, b = f()` when `f` returns three values: nothing is bound, and a
    // decorator on the unresolved object in a module that imports the SDK stays a gap.
    let compat = "from mcp.server import MCPServer\n\ndef _resolve():\n    return MCPServer, None, 2\n\nServer, MAJOR = _resolve()\n";
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/compat.py", compat),
        (
            "pkg/server.py",
            "import mcp.types\nfrom pkg.compat import Server\nmcp = Server('x')\n\n@mcp.tool()\ndef ping() -> str:\n    return 'pong'\n",
        ),
    ]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(unresolved_gaps(&t), [("pkg/server.py".to_string(), 5)]);
}

#[test]
fn a_decorator_registering_a_wrapping_closure_registers_each_decorated_function() {
    // The registered object is a `functools.wraps` closure that calls the decorated function
    // (error translation, result post-processing): one tool per decorated function, under
    // its name, not one tool named after the closure.
    let server = r#"import functools
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

def tool(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except KeyError as e:
            raise ValueError(str(e))
    mcp.tool()(wrapper)
    return fn

def named(*, name):
    def register(fn):
        async def adapter(params):
            return await fn(params)
        mcp.add_tool(adapter, name=name)
        return fn
    return register

@tool
def read_note(path: str) -> str:
    return open(path).read()

@tool
def list_notes() -> list:
    return []

@named(name="fetch_page")
async def fetch(params) -> str:
    return str(params)
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", server)]);
    assert_eq!(tools(&t), ["fetch_page", "list_notes", "read_note"]);
    no_gaps(&t);
}

#[test]
fn a_closure_over_data_registered_in_a_factory_is_one_tool_not_a_wrapper() {
    // Twin: the nested function closes over a plain value, never calls a parameter: the
    // factory builds a tool from data, and the call site's constant names it.
    let server = r#"from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

def make(label):
    def handler() -> str:
        return label.upper()
    mcp.tool(name="shout")(handler)

make("hello")
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", server)]);
    assert_eq!(tools(&t), ["shout"]);
}

// ---------------------------------------------------------------- found4: discovery functions

const DISCOVERY: &str = r#"
import importlib
import pkgutil

import pkg

def _feature_names():
    names = []
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.ispkg:
            names.append(info.name)
    return sorted(names)

def discover_registrations():
    found = []
    for name in _feature_names():
        try:
            mod = importlib.import_module(f"pkg.{name}.tools")
        except ImportError:
            continue
        fn = getattr(mod, "register_tools", None)
        if fn is not None:
            found.append(fn)
    return found
"#;

const DISCOVERY_SERVER: &str = r#"
from mcp.server.fastmcp import FastMCP

from pkg.discovery import discover_registrations

mcp = FastMCP("x")

def _api(ctx):
    return ctx

for _reg in discover_registrations():
    _reg(mcp, _api)
"#;

#[test]
fn registrars_returned_by_a_discovery_function_and_called_in_a_loop_register_their_tools() {
    // `for reg in discover(): reg(mcp, api)`, where `discover` appends
    // `getattr(import_module(f"pkg.{name}.tools"), "register_tools")` for every sub-package.
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/discovery.py", DISCOVERY),
        ("pkg/server.py", DISCOVERY_SERVER),
        ("pkg/tasks/__init__.py", ""),
        (
            "pkg/tasks/tools.py",
            "def register_tools(mcp, api_fn):\n    @mcp.tool()\n    async def create_task(title: str) -> str:\n        return title\n\n    @mcp.tool()\n    async def list_tasks() -> list:\n        return []\n",
        ),
        ("pkg/notes/__init__.py", ""),
        (
            "pkg/notes/tools.py",
            "def register_tools(mcp, api_fn):\n    @mcp.tool()\n    def save_note(text: str) -> str:\n        return text\n",
        ),
    ]);
    assert_eq!(tools(&t), ["create_task", "list_tasks", "save_note"]);
    no_gaps(&t);
}

#[test]
fn a_register_function_in_a_module_the_discovery_pattern_does_not_name_stays_a_gap() {
    // Twin: `pkg/helpers.py` defines a top-level `register_tools` too, but the discovery
    // function only imports `pkg.<name>.tools`: nothing reaches it, so its decorator is a gap,
    // neither a tool nor silence.
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/discovery.py", DISCOVERY),
        ("pkg/server.py", DISCOVERY_SERVER),
        ("pkg/tasks/__init__.py", ""),
        (
            "pkg/tasks/tools.py",
            "def register_tools(mcp, api_fn):\n    @mcp.tool()\n    def create_task(title: str) -> str:\n        return title\n",
        ),
        (
            "pkg/helpers.py",
            "from mcp.server.fastmcp import Context\n\ndef register_tools(mcp, api_fn):\n    @mcp.tool()\n    def wipe(ctx: Context) -> None:\n        pass\n",
        ),
    ]);
    assert_eq!(tools(&t), ["create_task"]);
    assert_eq!(unresolved_gaps(&t), [("pkg/helpers.py".to_string(), 4)]);
}

#[test]
fn registrars_listed_by_a_function_and_unpacked_in_a_loop_register_their_tools() {
    // The discovery function returns a literal collection of (label, registrar) pairs; the
    // loop unpacks them and calls the registrar with the server.
    let server = r#"from mcp.server.fastmcp import FastMCP

from pkg import files, net

mcp = FastMCP("x")

def registrars():
    return [("files", files.register), ("net", net.register)]

for label, register in registrars():
    register(mcp)
"#;
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/server.py", server),
        (
            "pkg/files.py",
            "def register(server):\n    @server.tool()\n    def read_file(path: str) -> str:\n        return open(path).read()\n",
        ),
        (
            "pkg/net.py",
            "def register(server):\n    @server.tool()\n    def fetch(url: str) -> str:\n        return url\n",
        ),
    ]);
    assert_eq!(tools(&t), ["fetch", "read_file"]);
    no_gaps(&t);
}

#[test]
fn registrars_from_a_discovery_function_the_resolver_cannot_follow_stay_gaps() {
    // Twin: the registrars come from installed entry points (computed at run time, nothing in
    // the tree names them): the decorator inside stays an unresolved registration.
    let server = r#"from importlib.metadata import entry_points

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

def registrars():
    return [ep.load() for ep in entry_points(group="x.tools")]

for register in registrars():
    register(mcp)
"#;
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/server.py", server),
        (
            "pkg/plugin.py",
            "from mcp.server.fastmcp import Context\n\ndef register(server):\n    @server.tool()\n    def wipe(ctx: Context) -> None:\n        pass\n",
        ),
    ]);
    assert!(tools(&t).is_empty(), "{:?}", tools(&t));
    assert_eq!(unresolved_gaps(&t), [("pkg/plugin.py".to_string(), 4)]);
}

#[test]
fn a_tool_dispatcher_registered_by_request_method_on_a_server_attribute_is_split() {
    // mcp 2.x low-level: handlers registered by request name on a server held in `self.server`,
    // inside a method; the dispatcher delegates to a method branching on the tool name.
    let server = r#"from mcp.server import Server
import mcp.types as types

class App:
    def __init__(self):
        self.server = Server("x")

    def setup(self):
        async def handle_list_tools(ctx, params):
            return types.ListToolsResult(tools=[
                types.Tool(name="read_note", description="Read a note", inputSchema={}),
                types.Tool(name="list_notes", description="List notes", inputSchema={}),
            ])

        self.server.add_request_handler("tools/list", types.PaginatedRequestParams, handle_list_tools)

        async def handle_call_tool(ctx, params):
            return self._dispatch(params.name, params.arguments or {})

        self.server.add_request_handler("tools/call", types.CallToolRequestParams, handle_call_tool)

    def _dispatch(self, name, args):
        if name == "read_note":
            return open(args["path"]).read()
        elif name == "list_notes":
            return []
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", server)]);
    assert_eq!(tools(&t), ["list_notes", "read_note"]);
    assert_eq!(t.coverage.registration_sites, 1);
    no_gaps(&t);
}

#[test]
fn a_handler_registered_for_another_request_is_not_a_tool_dispatcher() {
    // Twin: `resources/read` and `tools/list` handlers are not tool dispatchers; no tool, no gap.
    let server = r#"from mcp.server import Server
import mcp.types as types

server = Server("x")

async def handle_read_resource(ctx, params):
    if params.uri == "note://a":
        return "a"

server.add_request_handler("resources/read", types.ReadResourceRequestParams, handle_read_resource)

async def handle_call_tool(ctx, params):
    if params.name == "ping":
        return "pong"

server.add_request_handler("tools/call", types.CallToolRequestParams, handle_call_tool)
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", server)]);
    // Only the `tools/call` handler's arm is a tool; the `resources/read` handler is no site.
    assert_eq!(tools(&t), ["ping"], "{:?}", entries(&t));
    assert_eq!(t.coverage.registration_sites, 1);
    no_gaps(&t);
}

#[test]
fn a_request_handler_whose_request_or_handler_cannot_be_followed_is_a_gap() {
    // Fail closed: a request name computed at run time may be `tools/call`, and a dispatcher
    // taken from a parameter is not analysed: each is a gap at its call, never a silent miss.
    let server = r#"from mcp.server import Server
import mcp.types as types

server = Server("x")

def install(method, fn):
    server.add_request_handler(method, types.CallToolRequestParams, fn)

def install_dispatcher(fn):
    server.add_request_handler("tools/call", types.CallToolRequestParams, fn)
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", server)]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(
        unresolved_gaps(&t),
        [
            ("pkg/server.py".to_string(), 7),
            ("pkg/server.py".to_string(), 10)
        ]
    );
}

#[test]
fn a_dispatcher_replacing_fastmcps_own_on_its_low_level_server_is_not_silent() {
    // `mcp._mcp_server.call_tool()(fn)` replaces FastMCP's dispatcher: the replacement is a
    // dispatcher site (split by its branches); one taken from an object the analyzer cannot
    // follow is a gap, never a silent miss.
    let split = r#"from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

async def dispatch(name, arguments):
    if name == "read_tags":
        return []
    elif name == "write_tags":
        return []

mcp._mcp_server.call_tool(validate_input=False)(dispatch)
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", split)]);
    assert_eq!(tools(&t), ["read_tags", "write_tags"]);
    no_gaps(&t);
    let opaque = r#"from mcp.server.fastmcp import FastMCP
import contract

mcp = FastMCP("x")
boundary = contract.make()
mcp._mcp_server.call_tool(validate_input=False)(boundary.wire_call)
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", opaque)]);
    assert_eq!(unresolved_gaps(&t), [("pkg/server.py".to_string(), 6)]);
}

#[test]
fn other_attributes_of_a_fastmcp_server_register_nothing() {
    // Twin: a call through another attribute of the server (`mcp.settings.call_tool(...)`) is
    // not the low-level server: no tool, no gap.
    let server = r#"from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

async def dispatch(name, arguments):
    if name == "read_tags":
        return []

mcp.settings.call_tool(validate_input=False)(dispatch)

@mcp.tool()
def ping() -> str:
    return "pong"
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", server)]);
    assert_eq!(tools(&t), ["ping"]);
    no_gaps(&t);
}

#[test]
fn a_dispatcher_handing_the_name_to_a_branching_function_is_split_on_that_functions_arms() {
    // Each way a dispatcher is registered (by request method on `self.server`, on a FastMCP's
    // inner server, applied directly to a low-level server) when it hands the tool name to a
    // function that branches on it: each tool runs the dispatcher with only its own arm of that
    // function, never the whole of it (which would charge every tool with every arm).
    let by_request = r#"from mcp.server import Server
import mcp.types as types

class App:
    def __init__(self):
        self.server = Server("x")

    def setup(self):
        async def handle_call_tool(ctx, params):
            name = params.name
            return self._dispatch(name, params.arguments or {})

        self.server.add_request_handler("tools/call", types.CallToolRequestParams, handle_call_tool)

    def _dispatch(self, name, args):
        if name == "read_note":
            return open(args["path"]).read()
        elif name == "run":
            return 1
"#;
    let inner = r#"from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

def route(tool, arguments):
    if tool == "read_note":
        return 0
    if tool == "run":
        return 1

async def dispatch(name, arguments):
    return route(name, arguments)

mcp._mcp_server.call_tool()(dispatch)
"#;
    let wrapper = r#"from mcp.server.lowlevel import Server
import mcp.types as types

server = Server("x")

async def on_call_tool(ctx, params):
    match params.name:
        case "read_note":
            return 0
        case "run":
            return 1

async def call_v1(name, arguments):
    params = types.CallToolRequestParams(name=name, arguments=arguments)
    return await on_call_tool(None, params)

server.call_tool()(call_v1)
"#;
    // Each tool runs a copy of the dispatcher that calls only its arm.
    for (src, owner) in [
        (by_request, "App.setup.handle_call_tool"),
        (inner, "dispatch"),
        (wrapper, "call_v1"),
    ] {
        let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", src)]);
        let got: Vec<(String, String)> = entries(&t).into_iter().map(|(_, n, q)| (n, q)).collect();
        assert_eq!(
            got,
            [
                ("read_note".to_string(), format!("{owner}[read_note]")),
                ("run".to_string(), format!("{owner}[run]")),
            ],
            "{src}"
        );
        no_gaps(&t);
    }
}

#[test]
fn a_dispatcher_handing_on_something_other_than_the_name_stays_whole_or_a_gap() {
    // Twin: the dispatcher calls a branching function but hands it only the arguments, not
    // the tool name; that function's branches are not tool arms, so nothing is split on them:
    // with no declared tools the dispatcher is a gap (never a silent miss, never a guess).
    let src = r#"from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

def route(mode, arguments):
    if mode == "read_note":
        return 0
    if mode == "run":
        return 1

async def dispatch(name, arguments):
    return route(arguments.get("mode"), arguments)

mcp._mcp_server.call_tool()(dispatch)
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", src)]);
    assert!(
        tools(&t).iter().all(|n| n != "read_note" && n != "run"),
        "{:?}",
        entries(&t)
    );
    assert_eq!(unresolved_gaps(&t), [("pkg/server.py".to_string(), 14)]);
}

#[test]
fn a_server_with_no_recognised_registration_is_a_gap_not_no_tools() {
    // Fail closed: a package that imports an MCP server class and ends with no tool, resource
    // or prompt registered its tools in a way not recognised: a gap at the import, never
    // "no tools found" with a clean exit.
    let server = r#"import json
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")
install_everything(mcp)
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", server)]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(unresolved_gaps(&t), [("pkg/server.py".to_string(), 2)]);
    let low_level = r#"from mcp.server import lowlevel

app = lowlevel.Server("x")
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", low_level)]);
    assert_eq!(unresolved_gaps(&t), [("pkg/server.py".to_string(), 1)]);
}

#[test]
fn a_package_that_only_uses_the_mcp_client_or_types_is_no_gap() {
    // Twin: importing the SDK's client or types (no server class) with no registration is a
    // client, not an unanalysed server: no tool and no gap. A server with only resources had
    // its registrations recognised: no gap either.
    let client = r#"import mcp
from mcp import ClientSession
from mcp.types import Tool

async def run(session: ClientSession) -> list[Tool]:
    return (await session.list_tools()).tools
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/client.py", client)]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    no_gaps(&t);
    let resources_only = r#"from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

@mcp.resource("notes://{key}")
def note(key: str) -> str:
    return key
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", resources_only)]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(entries(&t).len(), 1, "{:?}", entries(&t));
    no_gaps(&t);
}

#[test]
fn a_server_built_through_a_bare_package_import_with_no_tool_is_a_gap() {
    // Fail closed: `import fastmcp` names no server class by itself, but `fastmcp.FastMCP(...)`
    // builds one; with no tool recognised that is a gap at the import. Twin: the same bare
    // import used only for the client builds no server and is no gap.
    let server = r#"import fastmcp
from .tools import install

app = fastmcp.FastMCP("x")
install(app)
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", server)]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(unresolved_gaps(&t), [("pkg/server.py".to_string(), 1)]);
    let client = r#"import fastmcp

async def run(url):
    async with fastmcp.Client(url) as c:
        return await c.list_tools()
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/client.py", client)]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    no_gaps(&t);
}

#[test]
fn a_tool_named_by_the_declaration_a_tree_function_returns_takes_that_name() {
    // `tool_def = get_x_tool()` (a tree function in another module returning one
    // `Tool(name=ToolName.X.value, ...)`), then `@mcp.tool(name=tool_def.name)`: each block's
    // own nearest assignment names its tool, not the function's last one.
    let defs = r#"from enum import Enum
from mcp.types import Tool

class ToolName(Enum):
    LIST_SPACES = "lightdash_list_spaces"
    GET_USER = "lightdash_get_user"

def get_list_spaces_tool() -> Tool:
    return Tool(name=ToolName.LIST_SPACES.value, description="List spaces", inputSchema={})

def get_user_tool() -> Tool:
    return Tool(name=ToolName.GET_USER.value, description="Current user", inputSchema={})
"#;
    let tools_py = r#"from pkg.defs import get_list_spaces_tool, get_user_tool

def register(mcp, disabled):
    if "spaces" not in disabled:
        tool_def = get_list_spaces_tool()

        @mcp.tool(name=tool_def.name, description=tool_def.description)
        async def spaces_handler(arguments):
            return []

    if "user" not in disabled:
        tool_def = get_user_tool()

        @mcp.tool(name=tool_def.name, description=tool_def.description)
        async def user_handler(arguments):
            return {}
"#;
    let server = r#"from mcp.server.fastmcp import FastMCP
from pkg.tools import register

mcp = FastMCP("x")
register(mcp, [])
"#;
    let t = scan(&[
        ("pkg/__init__.py", ""),
        ("pkg/defs.py", defs),
        ("pkg/tools.py", tools_py),
        ("pkg/server.py", server),
    ]);
    assert_eq!(tools(&t), ["lightdash_get_user", "lightdash_list_spaces"]);
    no_gaps(&t);
}

#[test]
fn a_declaration_chosen_at_run_time_does_not_lend_its_name() {
    // Twin: the tree function returns one of two declarations; neither name is the tool's for
    // sure, so none is guessed (the handler keeps its own name).
    let src = r#"import os
from mcp.server.fastmcp import FastMCP
from mcp.types import Tool

mcp = FastMCP("x")

def get_tool():
    if os.getenv("V2"):
        return Tool(name="search_v2", inputSchema={})
    return Tool(name="search_v1", inputSchema={})

tool_def = get_tool()

@mcp.tool(name=tool_def.name)
def search_handler(q: str) -> str:
    return q
"#;
    let t = scan(&[("pkg/__init__.py", ""), ("pkg/server.py", src)]);
    let names = tools(&t);
    assert!(
        !names.iter().any(|n| n == "search_v1" || n == "search_v2"),
        "{names:?}"
    );
}

const INTROSPECTING_REGISTRY: &str = r#"
from fastmcp import FastMCP
from services import Notes, Stats

PREFIX = "tool_"

def is_tool(name, member):
    return name.startswith(PREFIX) and isinstance(member, staticmethod)

def specs(cls):
    out = []
    for name, member in cls.__dict__.items():
        if not is_tool(name, member):
            continue
        out.append(dict(name="n_" + name[len(PREFIX):], fn=member.__func__))
    return out

mcp = FastMCP("x")
collected = []
for cls in (Notes, Stats):
    collected.extend(specs(cls))
for spec in collected:
    mcp.add_tool(spec["fn"], name=spec["name"])
"#;

const SERVICES: &str = r#"
class Notes:
    @staticmethod
    def tool_list(): return []
    @staticmethod
    def render(x): return x

class Stats:
    @staticmethod
    def tool_count(t: str): return len(t)
"#;

#[test]
fn members_of_classes_found_by_introspection_register_under_their_folded_names() {
    let t = scan(&[
        ("server.py", INTROSPECTING_REGISTRY),
        ("services.py", SERVICES),
    ]);
    assert_eq!(
        entries(&t),
        [
            (
                EntityKind::Tool,
                "n_count".into(),
                "Stats.tool_count".into()
            ),
            (EntityKind::Tool, "n_list".into(), "Notes.tool_list".into()),
        ]
    );
    no_gaps(&t);
}

#[test]
fn a_member_the_introspection_guard_rejects_is_not_a_tool() {
    // The honest twin of the guard: with a prefix no member has, nothing is registered, and
    // the registration site that registered nothing is not a silent SAFE.
    let src = INTROSPECTING_REGISTRY.replace("PREFIX = \"tool_\"", "PREFIX = \"cmd_\"");
    let t = scan(&[("server.py", &src), ("services.py", SERVICES)]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert!(!t.coverage.gaps.is_empty(), "no tool found must be a gap");
}

#[test]
fn members_enumerated_by_dir_and_getattr_stay_a_gap() {
    // `dir(obj)` with a run-time attribute test is not followed: the site is INCOMPLETE.
    let t = scan(&[
        (
            "server.py",
            "from fastmcp import FastMCP\nfrom services import Notes\nmcp = FastMCP('x')\nfor n in dir(Notes):\n    fn = getattr(Notes, n)\n    if getattr(fn, 'is_tool', False):\n        mcp.add_tool(fn)\n",
        ),
        ("services.py", SERVICES),
    ]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
    assert_eq!(unresolved_gaps(&t).len(), 1, "{:#?}", t.coverage.gaps);
}

#[test]
fn an_sdk_module_the_tree_ships_itself_defines_the_server_class() {
    let t = scan(&[
        (
            "mcp/server/fastmcp.py",
            "class FastMCP:\n    def __init__(self, name):\n        self.tools = {}\n    def tool(self, name=None):\n        def deco(fn):\n            self.tools[name or fn.__name__] = fn\n            return fn\n        return deco\n",
        ),
        ("mcp/server/__init__.py", "from .fastmcp import FastMCP\n"),
        (
            "app/server.py",
            "from mcp.server import FastMCP\napp = FastMCP('x')\n\n@app.tool()\ndef ping() -> str:\n    return 'pong'\n",
        ),
    ]);
    assert_eq!(tools(&t), ["ping"]);
    no_gaps(&t);
}

#[test]
fn a_class_named_like_the_sdk_class_outside_an_sdk_path_stays_no_server() {
    // The twin: the same stub class in the project's own module is not reached by an SDK
    // import path, so `.tool()` on it registers nothing.
    let t = scan(&[
        (
            "helpers/stub.py",
            "class FastMCP:\n    def tool(self, name=None):\n        return lambda fn: fn\n",
        ),
        (
            "app/server.py",
            "import mcp.types\nfrom helpers.stub import FastMCP\napp = FastMCP()\n\n@app.tool()\ndef ping() -> str:\n    return 'pong'\n",
        ),
    ]);
    assert!(tools(&t).is_empty(), "{:?}", entries(&t));
}

fn gaps_of(t: &ParsedTree, kind: GapKind) -> Vec<(String, u32)> {
    t.coverage
        .gaps
        .iter()
        .filter(|g| g.kind == kind)
        .map(|g| (g.file.clone().unwrap_or_default(), g.line.unwrap_or(0)))
        .collect()
}

const GENERATED_TOOLS: &str = "# generated\nimport os\n\n@mcp.tool()\ndef count_words(text: str) -> int:\n    return len(text.split())\n\n@mcp.tool()\ndef sync_notes(folder: str) -> str:\n    return folder\n";

#[test]
fn tools_of_a_file_execd_into_the_server_modules_globals_are_found() {
    let t = scan(&[
        (
            "pkg/server.py",
            r#"
import os
from fastmcp import FastMCP

mcp = FastMCP("x")

@mcp.tool()
def ping() -> str:
    return "pong"

GENERATED = os.path.join(os.path.dirname(os.path.realpath(__file__)), "generated.py")

def load():
    with open(GENERATED, "r", encoding="utf8") as f:
        code = f.read()
        exec(compile(code, GENERATED, "exec"), globals())

load()
"#,
        ),
        ("pkg/generated.py", GENERATED_TOOLS),
    ]);
    assert_eq!(tools(&t), ["count_words", "ping", "sync_notes"]);
    assert_eq!(t.coverage.registration_sites, 3);
    no_gaps(&t);
}

#[test]
fn a_file_execd_at_module_level_or_run_with_the_modules_globals_shares_its_namespace() {
    let t = scan(&[
        (
            "server.py",
            r#"
from pathlib import Path
import runpy
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")
exec((Path(__file__).parent / "generated.py").read_text())
runpy.run_path(str(Path(__file__).parent / "more.py"), init_globals=globals())
"#,
        ),
        ("generated.py", GENERATED_TOOLS),
        (
            "more.py",
            "@mcp.resource('notes://all')\ndef all_notes() -> str:\n    return ''\n",
        ),
    ]);
    assert_eq!(tools(&t), ["count_words", "sync_notes"]);
    assert!(
        entries(&t)
            .iter()
            .any(|(k, n, _)| *k == EntityKind::Resource && n == "notes://all"),
        "{:?}",
        entries(&t)
    );
    no_gaps(&t);
}

#[test]
fn a_file_execd_into_globals_from_a_path_outside_the_tree_is_a_gap() {
    let t = scan(&[(
        "server.py",
        r#"
import os
from mcp.server.fastmcp import FastMCP

mcp = FastMCP("x")

@mcp.tool()
def ping() -> str:
    return "pong"

with open(os.environ["PLUGIN_FILE"]) as f:
    exec(compile(f.read(), "plugin", "exec"), globals())
"#,
    )]);
    assert_eq!(tools(&t), ["ping"]);
    assert_eq!(
        gaps_of(&t, GapKind::UnanalysedImport),
        [("server.py".to_string(), 12)]
    );
    let reason = &t.coverage.gaps[0].reason;
    assert!(reason.contains("globals"), "{reason}");
}

#[test]
fn a_tool_decorator_on_a_name_no_file_binds_in_an_mcp_tree_is_a_gap() {
    // The server module imports the SDK; the tools file uses a `mcp` it never binds (it gets it
    // at run time from a loader the analyzer does not follow).
    let t = scan(&[
        (
            "server.py",
            "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\nimport loader\nloader.load(mcp)\n",
        ),
        (
            "loader.py",
            "def load(server):\n    import builtins\n    builtins.mcp = server\n    import tools_impl\n",
        ),
        ("tools_impl.py", GENERATED_TOOLS),
    ]);
    assert!(tools(&t).is_empty());
    assert_eq!(
        unresolved_gaps(&t),
        [
            ("tools_impl.py".to_string(), 4),
            ("tools_impl.py".to_string(), 8)
        ]
    );
}

#[test]
fn a_tool_attribute_decorator_in_a_tree_without_an_mcp_framework_is_not_a_gap() {
    // The same unresolved `@x.tool()` shape in a tree that imports no MCP framework.
    let t = scan(&[
        (
            "app.py",
            "import agents\nagents.setup()\nimport tools_impl\n",
        ),
        ("tools_impl.py", GENERATED_TOOLS),
    ]);
    assert!(tools(&t).is_empty());
    no_gaps(&t);
    assert_eq!(t.coverage.registration_sites, 0);
}

/// `server.py` handing a `FileSystemProvider` rooted at `pkg/components` to its server.
const PROVIDER_SERVER: &str = r#"
from pathlib import Path
from fastmcp import FastMCP
from fastmcp.server.providers import FileSystemProvider

provider = FileSystemProvider(root=Path(__file__).parent / "components")
mcp = FastMCP("docs", providers=[provider])
"#;

#[test]
fn functions_marked_by_standalone_decorators_are_served_from_the_provider_folder() {
    let t = scan(&[
        ("pkg/server.py", PROVIDER_SERVER),
        (
            "pkg/components/tools/rotate.py",
            r#"
from fastmcp.tools.function_tool import tool

def _helper(x):
    return x

@tool()
def rotate_pdf(path: str) -> str:
    """Rotates a PDF."""
    return _helper(path)

@tool(name="merge_pdfs")
async def merge(paths: list[str]) -> str:
    return ""
"#,
        ),
        (
            "pkg/components/resources/info.py",
            "from fastmcp.resources import resource\n\n@resource(\"info://tools\")\ndef available_tools() -> str:\n    return 'x'\n",
        ),
        (
            "pkg/components/prompts/ask.py",
            "import fastmcp.prompts as p\n\n@p.prompt\ndef ask_for_file() -> str:\n    return 'x'\n",
        ),
    ]);
    no_gaps(&t);
    assert_eq!(tools(&t), ["merge_pdfs", "rotate_pdf"]);
    let e = entries(&t);
    assert!(
        e.iter().any(|(k, n, q)| *k == EntityKind::Resource
            && n == "info://tools"
            && q == "available_tools"),
        "{e:?}"
    );
    assert!(
        e.iter()
            .any(|(k, n, _)| *k == EntityKind::Prompt && n == "ask_for_file"),
        "{e:?}"
    );
    assert_eq!(t.coverage.registration_sites, 4);
}

#[test]
fn standalone_marked_function_outside_every_provider_folder_is_a_gap() {
    let t = scan(&[
        ("pkg/server.py", PROVIDER_SERVER),
        (
            "pkg/components/served.py",
            "from fastmcp.tools import tool\n\n@tool\ndef served() -> str:\n    return ''\n",
        ),
        (
            "pkg/elsewhere/hidden.py",
            "from fastmcp.tools import tool\n\n@tool\ndef hidden() -> str:\n    return ''\n",
        ),
    ]);
    assert_eq!(tools(&t), ["served"]);
    assert_eq!(
        unresolved_gaps(&t),
        vec![("pkg/elsewhere/hidden.py".to_string(), 3)]
    );
}

#[test]
fn provider_folder_that_does_not_fold_or_no_server_uses_leaves_marked_functions_gaps() {
    let marked = "from fastmcp.tools import tool\n\n@tool()\ndef run() -> str:\n    return ''\n";
    for server in [
        // The folder comes from the environment at run time.
        "import os\nfrom fastmcp import FastMCP\nfrom fastmcp.server.providers import FileSystemProvider\n\nmcp = FastMCP('x', providers=[FileSystemProvider(root=os.environ['TOOLS_DIR'])])\n",
        // No folder: the working directory at run time.
        "from fastmcp import FastMCP\nfrom fastmcp.server.providers import FileSystemProvider\n\nmcp = FastMCP('x', providers=[FileSystemProvider()])\n",
        // A provider no server is handed.
        "from pathlib import Path\nfrom fastmcp import FastMCP\nfrom fastmcp.server.providers import FileSystemProvider\n\nprovider = FileSystemProvider(root=Path(__file__).parent / 'components')\nmcp = FastMCP('x')\n",
    ] {
        let t = scan(&[("pkg/server.py", server), ("pkg/components/run.py", marked)]);
        assert!(tools(&t).is_empty(), "{server}: {:?}", tools(&t));
        assert_eq!(
            unresolved_gaps(&t),
            vec![("pkg/components/run.py".to_string(), 3)],
            "{server}"
        );
    }
}

#[test]
fn provider_added_under_a_namespace_lists_namespaced_names() {
    let t = scan(&[
        (
            "server.py",
            r#"
import os
from fastmcp import FastMCP
from fastmcp.server.providers import FileSystemProvider

HERE = os.path.dirname(os.path.abspath(__file__))
mcp = FastMCP("docs")
mcp.add_provider(FileSystemProvider(os.path.join(HERE, "parts")), namespace="pdf")
"#,
        ),
        (
            "parts/rotate.py",
            "from fastmcp.tools import tool\nfrom fastmcp.resources import resource\n\n@tool\ndef rotate() -> str:\n    return ''\n\n@resource('info://tools')\ndef info() -> str:\n    return ''\n",
        ),
    ]);
    no_gaps(&t);
    assert_eq!(tools(&t), ["pdf_rotate"]);
    let e = entries(&t);
    assert!(
        e.iter()
            .any(|(k, n, _)| *k == EntityKind::Resource && n == "info://pdf/tools"),
        "{e:?}"
    );
}

#[test]
fn standalone_marked_function_registered_with_add_tool_is_a_tool_without_a_provider() {
    let t = scan(&[(
        "server.py",
        "from fastmcp import FastMCP\nfrom fastmcp.tools import tool\n\n@tool\ndef ping() -> str:\n    return 'pong'\n\nmcp = FastMCP('x')\nmcp.add_tool(ping)\n",
    )]);
    assert_eq!(tools(&t), ["ping"]);
    no_gaps(&t);
}
