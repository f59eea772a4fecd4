//! Byte offsets of a JSON value's direct children. serde_json's `Value` keeps no spans, so an
//! error about `tools[3]` would otherwise point at the start of the whole document.
//! Only called on text serde_json has already parsed; on anything odd it returns what it has.

pub(crate) enum Children {
    /// Keys as written (escapes left in) and the offset of each value.
    Object(Vec<(String, usize)>),
    Array(Vec<usize>),
    Scalar,
}

impl Children {
    pub(crate) fn key(&self, key: &str) -> Option<usize> {
        match self {
            Children::Object(kv) => kv.iter().find(|(k, _)| k == key).map(|&(_, at)| at),
            _ => None,
        }
    }

    pub(crate) fn elements(&self) -> &[usize] {
        match self {
            Children::Array(v) => v,
            _ => &[],
        }
    }
}

pub(crate) fn children(text: &str, at: usize) -> Children {
    let b = text.as_bytes();
    let mut i = skip_ws(b, at);
    match b.get(i) {
        Some(b'{') => {
            let mut out = Vec::new();
            i += 1;
            loop {
                i = skip_ws(b, i);
                if b.get(i) != Some(&b'"') {
                    break;
                }
                let key_end = skip_string(b, i);
                let key = text.get(i + 1..key_end.saturating_sub(1)).unwrap_or("");
                i = skip_ws(b, key_end);
                if b.get(i) != Some(&b':') {
                    break;
                }
                i = skip_ws(b, i + 1);
                out.push((key.to_string(), i));
                i = skip_ws(b, skip_value(b, i));
                if b.get(i) != Some(&b',') {
                    break;
                }
                i += 1;
            }
            Children::Object(out)
        }
        Some(b'[') => {
            let mut out = Vec::new();
            i = skip_ws(b, i + 1);
            if b.get(i) == Some(&b']') {
                return Children::Array(out);
            }
            while i < b.len() {
                out.push(i);
                i = skip_ws(b, skip_value(b, i));
                if b.get(i) != Some(&b',') {
                    break;
                }
                i = skip_ws(b, i + 1);
            }
            Children::Array(out)
        }
        _ => Children::Scalar,
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

/// `i` is at an opening quote; returns the offset just past the closing one.
fn skip_string(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while let Some(&c) = b.get(i) {
        match c {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

fn skip_value(b: &[u8], mut i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => skip_string(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            while let Some(&c) = b.get(i) {
                match c {
                    b'"' => {
                        i = skip_string(b, i);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            b.len()
        }
        _ => {
            while let Some(&c) = b.get(i) {
                if matches!(c, b',' | b']' | b'}') || c.is_ascii_whitespace() {
                    break;
                }
                i += 1;
            }
            i
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_and_elements_past_nested_strings_and_brackets() {
        let t = r#" {"a": "x]}\"", "tools": [ {"n": [1,2]}, "s,]" ,3 ], "z": null}"#;
        let c = children(t, 0);
        let tools = c.key("tools").expect("tools");
        let e = children(t, tools);
        let got: Vec<&str> = e.elements().iter().map(|&i| &t[i..i + 3]).collect();
        assert_eq!(got, [r#"{"n"#, r#""s,"#, "3 ]"]);
        assert!(c.key("z").is_some() && c.key("missing").is_none());
        assert!(children(t, tools + 1).elements().is_empty());
    }
}
