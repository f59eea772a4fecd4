use super::*;
use mcp_scan_core::EntityKind;
use mcp_scan_ir::{ExprKind, StmtKind};

fn names(m: &Module) -> Vec<(EntityKind, String)> {
    let mut v: Vec<_> = m
        .entry_points
        .iter()
        .map(|e| (e.kind, e.name.clone()))
        .collect();
    v.sort_by(|a, b| a.1.cmp(&b.1));
    v
}

#[test]
fn module_names_and_relative_specifiers_resolve_like_files() {
    assert_eq!(module_name("src/tools/read.ts"), "./src/tools/read");
    assert_eq!(module_name("src/tools/index.ts"), "./src/tools");
    assert_eq!(module_name("index.js"), "./");
    assert_eq!(
        resolve_specifier("src/index.ts", "./tools/read.js"),
        "./src/tools/read"
    );
    assert_eq!(
        resolve_specifier("src/tools/a.ts", "../util/index.js"),
        "./src/util"
    );
    assert_eq!(
        resolve_specifier("src/a.ts", "node:child_process"),
        "child_process"
    );
    assert_eq!(resolve_specifier("src/a.ts", "fs/promises"), "fs/promises");
}

#[test]
fn mcp_server_tool_registrations_are_entry_points_with_zod_params() {
    let src = r#"
import { McpServer as S } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
const server = new S({ name: "x", version: "1" });
server.tool("read_file", "Reads a file", { path: z.string().describe("the path") }, async ({ path }) => {
  return { content: [{ type: "text", text: path }] };
});
server.registerTool("echo", { description: "Echoes", inputSchema: { msg: z.string() } }, async ({ msg }) => ({ content: [] }));
server.resource("cfg", "config://app", async (uri) => ({ contents: [] }));
server.prompt("review", { code: z.string() }, ({ code }) => ({ messages: [] }));
"#;
    let m = lower("server.ts", src).expect("lowers");
    assert_eq!(
        names(&m),
        vec![
            (EntityKind::Resource, "config://app".to_string()),
            (EntityKind::Tool, "echo".to_string()),
            (EntityKind::Tool, "read_file".to_string()),
            (EntityKind::Prompt, "review".to_string()),
        ]
    );
    let rf = m
        .entry_points
        .iter()
        .find(|e| e.name == "read_file")
        .unwrap();
    assert_eq!(rf.description.as_deref(), Some("Reads a file"));
    assert_eq!(rf.params.len(), 1);
    assert_eq!(rf.params[0].name, "path");
    assert_eq!(rf.params[0].type_hint.as_deref(), Some("string"));
    assert_eq!(rf.params[0].description.as_deref(), Some("the path"));
    let echo = m.entry_points.iter().find(|e| e.name == "echo").unwrap();
    assert_eq!(echo.description.as_deref(), Some("Echoes"));
    assert_eq!(echo.params[0].name, "msg");
}

#[test]
fn a_tool_method_on_an_unrelated_object_is_not_an_entry_point() {
    let src = r#"
const helper = { tool(name, fn) { return fn(name); } };
const cli = new Commander();
cli.tool("x", "y", () => 1);
"#;
    let m = lower("a.js", src).expect("lowers");
    assert!(m.entry_points.is_empty(), "{:?}", names(&m));
}

#[test]
fn commonjs_require_binds_imports_and_registrations() {
    let src = r#"
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const cp = require("node:child_process");
const server = new McpServer({ name: 'a', version: '1' });
server.tool('run', { cmd: z.string() }, async ({ cmd }) => { cp.exec(cmd); return {}; });
module.exports = { server };
"#;
    let m = lower("s.cjs", src).expect("lowers");
    assert_eq!(names(&m), vec![(EntityKind::Tool, "run".to_string())]);
    assert!(
        m.imports
            .iter()
            .any(|i| i.local == "cp" && i.module == "child_process" && i.symbol.is_none())
    );
}

#[test]
fn low_level_dispatcher_splits_per_tool_on_switch_and_if() {
    let src = r#"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: "a", description: "Tool A", inputSchema: { type: "object", properties: { p: { type: "string", description: "P" } } } },
    { name: "b", description: "Tool B", inputSchema: { type: "object", properties: {} } },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args } = request.params;
  switch (name) {
    case "a": return { content: [{ type: "text", text: String(args.p) }] };
    case "b": { doB(); break; }
    default: throw new Error("unknown");
  }
});
"#;
    let m = lower("index.ts", src).expect("lowers");
    assert_eq!(
        names(&m),
        vec![
            (EntityKind::Tool, "a".to_string()),
            (EntityKind::Tool, "b".to_string())
        ]
    );
    let a = m.entry_points.iter().find(|e| e.name == "a").unwrap();
    assert_eq!(a.description.as_deref(), Some("Tool A"));
    assert_eq!(a.params[0].name, "p");
    // Arm a's body holds its return and not b's call.
    let body = &m.functions[a.function].body;
    let text = format!("{body:?}");
    assert!(text.contains("\"p\""), "{text}");
    assert!(!text.contains("doB"), "{text}");

    let src_if = src.replace(
        "switch (name) {\n    case \"a\": return { content: [{ type: \"text\", text: String(args.p) }] };\n    case \"b\": { doB(); break; }\n    default: throw new Error(\"unknown\");\n  }",
        "if (name === \"a\") { return String(args.p); } else if (name === \"b\") { doB(); }",
    );
    assert_ne!(src_if, src);
    let m = lower("index.ts", &src_if).expect("lowers");
    assert_eq!(
        names(&m),
        vec![
            (EntityKind::Tool, "a".to_string()),
            (EntityKind::Tool, "b".to_string())
        ]
    );
}

#[test]
fn fastmcp_add_tool_objects_are_entry_points() {
    let src = r#"
import { FastMCP } from "fastmcp";
import { z } from "zod";
const server = new FastMCP({ name: "x", version: "1.0.0" });
server.addTool({
  name: "add",
  description: "Add two numbers",
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async (args) => String(args.a + args.b),
});
"#;
    let m = lower("server.ts", src).expect("lowers");
    assert_eq!(names(&m), vec![(EntityKind::Tool, "add".to_string())]);
    let e = &m.entry_points[0];
    assert_eq!(e.description.as_deref(), Some("Add two numbers"));
    assert_eq!(
        e.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        vec!["a", "b"]
    );
}

#[test]
fn template_literals_methods_and_this_lower_to_the_shared_shapes() {
    let src = r#"
class Api {
  base = "https://example.com";
  constructor(token: string) { this.token = token; }
  async get(path: string) { return fetch(`${this.base}/v1/${path}`); }
}
"#;
    let m = lower("api.ts", src).expect("lowers");
    let get = m.function_by_qualname("Api.get").expect("method");
    assert_eq!(m.functions[get].params[0].name, "this");
    let init = m
        .function_by_qualname("Api.constructor")
        .expect("constructor");
    // The field initialiser runs in the constructor, before its body.
    assert!(matches!(
        &m.functions[init].body[0].kind,
        StmtKind::Assign { .. }
    ));
    let ret = format!("{:?}", m.functions[get].body);
    assert!(ret.contains("FormatStr"), "{ret}");
    let StmtKind::Return(Some(e)) = &m.functions[get].body[0].kind else {
        panic!("return");
    };
    let ExprKind::Call { callee, .. } = &e.kind else {
        panic!("call")
    };
    assert_eq!(callee.dotted_path().as_deref(), Some("fetch"));
}

#[test]
fn syntax_errors_are_reported_not_swallowed() {
    let r = lower("bad.ts", "const x = ;\nfunction (");
    assert!(matches!(r, Err(LowerError::Syntax { .. })), "{r:?}");
}

#[test]
fn compiled_commonjs_output_keeps_its_imports_and_registrations() {
    // What `tsc` emits for an ESM server compiled to CommonJS.
    let src = r#"
"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) { return (mod && mod.__esModule) ? mod : { "default": mod }; };
Object.defineProperty(exports, "__esModule", { value: true });
const mcp_js_1 = require("@modelcontextprotocol/sdk/server/mcp.js");
const fs_1 = __importDefault(require("fs"));
const zod_1 = require("zod");
const server = new mcp_js_1.McpServer({ name: "x", version: "1" });
server.tool("read", { p: zod_1.z.string() }, async ({ p }) => ({ content: [{ type: "text", text: fs_1.default.readFileSync(p, "utf8") }] }));
"#;
    let m = lower("dist/index.js", src).expect("lowers");
    assert_eq!(names(&m), vec![(EntityKind::Tool, "read".to_string())]);
    assert!(
        m.imports
            .iter()
            .any(|i| i.local == "fs_1" && i.module == "fs" && i.symbol.is_none())
    );
    let text = format!("{:?}", m.functions);
    assert!(
        !text.contains("attr: \"default\""),
        "fs_1.default is the package: {text}"
    );
}

#[test]
fn a_server_exported_by_one_file_counts_in_the_files_importing_it() {
    let server = r#"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
export const server = new McpServer({ name: "x", version: "1" });
"#;
    let tools = r#"
import { server } from "./server.js";
import { TOOLS } from "./table.js";
server.tool("fixed", "A fixed tool.", async () => ({ content: [] }));
for (const t of TOOLS) {
  server.tool(t.name, t.description, t.handler);
}
"#;
    let a = TypeScriptAdapter
        .lower("src/server.ts", server)
        .expect("lowers");
    let b = TypeScriptAdapter
        .lower("src/tools.ts", tools)
        .expect("lowers");
    let mut mods = [a, b];
    let crate::Resolution {
        registration_sites: sites,
        gaps,
        ..
    } = resolve_modules(&mut mods);
    assert_eq!(
        names(&mods[1]),
        vec![(EntityKind::Tool, "fixed".to_string())]
    );
    assert_eq!(sites, 2);
    // The loop registers tools whose names are computed: a gap, not silence.
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert_eq!(gaps[0].kind, mcp_scan_core::GapKind::UnresolvedRegistration);
    assert_eq!(gaps[0].file.as_deref(), Some("src/tools.ts"));
}

#[test]
fn a_low_level_handler_map_splits_per_key() {
    let src = r#"
const { Server } = require("@modelcontextprotocol/sdk/server/index.js");
const { CallToolRequestSchema } = require("@modelcontextprotocol/sdk/types.js");
const { execSync } = require("child_process");
const server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
const handlers = {
  status: async (args) => ({ content: [{ type: "text", text: "ok" }] }),
  run: async (args) => ({ content: [{ type: "text", text: String(execSync(args.cmd)) }] }),
};
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const handler = handlers[request.params.name];
  if (!handler) throw new Error("unknown tool");
  return handler(request.params.arguments);
});
"#;
    let m = lower("server.js", src).expect("lowers");
    assert_eq!(
        names(&m),
        vec![
            (EntityKind::Tool, "run".to_string()),
            (EntityKind::Tool, "status".to_string())
        ]
    );
    let run = m.entry_points.iter().find(|e| e.name == "run").unwrap();
    let status = m.entry_points.iter().find(|e| e.name == "status").unwrap();
    assert_ne!(run.function, status.function);
}

#[test]
fn a_dispatcher_the_scan_cannot_split_is_a_gap_not_a_safe_tool() {
    let src = r#"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { dispatch } from "./dispatch.js";
const server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, wrap(async (request) => dispatch(request.params.name, request.params.arguments)));
"#;
    let m = TypeScriptAdapter
        .lower("src/index.ts", src)
        .expect("lowers");
    let mut mods = [m];
    let crate::Resolution {
        registration_sites: sites,
        gaps,
        ..
    } = resolve_modules(&mut mods);
    assert_eq!(sites, 1);
    assert!(mods[0].entry_points.is_empty(), "{:?}", names(&mods[0]));
    assert_eq!(gaps.len(), 1, "{gaps:?}");
    assert!(
        gaps[0].reason.contains("not split per tool"),
        "{}",
        gaps[0].reason
    );
}

#[test]
fn a_handler_map_built_from_spread_maps_splits_per_key() {
    let src = r#"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
const A = { a_one: async (req) => 1 };
const B = { b_two: async (req) => 2 };
const TOOL_HANDLERS = { ...A, ...B };
const server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  if (TOOL_HANDLERS[request.params.name]) {
    return await TOOL_HANDLERS[request.params.name](request);
  }
  throw new Error("Unknown tool");
});
"#;
    let m = lower("index.ts", src).expect("lowers");
    assert_eq!(
        names(&m),
        vec![
            (EntityKind::Tool, "a_one".to_string()),
            (EntityKind::Tool, "b_two".to_string())
        ]
    );
}

#[test]
fn tool_names_from_a_constant_table_resolve() {
    let src = r#"
const REPO_TOOLS = { repo_list: "repo_list", repo_get: "repo_get" };
export function configureRepoTools(server) {
  server.tool(REPO_TOOLS.repo_list, "Lists repositories.", {}, async () => ({ content: [] }));
  server.tool(pickName(), "Computed.", {}, async () => ({ content: [] }));
}
"#;
    let m = TypeScriptAdapter
        .lower("dist/tools/repos.js", src)
        .expect("lowers");
    let mut mods = [m];
    let gaps = resolve_modules(&mut mods).gaps;
    assert_eq!(
        names(&mods[0]),
        vec![(EntityKind::Tool, "repo_list".to_string())]
    );
    // The computed name on a registration-shaped call is a gap, not silence.
    assert_eq!(gaps.len(), 1, "{gaps:?}");
}

#[test]
fn a_handler_map_from_object_from_entries_splits_per_entry() {
    let src = r#"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
async function first(args) { return 1; }
const HANDLERS = Object.fromEntries([["first_tool", first], ["second_tool", async (args) => 2]]);
const server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => HANDLERS[request.params.name](request.params.arguments));
"#;
    let m = lower("index.ts", src).expect("lowers");
    assert_eq!(
        names(&m),
        vec![
            (EntityKind::Tool, "first_tool".to_string()),
            (EntityKind::Tool, "second_tool".to_string())
        ]
    );
}

#[test]
fn a_handler_map_computed_at_run_time_stays_unsplit() {
    let src = r#"
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { plugins } from "some-plugin-host";
const HANDLERS = Object.fromEntries(plugins.map((p) => [p.name, p.run]));
const server = new Server({ name: "x", version: "1" }, { capabilities: { tools: {} } });
server.setRequestHandler(CallToolRequestSchema, async (request) => HANDLERS[request.params.name](request.params.arguments));
"#;
    let m = TypeScriptAdapter.lower("index.ts", src).expect("lowers");
    let mut mods = [m];
    let gaps = resolve_modules(&mut mods).gaps;
    assert!(mods[0].entry_points.is_empty(), "{:?}", names(&mods[0]));
    assert_eq!(gaps.len(), 1, "{gaps:?}");
}
