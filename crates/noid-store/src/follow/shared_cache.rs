//! Answers computed from one view of the store, kept until the view moves, shared by
//! every thread of the process.
//!
//! For a process with many request threads (an Apache child has dozens), where caches of
//! one thread each would rarely be asked the same thing twice: every request thread finds
//! what any of them computed. Reads take a shard's read lock (one shared write per
//! lookup, which [`super::view_cache::ViewCache`] avoids for a resolver with a few
//! threads); a computed answer takes its shard's write lock once.

use std::hash::BuildHasher;
use std::sync::RwLock;

use hashbrown::hash_table::{Entry, HashTable};

/// Shards, so that threads computing answers for different keys rarely wait for each
/// other.
const SHARDS: usize = 64;

/// Answers by key for one view (its epoch), shared by threads; each shard emptied when
/// it reaches its bound or the epoch moves past it.
///
/// A key is hashed once per call: the hash picks the shard (by bits the shard's table
/// does not use first) and finds and inserts the key in it.
pub(crate) struct SharedCache<V> {
    shards: Box<[RwLock<Shard<V>>]>,
    max_per_shard: usize,
    hasher: foldhash::fast::RandomState,
}

struct Shard<V> {
    epoch: u64,
    map: HashTable<(Vec<u8>, V)>,
}

impl<V: Clone> SharedCache<V> {
    /// An empty cache of at most about `max` answers.
    pub(crate) fn new(max: usize) -> Self {
        SharedCache {
            shards: (0..SHARDS)
                .map(|_| {
                    RwLock::new(Shard {
                        epoch: 0,
                        map: HashTable::new(),
                    })
                })
                .collect(),
            max_per_shard: max.div_ceil(SHARDS).max(1),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// The answer kept for `key` in the current epoch, or `compute`'s, kept unless the
    /// epoch moved while it was computed (as `ViewCache::get_or_compute`).
    pub(crate) fn get_or_compute<E>(
        &self,
        epoch: impl Fn() -> u64,
        key: &[u8],
        compute: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E> {
        let started = epoch();
        let hash = self.hasher.hash_one(key);
        // A table finds a bucket by the hash's low bits and tells keys apart by its top
        // seven: the shard is picked by bits in between.
        let shard = &self.shards[(hash >> 32) as usize % SHARDS];
        {
            let s = shard.read().unwrap_or_else(|e| e.into_inner());
            if s.epoch == started {
                if let Some((_, v)) = s.map.find(hash, |(k, _)| k.as_slice() == key) {
                    return Ok(v.clone());
                }
            }
        }
        let v = compute()?;
        if epoch() == started {
            let mut s = shard.write().unwrap_or_else(|e| e.into_inner());
            // A shard already holding a later epoch's answers keeps them.
            if s.epoch < started {
                s.epoch = started;
                s.map.clear();
            }
            if s.epoch == started {
                if s.map.len() >= self.max_per_shard {
                    s.map.clear();
                }
                let hasher = &self.hasher;
                let entry = s.map.entry(
                    hash,
                    |(k, _)| k.as_slice() == key,
                    |(k, _)| hasher.hash_one(k.as_slice()),
                );
                match entry {
                    // another thread's answer for the same view: the same answer
                    Entry::Occupied(mut kept) => kept.get_mut().1 = v.clone(),
                    Entry::Vacant(vacant) => {
                        vacant.insert((key.to_vec(), v.clone()));
                    }
                }
            }
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::sync::Arc;

    use super::*;

    #[test]
    fn answers_are_shared_by_threads_within_an_epoch() {
        let cache = Arc::new(SharedCache::<u64>::new(1000));
        let computed = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let ask = |cache: &SharedCache<u64>, epoch: u64, key: &str| {
            cache
                .get_or_compute(
                    || epoch,
                    key.as_bytes(),
                    || {
                        computed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        Ok::<_, ()>(key.len() as u64 + epoch * 100)
                    },
                )
                .unwrap()
        };
        assert_eq!(ask(&cache, 1, "abc"), 103);
        let other = {
            let cache = cache.clone();
            std::thread::spawn(move || cache.get_or_compute(|| 1, b"abc", || Err(())).unwrap())
        };
        assert_eq!(
            other.join().unwrap(),
            103,
            "another thread finds the answer"
        );
        assert_eq!(ask(&cache, 2, "abc"), 203, "a later epoch computes again");
        assert_eq!(computed.load(std::sync::atomic::Ordering::Relaxed), 2);
        // An answer of the older epoch does not replace the later one's.
        assert_eq!(
            cache
                .get_or_compute(|| 1, b"abc", || Ok::<_, ()>(1))
                .unwrap(),
            1
        );
        assert_eq!(cache.get_or_compute(|| 2, b"abc", || Err(())).unwrap(), 203);
    }

    #[test]
    fn an_answer_computed_while_the_epoch_moved_is_not_kept() {
        let cache = SharedCache::<u64>::new(10);
        let epoch = Cell::new(5);
        let v = cache.get_or_compute(
            || epoch.get(),
            b"k",
            || {
                epoch.set(6);
                Ok::<_, ()>(5)
            },
        );
        assert_eq!(v, Ok(5));
        assert_eq!(
            cache.get_or_compute(|| epoch.get(), b"k", || Ok::<_, ()>(6)),
            Ok(6)
        );
        assert_eq!(
            cache.get_or_compute(|| 6, b"k", || Err::<u64, _>(())),
            Ok(6)
        );
    }
}
