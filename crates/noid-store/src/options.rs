//! RocksDB options shared by writers and readers.
//!
//! Bloom filters are written into SST files by the *writer*, so both sides must use
//! the same table options; readers only differ in cache size.

use rocksdb::{
    BlockBasedIndexType, BlockBasedOptions, BlockBasedTablePinningTier, Cache, DBCompressionType,
    DataBlockIndexType, Options,
};

/// Options for opening a minter database, with a block cache of `cache_bytes`.
pub(crate) fn db_options(cache_bytes: usize) -> Options {
    options(cache_bytes, false)
}

/// Options for a reader. A long-lived one (the resolver) keeps every index and filter
/// partition pinned once read, so a lookup consults the block cache for its data block
/// alone instead of three times (a fifth of a hit's time went to cache look-ups). A
/// short-lived one (a one-lookup command) does without: pinning reads every partition
/// at open.
pub(crate) fn reader_options(cache_bytes: usize, long_lived: bool) -> Options {
    options(cache_bytes, long_lived)
}

fn options(cache_bytes: usize, pin_partitions: bool) -> Options {
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
    // A large mint ingests one level-0 table per 100,000 identifiers, each overlapping
    // all the others (random ids). Merging them four at a time rewrote level 1 again and
    // again and took a third of a large mint's CPU; eight at a time rewrites a third less.
    o.set_level_zero_file_num_compaction_trigger(8);
    let mut b = BlockBasedOptions::default();
    // Most resolver lookups of chopped ancestors miss; a bloom filter makes misses ~8x cheaper.
    b.set_bloom_filter(10.0, false);
    // A long-lived reader serves lookups from several threads: RocksDB's HyperClockCache
    // finds a block without a lock (the LRU cache takes a shard mutex per lookup, and
    // two request threads then spend their time passing it back and forth). Short-lived
    // processes keep the LRU cache, which costs nothing to set up.
    if pin_partitions {
        b.set_block_cache(&Cache::new_hyper_clock_cache(cache_bytes, 0));
    } else {
        b.set_block_cache(&Cache::new_lru_cache(cache_bytes));
    }
    // Partitioned filters and a two-level index, cached in small (4 KiB) pieces. With
    // one full filter per SST, a store of a million identifiers has multi-megabyte
    // filter blocks: kept outside the cache they must all be read at every open (a
    // 100 ms `noid get`); inside it they exceed a cache shard and are re-read on every
    // lookup (minting 70 times slower). Partitions give fast opens and cached lookups.
    b.set_index_type(BlockBasedIndexType::TwoLevelIndexSearch);
    b.set_partition_filters(true);
    b.set_metadata_block_size(4096);
    b.set_cache_index_and_filter_blocks(true);
    b.set_cache_index_and_filter_blocks_with_high_priority(true);
    b.set_pin_top_level_index_and_filter(true);
    b.set_pin_l0_filter_and_index_blocks_in_cache(true);
    if pin_partitions {
        b.set_partition_pinning_tier(BlockBasedTablePinningTier::All);
        b.set_unpartitioned_pinning_tier(BlockBasedTablePinningTier::All);
    }
    // A hash index inside each data block finds a key without a binary search (a
    // property of the tables written from now on; older tables keep working).
    b.set_data_block_index_type(DataBlockIndexType::BinaryAndHash);
    b.set_data_block_hash_ratio(0.75);
    // A key is found by its restart point (through the hash index), then by decoding
    // the entries after it one by one: four per restart point instead of RocksDB's 16
    // makes a hit ~8 % cheaper for ~15 % larger data blocks (keys share less prefix).
    b.set_block_restart_interval(4);
    o.set_block_based_table_factory(&b);
    o
}

/// Options for the single writer: as [`db_options`], plus a memtable bloom filter.
///
/// Minting probes the hold and circulation keys of every candidate, nearly all absent
/// and nearly all in the memtable: the filter answers those misses without walking the
/// skiplist. Readers go without it: its several megabytes, zeroed at every open, would
/// dominate the start-up of a short `noid get`.
pub(crate) fn writer_options(cache_bytes: usize) -> Options {
    let mut o = db_options(cache_bytes);
    o.set_memtable_prefix_bloom_ratio(0.1);
    o.set_memtable_whole_key_filtering(true);
    o
}
