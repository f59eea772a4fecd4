//! MCPS-R019: what a server looked at that only a sandbox detector would. Red-team servers stayed
//! dormant after reading the user-namespace map, PID 1's command line, their own TracerPid or
//! their parent's name; the reads themselves are evidence, whatever the server did next. Its own
//! `/proc/self/status` (TracerPid) is left out: memory reports read the same file for VmRSS.

use crate::analysis::{Inputs, entity_of, finding, syscall_ev};
use crate::events::EventKind;
use crate::rules::RuleId;
use mcp_scan_core::{Finding, ToolRef};
use std::collections::BTreeMap;

/// What a path tells a reader about where it runs, if it is a sandbox tell.
fn tell(path: &str) -> Option<&'static str> {
    let parts: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let is_pid = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let own = |p: &str| p == "self" || p == "thread-self";
    match parts.as_slice() {
        ["", "proc", p, "uid_map" | "gid_map" | "setgroups"] if own(p) || is_pid(p) => {
            Some("the user-namespace map")
        }
        [
            "",
            "proc",
            "1",
            "cmdline" | "comm" | "status" | "sched" | "exe" | "cgroup" | "mountinfo",
        ] => Some("PID 1"),
        ["", "proc", p, "comm" | "cmdline"] if is_pid(p) => Some("another process's name"),
        ["", ".dockerenv"] | ["", "run", ".containerenv"] => Some("container markers"),
        ["", "sys", "class", "dmi", "id", ..] | ["", "sys", "hypervisor", ..] => {
            Some("the machine's vendor (virtual machine markers)")
        }
        ["", "etc", "hostname"] | ["", "proc", "sys", "kernel", "hostname"] => Some("the hostname"),
        _ => None,
    }
}

/// What one entity looked at: kinds of tell in order, the paths, the evidence.
type Seen = (Vec<&'static str>, Vec<String>, Vec<mcp_scan_core::Evidence>);

/// One finding per entity that read any sandbox tell, naming what it looked at.
pub fn sandbox_probes(inp: &Inputs) -> Vec<Finding> {
    // entity -> (kinds seen in order, paths, evidence)
    let mut by: BTreeMap<ToolRef, Seen> = BTreeMap::new();
    for (e, p) in inp.events.iter().zip(inp.phases) {
        if !matches!(e.kind, EventKind::FileOpen | EventKind::Readlink) {
            continue;
        }
        let Some((path, kind)) = [e.path.as_deref(), e.resolved.as_deref()]
            .into_iter()
            .flatten()
            .find_map(|p| tell(p).map(|k| (p, k)))
        else {
            continue;
        };
        let entry = by.entry(entity_of(inp, p)).or_default();
        if !entry.0.contains(&kind) {
            entry.0.push(kind);
        }
        if !entry.1.iter().any(|x| x == path) {
            entry.1.push(path.to_string());
            if entry.2.len() < 8 {
                entry.2.push(syscall_ev(e));
            }
        }
    }
    by.into_iter()
        .map(|(target, (kinds, paths, evs))| {
            let shown = if paths.len() > 5 {
                format!("{} and {} more", paths[..5].join(", "), paths.len() - 5)
            } else {
                paths.join(", ")
            };
            let mut f = finding(
                inp,
                RuleId::SandboxProbe,
                &target,
                format!(
                    "looks for signs of a sandbox or a tracer ({}): reads {shown}",
                    kinds.join(", ")
                ),
                "sandbox-probe",
            )
            .build();
            f.evidence = evs;
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::tell;

    #[test]
    fn sandbox_tells_are_named_and_ordinary_procfs_reads_are_not() {
        assert_eq!(tell("/proc/self/uid_map"), Some("the user-namespace map"));
        assert_eq!(tell("/proc/1/cmdline"), Some("PID 1"));
        assert_eq!(tell("/proc/812/comm"), Some("another process's name"));
        assert_eq!(tell("/.dockerenv"), Some("container markers"));
        assert!(tell("/sys/class/dmi/id/product_name").is_some());
        // Twins: what runtimes read on their own.
        for p in [
            "/proc/self/maps",
            // TracerPid lives here, but so does VmRSS, which memory reports read.
            "/proc/self/status",
            "/proc/self/stat",
            "/proc/self/cgroup",
            "/proc/meminfo",
            "/proc/cpuinfo",
            "/proc/self/fd",
            "/etc/hosts",
            "/proc/sys/kernel/osrelease",
        ] {
            assert_eq!(tell(p), None, "{p}");
        }
    }
}
