//! The in-memory tally on the hot path: per thread, a hash table of counts keyed by
//! (day, identifier, kind, class), drained by the flusher every few seconds.
//!
//! Each thread counts into its own shard (a `Mutex` only the flusher ever contends
//! for, once per window), so request threads never wait on each other. A shard keeps
//! its identifiers' bytes end to end in one buffer, and a drain empties the table and
//! the buffer but keeps their memory (shrunk to what the window used): once a shard
//! has seen a window's worth of keys, counting allocates nothing, a repeat costs a
//! hash, a probe and an increment, and a new key a copy of its bytes. The day is read
//! from an atomic the flusher sets ([`Tally::set_day`]) rather than from the clock at
//! each request: a request in the last window before midnight UTC may be counted on
//! the day before.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use hashbrown::HashTable;
use thread_local::ThreadLocal;

use crate::key::{today, Class, Day, Kind};
use crate::segment::{kept_id, open_block, put_entry};

/// Counts by kind group (hit, redirect, miss, inflection, page) and class (person,
/// robot) since the process started: the Prometheus totals.
pub type Totals = [[u64; 2]; 5];

/// One key's count in a shard; its identifier is `ids[at..at + len]` of the shard.
struct Slot {
    hash: u64,
    day: Day,
    kind: Kind,
    class: Class,
    count: u64,
    at: u32,
    len: u16,
}

struct Shard {
    slots: HashTable<Slot>,
    /// The identifiers of the slots, end to end.
    ids: Vec<u8>,
    totals: Totals,
}

/// Keys a shard has room for from the start (its table grows beyond, and keeps what
/// the last window needed).
const START_KEYS: usize = 1024;

impl Default for Shard {
    fn default() -> Shard {
        Shard {
            slots: HashTable::with_capacity(START_KEYS),
            ids: Vec::with_capacity(START_KEYS * 32),
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
        let (tag, code) = kind.encode();
        let packed = u64::from(day) << 32 | u64::from(code) << 16 | u64::from(tag) << 8;
        let hash = self
            .hasher
            .hash_one((id, packed | u64::from(class.encode())));
        let shard = self.shards.get_or(Mutex::default);
        let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
        let Shard { slots, ids, totals } = &mut *shard;
        totals[usize::from(tag)][class as usize] += 1;
        let found = slots.find_mut(hash, |s| {
            s.hash == hash
                && s.day == day
                && s.kind == kind
                && s.class == class
                && &ids[s.at as usize..s.at as usize + usize::from(s.len)] == id
        });
        match found {
            Some(slot) => slot.count += 1,
            None => {
                let slot = Slot {
                    hash,
                    day,
                    kind,
                    class,
                    count: 1,
                    at: ids.len() as u32,
                    len: id.len() as u16,
                };
                ids.extend_from_slice(id);
                slots.insert_unique(hash, slot, |s| s.hash);
            }
        }
    }

    /// The day counts are given from now on (the flusher's clock).
    pub fn set_day(&self, day: Day) {
        self.day.store(day, Ordering::Relaxed);
    }

    /// Makes `buf` a counts block (head still to fill, [`crate::SegmentWriter::append_block`])
    /// of every count since the last drain, emptying the shards; returns how many
    /// answers they add up to.
    pub fn drain_block(&self, buf: &mut Vec<u8>) -> u64 {
        open_block(buf);
        self.drain(buf)
    }

    /// Appends to `body` every count since the last drain (as counts-block entries)
    /// and empties the shards; returns how many answers they add up to.
    pub fn drain(&self, body: &mut Vec<u8>) -> u64 {
        let mut answers = 0;
        for shard in self.shards.iter() {
            let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            let Shard { slots, ids, .. } = &mut *shard;
            let (keys, bytes) = (slots.len(), ids.len());
            for s in slots.drain() {
                let id = &ids[s.at as usize..s.at as usize + usize::from(s.len)];
                put_entry(body, s.day, s.kind, s.class, s.count, id);
                answers += s.count;
            }
            ids.clear();
            // Keep what this window needed: the next one is likely alike.
            slots.shrink_to(keys.max(START_KEYS), |s| s.hash);
            ids.shrink_to(bytes.max(START_KEYS * 32));
        }
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
            .all(|s| s.lock().unwrap().slots.is_empty() && s.lock().unwrap().ids.is_empty()));
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
