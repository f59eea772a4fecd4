//! Unpacking an archive from a registry into a fresh directory, refusing anything that could
//! write outside it or fill the disk: `..` or absolute entry names, symbolic and hard links,
//! device files, more bytes or entries than the limits allow (counted as read, never trusted
//! from headers). A refused archive leaves nothing behind that a caller would use: the caller
//! unpacks into a temporary directory and renames it into the cache only on success.

use std::io::{Read, Write};
use std::path::{Component, Path, PathBuf};

use crate::fetch::{FetchError, Limits};

/// Bytes and entries written so far, against the limits.
struct Budget<'a> {
    limits: &'a Limits,
    archive: &'a str,
    bytes: u64,
    entries: usize,
}

impl Budget<'_> {
    fn entry(&mut self) -> Result<(), FetchError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(FetchError::TooLarge {
                archive: self.archive.to_string(),
                what: "entry count".to_string(),
                limit: self.limits.max_entries as u64,
            });
        }
        Ok(())
    }

    fn copy(&mut self, name: &str, from: &mut dyn Read, to: &Path) -> Result<(), FetchError> {
        let io = |e: std::io::Error| FetchError::Io {
            path: to.to_path_buf(),
            source: e,
        };
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(to)
            .map_err(io)?;
        let mut buf = [0u8; 64 * 1024];
        let mut written = 0u64;
        loop {
            let n = from.read(&mut buf).map_err(|e| FetchError::BadArchive {
                archive: self.archive.to_string(),
                reason: format!("entry {name:?}: {e}"),
            })?;
            if n == 0 {
                break;
            }
            written += n as u64;
            self.bytes += n as u64;
            if written > self.limits.max_file_bytes {
                return Err(FetchError::TooLarge {
                    archive: self.archive.to_string(),
                    what: format!("entry {name:?}"),
                    limit: self.limits.max_file_bytes,
                });
            }
            if self.bytes > self.limits.max_unpacked_bytes {
                return Err(FetchError::TooLarge {
                    archive: self.archive.to_string(),
                    what: "unpacked size".to_string(),
                    limit: self.limits.max_unpacked_bytes,
                });
            }
            f.write_all(&buf[..n]).map_err(io)?;
        }
        Ok(())
    }
}

fn unsafe_entry(archive: &str, entry: &str, reason: &str) -> FetchError {
    FetchError::UnsafeArchive {
        archive: archive.to_string(),
        entry: entry.to_string(),
        reason: reason.to_string(),
    }
}

/// The entry's path below the root, or an error when it would leave it. `strip` leading
/// components are dropped first (npm tarballs wrap everything in `package/`).
fn safe_relative(archive: &str, name: &str, strip: usize) -> Result<Option<PathBuf>, FetchError> {
    if name.contains('\\') || name.contains('\0') {
        return Err(unsafe_entry(
            archive,
            name,
            "has a backslash or NUL in its name",
        ));
    }
    let mut out = PathBuf::new();
    let mut skipped = 0;
    for c in Path::new(name).components() {
        match c {
            Component::Normal(p) => {
                if skipped < strip {
                    skipped += 1;
                } else {
                    out.push(p);
                }
            }
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(unsafe_entry(archive, name, "climbs out with `..`"));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(unsafe_entry(archive, name, "is an absolute path"));
            }
        }
    }
    Ok((!out.as_os_str().is_empty()).then_some(out))
}

fn mkdirs(path: &Path) -> Result<(), FetchError> {
    std::fs::create_dir_all(path).map_err(|e| FetchError::Io {
        path: path.to_path_buf(),
        source: e,
    })
}

/// Reads through `inner`, failing once more than `limit` bytes came out: a decompression bomb
/// stops here even in entries we would skip.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n as u64 > self.left {
            return Err(std::io::Error::other(
                "the decompressed stream is larger than the size limit",
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Unpacks a gzip'd tarball (npm) into `dest`, dropping the first path component.
pub fn unpack_tgz(
    archive_path: &Path,
    archive: &str,
    dest: &Path,
    limits: &Limits,
) -> Result<(), FetchError> {
    let file = std::fs::File::open(archive_path).map_err(|e| FetchError::Io {
        path: archive_path.to_path_buf(),
        source: e,
    })?;
    // Tar headers and padding add to the file data; allow for them, and for entries we skip.
    let cap = limits
        .max_unpacked_bytes
        .saturating_add(1536 * (limits.max_entries as u64 + 16));
    let gz = flate2::read::GzDecoder::new(std::io::BufReader::new(file));
    let mut tar = tar::Archive::new(Capped {
        inner: gz,
        left: cap,
    });
    let bad = |e: std::io::Error| FetchError::BadArchive {
        archive: archive.to_string(),
        reason: e.to_string(),
    };
    let mut budget = Budget {
        limits,
        archive,
        bytes: 0,
        entries: 0,
    };
    mkdirs(dest)?;
    for entry in tar.entries().map_err(bad)? {
        let mut entry = entry.map_err(bad)?;
        let name = String::from_utf8_lossy(&entry.path_bytes()).into_owned();
        let kind = entry.header().entry_type();
        use tar::EntryType as T;
        match kind {
            T::XGlobalHeader | T::XHeader | T::GNULongName | T::GNULongLink => continue,
            T::Symlink => {
                return Err(unsafe_entry(archive, &name, "is a symbolic link (refused)"));
            }
            T::Link => return Err(unsafe_entry(archive, &name, "is a hard link (refused)")),
            T::Regular | T::Continuous | T::Directory => {}
            _ => {
                return Err(unsafe_entry(
                    archive,
                    &name,
                    "is a device, FIFO or other special file (refused)",
                ));
            }
        }
        budget.entry()?;
        let Some(rel) = safe_relative(archive, &name, 1)? else {
            continue;
        };
        let target = dest.join(&rel);
        if kind == T::Directory {
            mkdirs(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            mkdirs(parent)?;
        }
        if target.exists() {
            return Err(unsafe_entry(archive, &name, "appears twice"));
        }
        budget.copy(&name, &mut entry, &target)?;
    }
    Ok(())
}

/// Unpacks a wheel (a zip) into `dest` as it is.
pub fn unpack_wheel(
    archive_path: &Path,
    archive: &str,
    dest: &Path,
    limits: &Limits,
) -> Result<(), FetchError> {
    let file = std::fs::File::open(archive_path).map_err(|e| FetchError::Io {
        path: archive_path.to_path_buf(),
        source: e,
    })?;
    let bad = |e: zip::result::ZipError| FetchError::BadArchive {
        archive: archive.to_string(),
        reason: e.to_string(),
    };
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file)).map_err(bad)?;
    if zip.len() > limits.max_entries {
        return Err(FetchError::TooLarge {
            archive: archive.to_string(),
            what: "entry count".to_string(),
            limit: limits.max_entries as u64,
        });
    }
    let mut budget = Budget {
        limits,
        archive,
        bytes: 0,
        entries: 0,
    };
    mkdirs(dest)?;
    for i in 0..zip.len() {
        let mut f = zip.by_index(i).map_err(bad)?;
        let name = f.name().to_string();
        budget.entry()?;
        if f.is_symlink() {
            return Err(unsafe_entry(archive, &name, "is a symbolic link (refused)"));
        }
        let Some(rel) = safe_relative(archive, &name, 0)? else {
            continue;
        };
        let target = dest.join(&rel);
        if f.is_dir() {
            mkdirs(&target)?;
            continue;
        }
        if let Some(parent) = target.parent() {
            mkdirs(parent)?;
        }
        if target.exists() {
            return Err(unsafe_entry(archive, &name, "appears twice"));
        }
        budget.copy(&name, &mut f, &target)?;
    }
    Ok(())
}
