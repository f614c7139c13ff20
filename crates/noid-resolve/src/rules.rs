//! The operator's rules table: redirect rules for schemes, NAANs and shoulders, and the
//! global-resolver forwarding settings, parsed from the text of a rules file.
//!
//! The file is read by `noidr` (this crate does no I/O); the format is documented in
//! `rules/default.rules`, which is also the built-in table used when no file is given.

use std::collections::HashMap;
use std::fmt;

use noid_core::ident::{Family, Parsed};

/// The built-in rules file, used when the operator names none.
pub const DEFAULT_RULES: &str = include_str!("../rules/default.rules");

/// Where ARKs of NAANs this resolver does not serve go when the rules file names no
/// `global-resolver`: N2T, as the ARK draft has a resolver do (draft-kunze-ark-43 §3.3).
pub const N2T: &str = "https://n2t.net/";

/// A parse error in a rules file, with its 1-based line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for RulesError {}

/// A parsed rules table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rules {
    /// Canonical key (see [`Rules::canonical_key`]) → target template.
    table: HashMap<String, String>,
    /// Where unknown ARKs are forwarded (the identifier is appended), if anywhere: a
    /// parsed rules file forwards to [`N2T`] unless it says `global-resolver off`.
    pub global_resolver: Option<String>,
    /// NAANs this resolver answers for; their ARKs are never forwarded (loop protection).
    pub local_naans: Vec<String>,
    /// Where a broken target's archived copy stands in for it (`archived-copy` lines):
    /// each identifier prefix (`""`: every identifier) with how. Empty by default, and
    /// then resolution reads nothing for it.
    pub archived_copies: Vec<(String, ArchivedCopy)>,
    /// `final-slash inflection`: an ARK's final `/` (and `./`) is an inflection, and a
    /// final `.` part of the suffix, as N2T read them; by default the ARK draft's
    /// reading holds (draft-kunze-ark-43 §3.1: a final `/` or `.` is ignored).
    pub final_slash_inflects: bool,
    /// `cite-as URL`: the prefix of the URL an identifier is cited by (its citations by
    /// content negotiation); without it, the global resolver's, else N2T's.
    pub cite_as: Option<String>,
    /// `signposting on`: FAIR Signposting `Link` headers on the redirects and metadata
    /// pages of bound identifiers ([`crate::signpost`]). Off by default: each such
    /// answer then costs a second resolution and a read of the identifier's record.
    pub signposting: bool,
}

/// How the resolver answers an identifier whose target is broken (or marked so by a
/// curator) and has an archived copy (`:/links/a/ID`), where the rules file's
/// `archived-copy` directive applies to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchivedCopy {
    /// Redirect (302) to the archived copy.
    Redirect,
    /// Show a page saying the original is gone, with a link to the copy and its date
    /// (the line protocols, which can only redirect, redirect).
    Page,
}

impl Rules {
    /// No rules, no forwarding (a rules file, even an empty one, forwards to [`N2T`]).
    pub fn empty() -> Rules {
        Rules::default()
    }

    /// The built-in table ([`DEFAULT_RULES`]).
    pub fn builtin() -> Rules {
        Rules::parse(DEFAULT_RULES).expect("the built-in rules file parses")
    }

    /// Parse the text of a rules file.
    ///
    /// Each non-blank line that does not start with `#` is either a rule `KEY TARGET`
    /// (KEY contains a colon: `doi:`, `ark:/12345`, `doi:10.5072/FK2`) or a directive
    /// `global-resolver URL` / `local-naans NAAN...`. ARKs of NAANs not served here
    /// are forwarded to [`N2T`] unless a `global-resolver` line names another URL or
    /// `off`.
    pub fn parse(text: &str) -> Result<Rules, RulesError> {
        let mut rules = Rules {
            global_resolver: Some(N2T.to_string()),
            ..Rules::default()
        };
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |message: String| RulesError {
                line: i + 1,
                message,
            };
            let (key, value) = match line.split_once(char::is_whitespace) {
                Some((k, v)) => (k, v.trim()),
                None => (line, ""),
            };
            if key.contains(':') {
                if value.is_empty() {
                    return Err(err(format!("rule {key:?} has no target")));
                }
                rules
                    .table
                    .insert(Rules::canonical_key(key), value.to_string());
                continue;
            }
            match key {
                "global-resolver" => {
                    if value.is_empty() || value.contains(char::is_whitespace) {
                        return Err(err(
                            "global-resolver needs exactly one URL, or \"off\"".into()
                        ));
                    }
                    rules.global_resolver = (value != "off").then(|| value.to_string());
                }
                "local-naans" => rules
                    .local_naans
                    .extend(value.split_whitespace().map(str::to_ascii_lowercase)),
                "archived-copy" => {
                    let mut words = value.split_whitespace();
                    let how = match words.next() {
                        Some("redirect") => ArchivedCopy::Redirect,
                        Some("page") => ArchivedCopy::Page,
                        _ => {
                            return Err(err("archived-copy needs \"redirect\" or \"page\", then \
                                 the identifier prefixes it applies to (none: all)"
                                .into()))
                        }
                    };
                    let prefixes: Vec<&str> = words.collect();
                    if prefixes.is_empty() {
                        rules.archived_copies.push((String::new(), how));
                    }
                    for prefix in prefixes {
                        rules.archived_copies.push((prefix.to_string(), how));
                    }
                }
                "cite-as" => {
                    let http = value.starts_with("https://") || value.starts_with("http://");
                    if !http || value.contains(char::is_whitespace) {
                        return Err(err(format!(
                            "cite-as needs one http:// or https:// URL, the prefix of the \
                             URL an identifier is cited by, not {value:?}"
                        )));
                    }
                    rules.cite_as = Some(value.to_string());
                }
                "signposting" => match value {
                    "on" => rules.signposting = true,
                    "off" => rules.signposting = false,
                    _ => {
                        return Err(err(format!(
                            "signposting is \"on\" or \"off\", not {value:?}"
                        )))
                    }
                },
                "final-slash" => match value {
                    "inflection" => rules.final_slash_inflects = true,
                    "ignored" => rules.final_slash_inflects = false,
                    _ => {
                        return Err(err(format!(
                            "final-slash is \"ignored\" (the ARK draft's reading, the \
                             default) or \"inflection\" (N2T's), not {value:?}"
                        )))
                    }
                },
                _ => {
                    return Err(err(format!(
                        "unknown directive {key:?} (a rule's key must contain a colon, \
                         e.g. \"doi:\"; directives are global-resolver, local-naans, \
                         final-slash, archived-copy, cite-as and signposting)"
                    )))
                }
            }
        }
        Ok(rules)
    }

    /// The URL `id` is cited by: the `cite-as` prefix, else the global resolver's, else
    /// N2T's, followed by the identifier (a `/` between them when the prefix has none).
    pub fn citation_url(&self, id: &str) -> String {
        let prefix = self
            .cite_as
            .as_deref()
            .or(self.global_resolver.as_deref())
            .unwrap_or(N2T);
        match prefix.ends_with('/') {
            true => format!("{prefix}{id}"),
            false => format!("{prefix}/{id}"),
        }
    }

    /// The form under which a key is stored and matched: the request normalisation
    /// (lower-case scheme, `ark:/`, lower-case NAAN), and DOIs upper-cased because they
    /// are case-insensitive.
    pub fn canonical_key(key: &str) -> String {
        let p = Parsed::new(key);
        match p.family {
            Family::Doi => format!("doi:{}", p.local_id().to_uppercase()),
            _ => p.norm,
        }
    }

    /// The target template for an already canonical key.
    pub(crate) fn get_canonical(&self, key: &str) -> Option<&str> {
        self.table.get(key).map(String::as_str)
    }

    /// The target template of `key` (any spelling), if a rule exists.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.get_canonical(&Rules::canonical_key(key))
    }

    /// How an archived copy stands in for `id`'s broken target: the `archived-copy`
    /// line with the longest prefix of `id` (an ARK's prefix matches it with or without
    /// `ark:/`, as minters store ARKs without it); `None` when none applies. With no
    /// such line (the default), one length check.
    #[inline]
    pub fn archived_copy(&self, id: &str) -> Option<ArchivedCopy> {
        if self.archived_copies.is_empty() {
            return None;
        }
        self.archived_copies
            .iter()
            .filter(|(p, _)| noid_core::links::covers(p, id))
            .max_by_key(|(p, _)| p.len())
            .map(|(_, how)| *how)
    }

    /// Number of redirect rules.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// True when there are no redirect rules.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `cite-as` names the URL citations cite; without it, the global resolver's.
    #[test]
    fn citation_urls() {
        let id = "ark:/12345/x";
        let r = Rules::parse("cite-as https://ark.example.org\n").unwrap();
        assert_eq!(r.citation_url(id), "https://ark.example.org/ark:/12345/x");
        let r = Rules::parse("global-resolver https://resolver.example/\n").unwrap();
        assert_eq!(r.citation_url(id), "https://resolver.example/ark:/12345/x");
        let r = Rules::parse("global-resolver off\n").unwrap();
        assert_eq!(r.citation_url(id), "https://n2t.net/ark:/12345/x");
        assert_eq!(
            Rules::parse("cite-as ark.example.org\n")
                .unwrap_err()
                .to_string(),
            "line 1: cite-as needs one http:// or https:// URL, the prefix of the URL an \
             identifier is cited by, not \"ark.example.org\""
        );
    }

    #[test]
    fn builtin_parses_and_has_doi() {
        let r = Rules::builtin();
        assert_eq!(r.get("doi:"), Some("https://doi.org/${id}"));
        assert_eq!(r.get("DOI:"), Some("https://doi.org/${id}"));
        // The ARK draft's §3.3: unknown NAANs go to N2T unless told otherwise.
        assert_eq!(r.global_resolver.as_deref(), Some(N2T));
        assert_eq!(
            Rules::parse("").unwrap().global_resolver.as_deref(),
            Some(N2T)
        );
        assert_eq!(
            Rules::parse("global-resolver off\n")
                .unwrap()
                .global_resolver,
            None
        );
        assert_eq!(Rules::empty().global_resolver, None);
    }

    #[test]
    fn keys_are_normalised() {
        let r = Rules::parse(
            "ARK:12345  https://a.org/${nlid}\n\
             doi:10.5072/fk2   301 https://b.org/${blade}\n",
        )
        .unwrap();
        assert_eq!(r.get("ark:/12345"), Some("https://a.org/${nlid}"));
        assert_eq!(r.get("doi:10.5072/FK2"), Some("301 https://b.org/${blade}"));
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn directives() {
        let r = Rules::parse(
            "# comment\n\nglobal-resolver https://n2t.net/\nlocal-naans 12345 B5072\nlocal-naans 99999\n",
        )
        .unwrap();
        assert_eq!(r.global_resolver.as_deref(), Some("https://n2t.net/"));
        assert_eq!(r.local_naans, vec!["12345", "b5072", "99999"]);
        assert!(r.is_empty());
    }

    #[test]
    fn archived_copies_apply_to_their_prefixes_the_longest_first() {
        let r = Rules::parse(
            "archived-copy page ark:/12345 ark:/99999\narchived-copy redirect ark:/12345/fk4\n",
        )
        .unwrap();
        assert_eq!(r.archived_copy("ark:/12345/x1"), Some(ArchivedCopy::Page));
        assert_eq!(
            r.archived_copy("ark:/12345/fk4x"),
            Some(ArchivedCopy::Redirect)
        );
        assert_eq!(r.archived_copy("12345/fk4x"), Some(ArchivedCopy::Redirect));
        assert_eq!(r.archived_copy("ark:/99999/x"), Some(ArchivedCopy::Page));
        assert_eq!(r.archived_copy("ark:/13030/x"), None);
        assert_eq!(r.archived_copy("doi:10.5072/X"), None);
        let every = Rules::parse("archived-copy redirect\n").unwrap();
        assert_eq!(
            every.archived_copy("doi:10.5072/X"),
            Some(ArchivedCopy::Redirect)
        );
        assert_eq!(Rules::builtin().archived_copy("ark:/12345/x"), None);
        let e = Rules::parse("archived-copy always\n").unwrap_err();
        assert!(
            e.to_string().starts_with("line 1: archived-copy needs"),
            "{e}"
        );
    }

    #[test]
    fn errors_name_the_line() {
        let e = Rules::parse("doi: x\nbogus thing\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(
            e.to_string()
                .starts_with("line 2: unknown directive \"bogus\""),
            "{e}"
        );
        let e = Rules::parse("doi:\n").unwrap_err();
        assert_eq!(e.to_string(), "line 1: rule \"doi:\" has no target");
        assert!(Rules::parse("global-resolver\n").is_err());
        assert_eq!(
            Rules::parse("final-slash kept\n").unwrap_err().to_string(),
            "line 1: final-slash is \"ignored\" (the ARK draft's reading, the default) \
             or \"inflection\" (N2T's), not \"kept\""
        );
    }

    #[test]
    fn final_slash_reads_the_ark_draft_unless_told_n2t() {
        assert!(!Rules::empty().final_slash_inflects);
        assert!(!Rules::builtin().final_slash_inflects);
        assert!(
            Rules::parse("final-slash inflection\n")
                .unwrap()
                .final_slash_inflects
        );
        assert!(
            !Rules::parse("final-slash ignored\n")
                .unwrap()
                .final_slash_inflects
        );
    }
}
