//! How egg's elements sit in noid's key space.
//!
//! An element's first value is stored where every noid reader looks for it,
//! `ID<TAB>ELEM` (so `noid get`, `noid fetch` and the resolver see it, and a `_t` bound
//! either way resolves at once). Egg keeps further values of the same element
//! ("duplicates") in insertion order; they go under the reserved element space
//! (`:/` names, which noid hides and refuses to bind), as
//! `ID<TAB>:/d/ELEM<TAB>NNNNNNNNNN` with a ten-digit sequence number. An element name
//! may itself hold a tab, so a duplicate key is read from its fixed-width end.
//!
//! The first bind to an identifier also stores EggNog's admin elements `_,ep`
//! (permissions, `p:AGENT||76`) and `_,ec` (creation time, epoch seconds); reads hide
//! them unless asked for all elements. Noid's own records under an identifier
//! (circulation `:/c`, hold `:/h`, last write `:/m`, pepper `:/p`) belong to the minter
//! and are never shown, counted or purged here.

use noid_core::keys;
use noid_core::{Lookup, LookupError};
use noid_minter::Txn;

/// The admin element holding an identifier's permissions.
pub const PERMS: &str = "_,ep";
/// The admin element holding an identifier's creation time.
pub const CREATED: &str = "_,ec";

/// Prefix of duplicate values within an identifier's keys.
const DUPE: &str = ":/d/";
/// Width of a duplicate's sequence number.
const SEQ_WIDTH: usize = 10;

/// Whether reads hide `elem` unless all elements are asked for (EggNog's
/// `(?:__m|_[.,]e)[cp]`).
pub fn is_admin(elem: &str) -> bool {
    matches!(elem, "__mc" | "__mp" | "_.ec" | "_.ep" | "_,ec" | "_,ep")
}

/// Whether `elem` (the part of a key after `ID<TAB>`) is one of noid's minter records.
fn is_minter_record(elem: &[u8]) -> bool {
    elem.starts_with(b":/") && !elem.starts_with(DUPE.as_bytes())
}

/// The element a key holds a value of, from the part of the key after `ID<TAB>`: `ELEM`
/// for a duplicate's `:/d/ELEM<TAB>NNNNNNNNNN`, the part itself otherwise (an element's
/// first value, or one of noid's minter records such as `:/c`).
pub fn element_of(elem: &[u8]) -> &[u8] {
    match elem.strip_prefix(DUPE.as_bytes()) {
        Some(d) if d.len() > SEQ_WIDTH => &d[..d.len() - SEQ_WIDTH - 1],
        _ => elem,
    }
}

/// One stored value of an element: its key (for removal) and bytes.
pub type Stored = (Vec<u8>, Vec<u8>);

/// The values of `elem` under `id`, first value first, duplicates in insertion order.
pub fn values<L: Lookup + ?Sized>(l: &L, id: &str, elem: &str) -> Result<Vec<Stored>, LookupError> {
    let mut out = Vec::new();
    let first = keys::elem(id, elem);
    if let Some(v) = l.get(&first)? {
        out.push((first, v));
    }
    let prefix = dupe_prefix(id, elem);
    for (k, v) in l.scan_prefix(&prefix, usize::MAX)? {
        if k.len() == prefix.len() + SEQ_WIDTH {
            out.push((k, v));
        }
    }
    Ok(out)
}

/// Every key under one identifier, read with one prefix scan: a write needs the
/// element's values and whether the admin elements exist, and one scan costs less than
/// the point reads and scans that would find them separately.
pub struct IdKeys {
    id: String,
    rows: Vec<Stored>,
}

impl IdKeys {
    /// Read every key under `id`.
    pub fn read<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<IdKeys, LookupError> {
        Ok(IdKeys {
            id: id.to_string(),
            rows: l.scan_prefix(&keys::id_prefix(id), usize::MAX)?,
        })
    }

    /// The values of `elem`, first value first, duplicates in insertion order.
    pub fn values(&self, elem: &str) -> Vec<&Stored> {
        let first = keys::elem(&self.id, elem);
        let prefix = dupe_prefix(&self.id, elem);
        let mut out: Vec<&Stored> = self.rows.iter().filter(|(k, _)| *k == first).collect();
        out.extend(
            self.rows
                .iter()
                .filter(|(k, _)| k.starts_with(&prefix) && k.len() == prefix.len() + SEQ_WIDTH),
        );
        out
    }

    /// Whether the admin elements were stored (by the identifier's first egg write).
    pub fn has_admin(&self) -> bool {
        let k = keys::elem(&self.id, PERMS);
        self.rows.iter().any(|(key, _)| *key == k)
    }
}

/// Every element under `id` as (name, value), names in byte order and each name's
/// values in insertion order; noid's minter records left out.
pub fn all<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<Vec<(String, Vec<u8>)>, LookupError> {
    let prefix = keys::id_prefix(id);
    let mut firsts: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let mut dupes: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = Vec::new();
    for (k, v) in l.scan_prefix(&prefix, usize::MAX)? {
        let elem = &k[prefix.len()..];
        if let Some(d) = elem.strip_prefix(DUPE.as_bytes()) {
            if d.len() > SEQ_WIDTH {
                let (name, seq) = d.split_at(d.len() - SEQ_WIDTH - 1);
                dupes.push((name.to_vec(), seq.to_vec(), v));
            }
        } else if !is_minter_record(elem) {
            firsts.push((elem.to_vec(), v));
        }
    }
    // Each element's first value sorts before its duplicates (an empty sequence).
    let mut rows: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = firsts
        .into_iter()
        .map(|(name, v)| (name, Vec::new(), v))
        .chain(dupes)
        .collect();
    rows.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    Ok(rows
        .into_iter()
        .map(|(name, _, v)| (String::from_utf8_lossy(&name).into_owned(), v))
        .collect())
}

/// Whether anything (an element, an admin element) is bound under `id`.
pub fn id_exists<L: Lookup + ?Sized>(l: &L, id: &str) -> Result<bool, LookupError> {
    let prefix = keys::id_prefix(id);
    // At most four minter records (`:/c`, `:/h`, `:/m`, `:/p`) can come before a binding.
    Ok(l.scan_prefix(&prefix, 5)?
        .iter()
        .any(|(k, _)| !is_minter_record(&k[prefix.len()..])))
}

/// What `list` and `next` found: identifiers in key order, and their bindings.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The identifiers.
    pub ids: Vec<String>,
    /// Their bindings (values, duplicates included; admin elements only when counted).
    pub bindings: usize,
}

/// Keys read by the first scan of a listing; each further scan reads four times more.
const LIST_SCAN: usize = 1024;

/// Which identifiers a listing finds, and what it counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct Counted {
    /// Count the admin elements among the bindings.
    pub admin: bool,
    /// Find the identifiers with a circulation record (`ID<TAB>:/c`: issued by the
    /// minter whose directory this is), each counted once, instead of those with
    /// bindings.
    pub circulated: bool,
}

/// Up to `max` (all when `None`) identifiers with bindings, after `after` when given,
/// starting with one of `prefixes` (any when empty), in key order without repeats.
/// Noid's admin keys (`:/…`) name no identifier; an identifier with minter records
/// only (minted, never bound) is not listed unless `counted.circulated` asks for the
/// minted identifiers. The store is read by prefix scans from each prefix's start, so
/// `next` costs the keys before `after` too.
pub fn list<L: Lookup + ?Sized>(
    l: &L,
    prefixes: &[String],
    after: Option<&str>,
    max: Option<usize>,
    counted: Counted,
) -> Result<Listing, LookupError> {
    let all = [String::new()];
    let prefixes = if prefixes.is_empty() {
        &all[..]
    } else {
        prefixes
    };
    let mut found: Vec<(String, usize)> = Vec::new();
    for p in prefixes {
        let want = max.map(|m| m.saturating_sub(found.len()));
        if want == Some(0) {
            break;
        }
        for (id, n) in ids_under(l, p, after, want, counted)? {
            if !found.iter().any(|(f, _)| *f == id) {
                found.push((id, n));
            }
        }
    }
    if let Some(m) = max {
        found.truncate(m);
    }
    Ok(Listing {
        bindings: found.iter().map(|(_, n)| n).sum(),
        ids: found.into_iter().map(|(id, _)| id).collect(),
    })
}

/// Up to `want` identifiers starting with `prefix` (after `after`), with their binding
/// counts: scans that grow until they hold `want` whole identifiers or the prefix's end.
fn ids_under<L: Lookup + ?Sized>(
    l: &L,
    prefix: &str,
    after: Option<&str>,
    want: Option<usize>,
    counted: Counted,
) -> Result<Vec<(String, usize)>, LookupError> {
    let mut limit = if want.is_some() {
        LIST_SCAN
    } else {
        usize::MAX
    };
    loop {
        let rows = l.scan_prefix(prefix.as_bytes(), limit)?;
        let complete = rows.len() < limit;
        let mut ids: Vec<(String, usize, bool)> = Vec::new();
        for (k, _) in &rows {
            let Some(tab) = k.iter().position(|&c| c == b'\t') else {
                continue;
            };
            let (id, elem) = (&k[..tab], &k[tab + 1..]);
            let wanted = if counted.circulated {
                elem == keys::CIRC.as_bytes()
            } else {
                !is_minter_record(elem)
            };
            if id.starts_with(b":/") || !wanted {
                continue;
            }
            let id = String::from_utf8_lossy(id);
            if after.is_some_and(|a| id.as_ref() <= a) {
                continue;
            }
            let counted =
                counted.circulated || counted.admin || !is_admin(&String::from_utf8_lossy(elem));
            match ids.last_mut() {
                Some((last, n, _)) if *last == id => *n += usize::from(counted),
                _ => ids.push((id.into_owned(), usize::from(counted), true)),
            }
        }
        if !complete {
            // The last identifier may have more keys beyond this scan.
            if let Some(last) = ids.last_mut() {
                last.2 = false;
            }
        }
        let whole = ids.iter().filter(|(_, _, w)| *w).count();
        if complete || want.is_some_and(|w| whole >= w) {
            let mut out: Vec<(String, usize)> = ids
                .into_iter()
                .filter(|(_, _, w)| *w)
                .map(|(id, n, _)| (id, n))
                .collect();
            if let Some(w) = want {
                out.truncate(w);
            }
            return Ok(out);
        }
        limit = limit.saturating_mul(4);
    }
}

/// Remove `found` (an element's values); returns (values removed, their octets).
pub fn remove<L: Lookup + ?Sized>(txn: &mut Txn<'_, L>, found: &[&Stored]) -> (usize, usize) {
    let octets = found.iter().map(|(_, v)| v.len()).sum();
    for (k, _) in found {
        txn.delete(k.clone());
    }
    (found.len(), octets)
}

/// Append `value` to `elem`'s values `found` (as its first value when there are none).
pub fn append<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    id: &str,
    elem: &str,
    found: &[&Stored],
    value: &[u8],
) {
    let key = match found.last() {
        None => keys::elem(id, elem),
        Some((last, _)) => {
            let prefix = dupe_prefix(id, elem);
            let seq = if last.len() == prefix.len() + SEQ_WIDTH {
                std::str::from_utf8(&last[prefix.len()..])
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .unwrap_or(0)
            } else {
                0
            };
            let mut k = prefix;
            k.extend_from_slice(format!("{:0w$}", seq + 1, w = SEQ_WIDTH).as_bytes());
            k
        }
    };
    txn.put(key, value);
}

/// Remove every key under `id` except noid's minter records; returns how many elements
/// (values, admin elements included) were removed.
pub fn purge<L: Lookup + ?Sized>(txn: &mut Txn<'_, L>, id: &str) -> Result<usize, LookupError> {
    let prefix = keys::id_prefix(id);
    let mut n = 0;
    for (k, _) in txn.scan_prefix(&prefix, usize::MAX)? {
        if !is_minter_record(&k[prefix.len()..]) {
            txn.delete(k);
            n += 1;
        }
    }
    Ok(n)
}

/// Store the admin elements on an identifier's first binding (`view` read before it).
pub fn init_admin<L: Lookup + ?Sized>(txn: &mut Txn<'_, L>, view: &IdKeys, who: &str, now: i64) {
    if !view.has_admin() {
        txn.put(keys::elem(&view.id, PERMS), format!("p:{who}||76"));
        txn.put(keys::elem(&view.id, CREATED), now.to_string());
    }
}

/// `ID<TAB>:/d/ELEM<TAB>`: the keys of `elem`'s duplicates start with it.
fn dupe_prefix(id: &str, elem: &str) -> Vec<u8> {
    let mut k = keys::elem(id, DUPE);
    k.extend_from_slice(elem.as_bytes());
    k.push(b'\t');
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::MemLookup;

    #[test]
    fn every_value_key_names_its_element() {
        let m = MemLookup::new();
        let mut t = Txn::new(&m);
        for (e, v) in [("a\tb", "1"), ("a\tb", "2"), ("a\tb", "3"), ("bar", "4")] {
            let view = IdKeys::read(&t, "foo").unwrap();
            append(&mut t, "foo", e, &view.values(e), v.as_bytes());
        }
        t.put(keys::circ("foo"), "i|x");
        let named: Vec<(Vec<u8>, Vec<u8>)> = t
            .scan_prefix(b"foo\t", usize::MAX)
            .unwrap()
            .into_iter()
            .map(|(k, v)| (element_of(&k[4..]).to_vec(), v))
            .collect();
        let want: [(&[u8], &[u8]); 5] = [
            (b":/c", b"i|x"),
            (b"a\tb", b"2"),
            (b"a\tb", b"3"),
            (b"a\tb", b"1"),
            (b"bar", b"4"),
        ];
        assert_eq!(named, want.map(|(e, v)| (e.to_vec(), v.to_vec())).to_vec());
        // A key under the duplicates' prefix too short to hold a sequence names itself.
        assert_eq!(element_of(b":/d/x"), b":/d/x");
    }

    #[test]
    fn duplicates_follow_the_first_value_in_order() {
        let m = MemLookup::new();
        let mut t = Txn::new(&m);
        let add = |t: &mut Txn<'_, MemLookup>, e: &str, v: &str| {
            let view = IdKeys::read(&*t, "foo").unwrap();
            let found = view.values(e);
            append(t, "foo", e, &found, v.as_bytes());
        };
        for v in ["zaf", "xaf", "yaf"] {
            add(&mut t, "bar", v);
        }
        add(&mut t, "a\tb", "tab");
        add(&mut t, "a\tb", "tab2");
        add(&mut t, "a", "A");
        t.put(keys::circ("foo"), "i|x");
        let got: Vec<(String, String)> = all(&t, "foo")
            .unwrap()
            .into_iter()
            .map(|(e, v)| (e, String::from_utf8(v).unwrap()))
            .collect();
        let want = [
            ("a", "A"),
            ("a\tb", "tab"),
            ("a\tb", "tab2"),
            ("bar", "zaf"),
            ("bar", "xaf"),
            ("bar", "yaf"),
        ];
        assert_eq!(
            got,
            want.map(|(e, v)| (e.to_string(), v.to_string())).to_vec()
        );
        // noid readers see the first value where they always look.
        assert_eq!(t.get(b"foo\tbar").unwrap().unwrap(), b"zaf");
        assert_eq!(values(&t, "foo", "a").unwrap().len(), 1);
        let view = IdKeys::read(&t, "foo").unwrap();
        assert_eq!(view.values("bar").len(), 3);
        assert_eq!(remove(&mut t, &view.values("bar")), (3, 9));
        assert_eq!(purge(&mut t, "foo").unwrap(), 3);
        assert!(!id_exists(&t, "foo").unwrap());
        assert_eq!(t.get(&keys::circ("foo")).unwrap().unwrap(), b"i|x");
    }

    #[test]
    fn a_listing_finds_bound_or_else_issued_identifiers() {
        // A minter's directory: `a` issued only, `b` issued and bound, `c` bound only.
        let m = MemLookup::new();
        m.insert(":/oacounter", "2");
        m.insert(keys::circ("99999/fk4a"), "i|x");
        m.insert(keys::circ("99999/fk4b"), "i|x");
        m.insert(keys::elem("99999/fk4b", "_t"), "https://example.org/b");
        m.insert(keys::elem("99999/fk4b", "what"), "B");
        m.insert(keys::elem("99999/fk4c", "_t"), "https://example.org/c");
        let bound = Counted::default();
        let issued = Counted {
            circulated: true,
            ..Counted::default()
        };
        let listed = |prefixes: &[&str], after, counted| {
            let prefixes: Vec<String> = prefixes.iter().map(|p| p.to_string()).collect();
            list(&m, &prefixes, after, Some(10), counted).unwrap()
        };
        let got = listed(&[], None, bound);
        assert_eq!(
            (got.ids, got.bindings),
            (vec!["99999/fk4b".into(), "99999/fk4c".into()], 3)
        );
        let got = listed(&[], None, issued);
        assert_eq!(
            (got.ids, got.bindings),
            (vec!["99999/fk4a".into(), "99999/fk4b".into()], 2)
        );
        assert_eq!(listed(&["99999/fk4b"], None, issued).ids, ["99999/fk4b"]);
        assert_eq!(listed(&[], Some("99999/fk4a"), issued).ids, ["99999/fk4b"]);
        assert!(listed(&["13030/"], None, issued).ids.is_empty());
    }
}
