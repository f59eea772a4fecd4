//! Runs a command under the eBPF tracer and prints what it cost and saw (benchmarks/dynamic/
//! overhead.sh uses it beside strace). Usage:
//!   ebpf_run [--print] -- COMMAND [ARGS...]   trace COMMAND (and its children), exit with its status
//!   ebpf_run --syscalls                       print the traced set, comma-separated (for strace -e)
//! The summary goes to stderr: `ebpf: events=N lost=N unreadable=N`; `--print` also prints every
//! event's display line.
use mcp_scan_trace::ebpf::{self, Config};
use std::ffi::CString;
use std::io::Write as _;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let cfg = Config::default();
    if args.first().map(String::as_str) == Some("--syscalls") {
        let mut out = std::io::stdout();
        let _ = writeln!(out, "{}", cfg.syscalls.join(","));
        return;
    }
    let print = args
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--print");
    let Some(sep) = args.iter().position(|a| a == "--") else {
        eprintln!("usage: ebpf_run [--print] -- COMMAND [ARGS...] | ebpf_run --syscalls");
        std::process::exit(2);
    };
    let cmd: Vec<CString> = match args[sep + 1..]
        .iter()
        .map(|a| CString::new(a.as_str()))
        .collect()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("ebpf_run: {e}");
            std::process::exit(2);
        }
    };
    if cmd.is_empty() {
        eprintln!("ebpf_run: no command");
        std::process::exit(2);
    }
    let tracer = match ebpf::start(&cfg) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("ebpf_run: {e}");
            std::process::exit(2);
        }
    };
    let argv: Vec<*const libc::c_char> = cmd
        .iter()
        .map(|c| c.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect();
    let mut gate = [0i32; 2];
    // SAFETY: a pipe into a local array.
    if unsafe { libc::pipe(gate.as_mut_ptr()) } != 0 {
        eprintln!("ebpf_run: pipe: {}", std::io::Error::last_os_error());
        std::process::exit(2);
    }
    // SAFETY: the child only calls read, close, execvp and _exit on memory prepared before the
    // fork (the tracer's thread is not duplicated into it).
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: as above.
        unsafe {
            libc::close(gate[1]);
            let mut b = 0u8;
            libc::read(gate[0], (&mut b as *mut u8).cast(), 1);
            libc::close(gate[0]);
            libc::execvp(argv[0], argv.as_ptr());
            libc::_exit(127);
        }
    }
    if pid < 0 {
        eprintln!("ebpf_run: fork: {}", std::io::Error::last_os_error());
        std::process::exit(2);
    }
    if let Err(e) = tracer.track(pid as u32) {
        eprintln!("ebpf_run: {e}");
        std::process::exit(2);
    }
    // SAFETY: release the child, then wait for it.
    let mut status = 0;
    unsafe {
        libc::close(gate[0]);
        libc::write(gate[1], b"g".as_ptr().cast(), 1);
        libc::close(gate[1]);
        libc::waitpid(pid, &mut status, 0);
    }
    let r = match tracer.stop() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ebpf_run: {e}");
            std::process::exit(2);
        }
    };
    let mut err = std::io::stderr().lock();
    if print {
        for e in &r.events {
            let _ = writeln!(err, "{}", e.render(ebpf::BACKEND));
        }
    }
    let _ = writeln!(
        err,
        "ebpf: events={} lost={} unreadable={}",
        r.events.len(),
        r.stats.lost,
        r.stats.unreadable
    );
    std::process::exit(if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        128
    });
}
