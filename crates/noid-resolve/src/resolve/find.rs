//! Steps 2–9 after the verbatim lookup missed: other spellings, inflections on a bound
//! id, ancestors, `:idmap`, redirect rules; and when nothing applies, partial ids,
//! forwarding, not found.

use std::borrow::Cow;

use super::answer::{Answer, By, Found};
use super::chop::{self, Candidates};
use super::negotiate::{inflection_suffix, MAX_BINDINGS};
use super::passthrough;
use super::target::strip_newlines;
use super::trace::{StepKind, Trace};
use super::{flag_is_n, target_of, Resolver, TARGET};
use crate::elem;
use crate::idmap;
use noid_core::ident::{Family, Parsed};
use noid_core::keys;
use noid_core::lookup::{Lookup, LookupError};

/// What steps 2–7 came to.
pub(super) enum Finding<'a> {
    /// A binding or rule applies.
    Found(Found<'a>),
    /// Nothing applies; the key a truncated identifier answers in step 6
    /// ([`Resolver::truncated_key`]), worked out once for [`Resolver::fallback`].
    Missed { truncated: Option<String> },
}

impl Resolver {
    /// Steps 2–5 and 7: the first binding or rule that applies.
    pub(super) fn find<'a, L: Lookup + ?Sized, T: Trace>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        id: &'a str,
        p: &'a Parsed,
        candidates: Option<Candidates>,
        trace: &mut T,
    ) -> Result<Finding<'a>, LookupError> {
        if let Some(found) = self.find_binding(l, key, id, p, candidates)? {
            return Ok(Finding::Found(found));
        }
        // 6. Truncated ids are not redirected by rules (see `fallback`).
        let truncated = self.truncated_key(p);
        if truncated.is_none() {
            // 7. Rules, most specific first.
            if let Some(found) = self.rule(l, key, p, trace)? {
                return Ok(Finding::Found(found));
            }
        }
        Ok(Finding::Missed { truncated })
    }

    /// Steps 2–5: the first binding that applies.
    fn find_binding<'a, L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        id: &'a str,
        p: &'a Parsed,
        candidates: Option<Candidates>,
    ) -> Result<Option<Found<'a>>, LookupError> {
        // 2. Other spellings of the whole id (only those the store has keys like),
        //    then the ARK specification's normal form (`noid_core::normalize`).
        let mut alternates = p.alternates(id);
        let normal = p.normal_forms(id, &alternates);
        alternates.extend(normal);
        // Whether the store may hold `ark:NAAN/…` keys, once asked here (step 4a).
        let mut unslashed_held = None;
        for alt in alternates {
            let held = may_have_authority(l, &alt)?;
            if alt.starts_with("ark:") && !alt.starts_with("ark:/") {
                unslashed_held = Some(held);
            }
            if !held {
                continue;
            }
            if let Some(v) = target_of(l, key, &alt)? {
                return Ok(Some(Found::exact(Cow::Owned(alt), v, "", By::Spelling)));
            }
        }
        // 3. Inflections on a bound id, whatever its passthrough flags say.
        if let Some((base_len, infl)) = inflection_suffix(id) {
            let base = &id[..base_len];
            if let Some(v) = target_of(l, key, base)? {
                return Ok(Some(Found::exact(
                    Cow::Borrowed(base),
                    v,
                    infl,
                    By::Inflection,
                )));
            }
            if let Some((nlen, _)) = inflection_suffix(&p.norm) {
                let nbase = &p.norm[..nlen];
                if nbase != base {
                    if let Some(v) = target_of(l, key, nbase)? {
                        return Ok(Some(Found::exact(
                            Cow::Borrowed(nbase),
                            v,
                            infl,
                            By::Inflection,
                        )));
                    }
                }
            }
        }
        // 4. Ancestors.
        if let Some(found) = chop::chop(l, key, p, candidates)? {
            return Ok(Some(found));
        }
        // 4a. Inflections and ancestors in the ARK specification's other spellings.
        if let Some(found) = respelled(l, key, p, unslashed_held)? {
            return Ok(Some(found));
        }
        // 4b. A LUI minter's identifier in another spelling.
        if let Some(lui) = crate::lui::canonical(l, id)? {
            if let Some(v) = target_of(l, key, &lui)? {
                return Ok(Some(Found::exact(Cow::Owned(lui), v, "", By::Lui)));
            }
        }
        // 5. :idmap rules of _t.
        if let Some(v) = idmap::map_id(l, id, TARGET)? {
            if !v.is_empty() {
                return Ok(Some(Found::exact(Cow::Borrowed(id), v, "", By::Idmap)));
            }
        }
        Ok(None)
    }

    /// Shoulder, NAAN and scheme rules: bound in the store (`_t` of `ark:/12345` or
    /// `ark:`) or in the rules file. The shoulder's own `_t` was already tried by chopping.
    fn rule<'a, L: Lookup + ?Sized, T: Trace>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        p: &'a Parsed,
        trace: &mut T,
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
                        return Ok(Some(Found::rule(k, v, suffix, By::StoreRule)));
                    }
                }
            }
            if self.rules.is_empty() && self.registry.is_empty() {
                continue;
            }
            let canonical = level_key(p, k);
            // A registry record's provider: the first healthy one.
            let record = self.registry.get(&canonical);
            if let Some(pv) = record.and_then(|r| self.registry.choose(r)) {
                trace.note(StepKind::Provider, || {
                    let down: Vec<&str> = record
                        .into_iter()
                        .flat_map(|r| r.providers.iter())
                        .filter(|q| !self.registry.is_healthy(q))
                        .map(|q| q.code.as_str())
                        .collect();
                    match down.is_empty() {
                        true => format!("{canonical}: provider {} (all up)", pv.code),
                        false => format!(
                            "{canonical}: provider {} (down: {})",
                            pv.code,
                            down.join(", ")
                        ),
                    }
                });
                return Ok(Some(Found::rule(
                    k,
                    pv.template.as_bytes().to_vec(),
                    suffix,
                    By::Registry,
                )));
            }
            if let Some(t) = self.rules.get_canonical(&canonical) {
                return Ok(Some(Found::rule(
                    k,
                    t.as_bytes().to_vec(),
                    suffix,
                    By::RulesFile,
                )));
            }
        }
        Ok(None)
    }

    /// The key whose record (or bindings) a truncated identifier answers in step 6: a
    /// scheme or NAAN alone ([`Parsed::partial_key`]), or a shoulder alone
    /// (`ark:/99999/fk4`, `ark:99999/fk4/`) that has a registry record, as N2T answers
    /// shoulder records. A shoulder without a record is still an id whose shoulder rule
    /// applies (step 7, `${blade}` empty), as it was before the registry.
    pub(super) fn truncated_key(&self, p: &Parsed) -> Option<String> {
        if let Some(k) = p.partial_key() {
            return Some(k);
        }
        let shoulder = p.shoulder_key()?;
        if self.registry.is_empty() || p.norm.trim_end_matches('/') != shoulder {
            return None;
        }
        let key = level_key(p, shoulder);
        self.registry.get(&key).map(|r| r.prefix.clone())
    }

    /// Steps 6, 8, 9: partial ids (`truncated`: [`Resolver::truncated_key`] of `p`),
    /// forwarding, not found.
    pub(super) fn fallback<L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        p: &Parsed,
        truncated: Option<String>,
    ) -> Result<Answer, LookupError> {
        if let Some(k) = truncated {
            // A cached prefix check first: a truncated id rarely has bindings, and a
            // listing costs a RocksDB iterator (more than a whole chop-back).
            let mut bindings = match l.may_have_prefix(&keys::id_prefix(&k))? {
                true => elem::bindings(l, &k, MAX_BINDINGS)?,
                false => Vec::new(),
            };
            bindings.retain(|(e, _)| e != TARGET && !e.starts_with("_,"));
            if let Some(records) = self.registry.with_below(&k) {
                return Ok(Answer::Record {
                    key: k,
                    records,
                    bindings,
                });
            }
            return Ok(Answer::Partial { key: k, bindings });
        }
        if let (Some(global), Family::Ark, Some(naan)) =
            (&self.rules.global_resolver, p.family, p.naan())
        {
            if !self.is_local_naan(l, key, naan)? {
                let mut target = String::with_capacity(global.len() + 1 + p.norm.len());
                target.push_str(global);
                passthrough::push(&mut target, &p.norm, None);
                return Ok(Answer::Redirect {
                    code: 302,
                    target: strip_newlines(target),
                });
            }
        }
        Ok(Answer::NotFound)
    }

    /// Loop protection for forwarding: a NAAN is ours if the rules file says so, if the
    /// store holds any identifier under it, or if the minter or the registry names it
    /// (the NAANs `/-/ark` lists); then a miss is a real miss. The store is asked
    /// through [`Lookup::may_have_prefix`], which noidr's view answers from a memo (a
    /// miss does not pay a seek each time) and which a store that cannot tell answers
    /// yes: then nothing is forwarded, and nothing can loop.
    fn is_local_naan<L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        naan: &str,
    ) -> Result<bool, LookupError> {
        if self.rules.local_naans.iter().any(|n| n == naan) || self.ours.knows(naan) {
            return Ok(true);
        }
        let ours = self.asks_store_if_ours(l, key, naan)?;
        if ours {
            self.ours.learn(naan);
        }
        Ok(ours)
    }

    /// [`Resolver::is_local_naan`]'s questions to the store, the minter and the registry.
    fn asks_store_if_ours<L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        naan: &str,
    ) -> Result<bool, LookupError> {
        key.clear();
        key.extend_from_slice(b"ark:/");
        key.extend_from_slice(naan.as_bytes());
        key.push(b'/');
        if l.may_have_prefix(key)? {
            return Ok(true);
        }
        key.truncate(key.len() - 1);
        key.push(keys::SEPARATOR);
        if l.may_have_prefix(key)? {
            return Ok(true);
        }
        // The NAANs this resolver says it serves (the minter's, the registry's).
        let served = crate::wellknown::ark_service(l, &self.rules, &self.registry)?;
        Ok(served.naans.iter().any(|n| n == naan))
    }
}

/// Steps 3 and 4 for an ARK in the spellings draft-kunze-ark-43 calls the same ARK
/// ([`Parsed::respellings`]: in normal form, §3.1–3.2; as `ark:NAAN/…`, §2.2), only where
/// the store has keys of that spelling's NAAN: an inflection on the id so spelled, else
/// its longest bound ancestor, passing through the request's own suffix (hyphens kept).
fn respelled<'a, L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    p: &'a Parsed,
    unslashed_held: Option<bool>,
) -> Result<Option<Found<'a>>, LookupError> {
    if !may_be_respelled(l, key, p, unslashed_held)? {
        return Ok(None);
    }
    for q in p.respellings() {
        if !may_have_authority(l, &q.norm)? {
            continue;
        }
        if let Some((base_len, infl)) = inflection_suffix(&q.norm) {
            if let Some(v) = target_of(l, key, &q.norm[..base_len])? {
                let base = q.norm[..base_len].to_string();
                return Ok(Some(Found::exact(
                    Cow::Owned(base),
                    v,
                    infl,
                    By::DraftSpelling,
                )));
            }
        }
        if let Some(found) = chop::chop(l, key, &q, None)? {
            let Found {
                root, value, via, ..
            } = found;
            let suffix = noid_core::unescape::flex_decode(p.tail_of(&q, root.len()));
            return Ok(Some(Found {
                root: Cow::Owned(root.into_owned()),
                value,
                suffix,
                via,
                by: By::DraftSpelling,
            }));
        }
    }
    Ok(None)
}

/// The key a level of `p` (`p.norm[..n]`) has in the rules table and the registry:
/// level keys are prefixes of `norm`, already canonical but for DOI case.
pub(super) fn level_key<'a>(p: &Parsed, k: &'a str) -> Cow<'a, str> {
    match p.family {
        Family::Doi => Cow::Owned(format!("doi:{}", k[4..].to_uppercase())),
        _ => Cow::Borrowed(k),
    }
}

/// Whether the store may have keys under `id`'s scheme and authority (`ark:13030/`,
/// `doi:10.5072/`): a spelling no key uses needs no lookup. Ids without both say yes.
/// Whether [`respelled`] may find anything: not for an id that is no ARK, nor (most
/// misses) for a plain `ark:/NAAN/…` (no hyphen, no `%`) of a store without
/// `ark:NAAN/…` keys, whose only other spelling holds nothing. A byte search and the
/// prefix check step 2 made (`unslashed_held`), else one cached prefix check, before
/// any other spelling is built.
fn may_be_respelled<L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    p: &Parsed,
    unslashed_held: Option<bool>,
) -> Result<bool, LookupError> {
    let (Family::Ark, Some(naan)) = (p.family, p.naan()) else {
        return Ok(false);
    };
    let Some(part) = p
        .norm
        .strip_prefix("ark:/")
        .and_then(|r| r.get(naan.len()..))
    else {
        return Ok(true);
    };
    // A byte loop (a searcher's set-up costs more on a short part).
    if part.bytes().any(|b| matches!(b, b'%' | b'-' | 0xE2)) {
        return Ok(true);
    }
    if let Some(held) = unslashed_held {
        return Ok(held);
    }
    key.clear();
    key.extend_from_slice(b"ark:");
    key.extend_from_slice(naan.as_bytes());
    key.push(b'/');
    l.may_have_prefix(key)
}

fn may_have_authority<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<bool, LookupError> {
    // Byte searches (`:` and `/` are ASCII): this runs for every candidate spelling.
    let Some(colon) = memchr::memchr(b':', id.as_bytes()) else {
        return Ok(true);
    };
    let after = &id.as_bytes()[colon + 1..];
    let skip = usize::from(after.first() == Some(&b'/'));
    match memchr::memchr(b'/', &after[skip..]) {
        Some(slash) => l.may_have_prefix(&id.as_bytes()[..colon + 1 + skip + slash + 1]),
        None => Ok(true),
    }
}
