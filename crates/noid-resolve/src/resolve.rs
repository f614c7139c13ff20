//! N2T-style resolution of one identifier to one [`Answer`], shared by the egg line
//! protocol and the HTTP server so that both answer exactly the same thing.
//!
//! The order of the steps follows EggNog's `resolve()` (see `docs/RESOLUTION.md` for the
//! table of request kinds and answers):
//!
//! 1. the verbatim id's `_t` (a plain hit costs one lookup and nothing else);
//! 2. other spellings (normalisation, `ark:`↔`ark:/`, hyphens, DOI case, shadow ARKs);
//! 3. an inflection suffix (`?`, `??`, `?info`, `/`, `./` …) on a bound id;
//! 4. ancestor chopping (suffix passthrough), longest bound ancestor first;
//! 5. the `:idmap` rules of `_t`;
//! 6. partial ids (`ark:`, `ark:/99999`, `doi:10.5072`);
//! 7. redirect rules on the shoulder, NAAN or scheme (bound in the store, or in the
//!    operator's rules file);
//! 8. forwarding of ARKs of other NAANs to a global resolver;
//! 9. not found.
//!
//! A found target then goes through the output decision (EggNog's `cnflect`): several
//! targets, inflections, content negotiation, `${…}` placeholders and suffix, redirect
//! code, prefix extension.

use std::borrow::Cow;

use crate::accept::Accept;
use crate::elem;
use crate::ident::{is_word, Family, Parsed};
use crate::idmap;
use crate::keys;
use crate::lookup::{is_truthy, Lookup, LookupError, RangeRead, Ranged};
use crate::rules::Rules;

/// The target element.
const TARGET: &str = "_t";
/// Ancestor-match flag: `n` forbids suffix passthrough below this id.
const ANCESTOR_MATCH: &str = "_t_am";
/// Inflection targets: `_,eTi,<suffix>`, and `_,eTi,` for any inflection.
const INFLECTION_TARGET: &str = "_,eTi,";
/// Content-negotiation targets: `_,eTm,<type>`, and `_,eTm,` for any type.
const METADATA_TARGET: &str = "_,eTm,";
/// The kernel elements, shown first in metadata answers.
pub const KERNEL: [&str; 5] = ["who", "what", "when", "where", "how"];
/// Media types the resolver can answer itself with a metadata record when an `Accept`
/// asks for them and no `_,eTm,` target is bound.
pub const METADATA_TYPES: [&str; 3] = ["application/json", "text/plain", "text/x-anvl"];
/// Inflection suffixes answered with metadata when no inflection target is bound,
/// longest first (`?info` is read as `??`).
const INFLECTIONS: [&str; 9] = ["./??", "/??", "./?", "/?", "??", "./", "?", "/", "!"];
/// Most bindings shown in a metadata answer.
const MAX_BINDINGS: usize = 1000;

/// One resolution request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Request<'a> {
    /// The identifier as requested, including any suffix and any raw query/inflection
    /// (`ark:/12345/x??`, `ark:/12345/x/page2?q=1`); leading `/`s are ignored.
    pub id: &'a str,
    /// The client's `Accept` header, if any; a list containing `*/*` does not negotiate.
    pub accept: Option<&'a str>,
    /// `http` or `https`: the protocol prepended to rule targets that have none.
    pub proto: Option<&'a str>,
}

impl<'a> Request<'a> {
    /// A request for `id` with no headers.
    pub fn new(id: &'a str) -> Request<'a> {
        Request {
            id,
            accept: None,
            proto: None,
        }
    }
}

/// What resolution decided. Each variant says how the HTTP layer should present it; the
/// egg protocol's rendering is in [`crate::egg`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Redirect: HTTP status `code` with `Location: target`. Codes come from the stored
    /// target (`301 https://…`) and default to 302; 303 for content negotiation. A 4xx
    /// code (`410 …`) means: answer that status, the target text being informational.
    Redirect {
        /// HTTP status code (300–417).
        code: u16,
        /// Location, newline-free.
        target: String,
    },
    /// An inflection (`?`, `??`, `/` …) of a bound id with no inflection target: show the
    /// id's metadata (200, `text/plain` ANVL, or JSON when the client accepts it).
    Inflection {
        /// The bound id the suffix was found on.
        id: String,
        /// The inflection as normalised (`?info` is given as `??`).
        suffix: String,
        /// Kernel elements first (`who what when where how`, `where` defaulting to the
        /// id), then the other elements in key order; admin and `_,` elements omitted.
        bindings: Vec<(String, Vec<u8>)>,
    },
    /// Content negotiation asked for a metadata type this resolver serves itself
    /// ([`METADATA_TYPES`]) and no `_,eTm,` target is bound: answer the metadata in
    /// `media_type` (200).
    Negotiate {
        /// The bound id.
        id: String,
        /// One of [`METADATA_TYPES`].
        media_type: String,
        /// As for [`Answer::Inflection`].
        bindings: Vec<(String, Vec<u8>)>,
    },
    /// The `_t` value holds several targets (one per line): 300 Multiple Choices with
    /// the list.
    Multi {
        /// The bound id.
        id: String,
        /// The targets, suffix and placeholders applied, in stored order.
        targets: Vec<String>,
    },
    /// A partial identifier (`ark:`, `ark:/99999`, `doi:10.5072`) that is not bound
    /// itself: describe the namespace (200) or 404 if the layer has nothing to show.
    Partial {
        /// Canonical key of the partial id (`ark:/99999`).
        key: String,
        /// Bindings under that key (other than `_t`), possibly empty.
        bindings: Vec<(String, Vec<u8>)>,
    },
    /// Nothing bound, no ancestor, rule or forwarding applies: 404.
    NotFound,
}

/// How a target was found; it decides conneg and the rule-only treatment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Via {
    /// The id itself (in some spelling) or through `:idmap`.
    Exact,
    /// An ancestor, the rest of the id being the suffix.
    Ancestor,
    /// A shoulder/NAAN/scheme redirect rule.
    Rule,
}

/// Borrowed from the request or its parse where it can be: most answers need neither
/// string as an owned one.
struct Found<'a> {
    /// The id whose `_t` (or rule) matched.
    root: Cow<'a, str>,
    value: Vec<u8>,
    suffix: Cow<'a, str>,
    via: Via,
}

/// The resolver: immutable rules plus the process-wide `:idmap` cache, so one instance
/// is shared by every thread (`Send + Sync`).
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    rules: Rules,
}

impl Resolver {
    /// A resolver with these rules.
    pub fn new(rules: Rules) -> Resolver {
        Resolver { rules }
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Resolve one request. Only storage failures are errors; every request, however
    /// malformed, gets an [`Answer`].
    pub fn resolve<L: Lookup + ?Sized>(
        &self,
        store: &L,
        req: &Request<'_>,
    ) -> Result<Answer, LookupError> {
        let id = req.id.trim_start_matches('/');
        if id.is_empty() {
            return Ok(Answer::NotFound);
        }
        // Minters store ARKs without `ark:/` (`13030/x`); see `noid_keys`.
        let l = &crate::noid_keys::NoidKeys(store);
        let mut key = Vec::with_capacity(id.len() + 8);
        // An id with ancestors to chop back to is read with them as one range (where the
        // store offers ranges): the lookups of its keys, the verbatim one included, are
        // then answered from it.
        let early = may_have_ancestors(id).then(|| Parsed::new(id));
        let mut candidates = None;
        let mut read = None;
        if let Some(p) = &early {
            let lens = chop_candidates(p);
            read = read_ancestors(l, p, &lens, p.norm == id)?;
            candidates = Some(Candidates {
                ranged: read.is_some(),
                lens,
            });
        }
        let l = &Ranged { l, read };
        // 1. Verbatim: the hot path, one lookup.
        if let Some(value) = target_of(l, &mut key, id)? {
            let found = Found {
                root: Cow::Borrowed(id),
                value,
                suffix: Cow::Borrowed(""),
                via: Via::Exact,
            };
            return self.finish(l, req, found, None);
        }
        // A peppered id (`ID!PEPPER`) is read as the id itself.
        let base = elem::read_id(l, id)?;
        if base.len() < id.len() {
            return self.resolve(store, &Request { id: base, ..*req });
        }
        let p = early.unwrap_or_else(|| Parsed::new(id));
        match self.find(l, &mut key, id, &p, candidates)? {
            Some(found) => self.finish(l, req, found, Some(&p)),
            None => self.fallback(l, &mut key, &p),
        }
    }

    /// Steps 2–5 and 7: the first binding or rule that applies.
    fn find<'a, L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        id: &'a str,
        p: &'a Parsed,
        candidates: Option<Candidates>,
    ) -> Result<Option<Found<'a>>, LookupError> {
        let exact = |root: Cow<'a, str>, value: Vec<u8>, suffix: &'static str| Found {
            root,
            value,
            suffix: Cow::Borrowed(suffix),
            via: Via::Exact,
        };
        // 2. Other spellings of the whole id (only those the store has keys like).
        for alt in p.alternates(id) {
            if !may_have_authority(l, &alt)? {
                continue;
            }
            if let Some(v) = target_of(l, key, &alt)? {
                return Ok(Some(exact(Cow::Owned(alt), v, "")));
            }
        }
        // 3. Inflections on a bound id, whatever its passthrough flags say.
        if let Some((base_len, infl)) = inflection_suffix(id) {
            let base = &id[..base_len];
            if let Some(v) = target_of(l, key, base)? {
                return Ok(Some(exact(Cow::Borrowed(base), v, infl)));
            }
            if let Some((nlen, _)) = inflection_suffix(&p.norm) {
                let nbase = &p.norm[..nlen];
                if nbase != base {
                    if let Some(v) = target_of(l, key, nbase)? {
                        return Ok(Some(exact(Cow::Borrowed(nbase), v, infl)));
                    }
                }
            }
        }
        // 4. Ancestors.
        if let Some(found) = chop(l, key, p, candidates)? {
            return Ok(Some(found));
        }
        // 5. :idmap rules of _t.
        if let Some(v) = idmap::map_id(l, id, TARGET)? {
            if !v.is_empty() {
                return Ok(Some(exact(Cow::Borrowed(id), v, "")));
            }
        }
        // 6. Partial ids are not redirected by rules (see `fallback`).
        if p.partial_key().is_some() {
            return Ok(None);
        }
        // 7. Rules, most specific first.
        self.rule(l, key, p)
    }

    /// Shoulder, NAAN and scheme rules: bound in the store (`_t` of `ark:/12345` or
    /// `ark:`) or in the rules file. The shoulder's own `_t` was already tried by chopping.
    fn rule<'a, L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        p: &'a Parsed,
    ) -> Result<Option<Found<'a>>, LookupError> {
        let levels = [
            (p.shoulder_key(), false),
            (p.naan_key(), true),
            (Some(p.scheme_key()).filter(|s| !s.is_empty()), true),
        ];
        for (level, in_store) in levels {
            let Some(k) = level else { continue };
            let suffix = &p.norm[k.len()..];
            if in_store {
                if let Some(v) = target_of(l, key, k)? {
                    if !flag_is_n(l, key, k)? {
                        return Ok(Some(rule_found(k, v, suffix)));
                    }
                }
            }
            if self.rules.is_empty() {
                continue;
            }
            // Level keys are prefixes of `norm`, already canonical but for DOI case.
            let canonical = match p.family {
                Family::Doi => Cow::Owned(format!("doi:{}", k[4..].to_uppercase())),
                _ => Cow::Borrowed(k),
            };
            if let Some(t) = self.rules.get_canonical(&canonical) {
                return Ok(Some(rule_found(k, t.as_bytes().to_vec(), suffix)));
            }
        }
        Ok(None)
    }

    /// Steps 6, 8, 9: partial ids, forwarding, not found.
    fn fallback<L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        p: &Parsed,
    ) -> Result<Answer, LookupError> {
        if let Some(k) = p.partial_key() {
            let mut bindings = elem::bindings(l, &k, MAX_BINDINGS)?;
            bindings.retain(|(e, _)| e != TARGET && !e.starts_with("_,"));
            return Ok(Answer::Partial { key: k, bindings });
        }
        if let (Some(global), Family::Ark, Some(naan)) =
            (&self.rules.global_resolver, p.family, p.naan())
        {
            if !self.is_local_naan(l, key, naan)? {
                return Ok(Answer::Redirect {
                    code: 302,
                    target: strip_newlines(format!("{global}{}", p.norm)),
                });
            }
        }
        Ok(Answer::NotFound)
    }

    /// Loop protection for forwarding: a NAAN is ours if the rules file says so or if
    /// the store holds any identifier under it; then a miss is a real miss.
    fn is_local_naan<L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        naan: &str,
    ) -> Result<bool, LookupError> {
        if self.rules.local_naans.iter().any(|n| n == naan) {
            return Ok(true);
        }
        key.clear();
        key.extend_from_slice(b"ark:/");
        key.extend_from_slice(naan.as_bytes());
        key.push(b'/');
        if !l.scan_prefix(key, 1)?.is_empty() {
            return Ok(true);
        }
        key.truncate(key.len() - 1);
        key.push(keys::SEPARATOR);
        Ok(!l.scan_prefix(key, 1)?.is_empty())
    }

    /// The output decision (EggNog's `cnflect`).
    fn finish<L: Lookup + ?Sized>(
        &self,
        l: &L,
        req: &Request<'_>,
        found: Found,
        parsed: Option<&Parsed>,
    ) -> Result<Answer, LookupError> {
        let Found {
            root,
            value,
            suffix,
            via,
        } = found;
        // Allocated only if an element is looked up (`keys::elem_into` reserves room).
        let mut key = Vec::new();
        // (UTF-8 is checked faster than `from_utf8_lossy` finds nothing to replace.)
        let text = match std::str::from_utf8(&value) {
            Ok(text) => Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(&value),
        };
        let text = text.trim_end_matches(['\r', '\n']);
        let ext = parsed.and_then(|p| p.ext.as_deref());
        // The parse is needed only for placeholders or rules; plain hits skip it.
        let lazy;
        let p: Option<&Parsed> = match parsed {
            Some(p) => Some(p),
            None if has_placeholder(text) => {
                lazy = Parsed::new(req.id);
                Some(&lazy)
            }
            None => None,
        };
        let proto = (via == Via::Rule).then(|| req.proto.unwrap_or("http"));

        // Inflections: a suffix with no word character.
        let infl = match suffix.strip_suffix("?info") {
            Some(base) => Cow::Owned(format!("{base}??")),
            None => Cow::Borrowed(&*suffix),
        };
        if via != Via::Rule && !infl.is_empty() && !infl.bytes().any(is_word) {
            for elem in [
                format!("{INFLECTION_TARGET}{infl}"),
                INFLECTION_TARGET.into(),
            ] {
                if let Some(t) = truthy(l, &mut key, &root, &elem)? {
                    return Ok(redirect(&t, 302, ext));
                }
            }
            if INFLECTIONS.contains(&infl.as_ref()) {
                let bindings = metadata(l, &root)?;
                return Ok(Answer::Inflection {
                    id: root.into_owned(),
                    suffix: infl.into_owned(),
                    bindings,
                });
            }
        }

        // Content negotiation: only on an id found as such, without suffix.
        if via == Via::Exact && suffix.is_empty() {
            let accept = req.accept.map(Accept::parse).unwrap_or_default();
            if !accept.takes_anything() && accept.types().next().is_some() {
                for t in accept.types() {
                    // Stored under the lower-case type, as a client may write it in any case.
                    let mut elem = String::with_capacity(METADATA_TARGET.len() + t.len());
                    elem.push_str(METADATA_TARGET);
                    elem.extend(t.chars().map(|c| c.to_ascii_lowercase()));
                    if let Some(v) = truthy(l, &mut key, &root, &elem)? {
                        return Ok(redirect(&v, 303, ext));
                    }
                }
                if let Some(v) = truthy(l, &mut key, &root, METADATA_TARGET)? {
                    return Ok(redirect(&v, 303, ext));
                }
                if let Some(t) = accept.preferred(&METADATA_TYPES) {
                    let bindings = metadata(l, &root)?;
                    return Ok(Answer::Negotiate {
                        id: root.into_owned(),
                        media_type: t.to_string(),
                        bindings,
                    });
                }
            }
        }

        // Several targets: one per line.
        if memchr::memchr(b'\n', text.as_bytes()).is_some() {
            let targets: Vec<String> = text
                .split('\n')
                .map(|t| t.trim_end_matches('\r'))
                .filter(|t| !t.is_empty())
                .map(|t| finish_target(t, &suffix, p, proto, ext))
                .collect();
            if targets.len() > 1 {
                return Ok(Answer::Multi {
                    id: root.into_owned(),
                    targets,
                });
            }
        }
        let (code, target) = split_code(text.trim_matches(['\r', '\n']));
        Ok(Answer::Redirect {
            code: code.unwrap_or(302),
            target: finish_target(target, &suffix, p, proto, ext),
        })
    }
}

fn rule_found<'a>(key: &'a str, value: Vec<u8>, suffix: &'a str) -> Found<'a> {
    Found {
        root: Cow::Borrowed(key),
        value,
        suffix: Cow::Borrowed(suffix),
        via: Via::Rule,
    }
}

/// Whether the store may have keys under `id`'s scheme and authority (`ark:13030/`,
/// `doi:10.5072/`): a spelling no key uses needs no lookup. Ids without both say yes.
fn may_have_authority<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<bool, LookupError> {
    let Some(colon) = id.find(':') else {
        return Ok(true);
    };
    let after = &id[colon + 1..];
    let skip = usize::from(after.starts_with('/'));
    match after[skip..].find('/') {
        Some(slash) => l.may_have_prefix(&id.as_bytes()[..colon + 1 + skip + slash + 1]),
        None => Ok(true),
    }
}

/// The truthy `_t` of `id`, if any.
fn target_of<L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    id: &str,
) -> Result<Option<Vec<u8>>, LookupError> {
    truthy(l, key, id, TARGET)
}

/// The truthy value of `id elem`, if any.
fn truthy<L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    id: &str,
    elem: &str,
) -> Result<Option<Vec<u8>>, LookupError> {
    keys::elem_into(key, id, elem);
    Ok(l.get(key)?.filter(|v| is_truthy(v)))
}

/// True when `id`'s `_t_am` flag is `n` (no suffix passthrough).
fn flag_is_n<L: Lookup + ?Sized>(l: &L, key: &mut Vec<u8>, id: &str) -> Result<bool, LookupError> {
    keys::elem_into(key, id, ANCESTOR_MATCH);
    Ok(l.get(key)?.is_some_and(|v| v.trim_ascii() == b"n"))
}

/// A recognised inflection at the end of `id`: (length of the base, inflection as
/// normalised). The base must be non-empty.
fn inflection_suffix(id: &str) -> Option<(usize, &'static str)> {
    if let Some(base) = id.strip_suffix("?info") {
        for pre in ["./", "/", ""] {
            if let Some(b) = base.strip_suffix(pre) {
                if !b.is_empty() {
                    let infl = match pre {
                        "./" => "./??",
                        "/" => "/??",
                        _ => "??",
                    };
                    return Some((b.len(), infl));
                }
            }
        }
    }
    INFLECTIONS
        .iter()
        .find(|s| id.len() > s.len() && id.ends_with(*s))
        .map(|s| (id.len() - s.len(), *s))
}

/// Above this many ancestor lookups (ancestors not read as one range), one prefix seek
/// first checks that anything at all is bound under the non-choppable start. A
/// bloom-filtered miss costs a fraction of a seek, so short ids skip the seek and long
/// garbage ids cannot cost many lookups.
const PREFIX_CHECK_ABOVE: usize = 8;

/// The ancestors of an id to try, longest first, and whether the store read their keys
/// as one range (then the [`Ranged`] lookup in use answers them).
struct Candidates {
    lens: Vec<usize>,
    ranged: bool,
}

/// Ancestor chopping (EggNog's `suffix_pass` + `indb_chopback`), with the candidates
/// (and their range read) from before step 1 if they were made there.
fn chop<'a, L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    p: &'a Parsed,
    early: Option<Candidates>,
) -> Result<Option<Found<'a>>, LookupError> {
    let (candidates, read) = match early {
        Some(c) => (c, None),
        None => {
            let lens = chop_candidates(p);
            let read = read_ancestors(l, p, &lens, false)?;
            let c = Candidates {
                ranged: read.is_some(),
                lens,
            };
            (c, read)
        }
    };
    if candidates.lens.is_empty() {
        return Ok(None);
    }
    if !candidates.ranged
        && candidates.lens.len() > PREFIX_CHECK_ABOVE
        && l.scan_prefix(&p.norm.as_bytes()[..p.stop_len], 1)?
            .is_empty()
    {
        return Ok(None);
    }
    match read {
        read @ Some(_) => first_bound(&Ranged { l, read }, key, p, &candidates.lens),
        // Ancestors read before step 1 are answered by the `Ranged` lookup `l` already is.
        None => first_bound(l, key, p, &candidates.lens),
    }
}

/// The longest of the candidate ancestors that is bound, if passthrough is allowed.
fn first_bound<'a, L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    p: &'a Parsed,
    lens: &[usize],
) -> Result<Option<Found<'a>>, LookupError> {
    for &len in lens {
        if let Some(v) = target_of(l, key, &p.norm[..len])? {
            return found_ancestor(l, key, p, len, v);
        }
    }
    Ok(None)
}

/// The lengths of `p.norm` to try as ancestors, longest first: trailing non-word
/// characters trimmed, then one word and the separators before it (`[^\w~]*[\w~]+$`)
/// removed at a time, never shorter than the non-choppable start; last, the shoulder
/// itself.
fn chop_candidates(p: &Parsed) -> Vec<usize> {
    let b = p.norm.as_bytes();
    let stop = p.stop_len;
    if stop == 0 || b.len() <= stop {
        return Vec::new();
    }
    let mut candidates: Vec<usize> = Vec::with_capacity(8);
    let mut end = b.len();
    while end > stop && !is_word(b[end - 1]) {
        end -= 1;
    }
    if end < b.len() {
        candidates.push(end);
    }
    loop {
        let mut e = end;
        while e > 0 && is_word(b[e - 1]) {
            e -= 1;
        }
        while e > 0 && !is_word(b[e - 1]) {
            e -= 1;
        }
        if e < stop || e == end {
            break;
        }
        end = e;
        candidates.push(end);
    }
    if p.shoulder_end.is_some() && candidates.last() != Some(&stop) {
        candidates.push(stop);
    }
    candidates
}

/// Whether `id` likely has two ancestors or more to chop back to (then it is parsed,
/// and its ancestors read, before the verbatim lookup): four `/` or `.` at least, as in
/// `ark:/NAAN/ID/a/b` or `NAAN/ID/a/b.c`. Only a matter of cost, kept to a count the
/// compiler vectorises because every plain hit pays it: any id is resolved the same
/// way either way.
fn may_have_ancestors(id: &str) -> bool {
    id.bytes().filter(|&c| c == b'/' || c == b'.').count() >= 4
}

/// Most keys read as one range between the shortest and longest ancestor; an id with
/// more bindings or descendants than that there has its ancestors looked up one by one.
const ANCESTOR_RANGE_MAX: usize = 32;

/// The candidates longer than the non-choppable start, read as one range when there
/// are two or more and the store offers it: from the shortest to the longest one's
/// `_t_am`, or to the whole normalised id's `_t` if `verbatim`. A RocksDB seek and a few
/// steps cost about one point lookup; the candidates would cost one each and the flag
/// one more. A key outside the range (`ID\t_t` sorts after `ID\x01a/b\t_t`: a control
/// character sorts before the tab) is still looked up by itself ([`Ranged`]).
fn read_ancestors<L: Lookup + ?Sized>(
    l: &L,
    p: &Parsed,
    candidates: &[usize],
    verbatim: bool,
) -> Result<Option<RangeRead>, LookupError> {
    let inner = candidates
        .iter()
        .take_while(|&&len| len > p.stop_len)
        .count();
    if inner < 2 {
        return Ok(None);
    }
    let (longest, shortest) = (candidates[0], candidates[inner - 1]);
    let b = p.norm.as_bytes();
    let mut last = Vec::with_capacity(b.len() + 1 + ANCESTOR_MATCH.len());
    match verbatim {
        true => keys::elem_into(&mut last, &p.norm, TARGET),
        false => keys::elem_into(&mut last, &p.norm[..longest], ANCESTOR_MATCH),
    }
    let first = b[..shortest].to_vec();
    Ok(l.range(&first, &last, ANCESTOR_RANGE_MAX)?
        .map(|pairs| RangeRead { first, last, pairs }))
}

/// An ancestor of length `len` is bound. `_t_am` = `n` on it, or on the shoulder, forbids
/// passthrough (the longest bound ancestor decides: no shorter one is tried).
fn found_ancestor<'a, L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    p: &'a Parsed,
    len: usize,
    value: Vec<u8>,
) -> Result<Option<Found<'a>>, LookupError> {
    let root = &p.norm[..len];
    if flag_is_n(l, key, root)? {
        return Ok(None);
    }
    if let Some(shoulder) = p.shoulder_key().filter(|s| s.len() != len) {
        // Nothing bound on the shoulder itself (the usual case): no flag to read. (With
        // no element, `keys::elem_into` gives the prefix `SHOULDER\t` of its bindings.)
        keys::elem_into(key, shoulder, "");
        if l.may_have_prefix(key)? && flag_is_n(l, key, shoulder)? {
            return Ok(None);
        }
    }
    Ok(Some(Found {
        root: Cow::Borrowed(root),
        value,
        suffix: crate::unescape::flex_decode(&p.norm[len..]),
        via: Via::Ancestor,
    }))
}

/// `^([34][01][0123478]) +(.*)`: a leading redirect code. EggNog's class is
/// `[012347]`; 308 (Permanent Redirect) is accepted too, on purpose.
fn split_code(text: &str) -> (Option<u16>, &str) {
    let b = text.as_bytes();
    if b.len() >= 4
        && matches!(b[0], b'3' | b'4')
        && matches!(b[1], b'0' | b'1')
        && matches!(b[2], b'0'..=b'4' | b'7' | b'8')
        && b[3] == b' '
    {
        let code = (b[0] - b'0') as u16 * 100 + (b[1] - b'0') as u16 * 10 + (b[2] - b'0') as u16;
        return (Some(code), text[4..].trim_start_matches(' '));
    }
    (None, text)
}

/// A redirect to an inflection or metadata target (code from the value, else `default`).
fn redirect(value: &[u8], default: u16, ext: Option<&str>) -> Answer {
    let text = String::from_utf8_lossy(value);
    let (code, target) = split_code(text.trim_matches(['\r', '\n']));
    let mut target = strip_newlines(target.to_string());
    if let Some(ext) = ext {
        target = apply_extension(&target, ext);
    }
    Answer::Redirect {
        code: code.unwrap_or(default),
        target,
    }
}

/// Placeholders and suffix, protocol for rules, prefix extension.
fn finish_target(
    target: &str,
    suffix: &str,
    p: Option<&Parsed>,
    proto: Option<&str>,
    ext: Option<&str>,
) -> String {
    let mut out = substitute(target, suffix, p);
    if let Some(proto) = proto {
        if !has_url_scheme(&out) {
            out = format!("{proto}://{out}");
        }
    }
    if let Some(ext) = ext {
        out = apply_extension(&out, ext);
    }
    strip_newlines(out)
}

/// Replace `${suffix}`, `${id}`, `${blade}`, `${nlid}`, `${naan}`, `${scheme}` (every
/// occurrence); when the target has none of them, append the suffix.
fn substitute(target: &str, suffix: &str, p: Option<&Parsed>) -> String {
    if !has_placeholder(target) {
        let mut s = String::with_capacity(target.len() + suffix.len());
        s.push_str(target);
        s.push_str(suffix);
        return s;
    }
    let mut out = String::with_capacity(target.len() + suffix.len() + 32);
    let mut rest = target;
    let mut any = false;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let Some(close) = after.find('}') else {
            out.push_str(&rest[i..]);
            rest = "";
            break;
        };
        let name = &after[..close];
        let value = match (name, p) {
            ("suffix", _) => Some(suffix),
            ("id", Some(p)) => Some(p.local_id()),
            ("blade", Some(p)) => Some(p.blade()),
            ("nlid", Some(p)) => Some(p.nlid()),
            ("naan", Some(p)) => Some(p.naan().unwrap_or("")),
            ("scheme", Some(p)) => Some(p.scheme_key().trim_end_matches(':')),
            _ => None,
        };
        match value {
            Some(v) => {
                out.push_str(v);
                any = true;
            }
            None => out.push_str(&rest[i..i + 3 + close]),
        }
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    if !any {
        out.push_str(suffix);
    }
    out
}

fn has_url_scheme(s: &str) -> bool {
    match s.find("://") {
        Some(i) if i > 0 => {
            let b = s.as_bytes();
            b[0].is_ascii_alphabetic()
                && b[..i]
                    .iter()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        }
        _ => false,
    }
}

/// Prefix extension: `-dev-2a` goes to the end of the target's first host label
/// (`http://a.b.org/x` → `http://a-dev-2a.b.org/x`).
fn apply_extension(target: &str, ext: &str) -> String {
    let host = if has_url_scheme(target) {
        target.find("://").map_or(0, |i| i + 3)
    } else {
        0
    };
    let label_end = target[host..]
        .find(['.', '/', ':', '?', '#'])
        .map_or(target.len(), |i| host + i);
    let mut out = String::with_capacity(target.len() + ext.len());
    out.push_str(&target[..label_end]);
    out.push_str(ext);
    out.push_str(&target[label_end..]);
    out
}

/// Answers are single lines: embedded CR and LF are deleted (as EggNog does).
fn strip_newlines(mut s: String) -> String {
    if memchr::memchr2(b'\r', b'\n', s.as_bytes()).is_some() {
        s.retain(|c| c != '\r' && c != '\n');
    }
    s
}

/// Whether `s` holds `${` (a placeholder); memchr-based, this runs on every hit.
fn has_placeholder(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(b'$', b).any(|i| b.get(i + 1) == Some(&b'{'))
}

/// The id's bindings for a metadata answer: kernel elements first (`where` defaults to
/// the id, as N2T implies it), then the rest in key order; `_,` elements are internal.
fn metadata<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<Vec<(String, Vec<u8>)>, LookupError> {
    let all = elem::bindings(l, id, MAX_BINDINGS)?;
    let mut out = Vec::with_capacity(all.len() + 1);
    for k in KERNEL {
        let mut any = false;
        for (e, v) in all.iter().filter(|(e, _)| e == k) {
            out.push((e.clone(), v.clone()));
            any = true;
        }
        if !any && k == "where" {
            out.push(("where".to_string(), id.as_bytes().to_vec()));
        }
    }
    out.extend(
        all.into_iter()
            .filter(|(e, _)| !KERNEL.contains(&e.as_str()) && !e.starts_with("_,")),
    );
    Ok(out)
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn codes() {
        assert_eq!(split_code("301 zaf"), (Some(301), "zaf"));
        assert_eq!(split_code("410 zaf"), (Some(410), "zaf"));
        assert_eq!(split_code("308   zaf"), (Some(308), "zaf"));
        assert_eq!(split_code("999 zaf"), (None, "999 zaf"));
        assert_eq!(split_code("305 zaf"), (None, "305 zaf"));
        assert_eq!(split_code("301zaf"), (None, "301zaf"));
        assert_eq!(split_code("301"), (None, "301"));
    }

    #[test]
    fn extension() {
        assert_eq!(
            apply_extension("http://a.b.org", "-dev-2a"),
            "http://a-dev-2a.b.org"
        );
        assert_eq!(
            apply_extension("https://z.b.example.com/x", "-dev"),
            "https://z-dev.b.example.com/x"
        );
        assert_eq!(
            apply_extension("localhost:8080/x", "-dev"),
            "localhost-dev:8080/x"
        );
    }

    #[test]
    fn inflection_suffixes() {
        assert_eq!(inflection_suffix("a?"), Some((1, "?")));
        assert_eq!(inflection_suffix("a??"), Some((1, "??")));
        assert_eq!(inflection_suffix("a?info"), Some((1, "??")));
        assert_eq!(inflection_suffix("a/?info"), Some((1, "/??")));
        assert_eq!(inflection_suffix("a./??"), Some((1, "./??")));
        assert_eq!(inflection_suffix("a/"), Some((1, "/")));
        assert_eq!(inflection_suffix("?"), None);
        assert_eq!(inflection_suffix("a"), None);
    }
}
