//! Base64 and hex, as the analyzers read hidden text: the description witness decodes runs in
//! tool descriptions, the runtime witness decodes what a server sent and encodes canaries to
//! find them again. One codec so that both read the same bytes out of the same text.

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn b64_value(c: u8) -> Option<u32> {
    Some(u32::from(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    }))
}

/// Standard or URL-safe base64, padded or not. `None` when a byte (other than trailing `=`) is
/// outside both alphabets.
///
/// A run whose length is 1 more than a multiple of 4 ends in a character that carries 6 bits,
/// not a whole byte: the bytes before it are decoded and it is dropped, as a reader of the text
/// would. A payload cut at any point, or a run that took in one stray character, still shows
/// what it says; rejecting the run would hide all of it.
pub fn base64_decode(s: &[u8]) -> Option<Vec<u8>> {
    let end = s.iter().rposition(|&c| c != b'=').map_or(0, |i| i + 1);
    let s = &s[..end];
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &c in s {
        acc = (acc << 6) | b64_value(c)?;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Standard base64 with `=` padding.
pub fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Hex digits in pairs, either case. `None` for an odd length or a byte that is not a hex digit.
pub fn hex_decode(s: &[u8]) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    s.chunks(2)
        .map(|p| Some((digit(p[0])? << 4) | digit(p[1])?))
        .collect()
}

/// The maximal runs of bytes accepted by `ok`, at least `min` long, as ranges of `data` (with an
/// ASCII `ok`, a range of a `str` is on character boundaries).
pub fn runs(data: &[u8], min: usize, ok: impl Fn(u8) -> bool) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        if ok(data[i]) {
            let s = i;
            while i < data.len() && ok(data[i]) {
                i += 1;
            }
            if i - s >= min {
                out.push(s..i);
            }
        } else {
            i += 1;
        }
    }
    out
}

/// ROT13 of the ASCII letters; every other byte stays (so UTF-8 stays UTF-8).
pub fn rot13(data: &[u8]) -> Vec<u8> {
    data.iter()
        .map(|&c| match c {
            b'a'..=b'z' => b'a' + (c - b'a' + 13) % 26,
            b'A'..=b'Z' => b'A' + (c - b'A' + 13) % 26,
            _ => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_at_every_length_and_reads_url_safe_and_unpadded() {
        for n in 0..20u8 {
            let data: Vec<u8> = (0..n)
                .map(|i| i.wrapping_mul(37).wrapping_add(250))
                .collect();
            let enc = base64_encode(&data);
            assert_eq!(enc.len() % 4, 0);
            assert_eq!(base64_decode(enc.as_bytes()), Some(data.clone()), "{enc}");
            let bare = enc.trim_end_matches('=');
            assert_eq!(base64_decode(bare.as_bytes()), Some(data.clone()), "{bare}");
            let url: String = bare.replace('+', "-").replace('/', "_");
            assert_eq!(base64_decode(url.as_bytes()), Some(data), "{url}");
        }
        assert_eq!(base64_encode(b"ab"), "YWI=");
    }

    #[test]
    fn base64_with_one_dangling_character_decodes_the_whole_bytes_before_it() {
        // "aGVsbG8" is "hello"; one more character (6 bits) makes no byte.
        assert_eq!(
            base64_decode(b"aGVsbG8gd29ybGQhX"),
            Some(b"hello world!".to_vec())
        );
        assert_eq!(base64_decode(b"Q"), Some(Vec::new()));
    }

    #[test]
    fn base64_rejects_bytes_outside_the_alphabets_and_inner_padding() {
        assert_eq!(base64_decode(b"aGV sbG8="), None);
        assert_eq!(base64_decode(b"aG=Vs"), None);
        assert_eq!(base64_decode(b"aGVs*G8="), None);
    }

    #[test]
    fn hex_decodes_pairs_of_either_case_and_rejects_odd_or_foreign_input() {
        assert_eq!(hex_decode(b"48656C6c6f"), Some(b"Hello".to_vec()));
        assert_eq!(hex_decode(b""), Some(Vec::new()));
        assert_eq!(hex_decode(b"486"), None);
        assert_eq!(hex_decode(b"4g"), None);
        assert_eq!(hex_decode(b"+1"), None);
    }
}
