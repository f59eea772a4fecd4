//! Which files of a tree are scanned.
//!
//! Every file with an extension some adapter handles, except the default skips (virtualenvs,
//! vendored dependencies, caches, VCS metadata, tests). `include` globs bring skipped files back;
//! `exclude` globs remove more. Globs match the `/`-separated path relative to the root.
//! `.gitignore` is deliberately not honoured: a server cannot hide code from the scan by ignoring
//! it.
//!
//! Symlinks inside the tree are followed, because the server follows them when it loads code:
//! real directories are walked first, then symlinked ones, and a symlinked directory whose target
//! was already walked (a loop, or an alias of a folder in the tree) is not walked again; a
//! symlinked file whose target is already scanned is not scanned twice. A symlink whose target is
//! outside the scanned root is not followed (the scan never reads outside what the user named)
//! and is reported as a coverage gap instead. Dangling symlinks are skipped: nothing can load them.
//!
//! Source files in languages no adapter handles yet ([`UNSUPPORTED_SOURCES`]) are listed
//! separately: they are code the server may run, so they make the scan INCOMPLETE.

use globset::{Glob, GlobSet, GlobSetBuilder};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Skipped unless an include glob matches, whatever the language (each adapter adds its own,
/// [`crate::LanguageAdapter::default_excludes`]; [`default_excludes`] is the union).
pub const COMMON_EXCLUDES: &[&str] = &[
    "**/.git/**",
    "**/.hg/**",
    "**/node_modules/**",
    "**/tests/**",
    "**/test/**",
];

/// Every default skip: [`COMMON_EXCLUDES`] and each adapter's.
pub fn default_excludes() -> Vec<&'static str> {
    let mut out = COMMON_EXCLUDES.to_vec();
    for a in crate::adapters() {
        out.extend(a.default_excludes());
    }
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoverOptions {
    /// Globs of files to scan even when a default skip matches them.
    pub include: Vec<String>,
    /// Globs of files (or directories, as `dir/**`) never to scan.
    pub exclude: Vec<String>,
    /// Apply [`default_excludes`].
    pub default_excludes: bool,
    /// Larger files get a diagnostic instead of a parse.
    pub max_file_bytes: u64,
    /// Worker threads for parsing; 0 = one per core.
    pub threads: usize,
    pub limits: crate::Limits,
}

impl Default for DiscoverOptions {
    fn default() -> Self {
        DiscoverOptions {
            include: Vec::new(),
            exclude: Vec::new(),
            default_excludes: true,
            max_file_bytes: 8 * 1024 * 1024,
            threads: 0,
            limits: crate::Limits::default(),
        }
    }
}

#[derive(Debug, Error)]
pub enum DiscoverError {
    #[error("invalid {which} glob {glob:?}: {message}")]
    Glob {
        which: &'static str,
        glob: String,
        message: String,
    },
    #[error("{path}: {message}")]
    Root { path: PathBuf, message: String },
}

/// Extensions of source code in languages without an adapter, with the language's name. Data
/// and documentation (`.json`, `.md`, `.toml`) are not code; shell scripts are not listed because
/// nearly every repository has build scripts a server does not load; type declarations
/// (`.d.ts`) carry no code and are left out by [`unsupported_language`].
pub const UNSUPPORTED_SOURCES: &[(&str, &str)] = &[
    ("ts", "TypeScript"),
    ("tsx", "TypeScript"),
    ("mts", "TypeScript"),
    ("cts", "TypeScript"),
    ("js", "JavaScript"),
    ("jsx", "JavaScript"),
    ("mjs", "JavaScript"),
    ("cjs", "JavaScript"),
    ("go", "Go"),
    ("rs", "Rust"),
    ("java", "Java"),
    ("kt", "Kotlin"),
    ("kts", "Kotlin"),
    ("scala", "Scala"),
    ("rb", "Ruby"),
    ("php", "PHP"),
    ("cs", "C#"),
    ("swift", "Swift"),
    ("lua", "Lua"),
    ("ex", "Elixir"),
    ("exs", "Elixir"),
    ("dart", "Dart"),
    ("pyx", "Cython"),
];

/// The language of a source file no adapter handles, or `None` (handled, or not source code).
pub fn unsupported_language(rel_path: &str) -> Option<&'static str> {
    if crate::adapter_for(rel_path).is_some() {
        return None;
    }
    let name = rel_path.rsplit('/').next().unwrap_or(rel_path);
    if [".d.ts", ".d.mts", ".d.cts"]
        .iter()
        .any(|s| name.ends_with(s))
    {
        return None;
    }
    let ext = name.rsplit_once('.')?.1;
    UNSUPPORTED_SOURCES
        .iter()
        .find(|(e, _)| *e == ext)
        .map(|(_, lang)| *lang)
}

pub(crate) struct Filter {
    include: GlobSet,
    exclude: GlobSet,
    defaults: Option<GlobSet>,
}

fn build(which: &'static str, globs: &[impl AsRef<str>]) -> Result<GlobSet, DiscoverError> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        let g = g.as_ref();
        let glob = Glob::new(g).map_err(|e| DiscoverError::Glob {
            which,
            glob: g.to_string(),
            message: e.kind().to_string(),
        })?;
        b.add(glob);
    }
    b.build().map_err(|e| DiscoverError::Glob {
        which,
        glob: globs
            .iter()
            .map(|g| g.as_ref())
            .collect::<Vec<_>>()
            .join(", "),
        message: e.to_string(),
    })
}

/// Why a file is or is not scanned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wanted {
    Yes,
    /// Skipped by [`default_excludes`] (tests, vendored folders): scanned when the server
    /// imports it.
    DefaultSkip,
    /// Matched an `exclude` glob the user gave.
    UserExcluded,
}

impl Filter {
    pub(crate) fn new(opts: &DiscoverOptions) -> Result<Self, DiscoverError> {
        Ok(Filter {
            include: build("include", &opts.include)?,
            exclude: build("exclude", &opts.exclude)?,
            defaults: if opts.default_excludes {
                Some(build("default", &default_excludes())?)
            } else {
                None
            },
        })
    }

    /// `rel` is `/`-separated, relative to the root. Directories are tested as `rel/` + a
    /// placeholder file so `dir/**` patterns prune them.
    fn skips_dir(&self, rel: &str) -> bool {
        let probe = format!("{rel}/_");
        if self.exclude.is_match(&probe) {
            return true;
        }
        // With include globs, a default-skipped directory may still hold wanted files.
        self.include.is_empty() && self.defaults.as_ref().is_some_and(|d| d.is_match(&probe))
    }

    fn wants_file(&self, rel: &str) -> bool {
        self.classify(rel) == Wanted::Yes
    }

    pub(crate) fn classify(&self, rel: &str) -> Wanted {
        if self.exclude.is_match(rel) {
            return Wanted::UserExcluded;
        }
        if self.include.is_match(rel) {
            return Wanted::Yes;
        }
        if self.defaults.as_ref().is_some_and(|d| d.is_match(rel)) {
            Wanted::DefaultSkip
        } else {
            Wanted::Yes
        }
    }
}

/// A file to scan: its absolute path and its `/`-separated path relative to the root.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceFile {
    pub rel_path: String,
    pub path: PathBuf,
}

/// A symlink inside the tree whose target lies outside the scanned root: not followed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct OutsideLink {
    /// The link's path relative to the root.
    pub rel_path: String,
    /// Where it points (canonical).
    pub target: PathBuf,
    pub is_dir: bool,
}

/// What discovery found: files to scan, sorted by relative path, and directories that could not
/// be read (relative path, reason), which are diagnostics rather than errors.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    pub files: Vec<SourceFile>,
    pub unreadable: Vec<(String, String)>,
    /// Source files in a language without an adapter (see [`unsupported_language`]), sorted.
    pub unsupported: Vec<SourceFile>,
    /// Symlinks that point outside the root, sorted.
    pub outside_links: Vec<OutsideLink>,
}

/// The files under `root` (or `root` itself, when it is a file) that some adapter handles.
pub fn discover_files(root: &Path, opts: &DiscoverOptions) -> Result<Discovered, DiscoverError> {
    let meta = std::fs::metadata(root).map_err(|e| DiscoverError::Root {
        path: root.to_path_buf(),
        message: e.to_string(),
    })?;
    if meta.is_file() {
        let name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let file = SourceFile {
            rel_path: name,
            path: root.to_path_buf(),
        };
        let mut out = Discovered::default();
        if unsupported_language(&file.rel_path).is_some() {
            out.unsupported.push(file);
        } else {
            out.files.push(file);
        }
        return Ok(out);
    }
    let root_canon = std::fs::canonicalize(root).map_err(|e| DiscoverError::Root {
        path: root.to_path_buf(),
        message: e.to_string(),
    })?;
    let filter = Filter::new(opts)?;
    let mut out = Discovered::default();
    // Canonical paths of walked directories and of scanned files: a symlink to either is an
    // alias (or a loop) and adds nothing.
    let mut seen_dirs: HashSet<PathBuf> = HashSet::new();
    let mut seen_files: HashSet<PathBuf> = HashSet::new();
    seen_dirs.insert(root_canon.clone());
    // Real directories first, so a folder is scanned under its own name rather than an alias's.
    let mut stack = vec![root.to_path_buf()];
    let mut linked_dirs: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut linked_files: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut walked: Vec<PathBuf> = Vec::new();
    loop {
        // Iterative walk: depth of the directory tree cannot overflow the stack.
        while let Some(dir) = stack.pop() {
            let entries = match std::fs::read_dir(&dir) {
                Ok(e) => e,
                Err(e) => {
                    out.unreadable.push((rel_of(root, &dir), e.to_string()));
                    continue;
                }
            };
            for entry in entries {
                let entry = match entry {
                    Ok(e) => e,
                    Err(e) => {
                        out.unreadable.push((rel_of(root, &dir), e.to_string()));
                        continue;
                    }
                };
                let Ok(ft) = entry.file_type() else { continue };
                let path = entry.path();
                let rel = rel_of(root, &path);
                if ft.is_symlink() {
                    // Dangling links (and links we may not resolve) load nothing.
                    let Ok(target) = std::fs::canonicalize(&path) else {
                        continue;
                    };
                    let Ok(meta) = std::fs::metadata(&target) else {
                        continue;
                    };
                    if meta.is_dir() {
                        if filter.skips_dir(&rel) {
                            continue;
                        }
                        if !target.starts_with(&root_canon) {
                            out.outside_links.push(OutsideLink {
                                rel_path: rel,
                                target,
                                is_dir: true,
                            });
                        } else {
                            linked_dirs.push((path, target));
                        }
                    } else if meta.is_file() && wanted_source(&filter, &rel) {
                        if !target.starts_with(&root_canon) {
                            out.outside_links.push(OutsideLink {
                                rel_path: rel,
                                target,
                                is_dir: false,
                            });
                        } else {
                            linked_files.push((path, target));
                        }
                    }
                } else if ft.is_dir() {
                    if !filter.skips_dir(&rel) {
                        walked.push(path.clone());
                        stack.push(path);
                    }
                } else if ft.is_file() && wanted_source(&filter, &rel) {
                    push_source(&mut out, rel, path);
                }
            }
        }
        // Then the symlinked directories not walked yet; their own links come back here.
        let pending = std::mem::take(&mut linked_dirs);
        if pending.is_empty() {
            break;
        }
        // Canonicalising only when there are links keeps the common walk to one syscall a file.
        for d in walked.drain(..) {
            if let Ok(canon) = std::fs::canonicalize(&d) {
                seen_dirs.insert(canon);
            }
        }
        for (path, target) in pending {
            if seen_dirs.insert(target) {
                stack.push(path);
            }
        }
    }
    if !linked_files.is_empty() {
        for f in out.files.iter().chain(&out.unsupported) {
            if let Ok(canon) = std::fs::canonicalize(&f.path) {
                seen_files.insert(canon);
            }
        }
    }
    for (path, target) in linked_files {
        if seen_files.insert(target) {
            push_source(&mut out, rel_of(root, &path), path);
        }
    }
    out.files.sort();
    out.unsupported.sort();
    out.outside_links.sort();
    Ok(out)
}

fn wanted_source(filter: &Filter, rel: &str) -> bool {
    (crate::adapter_for(rel).is_some() || unsupported_language(rel).is_some())
        && filter.wants_file(rel)
}

fn push_source(out: &mut Discovered, rel_path: String, path: PathBuf) {
    let file = SourceFile { rel_path, path };
    if crate::adapter_for(&file.rel_path).is_some() {
        out.files.push(file);
    } else {
        out.unsupported.push(file);
    }
}

pub(crate) fn rel_of(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut out = String::new();
    for c in rel.components() {
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(&c.as_os_str().to_string_lossy());
    }
    out
}
