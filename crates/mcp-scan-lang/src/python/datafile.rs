//! Tool names read from a data file the server bundles (`config/tools.yaml`), for a low-level
//! dispatcher that looks its tools up in that file's list. A data file is data, not code: only
//! the names are read (the dispatcher's body is the handler analysed for each), JSON fully and
//! YAML in its block subset (mappings, sequences, plain and quoted scalars). Anything else
//! (flow collections holding the list, anchors, several documents) reads as nothing, so the
//! dispatcher stays a coverage gap.

use serde_json::{Map, Value};
use std::path::Path;

/// Largest data file read for names.
const MAX_DATA_BYTES: u64 = 1 << 20;

/// `a/b/../c` → `a/c`; `None` when the path leaves the root or is absolute.
pub(crate) fn normalize(path: &str) -> Option<String> {
    normalize_dir(path).filter(|p| !p.is_empty())
}

/// The parent directory of a relative path (`""` for a file at the root).
/// Like [`normalize`] for a folder, where the scanned root itself is `""`.
pub(crate) fn normalize_dir(path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    Some(out.join("/"))
}

pub(crate) fn parent(path: &str) -> String {
    path.rsplit_once('/')
        .map(|(d, _)| d.to_string())
        .unwrap_or_default()
}

pub(crate) fn join(base: &str, rest: &str) -> String {
    if base.is_empty() {
        rest.to_string()
    } else if rest.is_empty() {
        base.to_string()
    } else {
        format!("{base}/{rest}")
    }
}

/// The values of `field` in the list at `keys` of the data file `rel` under `root`; `None`
/// when the file is missing, outside the root, too large, not JSON/YAML or has no such list.
pub(crate) fn names_in(
    root: &Path,
    rel: &str,
    keys: &[String],
    field: &str,
) -> Option<Vec<String>> {
    let rel = normalize(rel)?;
    let path = root.join(&rel);
    let canon = path.canonicalize().ok()?;
    let root_canon = root.canonicalize().ok()?;
    if !canon.starts_with(&root_canon) || std::fs::metadata(&canon).ok()?.len() > MAX_DATA_BYTES {
        return None;
    }
    let text = std::fs::read_to_string(&canon).ok()?;
    let doc = match rel.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()) {
        Some(e) if e == "json" => serde_json::from_str(&text).ok()?,
        Some(e) if e == "yaml" || e == "yml" => parse_yaml(&text)?,
        _ => return None,
    };
    let mut at = &doc;
    for k in keys {
        at = at.get(k)?;
    }
    let names: Vec<String> = at
        .as_array()?
        .iter()
        .filter_map(|el| el.get(field)?.as_str().map(str::to_string))
        .collect();
    (!names.is_empty()).then_some(names)
}

struct Line<'t> {
    indent: usize,
    text: &'t str,
}

/// A block-style YAML document as JSON values (scalars as strings).
pub(crate) fn parse_yaml(text: &str) -> Option<Value> {
    let mut lines = Vec::new();
    for raw in text.lines() {
        let body = strip_comment(raw);
        let trimmed = body.trim_end();
        if trimmed.trim().is_empty() {
            continue;
        }
        let t = trimmed.trim_start();
        if t == "---" && lines.is_empty() {
            continue;
        }
        if t == "---" || t == "..." || t.starts_with('&') || t.starts_with('*') {
            return None;
        }
        lines.push(Line {
            indent: trimmed.len() - t.len(),
            text: t,
        });
    }
    let mut pos = 0;
    let v = block(&lines, &mut pos, 0)?;
    (pos == lines.len()).then_some(v)
}

fn strip_comment(line: &str) -> &str {
    let (mut single, mut double) = (false, false);
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && (prev == ' ' || prev == '\t' || i == 0) => {
                return &line[..i];
            }
            _ => {}
        }
        prev = c;
    }
    line
}

/// The node starting at `lines[*pos]`, whose lines are indented at least `min`.
fn block(lines: &[Line], pos: &mut usize, min: usize) -> Option<Value> {
    let first = lines.get(*pos)?;
    if first.indent < min {
        return None;
    }
    let indent = first.indent;
    if first.text == "-" || first.text.starts_with("- ") {
        let mut items = Vec::new();
        while let Some(l) = lines.get(*pos) {
            if l.indent != indent || !(l.text == "-" || l.text.starts_with("- ")) {
                break;
            }
            let rest = l.text[1..].trim_start();
            if rest.is_empty() {
                *pos += 1;
                items.push(child(lines, pos, indent)?);
            } else {
                // `- name: x` opens a mapping whose keys sit at the column after `- `.
                let col = indent + (l.text.len() - rest.len());
                items.push(inline_item(lines, pos, col, rest)?);
            }
        }
        return Some(Value::Array(items));
    }
    let mut map = Map::new();
    while let Some(l) = lines.get(*pos) {
        if l.indent != indent {
            if l.indent > indent {
                return None;
            }
            break;
        }
        let (k, v) = split_key(l.text)?;
        *pos += 1;
        let value = if v.is_empty() {
            child(lines, pos, indent)?
        } else {
            scalar_or_skip(lines, pos, indent, v)?
        };
        map.insert(k, value);
    }
    Some(Value::Object(map))
}

/// The nested node after a `key:` or `-` with nothing on its line (null when none follows).
fn child(lines: &[Line], pos: &mut usize, parent: usize) -> Option<Value> {
    match lines.get(*pos) {
        Some(n) if n.indent > parent => block(lines, pos, parent + 1),
        // A sequence may sit at its key's own indentation.
        Some(n) if n.indent == parent && (n.text == "-" || n.text.starts_with("- ")) => {
            block(lines, pos, parent)
        }
        _ => Some(Value::Null),
    }
}

/// `- key: value` followed by more keys of the same item at column `col`.
fn inline_item(lines: &[Line], pos: &mut usize, col: usize, rest: &str) -> Option<Value> {
    let Some((k, v)) = split_key(rest) else {
        *pos += 1;
        return scalar_or_skip(lines, pos, col.saturating_sub(1), rest);
    };
    *pos += 1;
    let mut map = Map::new();
    let value = if v.is_empty() {
        child(lines, pos, col)?
    } else {
        scalar_or_skip(lines, pos, col, v)?
    };
    map.insert(k, value);
    while let Some(l) = lines.get(*pos) {
        if l.indent != col {
            break;
        }
        let (k, v) = split_key(l.text)?;
        *pos += 1;
        let value = if v.is_empty() {
            child(lines, pos, col)?
        } else {
            scalar_or_skip(lines, pos, col, v)?
        };
        map.insert(k, value);
    }
    Some(Value::Object(map))
}

/// A scalar; block scalars (`|`, `>`) and multi-line plain scalars take their more-indented
/// continuation lines (kept only as text). Flow collections are kept as their text.
fn scalar_or_skip(lines: &[Line], pos: &mut usize, indent: usize, v: &str) -> Option<Value> {
    let mut text = unquote(v)?;
    let block_scalar = v.starts_with('|') || v.starts_with('>');
    if block_scalar {
        text.clear();
    }
    while let Some(l) = lines.get(*pos) {
        if l.indent <= indent {
            break;
        }
        if !block_scalar && (l.text.starts_with("- ") || split_key(l.text).is_some()) {
            return None;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(l.text);
        *pos += 1;
    }
    Some(Value::String(text))
}

fn split_key(text: &str) -> Option<(String, &str)> {
    let (k, v) = if let Some(q) = text.strip_prefix('"') {
        let end = q.find('"')?;
        let after = q[end + 1..].strip_prefix(':')?;
        (q[..end].to_string(), after)
    } else if let Some(q) = text.strip_prefix('\'') {
        let end = q.find('\'')?;
        let after = q[end + 1..].strip_prefix(':')?;
        (q[..end].to_string(), after)
    } else {
        let i = text
            .find(": ")
            .or_else(|| text.strip_suffix(':').map(|s| s.len()))?;
        let k = &text[..i];
        if k.contains(['{', '[', '"', '\'']) {
            return None;
        }
        (k.trim().to_string(), &text[i + 1..])
    };
    if !(v.is_empty() || v.starts_with(' ')) {
        return None;
    }
    Some((k, v.trim()))
}

fn unquote(v: &str) -> Option<String> {
    if let Some(q) = v.strip_prefix('"') {
        return Some(q.strip_suffix('"').unwrap_or(q).replace("\\\"", "\""));
    }
    if let Some(q) = v.strip_prefix('\'') {
        return Some(q.strip_suffix('\'').unwrap_or(q).replace("''", "'"));
    }
    if v.starts_with('&') || v.starts_with('*') || v.starts_with('!') {
        return None;
    }
    Some(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_yaml_lists_of_mappings_read_as_json() {
        let v = parse_yaml(
            "name: svc # the service\nbase_url: \"https://x\"\ntools:\n  - name: enrich\n    description: >\n      Enrich a\n      company.\n    parameters:\n      - name: domain\n        type: string\n  - name: 'search'\n    endpoint: /s\nauth:\n  header: X\n",
        )
        .expect("parses");
        let names: Vec<&str> = v["tools"]
            .as_array()
            .expect("list")
            .iter()
            .map(|t| t["name"].as_str().expect("name"))
            .collect();
        assert_eq!(names, ["enrich", "search"]);
        assert_eq!(v["tools"][0]["parameters"][0]["name"], "domain");
        assert_eq!(v["auth"]["header"], "X");
    }

    #[test]
    fn yaml_outside_the_block_subset_reads_as_nothing() {
        assert!(parse_yaml("a: &x 1\nb: *x\n").is_none());
        assert!(parse_yaml("a: 1\n---\nb: 2\n").is_none());
        assert!(parse_yaml("a:\n  - x\n   bad: 1\n").is_none());
    }

    #[test]
    fn paths_are_normalized_inside_the_root() {
        assert_eq!(
            normalize("src/../config/t.yaml").as_deref(),
            Some("config/t.yaml")
        );
        assert_eq!(normalize("../etc/passwd"), None);
        assert_eq!(normalize("/etc/passwd"), None);
    }
}
