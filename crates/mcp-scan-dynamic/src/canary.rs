//! Canaries: unique random tokens planted in the sandbox's HOME and environment, and the search
//! that finds them again (plain, upper case, hex, base64 at every alignment) in any channel.

use crate::rules::RuntimeRules;
use mcp_scan_core::codec;
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
    /// The XOR of each token's consecutive bytes (and its upper case's), searched in the same
    /// differences of the data: XOR with any one-byte key leaves them unchanged. Pattern id i
    /// belongs to canary `i / 2`.
    xor_matcher: Option<aho_corasick::AhoCorasick>,
}

/// A canary found in some data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanaryHit {
    pub origin: String,
    /// `plain`, `hex`, `base64`, `base32`, `reversed`, `utf-16le`, `utf-16be`,
    /// `base64 of utf-16le`, `rot13`, `base64 of reversed`, `base85`, `ascii85`, `xor` (any
    /// one-byte key), or found in a decoded run: `in base64`, `in hex`, `in base36`, `in gzip`
    /// (inflated from one of those), each also as `xor in …`.
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

/// RFC 1924 (Python's `b85encode`, git's binary patches) and Ascii85 (`a85encode`, PDF).
const B85: &[u8; 85] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/// Base85 fragments of `token`, one per alignment: the 5-character groups whose four bytes all
/// come from the token. `ascii85` uses the characters `!`..`u` instead of `alphabet`.
fn base85_fragments(token: &[u8], alphabet: Option<&[u8; 85]>) -> Vec<String> {
    (0..4usize)
        .map(|k| {
            let mut out = String::new();
            let mut g = k.div_ceil(4) * 4;
            while g + 4 <= k + token.len() {
                let word = (g..g + 4).fold(0u32, |acc, i| (acc << 8) | u32::from(token[i - k]));
                let mut chars = [0u8; 5];
                let mut v = word;
                for c in chars.iter_mut().rev() {
                    let d = (v % 85) as u8;
                    *c = match alphabet {
                        Some(a) => a[d as usize],
                        None => b'!' + d,
                    };
                    v /= 85;
                }
                out.extend(chars.iter().map(|&c| c as char));
                g += 4;
            }
            out
        })
        .filter(|s| s.len() >= 15)
        .collect()
}

/// `a[i] ^ a[i + 1]`: what XOR with a one-byte key leaves unchanged.
fn differences(a: &[u8]) -> Vec<u8> {
    a.windows(2).map(|w| w[0] ^ w[1]).collect()
}

/// Longest run decoded, and most bytes decoded per search: a flood of base64 must not make the
/// analysis quadratic.
const RUN_MAX: usize = 1 << 16;
const DECODED_MAX: usize = 4 << 20;
/// A decompressed run is read up to this size.
const INFLATED_MAX: u64 = 1 << 20;

/// A run of digits and letters read as one base-36 number, as bytes (big-endian).
fn base36_decode(run: &[u8]) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    for &c in run {
        let Some(d) = (c as char).to_digit(36) else {
            continue;
        };
        let mut carry = d;
        for b in out.iter_mut().rev() {
            let v = u32::from(*b) * 36 + carry;
            *b = (v & 0xff) as u8;
            carry = v >> 8;
        }
        while carry > 0 {
            out.insert(0, (carry & 0xff) as u8);
            carry >>= 8;
        }
    }
    out
}

/// gzip or zlib data, inflated (up to [`INFLATED_MAX`]).
fn inflate(data: &[u8]) -> Option<Vec<u8>> {
    use std::io::Read as _;
    let mut out = Vec::new();
    let ok = match data {
        [0x1f, 0x8b, ..] => flate2::read::GzDecoder::new(data)
            .take(INFLATED_MAX)
            .read_to_end(&mut out)
            .is_ok(),
        [0x78, 0x01 | 0x5e | 0x9c | 0xda, ..] => flate2::read::ZlibDecoder::new(data)
            .take(INFLATED_MAX)
            .read_to_end(&mut out)
            .is_ok(),
        _ => false,
    };
    // A stream cut short still shows what it inflated to so far.
    (ok || !out.is_empty()).then_some(out)
}

/// Adds the canaries of `found` not in `hits` yet, labelled with how they were reached.
fn merge(hits: &mut Vec<CanaryHit>, found: Vec<CanaryHit>, label: &'static str) {
    for mut h in found {
        if !hits.iter().any(|x| x.origin == h.origin) {
            h.encoding = label;
            hits.push(h);
        }
    }
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
            for form in [t.to_vec(), upper.clone()] {
                needles.push((form.iter().rev().copied().collect(), i, "reversed"));
                needles.push((utf16(&form, true), i, "utf-16le"));
                needles.push((utf16(&form, false), i, "utf-16be"));
            }
            // What Windows tools send (PowerShell's -EncodedCommand).
            for frag in base64_fragments(&utf16(t, true)) {
                needles.push((frag.into_bytes(), i, "base64 of utf-16le"));
            }
            let reversed: Vec<u8> = t.iter().rev().copied().collect();
            for frag in base64_fragments(&reversed) {
                needles.push((frag.into_bytes(), i, "base64 of reversed"));
            }
            for form in [t, upper.as_slice()] {
                needles.push((codec::rot13(form), i, "rot13"));
                for frag in base85_fragments(form, Some(B85)) {
                    needles.push((frag.into_bytes(), i, "base85"));
                }
                for frag in base85_fragments(form, None) {
                    needles.push((frag.into_bytes(), i, "ascii85"));
                }
            }
        }
        let matcher = aho_corasick::AhoCorasick::new(
            needles
                .iter()
                .map(|(n, _, _)| n.as_slice())
                .filter(|n| !n.is_empty()),
        )
        .ok();
        let xor_matcher = aho_corasick::AhoCorasick::new(canaries.iter().flat_map(|c| {
            [
                differences(c.token.as_bytes()),
                differences(c.token.to_uppercase().as_bytes()),
            ]
        }))
        .ok();
        CanarySet {
            canaries,
            needles,
            matcher,
            xor_matcher,
        }
    }

    /// Every canary found in `data`, once each, with how it was encoded: the literal forms, a
    /// one-byte XOR, and both inside the runs of base64, hex and base-36 in `data` once decoded
    /// (and inflated, when the decoded bytes are gzip or zlib).
    pub fn find(&self, data: &[u8]) -> Vec<CanaryHit> {
        let mut hits = self.find_literal(data);
        self.find_xor(data, "xor", &mut hits);
        let mut budget = DECODED_MAX;
        // Searches one decoded run (and what it inflates to); false once every canary is found or
        // the budget is spent, which ends the decoding too.
        let mut search = |hits: &mut Vec<CanaryHit>, d: Vec<u8>, label, xor_label| -> bool {
            if hits.len() == self.canaries.len() || budget < d.len() {
                return false;
            }
            budget -= d.len();
            merge(hits, self.find_literal(&d), label);
            self.find_xor(&d, xor_label, hits);
            if let Some(z) = inflate(&d) {
                merge(hits, self.find_literal(&z), "in gzip");
                self.find_xor(&z, "xor in gzip", hits);
            }
            true
        };
        let b64 = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'-' | b'_');
        'decode: {
            for r in codec::runs(data, 24, b64) {
                let run = &data[r];
                // Where the base64 starts inside the run (`s=H4sI…`) is not known: every alignment.
                for skip in 0..4 {
                    if let Some(d) = codec::base64_decode(&run[skip..run.len().min(RUN_MAX)])
                        && !search(&mut hits, d, "in base64", "xor in base64")
                    {
                        break 'decode;
                    }
                }
            }
            for r in codec::runs(data, 32, |c| c.is_ascii_hexdigit()) {
                let run = &data[r];
                let run = &run[..run.len().min(RUN_MAX) & !1];
                if let Some(d) = codec::hex_decode(run)
                    && !search(&mut hits, d, "in hex", "xor in hex")
                {
                    break 'decode;
                }
            }
            // Base 36 only where the run is not hex already (its digits reach past `f`).
            for r in codec::runs(data, 30, |c| c.is_ascii_alphanumeric()) {
                let run = &data[r];
                if run.len() <= 4096
                    && run.iter().any(|c| c.to_ascii_lowercase() > b'f')
                    && !search(&mut hits, base36_decode(run), "in base36", "xor in base36")
                {
                    break 'decode;
                }
            }
        }
        hits
    }

    /// Canaries under a one-byte XOR in `data` (the key 0 is the plain form, found already).
    fn find_xor(&self, data: &[u8], label: &'static str, hits: &mut Vec<CanaryHit>) {
        let Some(m) = &self.xor_matcher else {
            return;
        };
        if data.len() < 2 {
            return;
        }
        let found = m
            .find_overlapping_iter(&differences(data))
            .map(|x| CanaryHit {
                origin: self.canaries[x.pattern().as_usize() / 2].origin.clone(),
                encoding: label,
            })
            .collect();
        merge(hits, found, label);
    }

    /// The literal encoded forms (the needles) in `data`.
    fn find_literal(&self, data: &[u8]) -> Vec<CanaryHit> {
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

    /// Encodings made by Python's own codecs (`base64.b85encode`, `a85encode`, `gzip.compress`
    /// with mtime 0, `zlib.compress`, `codecs.encode(.., "rot13")`), of "KEY <token>" inside
    /// other text; the third of each is the same with another token (one character changed in
    /// its middle), which must never count.
    const EXTRA: [(&str, &str, &str); 10] = [
        (
            "base85",
            "b7f<4Wpq7DMOh#)F)}kWH8wXmIbmXBWMyVBF)}kWH8wXOWo~2",
            "b7f<4Wpq7DMOh#)F)}kWH8wXmIbmXDWMyVBF)}kWH8wXOWo~2",
        ),
        (
            "base85",
            "VPbP-V{&D5JxfJdATTj9Gc+|eH#j+AVq;`wW-u`_Gc+|eHy~whWB",
            "VPbP-V{&D5JxfJdATTj9Gc+|eH#j+AVr67yW-u`_Gc+|eHy~whWB",
        ),
        (
            "ascii85",
            "@<6!iEb0>U91;u+0JP==1c70M3&tDV@q9._0JP==1c70M+D#G$",
            "@<6!iEb0>U91;u+0JP==1c70M3&tDVARo@a0JP==1c70M+D#G$",
        ),
        (
            "ascii85",
            "@:E_fARfalF?N8c=WfCQ1,CaE2E*TU@:E_WAS*VN1,CaE2E)aiDI`",
            "@:E_fARfalF?N8c=WfCQ1,CaE2E*TU@:EeYAS*VN1,CaE2E)aiDI`",
        ),
        (
            "in gzip",
            "H4sIAAAAAAACA0vNK1Nw9wzxCHWKD/H3dvWz9XaNVDAwNDI2MTUzt7BMTEpOSU2D8bkAXvXAqi4AAAA=",
            "H4sIAAAAAAACA0vNK1Nw9wzxCHWKD/H3dvWz9XaNVDAwNDI2MTUzt7BMTEpNSU2D8bkAgyolCi4AAAA=",
        ),
        (
            "in gzip",
            "789c2bc9cf4ecdb3f5768d543030343236313533b7b04c4c4a4e494d83f101b0650966",
            "789c2bc9cf4ecdb3f5768d543030343236313533b7b04c4c4a4d494d83f101b07d0968",
        ),
        (
            "xor in hex",
            "3b2f2e3267111f037a6a6b68696e6f6c6d62633b38393e3f3c6a6b68696e6f6c6d",
            "3b2f2e3267111f037a6a6b68696e6f6c6d62633b383f3e3f3c6a6b68696e6f6c6d",
        ),
        (
            "xor in base64",
            "VkJDXwp8cm4XBwYFBAMCAQAPDlZVVFNSUQcGBQQDAgEA",
            "VkJDXwp8cm4XBwYFBAMCAQAPDlZVUlNSUQcGBQQDAgEA",
        ),
        (
            "in base36",
            "2wh0rmbkutlmzju2ms4li1j0dzj1auabm8s5lazvpqzk2ssjlj",
            "2wh0rmbkutlmzju2ms4li1j0dzj1auaboejzknsqsywp5phvef",
        ),
        (
            "base64 of reversed",
            "NzY1NDMyMTBmZWRjYmE5ODc2NTQzMjEwIFlFSw==",
            "NzY1NDMyMTBmZWRlYmE5ODc2NTQzMjEwIFlFSw==",
        ),
    ];

    #[test]
    fn finds_canary_in_base85_gzip_xor_base36_and_reversed_base64_made_by_python() {
        let s = set();
        for (want, found, _) in EXTRA {
            let data = format!("Cookie: s={found}; path=/");
            let hits = s.find(data.as_bytes());
            assert_eq!(hits.len(), 1, "{want}: {found}");
            assert_eq!(hits[0].encoding, want, "{found}");
        }
        assert_eq!(
            s.find(b"k=XRL 0123456789nopqrs01234567;")[0].encoding,
            "rot13"
        );
        // XOR with a key of one byte, as raw bytes.
        let xored: Vec<u8> = b"auth=KEY 0123456789abcdef01234567"
            .iter()
            .map(|b| b ^ 0xa5)
            .collect();
        assert_eq!(s.find(&xored)[0].encoding, "xor");
    }

    #[test]
    fn the_same_encodings_of_a_near_miss_are_not_a_canary() {
        let s = set();
        for (_, _, near) in EXTRA {
            let data = format!("Cookie: s={near}; path=/");
            let hits = s.find(data.as_bytes());
            assert!(hits.is_empty(), "{near}: {hits:?}");
        }
        assert!(s.find(b"k=XRL 0123456789norqrs01234567;").is_empty());
        let xored: Vec<u8> = b"auth=KEY 0123456789abedef01234567"
            .iter()
            .map(|b| b ^ 0xa5)
            .collect();
        assert!(s.find(&xored).is_empty());
    }

    #[test]
    fn a_flood_of_base64_is_searched_within_its_budget() {
        // 8 MiB of base64 with the canary near the end: past the decoded budget it may be missed
        // inside runs, never searched quadratically; the literal search still sees the plain one.
        let mut data = base64(&vec![7u8; 6 << 20]).into_bytes();
        data.extend_from_slice(b" KEY 0123456789abcdef01234567");
        let hits = set().find(&data);
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].encoding, "plain");
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
            let fast: Vec<String> = s.find_literal(&data).into_iter().map(|h| h.origin).collect();
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
