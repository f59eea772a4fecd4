//! `mcp-scan rules` and `mcp-scan rule <ID>`: the rule docs registry.

use anyhow::Context;
use clap::Args;
use mcp_scan_core::ExitKind;
use mcp_scan_rules::RuleCatalog;
use std::io::Write;

#[derive(Debug, Args)]
pub struct RuleArgs {
    /// Rule id (e.g. MCPS-D001) or slug name.
    #[arg(value_name = "ID")]
    pub id: String,
}

/// Every built-in rule family: description, static and LLM.
fn catalog() -> anyhow::Result<RuleCatalog> {
    let mut c =
        RuleCatalog::builtin().map_err(|e| anyhow::anyhow!("built-in rules do not load: {e}"))?;
    c.extend(
        mcp_scan_flow::rules::builtin()
            .iter()
            .map(|r| r.meta.clone()),
    );
    c.extend([mcp_scan_llm::rule_meta()
        .map_err(|e| anyhow::anyhow!("built-in LLM rule does not load: {e}"))?]);
    Ok(c)
}

fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")
}

/// The `rules` listing as printed.
pub fn listing(catalog: &RuleCatalog) -> String {
    let rows: Vec<[String; 5]> = catalog
        .iter()
        .map(|r| {
            [
                r.id.clone(),
                r.severity.to_string(),
                r.analyzer.to_string(),
                r.taxonomy.threat.clone(),
                r.name.clone(),
            ]
        })
        .collect();
    let header = ["ID", "SEVERITY", "ANALYZER", "THREAT", "NAME"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.len());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                s.push_str(&format!("{c:<w$}  "));
            }
        }
        s.push('\n');
        s
    };
    let mut out = line(header);
    for r in &rows {
        out.push_str(&line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
    out.push_str(&format!(
        "\n{} rules. `mcp-scan rule <ID>` prints what a rule detects, why, an example and the fix.\n",
        rows.len()
    ));
    out
}

pub fn run_list() -> anyhow::Result<ExitKind> {
    print(&listing(&catalog()?))?;
    Ok(ExitKind::Clean)
}

pub fn run_one(args: RuleArgs) -> anyhow::Result<ExitKind> {
    let catalog = catalog()?;
    let rule = catalog
        .get(&args.id)
        .with_context(|| format!("no rule `{}` (`mcp-scan rules` lists them)", args.id.trim()))?;
    print(&rule.render_docs())?;
    Ok(ExitKind::Clean)
}
