//! The process table the server sees: a desktop session rather than a bare sandbox. Red-team
//! servers counted the processes of their PID namespace (three: the holder, a shell, itself),
//! read PID 1's command line (`sleep infinity`) and the last PID in `/proc/loadavg` (single
//! digits on a box that "just booted"). The sandbox's PID 1 now reads like an init, and forks
//! the usual system daemons and a user session (session bus, sound server, terminal, shells, an
//! editor) at PIDs spread over the first few thousand. They are copies of PID 1 that only sleep
//! in `pause()` (no CPU, no file, no socket), renamed with `PR_SET_NAME` and given their command
//! line with `PR_SET_MM_MAP`; they are not dumpable, so their `exe`, `environ` and `maps` are
//! closed to the server, as those of another user's or a hardened daemon are on a desktop.

use crate::identity::Rng;
use std::ffi::CString;

/// One process of the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeProc {
    /// Its PID in the server's namespace (best effort: set through `ns_last_pid`).
    pub pid: u32,
    /// Index of its parent in [`Session::procs`]; `None`: PID 1.
    pub parent: Option<usize>,
    /// `comm` (at most 15 bytes, as the kernel keeps it).
    pub comm: String,
    pub argv: Vec<String>,
}

/// PID 1 and the processes it starts, in creation order (a parent before its children).
#[derive(Debug, Clone)]
pub struct Session {
    pub init_comm: String,
    pub init_argv: Vec<String>,
    pub procs: Vec<FakeProc>,
    /// The PID counter is set here once the session is up: the server's launch follows it.
    pub next_pid: u32,
}

// (argv, comm). System services, children of PID 1.
const SYSTEM: &[(&str, &str)] = &[
    ("/lib/systemd/systemd-journald", "systemd-journal"),
    ("/lib/systemd/systemd-udevd", "systemd-udevd"),
    ("/lib/systemd/systemd-oomd", "systemd-oomd"),
    ("/lib/systemd/systemd-resolved", "systemd-resolve"),
    ("/lib/systemd/systemd-timesyncd", "systemd-timesyn"),
    ("/usr/libexec/accounts-daemon", "accounts-daemon"),
    ("/usr/sbin/acpid", "acpid"),
    ("/usr/sbin/cron -f -P", "cron"),
    (
        "@dbus-daemon --system --address=systemd: --nofork --nopidfile --systemd-activation --syslog-only",
        "dbus-daemon",
    ),
    ("/usr/sbin/NetworkManager --no-daemon", "NetworkManager"),
    ("/usr/libexec/polkitd --no-debug", "polkitd"),
    ("/usr/sbin/rsyslogd -n -iNONE", "rsyslogd"),
    ("/lib/systemd/systemd-logind", "systemd-logind"),
    ("/usr/libexec/udisks2/udisksd", "udisksd"),
    ("/usr/sbin/ModemManager", "ModemManager"),
    ("/usr/sbin/cupsd -l", "cupsd"),
    ("/usr/libexec/upowerd", "upowerd"),
    ("/usr/sbin/gdm3", "gdm3"),
];

// The user's session, children of `systemd --user`.
const USER: &[(&str, &str)] = &[
    ("(sd-pam)", "(sd-pam)"),
    ("/usr/bin/pipewire", "pipewire"),
    ("/usr/bin/wireplumber", "wireplumber"),
    ("/usr/bin/pipewire-pulse", "pipewire-pulse"),
    (
        "/usr/bin/dbus-daemon --session --address=systemd: --nofork --nopidfile --systemd-activation --syslog-only",
        "dbus-daemon",
    ),
    ("/usr/libexec/xdg-document-portal", "xdg-document-po"),
    ("/usr/libexec/xdg-permission-store", "xdg-permission-"),
    ("/usr/libexec/gvfsd", "gvfsd"),
    ("/usr/libexec/at-spi-bus-launcher", "at-spi-bus-laun"),
    ("/usr/bin/gnome-shell", "gnome-shell"),
    ("/usr/libexec/gsd-power", "gsd-power"),
    (
        "/usr/libexec/evolution-data-server/evolution-alarm-notify",
        "evolution-alarm",
    ),
    ("/usr/libexec/xdg-desktop-portal", "xdg-desktop-por"),
];

const EDITORS: &[(&str, &str)] = &[
    ("/usr/share/code/code --unity-launch", "code"),
    ("nvim", "nvim"),
    ("vim", "vim"),
    ("emacs -nw", "emacs"),
];

impl Session {
    /// The session for a run's seed (the same seed gives the same table).
    pub fn generate(seed: u64) -> Session {
        let mut r = Rng::new(seed ^ 0x5e55_1011);
        let mut procs: Vec<FakeProc> = Vec::new();
        let mut pid: u32 = 180 + r.below(200) as u32;
        let mut step = |r: &mut Rng, lo: u64, hi: u64| {
            pid += (lo + r.below(hi - lo)) as u32;
            pid
        };
        let split = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
        for (argv, comm) in SYSTEM {
            // A few services are absent on any given machine.
            if r.chance(12) {
                continue;
            }
            procs.push(FakeProc {
                pid: step(&mut r, 3, 90),
                parent: None,
                comm: comm.to_string(),
                argv: split(argv),
            });
        }
        let user_systemd = procs.len();
        procs.push(FakeProc {
            pid: step(&mut r, 300, 900),
            parent: None,
            comm: "systemd".into(),
            argv: split("/lib/systemd/systemd --user"),
        });
        for (argv, comm) in USER {
            procs.push(FakeProc {
                pid: step(&mut r, 2, 40),
                parent: Some(user_systemd),
                comm: comm.to_string(),
                argv: split(argv),
            });
        }
        procs.push(FakeProc {
            pid: step(&mut r, 200, 1500),
            parent: Some(user_systemd),
            comm: "gnome-terminal-".into(),
            argv: split("/usr/libexec/gnome-terminal-server"),
        });
        let terminal = procs.len() - 1;
        let shells = 1 + r.below(3) as usize;
        let editor_in = r.below(shells as u64) as usize;
        for i in 0..shells {
            procs.push(FakeProc {
                pid: step(&mut r, 5, 300),
                parent: Some(terminal),
                comm: "bash".into(),
                argv: vec!["bash".into()],
            });
            if i == editor_in {
                let shell = procs.len() - 1;
                let (argv, comm) = *r.pick(EDITORS);
                let mut argv = split(argv);
                if !argv[0].starts_with('/') {
                    argv.push(r.pick(&["notes.md", "README.md", "."]).to_string());
                }
                procs.push(FakeProc {
                    pid: step(&mut r, 3, 400),
                    parent: Some(shell),
                    comm: comm.into(),
                    argv,
                });
            }
        }
        let next_pid = step(&mut r, 300, 2500);
        Session {
            init_comm: "systemd".into(),
            init_argv: split("/sbin/init splash"),
            procs,
            next_pid,
        }
    }
}

/// Seconds a desktop of this seed has been up: a day and a few hours to nine days (laptops
/// suspend rather than reboot), never the few minutes of a runner that boots per job.
pub fn uptime_secs(seed: u64) -> u64 {
    let mut r = Rng::new(seed ^ 0x0b00_7ed5);
    30 * 3600 + r.below(8 * 86_400)
}

fn clock_secs(clock: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime into a stack timespec.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec
}

/// `/proc/self/timens_offsets` for a time namespace whose uptime is [`uptime_secs`] now, with
/// part of it spent suspended (CLOCK_MONOTONIC stops in suspend, CLOCK_BOOTTIME does not).
pub fn uptime_offsets(seed: u64) -> Vec<u8> {
    let up = uptime_secs(seed) as i64;
    let mut r = Rng::new(seed ^ 0x5005_9e4d);
    let suspended = (up * r.below(15) as i64) / 100;
    let boot = up - clock_secs(libc::CLOCK_BOOTTIME);
    let mono = up - suspended - clock_secs(libc::CLOCK_MONOTONIC);
    format!("monotonic {mono} 0\nboottime {boot} 0\n").into_bytes()
}

/// A session prepared for the post-fork code: NUL-separated command lines and decimal PIDs.
pub(crate) struct Prepared {
    pub init_comm: CString,
    pub init_cmdline: Vec<u8>,
    pub procs: Vec<PreparedProc>,
    pub next_pid: Vec<u8>,
}

pub(crate) struct PreparedProc {
    /// The PID before this one, for `ns_last_pid`.
    pub last_pid: Vec<u8>,
    pub parent: Option<usize>,
    pub comm: CString,
    pub cmdline: Vec<u8>,
}

fn cmdline(argv: &[String]) -> Vec<u8> {
    let mut v = Vec::new();
    for a in argv {
        v.extend(a.bytes().filter(|b| *b != 0));
        v.push(0);
    }
    v
}

fn comm(s: &str) -> CString {
    let b: Vec<u8> = s.bytes().filter(|b| *b != 0).take(15).collect();
    CString::new(b).unwrap_or_default()
}

impl Session {
    pub(crate) fn prepare(&self) -> Prepared {
        Prepared {
            init_comm: comm(&self.init_comm),
            init_cmdline: cmdline(&self.init_argv),
            procs: self
                .procs
                .iter()
                .map(|p| PreparedProc {
                    last_pid: p.pid.saturating_sub(1).to_string().into_bytes(),
                    parent: p.parent,
                    comm: comm(&p.comm),
                    cmdline: cmdline(&p.argv),
                })
                .collect(),
            next_pid: self.next_pid.to_string().into_bytes(),
        }
    }
}

#[repr(C)]
struct PrctlMmMap {
    start_code: u64,
    end_code: u64,
    start_data: u64,
    end_data: u64,
    start_brk: u64,
    brk: u64,
    start_stack: u64,
    arg_start: u64,
    arg_end: u64,
    env_start: u64,
    env_end: u64,
    auxv: u64,
    auxv_size: u32,
    exe_fd: u32,
}

const PR_SET_MM: libc::c_int = 35;
const PR_SET_MM_MAP: libc::c_ulong = 14;

/// This process's memory layout from `/proc/self/stat`, for `PR_SET_MM_MAP` (which takes every
/// field at once). Post-fork safe: a stack buffer and raw syscalls.
pub(crate) fn own_mm() -> Option<[u64; 11]> {
    let mut buf = [0u8; 2048];
    // SAFETY: open/read/close into a stack buffer.
    let n = unsafe {
        let fd = libc::open(
            c"/proc/self/stat".as_ptr(),
            libc::O_RDONLY | libc::O_CLOEXEC,
        );
        if fd < 0 {
            return None;
        }
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        libc::close(fd);
        n
    };
    let text = buf.get(..usize::try_from(n).ok()?)?;
    let close = text.iter().rposition(|b| *b == b')')?;
    // Fields after the command name start at field 3 (state).
    let mut field = [0u64; 53];
    for (i, tok) in text[close + 1..]
        .split(|b| *b == b' ' || *b == b'\n')
        .filter(|t| !t.is_empty())
        .enumerate()
    {
        let k = i + 3;
        if k >= field.len() {
            break;
        }
        let mut v: u64 = 0;
        for d in tok {
            if d.is_ascii_digit() {
                v = v.wrapping_mul(10).wrapping_add(u64::from(d - b'0'));
            }
        }
        field[k] = v;
    }
    // SAFETY: brk(0) only reports the current break.
    let brk = unsafe { libc::syscall(libc::SYS_brk, 0usize) } as u64;
    Some([
        field[26], field[27], field[45], field[46], field[47], brk, field[28], field[48],
        field[49], field[50], field[51],
    ])
}

/// Renames this process and points its command line at `cmdline` (which must outlive it).
/// Post-fork safe. False when the kernel refused the command line (the caller must not stay
/// visible with the scanner's own).
pub(crate) fn become_proc(mm: &[u64; 11], name: &CString, cmdline: &[u8]) -> bool {
    let start = cmdline.as_ptr() as u64;
    let end = start + cmdline.len() as u64;
    let map = PrctlMmMap {
        start_code: mm[0],
        end_code: mm[1],
        start_data: mm[2],
        end_data: mm[3],
        start_brk: mm[4],
        brk: mm[5],
        start_stack: mm[6],
        arg_start: start,
        arg_end: end,
        // No environment: it is closed to others anyway (not dumpable).
        env_start: end,
        env_end: end,
        auxv: 0,
        auxv_size: 0,
        exe_fd: u32::MAX,
    };
    // SAFETY: prctl with a correctly sized struct on the stack and a live name.
    unsafe {
        libc::prctl(libc::PR_SET_NAME, name.as_ptr());
        libc::prctl(libc::PR_SET_DUMPABLE, 0);
        libc::prctl(
            PR_SET_MM,
            PR_SET_MM_MAP,
            &map as *const PrctlMmMap,
            std::mem::size_of::<PrctlMmMap>(),
            0,
        ) == 0
    }
}

fn set_last_pid(pid: &[u8]) {
    // Best effort: without it the PIDs are just lower.
    let mut path = *b"/proc/sys/kernel/ns_last_pid\0";
    // SAFETY: open/write/close of a NUL-terminated stack path.
    unsafe {
        let fd = libc::open(path.as_mut_ptr().cast(), libc::O_WRONLY | libc::O_CLOEXEC);
        if fd >= 0 {
            libc::write(fd, pid.as_ptr().cast(), pid.len());
            libc::close(fd);
        }
    }
}

/// Runs as PID 1 of the server's namespace, with its /proc mounted: renames itself, starts the
/// session's processes, sets the PID counter for the server's launch, then reaps orphans
/// forever. Post-fork safe; never returns.
/// `ready` gets four zero bytes (then closes) once the session is up.
pub(crate) fn run_init(s: &Prepared, ready: libc::c_int) -> ! {
    let mm = own_mm();
    if let Some(mm) = &mm {
        become_proc(mm, &s.init_comm, &s.init_cmdline);
        spawn_children(s, None, mm, ready);
    }
    set_last_pid(&s.next_pid);
    // SAFETY: reaping children; PID 1 of a namespace ignores signals it has no handler for.
    unsafe {
        libc::write(ready, [0u8; 4].as_ptr().cast(), 4);
        libc::close(ready);
        loop {
            let mut st = 0;
            if libc::waitpid(-1, &mut st, 0) < 0 && errno() == libc::ECHILD {
                libc::pause();
            }
        }
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Forks the children of `parent`, one at a time (each finishes its own subtree before the next
/// PID is set). `inherited` is the caller's own notification descriptor: its children close it,
/// else the caller's parent would wait for them forever.
fn spawn_children(s: &Prepared, parent: Option<usize>, mm: &[u64; 11], inherited: libc::c_int) {
    for (i, p) in s.procs.iter().enumerate() {
        if p.parent != parent {
            continue;
        }
        // SAFETY: post-fork code: pipe/fork/read/write/pause only.
        unsafe {
            let mut sync = [0 as libc::c_int; 2];
            if libc::pipe2(sync.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
                return;
            }
            set_last_pid(&p.last_pid);
            let pid = libc::fork();
            if pid == 0 {
                libc::close(sync[0]);
                libc::close(inherited);
                if !become_proc(mm, &p.comm, &p.cmdline) {
                    libc::_exit(0);
                }
                spawn_children(s, Some(i), mm, sync[1]);
                libc::close(sync[1]);
                loop {
                    libc::pause();
                }
            }
            libc::close(sync[1]);
            if pid > 0 {
                let mut b = [0u8; 1];
                while libc::read(sync[0], b.as_mut_ptr().cast(), 1) < 0 && errno() == libc::EINTR {}
            }
            libc::close(sync[0]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_has_a_desktops_worth_of_processes_with_spread_pids() {
        for seed in 0..50 {
            let s = Session::generate(seed);
            assert!(s.procs.len() >= 25, "{seed}: {} processes", s.procs.len());
            let pids: Vec<u32> = s.procs.iter().map(|p| p.pid).collect();
            assert!(pids.windows(2).all(|w| w[0] < w[1]), "{pids:?}");
            assert!(
                pids[0] > 100 && s.next_pid > 1500,
                "{pids:?} {}",
                s.next_pid
            );
            assert!(
                s.procs
                    .iter()
                    .all(|p| p.comm.len() <= 15 && !p.argv.is_empty())
            );
            // Parents come first, so a child is always forked by a live parent.
            assert!(
                s.procs
                    .iter()
                    .enumerate()
                    .all(|(i, p)| p.parent.is_none_or(|q| q < i))
            );
            assert!(s.procs.iter().any(|p| p.comm == "bash"));
            assert!(s.procs.iter().any(|p| p.comm == "dbus-daemon"));
        }
        assert_ne!(
            Session::generate(1).procs,
            Session::generate(2).procs,
            "the table varies with the seed"
        );
        assert_eq!(Session::generate(7).procs, Session::generate(7).procs);
    }

    #[test]
    fn uptime_is_a_day_or_more_and_varies_with_the_seed() {
        for seed in 0..100 {
            let u = uptime_secs(seed);
            assert!((30 * 3600..9 * 86_400 + 30 * 3600).contains(&u), "{u}");
        }
        assert_ne!(uptime_secs(1), uptime_secs(2));
        let text = String::from_utf8(uptime_offsets(5)).expect("utf8");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("monotonic ") && lines[1].starts_with("boottime "));
        let boot: i64 = lines[1]
            .split(' ')
            .nth(1)
            .and_then(|v| v.parse().ok())
            .expect("offset");
        let now = clock_secs(libc::CLOCK_BOOTTIME);
        assert!((now + boot - uptime_secs(5) as i64).abs() <= 1, "{text}");
    }

    #[test]
    fn prepared_command_lines_are_nul_separated_and_names_fit_comm() {
        let s = Session::generate(3).prepare();
        assert_eq!(s.init_cmdline, b"/sbin/init\0splash\0");
        assert!(s.procs.iter().all(|p| p.cmdline.ends_with(&[0])));
        assert!(s.procs.iter().all(|p| p.comm.as_bytes().len() <= 15));
    }
}
