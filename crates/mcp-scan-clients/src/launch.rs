//! What a launch command runs: a registry package (and which version of it), a local path, or
//! something whose source cannot be fetched (said with a reason, never guessed).
//!
//! Runner syntax: `uvx`/`uv tool run` (<https://docs.astral.sh/uv/reference/cli/#uv-tool-run>:
//! `pkg`, `pkg==1.2`, `pkg@1.2`, `pkg@latest`, `--from SPEC cmd`), `pipx run`
//! (<https://pipx.pypa.io/stable/docs/>: `--spec SPEC app`), `npx`/`npm exec`
//! (<https://docs.npmjs.com/cli/commands/npx>: `-y`, `-p/--package SPEC`, `name@version|tag`),
//! `bunx`, `pnpm dlx`, `yarn dlx`.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    Pypi,
    Npm,
}

impl std::fmt::Display for Ecosystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Ecosystem::Pypi => "PyPI",
            Ecosystem::Npm => "npm",
        })
    }
}

/// Which version a command asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "lowercase")]
pub enum Requested {
    /// No pin: the registry's latest release.
    Latest,
    /// An exact version.
    Exact(String),
    /// An npm dist-tag other than `latest` (`next`, `beta`).
    Tag(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PackageRef {
    pub ecosystem: Ecosystem,
    pub name: String,
    pub requested: Requested,
}

/// What a launch command runs, as far as its source is concerned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum LaunchTarget {
    /// A package the runner downloads from its registry.
    Package {
        runner: String,
        package: PackageRef,
        /// Further packages the runner installs beside it (`uvx --with`, repeated `npx -p`);
        /// their code runs too but is not fetched.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        also_installs: Vec<String>,
    },
    /// The runner installs from a directory on this machine.
    LocalPath { runner: String, path: PathBuf },
    /// A runner we recognise whose source we cannot fetch.
    Unsupported { runner: String, reason: String },
    /// Not a package runner (`python server.py`, `node dist/index.js`, a binary).
    NotAPackage,
}

/// Classifies `command args…` as the client would launch it.
pub fn classify(command: &str, args: &[String]) -> LaunchTarget {
    let base = command
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(command)
        .trim_end_matches(".exe")
        .trim_end_matches(".cmd");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let target = match (base, args.as_slice()) {
        ("uvx", rest) => uv_tool_run("uvx", rest),
        ("uv", ["tool", "run", rest @ ..]) => uv_tool_run("uv tool run", rest),
        ("uv", ["x", rest @ ..]) => uv_tool_run("uv x", rest),
        ("pipx", ["run", rest @ ..]) => pipx_run(rest),
        ("npx", rest) => npm_like("npx", rest),
        ("npm", ["exec" | "x", rest @ ..]) => npm_like("npm exec", rest),
        ("bunx", rest) => npm_like("bunx", rest),
        ("bun", ["x", rest @ ..]) => npm_like("bun x", rest),
        ("pnpm", ["dlx", rest @ ..]) => npm_like("pnpm dlx", rest),
        ("pnpx", rest) => npm_like("pnpx", rest),
        ("yarn", ["dlx", rest @ ..]) => npm_like("yarn dlx", rest),
        ("docker" | "podman", [sub, ..]) if matches!(*sub, "run" | "container") => {
            LaunchTarget::Unsupported {
                runner: base.to_string(),
                reason: "runs a container image; its source is not fetched (scan the image's \
                         source directory, or run it with --run)"
                    .to_string(),
            }
        }
        _ => LaunchTarget::NotAPackage,
    };
    script_instead(target, &args)
}

/// Packages that only run a script named later on the command line (`npx -y tsx server.ts`,
/// `uvx fastmcp run server.py`): the server is the script, not the runner package.
const SCRIPT_RUNNERS: &[&str] = &["tsx", "ts-node", "esno", "node", "mcp", "fastmcp"];
const SCRIPT_EXTENSIONS: &[&str] = &[".py", ".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs"];

fn script_instead(target: LaunchTarget, args: &[&str]) -> LaunchTarget {
    if let LaunchTarget::Package {
        runner, package, ..
    } = &target
        && SCRIPT_RUNNERS.contains(&package.name.as_str())
        && let Some(script) = args
            .iter()
            .find(|a| !a.starts_with('-') && SCRIPT_EXTENSIONS.iter().any(|e| a.ends_with(e)))
    {
        // Relative to the server's working directory, which the caller knows.
        return LaunchTarget::LocalPath {
            runner: format!("{runner} {}", package.name),
            path: PathBuf::from(script),
        };
    }
    target
}

fn unsupported(runner: &str, reason: impl Into<String>) -> LaunchTarget {
    LaunchTarget::Unsupported {
        runner: runner.to_string(),
        reason: reason.into(),
    }
}

/// Options of `uv tool run` that take a value (so the value is not the package).
const UV_VALUE_OPTS: &[&str] = &[
    "--from",
    "--with",
    "--with-editable",
    "--with-requirements",
    "--python",
    "-p",
    "--index",
    "--default-index",
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--index-strategy",
    "--keyring-provider",
    "--resolution",
    "--prerelease",
    "--exclude-newer",
    "--cache-dir",
    "--directory",
    "--project",
    "--config-file",
    "--color",
    "--config-setting",
    "-C",
    "--constraints",
    "-c",
    "--overrides",
    "--build-constraints",
    "-b",
    "--env-file",
    "--refresh-package",
    "--reinstall-package",
    "--upgrade-package",
    "-P",
    "--no-build-package",
    "--no-binary-package",
    "--link-mode",
    "--python-platform",
    "--allow-insecure-host",
    "--fork-strategy",
];

/// Options that point the runner at a registry other than the public one: fetching from the
/// public registry instead would analyse a different package with the same name.
const CUSTOM_INDEX_OPTS: &[&str] = &[
    "--index",
    "--default-index",
    "--index-url",
    "-i",
    "--extra-index-url",
    "--find-links",
    "-f",
    "--registry",
    "--pip-args",
];

/// Splits `--opt=value` and `--opt value` forms; returns (options with values, positionals).
fn split_opts<'a>(
    args: &[&'a str],
    value_opts: &[&str],
) -> (Vec<(&'a str, Option<&'a str>)>, Vec<&'a str>) {
    let mut opts = Vec::new();
    let mut pos = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if a == "--" {
            pos.extend_from_slice(&args[i + 1..]);
            break;
        }
        if !pos.is_empty() {
            // Everything after the package belongs to the server.
            pos.push(a);
        } else if let Some((k, v)) = a.split_once('=').filter(|(k, _)| k.starts_with('-')) {
            opts.push((k, Some(v)));
        } else if a.starts_with('-') && a.len() > 1 {
            if value_opts.contains(&a) {
                opts.push((a, args.get(i + 1).copied()));
                i += 1;
            } else {
                opts.push((a, None));
            }
        } else {
            pos.push(a);
        }
        i += 1;
    }
    (opts, pos)
}

fn custom_index(runner: &str, opts: &[(&str, Option<&str>)]) -> Option<LaunchTarget> {
    opts.iter()
        .find(|(k, _)| CUSTOM_INDEX_OPTS.contains(k))
        .map(|(k, _)| {
            unsupported(
                runner,
                format!(
                    "`{k}` installs from a registry other than the public one; its package is not fetched"
                ),
            )
        })
}

fn uv_tool_run(runner: &str, args: &[&str]) -> LaunchTarget {
    let (opts, pos) = split_opts(args, UV_VALUE_OPTS);
    if let Some(t) = custom_index(runner, &opts) {
        return t;
    }
    let also: Vec<String> = opts
        .iter()
        .filter(|(k, _)| *k == "--with")
        .filter_map(|(_, v)| v.map(str::to_string))
        .collect();
    let spec = opts
        .iter()
        .find(|(k, _)| *k == "--from")
        .and_then(|(_, v)| *v)
        .or_else(|| pos.first().copied());
    let Some(spec) = spec else {
        return unsupported(runner, "names no package");
    };
    python_spec(runner, spec, also)
}

fn pipx_run(args: &[&str]) -> LaunchTarget {
    let runner = "pipx run";
    let (opts, pos) = split_opts(
        args,
        &[
            "--spec",
            "--python",
            "--index-url",
            "-i",
            "--pip-args",
            "--backend",
        ],
    );
    if let Some(t) = custom_index(runner, &opts) {
        return t;
    }
    let spec = opts
        .iter()
        .find(|(k, _)| *k == "--spec")
        .and_then(|(_, v)| *v)
        .or_else(|| pos.first().copied());
    match spec {
        Some(spec) => python_spec(runner, spec, Vec::new()),
        None => unsupported(runner, "names no package"),
    }
}

fn looks_like_path(spec: &str) -> bool {
    spec.starts_with('.')
        || spec.starts_with('/')
        || spec.starts_with('~')
        || spec.starts_with("file:")
        || spec.ends_with(".whl")
        || spec.ends_with(".tar.gz")
        || spec.ends_with(".tgz")
}

/// A PEP 508-ish requirement as uv and pipx accept it: `name[extras]`, then `==V`, `===V`, `@V`.
fn python_spec(runner: &str, spec: &str, also_installs: Vec<String>) -> LaunchTarget {
    let spec = spec.trim();
    if spec.contains("://") || spec.starts_with("git+") || spec.contains(" @ ") {
        return unsupported(
            runner,
            "installs from a URL or a version-control repository; only registry packages are fetched",
        );
    }
    if looks_like_path(spec) {
        return LaunchTarget::LocalPath {
            runner: runner.to_string(),
            path: PathBuf::from(spec),
        };
    }
    let name_end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let name = &spec[..name_end];
    let mut rest = spec[name_end..].trim_start();
    if rest.starts_with('[') {
        match rest.find(']') {
            Some(i) => rest = rest[i + 1..].trim_start(),
            None => return unsupported(runner, "unreadable package spec (unclosed extras)"),
        }
    }
    if !valid_pypi_name(name) {
        return unsupported(runner, "unreadable package name");
    }
    let requested = if rest.is_empty() || rest == "@latest" {
        Requested::Latest
    } else if let Some(v) = rest
        .strip_prefix("===")
        .or_else(|| rest.strip_prefix("=="))
        .or_else(|| rest.strip_prefix('@'))
    {
        let v = v.trim();
        if !valid_version(v) || v.contains('*') {
            return unsupported(
                runner,
                "pins a version pattern; only an exact version is resolved",
            );
        }
        Requested::Exact(v.to_string())
    } else {
        return unsupported(
            runner,
            "asks for a version range; only an exact pin or the latest release is resolved (pin `==VERSION`)",
        );
    };
    LaunchTarget::Package {
        runner: runner.to_string(),
        package: PackageRef {
            ecosystem: Ecosystem::Pypi,
            name: name.to_string(),
            requested,
        },
        also_installs,
    }
}

fn npm_like(runner: &str, args: &[&str]) -> LaunchTarget {
    let (opts, pos) = split_opts(
        args,
        &[
            "-p",
            "--package",
            "-c",
            "--call",
            "--registry",
            "--cache",
            "--userconfig",
            "-w",
            "--workspace",
        ],
    );
    if let Some(t) = custom_index(runner, &opts) {
        return t;
    }
    if opts.iter().any(|(k, _)| matches!(*k, "-c" | "--call")) {
        return unsupported(
            runner,
            "runs a shell command (`--call`); no package to fetch",
        );
    }
    let packages: Vec<&str> = opts
        .iter()
        .filter(|(k, _)| matches!(*k, "-p" | "--package"))
        .filter_map(|(_, v)| *v)
        .collect();
    let (spec, also) = match packages.split_first() {
        Some((first, rest)) => (Some(*first), rest.iter().map(|s| s.to_string()).collect()),
        None => (pos.first().copied(), Vec::new()),
    };
    let Some(spec) = spec else {
        return unsupported(runner, "names no package");
    };
    npm_spec(runner, spec, also)
}

/// `name`, `name@version`, `name@tag`, `@scope/name[@…]`.
fn npm_spec(runner: &str, spec: &str, also_installs: Vec<String>) -> LaunchTarget {
    if spec.contains("://")
        || spec.starts_with("git")
        || spec.starts_with("github:")
        || spec.starts_with("npm:")
    {
        return unsupported(
            runner,
            "installs from a URL, a repository or an alias; only registry packages are fetched",
        );
    }
    if looks_like_path(spec) {
        return LaunchTarget::LocalPath {
            runner: runner.to_string(),
            path: PathBuf::from(spec),
        };
    }
    let (name, version) = match spec.strip_prefix('@') {
        Some(rest) => match rest.split_once('@') {
            Some((n, v)) => (format!("@{n}"), Some(v)),
            None => (spec.to_string(), None),
        },
        None => match spec.split_once('@') {
            Some((n, v)) => (n.to_string(), Some(v)),
            None => (spec.to_string(), None),
        },
    };
    if !valid_npm_name(&name) {
        return unsupported(runner, "unreadable package name");
    }
    let requested = match version {
        None | Some("") | Some("latest") => Requested::Latest,
        Some(v) if is_exact_semver(v) => Requested::Exact(v.to_string()),
        Some(v)
            if v.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                && !v.starts_with('x')
                && !v.starts_with('X') =>
        {
            Requested::Tag(v.to_string())
        }
        Some(_) => {
            return unsupported(
                runner,
                "asks for a version range; only an exact version, a dist-tag or the latest release is resolved",
            );
        }
    };
    LaunchTarget::Package {
        runner: runner.to_string(),
        package: PackageRef {
            ecosystem: Ecosystem::Npm,
            name,
            requested,
        },
        also_installs,
    }
}

/// `1.2.3`, `1.2.3-beta.1`, `1.2.3+build` (what npm calls a version, not a range).
pub(crate) fn is_exact_semver(v: &str) -> bool {
    let core = v.split(['-', '+']).next().unwrap_or("");
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        && valid_version(v)
}

/// PyPI project names (PEP 508): letters, digits, `-_.`, starting and ending alphanumeric.
pub(crate) fn valid_pypi_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 214
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name.starts_with(|c: char| c.is_ascii_alphanumeric())
        && name.ends_with(|c: char| c.is_ascii_alphanumeric())
}

/// npm package names: an optional `@scope/`, then URL-safe characters; never `.`/`..`.
pub(crate) fn valid_npm_name(name: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '~'))
    };
    if name.len() > 214 {
        return false;
    }
    match name.strip_prefix('@') {
        Some(rest) => match rest.split_once('/') {
            Some((scope, pkg)) => part(scope) && part(pkg),
            None => false,
        },
        None => part(name),
    }
}

/// A version string safe to use as one path component.
pub(crate) fn valid_version(v: &str) -> bool {
    !v.is_empty()
        && v.len() <= 128
        && v.starts_with(|c: char| c.is_ascii_alphanumeric())
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+' | '!'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(cmd: &str) -> LaunchTarget {
        let mut it = cmd.split_whitespace();
        let c = it.next().unwrap_or("");
        let args: Vec<String> = it.map(str::to_string).collect();
        classify(c, &args)
    }

    fn pkg(t: &LaunchTarget) -> (Ecosystem, &str, &Requested) {
        match t {
            LaunchTarget::Package { package, .. } => {
                (package.ecosystem, package.name.as_str(), &package.requested)
            }
            other => panic!("expected a package, got {other:?}"),
        }
    }

    #[test]
    fn uvx_pins_and_latest_resolve_to_pypi_packages() {
        let t = run("uvx mcp-server-fetch");
        assert_eq!(
            pkg(&t),
            (Ecosystem::Pypi, "mcp-server-fetch", &Requested::Latest)
        );
        let t = run("uvx mcp-server-git==0.6.2 --repository /x");
        assert_eq!(
            pkg(&t),
            (
                Ecosystem::Pypi,
                "mcp-server-git",
                &Requested::Exact("0.6.2".into())
            )
        );
        let t = run("uvx --python 3.12 pkg[cli]@1.0.1");
        assert_eq!(
            pkg(&t),
            (Ecosystem::Pypi, "pkg", &Requested::Exact("1.0.1".into()))
        );
        let t = run("/home/u/.local/bin/uvx --from awslabs.core-mcp-server==2.0 core-server");
        assert_eq!(
            pkg(&t),
            (
                Ecosystem::Pypi,
                "awslabs.core-mcp-server",
                &Requested::Exact("2.0".into())
            )
        );
        let t = run("uv tool run --with extra pkg@latest");
        assert_eq!(pkg(&t), (Ecosystem::Pypi, "pkg", &Requested::Latest));
        match t {
            LaunchTarget::Package { also_installs, .. } => assert_eq!(also_installs, ["extra"]),
            _ => unreachable!(),
        }
        let t = run("pipx run --spec tool==3.1 tool-cmd");
        assert_eq!(
            pkg(&t),
            (Ecosystem::Pypi, "tool", &Requested::Exact("3.1".into()))
        );
    }

    #[test]
    fn npx_bunx_and_pnpm_dlx_resolve_to_npm_packages() {
        let t = run("npx -y @modelcontextprotocol/server-filesystem /tmp");
        assert_eq!(
            pkg(&t),
            (
                Ecosystem::Npm,
                "@modelcontextprotocol/server-filesystem",
                &Requested::Latest
            )
        );
        let t = run("npx -y @scope/pkg@1.2.3");
        assert_eq!(
            pkg(&t),
            (
                Ecosystem::Npm,
                "@scope/pkg",
                &Requested::Exact("1.2.3".into())
            )
        );
        let t = run("npx --yes some-server@next");
        assert_eq!(
            pkg(&t),
            (
                Ecosystem::Npm,
                "some-server",
                &Requested::Tag("next".into())
            )
        );
        let t = run("npx -p @a/b@1.0.0 b-cli");
        assert_eq!(
            pkg(&t),
            (Ecosystem::Npm, "@a/b", &Requested::Exact("1.0.0".into()))
        );
        let t = run("bunx pkg");
        assert_eq!(pkg(&t), (Ecosystem::Npm, "pkg", &Requested::Latest));
        let t = run("pnpm dlx pkg@latest");
        assert_eq!(pkg(&t), (Ecosystem::Npm, "pkg", &Requested::Latest));
        let t = run("npm exec -- pkg@0.1.0");
        assert_eq!(
            pkg(&t),
            (Ecosystem::Npm, "pkg", &Requested::Exact("0.1.0".into()))
        );
    }

    #[test]
    fn first_positional_of_npx_is_the_package_even_when_versioned_like_a_date() {
        let t = run("npx -y @modelcontextprotocol/server-filesystem@2025.1.14");
        assert_eq!(
            pkg(&t).2,
            &Requested::Exact("2025.1.14".into()),
            "a three-part numeric version is exact"
        );
    }

    #[test]
    fn ranges_urls_custom_registries_and_containers_are_unsupported_with_a_reason() {
        for cmd in [
            "uvx pkg>=1.0",
            "uvx --index-url https://mirror.example/simple pkg",
            "uvx --from git+https://github.com/o/r cmd",
            "npx -y pkg@^1.2.0",
            "npx --registry=https://npm.example pkg",
            "docker run -i --rm ghcr.io/github/github-mcp-server",
        ] {
            match run(cmd) {
                LaunchTarget::Unsupported { reason, .. } => assert!(!reason.is_empty(), "{cmd}"),
                other => panic!("{cmd}: expected unsupported, got {other:?}"),
            }
        }
    }

    #[test]
    fn plain_interpreters_and_local_paths_are_not_registry_packages() {
        assert_eq!(run("python server.py"), LaunchTarget::NotAPackage);
        assert_eq!(run("node /opt/srv/index.js"), LaunchTarget::NotAPackage);
        assert_eq!(run("uv run server.py"), LaunchTarget::NotAPackage);
        assert!(matches!(
            run("uvx --from ./srv srv"),
            LaunchTarget::LocalPath { .. }
        ));
    }

    #[test]
    fn a_script_runner_package_points_at_the_script_it_runs() {
        for (cmd, script) in [
            ("npx -y tsx src/server.ts", "src/server.ts"),
            ("uvx fastmcp run /srv/app.py", "/srv/app.py"),
            ("uvx --with mcp mcp run server.py", "server.py"),
        ] {
            match run(cmd) {
                LaunchTarget::LocalPath { path, .. } => assert_eq!(path, PathBuf::from(script)),
                other => panic!("{cmd}: {other:?}"),
            }
        }
        // Twin: a server package given a data file argument is still the package.
        assert!(matches!(
            run("npx -y @scope/server /data/config.js"),
            LaunchTarget::Package { .. }
        ));
    }

    #[test]
    fn traversal_shaped_names_are_rejected() {
        assert!(!valid_npm_name("../x"));
        assert!(!valid_npm_name("@s/.."));
        assert!(!valid_pypi_name("a/b"));
        assert!(matches!(
            run("npx a%2f.."),
            LaunchTarget::Unsupported { .. }
        ));
    }
}
