//! Source decoding: UTF-8 by default, or the encoding a PEP 263 declaration names
//! (`# -*- coding: latin-1 -*-` on the first or second line), as the interpreter decodes it.
//!
//! Latin-1 and ASCII are decoded here exactly as Python does; other encodings go through
//! `encoding_rs` by label (`cp1252`, `shift_jis`, `euc-jp`, `koi8-r`, ...). A declared encoding
//! neither knows, or bytes that are not valid in it, leave the file unanalysed with the reason.

/// Why a file could not be decoded: the message, and the 1-based line it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError {
    pub message: String,
    pub line: u32,
}

/// Decodes a Python source file's bytes.
pub(crate) fn decode_python(bytes: &[u8]) -> Result<String, DecodeError> {
    let (bom, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let declared = declared_encoding(body);
    let Some((name, decl_line)) = declared else {
        return utf8(body);
    };
    let norm = normal_name(&name);
    if bom && norm != "utf-8" {
        return Err(DecodeError {
            message: format!(
                "encoding problem: `{name}` declared with a UTF-8 byte-order mark (Python rejects it)"
            ),
            line: decl_line,
        });
    }
    match norm.as_str() {
        "utf-8" => utf8(body),
        // Python's latin-1 maps every byte to the code point of the same value (WHATWG's
        // "latin1" label means windows-1252, which differs in 0x80-0x9F).
        "iso-8859-1" => Ok(body.iter().map(|&b| char::from(b)).collect()),
        "ascii" | "us-ascii" | "646" => match body.iter().position(|b| !b.is_ascii()) {
            None => Ok(body.iter().map(|&b| char::from(b)).collect()),
            Some(pos) => Err(DecodeError {
                message: format!("not valid {name} (byte offset {pos})"),
                line: line_at(body, pos),
            }),
        },
        _ => {
            let encoding = encoding_rs::Encoding::for_label(name.to_ascii_lowercase().as_bytes())
                .or_else(|| encoding_rs::Encoding::for_label(norm.as_bytes()))
                .or_else(|| encoding_rs::Encoding::for_label(norm.replace('-', "_").as_bytes()));
            let Some(encoding) = encoding else {
                return Err(DecodeError {
                    message: format!("unknown source encoding `{name}` declared"),
                    line: decl_line,
                });
            };
            match encoding.decode_without_bom_handling_and_without_replacement(body) {
                Some(text) => Ok(text.into_owned()),
                None => Err(DecodeError {
                    message: format!("not valid {name} (declared on line {decl_line})"),
                    line: decl_line,
                }),
            }
        }
    }
}

pub(crate) fn utf8(body: &[u8]) -> Result<String, DecodeError> {
    match std::str::from_utf8(body) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => {
            let pos = e.valid_up_to();
            Err(DecodeError {
                message: format!("not valid UTF-8 (byte offset {pos})"),
                line: line_at(body, pos),
            })
        }
    }
}

fn line_at(bytes: &[u8], pos: usize) -> u32 {
    let n = bytes[..pos.min(bytes.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    u32::try_from(n).unwrap_or(u32::MAX).saturating_add(1)
}

/// The encoding name a PEP 263 comment declares, with its line. Like CPython's tokenizer, the
/// second line only counts when the first is blank or a comment.
fn declared_encoding(body: &[u8]) -> Option<(String, u32)> {
    let mut lines = body.split(|&b| b == b'\n');
    let first = lines.next()?;
    if let Some(name) = coding_spec(first) {
        return Some((name, 1));
    }
    let first_is_comment_or_blank = first
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\x0c' | b'\r'))
        .is_none_or(|&b| b == b'#');
    if !first_is_comment_or_blank {
        return None;
    }
    coding_spec(lines.next()?).map(|name| (name, 2))
}

/// `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)` (PEP 263's regular expression) on one line.
fn coding_spec(line: &[u8]) -> Option<String> {
    let start = line
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\x0c'))?;
    if line[start] != b'#' {
        return None;
    }
    let comment = &line[start..];
    let mut from = 0;
    while let Some(i) = find(&comment[from..], b"coding") {
        let after = from + i + b"coding".len();
        if matches!(comment.get(after), Some(b':' | b'=')) {
            let rest = &comment[after + 1..];
            let rest = &rest[rest
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t'))
                .unwrap_or(rest.len())..];
            let end = rest
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.')))
                .unwrap_or(rest.len());
            if end > 0 {
                return Some(String::from_utf8_lossy(&rest[..end]).into_owned());
            }
        }
        from = after;
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// CPython's `get_normal_name`: `utf-8*` and the latin-1 spellings collapse to one name.
fn normal_name(name: &str) -> String {
    let n = name.to_ascii_lowercase().replace('_', "-");
    if n == "utf-8" || n.starts_with("utf-8-") || n == "utf8" {
        return "utf-8".to_string();
    }
    for latin in ["latin-1", "iso-8859-1", "iso-latin-1"] {
        if n == latin || n.starts_with(&format!("{latin}-")) {
            return "iso-8859-1".to_string();
        }
    }
    if matches!(n.as_str(), "latin1" | "l1" | "iso8859-1" | "cp819" | "8859") {
        return "iso-8859-1".to_string();
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undeclared_sources_are_utf8() {
        assert_eq!(decode_python("x = 'é'\n".as_bytes()).unwrap(), "x = 'é'\n");
        let err = decode_python(b"x = 1\ny = '\xe9'\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("UTF-8"), "{}", err.message);
    }

    #[test]
    fn latin1_declaration_on_the_first_or_second_line_decodes_the_file() {
        let src = b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n";
        assert_eq!(
            decode_python(src).unwrap(),
            "# -*- coding: latin-1 -*-\nname = 'été'\n"
        );
        let src = b"#!/usr/bin/env python\n# vim: set fileencoding=iso-8859-15 :\ns = '\xa4'\n";
        assert!(decode_python(src).unwrap().ends_with("s = '€'\n"));
    }

    #[test]
    fn a_declaration_after_code_on_line_one_does_not_count() {
        // Python ignores line 2 when line 1 is code, so this is plain (invalid) UTF-8.
        let src = b"import os\n# coding: latin-1\ns = '\xe9'\n";
        assert!(decode_python(src).is_err());
    }

    #[test]
    fn cp1252_and_shift_jis_go_through_their_labels() {
        let src = b"# coding=cp1252\ns = '\x80'\n";
        assert!(decode_python(src).unwrap().ends_with("s = '€'\n"));
        let src = b"# coding: shift_jis\ns = '\x82\xa0'\n";
        assert!(decode_python(src).unwrap().ends_with("s = 'あ'\n"));
    }

    #[test]
    fn an_unknown_declared_encoding_is_an_error_at_its_line() {
        let err = decode_python(b"\n# coding: klingon-7\nx = 1\n").unwrap_err();
        assert_eq!(err.line, 2);
        assert!(err.message.contains("unknown source encoding `klingon-7`"));
    }

    #[test]
    fn bom_with_a_non_utf8_declaration_is_rejected_like_python() {
        assert!(decode_python(b"\xEF\xBB\xBF# coding: latin-1\nx = 1\n").is_err());
        assert_eq!(
            decode_python(b"\xEF\xBB\xBF# coding: utf-8\nx = 1\n").unwrap(),
            "# coding: utf-8\nx = 1\n"
        );
    }

    #[test]
    fn ascii_declaration_rejects_high_bytes() {
        assert!(decode_python(b"# coding: ascii\nx = '\xe9'\n").is_err());
        assert!(decode_python(b"# coding: ascii\nx = 1\n").is_ok());
    }
}
