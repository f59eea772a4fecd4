//! The eBPF backend: a CO-RE program (src/bpf/trace.bpf.c) on the `sys_enter`/`sys_exit` and
//! sched fork/exec/exit BTF tracepoints, filtered in the kernel to the traced process tree (and
//! optionally a pid namespace), streaming records through a ring buffer that a thread decodes
//! into [`TraceEvent`]s. Records the kernel could not queue are counted: a result with
//! [`TraceStats::lost`] above zero is an incomplete trace.

use crate::event::{Args, Bytes, Fd, FdKind, Payload, SockAddr, SyscallEvent, TraceEvent};
use crate::syscalls;
use libbpf_rs::skel::{OpenSkel, Skel, SkelBuilder};
use libbpf_rs::{MapCore, MapFlags, MapHandle};
use std::cell::RefCell;
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

#[allow(clippy::all, clippy::pedantic, unsafe_op_in_unsafe_fn)]
mod bpf {
    include!(concat!(env!("OUT_DIR"), "/trace.skel.rs"));
}

/// The name this backend gives itself in reports and evidence lines.
pub const BACKEND: &str = "ebpf";

/// Why the eBPF backend cannot run; each message says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "eBPF tracing needs the kernel's BTF type information and {} does not exist (a kernel built \
         without CONFIG_DEBUG_INFO_BTF): use `--tracer strace`, or a kernel with BTF",
        path.display()
    )]
    NoBtf { path: PathBuf },
    #[error(
        "not permitted to load eBPF programs ({detail}): run as root, or give the binary \
         CAP_BPF and CAP_PERFMON (`setcap cap_bpf,cap_perfmon+ep <mcp-scan>`), or use `--tracer strace`"
    )]
    NoPermission { detail: String },
    #[error("the kernel refused the eBPF tracer while {stage}: {message}{}", log_tail(.log))]
    Load {
        stage: &'static str,
        message: String,
        /// libbpf's own messages (the verifier log, when it rejected the program).
        log: String,
    },
    #[error("unknown system call `{0}` (this backend knows the x86_64 table in syscalls.rs)")]
    UnknownSyscall(String),
    #[error("the eBPF tracer thread ended unexpectedly")]
    ThreadGone,
    /// The load failed earlier (its first waiter got the error itself).
    #[error("{0}")]
    LoadFailed(String),
}

fn log_tail(log: &str) -> String {
    if log.is_empty() {
        return String::new();
    }
    let lines: Vec<&str> = log.lines().collect();
    let tail = &lines[lines.len().saturating_sub(12)..];
    format!("\nlibbpf said:\n{}", tail.join("\n"))
}

/// What to trace.
#[derive(Debug, Clone)]
pub struct Config {
    /// System call names to record (others stay in the kernel untouched).
    pub syscalls: Vec<String>,
    /// Processes traced from the start (their children are followed).
    pub pids: Vec<u32>,
    /// Also trace every process created in this pid namespace (its `ns/pid` inode number).
    pub pidns_inum: Option<u32>,
    /// Where the kernel's BTF is (checked before loading).
    pub btf_path: PathBuf,
    /// Size of the ring buffer (a power of two, at least a page).
    pub ring_bytes: u32,
    /// Events kept at most (memory stays bounded under a flood); records past it are counted in
    /// [`TraceStats::discarded`] and the trace is incomplete.
    pub max_events: usize,
    /// A pause before every drain of the ring: a reader that falls behind, for the tests of the
    /// loss accounting (whether a fast reader keeps up with a flood depends on the machine).
    /// Zero in every real run.
    pub drain_delay: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            syscalls: syscalls::ANALYSIS.iter().map(|s| s.to_string()).collect(),
            pids: Vec::new(),
            pidns_inum: None,
            btf_path: PathBuf::from("/sys/kernel/btf/vmlinux"),
            ring_bytes: 16 << 20,
            max_events: usize::MAX,
            drain_delay: Duration::ZERO,
        }
    }
}

/// Counters of one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TraceStats {
    /// Records the kernel could not queue (ring buffer full): events are missing.
    pub lost: u64,
    /// Records queued.
    pub sent: u64,
    /// Records decoded.
    pub received: u64,
    /// Pointer arguments the kernel could not read (a page not resident, a bad pointer).
    pub unreadable: u64,
    /// Records too short or of an unknown kind (a layout mismatch; should stay 0).
    pub malformed: u64,
    /// Records received past [`Config::max_events`] and not kept.
    pub discarded: u64,
}

/// What a finished run saw.
#[derive(Debug, Clone)]
pub struct TraceResult {
    /// In order of time (a system call at its entry).
    pub events: Vec<TraceEvent>,
    pub stats: TraceStats,
}

impl TraceResult {
    /// Whether every record reached user space. A lossy trace must make a scan INCOMPLETE.
    pub fn complete(&self) -> bool {
        self.stats.lost == 0 && self.stats.malformed == 0 && self.stats.discarded == 0
    }

    /// Why the trace is incomplete, for the report's coverage gap (None when complete).
    pub fn gap(&self) -> Option<String> {
        if self.complete() {
            return None;
        }
        // Worded like strace's cut ("the trace exceeded …") when the cap was what cut it.
        let cut = if self.stats.discarded > 0 {
            " (the trace exceeded its cap)"
        } else {
            ""
        };
        Some(format!(
            "the eBPF tracer lost {} of {} records (ring buffer full), could not decode {} and \
             discarded {} past its cap of kept events{cut}: events are missing",
            self.stats.lost,
            self.stats.lost + self.stats.sent,
            self.stats.malformed,
            self.stats.discarded
        ))
    }
}

/// Checks what loading needs, without loading: BTF present, and the capabilities.
pub fn preflight(cfg: &Config) -> Result<(), Error> {
    if !cfg.btf_path.exists() {
        return Err(Error::NoBtf {
            path: cfg.btf_path.clone(),
        });
    }
    let caps = effective_caps().unwrap_or(0);
    const CAP_SYS_ADMIN: u32 = 21;
    const CAP_PERFMON: u32 = 38;
    const CAP_BPF: u32 = 39;
    let has = |c: u32| caps & (1u64 << c) != 0;
    if !(has(CAP_SYS_ADMIN) || (has(CAP_BPF) && has(CAP_PERFMON))) {
        return Err(Error::NoPermission {
            detail: "the process has neither CAP_SYS_ADMIN nor CAP_BPF with CAP_PERFMON".into(),
        });
    }
    Ok(())
}

fn effective_caps() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("CapEff:"))?;
    u64::from_str_radix(line.trim_start_matches("CapEff:").trim(), 16).ok()
}

/// The pid namespace inode of process `pid` (for [`Config::pidns_inum`]).
pub fn pidns_inum(pid: u32) -> std::io::Result<u32> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(Path::new("/proc").join(pid.to_string()).join("ns/pid"))?;
    u32::try_from(m.ino()).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

static LIBBPF_LOG: Mutex<String> = Mutex::new(String::new());

fn capture_libbpf(_level: libbpf_rs::PrintLevel, msg: String) {
    if let Ok(mut log) = LIBBPF_LOG.lock() {
        if log.len() > 64 * 1024 {
            let cut = log.len() - 32 * 1024;
            let cut = (cut..log.len())
                .find(|&i| log.is_char_boundary(i))
                .unwrap_or(0);
            log.drain(..cut);
        }
        log.push_str(&msg);
    }
}

fn take_log() -> String {
    LIBBPF_LOG
        .lock()
        .map(|mut l| std::mem::take(&mut *l))
        .unwrap_or_default()
}

fn load_error(stage: &'static str, e: libbpf_rs::Error) -> Error {
    let log = take_log();
    // EPERM is a missing privilege; EACCES from the load is the verifier refusing the program.
    if e.kind() == libbpf_rs::ErrorKind::PermissionDenied && e.to_string().contains("(os error 1)")
    {
        return Error::NoPermission {
            detail: format!("{stage}: {e}"),
        };
    }
    Error::Load {
        stage,
        message: e.to_string(),
        log,
    }
}

/// A running tracer. Dropping it without [`Running::stop`] detaches it and discards the events.
pub struct Running {
    load: Mutex<Load>,
    stop: Arc<Stop>,
    thread: Option<JoinHandle<TraceResult>>,
}

/// Tells the tracer's thread to stop, waking it at once (not at its next drain on the timer).
struct Stop {
    flag: AtomicBool,
    /// An eventfd the thread waits on beside the ring buffer (None: it notices on the timer).
    wake: Option<std::os::fd::OwnedFd>,
}

impl Stop {
    fn new() -> Stop {
        use std::os::fd::FromRawFd;
        // SAFETY: eventfd returns a new descriptor (or -1), owned from here on.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        Stop {
            flag: AtomicBool::new(false),
            // SAFETY: a descriptor just created and not owned elsewhere.
            wake: (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }),
        }
    }

    fn set(&self) {
        use std::os::fd::AsRawFd;
        self.flag.store(true, Ordering::SeqCst);
        if let Some(fd) = &self.wake {
            let one = 1u64;
            // SAFETY: an 8-byte write from a local to an eventfd we own.
            unsafe { libc::write(fd.as_raw_fd(), (&one as *const u64).cast(), 8) };
        }
    }

    fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

/// An epoll set of the ring buffer's own epoll descriptor and the stop eventfd: waiting on it
/// returns when records are signalled or when stopping (None: wait on the ring buffer alone).
fn wait_set(ring_epoll: i32, stop: &Stop) -> Option<std::os::fd::OwnedFd> {
    use std::os::fd::{AsRawFd, FromRawFd};
    let wake = stop.wake.as_ref()?;
    // SAFETY: epoll_create1 returns a new descriptor (or -1), owned from here on.
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if ep < 0 {
        return None;
    }
    // SAFETY: as above.
    let ep = unsafe { std::os::fd::OwnedFd::from_raw_fd(ep) };
    for fd in [ring_epoll, wake.as_raw_fd()] {
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: fd as u64,
        };
        // SAFETY: adds a live descriptor to our epoll set with a local event struct.
        if unsafe { libc::epoll_ctl(ep.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) } != 0 {
            return None;
        }
    }
    Some(ep)
}

/// Where loading stands (it runs on the tracer's thread).
enum Load {
    Pending(mpsc::Receiver<Result<(MapHandle, Vec<u32>), Error>>),
    Ready {
        tracked: MapHandle,
        /// The kernel's ids of the loaded programs.
        prog_ids: Vec<u32>,
    },
    Failed(String),
}

/// Loads and attaches the tracer; events are recorded from now on for the configured processes.
pub fn start(cfg: &Config) -> Result<Running, Error> {
    let r = start_loading(cfg)?;
    r.wait_loaded()?;
    Ok(r)
}

/// Checks what loading needs ([`preflight`]) and starts loading on the tracer's thread without
/// waiting for it: the caller prepares the traced processes meanwhile (the kernel's verifier and
/// BTF parsing are most of the start-up). [`Running::track`] and [`Running::wait_loaded`] wait
/// for it and return its error, if any.
pub fn start_loading(cfg: &Config) -> Result<Running, Error> {
    preflight(cfg)?;
    let mut nrs = Vec::new();
    for s in &cfg.syscalls {
        nrs.push(syscalls::number(s).ok_or_else(|| Error::UnknownSyscall(s.clone()))?);
    }
    let stop = Arc::new(Stop::new());
    let (tx, rx) = mpsc::channel();
    let cfg = cfg.clone();
    let stop2 = stop.clone();
    let thread = std::thread::Builder::new()
        .name("mcp-scan-ebpf".into())
        .spawn(move || run(&cfg, &nrs, &tx, &stop2))
        .map_err(|_| Error::ThreadGone)?;
    Ok(Running {
        load: Mutex::new(Load::Pending(rx)),
        stop,
        thread: Some(thread),
    })
}

impl Running {
    /// Waits until the programs are attached: events are recorded from then on. The first call
    /// after a failed load returns its error, later ones [`Error::LoadFailed`] with its text.
    pub fn wait_loaded(&self) -> Result<(), Error> {
        self.loaded(|_| ())
    }

    fn loaded<T>(&self, f: impl FnOnce(&MapHandle) -> T) -> Result<T, Error> {
        let mut load = self.load.lock().map_err(|_| Error::ThreadGone)?;
        if let Load::Pending(rx) = &*load {
            match rx.recv() {
                Ok(Ok((tracked, prog_ids))) => *load = Load::Ready { tracked, prog_ids },
                Ok(Err(e)) => {
                    *load = Load::Failed(e.to_string());
                    return Err(e);
                }
                Err(_) => *load = Load::Failed(Error::ThreadGone.to_string()),
            }
        }
        match &*load {
            Load::Ready { tracked, .. } => Ok(f(tracked)),
            Load::Failed(why) => Err(Error::LoadFailed(why.clone())),
            Load::Pending(_) => Err(Error::ThreadGone),
        }
    }

    /// Traces process `pid` (and every process it creates from now on); waits for the load.
    pub fn track(&self, pid: u32) -> Result<(), Error> {
        self.loaded(|tracked| {
            tracked
                .update(&pid.to_ne_bytes(), &[1u8], MapFlags::ANY)
                .map_err(|e| load_error("adding a process to the traced set", e))
        })?
    }

    /// Instructions the kernel's verifier walked to accept the programs, summed: loading costs
    /// time in proportion (about a second per million on this machine), before the first event.
    /// Waits for the load (0 if it failed).
    pub fn verified_insns(&self) -> u64 {
        let _ = self.wait_loaded();
        let ids = match self.load.lock().as_deref() {
            Ok(Load::Ready { prog_ids, .. }) => prog_ids.clone(),
            _ => return 0,
        };
        libbpf_rs::query::ProgInfoIter::default()
            .filter(|i| ids.contains(&i.id))
            .map(|i| u64::from(i.verified_insns))
            .sum()
    }

    /// Detaches, drains what is queued and returns everything seen (the load's error if it
    /// failed).
    pub fn stop(mut self) -> Result<TraceResult, Error> {
        self.wait_loaded()?;
        self.stop.set();
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => Ok(r),
            _ => Err(Error::ThreadGone),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.set();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

type Ready = mpsc::Sender<Result<(MapHandle, Vec<u32>), Error>>;

/// The kernel's ids of the loaded programs (for [`Running::verified_insns`]).
fn prog_ids(skel: &bpf::TraceSkel<'_>) -> Vec<u32> {
    use std::os::fd::AsFd;
    let progs = &skel.progs;
    [
        &progs.on_enter,
        &progs.on_exit,
        &progs.on_fork,
        &progs.on_exec,
        &progs.on_task_exit,
    ]
    .iter()
    .filter_map(|p| libbpf_rs::Program::id_from_fd(p.as_fd()).ok())
    .collect()
}

/// The tracer thread: owns the loaded object (the skeleton borrows it) for its whole life.
fn run(cfg: &Config, nrs: &[u32], ready: &Ready, stop: &Stop) -> TraceResult {
    let empty = TraceResult {
        events: Vec::new(),
        stats: TraceStats::default(),
    };
    libbpf_rs::set_print(Some((libbpf_rs::PrintLevel::Warn, capture_libbpf)));
    let mut object = MaybeUninit::uninit();
    let builder = bpf::TraceSkelBuilder::default();
    let mut open = match builder.open(&mut object) {
        Ok(o) => o,
        Err(e) => {
            let _ = ready.send(Err(load_error("opening the BPF object", e)));
            return empty;
        }
    };
    if let Err(e) = open.maps.events.set_max_entries(cfg.ring_bytes) {
        let _ = ready.send(Err(load_error("sizing the ring buffer", e)));
        return empty;
    }
    if let Some(ro) = open.maps.rodata_data.as_deref_mut() {
        ro.pidns_inum = cfg.pidns_inum.unwrap_or(0);
        ro.wake_bytes = u64::from(cfg.ring_bytes / 8);
    }
    let mut skel = match open.load() {
        Ok(s) => s,
        Err(e) => {
            let _ = ready.send(Err(load_error("loading (verifying) the BPF program", e)));
            return empty;
        }
    };
    for &nr in nrs {
        if let Err(e) = skel
            .maps
            .traced_nr
            .update(&nr.to_ne_bytes(), &[1u8], MapFlags::ANY)
        {
            let _ = ready.send(Err(load_error("configuring the traced system calls", e)));
            return empty;
        }
    }
    for &pid in &cfg.pids {
        if let Err(e) = skel
            .maps
            .tracked
            .update(&pid.to_ne_bytes(), &[1u8], MapFlags::ANY)
        {
            let _ = ready.send(Err(load_error("adding a process to the traced set", e)));
            return empty;
        }
    }
    let tracked = match MapHandle::try_from(&skel.maps.tracked) {
        Ok(h) => h,
        Err(e) => {
            let _ = ready.send(Err(load_error("sharing the traced set", e)));
            return empty;
        }
    };
    if let Err(e) = skel.attach() {
        let _ = ready.send(Err(load_error("attaching to the tracepoints", e)));
        return empty;
    }
    let decoder = Rc::new(RefCell::new(Decoder {
        max_events: cfg.max_events,
        ..Decoder::default()
    }));
    let d2 = decoder.clone();
    let mut rb = libbpf_rs::RingBufferBuilder::new();
    if let Err(e) = rb.add(&skel.maps.events, move |data: &[u8]| {
        d2.borrow_mut().record(data);
        0
    }) {
        let _ = ready.send(Err(load_error("opening the ring buffer", e)));
        return empty;
    }
    let rb = match rb.build() {
        Ok(r) => r,
        Err(e) => {
            let _ = ready.send(Err(load_error("opening the ring buffer", e)));
            return empty;
        }
    };
    let _ = take_log();
    if ready.send(Ok((tracked, prog_ids(&skel)))).is_err() {
        return empty;
    }
    let waits = wait_set(rb.epoll_fd(), stop);
    while !stop.is_set() {
        if !cfg.drain_delay.is_zero() {
            std::thread::sleep(cfg.drain_delay);
        }
        // Records wake the poll only in batches (see emit in trace.bpf.c): drain on a timer too.
        match &waits {
            Some(ep) => {
                use std::os::fd::AsRawFd;
                let mut evs = [libc::epoll_event { events: 0, u64: 0 }; 2];
                // SAFETY: waits on our epoll set into a local array of its length.
                unsafe { libc::epoll_wait(ep.as_raw_fd(), evs.as_mut_ptr(), 2, POLL_MS) };
            }
            None => {
                let _ = rb.poll(Duration::from_millis(POLL_MS as u64));
            }
        }
        let _ = rb.consume();
    }
    // Detach first so nothing is queued after the final drain.
    drop(std::mem::take(&mut skel.links));
    let _ = rb.consume();
    let mut stats = TraceStats::default();
    let key = 0u32;
    let sum = |idx: u32| -> u64 {
        let _ = key;
        match skel
            .maps
            .stats
            .lookup_percpu(&idx.to_ne_bytes(), MapFlags::ANY)
        {
            Ok(Some(per_cpu)) => per_cpu
                .iter()
                .filter_map(|v| {
                    v.get(..8)
                        .and_then(|b| b.try_into().ok())
                        .map(u64::from_ne_bytes)
                })
                .sum(),
            _ => 0,
        }
    };
    stats.lost = sum(0);
    stats.sent = sum(1);
    stats.unreadable = sum(2);
    drop(rb);
    let d = match Rc::try_unwrap(decoder) {
        Ok(d) => d.into_inner(),
        Err(rc) => std::mem::take(&mut *rc.borrow_mut()),
    };
    let discarded = d.discarded;
    let (events, received, malformed) = d.finish();
    stats.received = received;
    stats.malformed = malformed;
    stats.discarded = discarded;
    TraceResult { events, stats }
}

/// The longest wait between drains while records trickle in below the wake-up threshold.
const POLL_MS: i32 = 10;

// The record layout of trace.bpf.c (`struct rec_hdr`).
const HDR: usize = 136;
const _: () = assert!(std::mem::size_of::<bpf::types::rec_hdr>() == HDR);
const BLOBS_MAX: usize = 8;
const R_ENTER: u32 = 1;
const R_EXIT: u32 = 2;
const R_FORK: u32 = 3;
const R_EXEC: u32 = 4;
const R_TASK_EXIT: u32 = 5;
const R_CALL: u32 = 6;
const B_STR: u16 = 1;
const B_SOCKADDR: u16 = 2;
const B_PAYLOAD: u16 = 3;
const B_ARGV: u16 = 4;
const B_OPEN_HOW: u16 = 5;
const F_TRUNCATED: u32 = 1;
const F_UNREADABLE: u32 = 2;
const F_FD_MODE: u32 = 4;

struct Header {
    kind: u32,
    nr: u32,
    tgid: u32,
    tid: u32,
    ts: u64,
    ts_exit: u64,
    args: [u64; 6],
    ret: i64,
    fd_mode: u32,
    flags: u32,
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    b.get(o..o + 4)
        .and_then(|s| s.try_into().ok())
        .map(u32::from_ne_bytes)
        .unwrap_or(0)
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    b.get(o..o + 8)
        .and_then(|s| s.try_into().ok())
        .map(u64::from_ne_bytes)
        .unwrap_or(0)
}
fn u16_at(b: &[u8], o: usize) -> u16 {
    b.get(o..o + 2)
        .and_then(|s| s.try_into().ok())
        .map(u16::from_ne_bytes)
        .unwrap_or(0)
}

/// Turns ring buffer records into events, pairing each entry with its exit by thread.
#[derive(Default)]
struct Decoder {
    pending: HashMap<u32, SyscallEvent>,
    out: Vec<TraceEvent>,
    received: u64,
    malformed: u64,
    max_events: usize,
    discarded: u64,
}

impl Decoder {
    fn record(&mut self, b: &[u8]) {
        self.received += 1;
        if self.out.len() + self.pending.len() >= self.max_events {
            self.discarded += 1;
            return;
        }
        if b.len() < HDR {
            self.malformed += 1;
            return;
        }
        let mut args = [0u64; 6];
        for (i, a) in args.iter_mut().enumerate() {
            *a = u64_at(b, 32 + 8 * i);
        }
        let h = Header {
            kind: u32_at(b, 0),
            nr: u32_at(b, 4),
            tgid: u32_at(b, 8),
            tid: u32_at(b, 12),
            ts: u64_at(b, 16),
            ts_exit: u64_at(b, 24),
            args,
            ret: u64_at(b, 80) as i64,
            fd_mode: u32_at(b, 88),
            flags: u32_at(b, 92),
        };
        let nblobs = (u16_at(b, 96) as usize).min(BLOBS_MAX); // u16 at 98: bytes used
        let mut blobs: Vec<(u16, &[u8])> = Vec::with_capacity(nblobs);
        let mut off = HDR;
        for i in 0..nblobs {
            let kind = u16_at(b, 104 + 2 * i);
            let len = u16_at(b, 120 + 2 * i) as usize;
            match b.get(off..off + len) {
                Some(s) => blobs.push((kind, s)),
                None => {
                    self.malformed += 1;
                    return;
                }
            }
            off += len;
        }
        match h.kind {
            R_CALL => {
                let mut ev = syscall_event(&h, &blobs);
                ev.result = Some(h.ret);
                ev.exit_ts_ns = Some(h.ts_exit);
                self.out.push(TraceEvent::Syscall(ev));
            }
            R_ENTER => {
                let ev = syscall_event(&h, &blobs);
                if let Some(prev) = self.pending.insert(h.tid, ev) {
                    self.out.push(TraceEvent::Syscall(prev));
                }
            }
            R_EXIT => match self.pending.remove(&h.tid) {
                Some(mut ev) if ev.nr == h.nr => {
                    ev.result = Some(h.ret);
                    ev.exit_ts_ns = Some(h.ts);
                    self.out.push(TraceEvent::Syscall(ev));
                }
                Some(ev) => self.out.push(TraceEvent::Syscall(ev)),
                // The entry happened before the thread was traced (e.g. the fork that made it).
                None => {}
            },
            R_FORK => self.out.push(TraceEvent::Fork {
                ts_ns: h.ts,
                parent_pid: h.args[0] as u32,
                parent_tid: h.args[1] as u32,
                child_pid: h.args[2] as u32,
                child_tid: h.args[3] as u32,
            }),
            R_EXEC => {
                let old = h.args[0] as u32;
                // A non-leader thread that execs takes over the leader's tid.
                if old != h.tid
                    && let Some(ev) = self.pending.remove(&old)
                {
                    self.pending.insert(h.tid, ev);
                }
                self.out.push(TraceEvent::Exec {
                    ts_ns: h.ts,
                    pid: h.tgid,
                    tid: h.tid,
                    old_tid: old,
                    filename: blobs.first().and_then(|(_, s)| cstr(s)),
                    argv: find_blob(&blobs, B_ARGV)
                        .map(split_argv)
                        .unwrap_or_default(),
                });
            }
            R_TASK_EXIT => {
                // exit/exit_group never return.
                if let Some(ev) = self.pending.remove(&h.tid) {
                    self.out.push(TraceEvent::Syscall(ev));
                }
                self.out.push(TraceEvent::Exit {
                    ts_ns: h.ts,
                    pid: h.tgid,
                    tid: h.tid,
                    code: h.args[0] as i32,
                    group_dead: h.args[1] != 0,
                });
            }
            _ => self.malformed += 1,
        }
    }

    fn finish(mut self) -> (Vec<TraceEvent>, u64, u64) {
        let mut rest: Vec<SyscallEvent> = self.pending.drain().map(|(_, e)| e).collect();
        rest.sort_by_key(|e| e.ts_ns);
        self.out.extend(rest.into_iter().map(TraceEvent::Syscall));
        self.out.sort_by_key(|e| e.ts_ns());
        (self.out, self.received, self.malformed)
    }
}

fn find_blob<'a>(blobs: &[(u16, &'a [u8])], kind: u16) -> Option<&'a [u8]> {
    blobs.iter().find(|(k, _)| *k == kind).map(|(_, b)| *b)
}

/// NUL-separated strings (a last one without its NUL was cut).
fn split_argv(b: &[u8]) -> Vec<Bytes> {
    let mut v: Vec<Bytes> = b
        .split(|&c| c == 0)
        .map(|x| Bytes {
            bytes: x.to_vec(),
            truncated: false,
        })
        .collect();
    match b.last() {
        Some(0) => {
            v.pop();
        }
        Some(_) => {
            if let Some(l) = v.last_mut() {
                l.truncated = true;
            }
        }
        None => v.clear(),
    }
    v
}

/// Bytes of one string argument the kernel side reads at most (`STR_MAX`, NUL included).
const STR_MAX: usize = 512;

/// A NUL-terminated string blob (empty: unreadable or a NULL pointer).
fn cstr(s: &[u8]) -> Option<Bytes> {
    if s.is_empty() {
        return None;
    }
    let end = s.iter().position(|&c| c == 0).unwrap_or(s.len());
    Some(Bytes {
        bytes: s[..end].to_vec(),
        // A string that filled its whole bound was cut.
        truncated: s.len() >= STR_MAX,
    })
}

fn syscall_event(h: &Header, blobs: &[(u16, &[u8])]) -> SyscallEvent {
    let a = h.args;
    let cut = h.flags & F_TRUNCATED != 0;
    let mut strs = blobs
        .iter()
        .filter(|(k, _)| *k == B_STR)
        .map(|(_, s)| cstr(s));
    let mut s = || strs.next().flatten();
    let find = |kind: u16| blobs.iter().find(|(k, _)| *k == kind).map(|(_, b)| *b);
    let sockaddr = || find(B_SOCKADDR).and_then(SockAddr::parse);
    let kind = (h.flags & F_FD_MODE != 0).then(|| FdKind::from_mode(h.fd_mode));
    let payload = |len: Option<u64>| {
        find(B_PAYLOAD).map(|p| Payload {
            excerpt: p.to_vec(),
            len: len.unwrap_or(p.len() as u64).max(p.len() as u64),
        })
    };
    let fd = |i: usize| Fd::from_arg(a[i]);
    let name = syscalls::name(h.nr).unwrap_or("unknown");
    let args = match name {
        "open" => Args::Open {
            dirfd: Fd::Cwd,
            path: s(),
            flags: a[1],
            mode: a[2] as u32,
            resolve: None,
        },
        "creat" => Args::Open {
            dirfd: Fd::Cwd,
            path: s(),
            flags: 0o1101, // O_CREAT|O_WRONLY|O_TRUNC
            mode: a[1] as u32,
            resolve: None,
        },
        "openat" => Args::Open {
            dirfd: fd(0),
            path: s(),
            flags: a[2],
            mode: a[3] as u32,
            resolve: None,
        },
        "openat2" => {
            let how = find(B_OPEN_HOW).unwrap_or(&[]);
            Args::Open {
                dirfd: fd(0),
                path: s(),
                flags: u64_at(how, 0),
                mode: u64_at(how, 8) as u32,
                resolve: Some(u64_at(how, 16)),
            }
        }
        "read" | "pread64" => Args::Read {
            fd: fd(0),
            kind,
            count: a[2],
        },
        "write" | "pwrite64" => Args::Write {
            fd: fd(0),
            kind,
            count: a[2],
            payload: payload(Some(a[2])),
        },
        "writev" => Args::Write {
            fd: fd(0),
            kind,
            count: a[2],
            payload: payload(None),
        },
        "sendfile" => Args::SendFile {
            out_fd: fd(0),
            out_kind: kind,
            in_fd: fd(1),
            count: a[3],
        },
        "socket" => Args::Socket {
            domain: a[0] as u32,
            ty: a[1] as u32,
            protocol: a[2] as u32,
        },
        "connect" => Args::Connect {
            fd: fd(0),
            addr: sockaddr(),
        },
        "bind" => Args::Bind {
            fd: fd(0),
            addr: sockaddr(),
        },
        "sendto" => Args::Send {
            fd: fd(0),
            addr: sockaddr(),
            payload: payload(Some(a[2])),
        },
        "sendmsg" | "sendmmsg" => Args::Send {
            fd: fd(0),
            addr: sockaddr(),
            payload: payload(None),
        },
        "execve" | "execveat" => {
            let argv_blob = find(B_ARGV);
            let argv = argv_blob.map(split_argv).unwrap_or_default();
            Args::Exec {
                dirfd: if name == "execveat" { fd(0) } else { Fd::Cwd },
                path: s(),
                argv,
                argv_incomplete: argv_blob.is_none() || h.flags & (F_TRUNCATED | F_UNREADABLE) != 0,
            }
        }
        "unlink" => Args::Unlink {
            dirfd: Fd::Cwd,
            path: s(),
            flags: 0,
        },
        "rmdir" => Args::Unlink {
            dirfd: Fd::Cwd,
            path: s(),
            flags: 0x200, // AT_REMOVEDIR
        },
        "unlinkat" => Args::Unlink {
            dirfd: fd(0),
            path: s(),
            flags: a[2],
        },
        "rename" => Args::Rename {
            olddirfd: Fd::Cwd,
            old: s(),
            newdirfd: Fd::Cwd,
            new: s(),
            flags: 0,
        },
        "renameat" | "renameat2" => Args::Rename {
            olddirfd: fd(0),
            old: s(),
            newdirfd: fd(2),
            new: s(),
            flags: if name == "renameat2" { a[4] } else { 0 },
        },
        "mkdir" => Args::Mkdir {
            dirfd: Fd::Cwd,
            path: s(),
            mode: a[1] as u32,
        },
        "mkdirat" => Args::Mkdir {
            dirfd: fd(0),
            path: s(),
            mode: a[2] as u32,
        },
        "clone" => Args::Clone { flags: a[0] },
        "fork" | "vfork" | "clone3" => Args::Clone { flags: 0 },
        _ => Args::Other {
            raw: a,
            paths: blobs
                .iter()
                .filter(|(k, _)| *k == B_STR)
                .map(|(_, b)| cstr(b))
                .collect(),
        },
    };
    SyscallEvent {
        ts_ns: h.ts,
        exit_ts_ns: None,
        pid: h.tgid,
        tid: h.tid,
        nr: h.nr,
        name,
        args,
        result: None,
        truncated: cut,
        unreadable: h.flags & F_UNREADABLE != 0,
    }
}
