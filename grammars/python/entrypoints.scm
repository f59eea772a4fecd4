; MCP entry-point sites in Python. Capture names are a contract with
; crates/mcp-scan-lang/src/python/entry.rs, listed in grammars/README.md.
; The query only locates candidates; Rust decides (through the imports and
; grammars/python/frameworks.toml) whether the object really is an MCP server.

; A server object: `mcp = FastMCP("notes")`, `server = Server("x", on_call_tool=handle)`,
; `app: MCPServer = MCPServer(...)`.
(assignment
  left: (identifier) @server.var
  right: (call
    function: [(identifier) (attribute)] @server.ctor
    arguments: (argument_list) @server.args)) @server.binding

; A decorated handler: `@mcp.tool()`, `@mcp.tool`, `@mcp.resource("notes://{id}")`,
; `@server.call_tool()`, `@server.list_tools()`.
(decorated_definition
  (decorator
    [
      (call
        function: (attribute
          object: (identifier) @registration.object
          attribute: (identifier) @registration.method))
      (attribute
        object: (identifier) @registration.object
        attribute: (identifier) @registration.method)
    ] @registration.decorator)
  definition: (function_definition) @handler.def) @registration

; An imperative registration: `mcp.add_tool(fn, name="x", description="...")`.
(call
  function: (attribute
    object: (identifier) @registration.object
    attribute: (identifier) @registration.method)
  arguments: (argument_list
    .
    [(identifier) (attribute)] @handler.ref)) @registration.call
