//! Test support (feature `testing`): a package registry on 127.0.0.1 speaking PyPI's JSON API
//! and the npm registry's package documents, and builders for the wheels and tarballs it serves.
//! Tests of the fetch (here and in the binary) use it so that no test reaches a public registry.
#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde_json::json;
use sha2::Digest;

type Routes = Arc<Mutex<HashMap<String, Vec<u8>>>>;

/// A registry on 127.0.0.1: GET path → body, 404 otherwise; every requested path is logged.
pub struct Registry {
    /// `http://127.0.0.1:PORT`: the base URL for both `pypi_url` and `npm_url`.
    pub base: String,
    routes: Routes,
    log: Arc<Mutex<Vec<String>>>,
}

impl Registry {
    pub fn start() -> Registry {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let routes: Routes = Arc::default();
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        let (r, l) = (routes.clone(), log.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().expect("clone"));
                let mut request_line = String::new();
                if reader.read_line(&mut request_line).is_err() {
                    continue;
                }
                loop {
                    let mut h = String::new();
                    if reader.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
                        break;
                    }
                }
                let path = request_line
                    .split_whitespace()
                    .nth(1)
                    .unwrap_or("")
                    .to_string();
                l.lock().expect("log").push(path.clone());
                let body = r.lock().expect("routes").get(&path).cloned();
                let (status, body) = match body {
                    Some(b) => ("200 OK", b),
                    None => ("404 Not Found", b"not found".to_vec()),
                };
                let head = format!(
                    "HTTP/1.1 {status}\r\ncontent-length: {}\r\ncontent-type: application/octet-stream\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Registry { base, routes, log }
    }

    pub fn serve(&self, path: &str, body: Vec<u8>) {
        self.routes
            .lock()
            .expect("routes")
            .insert(path.to_string(), body);
    }

    pub fn requested(&self) -> Vec<String> {
        self.log.lock().expect("log").clone()
    }

    /// Publishes wheels (filename → bytes) of one PyPI version; `latest` also answers
    /// `/pypi/<name>/json`. `sha_override` replaces the listed digest.
    pub fn publish_pypi(
        &self,
        name: &str,
        version: &str,
        files: &[(&str, &str, Vec<u8>)],
        latest: bool,
        sha_override: Option<&str>,
    ) {
        let urls: Vec<_> = files
            .iter()
            .map(|(file, kind, bytes)| {
                self.serve(&format!("/files/{file}"), bytes.clone());
                let sha = sha_override
                    .map(str::to_string)
                    .unwrap_or_else(|| hex(&sha2::Sha256::digest(bytes)));
                json!({
                    "filename": file,
                    "packagetype": kind,
                    "url": format!("{}/files/{file}", self.base),
                    "digests": {"sha256": sha},
                    "yanked": false,
                })
            })
            .collect();
        let doc = json!({"info": {"name": name, "version": version}, "urls": urls});
        let body = serde_json::to_vec(&doc).expect("json");
        self.serve(&format!("/pypi/{name}/{version}/json"), body.clone());
        if latest {
            self.serve(&format!("/pypi/{name}/json"), body);
        }
    }

    /// Publishes an npm package document with these versions (version → tarball bytes).
    pub fn publish_npm(
        &self,
        name: &str,
        versions: &[(&str, Vec<u8>)],
        tags: serde_json::Value,
        integrity_override: Option<&str>,
    ) {
        let mut vs = serde_json::Map::new();
        for (v, bytes) in versions {
            let file = format!("{}-{v}.tgz", name.rsplit('/').next().expect("name"));
            let path = format!("/{}/-/{file}", name);
            self.serve(&path, bytes.clone());
            let integrity = integrity_override.map(str::to_string).unwrap_or_else(|| {
                format!(
                    "sha512-{}",
                    base64::engine::general_purpose::STANDARD.encode(sha2::Sha512::digest(bytes))
                )
            });
            vs.insert(
                v.to_string(),
                json!({"name": name, "version": v, "dist": {
                    "tarball": format!("{}{path}", self.base),
                    "integrity": integrity,
                    "shasum": hex(&sha1::Sha1::digest(bytes)),
                }}),
            );
        }
        let doc = json!({"name": name, "dist-tags": tags, "versions": vs});
        self.serve(
            &format!("/{}", name.replace('/', "%2f")),
            serde_json::to_vec(&doc).expect("json"),
        );
    }
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A wheel: a zip of (name, contents), deflated.
pub fn wheel(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut buf = std::io::Cursor::new(Vec::new());
    {
        let mut z = zip::ZipWriter::new(&mut buf);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            z.start_file(*name, opts).expect("start");
            z.write_all(data).expect("write");
        }
        z.finish().expect("finish");
    }
    buf.into_inner()
}

pub enum TarEntry<'a> {
    File(&'a str, &'a [u8]),
    Symlink(&'a str, &'a str),
}

/// A gzip'd tarball; names are written raw into the header, so `..` can be tested.
pub fn tgz(entries: &[TarEntry]) -> Vec<u8> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut b = tar::Builder::new(gz);
    for e in entries {
        let mut h = tar::Header::new_gnu();
        let (name, data, kind): (&str, &[u8], _) = match e {
            TarEntry::File(n, d) => (n, d, tar::EntryType::Regular),
            TarEntry::Symlink(n, _) => (n, &[], tar::EntryType::Symlink),
        };
        let raw = &mut h.as_old_mut().name;
        raw[..name.len()].copy_from_slice(name.as_bytes());
        h.set_entry_type(kind);
        if let TarEntry::Symlink(_, target) = e {
            h.set_link_name(target).expect("link");
        }
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append(&h, data).expect("append");
    }
    b.into_inner().expect("tar").finish().expect("gz")
}

impl Registry {
    /// Publishes the files under `dir` as the only wheel of PyPI `name` `version` (latest when
    /// `latest`), paths kept relative to `dir`.
    pub fn publish_wheel_from_dir(&self, name: &str, version: &str, dir: &Path, latest: bool) {
        let files = files_under(dir);
        let entries: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(n, d)| (n.as_str(), d.as_slice()))
            .collect();
        let file = format!("{}-{version}-py3-none-any.whl", name.replace('-', "_"));
        self.publish_pypi(
            name,
            version,
            &[(&file, "bdist_wheel", wheel(&entries))],
            latest,
            None,
        );
    }

    /// Publishes the files under `dir` as npm `name` `version`, tagged `latest` when `latest`.
    pub fn publish_npm_from_dir(&self, name: &str, version: &str, dir: &Path, latest: bool) {
        let files: Vec<(String, Vec<u8>)> = files_under(dir)
            .into_iter()
            .map(|(n, d)| (format!("package/{n}"), d))
            .collect();
        let entries: Vec<TarEntry> = files
            .iter()
            .map(|(n, d)| TarEntry::File(n.as_str(), d.as_slice()))
            .collect();
        let tags = if latest {
            json!({"latest": version})
        } else {
            json!({})
        };
        self.publish_npm(name, &[(version, tgz(&entries))], tags, None);
    }
}

/// Every regular file under `dir` (relative `/` paths, sorted) with its bytes.
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read fixture dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.is_file() {
                let rel = p.strip_prefix(dir).expect("under dir");
                let rel = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, std::fs::read(&p).expect("read fixture file")));
            }
        }
    }
    out.sort();
    out
}
