//! Canaries: unique random tokens planted in the sandbox's HOME and environment, and the search
//! that finds them again (plain, upper case, hex, base64 at every alignment) in any channel.

use crate::rules::RuntimeRules;
use std::io::Read;

/// One planted secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Canary {
    /// Where it was planted: `~/.ssh/id_rsa` or `$GITHUB_TOKEN`.
    pub origin: String,
    /// The random token (lowercase hex).
    pub token: String,
    /// The exact content written (file body or variable value).
    pub content: String,
    /// For files: path relative to HOME.
    pub home_path: Option<String>,
    /// For variables: its name.
    pub env_name: Option<String>,
}

/// Every canary of one sandbox, and the encoded forms searched for.
#[derive(Debug, Clone, Default)]
pub struct CanarySet {
    pub canaries: Vec<Canary>,
    /// (encoded form, canary index, encoding name).
    needles: Vec<(Vec<u8>, usize, &'static str)>,
    /// All needles in one automaton: every response, payload and written file is searched, and
    /// one pass per needle was most of the analysis time.
    matcher: Option<aho_corasick::AhoCorasick>,
}

/// A canary found in some data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanaryHit {
    pub origin: String,
    /// `plain`, `hex`, `base64`, `base32`, `reversed`, `utf-16le`, `utf-16be` or
    /// `base64 of utf-16le`.
    pub encoding: &'static str,
}

fn random_hex(n_bytes: usize) -> std::io::Result<String> {
    let mut buf = vec![0u8; n_bytes];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

fn fill(template: &str, token: &str) -> String {
    template
        .replace("{token_upper}", &token.to_uppercase())
        .replace("{token}", token)
}

pub(crate) fn base64(data: &[u8]) -> String {
    mcp_scan_core::codec::base64_encode(data)
}

/// Base64 fragments of `token` that appear whatever bytes surround it, one per alignment.
fn base64_fragments(token: &[u8]) -> Vec<String> {
    (0..3)
        .map(|k| {
            let mut data = vec![0u8; k];
            data.extend_from_slice(token);
            let enc = base64(&data);
            // Characters that mix prefix bits: the first ceil(8k/6); mixing suffix bits: the last 4.
            let skip = (8 * k).div_ceil(6);
            let end = enc.len().saturating_sub(4);
            enc.get(skip..end).unwrap_or_default().to_string()
        })
        .filter(|s| s.len() >= 12)
        .collect()
}

const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// Base32 (RFC 4648) fragments of `token` that appear whatever bytes surround it, one per
/// alignment: the characters whose five bits all come from the token.
fn base32_fragments(token: &[u8]) -> Vec<String> {
    (0..5)
        .map(|k| {
            let mut bits: Vec<u8> = vec![0u8; 8 * k];
            for b in token {
                bits.extend((0..8).rev().map(|i| (b >> i) & 1));
            }
            let start = (8 * k).div_ceil(5);
            let end = bits.len() / 5;
            (start..end)
                .map(|c| {
                    let v = bits[5 * c..5 * c + 5]
                        .iter()
                        .fold(0usize, |acc, &b| (acc << 1) | usize::from(b));
                    B32[v] as char
                })
                .collect::<String>()
        })
        .filter(|s| s.len() >= 12)
        .collect()
}

/// `s` as UTF-16 code units, little- or big-endian (ASCII only: one unit per byte).
fn utf16(s: &[u8], little: bool) -> Vec<u8> {
    s.iter()
        .flat_map(|&b| if little { [b, 0] } else { [0, b] })
        .collect()
}

impl CanarySet {
    /// Creates fresh tokens for every canary the rules name.
    pub fn generate(rules: &RuntimeRules) -> std::io::Result<Self> {
        let mut canaries = Vec::new();
        for f in &rules.canary_files {
            let token = random_hex(12)?;
            canaries.push(Canary {
                origin: format!("~/{}", f.path),
                content: fill(&f.template, &token),
                token,
                home_path: Some(f.path.clone()),
                env_name: None,
            });
        }
        for (name, template) in &rules.canary_env {
            let token = random_hex(12)?;
            canaries.push(Canary {
                origin: format!("${name}"),
                content: fill(template, &token),
                token,
                home_path: None,
                env_name: Some(name.clone()),
            });
        }
        Ok(Self::from_canaries(canaries))
    }

    /// Builds the search index for given canaries (tests use fixed tokens).
    pub fn from_canaries(canaries: Vec<Canary>) -> Self {
        let mut needles = Vec::new();
        for (i, c) in canaries.iter().enumerate() {
            let t = c.token.as_bytes();
            let upper = c.token.to_uppercase().into_bytes();
            needles.push((t.to_vec(), i, "plain"));
            needles.push((upper.clone(), i, "plain"));
            let hex: String = t.iter().map(|b| format!("{b:02x}")).collect();
            needles.push((hex.into_bytes(), i, "hex"));
            for frag in base64_fragments(t) {
                needles.push((frag.into_bytes(), i, "base64"));
            }
            // Either case: base32 is read case-insensitively (DNS names are lowercased).
            for frag in base32_fragments(t) {
                needles.push((frag.to_lowercase().into_bytes(), i, "base32"));
                needles.push((frag.into_bytes(), i, "base32"));
            }
            for form in [t.to_vec(), upper] {
                needles.push((form.iter().rev().copied().collect(), i, "reversed"));
                needles.push((utf16(&form, true), i, "utf-16le"));
                needles.push((utf16(&form, false), i, "utf-16be"));
            }
            // What Windows tools send (PowerShell's -EncodedCommand).
            for frag in base64_fragments(&utf16(t, true)) {
                needles.push((frag.into_bytes(), i, "base64 of utf-16le"));
            }
        }
        let matcher = aho_corasick::AhoCorasick::new(
            needles
                .iter()
                .map(|(n, _, _)| n.as_slice())
                .filter(|n| !n.is_empty()),
        )
        .ok();
        CanarySet {
            canaries,
            needles,
            matcher,
        }
    }

    /// Every canary found in `data`, once each, with how it was encoded.
    pub fn find(&self, data: &[u8]) -> Vec<CanaryHit> {
        let mut hits: Vec<CanaryHit> = Vec::new();
        let found: std::collections::HashSet<usize> = match &self.matcher {
            Some(m) => m
                .find_overlapping_iter(data)
                .map(|x| x.pattern().as_usize())
                .collect(),
            None => std::collections::HashSet::new(),
        };
        // Pattern ids count the non-empty needles in order.
        let mut id = 0;
        for (needle, idx, encoding) in &self.needles {
            if needle.is_empty() {
                continue;
            }
            id += 1;
            let present = match &self.matcher {
                Some(_) => found.contains(&(id - 1)),
                None => data.windows(needle.len()).any(|w| w == needle.as_slice()),
            };
            if present {
                let c = &self.canaries[*idx];
                if hits.iter().any(|h| h.origin == c.origin) {
                    continue;
                }
                hits.push(CanaryHit {
                    origin: c.origin.clone(),
                    encoding,
                });
            }
        }
        hits
    }

    /// Environment variables to set in the sandbox.
    pub fn env(&self) -> Vec<(String, String)> {
        self.canaries
            .iter()
            .filter_map(|c| c.env_name.clone().map(|n| (n, c.content.clone())))
            .collect()
    }

    /// Files to write, relative to HOME.
    pub fn files(&self) -> impl Iterator<Item = (&str, &str)> {
        self.canaries
            .iter()
            .filter_map(|c| c.home_path.as_deref().map(|p| (p, c.content.as_str())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set() -> CanarySet {
        CanarySet::from_canaries(vec![Canary {
            origin: "~/.ssh/id_rsa".into(),
            token: "0123456789abcdef01234567".into(),
            content: "KEY 0123456789abcdef01234567".into(),
            home_path: Some(".ssh/id_rsa".into()),
            env_name: None,
        }])
    }

    #[test]
    fn finds_canary_plain_hex_and_base64_at_any_offset() {
        let s = set();
        let body = b"data=KEY 0123456789abcdef01234567&x=1";
        assert_eq!(s.find(body)[0].encoding, "plain");
        for prefix in ["", "a", "ab", "abc"] {
            let enc = base64(format!("{prefix}-----BEGIN 0123456789abcdef01234567 END").as_bytes());
            let hits = s.find(enc.as_bytes());
            assert_eq!(hits.len(), 1, "prefix {prefix:?}: {enc}");
            assert_eq!(hits[0].encoding, "base64");
        }
        let hex: String = b"0123456789abcdef01234567"
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(s.find(hex.as_bytes())[0].encoding, "hex");
    }

    #[test]
    fn finds_canary_base32_reversed_and_utf16_at_any_offset() {
        let s = set();
        let token = b"0123456789abcdef01234567";
        let b32 = |data: &[u8]| {
            let mut bits: Vec<u8> = Vec::new();
            for b in data {
                bits.extend((0..8).rev().map(|i| (b >> i) & 1));
            }
            bits.chunks(5)
                .map(|c| {
                    let v = c
                        .iter()
                        .chain(std::iter::repeat(&0))
                        .take(5)
                        .fold(0usize, |a, &b| (a << 1) | usize::from(b));
                    B32[v] as char
                })
                .collect::<String>()
        };
        for prefix in ["", "a", "ab", "abc", "abcd", "abcde"] {
            let mut data = prefix.as_bytes().to_vec();
            data.extend_from_slice(b"KEY ");
            data.extend_from_slice(token);
            data.extend_from_slice(b" END");
            let enc = b32(&data);
            for form in [enc.clone(), enc.to_lowercase()] {
                let hits = s.find(form.as_bytes());
                assert_eq!(hits.len(), 1, "prefix {prefix:?}: {form}");
                assert_eq!(hits[0].encoding, "base32");
            }
        }
        let reversed: String = "x=KEY 0123456789ABCDEF01234567;".chars().rev().collect();
        assert_eq!(s.find(reversed.as_bytes())[0].encoding, "reversed");
        // UTF-16 at an odd offset too: the search is over bytes.
        for (little, name) in [(true, "utf-16le"), (false, "utf-16be")] {
            let mut data = b"\xff".to_vec();
            data.extend(utf16(b"secret=KEY 0123456789abcdef01234567", little));
            assert_eq!(s.find(&data)[0].encoding, name);
        }
        let ps = base64(&utf16(b"iwr -Body 0123456789abcdef01234567", true));
        assert_eq!(s.find(ps.as_bytes())[0].encoding, "base64 of utf-16le");
    }

    #[test]
    fn unrelated_data_has_no_canary() {
        let s = set();
        assert!(s.find(b"hello world 0123456789abcdef0123456X").is_empty());
        assert!(
            s.find(base64(b"the quick brown fox jumps").as_bytes())
                .is_empty()
        );
    }

    proptest::proptest! {
        /// The one-pass search finds exactly what a search per needle finds, whatever surrounds
        /// the canaries and however many of them are in the data.
        #[test]
        fn one_pass_search_agrees_with_a_search_per_needle(
            noise in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200),
            picks in proptest::collection::vec((0usize..40, 0usize..200), 0..4),
        ) {
            static SET: std::sync::LazyLock<CanarySet> = std::sync::LazyLock::new(|| {
                CanarySet::generate(crate::rules::RuntimeRules::builtin()).expect("urandom")
            });
            let s = &*SET;
            let mut data = noise;
            for (needle, at) in picks {
                let (n, _, _) = &s.needles[needle % s.needles.len()];
                let at = at.min(data.len());
                data.splice(at..at, n.iter().copied());
            }
            let slow: Vec<&str> = {
                let mut v: Vec<&str> = Vec::new();
                for (n, i, _) in &s.needles {
                    let o = s.canaries[*i].origin.as_str();
                    if data.windows(n.len()).any(|w| w == n.as_slice()) && !v.contains(&o) {
                        v.push(o);
                    }
                }
                v
            };
            let fast: Vec<String> = s.find(&data).into_iter().map(|h| h.origin).collect();
            proptest::prop_assert_eq!(fast, slow);
        }
    }

    #[test]
    fn base64_matches_the_standard_alphabet() {
        assert_eq!(base64(b"hello"), "aGVsbG8=");
        assert_eq!(base64(b"hi"), "aGk=");
        assert_eq!(base64(b"abc"), "YWJj");
    }

    #[test]
    fn generated_tokens_are_unique_per_canary() {
        let s = CanarySet::generate(crate::rules::RuntimeRules::builtin()).expect("urandom");
        let mut tokens: Vec<_> = s.canaries.iter().map(|c| c.token.clone()).collect();
        let n = tokens.len();
        tokens.sort();
        tokens.dedup();
        assert_eq!(tokens.len(), n);
        assert!(s.env().iter().any(|(k, _)| k == "GITHUB_TOKEN"));
    }
}
