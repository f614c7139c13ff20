//! ARKs as noid minters store them: a minter with a NAAN issues `13030/f54x54g11`, not
//! `ark:/13030/f54x54g11`, and Apache set-ups in the noid manual strip `ark:/` before the
//! lookup. N2T-style resolution sees the full `ark:/…` form, so every lookup of an
//! `ark:/` key that misses is retried without the `ark:/` label.

use crate::lookup::{Lookup, LookupError};

const ARK: &[u8] = b"ark:/";

/// A [`Lookup`] that also finds `ark:/NAAN/…` keys stored as `NAAN/…`.
pub(crate) struct NoidKeys<'a, L: Lookup + ?Sized>(pub &'a L);

impl<L: Lookup + ?Sized> Lookup for NoidKeys<'_, L> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        match self.0.get(key)? {
            Some(v) => Ok(Some(v)),
            None => match key.strip_prefix(ARK) {
                Some(rest) if rest.first().is_some_and(u8::is_ascii_alphanumeric) => {
                    self.0.get(rest)
                }
                _ => Ok(None),
            },
        }
    }

    fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, LookupError> {
        let mut found = self.0.scan_prefix(prefix, limit)?;
        let Some(rest) = prefix
            .strip_prefix(ARK)
            .filter(|r| r.first().is_some_and(u8::is_ascii_alphanumeric))
        else {
            return Ok(found);
        };
        for (k, v) in self.0.scan_prefix(rest, limit)? {
            let mut full = ARK.to_vec();
            full.extend_from_slice(&k);
            found.push((full, v));
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        found.dedup_by(|a, b| a.0 == b.0);
        found.truncate(limit);
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lookup::MemLookup;

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
        crate::egg::answer(
            &r,
            &m,
            b"ark:/13030/f54x54g11.resolve",
            crate::egg::Miss::Null,
            &mut out,
        );
        crate::egg::answer(
            &r,
            &m,
            b"ark:/13030/f54x54g11/chapter/2.resolve",
            crate::egg::Miss::Null,
            &mut out,
        );
        crate::egg::answer(
            &r,
            &m,
            b"ark:13030/f54x54g11.resolve",
            crate::egg::Miss::Null,
            &mut out,
        );
        crate::egg::answer(
            &r,
            &m,
            b"ark:/13030/nope.resolve",
            crate::egg::Miss::Null,
            &mut out,
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "redir302 https://example.org/objects/1\nredir302 https://example.org/objects/1/chapter/2\nredir302 https://example.org/objects/1\nNULL\n"
        );
    }
}
