//! The second, untraced run. A tracer cannot hide itself from the traced process: a failing
//! `PTRACE_TRACEME`, the cost of traced system calls and `Seccomp:` in `/proc/self/status` all
//! stay. A server that checks them and goes dormant is run again without the tracer, with the same
//! persona and inputs (same seed), and observed only through what needs no tracer: the network
//! sinks, the canary HOME's file diffs and the JSON-RPC stream. What that run finds and the traced
//! one did not is merged into the report, marked as coming from the untraced run.

use crate::events::{Event, EventKind};
use mcp_scan_core::{Evidence, Report};

/// When to run the server a second time without the tracer (`--second-run`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SecondRun {
    /// When the traced run saw the server look for a sandbox or a tracer.
    #[default]
    Auto,
    /// Every time (catches tracer checks that leave no trace: timing, clocks).
    Always,
    Never,
}

impl SecondRun {
    pub const NAMES: &'static [&'static str] = &["auto", "always", "never"];

    pub fn named(name: &str) -> Option<Self> {
        Some(match name {
            "auto" => SecondRun::Auto,
            "always" => SecondRun::Always,
            "never" => SecondRun::Never,
            _ => return None,
        })
    }
}

/// `ptrace(PTRACE_TRACEME)` in the raw trace: the classic "am I being debugged" check, which
/// fails under any tracer.
pub fn traceme_in(raw_trace: &[u8]) -> bool {
    const NEEDLE: &[u8] = b"ptrace(PTRACE_TRACEME";
    raw_trace.windows(NEEDLE.len()).any(|w| w == NEEDLE)
}

/// The traced run's signs that the server looked for a tracer, in words (empty: none). Reads of
/// its own `status` count here though not for MCPS-R019: memory reports read the same file for
/// VmRSS, so they only buy a second run, never a finding.
pub fn tracer_tells(events: &[Event], traceme: bool) -> Vec<String> {
    let mut out = Vec::new();
    if traceme {
        out.push("calls ptrace(PTRACE_TRACEME)".to_string());
    }
    let status = events.iter().any(|e| {
        e.kind == EventKind::FileOpen
            && [e.path.as_deref(), e.resolved.as_deref()]
                .into_iter()
                .flatten()
                .any(|p| {
                    let parts: Vec<&str> = p.split('/').collect();
                    matches!(parts.as_slice(), ["", "proc", who, "status"]
                        if *who == "self" || *who == "thread-self")
                        || matches!(parts.as_slice(), ["", "proc", "self", "task", _, "status"])
                })
    });
    if status {
        out.push("reads its own /proc status (TracerPid, Seccomp)".to_string());
    }
    out
}

/// Why a second run is due (`None`: not wanted). `r019` is whether MCPS-R019 fired.
pub fn reason(mode: SecondRun, traced: bool, r019: bool, tells: &[String]) -> Option<String> {
    if !traced {
        return None;
    }
    match mode {
        SecondRun::Never => None,
        SecondRun::Always => Some("--second-run always".to_string()),
        SecondRun::Auto => {
            let mut why: Vec<String> = Vec::new();
            if r019 {
                why.push("it looked for signs of a sandbox (MCPS-R019)".to_string());
            }
            why.extend(tells.iter().cloned());
            (!why.is_empty()).then(|| why.join("; "))
        }
    }
}

/// Prefix of every observation merged from the untraced run.
pub const MARK: &str = "in the untraced second run: ";

/// Merges into `traced` every finding of `untraced` that the traced run has no finding of the same
/// rule on the same entity for, marked as coming from the untraced run. The untraced run's own
/// completeness ("run untraced") is not merged: the traced run decides that. Returns how many
/// findings it added.
pub fn merge(traced: &mut Report, untraced: &Report, why: &str) -> usize {
    let mut added = 0;
    for ue in &untraced.entities {
        for f in &ue.findings {
            // MCPS-R019 needs the trace; anything the untraced run reports is new behaviour.
            let seen = traced
                .findings()
                .any(|g| g.rule_id == f.rule_id && g.target == f.target);
            if seen {
                continue;
            }
            let mut f = f.clone();
            f.observation = format!("{MARK}{}", f.observation);
            f.evidence.insert(
                0,
                Evidence::Note {
                    text: format!(
                        "seen in a second run of the server without the tracer (same persona and \
                         inputs), started because {why}; the traced run did not show it"
                    ),
                },
            );
            match traced.entities.iter_mut().find(|e| e.target == ue.target) {
                Some(e) => e.findings.push(f),
                None => {
                    let mut e = ue.clone();
                    e.findings = vec![f];
                    traced.entities.push(e);
                }
            }
            added += 1;
        }
    }
    added
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &str) -> Event {
        let mut e = Event::bare(0.0, 7, EventKind::FileOpen, "openat".into(), String::new());
        e.path = Some(path.into());
        e
    }

    #[test]
    fn auto_runs_again_only_on_a_sandbox_or_tracer_tell() {
        assert_eq!(reason(SecondRun::Auto, true, false, &[]), None);
        assert!(reason(SecondRun::Auto, true, true, &[]).is_some());
        let tells = tracer_tells(&[open("/proc/self/status")], false);
        assert!(reason(SecondRun::Auto, true, false, &tells).is_some());
        assert!(reason(SecondRun::Always, true, false, &[]).is_some());
        assert_eq!(reason(SecondRun::Never, true, true, &tells), None);
        // An untraced run is already the second run's kind: never again.
        assert_eq!(reason(SecondRun::Always, false, true, &tells), None);
    }

    #[test]
    fn own_status_and_traceme_are_tracer_tells_other_procfs_reads_are_not() {
        assert_eq!(tracer_tells(&[open("/proc/self/status")], false).len(), 1);
        assert_eq!(
            tracer_tells(&[open("/proc/self/task/12/status")], false).len(),
            1
        );
        assert_eq!(tracer_tells(&[], true).len(), 1);
        assert!(traceme_in(
            b"12 1.0 ptrace(PTRACE_TRACEME) = -1 EPERM (Operation not permitted)\n"
        ));
        // Twins: what runtimes read on their own.
        for p in [
            "/proc/self/stat",
            "/proc/self/statm",
            "/proc/meminfo",
            "/proc/1/status",
        ] {
            assert!(tracer_tells(&[open(p)], false).is_empty(), "{p}");
        }
        assert!(!traceme_in(b"12 1.0 ptrace(PTRACE_PEEKDATA, 3) = 0\n"));
    }
}
