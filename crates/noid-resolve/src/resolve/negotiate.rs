//! The output decision for a found target (EggNog's `cnflect`): an inflection's target
//! or metadata, content negotiation (a `_,eTm,` target or the resolver's own metadata),
//! several targets, else one redirect.

use std::borrow::Cow;

use super::answer::{Answer, Found, Via};
use super::target::{finish_target, has_placeholder, redirect, split_code};
use super::tombstone::{is_withdrawn, tombstone};
use super::{truthy, Request, Resolver};
use crate::accept::Accept;
use crate::elem;
use noid_core::ident::{is_word, Parsed};
use noid_core::lookup::{Lookup, LookupError};

/// Inflection targets: `_,eTi,<suffix>`, and `_,eTi,` for any inflection.
const INFLECTION_TARGET: &str = "_,eTi,";
/// Content-negotiation targets: `_,eTm,<type>`, and `_,eTm,` for any type.
const METADATA_TARGET: &str = "_,eTm,";
/// The kernel elements, shown first in metadata answers.
pub const KERNEL: [&str; 5] = ["who", "what", "when", "where", "how"];
/// Media types the resolver can answer itself with a metadata record when an `Accept`
/// asks for them and no `_,eTm,` target is bound.
pub const METADATA_TYPES: [&str; 3] = ["application/json", "text/plain", "text/x-anvl"];
/// Every type content negotiation answers itself: the metadata's, the citations', then
/// the linksets'.
const NEGOTIATED_TYPES: [&str; 10] = [
    METADATA_TYPES[0],
    METADATA_TYPES[1],
    METADATA_TYPES[2],
    crate::cite::CITATION_TYPES[0],
    crate::cite::CITATION_TYPES[1],
    crate::cite::CITATION_TYPES[2],
    crate::cite::CITATION_TYPES[3],
    crate::cite::CITATION_TYPES[4],
    LINKSET_TYPES[0],
    LINKSET_TYPES[1],
];
/// The linkset media types content negotiation answers (RFC 9264; the linksets are
/// made in `signpost.rs`).
pub const LINKSET_TYPES: [&str; 2] = ["application/linkset", "application/linkset+json"];
/// The targets a `_t` value holds, one per line (a CR before the LF dropped, blank
/// lines skipped): more than one is a `300 Multiple Choices`. Pages that show a `_t`
/// split it here too, so that they show the targets the resolver lists.
pub fn split_targets(text: &str) -> impl Iterator<Item = &str> {
    text.split('\n')
        .map(|t| t.trim_end_matches('\r'))
        .filter(|t| !t.is_empty())
}

/// Inflection suffixes answered with metadata when no inflection target is bound,
/// longest first (`?info` is read as `??`).
const INFLECTIONS: [&str; 9] = ["./??", "/??", "./?", "/?", "??", "./", "?", "/", "!"];
/// Most bindings shown in a metadata answer.
pub(super) const MAX_BINDINGS: usize = 1000;

impl Resolver {
    /// The output decision (EggNog's `cnflect`): an inflection's target or metadata,
    /// content negotiation, a tombstone, several targets, else one redirect.
    pub(super) fn finish<L: Lookup + ?Sized>(
        &self,
        l: &L,
        req: &Request<'_>,
        found: Found,
        parsed: Option<&Parsed>,
    ) -> Result<Answer, LookupError> {
        let Found {
            mut root,
            value,
            suffix,
            via,
            ..
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

        if via != Via::Rule && !suffix.is_empty() {
            if let Some(a) = inflected(l, &mut key, &mut root, &suffix, ext)? {
                return Ok(self.with_commitment(a));
            }
        }
        // Content negotiation: only on an id found as such, without suffix.
        if via == Via::Exact && suffix.is_empty() {
            if let Some(accept) = req.accept {
                if let Some(a) =
                    negotiated(l, &mut key, &mut root, (accept, &self.rules), text, ext)?
                {
                    return Ok(a);
                }
            }
        }
        // A withdrawn id (`410 …`): its tombstone.
        if via != Via::Rule && is_withdrawn(text) {
            let gone = finish_target(split_code(text).1, &suffix, p, proto, ext);
            return tombstone(l, &root, gone);
        }
        let finish = |t: &str| finish_target(t, &suffix, p, proto, ext);
        // Several targets: one per line.
        if memchr::memchr(b'\n', text.as_bytes()).is_some() {
            let targets: Vec<String> = split_targets(text).map(finish).collect();
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
            target: finish(target),
        })
    }
}

/// An inflection (a suffix with no word character; `?info` read as `??`): its bound
/// target (`_,eTi,SUFFIX`, else `_,eTi,`) or, for a known inflection, the metadata.
fn inflected<L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    root: &mut Cow<'_, str>,
    suffix: &str,
    ext: Option<&str>,
) -> Result<Option<Answer>, LookupError> {
    let infl = match suffix.strip_suffix("?info") {
        Some(base) => Cow::Owned(format!("{base}??")),
        None => Cow::Borrowed(suffix),
    };
    if infl.bytes().any(is_word) {
        return Ok(None);
    }
    for elem in [
        format!("{INFLECTION_TARGET}{infl}"),
        INFLECTION_TARGET.into(),
    ] {
        if let Some(t) = truthy(l, key, root, &elem)? {
            return Ok(Some(redirect(&t, 302, ext)));
        }
    }
    if !INFLECTIONS.contains(&infl.as_ref()) {
        return Ok(None);
    }
    let bindings = metadata(l, root)?;
    Ok(Some(Answer::Inflection {
        id: std::mem::take(root).into_owned(),
        suffix: infl.into_owned(),
        bindings,
    }))
}

/// Content negotiation on an `Accept` that asks for something specific: a
/// `_,eTm,TYPE` target for a type it accepts (in its order), else `_,eTm,`, else the
/// resolver's own metadata in a type it prefers (not for a withdrawn id, whose
/// metadata is its tombstone).
fn negotiated<L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    root: &mut Cow<'_, str>,
    (accept, rules): (&str, &crate::Rules),
    text: &str,
    ext: Option<&str>,
) -> Result<Option<Answer>, LookupError> {
    let accept = Accept::parse(accept);
    if !accept.negotiates() {
        return Ok(None);
    }
    for t in accept.types() {
        // Stored under the lower-case type, as a client may write it in any case.
        let mut elem = String::with_capacity(METADATA_TARGET.len() + t.len());
        elem.push_str(METADATA_TARGET);
        elem.extend(t.chars().map(|c| c.to_ascii_lowercase()));
        if let Some(v) = truthy(l, key, root, &elem)? {
            return Ok(Some(redirect(&v, 303, ext)));
        }
    }
    if let Some(v) = truthy(l, key, root, METADATA_TARGET)? {
        return Ok(Some(redirect(&v, 303, ext)));
    }
    let Some(t) = accept
        .preferred(&NEGOTIATED_TYPES)
        .filter(|_| !is_withdrawn(text))
    else {
        return Ok(None);
    };
    let bindings = metadata(l, root)?;
    let id = std::mem::take(root).into_owned();
    Ok(Some(Answer::Negotiate {
        cite_as: rules.citation_url(&id),
        id,
        media_type: t.to_string(),
        bindings,
    }))
}

/// A recognised inflection at the end of `id`: (length of the base, inflection as
/// normalised). The base must be non-empty.
pub(super) fn inflection_suffix(id: &str) -> Option<(usize, &'static str)> {
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

/// The id's bindings for a metadata answer: kernel elements first (`where` defaults to
/// the id, as N2T implies it), then the rest in key order; `_,` elements are internal.
pub(super) fn metadata<L: Lookup + ?Sized>(
    l: &L,
    id: &str,
) -> Result<Vec<(String, Vec<u8>)>, LookupError> {
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
mod tests {
    use super::*;

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
