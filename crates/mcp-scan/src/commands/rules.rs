//! `mcp-scan rules` and `mcp-scan rule <ID>`: the rule docs registry.

use anyhow::Context;
use clap::Args;
use mcp_scan_core::ExitKind;
use mcp_scan_rules::RuleCatalog;

#[derive(Debug, Args)]
pub struct RuleArgs {
    /// Rule id (e.g. MCPS-D001) or slug name.
    #[arg(value_name = "ID")]
    pub id: String,
}

/// Every built-in rule family: description, static, LLM and runtime.
pub(crate) fn catalog() -> anyhow::Result<RuleCatalog> {
    let mut c =
        RuleCatalog::builtin().map_err(|e| anyhow::anyhow!("built-in rules do not load: {e}"))?;
    c.extend(
        mcp_scan_flow::rules::builtin()
            .iter()
            .map(|r| r.meta.clone()),
    );
    c.extend([mcp_scan_llm::rule_meta()
        .map_err(|e| anyhow::anyhow!("built-in LLM rule does not load: {e}"))?]);
    c.extend([mcp_scan_llm::poison_rule_meta()
        .map_err(|e| anyhow::anyhow!("built-in LLM judge rule does not load: {e}"))?]);
    c.extend(
        mcp_scan_dynamic::rules::rule_metas()
            .map_err(|e| anyhow::anyhow!("built-in runtime rules do not load: {e}"))?,
    );
    Ok(c)
}

fn print(text: &str) -> anyhow::Result<()> {
    crate::output::write_stdout(text).context("cannot write to standard output")
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

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_scan_core::Analyzer;
    use mcp_scan_dynamic::rules::RuleId;

    /// Every `"MCPS-R…"` literal in the runtime analyzer's sources (outside unit tests): ids made outside
    /// [`RuleId`] (e.g. by the pin store) are emitted too.
    fn runtime_ids_in_sources() -> Vec<String> {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp-scan-dynamic/src");
        let mut ids = Vec::new();
        for entry in std::fs::read_dir(&src).expect("mcp-scan-dynamic/src") {
            let path = entry.expect("dir entry").path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source file");
            // Unit tests name made-up ids; only the code before them emits findings.
            let text = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (i, _) in text.match_indices("\"MCPS-R") {
                let id = &text[i + 1..];
                let end = id.find('"').unwrap_or(id.len());
                let digits = &id["MCPS-R".len()..end];
                // A whole id, not the family prefix the loader checks against.
                if digits.len() == 3 && digits.bytes().all(|b| b.is_ascii_digit()) {
                    ids.push(id[..end].to_string());
                }
            }
        }
        ids.sort();
        ids.dedup();
        ids
    }

    #[test]
    fn every_rule_id_the_runtime_analyzer_emits_has_a_catalog_entry() {
        let c = catalog().expect("built-in rules load");
        let mut emitted: Vec<String> = RuleId::ALL.iter().map(|r| r.id().to_string()).collect();
        let literals = runtime_ids_in_sources();
        assert!(
            literals.len() >= RuleId::ALL.len(),
            "the source scan found too little: {literals:?}"
        );
        emitted.extend(literals);
        emitted.sort();
        emitted.dedup();
        for id in &emitted {
            let rule = c
                .get(id)
                .unwrap_or_else(|| panic!("{id} is emitted but has no catalog entry"));
            assert_eq!(rule.analyzer, Analyzer::Runtime, "{id}");
            assert!(
                rule.origin.file.starts_with("rules/runtime/"),
                "{id}: {}",
                rule.origin
            );
        }
        // And no runtime docs for a rule nothing reports.
        let documented: Vec<&str> = c
            .iter()
            .filter(|r| r.analyzer == Analyzer::Runtime)
            .map(|r| r.id.as_str())
            .collect();
        assert_eq!(documented, emitted);
    }

    #[test]
    fn listing_names_each_runtime_rule_with_its_analyzer() {
        let text = listing(&catalog().expect("built-in rules load"));
        let row = text
            .lines()
            .find(|l| l.starts_with("MCPS-R014"))
            .expect("MCPS-R014 listed");
        assert!(row.contains("runtime"), "{row}");
        assert!(row.contains("INJECTION ATTACKS"), "{row}");
    }
}
