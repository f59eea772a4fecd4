//! Splitting fields into sentences and making excerpts safe to print.

/// Byte ranges of the sentences (or lines) of a text. A sentence ends at a line break or at
/// `.`, `!`, `?` or `;` followed by whitespace.
pub fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        let end = match b {
            b'\n' => Some(i),
            b'.' | b'!' | b'?' | b';' => match bytes.get(i + 1) {
                None => Some(i + 1),
                Some(n) if n.is_ascii_whitespace() => Some(i + 1),
                _ => None,
            },
            _ => None,
        };
        if let Some(end) = end {
            if end > start {
                out.push((start, end));
            }
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    if out.is_empty() {
        out.push((0, text.len()));
    }
    out
}

/// Longest excerpt shown, in characters.
const EXCERPT_CHARS: usize = 240;

/// The window as one printable line: whitespace collapsed, invisible and control characters
/// shown as `\u{…}` escapes (they are often the finding), long text shortened with `…`.
pub fn excerpt(s: &str) -> String {
    let mut out = String::new();
    let mut n = 0;
    let mut last_space = true;
    for c in s.chars() {
        if n >= EXCERPT_CHARS {
            out.push('…');
            break;
        }
        if c.is_whitespace() && !is_invisible(c) {
            if !last_space {
                out.push(' ');
                n += 1;
            }
            last_space = true;
            continue;
        }
        last_space = false;
        if c.is_control() || is_invisible(c) {
            let esc = format!("\\u{{{:x}}}", c as u32);
            n += esc.chars().count();
            out.push_str(&esc);
        } else {
            out.push(c);
            n += 1;
        }
    }
    out.trim_end().to_string()
}

/// Characters that render as nothing (or reorder text) in most clients.
pub fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0x3164 | 0xFEFF | 0xFFA0 | 0xE0000..=0xE007F)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_on_sentence_ends_and_line_breaks_only() {
        let t = "Reads a file. Use v1.2 only!\nNext line";
        let s: Vec<&str> = sentences(t).iter().map(|&(a, b)| &t[a..b]).collect();
        assert_eq!(s, ["Reads a file.", " Use v1.2 only!", "Next line"]);
    }

    #[test]
    fn excerpt_escapes_invisible_characters_and_collapses_space() {
        assert_eq!(
            excerpt("a\u{200b}b\n\n  c\u{1b}[31m"),
            "a\\u{200b}b c\\u{1b}[31m"
        );
        let long = "x".repeat(300);
        assert_eq!(excerpt(&long).chars().count(), EXCERPT_CHARS + 1);
    }
}
