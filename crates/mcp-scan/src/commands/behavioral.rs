//! `mcp-scan behavioral <path>`: parse a server's source tree, analyse every tool statically,
//! report findings and the per-tool behaviour summaries (`mcp_scan_engine::source`).

use crate::cli::OutputArgs;
use clap::Args;
use mcp_scan_core::ExitKind;
use mcp_scan_lang::DiscoverOptions;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct BehavioralArgs {
    /// The server's source: a directory (scanned recursively) or one file.
    pub path: PathBuf,

    /// Also scan files matching this glob even if skipped by default (.venv, node_modules,
    /// site-packages, __pycache__, tests). Repeatable.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,

    /// Never scan files matching this glob (use `dir/**` for a directory). Repeatable.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Files larger than this are not analysed (the scan is then INCOMPLETE and says which).
    /// Bytes, or with a K, M or G suffix (powers of 1024): `500K`, `2M`.
    #[arg(long, value_name = "BYTES", default_value = "8M", value_parser = parse_size)]
    pub max_file_size: u64,

    /// Server name used in findings (default: the directory's name).
    #[arg(long)]
    pub server_name: Option<String>,

    /// LLM alignment check: runs when a provider is configured (flags or MCP_SCAN_LLM_* /
    /// MCP_SCANNER_LLM_* environment), analyzer `llm`.
    #[command(flatten)]
    pub llm: Box<mcp_scan_llm::LlmArgs>,

    #[command(flatten)]
    pub output: OutputArgs,

    #[command(flatten)]
    pub cfg: crate::config::ConfigArgs,
}

pub fn run(
    mut args: BehavioralArgs,
    matches: Option<&clap::ArgMatches>,
) -> anyhow::Result<ExitKind> {
    let set = crate::config::typed_by(matches);
    let cli = crate::config::CliValues {
        max_file_size: set("max_file_size").then_some(args.max_file_size),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        ..crate::config::CliValues::of_output(&args.output, &set)
    };
    let (eff, mut policy) = crate::config::resolve(
        &args.cfg,
        Some(args.path.clone()),
        cli,
        &mut args.output,
        Some(args.llm.as_mut()),
    )?;
    // Finding locations are relative to the scanned folder (a file's own folder).
    policy.source_root = Some(if args.path.is_dir() {
        args.path.clone()
    } else {
        args.path.parent().map(PathBuf::from).unwrap_or_default()
    });
    args.max_file_size = eff.max_file_size.value;
    args.include = eff.include.value.clone();
    args.exclude = eff.exclude.value.clone();
    let opts = DiscoverOptions {
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        max_file_bytes: args.max_file_size,
        ..DiscoverOptions::default()
    };
    let mut report =
        mcp_scan_engine::source::build_report(&args.path, opts, args.server_name.as_deref())?;
    // The model sees each tool's static summary; its verdicts join the static findings but can
    // never clear or lower one, and a failed check leaves the tool INCOMPLETE.
    if let Some(outcome) =
        mcp_scan_llm::run_on_report(&args.llm, &mut report, &|k| std::env::var(k).ok())?
    {
        for w in &outcome.warnings {
            eprintln!("mcp-scan: warning: {w}");
        }
        eprintln!("mcp-scan: llm {}", outcome.summary("tool(s)"));
    }
    crate::config::apply_and_finish(&mut report, &policy, &args.cfg)?;
    crate::output::emit(report, &args.output)
}

/// `8M`, `500k`, `2MiB`, `1048576` → bytes (K, M, G are powers of 1024).
pub(crate) fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let lower = t.to_ascii_lowercase();
    let body = lower
        .strip_suffix("ib")
        .or_else(|| lower.strip_suffix('b'))
        .unwrap_or(&lower);
    let (digits, shift) = match body.char_indices().last() {
        Some((i, 'k')) => (&body[..i], 10),
        Some((i, 'm')) => (&body[..i], 20),
        Some((i, 'g')) => (&body[..i], 30),
        _ => (body, 0),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a size (bytes, or a number with K, M or G)"))?;
    let bytes = n
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("`{s}` is too large"))?;
    if bytes == 0 {
        return Err("the size cap must be at least 1 byte".to_string());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_take_binary_suffixes() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("500K"), Ok(500 * 1024));
        assert_eq!(parse_size("2M"), Ok(2 * 1024 * 1024));
        assert_eq!(parse_size("2mib"), Ok(2 * 1024 * 1024));
        assert_eq!(parse_size("1GB"), Ok(1 << 30));
        assert!(parse_size("0").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999G").is_err());
    }
}
