//! Perl Noid's rule-based mapping (`:idmap`), on Rust's linear-time `regex` engine.
//!
//! `noid bind set ':idmap/PATTERN' ELEM VALUE` stores `:/idmap/ELEM\tPATTERN` → VALUE.
//! When `ID ELEM` has no truthy stored value, Perl Noid walks those keys in bytewise
//! pattern order and runs `$newval = $id; $newval =~ s/PATTERN/VALUE/` (one substitution,
//! no flags, VALUE being a Perl double-quoted string); the first pattern that matches wins
//! and the *whole* substituted id is the value (`^ft` → `g7h` maps `ft89xr2t` to `g7h89xr2t`).
//!
//! Why our own replacement expander instead of translating VALUE to the regex crate's
//! `${1}` syntax: Perl reads `$1abc` as group 1 followed by `abc` (a digit variable stops
//! at the first non-digit) while the regex crate would read a group named `1abc`; Perl
//! also knows `$&`, `` $` ``, `$'`, `\U…\E`, `\u`, `\x{…}` and the lexical `$id`/`$elem`
//! that were in scope of Noid's `eval`, none of which the regex crate expresses. Parsing
//! VALUE ourselves gives Perl's meaning for all of them. What stays different from Perl
//! is documented on [`Replacement`].
//!
//! Patterns are compiled with size limits, so a hostile pattern is rejected at bind time
//! ([`compile_pattern`]) and no lookup can take more than linear time. Compiled rules are
//! cached (bounded) so a long-lived resolver compiles each rule once.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock};

use noid_core::lookup::{Lookup, LookupError};

mod replacement;

pub use replacement::Replacement;

/// Most `:idmap` rules consulted for one element; a guard against a runaway scan.
pub const MAX_RULES: usize = 10_000;

/// Compiled-program size limit: large enough for any sane identifier pattern, small enough
/// that a pattern like `(a{1000}){1000}` is refused instead of eating memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// Lazy-DFA cache per regex; bounds memory of the cached rules.
const DFA_SIZE_LIMIT: usize = 1 << 20;

/// How many (pattern, replacement) pairs the rule cache keeps before it starts over.
const CACHE_CAPACITY: usize = 4096;

/// Why an `:idmap` rule cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdmapError {
    /// The pattern is not valid syntax for the `regex` crate (for example look-around or
    /// back-references, which need backtracking) or exceeds the size limit.
    Pattern {
        /// The pattern as given.
        pattern: String,
        /// One-line reason from the regex compiler.
        reason: String,
    },
    /// The stored pattern bytes are not UTF-8, so no regex can be built from them.
    NotUtf8,
}

impl fmt::Display for IdmapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdmapError::Pattern { pattern, reason } => write!(
                f,
                ":idmap pattern {pattern:?} is not supported: {reason} \
                 (patterns use Rust regex syntax: no look-around, no back-references)"
            ),
            IdmapError::NotUtf8 => f.write_str(":idmap pattern is not valid UTF-8"),
        }
    }
}

impl std::error::Error for IdmapError {}

/// A compiled `:idmap` pattern.
#[derive(Debug, Clone)]
pub struct Pattern(regex::bytes::Regex);

impl Pattern {
    /// The pattern text as compiled.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

/// Compile an `:idmap` pattern the way the resolver will, so that `noid bind` can refuse
/// at bind time a pattern that could never match (with a clear message).
pub fn compile_pattern(p: &str) -> Result<Pattern, IdmapError> {
    regex::bytes::RegexBuilder::new(p)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .build()
        .map(Pattern)
        .map_err(|e| IdmapError::Pattern {
            pattern: p.to_string(),
            reason: one_line(&e.to_string()),
        })
}

/// The regex crate's syntax errors span several lines (pattern, caret, message); keep the
/// message line so the error fits in one log or protocol line.
fn one_line(msg: &str) -> String {
    match msg
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with("error:"))
    {
        Some(l) => l
            .trim_start()
            .trim_start_matches("error:")
            .trim()
            .to_string(),
        None => msg.split_whitespace().collect::<Vec<_>>().join(" "),
    }
}

/// A compiled `:idmap` rule: pattern plus parsed replacement.
#[derive(Debug, Clone)]
pub struct Rule {
    pattern: Pattern,
    replacement: Replacement,
}

impl Rule {
    /// Compile a rule; the replacement always parses (Perl would accept nearly anything).
    pub fn new(pattern: &str, replacement: &[u8]) -> Result<Rule, IdmapError> {
        Ok(Rule {
            pattern: compile_pattern(pattern)?,
            replacement: Replacement::parse(replacement),
        })
    }

    /// Perl's `$newval = $id; $newval =~ s/PATTERN/VALUE/`: `None` when the pattern does
    /// not match, else the id with its first match replaced.
    pub fn apply(&self, id: &[u8], elem: &str) -> Option<Vec<u8>> {
        let caps = self.pattern.0.captures(id)?;
        let m = caps.get(0)?;
        let mut out = Vec::with_capacity(id.len() + 16);
        out.extend_from_slice(&id[..m.start()]);
        self.replacement.expand(id, &caps, elem, &mut out);
        out.extend_from_slice(&id[m.end()..]);
        Some(out)
    }
}

/// Compiled rules keyed by (pattern, replacement); `None` remembers a pattern that does
/// not compile so it is neither recompiled nor logged on every request.
type CacheMap = HashMap<Vec<u8>, Vec<(Vec<u8>, Option<Arc<Rule>>)>>;

/// A bounded cache of compiled rules, shared by every thread of the process.
#[derive(Debug, Default)]
pub struct RuleCache {
    map: RwLock<CacheMap>,
}

impl RuleCache {
    /// The process-wide cache used by [`map_id`].
    pub fn global() -> &'static RuleCache {
        static CACHE: OnceLock<RuleCache> = OnceLock::new();
        CACHE.get_or_init(RuleCache::default)
    }

    /// The compiled rule for this pair, compiling it on first use; `None` if the pattern
    /// cannot be compiled (logged once per cache lifetime).
    pub fn get(&self, pattern: &[u8], replacement: &[u8]) -> Option<Arc<Rule>> {
        {
            let map = self.map.read().unwrap_or_else(|e| e.into_inner());
            if let Some(list) = map.get(pattern) {
                if let Some((_, r)) = list.iter().find(|(rep, _)| rep == replacement) {
                    return r.clone();
                }
            }
        }
        let compiled = match std::str::from_utf8(pattern) {
            Ok(p) => Rule::new(p, replacement),
            Err(_) => Err(IdmapError::NotUtf8),
        };
        let rule = match compiled {
            Ok(r) => Some(Arc::new(r)),
            Err(e) => {
                log::warn!("ignoring :idmap rule: {e}");
                None
            }
        };
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        if map.values().map(Vec::len).sum::<usize>() >= CACHE_CAPACITY {
            // Rules rarely change; starting over is simpler than LRU and still bounds memory.
            map.clear();
        }
        map.entry(pattern.to_vec())
            .or_default()
            .push((replacement.to_vec(), rule.clone()));
        rule
    }
}

/// Map `id` through the `:idmap` rules of `elem`: rules in bytewise pattern order, the
/// first whose substitution succeeds gives the value. Rules whose pattern cannot be
/// compiled are skipped (Perl would have answered an `error: id2elemval eval` value).
pub fn map_id<L: Lookup + ?Sized>(
    l: &L,
    id: &str,
    elem: &str,
) -> Result<Option<Vec<u8>>, LookupError> {
    let prefix = noid_core::keys::idmap_prefix(elem);
    let rules = l.scan_prefix(&prefix, MAX_RULES)?;
    let cache = RuleCache::global();
    for (key, replacement) in rules {
        let Some(pattern) = key.get(prefix.len()..) else {
            continue;
        };
        if let Some(rule) = cache.get(pattern, &replacement) {
            if let Some(v) = rule.apply(id.as_bytes(), elem) {
                return Ok(Some(v));
            }
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::lookup::MemLookup;

    #[track_caller]
    fn check(pattern: &str, replacement: &str, id: &str, expect: Option<&str>) {
        let rule = Rule::new(pattern, replacement.as_bytes()).expect("pattern compiles");
        let got = rule.apply(id.as_bytes(), "elem");
        assert_eq!(
            got.as_deref()
                .map(|b| String::from_utf8_lossy(b).into_owned()),
            expect.map(str::to_string),
            "s/{pattern}/{replacement}/ on {id}"
        );
    }

    #[test]
    fn conformance_prefix_rule() {
        check("^ft", "g7h", "ft89xr2t", Some("g7h89xr2t"));
    }

    #[test]
    fn conformance_groups_rule() {
        check(
            "^ft([^x]+)x(.*)",
            "$2/g7h/$1",
            "ft89xr2t",
            Some("r2t/g7h/89"),
        );
    }

    #[test]
    fn no_match_is_none() {
        check("^zz", "x", "ft89", None);
    }

    #[test]
    fn perl_digit_variable_stops_at_non_digit() {
        check("^(f)(t)", "$1abc", "ft9", Some("fabc9"));
        check("^(f)(t)", "${1}abc", "ft9", Some("fabc9"));
        check("^(f)(t)", "${2}1", "ft9", Some("t19"));
        check("^(f)(t)", "$12", "ft9", Some("9"));
    }

    #[test]
    fn whole_pre_post_match() {
        check("89", "[$&]", "ft89xr", Some("ft[89]xr"));
        check("89", "<$`|$'>", "ft89xr", Some("ft<ft|xr>xr"));
        check("89", "$0", "ft89xr", Some("ft89xr"));
    }

    #[test]
    fn only_first_match_is_replaced() {
        check("a", "b", "aaa", Some("baa"));
    }

    #[test]
    fn literal_dollar_and_escapes() {
        check("^x", "\\$1", "xy", Some("$1y"));
        check("^x", "cost $", "xy", Some("cost $y"));
        check("^x", "a\\tb\\x41\\x{263A}", "x", Some("a\tbA\u{263A}"));
        check("^x", "a@b.org/", "x", Some("a@b.org/"));
        check("^x", "\\\\", "x", Some("\\"));
    }

    #[test]
    fn lexical_id_and_elem_and_unknown_variables() {
        check(
            "^.*$",
            "http://e.org/$id.html",
            "ab",
            Some("http://e.org/ab.html"),
        );
        check("^.*$", "${elem}:$foo!", "ab", Some("elem:!"));
    }

    #[test]
    fn case_escapes() {
        check("^(\\w+)/(\\w+)$", "\\U$1\\E/\\u$2", "ab/cd", Some("AB/Cd"));
        check("^(\\w+)$", "\\L$1", "ABC", Some("abc"));
    }

    #[test]
    fn empty_match_prepends() {
        check("^", "pre/", "id", Some("pre/id"));
    }

    #[test]
    fn bad_patterns_are_rejected_with_a_clear_message() {
        let e = compile_pattern("(?<=a)b").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("look-around"), "{msg}");
        assert!(msg.contains("(?<=a)b"), "{msg}");
        assert!(!msg.contains('\n'), "{msg}");
        assert!(compile_pattern("(a)\\1").is_err());
        assert!(compile_pattern("(").is_err());
        assert!(compile_pattern("(a{1000}){1000}").is_err());
        assert!(compile_pattern("^ft([^x]+)x(.*)").is_ok());
    }

    #[test]
    fn rules_are_tried_in_bytewise_pattern_order() {
        let l = MemLookup::new();
        // Inserted in the "wrong" order on purpose: bytewise order decides, not insertion.
        l.bind_idmap("^f", "redirect", "second");
        l.bind_idmap("^ft", "redirect", "first");
        l.bind_idmap("^A", "redirect", "never");
        let v = map_id(&l, "ft89", "redirect").unwrap().unwrap();
        // "^A" < "^f" < "^ft" bytewise; "^A" does not match, "^f" does.
        assert_eq!(v, b"secondt89");
        // Other elements have their own rules.
        assert_eq!(map_id(&l, "ft89", "other").unwrap(), None);
    }

    #[test]
    fn broken_rule_is_skipped_and_the_next_one_used() {
        let l = MemLookup::new();
        l.bind_idmap("^(?=f)", "e", "broken");
        l.bind_idmap("^f", "e", "ok");
        assert_eq!(map_id(&l, "fz", "e").unwrap().unwrap(), b"okz");
    }

    #[test]
    fn cache_returns_the_same_rule() {
        let c = RuleCache::default();
        let a = c.get(b"^x", b"y").unwrap();
        let b = c.get(b"^x", b"y").unwrap();
        assert!(Arc::ptr_eq(&a, &b));
        let d = c.get(b"^x", b"z").unwrap();
        assert!(!Arc::ptr_eq(&a, &d));
        assert!(c.get(b"(?<=x)", b"y").is_none());
        assert!(c.get(b"\xff", b"y").is_none());
    }
}
