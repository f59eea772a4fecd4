//! Colour and text hygiene shared by the human-readable formats.
//!
//! Everything a server controls (names, descriptions, evidence) passes through [`clean`] before it
//! reaches a terminal: a poisoned description must not be able to move the cursor, hide text or
//! reorder the report with bidi controls.

use mcp_scan_core::{Severity, ToolStatus};
use std::fmt::Write as _;

/// Applies ANSI styles when colour is on; returns text unchanged otherwise.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Style {
    color: bool,
}

const RESET: &str = "\x1b[0m";

impl Style {
    pub(crate) fn new(color: bool) -> Self {
        Style { color }
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{code}m{text}{RESET}")
        } else {
            text.to_string()
        }
    }

    pub(crate) fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    pub(crate) fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    pub(crate) fn severity(self, sev: Severity, text: &str) -> String {
        self.paint(severity_code(sev), text)
    }

    pub(crate) fn status(self, status: ToolStatus, text: &str) -> String {
        self.paint(status_code(status), text)
    }

    /// Styles a verdict label (a severity, SAFE or INCOMPLETE).
    pub(crate) fn verdict(self, v: Verdict, text: &str) -> String {
        match v {
            Verdict::Severity(s) => self.severity(s, text),
            Verdict::Safe => self.status(ToolStatus::Safe, text),
            Verdict::Incomplete => self.status(ToolStatus::Incomplete, text),
        }
    }
}

fn severity_code(sev: Severity) -> &'static str {
    match sev {
        Severity::Critical => "1;35",
        Severity::High => "1;31",
        Severity::Medium => "33",
        Severity::Low => "36",
        Severity::Info => "2",
    }
}

fn status_code(status: ToolStatus) -> &'static str {
    match status {
        ToolStatus::Safe => "32",
        ToolStatus::Unsafe => "1;31",
        // Bold yellow: must never be mistaken for SAFE's green.
        ToolStatus::Incomplete => "1;33",
    }
}

/// The one-word verdict shown for an entity: its worst shown finding's severity, SAFE or
/// INCOMPLETE. Ordered from worst to best for grouping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Severity(Severity),
    Incomplete,
    Safe,
}

impl Verdict {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Verdict::Severity(s) => s.as_str(),
            Verdict::Incomplete => "INCOMPLETE",
            Verdict::Safe => "SAFE",
        }
    }

    /// Display order: CRITICAL, HIGH, MEDIUM, LOW, INFO, INCOMPLETE, SAFE.
    pub(crate) fn rank(self) -> u8 {
        match self {
            Verdict::Severity(Severity::Critical) => 0,
            Verdict::Severity(Severity::High) => 1,
            Verdict::Severity(Severity::Medium) => 2,
            Verdict::Severity(Severity::Low) => 3,
            Verdict::Severity(Severity::Info) => 4,
            Verdict::Incomplete => 5,
            Verdict::Safe => 6,
        }
    }

    pub(crate) const ORDER: [Verdict; 7] = [
        Verdict::Severity(Severity::Critical),
        Verdict::Severity(Severity::High),
        Verdict::Severity(Severity::Medium),
        Verdict::Severity(Severity::Low),
        Verdict::Severity(Severity::Info),
        Verdict::Incomplete,
        Verdict::Safe,
    ];
}

/// Makes untrusted text safe to print on one line of a terminal: control characters (ANSI
/// escapes, carriage returns, newlines), bidi overrides, zero-width and tag characters are shown
/// as `\u{..}` escapes instead of acting on the terminal or hiding in it.
pub(crate) fn clean(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if is_hidden(c) => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// The most characters of one untrusted text (a description, an observation, a piece of
/// evidence, a diagnostic) a human format prints; `raw` and `sarif` keep every text whole.
pub(crate) const MAX_TEXT_CHARS: usize = 400;
/// The most characters of one name (server, tool, resource URI) a human format prints.
pub(crate) const MAX_NAME_CHARS: usize = 120;

/// [`clean`] on at most `max` characters of `s`; a longer text ends in `…` and says how many
/// characters were left out, so a megabyte of description cannot bury the report.
pub(crate) fn clip(s: &str, max: usize) -> String {
    let Some((cut, _)) = s.char_indices().nth(max) else {
        return clean(s);
    };
    let more = s[cut..].chars().count();
    format!(
        "{}… ({more} more char{})",
        clean(&s[..cut]),
        if more == 1 { "" } else { "s" }
    )
}

/// [`clip`] at [`MAX_TEXT_CHARS`].
pub(crate) fn clip_text(s: &str) -> String {
    clip(s, MAX_TEXT_CHARS)
}

fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(u32::from(c),
            0x00AD                 // soft hyphen
            | 0x061C               // Arabic letter mark
            | 0x180E               // Mongolian vowel separator
            | 0x200B..=0x200F      // zero-width space/joiners, LRM/RLM
            | 0x202A..=0x202E      // bidi embeddings and overrides
            | 0x2060..=0x2064      // word joiner, invisible operators
            | 0x2066..=0x2069      // bidi isolates
            | 0xFEFF               // zero-width no-break space
            | 0xE0000..=0xE007F    // tag characters
        )
}

/// Number of terminal columns `s` takes, ignoring ANSI styles (one per char: good enough for
/// padding names, which [`clean`] has already made printable).
pub(crate) fn visible_width(s: &str) -> usize {
    let mut width = 0;
    let mut in_escape = false;
    for c in s.chars() {
        if in_escape {
            if c == 'm' {
                in_escape = false;
            }
        } else if c == '\x1b' {
            in_escape = true;
        } else {
            width += 1;
        }
    }
    width
}

/// Pads styled text on the right to `width` visible columns.
pub(crate) fn pad(styled: &str, width: usize) -> String {
    let w = visible_width(styled);
    let mut s = styled.to_string();
    s.extend(std::iter::repeat_n(' ', width.saturating_sub(w)));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_escapes_ansi_bidi_zero_width_and_tag_characters() {
        assert_eq!(clean("a\x1b[8mb"), "a\\u{1b}[8mb");
        assert_eq!(clean("x\u{202e}y\u{200b}z"), "x\\u{202e}y\\u{200b}z");
        assert_eq!(clean("t\u{e0041}"), "t\\u{e0041}");
        assert_eq!(clean("line1\nline2"), "line1\\nline2");
        assert_eq!(clean("plain ünïcode ✓"), "plain ünïcode ✓");
    }

    #[test]
    fn style_emits_ansi_only_when_colour_is_on() {
        assert_eq!(Style::new(false).severity(Severity::High, "HIGH"), "HIGH");
        assert_eq!(
            Style::new(true).severity(Severity::High, "HIGH"),
            "\x1b[1;31mHIGH\x1b[0m"
        );
        assert_eq!(visible_width(&Style::new(true).bold("abc")), 3);
        assert_eq!(pad(&Style::new(true).bold("ab"), 4), "\x1b[1mab\x1b[0m  ");
    }

    #[test]
    fn clip_cuts_on_characters_says_how_many_were_left_out_and_keeps_short_text() {
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "abc… (1 more char)");
        // Multi-byte characters count as one and are never split.
        assert_eq!(clip("ééééé", 2), "éé… (3 more chars)");
        // Hidden characters are escaped after the cut, and counted as the one character they are.
        assert_eq!(clip("a\u{200b}bcd", 2), "a\\u{200b}… (3 more chars)");
    }
}
