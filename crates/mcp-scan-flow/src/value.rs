//! The abstract value the dataflow tracks per variable: taint labels (each with the path it took),
//! a string constant (with `…` for unknown parts), what it refers to (a function, a module, an
//! API or object type) and per-field values for containers, bounded in depth.

use std::collections::{BTreeMap, BTreeSet};

/// Fields deeper than this are folded into their parent.
pub const MAX_FIELD_DEPTH: usize = 3;
/// More fields than this on one value are folded into the value itself.
pub const MAX_FIELDS: usize = 32;
/// Longest taint path kept; later hops are dropped (the sink hop is always added).
pub const MAX_HOPS: usize = 24;
/// More alternative constants than this are folded into "unknown".
pub const MAX_ALTS: usize = 8;
/// Longest string constant kept.
const MAX_CONST: usize = 512;
/// The placeholder for an unknown part of a string constant.
pub const UNKNOWN: char = '…';

/// A place in a scanned module: module index and the IR span's line/column/bytes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Loc {
    pub module: usize,
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
    pub start_byte: usize,
    pub end_byte: usize,
}

impl Loc {
    pub fn new(module: usize, span: &mcp_scan_ir::Span) -> Self {
        Loc {
            module,
            line: span.start_line,
            col: span.start_col,
            end_line: span.end_line,
            end_col: span.end_col,
            start_byte: span.start_byte,
            end_byte: span.end_byte,
        }
    }
}

/// One hop of a taint path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hop {
    pub loc: Loc,
    pub note: String,
}

/// How one label reached a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Taint {
    pub path: Vec<Hop>,
    /// Sink kinds a sanitizer or guard on the way neutralised (`*` = all).
    pub sanitized: BTreeSet<String>,
    /// The service a credential belongs to (`github` for `GITHUB_TOKEN`): sending it there is
    /// its use, not a leak. Kept only while every way the label arrived agrees.
    pub service: Option<String>,
}

impl Taint {
    pub fn new(hop: Hop) -> Self {
        Taint {
            path: vec![hop],
            sanitized: BTreeSet::new(),
            service: None,
        }
    }

    pub fn sanitized_for(&self, kind: &str) -> bool {
        self.sanitized.contains(kind) || self.sanitized.contains("*")
    }

    /// Appends a hop unless the path already ends at the same line or is full.
    pub fn push(&mut self, hop: Hop) {
        if let Some(last) = self.path.last()
            && last.loc.module == hop.loc.module
            && last.loc.line == hop.loc.line
        {
            return;
        }
        if self.path.len() < MAX_HOPS {
            self.path.push(hop);
        }
    }

    /// Join of two ways the same label arrived: sanitized only if sanitized on both; keeps the
    /// shorter (then smaller) path so the fixpoint is deterministic and terminates.
    fn join(&self, other: &Taint) -> Taint {
        let sanitized = self
            .sanitized
            .intersection(&other.sanitized)
            .cloned()
            .collect();
        let path = if (other.path.len(), &other.path) < (self.path.len(), &self.path) {
            other.path.clone()
        } else {
            self.path.clone()
        };
        let service = if self.service == other.service {
            self.service.clone()
        } else {
            None
        };
        Taint {
            path,
            sanitized,
            service,
        }
    }
}

/// What a value can refer to, for call resolution.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ref {
    /// A function of a scanned module (module index, function index).
    Func(usize, usize),
    /// A method bound to an instance (the receiver is not passed as an argument).
    Bound(usize, usize),
    /// A class of a scanned module.
    Class(usize, String),
    /// An instance of a scanned class.
    Instance(usize, String),
    /// A scanned module.
    Module(usize),
    /// An external API or object type by qualified name (`requests.post`, `pathlib.Path`).
    Api(String),
}

/// The abstract value of one variable or expression.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Val {
    pub taint: BTreeMap<String, Taint>,
    pub konst: Option<String>,
    pub refs: BTreeSet<Ref>,
    pub fields: BTreeMap<String, Val>,
    /// When `konst` is None: the constants the value may be, one of (loop over a constant
    /// tuple, either branch of a conditional). Empty = unknown.
    pub alts: BTreeSet<String>,
}

impl Val {
    pub fn konst(s: impl Into<String>) -> Val {
        let mut s: String = s.into();
        if s.len() > MAX_CONST {
            let mut cut = MAX_CONST;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            s.truncate(cut);
            s.push(UNKNOWN);
        }
        Val {
            konst: Some(s),
            ..Val::default()
        }
    }

    pub fn with_ref(r: Ref) -> Val {
        let mut v = Val::default();
        v.refs.insert(r);
        v
    }

    pub fn labelled(label: &str, hop: Hop) -> Val {
        let mut v = Val::default();
        v.taint.insert(label.to_string(), Taint::new(hop));
        v
    }

    pub fn is_tainted(&self) -> bool {
        !self.taint.is_empty() || self.fields.values().any(Val::is_tainted)
    }

    /// Every label on the value or any of its fields (what reaches a sink that takes the
    /// whole object).
    pub fn all_taint(&self) -> BTreeMap<String, Taint> {
        let mut out = self.taint.clone();
        for f in self.fields.values() {
            for (l, t) in f.all_taint() {
                merge_taint(&mut out, &l, &t);
            }
        }
        out
    }

    /// Adds the taint (not the constant or refs) of `other`, including its fields' taint.
    pub fn absorb_taint(&mut self, other: &Val) {
        for (l, t) in other.all_taint() {
            merge_taint(&mut self.taint, &l, &t);
        }
    }

    /// Appends a hop to every label's path.
    pub fn push_hop(&mut self, hop: &Hop) {
        for t in self.taint.values_mut() {
            t.push(hop.clone());
        }
        for f in self.fields.values_mut() {
            f.push_hop(hop);
        }
    }

    /// Marks every label as neutralised for `kinds`.
    pub fn sanitize(&mut self, kinds: &[String]) {
        if kinds.iter().any(|k| k == "*") {
            self.taint.clear();
            self.fields.clear();
            return;
        }
        for t in self.taint.values_mut() {
            t.sanitized.extend(kinds.iter().cloned());
        }
        for f in self.fields.values_mut() {
            f.sanitize(kinds);
        }
    }

    /// [`Self::sanitize`] for the labels starting with `prefix` only.
    pub fn sanitize_labels(&mut self, prefix: &str, kinds: &[String]) {
        for (l, t) in self.taint.iter_mut() {
            if l.starts_with(prefix) {
                t.sanitized.extend(kinds.iter().cloned());
            }
        }
        for f in self.fields.values_mut() {
            f.sanitize_labels(prefix, kinds);
        }
    }

    /// The value of field `name`: the field if known, joined with the container's own taint.
    pub fn field(&self, name: &str) -> Val {
        let mut out = self.fields.get(name).cloned().unwrap_or_default();
        for (l, t) in &self.taint {
            merge_taint(&mut out.taint, l, t);
        }
        out
    }

    /// Any element: all fields' taint joined with the container's own, and every element's
    /// references (a dict or list of callables indexed by an unknown key may call any of them)
    /// and constants (a loop over a constant collection sees each of them).
    pub fn any_element(&self) -> Val {
        let mut out = Val::default();
        out.absorb_taint(self);
        let mut alts = BTreeSet::new();
        let mut all_const = !self.fields.is_empty();
        // Elements that are all containers (a list of records, a dict of lists): the element
        // has the fields of all of them, joined, so `for t in TARGETS: t["path"]` sees each
        // record's path.
        let all_containers = !self.fields.is_empty()
            && self
                .fields
                .values()
                .all(|f| !f.fields.is_empty() && f.konst.is_none() && f.alts.is_empty());
        let mut joined = Val::default();
        for f in self.fields.values() {
            out.refs.extend(f.refs.iter().cloned());
            match f.candidates() {
                Some(c) => alts.extend(c),
                None => all_const = false,
            }
            if all_containers {
                let mut shape = Val::default();
                for (k, v) in &f.fields {
                    shape.fields.insert(k.clone(), v.clone());
                }
                joined.join_in(&shape);
            }
        }
        if all_const {
            out.set_candidates(alts);
        }
        // Records (`[{"regex": r"^https://a/"}, {"regex": ...}]`): each field is the join of
        // that field over the elements; failing that, a field every element has is one of
        // their constants for that field.
        if all_containers {
            for (k, v) in joined.fields {
                out.set_field(&k, v);
            }
        } else if let Some(first) = self.fields.values().next()
            && self.fields.values().all(|f| !f.fields.is_empty())
        {
            for key in first.fields.keys() {
                let mut c = BTreeSet::new();
                let known = self.fields.values().all(|f| {
                    f.fields
                        .get(key)
                        .and_then(Val::candidates)
                        .map(|k| c.extend(k))
                        .is_some()
                });
                if known && c.len() <= MAX_ALTS {
                    let mut v = Val::default();
                    v.set_candidates(c);
                    out.fields.insert(key.clone(), v);
                }
            }
        }
        out
    }

    /// The constants this value may be: its constant, or its alternatives; None = unknown.
    pub fn candidates(&self) -> Option<BTreeSet<String>> {
        match &self.konst {
            Some(k) => Some(BTreeSet::from([k.clone()])),
            None if !self.alts.is_empty() => Some(self.alts.clone()),
            None => None,
        }
    }

    /// Sets the value's possible constants: one is a constant, several are alternatives, more
    /// than [`MAX_ALTS`] is unknown.
    pub fn set_candidates(&mut self, c: BTreeSet<String>) {
        self.alts.clear();
        self.konst = None;
        if c.len() == 1 {
            self.konst = c.into_iter().next();
        } else if c.len() <= MAX_ALTS {
            self.alts = c;
        }
    }

    /// Sets field `name`, keeping depth and width bounded.
    pub fn set_field(&mut self, name: &str, v: Val) {
        self.set_field_at(name, v, 1);
    }

    fn set_field_at(&mut self, name: &str, mut v: Val, depth: usize) {
        if depth >= MAX_FIELD_DEPTH {
            let inner = std::mem::take(&mut v.fields);
            for f in inner.values() {
                v.absorb_taint(f);
            }
        } else {
            let inner = std::mem::take(&mut v.fields);
            for (k, f) in inner {
                v.set_field_at(&k, f, depth + 1);
            }
        }
        if self.fields.len() >= MAX_FIELDS && !self.fields.contains_key(name) {
            self.absorb_taint(&v);
            return;
        }
        self.fields.insert(name.to_string(), v);
    }

    /// Least upper bound.
    pub fn join(&self, other: &Val) -> Val {
        let mut out = self.clone();
        out.join_in(other);
        out
    }

    /// The value without taint paths: what a callee's analysis depends on (labels, sanitizers,
    /// constants, references, fields), used as the summary key so that the same abstract
    /// arguments reached along different paths share one analysis.
    pub fn shape(&self) -> Val {
        Val {
            taint: self
                .taint
                .iter()
                .map(|(l, t)| {
                    (
                        l.clone(),
                        Taint {
                            path: Vec::new(),
                            sanitized: t.sanitized.clone(),
                            service: t.service.clone(),
                        },
                    )
                })
                .collect(),
            konst: self.konst.clone(),
            alts: self.alts.clone(),
            refs: self.refs.clone(),
            fields: self
                .fields
                .iter()
                .map(|(k, v)| (k.clone(), v.shape()))
                .collect(),
        }
    }

    /// Nothing known about the value: no taint, constant, reference or field.
    pub fn is_empty(&self) -> bool {
        self.taint.is_empty()
            && self.konst.is_none()
            && self.alts.is_empty()
            && self.refs.is_empty()
            && self.fields.is_empty()
    }

    /// Join in place. An empty value is the identity (it carries no fact to disagree with).
    pub fn join_in(&mut self, other: &Val) {
        if self.is_empty() {
            *self = other.clone();
            return;
        }
        if other.is_empty() {
            return;
        }
        for (l, t) in &other.taint {
            merge_taint(&mut self.taint, l, t);
        }
        if self.konst != other.konst || self.alts != other.alts {
            // Two different constants: the value is one of them (bounded), else what they all
            // start with. Only whole constants become alternatives: a partly unknown one
            // (`…/x`) is usually a string growing in a loop, which would only delay the
            // fixpoint (their common prefix only shrinks, so it converges).
            let whole = |c: &Option<BTreeSet<String>>| {
                c.as_ref()
                    .is_some_and(|c| c.iter().all(|k| !k.contains(UNKNOWN)))
            };
            match (self.candidates(), other.candidates()) {
                (Some(mut a), Some(b)) if whole(&Some(a.clone())) && whole(&Some(b.clone())) => {
                    a.extend(b);
                    if a.len() > MAX_ALTS {
                        self.konst = common_prefix(&a);
                        self.alts.clear();
                    } else {
                        self.set_candidates(a);
                    }
                }
                (Some(mut a), Some(b)) => {
                    // A partly unknown constant (`https://h/x?…`, a string grown in a loop or a
                    // branch): what every side starts with is still known, which keeps a fixed
                    // host or root visible after `if q: url += "?" + q`.
                    a.extend(b);
                    match common_prefix(&a) {
                        // Shapes with nothing in common but each with a known start
                        // (`/notice/…` and the same path behind a fixed `https://host`, picked
                        // by `if not url.startswith("http")`): each stays one of the
                        // alternatives. Adding to such a set keeps its prefix empty: it grows
                        // up to MAX_ALTS, then is unknown, as whole constants are.
                        None if a.len() <= MAX_ALTS
                            && a.iter().all(|k| !k.is_empty() && !k.starts_with(UNKNOWN)) =>
                        {
                            self.set_candidates(a)
                        }
                        p => {
                            self.konst = p;
                            self.alts.clear();
                        }
                    }
                }
                _ => {
                    self.konst = None;
                    self.alts.clear();
                }
            }
        }
        self.refs.extend(other.refs.iter().cloned());
        for (k, f) in &other.fields {
            match self.fields.get_mut(k) {
                Some(mine) => mine.join_in(f),
                None => {
                    if self.fields.len() < MAX_FIELDS {
                        self.fields.insert(k.clone(), f.clone());
                    } else {
                        self.absorb_taint(f);
                    }
                }
            }
        }
    }
}

pub fn merge_taint(into: &mut BTreeMap<String, Taint>, label: &str, t: &Taint) {
    match into.get_mut(label) {
        Some(mine) => *mine = mine.join(t),
        None => {
            into.insert(label.to_string(), t.clone());
        }
    }
}

/// The text every constant starts with, followed by `…`; None when they share nothing.
fn common_prefix(all: &BTreeSet<String>) -> Option<String> {
    let mut it = all.iter();
    let first = it.next()?;
    let mut len = first.len();
    for s in it {
        len = first
            .char_indices()
            .zip(s.chars())
            .take_while(|((i, a), b)| *i < len && a == b)
            .last()
            .map_or(0, |((i, a), _)| i + a.len_utf8());
    }
    let prefix = first.get(..len)?.trim_end_matches(UNKNOWN);
    if prefix.is_empty() {
        return None;
    }
    Some(format!("{prefix}{UNKNOWN}"))
}

/// Concatenation of two optional constants, with `…` for the unknown side.
pub fn concat(a: Option<&str>, b: Option<&str>) -> Option<String> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(format!(
            "{}{}",
            a.map_or_else(|| UNKNOWN.to_string(), str::to_string),
            b.map_or_else(|| UNKNOWN.to_string(), str::to_string)
        )),
    }
}

/// `os.path.join` semantics: an absolute later part replaces what came before.
pub fn join_path(parts: &[Option<String>]) -> Option<String> {
    if parts.iter().all(Option::is_none) {
        return None;
    }
    let mut out = String::new();
    for p in parts {
        let p = p.clone().unwrap_or_else(|| UNKNOWN.to_string());
        if p.starts_with('/') || out.is_empty() {
            out = p;
        } else if out.ends_with('/') {
            out.push_str(&p);
        } else {
            out.push('/');
            out.push_str(&p);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hop(line: u32) -> Hop {
        Hop {
            loc: Loc {
                module: 0,
                line,
                col: 1,
                end_line: line,
                end_col: 2,
                start_byte: 0,
                end_byte: 0,
            },
            note: format!("line {line}"),
        }
    }

    #[test]
    fn join_keeps_labels_of_both_sides_and_drops_disagreeing_constants() {
        let a = Val::labelled("param:x", hop(1));
        let mut b = Val::konst("http://a/");
        b.taint.insert("secret:file".into(), Taint::new(hop(2)));
        let j = a.join(&b);
        assert_eq!(j.taint.len(), 2);
        assert_eq!(j.konst, None);
        let same = Val::konst("x").join(&Val::konst("x"));
        assert_eq!(same.konst.as_deref(), Some("x"));
    }

    #[test]
    fn sanitized_only_when_sanitized_on_every_path() {
        let mut a = Val::labelled("param:x", hop(1));
        let b = a.clone();
        a.sanitize(&["command-exec".to_string()]);
        let j = a.join(&b);
        assert!(!j.taint["param:x"].sanitized_for("command-exec"));
        let j2 = a.join(&a);
        assert!(j2.taint["param:x"].sanitized_for("command-exec"));
        assert!(!j2.taint["param:x"].sanitized_for("sql"));
    }

    #[test]
    fn fields_are_bounded_in_depth_and_width() {
        let mut leaf = Val::labelled("secret:env", hop(3));
        for i in 0..6 {
            let mut outer = Val::default();
            outer.set_field(&format!("f{i}"), leaf);
            leaf = outer;
        }
        fn depth(v: &Val) -> usize {
            1 + v.fields.values().map(depth).max().unwrap_or(0)
        }
        assert!(
            depth(&leaf) <= MAX_FIELD_DEPTH + 1,
            "depth {}",
            depth(&leaf)
        );
        assert!(
            leaf.all_taint().contains_key("secret:env"),
            "taint survives folding"
        );
        let mut wide = Val::default();
        for i in 0..(MAX_FIELDS + 10) {
            wide.set_field(&format!("k{i}"), Val::labelled("param:p", hop(4)));
        }
        assert_eq!(wide.fields.len(), MAX_FIELDS);
        assert!(wide.taint.contains_key("param:p"));
    }

    #[test]
    fn joining_a_constant_with_its_partly_unknown_extension_keeps_their_common_prefix() {
        // `url = f"{BASE}/stats"; if q: url += "?" + q`: the host stays known.
        let j = Val::konst("https://api.example.com/stats")
            .join(&Val::konst("https://api.example.com/stats?…"));
        assert_eq!(j.konst.as_deref(), Some("https://api.example.com/stats…"));
        // A string growing in a loop converges instead of growing a `…` per iteration.
        let again = j.join(&Val::konst("https://api.example.com/stats……"));
        assert_eq!(again.konst, j.konst);
        // Nothing in common: unknown.
        let none = Val::konst("/srv/a").join(&Val::konst("…/b"));
        assert_eq!(none.konst, None);
        assert!(none.alts.is_empty());
    }

    #[test]
    fn joining_partly_unknown_constants_with_known_but_different_starts_keeps_each() {
        // `if not url.startswith("http"): url = BASE + url`: a root path or the same path
        // behind the fixed host, never a host the parameter picks.
        let j = Val::konst("/notice/…/data.json").join(&Val::konst(
            "https://www.thegazette.co.uk/notice/…/data.json",
        ));
        assert_eq!(j.konst, None);
        assert_eq!(
            j.alts.iter().map(String::as_str).collect::<Vec<_>>(),
            [
                "/notice/…/data.json",
                "https://www.thegazette.co.uk/notice/…/data.json"
            ]
        );
        // More than MAX_ALTS such shapes: unknown.
        let mut many = j.clone();
        for i in 0..MAX_ALTS - 1 {
            many.join_in(&Val::konst(format!("{i}/…")));
        }
        assert_eq!(many.konst, None);
        assert!(many.alts.is_empty());
    }

    #[test]
    fn any_element_of_a_list_of_records_has_each_records_fields() {
        let rec = |p: &str, m: &str| {
            let mut r = Val::default();
            r.set_field("path", Val::konst(p));
            r.set_field("mode", Val::konst(m));
            r
        };
        let mut list = Val::default();
        list.set_field("0", rec("/etc/sudoers", "0o666"));
        list.set_field("1", rec("/usr/bin/sudo", "0o4777"));
        let el = list.any_element();
        assert_eq!(
            el.field("path").candidates(),
            Some(BTreeSet::from([
                "/etc/sudoers".to_string(),
                "/usr/bin/sudo".to_string()
            ]))
        );
        // Mixed elements (a record and a string) do not pretend to be records.
        let mut mixed = Val::default();
        mixed.set_field("0", rec("/a", "1"));
        mixed.set_field("1", Val::konst("x"));
        assert!(mixed.any_element().fields.is_empty());
    }

    #[test]
    fn path_constants_join_like_os_path_join() {
        let p = |s: &str| Some(s.to_string());
        assert_eq!(
            join_path(&[p("~"), p(".ssh"), p("id_rsa")]).as_deref(),
            Some("~/.ssh/id_rsa")
        );
        assert_eq!(join_path(&[p("/srv/"), None]).as_deref(), Some("/srv/…"));
        assert_eq!(
            join_path(&[p("/srv"), p("/etc/passwd")]).as_deref(),
            Some("/etc/passwd")
        );
        assert_eq!(
            concat(Some("http://h/?d="), None).as_deref(),
            Some("http://h/?d=…")
        );
        assert_eq!(concat(None, None), None);
    }
}
