//! Static behaviour of MCP tools.
//!
//! Pipeline: [`analyze`] takes lowered IR modules (from `mcp-scan-lang`), finds each entry
//! point's handler, runs the interprocedural taint/constant analysis ([`interp`]) from it with
//! every tool parameter labelled `param:<name>`, turns the recorded events into a
//! [`ToolBehavior`] (capabilities with resolved constants and call chains, taint flows with
//! file:line hops), and evaluates the static rules ([`rules`]) over it into [`Finding`]s.
//!
//! Nothing here knows tree-sitter or Python syntax: APIs are models ([`models`], data in
//! `rules/models/<lang>/`), and rules name kinds.

pub mod cfg;
pub mod interp;
pub mod models;
pub mod rules;
pub mod value;

use interp::{Analyzer, Event, Program};
use mcp_scan_core::{
    Capability, DeclaredParam, EntityKind, Evidence, Finding, FlowStep, SourceLocation, TaintFlow,
    ToolBehavior, ToolRef,
};
use mcp_scan_ir::{EntryPoint, Language, Module};
use models::Models;
use rules::{DetailClass, Match, StaticRule};
use std::collections::BTreeMap;
use value::{Hop, Loc, Val};

/// What the analysis needs besides the modules.
pub struct Input<'a> {
    /// Server name used in every [`ToolRef`] (e.g. the scanned directory's name).
    pub server: &'a str,
    pub modules: &'a [Module],
    /// Source text by module path, for snippets.
    pub sources: &'a BTreeMap<String, String>,
    /// Files that did not parse fully: their tools are incomplete.
    pub incomplete_files: &'a [String],
}

/// One entry point's result.
#[derive(Debug, Clone)]
pub struct ToolResult {
    pub target: ToolRef,
    pub behavior: ToolBehavior,
    pub findings: Vec<Finding>,
    /// Why the analysis is incomplete, if it is.
    pub incomplete: Option<String>,
}

/// Stack for the analysis thread: recursion follows expression nesting (bounded by the
/// front-end's nesting limit) times call depth, which needs more than a default thread has.
const ANALYSIS_STACK: usize = 256 * 1024 * 1024;

/// Analyses every entry point of every module with the built-in models and rules.
pub fn analyze(input: &Input<'_>) -> Vec<ToolResult> {
    analyze_with(input, rules::builtin())
}

/// [`analyze`] with other rules. Runs on its own thread with a large stack (pages are only
/// committed when touched), so callers on small stacks can analyse any input.
pub fn analyze_with(input: &Input<'_>, rules: &[StaticRule]) -> Vec<ToolResult> {
    std::thread::scope(|s| {
        let spawned = std::thread::Builder::new()
            .name("mcp-scan-flow".into())
            .stack_size(ANALYSIS_STACK)
            .spawn_scoped(s, || analyze_here(input, rules));
        match spawned {
            Ok(handle) => match handle.join() {
                Ok(v) => v,
                Err(panic) => std::panic::resume_unwind(panic),
            },
            // No thread could be created: analyse on this one.
            Err(_) => analyze_here(input, rules),
        }
    })
}

fn analyze_here(input: &Input<'_>, rules: &[StaticRule]) -> Vec<ToolResult> {
    // One program per language with models: calls do not cross languages.
    let mut programs: Vec<(Language, Program<'_>)> = Vec::new();
    let mut out = Vec::new();
    for (mi, module) in input.modules.iter().enumerate() {
        let Some(models) = Models::for_language(module.language) else {
            // No API models for this language: its tools are reported incomplete.
            for ep in &module.entry_points {
                out.push(unsupported(input, module, ep));
            }
            continue;
        };
        if module.entry_points.is_empty() {
            continue;
        }
        let prog = match programs.iter().position(|(l, _)| *l == module.language) {
            Some(i) => &programs[i].1,
            None => {
                programs.push((module.language, Program::new(input.modules, models)));
                &programs[programs.len() - 1].1
            }
        };
        for ep in &module.entry_points {
            out.push(analyze_entry(input, prog, mi, ep, rules));
        }
    }
    out
}

fn unsupported(input: &Input<'_>, module: &Module, ep: &EntryPoint) -> ToolResult {
    let reason = format!("no API models for {:?} yet", module.language);
    not_analysed(input, module, ep, reason)
}

/// A tool whose handler could not be analysed: INCOMPLETE, with the reason.
fn not_analysed(input: &Input<'_>, module: &Module, ep: &EntryPoint, reason: String) -> ToolResult {
    let target = ToolRef::new(input.server, ep.kind, ep.name.clone());
    ToolResult {
        behavior: ToolBehavior {
            tool: target.clone(),
            handler: String::new(),
            location: ep
                .span
                .location(&module.path, source_of(input, &module.path)),
            declared: ep.description.clone(),
            parameters: ep.params.clone(),
            capabilities: Vec::new(),
            flows: Vec::new(),
            complete: false,
            notes: vec![reason.clone()],
            code: Vec::new(),
        },
        target,
        findings: Vec::new(),
        incomplete: Some(reason),
    }
}

fn source_of<'a>(input: &'a Input<'_>, path: &str) -> &'a str {
    input.sources.get(path).map_or("", String::as_str)
}

/// Sink kinds a number cannot inject into.
const NUMBER_SAFE: &[&str] = &[
    "command-exec",
    "process-exec",
    "code-eval",
    "sql",
    "query",
    "template",
    "regex",
    "file-read",
    "file-write",
    "file-delete",
    "file-list",
    "file-permission",
    "archive-extract",
];

fn analyze_entry(
    input: &Input<'_>,
    prog: &Program<'_>,
    mi: usize,
    ep: &EntryPoint,
    rules: &[StaticRule],
) -> ToolResult {
    let module = &input.modules[mi];
    let target = ToolRef::new(input.server, ep.kind, ep.name.clone());
    let Some(func) = module.functions.get(ep.function) else {
        let reason = format!("handler of {} not found in {}", ep.name, module.path);
        return not_analysed(input, module, ep, reason);
    };
    let declared_names: Vec<&str> = ep.params.iter().map(|p| p.name.as_str()).collect();
    let def_loc = Loc::new(mi, &func.span);
    let mut bindings = Vec::new();
    for p in &func.params {
        // Parameters the MCP framework fills (the receiver, a context) are not the caller's.
        let v = if module.conventions.is_injected(p) {
            Val::default()
        } else if declared_names.contains(&p.name.as_str()) || ep.params.is_empty() {
            let mut v = Val::labelled(
                &format!("param:{}", p.name),
                Hop {
                    loc: def_loc.clone(),
                    note: format!("tool parameter `{}`", p.name),
                },
            );
            // The framework converts the argument to the annotated number before the call: a
            // number carries no quote, `../` or shell syntax (it still sizes loops and can be
            // sent or pick a port).
            if p.annotation
                .as_deref()
                .is_some_and(|a| module.conventions.is_number_annotation(a))
            {
                v.sanitize(
                    &NUMBER_SAFE
                        .iter()
                        .map(|k| k.to_string())
                        .collect::<Vec<_>>(),
                );
            }
            v
        } else {
            // A dispatcher's argument mapping (`arguments["path"]`): one field per declared
            // parameter, each labelled with its own name.
            let mut v = Val::default();
            let mut arguments = Val::default();
            for d in &ep.params {
                arguments.set_field(
                    &d.name,
                    Val::labelled(
                        &format!("param:{}", d.name),
                        Hop {
                            loc: def_loc.clone(),
                            note: format!("tool parameter `{}`", d.name),
                        },
                    ),
                );
                v.set_field(
                    &d.name,
                    Val::labelled(
                        &format!("param:{}", d.name),
                        Hop {
                            loc: def_loc.clone(),
                            note: format!("tool parameter `{}`", d.name),
                        },
                    ),
                );
            }
            // mcp 2.x passes the request params: the mapping is `params.arguments`.
            v.set_field("arguments", arguments);
            v
        };
        bindings.push(v);
    }
    let mut an = Analyzer::new(prog);
    let outcome = an.analyze_entry(mi, ep.function, bindings);

    let mut incomplete = None;
    if input.incomplete_files.iter().any(|f| f == &module.path) {
        incomplete = Some(format!("{} did not parse completely", module.path));
    }
    // A tool whose calls reach an unparsed file is not fully known either.
    if incomplete.is_none()
        && let Some(f) = outcome
            .events
            .iter()
            .flat_map(|e| e.via.iter().chain(std::iter::once(&e.loc)))
            .map(|l| &input.modules[l.module].path)
            .find(|p| input.incomplete_files.contains(p))
    {
        incomplete = Some(format!("{f} did not parse completely"));
    }
    if incomplete.is_none() {
        incomplete = an.limit.clone();
    }

    let loc = |l: &Loc| -> SourceLocation { to_location(input, l) };
    let mut capabilities: Vec<Capability> = Vec::new();
    let mut facts: Vec<FlowFact> = Vec::new();
    let mut flows: Vec<TaintFlow> = Vec::new();
    let mut seen_caps = std::collections::BTreeSet::new();
    let mut seen_flows = std::collections::BTreeSet::new();
    // Background work the tool waits for does not outlive the call.
    let joined: std::collections::BTreeSet<&str> = outcome
        .events
        .iter()
        .filter(|e| e.kind == interp::JOINED)
        .filter_map(|e| e.detail.as_deref())
        .collect();
    // Modelled constant text (`text:*`) in what the tool returns: a sink of its own.
    let returned: Vec<Event> = outcome
        .ret
        .all_taint()
        .into_iter()
        .filter(|(l, _)| l.starts_with(models::TEXT_LABEL_PREFIX))
        .filter_map(|(l, t)| {
            let at = t.path.last()?.loc.clone();
            Some(Event {
                kind: interp::TOOL_RESULT.to_string(),
                api: "return".to_string(),
                detail: None,
                loc: at,
                via: Vec::new(),
                taints: vec![(l, t, true)],
            })
        })
        .collect();
    let mut events: Vec<&Event> = outcome
        .events
        .iter()
        .chain(returned.iter())
        .filter(|e| e.kind != interp::JOINED)
        .filter(|e| {
            e.kind != interp::BACKGROUND || !joined.contains(interp::bg_marker(&e.loc).as_str())
        })
        .collect();
    events.sort_by(|a, b| (&a.via, &a.loc, &a.kind).cmp(&(&b.via, &b.loc, &b.kind)));
    for ev in events {
        // One call can act on several constants (a loop over a constant tuple of paths).
        if seen_caps.insert((
            ev.kind.clone(),
            ev.loc.clone(),
            ev.via.clone(),
            ev.detail.clone(),
        )) {
            capabilities.push(Capability {
                kind: ev.kind.clone(),
                api: ev.api.clone(),
                detail: ev.detail.clone(),
                location: loc(&ev.loc),
                via: ev.via.iter().map(loc).collect(),
            });
        }
        for (label, taint, into_target) in &ev.taints {
            if !seen_flows.insert((label.clone(), ev.kind.clone(), ev.loc.clone())) {
                continue;
            }
            facts.push(FlowFact {
                index: flows.len(),
                into_target: *into_target,
                detail: ev.detail.clone(),
                loc: ev.loc.clone(),
                service: taint.service.clone(),
            });
            flows.push(TaintFlow {
                source: label.clone(),
                sink_kind: ev.kind.clone(),
                sink_api: ev.api.clone(),
                path: taint
                    .path
                    .iter()
                    .map(|h| FlowStep {
                        location: loc(&h.loc),
                        note: h.note.clone(),
                    })
                    .collect(),
                sanitized: taint.sanitized_for(&ev.kind),
            });
        }
    }
    let behavior = ToolBehavior {
        tool: target.clone(),
        handler: format!("{}.{}", module.name, func.qualname),
        location: ep
            .span
            .location(&module.path, source_of(input, &module.path)),
        declared: ep.description.clone(),
        parameters: ep
            .params
            .iter()
            .map(|p| DeclaredParam {
                name: p.name.clone(),
                type_hint: p.type_hint.clone(),
                description: p.description.clone(),
            })
            .collect(),
        capabilities,
        flows,
        complete: incomplete.is_none(),
        notes: incomplete.iter().cloned().collect(),
        code: Vec::new(),
    };
    let mut behavior = behavior;
    // Thin evidence is where static analysis may have missed something: a reader (the LLM
    // check) then gets the code itself.
    if (behavior.capabilities.is_empty() && behavior.flows.is_empty()) || !behavior.complete {
        behavior.code = code_excerpts(input, mi, ep.function, &an.analysed_functions());
    }
    let findings = evaluate_rules(rules, &behavior, &facts, prog.models);
    ToolResult {
        target,
        behavior,
        findings,
        incomplete,
    }
}

/// Characters of source kept per tool (handler first, then its helpers in source order).
const MAX_CODE_CHARS: usize = 4000;

/// The handler's source and that of the helpers it reached, within [`MAX_CODE_CHARS`].
fn code_excerpts(
    input: &Input<'_>,
    mi: usize,
    handler: mcp_scan_ir::FuncId,
    analysed: &[(usize, mcp_scan_ir::FuncId)],
) -> Vec<mcp_scan_core::CodeExcerpt> {
    let mut order = vec![(mi, handler)];
    order.extend(analysed.iter().copied().filter(|f| *f != (mi, handler)));
    let mut left = MAX_CODE_CHARS;
    let mut out = Vec::new();
    for (m, f) in order {
        let Some(module) = input.modules.get(m) else {
            continue;
        };
        let Some(func) = module.functions.get(f) else {
            continue;
        };
        let source = source_of(input, &module.path);
        let Some(text) = source.get(func.span.start_byte..func.span.end_byte) else {
            continue;
        };
        // Nested functions are inside their parent's text already.
        if func.parent.is_some()
            && out.iter().any(|e: &mcp_scan_core::CodeExcerpt| {
                e.location.file == module.path && e.text.contains(text)
            })
        {
            continue;
        }
        if left < 80 {
            break;
        }
        let text = if text.chars().count() > left {
            let kept: String = text.chars().take(left).collect();
            format!("{kept}\n# ... cut to fit")
        } else {
            text.to_string()
        };
        left = left.saturating_sub(text.chars().count());
        let mut location = func.span.location(&module.path, source);
        location.snippet = None;
        out.push(mcp_scan_core::CodeExcerpt {
            location,
            function: format!("{}.{}", module.name, func.qualname),
            text,
        });
    }
    out
}

fn to_location(input: &Input<'_>, l: &Loc) -> SourceLocation {
    let module = &input.modules[l.module];
    let span = mcp_scan_ir::Span {
        start_line: l.line,
        start_col: l.col,
        end_line: l.end_line,
        end_col: l.end_col,
        start_byte: l.start_byte,
        end_byte: l.end_byte,
    };
    span.location(&module.path, source_of(input, &module.path))
}

/// What rules need to know about a flow beyond [`TaintFlow`].
struct FlowFact {
    index: usize,
    into_target: bool,
    detail: Option<String>,
    loc: Loc,
    /// The service the source names (a credential's, or a configuration variable's).
    service: Option<String>,
}

/// Applies static rules to one tool's behaviour.
fn evaluate_rules(
    rules: &[StaticRule],
    b: &ToolBehavior,
    facts: &[FlowFact],
    models: &Models,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let description = b.declared.as_deref();
    for rule in rules {
        match &rule.matcher {
            Match::Flow {
                sinks,
                target_only,
                detail,
                unless_detail,
                declared_path,
                description_not_matches,
                configured_host,
                ..
            } => {
                if let Some(re) = description_not_matches
                    && description.is_some_and(|d| re.is_match(d))
                {
                    continue;
                }
                // One finding per sink, listing every matching source.
                let mut by_sink: BTreeMap<SourceLocation, Vec<&FlowFact>> = BTreeMap::new();
                for fact in facts {
                    let flow = &b.flows[fact.index];
                    if flow.sanitized
                        || !sinks.contains(&flow.sink_kind)
                        || !rule.label_matches(&flow.source)
                        || (*target_only && !fact.into_target)
                    {
                        continue;
                    }
                    if let Some(re) = detail
                        && !fact.detail.as_deref().is_some_and(|d| {
                            re.is_match(
                                d.trim_start_matches(|c: char| c.is_ascii_uppercase() || c == ' '),
                            )
                        })
                    {
                        continue;
                    }
                    if let (Some(re), Some(d)) = (unless_detail, &fact.detail)
                        && re.is_match(
                            d.trim_start_matches(|c: char| c.is_ascii_uppercase() || c == ' '),
                        )
                    {
                        continue;
                    }
                    // The host comes from the service's configuration and a fixed `/` ends
                    // it: the parameter can only be in the path (`{base}/vault/{path}`).
                    if *configured_host
                        && fact.detail.as_deref().is_some_and(authority_is_configured)
                        && facts.iter().any(|o| {
                            o.loc == fact.loc
                                && o.into_target
                                && o.service.is_some()
                                && !b.flows[o.index].source.starts_with("secret:")
                        })
                    {
                        continue;
                    }
                    let sink_loc = flow.path.last().map(|s| s.location.clone());
                    if let Some(sl) = sink_loc {
                        by_sink.entry(sl).or_default().push(fact);
                    }
                }
                for (sink, group) in by_sink {
                    let flows: Vec<&TaintFlow> = group.iter().map(|f| &b.flows[f.index]).collect();
                    let kind = flows[0].sink_kind.clone();
                    let mut sources: Vec<String> = flows
                        .iter()
                        .map(|f| match f.path.first() {
                            Some(first)
                                if first.note.starts_with("reads ")
                                    || first.note.starts_with("constant text") =>
                            {
                                format!("{} ({})", f.source, first.note)
                            }
                            _ => f.source.clone(),
                        })
                        .collect();
                    sources.dedup();
                    let detail = group[0].detail.as_deref().unwrap_or("");
                    let observation = format!(
                        "{} reaches {kind} {}({detail}) at {sink}",
                        sources.join(", "),
                        flows[0].sink_api,
                    );
                    let mut fb = rule_finding(rule, b, observation, &sink);
                    if let Some(dp) = declared_path
                        && dp.covers(
                            models,
                            description,
                            &b.parameters,
                            flows.iter().map(|f| f.source.as_str()),
                            detail,
                        )
                    {
                        fb = fb.severity(dp.severity).evidence(Evidence::Source {
                            location: sink.clone(),
                            note: "the path is the tool's declared file parameter".to_string(),
                        });
                    }
                    for step in &flows[0].path {
                        fb = fb.evidence(Evidence::Source {
                            location: step.location.clone(),
                            note: step.note.clone(),
                        });
                    }
                    out.push(fb.build());
                }
            }
            Match::Capability {
                kinds,
                detail,
                sensitive_detail,
                description_matches,
                description_not_matches,
                host_declared,
                unless_removed,
                unless_own_dir,
                unless_kinds,
                classes,
                declared_network,
                unless_detail,
                unless_target_from,
            } => {
                if b.capabilities
                    .iter()
                    .any(|c| unless_kinds.contains(&c.kind))
                {
                    continue;
                }
                if let Some(re) = description_matches
                    && !description.is_some_and(|d| re.is_match(d))
                {
                    continue;
                }
                if let Some(re) = description_not_matches
                    && description.is_some_and(|d| re.is_match(d))
                {
                    continue;
                }
                // One finding per place (a POST is both a fetch and a send).
                let mut seen_at = std::collections::BTreeSet::new();
                let mut seen_hosts = std::collections::BTreeSet::new();
                for cap in &b.capabilities {
                    if !kinds.contains(&cap.kind) {
                        continue;
                    }
                    let d = cap.detail.as_deref().unwrap_or("");
                    if let Some(re) = detail
                        && !re.is_match(d)
                    {
                        continue;
                    }
                    if *sensitive_detail && !rules::sensitive(models, d) {
                        continue;
                    }
                    if *unless_removed
                        && b.capabilities.iter().any(|x| {
                            x.kind == "file-delete"
                                && x.detail.as_deref().is_some_and(|p| {
                                    !p.is_empty()
                                        && !p.contains('…')
                                        && (d == p || d.starts_with(&format!("{p} ")))
                                })
                        })
                    {
                        continue;
                    }
                    if unless_own_dir.as_ref().is_some_and(|re| re.is_match(d))
                        && let Some((dir, _)) = d.split_once(" mode ")
                        && !dir.is_empty()
                        && !dir.contains('…')
                        && b.capabilities
                            .iter()
                            .any(|x| x.kind == "dir-create" && x.detail.as_deref() == Some(dir))
                    {
                        continue;
                    }
                    let class = DetailClass::of(classes, d);
                    if !classes.is_empty()
                        && class.is_none_or(|c| description.is_some_and(|t| c.declared.is_match(t)))
                    {
                        continue;
                    }
                    if *host_declared
                        && let (Some(host), Some(desc)) = (host_of(d), description)
                        && desc.contains(&host)
                    {
                        continue;
                    }
                    if unless_detail.as_ref().is_some_and(|re| re.is_match(d)) {
                        continue;
                    }
                    // Sources that reach this capability's target.
                    let into_here = || {
                        facts.iter().filter(|f| {
                            let flow = &b.flows[f.index];
                            f.into_target
                                && flow.sink_kind == cap.kind
                                && flow.path.last().map(|s| &s.location) == Some(&cap.location)
                        })
                    };
                    if !unless_target_from.is_empty()
                        && into_here()
                            .any(|f| unless_target_from.contains(&b.flows[f.index].source))
                    {
                        continue;
                    }
                    // One finding per destination: two calls to the same host (a health
                    // check and the request) are one behaviour for the reviewer.
                    if declared_network.is_some()
                        && let Some(h) = dest_host(&cap.kind, d)
                        && seen_hosts.contains(&h)
                    {
                        continue;
                    }
                    if let Some(dn) = declared_network {
                        // Services whose configuration the destination was built from.
                        let configured: std::collections::BTreeSet<String> = into_here()
                            .filter(|f| !b.flows[f.index].source.starts_with("secret:"))
                            .filter_map(|f| f.service.clone())
                            .collect();
                        let host = dest_host(&cap.kind, d);
                        // The caller hands over the destination in a parameter named for it.
                        if host.is_none()
                            && let Some(re) = &dn.destination_param
                            && into_here().any(|f| {
                                b.flows[f.index]
                                    .source
                                    .strip_prefix("param:")
                                    .is_some_and(|p| re.is_match(p))
                            })
                        {
                            continue;
                        }
                        if dn.declares(
                            description,
                            &b.tool.name,
                            &b.tool.server,
                            &cap.kind,
                            host.as_deref(),
                            &configured,
                        ) {
                            continue;
                        }
                    }
                    if !seen_at.insert((cap.location.clone(), cap.via.clone())) {
                        continue;
                    }
                    if declared_network.is_some()
                        && let Some(h) = dest_host(&cap.kind, d)
                    {
                        seen_hosts.insert(h);
                    }
                    let via = if cap.via.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (via {})",
                            cap.via
                                .iter()
                                .map(|v| v.to_string())
                                .collect::<Vec<_>>()
                                .join(" → ")
                        )
                    };
                    let what = match (models.sensitive_path(d), class) {
                        (Some(w), _) if *sensitive_detail => format!(" — {w}"),
                        (_, Some(c)) => format!(" — {}, not declared", c.what),
                        _ => String::new(),
                    };
                    let observation = format!(
                        "{} {}({d}){what} at {}{via}",
                        cap.kind, cap.api, cap.location
                    );
                    let mut fb = rule_finding(rule, b, observation, &cap.location);
                    for v in &cap.via {
                        fb = fb.evidence(Evidence::Source {
                            location: v.clone(),
                            note: "call on the way".to_string(),
                        });
                    }
                    fb = fb.evidence(Evidence::Source {
                        location: cap.location.clone(),
                        note: format!("{} {}({d})", cap.kind, cap.api),
                    });
                    out.push(fb.build());
                }
            }
        }
    }
    out
}

/// The host of a URL-ish detail (`POST http://93.184.216.34:80/x` → `93.184.216.34`).
/// A static rule's finding at `at`; the fingerprint key is that place (relative path:line:col).
fn rule_finding(
    rule: &StaticRule,
    b: &ToolBehavior,
    observation: String,
    at: &SourceLocation,
) -> mcp_scan_core::FindingBuilder {
    Finding::builder(
        rule.meta.id.clone(),
        mcp_scan_core::Analyzer::Static,
        rule.meta.taxonomy,
        b.tool.clone(),
    )
    .severity(rule.meta.severity)
    .confidence(rule.meta.confidence)
    .title(rule.meta.name.replace('-', " "))
    .observation(observation)
    .declared(b.declared.clone())
    .location(at.clone())
    .key(format!("{}:{}:{}", at.file, at.line, at.column))
}

/// `GET https://…:…/vault/…`: a scheme, a host (and port) the code does not fix, then a fixed
/// `/`.
fn authority_is_configured(detail: &str) -> bool {
    let url = detail.split_whitespace().last().unwrap_or("");
    let Some((scheme, rest)) = url.split_once("://") else {
        return false;
    };
    let Some((authority, _)) = rest.split_once('/') else {
        return false;
    };
    // The host unknown, then at most a port (unknown or fixed: `…:27124`).
    let (host, port) = authority.split_once(':').unwrap_or((authority, ""));
    !scheme.is_empty()
        && host.chars().all(|c| c == value::UNKNOWN)
        && host.chars().count() == 1
        && port
            .chars()
            .all(|c| c == value::UNKNOWN || c.is_ascii_digit())
        && port.matches(value::UNKNOWN).count() <= 1
}

/// The host a network capability's detail fixes: a URL's host, or a resolved or connected
/// name (`example.com`, `….evil.com` → `evil.com`, the part the code fixes); None when the code
/// does not fix it.
fn dest_host(kind: &str, detail: &str) -> Option<String> {
    if detail.contains("://") {
        return host_of(detail);
    }
    if kind != "dns" && kind != "socket" {
        return None;
    }
    let name = detail
        .split_whitespace()
        .last()?
        .trim_matches(|c: char| "()'\"".contains(c));
    let name = name.rsplit_once(':').map_or(name, |(h, p)| {
        if p.chars().all(|c| c.is_ascii_digit() || c == value::UNKNOWN) {
            h
        } else {
            name
        }
    });
    let fixed = match name.strip_prefix(value::UNKNOWN) {
        // `f"{data}.evil.com"`: the fixed suffix is the destination.
        Some(rest) => rest.trim_start_matches('.'),
        None => name,
    };
    (fixed.contains('.') && !fixed.contains(value::UNKNOWN) && !fixed.contains('/'))
        .then(|| fixed.to_ascii_lowercase())
}

fn host_of(detail: &str) -> Option<String> {
    let url = detail.split_whitespace().last()?;
    let rest = url.split_once("://")?.1;
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = host.split(':').next()?;
    if host.is_empty() || host.contains(value::UNKNOWN) {
        None
    } else {
        Some(host.to_string())
    }
}

/// The entity kind of an entry point (re-exported for callers building reports).
pub fn entity_kind(ep: &EntryPoint) -> EntityKind {
    ep.kind
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_is_taken_from_url_details() {
        assert_eq!(
            host_of("POST http://93.184.216.34:80/collect").as_deref(),
            Some("93.184.216.34")
        );
        assert_eq!(
            host_of("https://api.weather.gov/points/…").as_deref(),
            Some("api.weather.gov")
        );
        assert_eq!(host_of("⟨param:url⟩"), None);
        assert_eq!(
            dest_host("dns", "….tags.beacon-relay.net").as_deref(),
            Some("tags.beacon-relay.net")
        );
        assert_eq!(
            dest_host("dns", "c2.example.net").as_deref(),
            Some("c2.example.net")
        );
        assert_eq!(dest_host("dns", "…"), None);
        assert_eq!(dest_host("dns", ""), None);
        assert_eq!(dest_host("network-fetch", "GET https://…:…/vault/…"), None);
    }

    fn numeric_annotation(a: &str) -> bool {
        let m = mcp_scan_lang::python::lower("m.py", "x = 1\n").expect("lowers");
        m.conventions.is_number_annotation(a)
    }

    #[test]
    fn number_annotations_are_recognised_and_strings_are_not() {
        for a in [
            "int",
            "float",
            "bool",
            "Optional[int]",
            "int | None",
            "None | float",
        ] {
            assert!(numeric_annotation(a), "{a}");
        }
        for a in [
            "str",
            "Optional[str]",
            "int | str",
            "None",
            "list[int]",
            "Any",
        ] {
            assert!(!numeric_annotation(a), "{a}");
        }
    }

    #[test]
    fn a_configured_authority_is_unknown_parts_up_to_a_fixed_slash() {
        assert!(authority_is_configured("GET https://…:…/vault/…"));
        assert!(authority_is_configured("POST http://…/search/"));
        assert!(authority_is_configured("POST http://…:27124/vault/…"));
        assert!(!authority_is_configured("POST http://…:8080.evil.com/x"));
        assert!(!authority_is_configured("GET ⟨param:url⟩"));
        assert!(!authority_is_configured("GET https://…"));
        assert!(!authority_is_configured("GET https://…….evil.com/x"));
        assert!(!authority_is_configured("GET https://api.example.com/…"));
        assert_eq!(host_of("http://…/x"), None);
    }
}
