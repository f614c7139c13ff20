//! Filling a new store from a source that is already in key order (a follower's
//! bootstrap streams PostgreSQL's ordered `COPY` here): the pairs go straight into
//! table files, which are ingested together at the end. No write-ahead log, no
//! memtable, no sort, and no buffering of the pairs in memory.

use std::path::PathBuf;

use rocksdb::{IngestExternalFileOptions, SstFileWriter};

use super::Writer;
use crate::error::StoreError;

/// Table files are closed at about this size (RocksDB's own target for the last
/// level is of the same order), so that later compactions move them whole.
#[cfg(not(test))]
const TABLE_BYTES: u64 = 64 << 20;
/// Small in unit tests, so that a load of a few thousand pairs spans several files.
#[cfg(test)]
const TABLE_BYTES: u64 = 64 << 10;

/// Pairs between two looks at the open table file's size.
const SIZE_EVERY: u64 = 4_096;

/// An ordered load into a [`Writer`]'s store, made by [`Writer::load_sorted`]. Nothing
/// is visible in the store before [`SortedLoad::finish`]; a load dropped unfinished
/// removes its files and leaves the store as it was.
pub struct SortedLoad<'w> {
    writer: &'w Writer,
    /// The table file being written, if any.
    open: Option<SstFileWriter<'w>>,
    /// Every file made, the open one included.
    files: Vec<PathBuf>,
    pairs: u64,
}

impl Writer {
    /// Start an ordered load: [`SortedLoad::put`] pairs in strictly ascending key order
    /// (RocksDB's bytewise order; a key out of order is an error), then
    /// [`SortedLoad::finish`] ingests them in one step. For a store that holds none of
    /// the keys (ingested files go below what the store has, so they must not overlap
    /// it): a new store, as a follower's bootstrap makes.
    pub fn load_sorted(&self) -> SortedLoad<'_> {
        SortedLoad {
            writer: self,
            open: None,
            files: Vec::new(),
            pairs: 0,
        }
    }
}

impl SortedLoad<'_> {
    /// Add `key` = `value`, after every key added so far.
    pub fn put(&mut self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        let sst = match &mut self.open {
            Some(sst) => sst,
            None => {
                let path = self
                    .writer
                    .layout
                    .noid_dir
                    .join(format!("load-{}.sst", self.files.len()));
                let _ = std::fs::remove_file(&path);
                let sst = SstFileWriter::create(&self.writer.opts);
                self.files.push(path);
                sst.open(self.files.last().expect("just pushed"))?;
                self.open.insert(sst)
            }
        };
        sst.put(key, value)?;
        self.pairs += 1;
        if self.pairs.is_multiple_of(SIZE_EVERY) && sst.file_size() >= TABLE_BYTES {
            self.close()?;
        }
        Ok(())
    }

    /// Finish the open table file (RocksDB syncs it).
    fn close(&mut self) -> Result<(), StoreError> {
        if let Some(mut sst) = self.open.take() {
            sst.finish()?;
        }
        Ok(())
    }

    /// Ingest every pair added, in one atomic step; returns how many there were. Long-
    /// lived readers are told to reopen the store, as after any ingestion.
    pub fn finish(mut self) -> Result<u64, StoreError> {
        self.close()?;
        if !self.files.is_empty() {
            self.writer.resume()?;
            let mut io = IngestExternalFileOptions::default();
            io.set_move_files(true);
            self.writer
                .db
                .ingest_external_file_opts(&io, self.files.clone())?;
            self.writer.bumper.renew_store_id();
            self.writer.bumper.bump();
        }
        Ok(self.pairs)
    }
}

impl Drop for SortedLoad<'_> {
    /// Remove the table files (after an ingestion with `move_files`, links RocksDB no
    /// longer needs; after a failure, all there is of the load).
    fn drop(&mut self) {
        self.open = None;
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::{Op, Scan, Snapshot, Writer};

    const T: Duration = Duration::from_secs(5);

    /// The `load-*.sst` files in the store's `NOID` directory.
    fn load_files(dir: &std::path::Path) -> Vec<String> {
        std::fs::read_dir(dir.join("NOID"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("load-"))
            .collect()
    }

    fn all(dir: &std::path::Path) -> Vec<(Vec<u8>, Vec<u8>)> {
        let s = Snapshot::open(dir).unwrap();
        let mut got = Vec::new();
        Scan::scan_from(&s, b"", &mut |k, v| {
            got.push((k.to_vec(), v.to_vec()));
            true
        })
        .unwrap();
        got
    }

    #[test]
    fn an_ordered_load_spans_several_files_and_is_read_back_exactly() {
        let d = tempfile::tempdir().unwrap();
        let w = Writer::create(d.path(), T).unwrap();
        let pairs: Vec<(Vec<u8>, Vec<u8>)> = (0..20_000)
            .map(|i| {
                (
                    format!("99999/x{i:06}\t_t").into_bytes(),
                    format!("https://example.org/{i}").into_bytes(),
                )
            })
            .collect();
        let mut load = w.load_sorted();
        for (k, v) in &pairs {
            load.put(k, v).unwrap();
        }
        assert!(load.files.len() >= 3, "{} files", load.files.len());
        assert_eq!(load.finish().unwrap(), 20_000);
        assert!(load_files(d.path()).is_empty());
        // A write after the load lands on top of it, as a follower's applied number does.
        w.commit([Op::Put(b":/pg/applied".to_vec(), b"9".to_vec())])
            .unwrap();
        drop(w);
        let got = all(d.path());
        assert_eq!(got.len(), 20_001);
        // '9' (0x39) sorts before ':' (0x3a).
        assert_eq!(&got[..20_000], &pairs[..]);
        assert_eq!(got[20_000], (b":/pg/applied".to_vec(), b"9".to_vec()));
    }

    #[test]
    fn a_key_out_of_order_fails_and_leaves_the_store_as_it_was() {
        let d = tempfile::tempdir().unwrap();
        let w = Writer::create(d.path(), T).unwrap();
        w.commit([Op::Put(b"a".to_vec(), b"1".to_vec())]).unwrap();
        let mut load = w.load_sorted();
        load.put(b"m", b"2").unwrap();
        assert!(load.put(b"c", b"3").is_err());
        drop(load);
        assert!(load_files(d.path()).is_empty());
        // An empty load ingests nothing.
        assert_eq!(w.load_sorted().finish().unwrap(), 0);
        drop(w);
        assert_eq!(all(d.path()), vec![(b"a".to_vec(), b"1".to_vec())]);
    }
}
