//! Security-relevant events derived from traced system calls: the records of `events.jsonl`
//! (schema in docs/runtime.md).

use crate::trace::{Syscall, TraceRecord, decode_string, split_args};
use serde::Serialize;

/// What an event is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// open/openat/openat2/creat (read or write, see `write`).
    FileOpen,
    Rename,
    Unlink,
    Chmod,
    Symlink,
    /// link/linkat: `path` is the new name, `target` the existing file.
    Link,
    Readlink,
    /// chdir/fchdir: `resolved` is the new working directory.
    Chdir,
    /// dup/dup2/dup3/fcntl(F_DUPFD*): `result` is a new descriptor for what `fd` names; `resolved`
    /// is its path when it is a file.
    Dup,
    Socket,
    Connect,
    Bind,
    /// sendto/sendmsg/sendmmsg with a payload.
    Send,
    /// clone/fork/vfork: `child` is the new pid/tid.
    Spawn,
    Exec,
    /// exit_group: `result` is the exit code (the whole thread group ends).
    Exit,
    /// io_uring_setup: operations submitted through the ring are not traced.
    IoUring,
    /// memfd_create: `path` is `/memfd:<name>` (as the kernel names it), `result` its descriptor.
    Memfd,
    /// mount/move_mount: `path` is the mount point, `target` what is mounted there (the source);
    /// open_tree: `target` is the tree, `result` its descriptor.
    Mount,
}

/// One event. Optional fields are omitted from JSON when absent.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    /// Order of arrival in the trace.
    pub seq: u64,
    /// Seconds since the epoch.
    pub ts: f64,
    pub pid: u32,
    /// `startup`, `call:<tool>#<n>`, `after:<tool>#<n>` or `background` (set by attribution).
    pub phase: String,
    pub kind: EventKind,
    pub syscall: String,
    /// The path named in the call (file events, exec, AF_UNIX address).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The path the kernel resolved (symlinks followed), from the returned descriptor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// Second path: rename/symlink target.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Open flags or chmod mode, as printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<String>,
    /// Whether a file open can modify the file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub write: bool,
    /// Network family (`AF_INET`, `AF_INET6`, `AF_UNIX`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
    /// `TCP`, `UDP`, `UNIX` from the descriptor decoding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// Payload sent (lossy UTF-8), possibly truncated by the tracer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child: Option<u32>,
    /// clone with CLONE_THREAD.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub thread: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub raw: String,
    /// Raw payload bytes for canary search (not serialised; `data` has the text).
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// The directory descriptor a relative `path` / `target` is relative to, as traced
    /// (`AT_FDCWD` or a number); [`crate::paths::Resolver`] makes the paths absolute.
    #[serde(skip)]
    pub dirfd: Option<String>,
    #[serde(skip)]
    pub target_dirfd: Option<String>,
    /// The descriptor a call acts on (fchmod, fchdir).
    #[serde(skip)]
    pub fd: Option<i64>,
    /// Spawn: the child's pid in the parent's own PID namespace (what it names in /proc), when
    /// that is not the tracer's.
    #[serde(skip)]
    pub child_local: Option<u32>,
}

impl Event {
    /// An event with nothing but its time, process and kind.
    pub(crate) fn bare(ts: f64, pid: u32, kind: EventKind, syscall: String, raw: String) -> Self {
        Event {
            seq: 0,
            ts,
            pid,
            phase: String::new(),
            kind,
            syscall,
            path: None,
            resolved: None,
            target: None,
            flags: None,
            write: false,
            family: None,
            address: None,
            port: None,
            protocol: None,
            argv: None,
            data: None,
            child: None,
            thread: false,
            result: None,
            error: None,
            raw,
            bytes: Vec::new(),
            dirfd: None,
            target_dirfd: None,
            fd: None,
            child_local: None,
        }
    }

    fn new(s: &Syscall, kind: EventKind) -> Self {
        let mut e = Event::bare(s.ts, s.pid, kind, s.name.clone(), s.raw.clone());
        e.result = s.ret;
        e.error = s.errno.clone();
        e
    }

    /// The call succeeded (a result that is not -1; unknown for calls cut by a kill).
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.result.is_some_and(|r| r >= 0)
    }

    /// Where a file event happened: the resolved path when known.
    pub fn effective_path(&self) -> Option<&str> {
        self.resolved.as_deref().or(self.path.as_deref())
    }
}

fn string_arg(args: &[String], i: usize) -> Option<String> {
    args.get(i)
        .and_then(|a| decode_string(a))
        .map(|(b, _)| String::from_utf8_lossy(&b).into_owned())
}

/// `3</path>` → `/path`; `3<TCP:[..]>` → `TCP:[..]`.
fn fd_decoration(arg: &str) -> Option<&str> {
    let start = arg.find('<')?;
    let end = arg.rfind('>')?;
    (end > start).then(|| &arg[start + 1..end])
}

/// A `*at` call's path: joined with the directory when the tracer decorated the descriptor
/// (`-y`), else left relative with the descriptor to resolve later.
fn at_path(dirfd: &str, path: String) -> (String, Option<String>) {
    if path.starts_with('/') {
        return (path, None);
    }
    match fd_decoration(dirfd) {
        Some(dir) if dir.starts_with('/') => {
            (format!("{}/{path}", dir.trim_end_matches('/')), None)
        }
        _ => (path, Some(dirfd.to_string())),
    }
}

/// The path argument `i` of a `*at` call whose directory descriptor is argument `d`.
fn at_arg(e: &mut Event, args: &[String], d: usize, i: usize) -> Option<String> {
    let (p, dirfd) = at_path(args.get(d).map_or("", String::as_str), string_arg(args, i)?);
    e.dirfd = dirfd;
    Some(p)
}

/// The leading number of a descriptor argument (`3` or `3</path>`).
fn fd_number(arg: &str) -> Option<i64> {
    arg.split('<').next()?.trim().parse().ok()
}

/// Parses `{sa_family=AF_INET, sin_port=htons(80), sin_addr=inet_addr("1.2.3.4")}`.
fn parse_sockaddr(s: &str) -> (Option<String>, Option<String>, Option<u16>) {
    let grab = |key: &str| -> Option<String> {
        let i = s.find(key)?;
        let rest = &s[i + key.len()..];
        let end = rest.find([',', '}']).unwrap_or(rest.len());
        Some(rest[..end].trim().to_string())
    };
    let family = grab("sa_family=");
    let port = grab("sin_port=htons(")
        .or_else(|| grab("sin6_port=htons("))
        .and_then(|p| p.trim_end_matches(')').parse().ok());
    let addr = if let Some(a) = grab("sin_addr=inet_addr(") {
        decode_string(a.trim_end_matches(')')).map(|(b, _)| String::from_utf8_lossy(&b).into())
    } else if let Some(i) = s.find("inet_pton(AF_INET6, ") {
        let rest = &s[i + "inet_pton(AF_INET6, ".len()..];
        decode_string(rest).map(|(b, _)| String::from_utf8_lossy(&b).into())
    } else if let Some(p) = grab("sun_path=") {
        // An abstract name prints as `@"name"`; it keeps its `@`.
        match p.strip_prefix('@') {
            Some(name) => {
                decode_string(name).map(|(b, _)| format!("@{}", String::from_utf8_lossy(&b)))
            }
            None => decode_string(&p).map(|(b, _)| String::from_utf8_lossy(&b).into()),
        }
    } else {
        None
    };
    (family, addr, port)
}

fn protocol_of(fd_arg: &str) -> Option<String> {
    let d = fd_decoration(fd_arg)?;
    let proto = d.split(':').next()?;
    matches!(
        proto,
        "TCP" | "UDP" | "TCPv6" | "UDPv6" | "UNIX" | "NETLINK" | "UNIX-STREAM"
    )
    .then(|| proto.to_string())
}

fn open_is_write(flags: &str) -> bool {
    ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]
        .iter()
        .any(|f| flags.contains(f))
}

/// Turns one trace record into an event (`None` for calls that carry nothing to judge).
pub fn from_record(rec: &TraceRecord) -> Option<Event> {
    let s = match rec {
        TraceRecord::Syscall(s) => s,
        TraceRecord::Exit {
            pid,
            ts,
            code,
            signal,
        } => {
            let mut e = Event::bare(*ts, *pid, EventKind::Exit, "exit".into(), String::new());
            e.flags = signal.clone();
            e.result = code.map(i64::from);
            return Some(e);
        }
    };
    let a = &s.args;
    let ev = match s.name.as_str() {
        "open" | "creat" => {
            let mut e = Event::new(s, EventKind::FileOpen);
            e.path = string_arg(a, 0);
            let flags = if s.name == "creat" {
                "O_CREAT|O_WRONLY|O_TRUNC".to_string()
            } else {
                a.get(1).cloned().unwrap_or_default()
            };
            e.write = open_is_write(&flags);
            e.flags = Some(flags);
            e.resolved = s.ret_fd.clone().filter(|p| p.starts_with('/'));
            e
        }
        "openat" | "openat2" => {
            let mut e = Event::new(s, EventKind::FileOpen);
            e.path = Some(at_arg(&mut e, a, 0, 1)?);
            let flags = a.get(2).cloned().unwrap_or_default();
            e.write = open_is_write(&flags);
            e.flags = Some(flags);
            e.resolved = s.ret_fd.clone().filter(|p| p.starts_with('/'));
            e
        }
        "rename" | "renameat" | "renameat2" => {
            let mut e = Event::new(s, EventKind::Rename);
            if s.name == "rename" {
                e.path = string_arg(a, 0);
                e.target = string_arg(a, 1);
            } else {
                e.path = at_arg(&mut e, a, 0, 1);
                if let Some(t) = string_arg(a, 3) {
                    let (t, d) = at_path(a.get(2).map_or("", String::as_str), t);
                    e.target = Some(t);
                    e.target_dirfd = d;
                }
            }
            e.write = true;
            e
        }
        "unlink" | "unlinkat" => {
            let mut e = Event::new(s, EventKind::Unlink);
            e.path = if s.name == "unlink" {
                string_arg(a, 0)
            } else {
                at_arg(&mut e, a, 0, 1)
            };
            e.write = true;
            e
        }
        "chmod" | "fchmodat" | "fchmod" => {
            let mut e = Event::new(s, EventKind::Chmod);
            match s.name.as_str() {
                "chmod" => {
                    e.path = string_arg(a, 0);
                    e.flags = a.get(1).cloned();
                }
                "fchmodat" => {
                    e.path = at_arg(&mut e, a, 0, 1);
                    e.flags = a.get(2).cloned();
                }
                _ => {
                    e.path = a
                        .first()
                        .and_then(|f| fd_decoration(f))
                        .filter(|p| p.starts_with('/'))
                        .map(str::to_string);
                    e.fd = a.first().and_then(|f| fd_number(f));
                    e.flags = a.get(1).cloned();
                }
            }
            e.write = true;
            e
        }
        "symlink" | "symlinkat" => {
            let mut e = Event::new(s, EventKind::Symlink);
            e.target = string_arg(a, 0);
            e.path = if s.name == "symlink" {
                string_arg(a, 1)
            } else {
                at_arg(&mut e, a, 1, 2)
            };
            e.write = true;
            e
        }
        "link" | "linkat" => {
            let mut e = Event::new(s, EventKind::Link);
            if s.name == "link" {
                e.target = string_arg(a, 0);
                e.path = string_arg(a, 1);
            } else {
                e.path = at_arg(&mut e, a, 2, 3);
                if let Some(t) = string_arg(a, 1) {
                    let (t, d) = at_path(a.first().map_or("", String::as_str), t);
                    e.target = Some(t);
                    e.target_dirfd = d;
                }
            }
            e.write = true;
            e
        }
        "chdir" => {
            let mut e = Event::new(s, EventKind::Chdir);
            e.path = string_arg(a, 0);
            e
        }
        "fchdir" => {
            let mut e = Event::new(s, EventKind::Chdir);
            e.fd = a.first().and_then(|f| fd_number(f));
            e
        }
        "dup" | "dup2" | "dup3" => {
            let mut e = Event::new(s, EventKind::Dup);
            e.fd = a.first().and_then(|f| fd_number(f));
            e
        }
        "fcntl" | "fcntl64"
            if a.get(1)
                .is_some_and(|c| c == "F_DUPFD" || c == "F_DUPFD_CLOEXEC") =>
        {
            let mut e = Event::new(s, EventKind::Dup);
            e.fd = a.first().and_then(|f| fd_number(f));
            e
        }
        "readlink" | "readlinkat" => {
            let mut e = Event::new(s, EventKind::Readlink);
            e.path = if s.name == "readlink" {
                string_arg(a, 0)
            } else {
                at_arg(&mut e, a, 0, 1)
            };
            e
        }
        "socket" => {
            let mut e = Event::new(s, EventKind::Socket);
            e.family = a.first().cloned();
            e.flags = a.get(1).cloned();
            e
        }
        "connect" | "bind" => {
            let kind = if s.name == "connect" {
                EventKind::Connect
            } else {
                EventKind::Bind
            };
            let mut e = Event::new(s, kind);
            e.fd = a.first().and_then(|f| fd_number(f));
            let (family, addr, port) = parse_sockaddr(a.get(1).map_or("", String::as_str));
            e.family = family;
            e.address = addr;
            e.port = port;
            e.protocol = a.first().and_then(|f| protocol_of(f));
            e.fd = a.first().and_then(|f| fd_number(f));
            e
        }
        "sendto" => {
            let mut e = Event::new(s, EventKind::Send);
            e.fd = a.first().and_then(|f| fd_number(f));
            e.protocol = a.first().and_then(|f| protocol_of(f));
            // A send without an address goes where the socket was connected.
            e.fd = a.first().and_then(|f| fd_number(f));
            if let Some((bytes, _)) = a.get(1).and_then(|d| decode_string(d)) {
                e.data = Some(String::from_utf8_lossy(&bytes).into_owned());
                e.bytes = bytes;
            }
            if let Some(addr) = a.get(4).filter(|x| x.starts_with('{')) {
                let (family, address, port) = parse_sockaddr(addr);
                e.family = family;
                e.address = address;
                e.port = port;
            }
            e
        }
        // On a descriptor: what it leads to is known only from the socket's `connect` (the
        // resolver fills in the address when it is a unix socket; writes elsewhere stay
        // addressless and are not judged).
        "write" | "writev" => {
            let mut e = Event::new(s, EventKind::Send);
            e.fd = a.first().and_then(|f| fd_number(f));
            let data = a.get(1).map_or("", String::as_str);
            let bytes = if s.name == "write" {
                decode_string(data).map(|(b, _)| b).unwrap_or_default()
            } else {
                let mut bytes = Vec::new();
                let mut rest = data;
                while let Some(i) = rest.find("iov_base=") {
                    rest = &rest[i + "iov_base=".len()..];
                    if let Some((b, _)) = decode_string(rest) {
                        bytes.extend_from_slice(&b);
                    }
                }
                bytes
            };
            if !bytes.is_empty() {
                e.data = Some(String::from_utf8_lossy(&bytes).into_owned());
                e.bytes = bytes;
            }
            e
        }
        "sendmsg" | "sendmmsg" => {
            let mut e = Event::new(s, EventKind::Send);
            e.fd = a.first().and_then(|f| fd_number(f));
            e.protocol = a.first().and_then(|f| protocol_of(f));
            e.fd = a.first().and_then(|f| fd_number(f));
            let msg = a.get(1).map_or("", String::as_str);
            if msg.contains("msg_name=") {
                let (family, address, port) = parse_sockaddr(msg);
                e.family = family;
                e.address = address;
                e.port = port;
            }
            // Every quoted iov_base is payload.
            let mut bytes = Vec::new();
            let mut rest = msg;
            while let Some(i) = rest.find("iov_base=") {
                rest = &rest[i + "iov_base=".len()..];
                if let Some((b, _)) = decode_string(rest) {
                    bytes.extend_from_slice(&b);
                }
            }
            if !bytes.is_empty() {
                e.data = Some(String::from_utf8_lossy(&bytes).into_owned());
                e.bytes = bytes;
            }
            e
        }
        "clone" | "clone3" | "fork" | "vfork" => {
            let mut e = Event::new(s, EventKind::Spawn);
            e.child = s.ret.filter(|r| *r > 0).and_then(|r| u32::try_from(r).ok());
            e.child_local = s.ret_local.and_then(|r| u32::try_from(r).ok());
            e.thread = a.first().is_some_and(|f| f.contains("CLONE_THREAD"));
            e.flags = a.first().cloned();
            e
        }
        "execve" | "execveat" => {
            let mut e = Event::new(s, EventKind::Exec);
            if s.name == "execve" {
                e.path = string_arg(a, 0);
            } else {
                // execveat(fd, "", ..., AT_EMPTY_PATH) runs the descriptor itself (fexecve).
                e.path = at_arg(&mut e, a, 0, 1);
            }
            let ai = if s.name == "execve" { 1 } else { 2 };
            if let Some(list) = a.get(ai) {
                let inner = list.trim().trim_start_matches('[').trim_end_matches(']');
                let argv: Vec<String> = split_args(inner)
                    .iter()
                    .filter_map(|x| decode_string(x))
                    .map(|(b, _)| String::from_utf8_lossy(&b).into_owned())
                    .collect();
                e.bytes = argv.join(" ").into_bytes();
                e.argv = Some(argv);
            }
            e
        }
        "exit_group" => {
            let mut e = Event::new(s, EventKind::Exit);
            e.result = a.first().and_then(|c| c.trim().parse().ok());
            e
        }
        "io_uring_setup" => Event::new(s, EventKind::IoUring),
        "mount" => {
            let mut e = Event::new(s, EventKind::Mount);
            e.target = string_arg(a, 0);
            e.path = string_arg(a, 1);
            e.flags = a.get(3).cloned();
            e
        }
        "open_tree" => {
            let mut e = Event::new(s, EventKind::Mount);
            if let Some(t) = string_arg(a, 1) {
                let (t, d) = at_path(a.first().map_or("", String::as_str), t);
                e.target = Some(t);
                e.target_dirfd = d;
            }
            e.flags = a.get(2).cloned();
            e
        }
        "move_mount" => {
            let mut e = Event::new(s, EventKind::Mount);
            e.path = at_arg(&mut e, a, 2, 3);
            if let Some(t) = string_arg(a, 1) {
                let (t, d) = at_path(a.first().map_or("", String::as_str), t);
                e.target = Some(t);
                e.target_dirfd = d;
            }
            e.flags = a.get(4).cloned();
            e
        }
        "memfd_create" => {
            let mut e = Event::new(s, EventKind::Memfd);
            e.path = string_arg(a, 0).map(|n| format!("/memfd:{n}"));
            e.flags = a.get(1).cloned();
            e
        }
        _ => return None,
    };
    Some(ev)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::{StraceParser, TraceParser};

    fn ev(line: &str) -> Event {
        let mut p = StraceParser::default();
        let recs = p.feed(line);
        from_record(recs.first().expect("record")).expect("event")
    }

    #[test]
    fn openat_through_a_symlink_reports_the_resolved_target() {
        let e = ev(
            r#"5 1.0 openat(AT_FDCWD</home/sandbox/workspace>, "lib/python/key.pem", O_RDONLY|O_CLOEXEC) = 3</home/sandbox/.ssh/id_rsa>"#,
        );
        assert_eq!(e.kind, EventKind::FileOpen);
        assert_eq!(
            e.path.as_deref(),
            Some("/home/sandbox/workspace/lib/python/key.pem")
        );
        assert_eq!(e.effective_path(), Some("/home/sandbox/.ssh/id_rsa"));
        assert!(!e.write);
        assert!(e.ok());
    }

    #[test]
    fn sendto_without_connect_carries_destination_and_payload() {
        let e = ev(
            r#"9 1.0 sendto(3<UDP:[18879]>, "x\ny\0\377", 5, 0, {sa_family=AF_INET, sin_port=htons(9999), sin_addr=inet_addr("8.8.4.4")}, 16) = 5"#,
        );
        assert_eq!(e.kind, EventKind::Send);
        assert_eq!(e.address.as_deref(), Some("8.8.4.4"));
        assert_eq!(e.port, Some(9999));
        assert_eq!(e.protocol.as_deref(), Some("UDP"));
        assert_eq!(e.bytes, b"x\ny\0\xff");
    }

    #[test]
    fn connect_parses_inet_and_unix_addresses() {
        let e = ev(
            r#"9 1.0 connect(3<TCP:[1]>, {sa_family=AF_INET, sin_port=htons(4444), sin_addr=inet_addr("127.0.0.10")}, 16) = -1 EINPROGRESS (Operation now in progress)"#,
        );
        assert_eq!(e.address.as_deref(), Some("127.0.0.10"));
        assert_eq!(e.port, Some(4444));
        assert_eq!(e.error.as_deref(), Some("EINPROGRESS"));
        let u = ev(
            r#"9 1.0 connect(4<UNIX:[2]>, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file or directory)"#,
        );
        assert_eq!(u.family.as_deref(), Some("AF_UNIX"));
        assert_eq!(u.address.as_deref(), Some("/var/run/nscd/socket"));
        let a = ev(
            r#"9 1.0 connect(4, {sa_family=AF_UNIX, sun_path=@"/tmp/dbus-7Qx2"}, 17) = -1 ECONNREFUSED (Connection refused)"#,
        );
        assert_eq!(a.address.as_deref(), Some("@/tmp/dbus-7Qx2"));
    }

    #[test]
    fn execve_argv_is_decoded() {
        let e = ev(
            r#"3 1.0 execve("/bin/sh", ["sh", "-c", "echo \"hi\", there"], 0x7ffc /* 3 vars */) = 0"#,
        );
        assert_eq!(e.kind, EventKind::Exec);
        assert_eq!(
            e.argv,
            Some(vec!["sh".into(), "-c".into(), "echo \"hi\", there".into()])
        );
    }

    #[test]
    fn exit_group_and_io_uring_setup_become_events() {
        let e = ev(r#"7 1.0 exit_group(3) = ?"#);
        assert_eq!(e.kind, EventKind::Exit);
        assert_eq!(e.result, Some(3));
        let u = ev(r#"7 1.0 io_uring_setup(4, 0x7ffd5f1c0d40) = 5"#);
        assert_eq!(u.kind, EventKind::IoUring);
        assert!(u.ok());
        let failed =
            ev(r#"7 1.0 io_uring_setup(4, 0x7ffd5f1c0d40) = -1 EPERM (Operation not permitted)"#);
        assert!(!failed.ok());
    }

    #[test]
    fn memfd_create_and_fexecve_keep_what_resolution_needs() {
        let m = ev(r#"7 1.0 memfd_create("fmt", MFD_CLOEXEC) = 4"#);
        assert_eq!(m.kind, EventKind::Memfd);
        assert_eq!(m.path.as_deref(), Some("/memfd:fmt"));
        assert_eq!(m.result, Some(4));
        let x = ev(
            r#"7 1.0 execveat(4, "", ["sh", "-c", "id"], 0x7ffc /* 3 vars */, AT_EMPTY_PATH) = 0"#,
        );
        assert_eq!(x.kind, EventKind::Exec);
        assert_eq!(x.path.as_deref(), Some(""));
        assert_eq!(x.dirfd.as_deref(), Some("4"));
        assert_eq!(x.argv, Some(vec!["sh".into(), "-c".into(), "id".into()]));
    }

    #[test]
    fn thread_clone_is_marked() {
        let e = ev(
            r#"3 1.0 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, child_tid=0x7f, parent_tid=0x7f, exit_signal=0, stack=0x7f, stack_size=0x7fff00, tls=0x7f} => {parent_tid=[16613]}, 88) = 16613"#,
        );
        assert_eq!(e.kind, EventKind::Spawn);
        assert!(e.thread);
        assert_eq!(e.child, Some(16613));
    }

    #[test]
    fn write_opens_are_marked() {
        let e = ev(
            r#"3 1.0 openat(AT_FDCWD</>, "/tmp/.backdoor.sh", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3</tmp/.backdoor.sh>"#,
        );
        assert!(e.write);
        let c = ev(r#"3 1.0 chmod("/tmp/.backdoor.sh", 0755) = 0"#);
        assert_eq!(c.kind, EventKind::Chmod);
        assert_eq!(c.flags.as_deref(), Some("0755"));
    }
}
