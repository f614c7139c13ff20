//! Answers computed from one view of the store, kept until the view moves.

use std::borrow::Borrow;
use std::cell::RefCell;
use std::hash::{BuildHasher, Hash};

use hashbrown::hash_table::{Entry, HashTable};
use thread_local::ThreadLocal;

/// Answers computed from a secondary's view of the store, kept until a catch-up brings
/// a write (the view's sequence number, the *epoch*, moves); emptied when it reaches
/// its bound.
///
/// Each thread keeps its own map, so that a look-up touches no memory another thread
/// writes (see ARCHITECTURE.md, "Performance"). A key is hashed once per call, for the
/// look-up and for the insertion of a computed answer alike (a `HashMap` hashes it
/// again to insert): a request asked for the first time passes through two or three
/// of these caches.
pub(crate) struct ViewCache<K: Send, V: Send> {
    maps: ThreadLocal<RefCell<EpochMap<K, V>>>,
    max: usize,
    hasher: foldhash::fast::RandomState,
}

/// One thread's answers, valid for one view (the sequence number of its newest write).
struct EpochMap<K, V> {
    epoch: u64,
    map: HashTable<(K, V)>,
}

impl<K: Hash + Eq + Send, V: Clone + Send> ViewCache<K, V> {
    /// An empty cache of at most `max` answers per thread.
    pub(crate) fn new(max: usize) -> Self {
        ViewCache {
            maps: ThreadLocal::new(),
            max,
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// The cached answer for `key`, or `compute`'s. An answer computed while a catch-up
    /// brought a write (`epoch()` moved) may describe the older view and is not kept.
    ///
    /// The epoch is read at every call, not kept from an earlier catch-up: a request
    /// on another thread could otherwise run between a catch-up and the moment the
    /// cache learns of it, and read new values next to cached old ones.
    pub(crate) fn get_or_compute<Q, E>(
        &self,
        epoch: impl Fn() -> u64,
        key: &Q,
        compute: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        self.get_or_compute_kept(epoch, key, compute, |_| true)
    }

    /// As [`ViewCache::get_or_compute`], keeping a computed answer only when `keep`
    /// says so (large values are not worth their memory).
    pub(crate) fn get_or_compute_kept<Q, E>(
        &self,
        epoch: impl Fn() -> u64,
        key: &Q,
        compute: impl FnOnce() -> Result<V, E>,
        keep: impl FnOnce(&V) -> bool,
    ) -> Result<V, E>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let started = epoch();
        // `K: Borrow<Q>` promises that a key and its borrowed form hash alike.
        let hash = self.hasher.hash_one(key);
        let cell = self.maps.get_or(|| {
            RefCell::new(EpochMap {
                epoch: started,
                map: HashTable::new(),
            })
        });
        {
            let mut mine = cell.borrow_mut();
            if mine.epoch != started {
                mine.epoch = started;
                mine.map.clear();
            }
            if let Some((_, v)) = mine.map.find(hash, |(k, _)| k.borrow() == key) {
                return Ok(v.clone());
            }
        }
        let v = compute()?;
        if !keep(&v) {
            return Ok(v);
        }
        let mut mine = cell.borrow_mut();
        if epoch() == started && mine.epoch == started {
            if mine.map.len() >= self.max {
                mine.map.clear();
            }
            // `compute` may have kept the same key already (a nested call): one
            // answer per key, as a `HashMap` keeps it.
            let hasher = &self.hasher;
            let entry = mine.map.entry(
                hash,
                |(k, _)| k.borrow() == key,
                |(k, _)| hasher.hash_one(k),
            );
            if let Entry::Vacant(vacant) = entry {
                vacant.insert((key.to_owned(), v.clone()));
            }
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// A cache of `String -> usize` whose computations are counted.
    struct Counted {
        cache: ViewCache<String, usize>,
        computed: Cell<usize>,
    }

    impl Counted {
        fn new(max: usize) -> Counted {
            Counted {
                cache: ViewCache::new(max),
                computed: Cell::new(0),
            }
        }

        fn get(&self, epoch: u64, key: &str) -> usize {
            self.cache
                .get_or_compute(
                    || epoch,
                    key,
                    || {
                        self.computed.set(self.computed.get() + 1);
                        Ok::<_, ()>(key.len() + epoch as usize * 100)
                    },
                )
                .unwrap()
        }
    }

    #[test]
    fn answers_are_kept_within_an_epoch_and_dropped_when_it_moves() {
        let c = Counted::new(10);
        assert_eq!(c.get(1, "abc"), 103);
        assert_eq!(c.get(1, "abc"), 103);
        assert_eq!(c.get(1, "de"), 102);
        assert_eq!(c.computed.get(), 2);
        assert_eq!(c.get(2, "abc"), 203);
        assert_eq!(c.computed.get(), 3);
        assert_eq!(c.get(2, "abc"), 203);
        assert_eq!(c.computed.get(), 3);
    }

    #[test]
    fn an_answer_computed_while_the_epoch_moved_is_not_kept() {
        let cache: ViewCache<String, u64> = ViewCache::new(10);
        let epoch = Cell::new(5);
        let v = cache
            .get_or_compute(
                || epoch.get(),
                "k",
                || {
                    epoch.set(6);
                    Ok::<_, ()>(5)
                },
            )
            .unwrap();
        assert_eq!(v, 5);
        let v = cache
            .get_or_compute(|| epoch.get(), "k", || Ok::<_, ()>(6))
            .unwrap();
        assert_eq!(v, 6, "the answer of epoch 5 was not kept for epoch 6");
    }

    #[test]
    fn errors_are_not_kept() {
        let cache: ViewCache<String, u64> = ViewCache::new(10);
        let r = cache.get_or_compute(|| 1, "k", || Err("failed"));
        assert_eq!(r, Err("failed"));
        let r = cache.get_or_compute(|| 1, "k", || Ok::<_, &str>(7));
        assert_eq!(r, Ok(7));
    }

    #[test]
    fn a_full_cache_starts_over() {
        let c = Counted::new(2);
        c.get(1, "a");
        c.get(1, "bb");
        assert_eq!(c.computed.get(), 2);
        c.get(1, "ccc");
        c.get(1, "ccc");
        assert_eq!(c.computed.get(), 3);
        c.get(1, "a");
        assert_eq!(c.computed.get(), 4, "emptied when the third answer came");
    }

    #[test]
    fn each_thread_keeps_its_own_answers() {
        let cache: ViewCache<String, u64> = ViewCache::new(10);
        cache.get_or_compute(|| 1, "k", || Ok::<_, ()>(1)).unwrap();
        std::thread::scope(|s| {
            s.spawn(|| {
                let v = cache.get_or_compute(|| 1, "k", || Ok::<_, ()>(2)).unwrap();
                assert_eq!(v, 2, "another thread's answer is not seen");
            });
        });
        let v = cache.get_or_compute(|| 1, "k", || Ok::<_, ()>(3)).unwrap();
        assert_eq!(v, 1);
    }
}
