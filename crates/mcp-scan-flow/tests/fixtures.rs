//! Every fixture server under `fixtures/python/` parsed by the real front-end and analysed:
//! findings must equal `expected.toml` exactly, and each static rule's fixture pair must hold.

use mcp_scan_core::{Finding, Severity, ToolBehavior};
use mcp_scan_flow::{Input, ToolResult, analyze, rules};
use mcp_scan_lang::{DiscoverOptions, scan_tree};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/python")
}

struct Scanned {
    results: Vec<ToolResult>,
    incomplete_files: Vec<String>,
}

fn scan(name: &str) -> Scanned {
    let dir = fixtures_dir().join(name);
    let tree = scan_tree(&dir, &DiscoverOptions::default())
        .unwrap_or_else(|e| panic!("scanning {name}: {e}"));
    let input = Input {
        server: name,
        modules: &tree.modules,
        sources: &tree.sources,
        incomplete_files: &tree.incomplete_files,
    };
    let results = analyze(&input);
    Scanned {
        results,
        incomplete_files: tree.incomplete_files.clone(),
    }
}

#[derive(Deserialize)]
struct Expected {
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    finding: Vec<ExpectedFinding>,
}

#[derive(Deserialize, Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct ExpectedFinding {
    rule: String,
    tool: String,
    severity: Severity,
}

fn expected(name: &str) -> Expected {
    let path = fixtures_dir().join(name).join("expected.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn actual(results: &[ToolResult]) -> Vec<ExpectedFinding> {
    let mut out: Vec<ExpectedFinding> = results
        .iter()
        .flat_map(|r| r.findings.iter())
        .map(|f: &Finding| ExpectedFinding {
            rule: f.rule_id.clone(),
            tool: f.target.name.clone(),
            severity: f.severity,
        })
        .collect();
    out.sort();
    out
}

fn describe(results: &[ToolResult]) -> String {
    let mut s = String::new();
    for r in results {
        s.push_str(&format!(
            "== {} (complete: {})\n",
            r.target.name, r.behavior.complete
        ));
        for c in &r.behavior.capabilities {
            s.push_str(&format!(
                "  cap {} {} {:?} @{}\n",
                c.kind, c.api, c.detail, c.location
            ));
        }
        for fl in &r.behavior.flows {
            s.push_str(&format!(
                "  flow {} -> {} {} sanitized={}\n",
                fl.source, fl.sink_kind, fl.sink_api, fl.sanitized
            ));
        }
        for f in &r.findings {
            s.push_str(&format!(
                "  finding {} {}: {}\n",
                f.rule_id, f.severity, f.observation
            ));
        }
    }
    s
}

/// Checks one fixture against its expected.toml: the same tools, the same findings.
fn check_fixture(name: &str) -> Scanned {
    let scanned = scan(name);
    let exp = expected(name);
    assert!(
        scanned.incomplete_files.is_empty(),
        "{name}: fixture files must parse: {:?}",
        scanned.incomplete_files
    );
    let mut tools: Vec<String> = scanned
        .results
        .iter()
        .map(|r| r.target.name.clone())
        .collect();
    tools.sort();
    let mut want_tools = exp.tools.clone();
    want_tools.sort();
    assert_eq!(
        tools,
        want_tools,
        "{name}: entry points\n{}",
        describe(&scanned.results)
    );
    let mut want = exp.finding.clone();
    want.sort();
    assert_eq!(
        actual(&scanned.results),
        want,
        "{name}: findings differ from expected.toml\n{}",
        describe(&scanned.results)
    );
    for r in &scanned.results {
        assert!(
            r.behavior.complete,
            "{name}/{}: {:?}",
            r.target.name, r.incomplete
        );
    }
    scanned
}

fn behavior<'a>(s: &'a Scanned, tool: &str) -> &'a ToolBehavior {
    &s.results
        .iter()
        .find(|r| r.target.name == tool)
        .unwrap_or_else(|| panic!("no tool {tool}"))
        .behavior
}

#[test]
fn honest_server_is_clean() {
    let s = check_fixture("honest_server");
    assert!(s.results.iter().all(|r| r.findings.is_empty()));
}

#[test]
fn leaky_server_reports_ssh_key_exfiltration_with_source_to_sink_path() {
    let s = check_fixture("leaky_server");
    let b = behavior(&s, "format_note");
    let flow = b
        .flows
        .iter()
        .find(|f| f.source == "secret:file" && f.sink_kind == "network-send")
        .unwrap_or_else(|| {
            panic!(
                "no secret:file → network-send flow\n{}",
                describe(&s.results)
            )
        });
    let first = &flow.path[0];
    assert!(
        first.note.contains("~/.ssh/id_rsa"),
        "source hop names the key: {first:?}"
    );
    let last = flow.path.last().expect("sink hop");
    assert!(
        last.note.contains("POST http://93.184.216.34:80/collect"),
        "sink hop names the destination: {last:?}"
    );
    assert!(
        flow.path.len() >= 3,
        "hops through the code: {:?}",
        flow.path
    );
    assert!(
        flow.path
            .iter()
            .all(|h| h.location.file == "server.py" && h.location.line > 0)
    );
    let highs = s.results[0]
        .findings
        .iter()
        .filter(|f| f.severity >= Severity::High)
        .count();
    assert!(highs >= 2, "at least two HIGH findings, got {highs}");
}

/// Asserts that each tool's flows carry a file secret to a network send.
fn assert_key_reaches_network(s: &Scanned, tools: &[&str]) {
    for tool in tools {
        assert!(
            behavior(s, tool)
                .flows
                .iter()
                .any(|f| f.source == "secret:file" && f.sink_kind == "network-send"),
            "{tool}: the key must reach the network\n{}",
            describe(&s.results)
        );
    }
}

/// Asserts that each tool was analysed and has no finding.
fn assert_tools_clean(s: &Scanned, tools: &[&str]) {
    for tool in tools {
        let r = s
            .results
            .iter()
            .find(|r| r.target.name == *tool)
            .unwrap_or_else(|| panic!("no tool {tool}"));
        assert!(r.findings.is_empty(), "{tool}: {:?}", r.findings);
    }
}

#[test]
fn tools_recorded_by_registry_decorators_and_registered_in_loops_are_analysed_twins_clean() {
    let s = check_fixture("registry_list");
    assert_key_reaches_network(&s, &["archive_note", "tag_note"]);
    assert_tools_clean(&s, &["format_note", "word_count"]);
}

#[test]
fn tools_of_a_generated_file_execd_into_the_server_globals_are_analysed_twin_clean() {
    let s = check_fixture("exec_included_tools");
    assert_key_reaches_network(&s, &["sync_notes"]);
    assert_tools_clean(&s, &["count_words", "ping"]);
}

#[test]
fn tools_a_filesystem_provider_serves_from_standalone_marks_are_analysed_twin_clean() {
    let s = check_fixture("provider_components");
    assert_key_reaches_network(&s, &["sync_notes"]);
    assert_tools_clean(&s, &["count_words"]);
}

#[test]
fn route_table_paths_on_a_based_client_stay_on_its_host_twins_with_a_foreign_route_fire() {
    let s = check_fixture("routedesk_api");
    assert_tools_clean(&s, &["show_ticket"]);
}

#[test]
fn good_server_is_clean() {
    let s = check_fixture("good_server");
    assert_eq!(s.results.len(), 3);
}

#[test]
fn declared_file_parameter_opened_by_a_document_tool_is_low_and_lookalikes_stay_medium() {
    let s = check_fixture("document_tools");
    let worst = |tool: &str| {
        s.results
            .iter()
            .find(|r| r.target.name == tool)
            .and_then(|r| r.findings.iter().map(|f| f.severity).max())
            .unwrap_or_else(|| panic!("{tool}: no finding\n{}", describe(&s.results)))
    };
    for honest in ["add_paragraph", "read_pdf_pages", "commit", "crop_image"] {
        assert_eq!(worst(honest), Severity::Low, "{honest}");
    }
    for lookalike in ["get_forecast", "set_theme", "open_document"] {
        assert!(worst(lookalike) >= Severity::Medium, "{lookalike}");
    }
}

#[test]
fn destinations_the_caller_cannot_move_stay_clean_and_their_twins_are_flagged() {
    let s = check_fixture("anchored_destinations");
    // The clean tools do reach the network with the parameter in the URL: guarded, not unseen.
    for (tool, source) in [
        ("read_docs_page", "param:url"),
        ("read_doc_sections", "param:titles"),
        ("get_crm_contact", "param:contact_id"),
        ("ask_answerengine", "param:question"),
    ] {
        let b = behavior(&s, tool);
        assert!(
            b.flows
                .iter()
                .any(|f| f.source == source && f.sink_kind == "network-fetch" && f.sanitized),
            "{tool}: {source} must reach the fetch, guarded\n{}",
            describe(&s.results)
        );
    }
    // The merged headers keep the key (`headers | {...}`): it reaches the other service's host,
    // and is its own use at the configured host.
    let has_key = |tool: &str| {
        behavior(&s, tool)
            .flows
            .iter()
            .any(|f| f.source == "secret:env" && f.sink_kind == "network-send")
    };
    assert!(has_key("notesapp_mirror"), "{}", describe(&s.results));
    assert!(!has_key("notesapp_append"), "{}", describe(&s.results));
}

#[test]
fn a_fixed_base_with_a_path_joined_to_an_endpoint_keeps_its_host_and_a_bare_host_base_does_not() {
    let s = check_fixture("fixed_base_helpers");
    // `f"{BASE}{endpoint}"` has no literal text, yet the base's constant stays: the request
    // names its host, and the parameter is in the path after it.
    let b = behavior(&s, "get_note");
    assert!(
        b.capabilities.iter().any(|c| c.kind == "network-fetch"
            && c.detail
                .as_deref()
                .is_some_and(|d| d.contains("https://api.notesapp.example.com/rest/v2/notes/"))),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn a_path_parameter_its_own_schema_describes_as_a_file_is_declared_and_one_described_otherwise_is_not()
 {
    let s = check_fixture("param_described_paths");
    let severity = |tool: &str, rule: &str| {
        s.results
            .iter()
            .find(|r| r.target.name == tool)
            .and_then(|r| r.findings.iter().find(|f| f.rule_id == rule))
            .map(|f| f.severity)
    };
    assert_eq!(severity("show_scores", "MCPS-S005"), Some(Severity::Low));
    assert_eq!(severity("save_scores", "MCPS-S006"), Some(Severity::Low));
    assert_eq!(severity("show_run", "MCPS-S005"), Some(Severity::Medium));
}

#[test]
fn a_request_objects_body_is_what_it_carries_and_its_url_is_where_it_goes() {
    let s = check_fixture("request_objects");
    // The key in the body reaches the send, as payload, not as the destination.
    let b = behavior(&s, "check_quota");
    assert!(
        b.flows
            .iter()
            .any(|f| f.source == "param:api_key" && f.sink_kind == "network-fetch"),
        "{}",
        describe(&s.results)
    );
    let at = s
        .results
        .iter()
        .find(|r| r.target.name == "check_quota_at")
        .expect("check_quota_at");
    let s007 = at
        .findings
        .iter()
        .find(|f| f.rule_id == "MCPS-S007")
        .expect("S007 on the Request's URL");
    assert!(
        s007.observation.contains("param:verify_url")
            && !s007.observation.contains("param:api_key"),
        "{}",
        s007.observation
    );
}

#[test]
fn the_first_url_found_in_a_text_starting_with_a_fixed_host_stays_on_that_host() {
    let s = check_fixture("share_text_urls");
    let fetched = |tool: &str| {
        behavior(&s, tool)
            .capabilities
            .iter()
            .filter(|c| c.kind == "network-fetch")
            .filter_map(|c| c.detail.clone())
            .collect::<Vec<_>>()
    };
    assert!(
        fetched("clipshare_video")
            .iter()
            .any(|d| d.contains("https://www.clipshare.example.com/")),
        "{}",
        describe(&s.results)
    );
    assert!(
        !fetched("clipshare_video_quoted")
            .iter()
            .any(|d| d.contains("clipshare.example.com")),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn regex_checks_that_pin_the_host_or_the_whole_value_guard_and_loose_ones_do_not() {
    let s = check_fixture("regex_guards");
    for (tool, kind) in [
        ("read_docs_page", "network-fetch"),
        ("read_note", "file-read"),
    ] {
        let b = behavior(&s, tool);
        assert!(
            b.flows
                .iter()
                .any(|f| f.source == "param:url" || f.source == "param:name")
                && b.flows
                    .iter()
                    .filter(|f| f.sink_kind == kind)
                    .all(|f| f.sanitized),
            "{tool}: the {kind} flow must exist and be guarded\n{}",
            describe(&s.results)
        );
    }
}

#[test]
fn evil_server_reports_exfiltration_eval_and_backdoor() {
    let s = check_fixture("evil_server");
    let greet = behavior(&s, "greet");
    assert!(
        greet
            .capabilities
            .iter()
            .any(|c| c.kind == "file-permission"
                && c.detail.as_deref() == Some("/tmp/.backdoor.sh mode 0o755")),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn multifile_server_follows_exfiltration_three_calls_deep_across_modules() {
    let s = check_fixture("multifile_server");
    let b = behavior(&s, "save_note");
    let send = b
        .capabilities
        .iter()
        .find(|c| c.kind == "network-fetch")
        .unwrap_or_else(|| panic!("{}", describe(&s.results)));
    assert_eq!(send.location.file, "notes/util.py");
    assert_eq!(send.detail.as_deref(), Some("http://93.184.216.34:80/sync"));
    let via: Vec<&str> = send.via.iter().map(|l| l.file.as_str()).collect();
    assert_eq!(
        via,
        ["server.py", "helpers.py", "notes/storage.py"],
        "call chain"
    );
    let flow = b
        .flows
        .iter()
        .find(|f| f.source == "secret:file")
        .unwrap_or_else(|| panic!("{}", describe(&s.results)));
    assert!(
        flow.path
            .first()
            .is_some_and(|h| h.location.file == "notes/util.py")
    );
    let param = b
        .flows
        .iter()
        .find(|f| f.source == "param:text" && f.sink_kind == "network-fetch")
        .unwrap_or_else(|| panic!("param:text reaches the send\n{}", describe(&s.results)));
    let files: Vec<&str> = param
        .path
        .iter()
        .map(|h| h.location.file.as_str())
        .collect();
    for f in [
        "server.py",
        "helpers.py",
        "notes/storage.py",
        "notes/util.py",
    ] {
        assert!(files.contains(&f), "hop in {f}: {files:?}");
    }
}

#[test]
fn lowlevel_server_splits_dispatcher_and_reports_shell_injection() {
    let s = check_fixture("lowlevel_server");
    assert!(
        behavior(&s, "get_time")
            .capabilities
            .iter()
            .all(|c| c.kind != "command-exec")
    );
}

#[test]
fn feature_gated_dispatcher_arms_charge_each_tool_only_with_its_own_arm() {
    let s = check_fixture("gated_dispatch");
    for honest in ["count_words", "get_time"] {
        assert!(
            behavior(&s, honest)
                .capabilities
                .iter()
                .all(|c| c.kind != "command-exec"),
            "{honest} must not inherit the shell of another arm\n{}",
            describe(&s.results)
        );
    }
    let run = behavior(&s, "run_report");
    assert!(run.capabilities.iter().any(|c| c.kind == "command-exec"));
    // `arguments.get("title")` is the title alone, not every argument of the call.
    let to_shell: Vec<&str> = run
        .flows
        .iter()
        .filter(|f| f.sink_kind == "command-exec")
        .map(|f| f.source.as_str())
        .collect();
    assert_eq!(to_shell, ["param:script"], "{}", describe(&s.results));
}

#[test]
fn a_dotenv_loader_filling_os_environ_taints_no_other_os_call_but_a_named_entry_keeps_its_data() {
    let s = check_fixture("config_loaders");
    assert!(
        behavior(&s, "define_word")
            .flows
            .iter()
            .all(|f| f.source != "file:content"),
        "the config file's content must not reach define_word's request\n{}",
        describe(&s.results)
    );
    let flow = behavior(&s, "define_term")
        .flows
        .iter()
        .find(|f| f.source == "secret:file")
        .unwrap_or_else(|| {
            panic!(
                "the stored key must reach the request\n{}",
                describe(&s.results)
            )
        });
    assert_eq!(
        flow.path.first().map(|h| h.location.file.as_str()),
        Some("blob_store.py")
    );
}

#[test]
fn a_description_saying_what_goes_to_the_llm_is_no_offline_claim_and_a_local_claim_still_is() {
    check_fixture("llm_tools");
}

#[test]
fn two_calls_to_one_undeclared_host_are_one_finding() {
    let s = check_fixture("llm_tools");
    let r = s
        .results
        .iter()
        .find(|r| r.target.name == "summarize_text")
        .expect("summarize_text");
    assert_eq!(
        r.behavior
            .capabilities
            .iter()
            .filter(|c| c.kind == "network-fetch")
            .count(),
        2,
        "both calls are seen\n{}",
        describe(&s.results)
    );
    assert_eq!(
        r.findings
            .iter()
            .filter(|f| f.rule_id == "MCPS-S010")
            .count(),
        1
    );
}

#[test]
fn a_path_checked_against_a_list_of_roots_in_any_is_contained_and_an_extension_check_is_not() {
    let s = check_fixture("path_allowlists");
    for tool in ["export_audit", "export_timeline"] {
        let b = behavior(&s, tool);
        assert!(
            b.flows
                .iter()
                .any(|f| f.source == "param:output_path" && f.sink_kind == "file-write")
                && b.flows
                    .iter()
                    .filter(|f| f.sink_kind == "file-write")
                    .all(|f| f.sanitized),
            "{tool}: the write must be seen and guarded\n{}",
            describe(&s.results)
        );
    }
}

#[test]
fn refusing_private_resolved_addresses_in_a_raising_helper_guards_the_endpoint_and_loopback_alone_does_not()
 {
    let s = check_fixture("ssrf_guards");
    let b = behavior(&s, "push_traces");
    assert!(
        b.flows
            .iter()
            .any(|f| f.source == "param:endpoint" && f.sink_kind == "network-send")
            && b.flows
                .iter()
                .filter(|f| f.sink_kind == "network-send")
                .all(|f| f.sanitized),
        "the push must be seen and guarded\n{}",
        describe(&s.results)
    );
}

#[test]
fn risky_server_fires_every_remaining_rule() {
    check_fixture("risky_server");
}

#[test]
fn behaviour_shapes_name_backdoors_evasion_escalation_and_exhaustion_and_spare_their_twins() {
    check_fixture("behaviour_shapes");
}

#[test]
fn host_and_workload_name_undeclared_host_inspection_and_resource_loops_and_spare_their_twins() {
    let s = check_fixture("host_and_workload");
    // The capped twin still loops over the caller's count: the flow is there, neutralised by min().
    let capped = behavior(&s, "warm_workers_capped");
    assert!(
        capped
            .flows
            .iter()
            .any(|f| f.sink_kind == "repeated-acquisition" && f.sanitized),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn static_methods_called_through_an_instance_get_no_receiver() {
    // `Updater().fetch(url)`: a @staticmethod's first parameter is `url`, not the instance, so
    // the download reaches exec (S017) instead of being lost in the receiver slot.
    let s = check_fixture("behaviour_shapes");
    let sync = behavior(&s, "sync_plugins");
    assert!(
        sync.flows
            .iter()
            .any(|f| f.source == "network:response" && f.sink_kind == "code-eval"),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn benign_lookalikes_stay_clean() {
    let s = check_fixture("benign_lookalikes");
    // The look-alikes do reach the same APIs; they are clean because of quoting, containment,
    // fixed hosts and parameters, not because the analysis missed the calls.
    let list_dir = behavior(&s, "list_dir");
    assert!(
        list_dir
            .flows
            .iter()
            .any(|f| f.source == "param:path" && f.sink_kind == "command-exec" && f.sanitized),
        "{}",
        describe(&s.results)
    );
    let read_note = behavior(&s, "read_note");
    assert!(
        read_note
            .flows
            .iter()
            .any(|f| f.source == "param:name" && f.sink_kind == "file-read" && f.sanitized),
        "{}",
        describe(&s.results)
    );
    let fetch = behavior(&s, "fetch_docs");
    assert!(
        fetch
            .flows
            .iter()
            .any(|f| f.source == "param:url" && f.sink_kind == "network-fetch" && f.sanitized),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn every_static_rule_fires_on_its_fixture_and_not_on_its_benign_twin() {
    let mut cache: BTreeMap<String, Scanned> = BTreeMap::new();
    for rule in rules::builtin() {
        for (list, must_fire) in [(&rule.fixtures.fires, true), (&rule.fixtures.clean, false)] {
            for spec in list {
                let (fixture, tool) = spec
                    .split_once('/')
                    .unwrap_or_else(|| panic!("{}: bad fixture ref {spec}", rule.meta.id));
                let s = cache
                    .entry(fixture.to_string())
                    .or_insert_with(|| scan(fixture));
                let r = s
                    .results
                    .iter()
                    .find(|r| r.target.name == tool)
                    .unwrap_or_else(|| panic!("{}: fixture tool {spec} not found", rule.meta.id));
                let fired = r.findings.iter().any(|f| f.rule_id == rule.meta.id);
                assert_eq!(
                    fired,
                    must_fire,
                    "{} on {spec}: expected {}\n{}",
                    rule.meta.id,
                    if must_fire { "a finding" } else { "no finding" },
                    describe(std::slice::from_ref(r))
                );
            }
        }
    }
}

#[test]
fn dataflow_evasions_report_every_hidden_sink() {
    let s = check_fixture("dataflow_evasions");
    assert!(
        s.results.iter().all(|r| !r.findings.is_empty()),
        "every evasion tool has a finding\n{}",
        describe(&s.results)
    );
}

#[test]
fn dataflow_honest_lookalikes_stay_clean() {
    let s = check_fixture("dataflow_honest");
    assert!(
        s.results.iter().all(|r| r.findings.is_empty()),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn resource_access_names_system_file_tampering_metadata_credentials_hidden_recipients_and_decoded_payloads()
 {
    let s = check_fixture("resource_access");
    let severe = |tool: &str| {
        s.results
            .iter()
            .find(|r| r.target.name == tool)
            .unwrap_or_else(|| panic!("no tool {tool}"))
            .findings
            .iter()
            .filter(|f| f.severity >= Severity::Medium)
            .map(|f| f.rule_id.clone())
            .collect::<Vec<_>>()
    };
    // The honest twins reach the same APIs (remove, chmod, symlink, the metadata service, a
    // mail API with a Bcc, a decoder) and stay below MEDIUM.
    for honest in [
        "purge_own_cache",
        "share_report_with_group",
        "link_latest_report",
        "instance_region",
        "send_notice_declared",
        "send_notice_copy",
        "delivery_stats",
        "decode_input",
        "check_settings",
    ] {
        assert!(
            severe(honest).is_empty(),
            "{honest}: {:?}\n{}",
            severe(honest),
            describe(&s.results)
        );
    }
    let caps = |tool: &str| {
        behavior(&s, tool)
            .capabilities
            .iter()
            .filter_map(|c| c.detail.clone())
            .collect::<Vec<_>>()
    };
    // A loop over a list of records sees each record's path.
    assert!(caps("purge_cache").iter().any(|d| d == "/etc/shadow"));
    // `mode | stat.S_ISUID` keeps the flag it adds.
    assert!(caps("repair_helper").iter().any(|d| d.contains("S_ISUID")));
    // A loop over `dict.items()` of lists sees every path.
    assert!(
        caps("check_accounts")
            .iter()
            .any(|d| d == "~/.docker/config.json")
    );
    // The fixed host survives `if params: url += "?" + ...`.
    assert!(
        caps("delivery_stats")
            .iter()
            .any(|d| d.starts_with("GET https://api.postbox.example/stats/outbound"))
    );
    assert!(
        caps("mail_summary")
            .iter()
            .any(|d| d == "Bcc archive@mail.example.net")
    );
}

#[test]
fn description_mismatch_names_tracking_storage_fake_encryption_and_planted_text_and_spares_twins() {
    let s = check_fixture("description_mismatch");
    // The planted lure is followed from the literal, through the list it is put into, to the
    // returned text.
    let offers = behavior(&s, "search_offers");
    let lure = offers
        .flows
        .iter()
        .find(|f| f.source == "text:lure" && f.sink_kind == "tool-result")
        .unwrap_or_else(|| panic!("no lure → result flow\n{}", describe(&s.results)));
    assert!(
        lure.path[0].note.contains("click here"),
        "the source hop quotes the text: {:?}",
        lure.path[0]
    );
    // The escalation command is put into the caller's own list, and returned.
    let plan = behavior(&s, "plan_release");
    for sink in ["caller-data", "tool-result"] {
        assert!(
            plan.flows
                .iter()
                .any(|f| f.source == "text:command" && f.sink_kind == sink),
            "text:command → {sink}\n{}",
            describe(&s.results)
        );
    }
    // The kept input names the file it is kept in.
    let kept = behavior(&s, "format_phone_number");
    assert!(
        kept.capabilities
            .iter()
            .any(|c| c.kind == "file-content"
                && c.detail.as_deref() == Some("~/.cache/dialer/seen.txt")),
        "{}",
        describe(&s.results)
    );
    // The honest encryptor does encode too: it is clean because it also encrypts.
    let honest = behavior(&s, "encrypt_secret");
    assert!(
        ["encode", "encrypt"]
            .iter()
            .all(|k| honest.capabilities.iter().any(|c| c.kind == *k)),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn network_use_is_declared_by_naming_the_host_its_service_or_the_configured_service() {
    let s = check_fixture("declared_network");
    let rules_of = |tool: &str| -> Vec<String> {
        s.results
            .iter()
            .find(|r| r.target.name == tool)
            .map(|r| r.findings.iter().map(|f| f.rule_id.clone()).collect())
            .unwrap_or_else(|| panic!("{tool}: not analysed\n{}", describe(&s.results)))
    };
    for honest in [
        "download_paper",
        "list_available_services",
        "notesapp_get_note",
        "jira_get_issue",
    ] {
        assert!(
            rules_of(honest).is_empty(),
            "{honest}: {:?}",
            rules_of(honest)
        );
    }
    assert!(rules_of("format_report").contains(&"MCPS-S010".to_string()));
    assert!(rules_of("tag_note").contains(&"MCPS-S010".to_string()));
    let share = rules_of("notesapp_share_note");
    assert!(share.contains(&"MCPS-S001".to_string()) && share.contains(&"MCPS-S010".to_string()));
    // The caller's path really reaches the configured host: silence is a judgement. (The
    // token sent to its own service's host is its use and leaves no flow.)
    let get = behavior(&s, "notesapp_get_note");
    assert!(
        get.flows
            .iter()
            .any(|f| f.source == "param:path" && f.sink_kind.starts_with("network"))
            && !get.flows.iter().any(|f| f.source == "secret:env"),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn a_server_named_for_its_service_declares_requests_to_it_but_no_second_host() {
    let s = check_fixture("ticketdesk_api");
    let host_of = |tool: &str| -> Vec<String> {
        behavior(&s, tool)
            .capabilities
            .iter()
            .filter(|c| c.kind.starts_with("network"))
            .filter_map(|c| c.detail.clone())
            .collect()
    };
    // The base URL is joined to the relative path: the destination is the service's host,
    // not a bare `/tickets` (silence is a judgement on a host the analysis saw).
    assert!(
        host_of("list_tickets")
            .iter()
            .any(|d| d.contains("https://api.ticketdesk.io/v2/tickets")),
        "{}",
        describe(&s.results)
    );
    assert!(
        host_of("archive_ticket")
            .iter()
            .any(|d| d.contains("https://relay.stats-sink.net/t")),
        "{}",
        describe(&s.results)
    );
    // The default parameter read from configuration reaches the request: the configuration
    // flows into the destination of both clients built at import.
    for tool in ["assign_ticket", "rate_ticket"] {
        assert!(
            behavior(&s, tool)
                .flows
                .iter()
                .any(|f| f.source == "env:var" && f.sink_kind.starts_with("network")),
            "{tool}: {}",
            describe(&s.results)
        );
    }
}

#[test]
fn query_shapes_bind_values_in_fixed_slots_and_flag_queries_the_caller_shapes() {
    let s = check_fixture("query_shapes");
    // The honest filter reaches the same find(); its parameters sit in fixed slots.
    let bound = behavior(&s, "find_orders_by_status");
    assert!(
        bound
            .capabilities
            .iter()
            .any(|c| c.kind == "query" && c.api == "pymongo.collection.Collection.find"),
        "{}",
        describe(&s.results)
    );
    assert!(
        bound.flows.iter().all(|f| f.sink_kind != "query"),
        "{}",
        describe(&s.results)
    );
    // Merged JSON shapes the query; a `$where` slot is code.
    for (tool, param) in [
        ("find_orders", "param:extra_filter"),
        ("find_orders_matching", "param:note_contains"),
    ] {
        let sources: Vec<&str> = behavior(&s, tool)
            .flows
            .iter()
            .filter(|f| f.sink_kind == "query")
            .map(|f| f.source.as_str())
            .collect();
        assert_eq!(sources, [param], "{tool}\n{}", describe(&s.results));
    }
    // A constant format string with the caller's value as an argument is not a template sink.
    assert!(
        behavior(&s, "render_greeting")
            .capabilities
            .iter()
            .all(|c| c.kind != "template")
    );
}

#[test]
fn scratch_copies_and_owner_only_permissions_keep_a_read_only_claim_and_raising_checks_guard() {
    let s = check_fixture("scratch_and_validators");
    let count = behavior(&s, "count_pages");
    for kind in ["file-write", "file-delete", "file-permission"] {
        assert!(
            count.capabilities.iter().any(|c| c.kind == kind),
            "count_pages must still show its {kind}\n{}",
            describe(&s.results)
        );
    }
    let checked = behavior(&s, "get_source");
    assert!(
        checked
            .flows
            .iter()
            .filter(|f| f.sink_kind == "file-read")
            .all(|f| f.sanitized)
            && checked.flows.iter().any(|f| f.sink_kind == "file-read"),
        "{}",
        describe(&s.results)
    );
}

fn rule_observations(s: &Scanned, tool: &str, rule: &str) -> Vec<String> {
    s.results
        .iter()
        .filter(|r| r.target.name == tool)
        .flat_map(|r| r.findings.iter())
        .filter(|f| f.rule_id == rule)
        .map(|f| f.observation.clone())
        .collect()
}

#[test]
fn a_servers_own_configuration_sent_to_its_service_is_its_use_and_anywhere_else_a_leak() {
    let s = check_fixture("own_config");
    assert!(rule_observations(&s, "list_boards", "MCPS-S029").is_empty());
    assert!(rule_observations(&s, "list_bundled_boards", "MCPS-S029").is_empty());
    let elsewhere = rule_observations(&s, "list_boards_elsewhere", "MCPS-S029");
    assert!(
        elsewhere
            .iter()
            .any(|o| o.contains("~/.otherapp/config.yaml")),
        "{elsewhere:?}"
    );
    let out = rule_observations(&s, "sync_boards_out", "MCPS-S029");
    assert!(
        out.iter().any(
            |o| o.contains("~/.boardly-mcp/config.yaml") && o.contains("collector.example.net")
        ),
        "{out:?}"
    );
}

#[test]
fn what_a_connected_socket_sends_does_not_choose_where_it_goes() {
    let s = check_fixture("own_config");
    assert!(rule_observations(&s, "set_pose", "MCPS-S007").is_empty());
    let at = rule_observations(&s, "set_pose_at", "MCPS-S007");
    assert!(!at.is_empty());
    assert!(
        at.iter()
            .all(|o| o.starts_with("param:editor_host reaches")),
        "{at:?}"
    );
}

#[test]
fn an_owner_only_mode_on_a_directory_the_tool_creates_drops_no_executable() {
    let s = check_fixture("own_config");
    assert!(
        behavior(&s, "store_token")
            .capabilities
            .iter()
            .any(|c| c.kind == "dir-create" && c.detail.as_deref() == Some("~/.boardly"))
    );
    assert!(rule_observations(&s, "store_token", "MCPS-S011").is_empty());
    assert!(!rule_observations(&s, "store_hook", "MCPS-S011").is_empty());
    assert!(!rule_observations(&s, "store_shared", "MCPS-S011").is_empty());
}

#[test]
fn a_url_the_caller_hands_over_declares_the_destination_but_is_still_ssrf() {
    let s = check_fixture("url_params");
    assert!(rule_observations(&s, "score_page", "MCPS-S010").is_empty());
    assert!(!rule_observations(&s, "score_page", "MCPS-S007").is_empty());
    assert!(!rule_observations(&s, "score_text", "MCPS-S010").is_empty());
    let report = rule_observations(&s, "score_page_and_report", "MCPS-S010");
    assert!(
        report.iter().any(|o| o.contains("stats.example.net")),
        "{report:?}"
    );
}

#[test]
fn re_sub_down_to_a_slug_sanitizes_a_path_part_and_a_class_keeping_dots_and_slashes_does_not() {
    let s = check_fixture("regex_guards");
    let writes = |tool: &str| -> Vec<bool> {
        behavior(&s, tool)
            .flows
            .iter()
            .filter(|f| f.source == "param:title" && f.sink_kind == "file-write")
            .map(|f| f.sanitized)
            .collect()
    };
    // Through the helper `_note_id`: the flow is still seen, and sanitized.
    let slug = writes("save_note");
    assert!(
        !slug.is_empty() && slug.iter().all(|s| *s),
        "save_note: {slug:?}\n{}",
        describe(&s.results)
    );
    let loose = writes("save_entry");
    assert!(
        !loose.is_empty() && loose.iter().all(|s| !*s),
        "save_entry: {loose:?}\n{}",
        describe(&s.results)
    );
}

/// The tool whose arm shells out has the shell; its sibling arm, which only reads its argument,
/// has none of it (per-arm attribution of a dispatcher that hands the name to a function
/// branching on it).
fn shell_only_in_its_own_arm(fixture: &str, honest: &str, shell: &str) {
    let s = check_fixture(fixture);
    assert!(
        behavior(&s, honest)
            .capabilities
            .iter()
            .all(|c| c.kind != "command-exec"),
        "{fixture}: {honest} must not inherit the shell of another arm\n{}",
        describe(&s.results)
    );
    assert!(
        behavior(&s, shell)
            .capabilities
            .iter()
            .any(|c| c.kind == "command-exec"),
        "{fixture}: {shell} runs a shell\n{}",
        describe(&s.results)
    );
}

#[test]
fn a_dispatcher_registered_by_request_method_charges_each_tool_only_with_its_own_arm() {
    shell_only_in_its_own_arm("request_handler_dispatch", "read_note", "run_check");
}

#[test]
fn a_dispatcher_on_fastmcps_inner_server_charges_each_tool_only_with_its_own_arm() {
    shell_only_in_its_own_arm("inner_server_dispatch", "fetch_page", "run_script");
}

#[test]
fn a_dispatcher_split_through_a_hand_off_keeps_its_own_code_for_every_tool() {
    let s = check_fixture("dispatcher_own_code");
    for tool in ["list_items", "run_task"] {
        assert!(
            behavior(&s, tool)
                .capabilities
                .iter()
                .any(|c| c.kind == "network-send"),
            "{tool} runs the dispatcher's upload\n{}",
            describe(&s.results)
        );
    }
    shell_only_in_its_own_arm("dispatcher_own_code", "list_items", "run_task");
}

fn findings_of<'s>(s: &'s Scanned, tool: &str) -> Vec<&'s Finding> {
    s.results
        .iter()
        .filter(|r| r.target.name == tool)
        .flat_map(|r| r.findings.iter())
        .collect()
}

#[test]
fn tools_found_by_introspecting_service_classes_are_analysed_each_on_its_own() {
    // Registered from `cls.__dict__.items()` behind a `name.startswith("tool_")` guard and
    // renamed: the exfiltrating method is reported, its honest siblings are not, and the
    // helper without the prefix is no tool at all (expected.toml).
    let s = check_fixture("introspected_services");
    for honest in ["notes_list_notes", "notes_word_count"] {
        assert!(
            findings_of(&s, honest).is_empty(),
            "{honest}\n{}",
            describe(&s.results)
        );
    }
    assert!(
        findings_of(&s, "notes_backup_notes")
            .iter()
            .any(|f| f.rule_id == "MCPS-S001" && f.severity == Severity::High),
        "{}",
        describe(&s.results)
    );
}

#[test]
fn tools_registered_on_the_sdk_stub_a_tree_ships_are_analysed() {
    let s = check_fixture("vendored_sdk_stub");
    assert!(
        findings_of(&s, "count_words").is_empty(),
        "{}",
        describe(&s.results)
    );
    assert!(
        findings_of(&s, "sync_notes")
            .iter()
            .any(|f| f.rule_id == "MCPS-S001" && f.severity == Severity::High),
        "{}",
        describe(&s.results)
    );
}
