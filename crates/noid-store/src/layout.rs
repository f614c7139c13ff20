//! Where a minter's files live inside its `Dbdir`.

use std::path::{Path, PathBuf};

/// The paths of one minter, all under `Dbdir/NOID/` as in the noid manual.
#[derive(Debug, Clone)]
pub struct Layout {
    /// `Dbdir/NOID`.
    pub noid_dir: PathBuf,
    /// The RocksDB directory, `Dbdir/NOID/noid.rocksdb`.
    pub db: PathBuf,
    /// The writers' `flock` file, `Dbdir/NOID/lock` (the name Perl Noid used).
    pub lock: PathBuf,
    /// The writer-bumped change counter readers poll, `Dbdir/NOID/generation`.
    pub generation: PathBuf,
    /// Where a writer builds a large batch as a table file before RocksDB takes it
    /// in, `Dbdir/NOID/batch.sst` (only the lock holder writes it).
    pub batch_sst: PathBuf,
    /// The creation record, `Dbdir/NOID/README`.
    pub readme: PathBuf,
    /// The minter's log, `Dbdir/NOID/log`.
    pub log: PathBuf,
}

impl Layout {
    /// The layout of the minter in `dbdir`.
    pub fn new(dbdir: &Path) -> Layout {
        let noid_dir = dbdir.join("NOID");
        Layout {
            db: noid_dir.join("noid.rocksdb"),
            lock: noid_dir.join("lock"),
            generation: noid_dir.join("generation"),
            batch_sst: noid_dir.join("batch.sst"),
            readme: noid_dir.join("README"),
            log: noid_dir.join("log"),
            noid_dir,
        }
    }

    /// Whether a minter database exists here (its RocksDB `CURRENT` file is present).
    pub fn exists(&self) -> bool {
        self.db.join("CURRENT").is_file()
    }
}
