//! `--tracer auto|ebpf|strace`: which backend a run uses.

use std::str::FromStr;

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TracerChoice {
    /// eBPF when this process may load it (BTF present; root, or CAP_BPF with CAP_PERFMON),
    /// else strace.
    #[default]
    Auto,
    Ebpf,
    Strace,
}

impl FromStr for TracerChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(TracerChoice::Auto),
            "ebpf" => Ok(TracerChoice::Ebpf),
            "strace" => Ok(TracerChoice::Strace),
            other => Err(format!("unknown tracer `{other}` (auto, ebpf or strace)")),
        }
    }
}

/// The backend a run uses (the report says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Ebpf,
    Strace,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Ebpf => "ebpf",
            Backend::Strace => "strace",
        }
    }
}

/// Resolves the choice: `auto` falls back to strace when eBPF cannot load; an explicit `ebpf`
/// that cannot load is an error that says why and what to do (the CLI exits 2 with it).
#[cfg(feature = "ebpf")]
pub fn resolve(
    choice: TracerChoice,
    cfg: &crate::ebpf::Config,
) -> Result<Backend, crate::ebpf::Error> {
    match choice {
        TracerChoice::Strace => Ok(Backend::Strace),
        TracerChoice::Ebpf => crate::ebpf::preflight(cfg).map(|()| Backend::Ebpf),
        TracerChoice::Auto => Ok(if crate::ebpf::preflight(cfg).is_ok() {
            Backend::Ebpf
        } else {
            Backend::Strace
        }),
    }
}

#[cfg(all(test, feature = "ebpf"))]
mod tests {
    use super::*;
    use crate::ebpf::{Config, Error};

    #[test]
    fn auto_falls_back_to_strace_and_explicit_ebpf_fails_when_ebpf_cannot_load() {
        let no_btf = Config {
            btf_path: "/nonexistent/vmlinux".into(),
            ..Config::default()
        };
        assert_eq!(
            resolve(TracerChoice::Auto, &no_btf).ok(),
            Some(Backend::Strace)
        );
        assert!(matches!(
            resolve(TracerChoice::Ebpf, &no_btf),
            Err(Error::NoBtf { .. })
        ));
        assert_eq!(
            resolve(TracerChoice::Strace, &no_btf).ok(),
            Some(Backend::Strace)
        );
        assert_eq!("ebpf".parse::<TracerChoice>(), Ok(TracerChoice::Ebpf));
        assert!("ptrace".parse::<TracerChoice>().is_err());
    }
}
