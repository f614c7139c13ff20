//! A write transaction: reads see the store plus this transaction's own pending
//! writes, and the writes come out as one list to commit atomically.
//!
//! Operations like `mint` read what they just wrote (a counter, a queue head that was
//! deleted), so the overlay must answer reads, including prefix scans.

use std::collections::BTreeMap;
use std::ops::Bound;

use noid_resolve::{Lookup, LookupError};

/// Pending writes over a read view `L`.
pub struct Txn<'a, L: Lookup + ?Sized> {
    base: &'a L,
    /// `Some(value)` is a put, `None` a delete.
    pending: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
    /// For [`Txn::rollback_to`]: each write's key and the pending entry it replaced.
    undo: Vec<(Vec<u8>, Option<Option<Vec<u8>>>)>,
    /// Whether writes are recorded in `undo` (bulk minting turns it off and rolls back
    /// with [`Txn::clear`] instead, saving a key copy per write).
    undo_on: bool,
}

/// A point to roll back to, from [`Txn::savepoint`].
#[derive(Debug, Clone, Copy)]
pub struct Savepoint(usize);

impl<'a, L: Lookup + ?Sized> Txn<'a, L> {
    /// A new, empty transaction over `base`.
    pub fn new(base: &'a L) -> Self {
        Txn {
            base,
            pending: BTreeMap::new(),
            undo: Vec::new(),
            undo_on: true,
        }
    }

    /// The value under `key` as this transaction sees it.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        match self.pending.get(key) {
            Some(v) => Ok(v.clone()),
            None => self.base.get(key),
        }
    }

    /// The value under `key` as a (lossy) string, "" when absent.
    pub fn get_str(&self, key: &[u8]) -> Result<String, LookupError> {
        Ok(self
            .get(key)?
            .map(|v| String::from_utf8_lossy(&v).into_owned())
            .unwrap_or_default())
    }

    /// Whether `key` holds a value.
    pub fn exists(&self, key: &[u8]) -> Result<bool, LookupError> {
        Ok(self.get(key)?.is_some())
    }

    /// Set `key` to `value`.
    pub fn put(&mut self, key: Vec<u8>, value: impl Into<Vec<u8>>) {
        if self.undo_on {
            let old = self.pending.insert(key.clone(), Some(value.into()));
            self.undo.push((key, old));
        } else {
            self.pending.insert(key, Some(value.into()));
        }
    }

    /// Remove `key`.
    pub fn delete(&mut self, key: Vec<u8>) {
        if self.undo_on {
            let old = self.pending.insert(key.clone(), None);
            self.undo.push((key, old));
        } else {
            self.pending.insert(key, None);
        }
    }

    /// Record undo information for later writes (the default) or not. Without it,
    /// savepoints taken meanwhile cannot be rolled back to; use [`Txn::clear`].
    pub fn set_undo(&mut self, on: bool) {
        self.undo_on = on;
        self.undo.clear();
    }

    /// Drop every pending write.
    pub fn clear(&mut self) {
        self.pending.clear();
        self.undo.clear();
    }

    /// Mark the current state, so that a failed operation can be undone alone.
    pub fn savepoint(&self) -> Savepoint {
        Savepoint(self.undo.len())
    }

    /// Undo every write made since `sp`.
    pub fn rollback_to(&mut self, sp: Savepoint) {
        while self.undo.len() > sp.0 {
            let (key, old) = self.undo.pop().expect("undo entry");
            match old {
                Some(v) => {
                    self.pending.insert(key, v);
                }
                None => {
                    self.pending.remove(&key);
                }
            }
        }
    }

    /// Up to `limit` (key, value) pairs whose key starts with `prefix`, in key order,
    /// merging pending writes over the store.
    pub fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, LookupError> {
        let in_range = || {
            self.pending
                .range::<[u8], _>((Bound::Included(prefix), Bound::Unbounded))
                .take_while(|(k, _)| k.starts_with(prefix))
        };
        let deletes = in_range().filter(|(_, v)| v.is_none()).count();
        let base = self
            .base
            .scan_prefix(prefix, limit.saturating_add(deletes))?;
        let mut merged: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        for (k, v) in base {
            merged.insert(k, v);
        }
        for (k, v) in in_range() {
            match v {
                Some(v) => {
                    merged.insert(k.clone(), v.clone());
                }
                None => {
                    merged.remove(k);
                }
            }
        }
        Ok(merged.into_iter().take(limit).collect())
    }

    /// Number of pending writes.
    pub fn len(&self) -> usize {
        self.pending.len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.pending.is_empty()
    }

    /// Take the pending writes, in key order, leaving the transaction empty (the
    /// caller commits them; afterwards the store itself answers reads).
    pub fn take_writes(&mut self) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
        self.undo.clear();
        std::mem::take(&mut self.pending).into_iter().collect()
    }

    /// The read view under this transaction.
    pub fn base(&self) -> &'a L {
        self.base
    }
}

impl<L: Lookup + ?Sized> Lookup for Txn<'_, L> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        Txn::get(self, key)
    }

    fn scan_prefix(
        &self,
        prefix: &[u8],
        limit: usize,
    ) -> Result<Vec<(Vec<u8>, Vec<u8>)>, LookupError> {
        Txn::scan_prefix(self, prefix, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_resolve::MemLookup;

    fn base() -> MemLookup {
        let m = MemLookup::new();
        for k in ["a\t1", "a\t2", "a\t3", "a\t4", "b\t1"] {
            m.insert(k, k.to_uppercase());
        }
        m
    }

    fn keys(v: Vec<(Vec<u8>, Vec<u8>)>) -> Vec<String> {
        v.into_iter()
            .map(|(k, _)| String::from_utf8(k).unwrap())
            .collect()
    }

    #[test]
    fn reads_see_pending_writes() {
        let b = base();
        let mut t = Txn::new(&b);
        t.put(b"a\t2".to_vec(), "new");
        t.delete(b"a\t3".to_vec());
        assert_eq!(t.get(b"a\t2").unwrap().as_deref(), Some(&b"new"[..]));
        assert_eq!(t.get(b"a\t3").unwrap(), None);
        assert_eq!(t.get(b"a\t4").unwrap().as_deref(), Some(&b"A\t4"[..]));
    }

    #[test]
    fn scans_merge_deletes_and_puts_in_order() {
        let b = base();
        let mut t = Txn::new(&b);
        t.delete(b"a\t1".to_vec());
        t.delete(b"a\t2".to_vec());
        t.put(b"a\t25".to_vec(), "x");
        assert_eq!(keys(t.scan_prefix(b"a\t", 2).unwrap()), ["a\t25", "a\t3"]);
        assert_eq!(
            keys(t.scan_prefix(b"a\t", 10).unwrap()),
            ["a\t25", "a\t3", "a\t4"]
        );
        t.put(b"a\t0".to_vec(), "y");
        assert_eq!(keys(t.scan_prefix(b"a\t", 1).unwrap()), ["a\t0"]);
    }

    #[test]
    fn rollback_to_savepoint_undoes_only_later_writes() {
        let b = base();
        let mut t = Txn::new(&b);
        t.put(b"k".to_vec(), "1");
        let sp = t.savepoint();
        t.put(b"k".to_vec(), "2");
        t.delete(b"a\t1".to_vec());
        t.put(b"new".to_vec(), "3");
        t.rollback_to(sp);
        assert_eq!(t.get(b"k").unwrap().as_deref(), Some(&b"1"[..]));
        assert_eq!(t.get(b"a\t1").unwrap().as_deref(), Some(&b"A\t1"[..]));
        assert_eq!(t.get(b"new").unwrap(), None);
        assert_eq!(t.take_writes(), vec![(b"k".to_vec(), Some(b"1".to_vec()))]);
        assert!(t.is_empty());
    }
}
