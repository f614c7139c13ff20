//! Read-ahead for a writer's bulk runs: the committed keys of the identifiers the
//! coming input lines name, fetched in one query, so that a `noid -` load of a million
//! `bind`s does not pay a network round trip per read (12,852 bindings/s against
//! 318,000/s embedded, before).
//!
//! Exact because the writer holds the minter's writers' lock from open to close: no
//! other process changes the minter's keys meanwhile, so what was read stays true
//! until this writer's own commits, which [`Ahead::apply`] folds in. Uncommitted
//! writes are the transaction's overlay (noid-minter's `Txn`), never in here.

use std::collections::{BTreeMap, HashSet};
use std::ops::Bound;

use crate::Op;
use noid_core::Pairs;

/// Identifiers fetched at most per read-ahead: bounds the memory held (a bulk run's
/// input buffer names fewer).
pub(crate) const MAX_IDS: usize = 20_000;

/// The committed keys of some identifiers, each identifier's all or none.
#[derive(Default)]
pub(crate) struct Ahead {
    /// The `ID<TAB>` prefixes whose every committed key is in `values`.
    ids: HashSet<Vec<u8>>,
    values: BTreeMap<Vec<u8>, Vec<u8>>,
}

/// The `ID<TAB>` that starts `key`, if it has a tab.
pub(crate) fn id_prefix(key: &[u8]) -> Option<&[u8]> {
    let tab = key.iter().position(|&b| b == b'\t')?;
    Some(&key[..=tab])
}

/// The exclusive upper bound of the keys starting with an `ID<TAB>` prefix: the tab
/// raised to the next byte.
pub(crate) fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    if let Some(last) = end.last_mut() {
        *last += 1;
    }
    end
}

impl Ahead {
    /// Replace what is held by the identifiers `prefixes` (`ID<TAB>` each) and their
    /// committed keys `rows`, as one query read them.
    pub(crate) fn load(&mut self, prefixes: Vec<Vec<u8>>, rows: Pairs) {
        self.ids = prefixes.into_iter().collect();
        self.values = rows.into_iter().collect();
    }

    /// Forget everything (after a commit that failed, whose outcome is unknown).
    pub(crate) fn clear(&mut self) {
        self.ids.clear();
        self.values.clear();
    }

    /// The committed value of `key`: `Some(None)` known absent, `None` not known here.
    pub(crate) fn get(&self, key: &[u8]) -> Option<Option<Vec<u8>>> {
        let id = id_prefix(key)?;
        self.ids.contains(id).then(|| self.values.get(key).cloned())
    }

    /// Up to `limit` committed pairs starting with `prefix`, when `prefix` lies within
    /// one identifier held here (it starts with a held `ID<TAB>`); `None` otherwise.
    pub(crate) fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Option<Pairs> {
        if !self.ids.contains(id_prefix(prefix)?) {
            return None;
        }
        let pairs = self
            .values
            .range::<[u8], _>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(|(k, _)| k.starts_with(prefix))
            .take(limit)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Some(pairs)
    }

    /// Fold in the writes of a commit that succeeded.
    pub(crate) fn apply(&mut self, ops: &[Op]) {
        if self.ids.is_empty() {
            return;
        }
        for op in ops {
            let key = match op {
                Op::Put(k, _) | Op::Delete(k) => k,
            };
            if !id_prefix(key).is_some_and(|id| self.ids.contains(id)) {
                continue;
            }
            match op {
                Op::Put(k, v) => {
                    self.values.insert(k.clone(), v.clone());
                }
                Op::Delete(k) => {
                    self.values.remove(k);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held() -> Ahead {
        let mut a = Ahead::default();
        a.load(
            vec![b"x1\t".to_vec(), b"x2\t".to_vec()],
            vec![(b"x1\t_t".to_vec(), b"u".to_vec())],
        );
        a
    }

    #[test]
    fn answers_only_for_identifiers_held() {
        let a = held();
        assert_eq!(a.get(b"x1\t_t"), Some(Some(b"u".to_vec())));
        assert_eq!(a.get(b"x1\t:/c"), Some(None));
        assert_eq!(a.get(b"x2\t_t"), Some(None));
        assert_eq!(a.get(b"x3\t_t"), None);
        assert_eq!(a.get(b":/oacounter"), None);
        assert_eq!(a.scan_prefix(b"x1\t", 10).unwrap().len(), 1);
        assert_eq!(a.scan_prefix(b"x1", 10), None);
        assert_eq!(a.scan_prefix(b"x3\t", 10), None);
        assert_eq!(prefix_end(b"x1\t"), b"x1\n");
    }

    #[test]
    fn commits_are_folded_in() {
        let mut a = held();
        a.apply(&[
            Op::Delete(b"x1\t_t".to_vec()),
            Op::Put(b"x2\t_t".to_vec(), b"v".to_vec()),
            Op::Put(b"x3\t_t".to_vec(), b"w".to_vec()),
        ]);
        assert_eq!(a.get(b"x1\t_t"), Some(None));
        assert_eq!(a.get(b"x2\t_t"), Some(Some(b"v".to_vec())));
        assert_eq!(a.get(b"x3\t_t"), None);
        a.clear();
        assert_eq!(a.get(b"x2\t_t"), None);
    }
}
