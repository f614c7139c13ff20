//! A write transaction: reads see the store plus this transaction's own pending
//! writes, and the writes come out as one list to commit atomically.
//!
//! Operations like `mint` read what they just wrote (a counter, a queue head that was
//! deleted), so the overlay must answer reads, including prefix scans.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ops::Bound;

use noid_core::{Lookup, LookupError};

/// Pending writes over a read view `L`.
pub struct Txn<'a, L: Lookup + ?Sized> {
    base: &'a L,
    /// `Some(value)` is a put, `None` a delete.
    pending: RefCell<BTreeMap<Vec<u8>, Option<Vec<u8>>>>,
    /// Puts of keys known to be new, from [`Txn::put_new`], older than anything in
    /// `pending`. A large mint writes a million of them and reads none back; appending
    /// to a list instead of inserting into the ordered map halves minting time. Any
    /// read first moves them into `pending` ([`Txn::settle`]).
    appended: RefCell<Vec<(Vec<u8>, Vec<u8>)>>,
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
            pending: RefCell::new(BTreeMap::new()),
            appended: RefCell::new(Vec::new()),
            undo: Vec::new(),
            undo_on: true,
        }
    }

    /// The value under `key` as this transaction sees it.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        self.settle();
        match self.pending.borrow().get(key) {
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
        let pending = self.pending.get_mut();
        if self.undo_on {
            let old = pending.insert(key.clone(), Some(value.into()));
            self.undo.push((key, old));
        } else {
            pending.insert(key, Some(value.into()));
        }
    }

    /// Set `key`, which the caller knows is neither stored nor pending, to `value`.
    ///
    /// The fast path of minting a fresh candidate (see `noid_core::keys::name::FRESH`); where undo is
    /// recorded it is an ordinary [`Txn::put`].
    pub fn put_new(&mut self, key: Vec<u8>, value: impl Into<Vec<u8>>) {
        if self.undo_on {
            self.put(key, value);
        } else {
            self.appended.get_mut().push((key, value.into()));
        }
    }

    /// Remove `key`.
    pub fn delete(&mut self, key: Vec<u8>) {
        let pending = self.pending.get_mut();
        if self.undo_on {
            let old = pending.insert(key.clone(), None);
            self.undo.push((key, old));
        } else {
            pending.insert(key, None);
        }
    }

    /// Move the appended puts into `pending`, where reads find them. A key written
    /// since (already in `pending`) keeps its newer value.
    fn settle(&self) {
        if self.appended.borrow().is_empty() {
            return;
        }
        let appended = std::mem::take(&mut *self.appended.borrow_mut());
        let mut pending = self.pending.borrow_mut();
        for (k, v) in appended {
            pending.entry(k).or_insert(Some(v));
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
        self.pending.get_mut().clear();
        self.appended.get_mut().clear();
        self.undo.clear();
    }

    /// Mark the current state, so that a failed operation can be undone alone.
    pub fn savepoint(&self) -> Savepoint {
        // Appended puts carry no undo records: settle them so none can be lost by a
        // rollback of a later write to the same key.
        self.settle();
        Savepoint(self.undo.len())
    }

    /// Undo every write made since `sp`.
    pub fn rollback_to(&mut self, sp: Savepoint) {
        self.settle();
        let pending = self.pending.get_mut();
        while self.undo.len() > sp.0 {
            let (key, old) = self.undo.pop().expect("undo entry");
            match old {
                Some(v) => {
                    pending.insert(key, v);
                }
                None => {
                    pending.remove(&key);
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
        self.settle();
        let pending = self.pending.borrow();
        let in_range = || {
            pending
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

    /// Number of pending writes (a key written twice may count twice).
    pub fn len(&self) -> usize {
        self.pending.borrow().len() + self.appended.borrow().len()
    }

    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Take the pending writes in key order, one per key, leaving the transaction
    /// empty (the caller commits them as one batch; afterwards the store itself
    /// answers reads).
    pub fn take_writes(&mut self) -> Vec<(Vec<u8>, Option<Vec<u8>>)> {
        self.undo.clear();
        let mut appended = std::mem::take(self.appended.get_mut());
        sort_distinct_keys(&mut appended);
        let pending = std::mem::take(self.pending.get_mut());
        let mut writes = Vec::with_capacity(appended.len() + pending.len());
        let mut appended = appended.into_iter().peekable();
        for (k, v) in pending {
            while let Some((a, _)) = appended.peek() {
                match a.cmp(&k) {
                    std::cmp::Ordering::Less => {
                        let (a, av) = appended.next().expect("peeked");
                        writes.push((a, Some(av)));
                    }
                    // A pending write is newer than an appended one.
                    std::cmp::Ordering::Equal => {
                        appended.next();
                        break;
                    }
                    std::cmp::Ordering::Greater => break,
                }
            }
            writes.push((k, v));
        }
        writes.extend(appended.map(|(k, v)| (k, Some(v))));
        writes
    }

    /// The read view under this transaction.
    pub fn base(&self) -> &'a L {
        self.base
    }
}

/// Sort (key, value) pairs whose keys are all different by key.
///
/// A million minted keys share a long prefix (`13030/f5…`) and live all over the heap.
/// Sorting small (next sixteen bytes after the prefix, position) pairs settles nearly
/// every comparison without touching a key, and moves less than the pairs themselves.
fn sort_distinct_keys(kv: &mut Vec<(Vec<u8>, Vec<u8>)>) {
    let Some(first) = kv.first().map(|(k, _)| k.clone()) else {
        return;
    };
    let common = kv.iter().fold(first.len(), |n, (k, _)| {
        n.min(k.iter().zip(&first).take_while(|(a, b)| a == b).count())
    });
    let mut order: Vec<(u128, u32)> = kv
        .iter()
        .enumerate()
        .map(|(i, (k, _))| {
            let mut w = [0u8; 16];
            let tail = &k[common..];
            let n = tail.len().min(16);
            w[..n].copy_from_slice(&tail[..n]);
            (u128::from_be_bytes(w), i as u32)
        })
        .collect();
    order.sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| kv[a.1 as usize].0.cmp(&kv[b.1 as usize].0))
    });
    let mut slots: Vec<Option<(Vec<u8>, Vec<u8>)>> = kv.drain(..).map(Some).collect();
    kv.extend(
        order
            .iter()
            .map(|&(_, i)| slots[i as usize].take().expect("each position once")),
    );
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
    use noid_core::MemLookup;

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

    #[test]
    fn appended_puts_are_read_back_and_older_than_later_writes() {
        let b = base();
        let mut t = Txn::new(&b);
        t.set_undo(false);
        t.put_new(b"z\t:/c".to_vec(), "i");
        t.put_new(b"c\t:/c".to_vec(), "i");
        t.put_new(b"a\t0".to_vec(), "first");
        assert_eq!(t.len(), 3);
        // A later write of the same key wins, before and after a read settles them.
        t.put(b"c\t:/c".to_vec(), "q");
        assert_eq!(t.get(b"z\t:/c").unwrap().as_deref(), Some(&b"i"[..]));
        assert_eq!(t.get(b"c\t:/c").unwrap().as_deref(), Some(&b"q"[..]));
        t.put_new(b"b\t:/c".to_vec(), "i");
        assert_eq!(keys(t.scan_prefix(b"a\t", 2).unwrap()), ["a\t0", "a\t1"]);
        t.put_new(b"m".to_vec(), "1");
        t.put_new(b"aa".to_vec(), "2");
        t.delete(b"m".to_vec());
        assert_eq!(
            t.take_writes(),
            vec![
                (b"a\t0".to_vec(), Some(b"first".to_vec())),
                (b"aa".to_vec(), Some(b"2".to_vec())),
                (b"b\t:/c".to_vec(), Some(b"i".to_vec())),
                (b"c\t:/c".to_vec(), Some(b"q".to_vec())),
                (b"m".to_vec(), None),
                (b"z\t:/c".to_vec(), Some(b"i".to_vec())),
            ]
        );
        assert!(t.is_empty());
    }

    #[test]
    fn a_savepoint_keeps_appended_puts_through_a_rollback() {
        let b = base();
        let mut t = Txn::new(&b);
        t.set_undo(false);
        t.put_new(b"k".to_vec(), "minted");
        t.set_undo(true);
        let sp = t.savepoint();
        t.put(b"k".to_vec(), "changed");
        t.rollback_to(sp);
        assert_eq!(t.get(b"k").unwrap().as_deref(), Some(&b"minted"[..]));
    }

    #[test]
    fn distinct_keys_sort_bytewise_whatever_their_prefixes() {
        let mut kv: Vec<(Vec<u8>, Vec<u8>)> = [
            "13030/f5b\t:/h",
            "13030/f5b\t:/c",
            "13030/f5a0123456789abcdef9",
            "13030/f5a0123456789abcdef1",
            "13030/f5",
            "13030/f5a",
        ]
        .iter()
        .map(|k| (k.as_bytes().to_vec(), Vec::new()))
        .collect();
        let mut want: Vec<Vec<u8>> = kv.iter().map(|(k, _)| k.clone()).collect();
        want.sort();
        sort_distinct_keys(&mut kv);
        assert_eq!(kv.into_iter().map(|(k, _)| k).collect::<Vec<_>>(), want);
    }
}
