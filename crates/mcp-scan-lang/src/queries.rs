//! Queries and framework models kept as data under `grammars/<lang>/`, embedded at build time and
//! compiled (raw → compiled) with file and line in every error.
//!
//! Capture names are a contract between the `.scm` files and the Rust that reads the matches:
//! [`CAPTURE_NAMES`] lists them and `grammars/README.md` documents them; a test compiles every
//! query and rejects names outside the contract.

use crate::{LowerError, ServerStyle};
use mcp_scan_core::EntityKind;
use serde::Deserialize;
use std::collections::HashSet;
use std::sync::OnceLock;
use tree_sitter::Query;

/// Every capture name a query may use. Keep in sync with `grammars/README.md` (a test checks).
pub const CAPTURE_NAMES: &[&str] = &[
    "server.binding",
    "server.var",
    "server.ctor",
    "server.args",
    "registration",
    "registration.call",
    "registration.decorator",
    "registration.object",
    "registration.method",
    "handler.def",
    "handler.ref",
];

/// An embedded query file.
#[derive(Debug, Clone, Copy)]
pub struct QueryFile {
    pub language: &'static str,
    /// Path relative to the repository root, for errors.
    pub path: &'static str,
    pub source: &'static str,
}

/// Every query of every adapter (each adapter lists its own, see
/// [`crate::LanguageAdapter::queries`]).
pub fn query_files() -> Vec<&'static QueryFile> {
    crate::adapters().iter().flat_map(|a| a.queries()).collect()
}

/// The tree-sitter language a query file is written for, from the adapter that owns it.
pub fn ts_language(language: &str) -> Option<tree_sitter::Language> {
    crate::adapters().iter().find_map(|a| a.grammar(language))
}

/// Compiles a query file, checking its capture names against [`CAPTURE_NAMES`].
pub fn compile(file: &QueryFile) -> Result<Query, LowerError> {
    let lang = ts_language(file.language).ok_or_else(|| LowerError::Query {
        file: file.path.to_string(),
        line: 0,
        column: 0,
        message: format!("no grammar for language {:?}", file.language),
    })?;
    let query = Query::new(&lang, file.source).map_err(|e| LowerError::Query {
        file: file.path.to_string(),
        line: e.row as u32 + 1,
        column: e.column as u32 + 1,
        message: format!("{:?}: {}", e.kind, e.message),
    })?;
    for name in query.capture_names() {
        if !CAPTURE_NAMES.contains(name) {
            let (line, column) = locate(file.source, &format!("@{name}"));
            return Err(LowerError::Query {
                file: file.path.to_string(),
                line,
                column,
                message: format!(
                    "capture @{name} is not in the capture-name contract (grammars/README.md)"
                ),
            });
        }
    }
    Ok(query)
}

fn locate(source: &str, needle: &str) -> (u32, u32) {
    match source.find(needle) {
        Some(pos) => {
            let before = &source[..pos];
            let line = before.matches('\n').count() as u32 + 1;
            let column = (pos - before.rfind('\n').map(|i| i + 1).unwrap_or(0)) as u32 + 1;
            (line, column)
        }
        None => (0, 0),
    }
}

/// A query file compiled once per process: `slot` is the caller's cache.
pub fn compiled(
    slot: &'static OnceLock<Result<Query, LowerError>>,
    file: &QueryFile,
) -> Result<&'static Query, LowerError> {
    slot.get_or_init(|| compile(file))
        .as_ref()
        .map_err(Clone::clone)
}

// ------------------------------------------------------------------ framework model

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFrameworks {
    server: Vec<RawServer>,
    #[serde(default)]
    server_class: Vec<RawServerClass>,
    registration: Vec<RawRegistration>,
    low_level: RawLowLevel,
    #[serde(default)]
    mixin: Option<RawMixin>,
    #[serde(default)]
    standalone: Option<RawStandalone>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStandalone {
    markers: std::collections::BTreeMap<String, String>,
    packages: Vec<String>,
    provider_classes: Vec<String>,
    root_keyword: String,
    providers_keyword: String,
    add_provider_methods: Vec<String>,
    namespace_keyword: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMixin {
    packages: Vec<String>,
    markers: std::collections::BTreeMap<String, String>,
    register_methods: Vec<String>,
    prefix_keyword: String,
    separator_keyword: String,
    default_separator: String,
}

/// Mixin classes whose methods carry a marker decorator and are registered together by a
/// method of the instance (`obj.register_all(server, prefix="p")`).
#[derive(Debug, Clone)]
pub struct Mixin {
    pub packages: Vec<String>,
    /// Marker decorator name → what it registers.
    pub markers: Vec<(String, EntityKind)>,
    pub register_methods: Vec<String>,
    pub prefix_keyword: String,
    pub separator_keyword: String,
    pub default_separator: String,
}

/// Standalone component decorators (`from fastmcp.tools import tool`) that only mark a module
/// function; a provider that imports every file under a folder serves the marked ones once a
/// server is handed the provider.
#[derive(Debug, Clone)]
pub struct Standalone {
    /// Canonical decorator path → what it marks.
    pub markers: Vec<(String, EntityKind)>,
    /// Packages the provider classes come from (any module of them).
    pub packages: Vec<String>,
    /// Provider classes by last name (`FileSystemProvider`).
    pub provider_classes: Vec<String>,
    /// The provider constructor's folder argument (keyword, else the first positional).
    pub root_keyword: String,
    /// The server constructor's keyword taking a list of providers.
    pub providers_keyword: String,
    /// Server methods adding one provider (`add_provider(p, namespace="x")`).
    pub add_provider_methods: Vec<String>,
    pub namespace_keyword: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServer {
    callee: String,
    style: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawServerClass {
    name: String,
    style: String,
    packages: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRegistration {
    method: String,
    kind: String,
    #[serde(default)]
    positional: Option<String>,
    #[serde(default)]
    imperative: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLowLevel {
    dispatcher_methods: Vec<String>,
    dispatcher_keywords: Vec<String>,
    listing_methods: Vec<String>,
    listing_keywords: Vec<String>,
    #[serde(default)]
    request_methods: Vec<String>,
    #[serde(default)]
    dispatcher_requests: Vec<String>,
    #[serde(default)]
    inner_server_attributes: Vec<String>,
    tool_declarations: Vec<String>,
    name_keyword: String,
    description_keyword: String,
    schema_keywords: Vec<String>,
}

/// What a first positional string argument of a registration names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positional {
    Name,
    Uri,
}

/// `FastMCP` imported from any module of `mcp` or `fastmcp` (re-exports and paths the SDK does not
/// export included) is a server class.
#[derive(Debug, Clone)]
pub struct ServerClassRule {
    pub name: String,
    pub style: ServerStyle,
    /// Dotted module prefixes (`mcp`, `mcp.server`): the defining module is one of them or
    /// inside one of them.
    pub packages: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Registration {
    pub method: String,
    pub kind: EntityKind,
    pub positional: Option<Positional>,
    /// `x.add_tool(fn, ...)` rather than a decorator.
    pub imperative: bool,
}

#[derive(Debug, Clone)]
pub struct LowLevel {
    pub dispatcher_methods: Vec<String>,
    pub dispatcher_keywords: Vec<String>,
    pub listing_methods: Vec<String>,
    pub listing_keywords: Vec<String>,
    /// Methods registering a handler by request method (`add_request_handler("tools/call",
    /// Params, fn)`); the request's name is the first argument, the handler the last.
    pub request_methods: Vec<String>,
    /// Request methods whose handler is the tool dispatcher.
    pub dispatcher_requests: Vec<String>,
    /// Attributes of a decorator-style server that hold its low-level server
    /// (`FastMCP._mcp_server`), on which a dispatcher can be registered directly.
    pub inner_server_attributes: Vec<String>,
    pub tool_declarations: Vec<String>,
    pub name_keyword: String,
    pub description_keyword: String,
    pub schema_keywords: Vec<String>,
}

/// The compiled framework model of a language.
#[derive(Debug, Clone)]
pub struct Frameworks {
    pub servers: Vec<(String, ServerStyle)>,
    /// Server classes by their last name, from any module of the listed packages.
    pub server_classes: Vec<ServerClassRule>,
    pub registrations: Vec<Registration>,
    pub low_level: LowLevel,
    pub mixin: Option<Mixin>,
    pub standalone: Option<Standalone>,
    interesting: HashSet<String>,
    markers: Vec<String>,
}

impl Frameworks {
    pub fn compile(path: &str, text: &str) -> Result<Frameworks, LowerError> {
        let err = |message: String| LowerError::Model {
            file: path.to_string(),
            message,
        };
        let raw: RawFrameworks = toml::from_str(text).map_err(|e| {
            let (line, col) = e
                .span()
                .map(|s| {
                    let before = &text[..s.start.min(text.len())];
                    (
                        before.matches('\n').count() + 1,
                        s.start - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1,
                    )
                })
                .unwrap_or((0, 0));
            err(format!("line {line}, column {col}: {}", e.message()))
        })?;
        let mut servers = Vec::new();
        for s in raw.server {
            let style = match s.style.as_str() {
                "decorator" => ServerStyle::Decorator,
                "low-level" => ServerStyle::LowLevel,
                other => {
                    return Err(err(format!(
                        "server {}: unknown style {other:?} (decorator | low-level)",
                        s.callee
                    )));
                }
            };
            if s.callee.split('.').any(str::is_empty) {
                return Err(err(format!(
                    "server callee {:?} is not a dotted path",
                    s.callee
                )));
            }
            servers.push((s.callee, style));
        }
        let mut server_classes = Vec::new();
        for c in raw.server_class {
            let style = match c.style.as_str() {
                "decorator" => ServerStyle::Decorator,
                "low-level" => ServerStyle::LowLevel,
                other => {
                    return Err(err(format!(
                        "server_class {}: unknown style {other:?} (decorator | low-level)",
                        c.name
                    )));
                }
            };
            if c.name.is_empty() || c.name.contains('.') || c.packages.is_empty() {
                return Err(err(format!(
                    "server_class {:?}: name must be a bare class name and packages non-empty",
                    c.name
                )));
            }
            server_classes.push(ServerClassRule {
                name: c.name,
                style,
                packages: c.packages,
            });
        }
        let mut registrations = Vec::new();
        for r in raw.registration {
            let kind = match r.kind.as_str() {
                "tool" => EntityKind::Tool,
                "resource" => EntityKind::Resource,
                "prompt" => EntityKind::Prompt,
                other => {
                    return Err(err(format!(
                        "registration {}: unknown kind {other:?} (tool | resource | prompt)",
                        r.method
                    )));
                }
            };
            let positional = match r.positional.as_deref() {
                None => None,
                Some("name") => Some(Positional::Name),
                Some("uri") => Some(Positional::Uri),
                Some(other) => {
                    return Err(err(format!(
                        "registration {}: unknown positional {other:?} (name | uri)",
                        r.method
                    )));
                }
            };
            registrations.push(Registration {
                method: r.method,
                kind,
                positional,
                imperative: r.imperative,
            });
        }
        let ll = raw.low_level;
        let mut interesting: HashSet<String> = HashSet::new();
        for (callee, _) in &servers {
            if let Some(last) = callee.rsplit('.').next() {
                interesting.insert(last.to_string());
            }
        }
        for r in &registrations {
            interesting.insert(r.method.clone());
        }
        for c in &server_classes {
            interesting.insert(c.name.clone());
        }
        interesting.extend(ll.tool_declarations.iter().cloned());
        // Text that any file binding a server or registering a handler must contain.
        let mut markers: Vec<String> = servers
            .iter()
            .filter_map(|(c, _)| c.rsplit('.').next().map(str::to_string))
            .collect();
        markers.extend(server_classes.iter().map(|c| c.name.clone()));
        markers.extend(registrations.iter().map(|r| format!(".{}", r.method)));
        markers.extend(ll.dispatcher_methods.iter().map(|m| format!(".{m}")));
        markers.extend(ll.listing_methods.iter().map(|m| format!(".{m}")));
        markers.extend(ll.request_methods.iter().map(|m| format!(".{m}")));
        markers.extend(ll.dispatcher_keywords.iter().cloned());
        markers.extend(ll.listing_keywords.iter().cloned());
        markers.sort();
        markers.dedup();
        let mixin = match raw.mixin {
            None => None,
            Some(x) => {
                let markers = marker_table(x.markers, "mixin").map_err(err)?;
                Some(Mixin {
                    packages: x.packages,
                    markers,
                    register_methods: x.register_methods,
                    prefix_keyword: x.prefix_keyword,
                    separator_keyword: x.separator_keyword,
                    default_separator: x.default_separator,
                })
            }
        };
        let standalone = match raw.standalone {
            None => None,
            Some(x) => {
                let markers = marker_table(x.markers, "standalone").map_err(err)?;
                Some(Standalone {
                    markers,
                    packages: x.packages,
                    provider_classes: x.provider_classes,
                    root_keyword: x.root_keyword,
                    providers_keyword: x.providers_keyword,
                    add_provider_methods: x.add_provider_methods,
                    namespace_keyword: x.namespace_keyword,
                })
            }
        };
        Ok(Frameworks {
            mixin,
            standalone,
            servers,
            server_classes,
            registrations,
            low_level: LowLevel {
                dispatcher_methods: ll.dispatcher_methods,
                dispatcher_keywords: ll.dispatcher_keywords,
                listing_methods: ll.listing_methods,
                listing_keywords: ll.listing_keywords,
                request_methods: ll.request_methods,
                dispatcher_requests: ll.dispatcher_requests,
                inner_server_attributes: ll.inner_server_attributes,
                tool_declarations: ll.tool_declarations,
                name_keyword: ll.name_keyword,
                description_keyword: ll.description_keyword,
                schema_keywords: ll.schema_keywords,
            },
            interesting,
            markers,
        })
    }

    /// Cheap pre-filter: a file containing none of the markers (constructor names, `.tool`,
    /// `.call_tool`, `on_call_tool`, ...) cannot bind a server or register a handler, so the
    /// entry-point query is not run on it (most files of a large tree).
    pub fn might_register(&self, source: &str) -> bool {
        self.markers.iter().any(|m| source.contains(m.as_str()))
    }

    /// The style of server a canonical constructor path makes.
    pub fn server_style(&self, canonical_callee: &str) -> Option<ServerStyle> {
        if let Some((_, s)) = self.servers.iter().find(|(c, _)| c == canonical_callee) {
            return Some(*s);
        }
        let (module, last) = canonical_callee.rsplit_once('.')?;
        self.server_classes
            .iter()
            .find(|c| {
                c.name == last
                    && c.packages.iter().any(|p| {
                        module == p
                            || module
                                .strip_prefix(p.as_str())
                                .is_some_and(|r| r.starts_with('.'))
                    })
            })
            .map(|c| c.style)
    }

    /// Whether a module path belongs to a package that defines server classes (`mcp.types`,
    /// `fastmcp.tools`): values imported from it that are not servers are opaque, not unknown.
    pub fn is_framework_module(&self, module: &str) -> bool {
        let root = module.split('.').next().unwrap_or(module);
        self.server_classes
            .iter()
            .flat_map(|c| c.packages.iter())
            .any(|p| p.split('.').next() == Some(root))
    }

    pub fn registration(&self, method: &str) -> Option<&Registration> {
        self.registrations.iter().find(|r| r.method == method)
    }

    /// Calls whose lowered form the entry-point pass needs to look up later.
    pub fn is_interesting_call(&self, last_segment: &str) -> bool {
        self.interesting.contains(last_segment)
    }
}

/// Marker decorator → what it registers (`tool`, `resource`, `prompt`).
fn marker_table(
    markers: std::collections::BTreeMap<String, String>,
    what: &str,
) -> Result<Vec<(String, EntityKind)>, String> {
    markers
        .into_iter()
        .map(|(name, kind)| {
            let k = match kind.as_str() {
                "tool" => EntityKind::Tool,
                "resource" => EntityKind::Resource,
                "prompt" => EntityKind::Prompt,
                other => {
                    return Err(format!(
                        "{what} marker {name}: unknown kind {other:?} (tool | resource | prompt)"
                    ));
                }
            };
            Ok((name, k))
        })
        .collect()
}

/// A framework table compiled once per process: `slot` is the caller's cache.
pub fn frameworks_checked(
    slot: &'static OnceLock<Result<Frameworks, LowerError>>,
    path: &str,
    text: &str,
) -> Result<&'static Frameworks, LowerError> {
    slot.get_or_init(|| Frameworks::compile(path, text))
        .as_ref()
        .map_err(Clone::clone)
}

/// Like [`frameworks_checked`], for hot paths that cannot fail: a broken table yields an empty
/// one here, and the entry-point pass reports the error for every file.
pub fn frameworks_or_empty(
    checked: Result<&'static Frameworks, LowerError>,
) -> &'static Frameworks {
    static EMPTY: OnceLock<Frameworks> = OnceLock::new();
    checked.unwrap_or_else(|_| {
        EMPTY.get_or_init(|| Frameworks {
            servers: Vec::new(),
            server_classes: Vec::new(),
            registrations: Vec::new(),
            low_level: LowLevel {
                dispatcher_methods: Vec::new(),
                dispatcher_keywords: Vec::new(),
                listing_methods: Vec::new(),
                listing_keywords: Vec::new(),
                request_methods: Vec::new(),
                dispatcher_requests: Vec::new(),
                inner_server_attributes: Vec::new(),
                tool_declarations: Vec::new(),
                name_keyword: String::new(),
                description_keyword: String::new(),
                schema_keywords: Vec::new(),
            },
            mixin: None,
            standalone: None,
            interesting: HashSet::new(),
            markers: Vec::new(),
        })
    })
}
