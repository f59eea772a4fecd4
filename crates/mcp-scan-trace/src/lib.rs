//! Syscall tracing for the runtime analysis: typed events with no tracer text in them, and the
//! eBPF backend that produces them.
pub mod choice;
#[cfg(feature = "ebpf")]
pub mod ebpf;
pub mod event;
pub mod syscalls;
