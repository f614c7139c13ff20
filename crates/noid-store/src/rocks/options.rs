//! RocksDB options shared by writers and readers.
//!
//! Bloom filters are written into SST files by the *writer*, so both sides must use
//! the same table options; readers only differ in cache size.

use rocksdb::{
    BlockBasedOptions, BlockBasedTablePinningTier, Cache, DBCompressionType, DataBlockIndexType,
    LruCacheOptions, Options,
};

/// Options for a reader. A long-lived one (the resolver) keeps every table's index and
/// filter pinned, so a lookup consults the block cache for its data block alone. A
/// short-lived one (a one-lookup command) does without: pinning reads them all at open,
/// while a lookup needs those of one table per level. (A reader writes no table, so
/// the index layout given here is never used.)
///
/// A reader for a few lookups (`lazy_tables`) opens each table when a lookup first
/// needs it: opening every table (RocksDB's way for a secondary, which checks each
/// table's identity as it reads the store's manifest) read ahead every table's index
/// and filter, 357 MB at 50M identifiers, for a `noid get` that needs one table. Such a
/// reader must open the store again when a writer's compaction removes a table it had
/// not yet opened ([`crate::Snapshot::open_for_lookups`]).
pub(crate) fn reader_options(cache_bytes: usize, long_lived: bool, lazy_tables: bool) -> Options {
    let mut o = options(cache_bytes, long_lived, index_restart_interval(0));
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

/// See [`index_restart_interval`].
const LARGE_INDEX_RESTART_INTERVAL: i32 = 16;

/// The index restart interval for the tables a writer of a store of `store_bytes`
/// (its table files' total size when the writer opens it) writes.
///
/// A table's index has an entry per data block (13,000 in a 64 MB table), and a
/// lookup binary-searches them. While the store's indexes fit in the CPU's caches
/// (a small store), each step is cheap, and RocksDB's restart point at every entry is
/// best: a lookup decodes no entry it does not compare. Past [`LARGE_STORE_BYTES`],
/// each step is a cache miss, and a restart point every 16 entries takes four steps
/// off the search for a short scan of neighbouring entries, and makes the index
/// smaller. At 50M identifiers that cost `noidr` 14 % less CPU per chop-back and 5 %
/// less per hit (docs/SCALING.md, "What the curve showed"); in a 100,000-identifier
/// store it would cost the modules some 1,700 instructions more per first request.
/// A store holds tables of both kinds while compaction rewrites it; every reader
/// reads both.
pub(crate) fn index_restart_interval(store_bytes: u64) -> i32 {
    if store_bytes > LARGE_STORE_BYTES {
        LARGE_INDEX_RESTART_INTERVAL
    } else {
        1
    }
}

fn options(cache_bytes: usize, pin_blocks: bool, index_restart_interval: i32) -> Options {
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
    // without reading a data block.
    b.set_bloom_filter(10.0, false);
    // A long-lived reader serves lookups from several threads: RocksDB's HyperClockCache
    // finds a block without a lock (the LRU cache takes a shard mutex per lookup, and
    // two request threads then spend their time passing it back and forth). Short-lived
    // processes and the writer keep an LRU cache, which costs nothing to set up, in one
    // shard: a sharded cache refuses a block larger than its shard, and a large table's
    // filter (a megabyte or more) would then be read again at every lookup.
    if pin_blocks {
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
    // Tables written before keep their partitions until compaction rewrites them.
    b.set_pin_top_level_index_and_filter(true);
    if pin_blocks {
        b.set_unpartitioned_pinning_tier(BlockBasedTablePinningTier::All);
        b.set_partition_pinning_tier(BlockBasedTablePinningTier::All);
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
    b.set_index_block_restart_interval(index_restart_interval);
    o.set_block_based_table_factory(&b);
    o
}

/// Options for the single writer of a store of `store_bytes` (its tables' total size as
/// it opens; see [`index_restart_interval`]), with a block cache of `cache_bytes`, and a
/// memtable bloom filter.
///
/// Minting probes the hold and circulation keys of every candidate, nearly all absent
/// and nearly all in the memtable: the filter answers those misses without walking the
/// skiplist. Readers go without it: its several megabytes, zeroed at every open, would
/// dominate the start-up of a short `noid get`.
pub(crate) fn writer_options(cache_bytes: usize, store_bytes: u64) -> Options {
    let mut o = options(cache_bytes, false, index_restart_interval(store_bytes));
    o.set_memtable_prefix_bloom_ratio(0.1);
    o.set_memtable_whole_key_filtering(true);
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use rocksdb::DB;

    /// The index block size RocksDB reports for a store's tables.
    fn index_bytes(db: &DB) -> u64 {
        let props = db
            .property_value("rocksdb.aggregated-table-properties")
            .unwrap()
            .unwrap();
        let after = props
            .split("index block size")
            .nth(1)
            .unwrap_or_else(|| panic!("{props}"));
        after
            .split(['=', ';'])
            .nth(1)
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("{props}"))
    }

    /// The same 20,000 keys written by a writer of a small store and of one past
    /// `LARGE_STORE_BYTES`: the second's tables have a restart point every 16 index
    /// entries, so their index is several times smaller (RocksDB's own count), and both
    /// read the same.
    #[test]
    fn a_large_stores_writer_writes_sparser_indexes() {
        let d = tempfile::tempdir().unwrap();
        let write = |name: &str, store_bytes: u64| {
            let mut o = writer_options(8 << 20, store_bytes);
            o.create_if_missing(true);
            let db = DB::open(&o, d.path().join(name)).unwrap();
            for i in 0..20_000u32 {
                let id = format!("ark:/99999/b{:08x}\t_t", i.wrapping_mul(2_654_435_761));
                db.put(id, format!("https://example.org/{i}")).unwrap();
            }
            db.flush().unwrap();
            db
        };
        let small = write("small", 0);
        let large = write("large", LARGE_STORE_BYTES + 1);
        let (s, l) = (index_bytes(&small), index_bytes(&large));
        assert!(
            l * 3 < s,
            "index of the large store's tables {l}, of the small's {s}"
        );
        let key = format!("ark:/99999/b{:08x}\t_t", 7u32.wrapping_mul(2_654_435_761));
        assert_eq!(small.get(&key).unwrap().unwrap(), b"https://example.org/7");
        assert_eq!(large.get(&key).unwrap().unwrap(), b"https://example.org/7");
        assert_eq!(index_restart_interval(LARGE_STORE_BYTES), 1);
    }
}
