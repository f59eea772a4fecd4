//! `scan_tree`: discover, read, parse and lower every file in parallel, then link registrations
//! made on server objects imported from other files.

use crate::discover::{
    DiscoverError, DiscoverOptions, Discovered, Filter, OutsideLink, SourceFile, Wanted,
    discover_files, unsupported_language,
};
use crate::{IssueKind, Lowered, adapter_for};
use mcp_scan_core::{Coverage, CoverageGap, Diagnostic, DiagnosticLevel, GapKind};
use mcp_scan_ir::Module;
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Everything the front-end produced for one tree.
#[derive(Debug, Clone, Default)]
pub struct ParsedTree {
    /// The scanned root as given.
    pub root: PathBuf,
    /// One per lowered file, sorted by path. Files listed in `incomplete_files` may still have a
    /// module (syntax errors, over-deep nesting) whose tools must then be INCOMPLETE.
    pub modules: Vec<Module>,
    /// Relative path → source text, for evidence snippets.
    pub sources: BTreeMap<String, String>,
    /// Per-file problems (warnings) and unreadable directories.
    pub diagnostics: Vec<Diagnostic>,
    /// Relative paths of files whose analysis is partial or absent, sorted.
    pub incomplete_files: Vec<String>,
    /// Files considered (lowered or not).
    pub files: usize,
    /// Newline-terminated lines in the files that were read.
    pub lines: usize,
    pub bytes: usize,
    /// Files by language, registration sites, and every gap (fail closed: a gap is INCOMPLETE).
    /// `entities_resolved` is left to the analysis that resolves handlers.
    pub coverage: Coverage,
}

impl ParsedTree {
    pub fn is_incomplete(&self, rel_path: &str) -> bool {
        self.incomplete_files
            .binary_search_by(|p| p.as_str().cmp(rel_path))
            .is_ok()
    }

    pub fn module(&self, rel_path: &str) -> Option<&Module> {
        self.modules
            .binary_search_by(|m| m.path.as_str().cmp(rel_path))
            .ok()
            .map(|i| &self.modules[i])
    }
}

#[derive(Debug, Error)]
pub enum ScanError {
    #[error(transparent)]
    Discover(#[from] DiscoverError),
    #[error("cannot start the parser threads: {0}")]
    Threads(String),
}

enum FileOutcome {
    Lowered {
        lowered: Box<Lowered>,
        source: String,
        lines: usize,
    },
    Rejected {
        message: String,
        line: Option<u32>,
        bytes: usize,
        lines: usize,
    },
}

/// Scans `root` (a directory or one file). Only a bad root or bad globs are errors; every
/// per-file problem is a diagnostic.
pub fn scan_tree(root: &Path, opts: &DiscoverOptions) -> Result<ParsedTree, ScanError> {
    let Discovered {
        files,
        unreadable: dir_errors,
        unsupported,
        outside_links,
    } = discover_files(root, opts)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .stack_size(crate::LOWERING_STACK)
        .thread_name(|i| format!("mcp-scan-lang-{i}"))
        .build()
        .map_err(|e| ScanError::Threads(e.to_string()))?;
    let run = |files: Vec<SourceFile>| -> Vec<(SourceFile, FileOutcome)> {
        pool.install(|| {
            files
                .into_par_iter()
                .map(|f| {
                    let outcome = process(&f, opts);
                    (f, outcome)
                })
                .collect()
        })
    };
    let mut outcomes = run(files);
    let mut file_gaps: Vec<(CoverageGap, String)> = Vec::new();
    if root.is_dir() {
        // Modules the server imports from default-skipped folders are analysed too, round after
        // round until no import brings a new file.
        let filter = Filter::new(opts)?;
        let root_canon = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let mut scanned: HashSet<String> =
            outcomes.iter().map(|(f, _)| f.rel_path.clone()).collect();
        let mut done = 0;
        loop {
            let mut next = Vec::new();
            for (file, outcome) in &outcomes[done..] {
                let FileOutcome::Lowered {
                    lowered, source, ..
                } = outcome
                else {
                    continue;
                };
                for req in crate::imports::requests(&lowered.module, source) {
                    let res = crate::imports::resolve(root, &file.rel_path, &req);
                    if let Some(reason) = res.missing {
                        file_gaps.push(gap(
                            GapKind::UnanalysedImport,
                            &file.rel_path,
                            Some(req.line),
                            reason,
                        ));
                    }
                    let mut left_out: Vec<String> = Vec::new();
                    for target in res.files {
                        if !scanned.insert(target.clone()) {
                            continue;
                        }
                        let path = root.join(&target);
                        let inside = path
                            .canonicalize()
                            .is_ok_and(|c| c.starts_with(&root_canon));
                        if filter.classify(&target) == Wanted::UserExcluded {
                            left_out.push(format!("`{target}` (left out by --exclude)"));
                        } else if !inside {
                            left_out.push(format!(
                                "`{target}` (a symlink to outside the scanned root, not followed)"
                            ));
                        } else {
                            next.push(SourceFile {
                                rel_path: target,
                                path,
                            });
                        }
                    }
                    if !left_out.is_empty() {
                        file_gaps.push(gap(
                            GapKind::UnanalysedImport,
                            &file.rel_path,
                            Some(req.line),
                            format!("imports {}", left_out.join(", ")),
                        ));
                    }
                }
            }
            done = outcomes.len();
            if next.is_empty() {
                break;
            }
            outcomes.extend(run(next));
        }
    }
    if let (
        true,
        Some(dir),
        Some((
            file,
            FileOutcome::Lowered {
                lowered, source, ..
            },
        )),
    ) = (root.is_file(), root.parent(), outcomes.first())
    {
        // One file was named: its imports are not followed, but its own code it imports is
        // code nobody analysed.
        for req in crate::imports::requests(&lowered.module, source) {
            let res = crate::imports::resolve(dir, &file.rel_path, &req);
            let reason = match (res.missing, res.files.is_empty()) {
                (Some(reason), _) => reason,
                (None, false) => format!(
                    "imports {}, beside the one file scanned: scan the folder to follow imports",
                    res.files
                        .iter()
                        .map(|f| format!("`{f}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                (None, true) => continue,
            };
            file_gaps.push(gap(
                GapKind::UnanalysedImport,
                &file.rel_path,
                Some(req.line),
                reason,
            ));
        }
    }
    file_gaps.extend(unsupported_gaps(&unsupported));
    file_gaps.extend(outside_links.iter().map(outside_link_gap));

    let mut tree = ParsedTree {
        root: root.to_path_buf(),
        files: outcomes.len(),
        ..ParsedTree::default()
    };
    for (dir, message) in dir_errors {
        tree.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Warning,
            file: Some(dir),
            line: None,
            column: None,
            message: format!("directory not scanned: {message}"),
        });
    }
    let mut lowered = Vec::new();
    for (file, outcome) in outcomes {
        match outcome {
            FileOutcome::Lowered {
                lowered: l,
                source,
                lines,
            } => {
                tree.lines += lines;
                tree.bytes += source.len();
                let mut flagged = false;
                for issue in &l.issues {
                    flagged = true;
                    let what = match issue.kind {
                        IssueKind::Syntax => "syntax error",
                        IssueKind::TooDeep => "nesting too deep",
                    };
                    tree.diagnostics.push(Diagnostic {
                        level: DiagnosticLevel::Warning,
                        file: Some(file.rel_path.clone()),
                        line: Some(issue.line),
                        column: Some(issue.column),
                        message: format!(
                            "{what}: {}; the rest of the file is analysed, its tools are incomplete",
                            issue.message
                        ),
                    });
                }
                if flagged {
                    tree.incomplete_files.push(file.rel_path.clone());
                }
                tree.sources.insert(file.rel_path, source);
                lowered.push(*l);
            }
            FileOutcome::Rejected {
                message,
                line,
                bytes,
                lines,
            } => {
                tree.bytes += bytes;
                tree.lines += lines;
                tree.diagnostics.push(Diagnostic {
                    level: DiagnosticLevel::Warning,
                    file: Some(file.rel_path.clone()),
                    line,
                    column: None,
                    message: format!("not analysed: {message}"),
                });
                tree.coverage.gaps.push(CoverageGap {
                    kind: GapKind::UnanalysedFile,
                    file: Some(file.rel_path.clone()),
                    line,
                    reason: message,
                });
                tree.incomplete_files.push(file.rel_path);
            }
        }
    }
    for (g, message) in file_gaps {
        tree.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Warning,
            file: g.file.clone(),
            line: g.line,
            column: None,
            message,
        });
        tree.coverage.gaps.push(g);
    }
    resolve_entry_points(
        &mut lowered,
        &mut tree.coverage,
        root.is_dir().then_some(root),
    );
    for l in &lowered {
        *tree
            .coverage
            .files_by_language
            .entry(l.module.language.name().to_string())
            .or_default() += 1;
    }
    tree.modules = lowered.into_iter().map(|l| l.module).collect();
    tree.modules.sort_by(|a, b| a.path.cmp(&b.path));
    tree.incomplete_files.sort();
    tree.incomplete_files.dedup();
    tree.coverage.gaps.sort();
    Ok(tree)
}

fn gap(kind: GapKind, file: &str, line: Option<u32>, reason: String) -> (CoverageGap, String) {
    let message = format!("{reason} (a coverage gap: the result is INCOMPLETE)");
    (
        CoverageGap {
            kind,
            file: Some(file.to_string()),
            line,
            reason,
        },
        message,
    )
}

/// One gap per language: a tree of a thousand JavaScript files is one fact, not a thousand.
fn unsupported_gaps(files: &[SourceFile]) -> Vec<(CoverageGap, String)> {
    const SHOWN: usize = 5;
    let mut by_lang: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for f in files {
        if let Some(lang) = unsupported_language(&f.rel_path) {
            by_lang.entry(lang).or_default().push(&f.rel_path);
        }
    }
    by_lang
        .into_iter()
        .map(|(lang, paths)| {
            let n = paths.len();
            let mut listed = paths[..n.min(SHOWN)].join(", ");
            if n > SHOWN {
                listed.push_str(&format!(" and {} more", n - SHOWN));
            }
            let reason = format!(
                "{n} {lang} source file{} not analysed (no {lang} adapter): {listed}",
                if n == 1 { "" } else { "s" }
            );
            gap(GapKind::UnsupportedLanguage, paths[0], None, reason)
        })
        .collect()
}

fn outside_link_gap(link: &OutsideLink) -> (CoverageGap, String) {
    let what = if link.is_dir { "folder" } else { "file" };
    gap(
        GapKind::UnanalysedFile,
        &link.rel_path,
        None,
        format!(
            "symlinked {what} points outside the scanned root ({}); not followed, scan a folder that holds both",
            link.target.display()
        ),
    )
}

fn count_lines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

fn process(file: &SourceFile, opts: &DiscoverOptions) -> FileOutcome {
    let reject = |message: String, bytes: usize, lines: usize| FileOutcome::Rejected {
        message,
        line: None,
        bytes,
        lines,
    };
    let Some(adapter) = adapter_for(&file.rel_path) else {
        return reject("no language adapter for this file".into(), 0, 0);
    };
    let mut fh = match std::fs::File::open(&file.path) {
        Ok(f) => f,
        Err(e) => return reject(format!("cannot open: {e}"), 0, 0),
    };
    // The cap is checked on the bytes actually read, not on metadata alone, so a file that grows
    // (or a FIFO) cannot make us read without bound.
    let cap = opts.max_file_bytes;
    let mut bytes = Vec::new();
    if let Err(e) = (&mut fh)
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
    {
        return reject(format!("cannot read: {e}"), 0, 0);
    }
    if bytes.len() as u64 > cap {
        let size = fh.metadata().map(|m| m.len()).unwrap_or(bytes.len() as u64);
        return reject(
            format!("file is larger than the {cap}-byte limit ({size} bytes)"),
            0,
            0,
        );
    }
    let lines = count_lines(&bytes);
    let n = bytes.len();
    if let Some(pos) = bytes.iter().position(|&b| b == 0) {
        let line = count_lines(&bytes[..pos]) as u32 + 1;
        return FileOutcome::Rejected {
            message: "binary file (NUL byte)".into(),
            line: Some(line),
            bytes: n,
            lines,
        };
    }
    let source = match adapter.decode(&bytes) {
        Ok(s) => s,
        Err(e) => {
            return FileOutcome::Rejected {
                message: e.message,
                line: Some(e.line),
                bytes: n,
                lines,
            };
        }
    };
    match adapter.lower_file(&file.rel_path, &source, &opts.limits) {
        Ok(mut lowered) => FileOutcome::Lowered {
            // The conventions are the adapter's, whatever its lowering filled in.
            lowered: Box::new({
                lowered.module.conventions = adapter.conventions();
                lowered
            }),
            source,
            lines,
        },
        Err(e) => reject(e.to_string(), n, lines),
    }
}

/// Resolves registrations across the tree's modules, each language by its adapter (see
/// [`crate::LanguageAdapter::resolve`]), and records the sites seen and the gaps.
fn resolve_entry_points(lowered: &mut [Lowered], coverage: &mut Coverage, root: Option<&Path>) {
    for adapter in crate::adapters() {
        let mut mine: Vec<Module> = Vec::new();
        let mut slots = Vec::new();
        for (i, l) in lowered.iter_mut().enumerate() {
            if adapter.handles(l.module.language) {
                mine.push(std::mem::replace(&mut l.module, empty_module()));
                slots.push(i);
            }
        }
        if mine.is_empty() {
            continue;
        }
        let r = adapter.resolve(&mut mine, root);
        for (i, m) in slots.into_iter().zip(mine) {
            lowered[i].module = m;
        }
        coverage.registration_sites += r.registration_sites;
        coverage.gaps.extend(r.gaps);
        // Data files tool names were read from are accounted for as read (names only, no code).
        if !r.data_files.is_empty() {
            *coverage
                .files_by_language
                .entry("data".to_string())
                .or_default() += r.data_files.len();
        }
    }
}

fn empty_module() -> Module {
    Module {
        path: String::new(),
        name: String::new(),
        language: mcp_scan_ir::Language::Python,
        imports: Vec::new(),
        functions: Vec::new(),
        classes: Vec::new(),
        entry_points: Vec::new(),
        conventions: Default::default(),
    }
}
