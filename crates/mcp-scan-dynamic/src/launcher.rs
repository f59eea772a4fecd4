//! The server's parent: the MCP client that would spawn it, not a launch shell. Red-team servers
//! read `/proc/<ppid>/cmdline` and `comm` (and their parent's parent) and stayed dormant on a
//! `sh -c "exec 3>&- …"`. The launch is now a stub: the scanner's own executable, run again
//! inside the sandbox (through a descriptor opened before the root was swapped), which stops in
//! an ELF constructor before `main` when its first argument is [`MAGIC`]. It forks a chain of
//! processes, each renamed (`PR_SET_NAME`) and given the client's command line
//! (`PR_SET_MM_MAP`): e.g. VS Code's main process and below it its extension host
//! (`code --type=utility …`), which forks the server, waits for it and reports its wait status
//! like the launch shell did. The chain's top is adopted by the namespace's PID 1 (the session's
//! init), so the ancestry reads server → client → … → `/sbin/init`.
//!
//! Still readable: the parent's `exe` and `maps` name the scanner's binary (a host path absent
//! from the sandbox). A Landlock layer of the server's own would close them, but it closes the
//! parent's `cwd` and `root` too, which a server may read on any desktop (and red-team fixture
//! `evade_proc_paths` reads through), so it is not applied.

use crate::identity::Rng;
use std::ffi::{CStr, CString, c_char, c_int};

/// First argument of the stub (never one a person types).
pub const MAGIC: &str = "\u{1}mcp-scan-launch\u{1}";
/// Separates the words of a command line inside one stub argument.
const SEP: char = '\u{1f}';
/// Descriptor the scanner's executable is handed down on (see sandbox.rs).
pub const EXE_FD: c_int = 9;
/// Where the stub reports the server's wait status (sandbox.rs `EXIT_FD`).
const EXIT_FD: c_int = 5;
/// Held by the launch chain; its end tells PID 1 the server's parent is gone (`DONE_FD`).
const DONE_FD: c_int = 7;

/// One process of the client's chain: `comm` and command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Level {
    pub comm: String,
    pub argv: Vec<String>,
}

fn level(comm: &str, argv: &[String]) -> Level {
    Level {
        comm: comm.chars().take(15).collect(),
        argv: argv.to_vec(),
    }
}

fn words(s: &str) -> Vec<String> {
    s.split(' ').map(str::to_string).collect()
}

/// The processes above the server for the client `client_name` introduces itself as (its
/// `clientInfo.name`), top first; the last one is the server's parent.
pub fn chain_for(client_name: &str, user: &str, seed: u64) -> Vec<Level> {
    let mut r = Rng::new(seed ^ 0x01a0_c4e2);
    let home = format!("/home/{user}");
    let n = client_name.to_ascii_lowercase();
    let electron = |exe: &str, comm: &str, data: &str, r: &mut Rng| -> Vec<Level> {
        let crashpad = 1800 + r.below(2500);
        let trial = format!(
            "{},{},{}",
            r.below(u64::from(u32::MAX)),
            r.below(1 << 62),
            r.below(1 << 40)
        );
        let main = words(exe);
        let mut host = words(&format!(
            "{exe} --type=utility --utility-sub-type=node.mojom.NodeService --lang=en-US \
             --service-sandbox-type=none --dns-result-order=ipv4first --inspect-port=0 \
             --crashpad-handler-pid={crashpad} --enable-crash-reporter=,no_channel \
             --user-data-dir={home}/.config/{data} --standard-schemes=vscode-webview,vscode-file \
             --enable-sandbox --secure-schemes=vscode-webview,vscode-file --cors-schemes=vscode-webview,vscode-file \
             --fetch-schemes=vscode-webview,vscode-file --service-worker-schemes=vscode-webview \
             --code-cache-schemes=vscode-webview,vscode-file --shared-files=v8_context_snapshot_data:100 \
             --field-trial-handle=3,i,{trial},262144 --disable-features=CalculateNativeWinOcclusion,SpareRendererForSitePerProcess"
        ));
        host.retain(|w| !w.is_empty());
        vec![level(comm, &main), level(comm, &host)]
    };
    if n.contains("cursor") {
        electron("/usr/share/cursor/cursor", "cursor", "Cursor", &mut r)
    } else if n.contains("claude-code") || n == "claude" {
        // A terminal multiplexer's shell: tmux's server daemonizes, so PID 1 adopts it.
        let shell = if r.chance(50) { "-bash" } else { "bash" };
        vec![
            level("tmux: server", &words("tmux")),
            level("bash", &words(shell)),
            level("claude", &words("claude")),
        ]
    } else if n.contains("claude") {
        let app = "/usr/lib/claude-desktop";
        vec![level(
            "claude-desktop",
            &words(&format!(
                "{app}/node_modules/electron/dist/electron {app}/app.asar --no-sandbox"
            )),
        )]
    } else {
        electron("/usr/share/code/code", "code", "Code", &mut r)
    }
}

/// The stub's arguments after the executable: the magic word, the chain, `--`, the server.
pub fn stub_args(chain: &[Level], server: &[String]) -> Vec<String> {
    let mut v = vec![MAGIC.to_string(), chain.len().to_string()];
    for l in chain {
        v.push(l.comm.clone());
        v.push(l.argv.join(&SEP.to_string()));
    }
    v.push("--".into());
    v.extend(server.iter().cloned());
    v
}

/// A process of the chain as the stub takes it: `comm`, NUL-separated command line.
type StubLevel = (CString, Vec<u8>);

/// Parsed stub arguments (the inverse of [`stub_args`]).
fn parse(args: &[&[u8]]) -> Option<(Vec<StubLevel>, Vec<CString>)> {
    let n: usize = std::str::from_utf8(args.first()?).ok()?.parse().ok()?;
    let mut chain = Vec::new();
    let mut at = 1;
    for _ in 0..n {
        let comm = CString::new(*args.get(at)?).ok()?;
        let mut cmdline: Vec<u8> = args
            .get(at + 1)?
            .iter()
            .map(|b| if *b == SEP as u8 { 0 } else { *b })
            .collect();
        cmdline.push(0);
        chain.push((comm, cmdline));
        at += 2;
    }
    if *args.get(at)? != b"--" {
        return None;
    }
    let server = args[at + 1..]
        .iter()
        .map(|a| CString::new(*a).ok())
        .collect::<Option<Vec<_>>>()?;
    (!server.is_empty()).then_some((chain, server))
}

// Runs before `main` in every process of a binary that links this crate; it returns at once
// unless the first argument is the magic word.
#[used]
#[unsafe(link_section = ".init_array")]
pub static STUB_INIT: extern "C" fn(c_int, *const *const c_char, *const *const c_char) = stub_init;

extern "C" fn stub_init(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
    if argc < 4 || argv.is_null() {
        return;
    }
    // SAFETY: argv holds argc valid C strings (the ELF entry's contract).
    let args: Vec<&[u8]> = unsafe {
        (0..argc as usize)
            .map(|i| CStr::from_ptr(*argv.add(i)).to_bytes())
            .collect()
    };
    if args[1] != MAGIC.as_bytes() {
        return;
    }
    let code = match parse(&args[2..]) {
        Some((chain, server)) => run(&chain, &server, envp),
        None => 127,
    };
    // SAFETY: leaving without running the program's main.
    unsafe { libc::_exit(code) }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn wait_for(pid: libc::pid_t) -> c_int {
    let mut st: c_int = 0;
    // SAFETY: waiting for our own child.
    unsafe {
        loop {
            let w = libc::waitpid(pid, &mut st, 0);
            if w == pid {
                break;
            }
            if w < 0 && errno() != libc::EINTR {
                return 127;
            }
        }
        if libc::WIFEXITED(st) {
            libc::WEXITSTATUS(st)
        } else {
            128 + libc::WTERMSIG(st)
        }
    }
}

/// The chain, then the server below its last process. Returns the exit code for the first
/// process (the one `nsenter` started, which leaves at once so PID 1 adopts the chain).
fn run(chain: &[StubLevel], server: &[CString], envp: *const *const c_char) -> c_int {
    // SAFETY: a single-threaded process before main: raw syscalls only.
    unsafe {
        // Neither the trace pipe nor the namespace descriptors nor the executable stay open.
        for fd in [3, 4, 6, 8, EXE_FD] {
            libc::close(fd);
        }
        let pid = libc::fork();
        if pid < 0 {
            return 127;
        }
        if pid > 0 {
            return 0;
        }
        // Adopted by the namespace's PID 1 once the first process is gone.
        for _ in 0..2000 {
            if libc::getppid() == 1 {
                break;
            }
            libc::usleep(500);
        }
        let mm = crate::session::own_mm();
        for (i, (comm, cmdline)) in chain.iter().enumerate() {
            // The command line must outlive the process: leaked on purpose.
            let cmdline: &'static [u8] = Box::leak(cmdline.clone().into_boxed_slice());
            if let Some(mm) = &mm {
                crate::session::become_proc(mm, comm, cmdline);
            }
            if i + 1 == chain.len() {
                break;
            }
            let c = libc::fork();
            if c < 0 {
                libc::_exit(127);
            }
            if c > 0 {
                libc::_exit(wait_for(c));
            }
        }
        let argv: Vec<*const c_char> = server
            .iter()
            .map(|a| a.as_ptr())
            .chain(std::iter::once(std::ptr::null()))
            .collect();
        let s = libc::fork();
        if s < 0 {
            libc::_exit(127);
        }
        if s == 0 {
            libc::close(EXIT_FD);
            libc::close(DONE_FD);
            libc::execve(argv[0], argv.as_ptr(), envp);
            let e = std::io::Error::last_os_error();
            let msg = format!("{}: {e}\n", server[0].to_string_lossy());
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(if e.raw_os_error() == Some(libc::ENOENT) {
                127
            } else {
                126
            });
        }
        let code = wait_for(s);
        let msg = format!("{code}\n");
        libc::write(EXIT_FD, msg.as_ptr().cast(), msg.len());
        libc::_exit(code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stub_arguments_round_trip_and_name_the_clients_process() {
        for client in ["Visual Studio Code", "claude-ai", "claude-code", "cursor"] {
            let chain = chain_for(client, "maria.garcia", 7);
            assert!(!chain.is_empty());
            assert!(
                chain
                    .iter()
                    .all(|l| l.comm.len() <= 15 && !l.argv.is_empty())
            );
            let server = vec!["/usr/bin/python3".to_string(), "server.py".into()];
            let args = stub_args(&chain, &server);
            assert_eq!(args[0], MAGIC);
            let bytes: Vec<&[u8]> = args[1..].iter().map(|a| a.as_bytes()).collect();
            let (parsed, srv) = parse(&bytes).expect("parses");
            assert_eq!(srv.len(), 2);
            assert_eq!(parsed.len(), chain.len());
            for ((comm, cmdline), l) in parsed.iter().zip(&chain) {
                assert_eq!(comm.to_str().ok(), Some(l.comm.as_str()));
                let mut want = l.argv.join("\0").into_bytes();
                want.push(0);
                assert_eq!(cmdline, &want);
            }
        }
        let code = chain_for("Visual Studio Code", "tkim", 1);
        assert_eq!(code.last().map(|l| l.comm.as_str()), Some("code"));
        assert!(code[1].argv.iter().any(|a| a == "--type=utility"));
        assert!(
            code[1]
                .argv
                .iter()
                .any(|a| a == "--user-data-dir=/home/tkim/.config/Code")
        );
        let cc = chain_for("claude-code", "tkim", 1);
        assert_eq!(cc.last().map(|l| l.comm.as_str()), Some("claude"));
    }
}
