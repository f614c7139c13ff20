//! A change counter shared through a memory-mapped file, so that the long-lived
//! resolver can tell with one memory read whether any writer committed since it last
//! looked.
//!
//! A RocksDB catch-up costs a system call and a scan of the primary's manifest and
//! logs even when nothing changed, far too much per request; reading one mapped
//! integer costs nothing. The file `NOID/generation` holds two little-endian `u64`s: the generation, bumped
//! by every writer after each commit, and a store id, which changes whenever readers
//! must open the store anew rather than catch up: when a minter is removed and created
//! anew, and when a writer ingested a table file (a RocksDB secondary that stays open
//! keeps older values replayed from the write-ahead log in its memtable, where they
//! hide the newer values of an ingested file; a secondary opened afterwards reads
//! them right).

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use memmap2::{Mmap, MmapMut};

use crate::error::{io, StoreError};

/// The file's size: two counters.
const SIZE: u64 = 16;

/// A store id unlikely to repeat: the time in nanoseconds mixed with the process id.
fn new_store_id() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
        ^ (u64::from(std::process::id()) << 32)
}

/// Create the generation file for a new store, with a fresh store id.
///
/// The file is written under another name and renamed into place, so that a process
/// that still maps an older file at this path never sees it shrink (see [`counters`]).
pub(crate) fn create(path: &Path) -> Result<(), StoreError> {
    let mut bytes = [0u8; SIZE as usize];
    bytes[8..].copy_from_slice(&new_store_id().to_le_bytes());
    let new = path.with_extension("new");
    std::fs::write(&new, bytes).map_err(io(&new))?;
    std::fs::rename(&new, path).map_err(io(path))
}

/// The writer's handle: bumps the counter after each commit.
pub struct Bumper {
    map: MmapMut,
}

impl Bumper {
    /// Map the generation file for writing; recreates it if it is missing or short
    /// (a store imported or restored without it).
    pub fn open(path: &Path) -> Result<Bumper, StoreError> {
        let ok = std::fs::metadata(path)
            .map(|m| m.len() == SIZE)
            .unwrap_or(false);
        if !ok {
            create(path)?;
        }
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(io(path))?;
        // SAFETY: a mapped file must not be truncated or changed by other means than the
        // mapping's owners expect. This file keeps its 16 bytes for its whole life (it is
        // only ever replaced whole, by a rename: `create`), and every process maps it and
        // touches it only through the aligned atomics of `counters`.
        let map = unsafe { MmapMut::map_mut(&f) }.map_err(io(path))?;
        Ok(Bumper { map })
    }

    /// Announce a commit to every reader.
    pub fn bump(&self) {
        counters(&self.map)[0].fetch_add(1, Ordering::Release);
    }

    /// The generation now (the writer's: no other process bumps it meanwhile).
    pub fn current(&self) -> u64 {
        counters(&self.map)[0].load(Ordering::Acquire)
    }

    /// Tell readers to open the store anew at the next bump (after an ingestion).
    pub fn renew_store_id(&self) {
        let store_id = &counters(&self.map)[1];
        let old = store_id.load(Ordering::Acquire);
        let mut id = new_store_id();
        if id == old {
            id = id.wrapping_add(1);
        }
        store_id.store(id, Ordering::Release);
    }
}

/// The reader's handle: a check for news that costs one memory read.
pub struct Watcher {
    map: Mmap,
    store_id: u64,
}

impl Watcher {
    /// Map the generation file read-only.
    pub fn open(path: &Path) -> Result<Watcher, StoreError> {
        let f = OpenOptions::new().read(true).open(path).map_err(io(path))?;
        let len = f.metadata().map_err(io(path))?.len();
        if len != SIZE {
            return Err(StoreError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "generation file has the wrong size",
                ),
            });
        }
        // SAFETY: as in `Bumper::open`: the file keeps its size while mapped, and is
        // read here only through the atomics of `counters`.
        let map = unsafe { Mmap::map(&f) }.map_err(io(path))?;
        let store_id = counters(&map)[1].load(Ordering::Acquire);
        Ok(Watcher { map, store_id })
    }

    /// The current generation.
    pub fn current(&self) -> u64 {
        counters(&self.map)[0].load(Ordering::Acquire)
    }

    /// The id of the store this watcher was opened on.
    pub fn store_id(&self) -> u64 {
        self.store_id
    }
}

/// Read the generation currently on disk (derived data, such as the search index,
/// records it to tell later whether any writer committed since).
pub fn generation_on_disk(path: &Path) -> Option<u64> {
    let bytes = std::fs::read(path).ok()?;
    let arr: [u8; 8] = bytes.get(..8)?.try_into().ok()?;
    Some(u64::from_le_bytes(arr))
}

/// Read the store id currently on disk (to detect a store that was replaced).
pub fn store_id_on_disk(path: &Path) -> Option<u64> {
    let bytes = std::fs::read(path).ok()?;
    let arr: [u8; 8] = bytes.get(8..16)?.try_into().ok()?;
    Some(u64::from_le_bytes(arr))
}

/// The generation and the store id in a mapping of the file.
fn counters(map: &[u8]) -> &[AtomicU64; 2] {
    assert!(
        map.len() >= SIZE as usize,
        "a generation file holds two counters"
    );
    let ptr = map.as_ptr().cast::<[AtomicU64; 2]>();
    debug_assert!(ptr.is_aligned());
    // SAFETY: the 16 bytes are in bounds (checked) and 8-byte aligned (a mapping starts
    // on a page boundary); `AtomicU64` has the size and layout of `u64`, and every
    // process changes these bytes only through atomics. The reference borrows `map`, so
    // it cannot outlive the mapping.
    unsafe { &*ptr }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bumps_are_seen_and_a_renewed_store_id_differs() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("generation");
        create(&path).unwrap();
        let bumper = Bumper::open(&path).unwrap();
        let watcher = Watcher::open(&path).unwrap();
        assert_eq!(watcher.current(), 0);
        bumper.bump();
        bumper.bump();
        assert_eq!(watcher.current(), 2);
        assert_eq!(store_id_on_disk(&path), Some(watcher.store_id()));
        bumper.renew_store_id();
        assert_ne!(store_id_on_disk(&path), Some(watcher.store_id()));
        assert_eq!(watcher.current(), 2);
    }

    #[test]
    fn a_recreated_file_leaves_old_mappings_intact() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("generation");
        create(&path).unwrap();
        let old = Bumper::open(&path).unwrap();
        old.bump();
        let watcher = Watcher::open(&path).unwrap();
        create(&path).unwrap();
        assert_eq!(watcher.current(), 1, "the old file, still mapped");
        assert_ne!(store_id_on_disk(&path), Some(watcher.store_id()));
        assert_eq!(Watcher::open(&path).unwrap().current(), 0);
    }

    #[test]
    fn a_short_file_is_refused_by_readers_and_recreated_by_writers() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("generation");
        std::fs::write(&path, [0u8; 8]).unwrap();
        assert!(matches!(Watcher::open(&path), Err(StoreError::Io { .. })));
        Bumper::open(&path).unwrap().bump();
        assert_eq!(Watcher::open(&path).unwrap().current(), 1);
    }
}
