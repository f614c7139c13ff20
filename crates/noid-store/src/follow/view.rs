//! One opened view of the store as resolution sees it: the secondary, and the answers
//! cached for its current view.

use std::sync::Arc;

use noid_core::keys::is_idmap_key;
use noid_core::{Kept, Lookup, LookupError, Memo, Pairs};

use super::answer_region::{AnswerRegion, RegionCache, ViewId};
use super::shared_cache::SharedCache;
use super::view_cache::ViewCache;
use crate::rocks::secondary::Secondary;

/// Most cached `:idmap` rule lists (one per element asked for).
const IDMAP_CACHE_MAX: usize = 1024;

/// Most cached answers to "is any key under this prefix?" (one per ARK NAAN asked for).
const PREFIX_CACHE_MAX: usize = 4096;

/// Most cached point reads per thread (about 150 bytes each for an identifier's
/// target: some 20 MB when full).
const VALUE_CACHE_MAX: usize = 1 << 17;

/// Most whole answers kept per thread ([`View::memo`]; about 200 bytes each for a
/// request line and its answer line: some 25 MB when full).
const MEMO_MAX: usize = 1 << 17;

/// Longest value a point read keeps in the cache; longer ones (metadata records) are
/// read from RocksDB each time.
const VALUE_CACHE_MAX_LEN: usize = 1024;

/// An opened store, read through caches that are valid for one view of it.
///
/// Every miss consults the `:idmap` rules of `_t` (a prefix scan, several times the
/// cost of a point lookup), and resolution asks which key forms the store has
/// ([`Lookup::may_have_prefix`]). Both change rarely, and the secondary's view changes
/// only when it catches up, so both answers are kept until the view moves.
///
/// Point reads are kept too: a RocksDB `Get` costs some 8,600 instructions even when
/// every block it needs is cached (levels, filters, index and data-block searches),
/// a hash look-up a few hundred. Behind Apache's `prg:` every lookup is serialised for
/// the whole server, so a request for an identifier asked for before (the usual case:
/// popular identifiers are asked for again and again) should cost as little as
/// possible. A write that a catch-up brings (the sequence number moves) empties them.
pub struct View {
    secondary: Secondary,
    /// Point reads (present or absent) by key.
    values: ViewCache<Vec<u8>, Option<Vec<u8>>>,
    /// `:idmap` rule lists by (prefix, limit).
    idmap: ViewCache<(Vec<u8>, usize), Pairs>,
    /// [`Lookup::may_have_prefix`] answers.
    prefixes: ViewCache<Vec<u8>, bool>,
    /// The callers' whole answers ([`View::memo`]), per thread or shared.
    answers: Answers,
    /// Behind `answers`: the answers of every process of a web server.
    region: Option<RegionCache>,
}

/// Where [`View::memo`] keeps answers.
enum Answers {
    /// Boxed: a `ViewCache` is some 500 bytes (its `ThreadLocal` table).
    PerThread(Box<ViewCache<Vec<u8>, Arc<Kept>>>),
    Shared(SharedCache<Arc<Kept>>),
}

/// How many point reads and whole answers a view keeps per thread (each cache is per
/// thread, so a process's bound is this times its request threads), or the whole
/// answers it keeps for all threads at once; and the answers it shares with other
/// processes, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadCache {
    /// When set: whole answers also kept in memory shared with the web server's other
    /// worker processes ([`AnswerRegion`]), found there when this process has not
    /// computed them itself.
    pub region: Option<AnswerRegion>,
    /// Most point reads kept per thread.
    pub values: usize,
    /// Most whole answers kept per thread ([`View::memo`]).
    pub answers: usize,
    /// When not 0: [`View::memo`] keeps at most this many answers for all the process's
    /// threads together (for a web server's many request threads, which would rarely
    /// find an answer in caches of their own), instead of `answers` per thread.
    pub shared_answers: usize,
}

impl Default for ThreadCache {
    /// Room for the hot set of a large minter, for a resolver with a few threads
    /// (`noidr`: some 45 MB per thread when full).
    fn default() -> ThreadCache {
        ThreadCache {
            values: VALUE_CACHE_MAX,
            answers: MEMO_MAX,
            shared_answers: 0,
            region: None,
        }
    }
}

impl View {
    /// `secondary`, with empty caches of the default sizes.
    pub fn new(secondary: Secondary) -> View {
        View::with_cache(secondary, ThreadCache::default())
    }

    /// `secondary`, with empty caches of at most `cache` entries per thread.
    pub fn with_cache(secondary: Secondary, cache: ThreadCache) -> View {
        View {
            secondary,
            values: ViewCache::new(cache.values),
            idmap: ViewCache::new(IDMAP_CACHE_MAX),
            prefixes: ViewCache::new(PREFIX_CACHE_MAX),
            answers: match cache.shared_answers {
                0 => Answers::PerThread(Box::new(ViewCache::new(cache.answers))),
                n => Answers::Shared(SharedCache::new(n)),
            },
            region: cache.region.map(RegionCache::new),
        }
    }

    /// The answer kept for `key`, or `compute`'s, kept (`Ok`) or not (`Err`): for an
    /// answer computed from nothing but this view and `key` (a resolver's answer line
    /// to a request line, `key` naming everything else it depends on). Kept per thread
    /// until the view moves, as point reads are; an answer computed while a catch-up
    /// brought a write is not kept.
    ///
    /// A request asked before then costs a hash look-up and a copy instead of its
    /// parse, resolution and rendering (some 3,000 instructions, and the code and data
    /// they touch, which a web server's other work has pushed out of the caches).
    pub fn memo<E>(
        &self,
        key: &[u8],
        compute: impl FnOnce() -> Result<Arc<Kept>, E>,
    ) -> Result<Arc<Kept>, E> {
        let compute = || match &self.region {
            None => compute(),
            Some(region) => region.get_or_compute(|| self.view_id(), key, compute),
        };
        match &self.answers {
            Answers::PerThread(c) => c.get_or_compute(|| self.epoch(), key, compute),
            Answers::Shared(c) => c.get_or_compute(|| self.epoch(), key, compute),
        }
    }

    /// The secondary read through the caches.
    pub fn secondary(&self) -> &Secondary {
        &self.secondary
    }

    /// The caches' epoch: the sequence number of the newest write in this view.
    fn epoch(&self) -> u64 {
        self.secondary.latest_sequence()
    }

    /// The epoch as other processes can compare it: with the store's identity (their
    /// views may be of a store replaced since).
    fn view_id(&self) -> ViewId {
        ViewId {
            store: self.secondary.store_id(),
            sequence: self.epoch(),
        }
    }
}

impl Memo for View {
    /// [`View::memo`].
    fn memo<E>(
        &self,
        key: &[u8],
        compute: impl FnOnce() -> Result<Arc<Kept>, E>,
    ) -> Result<Arc<Kept>, E> {
        View::memo(self, key, compute)
    }
}

impl Lookup for View {
    /// From the cache, or one RocksDB read (kept when short).
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        self.values.get_or_compute_kept(
            || self.epoch(),
            key,
            || Lookup::get(&self.secondary, key),
            |v| v.as_ref().is_none_or(|v| v.len() <= VALUE_CACHE_MAX_LEN),
        )
    }

    /// One prefix seek per prefix and view, then a hash look-up.
    fn may_have_prefix(&self, prefix: &[u8]) -> Result<bool, LookupError> {
        self.prefixes.get_or_compute(
            || self.epoch(),
            prefix,
            || Ok(!Lookup::scan_prefix(&self.secondary, prefix, 1)?.is_empty()),
        )
    }

    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        if !is_idmap_key(prefix) {
            return Lookup::scan_prefix(&self.secondary, prefix, limit);
        }
        self.idmap.get_or_compute(
            || self.epoch(),
            &(prefix.to_vec(), limit),
            || Lookup::scan_prefix(&self.secondary, prefix, limit),
        )
    }

    fn range(&self, first: &[u8], last: &[u8], limit: usize) -> Result<Option<Pairs>, LookupError> {
        Lookup::range(&self.secondary, first, last, limit)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use noid_core::Lookup;

    use super::*;
    use crate::{Freshness, Op, Writer};

    fn put(k: &str, v: &str) -> Op {
        Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
    }

    fn commit(dbdir: &std::path::Path, ops: Vec<Op>) {
        let w = Writer::open(dbdir, Duration::from_secs(5)).unwrap();
        w.commit(ops).unwrap();
    }

    fn open() -> (tempfile::TempDir, View) {
        let d = tempfile::tempdir().unwrap();
        drop(Writer::create(d.path(), Duration::from_secs(5)).unwrap());
        commit(
            d.path(),
            vec![put(":/idmap/_t\t^a", "x"), put("ark:/13030/fk4\t_t", "t")],
        );
        let view = View::new(Secondary::open(d.path(), None, 1 << 20).unwrap());
        (d, view)
    }

    /// Two views on one region stand for two worker processes: what one computed the
    /// other finds without computing, until its view moves; a view of another store at
    /// the same sequence number never takes it.
    #[test]
    fn views_sharing_a_region_find_each_others_answers_of_the_same_view() {
        let (d, _) = open();
        let mut memory = vec![0u64; AnswerRegion::bytes_for(64) / 8];
        // SAFETY: zeroed, 8-aligned, outlives the views (dropped first), used by them only.
        let region = unsafe { AnswerRegion::new(memory.as_mut_ptr().cast(), memory.len() * 8) };
        let cache = ThreadCache {
            shared_answers: 16,
            region,
            ..ThreadCache::default()
        };
        let view = || View::with_cache(Secondary::open(d.path(), None, 1 << 20).unwrap(), cache);
        let (one, two) = (view(), view());
        let ask = |v: &View, answer: Option<&str>| {
            v.memo(b"k", || answer.map(|a| Kept::new(a.as_bytes())).ok_or(()))
                .ok()
                .map(|a| String::from_utf8(a.to_vec()).unwrap())
        };
        assert_eq!(ask(&one, Some("a")).as_deref(), Some("a"));
        assert_eq!(
            ask(&two, None).as_deref(),
            Some("a"),
            "computed by the other"
        );

        commit(d.path(), vec![put("ark:/13030/fk4\t_t", "t2")]);
        assert_eq!(two.secondary().freshen().unwrap(), Freshness::CaughtUp);
        assert_eq!(ask(&two, None), None, "a later view computes again");
        assert_eq!(ask(&two, Some("b")).as_deref(), Some("b"));
        assert_eq!(
            ask(&one, None).as_deref(),
            Some("a"),
            "one's view has not moved"
        );
        assert_eq!(one.secondary().freshen().unwrap(), Freshness::CaughtUp);
        assert_eq!(ask(&one, None).as_deref(), Some("b"));

        // Another store at the same sequence number: its own answers.
        let other = tempfile::tempdir().unwrap();
        drop(Writer::create(other.path(), Duration::from_secs(5)).unwrap());
        commit(
            other.path(),
            vec![put(":/idmap/_t\t^a", "x"), put("ark:/13030/fk4\t_t", "t")],
        );
        commit(other.path(), vec![put("ark:/13030/fk4\t_t", "t2")]);
        let three = View::with_cache(Secondary::open(other.path(), None, 1 << 20).unwrap(), cache);
        assert_eq!(three.epoch(), two.epoch(), "the same sequence number");
        assert_eq!(ask(&three, None), None);
        drop((one, two, three));
        drop(memory);
    }

    #[test]
    fn cached_answers_last_until_the_view_catches_up() {
        let (d, view) = open();
        let rules = |v: &View| v.scan_prefix(b":/idmap/_t\t", 10).unwrap();
        assert_eq!(
            rules(&view),
            vec![(b":/idmap/_t\t^a".to_vec(), b"x".to_vec())]
        );
        assert!(view.may_have_prefix(b"ark:/13030/").unwrap());
        assert!(!view.may_have_prefix(b"ark:/99999/").unwrap());

        commit(
            d.path(),
            vec![put(":/idmap/_t\t^b", "y"), put("ark:/99999/q\t_t", "u")],
        );
        // Not caught up yet: the same view, the same answers.
        assert_eq!(rules(&view).len(), 1);
        assert!(!view.may_have_prefix(b"ark:/99999/").unwrap());

        assert_eq!(view.secondary().freshen().unwrap(), Freshness::CaughtUp);
        assert_eq!(rules(&view).len(), 2);
        assert!(view.may_have_prefix(b"ark:/99999/").unwrap());
    }

    #[test]
    fn point_reads_are_kept_until_the_view_catches_up() {
        let (d, view) = open();
        let key = b"ark:/13030/fk4\t_t";
        let long = "x".repeat(VALUE_CACHE_MAX_LEN + 1);
        commit(d.path(), vec![put("big\t_t", &long)]);
        assert_eq!(view.secondary().freshen().unwrap(), Freshness::CaughtUp);
        assert_eq!(view.get(key).unwrap().as_deref(), Some(&b"t"[..]));
        assert_eq!(view.get(b"absent").unwrap(), None);
        assert_eq!(view.get(b"big\t_t").unwrap().unwrap().len(), long.len());

        commit(
            d.path(),
            vec![put("ark:/13030/fk4\t_t", "t2"), put("absent", "now")],
        );
        // Not caught up: the view has not moved, and neither have its answers.
        assert_eq!(view.get(key).unwrap().as_deref(), Some(&b"t"[..]));
        assert_eq!(view.get(b"absent").unwrap(), None);

        assert_eq!(view.secondary().freshen().unwrap(), Freshness::CaughtUp);
        assert_eq!(view.get(key).unwrap().as_deref(), Some(&b"t2"[..]));
        assert_eq!(view.get(b"absent").unwrap().as_deref(), Some(&b"now"[..]));
    }

    #[test]
    fn answers_are_kept_until_the_view_catches_up_and_failures_are_not() {
        let (d, view) = open();
        let computed = std::cell::Cell::new(0);
        let answer = |key: &[u8]| {
            view.memo(key, || {
                computed.set(computed.get() + 1);
                let v = view.get(b"ark:/13030/fk4\t_t").unwrap().unwrap();
                if key == b"fail" {
                    return Err(v);
                }
                Ok(Kept::new([key, b"=", &v[..]].concat()))
            })
        };
        assert_eq!(&**answer(b"a").unwrap(), b"a=t");
        assert_eq!(&**answer(b"a").unwrap(), b"a=t");
        assert_eq!(answer(b"fail").unwrap_err(), b"t");
        assert_eq!(answer(b"fail").unwrap_err(), b"t");
        assert_eq!(computed.get(), 3, "one computation for a, two for fail");

        commit(d.path(), vec![put("ark:/13030/fk4\t_t", "t2")]);
        // Not caught up: the kept answer stands.
        assert_eq!(&**answer(b"a").unwrap(), b"a=t");
        assert_eq!(view.secondary().freshen().unwrap(), Freshness::CaughtUp);
        assert_eq!(&**answer(b"a").unwrap(), b"a=t2");
        assert_eq!(computed.get(), 4);
    }

    #[test]
    fn other_lookups_pass_through() {
        let (_d, view) = open();
        assert_eq!(
            view.get(b"ark:/13030/fk4\t_t").unwrap().as_deref(),
            Some(&b"t"[..])
        );
        assert_eq!(view.get(b"ark:/13030/fk5\t_t").unwrap(), None);
        assert_eq!(
            view.scan_prefix(b"ark:", 10).unwrap(),
            vec![(b"ark:/13030/fk4\t_t".to_vec(), b"t".to_vec())]
        );
        assert_eq!(
            view.range(b"ark:/13030/fk4", b"ark:/13030/fk4/a\t_t", 8)
                .unwrap(),
            Some(vec![(b"ark:/13030/fk4\t_t".to_vec(), b"t".to_vec())])
        );
    }
}
