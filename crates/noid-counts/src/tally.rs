//! The in-memory tally on the hot path: per thread, a hash table of counts keyed by
//! (day, identifier, kind, class), drained by the flusher every few seconds.
//!
//! Each thread counts into its own shard (a `Mutex` only the flusher ever contends
//! for, once per window), so request threads never wait on each other. A shard's
//! counts are the block it will write ([`crate::segment`]): a new key appends its
//! entry (count 1) to the shard's block, and the table keeps only where that entry
//! is, so a repeat costs a hash, a probe and an increment of the count in place, and a
//! drain takes the block as it is (sealed with its head and written, one block per
//! shard) and leaves an empty one of the same size. Once a shard has seen a window's
//! worth of keys, counting allocates nothing. The day is read from an atomic the
//! flusher sets ([`Tally::set_day`]) rather than from the clock at each request: a
//! request in the last window before midnight UTC may be counted on the day before.
//!
//! An answer the resolver's memo kept is counted without the table: its uses are
//! counted in the kept answer itself ([`noid_core::Kept`]), and the shard that first
//! counted it watches it ([`Tally::watch`]) and moves its uses into the block at each
//! drain, until the memo lets it go.

use std::hash::BuildHasher;
use std::sync::atomic::{fence, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hashbrown::HashTable;
use noid_core::Kept;
use thread_local::ThreadLocal;

use crate::key::{today, Class, Day, Kind};
use crate::segment::{entry_head, kept_id, open_block, COUNT_AT, ENTRY_HEAD, HEAD};

/// Counts by kind group (hit, redirect, miss, inflection, page) and class (person,
/// robot) since the process started: the Prometheus totals.
pub type Totals = [[u64; 2]; 5];

/// Where one key's entry is in its shard's block.
struct Slot {
    hash: u64,
    /// The entry's head without its count: day, kind, code, class ([`packed`]).
    key: u64,
    at: u32,
    len: u16,
}

struct Shard {
    slots: HashTable<Slot>,
    /// A counts block: room for its head, then the entries of this window.
    block: Vec<u8>,
    totals: Totals,
    /// The kept answers this shard takes the uses of at each drain.
    watched: Vec<Watched>,
    /// Their identifiers end to end, in the order of `watched` (one allocation for
    /// all, compacted at each drain, rather than one per answer).
    watched_ids: Vec<u8>,
}

/// A memo's kept answer whose uses count for an identifier (at `at` in the shard's
/// `watched_ids`, `len` bytes) as `kind` ([`Tally::watch`]).
struct Watched {
    kept: Arc<Kept>,
    at: u32,
    len: u16,
    kind: Kind,
}

/// Keys a shard has room for from the start (its table grows beyond, and a drain
/// leaves room for as many as the last window had).
const START_KEYS: usize = 1024;

impl Default for Shard {
    fn default() -> Shard {
        let mut block = Vec::with_capacity(START_KEYS * 48);
        open_block(&mut block);
        Shard {
            slots: HashTable::with_capacity(START_KEYS),
            block,
            totals: Totals::default(),
            watched: Vec::with_capacity(START_KEYS),
            watched_ids: Vec::with_capacity(START_KEYS * 32),
        }
    }
}

impl Shard {
    /// Appends to the block an entry for each watched answer's uses since the last
    /// drain, on `day`, and forgets the answers nobody else holds any more (the memo
    /// dropped them: no use can be added after their last one is taken here).
    fn take_uses(&mut self, day: Day) {
        let Shard {
            block,
            totals,
            watched,
            watched_ids: ids,
            ..
        } = self;
        // The identifiers of the answers kept on are moved down over those let go.
        let mut kept_ids = 0;
        watched.retain_mut(|w| {
            let (at, len) = (w.at as usize, usize::from(w.len));
            let unheld = Arc::strong_count(&w.kept) == 1;
            if unheld {
                // With the releasing drop of the last other holder: its uses are seen.
                fence(Ordering::Acquire);
            }
            for (class, n) in [Class::Person, Class::Robot]
                .into_iter()
                .zip(w.kept.take_uses())
            {
                if n > 0 {
                    totals[group_index(w.kind)][class as usize] += n;
                    block.extend_from_slice(&entry_head(day, w.kind, class, n, len));
                    block.extend_from_slice(&ids[at..at + len]);
                }
            }
            if !unheld {
                ids.copy_within(at..at + len, kept_ids);
                w.at = kept_ids as u32;
                kept_ids += len;
            }
            !unheld
        });
        ids.truncate(kept_ids);
    }
}

/// The tally of one process.
pub struct Tally {
    shards: ThreadLocal<Mutex<Shard>>,
    day: AtomicU32,
    hasher: foldhash::fast::FixedState,
}

impl Default for Tally {
    fn default() -> Tally {
        Tally {
            shards: ThreadLocal::new(),
            day: AtomicU32::new(today()),
            hasher: foldhash::fast::FixedState::with_seed(0x636f_756e_7473),
        }
    }
}

/// The index of a kind's group in [`Totals`].
pub fn group_index(kind: Kind) -> usize {
    kind.encode().0 as usize
}

/// Day, kind, code and class in one word (a key's fixed part).
fn packed(day: Day, kind: Kind, class: Class) -> u64 {
    let (tag, code) = kind.encode();
    u64::from(day) << 32 | u64::from(code) << 16 | u64::from(tag) << 8 | u64::from(class.encode())
}

/// `id` without the run of `?` it ends with (`ark:/1/x??` is `ark:/1/x`).
fn without_inflection(id: &[u8]) -> &[u8] {
    let end = id.iter().rposition(|&b| b != b'?').map_or(0, |i| i + 1);
    &id[..end]
}

impl Tally {
    /// Count one answer of `kind` for `id` (the identifier asked for; empty for a
    /// request without one) to someone of `class`, on the current day. The `?` or
    /// `??` of an inflection is not part of the identifier counted.
    #[inline]
    pub fn count(&self, id: &[u8], kind: Kind, class: Class) {
        let day = self.day.load(Ordering::Relaxed);
        let id = kept_id(without_inflection(id));
        let key = packed(day, kind, class);
        let hash = self.hasher.hash_one((id, key));
        let shard = self.shards.get_or(Mutex::default);
        let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
        let Shard {
            slots,
            block,
            totals,
            ..
        } = &mut *shard;
        totals[group_index(kind)][class as usize] += 1;
        let found = slots.find(hash, |s| {
            s.hash == hash
                && s.key == key
                && usize::from(s.len) == id.len()
                && block[s.at as usize + ENTRY_HEAD..][..id.len()] == *id
        });
        match found {
            Some(slot) => {
                let count = &mut block[slot.at as usize + COUNT_AT..][..8];
                let n = u64::from_le_bytes((&*count).try_into().unwrap_or_default());
                count.copy_from_slice(&(n + 1).to_le_bytes());
            }
            None => {
                let slot = Slot {
                    hash,
                    key,
                    at: block.len() as u32,
                    len: id.len() as u16,
                };
                block.extend_from_slice(&entry_head(day, kind, class, 1, id.len()));
                block.extend_from_slice(id);
                slots.insert_unique(hash, slot, |s| s.hash);
            }
        }
    }

    /// Counts from now on the uses of `kept` (a memo's answer, [`Kept::add_use`]) as
    /// answers of `kind` for `id`, taken at each drain: a repeat served from the memo
    /// is then counted with one increment and no look-up here. The caller registers
    /// each kept answer once ([`Kept::watch`]).
    pub fn watch(&self, kept: Arc<Kept>, id: &[u8], kind: Kind) {
        let id = kept_id(without_inflection(id));
        let shard = self.shards.get_or(Mutex::default);
        let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
        let at = shard.watched_ids.len() as u32;
        shard.watched_ids.extend_from_slice(id);
        shard.watched.push(Watched {
            kept,
            at,
            len: id.len() as u16,
            kind,
        });
    }

    /// The day counts are given from now on (the flusher's clock).
    pub fn set_day(&self, day: Day) {
        self.day.store(day, Ordering::Relaxed);
    }

    /// Calls `write` with each shard's block of the counts since the last drain (its
    /// head still to fill: [`crate::SegmentWriter::append_block`]), taken from the
    /// shard, which starts a new one; returns how many blocks had counts.
    pub fn drain_blocks(&self, mut write: impl FnMut(&mut Vec<u8>)) -> usize {
        let mut blocks = 0;
        for shard in self.shards.iter() {
            let mut block = {
                let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
                shard.take_uses(self.day.load(Ordering::Relaxed));
                if shard.block.len() == HEAD {
                    continue;
                }
                let keys = shard.slots.len();
                shard.slots.clear();
                // Keep room for what this window needed: the next one is likely alike.
                shard.slots.shrink_to(keys.max(START_KEYS), |s| s.hash);
                let mut next = Vec::with_capacity(shard.block.len());
                open_block(&mut next);
                std::mem::replace(&mut shard.block, next)
            };
            write(&mut block);
            blocks += 1;
        }
        blocks
    }

    /// Appends to `body` every count since the last drain (as counts-block entries)
    /// and empties the shards; returns how many answers they add up to.
    pub fn drain(&self, body: &mut Vec<u8>) -> u64 {
        let mut answers = 0;
        self.drain_blocks(|block| {
            let entries = &block[HEAD..];
            for e in crate::segment::parse_body(entries) {
                answers += e.count;
            }
            body.extend_from_slice(entries);
        });
        answers
    }

    /// The counts since the process started, by kind group and class.
    pub fn totals(&self) -> Totals {
        let mut totals = Totals::default();
        for shard in self.shards.iter() {
            let shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            for (sum, counted) in totals.iter_mut().zip(shard.totals.iter()) {
                sum[0] += counted[0];
                sum[1] += counted[1];
            }
            for w in &shard.watched {
                let pending = w.kept.uses();
                totals[group_index(w.kind)][0] += pending[0];
                totals[group_index(w.kind)][1] += pending[1];
            }
        }
        totals
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segment::{block, parse, COUNTS};

    #[test]
    fn counts_from_many_threads_drain_to_their_sums_and_leave_the_shards_empty() {
        let tally = Tally::default();
        std::thread::scope(|s| {
            for t in 0..4u8 {
                let tally = &tally;
                s.spawn(move || {
                    for i in 0..1000u32 {
                        let id = format!("ark:/1/{}", i % 10);
                        tally.count(id.as_bytes(), Kind::Redirect(302), Class::Person);
                    }
                    tally.count(&[b'x', t], Kind::Miss, Class::Robot);
                });
            }
        });
        let mut body = Vec::new();
        assert_eq!(tally.drain(&mut body), 4004);
        let entries = parse(&block(COUNTS, &body)).entries;
        let redirects: u64 = entries
            .iter()
            .filter(|e| e.kind == Kind::Redirect(302))
            .map(|e| e.count)
            .sum();
        assert_eq!(redirects, 4000);
        assert_eq!(tally.totals()[group_index(Kind::Miss)], [0, 4]);
        // Nothing counted since: an empty drain.
        assert!(tally
            .shards
            .iter()
            .all(|s| s.lock().unwrap().slots.is_empty() && s.lock().unwrap().block.len() == HEAD));
        let mut again = Vec::new();
        assert_eq!(tally.drain(&mut again), 0);
        assert!(again.is_empty());
    }

    #[test]
    fn an_inflection_is_counted_on_its_identifier() {
        let tally = Tally::default();
        for asked in ["ark:/1/x?", "ark:/1/x??", "ark:/1/x"] {
            tally.count(asked.as_bytes(), Kind::Inflection, Class::Person);
        }
        tally.count(b"?", Kind::Miss, Class::Person);
        let mut body = Vec::new();
        tally.drain(&mut body);
        let entries = parse(&block(COUNTS, &body)).entries;
        let ids: Vec<(&[u8], u64)> = entries.iter().map(|e| (&e.id[..], e.count)).collect();
        assert_eq!(ids.len(), 2, "{ids:?}");
        assert!(ids.contains(&(&b"ark:/1/x"[..], 3)));
        assert!(ids.contains(&(&b""[..], 1)));
    }

    /// The (identifier, class, count) entries of a drained body.
    fn drained(body: &[u8]) -> Vec<(String, Class, u64)> {
        let entries = parse(&block(COUNTS, body)).entries;
        let mut found: Vec<_> = entries
            .iter()
            .map(|e| {
                (
                    String::from_utf8_lossy(&e.id).into_owned(),
                    e.class,
                    e.count,
                )
            })
            .collect();
        found.sort_by_key(|(id, class, _)| (id.clone(), *class as u8));
        found
    }

    #[test]
    fn a_kept_answers_uses_are_counted_at_each_drain_until_nobody_holds_it() {
        let tally = Tally::default();
        let kept = Kept::new(&b"\x00redir302 https://e.org/x"[..]);
        assert!(kept.watch());
        assert!(!kept.watch(), "registered once");
        tally.watch(kept.clone(), b"ark:/1/x?", Kind::Redirect(302));
        let other = Kept::new(&b"\x01NULL"[..]);
        tally.watch(other.clone(), b"ark:/1/yy", Kind::Miss);
        for _ in 0..3 {
            kept.add_use(Class::Person as usize);
        }
        kept.add_use(Class::Robot as usize);
        // The totals include the uses not drained yet.
        assert_eq!(tally.totals()[group_index(Kind::Redirect(302))], [3, 1]);
        let mut body = Vec::new();
        assert_eq!(tally.drain(&mut body), 4);
        let x = || "ark:/1/x".to_string();
        assert_eq!(
            drained(&body),
            [(x(), Class::Person, 3), (x(), Class::Robot, 1)]
        );
        // A last use, then the memo lets the answer go: counted, then forgotten.
        kept.add_use(Class::Person as usize);
        drop(kept);
        body.clear();
        assert_eq!(tally.drain(&mut body), 1);
        assert_eq!(drained(&body), [(x(), Class::Person, 1)]);
        assert!(tally
            .shards
            .iter()
            .all(|s| s.lock().unwrap().watched.len() == 1));
        // The other answer, still held, keeps its identifier (moved down over x's).
        other.add_use(Class::Robot as usize);
        body.clear();
        assert_eq!(tally.drain(&mut body), 1);
        assert_eq!(drained(&body), [("ark:/1/yy".to_string(), Class::Robot, 1)]);
        drop(other);
        body.clear();
        assert_eq!(tally.drain(&mut body), 0);
        assert!(tally
            .shards
            .iter()
            .all(|s| s.lock().unwrap().watched.is_empty()));
        assert_eq!(tally.totals()[group_index(Kind::Redirect(302))], [4, 1]);
        assert_eq!(tally.totals()[group_index(Kind::Miss)], [0, 1]);
    }

    #[test]
    fn uses_added_while_drains_run_are_each_counted_once() {
        let tally = Tally::default();
        let kept = Kept::new(&b"\x01NULL"[..]);
        assert!(kept.watch());
        tally.watch(kept.clone(), b"ark:/1/gone", Kind::Miss);
        let mut drained_total = 0;
        std::thread::scope(|s| {
            let users: Vec<_> = (0..4)
                .map(|_| {
                    let kept = kept.clone();
                    s.spawn(move || {
                        for _ in 0..20_000 {
                            kept.add_use(Class::Person as usize);
                        }
                    })
                })
                .collect();
            drop(kept);
            while users.iter().any(|u| !u.is_finished()) {
                drained_total += tally.drain(&mut Vec::new());
            }
        });
        drained_total += tally.drain(&mut Vec::new());
        assert_eq!(drained_total, 80_000);
        assert!(tally
            .shards
            .iter()
            .all(|s| s.lock().unwrap().watched.is_empty()));
    }
}
