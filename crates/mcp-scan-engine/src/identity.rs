//! One server identity and one entity identity for every witness.
//!
//! Each witness names the server from what it sees: the static witness from the source
//! directory, the runtime witness from the `serverInfo.name` the server announces, a manifest
//! from its own `server` field. `mcp-scan scan` gives every witness of one server the same name,
//! chosen in this order (first that exists):
//!
//! 1. the name the user gave it: the key in a client configuration (`"mcpServers": {"notes": ...}`)
//!    or `--server-name`;
//! 2. the source directory's name (`fixtures/python/leaky_server` → `leaky_server`; a file → its
//!    stem);
//! 3. the `serverInfo.name` of the live listing;
//! 4. the manifest's own name;
//! 5. the launch command's script or package (`python srv/notes.py` → `notes`,
//!    `npx -y @acme/notes-mcp@1.2` → `@acme/notes-mcp`);
//! 6. a URL's host and path (`https://mcp.example.com/sse` → `mcp.example.com/sse`).
//!
//! The single-witness commands keep the name their witness sees (rules 2, 3 and 4), so
//! `behavioral`, `dynamic` and `manifest` reports are unchanged. The other names a witness saw
//! stay in the report's server entry (`server_info`, `origin`).
//!
//! An entity is `(server, kind, name)`: the tool name the server registers (the static witness
//! folds the registration's `name=` or the handler's name; the runtime witness reads the
//! listing), so static, LLM and runtime findings about one tool meet on the same [`ToolRef`].

use mcp_scan_core::{Report, ToolRef, fingerprint};
use std::path::Path;

/// Who a scanned server is, from every place it was named.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerIdentity {
    /// The one name every witness reports under.
    pub name: String,
    /// Where it came from, as the user sees it: `directory fixtures/x`, `command python s.py`,
    /// `url https://…`, `config ~/.cursor/mcp.json (notes)`.
    pub origin: Vec<String>,
    /// The server's own `serverInfo.name`, when it ran or was listed.
    pub server_info: Option<String>,
}

/// `fixtures/python/leaky_server` → `leaky_server`; a file → its stem; `server` when neither.
pub fn directory_name(path: &Path) -> String {
    let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let named = if canonical.is_file() {
        canonical.file_stem()
    } else {
        canonical.file_name()
    };
    named
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "server".to_string())
}

/// The name a launch command suggests: a registry package (`uvx pkg`, `npx -y @s/p@1`), else
/// the script an interpreter runs, else the program.
pub fn command_name(command: &[String]) -> String {
    let runner = command
        .first()
        .map(|p| p.rsplit('/').next().unwrap_or(p))
        .unwrap_or("");
    if matches!(runner, "uvx" | "npx" | "bunx" | "pipx") {
        let mut args = command.iter().skip(1).filter(|a| !a.starts_with('-'));
        let pkg = if runner == "pipx" {
            args.find(|a| a.as_str() != "run")
        } else {
            args.next()
        };
        if let Some(p) = pkg {
            return strip_version(p);
        }
    }
    command
        .iter()
        .skip(1)
        .find(|a| Path::new(a).is_file())
        .map(|a| directory_name(Path::new(a)))
        .or_else(|| {
            command
                .first()
                .and_then(|a| a.trim_end_matches('/').rsplit('/').next())
                .filter(|n| !n.is_empty())
                .map(str::to_string)
        })
        .unwrap_or_else(|| "server".to_string())
}

/// `@scope/pkg@1.2` → `@scope/pkg`; `pkg==1.0` → `pkg`.
fn strip_version(spec: &str) -> String {
    let s = spec.split("==").next().unwrap_or(spec);
    match s.rfind('@') {
        Some(i) if i > 0 => s[..i].to_string(),
        _ => s.to_string(),
    }
}

/// `https://mcp.example.com/sse?x=1` → `mcp.example.com/sse`.
pub fn url_name(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    let trimmed = rest.trim_end_matches('/');
    if trimmed.is_empty() {
        "server".to_string()
    } else {
        trimmed.to_string()
    }
}

/// Puts every entity and finding of `report` under the server `name`. A renamed finding's
/// fingerprint is derived from its old one and the new target, so it stays stable across runs
/// (the old one was) and distinct per server.
pub fn rename_server(report: &mut Report, name: &str) {
    let retarget = |t: &mut ToolRef| {
        let was_server = t.kind == mcp_scan_core::EntityKind::Server && t.name == t.server;
        t.server = name.to_string();
        if was_server {
            t.name = name.to_string();
        }
    };
    for e in &mut report.entities {
        if e.target.server != name {
            retarget(&mut e.target);
        }
        for f in &mut e.findings {
            if f.target.server != name {
                retarget(&mut f.target);
                f.fingerprint = fingerprint(&f.rule_id, &f.target, &f.fingerprint);
            }
        }
    }
    for b in &mut report.behaviors {
        b.tool.server = name.to_string();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(parts: &[&str]) -> Vec<String> {
        parts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn launch_commands_name_their_package_or_script() {
        assert_eq!(
            command_name(&cmd(&["npx", "-y", "@acme/notes-mcp@1.2.0"])),
            "@acme/notes-mcp"
        );
        assert_eq!(
            command_name(&cmd(&["uvx", "mcp-server-time==0.6"])),
            "mcp-server-time"
        );
        assert_eq!(
            command_name(&cmd(&["pipx", "run", "notes-mcp"])),
            "notes-mcp"
        );
        let dir = tempfile::tempdir().expect("tmp");
        let script = dir.path().join("notes.py");
        std::fs::write(&script, "").expect("write");
        let s = script.display().to_string();
        assert_eq!(command_name(&cmd(&["python3", &s])), "notes");
        assert_eq!(
            command_name(&cmd(&["/usr/local/bin/notes-server"])),
            "notes-server"
        );
    }

    #[test]
    fn urls_are_named_by_host_and_path_without_credentials_or_query() {
        assert_eq!(
            url_name("https://mcp.example.com/sse?key=abc"),
            "mcp.example.com/sse"
        );
        assert_eq!(url_name("http://user:pw@127.0.0.1:8080/"), "127.0.0.1:8080");
    }
}
