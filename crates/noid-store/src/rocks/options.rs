//! RocksDB options shared by writers and readers.
//!
//! Bloom filters are written into SST files by the *writer*, so both sides must use
//! the same table options; readers only differ in cache size.

use std::path::Path;

use crate::TableIndex;

use rocksdb::{
    BlockBasedIndexType, BlockBasedOptions, BlockBasedTablePinningTier, Cache, DBCompressionType,
    DataBlockIndexType, LruCacheOptions, Options, DB,
};

/// Which index and filter blocks a reader keeps pinned in its block cache, so that a
/// lookup never reads them from the file. Pinned blocks are charged to the cache but
/// never evicted: pinning more than the cache holds grows the process past the size it
/// was given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetadataPins {
    /// A short-lived reader (a command's few lookups): pinning would read every
    /// table's at open, while a lookup needs those of one table per level. Only the
    /// small top-level indexes of partitioned tables and level 0's stay.
    Few,
    /// Every table's, whole or in pieces: the resolver's choice when they fit in half
    /// its block cache ([`choose_pins`]).
    All,
    /// Whole index and filter blocks and the top level of partitioned ones; their
    /// 4 KB pieces stay in the cache only while lookups use them. The resolver's
    /// choice when its cache is too small for them: its memory stays within the cache
    /// it was given, and a lookup may read a piece or two from the file.
    AllButPieces,
}

/// The pins a long-lived reader with a block cache of `cache_bytes` chooses for a
/// store whose table files hold `tables_bytes`, whose writers write the tables'
/// index and filters as `index` says, and whose tables' index and filter blocks are
/// `metadata()` (asked only when the rest does not settle it, since it needs the
/// store opened).
///
/// Every table's index and filter are pinned when they fit in half the cache, leaving
/// the other half to data blocks; otherwise the pieces of tables written in pieces
/// ([`TableIndex::Pieces`]) are left to the cache. Whole blocks stay pinned in both
/// cases: read again at a lookup, one would cost megabytes (a 64 MB table's filter is
/// 4 MB). So a store written whole grows its resolvers by its index and filters,
/// whatever their cache, and is opened pinned at once; one written in pieces keeps
/// them within it.
pub(crate) fn choose_pins(
    cache_bytes: usize,
    tables_bytes: u64,
    index: TableIndex,
    metadata: impl FnOnce() -> Metadata,
) -> MetadataPins {
    let half = cache_bytes as u64 / 2;
    if tables_bytes <= half || index == TableIndex::Whole {
        return MetadataPins::All;
    }
    let m = metadata();
    if m.bytes <= half || m.pieces == 0 {
        MetadataPins::All
    } else {
        MetadataPins::AllButPieces
    }
}

/// A store's index and filter blocks, as RocksDB counts them in its tables' properties.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Metadata {
    /// Their bytes, pieces included.
    pub bytes: u64,
    /// The pieces of the indexes of tables written in pieces (0: every table whole).
    pub pieces: u64,
}

/// The index and filter blocks of the open store `db`; none if RocksDB does not say.
pub(crate) fn metadata(db: &DB) -> Metadata {
    let Ok(Some(props)) = db.property_value("rocksdb.aggregated-table-properties") else {
        return Metadata::default();
    };
    Metadata {
        bytes: table_property(&props, "index block size")
            + table_property(&props, "filter block size"),
        pieces: table_property(&props, "# index partitions"),
    }
}

/// The total size of the table files in the RocksDB directory `db`: what decides how
/// the tables a writer writes are laid out ([`TableLayout::of`]), and a bound on their
/// index and filter blocks. A directory that cannot be listed counts as empty, as a
/// new store does.
pub(crate) fn tables_bytes(db: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(db) else {
        return 0;
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".sst"))
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// The number RocksDB's aggregated table properties `props` give for `name` ("name=N;"
/// or "name (detail)=N;"), 0 if absent.
pub(crate) fn table_property(props: &str, name: &str) -> u64 {
    props
        .split(name)
        .nth(1)
        .and_then(|after| after.split(['=', ';']).nth(1))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// Options for a reader with a block cache of `cache_bytes` that keeps `pins` pinned.
/// A long-lived one (any pins but [`MetadataPins::Few`]) serves lookups from several
/// threads. (A reader writes no table, so the table layout given here is never used.)
///
/// A reader for a few lookups (`lazy_tables`) reads no filter, and opens each table
/// when a lookup first needs it: opening every table (RocksDB's way for a secondary,
/// which checks each table's identity as it reads the store's manifest) reads ahead
/// every table's index and filter, 357 MB at 50M identifiers, for a `noid get` that
/// needs one table. Such a reader must open the store again when a writer's
/// compaction removes a table it had not yet opened
/// ([`crate::Snapshot::open_for_lookups`]).
pub(crate) fn reader_options(cache_bytes: usize, pins: MetadataPins, lazy_tables: bool) -> Options {
    // A view for a few lookups reads no table's filter: RocksDB reads a table's whole
    // filter block the first time a lookup consults it (4 MB for a 64 MB table
    // written whole), which costs more than the 4 KB data block it would spare
    // (docs/SCALING.md, "`noid get` and `fetch` read no filter").
    let filters = !lazy_tables;
    let mut o = options(
        cache_bytes,
        pins,
        TableLayout::of(0, TableIndex::Whole),
        filters,
    );
    if lazy_tables {
        // RocksDB's least: 20 files, 10 of them tables, 2 of those opened at once.
        o.set_max_open_files(20);
        // Not offered by the crate's setters; the block cache is held by the table
        // factory the new options share.
        o = o
            .get_options_from_string("verify_sst_unique_id_in_manifest=false")
            .expect("a RocksDB option of this version");
    }
    o
}

/// Tables of a store past this size (about 10 million identifiers of N2T's shape) are
/// written with an index restart point every [`LARGE_INDEX_RESTART_INTERVAL`] entries.
pub(crate) const LARGE_STORE_BYTES: u64 = 1 << 30;

/// See [`TableLayout::of`].
const LARGE_INDEX_RESTART_INTERVAL: i32 = 16;

/// How the tables a writer writes lay out their index and filter: a property of each
/// table, read by every reader whatever its own options. A store holds tables of both
/// kinds while compaction rewrites it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TableLayout {
    /// An index restart point every this many entries.
    pub index_restart_interval: i32,
    /// Whole, or in pieces (the store's setting).
    pub index: TableIndex,
}

impl TableLayout {
    /// The layout of the tables a writer of a store of `store_bytes` (its table files'
    /// total size when the writer opens it) whose setting is `index` writes.
    ///
    /// The index restart interval follows the store's size. A table's index has an
    /// entry per data block (13,000 in a 64 MB table), and a lookup binary-searches
    /// them. While the store's indexes fit in the CPU's caches (a small store), each
    /// step is cheap, and RocksDB's restart point at every entry is best: a lookup
    /// decodes no entry it does not compare. Past [`LARGE_STORE_BYTES`], each step is
    /// a cache miss, and a restart point every 16 entries takes four steps off the
    /// search for a short scan of neighbouring entries, and makes the index smaller.
    /// At 50M identifiers that cost `noidr` 14 % less CPU per chop-back and 5 % less
    /// per hit (docs/SCALING.md, "What the curve showed"); in a 100,000-identifier
    /// store it would cost the modules some 1,700 instructions more per first request.
    pub(crate) fn of(store_bytes: u64, index: TableIndex) -> TableLayout {
        TableLayout {
            index_restart_interval: if store_bytes > LARGE_STORE_BYTES {
                LARGE_INDEX_RESTART_INTERVAL
            } else {
                1
            },
            index,
        }
    }
}

/// The table options that lay out index and filters as `index` says, as RocksDB's
/// `SetOptions` takes them: how a writer changes the layout of the tables it writes
/// from then on without being opened again.
pub(crate) fn table_index_options(index: TableIndex) -> [(&'static str, &'static str); 1] {
    let table = match index {
        TableIndex::Whole => "{index_type=kBinarySearch;partition_filters=false}",
        TableIndex::Pieces => {
            "{index_type=kTwoLevelIndexSearch;partition_filters=true;metadata_block_size=4096}"
        }
    };
    [("block_based_table_factory", table)]
}

fn options(cache_bytes: usize, pins: MetadataPins, layout: TableLayout, filters: bool) -> Options {
    let mut o = Options::default();
    // Each primary open rotates the info log; without a cap the directory fills with LOG.old.*.
    o.set_keep_log_file_num(5);
    o.set_log_level(rocksdb::LogLevel::Warn);
    // Secondaries need every SST kept open so a writer's compaction cannot pull files away.
    o.set_max_open_files(-1);
    // RocksDB opens table files with 16 threads by default; creating and joining them
    // cost a short `noid get` more than the few files it opens.
    o.set_max_file_opening_threads(1);
    o.set_compression_type(DBCompressionType::Lz4);
    // A large mint ingests one level-0 table per batch, each overlapping all the others
    // (quasi-random ids); every compaction into level 1 rewrites that level, so it waits
    // for eight of them rather than RocksDB's four.
    o.set_level_zero_file_num_compaction_trigger(8);
    let mut b = BlockBasedOptions::default();
    // Most resolver lookups of chopped ancestors miss; a bloom filter answers most misses
    // without reading a data block. A writer writes one into every table; a reader
    // without one reads none ([`reader_options`]).
    if filters {
        b.set_bloom_filter(10.0, false);
    }
    // A long-lived reader serves lookups from several threads: RocksDB's HyperClockCache
    // finds a block without a lock (the LRU cache takes a shard mutex per lookup, and
    // two request threads then spend their time passing it back and forth). Short-lived
    // processes and the writer keep an LRU cache, which costs nothing to set up, in one
    // shard: a sharded cache refuses a block larger than its shard, and a large table's
    // filter (a megabyte or more) would then be read again at every lookup.
    if pins != MetadataPins::Few {
        b.set_block_cache(&Cache::new_hyper_clock_cache(cache_bytes, 0));
    } else {
        let mut lru = LruCacheOptions::default();
        lru.set_capacity(cache_bytes);
        lru.set_num_shard_bits(0);
        b.set_block_cache(&Cache::new_lru_cache_opts(&lru));
    }
    // One index block and one whole-table filter per table (RocksDB's default layout),
    // loaded into the cache when a lookup first needs them: a lookup then consults one
    // index and one filter per table, where partitioned ones add a level of each.
    b.set_cache_index_and_filter_blocks(true);
    b.set_cache_index_and_filter_blocks_with_high_priority(true);
    b.set_pin_l0_filter_and_index_blocks_in_cache(true);
    // The top levels of tables in pieces, small and consulted by every lookup in such
    // a table, stay pinned in every reader.
    b.set_pin_top_level_index_and_filter(true);
    match pins {
        MetadataPins::Few => {}
        MetadataPins::All => {
            b.set_unpartitioned_pinning_tier(BlockBasedTablePinningTier::All);
            b.set_partition_pinning_tier(BlockBasedTablePinningTier::All);
        }
        MetadataPins::AllButPieces => {
            b.set_unpartitioned_pinning_tier(BlockBasedTablePinningTier::All);
            b.set_top_level_index_pinning_tier(BlockBasedTablePinningTier::All);
            b.set_partition_pinning_tier(BlockBasedTablePinningTier::None);
        }
    }
    // A hash index inside each data block finds a key without a binary search (a
    // property of the tables written from now on; older tables keep working).
    b.set_data_block_index_type(DataBlockIndexType::BinaryAndHash);
    b.set_data_block_hash_ratio(0.75);
    // A key is found by its restart point (through the hash index), then by decoding
    // the entries after it one by one: four per restart point instead of RocksDB's 16
    // decode fewer entries per hit, for somewhat larger data blocks (keys share less
    // prefix).
    b.set_block_restart_interval(4);
    b.set_index_block_restart_interval(layout.index_restart_interval);
    if layout.index == TableIndex::Pieces {
        b.set_index_type(BlockBasedIndexType::TwoLevelIndexSearch);
        b.set_partition_filters(true);
        b.set_metadata_block_size(4096);
    }
    o.set_block_based_table_factory(&b);
    o
}

/// Options for the single writer of a store that writes its tables as `layout` says,
/// with a block cache of `cache_bytes` and a memtable bloom filter.
///
/// Minting probes the hold and circulation keys of every candidate, nearly all absent
/// and nearly all in the memtable: the filter answers those misses without walking the
/// skiplist. Readers go without it: its several megabytes, zeroed at every open, would
/// dominate the start-up of a short `noid get`.
pub(crate) fn writer_options(cache_bytes: usize, layout: TableLayout) -> Options {
    let mut o = options(cache_bytes, MetadataPins::Few, layout, true);
    o.set_memtable_prefix_bloom_ratio(0.1);
    o.set_memtable_whole_key_filtering(true);
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rocks::test_keys::{scattered_key, target};

    /// RocksDB's own count `name` in the open store `db`'s table properties.
    fn property(db: &DB, name: &str) -> u64 {
        let props = db
            .property_value("rocksdb.aggregated-table-properties")
            .unwrap()
            .unwrap();
        if name != "# index partitions" {
            assert!(props.contains(name), "{name} not in {props}");
        }
        table_property(&props, name)
    }

    /// The same 20,000 keys written by a writer of a small store, of one past
    /// `LARGE_STORE_BYTES`, and of one set to write its index in pieces: the second's
    /// tables have a restart point every 16 index entries, so that their index is
    /// several times smaller, the third's are in pieces (RocksDB's own counts), and all
    /// read the same.
    #[test]
    fn a_large_stores_writer_writes_sparser_indexes_and_pieces_when_asked() {
        let d = tempfile::tempdir().unwrap();
        let write = |name: &str, layout: TableLayout| {
            let mut o = writer_options(8 << 20, layout);
            o.create_if_missing(true);
            let db = DB::open(&o, d.path().join(name)).unwrap();
            for i in 0..20_000u32 {
                db.put(scattered_key(i), target(i)).unwrap();
            }
            db.flush().unwrap();
            db
        };
        let large_bytes = LARGE_STORE_BYTES + 1;
        let small = write("small", TableLayout::of(0, TableIndex::Whole));
        let large = write("large", TableLayout::of(large_bytes, TableIndex::Whole));
        let pieces = write("pieces", TableLayout::of(0, TableIndex::Pieces));
        let (s, l) = (
            property(&small, "index block size"),
            property(&large, "index block size"),
        );
        assert!(
            l * 3 < s,
            "index of the large store's tables {l}, of the small's {s}"
        );
        assert_eq!(property(&small, "# index partitions"), 0);
        assert_eq!(property(&large, "# index partitions"), 0);
        assert!(property(&pieces, "# index partitions") > 1);
        assert!(metadata(&small).bytes > s, "the filter counts too");
        assert_eq!(metadata(&small).pieces, 0);
        assert_eq!(
            metadata(&pieces).pieces,
            property(&pieces, "# index partitions")
        );
        for db in [&small, &large, &pieces] {
            assert_eq!(
                db.get(scattered_key(7)).unwrap(),
                Some(target(7).into_bytes())
            );
        }
        assert_eq!(
            TableLayout::of(LARGE_STORE_BYTES, TableIndex::Whole).index_restart_interval,
            1
        );
    }

    /// A resolver pins every index and filter while they fit in half its cache, and
    /// asks for their size only when neither the tables' own size (a bound on it) nor
    /// the store's setting settles it; it leaves to the cache only pieces, never whole
    /// blocks.
    #[test]
    fn index_and_filters_are_pinned_while_they_fit_in_half_the_cache() {
        let unasked = || -> Metadata { panic!("settled without it") };
        let m = |bytes, pieces| move || Metadata { bytes, pieces };
        let pieces = TableIndex::Pieces;
        assert_eq!(choose_pins(1000, 500, pieces, unasked), MetadataPins::All);
        assert_eq!(
            choose_pins(1000, 10_000, TableIndex::Whole, unasked),
            MetadataPins::All
        );
        assert_eq!(
            choose_pins(1000, 10_000, pieces, m(500, 9)),
            MetadataPins::All
        );
        assert_eq!(
            choose_pins(1000, 10_000, pieces, m(501, 9)),
            MetadataPins::AllButPieces
        );
        assert_eq!(
            choose_pins(1000, 10_000, pieces, m(501, 0)),
            MetadataPins::All,
            "whole blocks are pinned anyway"
        );
    }
}
