//! Where a minter's files live inside its `Dbdir`.

use std::path::{Path, PathBuf};

/// The paths of one minter, all under `Dbdir/NOID/` as in the noid manual.
#[derive(Debug, Clone)]
pub struct Layout {
    /// `Dbdir/NOID`.
    pub noid_dir: PathBuf,
    /// The RocksDB directory, `Dbdir/NOID/noid.rocksdb`.
    pub db: PathBuf,
    /// The writers' `flock` file, `Dbdir/NOID/lock` (the name Perl Noid used): one
    /// writer at a time holds it, from open to close.
    pub lock: PathBuf,
    /// The readers' gate, `Dbdir/NOID/busy`: held exclusively by the writer while it
    /// may change the store's files (`noid` from open to close; `noid serve` while it
    /// commits); long-lived readers catch up only while they can hold it shared.
    pub busy: PathBuf,
    /// The writer-bumped change counter readers poll, `Dbdir/NOID/generation`.
    pub generation: PathBuf,
    /// Where a writer builds a large batch as a table file before RocksDB takes it
    /// in, `Dbdir/NOID/batch.sst` (only the lock holder writes it).
    pub batch_sst: PathBuf,
    /// The creation record, `Dbdir/NOID/README`.
    pub readme: PathBuf,
    /// The minter's log, `Dbdir/NOID/log`.
    pub log: PathBuf,
    /// Where a minter held by a database server says which ([`crate::pg::Location`]),
    /// `Dbdir/NOID/backend`; absent for the embedded store.
    pub backend: PathBuf,
    /// The changed-identifiers feed, `Dbdir/NOID/changes` ([`crate::changes`]).
    pub changes: PathBuf,
    /// How the store's writers lay out their tables' index and filters,
    /// `Dbdir/NOID/table-index` ([`crate::TableIndex`]); absent: whole.
    pub table_index: PathBuf,
}

impl Layout {
    /// The layout of the minter in `dbdir`.
    pub fn new(dbdir: &Path) -> Layout {
        let noid_dir = dbdir.join("NOID");
        Layout {
            db: noid_dir.join("noid.rocksdb"),
            lock: noid_dir.join("lock"),
            busy: noid_dir.join("busy"),
            generation: noid_dir.join("generation"),
            batch_sst: noid_dir.join("batch.sst"),
            readme: noid_dir.join("README"),
            log: noid_dir.join("log"),
            backend: noid_dir.join("backend"),
            changes: noid_dir.join("changes"),
            table_index: noid_dir.join("table-index"),
            noid_dir,
        }
    }

    /// Whether an embedded minter database exists here (its RocksDB `CURRENT` file is
    /// present).
    pub fn exists(&self) -> bool {
        self.db.join("CURRENT").is_file()
    }

    /// Whether a minter lives here, embedded or on a database server.
    pub fn has_minter(&self) -> bool {
        self.exists() || self.backend.is_file()
    }

    /// The Dbdir a program's name selects, as in the noid manual: the part of its file
    /// name after the first `_` (`noid_fk9` and `noidr_fk9` serve the minter in `fk9`,
    /// relative to the current directory); `None` without a `_` or with nothing after it.
    pub fn dbdir_from_program_name(argv0: &str) -> Option<PathBuf> {
        let name = Path::new(argv0).file_name()?.to_str()?;
        let (_, rest) = name.split_once('_')?;
        (!rest.is_empty()).then(|| PathBuf::from(rest))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbdir_from_program_name() {
        let dbdir = |argv0| Layout::dbdir_from_program_name(argv0);
        assert_eq!(dbdir("noid_fk9"), Some(PathBuf::from("fk9")));
        assert_eq!(dbdir("/srv/nd/noidr_kt5"), Some(PathBuf::from("kt5")));
        assert_eq!(dbdir("./noid_a_b"), Some(PathBuf::from("a_b")));
        assert_eq!(dbdir("/srv/no_id/noid"), None);
        assert_eq!(dbdir("noid"), None);
        assert_eq!(dbdir("noidr_"), None);
        assert_eq!(dbdir(""), None);
    }
}
