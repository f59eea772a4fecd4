//! The eBPF backend on the real kernel with real processes (needs root, BTF and the bpf syscall,
//! as CI has). Each traced child is forked, held on a pipe until the tracer tracks its pid, then
//! released: everything it does after that must be seen, with typed arguments.
#![cfg(feature = "ebpf")]

use mcp_scan_trace::choice::{Backend, TracerChoice, resolve};
use mcp_scan_trace::ebpf::{self, Config, Error, TraceResult};
use mcp_scan_trace::event::{Args, Fd, FdKind, SockAddr, SyscallEvent, TraceEvent};
use std::ffi::CString;
use std::net::TcpListener;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::Mutex;

/// One traced test at a time: the flood must not share the ring buffer's consumer time.
static SERIAL: Mutex<()> = Mutex::new(());

/// A forked child parked on a pipe: `run` is executed in the child once released (async-signal
/// safe calls only: libc on memory prepared before the fork), then the child `_exit`s.
struct Held {
    pid: u32,
    gate: OwnedFd,
}

fn fork_held(run: impl FnOnce()) -> Held {
    let (r, w) = nix::unistd::pipe().expect("pipe");
    // SAFETY: the child only calls async-signal-safe functions (read, the syscalls in `run`,
    // _exit) on memory allocated before the fork.
    match unsafe { nix::unistd::fork() }.expect("fork") {
        nix::unistd::ForkResult::Child => {
            drop(w);
            let mut b = [0u8; 1];
            // SAFETY: reading one byte into a local buffer.
            unsafe { libc::read(r.as_raw_fd(), b.as_mut_ptr().cast(), 1) };
            run();
            // SAFETY: ends the child without running the parent's destructors or atexit hooks.
            unsafe { libc::_exit(0) }
        }
        nix::unistd::ForkResult::Parent { child } => Held {
            pid: child.as_raw() as u32,
            gate: w,
        },
    }
}

impl Held {
    fn release(&self) {
        // SAFETY: writing one byte from a local buffer to the pipe we own.
        unsafe { libc::write(self.gate.as_raw_fd(), b"g".as_ptr().cast(), 1) };
    }
    fn wait(&self) -> i32 {
        let mut status = 0;
        // SAFETY: waiting for our own child.
        unsafe { libc::waitpid(self.pid as i32, &mut status, 0) };
        status
    }
}

fn syscalls_of(r: &TraceResult, pid: u32) -> Vec<&SyscallEvent> {
    r.events
        .iter()
        .filter_map(|e| match e {
            TraceEvent::Syscall(s) if s.pid == pid => Some(s),
            _ => None,
        })
        .collect()
}

fn path_is(p: &Option<mcp_scan_trace::event::Bytes>, want: &str) -> bool {
    p.as_ref().is_some_and(|b| b.bytes == want.as_bytes())
}

#[test]
fn traced_child_is_seen_opening_connecting_sending_and_execing_with_typed_arguments() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let canary = dir.path().join("canary-secret.txt");
    std::fs::write(&canary, b"canary").expect("canary");
    let canary_s = canary.to_str().expect("utf-8 path").to_string();
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    let payload = b"POST /exfil HTTP/1.1\r\nX-Canary: c4n4ry\r\n\r\n";

    let c_canary = CString::new(canary_s.clone()).expect("cstr");
    let sh = CString::new("/bin/sh").expect("cstr");
    let argv_s = [
        CString::new("sh").expect("cstr"),
        CString::new("-c").expect("cstr"),
        CString::new("/bin/true; exit 7").expect("cstr"),
    ];
    let argv: Vec<*const libc::c_char> = argv_s
        .iter()
        .map(|a| a.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let envp: [*const libc::c_char; 1] = [std::ptr::null()];
    let mut sin: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    sin.sin_family = libc::AF_INET as u16;
    sin.sin_port = port.to_be();
    sin.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);

    let tracer = ebpf::start(&Config::default()).unwrap_or_else(|e| panic!("{e}"));
    let child = fork_held(|| {
        // SAFETY: plain syscalls on memory prepared before the fork.
        unsafe {
            let f = libc::open(c_canary.as_ptr(), libc::O_RDONLY);
            libc::close(f);
            let s = libc::socket(libc::AF_INET, libc::SOCK_STREAM, 0);
            libc::connect(
                s,
                (&sin as *const libc::sockaddr_in).cast(),
                std::mem::size_of::<libc::sockaddr_in>() as u32,
            );
            libc::write(s, payload.as_ptr().cast(), payload.len());
            libc::execve(sh.as_ptr(), argv.as_ptr(), envp.as_ptr());
        }
    });
    tracer.track(child.pid).expect("track");
    child.release();
    let status = child.wait();
    assert_eq!(libc::WEXITSTATUS(status), 7, "the shell ran to its end");
    let r = tracer.stop().expect("stop");
    assert!(r.complete(), "{:?}", r.stats);
    let pid = child.pid;
    let calls = syscalls_of(&r, pid);
    let lines: Vec<String> = r.events.iter().map(|e| e.render(ebpf::BACKEND)).collect();
    let all = lines.join("\n");

    let open = calls
        .iter()
        .find(|s| matches!(&s.args, Args::Open { path, .. } if path_is(path, &canary_s)))
        .unwrap_or_else(|| panic!("open of the canary not seen:\n{all}"));
    assert!(
        matches!(
            open.args,
            Args::Open {
                dirfd: Fd::Cwd,
                flags: 0,
                ..
            }
        ),
        "{open:?}"
    );
    assert!(open.result.is_some_and(|fd| fd >= 0), "{open:?}");

    assert!(
        calls.iter().any(|s| matches!(
            s.args,
            Args::Socket { domain, ty, .. } if domain == libc::AF_INET as u32 && ty & 0xf == libc::SOCK_STREAM as u32
        ) && s.result.is_some_and(|r| r >= 0)),
        "socket not seen:\n{all}"
    );
    let want = SockAddr::V4(std::net::SocketAddrV4::new([127, 0, 0, 1].into(), port));
    let connect = calls
        .iter()
        .find(|s| matches!(&s.args, Args::Connect { addr: Some(a), .. } if *a == want))
        .unwrap_or_else(|| panic!("connect to 127.0.0.1:{port} not seen:\n{all}"));
    assert_eq!(connect.result, Some(0), "{connect:?}");
    assert!(
        connect.render_line().contains(&format!("127.0.0.1:{port}")),
        "{}",
        connect.render_line()
    );

    let write = calls
        .iter()
        .find(|s| {
            matches!(
                &s.args,
                Args::Write {
                    kind: Some(FdKind::Socket),
                    ..
                }
            )
        })
        .unwrap_or_else(|| panic!("write on the socket not seen:\n{all}"));
    match &write.args {
        Args::Write {
            payload: Some(p),
            count,
            ..
        } => {
            assert_eq!(
                p.excerpt, payload,
                "the payload excerpt is the bytes sent: {write:?}"
            );
            assert_eq!(*count, payload.len() as u64);
        }
        other => panic!("no payload: {other:?}"),
    }
    assert_eq!(write.result, Some(payload.len() as i64));

    let exec = calls
        .iter()
        .find(|s| s.name == "execve")
        .unwrap_or_else(|| panic!("execve not seen:\n{all}"));
    match &exec.args {
        Args::Exec {
            path,
            argv,
            argv_incomplete,
            ..
        } => {
            assert!(path_is(path, "/bin/sh"), "{path:?}");
            let argv: Vec<&[u8]> = argv.iter().map(|a| a.bytes.as_slice()).collect();
            assert_eq!(argv, vec![&b"sh"[..], b"-c", b"/bin/true; exit 7"]);
            assert!(!argv_incomplete);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(exec.result, Some(0));
    assert!(
        r.events.iter().any(|e| matches!(e, TraceEvent::Exec { pid: p, filename, argv, .. }
            if *p == pid && path_is(filename, "/bin/sh") && argv.len() == 3 && argv[2].bytes == b"/bin/true; exit 7")),
        "sched exec of /bin/sh not seen:\n{all}"
    );

    // The shell's child (running /bin/true) is followed.
    let grandchild = r
        .events
        .iter()
        .find_map(|e| match e {
            TraceEvent::Fork {
                parent_pid,
                child_pid,
                ..
            } if *parent_pid == pid && *child_pid != pid => Some(*child_pid),
            _ => None,
        })
        .unwrap_or_else(|| panic!("the shell's fork not seen:\n{all}"));
    assert!(
        syscalls_of(&r, grandchild)
            .iter()
            .any(|s| matches!(&s.args, Args::Exec { path, .. } if path_is(path, "/bin/true"))),
        "the grandchild's exec of /bin/true not seen:\n{all}"
    );
    assert!(
        r.events.iter().any(|e| matches!(e, TraceEvent::Exit { pid: p, group_dead: true, code, .. } if *p == pid && *code == 7 << 8)),
        "the exit of the traced process not seen:\n{all}"
    );
    drop(listener);
}

trait RenderLine {
    fn render_line(&self) -> String;
}
impl RenderLine for SyscallEvent {
    fn render_line(&self) -> String {
        TraceEvent::Syscall(self.clone()).render(ebpf::BACKEND)
    }
}

#[test]
fn file_changes_and_datagrams_are_seen_with_their_paths_addresses_and_payloads() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let p = |n: &str| dir.path().join(n).to_str().expect("utf-8").to_string();
    let (d, a, b) = (p("newdir"), p("a.txt"), p("b.txt"));
    std::fs::write(&a, b"x").expect("file");
    let (cd, ca, cb) = (
        CString::new(d.clone()).expect("c"),
        CString::new(a.clone()).expect("c"),
        CString::new(b.clone()).expect("c"),
    );
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").expect("udp");
    let port = udp.local_addr().expect("addr").port();
    let mut sin: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    sin.sin_family = libc::AF_INET as u16;
    sin.sin_port = port.to_be();
    sin.sin_addr.s_addr = u32::from_ne_bytes([127, 0, 0, 1]);
    let dgram1 = b"dns-query-canary";
    let dgram2 = b"second-datagram";
    let tracer = ebpf::start(&Config::default()).unwrap_or_else(|e| panic!("{e}"));
    let child = fork_held(|| unsafe {
        // SAFETY: plain syscalls on memory prepared before the fork.
        libc::mkdir(cd.as_ptr(), 0o750);
        libc::rename(ca.as_ptr(), cb.as_ptr());
        libc::unlink(cb.as_ptr());
        let s = libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0);
        let sa = (&sin as *const libc::sockaddr_in).cast::<libc::sockaddr>();
        let len = std::mem::size_of::<libc::sockaddr_in>() as u32;
        libc::sendto(s, dgram1.as_ptr().cast(), dgram1.len(), 0, sa, len);
        let mut iov = libc::iovec {
            iov_base: dgram2.as_ptr() as *mut libc::c_void,
            iov_len: dgram2.len(),
        };
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_name = sa as *mut libc::c_void;
        msg.msg_namelen = len;
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        libc::sendmsg(s, &msg, 0);
    });
    tracer.track(child.pid).expect("track");
    child.release();
    child.wait();
    let r = tracer.stop().expect("stop");
    let calls = syscalls_of(&r, child.pid);
    let all: Vec<String> = r.events.iter().map(|e| e.render(ebpf::BACKEND)).collect();
    let all = all.join("\n");
    assert!(
        calls.iter().any(
            |s| matches!(&s.args, Args::Mkdir { path, mode: 0o750, .. } if path_is(path, &d))
                && s.result == Some(0)
        ),
        "mkdir:\n{all}"
    );
    assert!(
        calls.iter().any(|s| matches!(&s.args, Args::Rename { old, new, .. } if path_is(old, &a) && path_is(new, &b)) && s.result == Some(0)),
        "rename:\n{all}"
    );
    assert!(
        calls.iter().any(
            |s| matches!(&s.args, Args::Unlink { path, .. } if path_is(path, &b))
                && s.result == Some(0)
        ),
        "unlink:\n{all}"
    );
    let want = SockAddr::V4(std::net::SocketAddrV4::new([127, 0, 0, 1].into(), port));
    for (name, bytes) in [("sendto", &dgram1[..]), ("sendmsg", &dgram2[..])] {
        assert!(
            calls.iter().any(|s| s.name == name
                && matches!(&s.args, Args::Send { addr: Some(a), payload: Some(p), .. } if *a == want && p.excerpt == bytes)
                && s.result == Some(bytes.len() as i64)),
            "{name} to {want:?}:\n{all}"
        );
    }
}

#[test]
fn a_call_cut_short_by_a_kill_is_reported_with_the_kernels_restart_code() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let (r_end, w_end) = nix::unistd::pipe().expect("pipe");
    let rfd = r_end.as_raw_fd();
    let cfg = Config {
        syscalls: vec!["read".into()],
        ..Config::default()
    };
    let tracer = ebpf::start(&cfg).unwrap_or_else(|e| panic!("{e}"));
    let child = fork_held(|| unsafe {
        // SAFETY: a read into a local buffer; it blocks until the parent kills the child.
        let mut b = [0u8; 8];
        libc::read(rfd, b.as_mut_ptr().cast(), b.len());
    });
    tracer.track(child.pid).expect("track");
    child.release();
    // Wait until the child is blocked in read(2) (syscall 0).
    let blocked = (0..500).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(10));
        std::fs::read_to_string(format!("/proc/{}/syscall", child.pid))
            .is_ok_and(|s| s.starts_with("0 "))
    });
    assert!(blocked, "the child blocks in read");
    // SAFETY: killing our own child.
    unsafe { libc::kill(child.pid as i32, libc::SIGKILL) };
    let status = child.wait();
    assert!(libc::WIFSIGNALED(status));
    let r = tracer.stop().expect("stop");
    drop(w_end);
    let reads: Vec<&SyscallEvent> = syscalls_of(&r, child.pid)
        .into_iter()
        .filter(|s| matches!(s.args, Args::Read { fd: Fd::Num(fd), count: 8, .. } if fd == rfd))
        .collect();
    assert_eq!(reads.len(), 1, "{:?}", r.events);
    // The kernel ends the blocked call with ERESTARTSYS before the signal kills the thread.
    assert_eq!(reads[0].result, Some(-512), "{:?}", reads[0]);
    assert!(
        TraceEvent::Syscall(reads[0].clone())
            .render(ebpf::BACKEND)
            .ends_with("= -1 ERESTARTSYS")
    );
    assert!(
        r.events.iter().any(|e| matches!(e, TraceEvent::Exit { pid, code, group_dead: true, .. } if *pid == child.pid && *code == libc::SIGKILL)),
        "{:?}",
        r.events
    );
}

#[test]
fn process_outside_the_filter_is_not_seen() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let inside = CString::new(dir.path().join("inside").to_str().expect("utf-8")).expect("c");
    let outside = CString::new(dir.path().join("outside").to_str().expect("utf-8")).expect("c");
    let tracer = ebpf::start(&Config::default()).unwrap_or_else(|e| panic!("{e}"));
    let a = fork_held(|| unsafe {
        // SAFETY: one syscall on a string prepared before the fork.
        libc::open(inside.as_ptr(), libc::O_RDONLY);
    });
    let b = fork_held(|| unsafe {
        // SAFETY: as above.
        libc::open(outside.as_ptr(), libc::O_RDONLY);
    });
    tracer.track(a.pid).expect("track");
    a.release();
    b.release();
    a.wait();
    b.wait();
    let r = tracer.stop().expect("stop");
    let inside_s = inside.to_str().expect("utf-8");
    let outside_s = outside.to_str().expect("utf-8");
    let seen_inside = syscalls_of(&r, a.pid).iter().any(|s| {
        matches!(&s.args, Args::Open { path, .. } if path_is(path, inside_s))
            && s.result == Some(-2)
    });
    assert!(
        seen_inside,
        "the tracked process's failed open (ENOENT) is seen"
    );
    assert!(
        r.events.iter().all(|e| e.pid() != b.pid),
        "nothing of the untracked process"
    );
    assert!(
        !r.events
            .iter()
            .any(|e| matches!(e, TraceEvent::Syscall(s) if matches!(&s.args, Args::Open { path, .. } if path_is(path, outside_s)))),
        "the untracked open is not seen"
    );
}

/// A child that writes one byte to /dev/null `n` times; returns the trace and the writes seen.
fn flood(cfg: &Config, n: usize) -> (TraceResult, usize) {
    let null = CString::new("/dev/null").expect("c");
    let tracer = ebpf::start(cfg).unwrap_or_else(|e| panic!("{e}"));
    let child = fork_held(|| unsafe {
        // SAFETY: syscalls on a string and a buffer prepared before the fork.
        let fd = libc::open(null.as_ptr(), libc::O_WRONLY);
        let b = [b'x'];
        for _ in 0..n {
            libc::write(fd, b.as_ptr().cast(), 1);
        }
    });
    tracer.track(child.pid).expect("track");
    child.release();
    child.wait();
    let r = tracer.stop().expect("stop");
    let writes = syscalls_of(&r, child.pid)
        .iter()
        .filter(|s| {
            matches!(
                s.args,
                Args::Write {
                    kind: Some(FdKind::CharDevice),
                    ..
                }
            ) && s.result == Some(1)
        })
        .count();
    eprintln!("flood: {writes} of {n} writes seen, {:?}", r.stats);
    assert_eq!(
        r.stats.received, r.stats.sent,
        "user space decodes every record queued"
    );
    // One record per write: each one was queued or counted lost.
    assert!(writes as u64 + r.stats.lost >= n as u64, "{:?}", r.stats);
    (r, writes)
}

/// The sandbox's filter: every process of its pid namespace is traced, though nothing tracked
/// it by pid, whether it was there before the tracer started or created after; the process that
/// made the namespace (outside it) is not.
#[test]
fn pid_namespace_filter_traces_the_processes_of_the_namespace() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().expect("tempdir");
    let first = CString::new(dir.path().join("ns-first").to_str().expect("utf-8")).expect("c");
    let later = CString::new(dir.path().join("ns-later").to_str().expect("utf-8")).expect("c");
    let outside = CString::new(dir.path().join("parent").to_str().expect("utf-8")).expect("c");
    let (ready_r, ready_w) = nix::unistd::pipe().expect("pipe");
    let ready_w_fd = ready_w.as_raw_fd();
    let (go_r, go_w) = nix::unistd::pipe().expect("pipe");
    let (go_r_fd, go_w_fd) = (go_r.as_raw_fd(), go_w.as_raw_fd());
    // The held child makes a pid namespace and its first process (which waits), says so, then on
    // "go" opens a file itself; the first process opens one and forks another that opens one.
    let child = fork_held(|| unsafe {
        // SAFETY: plain syscalls on memory prepared before the fork.
        libc::close(go_w_fd);
        if libc::unshare(libc::CLONE_NEWPID) != 0 {
            libc::_exit(3);
        }
        let pid = libc::fork();
        let mut b = 0u8;
        if pid == 0 {
            libc::read(go_r_fd, (&mut b as *mut u8).cast(), 1);
            libc::open(first.as_ptr(), libc::O_RDONLY);
            if libc::fork() == 0 {
                libc::open(later.as_ptr(), libc::O_RDONLY);
                libc::_exit(0);
            }
            let mut st = 0;
            libc::wait(&mut st);
            libc::_exit(0);
        }
        libc::write(ready_w_fd, b"r".as_ptr().cast(), 1);
        libc::read(go_r_fd, (&mut b as *mut u8).cast(), 1);
        libc::open(outside.as_ptr(), libc::O_RDONLY);
        let mut st = 0;
        libc::waitpid(pid, &mut st, 0);
    });
    drop(ready_w);
    drop(go_r);
    child.release();
    let mut b = [0u8; 1];
    let n = nix::unistd::read(&ready_r, &mut b).expect("read");
    assert_eq!(n, 1, "the child made its namespace");
    let ns = std::fs::metadata(format!("/proc/{}/ns/pid_for_children", child.pid)).expect("ns");
    let inum = u32::try_from(std::os::unix::fs::MetadataExt::ino(&ns)).expect("inode fits");
    let tracer = ebpf::start(&Config {
        pidns_inum: Some(inum),
        ..Config::default()
    })
    .unwrap_or_else(|e| panic!("{e}"));
    nix::unistd::write(&go_w, b"gg").expect("go");
    assert_eq!(libc::WEXITSTATUS(child.wait()), 0);
    let r = tracer.stop().expect("stop");
    let opens_of = |p: &CString| -> Vec<u32> {
        let p = p.to_str().unwrap_or_default();
        r.events
            .iter()
            .filter_map(|e| match e {
                TraceEvent::Syscall(s) if matches!(&s.args, Args::Open { path, .. } if path_is(path, p)) => Some(s.pid),
                _ => None,
            })
            .collect()
    };
    let first_pids = opens_of(&first);
    let later_pids = opens_of(&later);
    assert_eq!(
        first_pids.len(),
        1,
        "the process already in the namespace is seen"
    );
    assert_eq!(
        later_pids.len(),
        1,
        "the process created in the namespace is seen"
    );
    assert!(
        opens_of(&outside).is_empty(),
        "not the namespace's creator, outside it"
    );
    assert!(syscalls_of(&r, child.pid).is_empty());
    assert!(
        r.events.iter().any(
            |e| matches!(e, TraceEvent::Fork { parent_pid, child_pid, .. }
            if *parent_pid == first_pids[0] && *child_pid == later_pids[0])
        ),
        "the fork inside the namespace is seen"
    );
}

#[test]
fn flood_of_syscalls_reports_losses_or_proves_none_were_lost() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    const N: usize = 2_000_000;
    let (r, writes) = flood(&Config::default(), N);
    if r.stats.lost == 0 {
        assert_eq!(writes, N, "no loss reported, so every write must be there");
        assert!(r.complete() && r.gap().is_none());
    } else {
        assert!(!r.complete(), "a lossy trace is never complete");
        assert!(writes < N, "losses reported, so some writes are missing");
    }
}

#[test]
fn flood_through_a_small_ring_buffer_is_reported_incomplete_with_the_loss_count() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    const N: usize = 1_000_000;
    // A reader that pauses before every drain falls behind on any machine.
    let cfg = Config {
        ring_bytes: 16 << 10,
        drain_delay: std::time::Duration::from_millis(20),
        ..Config::default()
    };
    let (r, writes) = flood(&cfg, N);
    assert!(
        r.stats.lost > 0,
        "a 16 KiB ring cannot hold a million calls: {:?}",
        r.stats
    );
    assert!(writes < N);
    assert!(!r.complete(), "a lossy trace is never complete");
    let gap = r.gap().expect("a gap");
    assert!(gap.contains(&r.stats.lost.to_string()), "{gap}");
}

#[test]
fn loader_without_btf_names_the_missing_file_and_the_fallback() {
    let cfg = Config {
        btf_path: "/nonexistent/btf/vmlinux".into(),
        ..Config::default()
    };
    let e = ebpf::start(&cfg).err().expect("no BTF: refused");
    assert!(matches!(e, Error::NoBtf { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("/nonexistent/btf/vmlinux") && msg.contains("--tracer strace"),
        "{msg}"
    );
}

const NOCAP_CHILD: &str = "MCP_SCAN_TRACE_NOCAP_CHILD";

#[test]
fn loader_without_bpf_capabilities_says_how_to_grant_them() {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().expect("test binary");
    let mut cmd = std::process::Command::new(exe);
    cmd.args([
        "--exact",
        "load_in_a_process_without_bpf_capabilities",
        "--ignored",
        "--nocapture",
    ])
    .env(NOCAP_CHILD, "1");
    // SAFETY: prctl only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            // Out of the bounding set, root's exec cannot get them back.
            for cap in [21, 38, 39] {
                if libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
    let out = cmd.output().expect("run the test binary without CAP_BPF");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("1 passed"), "the inner test ran: {text}");
}

#[test]
#[ignore = "run by loader_without_bpf_capabilities_says_how_to_grant_them in a process without them"]
fn load_in_a_process_without_bpf_capabilities() {
    assert!(
        std::env::var_os(NOCAP_CHILD).is_some(),
        "only meaningful without the capabilities"
    );
    let e = ebpf::start(&Config::default())
        .err()
        .expect("no CAP_BPF: refused");
    assert!(matches!(e, Error::NoPermission { .. }), "{e:?}");
    let msg = e.to_string();
    assert!(
        msg.contains("CAP_BPF") && msg.contains("--tracer strace"),
        "{msg}"
    );
    let cfg = Config::default();
    assert_eq!(
        resolve(TracerChoice::Auto, &cfg).ok(),
        Some(Backend::Strace)
    );
    assert!(matches!(
        resolve(TracerChoice::Ebpf, &cfg),
        Err(Error::NoPermission { .. })
    ));
}

#[test]
fn auto_picks_ebpf_for_root_on_a_kernel_with_btf() {
    assert_eq!(
        resolve(TracerChoice::Auto, &Config::default()).ok(),
        Some(Backend::Ebpf)
    );
}

/// Loading is paid before the server's first system call, on every scan: the verifier's walk is
/// most of it. The argv loop once made it 1.05 million instructions (0.3-0.8 s of start-up, a
/// quarter of a whole scan of mcp-server-time); a change that brings such a walk back fails here.
#[test]
fn tracer_programs_pass_the_verifier_in_a_short_walk() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let tracer = ebpf::start(&Config::default()).expect("the tracer loads");
    let walked = tracer.verified_insns();
    let _ = tracer.stop();
    assert!(walked > 0, "the kernel reports the verifier's walk");
    assert!(
        walked < 100_000,
        "the verifier walked {walked} instructions to load the tracer (13 thousand in session 12)"
    );
}

/// Loading runs while the caller prepares the traced processes: a kernel that refuses the
/// tracer (here a ring buffer size that is no power-of-two number of pages, which libbpf passes
/// on as given) is reported to whoever waits for it, first with the error itself, then with its
/// text; nothing is traced.
#[test]
fn tracer_the_kernel_refuses_while_loading_in_the_background_reports_why_to_every_waiter() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let cfg = Config {
        ring_bytes: u32::MAX,
        ..Config::default()
    };
    let tracer = ebpf::start_loading(&cfg).expect("the preflight passes");
    let first = tracer
        .track(std::process::id())
        .expect_err("the load fails");
    assert!(
        matches!(first, Error::Load { .. }),
        "the kernel's refusal, with its stage: {first}"
    );
    let again = tracer.wait_loaded().expect_err("still failed");
    assert_eq!(again.to_string(), first.to_string());
    assert!(
        tracer.stop().is_err(),
        "a tracer that never loaded has no trace"
    );
    assert!(
        ebpf::start(&cfg).is_err(),
        "the blocking start reports it too"
    );
}
