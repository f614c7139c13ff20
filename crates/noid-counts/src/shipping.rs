//! Shipping a counts directory's blocks to a store that adds up several directories'
//! counts (noidr `--follow --counts` ships its cache directory's to the PostgreSQL
//! database that holds the minter). This crate knows nothing of that store: it says
//! what is left to ship, and keeps a local record of what was shipped.
//!
//! * What is shipped: the whole counts blocks of each `seg-…` segment, from a byte
//!   offset on. A segment is append-only and its blocks never change, so "the blocks
//!   before offset N" means the same counts forever. The shipping store keeps, per
//!   segment, the offset of the next unshipped block, and commits it in the same
//!   transaction as the counts it moved past: a crash or a lost connection at any
//!   point leaves the counts and the offset both in or both out, so nothing is lost
//!   or counted twice. That offset, in the store, is the one that counts.
//! * A `folded-…` segment (a compaction's) is never shipped: it holds counts of
//!   segments that were shipped already ([`CountsDir::compact`] makes sure of it).
//! * The local record, `counts/shipping`, says how far each segment was shipped, as
//!   last committed: it is written after each commit, so it may lag the store (a
//!   crash between the two) but is never ahead of it. Its existence marks the
//!   directory as shipped: then a compaction folds only the segments that it records
//!   as wholly shipped, and a folded segment, never shipped, loses no count. The
//!   record is made when shipping starts, before anything is counted.
//! * One process ships a directory at a time ([`Shipping::lock`]).

use std::collections::BTreeMap;
use std::fs::{self, File, TryLockError};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use crate::segment::{self, Entry};
use crate::store::CountsDir;

/// The local record of what was shipped, in the counts directory.
pub const SHIPPING_FILE: &str = "shipping";

/// The first line of the record.
const HEADER: &str = "# noid: these counts are shipped (docs/COUNTS.md); segment and \
                      the offset shipped to, as last committed";

/// The bytes of blocks read for one shipment, at most (unless one block is larger).
pub const SHIPMENT: u64 = 8 << 20;

/// The segments whose counts are shipped (a compaction's are not).
const SHIPPED_PREFIX: &str = "seg-";

/// A counts directory being shipped, and its record of how far.
#[derive(Debug)]
pub struct Shipping {
    dir: CountsDir,
    shipped: BTreeMap<String, u64>,
}

/// The blocks of a segment after an offset.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Unshipped {
    /// Their counts (several may share a key: [`crate::summed`] adds them up).
    pub entries: Vec<Entry>,
    /// The offset after the last whole block: what to record as shipped once they
    /// are. Equal to the offset asked for when there is nothing new.
    pub end: u64,
}

impl Shipping {
    /// Starts (or goes on) shipping `dir`: makes the directory and its record if they
    /// are missing, and reads the record.
    pub fn open(dir: &CountsDir) -> io::Result<Shipping> {
        fs::create_dir_all(dir.path())?;
        let shipping = Shipping {
            dir: dir.clone(),
            shipped: read_record(dir)?.unwrap_or_default(),
        };
        if !shipping.record_path().exists() {
            shipping.write_record()?;
        }
        Ok(shipping)
    }

    /// An exclusive lock on shipping this directory, or `None` when another process
    /// holds it (it ships them); dropped when the round is over.
    pub fn lock(&self) -> io::Result<Option<File>> {
        let file = File::create(self.dir.path().join("ship.lock"))?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Error(e)) => Err(e),
        }
    }

    /// Every shipped segment's name and the offset the record says it was shipped
    /// to (0 when it has none yet), in name order (the oldest first).
    pub fn segments(&self) -> io::Result<Vec<(String, u64)>> {
        let mut names = Vec::new();
        for item in fs::read_dir(self.dir.path())? {
            let name = item?.file_name().to_string_lossy().into_owned();
            if name.starts_with(SHIPPED_PREFIX) && name.ends_with(".counts") {
                let at = self.shipped.get(&name).copied().unwrap_or(0);
                names.push((name, at));
            }
        }
        names.sort();
        Ok(names)
    }

    /// The whole counts blocks of `segment` from byte `from` on (an offset that a
    /// block starts at: one this record or the store gave), about `SHIPMENT` (8 MiB) bytes
    /// of them at most (at least one block): a backlog (a database down for a day) is
    /// shipped in several transactions, none too large. A block still being written,
    /// or the torn end a crash left, is not whole and waits. A segment that is gone
    /// (folded since it was listed, so wholly shipped) has nothing left.
    pub fn unshipped(&self, segment: &str, from: u64) -> io::Result<Unshipped> {
        let mut file = match File::open(self.dir.path().join(segment)) {
            Ok(file) => file,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Unshipped {
                    entries: Vec::new(),
                    end: from,
                })
            }
            Err(e) => return Err(e),
        };
        file.seek(SeekFrom::Start(from))?;
        let mut bytes = Vec::new();
        (&mut file).take(SHIPMENT).read_to_end(&mut bytes)?;
        if bytes.len() as u64 == SHIPMENT && segment::parse(&bytes).end == 0 {
            // One block larger than a shipment: the whole of it.
            file.read_to_end(&mut bytes)?;
        }
        let parsed = segment::parse(&bytes);
        Ok(Unshipped {
            entries: parsed.entries,
            end: from + parsed.end as u64,
        })
    }

    /// Records that `segment` was shipped up to `offset` (call it after the store
    /// committed), forgetting the segments that are gone (folded by a compaction).
    pub fn record(&mut self, segment: &str, offset: u64) -> io::Result<()> {
        self.shipped.insert(segment.to_string(), offset);
        let present = self.dir.path().to_path_buf();
        self.shipped.retain(|name, _| present.join(name).exists());
        self.write_record()
    }

    fn record_path(&self) -> PathBuf {
        self.dir.path().join(SHIPPING_FILE)
    }

    /// The record, replaced whole (a new file renamed over the old one).
    fn write_record(&self) -> io::Result<()> {
        let mut text = format!("{HEADER}\n");
        for (name, offset) in &self.shipped {
            text.push_str(&format!("{name} {offset}\n"));
        }
        let temporary = self.dir.path().join(format!("{SHIPPING_FILE}.new"));
        let mut out = File::create(&temporary)?;
        out.write_all(text.as_bytes())?;
        fs::rename(&temporary, self.record_path())
    }
}

/// The record of `dir`: how far each segment was shipped, or `None` when the
/// directory is not shipped. A line that does not read is left out (its segment
/// counts as not shipped, which only keeps it from being folded).
pub(crate) fn read_record(dir: &CountsDir) -> io::Result<Option<BTreeMap<String, u64>>> {
    let text = match fs::read_to_string(dir.path().join(SHIPPING_FILE)) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let record = text
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (name, offset) = line.split_once(' ')?;
            Some((name.to_string(), offset.parse().ok()?))
        })
        .collect();
    Ok(Some(record))
}

/// Whether a compaction may fold the segment `name`, whose whole blocks end at
/// `end`, given the directory's shipping record: always in a directory that is not
/// shipped, and a compaction's own segments (never shipped); a shipped segment only
/// once all of it was shipped.
pub(crate) fn foldable(record: Option<&BTreeMap<String, u64>>, name: &str, end: usize) -> bool {
    match record {
        None => true,
        Some(_) if !name.starts_with(SHIPPED_PREFIX) => true,
        Some(record) => record.get(name).copied().unwrap_or(0) == end as u64,
    }
}
