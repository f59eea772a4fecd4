//! Discovery over fake HOMEs (`fixtures/clients/`) laid out as Linux and macOS machines, and
//! malformed files written per test.

use std::path::{Path, PathBuf};

use mcp_scan_clients::{
    Client, ConfiguredServer, DiagnosticLevel, Discovery, DiscoveryContext, Platform,
    RemoteProtocol, Scope, Transport, discover, read_named_config,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/clients")
}

fn linux(project: Option<PathBuf>) -> DiscoveryContext {
    DiscoveryContext {
        home: fixtures().join("home-linux"),
        platform: Platform::Linux,
        config_home: None,
        project,
    }
}

fn server<'a>(d: &'a Discovery, client: Client, name: &str) -> &'a ConfiguredServer {
    d.servers
        .iter()
        .find(|s| s.client == client && s.name == name)
        .unwrap_or_else(|| panic!("{client:?} server {name} not found in {:#?}", d.servers))
}

fn stdio(s: &ConfiguredServer) -> (&str, Vec<&str>) {
    match &s.transport {
        Transport::Stdio { command, args, .. } => {
            (command.as_str(), args.iter().map(String::as_str).collect())
        }
        other => panic!("{}: expected stdio, got {other:?}", s.name),
    }
}

fn remote(s: &ConfiguredServer) -> (&str, RemoteProtocol, Vec<&str>) {
    match &s.transport {
        Transport::Remote {
            url,
            protocol,
            header_names,
        } => (
            url.as_str(),
            *protocol,
            header_names.iter().map(String::as_str).collect(),
        ),
        other => panic!("{}: expected remote, got {other:?}", s.name),
    }
}

#[test]
fn linux_home_yields_every_clients_user_servers() {
    let d = discover(&linux(None));
    assert!(d.diagnostics.is_empty(), "{:#?}", d.diagnostics);
    let mut names: Vec<(Client, &str)> = d
        .servers
        .iter()
        .map(|s| (s.client, s.name.as_str()))
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            (Client::ClaudeDesktop, "fetch"),
            (Client::ClaudeDesktop, "filesystem"),
            (Client::ClaudeDesktop, "github"),
            (Client::ClaudeCode, "local-tools"),
            (Client::ClaudeCode, "sentry"),
            (Client::Cursor, "linear"),
            (Client::Cursor, "postgres"),
            (Client::Vscode, "perplexity"),
            (Client::Vscode, "profile-only"),
            (Client::Vscode, "remote"),
            (Client::Windsurf, "github-remote"),
            (Client::Windsurf, "old-server"),
            (Client::GeminiCli, "events"),
            (Client::GeminiCli, "notes"),
            (Client::GeminiCli, "pythonTools"),
            (Client::GeminiCli, "streaming"),
        ]
    );
    let fetch = server(&d, Client::ClaudeDesktop, "fetch");
    assert_eq!(stdio(fetch), ("uvx", vec!["mcp-server-fetch"]));
    assert_eq!(
        fetch.transport.argv(),
        Some(vec!["uvx".to_string(), "mcp-server-fetch".to_string()])
    );
    // The id is what JSON output calls the client.
    assert_eq!(
        serde_json::to_value(fetch.client).expect("json"),
        fetch.client.id()
    );
    assert_eq!(fetch.scope, Scope::User);
    assert!(
        fetch
            .config_file
            .ends_with(".config/Claude/claude_desktop_config.json")
    );
    let gh = server(&d, Client::ClaudeDesktop, "github");
    assert_eq!(gh.env_names, ["GITHUB_PERSONAL_ACCESS_TOKEN"]);
    let pg = server(&d, Client::Cursor, "postgres");
    assert_eq!(pg.env_names, ["DATABASE_URI", "PGSSLMODE"]);
    assert_eq!(
        remote(server(&d, Client::Cursor, "linear")),
        (
            "https://mcp.linear.example/sse",
            RemoteProtocol::Unspecified,
            vec!["Authorization"]
        )
    );
}

#[test]
fn vscode_profiles_and_gemini_extensions_are_read() {
    let d = discover(&linux(None));
    let p = server(&d, Client::Vscode, "profile-only");
    assert!(
        p.config_file
            .ends_with("Code/User/profiles/3f2a1b/mcp.json")
    );
    let n = server(&d, Client::GeminiCli, "notes");
    assert!(
        n.config_file
            .ends_with(".gemini/extensions/notes-ext/gemini-extension.json")
    );
    assert_eq!(n.env_names, ["NOTES_TOKEN"]);
}

#[test]
fn claude_code_user_file_gives_user_and_per_project_servers() {
    let d = discover(&linux(None));
    let sentry = server(&d, Client::ClaudeCode, "sentry");
    assert_eq!(sentry.scope, Scope::User);
    assert_eq!(
        remote(sentry),
        (
            "https://mcp.sentry.example/mcp",
            RemoteProtocol::StreamableHttp,
            vec!["X-Api-Key"]
        )
    );
    let local = server(&d, Client::ClaudeCode, "local-tools");
    assert_eq!(local.scope, Scope::Project);
    assert_eq!(
        local.project.as_deref(),
        Some(Path::new("/home/dev/work/app"))
    );
    assert_eq!(local.env_names, ["APP_TOKEN"]);
}

#[test]
fn vscode_jsonc_with_inputs_is_read_without_complaint() {
    let d = discover(&linux(None));
    let p = server(&d, Client::Vscode, "perplexity");
    assert_eq!(stdio(p), ("npx", vec!["-y", "server-perplexity-ask@next"]));
    assert_eq!(p.input_refs, ["perplexity-key"]);
    assert_eq!(p.env_names, ["PERPLEXITY_API_KEY"]);
    assert_eq!(
        p.env_file.as_deref(),
        Some(Path::new("${workspaceFolder}/.env"))
    );
    let r = server(&d, Client::Vscode, "remote");
    assert_eq!(remote(r).1, RemoteProtocol::Sse);
    assert_eq!(r.input_refs, ["perplexity-key"]);
    // Comments and trailing commas are VS Code's dialect: no diagnostic for them.
    assert!(d.diagnostics.is_empty(), "{:#?}", d.diagnostics);
}

#[test]
fn windsurf_server_url_and_disabled_entries_are_kept() {
    let d = discover(&linux(None));
    let gh = server(&d, Client::Windsurf, "github-remote");
    assert_eq!(remote(gh).0, "https://api.githubcopilot.example/mcp/");
    assert!(!gh.disabled);
    let old = server(&d, Client::Windsurf, "old-server");
    assert!(old.disabled);
    assert_eq!(stdio(old).0, "pipx");
}

#[test]
fn gemini_http_url_is_streamable_and_bare_url_is_sse_and_cwd_is_kept() {
    let d = discover(&linux(None));
    assert_eq!(
        remote(server(&d, Client::GeminiCli, "streaming")).1,
        RemoteProtocol::StreamableHttp
    );
    assert_eq!(
        remote(server(&d, Client::GeminiCli, "events")).1,
        RemoteProtocol::Sse
    );
    match &server(&d, Client::GeminiCli, "pythonTools").transport {
        Transport::Stdio { cwd, .. } => {
            assert_eq!(cwd.as_deref(), Some(Path::new("./mcp-servers/python")))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn macos_home_uses_application_support_paths() {
    let ctx = DiscoveryContext {
        home: fixtures().join("home-macos"),
        platform: Platform::Macos,
        config_home: None,
        project: None,
    };
    let d = discover(&ctx);
    assert!(d.diagnostics.is_empty(), "{:#?}", d.diagnostics);
    let w = server(&d, Client::ClaudeDesktop, "weather");
    assert!(
        w.config_file
            .ends_with("Library/Application Support/Claude/claude_desktop_config.json")
    );
    assert_eq!(w.env_names, ["OPENWEATHER_KEY"]);
    assert_eq!(stdio(server(&d, Client::Cursor, "time")).0, "uvx");
    // settings.json's legacy "mcp" section.
    assert_eq!(
        stdio(server(&d, Client::Vscode, "memory")),
        ("npx", vec!["-y", "@modelcontextprotocol/server-memory"])
    );
    // The Linux layout's files are not read on macOS, and vice versa.
    let d = discover(&DiscoveryContext {
        platform: Platform::Linux,
        ..ctx
    });
    assert!(
        d.servers.iter().all(|s| s.client == Client::Cursor),
        "{:#?}",
        d.servers
    );
}

#[test]
fn project_files_of_every_client_are_project_scoped() {
    let project = fixtures().join("project");
    let d = discover(&linux(Some(project.clone())));
    for (client, name) in [
        (Client::ClaudeCode, "shared-db"),
        (Client::Cursor, "docs"),
        (Client::Vscode, "repo-tools"),
        (Client::GeminiCli, "proj-gem"),
    ] {
        let s = server(&d, client, name);
        assert_eq!(s.scope, Scope::Project, "{name}");
        assert_eq!(s.project.as_deref(), Some(project.as_path()), "{name}");
    }
    match &server(&d, Client::Vscode, "repo-tools").transport {
        Transport::Stdio { cwd, .. } => {
            assert_eq!(cwd.as_deref(), Some(Path::new("${workspaceFolder}")))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        d.files.iter().filter(|f| f.scope == Scope::Project).count(),
        4
    );
}

/// Every value under `env`/`headers` in the fixtures starts with this marker.
const SECRET: &str = "FIXTURE-SECRET";

#[test]
fn secrets_never_appear_in_debug_serialised_or_diagnostic_output() {
    let mut d = discover(&linux(Some(fixtures().join("project"))));
    let mac = discover(&DiscoveryContext {
        home: fixtures().join("home-macos"),
        platform: Platform::Macos,
        config_home: None,
        project: None,
    });
    d.servers.extend(mac.servers);
    // The fixtures really do hold secrets, so the test can fail.
    let raw =
        std::fs::read_to_string(fixtures().join("home-linux/.cursor/mcp.json")).expect("fixture");
    assert!(raw.contains(SECRET));
    assert!(d.servers.iter().any(|s| !s.env_names.is_empty()));
    let debug = format!("{d:?} {d:#?}");
    let json = serde_json::to_string(&d).expect("serialises");
    let shown: String = d.diagnostics.iter().map(|x| x.to_string()).collect();
    for (what, text) in [("Debug", &debug), ("JSON", &json), ("diagnostics", &shown)] {
        assert!(!text.contains(SECRET), "{what} output shows a secret");
        assert!(
            !text.contains("lin_api"),
            "{what} output shows a header value"
        );
    }
}

#[test]
fn a_password_in_a_server_url_is_masked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        r#"{"mcpServers": {"r": {"url": "https://bob:FIXTURE-SECRET-pw@mcp.example/mcp"}}}"#,
    )
    .expect("write");
    let d = read_named_config(&path);
    assert_eq!(remote(&d.servers[0]).0, "https://bob:***@mcp.example/mcp");
    assert!(!format!("{d:?}").contains(SECRET));
}

#[test]
fn credentials_in_launch_arguments_and_url_queries_are_masked_but_the_package_is_kept() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        r#"{"mcpServers": {
            "brave": {"command": "npx", "args": ["-y", "brave-mcp@1.2.0", "--api-key", "FIXTURE-SECRET-brave"]},
            "slack": {"command": "docker", "args": ["run", "-e", "SLACK_TOKEN=FIXTURE-SECRET-slack", "mcp/slack"]},
            "remote": {"url": "https://mcp.example/sse?token=FIXTURE-SECRET-q&region=eu"}
        }}"#,
    )
    .expect("write");
    let d = read_named_config(&path);
    assert_eq!(d.servers.len(), 3);
    let shown = format!("{d:?} {}", serde_json::to_string(&d).expect("serialises"));
    assert!(!shown.contains(SECRET), "a credential is shown: {shown}");
    let brave = d.servers.iter().find(|s| s.name == "brave").expect("brave");
    assert_eq!(
        brave.transport.argv().expect("stdio"),
        ["npx", "-y", "brave-mcp@1.2.0", "--api-key", "***"]
    );
    let r = d
        .servers
        .iter()
        .find(|s| s.name == "remote")
        .expect("remote");
    assert_eq!(remote(r).0, "https://mcp.example/sse?token=***&region=eu");
}

fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(&p, text).expect("write");
    p
}

#[test]
fn malformed_files_give_diagnostics_naming_the_file_and_the_rest_is_still_read() {
    let home = tempfile::tempdir().expect("tempdir");
    let h = home.path();
    // Bad JSON (with a secret near the error, which must not be echoed).
    let bad = write(
        h,
        ".cursor/mcp.json",
        "{\n  \"mcpServers\": {\n    \"x\": { \"command\": \"npx\", \"env\": { \"K\": \"FIXTURE-SECRET-near-error\" } \n  \n",
    );
    // Trailing comma and a comment in a client that reads strict JSON: read, with a warning.
    let lenient = write(
        h,
        ".config/Claude/claude_desktop_config.json",
        "{\n  // mine\n  \"mcpServers\": { \"ok\": { \"command\": \"uvx\", \"args\": [\"a\"], }, },\n}\n",
    );
    // Unknown shapes: servers as an array, an entry without command or url, args not strings.
    let shapes = write(
        h,
        ".codeium/windsurf/mcp_config.json",
        r#"{"mcpServers": {"no-way": {"env": {"K": "FIXTURE-SECRET-shape"}}, "bad-args": {"command": "x", "args": [{"a": 1}]}, "fine": {"command": "node", "args": ["s.js"]}}}"#,
    );
    let top = write(h, ".gemini/settings.json", "[1, 2]");
    let servers_array = write(h, ".claude.json", r#"{"mcpServers": ["a"], "projects": 3}"#);
    let d = discover(&DiscoveryContext {
        home: h.to_path_buf(),
        platform: Platform::Linux,
        config_home: None,
        project: None,
    });
    let for_file = |p: &Path| -> Vec<String> {
        d.diagnostics
            .iter()
            .filter(|x| x.file == p)
            .map(|x| x.to_string())
            .collect()
    };
    let b = for_file(&bad);
    assert_eq!(b.len(), 1, "{b:?}");
    assert!(
        b[0].contains("mcp.json:") && b[0].contains("not valid JSON"),
        "{b:?}"
    );
    let l = for_file(&lenient);
    assert_eq!(l.len(), 1, "{l:?}");
    assert!(
        l[0].contains("not strict JSON (comments and trailing commas)"),
        "{l:?}"
    );
    assert!(
        d.diagnostics
            .iter()
            .any(|x| x.file == lenient && x.level == DiagnosticLevel::Warning)
    );
    assert_eq!(
        stdio(server(&d, Client::ClaudeDesktop, "ok")),
        ("uvx", vec!["a"])
    );
    let s = for_file(&shapes);
    assert!(
        s.iter()
            .any(|m| m.contains("\"no-way\"") && m.contains("neither `command` nor")),
        "{s:?}"
    );
    assert!(
        s.iter()
            .any(|m| m.contains("\"bad-args\"") && m.contains("`args[0]` is an object")),
        "{s:?}"
    );
    assert_eq!(stdio(server(&d, Client::Windsurf, "fine")).0, "node");
    assert!(for_file(&top)[0].contains("top level is an array"));
    let c = for_file(&servers_array);
    assert!(
        c.iter().any(|m| m.contains("`mcpServers` is an array")),
        "{c:?}"
    );
    assert!(
        c.iter().any(|m| m.contains("`projects` is a number")),
        "{c:?}"
    );
    let all: String = d.diagnostics.iter().map(|x| x.to_string()).collect();
    assert!(!all.contains(SECRET), "a diagnostic echoes a value: {all}");
}

#[test]
fn unreadable_and_non_utf8_files_are_diagnosed_not_skipped() {
    let home = tempfile::tempdir().expect("tempdir");
    let p = home.path().join(".cursor/mcp.json");
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(&p, [0xff, 0xfe, 0x00, 0x7b]).expect("write");
    let d = discover(&DiscoveryContext {
        home: home.path().to_path_buf(),
        platform: Platform::Linux,
        config_home: None,
        project: None,
    });
    assert_eq!(d.diagnostics.len(), 1);
    assert!(d.diagnostics[0].to_string().contains("not UTF-8"));
}

#[test]
fn a_named_config_file_is_recognised_by_its_path() {
    let d = read_named_config(&fixtures().join("project/.vscode/mcp.json"));
    assert_eq!(d.servers.len(), 1);
    assert_eq!(d.servers[0].client, Client::Vscode);
    let dir = tempfile::tempdir().expect("tempdir");
    let p = write(dir.path(), "my-servers.json", r#"{"theme": "x"}"#);
    let d = read_named_config(&p);
    assert!(d.servers.is_empty());
    assert!(
        d.diagnostics[0].message.contains("no `mcpServers`"),
        "{:?}",
        d.diagnostics
    );
}
