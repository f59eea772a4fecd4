//! Package fetch against a real HTTP server on 127.0.0.1 speaking PyPI's JSON API and the npm
//! registry's package documents, serving wheels and tarballs built here. The public registries
//! are never contacted.

use std::path::Path;

use base64::Engine;
use mcp_scan_clients::testing::{Registry, TarEntry, hex, tgz, wheel};
use mcp_scan_clients::{
    Ecosystem, FetchConfig, FetchError, LaunchTarget, Limits, PackageRef, classify, fetch,
};
use serde_json::json;
use sha2::Digest;

fn config(reg: &Registry, cache: &Path) -> FetchConfig {
    let mut c = FetchConfig::new(cache.to_path_buf());
    c.pypi_url = reg.base.clone();
    c.npm_url = reg.base.clone();
    c
}

fn package_of(cmd: &str) -> PackageRef {
    let mut it = cmd.split_whitespace();
    let c = it.next().expect("command");
    let args: Vec<String> = it.map(str::to_string).collect();
    match classify(c, &args) {
        LaunchTarget::Package { package, .. } => package,
        other => panic!("{cmd}: {other:?}"),
    }
}

fn echo_wheel(version: &str) -> Vec<u8> {
    let server = format!("VERSION = {version:?}\n");
    wheel(&[
        ("echo_mcp/__init__.py", b""),
        ("echo_mcp/server.py", server.as_bytes()),
        (
            &format!("echo_mcp-{version}.dist-info/METADATA"),
            b"Name: echo-mcp\n",
        ),
    ])
}

fn publish_echo(reg: &Registry) {
    for (v, latest) in [("0.1.0", false), ("0.2.0", true)] {
        reg.publish_pypi(
            "echo-mcp",
            v,
            &[
                (
                    &format!("echo_mcp-{v}.tar.gz"),
                    "sdist",
                    b"sdist bytes, never fetched".to_vec(),
                ),
                (
                    &format!("echo_mcp-{v}-py3-none-any.whl"),
                    "bdist_wheel",
                    echo_wheel(v),
                ),
            ],
            latest,
            None,
        );
    }
}

#[test]
fn uvx_latest_fetches_the_verified_wheel_and_never_the_sdist() {
    let reg = Registry::start();
    publish_echo(&reg);
    let cache = tempfile::tempdir().expect("tempdir");
    let got = fetch(&config(&reg, cache.path()), &package_of("uvx echo-mcp")).expect("fetch");
    assert_eq!(got.version, "0.2.0");
    assert!(!got.from_cache);
    let src = std::fs::read_to_string(got.source_dir.join("echo_mcp/server.py")).expect("src");
    assert_eq!(src, "VERSION = \"0.2.0\"\n");
    assert_eq!(got.artifact, "echo_mcp-0.2.0-py3-none-any.whl");
    assert_eq!(got.sha256, hex(&sha2::Sha256::digest(echo_wheel("0.2.0"))));
    assert!(
        got.source_dir
            .starts_with(cache.path().join("pypi/echo-mcp/0.2.0"))
    );
    let asked = reg.requested();
    assert!(asked.iter().all(|p| !p.ends_with(".tar.gz")), "{asked:?}");
    assert!(asked.contains(&"/files/echo_mcp-0.2.0-py3-none-any.whl".to_string()));
}

#[test]
fn a_pinned_version_is_fetched_and_then_served_from_the_cache_offline() {
    let reg = Registry::start();
    publish_echo(&reg);
    let cache = tempfile::tempdir().expect("tempdir");
    let pkg = package_of("uvx --from echo-mcp==0.1.0 echo");
    let got = fetch(&config(&reg, cache.path()), &pkg).expect("fetch");
    assert_eq!(got.version, "0.1.0");
    let n = reg.requested().len();
    // Offline, with a registry that does not exist: the cache answers.
    let mut offline = FetchConfig::new(cache.path().to_path_buf());
    offline.offline = true;
    offline.pypi_url = "http://127.0.0.1:9".to_string();
    let again = fetch(&offline, &pkg).expect("cache hit");
    assert!(again.from_cache);
    assert_eq!(again.source_dir, got.source_dir);
    // Online, a pinned cache hit asks nothing either.
    let online = fetch(&config(&reg, cache.path()), &pkg).expect("cache hit");
    assert!(online.from_cache);
    assert_eq!(reg.requested().len(), n);
}

#[test]
fn offline_cache_miss_and_unpinned_requests_fail_clearly() {
    let cache = tempfile::tempdir().expect("tempdir");
    let mut offline = FetchConfig::new(cache.path().to_path_buf());
    offline.offline = true;
    let miss = fetch(&offline, &package_of("uvx echo-mcp==9.9.9")).expect_err("miss");
    assert!(matches!(miss, FetchError::OfflineMiss { .. }), "{miss}");
    assert!(miss.to_string().contains("not in the cache"), "{miss}");
    let latest = fetch(&offline, &package_of("npx -y @a/b")).expect_err("unresolved");
    assert!(
        matches!(latest, FetchError::OfflineUnresolved { .. }),
        "{latest}"
    );
    assert!(
        latest.to_string().contains("pin an exact version"),
        "{latest}"
    );
}

#[test]
fn a_package_with_only_an_sdist_is_refused_without_downloading_it() {
    let reg = Registry::start();
    reg.publish_pypi(
        "setup-only",
        "1.0.0",
        &[("setup-only-1.0.0.tar.gz", "sdist", b"x".to_vec())],
        true,
        None,
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let e = fetch(
        &config(&reg, cache.path()),
        &package_of("pipx run setup-only"),
    )
    .expect_err("no wheel");
    assert!(matches!(e, FetchError::NoWheel { .. }), "{e}");
    assert!(reg.requested().iter().all(|p| !p.starts_with("/files/")));
}

#[test]
fn a_wheel_whose_hash_differs_from_the_registrys_is_refused_and_not_cached() {
    let reg = Registry::start();
    reg.publish_pypi(
        "tampered",
        "1.0.0",
        &[(
            "tampered-1.0.0-py3-none-any.whl",
            "bdist_wheel",
            wheel(&[("tampered/__init__.py", b"")]),
        )],
        true,
        Some(&"0".repeat(64)),
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let e = fetch(&config(&reg, cache.path()), &package_of("uvx tampered")).expect_err("mismatch");
    assert!(
        matches!(
            e,
            FetchError::HashMismatch {
                algorithm: "sha256",
                ..
            }
        ),
        "{e}"
    );
    assert!(!cache.path().join("pypi/tampered/1.0.0").exists());
    let leftovers: Vec<_> = std::fs::read_dir(cache.path().join("pypi/tampered"))
        .expect("dir")
        .collect();
    assert!(leftovers.is_empty(), "partial download left behind");
}

#[test]
fn unknown_packages_and_versions_are_named_in_the_error() {
    let reg = Registry::start();
    publish_echo(&reg);
    let cache = tempfile::tempdir().expect("tempdir");
    let cfg = config(&reg, cache.path());
    let e = fetch(&cfg, &package_of("uvx nope")).expect_err("404");
    assert!(matches!(e, FetchError::PackageNotFound { .. }), "{e}");
    let e = fetch(&cfg, &package_of("uvx echo-mcp==3.0.0")).expect_err("404");
    assert!(e.to_string().contains("no version \"3.0.0\""), "{e}");
    let e = fetch(&cfg, &package_of("npx -y @x/nope")).expect_err("404");
    assert!(e.to_string().contains("@x/nope not found"), "{e}");
}

fn npm_tarball(version: &str) -> Vec<u8> {
    let index = format!("export const version = {version:?};\n");
    tgz(&[
        TarEntry::File(
            "package/package.json",
            br#"{"name": "@fixture/echo-mcp", "bin": "dist/index.js"}"#,
        ),
        TarEntry::File("package/dist/index.js", index.as_bytes()),
    ])
}

#[test]
fn npx_scoped_packages_resolve_latest_exact_and_dist_tags_with_sha512_integrity() {
    let reg = Registry::start();
    reg.publish_npm(
        "@fixture/echo-mcp",
        &[
            ("1.0.0", npm_tarball("1.0.0")),
            ("1.1.0", npm_tarball("1.1.0")),
            ("2.0.0-beta.1", npm_tarball("2.0.0-beta.1")),
        ],
        json!({"latest": "1.1.0", "next": "2.0.0-beta.1"}),
        None,
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let cfg = config(&reg, cache.path());
    for (cmd, version) in [
        ("npx -y @fixture/echo-mcp", "1.1.0"),
        ("bunx @fixture/echo-mcp@1.0.0", "1.0.0"),
        ("pnpm dlx @fixture/echo-mcp@next", "2.0.0-beta.1"),
    ] {
        let got = fetch(&cfg, &package_of(cmd)).expect(cmd);
        assert_eq!(got.version, version, "{cmd}");
        assert_eq!(got.ecosystem, Ecosystem::Npm);
        let index = std::fs::read_to_string(got.source_dir.join("dist/index.js")).expect("index");
        assert!(index.contains(version), "{cmd}: {index}");
        assert!(got.source_dir.join("package.json").is_file());
        assert!(
            got.source_dir
                .starts_with(cache.path().join("npm/@fixture+echo-mcp").join(version))
        );
    }
}

#[test]
fn an_npm_tarball_failing_its_integrity_is_refused() {
    let reg = Registry::start();
    let wrong = format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode([7u8; 64])
    );
    reg.publish_npm(
        "bad-integrity",
        &[("1.0.0", npm_tarball("1.0.0"))],
        json!({"latest": "1.0.0"}),
        Some(&wrong),
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let e = fetch(
        &config(&reg, cache.path()),
        &package_of("npx -y bad-integrity"),
    )
    .expect_err("mismatch");
    assert!(
        matches!(
            e,
            FetchError::HashMismatch {
                algorithm: "sha512",
                ..
            }
        ),
        "{e}"
    );
    assert!(!cache.path().join("npm/bad-integrity/1.0.0").exists());
}

/// Publishes `bytes` as npm package `name` 1.0.0 and fetches it.
fn fetch_npm_archive(
    bytes: Vec<u8>,
    limits: Limits,
) -> (Result<(), FetchError>, tempfile::TempDir) {
    let reg = Registry::start();
    reg.publish_npm(
        "evil",
        &[("1.0.0", bytes)],
        json!({"latest": "1.0.0"}),
        None,
    );
    let outer = tempfile::tempdir().expect("tempdir");
    let mut cfg = config(&reg, &outer.path().join("cache"));
    cfg.limits = limits;
    let r = fetch(&cfg, &package_of("npx -y evil")).map(|_| ());
    (r, outer)
}

#[test]
fn tarball_entries_climbing_out_of_the_package_are_refused() {
    let bytes = tgz(&[
        TarEntry::File("package/index.js", b"ok"),
        TarEntry::File("package/../../../escaped.txt", b"pwned"),
    ]);
    let (r, outer) = fetch_npm_archive(bytes, Limits::default());
    let e = r.expect_err("traversal");
    assert!(matches!(e, FetchError::UnsafeArchive { .. }), "{e}");
    assert!(e.to_string().contains("climbs out"), "{e}");
    let escaped: Vec<_> = walk(outer.path())
        .into_iter()
        .filter(|p| p.ends_with("escaped.txt"))
        .collect();
    assert!(escaped.is_empty(), "{escaped:?}");
    assert!(!outer.path().join("cache/npm/evil/1.0.0").exists());
}

#[test]
fn symlinks_in_tarballs_and_wheels_are_refused() {
    let bytes = tgz(&[
        TarEntry::File("package/index.js", b"ok"),
        TarEntry::Symlink("package/key", "/home/user/.ssh/id_rsa"),
    ]);
    let (r, _outer) = fetch_npm_archive(bytes, Limits::default());
    let e = r.expect_err("symlink");
    assert!(e.to_string().contains("symbolic link"), "{e}");

    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let o = zip::write::SimpleFileOptions::default();
        z.start_file("pkg/__init__.py", o).expect("start");
        z.add_symlink("pkg/link", "/etc/passwd", o)
            .expect("symlink");
        z.finish().expect("finish");
    }
    let reg = Registry::start();
    reg.publish_pypi(
        "linky",
        "1.0.0",
        &[(
            "linky-1.0.0-py3-none-any.whl",
            "bdist_wheel",
            buf.into_inner(),
        )],
        true,
        None,
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let e = fetch(&config(&reg, cache.path()), &package_of("uvx linky")).expect_err("symlink");
    assert!(e.to_string().contains("symbolic link"), "{e}");
}

#[test]
fn wheel_entries_with_parent_or_absolute_paths_are_refused() {
    for bad in ["../evil.py", "/etc/cron.d/evil", "pkg/..\\..\\evil.py"] {
        let reg = Registry::start();
        reg.publish_pypi(
            "zipslip",
            "1.0.0",
            &[(
                "zipslip-1.0.0-py3-none-any.whl",
                "bdist_wheel",
                wheel(&[("zipslip/__init__.py", b""), (bad, b"evil")]),
            )],
            true,
            None,
        );
        let outer = tempfile::tempdir().expect("tempdir");
        let e = fetch(
            &config(&reg, &outer.path().join("cache")),
            &package_of("uvx zipslip"),
        )
        .expect_err(bad);
        assert!(matches!(e, FetchError::UnsafeArchive { .. }), "{bad}: {e}");
        assert!(walk(outer.path()).iter().all(|p| !p.ends_with("evil.py")));
    }
}

#[test]
fn oversized_entries_and_decompression_bombs_are_refused() {
    let big = vec![0u8; 4 * 1024 * 1024];
    let small_limits = Limits {
        max_file_bytes: 1024 * 1024,
        max_unpacked_bytes: 2 * 1024 * 1024,
        ..Limits::default()
    };
    let bytes = tgz(&[TarEntry::File("package/blob.bin", &big)]);
    // Zeros compress a thousandfold: the download is tiny, the content is not.
    assert!(bytes.len() < 64 * 1024, "{}", bytes.len());
    let (r, _o) = fetch_npm_archive(bytes, small_limits.clone());
    let e = r.expect_err("oversize");
    assert!(matches!(e, FetchError::TooLarge { .. }), "{e}");
    // Many files each under the per-file limit, together over the total.
    let parts: Vec<(String, Vec<u8>)> = (0..4)
        .map(|i| (format!("package/part{i}.bin"), vec![0u8; 900 * 1024]))
        .collect();
    let entries: Vec<TarEntry> = parts
        .iter()
        .map(|(n, d)| TarEntry::File(n.as_str(), d.as_slice()))
        .collect();
    let (r, _o) = fetch_npm_archive(tgz(&entries), small_limits.clone());
    let e = r.expect_err("total");
    assert!(e.to_string().contains("unpacked size"), "{e}");
    // A download over the limit stops before it is unpacked.
    let (r, _o) = fetch_npm_archive(
        npm_tarball("1.0.0"),
        Limits {
            max_download_bytes: 16,
            ..Limits::default()
        },
    );
    assert!(r.expect_err("download").to_string().contains("download"));
    // The honest twin: the same archive within the limits unpacks.
    let (r, _o) = fetch_npm_archive(
        tgz(&[TarEntry::File("package/blob.bin", &big[..512 * 1024])]),
        small_limits,
    );
    r.expect("within limits");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out
}

#[test]
fn registry_urls_are_only_the_configured_ones() {
    // Every request of a full fetch went to the local registry (the only server the test has):
    // nothing in the crate falls back to a public default when a base URL is set.
    let reg = Registry::start();
    publish_echo(&reg);
    let cache = tempfile::tempdir().expect("tempdir");
    let mut cfg = config(&reg, cache.path());
    cfg.npm_url = "http://127.0.0.1:9".to_string();
    fetch(&cfg, &package_of("uvx echo-mcp")).expect("fetch");
    let e = fetch(&cfg, &package_of("npx -y x")).expect_err("npm unreachable");
    assert!(matches!(e, FetchError::Http { .. }), "{e}");
    assert!(e.to_string().contains("127.0.0.1:9"), "{e}");
}

#[test]
fn relative_file_urls_resolve_against_the_document_and_non_http_schemes_are_refused() {
    let reg = Registry::start();
    let whl = wheel(&[("rel/__init__.py", b"X = 1\n")]);
    reg.serve("/files/rel-1.0.0-py3-none-any.whl", whl.clone());
    let doc = |url: &str| {
        serde_json::to_vec(&json!({
            "info": {"version": "1.0.0"},
            "urls": [{
                "filename": "rel-1.0.0-py3-none-any.whl",
                "packagetype": "bdist_wheel",
                "url": url,
                "digests": {"sha256": hex(&sha2::Sha256::digest(&whl))},
            }],
        }))
        .expect("json")
    };
    // What a mirror answers: a path relative to /pypi/rel/json.
    reg.serve(
        "/pypi/rel/json",
        doc("../../files/rel-1.0.0-py3-none-any.whl"),
    );
    let cache = tempfile::tempdir().expect("tempdir");
    let got = fetch(&config(&reg, cache.path()), &package_of("uvx rel")).expect("relative url");
    assert!(got.source_dir.join("rel/__init__.py").is_file());
    reg.serve("/pypi/local/json", doc("file:///etc/passwd"));
    let e = fetch(&config(&reg, cache.path()), &package_of("uvx local")).expect_err("file url");
    assert!(e.to_string().contains("only http(s)"), "{e}");
}
