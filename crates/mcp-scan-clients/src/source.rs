//! Where a configured server's source is: a directory on this machine, a registry package
//! fetched into the cache, a remote URL (no source), or nowhere we can tell, with the reason
//! (which a scan reports as a coverage gap, never as clean).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::discover::{ConfiguredServer, Scope, Transport};
use crate::fetch::{FetchConfig, FetchedPackage, fetch};
use crate::launch::{LaunchTarget, classify};

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ServerSource {
    /// A source tree on disk: a local server's project, or a fetched package.
    Directory {
        path: PathBuf,
        #[serde(skip_serializing_if = "Option::is_none")]
        package: Option<FetchedPackage>,
    },
    /// A remote server: only its manifest can be judged.
    Remote { url: String },
    /// No source to analyse, and why.
    Unavailable { reason: String },
}

/// Files that mark a project's root: the directory above a script that holds one is analysed
/// whole, so the script's imports resolve.
const PROJECT_MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "package.json",
    "go.mod",
];
const SCRIPT_EXTENSIONS: &[&str] = &[".py", ".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs"];

/// Finds (and for registry packages, fetches) the source of one configured server.
/// `home` expands `~/` and `${userHome}`.
pub fn resolve_source(server: &ConfiguredServer, cfg: &FetchConfig, home: &Path) -> ServerSource {
    let (command, args, cwd) = match &server.transport {
        Transport::Remote { url, .. } => return ServerSource::Remote { url: url.clone() },
        Transport::Stdio { command, args, cwd } => (command, args, cwd),
    };
    let vars = Vars::of(server, home);
    let args: Vec<String> = args.iter().map(|a| vars.expand(a)).collect();
    let cwd = cwd
        .as_ref()
        .map(|c| PathBuf::from(vars.expand(&c.to_string_lossy())));
    let unavailable = |reason: String| ServerSource::Unavailable { reason };
    match classify(command, &args) {
        LaunchTarget::Package { package, .. } => match fetch(cfg, &package) {
            Ok(got) => ServerSource::Directory {
                path: got.source_dir.clone(),
                package: Some(got),
            },
            Err(e) => unavailable(format!("the package's source could not be fetched: {e}")),
        },
        LaunchTarget::LocalPath { path, .. } => match absolute(&path, cwd.as_deref()) {
            Some(p) if p.is_dir() => ServerSource::Directory {
                path: p,
                package: None,
            },
            Some(p) if p.is_file() => ServerSource::Directory {
                path: project_root(&p, home),
                package: None,
            },
            Some(p) => unavailable(format!("{} does not exist on this machine", p.display())),
            None => unavailable(format!(
                "{} is relative and the client sets no working directory",
                path.display()
            )),
        },
        LaunchTarget::Unsupported { reason, .. } => unavailable(reason),
        LaunchTarget::NotAPackage => local_command(command, &args, cwd.as_deref(), home),
    }
}

/// `${workspaceFolder}`, `${userHome}` and `~/` as the clients expand them; other variables are
/// left alone (the path then does not exist, which is reported).
struct Vars {
    workspace: Option<PathBuf>,
    home: Option<PathBuf>,
}

impl Vars {
    fn of(server: &ConfiguredServer, home: &Path) -> Vars {
        Vars {
            workspace: match server.scope {
                Scope::Project => server.project.clone(),
                Scope::User => None,
            },
            home: Some(home.to_path_buf()),
        }
    }

    fn expand(&self, s: &str) -> String {
        let mut out = s.to_string();
        if let Some(w) = &self.workspace {
            out = out.replace("${workspaceFolder}", &w.to_string_lossy());
        }
        if let Some(h) = &self.home {
            out = out.replace("${userHome}", &h.to_string_lossy());
            if let Some(rest) = out.strip_prefix("~/") {
                out = h.join(rest).to_string_lossy().into_owned();
            }
        }
        out
    }
}

fn absolute(p: &Path, cwd: Option<&Path>) -> Option<PathBuf> {
    if p.is_absolute() {
        Some(p.to_path_buf())
    } else {
        cwd.filter(|c| c.is_absolute()).map(|c| c.join(p))
    }
}

/// The nearest directory at or above the script's that marks a project, within two levels
/// (a `dist/index.js` belongs to the package above it), never HOME or `/` (a stray
/// `~/package.json` would make the whole home directory the "project"); else the script's own
/// directory.
fn project_root(script: &Path, home: &Path) -> PathBuf {
    let start = script.parent().unwrap_or(script);
    let mut dir = Some(start);
    for _ in 0..3 {
        let Some(d) = dir else { break };
        if d == home || d.parent().is_none() {
            break;
        }
        if PROJECT_MARKERS.iter().any(|m| d.join(m).is_file()) {
            return d.to_path_buf();
        }
        dir = d.parent();
    }
    start.to_path_buf()
}

/// An interpreter running a script (`python server.py`, `node dist/index.js`,
/// `uv --directory D run x.py`), or something we cannot place.
fn local_command(command: &str, args: &[String], cwd: Option<&Path>, home: &Path) -> ServerSource {
    let base = command.rsplit(['/', '\\']).next().unwrap_or(command);
    // `uv run` inside a project directory: the directory is the source.
    if base == "uv" {
        let dir = args
            .iter()
            .position(|a| a == "--directory" || a == "--project")
            .and_then(|i| args.get(i + 1))
            .map(PathBuf::from)
            .or_else(|| {
                args.iter()
                    .find_map(|a| a.strip_prefix("--directory=").map(PathBuf::from))
            });
        if let Some(d) = dir.and_then(|d| absolute(&d, cwd)) {
            return if d.is_dir() {
                ServerSource::Directory {
                    path: d,
                    package: None,
                }
            } else {
                ServerSource::Unavailable {
                    reason: format!("{} does not exist on this machine", d.display()),
                }
            };
        }
    }
    let script = args
        .iter()
        .filter(|a| !a.starts_with('-'))
        .find(|a| SCRIPT_EXTENSIONS.iter().any(|e| a.ends_with(e)));
    if let Some(script) = script {
        return match absolute(Path::new(script), cwd) {
            Some(p) if p.is_file() => ServerSource::Directory {
                path: project_root(&p, home),
                package: None,
            },
            Some(p) => ServerSource::Unavailable {
                reason: format!("{} does not exist on this machine", p.display()),
            },
            None => ServerSource::Unavailable {
                reason: format!("{script} is relative and the client sets no working directory"),
            },
        };
    }
    let is_python = base.starts_with("python");
    if is_python
        && let Some(i) = args.iter().position(|a| a == "-m")
        && let Some(module) = args.get(i + 1)
    {
        return match cwd.filter(|c| c.is_absolute() && c.is_dir()) {
            Some(c) => ServerSource::Directory {
                path: c.to_path_buf(),
                package: None,
            },
            None => ServerSource::Unavailable {
                reason: format!(
                    "runs module {module} from the interpreter's environment; where its source is installed is not known"
                ),
            },
        };
    }
    ServerSource::Unavailable {
        reason: format!("runs the program {command}; no source tree to analyse"),
    }
}
