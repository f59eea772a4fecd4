//! The runtime witness: a launch command run in the sandbox, or a remote URL listed
//! (manifest-only). Errors keep the distinction the exit codes need (sandbox = 2).

use crate::EngineError;
use mcp_scan_dynamic::{DynamicError, DynamicOptions, DynamicOutcome, RemoteOptions};

/// Runs one local server under the sandbox and tracer.
pub fn run_command(opts: &DynamicOptions) -> Result<DynamicOutcome, EngineError> {
    mcp_scan_dynamic::scan(opts).map_err(|e| match e {
        DynamicError::Sandbox(e) => EngineError::Sandbox(e.to_string()),
        e => EngineError::Runtime {
            context: "dynamic scan failed".into(),
            message: e.to_string(),
        },
    })
}

/// Lists a remote server's entities (nothing is called or traced: every entity INCOMPLETE).
pub fn run_remote(opts: &RemoteOptions) -> Result<DynamicOutcome, EngineError> {
    mcp_scan_dynamic::scan_remote(opts).map_err(|e| EngineError::Runtime {
        context: "remote scan failed".into(),
        message: e.to_string(),
    })
}
