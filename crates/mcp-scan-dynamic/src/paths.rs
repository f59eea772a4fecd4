//! Path resolution for file events, done by us instead of the tracer.
//!
//! Asking strace for descriptor paths (`-y`) costs two procfs lookups per traced `openat` while
//! the server is stopped, about a sixth of the traced call; an eBPF tracer sees only the strings
//! either. So the trace keeps the paths as the program wrote them, and this module replays the run
//! to resolve them the way the kernel did: per-process working directories (inherited on fork,
//! shared by threads, changed by `chdir`/`fchdir`), descriptor tables (from `openat` results, for
//! `*at` calls and `fchmod`), symlinks and hard links made during the run (in trace order, so a
//! link made, used and removed again is still followed), symlinks already on disk (read through
//! the host directories behind the sandbox's mounts, see [`View`]), and procfs's magic links
//! (`/proc/self`, `/proc/<pid>/{cwd,root,fd/N}`, `/dev/fd`).
//!
//! Resolution is a model, not the kernel: bind mounts made by the server itself and paths under
//! directories the sandbox hides are taken literally.

use crate::events::{Event, EventKind};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// How the sandbox's file system maps onto the host: the host directory behind a sandbox path
/// (`None` for a path hidden by an empty tmpfs). Paths under no entry are the host's own.
#[derive(Debug, Clone, Default)]
pub struct View {
    entries: Vec<(String, Option<PathBuf>)>,
}

impl View {
    pub fn new(mut entries: Vec<(String, Option<PathBuf>)>) -> Self {
        // Longest prefix first, so a kept project under a hidden home wins over the home.
        entries.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
        View { entries }
    }

    /// The host path behind `path` (absolute, normalised), or `None` if nothing can be read there.
    fn host(&self, path: &str) -> Option<PathBuf> {
        for (prefix, host) in &self.entries {
            if let Some(rest) = under(path, prefix) {
                return host.as_ref().map(|h| {
                    if rest.is_empty() {
                        h.clone()
                    } else {
                        h.join(rest)
                    }
                });
            }
        }
        // Never the host's procfs or sysfs: they describe the scanner, not the server.
        if under(path, "/proc").is_some() || under(path, "/sys").is_some() {
            return None;
        }
        Some(PathBuf::from(path))
    }
}

/// `path` relative to `prefix` if it lies under it (`""` for the prefix itself).
fn under<'a>(path: &'a str, prefix: &str) -> Option<&'a str> {
    let prefix = prefix.trim_end_matches('/');
    let rest = path.strip_prefix(prefix)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix('/')
    }
}

/// What is known about one path during the replay.
#[derive(Debug, Clone)]
enum Node {
    /// A symlink with this target.
    Symlink(String),
    /// A hard link to this (resolved) path.
    Alias(String),
    /// Not a link (removed, or replaced by a plain file).
    Plain,
}

/// Replays file-system state over a run's events; see the module docs.
#[derive(Debug)]
pub struct Resolver {
    view: View,
    root_cwd: String,
    /// thread id -> thread-group id.
    tgid: HashMap<u32, u32>,
    /// process (thread group) -> parent process, from the spawn events.
    parent: HashMap<u32, u32>,
    cwd: HashMap<u32, String>,
    /// process -> descriptor -> path (from open results; close is not traced, so the latest open
    /// of a number wins).
    fds: HashMap<u32, HashMap<i64, String>>,
    nodes: HashMap<String, Node>,
    host_links: HashMap<PathBuf, Option<String>>,
    /// A pid as the server's PID namespace numbers it (in `/proc/<n>/…` paths) -> the tracer's.
    local_pids: HashMap<u32, u32>,
    /// process -> descriptor -> the unix socket address its last `connect` tried (refused or
    /// not): a payload written on a connected socket names no address of its own.
    unix_peers: HashMap<u32, HashMap<i64, String>>,
}

/// Symlink expansions allowed in one resolution, as the kernel's ELOOP limit.
const MAX_LINKS: usize = 40;

impl Resolver {
    /// `root_cwd`: the working directory the server starts in.
    pub fn new(root_cwd: &str, view: View) -> Self {
        Resolver {
            view,
            root_cwd: root_cwd.to_string(),
            tgid: HashMap::new(),
            parent: HashMap::new(),
            cwd: HashMap::new(),
            fds: HashMap::new(),
            nodes: HashMap::new(),
            host_links: HashMap::new(),
            local_pids: HashMap::new(),
            unix_peers: HashMap::new(),
        }
    }

    /// The unix socket address descriptor `fd` of `pid` was connected to (its own process
    /// first, then the processes it was forked from, which share descriptors they had).
    fn unix_peer(&self, pid: u32, fd: i64) -> Option<String> {
        let mut g = self.group(pid);
        for _ in 0..64 {
            if let Some(a) = self.unix_peers.get(&g).and_then(|t| t.get(&fd)) {
                return Some(a.clone());
            }
            g = *self.parent.get(&g)?;
        }
        None
    }

    /// Keeps what sockets lead to: `connect` records it, `socket` and `dup` renew it, a send
    /// without an address gets it.
    fn track_socket(&mut self, e: &mut Event, g: u32) {
        match e.kind {
            EventKind::Connect => {
                if let (Some(fd), Some("AF_UNIX"), Some(a)) =
                    (e.fd, e.family.as_deref(), e.address.clone())
                {
                    self.unix_peers.entry(g).or_default().insert(fd, a);
                }
            }
            EventKind::Socket => {
                if let Some(fd) = e.result.filter(|_| e.ok())
                    && let Some(t) = self.unix_peers.get_mut(&g)
                {
                    t.remove(&fd);
                }
            }
            EventKind::Dup => {
                if let (Some(old), Some(new)) = (e.fd, e.result.filter(|_| e.ok())) {
                    match self.unix_peer(e.pid, old) {
                        Some(a) => {
                            self.unix_peers.entry(g).or_default().insert(new, a);
                        }
                        None => {
                            if let Some(t) = self.unix_peers.get_mut(&g) {
                                t.remove(&new);
                            }
                        }
                    }
                }
            }
            EventKind::Send if e.address.is_none() => {
                if let Some(a) = e.fd.and_then(|fd| self.unix_peer(e.pid, fd)) {
                    e.family = Some("AF_UNIX".into());
                    e.address = Some(a);
                }
            }
            _ => {}
        }
    }

    /// Resolves every file event in place (`path` made absolute, `resolved` set), in trace order.
    pub fn resolve_all(&mut self, events: &mut [Event]) {
        // A child's first calls can be printed before its parent's clone returns, so the process
        // tree is read first.
        for e in events.iter() {
            if e.kind == EventKind::Spawn
                && let Some(child) = e.child
            {
                if let Some(local) = e.child_local {
                    self.local_pids.entry(local).or_insert(child);
                }
                if e.thread {
                    let g = self.group(e.pid);
                    self.tgid.insert(child, g);
                } else {
                    let g = self.group(e.pid);
                    self.parent.entry(child).or_insert(g);
                }
            }
        }
        // A path linked during the run was not a link before it.
        for e in events.iter() {
            if matches!(e.kind, EventKind::Symlink | EventKind::Link)
                && let Some(p) = &e.path
                && p.starts_with('/')
            {
                self.nodes.entry(normalise(p)).or_insert(Node::Plain);
            }
        }
        for e in events.iter_mut() {
            self.apply(e);
        }
    }

    fn group(&self, pid: u32) -> u32 {
        self.tgid.get(&pid).copied().unwrap_or(pid)
    }

    fn cwd_of(&mut self, pid: u32) -> String {
        let g = self.group(pid);
        if let Some(c) = self.cwd.get(&g) {
            return c.clone();
        }
        // First sight of a process: it starts where its parent is now, with a copy of its
        // descriptors.
        let c = match self.parent.get(&g).copied() {
            Some(p) if p != g => {
                let c = self.cwd_of(p);
                if let Some(table) = self.fds.get(&p).cloned() {
                    self.fds.entry(g).or_insert(table);
                }
                c
            }
            _ => self.root_cwd.clone(),
        };
        self.cwd.insert(g, c.clone());
        c
    }

    /// The directory a `*at` call's path is relative to.
    fn base(&mut self, pid: u32, dirfd: Option<&str>) -> Option<String> {
        let cwd = self.cwd_of(pid);
        match dirfd.map(str::trim) {
            None => Some(cwd),
            Some(d) if d.starts_with("AT_FDCWD") => Some(cwd),
            Some(d) => {
                let fd: i64 = d.split('<').next()?.trim().parse().ok()?;
                self.fd_path(pid, fd)
            }
        }
    }

    fn fd_path(&self, pid: u32, fd: i64) -> Option<String> {
        self.fds.get(&self.group(pid))?.get(&fd).cloned()
    }

    /// `path` made absolute against `base`, without resolving anything.
    fn absolute(base: Option<&str>, path: &str) -> Option<String> {
        if path.starts_with('/') {
            return Some(path.to_string());
        }
        let base = base?;
        Some(if path.is_empty() {
            base.to_string()
        } else {
            format!("{}/{path}", base.trim_end_matches('/'))
        })
    }

    fn apply(&mut self, e: &mut Event) {
        let pid = e.pid;
        let g = self.group(pid);
        let ok = e.ok();
        self.track_socket(e, g);
        match e.kind {
            EventKind::Spawn | EventKind::Exit | EventKind::Connect | EventKind::Bind => {}
            EventKind::Socket => {
                if let Some(fd) = e.result.filter(|_| ok)
                    && let Some(t) = self.fds.get_mut(&g)
                {
                    t.remove(&fd);
                }
            }
            EventKind::Chdir => {
                let target = match (&e.path, e.fd) {
                    (Some(p), _) => {
                        let base = self.base(pid, None);
                        Self::absolute(base.as_deref(), p).map(|a| self.resolve(pid, &a, true))
                    }
                    (None, Some(fd)) => self.fd_path(pid, fd),
                    _ => None,
                };
                if let Some(t) = &target {
                    e.resolved = Some(t.clone());
                    if ok {
                        self.cwd_of(pid);
                        self.cwd.insert(g, t.clone());
                    }
                }
            }
            EventKind::Dup => {
                if let (Some(old), Some(new)) = (e.fd, e.result.filter(|_| ok)) {
                    self.cwd_of(pid);
                    let table = self.fds.entry(g).or_default();
                    match table.get(&old).cloned() {
                        Some(p) => {
                            e.resolved = Some(p.clone());
                            table.insert(new, p);
                        }
                        None => {
                            table.remove(&new);
                        }
                    }
                }
            }
            EventKind::Memfd => {
                // The descriptor names the anonymous file, so `/proc/self/fd/N` and fexecve
                // resolve to it.
                if let (Some(fd), Some(p)) = (e.result.filter(|_| ok), e.path.clone()) {
                    self.cwd_of(pid);
                    self.fds.entry(g).or_default().insert(fd, p.clone());
                    e.resolved = Some(p);
                }
            }
            EventKind::Mount => {
                // A bind or moved mount makes the mount point lead where the source does, like
                // a symlink (for every process: mount namespaces are not modelled); an
                // open_tree descriptor names its source tree.
                let base_t = self.base(pid, e.target_dirfd.as_deref());
                let from = e
                    .target
                    .clone()
                    .and_then(|t| Self::absolute(base_t.as_deref(), &t))
                    .map(|a| self.resolve(pid, &a, true));
                if let Some(f) = &from {
                    e.target = Some(f.clone());
                }
                if e.syscall == "open_tree" {
                    if let (Some(fd), Some(f)) = (e.result.filter(|_| ok), from) {
                        self.cwd_of(pid);
                        self.fds.entry(g).or_default().insert(fd, f);
                    }
                    return;
                }
                let base = self.base(pid, e.dirfd.as_deref());
                let Some(at) = e
                    .path
                    .clone()
                    .and_then(|p| Self::absolute(base.as_deref(), &p))
                else {
                    return;
                };
                let at = self.resolve(pid, &at, true);
                e.path = Some(at.clone());
                e.resolved = Some(at.clone());
                let maps = e.syscall == "move_mount"
                    || e.flags
                        .as_deref()
                        .is_some_and(|f| f.contains("MS_BIND") || f.contains("MS_MOVE"));
                if ok
                    && maps
                    && let Some(f) = from
                    && f != at
                {
                    self.nodes.insert(at, Node::Symlink(f));
                }
            }
            EventKind::Chmod if e.path.is_none() => {
                // fchmod(fd, mode)
                if let Some(p) = e.fd.and_then(|fd| self.fd_path(pid, fd)) {
                    e.path = Some(p.clone());
                    e.resolved = Some(p);
                }
            }
            _ => {
                let follow = match e.kind {
                    EventKind::FileOpen => !e.flags.as_deref().is_some_and(|f| {
                        f.contains("O_NOFOLLOW") || (f.contains("O_CREAT") && f.contains("O_EXCL"))
                    }),
                    EventKind::Chmod | EventKind::Exec => true,
                    // These act on the link itself.
                    _ => false,
                };
                let Some(raw) = e.path.clone() else { return };
                let base = self.base(pid, e.dirfd.as_deref());
                let Some(abs) = Self::absolute(base.as_deref(), &raw) else {
                    return;
                };
                let resolved = self.resolve(pid, &abs, follow);
                e.path = Some(abs);
                e.resolved = Some(resolved.clone());
                let target = e.target.clone().and_then(|t| {
                    let tb = self.base(pid, e.target_dirfd.as_deref());
                    Self::absolute(tb.as_deref(), &t)
                });
                if !ok {
                    // A refused rename still says where it aimed.
                    if e.kind == EventKind::Rename
                        && let Some(t) = target
                    {
                        e.target = Some(self.resolve(pid, &t, false));
                    }
                    return;
                }
                match e.kind {
                    EventKind::FileOpen => {
                        if let Some(fd) = e.result {
                            self.cwd_of(pid);
                            self.fds.entry(g).or_default().insert(fd, resolved);
                        }
                    }
                    EventKind::Symlink => {
                        // The target is kept as written: a relative one is relative to the link.
                        if let Some(t) = &e.target {
                            self.nodes.insert(resolved, Node::Symlink(t.clone()));
                        }
                    }
                    EventKind::Link => {
                        if let Some(t) = target {
                            let from = self.resolve(pid, &t, false);
                            let from = match self.nodes.get(&from) {
                                Some(Node::Alias(a)) => a.clone(),
                                _ => from,
                            };
                            self.nodes.insert(resolved, Node::Alias(from));
                        }
                    }
                    EventKind::Unlink => {
                        self.nodes.insert(resolved, Node::Plain);
                    }
                    EventKind::Rename => {
                        if let Some(t) = target {
                            let dst = self.resolve(pid, &t, false);
                            let moved = self.nodes.insert(resolved, Node::Plain);
                            self.nodes.insert(dst.clone(), moved.unwrap_or(Node::Plain));
                            e.target = Some(dst);
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The link `path` (absolute, normalised) stands for, if it is one: a symlink's target or, for
    /// procfs's magic links, the path they lead to.
    fn link_at(&mut self, pid: u32, path: &str) -> Option<Node> {
        if let Some(n) = self.nodes.get(path) {
            return Some(n.clone());
        }
        if let Some(rest) = under(path, "/proc") {
            return self.proc_link(pid, rest);
        }
        let host = self.view.host(path)?;
        let cached = self.host_links.entry(host).or_insert_with_key(|h| {
            std::fs::read_link(h)
                .ok()
                .map(|t| t.to_string_lossy().into_owned())
        });
        cached.clone().map(Node::Symlink)
    }

    fn proc_link(&mut self, pid: u32, rest: &str) -> Option<Node> {
        let mut parts = rest.split('/');
        let first = parts.next()?;
        let second = parts.next();
        let third = parts.next();
        if parts.next().is_some() {
            return None;
        }
        let g = self.group(pid);
        match (first, second, third) {
            ("self", None, None) => Some(Node::Symlink(g.to_string())),
            ("thread-self", None, None) => Some(Node::Symlink(format!("{g}/task/{pid}"))),
            (n, Some(what), fd) => {
                let p: u32 = n.parse().ok()?;
                let p = self.local_pids.get(&p).copied().unwrap_or(p);
                let pg = self.group(p);
                match (what, fd) {
                    ("cwd", None) => Some(Node::Symlink(self.cwd_of(pg))),
                    ("root", None) => Some(Node::Symlink("/".into())),
                    ("fd", Some(fd)) => {
                        let fd: i64 = fd.parse().ok()?;
                        self.fd_path(pg, fd).map(Node::Alias)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// Resolves an absolute path component by component, following links (the last component
    /// only if `follow_last`).
    pub fn resolve(&mut self, pid: u32, path: &str, follow_last: bool) -> String {
        let mut done: Vec<String> = Vec::new();
        let mut todo: Vec<String> = path
            .split('/')
            .rev()
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect();
        let mut budget = MAX_LINKS;
        let mut seen = HashSet::new();
        while let Some(c) = todo.pop() {
            match c.as_str() {
                "." => continue,
                ".." => {
                    done.pop();
                    continue;
                }
                _ => {}
            }
            done.push(c);
            if todo.is_empty() && !follow_last {
                break;
            }
            let cur = format!("/{}", done.join("/"));
            let Some(node) = self.link_at(pid, &cur) else {
                continue;
            };
            let target = match node {
                Node::Plain => continue,
                Node::Symlink(t) => t,
                Node::Alias(a) => {
                    // A hard link or a descriptor: the whole path so far is that file.
                    done = a
                        .split('/')
                        .filter(|c| !c.is_empty())
                        .map(str::to_string)
                        .collect();
                    continue;
                }
            };
            if budget == 0 || !seen.insert((cur.clone(), todo.len())) {
                break;
            }
            budget -= 1;
            done.pop();
            if target.starts_with('/') {
                done.clear();
            }
            todo.extend(
                target
                    .split('/')
                    .rev()
                    .filter(|c| !c.is_empty())
                    .map(str::to_string),
            );
        }
        format!("/{}", done.join("/"))
    }
}

/// `..` and `.` removed lexically (for keys of links made during the run).
fn normalise(p: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    format!("/{}", out.join("/"))
}

/// The view of a sandbox whose HOME, workspace and /tmp live under `run` on the host.
/// `kept`: (sandbox path, host path) of every host directory shown.
pub fn sandbox_view(
    home: (&str, &Path),
    tmp: &Path,
    hidden: &[PathBuf],
    kept: &[(PathBuf, PathBuf)],
) -> View {
    let mut v = vec![
        (home.0.to_string(), Some(home.1.to_path_buf())),
        ("/tmp".to_string(), Some(tmp.to_path_buf())),
    ];
    v.extend(
        hidden
            .iter()
            .map(|h| (h.to_string_lossy().into_owned(), None)),
    );
    v.extend(
        kept.iter()
            .map(|(at, host)| (at.to_string_lossy().into_owned(), Some(host.clone()))),
    );
    View::new(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::from_record;
    use crate::trace::{StraceParser, TraceParser};

    const WORK: &str = "/home/sandbox/workspace";

    /// Events from strace lines as traced (no `-y`), resolved with `view`.
    fn run(view: View, lines: &[&str]) -> Vec<Event> {
        let mut p = StraceParser::default();
        let mut evs: Vec<Event> = lines
            .iter()
            .flat_map(|l| p.feed(l))
            .filter_map(|r| from_record(&r))
            .collect();
        Resolver::new(WORK, view).resolve_all(&mut evs);
        evs
    }

    fn resolved(e: &Event) -> &str {
        e.resolved.as_deref().unwrap_or("")
    }

    #[test]
    fn relative_open_is_resolved_against_the_working_directory_after_chdir() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 openat(AT_FDCWD, "notes.txt", O_RDONLY) = 3"#,
                r#"7 1.1 chdir("lib") = 0"#,
                r#"7 1.2 openat(AT_FDCWD, "../../.ssh/id_rsa", O_RDONLY) = 4"#,
            ],
        );
        assert_eq!(
            evs[0].path.as_deref(),
            Some("/home/sandbox/workspace/notes.txt")
        );
        assert_eq!(resolved(&evs[0]), "/home/sandbox/workspace/notes.txt");
        assert_eq!(resolved(&evs[2]), "/home/sandbox/.ssh/id_rsa");
    }

    #[test]
    fn payload_on_a_connected_unix_socket_gets_the_address_of_its_connect() {
        let evs = run(
            View::default(),
            &[
                r#"8 1.0 socket(AF_UNIX, SOCK_STREAM|SOCK_CLOEXEC, 0) = 5"#,
                r#"8 1.1 connect(5, {sa_family=AF_UNIX, sun_path="/var/run/docker.sock"}, 23) = -1 ENOENT (No such file or directory)"#,
                r#"8 1.2 sendto(5, "GET /containers/json", 20, 0, NULL, 0) = -1 ENOTCONN (Transport endpoint is not connected)"#,
                r#"8 1.3 dup2(5, 9) = 9"#,
                r#"8 1.4 write(9, "abc", 3) = -1 ENOTCONN (Transport endpoint is not connected)"#,
                r#"8 1.5 writev(5, [{iov_base="ab", iov_len=2}, {iov_base="cd", iov_len=2}], 2) = -1 ENOTCONN (Transport endpoint is not connected)"#,
                // A child shares the descriptor it was forked with.
                r#"8 1.6 clone(child_stack=NULL, flags=SIGCHLD) = 12"#,
                r#"12 1.7 sendmsg(5, {msg_name=NULL, msg_namelen=0, msg_iov=[{iov_base="x", iov_len=1}], msg_iovlen=1}, 0) = -1 ENOTCONN (Transport endpoint is not connected)"#,
                // Twin: a new socket on the same number leads nowhere known; a file write neither.
                r#"8 1.8 socket(AF_UNIX, SOCK_DGRAM, 0) = 5"#,
                r#"8 1.9 sendto(5, "y", 1, 0, NULL, 0) = -1 ENOTCONN (Transport endpoint is not connected)"#,
                r#"8 2.0 write(1, "z", 1) = 1"#,
            ],
        );
        for i in [2, 4, 5, 7] {
            assert_eq!(
                evs[i].address.as_deref(),
                Some("/var/run/docker.sock"),
                "{i}"
            );
            assert_eq!(evs[i].family.as_deref(), Some("AF_UNIX"), "{i}");
        }
        assert_eq!(evs[5].bytes, b"abcd");
        assert_eq!(evs[9].address, None);
        assert_eq!(evs[10].address, None);
    }

    #[test]
    fn bind_mount_and_moved_tree_lead_where_their_source_does() {
        let evs = run(
            View::default(),
            &[
                r#"8 1.0 mount("/home/sandbox/.ssh", "/home/sandbox/workspace/.cache/keys", NULL, MS_BIND, NULL) = 0"#,
                r#"8 1.1 openat(AT_FDCWD, "/home/sandbox/workspace/.cache/keys/id_rsa", O_RDONLY|O_CLOEXEC) = 10"#,
                r#"9 1.2 open_tree(AT_FDCWD, "/home/sandbox/.aws", OPEN_TREE_CLONE) = 3"#,
                r#"9 1.3 move_mount(3, "", AT_FDCWD, "data", MOVE_MOUNT_F_EMPTY_PATH) = 0"#,
                r#"9 1.4 openat(AT_FDCWD, "data/credentials", O_RDONLY) = 4"#,
                // Twin: a mount that is not a bind (a fresh tmpfs) leads nowhere else.
                r#"9 1.5 mount("tmpfs", "/home/sandbox/workspace/scratch", "tmpfs", 0, NULL) = 0"#,
                r#"9 1.6 openat(AT_FDCWD, "scratch/x", O_RDONLY) = 5"#,
            ],
        );
        assert_eq!(resolved(&evs[1]), "/home/sandbox/.ssh/id_rsa");
        assert_eq!(evs[3].path.as_deref(), Some("/home/sandbox/workspace/data"));
        assert_eq!(evs[3].target.as_deref(), Some("/home/sandbox/.aws"));
        assert_eq!(resolved(&evs[4]), "/home/sandbox/.aws/credentials");
        assert_eq!(resolved(&evs[6]), "/home/sandbox/workspace/scratch/x");
    }

    #[test]
    fn symlink_made_during_the_run_is_followed_then_forgotten_when_removed() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 symlink("/home/sandbox/.ssh/id_rsa", "/home/sandbox/workspace/lib/certifi.pem") = 0"#,
                r#"7 1.1 openat(AT_FDCWD, "lib/certifi.pem", O_RDONLY|O_CLOEXEC) = 3"#,
                r#"7 1.2 unlink("/home/sandbox/workspace/lib/certifi.pem") = 0"#,
                r#"7 1.3 openat(AT_FDCWD, "lib/certifi.pem", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 3"#,
            ],
        );
        assert_eq!(resolved(&evs[1]), "/home/sandbox/.ssh/id_rsa");
        // Twin: after the unlink the same name is a plain new file.
        assert_eq!(resolved(&evs[3]), "/home/sandbox/workspace/lib/certifi.pem");
    }

    #[test]
    fn relative_symlink_target_is_relative_to_the_link() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 symlinkat("../../.aws/credentials", AT_FDCWD, "lib/x.pem") = 0"#,
                r#"7 1.1 openat(AT_FDCWD, "/home/sandbox/workspace/lib/x.pem", O_RDONLY) = 3"#,
            ],
        );
        assert_eq!(resolved(&evs[1]), "/home/sandbox/.aws/credentials");
    }

    #[test]
    fn refused_rename_and_tmpfile_link_land_where_they_aimed_from_another_cwd() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 chdir("/home/sandbox/.config") = 0"#,
                r#"7 1.1 rename("/tmp/x", "autostart/x.desktop") = -1 ENOENT (No such file or directory)"#,
                r#"7 1.2 openat(AT_FDCWD, "systemd/user", O_WRONLY|O_TMPFILE, 0600) = 5"#,
                r#"7 1.3 linkat(5, "", AT_FDCWD, "systemd/user/x.service", AT_EMPTY_PATH) = 0"#,
            ],
        );
        assert_eq!(
            evs[1].target.as_deref(),
            Some("/home/sandbox/.config/autostart/x.desktop")
        );
        assert_eq!(evs[3].kind, EventKind::Link);
        assert_eq!(
            resolved(&evs[3]),
            "/home/sandbox/.config/systemd/user/x.service"
        );
    }

    #[test]
    fn hard_link_to_a_key_resolves_to_the_key() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 link("/home/sandbox/.ssh/id_ed25519", "cache.bin") = 0"#,
                r#"7 1.1 openat(AT_FDCWD, "cache.bin", O_RDONLY) = 3"#,
                r#"7 1.2 openat(AT_FDCWD, "cache2.bin", O_RDONLY) = 4"#,
            ],
        );
        assert_eq!(evs[0].kind, EventKind::Link);
        assert_eq!(resolved(&evs[1]), "/home/sandbox/.ssh/id_ed25519");
        assert_eq!(resolved(&evs[2]), "/home/sandbox/workspace/cache2.bin");
    }

    #[test]
    fn symlink_already_on_disk_is_read_through_the_view() {
        let host = tempfile::tempdir().expect("tmp");
        let work = host.path().join("workspace");
        std::fs::create_dir_all(work.join("lib")).expect("mkdir");
        std::os::unix::fs::symlink("/home/sandbox/.netrc", work.join("lib/data")).expect("ln");
        let view = View::new(vec![(
            "/home/sandbox".into(),
            Some(host.path().to_path_buf()),
        )]);
        let evs = run(
            view,
            &[
                r#"7 1.0 openat(AT_FDCWD, "lib/data", O_RDONLY) = 3"#,
                r#"7 1.1 openat(AT_FDCWD, "lib/data", O_RDONLY|O_NOFOLLOW) = -1 ELOOP (Too many levels of symbolic links)"#,
            ],
        );
        assert_eq!(resolved(&evs[0]), "/home/sandbox/.netrc");
        assert_eq!(resolved(&evs[1]), "/home/sandbox/workspace/lib/data");
    }

    #[test]
    fn hidden_directories_are_not_read_on_the_host() {
        let host = tempfile::tempdir().expect("tmp");
        std::os::unix::fs::symlink("/etc/shadow", host.path().join("link")).expect("ln");
        let hidden = host.path().to_string_lossy().into_owned();
        let view = View::new(vec![(hidden.clone(), None)]);
        let line = format!(r#"7 1.0 openat(AT_FDCWD, "{hidden}/link", O_RDONLY) = 3"#);
        let evs = run(view, &[&line]);
        assert_eq!(resolved(&evs[0]), format!("{hidden}/link"));
    }

    #[test]
    fn link_made_later_does_not_change_an_earlier_open() {
        let host = tempfile::tempdir().expect("tmp");
        let work = host.path().join("workspace");
        std::fs::create_dir_all(&work).expect("mkdir");
        // The host shows the run's final state: the link exists.
        std::os::unix::fs::symlink("/home/sandbox/.env", work.join("late")).expect("ln");
        let view = View::new(vec![(
            "/home/sandbox".into(),
            Some(host.path().to_path_buf()),
        )]);
        let evs = run(
            view,
            &[
                r#"7 1.0 openat(AT_FDCWD, "/home/sandbox/workspace/late", O_WRONLY|O_CREAT, 0644) = 3"#,
                r#"7 1.1 unlink("/home/sandbox/workspace/late") = 0"#,
                r#"7 1.2 symlink("/home/sandbox/.env", "/home/sandbox/workspace/late") = 0"#,
                r#"7 1.3 openat(AT_FDCWD, "/home/sandbox/workspace/late", O_RDONLY) = 3"#,
            ],
        );
        assert_eq!(resolved(&evs[0]), "/home/sandbox/workspace/late");
        assert_eq!(resolved(&evs[3]), "/home/sandbox/.env");
    }

    #[test]
    fn proc_magic_links_lead_to_the_files_they_name() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 openat(AT_FDCWD, "/home/sandbox/.kube/config", O_RDONLY) = 5"#,
                r#"7 1.1 openat(AT_FDCWD, "/proc/self/fd/5", O_RDONLY) = 6"#,
                r#"7 1.2 openat(AT_FDCWD, "/proc/self/cwd/../.env", O_RDONLY) = 7"#,
                r#"7 1.3 openat(AT_FDCWD, "/dev/fd/6", O_RDONLY) = 8"#,
                r#"7 1.4 openat(AT_FDCWD, "/proc/self/environ", O_RDONLY) = 9"#,
            ],
        );
        assert_eq!(resolved(&evs[1]), "/home/sandbox/.kube/config");
        assert_eq!(resolved(&evs[2]), "/home/sandbox/.env");
        // /dev/fd is the host's symlink to /proc/self/fd.
        assert_eq!(resolved(&evs[3]), "/home/sandbox/.kube/config");
        assert_eq!(resolved(&evs[4]), "/proc/7/environ");
    }

    #[test]
    fn proc_paths_with_the_servers_own_pid_numbers_lead_to_that_process() {
        // The server runs in a PID namespace below the tracer's: it knows itself as 2, the
        // trace as 8.
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 2 /* 8 in strace's PID NS */"#,
                r#"8 1.1 openat(AT_FDCWD, "/home/sandbox/.ssh/id_rsa", O_RDONLY) = 5"#,
                r#"9 1.2 openat(AT_FDCWD, "/proc/2/fd/5", O_RDONLY) = 3"#,
            ],
        );
        assert_eq!(resolved(&evs[2]), "/home/sandbox/.ssh/id_rsa");
        // Twin: a number no process of the run had stays unresolved to any file of its.
        let evs = run(
            View::default(),
            &[
                r#"8 1.1 openat(AT_FDCWD, "/home/sandbox/.ssh/id_rsa", O_RDONLY) = 5"#,
                r#"9 1.2 openat(AT_FDCWD, "/proc/2/fd/5", O_RDONLY) = 3"#,
            ],
        );
        assert_ne!(resolved(&evs[1]), "/home/sandbox/.ssh/id_rsa");
    }

    #[test]
    fn children_inherit_the_working_directory_and_threads_share_it() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 chdir("/home/sandbox/.ssh") = 0"#,
                r#"8 1.1 openat(AT_FDCWD, "id_rsa", O_RDONLY) = 3"#,
                r#"7 1.2 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f) = 8"#,
                r#"7 1.3 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x7f, stack_size=0x7fff00}, 88) = 9"#,
                r#"9 1.4 chdir("/tmp") = 0"#,
                r#"7 1.5 openat(AT_FDCWD, "x", O_RDONLY) = 3"#,
                r#"10 1.6 openat(AT_FDCWD, "y", O_RDONLY) = 3"#,
            ],
        );
        // The child's open is printed before the clone returns in the parent.
        assert_eq!(resolved(&evs[1]), "/home/sandbox/.ssh/id_rsa");
        assert_eq!(resolved(&evs[5]), "/tmp/x");
        // Twin: an unrelated process starts in the workspace.
        assert_eq!(resolved(&evs[6]), "/home/sandbox/workspace/y");
    }

    #[test]
    fn openat_relative_to_a_directory_descriptor_and_fchmod() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 openat(AT_FDCWD, "/home/sandbox/.config", O_RDONLY|O_DIRECTORY) = 4"#,
                r#"7 1.1 openat(4, "gh/hosts.yml", O_RDONLY) = 5"#,
                r#"7 1.2 openat(AT_FDCWD, "/tmp/.backdoor.sh", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 6"#,
                r#"7 1.3 fchmod(6, 0755) = 0"#,
            ],
        );
        assert_eq!(resolved(&evs[1]), "/home/sandbox/.config/gh/hosts.yml");
        assert_eq!(evs[3].path.as_deref(), Some("/tmp/.backdoor.sh"));
    }

    #[test]
    fn descriptor_copies_keep_their_directory() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 openat(AT_FDCWD, "/home/sandbox/.ssh", O_RDONLY|O_DIRECTORY) = 4"#,
                r#"7 1.1 fcntl(4, F_DUPFD_CLOEXEC, 0) = 5"#,
                r#"7 1.2 dup2(5, 9) = 9"#,
                r#"7 1.3 openat(9, "id_rsa", O_RDONLY) = 6"#,
                r#"7 1.4 fcntl(6, F_GETFL) = 0x8000 (flags O_RDONLY|O_LARGEFILE)"#,
                r#"7 1.5 dup3(6, 9, O_CLOEXEC) = 9"#,
                r#"7 1.6 openat(9, "x", O_RDONLY) = -1 ENOTDIR (Not a directory)"#,
            ],
        );
        assert_eq!(evs[1].kind, EventKind::Dup);
        assert_eq!(resolved(&evs[3]), "/home/sandbox/.ssh/id_rsa");
        // Other fcntl commands are not events; after dup3 the number names the key file.
        assert_eq!(evs.len(), 6);
        assert_eq!(resolved(&evs[4]), "/home/sandbox/.ssh/id_rsa");
    }

    #[test]
    fn symlink_loop_ends() {
        let evs = run(
            View::default(),
            &[
                r#"7 1.0 symlink("b", "/tmp/a") = 0"#,
                r#"7 1.1 symlink("a", "/tmp/b") = 0"#,
                r#"7 1.2 openat(AT_FDCWD, "/tmp/a", O_RDONLY) = -1 ELOOP (Too many levels of symbolic links)"#,
            ],
        );
        assert!(resolved(&evs[2]).starts_with("/tmp/"));
    }
}
