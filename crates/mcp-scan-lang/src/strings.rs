//! String-literal helpers shared by adapters.

/// Flags of a Python string prefix (`rb`, `f`, `Rb`, ...).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Prefix {
    pub raw: bool,
    pub bytes: bool,
    pub format: bool,
}

/// Parses the `string_start` token (`f"`, `rb'''`, `"""`): prefix flags and the quote length.
pub(crate) fn parse_prefix(start: &str) -> Prefix {
    let mut p = Prefix::default();
    for c in start.chars() {
        match c {
            'r' | 'R' => p.raw = true,
            'b' | 'B' => p.bytes = true,
            'f' | 'F' | 't' | 'T' => p.format = true,
            _ => {}
        }
    }
    p
}

/// Decodes Python escape sequences. Unknown escapes keep their backslash, as Python does.
pub(crate) fn decode_escapes(s: &str, out: &mut String) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            '\n' => {}
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
            }
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut digits = String::new();
                for _ in 0..n {
                    match chars.peek() {
                        Some(c) if c.is_ascii_hexdigit() => {
                            digits.push(*c);
                            chars.next();
                        }
                        _ => break,
                    }
                }
                match u32::from_str_radix(&digits, 16)
                    .ok()
                    .and_then(char::from_u32)
                {
                    Some(ch) if digits.len() == n => out.push(ch),
                    _ => {
                        out.push('\\');
                        out.push(e);
                        out.push_str(&digits);
                    }
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
}

/// `inspect.cleandoc`: strip the common indentation of all lines but the first, and leading and
/// trailing blank lines.
pub(crate) fn clean_doc(doc: &str) -> String {
    let doc = doc.replace('\t', "        ");
    let lines: Vec<&str> = doc.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    for (i, l) in lines.iter().enumerate() {
        if i == 0 {
            out.push(l.trim_start());
        } else {
            out.push(l.get(indent..).unwrap_or("").trim_end());
        }
    }
    while out.first().is_some_and(|l| l.trim().is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> String {
        let mut o = String::new();
        decode_escapes(s, &mut o);
        o
    }

    #[test]
    fn decodes_common_python_escapes() {
        assert_eq!(dec(r"a\nb\t\x41\u00e9\101\\\'"), "a\nb\tAé\u{41}\\'");
        assert_eq!(dec(r"keep \d and \N{DASH}"), r"keep \d and \N{DASH}");
        assert_eq!(dec("line\\\ncontinued"), "linecontinued");
        assert_eq!(dec(r"bad \x4"), r"bad \x4");
    }

    #[test]
    fn cleandoc_strips_common_indentation() {
        assert_eq!(
            clean_doc("Summary.\n\n    Detail line.\n      indented\n    "),
            "Summary.\n\nDetail line.\n  indented"
        );
        assert_eq!(clean_doc("\n    Only body.\n    "), "Only body.");
    }
}
