//! The namespace sandbox (no Docker). See docs/runtime.md for the full picture.
//!
//! Process chain, all started with `fork` + `execve` because the parent must set things up between
//! the two (a `Command::pre_exec` that waits deadlocks):
//!
//! ```text
//! mcp-scan ──fork──► C1: unshare(user, net, mount, uts, ipc, cgroup); uid/gid maps; lo up, sink address,
//!                    │   default route on lo, nftables DNAT (via `ip` / `nft`), the same for IPv6
//!                    │   when the kernel allows (optional); sink sockets sent back over a
//!                    │   socketpair; unshare(pid)
//!                    └─fork──► C2 = PID 1 of the new PID namespace: a fresh root built from an
//!                              allow-list (contain.rs) and pivot_root into it, everything
//!                              read-only but HOME (canaries) and scratch /tmp, a nested
//!                              user+mount namespace that locks those mounts, rlimits, then
//!                              ├─clone(NEWPID)─► C4 = PID 1 of the server's own PID namespace: a
//!                              │                 mount namespace with that namespace's /proc, then
//!                              │                 the desktop session (session.rs): an init's name,
//!                              │                 daemons and a user session that only pause()
//!                              └─fork──► T: Landlock, then execve(strace … -- nsenter --mount
//!                                        --pid (C4's) -- <our exe> MAGIC chain -- server…)
//!                              and C2 itself stays a reaper until the launch chain is done.
//! ```
//!
//! The launch stub (launcher.rs: our own executable, stopped before `main`) forks and ends, so
//! its child is adopted by C4 like any session process; it becomes the client's process chain
//! (VS Code's main process and extension host, …) whose last process forks the server and
//! reports its real wait status on a pipe. Without our executable, a launch shell does the same
//! with a `sh` as the parent.
//! The tracer is neither the server's PID 1 nor its parent, TracerPid reads 0, and the
//! namespace's holder (C4) is not the tracer's child: the tracer ends with the last traced
//! process. The /proc mount happens in C4, before T applies Landlock (a Landlock domain forbids
//! mounts), so traced runs keep every layer; C4 and the session stay outside the domain, which
//! closes them to the server's ptrace and (ABI 6) signals. Untraced runs take the same chain
//! without strace.
//!
//! C2 and C1 die with their parent (`PR_SET_PDEATHSIG`); when C2 (PID 1) dies the kernel kills every
//! process in the namespace, so killing C1 tears everything down and nothing is left behind.
//! Only code that is safe after `fork` in a threaded process runs in C1/C2: raw syscalls on data
//! prepared before the fork.

use crate::trace::Tracer;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use std::ffi::{CString, c_char, c_int};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// HOME inside the sandbox.
pub const SANDBOX_HOME: &str = "/home/sandbox";
/// Working directory (scratch workspace) inside the sandbox.
pub const SANDBOX_WORK: &str = "/home/sandbox/workspace";
/// Address on `lo` where the sinks listen; every outbound packet is DNATed here.
pub const SINK_ADDR: [u8; 4] = [10, 255, 255, 1];
pub const SINK_ADDR_STR: &str = "10.255.255.1";
/// IPv6 address on `lo` for the v6 sinks (a ULA; "mcps" in hex). Like the v4 sink address it
/// keeps `::1` free for the server's own loopback services.
pub const SINK6_ADDR: [u8; 16] = [
    0xfd, 0x00, 0x6d, 0x63, 0x70, 0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
];
pub const SINK6_ADDR_STR: &str = "fd00:6d63:7073::1";
/// Port of the TCP and UDP catch-all sinks.
pub const SINK_PORT: u16 = 9;
pub const DNS_PORT: u16 = 53;

/// Why the sandbox could not be set up, with what to do about it.
#[derive(Debug, thiserror::Error)]
#[error("{reason}; fix: {fix}")]
pub struct SandboxError {
    pub reason: String,
    pub fix: String,
}

impl SandboxError {
    fn new(reason: impl Into<String>, fix: impl Into<String>) -> Self {
        SandboxError {
            reason: reason.into(),
            fix: fix.into(),
        }
    }
}

/// Resource limits applied to everything in the sandbox.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub processes: u64,
    pub memory_bytes: u64,
    pub file_size_bytes: u64,
    pub cpu_seconds: u64,
    pub open_files: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            processes: 256,
            memory_bytes: 2 << 30,
            file_size_bytes: 256 << 20,
            cpu_seconds: 300,
            open_files: 4096,
        }
    }
}

/// Called with the sandbox's first process (host pid) before it does anything: a tracer that
/// follows process trees from outside (eBPF) tracks it here, so nothing runs untraced.
pub type LaunchHook = std::sync::Arc<dyn Fn(u32) -> Result<(), String> + Send + Sync>;

/// What to run and how.
#[derive(Clone)]
pub struct SandboxSpec {
    /// The server's argv (argv[0] resolved against the host PATH when it has no slash).
    pub command: Vec<String>,
    /// The server's complete environment.
    pub env: Vec<(String, String)>,
    pub limits: Limits,
    /// `None` runs the server untraced (benchmark baseline).
    pub tracer: Option<std::sync::Arc<dyn Tracer>>,
    /// Files to create in HOME (relative path, content).
    pub home_files: Vec<(String, String)>,
    /// Files to create in the workspace (relative path, content).
    pub work_files: Vec<(String, String)>,
    /// Catch IPv6 too. Off turns IPv6 off inside the namespace, as on a host without it.
    pub ipv6: bool,
    /// The persona: HOME's path in the sandbox, the hostname, file times of HOME.
    pub identity: crate::identity::Identity,
    /// The `clientInfo.name` of the client profile: the server's parent process is that client's
    /// (launcher.rs).
    pub client: String,
    /// See [`LaunchHook`]; the sandbox's first process waits until it has returned.
    pub on_launch: Option<LaunchHook>,
}

/// The host directory behind the sandbox's HOME, workspace and /tmp; removed on drop.
#[derive(Debug)]
pub struct RunDir {
    pub root: PathBuf,
    pub home: PathBuf,
    pub work: PathBuf,
    pub tmp: PathBuf,
    /// A tmpfs mounted on the host that becomes the sandbox's `/`, holding HOME, `/tmp` and the
    /// device nodes as plain directories (see [`RunDir::create_rooted`]).
    pub sys_root: Option<PathBuf>,
}

impl RunDir {
    pub fn create() -> std::io::Result<Self> {
        Self::create_for("user")
    }

    /// The run's directory, named like `mktemp`'s (its path shows in the sandbox's mount
    /// table), with HOME at `home/<user>`: the sandbox mounts `home` as `/home`, so the
    /// persona's HOME is a directory of a /home file system, not a mount of its own.
    pub fn create_for(user: &str) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        let base = std::env::temp_dir();
        let mut rnd = [0u8; 10];
        std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom")?, &mut rnd)?;
        const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        let tag: String = rnd
            .iter()
            .map(|b| ALNUM[*b as usize % ALNUM.len()] as char)
            .collect();
        let root = base.join(format!("tmp.{tag}"));
        std::fs::create_dir(&root)?;
        std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o700))?;
        let user = if user.is_empty() || user.contains('/') || user.starts_with('.') {
            "user"
        } else {
            user
        };
        let home = root.join("home").join(user);
        let work = home.join("workspace");
        let tmp = root.join("tmp");
        std::fs::create_dir_all(&work)?;
        std::fs::create_dir(&tmp)?;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777))?;
        Ok(RunDir {
            root,
            home,
            work,
            tmp,
            sys_root: None,
        })
    }

    /// Like [`RunDir::create_for`], but when this process may mount (root on the host) and
    /// Landlock can keep the server's writes to its scratch areas, HOME and `/tmp` live in a
    /// fresh tmpfs that becomes the sandbox's `/`. Bind mounts of host directories on `/home`,
    /// `/tmp` and `/dev` show the host's file system in the sandbox's mount table (a container's
    /// overlay options name `docker` or `containerd`; a tmpfs `/tmp` puts a tmpfs on `/home`),
    /// which a server can read as "not a desktop". Falls back to the plain layout.
    pub fn create_rooted(user: &str) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        let mut run = Self::create_for(user)?;
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 || crate::contain::landlock_abi() < 1 {
            return Ok(run);
        }
        let sys = run.root.join("root");
        std::fs::create_dir(&sys)?;
        let target = CString::new(sys.as_os_str().as_encoded_bytes())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
        // SAFETY: mount on NUL-terminated strings; the mount point is our own new directory.
        let mounted = unsafe {
            libc::mount(
                c"tmpfs".as_ptr(),
                target.as_ptr(),
                c"tmpfs".as_ptr(),
                libc::MS_NOSUID,
                c"mode=755,size=25%".as_ptr().cast(),
            ) == 0
                && libc::mount(
                    std::ptr::null(),
                    target.as_ptr(),
                    std::ptr::null(),
                    libc::MS_PRIVATE,
                    std::ptr::null(),
                ) == 0
        };
        if !mounted {
            // The plain layout makes its own `root` (root in a user namespace without a mount
            // namespace of its own may not mount).
            let _ = unmount(&sys);
            let _ = std::fs::remove_dir(&sys);
            return Ok(run);
        }
        // Set before anything can fail, so that drop unmounts it.
        run.sys_root = Some(sys.clone());
        let rel = run
            .home
            .strip_prefix(&run.root)
            .unwrap_or(&run.home)
            .to_path_buf();
        let home = sys.join(rel);
        let work = home.join("workspace");
        let tmp = sys.join("tmp");
        std::fs::create_dir_all(&work)?;
        std::fs::create_dir(&tmp)?;
        std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777))?;
        let _ = std::fs::remove_dir_all(run.root.join("home"));
        let _ = std::fs::remove_dir(&run.tmp);
        run.home = home;
        run.work = work;
        run.tmp = tmp;
        Ok(run)
    }

    /// Maps a path as the server saw it to where it lives on the host, for the writable areas.
    pub fn host_path(&self, sandbox_path: &str) -> Option<PathBuf> {
        if let Some(rest) = sandbox_path.strip_prefix(SANDBOX_HOME) {
            return Some(self.home.join(rest.trim_start_matches('/')));
        }
        if let Some(rest) = sandbox_path.strip_prefix("/tmp") {
            return Some(self.tmp.join(rest.trim_start_matches('/')));
        }
        None
    }
}

/// Detaches the mount on `p` (best effort).
fn unmount(p: &Path) -> bool {
    CString::new(p.as_os_str().as_encoded_bytes()).is_ok_and(|c| {
        // SAFETY: umount2 on a NUL-terminated path.
        unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) == 0 }
    })
}

impl Drop for RunDir {
    fn drop(&mut self) {
        if let Some(sys) = &self.sys_root {
            // Never remove through a mount that is still there: the files go with the tmpfs.
            if !unmount(sys) {
                return;
            }
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// The sink sockets, created inside the sandbox's network namespace.
#[derive(Debug)]
pub struct SinkSockets {
    pub tcp: OwnedFd,
    pub udp: OwnedFd,
    pub dns: OwnedFd,
    /// The same three on [`SINK6_ADDR`]; `None` when IPv6 could not be set up in the namespace
    /// (kernel without IPv6, `disable_ipv6`), so v6 egress is only seen by the tracer.
    pub v6: Option<SinkSockets6>,
}

/// The IPv6 sinks (TCP and UDP catch-all, DNS).
#[derive(Debug)]
pub struct SinkSockets6 {
    pub tcp: OwnedFd,
    pub udp: OwnedFd,
    pub dns: OwnedFd,
}

/// A running sandbox.
pub struct Sandbox {
    /// The program the launch executes first (the tracer's, or the launch chain's first).
    pub launched: String,
    pub stdin: Option<OwnedFd>,
    pub stdout: Option<OwnedFd>,
    pub stderr: Option<OwnedFd>,
    pub trace: Option<OwnedFd>,
    pub sinks: Option<SinkSockets>,
    /// How the sandbox's file system maps onto the host, for resolving paths in the trace.
    pub view: crate::paths::View,
    /// Containment layers in force, as PID 1 reported them.
    pub layers: crate::contain::Layers,
    /// Host paths shown in the sandbox (besides system directories and /etc files).
    pub shown: Vec<PathBuf>,
    /// Where the server's parent reports its exit status (`None`: no launch shell, the
    /// sandbox's own exit status is the server's).
    exit_report: Option<OwnedFd>,
    c1: Pid,
    status: Option<i32>,
}

fn cstr(s: &str) -> Result<CString, SandboxError> {
    CString::new(s).map_err(|_| {
        SandboxError::new(
            format!("argument contains a NUL byte: {s:?}"),
            "remove NUL bytes from the command and environment",
        )
    })
}

fn cpath(p: &Path) -> Result<CString, SandboxError> {
    cstr(&p.to_string_lossy())
}

/// Finds an executable on the host PATH (or well-known sbin dirs).
pub fn which(name: &str, extra: &[&str]) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    if name.contains('/') {
        return Some(PathBuf::from(name));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(extra.iter().map(PathBuf::from))
        .map(|d| d.join(name))
        .find(|p| {
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Everything C1 and C2 need, built before the fork.
struct Prepared {
    // C1
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// (program, argv, part of the optional IPv6 setup).
    net_cmds: Vec<(CString, Vec<CString>, bool)>,
    /// Set up IPv6; when false it is switched off in the namespace instead.
    ipv6: bool,
    // C2 mounts
    root_plan: crate::contain::RootPlan,
    /// Writable again after everything is made read-only (each mount alone, not its children).
    rw_again: Vec<CString>,
    landlock: crate::contain::LandlockRules,
    /// Our own executable (O_PATH), handed down as `launcher::EXE_FD`; -1 when none.
    exe_fd: RawFd,
    root: CString,
    work: CString,
    // exec
    exe: CString,
    argv: Vec<CString>,
    envp: Vec<CString>,
    limits: Limits,
    hostname: Vec<u8>,
    /// Root on the host: maps cover every id and setgroups stays allowed, as in the initial user
    /// namespace (a single-id map is a well-known sandbox tell).
    full_maps: bool,
    traced: bool,
    /// C1 waits for the scanner's go (see [`LaunchHook`]).
    hold: bool,
    /// Landlock is left out: the server's own PID namespace needs a /proc mount after this.
    landlock_skip: bool,
    /// Traced: the server's own PID namespace, made by PID 1 before Landlock.
    pid_ns: Option<PidNs>,
}

/// What PID 1 needs to give the server a PID namespace of its own (see the module doc).
struct PidNs {
    proc_: CString,
    proc_fs: CString,
    /// That namespace's PID 1 and the desktop session it starts (crate::session).
    session: crate::session::Prepared,
    /// `/proc/self/timens_offsets` for the session's and the server's time namespace: uptime
    /// reads like a desktop's that has been up for days, not the host's (a CI runner boots per
    /// job). Empty: no time namespace.
    timens_offsets: Vec<u8>,
}

/// Descriptors handed down the launch chain (through the tracer, `nsenter` and the launch
/// shell): the server's mount and PID namespaces, where its exit status is reported, and a pipe
/// whose end tells PID 1 the server's parent is gone.
const MNT_NS_FD: c_int = 4;
const EXIT_FD: c_int = 5;
const PID_NS_FD: c_int = 6;
const DONE_FD: c_int = 7;
/// The server's time namespace (`nsenter --time`).
const TIME_NS_FD: c_int = 8;

/// Run by `nsenter` in the server's namespaces. The shell starts a subshell and ends, so that
/// subshell (the server's parent) is adopted by the namespace's PID 1 like any process of a
/// session, not left with a parent outside the namespace; it waits for the server and reports
/// the real wait status (128+signal when killed) on [`EXIT_FD`]. Stdin goes through a copy: a
/// background job's is /dev/null. The server gets none of the launch descriptors.
const LAUNCH_SCRIPT: &str =
    "exec 3>&- 4<&- 6<&- 8<&0; ( \"$0\" \"$@\" <&8 8<&- 5>&- 7>&- & wait $!; echo $? >&5 ) &";

// Names of the steps, for error messages from the children.
const STEPS: &[&str] = &[
    "prctl(PR_SET_PDEATHSIG)",
    "unshare(user, net, mount, uts, ipc, cgroup)",
    "write /proc/self/uid_map",
    "make mounts private",
    "sethostname",
    "network setup (ip/nft)",
    "create sink sockets",
    "send sink sockets",
    "unshare(pid)",
    "fork PID 1",
    "mount /proc",
    "build the sandbox root (allow-list, pivot_root)",
    "mount sandbox HOME",
    "mount toolchain directory",
    "mount scratch /tmp",
    "make the filesystem read-only",
    "lock mounts (nested user namespace)",
    "set resource limits",
    "chdir to workspace",
    "set up stdio",
    "execve",
    "start the server's own PID namespace (its PID 1 and /proc)",
    "leave the scanner's terminal session (setsid)",
];

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Writes `[b'E', step, errno(4)]` to the status socket and exits. Post-fork safe.
fn child_fail(status_fd: RawFd, step: usize, err: i32) -> ! {
    let mut msg = [0u8; 6];
    msg[0] = b'E';
    msg[1] = u8::try_from(step).unwrap_or(255);
    msg[2..6].copy_from_slice(&err.to_le_bytes());
    // SAFETY: writing a stack buffer to a descriptor we own, then exiting without unwinding.
    unsafe {
        libc::write(status_fd, msg.as_ptr().cast(), msg.len());
        libc::_exit(127)
    }
}

fn write_file(path: &[u8], data: &[u8]) -> bool {
    // `path` is NUL-terminated by the caller.
    // SAFETY: plain open/write/close on caller-provided NUL-terminated path and buffer.
    unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return false;
        }
        let n = libc::write(fd, data.as_ptr().cast(), data.len());
        libc::close(fd);
        n == data.len() as isize
    }
}

fn ptrs(v: &[CString]) -> Vec<*const c_char> {
    v.iter()
        .map(|c| c.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}
const MOUNT_ATTR_RDONLY: u64 = 1;
const AT_RECURSIVE: c_int = 0x8000;

fn mount_setattr(path: &CString, set: u64, clr: u64, recursive: bool) -> c_int {
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clr,
        propagation: 0,
        userns_fd: 0,
    };
    let flags = if recursive { AT_RECURSIVE } else { 0 };
    // SAFETY: mount_setattr(2) with a valid path and a correctly sized attribute struct.
    unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        ) as c_int
    }
}

/// A sink socket bound to `addr` (listening if a stream; IPv6 ones v6-only), or -1.
/// Post-fork safe: raw syscalls on stack data only.
fn sink_socket<A>(family: c_int, ty: c_int, addr: &A) -> c_int {
    // SAFETY: socket/setsockopt/bind/listen/close on a descriptor made here, with `addr` a
    // sockaddr of `family` that outlives the calls.
    unsafe {
        let fd = libc::socket(family, ty | libc::SOCK_CLOEXEC, 0);
        if fd < 0 {
            return -1;
        }
        let one: c_int = 1;
        let opt = |level: c_int, name: c_int| {
            libc::setsockopt(
                fd,
                level,
                name,
                (&one as *const c_int).cast(),
                std::mem::size_of::<c_int>() as libc::socklen_t,
            )
        };
        opt(libc::SOL_SOCKET, libc::SO_REUSEADDR);
        if family == libc::AF_INET6 {
            opt(libc::IPPROTO_IPV6, libc::IPV6_V6ONLY);
        }
        if libc::bind(
            fd,
            (addr as *const A).cast(),
            std::mem::size_of::<A>() as libc::socklen_t,
        ) != 0
            || (ty == libc::SOCK_STREAM && libc::listen(fd, 128) != 0)
        {
            libc::close(fd);
            return -1;
        }
        fd
    }
}

fn mount(src: *const c_char, dst: &CString, fstype: *const c_char, flags: libc::c_ulong) -> bool {
    // SAFETY: mount(2) with NUL-terminated strings (or null) prepared before the fork.
    unsafe { libc::mount(src, dst.as_ptr(), fstype, flags, std::ptr::null()) == 0 }
}

impl Sandbox {
    /// Starts `spec` in a fresh sandbox rooted at `run`.
    pub fn launch(spec: &SandboxSpec, run: &RunDir) -> Result<Sandbox, SandboxError> {
        let install_fix = "install strace, iproute2 and nftables (scripts/test-deps, or apt-get install strace iproute2 nftables)";
        let ip = which("ip", &["/usr/sbin", "/sbin", "/usr/bin", "/bin"])
            .ok_or_else(|| SandboxError::new("`ip` (iproute2) not found", install_fix))?;
        let nft = which("nft", &["/usr/sbin", "/sbin", "/usr/bin"])
            .ok_or_else(|| SandboxError::new("`nft` (nftables) not found", install_fix))?;
        if spec.command.is_empty() {
            return Err(SandboxError::new(
                "no server command given",
                "pass the server after `--`, e.g. `mcp-scan dynamic -- python server.py`",
            ));
        }
        let path_var = spec
            .env
            .iter()
            .find(|(k, _)| k == "PATH")
            .map(|(_, v)| v.clone())
            .unwrap_or_default();
        let exe0 = which(&spec.command[0], &[]).ok_or_else(|| {
            SandboxError::new(
                format!("server command `{}` not found on PATH", spec.command[0]),
                "give the full path to the server's executable",
            )
        })?;
        let mut full_cmd: Vec<String> = spec.command.clone();
        full_cmd[0] = exe0.to_string_lossy().into_owned();

        // Plant files (the persona's everyday files and the canaries among them), then date them.
        for (rel, content) in &spec.home_files {
            let p = run.home.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).map_err(|e| {
                    SandboxError::new(
                        format!("cannot create {}: {e}", parent.display()),
                        "check that the temp directory is writable",
                    )
                })?;
            }
            std::fs::write(&p, content).map_err(|e| {
                SandboxError::new(
                    format!("cannot write {}: {e}", p.display()),
                    "check that the temp directory is writable",
                )
            })?;
        }
        for (rel, content) in &spec.work_files {
            let p = run.work.join(rel);
            if let Some(parent) = p.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            let _ = std::fs::write(&p, content);
        }
        spec.identity.age_tree(&run.home);
        let rules = format!(
            "table ip mcpscan {{\n  chain out {{\n    type nat hook output priority -100; policy accept;\n    ip daddr 127.0.0.1 accept\n    ip daddr {SINK_ADDR_STR} accept\n    udp dport 53 dnat to {SINK_ADDR_STR}:{DNS_PORT}\n    meta l4proto tcp dnat to {SINK_ADDR_STR}:{SINK_PORT}\n    meta l4proto udp dnat to {SINK_ADDR_STR}:{SINK_PORT}\n  }}\n}}\n"
        );
        let rules_path = run.root.join("nft.rules");
        // IPv6 has its own table and file: a kernel without ip6 nat still gets the v4 catch-all.
        let rules6 = format!(
            "table ip6 mcpscan6 {{\n  chain out {{\n    type nat hook output priority -100; policy accept;\n    ip6 daddr ::1 accept\n    ip6 daddr {SINK6_ADDR_STR} accept\n    udp dport 53 dnat to [{SINK6_ADDR_STR}]:{DNS_PORT}\n    meta l4proto tcp dnat to [{SINK6_ADDR_STR}]:{SINK_PORT}\n    meta l4proto udp dnat to [{SINK6_ADDR_STR}]:{SINK_PORT}\n  }}\n}}\n"
        );
        let rules6_path = run.root.join("nft6.rules");
        for (path, text) in [(&rules_path, rules), (&rules6_path, rules6)] {
            std::fs::write(path, text).map_err(|e| {
                SandboxError::new(
                    format!("cannot write nft rules: {e}"),
                    "check that the temp directory is writable",
                )
            })?;
        }

        // The server's own PID namespace, set up by PID 1 before Landlock (see the module doc).
        let mut pid_ns: Option<PidNs> = None;
        // Our own executable, the launch stub (launcher.rs); without it the launch shell.
        // Referencing the constructor keeps it linked into every binary that launches.
        std::hint::black_box(&crate::launcher::STUB_INIT);
        // SAFETY: open of a NUL-terminated path; the descriptor is owned from here on.
        let exe_fd: Option<OwnedFd> = unsafe {
            let fd = libc::open(c"/proc/self/exe".as_ptr(), libc::O_PATH | libc::O_CLOEXEC);
            (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
        };
        let nsenter = which("nsenter", &["/usr/bin", "/bin"]);
        // util-linux 2.36 and later enter time namespaces.
        static HAS_TIME: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        let nsenter_has_time = nsenter.as_ref().is_some_and(|n| {
            *HAS_TIME.get_or_init(|| {
                Path::new("/proc/self/ns/time").exists()
                    && std::process::Command::new(n)
                        .arg("--help")
                        .output()
                        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("--time"))
            })
        }) && exe_fd.is_some();
        let inner: Vec<String> = match nsenter {
            Some(n) => {
                pid_ns = Some(PidNs {
                    proc_: cstr("/proc")?,
                    proc_fs: cstr("proc")?,
                    session: crate::session::Session::generate(spec.identity.seed).prepare(),
                    timens_offsets: if nsenter_has_time {
                        crate::session::uptime_offsets(spec.identity.seed)
                    } else {
                        Vec::new()
                    },
                });
                let mut v = vec![
                    n.to_string_lossy().into_owned(),
                    format!("--mount=/proc/self/fd/{MNT_NS_FD}"),
                    format!("--pid=/proc/self/fd/{PID_NS_FD}"),
                    format!("--wd={}", spec.identity.work),
                ];
                if nsenter_has_time {
                    v.push(format!("--time=/proc/self/fd/{TIME_NS_FD}"));
                }
                v.push("--".into());
                if exe_fd.is_some() {
                    // The client's process chain (launcher.rs), run from our own executable.
                    let chain = crate::launcher::chain_for(
                        &spec.client,
                        &spec.identity.user,
                        spec.identity.seed,
                    );
                    v.push(format!("/proc/self/fd/{}", crate::launcher::EXE_FD));
                    v.extend(crate::launcher::stub_args(&chain, &full_cmd));
                } else {
                    v.extend(["/bin/sh".to_string(), "-c".into(), LAUNCH_SCRIPT.into()]);
                    v.extend(full_cmd.iter().cloned());
                }
                v
            }
            None => {
                let mut v = vec![
                    "/bin/sh".to_string(),
                    "-c".into(),
                    "exec 3>&- 5>&- 7>&-; exec \"$0\" \"$@\"".into(),
                ];
                v.extend(full_cmd.iter().cloned());
                v
            }
        };
        let argv_strings: Vec<String> = match &spec.tracer {
            Some(t) => {
                let mut w = t.wrap(3, &inner);
                if let Some(p) = which(&w[0], &["/usr/bin", "/bin"]) {
                    w[0] = p.to_string_lossy().into_owned();
                } else {
                    return Err(SandboxError::new(
                        format!("tracer `{}` not found", w[0]),
                        install_fix,
                    ));
                }
                w
            }
            None if pid_ns.is_some() => inner,
            None => full_cmd.clone(),
        };
        let home = spec.identity.home.as_str();
        // HOME's parent is the mount (see RunDir::create_for).
        let home_mount = Path::new(home)
            .parent()
            .and_then(Path::to_str)
            .filter(|p| *p != "/")
            .unwrap_or(home);
        let hostname = spec.identity.hostname.as_str();
        let rooted = run.sys_root.is_some();
        let newroot = run
            .sys_root
            .clone()
            .unwrap_or_else(|| run.root.join("root"));
        let dev = if rooted {
            newroot.join("dev")
        } else {
            run.root.join("dev")
        };
        for d in [(!rooted).then_some(&newroot), Some(&dev)]
            .into_iter()
            .flatten()
        {
            std::fs::create_dir(d).map_err(|e| {
                SandboxError::new(
                    format!("cannot create {}: {e}", d.display()),
                    "check that the temp directory is writable",
                )
            })?;
        }
        let needed = crate::contain::needed_paths(&full_cmd, &path_var);
        let root_plan = crate::contain::RootPlan::new(&crate::contain::RootSpec {
            newroot: &newroot,
            rooted,
            volumes: &Path::new("/media").join(&spec.identity.user),
            home: (
                home_mount,
                run.home
                    .parent()
                    .filter(|_| home_mount != home)
                    .unwrap_or(&run.home),
            ),
            tmp: &run.tmp,
            needed: &needed,
            anchors: &crate::contain::dotdot_anchors(&full_cmd),
            hostname,
            sink_dns: SINK_ADDR_STR,
            dev_nodes: Some(&dev),
        });
        let view = crate::paths::sandbox_view(
            (SANDBOX_HOME, &run.home),
            &run.tmp,
            &[PathBuf::from("/")],
            &root_plan.placed,
        );
        let shown = root_plan.shown.clone();
        // SAFETY: getuid/getgid cannot fail.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        let mut net_cmds = Vec::new();
        let ipc = cpath(&ip)?;
        let nftc = cpath(&nft)?;
        let sink = format!("{SINK_ADDR_STR}/32");
        let sink6 = format!("{SINK6_ADDR_STR}/128");
        let rules_arg = rules_path.to_string_lossy().into_owned();
        let rules6_arg = rules6_path.to_string_lossy().into_owned();
        // The v6 steps (last, `true`) are optional: when one fails the rest are skipped and the
        // scan goes on with IPv4 sinks only (v6 connects still show in the trace).
        let steps: [(&CString, Vec<&str>, bool); 7] = [
            (&ipc, vec!["ip", "link", "set", "lo", "up"], false),
            (&ipc, vec!["ip", "addr", "add", &sink, "dev", "lo"], false),
            (
                &ipc,
                vec!["ip", "route", "add", "default", "dev", "lo"],
                false,
            ),
            (&nftc, vec!["nft", "-f", &rules_arg], false),
            // `nodad`: usable at once, no duplicate address detection on a lone loopback.
            (
                &ipc,
                vec!["ip", "-6", "addr", "add", &sink6, "dev", "lo", "nodad"],
                true,
            ),
            (
                &ipc,
                vec!["ip", "-6", "route", "add", "default", "dev", "lo"],
                true,
            ),
            (&nftc, vec!["nft", "-f", &rules6_arg], true),
        ];
        for (exe, args, optional) in steps {
            if optional && !spec.ipv6 {
                continue;
            }
            net_cmds.push((
                exe.clone(),
                args.iter().map(|a| cstr(a)).collect::<Result<_, _>>()?,
                optional,
            ));
        }
        let envp: Vec<CString> = spec
            .env
            .iter()
            .map(|(k, v)| cstr(&format!("{k}={v}")))
            .collect::<Result<_, _>>()?;
        // Root maps the sandbox's ids like its own namespace maps them (identity over the same
        // ranges): in the initial namespace that is every id. A namespace of one id (run under
        // `unshare -r`) keeps the single map.
        let mirror = match (uid, gid) {
            (0, 0) => identity_map("/proc/self/uid_map").zip(identity_map("/proc/self/gid_map")),
            _ => None,
        };
        let full_maps = mirror.is_some();
        let (uid_map, gid_map) = mirror.unwrap_or_else(|| {
            (
                format!("0 {uid} 1\n").into_bytes(),
                format!("0 {gid} 1\n").into_bytes(),
            )
        });
        let prep = Prepared {
            uid_map,
            gid_map,
            full_maps,
            net_cmds,
            ipv6: spec.ipv6,
            root_plan,
            rw_again: [
                home_mount, "/tmp", "/var/tmp", "/dev/shm", "/dev", "/dev/pts", "/proc",
            ]
            .iter()
            // A host-made root holds HOME, /tmp and /dev as directories, not mounts; it is
            // only made where Landlock is, so "/" below is writable again.
            .filter(|p| !(rooted && [home_mount, "/tmp", "/dev"].contains(p)))
            // The root's own tmpfs (copies, mount points) reads `rw` like a desktop's root
            // where Landlock keeps writes to HOME and scratch; without it, it stays read-only
            // (an /etc/ld.so.preload there would reach the tracer).
            .chain((crate::contain::landlock_abi() >= 1).then_some(&"/"))
            .map(|p| cstr(p))
            .collect::<Result<_, _>>()?,
            landlock: crate::contain::LandlockRules {
                read: vec![cstr("/")?],
                write: [home, "/tmp", "/var/tmp", "/dev/shm"]
                    .iter()
                    .map(|p| cstr(p))
                    .collect::<Result<_, _>>()?,
                devices: vec![cstr("/dev")?],
                proc_: vec![cstr("/proc")?],
                exec_files: exe_fd.iter().map(AsRawFd::as_raw_fd).collect(),
            },
            exe_fd: exe_fd.as_ref().map_or(-1, AsRawFd::as_raw_fd),
            root: cstr("/")?,
            work: cstr(&spec.identity.work)?,
            exe: cstr(&argv_strings[0])?,
            argv: argv_strings
                .iter()
                .map(|a| cstr(a))
                .collect::<Result<_, _>>()?,
            envp,
            limits: spec.limits,
            hostname: spec.identity.hostname.clone().into_bytes(),
            traced: spec.tracer.is_some(),
            hold: spec.on_launch.is_some(),
            landlock_skip: false,
            pid_ns,
        };
        let argv_p = ptrs(&prep.argv);
        let envp_p = ptrs(&prep.envp);
        let net_p: Vec<Vec<*const c_char>> =
            prep.net_cmds.iter().map(|(_, a, _)| ptrs(a)).collect();
        let empty_env: [*const c_char; 1] = [std::ptr::null()];

        // Pipes and the status socketpair. A launch on another thread forks C1, which keeps
        // every descriptor it inherited: our child ends must not exist then, or our status
        // socket never reports EOF (seen as a hang of two scans started at once).
        static FORKING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let forking = FORKING
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let pipe = || nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC);
        let setup_err = |what: &str, e: nix::Error| {
            SandboxError::new(
                format!("cannot create {what}: {e}"),
                "raise the open-file limit",
            )
        };
        let (in_r, in_w) = pipe().map_err(|e| setup_err("stdin pipe", e))?;
        let (out_r, out_w) = pipe().map_err(|e| setup_err("stdout pipe", e))?;
        let (err_r, err_w) = pipe().map_err(|e| setup_err("stderr pipe", e))?;
        let (tr_r, tr_w) = pipe().map_err(|e| setup_err("trace pipe", e))?;
        let (ex_r, ex_w) = pipe().map_err(|e| setup_err("exit status pipe", e))?;
        let (st_parent, st_child) = nix::sys::socket::socketpair(
            nix::sys::socket::AddressFamily::Unix,
            nix::sys::socket::SockType::SeqPacket,
            None,
            nix::sys::socket::SockFlag::SOCK_CLOEXEC,
        )
        .map_err(|e| setup_err("status socket", e))?;
        // SAFETY: getpid cannot fail.
        let parent_pid = unsafe { libc::getpid() };
        let status_fd = st_child.as_raw_fd();
        let fds = [
            in_r.as_raw_fd(),
            out_w.as_raw_fd(),
            err_w.as_raw_fd(),
            tr_w.as_raw_fd(),
            ex_w.as_raw_fd(),
        ];

        // SAFETY: the child only performs raw syscalls on data prepared above (see module docs).
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(SandboxError::new(
                format!("fork failed: {}", std::io::Error::last_os_error()),
                "check the process limit",
            ));
        }
        if pid == 0 {
            c1_main(
                &prep, status_fd, parent_pid, &net_p, &empty_env, &argv_p, &envp_p, fds,
            );
        }
        let c1 = Pid::from_raw(pid);
        drop(st_child);
        drop(in_r);
        drop(out_w);
        drop(err_w);
        drop(tr_w);
        drop(ex_w);
        drop(forking);
        let relays = prep.pid_ns.is_some();
        let launched = argv_strings[0].clone();
        let mut sb = Sandbox {
            launched,
            stdin: Some(in_w),
            stdout: Some(out_r),
            stderr: Some(err_r),
            trace: spec.tracer.as_ref().map(|_| tr_r),
            sinks: None,
            view,
            layers: crate::contain::Layers::default(),
            shown,
            exit_report: relays.then_some(ex_r),
            c1,
            status: None,
        };
        if let Some(hook) = &spec.on_launch {
            // C1 waits for this byte before its first system call that matters.
            let go = hook(pid as u32).and_then(|()| {
                nix::unistd::write(&st_parent, b"T")
                    .map(|_| ())
                    .map_err(|e| format!("cannot release the sandbox: {e}"))
            });
            if let Err(why) = go {
                sb.kill();
                return Err(SandboxError::new(
                    format!("the tracer could not follow the sandbox: {why}"),
                    "choose `--tracer strace`",
                ));
            }
        }
        if prep.full_maps
            && let Err(e) = write_outer_maps(&st_parent, pid, &prep.uid_map, &prep.gid_map)
        {
            sb.kill();
            return Err(e);
        }
        // Read status messages until EOF (EOF = PID 1 reached execve).
        loop {
            match recv_status(&st_parent) {
                Ok(Status::Eof) => break,
                Ok(Status::Sinks(sinks)) => sb.sinks = Some(sinks),
                Ok(Status::Layers(l)) => sb.layers = l,
                Err(e) => {
                    sb.kill();
                    return Err(e);
                }
            }
        }
        if sb.sinks.is_none() {
            sb.kill();
            return Err(SandboxError::new(
                "sandbox setup ended without reporting its network sinks",
                "run as root, or enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)",
            ));
        }
        Ok(sb)
    }

    /// Kills the whole sandbox (PID namespace included) and reaps it.
    pub fn kill(&mut self) {
        if self.status.is_none() {
            let _ = kill(self.c1, Signal::SIGKILL);
            let _ = self.wait(Duration::from_secs(5));
        }
    }

    /// Waits up to `timeout` for the sandbox to end; returns its exit status (128+signal when
    /// killed) if it has.
    pub fn wait(&mut self, timeout: Duration) -> Option<i32> {
        if self.status.is_some() {
            return self.status;
        }
        let deadline = Instant::now() + timeout;
        loop {
            match waitpid(self.c1, Some(WaitPidFlag::WNOHANG)) {
                Ok(WaitStatus::Exited(_, code)) => {
                    self.status = Some(code);
                    return self.status;
                }
                Ok(WaitStatus::Signaled(_, sig, _)) => {
                    self.status = Some(128 + sig as i32);
                    return self.status;
                }
                Ok(_) => {}
                Err(_) => {
                    self.status = Some(-1);
                    return self.status;
                }
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The server's exit status as its parent saw it in `wait` (128+signal when killed), if it
    /// ended before now. Read after [`Sandbox::kill`] too: the report stays in the pipe.
    pub fn server_exit(&mut self) -> Option<i32> {
        let fd = self.exit_report.as_ref()?;
        let mut buf = [0u8; 32];
        // SAFETY: a non-blocking read into a stack buffer from a descriptor we own.
        let n = unsafe {
            let fl = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
            libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, fl | libc::O_NONBLOCK);
            libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len())
        };
        let text = buf.get(..usize::try_from(n).ok()?)?;
        std::str::from_utf8(text).ok()?.trim().parse().ok()
    }

    /// Whether [`Sandbox::server_exit`] has the server's status (else the sandbox's own exit
    /// status is the server's: it was the sandbox's last process).
    pub fn relays_exit(&self) -> bool {
        self.exit_report.is_some()
    }

    /// Whether the sandbox (its PID 1) is still running.
    pub fn running(&mut self) -> bool {
        self.wait(Duration::ZERO).is_none()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.kill();
    }
}

/// `id id count` for every range `file` (our own id map) covers, when it covers more than one id.
fn identity_map(file: &str) -> Option<Vec<u8>> {
    let text = std::fs::read_to_string(file).ok()?;
    let mut out = String::new();
    let mut total: u64 = 0;
    for line in text.lines() {
        let f: Vec<u64> = line
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()
            .ok()?;
        let [inside, _, count] = f.as_slice() else {
            return None;
        };
        out.push_str(&format!("{inside} {inside} {count}\n"));
        total += count;
    }
    (total > 1).then(|| out.into_bytes())
}

/// Answers C1's request for its id maps: written from here, in the parent namespace, they may
/// cover every id.
fn write_outer_maps(
    sock: &OwnedFd,
    c1: libc::pid_t,
    uid_map: &[u8],
    gid_map: &[u8],
) -> Result<(), SandboxError> {
    let mut b = [0u8; 16];
    let n = loop {
        match nix::sys::socket::recv(
            sock.as_raw_fd(),
            &mut b,
            nix::sys::socket::MsgFlags::empty(),
        ) {
            Ok(n) => break n,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => {
                return Err(SandboxError::new(
                    format!("lost contact with the sandbox during setup: {e}"),
                    "re-run; if it persists, report it",
                ));
            }
        }
    };
    if n >= 6 && b[0] == b'E' {
        return Err(step_error(&b));
    }
    if n != 1 || b[0] != b'U' {
        return Err(SandboxError::new(
            "sandbox sent an unknown status",
            "re-run",
        ));
    }
    for (file, map) in [("uid_map", uid_map), ("gid_map", gid_map)] {
        std::fs::write(format!("/proc/{c1}/{file}"), map).map_err(|e| {
            SandboxError::new(
                format!("cannot write the sandbox's {file}: {e}"),
                "run as root, or unprivileged (a single-id map is used then)",
            )
        })?;
    }
    nix::sys::socket::send(sock.as_raw_fd(), b"G", nix::sys::socket::MsgFlags::empty()).map_err(
        |e| {
            SandboxError::new(
                format!("lost contact with the sandbox during setup: {e}"),
                "re-run",
            )
        },
    )?;
    Ok(())
}

/// The error a child reported (`[b'E', step, errno(4)]`), with what to do about it.
fn step_error(buf: &[u8]) -> SandboxError {
    let step = STEPS.get(buf[1] as usize).copied().unwrap_or("setup");
    let err = i32::from_le_bytes([buf[2], buf[3], buf[4], buf[5]]);
    let os = std::io::Error::from_raw_os_error(err);
    let fix = match step {
        "unshare(user, net, mount, uts, ipc, cgroup)" if err == libc::ENOSPC => {
            "the user-namespace limit is reached or zero: raise it (sysctl user.max_user_namespaces=15000), or run where it is not zero"
        }
        "unshare(user, net, mount, uts, ipc, cgroup)" | "write /proc/self/uid_map" => {
            "user namespaces are not available: run as root, or allow them (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0)"
        }
        "network setup (ip/nft)" => {
            "install iproute2 and nftables (scripts/test-deps) and make sure the nf_tables and nft_nat modules can be loaded"
        }
        "execve" => "install strace (scripts/test-deps) and check the server command",
        "make the filesystem read-only" => "a kernel with mount_setattr (5.12 or later) is needed",
        _ => "run as root on a kernel with user, mount, PID and network namespaces",
    };
    SandboxError::new(format!("sandbox setup failed at {step}: {os}"), fix)
}

/// A message from the sandbox during setup.
enum Status {
    /// PID 1 reached execve (the socket closed on exec).
    Eof,
    Sinks(SinkSockets),
    Layers(crate::contain::Layers),
}

fn recv_status(sock: &OwnedFd) -> Result<Status, SandboxError> {
    use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg};
    let mut buf = [0u8; 16];
    let mut cmsg = nix::cmsg_space!([RawFd; 6]);
    let mut iov = [std::io::IoSliceMut::new(&mut buf)];
    let msg = loop {
        match recvmsg::<()>(
            sock.as_raw_fd(),
            &mut iov,
            Some(&mut cmsg),
            MsgFlags::MSG_CMSG_CLOEXEC,
        ) {
            Ok(m) => break m,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => {
                return Err(SandboxError::new(
                    format!("lost contact with the sandbox during setup: {e}"),
                    "re-run; if it persists, report it",
                ));
            }
        }
    };
    let mut fds: Vec<OwnedFd> = Vec::new();
    if let Ok(cmsgs) = msg.cmsgs() {
        for c in cmsgs {
            if let ControlMessageOwned::ScmRights(r) = c {
                // SAFETY: descriptors just received via SCM_RIGHTS belong to us.
                fds.extend(r.into_iter().map(|fd| unsafe { OwnedFd::from_raw_fd(fd) }));
            }
        }
    }
    let n = msg.bytes;
    if n == 0 {
        return Ok(Status::Eof);
    }
    if let Some(l) = crate::contain::Layers::decode(&buf[..n]) {
        return Ok(Status::Layers(l));
    }
    match buf[0] {
        b'K' if fds.len() == 3 || fds.len() == 6 => {
            let mut it = fds.into_iter();
            match (it.next(), it.next(), it.next()) {
                (Some(tcp), Some(udp), Some(dns)) => {
                    let v6 = match (it.next(), it.next(), it.next()) {
                        (Some(tcp), Some(udp), Some(dns)) => Some(SinkSockets6 { tcp, udp, dns }),
                        _ => None,
                    };
                    Ok(Status::Sinks(SinkSockets { tcp, udp, dns, v6 }))
                }
                _ => Err(SandboxError::new(
                    "sandbox sent incomplete sink sockets",
                    "re-run",
                )),
            }
        }
        b'E' if n >= 6 => Err(step_error(&buf)),
        _ => Err(SandboxError::new(
            "sandbox sent an unknown status",
            "re-run",
        )),
    }
}

/// C1: namespaces, network, sinks, then forks PID 1. Never returns.
#[allow(clippy::too_many_arguments)]
fn c1_main(
    p: &Prepared,
    status_fd: RawFd,
    parent_pid: libc::pid_t,
    net_p: &[Vec<*const c_char>],
    empty_env: &[*const c_char; 1],
    argv_p: &[*const c_char],
    envp_p: &[*const c_char],
    fds: [RawFd; 5],
) -> ! {
    // SAFETY: post-fork child; only raw syscalls on pre-built data.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            child_fail(status_fd, 0, errno());
        }
        if libc::getppid() != parent_pid {
            libc::_exit(1);
        }
        // A session of its own, so nothing in the sandbox has the scanner's terminal as its
        // controlling terminal: `/dev/tty` then fails (ENXIO), and with it TIOCSTI, which would
        // type commands into the user's shell, and reads of what the user types.
        if libc::setsid() < 0 {
            child_fail(status_fd, 22, errno());
        }
        if p.hold {
            let mut b = [0u8];
            if libc::read(status_fd, b.as_mut_ptr().cast(), 1) != 1 || b[0] != b'T' {
                libc::_exit(1);
            }
        }
        // A cgroup namespace too: /proc/self/cgroup would name the host's (often a container
        // runtime's or a CI job's) cgroup path.
        let flags = libc::CLONE_NEWUSER
            | libc::CLONE_NEWNET
            | libc::CLONE_NEWNS
            | libc::CLONE_NEWUTS
            | libc::CLONE_NEWIPC
            | libc::CLONE_NEWCGROUP;
        if libc::unshare(flags) != 0 {
            child_fail(status_fd, 1, errno());
        }
        if p.full_maps {
            // A map of more than one's own id must be written from the parent namespace: ask
            // the scanner, and wait until it has.
            let mut b = [b'U'];
            if libc::write(status_fd, b.as_ptr().cast(), 1) != 1
                || libc::read(status_fd, b.as_mut_ptr().cast(), 1) != 1
                || b[0] != b'G'
            {
                child_fail(status_fd, 2, errno());
            }
        } else if !write_file(b"/proc/self/setgroups\0", b"deny")
            || !write_file(b"/proc/self/uid_map\0", &p.uid_map)
            || !write_file(b"/proc/self/gid_map\0", &p.gid_map)
        {
            child_fail(status_fd, 2, errno());
        }
        if !mount(
            std::ptr::null(),
            &p.root,
            std::ptr::null(),
            libc::MS_REC | libc::MS_PRIVATE,
        ) {
            child_fail(status_fd, 3, errno());
        }
        if libc::sethostname(p.hostname.as_ptr().cast(), p.hostname.len()) != 0 {
            child_fail(status_fd, 4, errno());
        }
        if !p.ipv6 {
            // As on a host without IPv6: no ::1, v6 sockets cannot connect anywhere. Best effort;
            // a kernel without IPv6 has no such files and needs nothing.
            write_file(b"/proc/sys/net/ipv6/conf/all/disable_ipv6\0", b"1");
            write_file(b"/proc/sys/net/ipv6/conf/default/disable_ipv6\0", b"1");
        }
        let mut v6_ok = p.ipv6;
        for (i, (exe, _, optional)) in p.net_cmds.iter().enumerate() {
            if *optional && !v6_ok {
                continue;
            }
            let pid = libc::fork();
            if pid < 0 {
                child_fail(status_fd, 5, errno());
            }
            if pid == 0 {
                let devnull = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
                if devnull >= 0 {
                    libc::dup2(devnull, 0);
                    libc::dup2(devnull, 1);
                    libc::dup2(devnull, 2);
                }
                libc::execve(exe.as_ptr(), net_p[i].as_ptr(), empty_env.as_ptr());
                libc::_exit(127);
            }
            let mut st: c_int = 0;
            while libc::waitpid(pid, &mut st, 0) < 0 {
                if errno() != libc::EINTR {
                    child_fail(status_fd, 5, errno());
                }
            }
            if !libc::WIFEXITED(st) || libc::WEXITSTATUS(st) != 0 {
                if *optional {
                    v6_ok = false;
                    continue;
                }
                child_fail(status_fd, 5, libc::EPERM);
            }
        }
        // Sink sockets.
        let mk = |ty: c_int, port: u16| -> c_int {
            let a = libc::sockaddr_in {
                sin_family: libc::AF_INET as libc::sa_family_t,
                sin_port: port.to_be(),
                sin_addr: libc::in_addr {
                    s_addr: u32::from_ne_bytes(SINK_ADDR),
                },
                sin_zero: [0; 8],
            };
            sink_socket(libc::AF_INET, ty, &a)
        };
        let tcp = mk(libc::SOCK_STREAM, SINK_PORT);
        let udp = mk(libc::SOCK_DGRAM, SINK_PORT);
        let dns = mk(libc::SOCK_DGRAM, DNS_PORT);
        if tcp < 0 || udp < 0 || dns < 0 {
            child_fail(status_fd, 6, errno());
        }
        let mk6 = |ty: c_int, port: u16| -> c_int {
            let mut a: libc::sockaddr_in6 = std::mem::zeroed();
            a.sin6_family = libc::AF_INET6 as libc::sa_family_t;
            a.sin6_port = port.to_be();
            a.sin6_addr.s6_addr = SINK6_ADDR;
            sink_socket(libc::AF_INET6, ty, &a)
        };
        // Three descriptors for IPv4, six when the v6 sinks exist too.
        let mut sfds = [tcp, udp, dns, -1, -1, -1];
        let mut nfds = 3;
        if v6_ok {
            let v6 = [
                mk6(libc::SOCK_STREAM, SINK_PORT),
                mk6(libc::SOCK_DGRAM, SINK_PORT),
                mk6(libc::SOCK_DGRAM, DNS_PORT),
            ];
            if v6.iter().all(|fd| *fd >= 0) {
                sfds[3..].copy_from_slice(&v6);
                nfds = 6;
            } else {
                for fd in v6.into_iter().filter(|fd| *fd >= 0) {
                    libc::close(fd);
                }
            }
        }
        let sfds = &sfds[..nfds];
        // Send them with SCM_RIGHTS (stack buffers only).
        let mut data = [b'K'];
        let mut iov = libc::iovec {
            iov_base: data.as_mut_ptr().cast(),
            iov_len: 1,
        };
        #[repr(C, align(8))]
        struct CmsgBuf([u8; 64]);
        let mut cbuf = CmsgBuf([0; 64]);
        let fd_bytes = std::mem::size_of_val(sfds) as u32;
        let space = libc::CMSG_SPACE(fd_bytes) as usize;
        let mut msg: libc::msghdr = std::mem::zeroed();
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cbuf.0.as_mut_ptr().cast();
        msg.msg_controllen = space;
        let cm = libc::CMSG_FIRSTHDR(&msg);
        if cm.is_null() {
            child_fail(status_fd, 7, libc::EINVAL);
        }
        (*cm).cmsg_level = libc::SOL_SOCKET;
        (*cm).cmsg_type = libc::SCM_RIGHTS;
        (*cm).cmsg_len = libc::CMSG_LEN(fd_bytes) as usize;
        std::ptr::copy_nonoverlapping(
            sfds.as_ptr().cast::<u8>(),
            libc::CMSG_DATA(cm),
            fd_bytes as usize,
        );
        if libc::sendmsg(status_fd, &msg, 0) < 0 {
            child_fail(status_fd, 7, errno());
        }
        for fd in sfds {
            libc::close(*fd);
        }
        if libc::unshare(libc::CLONE_NEWPID) != 0 {
            child_fail(status_fd, 8, errno());
        }
        let c1_pid = libc::getpid();
        let pid = libc::fork();
        if pid < 0 {
            child_fail(status_fd, 9, errno());
        }
        if pid == 0 {
            c2_main(p, status_fd, c1_pid, argv_p, envp_p, fds);
        }
        libc::close(status_fd);
        for fd in fds {
            libc::close(fd);
        }
        let mut st: c_int = 0;
        loop {
            let r = libc::waitpid(pid, &mut st, 0);
            if r == pid {
                break;
            }
            if r < 0 && errno() != libc::EINTR {
                libc::_exit(126);
            }
        }
        if libc::WIFEXITED(st) {
            libc::_exit(libc::WEXITSTATUS(st));
        }
        libc::_exit(128 + libc::WTERMSIG(st));
    }
}

/// Formats `/proc/<pid>/ns/<what>` into `path` without allocating (post-fork safe).
fn ns_path(path: &mut [u8; 48], pid: libc::pid_t, what: &[u8]) {
    let mut at = 0;
    for c in b"/proc/" {
        path[at] = *c;
        at += 1;
    }
    let mut digits = [0u8; 12];
    let mut nd = 0;
    let mut v = pid as u32;
    loop {
        digits[nd] = b'0' + (v % 10) as u8;
        nd += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    while nd > 0 {
        nd -= 1;
        path[at] = digits[nd];
        at += 1;
    }
    for c in b"/ns/" {
        path[at] = *c;
        at += 1;
    }
    for c in what {
        path[at] = *c;
        at += 1;
    }
    path[at] = 0;
}

/// Gives the server a PID namespace of its own, below PID 1's: clone(CLONE_NEWPID) its PID 1,
/// which enters a mount namespace of its own, mounts that PID namespace's /proc there and runs
/// the session (crate::session). Only that child is in the new namespace: PID 1's later children
/// (the tracer) stay outside. Returns descriptors of its mount and PID namespaces (for
/// `nsenter`). Post-fork safe.
fn start_pid_ns(ns: &PidNs, status_fd: RawFd) -> (RawFd, RawFd, RawFd) {
    const STEP: usize = 21;
    // SAFETY: post-fork child; only raw syscalls on pre-built data and stack buffers.
    unsafe {
        let mut sync = [0 as c_int; 2];
        let mut go = [0 as c_int; 2];
        if libc::pipe2(sync.as_mut_ptr(), libc::O_CLOEXEC) != 0
            || libc::pipe2(go.as_mut_ptr(), libc::O_CLOEXEC) != 0
        {
            child_fail(status_fd, STEP, errno());
        }
        // fork() with a new PID namespace for the child alone (x86_64/aarch64 argument order:
        // flags, stack, parent_tid, child_tid, tls; a null stack shares the parent's, copied).
        let pid = libc::syscall(
            libc::SYS_clone,
            (libc::CLONE_NEWPID | libc::SIGCHLD) as libc::c_ulong,
            0usize,
            0usize,
            0usize,
            0usize,
        ) as libc::pid_t;
        if pid < 0 {
            child_fail(status_fd, STEP, errno());
        }
        if pid == 0 {
            libc::close(sync[0]);
            libc::close(go[1]);
            let ok = libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == 0
                && libc::unshare(libc::CLONE_NEWNS) == 0
                && libc::mount(
                    std::ptr::null(),
                    c"/".as_ptr(),
                    std::ptr::null(),
                    libc::MS_REC | libc::MS_PRIVATE,
                    std::ptr::null(),
                ) == 0
                && libc::mount(
                    ns.proc_fs.as_ptr(),
                    ns.proc_.as_ptr(),
                    ns.proc_fs.as_ptr(),
                    libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                    std::ptr::null(),
                ) == 0
                // A time namespace for the session and the server (its offsets are set before
                // any process is in it).
                && (ns.timens_offsets.is_empty()
                    || (libc::unshare(libc::CLONE_NEWTIME) == 0
                        && write_file(b"/proc/self/timens_offsets\0", &ns.timens_offsets)));
            let e: i32 = if ok { 0 } else { errno().max(1) };
            libc::write(sync[1], e.to_le_bytes().as_ptr().cast(), 4);
            if !ok {
                libc::_exit(127);
            }
            // The session's processes are not dumpable (their /proc files closed to the server),
            // PID 1 included: wait until PID 1 of the sandbox holds our namespaces.
            let mut b = [0u8; 1];
            while libc::read(go[0], b.as_mut_ptr().cast(), 1) < 0 && errno() == libc::EINTR {}
            // Nothing of the sandbox's setup stays open in the session; `sync` says when the
            // session is up (the server's launch must come after it, at the next PID).
            let s = sync[1];
            if s > 0 {
                libc::syscall(libc::SYS_close_range, 0u32, (s - 1) as u32, 0u32);
            }
            libc::syscall(libc::SYS_close_range, (s + 1) as u32, u32::MAX, 0u32);
            crate::session::run_init(&ns.session, s);
        }
        libc::close(sync[1]);
        libc::close(go[0]);
        let read4 = || {
            let mut b = [0u8; 4];
            let n = loop {
                let n = libc::read(sync[0], b.as_mut_ptr().cast(), 4);
                if n >= 0 || errno() != libc::EINTR {
                    break n;
                }
            };
            if n != 4 {
                child_fail(status_fd, STEP, libc::EPIPE);
            }
            let e = i32::from_le_bytes(b);
            if e != 0 {
                child_fail(status_fd, STEP, e);
            }
        };
        read4();
        let mut path = [0u8; 48];
        ns_path(&mut path, pid, b"mnt");
        let mnt = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        ns_path(&mut path, pid, b"pid");
        let pidns = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if mnt < 0 || pidns < 0 {
            child_fail(status_fd, STEP, errno());
        }
        let timens = if ns.timens_offsets.is_empty() {
            -1
        } else {
            ns_path(&mut path, pid, b"time_for_children");
            let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
            if fd < 0 {
                child_fail(status_fd, STEP, errno());
            }
            fd
        };
        libc::write(go[1], b"g".as_ptr().cast(), 1);
        libc::close(go[1]);
        // The session is up: the server's launch gets the next PID.
        read4();
        libc::close(sync[0]);
        (mnt, pidns, timens)
    }
}

/// C2: PID 1 of the sandbox. Mounts, limits, then execs the tracer (or the server). Never returns.
fn c2_main(
    p: &Prepared,
    status_fd: RawFd,
    c1_pid: libc::pid_t,
    argv_p: &[*const c_char],
    envp_p: &[*const c_char],
    fds: [RawFd; 5],
) -> ! {
    // SAFETY: post-fork child; only raw syscalls on pre-built data.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            child_fail(status_fd, 0, errno());
        }
        // C1 is outside our PID namespace (getppid() is 0), so a death before the prctl cannot be
        // checked here; C1 only dies early when it is killed, and then the parent kills us too.
        let _ = c1_pid;
        let mut upper_made = [false; crate::contain::MAX_RW_VOLUMES];
        let fallbacks = match crate::contain::build_root(&p.root_plan, &mut upper_made) {
            Ok(n) => n,
            Err(e) => child_fail(status_fd, 11, e),
        };
        if mount_setattr(&p.root, MOUNT_ATTR_RDONLY, 0, true) != 0 {
            child_fail(status_fd, 15, errno());
        }
        for w in &p.rw_again {
            // Paths that do not exist are skipped. Not recursive: a host directory shown below
            // /tmp or HOME stays read-only.
            if mount_setattr(w, 0, MOUNT_ATTR_RDONLY, false) != 0 && errno() != libc::ENOENT {
                child_fail(status_fd, 15, errno());
            }
        }
        // Only a volume whose overlay has its upper layer: a read-only overlay or a bind of the
        // host directory (the fallback) stays read-only.
        for (v, made) in p.root_plan.rw_volumes.iter().zip(upper_made) {
            if made && mount_setattr(v, 0, MOUNT_ATTR_RDONLY, false) != 0 {
                child_fail(status_fd, 15, errno());
            }
        }
        // A nested user + mount namespace makes every mount above MNT_LOCKED: the server, root in
        // its namespace, cannot unmount the tmpfs over the real home to look underneath.
        if p.full_maps {
            // The full map again, written by a helper left in the outer namespace (a process
            // inside the new one may map only its own id).
            let mut pfd = [0 as c_int; 2];
            if libc::pipe2(pfd.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                child_fail(status_fd, 16, errno());
            }
            let h = libc::fork();
            if h < 0 {
                child_fail(status_fd, 16, errno());
            }
            if h == 0 {
                libc::close(pfd[1]);
                let mut b = [0u8];
                let ok = libc::read(pfd[0], b.as_mut_ptr().cast(), 1) == 1
                    && write_file(b"/proc/1/uid_map\0", &p.uid_map)
                    && write_file(b"/proc/1/gid_map\0", &p.gid_map);
                libc::_exit(if ok { 0 } else { 1 });
            }
            libc::close(pfd[0]);
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                child_fail(status_fd, 16, errno());
            }
            libc::write(pfd[1], b"x".as_ptr().cast(), 1);
            libc::close(pfd[1]);
            let mut st: c_int = 0;
            while libc::waitpid(h, &mut st, 0) < 0 {
                if errno() != libc::EINTR {
                    child_fail(status_fd, 16, errno());
                }
            }
            if !libc::WIFEXITED(st) || libc::WEXITSTATUS(st) != 0 {
                child_fail(status_fd, 16, libc::EPERM);
            }
        } else {
            if libc::unshare(libc::CLONE_NEWUSER | libc::CLONE_NEWNS) != 0 {
                child_fail(status_fd, 16, errno());
            }
            if !write_file(b"/proc/self/setgroups\0", b"deny")
                || !write_file(b"/proc/self/uid_map\0", b"0 0 1\n")
                || !write_file(b"/proc/self/gid_map\0", b"0 0 1\n")
            {
                child_fail(status_fd, 16, errno());
            }
        }
        let l = &p.limits;
        for (res, v) in [
            (libc::RLIMIT_NPROC, l.processes),
            (libc::RLIMIT_DATA, l.memory_bytes),
            (libc::RLIMIT_FSIZE, l.file_size_bytes),
            (libc::RLIMIT_CPU, l.cpu_seconds),
            (libc::RLIMIT_NOFILE, l.open_files),
            (libc::RLIMIT_CORE, 0),
        ] {
            let r = libc::rlimit {
                rlim_cur: v,
                rlim_max: v,
            };
            if libc::setrlimit(res, &r) != 0 {
                child_fail(status_fd, 17, errno());
            }
        }
        if libc::chdir(p.work.as_ptr()) != 0 {
            child_fail(status_fd, 18, errno());
        }
        // The server's own PID namespace, with its /proc mounted now: after Landlock no mount is
        // allowed. -1 when there is none.
        let (mnt_ns, pid_ns, time_ns) = match &p.pid_ns {
            Some(ns) => start_pid_ns(ns, status_fd),
            None => (-1, -1, -1),
        };
        // The launch chain holds this pipe's write end; PID 1 waits for its end. PID 1 stays a
        // plain reaper outside Landlock: the tracer is its child, the server's namespace holder
        // is not the tracer's (the tracer ends when the last traced process does).
        let mut done = [0 as c_int; 2];
        if libc::pipe2(done.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            child_fail(status_fd, 19, errno());
        }
        let t = libc::fork();
        if t < 0 {
            child_fail(status_fd, 9, errno());
        }
        if t == 0 {
            launch_main(
                p,
                status_fd,
                argv_p,
                envp_p,
                fds,
                [mnt_ns, pid_ns, done[1], time_ns],
                fallbacks,
            );
        }
        // Everything but the pipe's read end closes (the status socket too: its end is EOF
        // for the scanner once the tracer has exec'd).
        let r = done[0];
        if r > 0 {
            libc::syscall(libc::SYS_close_range, 0u32, (r - 1) as u32, 0u32);
        }
        libc::syscall(libc::SYS_close_range, (r + 1) as u32, u32::MAX, 0u32);
        let mut b = [0u8; 64];
        loop {
            let n = libc::read(r, b.as_mut_ptr().cast(), b.len());
            if n == 0 || (n < 0 && errno() != libc::EINTR) {
                break;
            }
        }
        let mut st: c_int = 0;
        loop {
            let w = libc::waitpid(t, &mut st, 0);
            if w == t {
                break;
            }
            if w < 0 && errno() != libc::EINTR {
                libc::_exit(0);
            }
        }
        if libc::WIFEXITED(st) {
            libc::_exit(libc::WEXITSTATUS(st));
        }
        libc::_exit(128 + libc::WTERMSIG(st));
    }
}

/// The tracer (or, untraced, the launch chain) below PID 1: Landlock, descriptors, execve.
/// Never returns.
fn launch_main(
    p: &Prepared,
    status_fd: RawFd,
    argv_p: &[*const c_char],
    envp_p: &[*const c_char],
    fds: [RawFd; 5],
    ns: [RawFd; 4],
    fallbacks: u16,
) -> ! {
    // SAFETY: post-fork child; only raw syscalls on pre-built data.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        // Landlock last: everything above needed mounts, which a Landlock domain forbids.
        let (abi, landlock) = if p.landlock_skip {
            (crate::contain::landlock_abi(), crate::contain::LL_SKIPPED)
        } else {
            crate::contain::landlock_restrict(&p.landlock)
        };
        let layers = crate::contain::Layers {
            landlock_abi: abi,
            landlock,
            overlay_fallbacks: fallbacks,
        }
        .encode();
        libc::write(status_fd, layers.as_ptr().cast(), layers.len());
        // stdin, stdout, stderr, trace, then the launch descriptors at their fixed numbers;
        // dup2 clears CLOEXEC on the targets. Sources move above them first so no dup2 can
        // clobber one still to be copied.
        let [i, o, e, t, x] = fds;
        let [mnt_ns, pid_ns, done, time_ns] = ns;
        let targets = [
            0,
            1,
            2,
            3,
            MNT_NS_FD,
            EXIT_FD,
            PID_NS_FD,
            DONE_FD,
            crate::launcher::EXE_FD,
            TIME_NS_FD,
        ];
        // The executable only goes down the chain with the namespaces (the stub needs them).
        let exe = if mnt_ns >= 0 { p.exe_fd } else { -1 };
        let mut moved = [-1 as c_int; 10];
        for (k, fd) in [i, o, e, t, mnt_ns, x, pid_ns, done, exe, time_ns]
            .into_iter()
            .enumerate()
        {
            if fd < 0 {
                continue;
            }
            moved[k] = libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10);
            if moved[k] < 0 {
                child_fail(status_fd, 19, errno());
            }
        }
        let st = libc::fcntl(status_fd, libc::F_DUPFD_CLOEXEC, 200);
        let st = if st >= 0 { st } else { status_fd };
        let mut keep_max = 0;
        for (k, fd) in moved.into_iter().enumerate() {
            if fd < 0 {
                continue;
            }
            if libc::dup2(fd, targets[k]) < 0 {
                child_fail(st, 19, errno());
            }
            keep_max = keep_max.max(targets[k]);
        }
        if !p.traced {
            libc::close(3);
        }
        // Descriptors above the kept ones close here; the status socket stays (CLOEXEC) for
        // an execve failure.
        libc::syscall(
            libc::SYS_close_range,
            (keep_max + 1) as u32,
            (st - 1) as u32,
            0u32,
        );
        libc::syscall(libc::SYS_close_range, (st + 1) as u32, u32::MAX, 0u32);
        libc::execve(p.exe.as_ptr(), argv_p.as_ptr(), envp_p.as_ptr());
        child_fail(st, 20, errno());
    }
}
