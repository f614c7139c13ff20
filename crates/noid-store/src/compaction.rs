//! What `noid compact` reports: the embedded store's table files by level, before and
//! after a full compaction ([`crate::Store::compact`]).

/// The table files of one level of the embedded store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Level {
    /// RocksDB's level number: 0 holds the newest tables, each overlapping the others;
    /// the highest level holds most of the data.
    pub level: u32,
    /// How many table files it holds.
    pub files: usize,
    /// Their size on disk.
    pub bytes: u64,
}

/// The store's non-empty levels, lowest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Levels(pub Vec<Level>);

impl Levels {
    /// Table files in all levels.
    pub fn files(&self) -> usize {
        self.0.iter().map(|l| l.files).sum()
    }

    /// Bytes of table files in all levels.
    pub fn bytes(&self) -> u64 {
        self.0.iter().map(|l| l.bytes).sum()
    }
}

/// A full compaction's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compaction {
    /// The levels before it.
    pub before: Levels,
    /// The levels after it: one, unless the store is empty.
    pub after: Levels,
    /// How long it took.
    pub took: std::time::Duration,
    /// How the tables after it hold their index and filters.
    pub index: crate::TableIndex,
}
