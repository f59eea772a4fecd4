//! The texts of each entity, with field paths.

use mcp_scan_core::EntityKind;
use mcp_scan_manifest::Manifest;
use mcp_scan_rules::description::FieldClass;
use serde_json::Value;

/// One text of an entity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field<'a> {
    /// Path within the entity, e.g. `inputSchema.properties.path.description`.
    pub path: String,
    pub class: FieldClass,
    pub text: &'a str,
}

impl<'a> Field<'a> {
    pub fn new(path: String, class: FieldClass, text: &'a str) -> Self {
        Field { path, class, text }
    }
}

/// One entity and its fields.
pub(crate) struct EntityFields<'a> {
    pub kind: EntityKind,
    pub name: &'a str,
    pub declared: Option<&'a str>,
    pub line: Option<u32>,
    pub fields: Vec<Field<'a>>,
    /// Names of the entity's own parameters (top-level `inputSchema.properties`).
    pub params: Vec<&'a str>,
}

pub(crate) fn entities(m: &Manifest) -> Vec<EntityFields<'_>> {
    let mut out = Vec::with_capacity(m.entity_count() + 1);
    if let Some(instr) = &m.instructions {
        out.push(EntityFields {
            kind: EntityKind::Server,
            name: &m.server,
            declared: Some(instr),
            line: m.instructions_line,
            fields: vec![Field::new("instructions".into(), FieldClass::Text, instr)],
            params: Vec::new(),
        });
    }
    for t in &m.tools {
        let mut fields = common(&t.name, t.title.as_deref(), t.description.as_deref());
        schema_fields("inputSchema", &t.input_schema, &mut fields, 0);
        schema_fields("annotations", &t.annotations, &mut fields, 0);
        schema_fields("outputSchema", &t.output_schema, &mut fields, 0);
        out.push(EntityFields {
            kind: EntityKind::Tool,
            name: &t.name,
            declared: t.description.as_deref(),
            line: t.line,
            fields,
            params: t
                .input_schema
                .get("properties")
                .and_then(Value::as_object)
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default(),
        });
    }
    for (kind, list) in [
        (EntityKind::Resource, &m.resources),
        (EntityKind::ResourceTemplate, &m.resource_templates),
    ] {
        for r in list {
            out.push(EntityFields {
                kind,
                name: &r.name,
                declared: r.description.as_deref(),
                line: r.line,
                fields: common(&r.name, r.title.as_deref(), r.description.as_deref()),
                params: Vec::new(),
            });
        }
    }
    for p in &m.prompts {
        let mut fields = common(&p.name, p.title.as_deref(), p.description.as_deref());
        for (i, a) in p.arguments.iter().enumerate() {
            fields.push(Field::new(
                format!("arguments[{i}].name"),
                FieldClass::Name,
                &a.name,
            ));
            if let Some(t) = &a.title {
                fields.push(Field::new(
                    format!("arguments[{i}].title"),
                    FieldClass::Text,
                    t,
                ));
            }
            if let Some(d) = &a.description {
                fields.push(Field::new(
                    format!("arguments[{i}].description"),
                    FieldClass::Text,
                    d,
                ));
            }
        }
        out.push(EntityFields {
            kind: EntityKind::Prompt,
            name: &p.name,
            declared: p.description.as_deref(),
            line: p.line,
            fields,
            params: p.arguments.iter().map(|a| a.name.as_str()).collect(),
        });
    }
    out
}

/// The fields of a tool given as name, title and description.
pub fn entity_fields<'a>(
    name: &'a str,
    title: Option<&'a str>,
    description: Option<&'a str>,
    input_schema: &'a Value,
) -> Vec<Field<'a>> {
    let mut fields = common(name, title, description);
    schema_fields("inputSchema", input_schema, &mut fields, 0);
    fields
}

fn common<'a>(
    name: &'a str,
    title: Option<&'a str>,
    description: Option<&'a str>,
) -> Vec<Field<'a>> {
    let mut v = vec![Field::new("name".into(), FieldClass::Name, name)];
    if let Some(t) = title {
        v.push(Field::new("title".into(), FieldClass::Text, t));
    }
    if let Some(d) = description {
        v.push(Field::new("description".into(), FieldClass::Text, d));
    }
    v
}

/// Keys whose string values are machine syntax, not text a model reads as prose.
const SKIP_KEYS: [&str; 6] = ["type", "$schema", "$ref", "$id", "format", "pattern"];
/// What `type` may say. Anything else in a `type` is text the model reads ("string IMPORTANT: …").
const JSON_TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];
/// Whether the value of a machine-syntax key is that syntax, not prose the model reads: a
/// `type` names a JSON type, a `format` is one token (`date-time`, `uri`), and a `pattern` or
/// an id is whatever it is unless it reads as a sentence ("before geocoding, call …").
fn machine_syntax(key: &str, value: &str) -> bool {
    match key {
        "type" => JSON_TYPES.contains(&value),
        "format" => !value.trim().contains(char::is_whitespace),
        _ => !reads_as_sentence(value),
    }
}

/// Four or more words of letters in a row separated by single spaces: prose, not a regex or
/// an identifier (`^[a-z]+ [0-9]+$` has no such run).
fn reads_as_sentence(value: &str) -> bool {
    let mut run = 0;
    for w in value.split(' ') {
        let w = w.trim_end_matches([',', '.', ';', ':']);
        if w.len() >= 2 && w.chars().all(|c| c.is_ascii_alphabetic() || c == '\'') {
            run += 1;
            if run >= 4 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Schemas nest; a bound keeps hostile input from recursing without end.
const MAX_DEPTH: usize = 64;

fn schema_fields<'a>(path: &str, v: &'a Value, out: &mut Vec<Field<'a>>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        Value::String(s) => out.push(Field::new(path.to_string(), FieldClass::Text, s)),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                schema_fields(&format!("{path}[{i}]"), item, out, depth + 1);
            }
        }
        Value::Object(obj) => {
            let is_props = path.ends_with(".properties") || path.ends_with(".patternProperties");
            for (k, val) in obj {
                let p = format!("{path}.{k}");
                if is_props {
                    // Property names are identifiers the model fills in.
                    out.push(Field::new(p.clone(), FieldClass::Name, k));
                } else if SKIP_KEYS.contains(&k.as_str())
                    && val.as_str().is_some_and(|t| machine_syntax(k, t))
                {
                    continue;
                }
                schema_fields(&p, val, out, depth + 1);
            }
        }
        _ => {}
    }
}
