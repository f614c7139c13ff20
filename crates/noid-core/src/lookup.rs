//! Read access to a minter's key space, the only thing resolution needs from storage.
//!
//! The trait is deliberately tiny (point get plus a bounded prefix scan) so that the
//! RocksDB store, an in-memory map in tests, or anything else can serve resolution
//! without this crate knowing about files, locks or RocksDB.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

/// (key, value) pairs in key order, as prefix scans and range reads return them.
pub type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

/// Whole answers kept for the view a [`Lookup`] reads: a line protocol's answer to a
/// request line, computed from nothing but that view and the key (the key names
/// everything else the answer depends on), kept until the view moves. The line
/// protocols (noid-resolve's `lines`) answer through it; noid-store's followed view
/// implements it.
pub trait Memo {
    /// The answer kept for `key`, or `compute`'s, kept (`Ok`) or not (`Err`).
    fn memo<E>(
        &self,
        key: &[u8],
        compute: impl FnOnce() -> Result<Arc<Kept>, E>,
    ) -> Result<Arc<Kept>, E>;
}

/// A whole answer a [`Memo`] keeps, and how often it has been given since its uses
/// were last taken, by class of asker (person, robot).
///
/// Why the uses live here: the resolution counts (noid-counts) of a request answered
/// from the memo are then one atomic increment in the answer the memo already found,
/// where counting it apart would take a second hash and table look-up of the
/// identifier: a repeat costs some 950 instructions in all, and counting must stay
/// within 3 % of that (docs/COUNTS.md, "What counting costs"). A counter registers
/// each kept answer once ([`Kept::watch`]) with the identifier and kind it counts as,
/// and takes its uses at each flush ([`Kept::take_uses`]); without counting, nothing
/// reads or writes them.
pub struct Kept {
    bytes: Box<[u8]>,
    uses: [AtomicU64; 2],
    watched: AtomicBool,
}

impl Kept {
    /// `bytes` kept, not used yet.
    pub fn new(bytes: impl Into<Box<[u8]>>) -> Arc<Kept> {
        Arc::new(Kept {
            bytes: bytes.into(),
            uses: [AtomicU64::new(0), AtomicU64::new(0)],
            watched: AtomicBool::new(false),
        })
    }

    /// One more use by an asker of `class` (0: a person, 1: a robot).
    #[inline]
    pub fn add_use(&self, class: usize) {
        self.uses[class & 1].fetch_add(1, Ordering::Relaxed);
    }

    /// The uses by class not taken yet.
    pub fn uses(&self) -> [u64; 2] {
        self.uses.each_ref().map(|u| u.load(Ordering::Relaxed))
    }

    /// The uses by class since the last call, leaving none.
    pub fn take_uses(&self) -> [u64; 2] {
        self.uses.each_ref().map(|u| u.swap(0, Ordering::Relaxed))
    }

    /// True only the first time it is called: the caller is the one counter that
    /// must register this answer (its uses are taken by nobody else).
    #[inline]
    pub fn watch(&self) -> bool {
        !self.watched.load(Ordering::Relaxed) && !self.watched.swap(true, Ordering::Relaxed)
    }
}

impl std::ops::Deref for Kept {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl fmt::Debug for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kept")
            .field("bytes", &String::from_utf8_lossy(&self.bytes))
            .field("uses", &self.uses)
            .finish()
    }
}

/// Read access to the minter's key space.
///
/// Keys are Perl Noid's: `ID\tELEM` for bindings, `:/idmap/ELEM\tPATTERN` for rules,
/// `:/...` for admin values. Implementations must be usable from many threads at once
/// when the HTTP server shares one store between its workers.
pub trait Lookup {
    /// The value stored under `key`, or `None` when the key is absent.
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError>;

    /// Up to `limit` (key, value) pairs whose key starts with `prefix`, in bytewise key order.
    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError>;

    /// False only if no key starts with `prefix` for certain; a hint that lets
    /// resolution skip lookups of a key form the store does not use. The default knows
    /// nothing and says true; a store that can answer cheaply (from a cache) overrides it.
    fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
        let _ = prefix;
        Ok(true)
    }

    /// Every (key, value) with `first <= key <= last`, in key order, when there are at
    /// most `limit` of them and the store reads them as one range for less than the
    /// point lookups of the keys the caller wants; `None` otherwise, and then the caller
    /// looks its keys up one by one. The default declines.
    fn range(&self, first: &[u8], last: &[u8], limit: usize) -> Result<Option<Pairs>, LookupError> {
        let _ = (first, last, limit);
        Ok(None)
    }
}

/// `Lookup` through a pointer to one: every method is the pointee's.
macro_rules! forward_lookup {
    ($t:ident => $pointer:ty) => {
        impl<$t: Lookup + ?Sized> Lookup for $pointer {
            fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
                (**self).get(key)
            }
            fn range(
                &self,
                first: &[u8],
                last: &[u8],
                limit: usize,
            ) -> Result<Option<Pairs>, LookupError> {
                (**self).range(first, last, limit)
            }
            fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
                (**self).may_have_prefix(prefix)
            }
            fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
                (**self).scan_prefix(prefix, limit)
            }
        }
    };
}

forward_lookup!(T => &T);
forward_lookup!(T => std::sync::Arc<T>);

/// Why a read of the key space failed. Callers render it as one `error: …` answer line
/// (line protocols) or a 500 (HTTP); its text says what failed and, for a failed read,
/// which key.
///
/// One pointer wide: every lookup returns a `Result` with it, so a larger error would
/// make every hit copy more bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LookupError(Box<LookupFailure>);

/// What failed, as [`LookupError::failure`] tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LookupFailure {
    /// The store cannot be read at all: it could not be opened (wrong Dbdir, not created
    /// yet) or the resolver is exiting. The text says why.
    Unavailable(String),
    /// The store failed to read a key (I/O error, corrupt data …).
    Read {
        /// The key read, or the first key of the prefix or range read.
        key: Vec<u8>,
        /// The store's message.
        cause: String,
    },
    /// The store failed outside a read of one key (a catch-up with the writers …).
    Store(String),
}

impl LookupError {
    /// The store cannot be read at all, for the reason given.
    pub fn unavailable(why: impl Into<String>) -> LookupError {
        LookupError(Box::new(LookupFailure::Unavailable(why.into())))
    }

    /// The store failed to read `key` (or the prefix or range starting there).
    pub fn read(key: &[u8], cause: impl fmt::Display) -> LookupError {
        LookupError(Box::new(LookupFailure::Read {
            key: key.to_vec(),
            cause: cause.to_string(),
        }))
    }

    /// The store failed outside a read of one key.
    pub fn store(cause: impl fmt::Display) -> LookupError {
        LookupError(Box::new(LookupFailure::Store(cause.to_string())))
    }

    /// What failed.
    pub fn failure(&self) -> &LookupFailure {
        &self.0
    }
}

impl fmt::Display for LookupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &*self.0 {
            LookupFailure::Unavailable(why) | LookupFailure::Store(why) => f.write_str(why),
            LookupFailure::Read { key, cause } => {
                write!(f, "reading {:?}: {cause}", String::from_utf8_lossy(key))
            }
        }
    }
}

impl std::error::Error for LookupError {}

/// An in-memory [`Lookup`] over a sorted map, for tests and examples of the crates that
/// build on this one (no RocksDB needed).
///
/// Interior mutability lets a test change bindings while a resolver holds a shared
/// reference, as a `noid bind` would under a running daemon.
#[derive(Debug, Default)]
pub struct MemLookup {
    map: RwLock<BTreeMap<Vec<u8>, Vec<u8>>>,
}

impl MemLookup {
    /// An empty key space.
    pub fn new() -> Self {
        Self::default()
    }

    /// Store `value` under the raw `key`.
    pub fn insert(&self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.as_ref().to_vec(), value.as_ref().to_vec());
    }

    /// Bind `value` to element `elem` of identifier `id` (key `ID\tELEM`), as `noid bind set` does.
    pub fn bind(&self, id: &str, elem: &str, value: impl AsRef<[u8]>) {
        self.insert(crate::keys::elem(id, elem), value);
    }

    /// Store an `:idmap` rule as `noid bind set :idmap/PATTERN ELEM VALUE` does
    /// (key `:/idmap/ELEM\tPATTERN`).
    pub fn bind_idmap(&self, pattern: &str, elem: &str, replacement: &str) {
        self.insert(crate::keys::idmap(elem, pattern), replacement);
    }

    /// Remove the raw `key`.
    pub fn remove(&self, key: impl AsRef<[u8]>) {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key.as_ref());
    }
}

impl Lookup for MemLookup {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        Ok(self
            .map
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned())
    }

    /// Exact, so that every test over a `MemLookup` runs with the lookups that
    /// [`Lookup::may_have_prefix`] lets resolution skip actually skipped.
    fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
        Ok(!self.scan_prefix(prefix, 1)?.is_empty())
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        Ok(map
            .range(prefix.to_vec()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .take(limit)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    /// Always answers (within `limit`), so that tests over a `MemLookup` take the range
    /// path where resolution has one; [`PointLookups`] hides it for the other path.
    fn range(&self, first: &[u8], last: &[u8], limit: usize) -> Result<Option<Pairs>, LookupError> {
        if first > last {
            return Ok(Some(Vec::new()));
        }
        let map = self.map.read().unwrap_or_else(|e| e.into_inner());
        let found: Vec<_> = map
            .range(first.to_vec()..=last.to_vec())
            .take(limit + 1)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok((found.len() <= limit).then_some(found))
    }
}

/// A store whose [`Lookup::may_have_prefix`] answers exactly, with a one-key scan: for
/// a one-off resolution (`noid explain`, `noid rules test`) over a store that cannot
/// tell and says yes (a snapshot), which would make forwarding's loop protection take
/// every NAAN for one served here, where a running resolver's view asks the store.
#[derive(Debug)]
pub struct ExactPrefixes<'a, L: ?Sized>(pub &'a L);

impl<L: Lookup + ?Sized> Lookup for ExactPrefixes<'_, L> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        self.0.get(key)
    }
    fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
        Ok(!self.0.scan_prefix(prefix, 1)?.is_empty())
    }
    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        self.0.scan_prefix(prefix, limit)
    }
    fn range(&self, first: &[u8], last: &[u8], limit: usize) -> Result<Option<Pairs>, LookupError> {
        self.0.range(first, last, limit)
    }
}

/// A [`Lookup`] without range reads: resolution then looks every key up by itself, as
/// over a store that declines them. Tests run resolutions both ways.
#[derive(Debug)]
pub struct PointLookups<L>(pub L);

impl<L: Lookup> Lookup for PointLookups<L> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        self.0.get(key)
    }
    fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
        self.0.may_have_prefix(prefix)
    }
    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        self.0.scan_prefix(prefix, limit)
    }
}

/// Every key between `first` and `last` (both included), as one [`Lookup::range`] read
/// them.
pub struct RangeRead {
    /// The first key of the range.
    pub first: Vec<u8>,
    /// The last key of the range.
    pub last: Vec<u8>,
    /// Every pair in the range, in key order.
    pub pairs: Pairs,
}

/// A [`Lookup`] that answers keys within a range already read from that read, and every
/// other request from the store: resolution then uses a range read wherever it would
/// look a key up, with no separate code path.
pub struct Ranged<'a, L: ?Sized> {
    /// The store asked for every key outside the range.
    pub l: &'a L,
    /// The range already read, if any.
    pub read: Option<RangeRead>,
}

impl<L: Lookup + ?Sized> Lookup for Ranged<'_, L> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        match &self.read {
            Some(r) if r.first.as_slice() <= key && key <= r.last.as_slice() => Ok(r
                .pairs
                .binary_search_by(|(k, _)| k.as_slice().cmp(key))
                .ok()
                .map(|i| r.pairs[i].1.clone())),
            _ => self.l.get(key),
        }
    }
    fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
        self.l.may_have_prefix(prefix)
    }
    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        self.l.scan_prefix(prefix, limit)
    }
    fn range(&self, first: &[u8], last: &[u8], limit: usize) -> Result<Option<Pairs>, LookupError> {
        self.l.range(first, last, limit)
    }
}

/// Perl truthiness of a stored value: `""` and `"0"` count as unbound, as in Noid's fetch/get.
pub fn is_truthy(value: &[u8]) -> bool {
    !(value.is_empty() || value == b"0")
}
