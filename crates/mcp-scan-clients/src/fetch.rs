//! Fetching a registry package's source: resolve the version the launch command would run,
//! download the built artifact (PyPI: a wheel, never an sdist, whose build would run the
//! package's setup code; npm: the tarball), verify the registry's hash, unpack it safely into a
//! cache keyed by ecosystem, name and version, and return the source directory.
//!
//! Registry wire formats: PyPI's JSON API (`GET /pypi/<name>/json`, `/pypi/<name>/<version>/json`:
//! `info.version`, `urls[].{packagetype, filename, url, digests.sha256}`;
//! <https://docs.pypi.org/api/json/>), the npm registry's package document (`GET /<name>`, scoped
//! names as `@scope%2fname`: `dist-tags`, `versions[v].dist.{tarball, integrity, shasum}`;
//! <https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md>).
//!
//! Cache layout: `<cache>/<pypi|npm>/<name>/<version>/{<name>-<version>/, artifact.json}`; a version
//! directory appears (by rename) only once its archive was verified and unpacked.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::Digest;

use crate::launch::{
    Ecosystem, PackageRef, Requested, valid_npm_name, valid_pypi_name, valid_version,
};
use crate::unpack;

/// Size limits for downloads and unpacked archives.
#[derive(Debug, Clone)]
pub struct Limits {
    pub max_download_bytes: u64,
    pub max_unpacked_bytes: u64,
    pub max_file_bytes: u64,
    pub max_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_download_bytes: 200 * 1024 * 1024,
            max_unpacked_bytes: 500 * 1024 * 1024,
            max_file_bytes: 100 * 1024 * 1024,
            max_entries: 50_000,
        }
    }
}

pub const DEFAULT_PYPI_URL: &str = "https://pypi.org";
pub const DEFAULT_NPM_URL: &str = "https://registry.npmjs.org";

#[derive(Debug, Clone)]
pub struct FetchConfig {
    /// PyPI's base URL (the JSON API is under `<base>/pypi/`).
    pub pypi_url: String,
    /// The npm registry's base URL.
    pub npm_url: String,
    pub cache_dir: PathBuf,
    /// Never touch the network: only cached, pinned versions are served.
    pub offline: bool,
    pub limits: Limits,
    pub timeout: Duration,
}

impl FetchConfig {
    pub fn new(cache_dir: PathBuf) -> Self {
        FetchConfig {
            pypi_url: DEFAULT_PYPI_URL.to_string(),
            npm_url: DEFAULT_NPM_URL.to_string(),
            cache_dir,
            offline: false,
            limits: Limits::default(),
            timeout: Duration::from_secs(120),
        }
    }

    /// The defaults, overridden by `MCP_SCAN_PYPI_URL`, `MCP_SCAN_NPM_REGISTRY`,
    /// `MCP_SCAN_PACKAGE_CACHE` and `MCP_SCAN_OFFLINE=1`. The cache defaults to
    /// `$XDG_CACHE_HOME/mcp-scan/packages` (`~/.cache/…`; `~/Library/Caches/…` on macOS).
    pub fn from_env(home: &Path) -> Self {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let cache = var("MCP_SCAN_PACKAGE_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                let base = if cfg!(target_os = "macos") {
                    home.join("Library/Caches")
                } else {
                    var("XDG_CACHE_HOME")
                        .map(PathBuf::from)
                        .unwrap_or_else(|| home.join(".cache"))
                };
                base.join("mcp-scan/packages")
            });
        let mut c = FetchConfig::new(cache);
        if let Some(u) = var("MCP_SCAN_PYPI_URL") {
            c.pypi_url = u;
        }
        if let Some(u) = var("MCP_SCAN_NPM_REGISTRY") {
            c.npm_url = u;
        }
        c.offline = var("MCP_SCAN_OFFLINE").is_some_and(|v| v != "0");
        c
    }
}

#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("invalid {ecosystem} package name {name:?}")]
    InvalidName { ecosystem: Ecosystem, name: String },
    #[error("{ecosystem} package {name} not found at {registry}")]
    PackageNotFound {
        ecosystem: Ecosystem,
        name: String,
        registry: String,
    },
    #[error("{ecosystem} package {name} has no version {version:?}")]
    VersionNotFound {
        ecosystem: Ecosystem,
        name: String,
        version: String,
    },
    #[error(
        "PyPI package {name} {version} publishes no wheel; its source distribution is not built because building runs the package's own setup code"
    )]
    NoWheel { name: String, version: String },
    #[error(
        "{ecosystem} package {name} {version}: the registry gives no hash to verify {file}; not used"
    )]
    MissingHash {
        ecosystem: Ecosystem,
        name: String,
        version: String,
        file: String,
    },
    #[error(
        "hash mismatch for {file}: the registry says {algorithm} {expected}, the download is {actual}; not used"
    )]
    HashMismatch {
        file: String,
        algorithm: &'static str,
        expected: String,
        actual: String,
    },
    #[error(
        "offline: {ecosystem} package {name} {version} is not in the cache ({cache}); run once with network access"
    )]
    OfflineMiss {
        ecosystem: Ecosystem,
        name: String,
        version: String,
        cache: PathBuf,
    },
    #[error(
        "offline: the version of {ecosystem} package {name} the command runs ({requested}) needs the registry to resolve; pin an exact version or allow network access"
    )]
    OfflineUnresolved {
        ecosystem: Ecosystem,
        name: String,
        requested: String,
    },
    #[error("{url}: {reason}")]
    Http { url: String, reason: String },
    #[error("{url}: HTTP status {status}")]
    Status { url: String, status: u16 },
    #[error("{url}: unexpected registry answer: {reason}")]
    BadAnswer { url: String, reason: String },
    #[error("archive {archive}: entry {entry:?} {reason}")]
    UnsafeArchive {
        archive: String,
        entry: String,
        reason: String,
    },
    #[error("archive {archive}: {what} is over the limit of {limit}")]
    TooLarge {
        archive: String,
        what: String,
        limit: u64,
    },
    #[error("archive {archive}: {reason}")]
    BadArchive { archive: String, reason: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A package's source on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FetchedPackage {
    pub ecosystem: Ecosystem,
    pub name: String,
    pub version: String,
    /// The unpacked archive: a wheel's contents, or an npm package's root.
    pub source_dir: PathBuf,
    /// The archive's file name, as the registry lists it.
    pub artifact: String,
    /// SHA-256 of the archive as downloaded and verified.
    pub sha256: String,
    /// Served from the cache without downloading.
    #[serde(skip)]
    pub from_cache: bool,
}

/// What is kept next to a cached source tree.
#[derive(Debug, Serialize, Deserialize)]
struct CacheMeta {
    ecosystem: Ecosystem,
    name: String,
    version: String,
    artifact: String,
    sha256: String,
}

/// The artifact chosen for one resolved version.
struct Artifact {
    version: String,
    file: String,
    url: String,
    hash: ExpectedHash,
}

enum ExpectedHash {
    Sha256Hex(String),
    Sha512(Vec<u8>),
    Sha1Hex(String),
}

/// Resolves, downloads, verifies and unpacks one package (or serves it from the cache).
pub fn fetch(cfg: &FetchConfig, pkg: &PackageRef) -> Result<FetchedPackage, FetchError> {
    let name_ok = match pkg.ecosystem {
        Ecosystem::Pypi => valid_pypi_name(&pkg.name),
        Ecosystem::Npm => valid_npm_name(&pkg.name),
    };
    if !name_ok {
        return Err(FetchError::InvalidName {
            ecosystem: pkg.ecosystem,
            name: pkg.name.clone(),
        });
    }
    if let Requested::Exact(v) = &pkg.requested {
        if !valid_version(v) {
            return Err(FetchError::VersionNotFound {
                ecosystem: pkg.ecosystem,
                name: pkg.name.clone(),
                version: v.clone(),
            });
        }
        if let Some(hit) = cached(cfg, pkg.ecosystem, &pkg.name, v)? {
            return Ok(hit);
        }
        if cfg.offline {
            return Err(FetchError::OfflineMiss {
                ecosystem: pkg.ecosystem,
                name: pkg.name.clone(),
                version: v.clone(),
                cache: cfg.cache_dir.clone(),
            });
        }
    } else if cfg.offline {
        return Err(FetchError::OfflineUnresolved {
            ecosystem: pkg.ecosystem,
            name: pkg.name.clone(),
            requested: match &pkg.requested {
                Requested::Tag(t) => format!("dist-tag {t}"),
                _ => "the latest release".to_string(),
            },
        });
    }
    let http = Http::new(cfg.timeout, is_loopback(cfg_registry(cfg, pkg.ecosystem)))?;
    let artifact = match pkg.ecosystem {
        Ecosystem::Pypi => resolve_pypi(&http, cfg, pkg)?,
        Ecosystem::Npm => resolve_npm(&http, cfg, pkg)?,
    };
    if !valid_version(&artifact.version) {
        return Err(FetchError::BadAnswer {
            url: cfg_registry(cfg, pkg.ecosystem).to_string(),
            reason: format!(
                "version {:?} is not a plain version string",
                artifact.version
            ),
        });
    }
    if let Some(hit) = cached(cfg, pkg.ecosystem, &pkg.name, &artifact.version)? {
        return Ok(hit);
    }
    download_into_cache(&http, cfg, pkg, artifact)
}

fn cfg_registry(cfg: &FetchConfig, eco: Ecosystem) -> &str {
    match eco {
        Ecosystem::Pypi => &cfg.pypi_url,
        Ecosystem::Npm => &cfg.npm_url,
    }
}

/// PEP 503 normalisation: PyPI treats `Foo_Bar.baz` and `foo-bar-baz` as one project.
fn cache_name(eco: Ecosystem, name: &str) -> String {
    match eco {
        Ecosystem::Pypi => {
            let mut out = String::with_capacity(name.len());
            let mut sep = false;
            for c in name.chars() {
                if matches!(c, '-' | '_' | '.') {
                    sep = true;
                } else {
                    if sep && !out.is_empty() {
                        out.push('-');
                    }
                    sep = false;
                    out.push(c.to_ascii_lowercase());
                }
            }
            out
        }
        // `@scope/name` as one path component; `+` is not allowed in npm names.
        Ecosystem::Npm => name.replace('/', "+"),
    }
}

fn version_dir(cfg: &FetchConfig, eco: Ecosystem, name: &str, version: &str) -> PathBuf {
    let eco_dir = match eco {
        Ecosystem::Pypi => "pypi",
        Ecosystem::Npm => "npm",
    };
    cfg.cache_dir
        .join(eco_dir)
        .join(cache_name(eco, name))
        .join(version)
}

/// `<name>-<version>`: commands that name a server after its directory show the package.
fn source_dir_name(eco: Ecosystem, name: &str, version: &str) -> String {
    format!("{}-{version}", cache_name(eco, name))
}

fn cached(
    cfg: &FetchConfig,
    eco: Ecosystem,
    name: &str,
    version: &str,
) -> Result<Option<FetchedPackage>, FetchError> {
    let dir = version_dir(cfg, eco, name, version);
    let meta_path = dir.join("artifact.json");
    let text = match std::fs::read_to_string(&meta_path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(FetchError::Io {
                path: meta_path,
                source: e,
            });
        }
    };
    let Ok(meta) = serde_json::from_str::<CacheMeta>(&text) else {
        // A damaged entry is refetched rather than trusted.
        return Ok(None);
    };
    let source_dir = dir.join(source_dir_name(eco, name, version));
    if meta.ecosystem != eco || meta.version != version || !source_dir.is_dir() {
        return Ok(None);
    }
    Ok(Some(FetchedPackage {
        ecosystem: eco,
        name: name.to_string(),
        version: meta.version,
        source_dir,
        artifact: meta.artifact,
        sha256: meta.sha256,
        from_cache: true,
    }))
}

fn bad_answer(url: &str, reason: impl Into<String>) -> FetchError {
    FetchError::BadAnswer {
        url: url.to_string(),
        reason: reason.into(),
    }
}

fn resolve_pypi(http: &Http, cfg: &FetchConfig, pkg: &PackageRef) -> Result<Artifact, FetchError> {
    let base = cfg.pypi_url.trim_end_matches('/');
    let url = match &pkg.requested {
        Requested::Exact(v) => format!("{base}/pypi/{}/{v}/json", pkg.name),
        _ => format!("{base}/pypi/{}/json", pkg.name),
    };
    let doc = match http.get_json(&url, "application/json") {
        Err(FetchError::Status { status: 404, .. }) => {
            return Err(match &pkg.requested {
                Requested::Exact(v) => FetchError::VersionNotFound {
                    ecosystem: Ecosystem::Pypi,
                    name: pkg.name.clone(),
                    version: v.clone(),
                },
                _ => FetchError::PackageNotFound {
                    ecosystem: Ecosystem::Pypi,
                    name: pkg.name.clone(),
                    registry: redact(base),
                },
            });
        }
        other => other?,
    };
    let version = doc
        .pointer("/info/version")
        .and_then(Value::as_str)
        .ok_or_else(|| bad_answer(&url, "no info.version"))?
        .to_string();
    let urls = doc
        .get("urls")
        .and_then(Value::as_array)
        .ok_or_else(|| bad_answer(&url, "no urls list"))?;
    // An exact pin installs even a yanked release; the latest never is one.
    let pinned = matches!(pkg.requested, Requested::Exact(_));
    let mut wheels: Vec<&Value> = urls
        .iter()
        .filter(|u| u.get("packagetype").and_then(Value::as_str) == Some("bdist_wheel"))
        .filter(|u| pinned || u.get("yanked").and_then(Value::as_bool) != Some(true))
        .collect();
    // A pure-Python wheel is the same source on every platform; otherwise any wheel, in a
    // fixed order so two runs pick the same file.
    wheels.sort_by_key(|u| {
        let f = u.get("filename").and_then(Value::as_str).unwrap_or("");
        (!f.ends_with("-none-any.whl"), f.to_string())
    });
    let Some(w) = wheels.first() else {
        return Err(FetchError::NoWheel {
            name: pkg.name.clone(),
            version,
        });
    };
    let file = w
        .get("filename")
        .and_then(Value::as_str)
        .ok_or_else(|| bad_answer(&url, "a wheel without a filename"))?
        .to_string();
    let file_url = w
        .get("url")
        .and_then(Value::as_str)
        .ok_or_else(|| bad_answer(&url, "a wheel without a url"))?;
    let file_url = join_url(&url, file_url)?;
    let Some(sha) = w
        .pointer("/digests/sha256")
        .and_then(Value::as_str)
        .filter(|s| s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit()))
    else {
        return Err(FetchError::MissingHash {
            ecosystem: Ecosystem::Pypi,
            name: pkg.name.clone(),
            version,
            file,
        });
    };
    Ok(Artifact {
        version,
        file,
        url: file_url,
        hash: ExpectedHash::Sha256Hex(sha.to_ascii_lowercase()),
    })
}

fn resolve_npm(http: &Http, cfg: &FetchConfig, pkg: &PackageRef) -> Result<Artifact, FetchError> {
    let base = cfg.npm_url.trim_end_matches('/');
    let url = format!("{base}/{}", pkg.name.replace('/', "%2f"));
    // The abbreviated ("corgi") document has everything needed and is far smaller.
    let doc = match http.get_json(
        &url,
        "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8",
    ) {
        Err(FetchError::Status { status: 404, .. }) => {
            return Err(FetchError::PackageNotFound {
                ecosystem: Ecosystem::Npm,
                name: pkg.name.clone(),
                registry: redact(base),
            });
        }
        other => other?,
    };
    let not_found = |v: &str| FetchError::VersionNotFound {
        ecosystem: Ecosystem::Npm,
        name: pkg.name.clone(),
        version: v.to_string(),
    };
    let version = match &pkg.requested {
        Requested::Exact(v) => v.clone(),
        Requested::Latest => doc
            .pointer("/dist-tags/latest")
            .and_then(Value::as_str)
            .ok_or_else(|| bad_answer(&url, "no dist-tags.latest"))?
            .to_string(),
        Requested::Tag(t) => doc
            .get("dist-tags")
            .and_then(|d| d.get(t))
            .and_then(Value::as_str)
            .ok_or_else(|| not_found(t))?
            .to_string(),
    };
    let dist = doc
        .get("versions")
        .and_then(|v| v.get(&version))
        .and_then(|v| v.get("dist"))
        .ok_or_else(|| not_found(&version))?;
    let tarball = dist
        .get("tarball")
        .and_then(Value::as_str)
        .ok_or_else(|| bad_answer(&url, format!("version {version} has no dist.tarball")))?;
    let tarball = join_url(&url, tarball)?;
    let file = tarball
        .rsplit('/')
        .next()
        .filter(|f| !f.is_empty())
        .unwrap_or("package.tgz")
        .to_string();
    // Subresource-integrity strings may list several; the strongest we know wins.
    let sha512 = dist
        .get("integrity")
        .and_then(Value::as_str)
        .into_iter()
        .flat_map(str::split_whitespace)
        .filter_map(|i| i.strip_prefix("sha512-"))
        .find_map(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
        .filter(|d| d.len() == 64);
    let hash = match sha512 {
        Some(d) => ExpectedHash::Sha512(d),
        None => match dist
            .get("shasum")
            .and_then(Value::as_str)
            .filter(|s| s.len() == 40 && s.chars().all(|c| c.is_ascii_hexdigit()))
        {
            Some(s) => ExpectedHash::Sha1Hex(s.to_ascii_lowercase()),
            None => {
                return Err(FetchError::MissingHash {
                    ecosystem: Ecosystem::Npm,
                    name: pkg.name.clone(),
                    version,
                    file,
                });
            }
        },
    };
    Ok(Artifact {
        version,
        file,
        url: tarball,
        hash,
    })
}

/// A file URL from a registry document, resolved against the document's URL: mirrors (and
/// PEP 691 indexes) list relative ones.
fn join_url(doc_url: &str, file_url: &str) -> Result<String, FetchError> {
    let base = reqwest::Url::parse(doc_url).map_err(|e| bad_answer(doc_url, e.to_string()))?;
    let joined = base
        .join(file_url)
        .map_err(|e| bad_answer(doc_url, format!("file URL {file_url:?}: {e}")))?;
    match joined.scheme() {
        "http" | "https" => Ok(joined.to_string()),
        other => Err(bad_answer(
            doc_url,
            format!("file URL with scheme {other:?}; only http(s) is fetched"),
        )),
    }
}

/// Whether a base URL points at this machine (127.0.0.0/8, ::1, localhost).
fn is_loopback(base_url: &str) -> bool {
    let Ok(u) = reqwest::Url::parse(base_url) else {
        return false;
    };
    let host = u.host_str().unwrap_or("");
    host.eq_ignore_ascii_case("localhost")
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn download_into_cache(
    http: &Http,
    cfg: &FetchConfig,
    pkg: &PackageRef,
    art: Artifact,
) -> Result<FetchedPackage, FetchError> {
    let final_dir = version_dir(cfg, pkg.ecosystem, &pkg.name, &art.version);
    let parent = final_dir
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| cfg.cache_dir.clone());
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: std::io::Error| FetchError::Io { path, source: e }
    };
    std::fs::create_dir_all(&parent).map_err(io(&parent))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = parent.join(format!(
        ".{}.partial-{}-{nanos}",
        art.version,
        std::process::id()
    ));
    std::fs::create_dir_all(&tmp).map_err(io(&tmp))?;
    let result = (|| {
        let archive_path = tmp.join("artifact");
        let digests = http.download(&art.url, &archive_path, cfg.limits.max_download_bytes)?;
        let (algorithm, expected, actual) = match &art.hash {
            ExpectedHash::Sha256Hex(h) => ("sha256", h.clone(), hex(&digests.sha256)),
            ExpectedHash::Sha512(d) => (
                "sha512",
                base64::engine::general_purpose::STANDARD.encode(d),
                base64::engine::general_purpose::STANDARD.encode(&digests.sha512),
            ),
            ExpectedHash::Sha1Hex(h) => ("sha1", h.clone(), hex(&digests.sha1)),
        };
        if expected != actual {
            return Err(FetchError::HashMismatch {
                file: art.file.clone(),
                algorithm,
                expected,
                actual,
            });
        }
        let source = tmp.join(source_dir_name(pkg.ecosystem, &pkg.name, &art.version));
        match pkg.ecosystem {
            Ecosystem::Pypi => {
                unpack::unpack_wheel(&archive_path, &art.file, &source, &cfg.limits)?
            }
            Ecosystem::Npm => unpack::unpack_tgz(&archive_path, &art.file, &source, &cfg.limits)?,
        }
        std::fs::remove_file(&archive_path).map_err(io(&archive_path))?;
        let meta = CacheMeta {
            ecosystem: pkg.ecosystem,
            name: pkg.name.clone(),
            version: art.version.clone(),
            artifact: art.file.clone(),
            sha256: hex(&digests.sha256),
        };
        let meta_path = tmp.join("artifact.json");
        let text = serde_json::to_string_pretty(&meta).map_err(|e| FetchError::Io {
            path: meta_path.clone(),
            source: std::io::Error::other(e),
        })?;
        std::fs::File::create(&meta_path)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(io(&meta_path))?;
        Ok(meta)
    })();
    let meta = match result {
        Ok(m) => m,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    if let Err(e) = std::fs::rename(&tmp, &final_dir) {
        let _ = std::fs::remove_dir_all(&tmp);
        // Another scan finished the same version first: use its copy.
        if !final_dir.join("artifact.json").is_file() {
            return Err(FetchError::Io {
                path: final_dir,
                source: e,
            });
        }
    }
    Ok(FetchedPackage {
        ecosystem: pkg.ecosystem,
        name: pkg.name.clone(),
        source_dir: final_dir.join(source_dir_name(pkg.ecosystem, &pkg.name, &meta.version)),
        version: meta.version,
        artifact: meta.artifact,
        sha256: meta.sha256,
        from_cache: false,
    })
}

/// A registry base URL without credentials, for messages.
fn redact(url: &str) -> String {
    crate::discover::redact_userinfo(url)
}

struct Digests {
    sha256: Vec<u8>,
    sha512: Vec<u8>,
    sha1: Vec<u8>,
}

/// A small blocking façade over reqwest: the scan is synchronous, the fetches few.
struct Http {
    client: reqwest::Client,
    rt: tokio::runtime::Runtime,
}

impl Http {
    fn new(timeout: Duration, loopback: bool) -> Result<Http, FetchError> {
        // reqwest with rustls needs a process-wide crypto provider; fails only when one is set.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let mut builder = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(15))
            .timeout(timeout)
            .user_agent(concat!("mcp-scan/", env!("CARGO_PKG_VERSION")));
        // A registry on this machine (a test's, a local mirror) is never reached through a proxy.
        if loopback {
            builder = builder.no_proxy();
        }
        let client = builder.build().map_err(|e| FetchError::Http {
            url: String::new(),
            reason: e.to_string(),
        })?;
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| FetchError::Http {
                url: String::new(),
                reason: format!("cannot start the HTTP runtime: {e}"),
            })?;
        Ok(Http { client, rt })
    }

    /// Runs `fut` on our runtime, on a thread of its own when the caller is inside another.
    fn block<T: Send>(&self, fut: impl std::future::Future<Output = T> + Send) -> T {
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|s| {
                s.spawn(|| self.rt.block_on(fut))
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            })
        } else {
            self.rt.block_on(fut)
        }
    }

    fn get(
        &self,
        url: &str,
        accept: &str,
    ) -> impl std::future::Future<Output = Result<reqwest::Response, FetchError>> + Send + 'static
    {
        let req = self.client.get(url).header("accept", accept);
        let shown = redact(url);
        async move {
            let resp = req.send().await.map_err(|e| FetchError::Http {
                url: shown.clone(),
                reason: error_chain(&e.without_url()),
            })?;
            if !resp.status().is_success() {
                return Err(FetchError::Status {
                    url: shown,
                    status: resp.status().as_u16(),
                });
            }
            Ok(resp)
        }
    }

    fn get_json(&self, url: &str, accept: &str) -> Result<Value, FetchError> {
        let fut = self.get(url, accept);
        let shown = redact(url);
        self.block(async move {
            let resp = fut.await?;
            // Registry documents of popular npm packages run to tens of MB; cap them anyway.
            let bytes = read_capped(resp, 256 * 1024 * 1024, &shown, true, |_| {}).await?;
            serde_json::from_slice(&bytes).map_err(|e| bad_answer(&shown, e.to_string()))
        })
    }

    fn download(&self, url: &str, to: &Path, max: u64) -> Result<Digests, FetchError> {
        let fut = self.get(url, "*/*");
        let shown = redact(url);
        let to = to.to_path_buf();
        self.block(async move {
            let resp = fut.await?;
            let mut file = std::fs::File::create(&to).map_err(|e| FetchError::Io {
                path: to.clone(),
                source: e,
            })?;
            let mut s256 = sha2::Sha256::new();
            let mut s512 = sha2::Sha512::new();
            let mut s1 = <sha1::Sha1 as sha1::Digest>::new();
            let mut write_err = None;
            read_capped(resp, max, &shown, false, |chunk| {
                s256.update(chunk);
                s512.update(chunk);
                sha1::Digest::update(&mut s1, chunk);
                if write_err.is_none()
                    && let Err(e) = file.write_all(chunk)
                {
                    write_err = Some(e);
                }
            })
            .await?;
            if let Some(e) = write_err {
                return Err(FetchError::Io {
                    path: to.clone(),
                    source: e,
                });
            }
            Ok(Digests {
                sha256: s256.finalize().to_vec(),
                sha512: s512.finalize().to_vec(),
                sha1: sha1::Digest::finalize(s1).to_vec(),
            })
        })
    }
}

/// Reads a body chunk by chunk into `sink`, failing past `max` bytes; returns the body when
/// `keep` (JSON documents; archives go to a file).
async fn read_capped(
    mut resp: reqwest::Response,
    max: u64,
    url: &str,
    keep: bool,
    mut sink: impl FnMut(&[u8]),
) -> Result<Vec<u8>, FetchError> {
    if resp.content_length().is_some_and(|n| n > max) {
        return Err(FetchError::TooLarge {
            archive: url.to_string(),
            what: "download".to_string(),
            limit: max,
        });
    }
    let mut kept = Vec::new();
    let mut total = 0u64;
    loop {
        let chunk = resp.chunk().await.map_err(|e| FetchError::Http {
            url: url.to_string(),
            reason: error_chain(&e.without_url()),
        })?;
        let Some(chunk) = chunk else { break };
        total += chunk.len() as u64;
        if total > max {
            return Err(FetchError::TooLarge {
                archive: url.to_string(),
                what: "download".to_string(),
                limit: max,
            });
        }
        sink(&chunk);
        if keep {
            kept.extend_from_slice(&chunk);
        }
    }
    Ok(kept)
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pypi_names_share_a_cache_entry_whatever_their_spelling() {
        assert_eq!(cache_name(Ecosystem::Pypi, "Foo_Bar.baz"), "foo-bar-baz");
        assert_eq!(cache_name(Ecosystem::Pypi, "foo--bar"), "foo-bar");
        assert_eq!(cache_name(Ecosystem::Npm, "@scope/pkg"), "@scope+pkg");
        assert_eq!(
            source_dir_name(Ecosystem::Npm, "@scope/pkg", "1.0.0"),
            "@scope+pkg-1.0.0"
        );
    }

    #[test]
    fn loopback_registries_are_recognised_and_public_ones_are_not() {
        for u in [
            "http://127.0.0.1:8080",
            "http://localhost/",
            "http://[::1]:9/x",
        ] {
            assert!(is_loopback(u), "{u}");
        }
        for u in ["https://pypi.org", "https://127.0.0.1.example", "not a url"] {
            assert!(!is_loopback(u), "{u}");
        }
    }

    #[test]
    fn relative_and_absolute_file_urls_join_and_other_schemes_are_refused() {
        let doc = "https://mirror.example/pypi/pkg/json";
        assert_eq!(
            join_url(doc, "../../packages/a/b.whl").expect("joins"),
            "https://mirror.example/packages/a/b.whl"
        );
        assert_eq!(
            join_url(doc, "https://files.example/x.whl").expect("absolute"),
            "https://files.example/x.whl"
        );
        assert!(join_url(doc, "file:///etc/passwd").is_err());
    }

    #[test]
    fn credentials_in_registry_urls_are_masked_in_messages() {
        assert_eq!(
            redact("https://user:tok@npm.example/reg"),
            "https://user:***@npm.example/reg"
        );
        assert_eq!(redact("https://pypi.org"), "https://pypi.org");
    }
}
