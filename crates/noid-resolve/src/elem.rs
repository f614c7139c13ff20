//! The value of one element of one identifier, as Perl Noid's `fetch`/`get` compute it:
//! a truthy stored value first, else the `:idmap` rules.
//!
//! Shared by `noid fetch/get` in the CLI and by the noid line protocol of `noidr`, so both
//! answer the same thing for the same store.

use crate::idmap;
use noid_core::keys;
use noid_core::lookup::{is_truthy, Lookup, LookupError};

/// Where an element value came from; `fetch` prints `note: previous result produced by
/// :idmap` after a mapped value, so callers need to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// Bound under `ID\tELEM`.
    Stored,
    /// Computed by an `:idmap` rule of the element.
    Idmap,
}

/// An element value and its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElemValue {
    /// The value bytes (stored values may be any bytes).
    pub value: Vec<u8>,
    /// Stored binding or `:idmap` result.
    pub source: Source,
}

/// The value of `elem` under `id`: the stored value if it is truthy (Perl truthiness: `""`
/// and `"0"` count as absent), else the first `:idmap` rule of `elem` that maps `id`, else
/// `None`.
pub fn elem_value<L: Lookup + ?Sized>(
    l: &L,
    id: &str,
    elem: &str,
) -> Result<Option<ElemValue>, LookupError> {
    let mut key = Vec::new();
    keys::elem_into(&mut key, id, elem);
    if let Some(v) = l.get(&key)? {
        if is_truthy(&v) {
            return Ok(Some(ElemValue {
                value: v,
                source: Source::Stored,
            }));
        }
    }
    Ok(idmap::map_id(l, id, elem)?.map(|value| ElemValue {
        value,
        source: Source::Idmap,
    }))
}

/// The identifier a read names: `given`, or the part before its last `!` when `given` is
/// the peppered form `ID!PEPPER` and PEPPER is ID's stored pepper. Reads accept either
/// form (docs/COMPATIBILITY.md); changes insist on the peppered one (noid-minter's
/// `pepper::authorize`). Costs a lookup only for an identifier with a `!` in it.
pub fn read_id<'a, L: Lookup + ?Sized>(l: &L, given: &'a str) -> Result<&'a str, LookupError> {
    // Every read passes here: a vectorised byte search, not a `char` pattern.
    if let Some(bang) = memchr::memrchr(b'!', given.as_bytes()) {
        let (base, pepper) = (&given[..bang], &given[bang + 1..]);
        if l.get(&keys::pepper(base))?.as_deref() == Some(pepper.as_bytes()) {
            return Ok(base);
        }
    }
    Ok(given)
}

/// All elements bound under `id`, in bytewise element order, without Noid's admin
/// elements (`:/c` circulation, `:/h` hold, `:/p` pepper). Used by `get ID` with no
/// element and by metadata answers.
pub fn bindings<L: Lookup + ?Sized>(
    l: &L,
    id: &str,
    limit: usize,
) -> Result<Vec<(String, Vec<u8>)>, LookupError> {
    let prefix = keys::id_prefix(id);
    let rows = l.scan_prefix(&prefix, limit)?;
    Ok(rows
        .into_iter()
        .filter_map(|(k, v)| {
            let elem = &k[prefix.len()..];
            if keys::is_admin_elem(elem) {
                return None;
            }
            Some((String::from_utf8_lossy(elem).into_owned(), v))
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::lookup::MemLookup;

    #[test]
    fn stored_truthy_value_wins_over_idmap() {
        let l = MemLookup::new();
        l.bind_idmap("^ft", "redirect", "g7h");
        l.bind("ft1", "redirect", "stored");
        let v = elem_value(&l, "ft1", "redirect").unwrap().unwrap();
        assert_eq!(v.value, b"stored");
        assert_eq!(v.source, Source::Stored);
    }

    #[test]
    fn falsy_stored_values_fall_back_to_idmap() {
        let l = MemLookup::new();
        l.bind_idmap("^ft", "redirect", "g7h");
        l.bind("ft0", "redirect", "0");
        l.bind("ft2", "redirect", "");
        for id in ["ft0", "ft2", "ft89xr2t"] {
            let v = elem_value(&l, id, "redirect").unwrap().unwrap();
            assert_eq!(v.source, Source::Idmap, "{id}");
        }
        assert_eq!(
            elem_value(&l, "ft89xr2t", "redirect")
                .unwrap()
                .unwrap()
                .value,
            b"g7h89xr2t"
        );
    }

    #[test]
    fn conformance_idmap_groups() {
        let l = MemLookup::new();
        l.bind_idmap("^ft([^x]+)x(.*)", "my_elem", "$2/g7h/$1");
        let v = elem_value(&l, "ft89xr2t", "my_elem").unwrap().unwrap();
        assert_eq!(v.value, b"r2t/g7h/89");
    }

    #[test]
    fn unbound_is_none() {
        let l = MemLookup::new();
        l.bind("a", "x", "1");
        assert_eq!(elem_value(&l, "a", "y").unwrap(), None);
        assert_eq!(elem_value(&l, "b", "x").unwrap(), None);
    }

    #[test]
    fn bindings_skip_admin_elements_and_other_ids() {
        let l = MemLookup::new();
        l.bind("a", ":/c", "i|2026|me|1");
        l.bind("a", "who", "W");
        l.bind("a", "_t", "T");
        l.bind("ab", "who", "other id");
        let b = bindings(&l, "a", 100).unwrap();
        assert_eq!(
            b,
            vec![
                ("_t".to_string(), b"T".to_vec()),
                ("who".to_string(), b"W".to_vec())
            ]
        );
    }
}
