//! ARKs as noid minters store them: a minter with a NAAN issues `13030/f54x54g11`, not
//! `ark:/13030/f54x54g11`, and Apache set-ups in the noid manual strip `ark:/` before the
//! lookup. N2T-style resolution sees the full `ark:/…` form, so every lookup of an
//! `ark:/` key that misses is retried without the `ark:/` label. A store that knows
//! (`Lookup::may_have_prefix`) that it has no keys under `ark:/NAAN/`, or none under
//! `NAAN/`, is spared the lookups of that form: a chop-back through four ancestors of
//! an ARK then costs half as many lookups.

use noid_core::lookup::{Lookup, LookupError, Pairs};

const ARK: &[u8] = b"ark:/";

/// `key` without its `ark:/` label, when it has one followed by a NAAN.
fn naan_relative(key: &[u8]) -> Option<&[u8]> {
    key.strip_prefix(ARK)
        .filter(|r| r.first().is_some_and(u8::is_ascii_alphanumeric))
}

/// A [`Lookup`] that also finds `ark:/NAAN/…` keys stored as `NAAN/…`.
pub(crate) struct NoidKeys<'a, L: Lookup + ?Sized>(pub &'a L);

impl<L: Lookup + ?Sized> NoidKeys<'_, L> {
    /// Which forms of `key`, an `ark:/` key whose NAAN-relative form is `rest`, are
    /// worth a look: `ark:/NAAN/` and `NAAN/` (or `ark:/NAAN<TAB>` and `NAAN<TAB>` for
    /// the NAAN's own bindings); and the length of that NAAN part of `rest`.
    fn forms(&self, key: &[u8], rest: &[u8]) -> Result<(bool, bool, Option<usize>), LookupError> {
        Ok(match memchr::memchr2(b'/', b'\t', rest) {
            Some(i) => (
                self.0.may_have_prefix(&key[..ARK.len() + i + 1])?,
                self.0.may_have_prefix(&rest[..=i])?,
                Some(i + 1),
            ),
            None => (true, true, None),
        })
    }
}

impl<L: Lookup + ?Sized> Lookup for NoidKeys<'_, L> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        let Some(rest) = naan_relative(key) else {
            return self.0.get(key);
        };
        let (full, bare, _) = self.forms(key, rest)?;
        if full {
            if let Some(v) = self.0.get(key)? {
                return Ok(Some(v));
            }
        }
        if bare {
            return self.0.get(rest);
        }
        Ok(None)
    }

    fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
        Ok(self.0.may_have_prefix(prefix)?
            || match naan_relative(prefix) {
                Some(rest) => self.0.may_have_prefix(rest)?,
                None => false,
            })
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        let found = self.0.scan_prefix(prefix, limit)?;
        let Some(rest) = naan_relative(prefix) else {
            return Ok(found);
        };
        let mut found = merge(found, self.0.scan_prefix(rest, limit)?);
        found.truncate(limit);
        Ok(found)
    }

    /// Both forms of an `ark:/` range within one NAAN, as [`Lookup::get`] reads keys:
    /// the `ark:/` form's key where both exist.
    fn range(&self, first: &[u8], last: &[u8], limit: usize) -> Result<Option<Pairs>, LookupError> {
        let (Some(rest), Some(last_rest)) = (naan_relative(first), naan_relative(last)) else {
            return self.0.range(first, last, limit);
        };
        let (full, bare, naan) = self.forms(first, rest)?;
        if naan.is_none_or(|n| !last_rest.starts_with(&rest[..n])) {
            // Not within one NAAN: the forms to read could differ along the range.
            return Ok(None);
        }
        let read = |yes: bool, first: &[u8], last: &[u8]| match yes {
            true => self.0.range(first, last, limit),
            false => Ok(Some(Vec::new())),
        };
        let (Some(f), Some(b)) = (read(full, first, last)?, read(bare, rest, last_rest)?) else {
            return Ok(None);
        };
        let found = merge(f, b);
        Ok((found.len() <= limit).then_some(found))
    }
}

/// Pairs read in `ark:/` form and in NAAN-relative form (`NAAN/…`, given the `ark:/`
/// label here), in key order, the `ark:/` form's where both have a key.
fn merge(mut found: Pairs, relative: Pairs) -> Pairs {
    if relative.is_empty() {
        return found;
    }
    // Only one form read (a minter's store): already in order, nothing to merge.
    let sorted = found.is_empty();
    found.reserve(relative.len());
    for (k, v) in relative {
        let mut full = Vec::with_capacity(ARK.len() + k.len());
        full.extend_from_slice(ARK);
        full.extend_from_slice(&k);
        found.push((full, v));
    }
    if !sorted {
        // Stable: of two equal keys, the `ark:/` form's (pushed first) is kept.
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found.dedup_by(|a, b| a.0 == b.0);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::lookup::MemLookup;

    #[test]
    fn ark_keys_fall_back_to_naan_relative_keys() {
        let m = MemLookup::new();
        m.insert("13030/f54x54g11\t_t", "https://x");
        m.insert("ark:/13030/both\t_t", "full");
        m.insert("13030/both\t_t", "short");
        let l = NoidKeys(&m);
        assert_eq!(
            l.get(b"ark:/13030/f54x54g11\t_t").unwrap().as_deref(),
            Some(&b"https://x"[..])
        );
        assert_eq!(
            l.get(b"ark:/13030/both\t_t").unwrap().as_deref(),
            Some(&b"full"[..])
        );
        assert_eq!(l.get(b"ark:/13030/none\t_t").unwrap(), None);
        assert_eq!(l.get(b"doi:10.1/x\t_t").unwrap(), None);
        let keys: Vec<Vec<u8>> = l
            .scan_prefix(b"ark:/13030/", 10)
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(
            keys,
            vec![
                b"ark:/13030/both\t_t".to_vec(),
                b"ark:/13030/f54x54g11\t_t".to_vec()
            ]
        );
    }

    #[test]
    fn egg_resolves_noid_minted_arks_with_suffix_passthrough() {
        let m = MemLookup::new();
        m.insert("13030/f54x54g11\t_t", "https://example.org/objects/1");
        let r = crate::Resolver::default();
        let mut out = Vec::new();
        for request in [
            &b"ark:/13030/f54x54g11.resolve"[..],
            b"ark:/13030/f54x54g11/chapter/2.resolve",
            b"ark:13030/f54x54g11.resolve",
            b"ark:/13030/nope.resolve",
        ] {
            crate::egg::answer(&r, &m, request, crate::egg::Miss::Null, &mut out);
        }
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "redir302 https://example.org/objects/1\nredir302 https://example.org/objects/1/chapter/2\nredir302 https://example.org/objects/1\nNULL\n"
        );
    }

    /// A store that knows its key prefixes, counting the point lookups (and the range
    /// reads) made.
    struct Counting(MemLookup, std::cell::Cell<usize>, std::cell::Cell<usize>);

    impl Lookup for Counting {
        fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
            self.1.set(self.1.get() + 1);
            self.0.get(key)
        }
        fn range(
            &self,
            first: &[u8],
            last: &[u8],
            limit: usize,
        ) -> Result<Option<Pairs>, LookupError> {
            self.2.set(self.2.get() + 1);
            self.0.range(first, last, limit)
        }
        fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
            self.0.scan_prefix(prefix, limit)
        }
        fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
            self.0.may_have_prefix(prefix)
        }
    }

    #[test]
    fn forms_the_store_lacks_are_not_looked_up() {
        let m = MemLookup::new();
        m.insert("ark:/13030/full\t_t", "f");
        m.insert("99999/bare\t_t", "b");
        m.insert("99999\t_t", "naan");
        let l = Counting(m, Default::default(), Default::default());
        let k = NoidKeys(&l);
        let gets = |key: &str, want: Option<&str>| {
            l.1.set(0);
            assert_eq!(
                k.get(key.as_bytes()).unwrap(),
                want.map(|w| w.as_bytes().to_vec())
            );
            l.1.get()
        };
        assert_eq!(gets("ark:/13030/full\t_t", Some("f")), 1);
        assert_eq!(gets("ark:/13030/none\t_t", None), 1);
        assert_eq!(gets("ark:/99999/bare\t_t", Some("b")), 1);
        assert_eq!(gets("ark:/12345/none\t_t", None), 0);
        assert_eq!(gets("ark:/12345\t_t", None), 0);
        assert_eq!(gets("ark:/99999\t_t", Some("naan")), 1);
        assert!(k.may_have_prefix(b"ark:/99999/").unwrap());
        assert!(!k.may_have_prefix(b"ark:/12345/").unwrap());
    }

    /// A 4-level chop-back of a minted ARK: one range read (the id, its ancestors and
    /// its flag) where the store offers ranges, six point lookups where it does not.
    #[test]
    fn a_chop_back_reads_its_ancestors_as_one_range() {
        let m = MemLookup::new();
        m.insert("13030/fk4ab\t_t", "https://x");
        let l = Counting(m, Default::default(), Default::default());
        let r = crate::Resolver::default();
        let req = crate::Request::new("ark:/13030/fk4ab/c/d.e/f");
        let want = crate::Answer::Redirect {
            code: 302,
            target: "https://x/c/d.e/f".into(),
        };
        assert_eq!(r.resolve(&l, &req).unwrap(), want);
        assert_eq!((l.1.get(), l.2.get()), (0, 1));
        l.1.set(0);
        l.2.set(0);
        assert_eq!(r.resolve(&noid_core::PointLookups(&l), &req).unwrap(), want);
        assert_eq!((l.1.get(), l.2.get()), (6, 0));
    }
}
