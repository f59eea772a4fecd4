//! The literal screen may only skip patterns that cannot match: on every text of the benchmark
//! corpora (the poisoned and unseen sets; benign.jsonl would triple the time), a pattern the screen leaves out must not match.

use mcp_scan_rules::description::DescriptionRules;
use std::path::Path;

fn strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings(x, out);
        }),
        _ => {}
    }
}

#[test]
fn the_screen_never_skips_a_pattern_that_matches_a_corpus_text() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/description");
    let mut texts = Vec::new();
    for name in [
        "attacks.jsonl",
        "unseen.jsonl",
        "unseen2.jsonl",
        "unseen3.jsonl",
        "unseen4.jsonl",
    ] {
        let body = std::fs::read_to_string(dir.join(name)).expect("corpus file");
        for line in body.lines().filter(|l| !l.trim().is_empty()) {
            let v: serde_json::Value = serde_json::from_str(line).expect("json line");
            strings(&v, &mut texts);
        }
    }
    // The two characters that fold to ASCII letters, which the screen must let through.
    texts.push("a\u{17F}k the \u{212A}ey: \u{17F}end it".into());
    texts.sort();
    texts.dedup();
    assert!(texts.len() > 1_000, "{}", texts.len());
    let rules = DescriptionRules::builtin().expect("rules");
    let patterns: Vec<_> = rules
        .rules
        .iter()
        .flat_map(|r| r.cues.iter().flat_map(|c| c.patterns.iter()))
        .collect();
    let (mut skipped, mut admitted) = (0usize, 0usize);
    for t in &texts {
        let c = rules.screen.candidates(t);
        for p in &patterns {
            let re = p.regex().expect("compiles");
            if c.contains(p.id()) {
                admitted += 1;
            } else {
                skipped += 1;
                assert!(!re.is_match(t), "screen skipped {} on {t:?}", p.as_str());
            }
        }
    }
    // The screen does its job: most (pattern, text) pairs are never run.
    assert!(
        skipped > 3 * admitted,
        "skipped {skipped}, admitted {admitted}"
    );
}
