//! IR dumps of small Python sources covering every lowered construct. Spans are shortened to
//! `line:col` so the snapshots stay readable; byte offsets are checked separately.

use mcp_scan_ir::{ExprKind, Module, StmtKind, StrPart};
use mcp_scan_lang::python;
use serde_json::Value;

fn compact(v: Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                if k == "span" {
                    let line = v.get("start_line").and_then(Value::as_u64).unwrap_or(0);
                    let col = v.get("start_col").and_then(Value::as_u64).unwrap_or(0);
                    out.insert("at".into(), Value::String(format!("{line}:{col}")));
                } else {
                    out.insert(k, compact(v));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(compact).collect()),
        other => other,
    }
}

fn dump(rel: &str, src: &str) -> (Module, Value) {
    let m = python::lower(rel, src).unwrap_or_else(|e| panic!("{e}"));
    let v = compact(serde_json::to_value(&m).expect("serialisable"));
    (m, v)
}

#[test]
fn lowers_statements_imports_and_control_flow() {
    let (_, v) = dump(
        "pkg/sub/statements.py",
        include_str!("python_ir/statements.py"),
    );
    insta::assert_yaml_snapshot!(v);
}

#[test]
fn lowers_expressions_strings_and_comprehensions() {
    let (_, v) = dump("expressions.py", include_str!("python_ir/expressions.py"));
    insta::assert_yaml_snapshot!(v);
}

#[test]
fn lowers_classes_methods_closures_and_lambdas() {
    let (_, v) = dump("pkg/__init__.py", include_str!("python_ir/classes.py"));
    insta::assert_yaml_snapshot!(v);
}

fn top_assign<'m>(m: &'m Module, name: &str) -> &'m ExprKind {
    m.functions[0]
        .body
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::Assign { targets, value }
                if targets[0].dotted_path().as_deref() == Some(name) =>
            {
                Some(&value.kind)
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no assignment to {name}"))
}

#[test]
fn string_literals_are_decoded_and_implicit_concatenation_joined() {
    let (m, _) = dump("expressions.py", include_str!("python_ir/expressions.py"));
    assert_eq!(top_assign(&m, "joined"), &ExprKind::Str("abc".into()));
    assert_eq!(top_assign(&m, "raw"), &ExprKind::Str(r"C:\path\n".into()));
    assert_eq!(
        top_assign(&m, "esc"),
        &ExprKind::Str("tab\tnew\nline A".into())
    );
    assert_eq!(top_assign(&m, "data"), &ExprKind::Bytes("\0bytes".into()));
    let ExprKind::FormatStr(parts) = top_assign(&m, "mixed") else {
        panic!("mixed is a format string");
    };
    assert!(matches!(&parts[0], StrPart::Lit(s) if s == "pre-"));
    assert!(matches!(&parts[1], StrPart::Expr(e) if e.dotted_path().as_deref() == Some("name")));
    assert!(matches!(&parts[2], StrPart::Lit(s) if s == "-postfix"));
    let ExprKind::FormatStr(parts) = top_assign(&m, "braces") else {
        panic!("braces is a format string");
    };
    assert!(matches!(&parts[0], StrPart::Lit(s) if s == "{literal} "));
}

#[test]
fn spans_point_at_the_source_text() {
    let src = include_str!("python_ir/expressions.py");
    let (m, _) = dump("expressions.py", src);
    let call = m.functions[0]
        .body
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::Assign { value, .. }
                if matches!(value.kind, ExprKind::Call { .. }) && value.span.start_line == 26 =>
            {
                Some(value)
            }
            _ => None,
        })
        .expect("requests.post call on line 26");
    assert_eq!(
        &src[call.span.start_byte..call.span.end_byte],
        "requests.post(url, data=payload, *args, **kwargs)"
    );
    assert_eq!(call.span.start_col, 8);
}

#[test]
fn relative_imports_resolve_against_the_module_name() {
    let (m, _) = dump(
        "pkg/sub/statements.py",
        include_str!("python_ir/statements.py"),
    );
    let got: Vec<_> = m
        .imports
        .iter()
        .map(|i| (i.local.as_str(), i.module.as_str(), i.symbol.as_deref()))
        .collect();
    assert_eq!(
        got,
        [
            ("os", "os", None),
            ("os", "os", None),
            ("sp", "subprocess", None),
            ("Path", "pathlib", Some("Path")),
            ("sibling", "pkg.sub", Some("sibling")),
            ("s", "pkg.util", Some("send")),
            ("*", "pkg.helpers", Some("*")),
        ]
    );
    assert_eq!(m.name, "pkg.sub.statements");
}
