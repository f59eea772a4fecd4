//! JSON with comments and trailing commas (JSONC), the dialect VS Code reads its `settings.json`
//! and `mcp.json` in. Comments and trailing commas are blanked to spaces, newlines kept, so a
//! parse error's line and column still point into the file as written.

/// What [`strip`] removed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Leniency {
    pub comments: bool,
    pub trailing_commas: bool,
}

impl Leniency {
    pub fn any(self) -> bool {
        self.comments || self.trailing_commas
    }
}

/// Blanks `//` and `/* */` comments and commas that close nothing but `}`/`]`.
pub fn strip(text: &str) -> (String, Leniency) {
    let mut out: Vec<char> = Vec::with_capacity(text.len());
    let mut found = Leniency::default();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut in_string = false;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(&n) = chars.get(i + 1) {
                    out.push(n);
                    i += 1;
                }
            } else if c == '"' {
                in_string = false;
            }
            i += 1;
            continue;
        }
        match (c, chars.get(i + 1)) {
            ('"', _) => {
                in_string = true;
                out.push(c);
                i += 1;
            }
            ('/', Some('/')) => {
                found.comments = true;
                while i < chars.len() && chars[i] != '\n' {
                    out.push(' ');
                    i += 1;
                }
            }
            ('/', Some('*')) => {
                found.comments = true;
                out.push(' ');
                out.push(' ');
                i += 2;
                while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                    out.push(if chars[i] == '\n' { '\n' } else { ' ' });
                    i += 1;
                }
                if i < chars.len() {
                    out.push(' ');
                    out.push(' ');
                    i += 2;
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    // Second pass over the comment-free text: a comma followed only by blanks and a closer.
    let mut in_string = false;
    let mut escaped = false;
    let mut i = 0;
    while i < out.len() {
        let c = out[i];
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        } else if c == ',' {
            let next = out[i + 1..].iter().find(|c| !c.is_whitespace());
            if matches!(next, Some('}') | Some(']')) {
                out[i] = ' ';
                found.trailing_commas = true;
            }
        }
        i += 1;
    }
    (out.into_iter().collect(), found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blanks_comments_and_trailing_commas_keeping_positions() {
        let text = "{\n // note\n \"a\": \"x//y\", /* b */\n \"b\": [1, 2,],\n}\n";
        let (s, found) = strip(text);
        assert!(found.comments && found.trailing_commas);
        assert_eq!(s.lines().count(), text.lines().count());
        let v: serde_json::Value = serde_json::from_str(&s).expect("stripped text parses");
        assert_eq!(v["a"], "x//y");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
    }

    #[test]
    fn strict_json_is_left_alone() {
        let text = r#"{"a": "a,}", "b": "\"/*"}"#;
        let (s, found) = strip(text);
        assert_eq!(s, text);
        assert!(!found.any());
    }
}
