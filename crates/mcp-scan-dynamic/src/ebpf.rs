//! The eBPF backend in the runtime witness: typed events from `mcp-scan-trace` turned into the
//! analysis's [`Event`]s, so the path replay, attribution and rules are the ones strace feeds.
//!
//! The kernel side follows the sandbox from its first process on (the launch holds it until the
//! tracer tracks it, see `SandboxSpec::on_launch`), which is more than strace sees: strace starts
//! at the launch program's `execve` below the sandbox's PID 1. [`convert`] keeps what strace
//! would have seen: the process that executed the launch program, from that `execve` on, and
//! everything it created, until the teardown (strace dies with the sandbox, so later exits are
//! not seen by it either).

use crate::events::{Event, EventKind};
use mcp_scan_trace::event::{
    Args, Fd, PathArg, Payload, SockAddr, SyscallEvent, TraceEvent, errno_name, open_flags,
};
use std::collections::{HashMap, HashSet};

/// The name the report and the stderr summary give this backend.
pub const NAME: &str = "ebpf";

/// What the analysis gets from one eBPF trace.
#[derive(Debug, Default)]
pub struct Converted {
    pub events: Vec<Event>,
    /// The display lines (the out dir's trace), one per kept event.
    pub raw: Vec<u8>,
    /// `ptrace(PTRACE_TRACEME)` was called (see second_run.rs).
    pub traceme: bool,
    /// The launch program's exec was seen (else nothing of the server was traced).
    pub launch_seen: bool,
}

fn clock(id: libc::clockid_t) -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into a timespec we own; both clocks always exist on Linux.
    unsafe { libc::clock_gettime(id, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

/// Seconds to add to a CLOCK_BOOTTIME time to get the epoch time the call windows use.
pub fn boot_to_epoch() -> f64 {
    // Read the pair twice and keep the tighter one: a preemption between the reads skews it.
    let once = || {
        let a = clock(libc::CLOCK_REALTIME);
        let b = clock(libc::CLOCK_BOOTTIME);
        let c = clock(libc::CLOCK_REALTIME);
        (c - a, (a + c) / 2.0 - b)
    };
    let (d1, o1) = once();
    let (d2, o2) = once();
    if d1 <= d2 { o1 } else { o2 }
}

/// Now, in the tracer's clock (nanoseconds since boot).
pub fn boot_now_ns() -> u64 {
    (clock(libc::CLOCK_BOOTTIME) * 1e9) as u64
}

/// A pids cgroup around the sandbox under the eBPF tracer. As root the sandbox's uid is the
/// host's root, which RLIMIT_NPROC does not bind (`Limits::processes` holds only for other
/// users), and without strace stopping every new process a fork bomb outruns the scanner: 2,000
/// processes within seconds here, the call timeout firing half a minute late. Best effort: with
/// no writable pids controller the run goes on as before (the call timeout and the PID
/// namespace still end it).
#[derive(Debug)]
pub struct PidsCap {
    dir: std::path::PathBuf,
}

impl PidsCap {
    /// A fresh cgroup below this process's own with `pids.max` = `max` (cgroup v1's pids
    /// hierarchy, or v2's unified one).
    pub fn new(max: u64) -> Option<PidsCap> {
        use std::path::Path;
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
        let parents = own.lines().filter_map(|l| {
            let mut f = l.splitn(3, ':');
            let (_, ctl, path) = (f.next()?, f.next()?, f.next()?);
            let base = if ctl.split(',').any(|c| c == "pids") {
                Path::new("/sys/fs/cgroup/pids")
            } else if ctl.is_empty() {
                Path::new("/sys/fs/cgroup")
            } else {
                return None;
            };
            // Below our own cgroup, else below the hierarchy's root (cgroup v2 enables a
            // controller only where no process sits: our own cgroup often cannot have it).
            Some([base.join(path.trim_start_matches('/')), base.to_path_buf()])
        });
        let mut tried = Vec::new();
        for parent in parents.flatten() {
            if tried.contains(&parent) {
                continue;
            }
            tried.push(parent.clone());
            // A name like a desktop's: the sandbox may see the host's cgroup tree through /sys.
            let n = N.fetch_add(1, Ordering::Relaxed);
            let dir = parent.join(format!("session-{}{n}.scope", std::process::id()));
            if std::fs::create_dir(&dir).is_err() {
                continue;
            }
            if !dir.join("pids.max").exists() {
                // v2: the controller may not be enabled below the parent yet.
                let _ = std::fs::write(parent.join("cgroup.subtree_control"), "+pids");
            }
            if std::fs::write(dir.join("pids.max"), max.to_string()).is_ok() {
                return Some(PidsCap { dir });
            }
            let _ = std::fs::remove_dir(&dir);
        }
        None
    }

    /// Moves `pid` (and so everything it creates) into the cgroup.
    pub fn add(&self, pid: u32) -> std::io::Result<()> {
        std::fs::write(self.dir.join("cgroup.procs"), pid.to_string())
    }
}

impl Drop for PidsCap {
    fn drop(&mut self) {
        // Empty once the sandbox's last process is reaped, which can lag its kill a little.
        for _ in 0..100 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

fn lossy(p: &PathArg) -> Option<String> {
    p.as_ref().map(|b| b.lossy())
}

fn fd_text(fd: Fd) -> String {
    match fd {
        Fd::Cwd => "AT_FDCWD".into(),
        Fd::Num(n) => n.to_string(),
    }
}

/// A `*at` path and the descriptor it is relative to (none when absolute), as events.rs keeps
/// them for strace.
fn at_path(dirfd: Fd, p: &PathArg) -> Option<(String, Option<String>)> {
    let path = lossy(p)?;
    let d = (!path.starts_with('/')).then(|| fd_text(dirfd));
    Some((path, d))
}

fn set_at(e: &mut Event, dirfd: Fd, p: &PathArg) -> Option<String> {
    let (path, d) = at_path(dirfd, p)?;
    e.dirfd = d;
    Some(path)
}

fn set_target_at(e: &mut Event, dirfd: Fd, p: &PathArg) {
    if let Some((t, d)) = at_path(dirfd, p) {
        e.target = Some(t);
        e.target_dirfd = d;
    }
}

fn open_is_write(flags: &str) -> bool {
    ["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND"]
        .iter()
        .any(|f| flags.contains(f))
}

fn family_name(f: u16) -> String {
    match f {
        1 => "AF_UNIX".into(),
        2 => "AF_INET".into(),
        10 => "AF_INET6".into(),
        16 => "AF_NETLINK".into(),
        17 => "AF_PACKET".into(),
        n => n.to_string(),
    }
}

fn socket_type(ty: u32) -> String {
    let mut s = match ty & 0xf {
        1 => "SOCK_STREAM".to_string(),
        2 => "SOCK_DGRAM".into(),
        3 => "SOCK_RAW".into(),
        5 => "SOCK_SEQPACKET".into(),
        n => n.to_string(),
    };
    if ty & 0o2000000 != 0 {
        s.push_str("|SOCK_CLOEXEC");
    }
    if ty & 0o4000 != 0 {
        s.push_str("|SOCK_NONBLOCK");
    }
    s
}

fn mount_flags(f: u64) -> String {
    const NAMES: &[(u64, &str)] = &[
        (1, "MS_RDONLY"),
        (2, "MS_NOSUID"),
        (4, "MS_NODEV"),
        (8, "MS_NOEXEC"),
        (32, "MS_REMOUNT"),
        (4096, "MS_BIND"),
        (8192, "MS_MOVE"),
        (16384, "MS_REC"),
        (1 << 17, "MS_UNBINDABLE"),
        (1 << 18, "MS_PRIVATE"),
        (1 << 19, "MS_SLAVE"),
        (1 << 20, "MS_SHARED"),
    ];
    let names: Vec<&str> = NAMES
        .iter()
        .filter(|(b, _)| f & b != 0)
        .map(|(_, n)| *n)
        .collect();
    if names.is_empty() {
        format!("{f:#x}")
    } else {
        names.join("|")
    }
}

/// Fills the address fields the way events.rs reads strace's sockaddr.
fn set_addr(e: &mut Event, a: &SockAddr) {
    match a {
        SockAddr::V4(s) => {
            e.family = Some("AF_INET".into());
            e.address = Some(s.ip().to_string());
            e.port = Some(s.port());
        }
        SockAddr::V6(s) => {
            e.family = Some("AF_INET6".into());
            e.address = Some(s.ip().to_string());
            e.port = Some(s.port());
        }
        SockAddr::UnixPath(p) => {
            e.family = Some("AF_UNIX".into());
            e.address = Some(String::from_utf8_lossy(p).into_owned());
        }
        SockAddr::UnixAbstract(p) => {
            e.family = Some("AF_UNIX".into());
            e.address = Some(format!("@{}", String::from_utf8_lossy(p)));
        }
        SockAddr::UnixUnnamed => e.family = Some("AF_UNIX".into()),
        SockAddr::Other { family, .. } => e.family = Some(family_name(*family)),
    }
}

fn set_payload(e: &mut Event, p: &Option<Payload>) {
    if let Some(p) = p
        && !p.excerpt.is_empty()
    {
        e.data = Some(String::from_utf8_lossy(&p.excerpt).into_owned());
        e.bytes = p.excerpt.clone();
    }
}

fn fd_num(fd: Fd) -> Option<i64> {
    match fd {
        Fd::Num(n) => Some(i64::from(n)),
        Fd::Cwd => None,
    }
}

/// A new process or thread as `sched_process_fork` reported it.
#[derive(Debug, Clone, Copy)]
struct Forked {
    ts: u64,
    parent_tid: u32,
    child_tid: u32,
    thread: bool,
}

/// One system call as an event (`None` for calls events.rs also leaves out).
fn syscall_event(s: &SyscallEvent, offset: f64, forks: &[Forked], raw: String) -> Option<Event> {
    let kind_of = |k| {
        let mut e = Event::bare(
            s.ts_ns as f64 / 1e9 + offset,
            s.tid,
            k,
            s.name.to_string(),
            raw.clone(),
        );
        match s.result {
            Some(r) if r < 0 => {
                e.result = Some(-1);
                e.error = Some(errno_name(-r));
            }
            r => e.result = r,
        }
        e
    };
    let name = s.name;
    let ev = match &s.args {
        Args::Open {
            dirfd, path, flags, ..
        } => {
            let mut e = kind_of(EventKind::FileOpen);
            e.path = if matches!(name, "open" | "creat") {
                lossy(path)
            } else {
                Some(set_at(&mut e, *dirfd, path)?)
            };
            let f = open_flags(*flags);
            e.write = open_is_write(&f);
            e.flags = Some(f);
            e
        }
        Args::Rename {
            olddirfd,
            old,
            newdirfd,
            new,
            ..
        } => {
            let mut e = kind_of(EventKind::Rename);
            if name == "rename" {
                e.path = lossy(old);
                e.target = lossy(new);
            } else {
                e.path = set_at(&mut e, *olddirfd, old);
                set_target_at(&mut e, *newdirfd, new);
            }
            e.write = true;
            e
        }
        Args::Unlink { dirfd, path, .. } if name != "rmdir" => {
            let mut e = kind_of(EventKind::Unlink);
            e.path = if name == "unlink" {
                lossy(path)
            } else {
                set_at(&mut e, *dirfd, path)
            };
            e.write = true;
            e
        }
        Args::Socket { domain, ty, .. } => {
            let mut e = kind_of(EventKind::Socket);
            e.family = Some(family_name(*domain as u16));
            e.flags = Some(socket_type(*ty));
            e
        }
        Args::Connect { fd, addr } | Args::Bind { fd, addr } => {
            let mut e = kind_of(if name == "connect" {
                EventKind::Connect
            } else {
                EventKind::Bind
            });
            e.fd = fd_num(*fd);
            if let Some(a) = addr {
                set_addr(&mut e, a);
            }
            e
        }
        Args::Send { fd, addr, payload } => {
            let mut e = kind_of(EventKind::Send);
            e.fd = fd_num(*fd);
            set_payload(&mut e, payload);
            if let Some(a) = addr {
                set_addr(&mut e, a);
            }
            e
        }
        Args::Write { fd, payload, .. } if matches!(name, "write" | "writev") => {
            let mut e = kind_of(EventKind::Send);
            e.fd = fd_num(*fd);
            set_payload(&mut e, payload);
            e
        }
        Args::Exec {
            dirfd, path, argv, ..
        } => {
            let mut e = kind_of(EventKind::Exec);
            e.path = if name == "execve" {
                lossy(path)
            } else {
                set_at(&mut e, *dirfd, path)
            };
            let argv: Vec<String> = argv.iter().map(|b| b.lossy()).collect();
            e.bytes = argv.join(" ").into_bytes();
            e.argv = Some(argv);
            e
        }
        Args::Clone { flags } => {
            let mut e = kind_of(EventKind::Spawn);
            let until = s.exit_ts_ns.unwrap_or(u64::MAX);
            // The child the kernel created inside this call (its number in our namespace; the
            // call returns the caller's own number for it).
            let f = forks
                .iter()
                .find(|f| f.parent_tid == s.tid && f.ts >= s.ts_ns && f.ts <= until);
            let local = s.result.filter(|r| *r > 0);
            e.child = match f {
                Some(f) => Some(f.child_tid),
                None => local.and_then(|r| u32::try_from(r).ok()),
            };
            e.child_local = local
                .and_then(|r| u32::try_from(r).ok())
                .filter(|l| Some(*l) != e.child);
            e.thread = f.map_or(flags & 0x10000 != 0, |f| f.thread);
            e.flags = Some(if e.thread {
                "CLONE_VM|CLONE_THREAD".into()
            } else {
                format!("{flags:#x}")
            });
            e
        }
        Args::Other { raw: a, paths } => {
            let p = |i: usize| paths.get(i).cloned().flatten();
            let fd = |i: usize| Fd::from_arg(a[i]);
            match name {
                "chmod" | "fchmod" | "fchmodat" => {
                    let mut e = kind_of(EventKind::Chmod);
                    let mode = match name {
                        "chmod" => {
                            e.path = lossy(&p(0));
                            a[1]
                        }
                        "fchmodat" => {
                            e.path = set_at(&mut e, fd(0), &p(0));
                            a[2]
                        }
                        _ => {
                            e.fd = fd_num(fd(0));
                            a[1]
                        }
                    };
                    e.flags = Some(format!("0{:o}", mode & 0o7777));
                    e.write = true;
                    e
                }
                "symlink" | "symlinkat" => {
                    let mut e = kind_of(EventKind::Symlink);
                    e.target = lossy(&p(0));
                    e.path = if name == "symlink" {
                        lossy(&p(1))
                    } else {
                        set_at(&mut e, fd(1), &p(1))
                    };
                    e.write = true;
                    e
                }
                "link" | "linkat" => {
                    let mut e = kind_of(EventKind::Link);
                    if name == "link" {
                        e.target = lossy(&p(0));
                        e.path = lossy(&p(1));
                    } else {
                        e.path = set_at(&mut e, fd(2), &p(1));
                        set_target_at(&mut e, fd(0), &p(0));
                    }
                    e.write = true;
                    e
                }
                "chdir" => {
                    let mut e = kind_of(EventKind::Chdir);
                    e.path = lossy(&p(0));
                    e
                }
                "fchdir" => {
                    let mut e = kind_of(EventKind::Chdir);
                    e.fd = fd_num(fd(0));
                    e
                }
                "dup" | "dup2" | "dup3" => {
                    let mut e = kind_of(EventKind::Dup);
                    e.fd = fd_num(fd(0));
                    e
                }
                // F_DUPFD, F_DUPFD_CLOEXEC
                "fcntl" if matches!(a[1] as u32, 0 | 1030) => {
                    let mut e = kind_of(EventKind::Dup);
                    e.fd = fd_num(fd(0));
                    e
                }
                "readlink" | "readlinkat" => {
                    let mut e = kind_of(EventKind::Readlink);
                    e.path = if name == "readlink" {
                        lossy(&p(0))
                    } else {
                        set_at(&mut e, fd(0), &p(0))
                    };
                    e
                }
                "exit_group" => {
                    let mut e = kind_of(EventKind::Exit);
                    e.result = Some(i64::from(a[0] as i32));
                    e.error = None;
                    e
                }
                "io_uring_setup" => kind_of(EventKind::IoUring),
                "mount" => {
                    let mut e = kind_of(EventKind::Mount);
                    e.target = lossy(&p(0));
                    e.path = lossy(&p(1));
                    e.flags = Some(mount_flags(a[3]));
                    e
                }
                "open_tree" => {
                    let mut e = kind_of(EventKind::Mount);
                    set_target_at(&mut e, fd(0), &p(0));
                    e.flags = Some(format!("{:#x}", a[2]));
                    e
                }
                "move_mount" => {
                    let mut e = kind_of(EventKind::Mount);
                    e.path = set_at(&mut e, fd(2), &p(1));
                    set_target_at(&mut e, fd(0), &p(0));
                    e.flags = Some(format!("{:#x}", a[4]));
                    e
                }
                "memfd_create" => {
                    let mut e = kind_of(EventKind::Memfd);
                    e.path = lossy(&p(0)).map(|n| format!("/memfd:{n}"));
                    e.flags = Some(format!("{:#x}", a[1]));
                    e
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(ev)
}

fn signal_name(sig: i32) -> String {
    match sig {
        1 => "SIGHUP".into(),
        2 => "SIGINT".into(),
        3 => "SIGQUIT".into(),
        4 => "SIGILL".into(),
        5 => "SIGTRAP".into(),
        6 => "SIGABRT".into(),
        7 => "SIGBUS".into(),
        8 => "SIGFPE".into(),
        9 => "SIGKILL".into(),
        11 => "SIGSEGV".into(),
        13 => "SIGPIPE".into(),
        14 => "SIGALRM".into(),
        15 => "SIGTERM".into(),
        24 => "SIGXCPU".into(),
        25 => "SIGXFSZ".into(),
        n => format!("SIG{n}"),
    }
}

/// Whether `e` is the launch program's exec (as the syscall, or as the kernel's exec event).
fn is_launch(e: &TraceEvent, launch: &str) -> bool {
    match e {
        TraceEvent::Exec { filename, .. } => lossy(filename).as_deref() == Some(launch),
        TraceEvent::Syscall(s) => {
            matches!(&s.args, Args::Exec { path, .. } if lossy(path).as_deref() == Some(launch))
                && s.result == Some(0)
        }
        _ => false,
    }
}

/// Turns a run's typed events into the analysis's events: the launch program's process from its
/// `execve` on and everything it created, up to `until_ns` (the teardown), with times made epoch
/// seconds by `offset`.
pub fn convert(trace: &[TraceEvent], launch: &str, offset: f64, until_ns: u64) -> Converted {
    let mut out = Converted::default();
    let Some(first) = trace.iter().position(|e| is_launch(e, launch)) else {
        return out;
    };
    out.launch_seen = true;
    let root = trace[first].pid();
    // Start at the launch's execve entry (it precedes the exec event of the same call).
    let start = trace[..first]
        .iter()
        .rposition(|e| {
            matches!(e, TraceEvent::Syscall(s) if s.pid == root
                && matches!(&s.args, Args::Exec { path, .. } if lossy(path).as_deref() == Some(launch)))
        })
        .unwrap_or(first);
    let forks: Vec<Forked> = trace[start..]
        .iter()
        .filter_map(|e| match *e {
            TraceEvent::Fork {
                ts_ns,
                parent_pid,
                parent_tid,
                child_pid,
                child_tid,
            } => Some(Forked {
                ts: ts_ns,
                parent_tid,
                child_tid,
                thread: child_pid == parent_pid,
            }),
            _ => None,
        })
        .collect();
    let mut by_parent: HashMap<u32, Vec<Forked>> = HashMap::new();
    for f in &forks {
        by_parent.entry(f.parent_tid).or_default().push(*f);
    }
    let mut traced: HashSet<u32> = HashSet::from([root]);
    for e in &trace[start..] {
        if e.ts_ns() > until_ns {
            break;
        }
        match e {
            TraceEvent::Fork {
                parent_pid,
                child_pid,
                ..
            } => {
                if traced.contains(parent_pid) {
                    traced.insert(*child_pid);
                }
                continue;
            }
            _ if !traced.contains(&e.pid()) => continue,
            _ => {}
        }
        let line = e.render(NAME);
        let ev = match e {
            TraceEvent::Syscall(s) => {
                if s.name == "ptrace"
                    && let Args::Other { raw, .. } = &s.args
                    && raw[0] == 0
                {
                    out.traceme = true;
                }
                let f = by_parent.get(&s.tid).map_or(&[][..], Vec::as_slice);
                syscall_event(s, offset, f, line.clone())
            }
            TraceEvent::Exit {
                ts_ns,
                pid,
                code,
                group_dead: true,
                ..
            } => {
                let mut ev = Event::bare(
                    *ts_ns as f64 / 1e9 + offset,
                    *pid,
                    EventKind::Exit,
                    "exit".into(),
                    String::new(),
                );
                let sig = code & 0x7f;
                if sig != 0 {
                    ev.flags = Some(signal_name(sig));
                } else {
                    ev.result = Some(i64::from((code >> 8) & 0xff));
                }
                traced.remove(pid);
                Some(ev)
            }
            _ => None,
        };
        out.raw.extend_from_slice(line.as_bytes());
        out.raw.push(b'\n');
        if let Some(ev) = ev {
            out.events.push(ev);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_scan_trace::event::Bytes;

    fn b(s: &str) -> Option<Bytes> {
        Some(Bytes {
            bytes: s.as_bytes().to_vec(),
            truncated: false,
        })
    }

    fn call(ts: u64, pid: u32, tid: u32, name: &'static str, args: Args, ret: i64) -> TraceEvent {
        TraceEvent::Syscall(SyscallEvent {
            ts_ns: ts,
            exit_ts_ns: Some(ts + 5),
            pid,
            tid,
            nr: 0,
            name,
            args,
            result: Some(ret),
            truncated: false,
            unreadable: false,
        })
    }

    fn exec(ts: u64, pid: u32, path: &str) -> TraceEvent {
        call(
            ts,
            pid,
            pid,
            "execve",
            Args::Exec {
                dirfd: Fd::Cwd,
                path: b(path),
                argv: vec![b(path).unwrap_or_default()],
                argv_incomplete: false,
            },
            0,
        )
    }

    fn openat(ts: u64, pid: u32, path: &str, flags: u64, ret: i64) -> TraceEvent {
        call(
            ts,
            pid,
            pid,
            "openat",
            Args::Open {
                dirfd: Fd::Cwd,
                path: b(path),
                flags,
                mode: 0,
                resolve: None,
            },
            ret,
        )
    }

    #[test]
    fn only_the_launch_programs_tree_from_its_exec_until_the_teardown_is_kept() {
        let trace = vec![
            // The sandbox's own setup (before the launch, and a process outside its tree).
            openat(10, 50, "/etc/setup", 0, 3),
            exec(20, 60, "/usr/bin/ip"),
            openat(30, 70, "/before/exec", 0, 3),
            exec(40, 70, "/usr/bin/nsenter"),
            openat(50, 70, "/after/exec", 0, 3),
            call(60, 70, 70, "clone", Args::Clone { flags: 0x11 }, 2),
            TraceEvent::Fork {
                ts_ns: 61,
                parent_pid: 70,
                parent_tid: 70,
                child_pid: 80,
                child_tid: 80,
            },
            openat(70, 80, "/home/u/.ssh/id_rsa", 0, -2),
            openat(75, 60, "/not/in/tree", 0, 3),
            openat(200, 80, "/after/teardown", 0, 3),
        ];
        let c = convert(&trace, "/usr/bin/nsenter", 1000.0, 100);
        assert!(c.launch_seen);
        let paths: Vec<Option<&str>> = c.events.iter().map(|e| e.path.as_deref()).collect();
        assert_eq!(
            paths,
            vec![
                Some("/usr/bin/nsenter"),
                Some("/after/exec"),
                None,
                Some("/home/u/.ssh/id_rsa")
            ]
        );
        let spawn = &c.events[2];
        assert_eq!(spawn.kind, EventKind::Spawn);
        // The child as our namespace numbers it, and as the caller's namespace does.
        assert_eq!(spawn.child, Some(80));
        assert_eq!(spawn.child_local, Some(2));
        assert!(!spawn.thread);
        let failed = &c.events[3];
        assert_eq!(failed.error.as_deref(), Some("ENOENT"));
        assert!(!failed.ok());
        assert!((failed.ts - (1000.0 + 70e-9)).abs() < 1e-9);
        assert!(String::from_utf8_lossy(&c.raw).starts_with("ebpf 70/70 execve("));
    }

    #[test]
    fn a_trace_without_the_launch_is_reported_as_such() {
        let trace = vec![exec(40, 70, "/usr/bin/other"), openat(50, 70, "/x", 0, 3)];
        let c = convert(&trace, "/usr/bin/nsenter", 0.0, u64::MAX);
        assert!(!c.launch_seen);
        assert!(c.events.is_empty());
    }

    #[test]
    fn typed_arguments_become_the_fields_the_analysis_reads() {
        let mut trace = vec![exec(1, 7, "/bin/launch")];
        trace.push(openat(2, 7, "rel/f", 0o1101, 3));
        trace.push(call(
            3,
            7,
            7,
            "connect",
            Args::Connect {
                fd: Fd::Num(4),
                addr: Some(SockAddr::V4("1.2.3.4:443".parse().expect("addr"))),
            },
            -115,
        ));
        trace.push(call(
            4,
            7,
            7,
            "sendto",
            Args::Send {
                fd: Fd::Num(5),
                addr: Some(SockAddr::UnixAbstract(b"bus".to_vec())),
                payload: Some(Payload {
                    excerpt: b"hi".to_vec(),
                    len: 2,
                }),
            },
            2,
        ));
        trace.push(call(
            5,
            7,
            7,
            "chmod",
            Args::Other {
                raw: [0, 0o755, 0, 0, 0, 0],
                paths: vec![b("/tmp/x.sh")],
            },
            0,
        ));
        trace.push(call(
            6,
            7,
            7,
            "ptrace",
            Args::Other {
                raw: [0; 6],
                paths: vec![],
            },
            0,
        ));
        trace.push(TraceEvent::Exit {
            ts_ns: 7,
            pid: 7,
            tid: 7,
            code: 9,
            group_dead: true,
        });
        let c = convert(&trace, "/bin/launch", 0.0, u64::MAX);
        let e = &c.events;
        assert_eq!(e[1].path.as_deref(), Some("rel/f"));
        assert_eq!(e[1].dirfd.as_deref(), Some("AT_FDCWD"));
        assert!(e[1].write);
        assert_eq!(e[2].address.as_deref(), Some("1.2.3.4"));
        assert_eq!(e[2].port, Some(443));
        assert_eq!(e[2].error.as_deref(), Some("EINPROGRESS"));
        assert_eq!(e[3].address.as_deref(), Some("@bus"));
        assert_eq!(e[3].bytes, b"hi");
        assert_eq!(e[4].flags.as_deref(), Some("0755"));
        assert_eq!(e[4].path.as_deref(), Some("/tmp/x.sh"));
        assert!(c.traceme);
        // ptrace is not an event (as with strace); the kill is.
        assert_eq!(e[5].kind, EventKind::Exit);
        assert_eq!(e[5].flags.as_deref(), Some("SIGKILL"));
    }
}
