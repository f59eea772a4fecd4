//! Scores alignment verdicts against ground truth with any OpenAI-compatible endpoint.
//!
//! ```text
//! llm_bench --base-url URL --model MODEL [--api-key-env VAR] [--concurrency N]
//!           --ground-truth benchmarks/llm/ground_truth.toml CASES.json...
//! ```
//! CASES are JSON arrays of ToolBehavior or `mcp-scan behavioral -f raw` reports (their
//! `behaviors`). Runs every tool twice through a fresh answer cache (first scan, then re-scan)
//! and prints accuracy, mean tokens per tool and requests per tool for both passes.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use mcp_scan_core::ToolBehavior;
use mcp_scan_llm::{LlmSettings, ProviderSettings, Secret, ToolResult, check_blocking};
use serde::Deserialize;
use std::process::ExitCode;

#[derive(Deserialize)]
struct Truth {
    tool: Vec<TruthRow>,
}

#[derive(Deserialize)]
struct TruthRow {
    server: String,
    name: String,
    mismatch: bool,
    threat: Option<String>,
    #[serde(default)]
    also: Vec<String>,
}

/// `leaky-server` (the MCP server's own name) and `leaky_server` (its fixture folder) match.
fn same_server(a: &str, b: &str) -> bool {
    a.replace('-', "_")
        .eq_ignore_ascii_case(&b.replace('-', "_"))
}

fn row<'a>(truth: &'a Truth, tool: &mcp_scan_core::ToolRef) -> Option<&'a TruthRow> {
    truth
        .tool
        .iter()
        .find(|t| same_server(&t.server, &tool.server) && t.name == tool.name)
}

fn load_cases(path: &str) -> Result<Vec<ToolBehavior>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
    let list = match v.get("behaviors") {
        Some(b) => b.clone(),
        None => v,
    };
    serde_json::from_value(list).map_err(|e| format!("{path}: not ToolBehaviors: {e}"))
}

fn run() -> Result<bool, String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut base_url = None;
    let mut model = None;
    let mut key_env = None;
    let mut truth_path = None;
    let mut concurrency = 4usize;
    let mut files = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let mut next = || it.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--base-url" => base_url = Some(next()?),
            "--model" => model = Some(next()?),
            "--api-key-env" => key_env = Some(next()?),
            "--ground-truth" => truth_path = Some(next()?),
            "--concurrency" => {
                concurrency = next()?.parse().map_err(|_| "--concurrency: not a number")?
            }
            _ => files.push(a),
        }
    }
    let base_url = base_url.ok_or("--base-url is required")?;
    let model = model.ok_or("--model is required")?;
    let truth_path = truth_path.ok_or("--ground-truth is required")?;
    let truth: Truth = toml::from_str(
        &std::fs::read_to_string(&truth_path).map_err(|e| format!("{truth_path}: {e}"))?,
    )
    .map_err(|e| format!("{truth_path}: {e}"))?;
    let mut behaviors = Vec::new();
    for f in &files {
        behaviors.extend(load_cases(f)?);
    }
    // Only tools with a ground-truth row are scored (and sent).
    behaviors.retain(|b| row(&truth, &b.tool).is_some());
    let unmatched: Vec<String> = truth
        .tool
        .iter()
        .filter(|t| {
            !behaviors
                .iter()
                .any(|b| same_server(&t.server, &b.tool.server) && t.name == b.tool.name)
        })
        .map(|t| format!("{}/{}", t.server, t.name))
        .collect();
    if !unmatched.is_empty() {
        eprintln!(
            "llm_bench: {} ground-truth row(s) have no summary in the cases and are not scored: {}",
            unmatched.len(),
            unmatched.join(", ")
        );
    }
    if behaviors.is_empty() {
        return Err("no tool of the cases has a ground-truth row".into());
    }
    let cache = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut settings = LlmSettings::openai_compatible(base_url, model);
    if let Some(var) = key_env {
        let key = std::env::var(&var).map_err(|_| format!("${var} is not set"))?;
        if let ProviderSettings::OpenAi { api_key, .. } = &mut settings.provider {
            *api_key = Some(Secret(key));
        }
    }
    settings.concurrency = concurrency;
    settings.cache_dir = Some(cache.path().to_path_buf());

    let first = check_blocking(&settings, &behaviors).map_err(|e| e.to_string())?;
    let second = check_blocking(&settings, &behaviors).map_err(|e| e.to_string())?;

    let mut correct = 0usize;
    println!(
        "{:<18} {:<16} {:<10} {:<44} result",
        "server", "tool", "expected", "verdict"
    );
    for o in &first.tools {
        let Some(t) = row(&truth, &o.tool) else {
            continue;
        };
        let (shown, ok) = match &o.result {
            ToolResult::Verdict { verdict, .. } => {
                let threat_ok = !verdict.mismatch
                    || verdict.threat.as_deref().is_some_and(|v| {
                        t.threat.as_deref() == Some(v) || t.also.iter().any(|a| a == v)
                    });
                (
                    verdict.threat.clone().unwrap_or_else(|| "aligned".into()),
                    verdict.mismatch == t.mismatch && threat_ok,
                )
            }
            // The alignment check never yields a poisoning verdict.
            ToolResult::Judged { .. } => ("unexpected judge verdict".into(), false),
            ToolResult::Incomplete { reason } => (format!("INCOMPLETE ({reason})"), false),
        };
        correct += usize::from(ok);
        println!(
            "{:<18} {:<16} {:<10} {:<44} {}",
            o.tool.server,
            o.tool.name,
            if t.mismatch { "mismatch" } else { "aligned" },
            shown,
            if ok { "ok" } else { "WRONG" }
        );
    }
    let n = first.tools.len() as f64;
    let s1 = first.stats();
    let s2 = second.stats();
    println!();
    println!("model: {}", first.model);
    println!("tools: {}", first.tools.len());
    println!(
        "accuracy: {correct}/{} = {:.1}%",
        first.tools.len(),
        100.0 * correct as f64 / n
    );
    println!("incomplete: {}", s1.incomplete);
    println!(
        "mean estimated prompt tokens per tool (chars/4): {:.0}",
        s1.estimated_prompt_tokens as f64 / n
    );
    println!(
        "mean reported prompt tokens per tool: {:.0}",
        s1.prompt_tokens as f64 / n
    );
    println!(
        "mean reported completion tokens per tool: {:.0}",
        s1.completion_tokens as f64 / n
    );
    println!(
        "requests per tool, first scan: {:.2}",
        s1.requests as f64 / n
    );
    println!(
        "requests per tool, re-scan: {:.2} (cache hits {})",
        s2.requests as f64 / n,
        s2.cache_hits
    );
    Ok(s1.incomplete == 0)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(4),
        Err(e) => {
            eprintln!("llm_bench: {e}");
            ExitCode::from(1)
        }
    }
}
