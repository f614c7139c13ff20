//! Step 4, ancestor chopping (EggNog's `suffix_pass` + `indb_chopback`): which
//! ancestors of an id to try, how to read them (one key range where the store offers
//! it), and whether the longest bound one passes its suffix through.

use std::borrow::Cow;

use super::answer::{By, Found, Via};
use super::{flag_is_n, target_of, ANCESTOR_MATCH, TARGET};
use noid_core::ident::{is_word, Parsed};
use noid_core::keys;
use noid_core::lookup::{Lookup, LookupError, RangeRead, Ranged};

/// Above this many ancestor lookups (ancestors not read as one range), one prefix seek
/// first checks that anything at all is bound under the non-choppable start. A
/// bloom-filtered miss costs a fraction of a seek, so short ids skip the seek and long
/// garbage ids cannot cost many lookups.
const PREFIX_CHECK_ABOVE: usize = 8;

/// The ancestors of an id to try, longest first, and whether the store read their keys
/// as one range (then the [`Ranged`] lookup in use answers them).
pub(super) struct Candidates {
    lens: Vec<usize>,
    ranged: bool,
}

/// An id's parse and ancestors, made before step 1 when it likely has ancestors.
pub(super) struct Ahead {
    pub(super) parsed: Parsed,
    pub(super) candidates: Candidates,
}

/// Step 4 ahead of its turn, for an id that likely has ancestors to chop back to
/// ([`may_have_ancestors`]): its parse and candidates, and, where the store offers
/// ranges, every key from the shortest candidate to the whole id's `_t` read as one
/// range. The lookups of those keys, the verbatim one of step 1 included, are then
/// answered from that read ([`Ranged`]): a chop-back costs one seek.
///
/// Inlined: its result (a parse and a range read, mostly empty) is then built where
/// `resolve` keeps it instead of being copied there on every request.
#[inline]
pub(super) fn read_ahead<L: Lookup + ?Sized>(
    l: &L,
    id: &str,
) -> Result<(Option<Ahead>, Option<RangeRead>), LookupError> {
    if !may_have_ancestors(id) {
        return Ok((None, None));
    }
    let parsed = Parsed::new(id);
    let lens = chop_candidates(&parsed);
    let read = read_ancestors(l, &parsed, &lens, parsed.norm == id)?;
    let candidates = Candidates {
        ranged: read.is_some(),
        lens,
    };
    Ok((Some(Ahead { parsed, candidates }), read))
}

/// Ancestor chopping (EggNog's `suffix_pass` + `indb_chopback`), with the candidates
/// (and their range read) from before step 1 if they were made there.
pub(super) fn chop<'a, L: Lookup + ?Sized>(
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
        suffix: noid_core::unescape::flex_decode(&p.norm[len..]),
        via: Via::Ancestor,
        by: By::Ancestor,
    }))
}
