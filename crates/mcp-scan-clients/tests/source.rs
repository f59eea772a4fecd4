//! From a configured server to the source tree a scan analyses.

use std::path::{Path, PathBuf};

use mcp_scan_clients::testing::Registry;
use mcp_scan_clients::{
    Client, ConfiguredServer, FetchConfig, Scope, ServerSource, Transport, read_named_config,
    resolve_source,
};

fn stdio(command: &str, args: &[&str], cwd: Option<&Path>) -> ConfiguredServer {
    ConfiguredServer {
        name: "s".into(),
        client: Client::ClaudeDesktop,
        config_file: PathBuf::from("/nonexistent/claude_desktop_config.json"),
        scope: Scope::User,
        project: None,
        transport: Transport::Stdio {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            cwd: cwd.map(Path::to_path_buf),
        },
        env_names: vec![],
        env_file: None,
        input_refs: vec![],
        disabled: false,
    }
}

fn offline(cache: &Path) -> FetchConfig {
    let mut c = FetchConfig::new(cache.to_path_buf());
    c.offline = true;
    c
}

fn unavailable(s: ServerSource) -> String {
    match s {
        ServerSource::Unavailable { reason } => reason,
        other => panic!("expected unavailable, got {other:?}"),
    }
}

fn dir(s: ServerSource) -> PathBuf {
    match s {
        ServerSource::Directory { path, .. } => path,
        other => panic!("expected a directory, got {other:?}"),
    }
}

#[test]
fn a_registry_package_resolves_to_its_fetched_source() {
    let reg = Registry::start();
    let pkg_src = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(pkg_src.path().join("srv")).expect("mkdir");
    std::fs::write(pkg_src.path().join("srv/server.py"), "print(1)\n").expect("write");
    reg.publish_wheel_from_dir("srv-mcp", "0.3.0", pkg_src.path(), true);
    let cache = tempfile::tempdir().expect("tempdir");
    let mut cfg = FetchConfig::new(cache.path().to_path_buf());
    cfg.pypi_url = reg.base.clone();
    let s = resolve_source(
        &stdio("uvx", &["srv-mcp"], None),
        &cfg,
        Path::new("/home/u"),
    );
    match s {
        ServerSource::Directory { path, package } => {
            assert!(path.join("srv/server.py").is_file());
            assert_eq!(package.expect("fetched").version, "0.3.0");
        }
        other => panic!("{other:?}"),
    }
    // A fetch that fails is a reason, not a silent skip.
    let reason = unavailable(resolve_source(
        &stdio("npx", &["-y", "@x/y"], None),
        &offline(cache.path()),
        Path::new("/home/u"),
    ));
    assert!(reason.contains("could not be fetched"), "{reason}");
}

#[test]
fn local_scripts_resolve_to_their_project_root() {
    let root = tempfile::tempdir().expect("tempdir");
    let r = root.path();
    std::fs::create_dir_all(r.join("app/dist")).expect("mkdir");
    std::fs::write(r.join("app/package.json"), "{}").expect("write");
    std::fs::write(r.join("app/dist/index.js"), "").expect("write");
    std::fs::create_dir_all(r.join("tools")).expect("mkdir");
    std::fs::write(r.join("tools/server.py"), "").expect("write");
    let cache = tempfile::tempdir().expect("tempdir");
    let cfg = offline(cache.path());
    let home = Path::new("/home/u");
    let js = r.join("app/dist/index.js");
    assert_eq!(
        dir(resolve_source(
            &stdio("node", &[js.to_str().expect("utf-8")], None),
            &cfg,
            home
        )),
        r.join("app")
    );
    assert_eq!(
        dir(resolve_source(
            &stdio("python3", &["-u", "server.py"], Some(&r.join("tools"))),
            &cfg,
            home
        )),
        r.join("tools")
    );
    assert_eq!(
        dir(resolve_source(
            &stdio(
                "uv",
                &["--directory", r.to_str().expect("utf-8"), "run", "x.py"],
                None
            ),
            &cfg,
            home
        )),
        r.to_path_buf()
    );
    assert_eq!(
        dir(resolve_source(
            &stdio("npx", &["-y", "tsx", "dist/index.js"], Some(&r.join("app"))),
            &cfg,
            home
        )),
        r.join("app")
    );
}

#[test]
fn servers_without_a_source_tree_say_why() {
    let cache = tempfile::tempdir().expect("tempdir");
    let cfg = offline(cache.path());
    let home = Path::new("/home/u");
    for (cmd, args, expect) in [
        (
            "python",
            vec!["server.py"],
            "relative and the client sets no working directory",
        ),
        ("python", vec!["/nonexistent/s.py"], "does not exist"),
        (
            "python",
            vec!["-m", "my_server"],
            "from the interpreter's environment",
        ),
        ("/usr/local/bin/some-mcp", vec![], "runs the program"),
        ("docker", vec!["run", "-i", "img"], "container image"),
    ] {
        let reason = unavailable(resolve_source(&stdio(cmd, &args, None), &cfg, home));
        assert!(reason.contains(expect), "{cmd} {args:?}: {reason}");
    }
}

#[test]
fn workspace_folder_in_a_project_file_is_the_project() {
    let project = tempfile::tempdir().expect("tempdir");
    let p = project.path();
    std::fs::create_dir_all(p.join(".vscode")).expect("mkdir");
    std::fs::create_dir_all(p.join("srv")).expect("mkdir");
    std::fs::write(p.join("srv/main.py"), "").expect("write");
    std::fs::write(
        p.join(".vscode/mcp.json"),
        r#"{"servers": {"mine": {"command": "python", "args": ["${workspaceFolder}/srv/main.py"]},
            "far": {"type": "http", "url": "https://mcp.example/mcp"}}}"#,
    )
    .expect("write");
    let d = read_named_config(&p.join(".vscode/mcp.json"));
    let cache = tempfile::tempdir().expect("tempdir");
    let cfg = offline(cache.path());
    let mine = d.servers.iter().find(|s| s.name == "mine").expect("mine");
    assert_eq!(
        dir(resolve_source(mine, &cfg, Path::new("/home/u"))),
        p.join("srv")
    );
    let far = d.servers.iter().find(|s| s.name == "far").expect("far");
    assert_eq!(
        resolve_source(far, &cfg, Path::new("/home/u")),
        ServerSource::Remote {
            url: "https://mcp.example/mcp".into()
        }
    );
}
