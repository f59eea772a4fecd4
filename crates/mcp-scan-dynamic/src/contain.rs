//! Containment: the sandbox's root is built from an allow-list, not from the host (see
//! docs/runtime.md, "Containment").
//!
//! PID 1 mounts a fresh tmpfs (or, as root, binds the one the scanner mounted in the run
//! directory), shows in it only what the server needs (system directories, the interpreter and
//! its prefix, PATH entries, the server's project, a few `/etc` files, device nodes, fresh
//! `/proc`, scratch `/tmp` and HOME) and `pivot_root`s into it. Nothing in the mount table names
//! the host's layout: overlay layers are given by relative names, and host directories outside
//! the system's own sit at neutral volume paths reached through symlinks. Host directories
//! are shown through read-only overlays rather than bind mounts: a unix socket (or FIFO) is found
//! by its inode, and an overlay gives every file an inode of its own, so a host listener's socket
//! file seen through it refuses connections, now and for sockets made later. Landlock, where the
//! kernel has it, is a second wall: writes only in the scratch areas, no connection to abstract
//! sockets or signal to processes outside the sandbox.
//!
//! Everything here that runs in the child after `fork` ([`build_root`], [`landlock_restrict`])
//! uses raw syscalls on data prepared before the fork.

use std::collections::BTreeSet;
use std::ffi::{CString, c_int};
use std::path::{Component, Path, PathBuf};

/// Top-level system directories shown read-only (or re-created as the symlinks they are).
const SYSTEM: &[&str] = &["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/// `/etc` files copied into the sandbox when the host has them (symlinks re-created).
const ETC_FILES: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "nsswitch.conf",
    "host.conf",
    "gai.conf",
    "protocols",
    "services",
    "networks",
    "mime.types",
    "os-release",
    "lsb-release",
    "debian_version",
    "localtime",
    "timezone",
    "shells",
    "inputrc",
    "magic",
    "magic.mime",
    "mailcap",
    "gitconfig",
    "ca-certificates.conf",
    "locale.alias",
    "locale.conf",
    "login.defs",
    "bash.bashrc",
    "profile",
];

/// `/etc` directories shown read-only when the host has them (`*` matches a suffix).
const ETC_DIRS: &[&str] = &[
    "ssl",
    "ca-certificates",
    "pki",
    "alternatives",
    "ld.so.conf.d",
    "fonts",
    "terminfo",
    "crypto-policies",
    "python3*",
];

/// Device nodes bound from the host (read-only mounts; writing to a device needs no rw mount).
const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom", "tty"];

/// Host places never shown, even when a PATH entry or an argument names them: they hold the
/// host's services and state, or are the sandbox's own.
const NEVER: &[&str] = &["/proc", "/sys", "/dev", "/run", "/var/run"];

/// Files that mark the top of a server's project.
pub(crate) const PROJECT_MARKERS: &[&str] = &[
    ".git",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "package.json",
    "go.mod",
    "Cargo.toml",
];

fn under(p: &Path, root: &str) -> bool {
    p.starts_with(root)
}

/// Directories too broad to show whole: `/`, top-level directories, homes and the host HOME.
fn too_broad(p: &Path, host_home: Option<&Path>) -> bool {
    let depth = p
        .components()
        .filter(|c| matches!(c, Component::Normal(_)))
        .count();
    depth <= 1
        || host_home.is_some_and(|h| p == h || h.starts_with(p))
        || p.parent() == Some(Path::new("/home"))
}

/// The nearest ancestor of `dir` (itself included) that holds a project marker and is not too
/// broad to show (`/`, a top-level directory, a home). A script imports from its project (a
/// package, a sibling module one level up). A project inside `node_modules` is widened to the
/// tree that holds the outermost `node_modules`, where node finds the hoisted dependencies.
pub(crate) fn project_root(dir: &Path, host_home: Option<&Path>) -> Option<PathBuf> {
    let found = dir
        .ancestors()
        .take_while(|a| !too_broad(a, host_home))
        .find(|a| PROJECT_MARKERS.iter().any(|m| a.join(m).exists()))?
        .to_path_buf();
    let mut top = PathBuf::new();
    for c in found.components() {
        if c.as_os_str() == "node_modules" {
            return (!too_broad(&top, host_home)).then_some(top).or(Some(found));
        }
        top.push(c);
    }
    Some(found)
}

/// Finds `prog` on `path_var` (a PATH value).
fn which_in(prog: &str, path_var: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(path_var)
        .map(|d| d.join(prog))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Host paths the command needs, besides the system directories: the executable's prefix
/// (parent of its `bin/`, e.g. a venv or a pyenv version), its script interpreter's, the PATH
/// entries, and for every absolute path argument its project (see [`project_root`]), else its
/// directory, else (directly in a broad directory) the file itself.
pub(crate) fn needed_paths(command: &[String], path_var: &str) -> Vec<PathBuf> {
    let host_home = std::env::var_os("HOME").map(PathBuf::from);
    let host_home = host_home.as_deref().filter(|h| h.is_absolute());
    let mut out: Vec<PathBuf> = Vec::new();
    let command0 = Path::new(command.first().map_or("", String::as_str));
    // A script's interpreter (`#!/path/python`, `#!/usr/bin/env node`) must be visible too.
    // Only the first line matters: the command may be a 100 MB interpreter binary.
    let interpreter = std::fs::File::open(command0).ok().and_then(|f| {
        let mut b = Vec::with_capacity(256);
        std::io::Read::read_to_end(&mut std::io::Read::take(f, 256), &mut b).ok()?;
        let head = String::from_utf8_lossy(&b).into_owned();
        let line = head.strip_prefix("#!")?.lines().next()?.to_string();
        let mut words = line.split_whitespace();
        let first = words.next()?.to_string();
        if first.ends_with("/env") {
            let prog = words.find(|w| !w.starts_with('-'))?;
            which_in(prog, path_var)
        } else {
            Some(PathBuf::from(first))
        }
    });
    for exe in [Some(command0.to_path_buf()), interpreter]
        .into_iter()
        .flatten()
    {
        for e in [Some(exe.clone()), std::fs::canonicalize(&exe).ok()]
            .into_iter()
            .flatten()
        {
            if let Some(dir) = e.parent() {
                let prefix = if dir.file_name().is_some_and(|n| n == "bin") {
                    dir.parent().unwrap_or(dir)
                } else {
                    dir
                };
                if !too_broad(prefix, host_home) {
                    out.push(prefix.to_path_buf());
                } else {
                    out.push(dir.to_path_buf());
                }
            }
        }
    }
    out.extend(
        std::env::split_paths(path_var).filter(|d| d.is_absolute() && !too_broad(d, host_home)),
    );
    for a in command.iter().skip(1) {
        let p = Path::new(a);
        if !p.is_absolute() || !p.exists() {
            continue;
        }
        for q in [Some(p.to_path_buf()), std::fs::canonicalize(p).ok()]
            .into_iter()
            .flatten()
        {
            let dir = if q.is_dir() {
                Some(q.as_path())
            } else {
                q.parent()
            };
            match dir {
                Some(d) if !too_broad(d, host_home) => {
                    out.push(project_root(d, host_home).unwrap_or_else(|| d.to_path_buf()))
                }
                // A file directly in a broad directory is shown alone; a broad directory named
                // as an argument (`/home`, `/etc`) is not shown at all.
                _ if q.is_file() => out.push(q.clone()),
                _ => {}
            }
        }
    }
    out.retain(|p| p.exists() && p != Path::new("/") && !NEVER.iter().any(|n| under(p, n)));
    out
}

/// Directories a path in the command walks through before a `..` (`/repo/crates/x/../../venv`):
/// the kernel resolves `..` on the directory itself, so it must exist in the sandbox too.
pub(crate) fn dotdot_anchors(command: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for a in command {
        let p = Path::new(a);
        if !p.is_absolute() {
            continue;
        }
        let mut cur = PathBuf::new();
        for comp in p.components() {
            if comp == Component::ParentDir && cur.is_dir() {
                if let Ok(real) = std::fs::canonicalize(&cur) {
                    out.push(real);
                }
            }
            cur.push(comp);
        }
    }
    out
}

/// One step of building the root, executed in order by [`build_root`].
pub(crate) enum Step {
    /// mkdir (an existing directory is fine).
    Dir(CString),
    /// A fresh tmpfs with these options.
    Tmpfs(CString, CString),
    /// A read-only overlay of the host directory `src` at `dst`; falls back to a bind mount of
    /// `src` when the kernel refuses (counted, reported). The layers are given to the kernel by
    /// relative names in the staging directory, since mountinfo shows them as given: an absolute
    /// host path there names the host's layout (and the scanner's own directories).
    Overlay {
        dst: CString,
        src: CString,
        /// For a volume: its slot in [`RootPlan::rw_volumes`] and the options of a writable
        /// overlay with a throwaway upper layer in the staging directory (with and without
        /// `userxattr`). Writable at the mount, the volume does not count among the read-only
        /// mounts a desktop has few of; Landlock still keeps the server's writes out.
        upper: Option<(usize, [CString; 2])>,
    },
    /// A bind mount; `file` creates an empty file to mount on.
    Bind {
        src: CString,
        dst: CString,
        file: bool,
    },
    File(CString, Vec<u8>),
    Symlink(CString, CString),
    Proc(CString),
    /// Best effort: a fresh sysfs (the sandbox's own network namespace).
    Sysfs(CString),
    /// Best effort: a private devpts instance.
    Devpts(CString),
}

/// How the root is built, prepared before the fork.
pub(crate) struct RootPlan {
    /// The host directory the new root's tmpfs is mounted on (in the sandbox's mount namespace
    /// only, the host seeing it empty; or, rooted, the tmpfs the scanner mounted there).
    pub newroot: CString,
    /// Where overlays get their layers from: `STAGE/l` (the host directory, bound there for the
    /// moment of the mount; removed before the pivot) and `STAGE/e` (empty).
    pub stage: [CString; 3],
    pub steps: Vec<Step>,
    /// The volumes mounted with an upper layer, as the sandbox names them, made writable at the
    /// mount after the root is read-only (only those whose overlay [`build_root`] made).
    pub rw_volumes: Vec<CString>,
    /// Host paths shown in the sandbox (for the report).
    pub shown: Vec<PathBuf>,
    /// Where each shown host path is in the sandbox, as (sandbox path, host path): at its own
    /// place, and for a moved one also at its volume (for the path resolver).
    pub placed: Vec<(PathBuf, PathBuf)>,
}

/// What the root is made of, besides the host paths.
pub(crate) struct RootSpec<'a> {
    pub newroot: &'a Path,
    /// `newroot` is a tmpfs the host mounted, already holding HOME, `/tmp` and the device nodes
    /// (`dev_nodes`) as plain directories: nothing is mounted for them.
    pub rooted: bool,
    /// Where host directories outside the system's own are mounted (the persona's removable
    /// volumes, `/media/<user>`), each reached from its own path by a symlink: a mount point
    /// is the one path every process can read from the mount table, and a host path names the
    /// host's layout (a checkout called after the scanner, a CI job's work directory).
    pub volumes: &'a Path,
    pub home: (&'a str, &'a Path),
    pub tmp: &'a Path,
    pub needed: &'a [PathBuf],
    /// Directories made (empty) in the new root unless shown: see [`dotdot_anchors`].
    pub anchors: &'a [PathBuf],
    pub hostname: &'a str,
    /// Nameserver written into resolv.conf when the host's is a link into `/run`.
    pub sink_dns: &'a str,
    /// An empty host directory to make copies of the device nodes in (see [`make_dev_nodes`]).
    pub dev_nodes: Option<&'a Path>,
}

/// Copies of the host's device nodes in `dir` (same type, numbers and mode), plus `pts` and
/// `shm` to mount on; false when one cannot be made (not root on the host). The copies are the
/// run's own inodes: the server may chmod or remove them without touching the host's.
fn make_dev_nodes(dir: &Path) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    for d in DEVICES {
        let host = Path::new("/dev").join(d);
        let Ok(m) = std::fs::metadata(&host) else {
            continue;
        };
        if !m.file_type().is_char_device() {
            continue;
        }
        let Ok(path) = CString::new(dir.join(d).as_os_str().as_encoded_bytes()) else {
            return false;
        };
        // SAFETY: mknod on a NUL-terminated path with the host node's own mode and numbers.
        let r = unsafe {
            libc::mknod(
                path.as_ptr(),
                m.mode() as libc::mode_t,
                m.rdev() as libc::dev_t,
            )
        };
        if r != 0 {
            return false;
        }
        // The umask may have narrowed the mode.
        let _ = std::fs::set_permissions(
            dir.join(d),
            std::os::unix::fs::PermissionsExt::from_mode(m.mode() & 0o7777),
        );
    }
    ["pts", "shm"]
        .iter()
        .all(|s| std::fs::create_dir_all(dir.join(s)).is_ok())
}

fn c(p: &Path) -> CString {
    // Paths come from the host's file system or from constants: no NUL inside.
    CString::new(p.as_os_str().as_encoded_bytes()).unwrap_or_default()
}

/// Volumes given an upper layer at most (the rest stay read-only overlays).
pub(crate) const MAX_RW_VOLUMES: usize = 32;

/// A removable volume's name for a host directory (`1A2B-3C4D`, like a FAT serial number): stable
/// for the path, and naming nothing of it.
fn volume_label(p: &Path) -> String {
    // FNV-1a.
    let h = p
        .as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
        });
    let v = (h ^ (h >> 32)) as u32;
    format!("{:04X}-{:04X}", v >> 16, v & 0xffff)
}

/// passwd/group lines of system accounts only (ids below 1000, and nobody): the host's own
/// users' names and homes stay out.
fn system_accounts(text: &str) -> String {
    text.lines()
        .filter(|l| {
            l.split(':')
                .nth(2)
                .and_then(|id| id.parse::<u32>().ok())
                .is_some_and(|id| id < 1000 || id == 65534)
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Bytes of one `/etc` directory copied into the new root before it is shown by a mount instead.
const ETC_COPY_BUDGET: u64 = 4 << 20;

/// The regular files and symlinks under `dir` (to a small depth), or false when it holds more
/// than `budget` bytes, is too deep, or holds anything else (sockets, devices, FIFOs).
fn copy_tree(
    dir: &Path,
    depth: u32,
    budget: &mut u64,
    files: &mut Vec<(PathBuf, Vec<u8>)>,
    links: &mut Vec<(PathBuf, PathBuf)>,
) -> bool {
    if depth > 4 {
        return false;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return false;
    };
    for e in rd.flatten() {
        let p = e.path();
        let Ok(m) = std::fs::symlink_metadata(&p) else {
            return false;
        };
        if m.file_type().is_symlink() {
            match std::fs::read_link(&p) {
                Ok(t) => links.push((p, t)),
                Err(_) => return false,
            }
        } else if m.is_dir() {
            if !copy_tree(&p, depth + 1, budget, files, links) {
                return false;
            }
        } else if m.is_file() && m.len() <= *budget {
            match std::fs::read(&p) {
                Ok(b) => {
                    *budget = budget.saturating_sub(b.len() as u64);
                    files.push((p, b));
                }
                // Unreadable (a private key of the host's): the whole directory is shown
                // through its overlay instead, where its permissions still hold.
                Err(_) => return false,
            }
        } else {
            return false;
        }
    }
    true
}

impl RootPlan {
    pub(crate) fn new(spec: &RootSpec) -> RootPlan {
        let root = spec.newroot;
        let inside = |p: &Path| root.join(p.strip_prefix("/").unwrap_or(p));
        let mut mounts: Vec<(PathBuf, Step)> = Vec::new();
        let mut files: Vec<(PathBuf, Vec<u8>)> = Vec::new();
        let mut links: Vec<(PathBuf, PathBuf)> = Vec::new();
        let mut shown: Vec<PathBuf> = Vec::new();
        let overlay = |host: &Path| Step::Overlay {
            dst: c(&inside(host)),
            src: c(host),
            upper: None,
        };
        let show_dir = |host: &Path,
                        mounts: &mut Vec<(PathBuf, Step)>,
                        links: &mut Vec<(PathBuf, PathBuf)>,
                        shown: &mut Vec<PathBuf>| {
            // Symlinks on the way are re-created as they are; the directory is shown where it
            // really is.
            let mut cur = PathBuf::from("/");
            for comp in host.components().skip(1) {
                let next = cur.join(comp);
                if let Ok(t) = std::fs::read_link(&next) {
                    links.push((next.clone(), t));
                }
                cur = std::fs::canonicalize(&next).unwrap_or(next);
            }
            let Ok(real) = std::fs::canonicalize(host) else {
                return;
            };
            if real == Path::new("/")
                || NEVER.iter().any(|n| under(&real, n))
                || shown.iter().any(|s| real.starts_with(s))
            {
                return;
            }
            shown.retain(|s| !s.starts_with(&real));
            mounts.retain(|(p, _)| !p.starts_with(&real) || p == &real);
            shown.push(real.clone());
            if real.is_dir() {
                mounts.push((real.clone(), overlay(&real)));
            } else if real.is_file() {
                mounts.push((
                    real.clone(),
                    Step::Bind {
                        src: c(&real),
                        dst: c(&inside(&real)),
                        file: true,
                    },
                ));
            }
        };
        for s in SYSTEM {
            let p = Path::new("/").join(s);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(t) = std::fs::read_link(&p) {
                        links.push((p, t));
                    }
                }
                Ok(m) if m.is_dir() => show_dir(&p, &mut mounts, &mut links, &mut shown),
                _ => {}
            }
        }
        for n in spec.needed {
            show_dir(n, &mut mounts, &mut links, &mut shown);
        }
        // Mount points of the host below a shown directory are not in its overlay: show them too.
        if let Ok(mi) = std::fs::read_to_string("/proc/self/mountinfo") {
            let subs: Vec<PathBuf> = mi
                .lines()
                .filter_map(|l| l.split(' ').nth(4))
                .map(|m| PathBuf::from(m.replace("\\040", " ")))
                .filter(|m| shown.iter().any(|s| m.starts_with(s) && m != s))
                .collect();
            for m in subs {
                if m.is_dir() {
                    mounts.push((m.clone(), overlay(&m)));
                }
            }
        }
        // /etc: a few files and directories of the host, and the files the sandbox writes.
        let etc = Path::new("/etc");
        for f in ETC_FILES {
            let p = etc.join(f);
            match std::fs::symlink_metadata(&p) {
                Ok(m) if m.file_type().is_symlink() => {
                    if let Ok(t) = std::fs::read_link(&p) {
                        links.push((p, t));
                    }
                }
                Ok(m) if m.is_file() && m.len() <= 4 << 20 => {
                    if let Ok(b) = std::fs::read(&p) {
                        files.push((p, b));
                    }
                }
                _ => {}
            }
        }
        if let Ok(rd) = std::fs::read_dir(etc) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let listed = ETC_DIRS.iter().any(|d| match d.strip_suffix('*') {
                    Some(prefix) => name.starts_with(prefix),
                    None => name == *d,
                });
                if !listed {
                    continue;
                }
                let p = e.path();
                match std::fs::symlink_metadata(&p) {
                    Ok(m) if m.file_type().is_symlink() => {
                        if let Ok(t) = std::fs::read_link(&p) {
                            links.push((p, t));
                        }
                    }
                    // Copied into the new root when small (most are): a dozen read-only mounts
                    // under /etc is a sandbox's signature, a desktop has none.
                    Ok(m) if m.is_dir() => {
                        let mut budget = ETC_COPY_BUDGET;
                        let (mut f, mut l) = (Vec::new(), Vec::new());
                        if copy_tree(&p, 0, &mut budget, &mut f, &mut l) {
                            files.extend(f);
                            links.extend(l);
                        } else {
                            mounts.push((p.clone(), overlay(&p)));
                            shown.push(p);
                        }
                    }
                    _ => {}
                }
            }
        }
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let mut passwd = system_accounts(&read("/etc/passwd"));
        if passwd.is_empty() {
            passwd = "root:x:0:0:root:/root:/bin/sh\n".into();
        }
        let mut group = system_accounts(&read("/etc/group"));
        if group.is_empty() {
            group = "root:x:0:\n".into();
        }
        let resolv = match std::fs::canonicalize("/etc/resolv.conf") {
            Ok(t) if !t.starts_with("/run/") && !t.starts_with("/var/run/") => {
                std::fs::read(&t).unwrap_or_default()
            }
            _ => Vec::new(),
        };
        let resolv = if resolv.is_empty() {
            format!("nameserver {}\n", spec.sink_dns).into_bytes()
        } else {
            resolv
        };
        let host = spec.hostname;
        for (name, content) in [
            ("passwd", passwd.into_bytes()),
            ("group", group.into_bytes()),
            (
                "hosts",
                format!("127.0.0.1\tlocalhost\n127.0.1.1\t{host}\n::1\tlocalhost ip6-localhost ip6-loopback\n")
                    .into_bytes(),
            ),
            ("hostname", format!("{host}\n").into_bytes()),
            ("resolv.conf", resolv),
        ] {
            files.push((etc.join(name), content));
        }
        // Kernel and devices: fresh /proc, a tmpfs /dev with a few host nodes, scratch areas.
        mounts.push((
            PathBuf::from("/proc"),
            Step::Proc(c(&inside(Path::new("/proc")))),
        ));
        mounts.push((
            PathBuf::from("/sys"),
            Step::Sysfs(c(&inside(Path::new("/sys")))),
        ));
        let tmpfs = |p: &str, mode: &str| {
            (
                PathBuf::from(p),
                Step::Tmpfs(
                    c(&inside(Path::new(p))),
                    CString::new(format!("mode={mode}")).unwrap_or_default(),
                ),
            )
        };
        // One directory of copies of the device nodes (made on the host, where root may mknod)
        // rather than a tmpfs with six read-only binds of the host's nodes.
        let dev_copied = spec.dev_nodes.filter(|d| make_dev_nodes(d));
        if dev_copied.is_some() && spec.rooted {
            // The nodes are in the new root's own /dev already.
        } else if let Some(dir) = dev_copied {
            mounts.push((
                PathBuf::from("/dev"),
                Step::Bind {
                    src: c(dir),
                    dst: c(&inside(Path::new("/dev"))),
                    file: false,
                },
            ));
        } else {
            mounts.push(tmpfs("/dev", "755"));
        }
        for d in DEVICES.iter().filter(|_| dev_copied.is_none()) {
            let p = Path::new("/dev").join(d);
            if p.exists() {
                mounts.push((
                    p.clone(),
                    Step::Bind {
                        src: c(&p),
                        dst: c(&inside(&p)),
                        file: true,
                    },
                ));
            }
        }
        mounts.push((
            PathBuf::from("/dev/pts"),
            Step::Devpts(c(&inside(Path::new("/dev/pts")))),
        ));
        mounts.push(tmpfs("/dev/shm", "1777"));
        mounts.push(tmpfs("/var/tmp", "1777"));
        for (l, t) in [
            ("/dev/fd", "/proc/self/fd"),
            ("/dev/stdin", "/proc/self/fd/0"),
            ("/dev/stdout", "/proc/self/fd/1"),
            ("/dev/stderr", "/proc/self/fd/2"),
            ("/dev/ptmx", "pts/ptmx"),
        ] {
            links.push((PathBuf::from(l), PathBuf::from(t)));
        }
        if !spec.rooted {
            mounts.push((
                PathBuf::from("/tmp"),
                Step::Bind {
                    src: c(spec.tmp),
                    dst: c(&inside(Path::new("/tmp"))),
                    file: false,
                },
            ));
            mounts.push((
                PathBuf::from(spec.home.0),
                Step::Bind {
                    src: c(spec.home.1),
                    dst: c(&inside(Path::new(spec.home.0))),
                    file: false,
                },
            ));
        }
        // Host directories outside the system's own move to volumes, their sub-mounts with them.
        let in_place = |p: &Path| {
            p.starts_with("/etc") || SYSTEM.iter().any(|s| p.starts_with(Path::new("/").join(s)))
        };
        let moved: Vec<(PathBuf, PathBuf)> = shown
            .iter()
            .filter(|s| s.is_dir() && !in_place(s))
            .map(|s| (s.clone(), spec.volumes.join(volume_label(s))))
            .collect();
        for (p, step) in &mut mounts {
            if let Some((host, vol)) = moved.iter().find(|(h, _)| p.starts_with(h)) {
                let at = vol.join(p.strip_prefix(host).unwrap_or(Path::new("")));
                if let Step::Overlay { dst, .. } = step {
                    *dst = c(&inside(&at));
                }
                *p = at;
            }
        }
        // A volume gets an upper layer where Landlock keeps writes out (a host-made root).
        let mut rw_volumes = Vec::new();
        for (p, step) in &mut mounts {
            if let Step::Overlay { upper, .. } = step
                && spec.rooted
                && rw_volumes.len() < MAX_RW_VOLUMES
                && moved.iter().any(|(_, v)| v == p)
            {
                let i = rw_volumes.len();
                let data = format!("lowerdir=l,upperdir=u{i},workdir=w{i}");
                *upper = Some((
                    i,
                    [
                        CString::new(format!("{data},userxattr")).unwrap_or_default(),
                        CString::new(data).unwrap_or_default(),
                    ],
                ));
                rw_volumes.push(c(p));
            }
        }
        // A symlink met on the way to a shown directory, inside another shown directory (a
        // project's `.venv` linking to a venv elsewhere), is in that directory's volume already:
        // re-created, it would make the project's path a directory where its volume link goes.
        links.retain(|(p, _)| !moved.iter().any(|(h, _)| p.starts_with(h) && p != h));
        links.extend(moved.iter().cloned());
        let mut placed: Vec<(PathBuf, PathBuf)> =
            shown.iter().map(|s| (s.clone(), s.clone())).collect();
        placed.extend(moved.iter().map(|(h, v)| (v.clone(), h.clone())));
        // Parents before children (a kept project under /tmp goes into the scratch /tmp).
        mounts.sort_by_key(|(p, _)| p.components().count());

        // A host-made root is bound onto itself: a mount made in this namespace, not the
        // locked copy of the host's, which pivot_root refuses.
        let mut steps = vec![if spec.rooted {
            Step::Bind {
                src: c(root),
                dst: c(root),
                file: false,
            }
        } else {
            Step::Tmpfs(c(root), c(Path::new("mode=755")))
        }];
        // "lost+found", the one directory a desktop's root file system has of its own.
        let stage_dir = root.join("lost+found");
        let stage = [
            c(&stage_dir),
            c(&stage_dir.join("l")),
            c(&stage_dir.join("e")),
        ];
        for d in &stage {
            steps.push(Step::Dir(d.clone()));
        }
        for i in 0..rw_volumes.len() {
            for d in ["u", "w"] {
                steps.push(Step::Dir(c(&stage_dir.join(format!("{d}{i}")))));
            }
        }
        let mut made: BTreeSet<PathBuf> = BTreeSet::new();
        let mut mkdirs = |p: &Path, steps: &mut Vec<Step>| {
            let mut cur = PathBuf::from("/");
            for comp in p.components().skip(1) {
                cur.push(comp);
                if made.insert(cur.clone()) {
                    steps.push(Step::Dir(c(&inside(&cur))));
                }
            }
        };
        // Files first, in the new root's own tmpfs: a mount placed later may cover one, but a
        // file is never written through a mount of the host.
        let written: BTreeSet<PathBuf> = files.iter().map(|(p, _)| p.clone()).collect();
        for (p, content) in files {
            if let Some(d) = p.parent() {
                mkdirs(d, &mut steps);
            }
            steps.push(Step::File(c(&inside(&p)), content));
        }
        for (p, step) in mounts {
            if written.contains(&p) {
                continue;
            }
            let dir_of = match &step {
                Step::Bind { file: true, .. } => p.parent().map(Path::to_path_buf),
                _ => Some(p.clone()),
            };
            if let Some(d) = dir_of {
                mkdirs(&d, &mut steps);
            }
            steps.push(step);
        }
        // An anchor inside a moved directory is there already, and a directory made at its path
        // would stand where the symlink goes.
        for a in spec.anchors {
            if !moved.iter().any(|(h, _)| a.starts_with(h)) {
                mkdirs(a, &mut steps);
            }
        }
        // Symlinks last: none exists while directories are made and mounts placed, so no
        // absolute link target can lead a step out of the new root.
        let mut seen = BTreeSet::new();
        for (p, t) in links {
            if !seen.insert(p.clone()) {
                continue;
            }
            if let Some(d) = p.parent() {
                mkdirs(d, &mut steps);
            }
            steps.push(Step::Symlink(c(&inside(&p)), c(&t)));
        }
        RootPlan {
            newroot: c(root),
            stage,
            steps,
            rw_volumes,
            shown,
            placed,
        }
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Builds the root described by `plan` and enters it (`pivot_root`; the host's root is
/// detached). Returns how many overlays fell back to bind mounts, or the failing step's errno.
/// Post-fork safe: raw syscalls on prepared data.
pub(crate) fn build_root(plan: &RootPlan, upper_made: &mut [bool]) -> Result<u16, i32> {
    let nul = std::ptr::null();
    let mut fallbacks = 0u16;
    // SAFETY: mount/mkdir/open/symlink/pivot_root on NUL-terminated strings prepared before
    // the fork.
    unsafe {
        let mnt = |src: *const libc::c_char,
                   dst: &CString,
                   fs: *const libc::c_char,
                   flags: libc::c_ulong,
                   data: *const libc::c_char| {
            libc::mount(src, dst.as_ptr(), fs, flags, data.cast()) == 0
        };
        let tmpfs = c"tmpfs".as_ptr();
        for step in &plan.steps {
            match step {
                Step::Dir(p) => {
                    // Inside a read-only overlay an existing directory may answer EROFS; a
                    // missing one makes the mount on it fail.
                    if libc::mkdir(p.as_ptr(), 0o755) != 0
                        && !matches!(errno(), libc::EEXIST | libc::EROFS)
                    {
                        return Err(errno());
                    }
                }
                Step::Tmpfs(p, data) => {
                    if !mnt(
                        tmpfs,
                        p,
                        tmpfs,
                        libc::MS_NOSUID | libc::MS_NODEV,
                        data.as_ptr(),
                    ) {
                        return Err(errno());
                    }
                }
                Step::Overlay { dst, src, upper } => {
                    let ovl = c"overlay".as_ptr();
                    let [stage, lower, _] = &plan.stage;
                    let staged = mnt(src.as_ptr(), lower, nul, libc::MS_BIND | libc::MS_REC, nul);
                    let in_stage = staged && libc::chdir(stage.as_ptr()) == 0;
                    let writable = in_stage
                        && upper.as_ref().is_some_and(|(i, data)| {
                            let ok = data.iter().any(|d| mnt(ovl, dst, ovl, 0, d.as_ptr()));
                            if let Some(slot) = upper_made.get_mut(*i) {
                                *slot = ok;
                            }
                            ok
                        });
                    let ok = writable
                        || (in_stage
                            && mnt(ovl, dst, ovl, libc::MS_RDONLY, c"lowerdir=l:e".as_ptr()));
                    if staged {
                        // The overlay holds its own reference to the layer.
                        libc::umount2(lower.as_ptr(), libc::MNT_DETACH);
                    }
                    if !ok {
                        if !mnt(src.as_ptr(), dst, nul, libc::MS_BIND | libc::MS_REC, nul) {
                            return Err(errno());
                        }
                        fallbacks = fallbacks.saturating_add(1);
                    }
                }
                Step::Bind { src, dst, file } => {
                    if *file {
                        let fd = libc::open(
                            dst.as_ptr(),
                            libc::O_CREAT | libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                            0o644,
                        );
                        if fd >= 0 {
                            libc::close(fd);
                        }
                    }
                    if !mnt(src.as_ptr(), dst, nul, libc::MS_BIND | libc::MS_REC, nul) {
                        return Err(errno());
                    }
                }
                Step::File(p, content) => {
                    // O_EXCL: only a new file in the new root's tmpfs is ever written.
                    let fd = libc::open(
                        p.as_ptr(),
                        libc::O_CREAT
                            | libc::O_EXCL
                            | libc::O_NOFOLLOW
                            | libc::O_WRONLY
                            | libc::O_CLOEXEC,
                        0o644,
                    );
                    if fd < 0 {
                        return Err(errno());
                    }
                    libc::write(fd, content.as_ptr().cast(), content.len());
                    libc::close(fd);
                }
                Step::Symlink(p, t) => {
                    // A name that exists already (a shown directory) stays.
                    libc::symlink(t.as_ptr(), p.as_ptr());
                }
                Step::Proc(p) => {
                    let proc_fs = c"proc".as_ptr();
                    if !mnt(
                        proc_fs,
                        p,
                        proc_fs,
                        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                        nul,
                    ) {
                        return Err(errno());
                    }
                }
                Step::Sysfs(p) => {
                    let sys = c"sysfs".as_ptr();
                    mnt(
                        sys,
                        p,
                        sys,
                        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC | libc::MS_RDONLY,
                        nul,
                    );
                }
                Step::Devpts(p) => {
                    let pts = c"devpts".as_ptr();
                    mnt(
                        pts,
                        p,
                        pts,
                        libc::MS_NOSUID | libc::MS_NOEXEC,
                        c"newinstance,ptmxmode=0666,mode=620".as_ptr(),
                    );
                }
            }
        }
        // The empty layer stays: an overlay lists a directory through every layer, and a removed
        // one makes every listing empty. Root's alone, like a desktop's lost+found.
        libc::rmdir(plan.stage[1].as_ptr());
        libc::chmod(plan.stage[0].as_ptr(), 0o700);
        if libc::chdir(plan.newroot.as_ptr()) != 0 {
            return Err(errno());
        }
        let dot = c".".as_ptr();
        if libc::syscall(libc::SYS_pivot_root, dot, dot) != 0 {
            return Err(errno());
        }
        // The old root is stacked on the new one at "/": detach it, the host is gone.
        if libc::umount2(dot, libc::MNT_DETACH) != 0 {
            return Err(errno());
        }
        if libc::chdir(c"/".as_ptr()) != 0 {
            return Err(errno());
        }
    }
    Ok(fallbacks)
}

// Landlock (raw syscalls: the calls run after fork, and the ABI needs nothing more).
const LANDLOCK_CREATE_RULESET_VERSION: u32 = 1;
const LANDLOCK_RULE_PATH_BENEATH: c_int = 1;
const FS_EXECUTE: u64 = 1;
const FS_WRITE_FILE: u64 = 1 << 1;
const FS_READ_FILE: u64 = 1 << 2;
const FS_READ_DIR: u64 = 1 << 3;
const FS_TRUNCATE: u64 = 1 << 14;
const FS_IOCTL_DEV: u64 = 1 << 15;
const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1;
const SCOPE_SIGNAL: u64 = 1 << 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
    handled_access_net: u64,
    scoped: u64,
}

#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// The kernel's Landlock ABI version (0: none, or disabled at boot).
pub fn landlock_abi() -> u32 {
    // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a number.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(v).unwrap_or(0)
}

/// Every filesystem right the ABI knows.
fn fs_rights(abi: u32) -> u64 {
    let mut r = (1u64 << 13) - 1; // ABI 1: execute … make_sym
    if abi >= 2 {
        r |= 1 << 13; // refer
    }
    if abi >= 3 {
        r |= FS_TRUNCATE;
    }
    if abi >= 5 {
        r |= FS_IOCTL_DEV;
    }
    r
}

/// Layers Landlock put in force, as bits (see [`Layers`]).
pub(crate) const LL_FS: u8 = 1;
pub(crate) const LL_ABSTRACT_UNIX: u8 = 1 << 1;
pub(crate) const LL_SIGNAL: u8 = 1 << 2;
/// Not applied: without `nsenter`, the tracer-hiding PID namespace mounts its /proc after this
/// point (`unshare --mount-proc`), and a Landlock domain forbids mounts.
pub(crate) const LL_SKIPPED: u8 = 1 << 7;

/// Paths (in the new root) and the rights each gets beneath it.
pub(crate) struct LandlockRules {
    pub read: Vec<CString>,
    pub write: Vec<CString>,
    pub devices: Vec<CString>,
    pub proc_: Vec<CString>,
    /// Single files that may be run (and read) although they live outside the root: the
    /// scanner's own executable, which launches the server as its client would (launcher.rs).
    pub exec_files: Vec<c_int>,
}

/// Restricts this process and everything it runs: the whole tree readable and executable,
/// writes only beneath `write` (devices beneath `devices`, procfs files beneath `proc_`), and,
/// from ABI 6, no connection to abstract unix sockets and no signal outside the sandbox.
/// Returns (ABI, layers in force). Post-fork safe.
pub(crate) fn landlock_restrict(rules: &LandlockRules) -> (u32, u8) {
    let abi = landlock_abi();
    if abi == 0 {
        return (0, 0);
    }
    let all = fs_rights(abi);
    let scoped = if abi >= 6 {
        SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL
    } else {
        0
    };
    let attr = RulesetAttr {
        handled_access_fs: all,
        handled_access_net: 0,
        scoped,
    };
    // Older kernels reject a larger struct than they know; ABI < 4 has only the first field.
    let size = if abi >= 6 {
        std::mem::size_of::<RulesetAttr>()
    } else if abi >= 4 {
        16
    } else {
        8
    };
    // SAFETY: Landlock syscalls with correctly laid-out attributes and descriptors we own.
    unsafe {
        let fd = libc::syscall(
            libc::SYS_landlock_create_ruleset,
            &attr as *const RulesetAttr,
            size,
            0u32,
        ) as c_int;
        if fd < 0 {
            return (abi, 0);
        }
        let read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
        let dev = read | FS_WRITE_FILE | (all & (FS_TRUNCATE | FS_IOCTL_DEV));
        let groups: [(&Vec<CString>, u64); 4] = [
            (&rules.read, read),
            (&rules.write, all),
            (&rules.devices, dev),
            (&rules.proc_, read | FS_WRITE_FILE),
        ];
        for (paths, access) in groups {
            for p in paths {
                let pfd = libc::open(p.as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
                if pfd < 0 {
                    continue;
                }
                let rule = PathBeneathAttr {
                    allowed_access: access,
                    parent_fd: pfd,
                };
                libc::syscall(
                    libc::SYS_landlock_add_rule,
                    fd,
                    LANDLOCK_RULE_PATH_BENEATH,
                    &rule as *const PathBeneathAttr,
                    0u32,
                );
                libc::close(pfd);
            }
        }
        for f in &rules.exec_files {
            let rule = PathBeneathAttr {
                allowed_access: FS_EXECUTE | FS_READ_FILE,
                parent_fd: *f,
            };
            libc::syscall(
                libc::SYS_landlock_add_rule,
                fd,
                LANDLOCK_RULE_PATH_BENEATH,
                &rule as *const PathBeneathAttr,
                0u32,
            );
        }
        let ok = libc::syscall(libc::SYS_landlock_restrict_self, fd, 0u32) == 0;
        libc::close(fd);
        if !ok {
            return (abi, 0);
        }
    }
    let mut layers = LL_FS;
    if abi >= 6 {
        layers |= LL_ABSTRACT_UNIX | LL_SIGNAL;
    }
    (abi, layers)
}

/// Which containment layers were in force for a run, as PID 1 reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Layers {
    /// Landlock ABI of the kernel (0: none).
    pub landlock_abi: u32,
    /// `LL_*` bits.
    pub landlock: u8,
    /// Host directories shown by a plain bind mount because the kernel refused an overlay.
    pub overlay_fallbacks: u16,
}

impl Layers {
    pub(crate) fn encode(&self) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = b'L';
        b[1] = self.landlock;
        b[2..4].copy_from_slice(&self.overlay_fallbacks.to_le_bytes());
        b[4..8].copy_from_slice(&self.landlock_abi.to_le_bytes());
        b
    }

    pub(crate) fn decode(b: &[u8]) -> Option<Layers> {
        (b.len() >= 8 && b[0] == b'L').then(|| Layers {
            landlock: b[1],
            overlay_fallbacks: u16::from_le_bytes([b[2], b[3]]),
            landlock_abi: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        })
    }

    /// Landlock was left out on purpose (see [`LL_SKIPPED`]).
    pub fn landlock_skipped(&self) -> bool {
        self.landlock & LL_SKIPPED != 0
    }

    /// The layers as the report lists them: (layer, in force, detail).
    pub fn describe(&self, shown: &[PathBuf]) -> Vec<(String, bool, String)> {
        let shown_list: Vec<String> = shown.iter().map(|p| p.display().to_string()).collect();
        let ll = |bit: u8| self.landlock & bit != 0;
        let no_ll = if self.landlock & LL_SKIPPED != 0 {
            format!(
                "Landlock (ABI {}) not applied: util-linux `nsenter` was not found, so the server's own PID namespace (which hides the tracer) gets its /proc from `unshare --mount-proc`, a mount a Landlock domain forbids; install util-linux; the allow-list root, overlays and namespaces still hold",
                self.landlock_abi
            )
        } else if self.landlock_abi == 0 {
            "the kernel has no Landlock (or it is disabled at boot)".to_string()
        } else if self.landlock == 0 {
            format!("Landlock ABI {} refused the ruleset", self.landlock_abi)
        } else {
            format!(
                "Landlock ABI {} has no scopes (6 or later needed)",
                self.landlock_abi
            )
        };
        vec![
            (
                "namespaces".into(),
                true,
                "user, mount, PID, network, UTS and IPC namespaces; no route out of the network namespace (sinks answer); mounts locked by a nested user namespace".into(),
            ),
            (
                "allow-list root".into(),
                true,
                format!(
                    "a fresh tmpfs root holding only system directories, the command's host paths ({}), a few /etc files, device nodes, fresh /proc, scratch /tmp and HOME; the rest of the host is absent",
                    shown_list.join(", ")
                ),
            ),
            (
                "host sockets".into(),
                self.overlay_fallbacks == 0,
                if self.overlay_fallbacks == 0 {
                    "host directories are shown through read-only overlays: a socket or FIFO file of the host there accepts no connection".into()
                } else {
                    format!(
                        "{} host directories are bind-mounted (the kernel refused an overlay): a unix socket or FIFO of the host in them is reachable",
                        self.overlay_fallbacks
                    )
                },
            ),
            (
                "landlock filesystem".into(),
                ll(LL_FS),
                if ll(LL_FS) {
                    format!(
                        "Landlock ABI {}: read and execute everywhere, writes only in HOME, /tmp, /var/tmp, /dev/shm and device nodes",
                        self.landlock_abi
                    )
                } else {
                    no_ll.clone()
                },
            ),
            (
                "landlock abstract unix socket scope".into(),
                ll(LL_ABSTRACT_UNIX),
                if ll(LL_ABSTRACT_UNIX) {
                    "no connection to an abstract unix socket made outside the sandbox".into()
                } else {
                    no_ll.clone()
                },
            ),
            (
                "landlock signal scope".into(),
                ll(LL_SIGNAL),
                if ll(LL_SIGNAL) {
                    "no signal to a process outside the sandbox".into()
                } else {
                    no_ll
                },
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_keeps_its_whole_project_but_never_a_broad_directory() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let project = tmp.path().join("checkout");
        let script_dir = project.join("fixtures/runtime/server_a");
        std::fs::create_dir_all(&script_dir).expect("mkdir");
        std::fs::write(project.join("pyproject.toml"), "").expect("marker");
        assert_eq!(project_root(&script_dir, None), Some(project.clone()));
        // Twin: with no marker only the script's directory is kept (by the caller).
        std::fs::remove_file(project.join("pyproject.toml")).expect("rm");
        assert_eq!(project_root(&script_dir, None), None);
        // A marker in a home (a dotfiles checkout) is never taken: that would show the home.
        assert!(too_broad(Path::new("/home/alice"), None));
        assert!(too_broad(Path::new("/work"), None));
        assert!(too_broad(
            Path::new("/root/x/.."),
            Some(Path::new("/root/x/.."))
        ));
        assert!(!too_broad(Path::new("/work/wt/project"), None));
    }

    #[test]
    fn package_inside_node_modules_is_widened_to_the_tree_holding_them() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let tree = tmp.path().join("app");
        let pkg = tree.join("node_modules/@scope/server/dist");
        std::fs::create_dir_all(&pkg).expect("mkdir");
        std::fs::write(tree.join("node_modules/@scope/server/package.json"), "{}").expect("pj");
        assert_eq!(project_root(&pkg, None), Some(tree));
    }

    #[test]
    fn passwd_keeps_system_accounts_and_drops_the_hosts_users() {
        let text = "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\nnobody:x:65534:65534::/nonexistent:/usr/sbin/nologin\n";
        let kept = system_accounts(text);
        assert!(kept.contains("root:x:0"));
        assert!(kept.contains("nobody"));
        assert!(!kept.contains("alice"));
    }

    /// A project whose `.venv` links to a venv elsewhere, run as `<project>/.venv/bin/python
    /// <project>/server.py`: both the venv and the whole project are shown.
    #[test]
    fn a_project_linking_its_venv_elsewhere_is_shown_whole_beside_the_venv() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let project = tmp.path().join("proj");
        let venv = tmp.path().join("elsewhere/venv");
        std::fs::create_dir_all(project.join(".git")).expect("mkdir");
        std::fs::create_dir_all(venv.join("bin")).expect("mkdir");
        std::os::unix::fs::symlink(tmp.path().join("elsewhere"), project.join(".venv"))
            .expect("symlink");
        let needed = [project.join(".venv/venv"), project.clone()];
        let newroot = tmp.path().join("root");
        let plan = RootPlan::new(&RootSpec {
            newroot: &newroot,
            rooted: false,
            volumes: Path::new("/media/sandbox"),
            home: ("/home/sandbox", &tmp.path().join("home")),
            tmp: &tmp.path().join("tmp"),
            needed: &needed,
            anchors: &[],
            hostname: "h",
            sink_dns: "10.255.255.1",
            dev_nodes: None,
        });
        let at = |p: &Path| c(&newroot.join(p.strip_prefix("/").unwrap_or(p)));
        let (proj_at, link_at) = (at(&project), at(&project.join(".venv")));
        let project_link = plan
            .steps
            .iter()
            .any(|s| matches!(s, Step::Symlink(p, _) if *p == proj_at));
        assert!(project_link, "the project is shown (a link to its volume)");
        for s in &plan.steps {
            match s {
                Step::Dir(p) => assert!(*p != proj_at, "a directory where the project's link goes"),
                Step::Symlink(p, _) => {
                    assert!(*p != link_at, "the venv link re-made inside the project")
                }
                _ => {}
            }
        }
        let venv_shown = plan.steps.iter().any(|s| {
            matches!(s, Step::Overlay { src, .. } if *src == c(&std::fs::canonicalize(&venv).expect("venv")))
        });
        assert!(venv_shown, "the venv is shown where it really is");
    }

    #[test]
    fn plan_writes_files_before_any_mount_and_makes_links_last() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (newroot, home, scratch) = (
            tmp.path().join("root"),
            tmp.path().join("home"),
            tmp.path().join("tmp"),
        );
        let project = tmp.path().join("proj");
        std::fs::create_dir_all(&project).expect("mkdir");
        let needed = [project.clone(), PathBuf::from("/etc/passwd")];
        let plan = RootPlan::new(&RootSpec {
            newroot: &newroot,
            rooted: false,
            volumes: Path::new("/media/sandbox"),
            home: ("/home/sandbox", &home),
            tmp: &scratch,
            needed: &needed,
            anchors: &[],
            hostname: "h",
            sink_dns: "10.255.255.1",
            dev_nodes: None,
        });
        let kind = |s: &Step| match s {
            Step::Dir(_) => 'd',
            Step::File(..) => 'f',
            Step::Symlink(..) => 'l',
            _ => 'm',
        };
        let kinds: String = plan
            .steps
            .iter()
            .skip(1)
            .map(kind)
            .filter(|k| *k != 'd')
            .collect();
        // Files, then mounts, then links: never a file written through a mount, never a mount
        // or directory made through a link.
        let first_mount = kinds.find('m').expect("mounts");
        let first_link = kinds.find('l').unwrap_or(kinds.len());
        assert!(!kinds[first_mount..].contains('f'), "{kinds}");
        assert!(!kinds[first_link..].contains('m'), "{kinds}");
        assert!(matches!(plan.steps[0], Step::Tmpfs(..)));
        // The host's /etc/passwd named by the command is not bound over the written one.
        let binds_passwd = plan
            .steps
            .iter()
            .any(|s| matches!(s, Step::Bind { src, .. } if src.as_bytes() == b"/etc/passwd"));
        assert!(!binds_passwd);
        // The project is shown through an overlay, not a bind mount.
        let proj = c(&project);
        assert!(
            plan.steps
                .iter()
                .any(|s| matches!(s, Step::Overlay { src, .. } if *src == proj))
        );
        assert!(
            plan.shown
                .contains(&std::fs::canonicalize(&project).expect("canon"))
        );
    }

    #[test]
    fn a_project_outside_the_system_directories_is_mounted_at_a_volume_and_linked_from_its_path() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (newroot, home, scratch) = (
            tmp.path().join("root"),
            tmp.path().join("home"),
            tmp.path().join("tmp"),
        );
        let project = std::fs::canonicalize(tmp.path())
            .expect("canon")
            .join("mcp-scan");
        std::fs::create_dir_all(project.join("sub")).expect("mkdir");
        let needed = [project.clone(), PathBuf::from("/usr/bin")];
        let plan = RootPlan::new(&RootSpec {
            newroot: &newroot,
            rooted: true,
            volumes: Path::new("/media/ana"),
            home: ("/home", &home),
            tmp: &scratch,
            needed: &needed,
            anchors: &[project.join("sub")],
            hostname: "h",
            sink_dns: "10.255.255.1",
            dev_nodes: None,
        });
        let text = |s: &CString| s.to_string_lossy().into_owned();
        let volume = plan
            .placed
            .iter()
            .find(|(at, host)| *host == project && at != host)
            .map(|(at, _)| at.clone())
            .expect("the project is placed at a volume");
        assert!(volume.starts_with("/media/ana"), "{volume:?}");
        assert!(!volume.to_string_lossy().contains("mcp-scan"));
        let inside = |p: &Path| newroot.join(p.strip_prefix("/").expect("absolute"));
        let mut overlay_dsts = Vec::new();
        let mut link = None;
        for st in &plan.steps {
            match st {
                Step::Overlay { dst, .. } => overlay_dsts.push(text(dst)),
                Step::Symlink(p, t) if *p == c(&inside(&project)) => link = Some(text(t)),
                // Neither a directory made at the project's path (it would stand where the link
                // goes) nor a mount there.
                Step::Dir(p) => assert!(
                    !text(p).starts_with(&inside(&project).to_string_lossy().into_owned()),
                    "{p:?}"
                ),
                _ => {}
            }
        }
        assert_eq!(link.as_deref(), Some(volume.to_str().expect("utf-8")));
        assert!(overlay_dsts.contains(&inside(&volume).to_string_lossy().into_owned()));
        // System directories stay where they are; a rooted plan mounts nothing on /home or /tmp.
        assert!(overlay_dsts.contains(&inside(Path::new("/usr")).to_string_lossy().into_owned()));
        for d in ["/home", "/tmp"] {
            let at = c(&inside(Path::new(d)));
            assert!(
                !plan
                    .steps
                    .iter()
                    .any(|s| matches!(s, Step::Bind { dst, .. } if *dst == at)),
                "{d} is mounted"
            );
        }
        assert!(matches!(plan.steps[0], Step::Bind { .. }));
    }

    #[test]
    fn layers_survive_the_status_message() {
        let l = Layers {
            landlock_abi: 7,
            landlock: LL_FS | LL_SIGNAL,
            overlay_fallbacks: 3,
        };
        assert_eq!(Layers::decode(&l.encode()), Some(l));
    }
}
