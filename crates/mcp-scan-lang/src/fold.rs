//! Constant folding, argument binding and declared parameters over the IR, shared by the
//! adapters' entry-point passes: module constants, strings built from constants, the argument
//! bound to a parameter, JSON-Schema `properties` → declared parameters.

use crate::strings::clean_doc;
use mcp_scan_core::DeclaredParam;
use mcp_scan_ir::{Arg, Expr, ExprKind, Module, StmtKind, StrPart};
use std::collections::HashMap;

/// Module-level string constants, in order (`DESC = "..."`, `FULL = PREFIX + DESC`).
pub(crate) fn module_constants(module: &Module) -> HashMap<String, String> {
    let mut consts = HashMap::new();
    let Some(top) = module.functions.first() else {
        return consts;
    };
    for s in &top.body {
        if let StmtKind::Assign { targets, value } = &s.kind
            && let [
                Expr {
                    kind: ExprKind::Name(n),
                    ..
                },
            ] = targets.as_slice()
        {
            match const_str(value, &consts) {
                Some(v) => {
                    consts.insert(n.clone(), v);
                }
                None => {
                    consts.remove(n);
                }
            }
        }
    }
    // Class-level constants of module-level classes (`class Tools(str, Enum): STATUS = "x"`),
    // as `Tools.STATUS`.
    for f in &module.functions {
        let (Some(class), None, "<body>") = (&f.class, f.parent, f.name.as_str()) else {
            continue;
        };
        for s in &f.body {
            if let StmtKind::Assign { targets, value } = &s.kind
                && let [
                    Expr {
                        kind: ExprKind::Name(n),
                        ..
                    },
                ] = targets.as_slice()
                && let Some(v) = const_str(value, &consts)
            {
                consts.insert(format!("{class}.{n}"), v);
            }
        }
    }
    consts
}

/// A string expression resolved through constants: literals, `+`, f-strings of constants,
/// `textwrap.dedent(...)`, `inspect.cleandoc(...)`, `"...".strip()`.
/// The known parts of a description built at run time (`"Search the repository." + suffix`):
/// what the tool says about itself is in them, the rest is added data.
pub(crate) fn known_text(e: &Expr, consts: &HashMap<String, String>) -> Option<String> {
    fn go(e: &Expr, consts: &HashMap<String, String>, depth: usize, out: &mut String) {
        if depth > 32 {
            return;
        }
        if let Some(s) = const_str(e, consts) {
            out.push_str(&s);
            return;
        }
        match &e.kind {
            ExprKind::Binary { op, left, right } if op == "+" => {
                go(left, consts, depth + 1, out);
                go(right, consts, depth + 1, out);
            }
            ExprKind::FormatStr(parts) => {
                for p in parts {
                    match p {
                        StrPart::Lit(s) => out.push_str(s),
                        StrPart::Expr(x) => go(x, consts, depth + 1, out),
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = String::new();
    go(e, consts, 0, &mut out);
    (!out.trim().is_empty()).then_some(out)
}

pub(crate) fn const_str(e: &Expr, consts: &HashMap<String, String>) -> Option<String> {
    const_str_depth(e, consts, 0)
}

fn const_str_depth(e: &Expr, consts: &HashMap<String, String>, depth: usize) -> Option<String> {
    if depth > 64 {
        return None;
    }
    match &e.kind {
        ExprKind::Str(s) => Some(s.clone()),
        ExprKind::Name(n) => consts.get(n).cloned(),
        // `Tools.STATUS` / `Tools.STATUS.value` (a str-valued enum member).
        ExprKind::Attribute { .. } => {
            let path = e.dotted_path()?;
            let path = path.strip_suffix(".value").unwrap_or(&path);
            consts.get(path).cloned()
        }
        ExprKind::Binary { op, left, right } if op == "+" => {
            let mut l = const_str_depth(left, consts, depth + 1)?;
            l.push_str(&const_str_depth(right, consts, depth + 1)?);
            Some(l)
        }
        ExprKind::FormatStr(parts) => {
            let mut out = String::new();
            for p in parts {
                match p {
                    StrPart::Lit(s) => out.push_str(s),
                    StrPart::Expr(x) => out.push_str(&const_str_depth(x, consts, depth + 1)?),
                }
            }
            Some(out)
        }
        ExprKind::Call { callee, args } => {
            let path = callee.dotted_path();
            match (path.as_deref(), &callee.kind, args.as_slice()) {
                (Some("textwrap.dedent" | "dedent" | "inspect.cleandoc" | "cleandoc"), _, [a])
                    if a.name.is_none() =>
                {
                    const_str_depth(&a.value, consts, depth + 1).map(|s| clean_doc(&s))
                }
                (_, ExprKind::Attribute { value, attr }, []) if attr == "strip" => {
                    const_str_depth(value, consts, depth + 1).map(|s| s.trim().to_string())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

pub(crate) fn kwarg<'a>(args: &'a [Arg], name: &str) -> Option<&'a Expr> {
    args.iter()
        .find(|a| a.name.as_deref() == Some(name))
        .map(|a| &a.value)
}

/// The argument bound to parameter `name` at positional index `pos`: passed by keyword, else the
/// `pos`-th plain positional argument (`*args`/`**kw` spreads are not followed).
pub(crate) fn bound_to<'a>(args: &'a [Arg], name: &str, pos: usize) -> Option<&'a Arg> {
    bound_to_at(args, name, Some(pos), false)
}

/// [`bound_to`] where the position may be unknown (`None`: a parameter filled implicitly, such
/// as `self` of a bound method, is bound by keyword only) and, with `leading`, only the plain
/// positional arguments before the first keyword or spread count (after `*args` a position is
/// unknown).
pub(crate) fn bound_to_at<'a>(
    args: &'a [Arg],
    name: &str,
    pos: Option<usize>,
    leading: bool,
) -> Option<&'a Arg> {
    let plain = |a: &&Arg| a.name.is_none() && !a.spread && !a.spread_keywords;
    args.iter()
        .find(|a| a.name.as_deref() == Some(name))
        .or_else(|| {
            let pos = pos?;
            match leading {
                true => args.iter().take_while(plain).nth(pos),
                false => args.iter().filter(plain).nth(pos),
            }
        })
}

pub(crate) fn first_positional(args: &[Arg]) -> Option<&Expr> {
    args.first()
        .filter(|a| a.name.is_none() && !a.spread && !a.spread_keywords)
        .map(|a| &a.value)
}

/// JSON-Schema `properties` of a literal dict → declared parameters.
pub(crate) fn schema_params(schema: &Expr, consts: &HashMap<String, String>) -> Vec<DeclaredParam> {
    let ExprKind::Dict(items) = &schema.kind else {
        return Vec::new();
    };
    let lookup = |items: &[(Option<Expr>, Expr)], key: &str| -> Option<Expr> {
        items
            .iter()
            .find(|(k, _)| k.as_ref().and_then(|k| const_str(k, consts)).as_deref() == Some(key))
            .map(|(_, v)| v.clone())
    };
    let Some(Expr {
        kind: ExprKind::Dict(props),
        ..
    }) = lookup(items, "properties")
    else {
        return Vec::new();
    };
    props
        .iter()
        .filter_map(|(k, v)| {
            let name = const_str(k.as_ref()?, consts)?;
            let (type_hint, description) = match &v.kind {
                ExprKind::Dict(fields) => (
                    lookup(fields, "type").and_then(|t| const_str(&t, consts)),
                    lookup(fields, "description").and_then(|t| const_str(&t, consts)),
                ),
                _ => (None, None),
            };
            Some(DeclaredParam {
                name,
                type_hint,
                description,
            })
        })
        .collect()
}
