//! How an embedded store's tables hold their index and filters: whole, or in 4 KB
//! pieces (`noid compact --index`). A setting of the store, kept in
//! `Dbdir/NOID/table-index` and read by each writer as it opens; readers read every
//! table whichever way it was written.

use std::io::Write;
use std::path::Path;

use crate::error::{io, StoreError};
use crate::layout::Layout;

/// The layout of the index and filter blocks of the tables a store's writers write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum TableIndex {
    /// One index block and one filter block per table (RocksDB's default; every store
    /// without the setting). A lookup consults one of each per table, the cheapest
    /// there is, but a resolver must hold every table's to answer at speed: about 7
    /// bytes per identifier of N2T's shape, whatever its cache.
    #[default]
    Whole,
    /// Index and filter cut into 4 KB pieces under a small top-level index: a resolver
    /// whose cache cannot hold them all keeps the pieces its lookups use, so its
    /// memory stays within the cache it was given. Costs every lookup a level more of
    /// each (at 50M identifiers, a quarter more CPU per hit with every piece in
    /// memory).
    Pieces,
}

impl TableIndex {
    /// The word the setting file and `noid compact --index` use.
    pub fn name(self) -> &'static str {
        match self {
            TableIndex::Whole => "whole",
            TableIndex::Pieces => "pieces",
        }
    }

    /// The setting named `word` ([`TableIndex::name`]).
    pub fn from_name(word: &str) -> Option<TableIndex> {
        [TableIndex::Whole, TableIndex::Pieces]
            .into_iter()
            .find(|t| t.name() == word)
    }

    /// The setting of the store laid out as `layout`: [`TableIndex::Whole`] when its
    /// file is absent; an error when it cannot be read or names no layout (rather than
    /// writing tables a way nobody chose).
    pub(crate) fn of(layout: &Layout) -> Result<TableIndex, StoreError> {
        let path = &layout.table_index;
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(TableIndex::Whole),
            Err(e) => return Err(io(path)(e)),
        };
        TableIndex::from_name(text.trim()).ok_or_else(|| {
            StoreError::Backend(format!(
                "{}: {:?} is not a table layout (whole or pieces)",
                path.display(),
                text.trim()
            ))
        })
    }

    /// Keep `self` as the setting of the store laid out as `layout`: written to a
    /// temporary file, synced, and renamed over the setting, so that a crash leaves the
    /// old setting or the new one.
    pub(crate) fn keep(self, layout: &Layout) -> Result<(), StoreError> {
        let path = &layout.table_index;
        let temporary = path.with_extension("new");
        let write = |p: &Path| -> std::io::Result<()> {
            let mut f = std::fs::File::create(p)?;
            writeln!(f, "{}", self.name())?;
            f.sync_all()
        };
        write(&temporary).map_err(io(&temporary))?;
        std::fs::rename(&temporary, path).map_err(io(path))?;
        std::fs::File::open(&layout.noid_dir)
            .and_then(|d| d.sync_all())
            .map_err(io(&layout.noid_dir))
    }
}
