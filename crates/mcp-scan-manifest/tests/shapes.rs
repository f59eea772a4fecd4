//! Every manifest shape users have, and the errors bad input gets.

use mcp_scan_manifest::{load, load_with_limit, parse};

const TOOL_A: &str = r#"{"name": "add", "description": "Adds two numbers", "inputSchema": {"type": "object", "properties": {"a": {"type": "number", "description": "first"}}}}"#;
const TOOL_B: &str = r#"{"name": "sub", "description": "Subtracts"}"#;

fn names(text: &str) -> Vec<String> {
    let out = parse("t.json", "t", text);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    out.manifest.tools.iter().map(|t| t.name.clone()).collect()
}

#[test]
fn bare_tools_array_is_read() {
    assert_eq!(names(&format!("[{TOOL_A}, {TOOL_B}]")), ["add", "sub"]);
}

#[test]
fn json_lines_of_single_tool_objects_are_read() {
    assert_eq!(names(&format!("{TOOL_A}\n{TOOL_B}\n")), ["add", "sub"]);
}

#[test]
fn tools_list_result_is_read() {
    assert_eq!(
        names(&format!(r#"{{"tools": [{TOOL_A}], "nextCursor": null}}"#)),
        ["add"]
    );
}

#[test]
fn json_rpc_response_is_unwrapped() {
    let text = format!(r#"{{"jsonrpc": "2.0", "id": 2, "result": {{"tools": [{TOOL_B}]}}}}"#);
    assert_eq!(names(&text), ["sub"]);
}

#[test]
fn full_manifest_with_every_list_and_server_name_is_read() {
    let text = format!(
        r#"{{
  "name": "calc",
  "serverInfo": {{"name": "calc-info", "version": "1"}},
  "instructions": "Use the calculator.",
  "tools": [{TOOL_A}],
  "resources": [{{"name": "memo", "uri": "memo://x", "description": "notes"}}],
  "resourceTemplates": [{{"name": "page", "uriTemplate": "p://{{n}}", "description": "a page"}}],
  "prompts": [{{"name": "greet", "description": "Greets", "arguments": [{{"name": "who", "description": "person"}}]}}]
}}"#
    );
    let out = parse("calc.json", "fallback", &text);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let m = out.manifest;
    assert_eq!(m.server, "calc");
    assert_eq!(m.instructions.as_deref(), Some("Use the calculator."));
    assert_eq!(m.instructions_line, Some(4));
    assert_eq!(m.tools[0].line, Some(5));
    assert_eq!(m.resources[0].uri.as_deref(), Some("memo://x"));
    assert_eq!(m.resource_templates[0].uri.as_deref(), Some("p://{n}"));
    assert_eq!(
        m.prompts[0].arguments[0].description.as_deref(),
        Some("person")
    );
    assert_eq!(m.entity_count(), 4);
}

#[test]
fn server_name_falls_back_to_server_info_then_file_stem() {
    let out = parse(
        "x.json",
        "x",
        &format!(r#"{{"serverInfo": {{"name": "srv"}}, "tools": [{TOOL_B}]}}"#),
    );
    assert_eq!(out.manifest.server, "srv");
    let out = parse("x.json", "x", &format!("[{TOOL_B}]"));
    assert_eq!(out.manifest.server, "x");
}

#[test]
fn json_lines_of_responses_are_merged_with_lines() {
    let text = format!(
        "{}\n{}\n{}\n",
        r#"{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"lines"},"instructions":"hi"}}"#,
        format_args!(r#"{{"jsonrpc":"2.0","id":2,"result":{{"tools":[{TOOL_A},{TOOL_B}]}}}}"#),
        r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}"#,
    );
    let out = parse("l.jsonl", "l", &text);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    assert_eq!(out.manifest.server, "lines");
    assert_eq!(out.manifest.tools.len(), 2);
    assert_eq!(out.manifest.tools[1].line, Some(2));
}

#[test]
fn method_not_found_in_place_of_a_list_is_not_an_error() {
    let text = r#"{"name": "s", "tools": [], "resourceTemplates": {"code": -32601, "message": "Method not found"}}"#;
    let out = parse("s.json", "s", text);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
}

#[test]
fn malformed_json_names_line_and_column() {
    let text = "{\n  \"tools\": [\n    {\"name\": \"a\",}\n  ]\n}\n";
    let out = parse("bad.json", "bad", text);
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    let e = &out.errors[0];
    assert_eq!((e.line, e.column), (Some(3), Some(18)), "{e}");
    assert!(e.to_string().starts_with("bad.json:3:18: "), "{e}");
}

#[test]
fn bad_json_line_is_reported_and_later_lines_still_read() {
    let text = format!("[{TOOL_A}]\n{{\"tools\": [oops]}}\n[{TOOL_B}]\n");
    let out = parse("m.jsonl", "m", &text);
    assert_eq!(out.errors.len(), 1, "{:?}", out.errors);
    assert_eq!(out.errors[0].line, Some(2));
    assert_eq!(out.errors[0].column, Some(12));
    let names: Vec<_> = out.manifest.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "sub"]);
}

#[test]
fn unrecognised_shapes_and_nameless_tools_are_errors() {
    let out = parse("o.json", "o", r#"{"hello": 1}"#);
    assert!(
        out.errors[0].message.contains("unrecognised"),
        "{:?}",
        out.errors
    );
    let out = parse("o.json", "o", r#"[{"description": "x"}, 3]"#);
    assert_eq!(out.errors.len(), 2, "{:?}", out.errors);
    assert!(out.errors[0].message.contains("tools[0] has no `name`"));
    assert!(out.errors[1].message.contains("tools[1] is not an object"));
    let out = parse("o.json", "o", "42");
    assert!(
        out.errors[0]
            .message
            .contains("expected a JSON object or array")
    );
    let out = parse("o.json", "o", "  \n");
    assert!(out.errors[0].message.contains("empty"), "{:?}", out.errors);
}

#[test]
fn oversized_and_missing_files_get_clear_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("big.json");
    std::fs::write(&path, format!("[{TOOL_A}]")).expect("write");
    let p = path.to_string_lossy().into_owned();
    let out = load_with_limit(&p, 10);
    assert!(
        out.errors[0].message.contains("larger than"),
        "{:?}",
        out.errors
    );
    assert!(load(&p).errors.is_empty());
    let missing = dir.path().join("nope.json").to_string_lossy().into_owned();
    let out = load(&missing);
    assert!(
        out.errors[0].message.starts_with("cannot open"),
        "{:?}",
        out.errors
    );
    assert_eq!(out.manifest.server, "nope");
}

#[test]
fn invalid_utf8_is_reported_at_its_position() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("bin.json");
    std::fs::write(&path, b"[\n  {\"name\": \"a\xff\"}]").expect("write");
    let out = load(&path.to_string_lossy());
    let e = &out.errors[0];
    assert_eq!((e.line, e.column), (Some(2), Some(14)), "{e}");
    assert!(e.message.contains("UTF-8"));
}

#[test]
#[cfg_attr(
    not(shared_data),
    ignore = "needs ../shared/data beside the repository (CI has it)"
)]
fn every_benign_reference_manifest_parses_cleanly() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/manifests");
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{} must exist (shared benchmark data): {e}", dir.display()));
    let mut n = 0;
    for e in entries.flatten() {
        let out = load(&e.path().to_string_lossy());
        assert!(
            out.errors.is_empty(),
            "{}: {:?}",
            e.path().display(),
            out.errors
        );
        assert!(!out.manifest.tools.is_empty(), "{}", e.path().display());
        assert!(
            out.manifest.tools.iter().all(|t| t.line.is_some()),
            "{}",
            e.path().display()
        );
        n += 1;
    }
    assert!(n >= 10, "expected the 10 reference manifests, found {n}");
}

#[test]
fn entity_lines_stay_right_across_many_tools_and_keys_in_any_order() {
    let mut text = String::from("{\n  \"tools\": [\n");
    for i in 0..300 {
        let sep = if i + 1 < 300 { "," } else { "" };
        text.push_str(&format!(
            "    {{\"name\": \"t{i}\", \"description\": \"d\"}}{sep}\n"
        ));
    }
    text.push_str("  ],\n  \"instructions\": \"hi\",\n  \"name\": \"late\"\n}\n");
    let out = parse("m.json", "m", &text);
    assert!(out.errors.is_empty(), "{:?}", out.errors);
    let m = out.manifest;
    assert_eq!(m.server, "late");
    assert_eq!(m.tools[0].line, Some(3));
    assert_eq!(m.tools[299].line, Some(302));
    assert_eq!(m.instructions_line, Some(304));
}

#[test]
fn utf8_byte_order_mark_is_accepted() {
    assert_eq!(names(&format!("\u{feff}[{TOOL_A}]")), ["add"]);
}

#[test]
fn an_element_error_points_at_the_element_not_the_document() {
    let text = "{\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\n  \"tools\": [\n    {\"name\": \"a\"},\n    {\"name\": 5},\n    7\n  ],\n  \"prompts\": [\n    {}\n  ]\n}}\n";
    let out = parse("m.json", "m", text);
    let at: Vec<_> = out.errors.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(
        at,
        [(Some(4), Some(5)), (Some(5), Some(5)), (Some(8), Some(5))],
        "{:?}",
        out.errors
    );
}

#[test]
fn empty_listings_and_error_responses_warn_that_nothing_was_scanned() {
    for text in [
        "[]",
        r#"{"tools": []}"#,
        r#"{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}"#,
    ] {
        let out = parse("e.json", "e", text);
        assert!(out.errors.is_empty(), "{text}: {:?}", out.errors);
        assert_eq!(out.warnings.len(), 1, "{text}: {:?}", out.warnings);
        assert!(
            out.warnings[0].message.contains("nothing was scanned"),
            "{:?}",
            out.warnings
        );
    }
    // The twin: a listing with one tool has nothing to warn about.
    assert!(
        parse("t.json", "t", &format!("[{TOOL_A}]"))
            .warnings
            .is_empty()
    );
}

#[test]
fn a_client_configuration_gets_a_hint_of_what_to_run_instead() {
    let cases = [
        r#"{"mcpServers": {"files": {"command": "npx", "args": ["-y", "@x/fs"], "env": {"TOKEN": "s3cret"}}}}"#,
        r#"{"servers": {"files": {"type": "stdio", "command": "uvx", "args": ["pkg"]}}}"#,
        r#"{"editor.fontSize": 12, "mcp": {"servers": {"files": {"command": "uvx"}}}}"#,
    ];
    for text in cases {
        let out = parse("c.json", "c", text);
        assert_eq!(out.errors.len(), 1, "{text}: {:?}", out.errors);
        let msg = &out.errors[0].message;
        assert!(
            msg.contains("MCP client configuration") && msg.contains("mcp-scan dynamic"),
            "{msg}"
        );
        assert!(msg.contains("files") && !msg.contains("s3cret"), "{msg}");
    }
}

#[test]
fn dynamic_out_dir_manifest_is_read_whole_and_unknown_keys_warn() {
    // The shape `mcp-scan dynamic --out-dir` writes (snake_case keys).
    let text = format!(
        r#"{{"server_info": {{"name": "srv", "version": "1"}}, "tools": [{TOOL_A}],
            "resources": [], "resource_templates": [{{"name": "t", "uriTemplate": "file:///{{p}}"}}],
            "prompts": [], "tools_after_calls": [{TOOL_A}, {{"name": "add", "description": "changed"}}]}}"#
    );
    let out = parse("manifest.json", "manifest", &text);
    assert!(out.errors.is_empty() && out.warnings.is_empty(), "{out:?}");
    assert_eq!(out.manifest.server, "srv");
    assert_eq!(out.manifest.resource_templates.len(), 1);
    // The unchanged second listing adds nothing; the changed description is scanned too.
    let descs: Vec<_> = out
        .manifest
        .tools
        .iter()
        .map(|t| t.description.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(descs, ["Adds two numbers", "changed"]);

    let out = parse(
        "m.json",
        "m",
        &format!(r#"{{"tools": [{TOOL_A}], "extra_tools": []}}"#),
    );
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    assert!(out.warnings[0].message.contains("extra_tools"));
}
