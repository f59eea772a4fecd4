//! Which files of a tree are scanned.
//!
//! Every file with an extension some adapter handles, except the default skips (virtualenvs,
//! vendored dependencies, caches, VCS metadata, tests). `include` globs bring skipped files back;
//! `exclude` globs remove more. Globs match the `/`-separated path relative to the root.
//! `.gitignore` is deliberately not honoured: a server cannot hide code from the scan by ignoring
//! it. Symlinks are not followed, so a tree cannot loop or point the scan outside itself.

use globset::{Glob, GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Skipped unless an include glob matches.
pub const DEFAULT_EXCLUDES: &[&str] = &[
    "**/.git/**",
    "**/.hg/**",
    "**/.venv/**",
    "**/venv/**",
    "**/.tox/**",
    "**/.nox/**",
    "**/node_modules/**",
    "**/site-packages/**",
    "**/__pycache__/**",
    "**/.mypy_cache/**",
    "**/.pytest_cache/**",
    "**/tests/**",
    "**/test/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/conftest.py",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoverOptions {
    /// Globs of files to scan even when a default skip matches them.
    pub include: Vec<String>,
    /// Globs of files (or directories, as `dir/**`) never to scan.
    pub exclude: Vec<String>,
    /// Apply [`DEFAULT_EXCLUDES`].
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

struct Filter {
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

impl Filter {
    fn new(opts: &DiscoverOptions) -> Result<Self, DiscoverError> {
        Ok(Filter {
            include: build("include", &opts.include)?,
            exclude: build("exclude", &opts.exclude)?,
            defaults: if opts.default_excludes {
                Some(build("default", DEFAULT_EXCLUDES)?)
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
        if self.exclude.is_match(rel) {
            return false;
        }
        if self.include.is_match(rel) {
            return true;
        }
        !self.defaults.as_ref().is_some_and(|d| d.is_match(rel))
    }
}

/// A file to scan: its absolute path and its `/`-separated path relative to the root.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceFile {
    pub rel_path: String,
    pub path: PathBuf,
}

/// What discovery found: files to scan, sorted by relative path, and directories that could not
/// be read (relative path, reason), which are diagnostics rather than errors.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    pub files: Vec<SourceFile>,
    pub unreadable: Vec<(String, String)>,
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
        return Ok(Discovered {
            files: vec![SourceFile {
                rel_path: name,
                path: root.to_path_buf(),
            }],
            unreadable: Vec::new(),
        });
    }
    let filter = Filter::new(opts)?;
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    // Iterative walk: depth of the directory tree cannot overflow the stack.
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) => {
                errors.push((rel_of(root, &dir), e.to_string()));
                continue;
            }
        };
        for entry in entries {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    errors.push((rel_of(root, &dir), e.to_string()));
                    continue;
                }
            };
            let Ok(ft) = entry.file_type() else { continue };
            let path = entry.path();
            let rel = rel_of(root, &path);
            if ft.is_dir() {
                if !filter.skips_dir(&rel) {
                    stack.push(path);
                }
            } else if ft.is_file() && crate::adapter_for(&rel).is_some() && filter.wants_file(&rel)
            {
                files.push(SourceFile {
                    rel_path: rel,
                    path,
                });
            }
        }
    }
    files.sort();
    Ok(Discovered {
        files,
        unreadable: errors,
    })
}

fn rel_of(root: &Path, path: &Path) -> String {
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
