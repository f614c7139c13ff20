//! The counts store: a directory (`DIR/counts/`) of segment files that many processes
//! append to at once without a lock between them, and that readers sum.
//!
//! * Each counting process writes its own segment, `seg-<time>-<pid>.counts`, one
//!   whole block per flush ([`crate::segment`]) appended with one `write`. It holds an
//!   exclusive `flock` on it while it lives; it creates it under a temporary name and
//!   renames it once locked, so no one sees a segment whose writer has not locked it.
//! * A reader sums the whole blocks of every segment, skipping a torn last block.
//! * A compaction ([`CountsDir::compact`]) folds the segments whose writers are gone
//!   (their lock is free) into one new segment, which names the segments it folded
//!   in a block of its own; it is renamed into place before the folded ones are
//!   deleted. A reader ignores a segment that another names as folded, so a crash
//!   between the rename and the deletions counts nothing twice, and the next
//!   compaction deletes what was left. Compactions take `compact.lock` in turn; writers
//!   never do. In a directory whose counts are shipped ([`crate::shipping`]), a
//!   compaction folds only the segments that were wholly shipped: what it folds is
//!   never shipped, so folding sooner would keep a segment's unshipped blocks from
//!   ever being shipped.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::segment::{self, block, Entry, COUNTS, FOLDED};

/// A segment file's extension.
const EXTENSION: &str = "counts";

/// The counts directory of a minter directory (the one holding `NOID/`).
pub fn counts_dir_of(minter_dir: &Path) -> PathBuf {
    minter_dir.join("counts")
}

/// A counts store.
#[derive(Debug, Clone)]
pub struct CountsDir {
    path: PathBuf,
}

/// One process's segment, locked while the writer lives.
#[derive(Debug)]
pub struct SegmentWriter {
    file: File,
    path: PathBuf,
}

/// What a compaction did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Compacted {
    /// Segments folded into the new one.
    pub folded: usize,
    /// Segments deleted that an earlier compaction had already folded.
    pub leftovers: usize,
}

impl CountsDir {
    /// The store at `path` (not created until a writer starts).
    pub fn new(path: impl Into<PathBuf>) -> CountsDir {
        CountsDir { path: path.into() }
    }

    /// Where it is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A new segment for this process, created (and the directory with it) and locked.
    pub fn writer(&self) -> io::Result<SegmentWriter> {
        fs::create_dir_all(&self.path)?;
        let name = unique_name("seg");
        let temporary = self.path.join(format!("{name}.new"));
        let file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(&temporary)?;
        file.lock()?;
        let path = self.path.join(format!("{name}.{EXTENSION}"));
        fs::rename(&temporary, &path)?;
        Ok(SegmentWriter { file, path })
    }

    /// Every count in the store (several entries may share a key: sum them).
    pub fn read(&self) -> io::Result<Vec<Entry>> {
        let segments = self.segments()?;
        let folded: HashSet<&str> = segments
            .iter()
            .flat_map(|(_, p)| p.folded.iter().map(String::as_str))
            .collect();
        Ok(segments
            .iter()
            .filter(|(name, _)| !folded.contains(name.as_str()))
            .flat_map(|(_, p)| p.entries.iter().cloned())
            .collect())
    }

    /// Folds the segments no process writes any more into one (see the module's
    /// documentation); the counts read are the same before and after.
    pub fn compact(&self) -> io::Result<Compacted> {
        let mut done = Compacted::default();
        if !self.path.is_dir() {
            return Ok(done);
        }
        let guard = File::create(self.path.join("compact.lock"))?;
        guard.lock()?;
        let segments = self.segments()?;
        let shipped = crate::shipping::read_record(self)?;
        let already: HashSet<String> = segments
            .iter()
            .flat_map(|(_, p)| p.folded.iter().cloned())
            .collect();
        let mut fold = Vec::new();
        let mut entries = Vec::new();
        for (name, parsed) in &segments {
            let path = self.path.join(name);
            if already.contains(name) {
                remove(&path)?;
                done.leftovers += 1;
                continue;
            }
            if !crate::shipping::foldable(shipped.as_ref(), name, parsed.end) {
                continue;
            }
            let Ok(file) = File::open(&path) else {
                continue;
            };
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) => continue,
                Err(TryLockError::Error(e)) => return Err(e),
            }
            fold.push((name.clone(), file));
            entries.extend(parsed.entries.iter().cloned());
        }
        if fold.len() < 2 {
            return Ok(done);
        }
        let names: Vec<&str> = fold.iter().map(|(n, _)| n.as_str()).collect();
        let mut bytes = block(FOLDED, names.join("\n").as_bytes());
        let mut body = Vec::new();
        for (key, count) in crate::report::summed(&entries) {
            segment::put_entry(&mut body, key.day, key.kind, key.class, count, &key.id);
        }
        bytes.extend_from_slice(&block(COUNTS, &body));
        let name = unique_name("folded");
        let temporary = self.path.join(format!("{name}.new"));
        let mut out = File::create(&temporary)?;
        out.write_all(&bytes)?;
        out.sync_all()?;
        fs::rename(&temporary, self.path.join(format!("{name}.{EXTENSION}")))?;
        File::open(&self.path)?.sync_all()?;
        for (name, _) in &fold {
            remove(&self.path.join(name))?;
        }
        done.folded = fold.len();
        Ok(done)
    }

    /// Every segment's name and blocks.
    fn segments(&self) -> io::Result<Vec<(String, segment::Parsed)>> {
        let listing = match fs::read_dir(&self.path) {
            Ok(listing) => listing,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut segments = Vec::new();
        for item in listing {
            let item = item?;
            let name = item.file_name().to_string_lossy().into_owned();
            if !name.ends_with(&format!(".{EXTENSION}")) {
                continue;
            }
            match fs::read(item.path()) {
                Ok(bytes) => segments.push((name, segment::parse(&bytes))),
                // Folded and deleted by a compaction since the listing.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        segments.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(segments)
    }
}

impl SegmentWriter {
    /// Appends one block of counts (the body of [`crate::Tally::drain`]) in one write.
    pub fn append(&mut self, body: &[u8]) -> io::Result<()> {
        if body.is_empty() {
            return Ok(());
        }
        self.file.write_all(&block(COUNTS, body))
    }

    /// Appends the block that `buf` holds ([`crate::Tally::drain_blocks`]) in one
    /// write, unless its body is empty.
    pub fn append_block(&mut self, buf: &mut [u8]) -> io::Result<()> {
        if !segment::seal(COUNTS, buf) {
            return Ok(());
        }
        self.file.write_all(buf)
    }

    /// The segment's file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// `PREFIX-<nanoseconds since the epoch>-<pid>`: unique among the processes of a host.
fn unique_name(prefix: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{prefix}-{nanos}-{}", std::process::id())
}

fn remove(path: &Path) -> io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
