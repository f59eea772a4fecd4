//! Which names the sandbox's DNS sink answers. A resolver that answers every name (a wildcard) is
//! a sandbox tell: a red-team server resolves a random name such as `q8f3kz0x7p.com` next to a
//! well-known one and stays dormant when both resolve. A real resolver answers names that exist
//! and says NXDOMAIN for the rest, so the sink does too: names whose domain looks random, random
//! names under a well-known domain (a real zone has no `x7kq2zp9.github.com`), reserved and
//! random-looking top-level domains, and single labels. Everything else gets an address, and
//! every query is captured whatever the answer (a DNS leak needs no answer). An attacker's own
//! zone often answers every name (it is its own name server), so random labels under a domain
//! that is not well known are answered.

/// Top-level domains that never resolve on the public internet (RFC 2606, 6761, 7686).
/// `example` stays answered: documentation and the fixtures' collectors use it, and a red team
/// comparing names draws random ones, not reserved ones.
const RESERVED_NX: &[&str] = &["invalid", "test", "local", "localhost", "onion", "internal"];

/// Second-level labels of country registries (`example.co.uk`): the registered name is the
/// label in front of them.
const SECOND_LEVEL: &[&str] = &["co", "com", "org", "net", "ac", "gov", "edu", "ne", "or"];

/// Zones a detector may test with a random subdomain; their real zones answer no such name.
const WELL_KNOWN: &[&str] = &[
    "google.com",
    "googleapis.com",
    "github.com",
    "githubusercontent.com",
    "python.org",
    "pypi.org",
    "npmjs.org",
    "npmjs.com",
    "microsoft.com",
    "apple.com",
    "amazon.com",
    "cloudflare.com",
    "wikipedia.org",
    "mozilla.org",
    "ubuntu.com",
    "debian.org",
    "openai.com",
    "anthropic.com",
];

/// Whether the sink gives `name` an address (`false`: NXDOMAIN).
pub fn resolves(name: &str) -> bool {
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    let labels: Vec<&str> = name.split('.').collect();
    if labels.len() < 2 || labels.iter().any(|l| l.is_empty()) {
        return false;
    }
    let n = labels.len();
    let tld = labels[n - 1];
    if RESERVED_NX.contains(&tld)
        || !tld.starts_with("xn--")
            && (!tld.bytes().all(|b| b.is_ascii_alphabetic()) || random_label(tld, 5))
    {
        return false;
    }
    let reg = if n >= 3 && tld.len() == 2 && SECOND_LEVEL.contains(&labels[n - 2]) {
        n - 3
    } else {
        n - 2
    };
    if random_label(labels[reg], 8) {
        return false;
    }
    let domain = labels[reg..].join(".");
    !(WELL_KNOWN.contains(&domain.as_str()) && labels[..reg].iter().any(|l| random_label(l, 6)))
}

/// Whether a label looks drawn at random rather than named: digits and letters mixed back and
/// forth (hex, base32, ids), long digit strings, or letters no word has (few vowels, long
/// consonant runs). Labels shorter than `min` are never judged: short names are too varied.
pub fn random_label(label: &str, min: usize) -> bool {
    if label.starts_with("xn--") {
        return false;
    }
    label
        .split(['-', '_'])
        .any(|part| part.len() >= min && random_part(part))
}

fn random_part(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let letters = b.iter().filter(|c| c.is_ascii_alphabetic()).count();
    if digits == b.len() {
        return true;
    }
    if digits > 0 && letters > 0 {
        let switches = b
            .windows(2)
            .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
            .count();
        if switches >= 3 {
            return true;
        }
    }
    let vowel = |c: &u8| b"aeiouy".contains(c);
    let letters_only: Vec<u8> = b.iter().copied().filter(u8::is_ascii_alphabetic).collect();
    if letters_only.len() < 6 {
        return false;
    }
    let vowels = letters_only.iter().filter(|c| vowel(c)).count();
    let mut run = 0;
    let mut longest = 0;
    for c in &letters_only {
        run = if vowel(c) { 0 } else { run + 1 };
        longest = longest.max(run);
    }
    // Consonant pairs that names made of words rarely hold (`xq`, `zk`, `vb`).
    let rare = letters_only
        .windows(2)
        .filter(|w| !vowel(&w[0]) && !vowel(&w[1]) && !COMMON_PAIRS.contains(&[w[0], w[1]]))
        .count();
    let n = letters_only.len();
    vowels * 100 < n * 20 || longest >= 5 || rare >= 2 && rare * 100 >= n * 15
}

/// Consonant pairs common in English words and the names built from them.
const COMMON_PAIRS: &[[u8; 2]] = &[
    *b"th", *b"ch", *b"sh", *b"ph", *b"wh", *b"ck", *b"ng", *b"nk", *b"nd", *b"nt", *b"ns", *b"st",
    *b"sp", *b"sc", *b"sk", *b"sm", *b"sn", *b"sl", *b"tr", *b"pr", *b"br", *b"cr", *b"dr", *b"fr",
    *b"gr", *b"wr", *b"bl", *b"cl", *b"fl", *b"gl", *b"pl", *b"ll", *b"ss", *b"tt", *b"pp", *b"mm",
    *b"nn", *b"rr", *b"ff", *b"gg", *b"dd", *b"bb", *b"cc", *b"rt", *b"rd", *b"rk", *b"rm", *b"rn",
    *b"rs", *b"rc", *b"rg", *b"rl", *b"rb", *b"rp", *b"rv", *b"rf", *b"rh", *b"lt", *b"ld", *b"lk",
    *b"lm", *b"lp", *b"ls", *b"lf", *b"lv", *b"lb", *b"mp", *b"mb", *b"ms", *b"nc", *b"nf", *b"nv",
    *b"nl", *b"ct", *b"pt", *b"ft", *b"xt", *b"ts", *b"ds", *b"ks", *b"ps", *b"ws", *b"wn", *b"gh",
    *b"dg", *b"bs", *b"gs", *b"cs", *b"hn", *b"tw", *b"sw", *b"dw", *b"kn", *b"gn", *b"mn", *b"nm",
    *b"lc", *b"rw", *b"wl", *b"tc", *b"cd", *b"dn", *b"tl", *b"ql", *b"sq", *b"kd", *b"kb", *b"kl",
    *b"lr", *b"gd",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_names_are_nxdomain_and_named_ones_resolve() {
        for n in [
            "q8f3kz0x7p.com",
            "3f9a2c7e1b.net",
            "xkqzjwvtrp.org",
            "x7kq2zp9.github.com",
            "9c1e4a77b2d04f0e.google.com",
            "foo.invalid",
            "sandbox-check.test",
            "wpad",
            "printer.local",
            "my.host.qzxkvw",
            "a.b.123",
        ] {
            assert!(!resolves(n), "{n} must be NXDOMAIN");
        }
        for n in [
            "github.com",
            "api.github.com",
            "raw.githubusercontent.com",
            "pypi.org",
            "files.pythonhosted.org",
            "docs.python.org",
            "en.wikipedia.org",
            "news.ycombinator.com",
            "stackoverflow.com",
            "fonts.gstatic.com",
            "s3.amazonaws.com",
            "bbc.co.uk",
            "json-lint.example",
            "telemetry.formatter-cdn.example",
            "collect.example.net",
            "api.anthropic.com",
            "registry.npmjs.org",
            "xn--mnchen-3ya.de",
            "cloudflare-dns.com",
            "dns.google",
            "kubernetes.io",
            // An attacker's own zone answers every name: data in its labels still resolves.
            "6a0f3c9e77b1.t.exfil.example",
            "mzxw6ytboi.s.collector.net",
        ] {
            assert!(resolves(n), "{n} must resolve");
        }
    }

    #[test]
    fn most_random_labels_a_detector_would_draw_are_caught() {
        let mut r = crate::identity::Rng::new(7);
        let alpha = b"abcdefghijklmnopqrstuvwxyz";
        let alnum = b"abcdefghijklmnopqrstuvwxyz0123456789";
        let mut caught = [0usize; 2];
        for _ in 0..1000 {
            for (i, set) in [&alpha[..], &alnum[..]].into_iter().enumerate() {
                let len = 10 + r.below(7) as usize;
                let s: String = (0..len)
                    .map(|_| set[r.below(set.len() as u64) as usize] as char)
                    .collect();
                if !resolves(&format!("{s}.com")) {
                    caught[i] += 1;
                }
            }
        }
        assert!(caught[0] >= 880, "letters only: {} of 1000", caught[0]);
        assert!(
            caught[1] >= 950,
            "letters and digits: {} of 1000",
            caught[1]
        );
    }
}
