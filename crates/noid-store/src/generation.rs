//! A change counter shared through a memory-mapped file, so that the long-lived
//! resolver can tell in nanoseconds whether any writer committed since it last looked.
//!
//! `try_catch_up_with_primary` costs about half a millisecond even when nothing
//! changed, far too much per request; reading one mapped integer costs nothing.
//! The file `NOID/generation` holds two little-endian `u64`s: the generation, bumped
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
pub(crate) fn create(path: &Path) -> Result<(), StoreError> {
    let mut bytes = [0u8; SIZE as usize];
    bytes[8..].copy_from_slice(&new_store_id().to_le_bytes());
    std::fs::write(path, bytes).map_err(io(path))
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
        // SAFETY: the file has a fixed size of 16 bytes and is only ever accessed through
        // aligned atomic operations, by writers (serialised by the lock) and readers.
        let map = unsafe { MmapMut::map_mut(&f) }.map_err(io(path))?;
        Ok(Bumper { map })
    }

    /// Announce a commit to every reader.
    pub fn bump(&self) {
        counter(self.map.as_ptr()).fetch_add(1, Ordering::Release);
    }

    /// Tell readers to open the store anew at the next bump (after an ingestion).
    pub fn renew_store_id(&self) {
        let old = counter(self.map[8..].as_ptr()).load(Ordering::Acquire);
        let mut id = new_store_id();
        if id == old {
            id = id.wrapping_add(1);
        }
        counter(self.map[8..].as_ptr()).store(id, Ordering::Release);
    }
}

/// The reader's handle: a nanosecond check for news.
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
        // SAFETY: see `Bumper::open`; we only read through atomics.
        let map = unsafe { Mmap::map(&f) }.map_err(io(path))?;
        let store_id = counter(map[8..].as_ptr()).load(Ordering::Acquire);
        Ok(Watcher { map, store_id })
    }

    /// The current generation.
    pub fn current(&self) -> u64 {
        counter(self.map.as_ptr()).load(Ordering::Acquire)
    }

    /// The id of the store this watcher was opened on.
    pub fn store_id(&self) -> u64 {
        self.store_id
    }
}

/// Read the store id currently on disk (to detect a store that was replaced).
pub fn store_id_on_disk(path: &Path) -> Option<u64> {
    let bytes = std::fs::read(path).ok()?;
    let arr: [u8; 8] = bytes.get(8..16)?.try_into().ok()?;
    Some(u64::from_le_bytes(arr))
}

fn counter(ptr: *const u8) -> &'static AtomicU64 {
    // SAFETY: the pointer comes from a live page-aligned mapping of at least 16 bytes,
    // offsets 0 and 8 are 8-byte aligned, and the mapping outlives every use because
    // callers only use the reference within a method of the owner of the mapping.
    unsafe { &*(ptr as *const AtomicU64) }
}
