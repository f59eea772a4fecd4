//! The description witness: rules over the text an MCP server shows the model.
//!
//! Every text of every entity is a field with a path (`description`,
//! `inputSchema.properties.path.description`, `arguments[0].description`, …). Each field is
//! scanned once by the combined pattern set of all rules; only the rules whose patterns occur
//! are then scored window by window (see `mcp_scan_rules::description`).

pub mod bench;
mod fields;
mod structure;
mod text;

pub use fields::{Field, entity_fields};
use mcp_scan_core::{
    Analyzer, AnalyzerStatus, EntityKind, EntityReport, Evidence, Finding, Severity,
    SourceLocation, ToolRef,
};
use mcp_scan_manifest::Manifest;
use mcp_scan_rules::RuleError;
use mcp_scan_rules::description::{
    Builtin, Cue, DescriptionRule, DescriptionRules, FieldClass, Pattern, Window,
};
use std::collections::{HashMap, HashSet};

/// One rule that fired on one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub rule: usize,
    pub severity: Severity,
    pub score: i32,
    /// Field path, e.g. `inputSchema.properties.query.description`.
    pub field: String,
    /// The window that scored best, made printable.
    pub excerpt: String,
    /// Characters into the field where that window starts.
    pub offset: usize,
    /// Labels of the cues found in that window, strongest first.
    pub cues: Vec<String>,
}

/// Applies description rules to manifests.
#[derive(Debug, Clone, Copy)]
pub struct DescriptionAnalyzer<'r> {
    rules: &'r DescriptionRules,
}

impl DescriptionAnalyzer<'static> {
    /// The analyzer with the built-in rules of `rules/description/`.
    pub fn builtin() -> Result<Self, RuleError> {
        Ok(DescriptionAnalyzer {
            rules: DescriptionRules::builtin()?,
        })
    }
}

impl<'r> DescriptionAnalyzer<'r> {
    pub fn new(rules: &'r DescriptionRules) -> Self {
        DescriptionAnalyzer { rules }
    }

    pub fn rules(&self) -> &'r DescriptionRules {
        self.rules
    }

    /// Every rule that fires on these fields of one entity. `siblings` are the names of the
    /// other tools of the same manifest (a reference to one of them is a workflow hint).
    pub fn scan_fields(&self, fields: &[Field<'_>], siblings: &HashSet<&str>) -> Vec<Hit> {
        let extra: Vec<&str> = siblings.iter().copied().collect();
        let names = Names {
            tools: None,
            extra: &extra,
            own: None,
            lone: false,
        };
        self.scan_entity(fields, &names)
    }

    fn scan_entity(&self, fields: &[Field<'_>], names: &Names<'_, '_>) -> Vec<Hit> {
        let mut hits = Vec::new();
        for f in fields {
            self.scan_field(f, names, &mut hits);
        }
        if let Ok(s) = structure::Structure::builtin() {
            let mut found = Vec::new();
            for f in fields {
                found.extend(s.addressee(self.rules, f, names.own, &hits));
            }
            merge(&mut hits, found);
        }
        hits
    }

    fn scan_field(&self, field: &Field<'_>, names: &Names<'_, '_>, hits: &mut Vec<Hit>) {
        if field.text.is_empty() {
            return;
        }
        let first = hits.len();
        self.scan_text(field, names, false, hits);
        // What the model may read that the raw text hides: the text without invisible
        // splitters, the text of Unicode tag characters, decoded blobs, identifiers as words.
        // Every rule runs again on each reading; the decoded text is the evidence.
        // (path, text, hidden): hidden is text the model reads but the raw field hides, a
        // decoded payload or tag text (not the same text with splitters removed, nor an
        // identifier read as words).
        let mut views: Vec<(String, String, bool)> = Vec::new();
        if field.class == FieldClass::Name {
            if let Some(w) = text::identifier_words(field.text) {
                views.push((
                    format!("{} (identifier read as words)", field.path),
                    w,
                    false,
                ));
            }
        } else {
            if let Some(t) = text::without_splitters(field.text) {
                views.push((
                    format!("{} (invisible characters removed)", field.path),
                    t,
                    false,
                ));
            }
            if let Some(t) = text::tag_text(field.text) {
                views.push((format!("{} (hidden Unicode tag text)", field.path), t, true));
            }
            for (how, t) in text::decoded_views(field.text) {
                views.push((format!("{} (decoded {how})", field.path), t, true));
            }
        }
        for (path, t, hidden) in &views {
            // An identifier read as words is prose; any other reading stays the kind of text
            // it was read from (a decoded answer is still an answer).
            let class = match field.class {
                FieldClass::Name => FieldClass::Text,
                c => c,
            };
            let view = Field::new(path.clone(), class, t);
            let mut derived = Vec::new();
            self.scan_text(&view, names, *hidden, &mut derived);
            // A reading only adds what the raw text did not already show.
            derived.retain(|d| {
                !hits[first..]
                    .iter()
                    .any(|h| h.rule == d.rule && h.severity >= d.severity)
            });
            hits.extend(derived);
        }
    }

    /// `reading`: the text is a hidden reading of a field (decoded, tag text).
    fn scan_text(
        &self,
        field: &Field<'_>,
        names: &Names<'_, '_>,
        reading: bool,
        hits: &mut Vec<Hit>,
    ) {
        let sentences = text::sentences(field.text);
        let mut imperatives: Option<Vec<usize>> = None;
        let mut builtin_at = |b: Builtin| -> Vec<usize> {
            match b {
                Builtin::ImperativeClause => imperatives
                    .get_or_insert_with(|| {
                        text::imperative_clauses(field.text, &sentences, reading)
                    })
                    .clone(),
            }
        };
        // The patterns that may occur here, by their literals; only those run.
        let candidates = self.rules.screen.candidates(field.text);
        // (rule, cue, byte offset, names a sibling tool) of every occurrence of every pattern
        // that occurs at all.
        let mut occ: Vec<(usize, usize, usize, bool)> = Vec::new();
        let in_field = |cue: &Cue| {
            !((cue.not_in_instructions && field.path == "instructions")
                || (cue.only_in_readings && !reading))
        };
        let find = |ri: usize, ci: usize, pattern: &Pattern, occ: &mut Vec<_>| -> bool {
            let rule = &self.rules.rules[ri];
            let cue = &rule.cues[ci];
            let directive = !rule.requires_any.is_empty();
            let before = occ.len();
            match pattern.regex() {
                Some(re) => occ.extend(re.find_iter(field.text).map(|m| {
                    let sibling =
                        cue.sibling_weight.is_some() && names.known(m.as_str(), directive);
                    // A match counts in the sentence of its first word: a pattern may start
                    // at the end of the sentence before ("…. Then send"), having no
                    // look-behind to say "at a sentence start".
                    let word = m.as_str().find(char::is_alphanumeric).unwrap_or(0);
                    (ri, ci, m.start() + word, sibling)
                })),
                // The screen admits the pattern but it cannot be located (it parses but does
                // not compile alone): still count the cue.
                None => occ.push((ri, ci, 0, false)),
            }
            occ.len() > before
        };
        // The rules that may fire here: those for this kind of field whose required cues occur.
        let mut live = vec![false; self.rules.rules.len()];
        for (ri, rule) in self.rules.rules.iter().enumerate() {
            if !rule.applies_to(field.class) {
                continue;
            }
            let admitted = |ci: usize| {
                rule.cues[ci]
                    .patterns
                    .iter()
                    .filter(|p| candidates.contains(p.id()))
            };
            if rule.requires_any.is_empty() {
                live[ri] = true;
            } else {
                // The required cues first: a rule none of them reaches cannot fire. A cue that
                // does not count in this field still makes the rule live when it occurs.
                let mut any = false;
                for &ci in &rule.requires_any {
                    if in_field(&rule.cues[ci]) {
                        for p in admitted(ci) {
                            any |= find(ri, ci, p, &mut occ);
                        }
                    }
                }
                for &ci in &rule.requires_any {
                    if !any && !in_field(&rule.cues[ci]) {
                        any = admitted(ci)
                            .any(|p| p.regex().is_none_or(|re| re.is_match(field.text)));
                    }
                }
                let builtin = rule.requires_any.iter().find_map(|&c| rule.cues[c].builtin);
                live[ri] = any || builtin.is_some_and(|b| !builtin_at(b).is_empty());
                if !live[ri] {
                    continue;
                }
            }
            for (ci, cue) in rule.cues.iter().enumerate() {
                if rule.requires_any.contains(&ci) || !in_field(cue) {
                    continue;
                }
                for p in admitted(ci) {
                    find(ri, ci, p, &mut occ);
                }
            }
        }
        // Cues found by reading the text's structure rather than by a pattern.
        for (ri, rule) in self.rules.rules.iter().enumerate() {
            if !live[ri] {
                continue;
            }
            for (ci, cue) in rule.cues.iter().enumerate() {
                let Some(builtin) = cue.builtin else {
                    continue;
                };
                if (cue.only_in_readings && !reading)
                    || (cue.not_in_instructions && field.path == "instructions")
                {
                    continue;
                }
                occ.extend(builtin_at(builtin).into_iter().map(|a| (ri, ci, a, false)));
            }
        }
        if occ.is_empty() {
            return;
        }
        occ.sort_unstable();
        let mut i = 0;
        while i < occ.len() {
            let rule_idx = occ[i].0;
            let j = occ[i..]
                .iter()
                .position(|o| o.0 != rule_idx)
                .map_or(occ.len(), |n| i + n);
            let rule = &self.rules.rules[rule_idx];
            if let Some(hit) = score_rule(rule_idx, rule, field, &sentences, &occ[i..j], names.lone)
            {
                hits.push(hit);
            }
            i = j;
        }
    }

    /// One [`EntityReport`] per entity of the manifest (tools, resources, templates, prompts,
    /// and the server itself when it has instructions), each marked complete.
    pub fn scan_manifest(&self, m: &Manifest) -> Vec<EntityReport> {
        let tools = ToolNames::new(m.tools.iter().map(|t| t.name.as_str()));
        fields::entities(m)
            .into_iter()
            .map(|e| {
                // Names the entity's own text defines (documented parameters, the operations
                // or actions it lists) are its vocabulary, like its schema's parameters: naming
                // one is not a reference to another tool either.
                let declared = e
                    .fields
                    .iter()
                    .filter(|f| f.class == FieldClass::Text)
                    .flat_map(|f| text::declared_names(f.text));
                let extra: Vec<&str> = e.params.iter().copied().chain(declared).collect();
                // A tool naming itself is not a reference to a sibling.
                let names = Names {
                    tools: Some(&tools),
                    extra: &extra,
                    own: (e.kind == EntityKind::Tool).then_some(e.name),
                    lone: e.kind == EntityKind::Tool && tools.all.len() == 1,
                };
                let mut hits = self.scan_entity(&e.fields, &names);
                if e.kind == EntityKind::Tool {
                    hits.extend(self.unneeded_secret_params(&e, &hits));
                    if let Ok(s) = structure::Structure::builtin() {
                        let found = s.supply(self.rules, &e, &hits);
                        merge(&mut hits, found);
                    }
                }
                let target = ToolRef::new(m.server.clone(), e.kind, e.name.to_string());
                let mut report = EntityReport::new(target.clone(), e.declared.map(str::to_string));
                report
                    .analyzers
                    .push(AnalyzerStatus::complete(Analyzer::Description));
                let mut loc = SourceLocation::new(m.source.clone(), e.line.unwrap_or(1), 1);
                loc.snippet = None;
                for h in hits {
                    report
                        .findings
                        .push(self.finding(&h, &target, e.kind, e.declared, &loc));
                }
                report
            })
            .collect()
    }

    /// A parameter named for a secret's contents (`content_of_ssh_private_key`) on a tool whose
    /// name and description never speak of keys, logins or secrets (a calculator, a ping): the
    /// schema asks the model to read a secret the tool's task does not use (full-schema
    /// poisoning), reported as the secret-access rule. A tool that says it connects over SSH
    /// or signs with a key has a use for one.
    fn unneeded_secret_params(&self, e: &fields::EntityFields<'_>, hits: &[Hit]) -> Vec<Hit> {
        let Some(rule) = self
            .rules
            .rules
            .iter()
            .position(|r| r.meta.id == "MCPS-D005")
        else {
            return Vec::new();
        };
        if text::speaks_of_secrets(e.name) || e.declared.is_some_and(text::speaks_of_secrets) {
            return Vec::new();
        }
        e.params
            .iter()
            .filter(|p| text::names_secret_contents(p))
            .map(|p| format!("inputSchema.properties.{p}"))
            .filter(|path| {
                !hits.iter().any(|h| {
                    h.rule == rule && h.severity >= Severity::Medium && h.field.starts_with(path)
                })
            })
            .map(|path| Hit {
                rule,
                severity: Severity::Medium,
                score: 0,
                excerpt: path["inputSchema.properties.".len()..].to_string(),
                field: path,
                offset: 0,
                cues: vec![
                    "a parameter named for a secret's contents".to_string(),
                    "on a tool whose name and description never mention keys, logins or secrets"
                        .to_string(),
                ],
            })
            .collect()
    }

    fn finding(
        &self,
        h: &Hit,
        target: &ToolRef,
        kind: EntityKind,
        declared: Option<&str>,
        loc: &SourceLocation,
    ) -> Finding {
        let rule = &self.rules.rules[h.rule];
        let what = if kind == EntityKind::Server {
            "server instructions"
        } else {
            kind.as_str()
        };
        let observation = format!(
            "{what} field `{}` {} ({}): \"{}\"",
            h.field,
            rule.observation,
            h.cues.join("; "),
            h.excerpt
        );
        Finding::builder(
            rule.meta.id.clone(),
            Analyzer::Description,
            rule.meta.taxonomy,
            target.clone(),
        )
        .severity(h.severity)
        .confidence(rule.meta.confidence)
        .title(rule.title.clone())
        .observation(observation)
        .declared(declared.map(str::to_string))
        .location(loc.clone())
        .evidence(Evidence::Text {
            field: h.field.clone(),
            excerpt: h.excerpt.clone(),
            offset: Some(h.offset),
        })
        .key(format!("{}#{}", h.field, rule.meta.id))
        .build()
    }
}

/// Adds the structural reading's hits: one that meets a weaker hit of the same rule on the same
/// field raises it (one finding per field and rule), with both sets of cues.
fn merge(hits: &mut Vec<Hit>, found: Vec<Hit>) {
    for h in found {
        match hits
            .iter_mut()
            .find(|x| x.rule == h.rule && x.field == h.field)
        {
            Some(x) if x.severity < h.severity => {
                x.severity = h.severity;
                x.excerpt = h.excerpt;
                x.offset = h.offset;
                let mut cues = h.cues;
                cues.extend(std::mem::take(&mut x.cues));
                x.cues = cues;
            }
            Some(_) => {}
            None => hits.push(h),
        }
    }
}

/// Scores one rule's cue occurrences (sorted by cue, then offset) on one field.
fn score_rule(
    rule_idx: usize,
    rule: &DescriptionRule,
    field: &Field<'_>,
    sentences: &[(usize, usize)],
    occ: &[(usize, usize, usize, bool)],
    lone: bool,
) -> Option<Hit> {
    let n = sentences.len().max(1);
    let sentence_of = |byte: usize| -> usize {
        sentences
            .partition_point(|&(start, _)| start <= byte)
            .saturating_sub(1)
    };
    // Which cues appear in which sentence, and whether only as references to sibling tools
    // (cue counts per rule are small).
    let mut present: Vec<Vec<(usize, bool)>> = vec![Vec::new(); n];
    for &(_, cue, at, sibling) in occ {
        let s = sentence_of(at).min(n - 1);
        match present[s].iter_mut().find(|(c, _)| *c == cue) {
            Some(entry) => entry.1 &= sibling,
            None => present[s].push((cue, sibling)),
        }
    }
    let windows: Vec<(usize, usize)> = match rule.window {
        Window::Field => vec![(0, n - 1)],
        Window::Sentence => (0..n).map(|s| (s, s)).collect(),
        Window::Adjacent => (0..n).map(|s| (s, (s + 1).min(n - 1))).collect(),
    };
    let mut best: Option<(i32, usize, usize, Vec<usize>, bool)> = None;
    for (a, b) in windows {
        let mut found: Vec<(usize, bool)> = Vec::new();
        for s in present.iter().take(b + 1).skip(a) {
            for &(c, sibling) in s {
                match found.iter_mut().find(|(x, _)| *x == c) {
                    Some(entry) => entry.1 &= sibling,
                    None => found.push((c, sibling)),
                }
            }
        }
        let cues: Vec<usize> = found.iter().map(|&(c, _)| c).collect();
        if cues.is_empty() {
            continue;
        }
        if !rule.requires_any.is_empty() && !cues.iter().any(|c| rule.requires_any.contains(c)) {
            continue;
        }
        let score: i32 = found
            .iter()
            .map(|&(c, sibling)| {
                let cue = &rule.cues[c];
                match (sibling, cue.sibling_weight, cue.lone_weight) {
                    (true, Some(w), _) => w,
                    (_, _, Some(w)) if lone => w,
                    _ => cue.weight,
                }
            })
            .sum();
        // A window whose required cues (the reference to another tool) only name tools of the
        // same server is a workflow hint between siblings: it never reaches MEDIUM.
        let sibling_only = !rule.requires_any.is_empty()
            && found
                .iter()
                .filter(|(c, _)| rule.requires_any.contains(c))
                .all(|&(_, sibling)| sibling);
        if best.as_ref().is_none_or(|(s, ..)| score > *s) {
            best = Some((score, a, b, cues, sibling_only));
        }
    }
    let (score, mut a, mut b, mut cues, sibling_only) = best?;
    let mut severity = rule.severity_for(score)?;
    if sibling_only {
        severity = severity.min(Severity::Low);
    }
    // Show only the sentences that carry the evidence.
    let carries = |s: usize| present[s].iter().any(|&(c, _)| rule.cues[c].weight > 0);
    if a < b && !carries(a) {
        a += 1;
    } else if a < b && !carries(b) {
        b -= 1;
    }
    cues.sort_by_key(|&c| -rule.cues[c].weight);
    let start = sentences.get(a).map_or(0, |s| s.0);
    let end = sentences.get(b).map_or(field.text.len(), |s| s.1);
    Some(Hit {
        rule: rule_idx,
        severity,
        score,
        field: field.path.clone(),
        excerpt: text::excerpt(&field.text[start..end]),
        offset: field.text[..start].chars().count(),
        cues: cues
            .into_iter()
            .filter(|&c| rule.cues[c].weight > 0)
            .map(|c| rule.cues[c].label.clone())
            .collect(),
    })
}

/// The tool names of a manifest, indexed for the three ways [`Names::known`] compares a token
/// with them: a manifest of 10,000 tools made each comparison a walk over every name.
struct ToolNames<'n> {
    all: HashSet<&'n str>,
    /// Each tail of a name after a `_` or `-` (`list-properties` in `hubspot-list-properties`)
    /// and the names it ends.
    tails: HashMap<&'n str, Vec<&'n str>>,
    /// The names by their first word, lower-cased (the word a drifted reference must share).
    by_first_word: HashMap<String, Vec<&'n str>>,
}

impl<'n> ToolNames<'n> {
    fn new(names: impl Iterator<Item = &'n str>) -> Self {
        let mut t = ToolNames {
            all: HashSet::new(),
            tails: HashMap::new(),
            by_first_word: HashMap::new(),
        };
        for n in names {
            if !t.all.insert(n) {
                continue;
            }
            for (i, b) in n.bytes().enumerate() {
                if b == b'_' || b == b'-' {
                    t.tails.entry(&n[i + 1..]).or_default().push(n);
                }
            }
            if let Some(w) = text::first_id_word(n) {
                t.by_first_word.entry(w).or_default().push(n);
            }
        }
        t
    }
}

/// The names an entity's text may mention without pointing at another tool: the manifest's
/// tools (but the entity itself), and the entity's own parameters and declared names.
struct Names<'s, 'n> {
    tools: Option<&'s ToolNames<'n>>,
    extra: &'s [&'n str],
    /// The entity's own name, when it is a tool.
    own: Option<&'s str>,
    /// The entity is the only tool of its manifest (no sibling it could be ordered against).
    lone: bool,
}

impl Names<'_, '_> {
    /// Whether `text` names a sibling (or, for `directive` rules, the entity itself): as a whole
    /// identifier, as the tail of one after a server prefix (`list-properties` for
    /// `hubspot-list-properties`), or under a name that drifted from a sibling's (a renamed
    /// tool still named in an old description: `listDocumentTabs` for `listTabs`).
    fn known(&self, text: &str, directive: bool) -> bool {
        let own = self.own.filter(|_| directive);
        // The entity itself counts only for directive rules.
        let other = |n: &&str| directive || Some(*n) != self.own;
        let tools = self.tools.filter(|t| !t.all.is_empty());
        if self.extra.is_empty() && own.is_none() && tools.is_none() {
            return false;
        }
        // The entity's own parameters and declared names are its vocabulary for directive
        // rules ("set `outputFile`"); for rules that rank tools (D001, D013) only a tool is a
        // sibling: "pick this tool over other email checkers" does not name a sibling because
        // the tool has an `email` parameter.
        let names = || self.extra.iter().copied().filter(|_| directive).chain(own);
        text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.')))
            .map(|t| t.trim_end_matches('.'))
            .any(|token| {
                let whole = names().any(|n| n == token)
                    || tools.is_some_and(|t| t.all.contains(token) && other(&token));
                let tail = token.contains(['_', '-'])
                    && (names().any(|n| {
                        n.len() > token.len()
                            && n.ends_with(token)
                            && n[..n.len() - token.len()].ends_with(['_', '-'])
                    }) || tools.is_some_and(|t| {
                        t.tails.get(token).is_some_and(|ns| ns.iter().any(&other))
                    }));
                whole
                    || tail
                    || text::DriftRef::new(token).is_some_and(|r| {
                        names().any(|n| r.matches(n))
                            || tools.is_some_and(|t| {
                                t.by_first_word
                                    .get(r.first_word())
                                    .is_some_and(|ns| ns.iter().any(|n| other(n) && r.matches(n)))
                            })
                    })
            })
    }
}

/// Convenience for callers that only have a description (the benchmark): scans it as a tool
/// with that name and description.
pub fn tool_fields<'a>(name: &'a str, description: &'a str) -> Vec<Field<'a>> {
    vec![
        Field::new("name".into(), FieldClass::Name, name),
        Field::new("description".into(), FieldClass::Text, description),
    ]
}

/// One entity's declared text, field by field, with the target and location its rule findings
/// use: what an optional model judge reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredText {
    pub target: ToolRef,
    pub location: SourceLocation,
    pub declared: Option<String>,
    /// `(field path, text)` in manifest order.
    pub fields: Vec<(String, String)>,
}

/// Every entity of a manifest (server instructions, tools, resources, templates, prompts).
pub fn declared_texts(m: &Manifest) -> Vec<DeclaredText> {
    fields::entities(m)
        .into_iter()
        .map(|e| {
            let mut location = SourceLocation::new(m.source.clone(), e.line.unwrap_or(1), 1);
            location.snippet = None;
            DeclaredText {
                target: ToolRef::new(m.server.clone(), e.kind, e.name.to_string()),
                location,
                declared: e.declared.map(str::to_string),
                fields: e
                    .fields
                    .iter()
                    .map(|f| (f.path.clone(), f.text.to_string()))
                    .collect(),
            }
        })
        .collect()
}
