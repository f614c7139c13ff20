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

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use hashbrown::HashTable;
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
        }
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
                if shard.slots.is_empty() {
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
}
