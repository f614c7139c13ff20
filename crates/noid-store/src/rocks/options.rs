//! RocksDB options shared by writers and readers.
//!
//! Bloom filters are written into SST files by the *writer*, so both sides must use
//! the same table options; readers only differ in cache size.

use rocksdb::{
    BlockBasedOptions, BlockBasedTablePinningTier, Cache, DBCompressionType, DataBlockIndexType,
    LruCacheOptions, Options,
};

/// Options for opening a minter database, with a block cache of `cache_bytes`.
pub(crate) fn db_options(cache_bytes: usize) -> Options {
    options(cache_bytes, false)
}

/// Options for a reader. A long-lived one (the resolver) keeps every table's index and
/// filter pinned, so a lookup consults the block cache for its data block alone. A
/// short-lived one (a one-lookup command) does without: pinning reads them all at open,
/// while a lookup needs those of one table per level.
pub(crate) fn reader_options(cache_bytes: usize, long_lived: bool) -> Options {
    options(cache_bytes, long_lived)
}

fn options(cache_bytes: usize, pin_blocks: bool) -> Options {
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
    // A table's index has an entry per data block (13,000 in a 64 MB table), and a
    // lookup's binary search over them is where a large store's lookups spend their
    // time: each step a cache miss, when the store's indexes outgrow the CPU's caches.
    // A restart point every 16 entries instead of every one takes four steps off that
    // search for a short scan of neighbouring entries, and makes the index a fifth
    // smaller. At 50M identifiers a chop-back cost `noidr` 14 % less CPU and a hit 5 %
    // less; at 1M, the same within the drift (docs/SCALING.md, "What the curve showed").
    b.set_index_block_restart_interval(16);
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
