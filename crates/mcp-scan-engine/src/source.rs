//! The static and description witnesses over a source tree (`mcp-scan behavioral`): parse,
//! analyse every tool, and run the description rules over the texts the source declares.

use crate::EngineError;
use mcp_scan_core::{
    Analyzer, AnalyzerState, AnalyzerStatus, Diagnostic, DiagnosticLevel, EntityReport, Report,
    ScanInfo,
};
use mcp_scan_lang::{DiscoverOptions, scan_tree};
use std::path::Path;

/// The report of a behavioral scan (no output, no exit status).
pub fn build_report(
    path: &Path,
    opts: DiscoverOptions,
    server_name: Option<&str>,
) -> Result<Report, EngineError> {
    let tree = scan_tree(path, &opts).map_err(|e| EngineError::Source {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let server = match server_name {
        Some(s) => s.to_string(),
        None => crate::identity::directory_name(path),
    };
    let input = mcp_scan_flow::Input {
        server: &server,
        modules: &tree.modules,
        sources: &tree.sources,
        incomplete_files: &tree.incomplete_files,
    };
    // Runs on its own large-stack thread (deeply nested inputs recurse deeply).
    let results = mcp_scan_flow::analyze(&input);

    let mut report = Report::new(ScanInfo {
        command: "behavioral".to_string(),
        targets: vec![path.display().to_string()],
        analyzers: vec![Analyzer::Static],
    });
    report.diagnostics = tree.diagnostics.clone();
    let mut coverage = tree.coverage.clone();
    coverage.entities_resolved = results.len();
    if results.is_empty() {
        report.diagnostics.push(Diagnostic {
            level: DiagnosticLevel::Warning,
            file: None,
            line: None,
            column: None,
            message: format!(
                "no MCP tools, resources or prompts found under {} ({} files scanned)",
                path.display(),
                tree.files
            ),
        });
    }
    for r in results {
        let mut entity = EntityReport::new(r.target.clone(), r.behavior.declared.clone());
        entity.analyzers.push(match &r.incomplete {
            None => AnalyzerStatus::complete(Analyzer::Static),
            Some(reason) => AnalyzerStatus::incomplete(Analyzer::Static, reason.clone()),
        });
        entity.findings = r.findings;
        report.entities.push(entity);
        report.behaviors.push(r.behavior);
    }
    // Code the server may load went unanalysed: no tool of it is known to be safe.
    if let Some(first) = coverage.gaps.first() {
        let n = coverage.gaps.len();
        let place = match (&first.file, first.line) {
            (Some(f), Some(l)) => format!("{f}:{l}, "),
            (Some(f), None) => format!("{f}, "),
            _ => String::new(),
        };
        let reason = format!(
            "not all of the server's code was analysed: {n} coverage gap{} (first: {place}{})",
            if n == 1 { "" } else { "s" },
            first.kind.as_str()
        );
        for entity in &mut report.entities {
            for status in &mut entity.analyzers {
                if status.analyzer == Analyzer::Static && status.state == AnalyzerState::Complete {
                    *status = AnalyzerStatus::incomplete(Analyzer::Static, reason.clone());
                }
            }
        }
    }
    report.coverage = Some(coverage);
    describe_declared_texts(&mut report, &tree.sources)?;
    Ok(report)
}

/// The description witness over the texts the source declares (docstrings, `description=`,
/// parameter docs): the same rules `mcp-scan manifest` applies to a `tools/list`, with each
/// finding pointing at the line of the source that holds the text.
fn describe_declared_texts(
    report: &mut Report,
    sources: &std::collections::BTreeMap<String, String>,
) -> Result<(), EngineError> {
    use mcp_scan_core::EntityKind;
    let analyzer = mcp_scan_description::DescriptionAnalyzer::builtin()
        .map_err(|e| EngineError::Rules(e.to_string()))?;
    let mut manifest = mcp_scan_manifest::Manifest {
        server: report
            .behaviors
            .first()
            .map(|b| b.tool.server.clone())
            .unwrap_or_default(),
        source: String::new(),
        ..Default::default()
    };
    for b in &report.behaviors {
        let mut properties = serde_json::Map::new();
        for p in &b.parameters {
            let mut prop = serde_json::Map::new();
            if let Some(d) = &p.description {
                prop.insert("description".into(), serde_json::Value::String(d.clone()));
            }
            properties.insert(p.name.clone(), serde_json::Value::Object(prop));
        }
        let name = b.tool.name.clone();
        let description = b.declared.clone();
        match b.tool.kind {
            EntityKind::Tool => manifest.tools.push(mcp_scan_manifest::Tool {
                name,
                title: None,
                description,
                input_schema: serde_json::json!({ "type": "object", "properties": properties }),
                annotations: serde_json::Value::Null,
                output_schema: serde_json::Value::Null,
                line: None,
            }),
            EntityKind::Prompt => manifest.prompts.push(mcp_scan_manifest::Prompt {
                name,
                title: None,
                description,
                arguments: Vec::new(),
                line: None,
            }),
            EntityKind::Resource => manifest.resources.push(mcp_scan_manifest::Resource {
                name,
                title: None,
                description,
                uri: None,
                line: None,
            }),
            _ => {}
        }
    }
    let scanned = analyzer.scan_manifest(&manifest);
    if !scanned.is_empty() && !report.scan.analyzers.contains(&Analyzer::Description) {
        report.scan.analyzers.push(Analyzer::Description);
    }
    for described in scanned {
        let Some(i) = report.entities.iter().position(|e| {
            e.target.name == described.target.name && e.target.kind == described.target.kind
        }) else {
            continue;
        };
        let b = report
            .behaviors
            .iter()
            .find(|b| b.tool.name == described.target.name && b.tool.kind == described.target.kind);
        let entity = &mut report.entities[i];
        entity.analyzers.extend(described.analyzers);
        for mut f in described.findings {
            // Names come from function names here, not from text written for the model.
            let on_name = f.evidence.iter().any(
                |e| matches!(e, mcp_scan_core::Evidence::Text { field, .. } if field == "name"),
            );
            if on_name {
                continue;
            }
            f.target = entity.target.clone();
            f.location = b.map(|b| declared_text_location(b, &f, sources));
            entity.findings.push(f);
        }
    }
    Ok(())
}

/// The source line holding the excerpt a description finding quotes: the first line at or
/// after the handler's definition that contains the excerpt's first words, else the definition.
fn declared_text_location(
    b: &mcp_scan_core::ToolBehavior,
    f: &mcp_scan_core::Finding,
    sources: &std::collections::BTreeMap<String, String>,
) -> mcp_scan_core::SourceLocation {
    let mut loc = b.location.clone();
    let excerpt = f.evidence.iter().find_map(|e| match e {
        mcp_scan_core::Evidence::Text { excerpt, .. } => Some(excerpt.as_str()),
        _ => None,
    });
    let (Some(excerpt), Some(text)) = (excerpt, sources.get(&loc.file)) else {
        return loc;
    };
    let probe: String = excerpt
        .split_whitespace()
        .take(4)
        .collect::<Vec<_>>()
        .join(" ");
    if probe.is_empty() {
        return loc;
    }
    let start = loc.line.saturating_sub(1) as usize;
    for (n, line) in text.lines().enumerate().skip(start) {
        let normal = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if normal.contains(&probe) {
            loc.line = u32::try_from(n + 1).unwrap_or(loc.line);
            loc.column = 1;
            loc.end_line = None;
            loc.end_column = None;
            loc.snippet = Some(line.trim().to_string());
            break;
        }
    }
    loc
}
