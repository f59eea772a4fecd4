//! Validated answers on disk, keyed by a hash of provider, model, template version and the
//! prompt (rendered with a fixed delimiter), so a re-scan of unchanged code sends nothing.

use crate::prompt::hex;
use crate::provider::Usage;
use crate::verdict::Verdict;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Bump when the entry format changes; old entries are then ignored.
const ENTRY_FORMAT: u32 = 1;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheEntry<V = Verdict> {
    pub format: u32,
    pub model: String,
    pub verdict: V,
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// A prompt whose answers failed validation: remembered so a re-scan does not send it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailureEntry {
    pub format: u32,
    pub model: String,
    /// Why the answers were rejected.
    pub reason: String,
}

/// A directory of answers, one JSON file per key.
#[derive(Debug, Clone)]
pub struct AnswerCache {
    dir: PathBuf,
}

/// The cache key of one prompt.
pub fn cache_key(
    provider_kind: &str,
    model: &str,
    template_version: &str,
    prompt_hash: &str,
) -> String {
    let mut h = Sha256::new();
    for part in [provider_kind, model, template_version, prompt_hash] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    hex(&h.finalize())
}

impl AnswerCache {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        AnswerCache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir
            .join(key.get(..2).unwrap_or("xx"))
            .join(format!("{key}.json"))
    }

    /// A stored answer; unreadable or foreign entries count as misses.
    pub fn get<V: serde::de::DeserializeOwned>(&self, key: &str) -> Option<CacheEntry<V>> {
        let bytes = std::fs::read(self.path(key)).ok()?;
        let entry: CacheEntry<V> = serde_json::from_slice(&bytes).ok()?;
        (entry.format == ENTRY_FORMAT).then_some(entry)
    }

    fn failure_path(&self, key: &str) -> PathBuf {
        self.dir
            .join(key.get(..2).unwrap_or("xx"))
            .join(format!("{key}.failed.json"))
    }

    /// A remembered validation failure of this prompt (same provider, model, template).
    pub fn get_failure(&self, key: &str) -> Option<FailureEntry> {
        let bytes = std::fs::read(self.failure_path(key)).ok()?;
        let entry: FailureEntry = serde_json::from_slice(&bytes).ok()?;
        (entry.format == ENTRY_FORMAT).then_some(entry)
    }

    /// Remembers that this prompt's answers failed validation.
    pub fn put_failure(&self, key: &str, model: &str, reason: &str) -> std::io::Result<()> {
        let entry = FailureEntry {
            format: ENTRY_FORMAT,
            model: model.to_string(),
            reason: reason.to_string(),
        };
        let bytes = serde_json::to_vec_pretty(&entry).map_err(std::io::Error::other)?;
        self.write_atomically(&self.failure_path(key), key, &bytes)
    }

    fn write_atomically(&self, path: &Path, key: &str, bytes: &[u8]) -> std::io::Result<()> {
        let parent = path.parent().unwrap_or(&self.dir);
        std::fs::create_dir_all(parent)?;
        // Unique per process and write, so concurrent writers never share a temporary file.
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = parent.join(format!(".{key}.{}.{n}.tmp", std::process::id()));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, path)
    }

    /// Stores an answer atomically (write to a temporary file, then rename).
    pub fn put<V: Serialize + Clone>(
        &self,
        key: &str,
        model: &str,
        verdict: &V,
        usage: Option<Usage>,
    ) -> std::io::Result<()> {
        let entry = CacheEntry {
            format: ENTRY_FORMAT,
            model: model.to_string(),
            verdict: verdict.clone(),
            usage,
        };
        let bytes = serde_json::to_vec_pretty(&entry).map_err(std::io::Error::other)?;
        self.write_atomically(&self.path(key), key, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict() -> Verdict {
        Verdict {
            mismatch: false,
            threat: None,
            description_claims: "adds".into(),
            code_does: "adds".into(),
            evidence: vec![],
        }
    }

    #[test]
    fn stored_answers_are_found_again_and_corrupt_entries_are_misses() {
        let dir = tempfile::tempdir().expect("tempdir");
        let cache = AnswerCache::new(dir.path());
        let key = cache_key("openai", "m", "v1", "abc");
        assert!(cache.get::<Verdict>(&key).is_none());
        cache.put(&key, "m", &verdict(), None).expect("put");
        assert_eq!(cache.get(&key).map(|e| e.verdict), Some(verdict()));
        std::fs::write(cache.path(&key), b"{not json").expect("corrupt");
        assert!(cache.get::<Verdict>(&key).is_none());
    }

    #[test]
    fn key_depends_on_provider_model_template_and_prompt() {
        let base = cache_key("openai", "m", "v1", "p");
        assert_ne!(base, cache_key("bedrock", "m", "v1", "p"));
        assert_ne!(base, cache_key("openai", "m2", "v1", "p"));
        assert_ne!(base, cache_key("openai", "m", "v2", "p"));
        assert_ne!(base, cache_key("openai", "m", "v1", "q"));
        assert_eq!(base, cache_key("openai", "m", "v1", "p"));
    }
}
