//! The literal screen: which cue patterns may occur in a text, from one Aho-Corasick pass.
//!
//! For each pattern, a set of literal strings such that every match of the pattern contains
//! at least one of them (compared ASCII-case-insensitively). One automaton over the literals of
//! every pattern of every rule tells, per text, which patterns can match at all; only those are
//! then run. A pattern with no such set (it can match text of its own choosing, `[A-Z]\w+`) is
//! always run. The screen may keep a pattern that then does not match, never drop one that
//! would: a kept pattern is run, and its matches are the findings.
//!
//! Case: patterns use Unicode case folding under `(?i)`, where `s` also matches `ſ` (U+017F)
//! and `k` the Kelvin sign (U+212A), the two non-ASCII characters that fold to ASCII letters.
//! Literals are kept ASCII-lower-cased and those two characters are left out of them; a text
//! that contains either is not screened (every pattern runs).

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use regex_syntax::hir::{Class, Hir, HirKind};

/// Most strings a literal set may hold while it is still worth knowing exactly (the cross
/// product of a concatenation grows fast).
const MAX_EXACT: usize = 64;
/// Most characters of a class read as a set of one-character strings.
const MAX_CLASS: usize = 8;
/// Most strings of a required set (an alternation of many words).
const MAX_REQUIRED: usize = 512;

/// The non-ASCII characters that Unicode simple case folding maps to ASCII letters.
const FOLDS_TO_ASCII: [char; 2] = ['\u{17F}', '\u{212A}'];

/// Strings at least one of which every match contains (lower-cased ASCII).
pub type LiteralSet = Vec<Vec<u8>>;

/// Literal sets every match has a string of each of: the most selective first (the screen's
/// key), then the others, which a text must also hit for the pattern to run. "to" alone
/// occurs in nearly every text; "to" and one of "http://", "@" rarely do.
pub type Conjunction = Vec<LiteralSet>;

/// Most further sets kept per pattern.
const MAX_CONJUNCTS: usize = 4;

/// What is known of the strings an expression matches.
#[derive(Debug, Clone, Default)]
struct Lits {
    /// Every string it can match, when finitely many and few.
    exact: Option<Vec<Vec<u8>>>,
    /// Strings at least one of which occurs in every match.
    required: Option<Vec<Vec<u8>>>,
    /// Further sets each of which also has a string in every match (the pieces of a
    /// concatenation other than the one `required` keeps).
    all: Vec<Vec<Vec<u8>>>,
}

/// The literals every match of `hir` contains one of, or `None` if there is no useful set
/// (the pattern must then always run). An empty set means the pattern can never match.
pub(crate) fn required_literals(hir: &Hir) -> Option<Conjunction> {
    let l = lits(hir);
    let first = best([l.required, l.exact].into_iter().flatten())
        .filter(|s| s.iter().all(|x| !x.is_empty()))?;
    let min_len = |s: &LiteralSet| s.iter().map(Vec::len).min().unwrap_or(0);
    let mut rest: Vec<LiteralSet> = l
        .all
        .into_iter()
        .map(dedup)
        .filter(|s| !s.is_empty() && s.len() <= MAX_REQUIRED && s.iter().all(|x| !x.is_empty()))
        .collect();
    // The most selective first: longest shortest string, then fewest strings.
    rest.sort_by(|a, b| {
        min_len(b)
            .cmp(&min_len(a))
            .then_with(|| a.len().cmp(&b.len()))
    });
    let mut out = vec![first];
    for set in rest {
        if out.len() > MAX_CONJUNCTS {
            break;
        }
        if !out.contains(&set) {
            out.push(set);
        }
    }
    Some(out)
}

/// The more selective of several candidate sets: longest shortest string, then fewest strings.
fn best(sets: impl Iterator<Item = Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>> {
    let min_len = |s: &[Vec<u8>]| s.iter().map(Vec::len).min().unwrap_or(usize::MAX);
    sets.max_by(|a, b| {
        min_len(a)
            .cmp(&min_len(b))
            .then_with(|| b.len().cmp(&a.len()))
    })
}

fn dedup(mut v: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    v.sort_unstable();
    v.dedup();
    v
}

fn cross(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if a.len().saturating_mul(b.len()) > MAX_EXACT {
        return None;
    }
    let mut out = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend_from_slice(y);
            out.push(s);
        }
    }
    Some(dedup(out))
}

fn class_set(class: &Class) -> Option<Vec<Vec<u8>>> {
    let mut out: Vec<Vec<u8>> = Vec::new();
    match class {
        Class::Unicode(c) => {
            let mut count = 0usize;
            for r in c.ranges() {
                count += (r.end() as usize).saturating_sub(r.start() as usize) + 1;
                if count > 2 * MAX_CLASS + FOLDS_TO_ASCII.len() {
                    return None;
                }
                for ch in r.start()..=r.end() {
                    if FOLDS_TO_ASCII.contains(&ch) {
                        continue;
                    }
                    let mut buf = [0u8; 4];
                    out.push(
                        ch.to_ascii_lowercase()
                            .encode_utf8(&mut buf)
                            .as_bytes()
                            .to_vec(),
                    );
                }
            }
        }
        Class::Bytes(c) => {
            let mut count = 0usize;
            for r in c.ranges() {
                count += usize::from(r.end() - r.start()) + 1;
                if count > 2 * MAX_CLASS {
                    return None;
                }
                for b in r.start()..=r.end() {
                    out.push(vec![b.to_ascii_lowercase()]);
                }
            }
        }
    }
    let out = dedup(out);
    (out.len() <= MAX_CLASS).then_some(out)
}

fn lits(hir: &Hir) -> Lits {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Lits {
            exact: Some(vec![Vec::new()]),
            ..Lits::default()
        },
        HirKind::Literal(l) => Lits {
            exact: Some(vec![l.0.to_ascii_lowercase()]),
            ..Lits::default()
        },
        HirKind::Class(c) => Lits {
            exact: class_set(c),
            ..Lits::default()
        },
        HirKind::Capture(c) => lits(&c.sub),
        HirKind::Repetition(r) => {
            let sub = lits(&r.sub);
            if r.min == 0 {
                // Optional: the empty string or one of the sub's strings.
                let exact = match (r.max, sub.exact) {
                    (Some(1), Some(mut e)) => {
                        e.push(Vec::new());
                        Some(dedup(e))
                    }
                    _ => None,
                };
                return Lits {
                    exact,
                    ..Lits::default()
                };
            }
            let exact = match (r.min, r.max) {
                (1, Some(1)) => sub.exact.clone(),
                _ => None,
            };
            let mut all = sub.all;
            all.extend(sub.required.clone());
            all.extend(sub.exact.clone());
            Lits {
                exact,
                required: best([sub.required, sub.exact].into_iter().flatten()),
                all,
            }
        }
        HirKind::Concat(subs) => {
            let parts: Vec<Lits> = subs.iter().map(lits).collect();
            let mut candidates: Vec<Vec<Vec<u8>>> = Vec::new();
            // The cross product of the current run of exact parts: a contiguous piece of
            // every match.
            let mut run: Vec<Vec<u8>> = vec![Vec::new()];
            let mut whole: Option<Vec<Vec<u8>>> = Some(vec![Vec::new()]);
            for p in &parts {
                whole = match (&whole, &p.exact) {
                    (Some(w), Some(e)) => cross(w, e),
                    _ => None,
                };
                match &p.exact {
                    Some(e) => match cross(&run, e) {
                        Some(r) => run = r,
                        None => {
                            candidates.push(std::mem::replace(&mut run, e.clone()));
                        }
                    },
                    None => {
                        candidates.push(std::mem::replace(&mut run, vec![Vec::new()]));
                        if let Some(r) = &p.required {
                            candidates.push(r.clone());
                        }
                    }
                }
            }
            candidates.push(run);
            // Every piece is in every match: the pieces `required` does not keep are further
            // sets the screen can check.
            let mut all: Vec<Vec<Vec<u8>>> = parts.into_iter().flat_map(|p| p.all).collect();
            all.extend(candidates.iter().cloned());
            Lits {
                exact: whole,
                required: best(candidates.into_iter()),
                all,
            }
        }
        HirKind::Alternation(subs) => {
            let parts: Vec<Lits> = subs.iter().map(lits).collect();
            let exact = parts
                .iter()
                .map(|p| p.exact.clone())
                .collect::<Option<Vec<_>>>()
                .map(|v| dedup(v.into_iter().flatten().collect()))
                .filter(|v| v.len() <= MAX_EXACT);
            let required = parts
                .into_iter()
                .map(|p| {
                    best([p.required, p.exact].into_iter().flatten())
                        .filter(|s| s.iter().all(|x| !x.is_empty()))
                })
                .collect::<Option<Vec<_>>>()
                .map(|v| dedup(v.into_iter().flatten().collect()))
                .filter(|v| v.len() <= MAX_REQUIRED);
            Lits {
                exact,
                required,
                all: Vec::new(),
            }
        }
    }
}

/// One automaton over the required literals of every pattern.
#[derive(Debug, Clone)]
pub struct Screen {
    /// Over the distinct literals; `None` when no pattern has literals.
    ac: Option<AhoCorasick>,
    /// For each literal of `ac`, the patterns (global ids) its first set admits.
    admits: Vec<Vec<u32>>,
    /// Patterns with further sets: (global id, each set as literal indices of `ac`). A pattern
    /// its first set admits still runs only if the text hits every one of these too.
    further: Vec<(u32, Vec<Vec<u32>>)>,
    /// Patterns with no literal set: always run.
    always: Vec<u32>,
    patterns: usize,
}

/// The patterns a text may match (global pattern ids).
#[derive(Debug, Clone)]
pub struct Candidates {
    bits: Vec<u64>,
}

impl Candidates {
    pub fn contains(&self, id: usize) -> bool {
        self.bits
            .get(id / 64)
            .is_some_and(|w| w & (1u64 << (id % 64)) != 0)
    }

    fn insert(&mut self, id: usize) {
        if let Some(w) = self.bits.get_mut(id / 64) {
            *w |= 1u64 << (id % 64);
        }
    }

    fn remove(&mut self, id: usize) {
        if let Some(w) = self.bits.get_mut(id / 64) {
            *w &= !(1u64 << (id % 64));
        }
    }
}

impl Screen {
    /// `required[i]`: the literal sets of global pattern `i` (see [`required_literals`]).
    pub(crate) fn new(required: &[Option<Conjunction>]) -> Result<Self, aho_corasick::BuildError> {
        let mut literals: Vec<Vec<u8>> = Vec::new();
        let mut admits: Vec<Vec<u32>> = Vec::new();
        let mut index: std::collections::HashMap<Vec<u8>, usize> = Default::default();
        let mut always = Vec::new();
        let mut further = Vec::new();
        let mut intern = |lit: &Vec<u8>, admits: &mut Vec<Vec<u32>>| -> usize {
            *index.entry(lit.clone()).or_insert_with(|| {
                literals.push(lit.clone());
                admits.push(Vec::new());
                literals.len() - 1
            })
        };
        for (id, sets) in required.iter().enumerate() {
            let id = u32::try_from(id).unwrap_or(u32::MAX);
            let Some((first, rest)) = sets.as_ref().and_then(|s| s.split_first()) else {
                always.push(id);
                continue;
            };
            for lit in first {
                let i = intern(lit, &mut admits);
                admits[i].push(id);
            }
            if !rest.is_empty() {
                let rest = rest
                    .iter()
                    .map(|set| {
                        set.iter()
                            .map(|lit| u32::try_from(intern(lit, &mut admits)).unwrap_or(u32::MAX))
                            .collect()
                    })
                    .collect();
                further.push((id, rest));
            }
        }
        let ac = if literals.is_empty() {
            None
        } else {
            Some(
                AhoCorasickBuilder::new()
                    .ascii_case_insensitive(true)
                    .match_kind(MatchKind::Standard)
                    .build(&literals)?,
            )
        };
        Ok(Screen {
            ac,
            admits,
            further,
            always,
            patterns: required.len(),
        })
    }

    /// Every pattern that may match `text`.
    pub fn candidates(&self, text: &str) -> Candidates {
        let mut c = Candidates {
            bits: vec![0; self.patterns.div_ceil(64)],
        };
        if text.contains(FOLDS_TO_ASCII) {
            for id in 0..self.patterns {
                c.insert(id);
            }
            return c;
        }
        for &id in &self.always {
            c.insert(id as usize);
        }
        if let Some(ac) = &self.ac {
            let mut seen = vec![false; self.admits.len()];
            for m in ac.find_overlapping_iter(text) {
                let lit = m.pattern().as_usize();
                if std::mem::replace(&mut seen[lit], true) {
                    continue;
                }
                for &id in &self.admits[lit] {
                    c.insert(id as usize);
                }
            }
            for (id, sets) in &self.further {
                let id = *id as usize;
                if c.contains(id)
                    && !sets
                        .iter()
                        .all(|set| set.iter().any(|&l| seen.get(l as usize) == Some(&true)))
                {
                    c.remove(id);
                }
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(pattern: &str) -> Option<Vec<String>> {
        let hir = regex_syntax::Parser::new().parse(pattern).expect("parses");
        required_literals(&hir).map(|v| {
            v.into_iter()
                .next()
                .unwrap_or_default()
                .into_iter()
                .map(|s| String::from_utf8_lossy(&s).into_owned())
                .collect()
        })
    }

    #[test]
    fn case_insensitive_words_become_one_lower_case_literal() {
        assert_eq!(req(r"(?i)(?-u:\b)send(?-u:\b)"), Some(vec!["send".into()]));
        assert_eq!(
            req(r"(?i)\b(read|send)\s+it"),
            Some(vec!["read".into(), "send".into()])
        );
    }

    #[test]
    fn the_most_selective_piece_of_a_concatenation_is_kept() {
        // `[^.\n]*` breaks the run; the longer literal wins.
        assert_eq!(
            req(r"(?i)\bto\b[^.\n]*\bconversation\s+history\b"),
            Some(vec!["conversation".into()])
        );
        let words = req(r"(?i)(always\s+)?(use|call)\s+this\s+tool").expect("has literals");
        assert!(words == ["this"] || words == ["tool"], "{words:?}");
    }

    #[test]
    fn patterns_that_can_match_any_text_have_no_literals() {
        assert_eq!(req(r"[A-Z][a-z]+"), None);
        assert_eq!(req(r"(?i)(foo)?"), None);
        assert_eq!(req(r"(?i)\b(foo|[a-z]+)\b"), None);
    }

    #[test]
    fn the_screen_admits_long_s_and_kelvin_sign_spellings() {
        // `(?i)s` matches U+017F and `(?i)k` U+212A: the literal "ask" does not occur in
        // "aſK", so such a text is not screened at all.
        let re = regex::Regex::new(r"(?i)\bask\b").expect("compiles");
        assert!(re.is_match("a\u{17F}\u{212A}"));
        let hir = regex_syntax::Parser::new()
            .parse(r"(?i)\bask\b")
            .expect("parses");
        let screen = Screen::new(&[required_literals(&hir)]).expect("builds");
        assert!(screen.candidates("a\u{17F}\u{212A}").contains(0));
        assert!(screen.candidates("please ASK me").contains(0));
        assert!(!screen.candidates("please tell me").contains(0));
    }

    #[test]
    fn only_long_s_and_kelvin_sign_fold_to_ascii_letters() {
        // The screen's case rule rests on this: no other character matches an ASCII letter
        // case-insensitively.
        let re = regex::Regex::new(r"(?i)^[a-z]$").expect("compiles");
        let folding: Vec<char> = (0x80u32..=0x10FFFF)
            .filter_map(char::from_u32)
            .filter(|c| re.is_match(c.encode_utf8(&mut [0; 4])))
            .collect();
        assert_eq!(folding, FOLDS_TO_ASCII.to_vec());
    }

    #[test]
    fn a_pattern_runs_only_on_texts_holding_a_literal_of_every_piece() {
        let hir = regex_syntax::Parser::new()
            .parse(r"(?i)\bto\s+(https?://|[a-z0-9._-]+@[a-z0-9-]+\.)")
            .expect("parses");
        let sets = required_literals(&hir).expect("has literals");
        assert!(sets.len() >= 2, "{sets:?}");
        let screen = Screen::new(&[Some(sets)]).expect("builds");
        // "to" alone, the most selective single piece, is in nearly every text.
        assert!(
            !screen
                .candidates("Sends a note to the team channel")
                .contains(0)
        );
        assert!(
            screen
                .candidates("Send it to https://x.example now")
                .contains(0)
        );
        assert!(screen.candidates("Forward to ops@example.org").contains(0));
        // An optional piece is not required.
        let hir = regex_syntax::Parser::new()
            .parse(r"(?i)\bsend\s+(it\s+)?now\b")
            .expect("parses");
        let screen = Screen::new(&[required_literals(&hir)]).expect("builds");
        assert!(screen.candidates("send now").contains(0));
    }
}
