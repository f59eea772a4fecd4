//! Typed trace events: what a backend saw, decoded once, with no tracer text in it. A backend
//! renders its own display line (`render`) for evidence; the analysis reads the fields.

use std::fmt::Write as _;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddrV4, SocketAddrV6};

/// `AT_FDCWD` as the kernel receives it (a 32-bit int in a 64-bit register).
pub const AT_FDCWD: i32 = -100;

/// A descriptor argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fd {
    /// `AT_FDCWD`: relative to the working directory.
    Cwd,
    Num(i32),
}

impl Fd {
    pub fn from_arg(a: u64) -> Fd {
        match a as i32 {
            AT_FDCWD => Fd::Cwd,
            n => Fd::Num(n),
        }
    }
}

/// What a descriptor refers to, when the backend could tell (from the file's inode mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FdKind {
    File,
    Dir,
    Socket,
    Pipe,
    CharDevice,
    BlockDevice,
    Symlink,
    /// No open file behind the descriptor.
    Closed,
}

impl FdKind {
    /// From an inode's `i_mode` (0: no file).
    pub fn from_mode(mode: u32) -> FdKind {
        match mode & 0o170000 {
            0 => FdKind::Closed,
            0o140000 => FdKind::Socket,
            0o120000 => FdKind::Symlink,
            0o100000 => FdKind::File,
            0o060000 => FdKind::BlockDevice,
            0o040000 => FdKind::Dir,
            0o020000 => FdKind::CharDevice,
            _ => FdKind::Pipe,
        }
    }
}

/// A byte string read from the traced process (a path, an argument), possibly cut short.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bytes {
    pub bytes: Vec<u8>,
    /// The backend's bound cut it (the real value is longer).
    pub truncated: bool,
}

impl Bytes {
    pub fn lossy(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// A path argument. `None` in an event means the pointer could not be read.
pub type PathArg = Option<Bytes>;

/// The address a socket call names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SockAddr {
    V4(SocketAddrV4),
    V6(SocketAddrV6),
    /// AF_UNIX with a filesystem path.
    UnixPath(Vec<u8>),
    /// AF_UNIX in the abstract namespace (the leading NUL dropped).
    UnixAbstract(Vec<u8>),
    /// AF_UNIX with no name (autobind).
    UnixUnnamed,
    Other {
        family: u16,
        bytes: Vec<u8>,
    },
}

pub const AF_UNIX: u16 = 1;
pub const AF_INET: u16 = 2;
pub const AF_INET6: u16 = 10;

impl SockAddr {
    /// Decodes a `struct sockaddr` as the process passed it (`len` bytes read).
    pub fn parse(b: &[u8]) -> Option<SockAddr> {
        if b.len() < 2 {
            return None;
        }
        let family = u16::from_ne_bytes([b[0], b[1]]);
        Some(match family {
            AF_INET if b.len() >= 8 => {
                let port = u16::from_be_bytes([b[2], b[3]]);
                SockAddr::V4(SocketAddrV4::new(
                    Ipv4Addr::new(b[4], b[5], b[6], b[7]),
                    port,
                ))
            }
            AF_INET6 if b.len() >= 28 => {
                let port = u16::from_be_bytes([b[2], b[3]]);
                let flow = u32::from_be_bytes([b[4], b[5], b[6], b[7]]);
                let mut a = [0u8; 16];
                a.copy_from_slice(&b[8..24]);
                let scope = u32::from_ne_bytes([b[24], b[25], b[26], b[27]]);
                SockAddr::V6(SocketAddrV6::new(Ipv6Addr::from(a), port, flow, scope))
            }
            AF_UNIX => {
                let p = &b[2..];
                match p.first() {
                    None => SockAddr::UnixUnnamed,
                    Some(0) => SockAddr::UnixAbstract(p[1..].to_vec()),
                    Some(_) => {
                        let end = p.iter().position(|&c| c == 0).unwrap_or(p.len());
                        SockAddr::UnixPath(p[..end].to_vec())
                    }
                }
            }
            _ => SockAddr::Other {
                family,
                bytes: b[2..].to_vec(),
            },
        })
    }

    fn render(&self, out: &mut String) {
        let _ = match self {
            SockAddr::V4(a) => write!(out, "{{AF_INET, {a}}}"),
            SockAddr::V6(a) => write!(out, "{{AF_INET6, {a}}}"),
            SockAddr::UnixPath(p) => write!(out, "{{AF_UNIX, {}}}", quote(p, false)),
            SockAddr::UnixAbstract(p) => write!(out, "{{AF_UNIX, @{}}}", quote(p, false)),
            SockAddr::UnixUnnamed => write!(out, "{{AF_UNIX}}"),
            SockAddr::Other { family, bytes } => {
                write!(out, "{{family={family}, {} bytes}}", bytes.len())
            }
        };
    }
}

/// A bounded excerpt of the bytes a call sends or writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Payload {
    /// The first bytes (at most the backend's bound).
    pub excerpt: Vec<u8>,
    /// Bytes the call asked to send (of its first buffer, for vectored calls).
    pub len: u64,
}

/// The typed arguments of one system call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Args {
    /// open/openat/openat2/creat. `resolve` is openat2's `RESOLVE_*` flags.
    Open {
        dirfd: Fd,
        path: PathArg,
        flags: u64,
        mode: u32,
        resolve: Option<u64>,
    },
    /// read/pread64 (no payload: only who read how much from what).
    Read {
        fd: Fd,
        kind: Option<FdKind>,
        count: u64,
    },
    /// write/pwrite64/writev: `payload` only for sockets.
    Write {
        fd: Fd,
        kind: Option<FdKind>,
        count: u64,
        payload: Option<Payload>,
    },
    SendFile {
        out_fd: Fd,
        out_kind: Option<FdKind>,
        in_fd: Fd,
        count: u64,
    },
    Socket {
        domain: u32,
        ty: u32,
        protocol: u32,
    },
    Connect {
        fd: Fd,
        addr: Option<SockAddr>,
    },
    Bind {
        fd: Fd,
        addr: Option<SockAddr>,
    },
    /// sendto/sendmsg/sendmmsg (for sendmmsg, the first message).
    Send {
        fd: Fd,
        addr: Option<SockAddr>,
        payload: Option<Payload>,
    },
    /// execve/execveat.
    Exec {
        dirfd: Fd,
        path: PathArg,
        argv: Vec<Bytes>,
        /// argv was cut (too many or too long arguments) or unreadable.
        argv_incomplete: bool,
    },
    Unlink {
        dirfd: Fd,
        path: PathArg,
        flags: u64,
    },
    Rename {
        olddirfd: Fd,
        old: PathArg,
        newdirfd: Fd,
        new: PathArg,
        flags: u64,
    },
    Mkdir {
        dirfd: Fd,
        path: PathArg,
        mode: u32,
    },
    /// clone/clone3/fork/vfork: `flags` is clone's flags (0 for fork/vfork, clone3's struct unread).
    Clone {
        flags: u64,
    },
    /// Any other traced call: its raw registers and the path strings it names.
    Other {
        raw: [u64; 6],
        paths: Vec<PathArg>,
    },
}

/// One system call: entry (arguments) and, once it returned, its result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyscallEvent {
    /// Nanoseconds since boot (CLOCK_BOOTTIME) at entry.
    pub ts_ns: u64,
    /// Nanoseconds since boot when it returned.
    pub exit_ts_ns: Option<u64>,
    /// Thread group (process) id, in the initial pid namespace.
    pub pid: u32,
    pub tid: u32,
    pub nr: u32,
    pub name: &'static str,
    pub args: Args,
    /// The return value; `None` if the call never returned (exit, exec replaced the thread, the
    /// process was killed).
    pub result: Option<i64>,
    /// Some argument was cut to the backend's bound.
    pub truncated: bool,
    /// Some user memory could not be read (a pointer to a page not resident, or invalid).
    pub unreadable: bool,
}

/// Everything a backend reports, in order of arrival.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceEvent {
    Syscall(SyscallEvent),
    /// A new process or thread (`child_pid == parent_pid` for a thread).
    Fork {
        ts_ns: u64,
        parent_pid: u32,
        parent_tid: u32,
        child_pid: u32,
        child_tid: u32,
    },
    /// A successful exec: `filename` as the kernel resolved it for the binary loader.
    Exec {
        ts_ns: u64,
        pid: u32,
        tid: u32,
        /// The thread that called exec (differs from `tid` when a non-leader thread exec'd).
        old_tid: u32,
        filename: PathArg,
        /// The arguments as the new program sees them (read from its argument area; bounded).
        argv: Vec<Bytes>,
    },
    /// A thread ended; `group_dead` when it was the last of its process.
    Exit {
        ts_ns: u64,
        pid: u32,
        tid: u32,
        /// The wait status the kernel recorded (`exit_code`: status << 8, or the signal).
        code: i32,
        group_dead: bool,
    },
}

impl TraceEvent {
    pub fn pid(&self) -> u32 {
        match self {
            TraceEvent::Syscall(s) => s.pid,
            TraceEvent::Fork { parent_pid, .. } => *parent_pid,
            TraceEvent::Exec { pid, .. } | TraceEvent::Exit { pid, .. } => *pid,
        }
    }

    pub fn ts_ns(&self) -> u64 {
        match self {
            TraceEvent::Syscall(s) => s.ts_ns,
            TraceEvent::Fork { ts_ns, .. }
            | TraceEvent::Exec { ts_ns, .. }
            | TraceEvent::Exit { ts_ns, .. } => *ts_ns,
        }
    }

    /// The display line for evidence, in this backend's notation (`backend` prefixes it, e.g.
    /// `ebpf`): `ebpf 412/413 openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3`.
    pub fn render(&self, backend: &str) -> String {
        let mut out = String::new();
        match self {
            TraceEvent::Syscall(s) => {
                let _ = write!(out, "{backend} {}/{} {}(", s.pid, s.tid, s.name);
                render_args(&s.args, &mut out);
                out.push(')');
                match s.result {
                    Some(r) if r < 0 => {
                        let _ = write!(out, " = -1 {}", errno_name(-r));
                    }
                    Some(r) => {
                        let _ = write!(out, " = {r}");
                    }
                    None => out.push_str(" = ?"),
                }
                if s.truncated {
                    out.push_str(" (cut)");
                }
                if s.unreadable {
                    out.push_str(" (unreadable argument)");
                }
            }
            TraceEvent::Fork {
                parent_pid,
                parent_tid,
                child_pid,
                child_tid,
                ..
            } => {
                let what = if child_pid == parent_pid {
                    "thread"
                } else {
                    "process"
                };
                let _ = write!(
                    out,
                    "{backend} {parent_pid}/{parent_tid} +++ new {what} {child_pid}/{child_tid}"
                );
            }
            TraceEvent::Exec {
                pid,
                tid,
                filename,
                argv,
                ..
            } => {
                let args: Vec<String> = argv.iter().map(|b| quote(&b.bytes, false)).collect();
                let _ = write!(
                    out,
                    "{backend} {pid}/{tid} +++ exec {} [{}]",
                    path_str(filename),
                    args.join(", ")
                );
            }
            TraceEvent::Exit {
                pid,
                tid,
                code,
                group_dead,
                ..
            } => {
                let what = if *group_dead { "process" } else { "thread" };
                let _ = write!(
                    out,
                    "{backend} {pid}/{tid} +++ {what} exited, status {code:#x}"
                );
            }
        }
        out
    }
}

fn fd_str(fd: &Fd) -> String {
    match fd {
        Fd::Cwd => "AT_FDCWD".into(),
        Fd::Num(n) => n.to_string(),
    }
}

fn path_str(p: &PathArg) -> String {
    match p {
        Some(b) => {
            let mut s = quote(&b.bytes, false);
            if b.truncated {
                s.push_str("...");
            }
            s
        }
        None => "<unreadable>".into(),
    }
}

/// A C-style quoted string (printable ASCII as is, the rest escaped).
fn quote(b: &[u8], _payload: bool) -> String {
    let mut s = String::with_capacity(b.len() + 2);
    s.push('"');
    for &c in b {
        match c {
            b'"' => s.push_str("\\\""),
            b'\\' => s.push_str("\\\\"),
            b'\n' => s.push_str("\\n"),
            b'\t' => s.push_str("\\t"),
            b'\r' => s.push_str("\\r"),
            0x20..=0x7e => s.push(c as char),
            _ => {
                let _ = write!(s, "\\x{c:02x}");
            }
        }
    }
    s.push('"');
    s
}

fn payload_str(p: &Option<Payload>) -> String {
    match p {
        Some(p) => {
            let mut s = quote(&p.excerpt, true);
            if (p.excerpt.len() as u64) < p.len {
                s.push_str("...");
            }
            s
        }
        None => "-".into(),
    }
}

fn addr_str(a: &Option<SockAddr>) -> String {
    let mut s = String::new();
    match a {
        Some(a) => a.render(&mut s),
        None => s.push_str("NULL"),
    }
    s
}

fn kind_str(k: &Option<FdKind>) -> &'static str {
    match k {
        Some(FdKind::Socket) => "<socket>",
        Some(FdKind::File) => "<file>",
        Some(FdKind::Pipe) => "<pipe>",
        Some(FdKind::CharDevice) => "<char>",
        Some(FdKind::Dir) => "<dir>",
        Some(FdKind::BlockDevice) => "<block>",
        Some(FdKind::Symlink) => "<symlink>",
        Some(FdKind::Closed) => "<closed>",
        None => "",
    }
}

/// Names of the `O_*` open flags set in `flags` (x86_64 values).
pub fn open_flags(flags: u64) -> String {
    const NAMES: &[(u64, &str)] = &[
        (0o100, "O_CREAT"),
        (0o200, "O_EXCL"),
        (0o400, "O_NOCTTY"),
        (0o1000, "O_TRUNC"),
        (0o2000, "O_APPEND"),
        (0o4000, "O_NONBLOCK"),
        (0o10000, "O_DSYNC"),
        (0o40000, "O_DIRECT"),
        (0o200000, "O_DIRECTORY"),
        (0o400000, "O_NOFOLLOW"),
        (0o1000000, "O_NOATIME"),
        (0o2000000, "O_CLOEXEC"),
        (0o10000000, "O_PATH"),
        (0o20000000, "O_TMPFILE"),
    ];
    let mut s = match flags & 3 {
        0 => "O_RDONLY",
        1 => "O_WRONLY",
        2 => "O_RDWR",
        _ => "O_ACCMODE",
    }
    .to_string();
    let mut rest = flags & !3;
    for (bit, name) in NAMES {
        // O_TMPFILE includes O_DIRECTORY's bit.
        if rest & bit == *bit {
            s.push('|');
            s.push_str(name);
            rest &= !bit;
        }
    }
    if rest != 0 {
        let _ = write!(s, "|{rest:#o}");
    }
    s
}

fn render_args(a: &Args, out: &mut String) {
    let _ = match a {
        Args::Open {
            dirfd,
            path,
            flags,
            mode,
            resolve,
        } => {
            let r = write!(
                out,
                "{}, {}, {}",
                fd_str(dirfd),
                path_str(path),
                open_flags(*flags)
            );
            if flags & 0o100 != 0 || flags & 0o20000000 != 0 {
                let _ = write!(out, ", {mode:#o}");
            }
            if let Some(res) = resolve {
                let _ = write!(out, ", resolve={res:#x}");
            }
            r
        }
        Args::Read { fd, kind, count } => write!(out, "{}{}, {count}", fd_str(fd), kind_str(kind)),
        Args::Write {
            fd,
            kind,
            count,
            payload,
        } => {
            let r = write!(out, "{}{}, ", fd_str(fd), kind_str(kind));
            if payload.is_some() {
                out.push_str(&payload_str(payload));
            } else {
                out.push_str("...");
            }
            let _ = write!(out, ", {count}");
            r
        }
        Args::SendFile {
            out_fd,
            out_kind,
            in_fd,
            count,
        } => write!(
            out,
            "{}{}, {}, {count}",
            fd_str(out_fd),
            kind_str(out_kind),
            fd_str(in_fd)
        ),
        Args::Socket {
            domain,
            ty,
            protocol,
        } => write!(out, "{}, {ty:#x}, {protocol}", domain_str(*domain)),
        Args::Connect { fd, addr } | Args::Bind { fd, addr } => {
            write!(out, "{}, {}", fd_str(fd), addr_str(addr))
        }
        Args::Send { fd, addr, payload } => write!(
            out,
            "{}, {}, {}",
            fd_str(fd),
            payload_str(payload),
            addr_str(addr)
        ),
        Args::Exec {
            dirfd,
            path,
            argv,
            argv_incomplete,
        } => {
            if *dirfd != Fd::Cwd {
                let _ = write!(out, "{}, ", fd_str(dirfd));
            }
            let args: Vec<String> = argv.iter().map(|b| quote(&b.bytes, false)).collect();
            write!(
                out,
                "{}, [{}{}]",
                path_str(path),
                args.join(", "),
                if *argv_incomplete { ", ..." } else { "" }
            )
        }
        Args::Unlink { dirfd, path, flags } => {
            write!(out, "{}, {}, {flags:#x}", fd_str(dirfd), path_str(path))
        }
        Args::Rename {
            olddirfd,
            old,
            newdirfd,
            new,
            flags,
        } => write!(
            out,
            "{}, {}, {}, {}, {flags:#x}",
            fd_str(olddirfd),
            path_str(old),
            fd_str(newdirfd),
            path_str(new)
        ),
        Args::Mkdir { dirfd, path, mode } => {
            write!(out, "{}, {}, {mode:#o}", fd_str(dirfd), path_str(path))
        }
        Args::Clone { flags } => write!(out, "flags={flags:#x}"),
        Args::Other { raw, paths } => {
            let mut parts: Vec<String> = paths.iter().map(path_str).collect();
            parts.extend(
                raw.iter()
                    .take(3 - paths.len().min(3))
                    .map(|r| format!("{r:#x}")),
            );
            write!(out, "{}", parts.join(", "))
        }
    };
}

fn domain_str(d: u32) -> String {
    match d as u16 {
        AF_UNIX => "AF_UNIX".into(),
        AF_INET => "AF_INET".into(),
        AF_INET6 => "AF_INET6".into(),
        other => other.to_string(),
    }
}

/// The symbolic name of an errno value (the common ones; `E<n>` otherwise).
pub fn errno_name(e: i64) -> String {
    let n = match e {
        1 => "EPERM",
        2 => "ENOENT",
        3 => "ESRCH",
        4 => "EINTR",
        9 => "EBADF",
        11 => "EAGAIN",
        12 => "ENOMEM",
        13 => "EACCES",
        14 => "EFAULT",
        17 => "EEXIST",
        20 => "ENOTDIR",
        21 => "EISDIR",
        22 => "EINVAL",
        24 => "EMFILE",
        28 => "ENOSPC",
        30 => "EROFS",
        32 => "EPIPE",
        38 => "ENOSYS",
        88 => "ENOTSOCK",
        97 => "EAFNOSUPPORT",
        98 => "EADDRINUSE",
        99 => "EADDRNOTAVAIL",
        101 => "ENETUNREACH",
        104 => "ECONNRESET",
        110 => "ETIMEDOUT",
        111 => "ECONNREFUSED",
        113 => "EHOSTUNREACH",
        115 => "EINPROGRESS",
        // Kernel-internal: a call a signal interrupted (seen by tracers, never by the process).
        512 => "ERESTARTSYS",
        _ => return format!("E{e}"),
    };
    n.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockaddr_in_decodes_address_and_network_order_port() {
        let mut b = vec![0u8; 16];
        b[..2].copy_from_slice(&AF_INET.to_ne_bytes());
        b[2..4].copy_from_slice(&8080u16.to_be_bytes());
        b[4..8].copy_from_slice(&[127, 0, 0, 1]);
        assert_eq!(
            SockAddr::parse(&b),
            Some(SockAddr::V4("127.0.0.1:8080".parse().expect("addr")))
        );
    }

    #[test]
    fn sockaddr_un_distinguishes_path_abstract_and_unnamed() {
        let fam = AF_UNIX.to_ne_bytes();
        let mut p = fam.to_vec();
        p.extend_from_slice(b"/run/x.sock\0\0\0");
        assert_eq!(
            SockAddr::parse(&p),
            Some(SockAddr::UnixPath(b"/run/x.sock".to_vec()))
        );
        let mut a = fam.to_vec();
        a.extend_from_slice(b"\0hidden");
        assert_eq!(
            SockAddr::parse(&a),
            Some(SockAddr::UnixAbstract(b"hidden".to_vec()))
        );
        assert_eq!(SockAddr::parse(&fam), Some(SockAddr::UnixUnnamed));
        assert_eq!(SockAddr::parse(&[1]), None);
    }

    #[test]
    fn render_shows_path_flags_and_errno() {
        let e = TraceEvent::Syscall(SyscallEvent {
            ts_ns: 1,
            exit_ts_ns: Some(2),
            pid: 10,
            tid: 11,
            nr: 257,
            name: "openat",
            args: Args::Open {
                dirfd: Fd::Cwd,
                path: Some(Bytes {
                    bytes: b"/etc/\"x\"".to_vec(),
                    truncated: false,
                }),
                flags: 0o2000000 | 0o100 | 1,
                mode: 0o644,
                resolve: None,
            },
            result: Some(-13),
            truncated: false,
            unreadable: false,
        });
        assert_eq!(
            e.render("ebpf"),
            "ebpf 10/11 openat(AT_FDCWD, \"/etc/\\\"x\\\"\", O_WRONLY|O_CREAT|O_CLOEXEC, 0o644) = -1 EACCES"
        );
    }

    #[test]
    fn fd_kind_from_inode_mode() {
        assert_eq!(FdKind::from_mode(0o140777), FdKind::Socket);
        assert_eq!(FdKind::from_mode(0o100644), FdKind::File);
        assert_eq!(FdKind::from_mode(0o010600), FdKind::Pipe);
        assert_eq!(FdKind::from_mode(0), FdKind::Closed);
        assert_eq!(Fd::from_arg((-100i64) as u64), Fd::Cwd);
        assert_eq!(Fd::from_arg(0xffff_ffff_0000_0003), Fd::Num(3));
    }
}
