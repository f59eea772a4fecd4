//! The test stub provider as a standalone server, so `benchmarks/llm/run.sh` can be exercised
//! without a model. It is NOT a model: it answers with a fixed keyword rule over the prompt's
//! evidence (secret → network is exfiltration, parameter → shell is injection, otherwise
//! aligned), which is enough to drive the whole pipeline end to end.
//!
//! Usage: `llm_stub [--port-file FILE] [--seconds N]` (binds 127.0.0.1 on a free port).

#![allow(clippy::print_stderr)]

#[path = "../tests/support/stub.rs"]
mod stub;

use std::time::Duration;
use stub::{Recorded, Reply, Stub};

fn verdict(req: &Recorded) -> String {
    let user = req.user_text();
    let evidence_line = |needle: &str, also: &str| {
        user.lines()
            .find(|l| l.contains(needle) && l.contains(also))
            .and_then(|l| l.split_whitespace().next())
            .map(str::to_string)
    };
    let (mismatch, threat, id) = if let Some(id) = evidence_line("flow: secret:", "-> network") {
        (true, Some("DATA EXFILTRATION"), Some(id))
    } else if let Some(id) = evidence_line("flow: param:", "-> command-exec") {
        (true, Some("INJECTION ATTACKS"), Some(id))
    } else {
        (false, None, None)
    };
    serde_json::json!({
        "mismatch": mismatch,
        "threat_name": threat,
        "description_claims": "what the declared text says",
        "code_does": if mismatch { "what the cited evidence shows" } else { "what the description says" },
        "evidence": id.into_iter().collect::<Vec<_>>(),
    })
    .to_string()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let seconds: u64 = value("--seconds")
        .and_then(|s| s.parse().ok())
        .unwrap_or(600);
    let stub = Stub::start(|req, _| Reply::answer_for(req, &verdict(req)));
    eprintln!("llm_stub: listening on {}", stub.openai_base());
    if let Some(path) = value("--port-file")
        && let Err(e) = std::fs::write(&path, stub.addr.port().to_string())
    {
        eprintln!("llm_stub: cannot write {path}: {e}");
        std::process::exit(1);
    }
    // Bounded lifetime: the benchmark script kills it earlier; this is the backstop.
    std::thread::sleep(Duration::from_secs(seconds));
}
