//! Answers a web server's worker processes keep for one another, in memory their parent
//! mapped before forking them.
//!
//! Why: each process keeps the answers its threads computed ([`super::view::View::memo`]),
//! so with Apache's several children a request for an identifier asked before still costs
//! a store read (some 15,000 instructions against some 1,500 for a kept answer) in every
//! child that has not answered it yet. Here the first child's answer serves all of them.
//!
//! The region is a table of fixed-size slots in buckets of [`WAYS`]. A slot is written
//! under a sequence lock (its first word is odd while it is written) and read without
//! one: a reader copies the slot and keeps the copy only if the word was even and did not
//! change. Every access is an atomic load or store of a word, so a reader racing a writer
//! in another process reads a torn copy that it then throws away, never memory in an
//! undefined state. A process killed while it writes leaves its slot odd for good: the
//! slot is skipped from then on (a slot lost, never a wrong answer).
//!
//! Each answer carries the view it was computed from: the store's identity (which a
//! replaced or restored minter changes) and the view's sequence number. A process whose
//! view is another one does not take it, so a write that has returned is seen at the
//! next lookup in every process, as with the process's own answers.

use std::hash::BuildHasher;
use std::ptr::NonNull;
use std::sync::atomic::{fence, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use noid_core::Kept;

/// Bytes of one slot.
pub const SLOT_BYTES: usize = 256;

const SLOT_WORDS: usize = SLOT_BYTES / 8;

/// Words before the key and answer: sequence, store identity, view sequence, hash,
/// lengths.
const HEAD_WORDS: usize = 5;

/// Longest key and answer, together, that a slot holds (longer ones stay in the
/// process's own cache).
pub const SLOT_DATA: usize = (SLOT_WORDS - HEAD_WORDS) * 8;

/// Slots per bucket: a key is looked for, and kept, in one bucket of this many.
const WAYS: usize = 4;

/// Memory shared by a web server's worker processes for their answers: mapped by the
/// parent before it forks them (`MAP_SHARED`), so that every process sees the same
/// bytes at its own address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnswerRegion {
    base: NonNull<AtomicU64>,
    buckets: usize,
}

// SAFETY: the region is only ever accessed through atomics, from any thread.
unsafe impl Send for AnswerRegion {}
// SAFETY: as above.
unsafe impl Sync for AnswerRegion {}

impl AnswerRegion {
    /// The region of `len` bytes at `ptr`, or `None` when it is too small for one
    /// bucket of slots (or `ptr` is null).
    ///
    /// # Safety
    /// `ptr` is 8-aligned, readable and writable for `len` bytes, zeroed or written only
    /// by [`AnswerRegion`]s, accessed by nothing else, and stays mapped for as long as
    /// any view made with the region exists.
    pub unsafe fn new(ptr: *mut u8, len: usize) -> Option<AnswerRegion> {
        let buckets = len / (SLOT_BYTES * WAYS);
        let base = NonNull::new(ptr.cast::<AtomicU64>())?;
        (buckets > 0).then_some(AnswerRegion { base, buckets })
    }

    /// Bytes of a region of (about) `answers` slots: whole buckets, at least one.
    pub fn bytes_for(answers: usize) -> usize {
        answers.div_ceil(WAYS).max(1) * WAYS * SLOT_BYTES
    }

    /// The words of slot `i`.
    fn slot(&self, i: usize) -> &[AtomicU64] {
        debug_assert!(i < self.buckets * WAYS);
        // SAFETY: `new`'s contract: the region holds `buckets * WAYS` slots of
        // `SLOT_WORDS` words, mapped while `self` is used.
        unsafe { std::slice::from_raw_parts(self.base.as_ptr().add(i * SLOT_WORDS), SLOT_WORDS) }
    }
}

/// Which view an answer was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ViewId {
    /// The store's identity ([`crate::rocks::generation`]).
    pub store: u64,
    /// The view's sequence number.
    pub sequence: u64,
}

/// The region, as a view's answers' second level.
pub(crate) struct RegionCache {
    region: AnswerRegion,
    /// The same in every process (the slot of a key must not depend on the process).
    hasher: foldhash::fast::FixedState,
    /// Which slot of a full bucket the next answer replaces.
    victim: AtomicUsize,
}

impl RegionCache {
    pub(crate) fn new(region: AnswerRegion) -> RegionCache {
        RegionCache {
            region,
            hasher: foldhash::fast::FixedState::with_seed(0x6e6f_6964_5f72_6567),
            victim: AtomicUsize::new(0),
        }
    }

    /// The answer kept for `key` from `view`, or `compute`'s, kept (if it fits a slot)
    /// unless the view moved while it was computed.
    pub(crate) fn get_or_compute<E>(
        &self,
        view: impl Fn() -> ViewId,
        key: &[u8],
        compute: impl FnOnce() -> Result<Arc<Kept>, E>,
    ) -> Result<Arc<Kept>, E> {
        let started = view();
        let hash = self.hasher.hash_one(key);
        if let Some(kept) = self.get(started, hash, key) {
            return Ok(kept);
        }
        let answer = compute()?;
        if view() == started {
            self.put(started, hash, key, &answer);
        }
        Ok(answer)
    }

    /// The first slot of `hash`'s bucket.
    fn bucket(&self, hash: u64) -> usize {
        // The hash's high bits, scaled to the buckets (no modulo bias to speak of).
        let b = ((u128::from(hash) * self.region.buckets as u128) >> 64) as usize;
        b * WAYS
    }

    fn get(&self, view: ViewId, hash: u64, key: &[u8]) -> Option<Arc<Kept>> {
        let first = self.bucket(hash);
        let mut bytes = [0u8; SLOT_DATA];
        for i in first..first + WAYS {
            let w = self.region.slot(i);
            let seq = w[0].load(Ordering::Acquire);
            if seq & 1 == 1
                || w[3].load(Ordering::Relaxed) != hash
                || w[1].load(Ordering::Relaxed) != view.store
                || w[2].load(Ordering::Relaxed) != view.sequence
            {
                continue;
            }
            let lens = w[4].load(Ordering::Relaxed);
            let (klen, alen) = ((lens >> 32) as usize, (lens & 0xffff_ffff) as usize);
            if klen != key.len() || klen + alen > SLOT_DATA {
                continue;
            }
            let words = (klen + alen).div_ceil(8);
            for (chunk, w) in bytes.chunks_exact_mut(8).zip(&w[HEAD_WORDS..]).take(words) {
                chunk.copy_from_slice(&w.load(Ordering::Relaxed).to_le_bytes());
            }
            // The copy is whole only if no writer started meanwhile.
            fence(Ordering::Acquire);
            if w[0].load(Ordering::Relaxed) != seq {
                continue;
            }
            if &bytes[..klen] == key {
                return Some(Kept::new(&bytes[klen..klen + alen]));
            }
        }
        None
    }

    fn put(&self, view: ViewId, hash: u64, key: &[u8], answer: &[u8]) {
        let len = key.len() + answer.len();
        if len > SLOT_DATA {
            return;
        }
        let first = self.bucket(hash);
        // A slot of another view (or never written) first, then one holding the same
        // key, else the bucket's slots in turn; never one being written (or left odd by
        // a writer that died).
        let free = |i: usize| self.region.slot(i)[0].load(Ordering::Relaxed) & 1 == 0;
        let chosen = (first..first + WAYS)
            .find(|&i| {
                let w = self.region.slot(i);
                w[1].load(Ordering::Relaxed) != view.store
                    || w[2].load(Ordering::Relaxed) != view.sequence
                    || w[4].load(Ordering::Relaxed) == 0
                    || w[3].load(Ordering::Relaxed) == hash
            })
            .filter(|&i| free(i))
            .or_else(|| {
                let turn = self.victim.fetch_add(1, Ordering::Relaxed);
                (0..WAYS)
                    .map(|k| first + (turn + k) % WAYS)
                    .find(|&i| free(i))
            });
        let Some(i) = chosen else {
            return;
        };
        let w = self.region.slot(i);
        let seq = w[0].load(Ordering::Relaxed);
        // Another writer took it meanwhile: this answer is not kept.
        if seq & 1 == 1
            || w[0]
                .compare_exchange(seq, seq + 1, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        // No store below may be seen before the slot reads as being written.
        fence(Ordering::Release);
        w[1].store(view.store, Ordering::Relaxed);
        w[2].store(view.sequence, Ordering::Relaxed);
        w[3].store(hash, Ordering::Relaxed);
        w[4].store(
            ((key.len() as u64) << 32) | answer.len() as u64,
            Ordering::Relaxed,
        );
        let mut bytes = [0u8; SLOT_DATA];
        bytes[..key.len()].copy_from_slice(key);
        bytes[key.len()..len].copy_from_slice(answer);
        for (chunk, w) in bytes
            .chunks_exact(8)
            .zip(&w[HEAD_WORDS..])
            .take(len.div_ceil(8))
        {
            let word = u64::from_le_bytes(chunk.try_into().expect("chunks of 8"));
            w.store(word, Ordering::Relaxed);
        }
        w[0].store(seq + 2, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A region in this process's heap (as a parent's mapping would be, zeroed).
    fn region(slots: usize) -> (Vec<AtomicU64>, AnswerRegion) {
        let words: Vec<AtomicU64> = (0..AnswerRegion::bytes_for(slots) / 8)
            .map(|_| AtomicU64::new(0))
            .collect();
        // SAFETY: the vector outlives every use in the tests, and is only used atomically.
        let r = unsafe { AnswerRegion::new(words.as_ptr() as *mut u8, words.len() * 8) }.unwrap();
        (words, r)
    }

    const V1: ViewId = ViewId {
        store: 7,
        sequence: 100,
    };

    fn ask(c: &RegionCache, view: ViewId, key: &str, answer: &str) -> Arc<Kept> {
        c.get_or_compute(
            || view,
            key.as_bytes(),
            || Ok::<_, ()>(Kept::new(answer.as_bytes())),
        )
        .unwrap()
    }

    fn kept(c: &RegionCache, view: ViewId, key: &str) -> Option<String> {
        c.get_or_compute(|| view, key.as_bytes(), || Err(()))
            .ok()
            .map(|a| String::from_utf8(a.to_vec()).unwrap())
    }

    #[test]
    fn an_answer_is_found_by_another_process_at_the_same_view_only() {
        let (_mem, r) = region(64);
        // Two caches on one region: two processes' views of it.
        let (one, two) = (RegionCache::new(r), RegionCache::new(r));
        ask(&one, V1, "get ark:/99999/fk41 _t", "https://example.org/1");
        assert_eq!(
            kept(&two, V1, "get ark:/99999/fk41 _t").as_deref(),
            Some("https://example.org/1")
        );
        assert_eq!(
            kept(&two, V1, "get ark:/99999/fk42 _t"),
            None,
            "another key"
        );
        let later = ViewId {
            sequence: 101,
            ..V1
        };
        assert_eq!(
            kept(&two, later, "get ark:/99999/fk41 _t"),
            None,
            "a later view"
        );
        let replaced = ViewId { store: 8, ..V1 };
        assert_eq!(
            kept(&two, replaced, "get ark:/99999/fk41 _t"),
            None,
            "a replaced store at the same sequence number"
        );
        // A later view's answer replaces the earlier one's.
        ask(
            &two,
            later,
            "get ark:/99999/fk41 _t",
            "https://example.org/new",
        );
        assert_eq!(
            kept(&one, later, "get ark:/99999/fk41 _t").as_deref(),
            Some("https://example.org/new")
        );
    }

    #[test]
    fn what_does_not_fit_a_slot_is_not_kept() {
        let (_mem, r) = region(64);
        let c = RegionCache::new(r);
        let key = "k".repeat(100);
        let fits = "a".repeat(SLOT_DATA - 100);
        let too_long = "a".repeat(SLOT_DATA - 99);
        ask(&c, V1, &key, &fits);
        assert_eq!(kept(&c, V1, &key), Some(fits));
        let key2 = "j".repeat(100);
        ask(&c, V1, &key2, &too_long);
        assert_eq!(kept(&c, V1, &key2), None);
        // An empty answer is an answer.
        ask(&c, V1, "e", "");
        assert_eq!(kept(&c, V1, "e").as_deref(), Some(""));
    }

    #[test]
    fn an_answer_computed_while_the_view_moved_is_not_kept() {
        let (_mem, r) = region(64);
        let c = RegionCache::new(r);
        let moved = std::cell::Cell::new(false);
        let view = || {
            if moved.get() {
                ViewId {
                    sequence: 101,
                    ..V1
                }
            } else {
                V1
            }
        };
        let a = c.get_or_compute(view, b"k", || {
            moved.set(true);
            Ok::<_, ()>(Kept::new(&b"old"[..]))
        });
        assert_eq!(&**a.unwrap(), b"old");
        assert_eq!(kept(&c, V1, "k"), None);
    }

    #[test]
    fn a_slot_left_half_written_is_skipped() {
        let (mem, r) = region(4);
        let c = RegionCache::new(r);
        ask(&c, V1, "k", "v");
        assert_eq!(kept(&c, V1, "k").as_deref(), Some("v"));
        // A writer killed after taking the slot: its sequence stays odd.
        let slot = (0..4)
            .find(|i| mem[i * SLOT_WORDS + 4].load(Ordering::Relaxed) != 0)
            .unwrap();
        mem[slot * SLOT_WORDS].fetch_add(1, Ordering::Relaxed);
        assert_eq!(kept(&c, V1, "k"), None, "never read");
        // The bucket's other slots still keep answers; that one is never written.
        for k in 0..20 {
            ask(&c, V1, &format!("k{k}"), &format!("v{k}"));
        }
        assert_eq!(mem[slot * SLOT_WORDS].load(Ordering::Relaxed) & 1, 1);
        assert_eq!(kept(&c, V1, "k19").as_deref(), Some("v19"));
    }

    #[test]
    fn a_full_bucket_keeps_the_latest_answers() {
        // One bucket: every key lands in it.
        let (_mem, r) = region(1);
        let c = RegionCache::new(r);
        for k in 0..10 {
            ask(&c, V1, &format!("k{k}"), &format!("v{k}"));
        }
        let found = (0..10)
            .filter(|k| kept(&c, V1, &format!("k{k}")).is_some())
            .count();
        assert_eq!(found, WAYS);
        assert_eq!(kept(&c, V1, "k9").as_deref(), Some("v9"));
    }

    #[test]
    fn readers_racing_writers_never_take_a_torn_answer() {
        // Threads stand for processes: the same region, each with its own cache; every
        // key's answer is a function of it, so any torn copy would show.
        let (_mem, r) = region(8);
        std::thread::scope(|s| {
            for t in 0..4u64 {
                s.spawn(move || {
                    let c = RegionCache::new(r);
                    for n in 0..20_000u64 {
                        let k = (n * 7 + t) % 50;
                        let key = format!("key{k}");
                        let answer = k.to_string().repeat(k as usize + 1);
                        let got = c
                            .get_or_compute(
                                || V1,
                                key.as_bytes(),
                                || Ok::<_, ()>(Kept::new(answer.as_bytes())),
                            )
                            .unwrap();
                        assert_eq!(&**got, answer.as_bytes(), "{key}");
                    }
                });
            }
        });
    }
}
