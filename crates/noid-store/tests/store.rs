//! The store against real RocksDB databases in temporary directories.

use std::time::{Duration, Instant};

use noid_core::Lookup;
use noid_store::{Freshness, Op, Secondary, Snapshot, StoreError, Writer};

fn put(k: &str, v: &str) -> Op {
    Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
}

const T: Duration = Duration::from_secs(5);

#[test]
fn create_commit_and_read_back() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([put(":/a", "1"), put("id\te", "v"), put("id\tf", "w")])
        .unwrap();
    assert_eq!(w.get(b":/a").unwrap().as_deref(), Some(&b"1"[..]));
    w.commit([Op::Delete(b"id\tf".to_vec())]).unwrap();
    drop(w);
    let s = Snapshot::open(d.path()).unwrap();
    assert_eq!(
        Lookup::scan_prefix(&s, b"id\t", 10).unwrap(),
        vec![(b"id\te".to_vec(), b"v".to_vec())]
    );
}

#[test]
fn create_refuses_an_existing_store_and_open_needs_one() {
    let d = tempfile::tempdir().unwrap();
    drop(Writer::create(d.path(), T).unwrap());
    assert!(matches!(
        Writer::create(d.path(), T),
        Err(StoreError::AlreadyExists(_))
    ));
    let e = tempfile::tempdir().unwrap();
    assert!(matches!(
        Writer::open(e.path(), T),
        Err(StoreError::NoDatabase(_))
    ));
    assert!(matches!(
        Snapshot::open(e.path()),
        Err(StoreError::NoDatabase(_))
    ));
}

#[test]
fn second_writer_waits_then_times_out() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    let start = Instant::now();
    let r = Writer::open(d.path(), Duration::from_millis(300));
    assert!(start.elapsed() >= Duration::from_millis(300));
    match r {
        Err(StoreError::LockTimeout { seconds, .. }) => assert_eq!(seconds, 0),
        Err(e) => panic!("unexpected error: {e}"),
        Ok(_) => panic!("second writer got in"),
    }
    drop(w);
    Writer::open(d.path(), T).unwrap();
}

#[test]
fn reader_follows_writers_only_when_told() {
    let d = tempfile::tempdir().unwrap();
    drop(Writer::create(d.path(), T).unwrap());
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    assert_eq!(
        r.freshen().unwrap(),
        Freshness::Current,
        "nothing changed yet"
    );
    for i in 0..50 {
        let w = Writer::open(d.path(), T).unwrap();
        w.commit([put("k", &i.to_string())]).unwrap();
        drop(w);
        assert_eq!(r.freshen().unwrap(), Freshness::CaughtUp);
        assert_eq!(r.get(b"k").unwrap(), Some(i.to_string().into_bytes()));
        assert_eq!(r.freshen().unwrap(), Freshness::Current);
    }
}

#[test]
fn reader_waits_for_a_writer_at_work_then_catches_up() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    // Opened while the writer holds the lock: after a short wait, without catching up.
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    w.commit([put("live", "yes")]).unwrap();
    // The writer still holds the lock (it may be flushing on close): no catch-up yet.
    assert_eq!(r.freshen().unwrap(), Freshness::WriterAtWork);
    assert_eq!(r.freshen().unwrap(), Freshness::WriterAtWork);
    drop(w);
    assert_eq!(r.freshen().unwrap(), Freshness::CaughtUp);
    assert_eq!(r.get(b"live").unwrap().as_deref(), Some(&b"yes"[..]));
    assert_eq!(r.freshen().unwrap(), Freshness::Current);
}

/// `freshen_within` waits for a commit under way rather than answering at once, and
/// gives up (still `WriterAtWork`) when the writer keeps the store busy; a snapshot
/// opened between writers waits the same way.
#[test]
fn a_reader_that_must_see_every_write_waits_for_the_writer_to_pause() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([put("k", "one")]).unwrap();
    assert!(w.pause(Duration::from_secs(5)).unwrap());
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    assert_eq!(r.get(b"k").unwrap().as_deref(), Some(&b"one"[..]));
    w.commit([put("k", "two")]).unwrap();
    // Busy: the commit holds it until the writer pauses.
    let wait = Duration::from_millis(50);
    assert_eq!(r.freshen_within(wait).unwrap(), Freshness::WriterAtWork);
    assert!(Snapshot::open_between_writers(d.path(), wait).is_err());
    assert!(w.pause(Duration::from_secs(5)).unwrap());
    // Paused: the writer still holds the store, and the reader catches up.
    assert_eq!(r.freshen_within(wait).unwrap(), Freshness::CaughtUp);
    assert_eq!(r.get(b"k").unwrap().as_deref(), Some(&b"two"[..]));
    let s = Snapshot::open_between_writers(d.path(), wait).unwrap();
    assert_eq!(s.get(b"k").unwrap().as_deref(), Some(&b"two"[..]));
}

#[test]
fn replaced_store_is_detected() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([put("k", "old")]).unwrap();
    drop(w);
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    assert!(!r.replaced());
    std::fs::remove_dir_all(d.path().join("NOID")).unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([put("k", "new")]).unwrap();
    drop(w);
    assert!(r.replaced());
    // The old generation file, still mapped, does not move: `freshen` costs nothing
    // here, and `replaced` (a file read, for a background thread) is what tells.
    assert_eq!(r.freshen().unwrap(), Freshness::Current);
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    assert!(!r.replaced());
    assert_eq!(r.freshen().unwrap(), Freshness::Current);
    assert_eq!(r.get(b"k").unwrap().as_deref(), Some(&b"new"[..]));
}

/// A large batch goes in as an ingested table file: the same all-or-nothing result as
/// a small one (last operation of a key wins, deletes remove), visible to a reader
/// that was open before, with no batch file left behind.
#[test]
fn large_batches_are_ingested_with_batch_semantics() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([put("gone", "x"), put("k00007", "old")]).unwrap();
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    let mut ops: Vec<Op> = (0..30_000)
        .rev()
        .map(|i| put(&format!("k{i:05}"), "v"))
        .collect();
    ops.push(put("k00007", "newest"));
    ops.push(Op::Delete(b"gone".to_vec()));
    ops.push(put("k00009", "x"));
    ops.push(Op::Delete(b"k00009".to_vec()));
    w.commit(ops).unwrap();
    assert!(!w.layout().batch_sst.exists());
    assert_eq!(w.get(b"k00007").unwrap().as_deref(), Some(&b"newest"[..]));
    assert_eq!(w.get(b"k29999").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(w.get(b"gone").unwrap(), None);
    assert_eq!(w.get(b"k00009").unwrap(), None);
    // A small write after the ingested one is newer still.
    w.commit([put("k00008", "later")]).unwrap();
    drop(w);
    // The reader replayed "old" from the write-ahead log before the ingestion; a
    // catch-up would go on showing it, so the reader is told to open it anew.
    assert!(r.replaced());
    assert_eq!(r.freshen().unwrap(), Freshness::Replaced);
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    assert!(!r.replaced());
    assert_eq!(r.get(b"k00007").unwrap().as_deref(), Some(&b"newest"[..]));
    assert_eq!(r.get(b"k00008").unwrap().as_deref(), Some(&b"later"[..]));
    assert_eq!(r.get(b"gone").unwrap(), None);
    assert_eq!(
        Lookup::scan_prefix(&r, b"k", usize::MAX).unwrap().len(),
        29_999
    );
}

/// A batch file left by a writer killed before RocksDB took it in is not part of the
/// store and is removed by the next writer.
/// `noid serve` lets readers catch up after each commit, so a reader's memtable holds
/// writes replayed from the write-ahead log. When the writer then closes (flushing its
/// memtable, deleting that log), opens again, writes the same key and closes before
/// the reader looks, the newer value reaches the reader only in a table file, behind
/// the older one in its memtable: the reader must open the store anew, not catch up
/// (an undo answered by `noid serve`, then read back on a loaded machine, showed the
/// value it had undone).
#[test]
fn a_reader_whose_replayed_writes_were_flushed_opens_anew() {
    let d = tempfile::tempdir().unwrap();
    drop(Writer::create(d.path(), T).unwrap());
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    let follower = noid_store::Follower::new(d.path(), None, 1 << 20);
    let w = Writer::open(d.path(), T).unwrap();
    w.commit([put("x2\t_t", "https://new.org/2")]).unwrap();
    assert!(w.pause(noid_store::SETTLE).unwrap());
    assert_eq!(r.freshen().unwrap(), Freshness::CaughtUp);
    let view = follower.fresh().unwrap();
    for lookup in [&r as &dyn Lookup, &*view] {
        assert_eq!(
            lookup.get(b"x2\t_t").unwrap().as_deref(),
            Some(&b"https://new.org/2"[..])
        );
    }
    drop(view);
    drop(w);
    let w = Writer::open(d.path(), T).unwrap();
    w.commit([put("x2\t_t", "https://old.org/2")]).unwrap();
    drop(w);
    let view = follower.fresh().unwrap();
    assert_eq!(
        view.get(b"x2\t_t").unwrap().as_deref(),
        Some(&b"https://old.org/2"[..])
    );
    assert_eq!(view.secondary().freshen().unwrap(), Freshness::Current);
    // The catch-up moves the view's sequence number past the undo, but its memtable
    // still holds the rewrite (RocksDB would show it): the view says it must be
    // opened anew.
    let before = r.latest_sequence();
    assert_eq!(r.freshen().unwrap(), Freshness::Replaced);
    assert!(
        r.latest_sequence() > before,
        "the catch-up brought the undo's number"
    );
    assert!(r.replaced());
    assert_eq!(r.freshen().unwrap(), Freshness::Replaced, "for good");
}

#[test]
fn a_stray_batch_file_is_ignored_and_removed() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    let stray = w.layout().batch_sst.clone();
    drop(w);
    std::fs::write(&stray, b"half a table").unwrap();
    let w = Writer::open(d.path(), T).unwrap();
    assert!(!stray.exists());
    assert_eq!(w.get(b"anything").unwrap(), None);
}

/// Stores written before tables had one index and one filter each (a two-level index
/// and partitioned filters, as earlier versions wrote them) are read and written as before, and
/// compaction rewrites their tables in the current layout.
#[test]
fn tables_in_the_earlier_partitioned_layout_still_work() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([put("new\t_t", "n")]).unwrap();
    let db_dir = w.layout().db.clone();
    drop(w);
    {
        // The earlier table options, written straight through RocksDB and flushed.
        let mut b = rocksdb::BlockBasedOptions::default();
        b.set_bloom_filter(10.0, false);
        b.set_index_type(rocksdb::BlockBasedIndexType::TwoLevelIndexSearch);
        b.set_partition_filters(true);
        b.set_metadata_block_size(4096);
        b.set_cache_index_and_filter_blocks(true);
        let mut o = rocksdb::Options::default();
        o.set_block_based_table_factory(&b);
        let db = rocksdb::DB::open(&o, &db_dir).unwrap();
        for i in 0..5_000 {
            db.put(format!("old{i:05}\t_t"), format!("v{i}")).unwrap();
        }
        db.flush().unwrap();
        let options = std::fs::read_dir(&db_dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("OPTIONS-"))
            .map(|e| std::fs::read_to_string(e.path()).unwrap())
            .max_by_key(|s| s.len())
            .unwrap();
        assert!(options.contains("partition_filters=true"), "{options}");
    }
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    let s = Snapshot::open(d.path()).unwrap();
    for key in ["old00000\t_t", "old04999\t_t", "new\t_t"] {
        assert!(r.get(key.as_bytes()).unwrap().is_some(), "reader: {key}");
        assert!(s.get(key.as_bytes()).unwrap().is_some(), "snapshot: {key}");
    }
    assert_eq!(
        r.get(b"old02500\t_t").unwrap().as_deref(),
        Some(&b"v2500"[..])
    );
    assert_eq!(r.get(b"old99999\t_t").unwrap(), None);
    drop((r, s));
    let w = Writer::open(d.path(), T).unwrap();
    w.commit((0..20_000).map(|i| put(&format!("more{i:05}\t_t"), "m")))
        .unwrap();
    w.compact(None).expect("compacted");
    assert_eq!(
        w.get(b"old02500\t_t").unwrap().as_deref(),
        Some(&b"v2500"[..])
    );
    assert_eq!(w.get(b"more19999\t_t").unwrap().as_deref(), Some(&b"m"[..]));
    drop(w);
    let s = Snapshot::open(d.path()).unwrap();
    assert_eq!(
        Lookup::scan_prefix(&s, b"old", usize::MAX).unwrap().len(),
        5_000
    );
    assert_eq!(s.get(b"new\t_t").unwrap().as_deref(), Some(&b"n"[..]));
}

fn pairs(keys: &[(&str, &str)]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    Some(
        keys.iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect(),
    )
}

/// The resolver reads an id's ancestors as one range, through an iterator each thread
/// keeps between requests: a write it caught up with shows in the next range read (on
/// every thread), also from tables not merged yet; `limit` declines, and so does a
/// short-lived reader.
#[test]
fn range_reads_follow_the_writers() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([
        put("a\t_t", "1"),
        put("a/b\t_t", "2"),
        put("a/b/c\t_t", "3"),
        put("b\t_t", "4"),
    ])
    .unwrap();
    w.compact(None).expect("compacted");
    drop(w);
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    let ab = pairs(&[("a\t_t", "1"), ("a/b\t_t", "2")]);
    assert_eq!(r.range(b"a", b"a/b\t_t_am", 10).unwrap(), ab);
    assert_eq!(
        r.range(b"a", b"a/b\t_t", 10).unwrap(),
        ab,
        "last is included"
    );
    assert_eq!(r.range(b"a", b"a/b\t_t_am", 2).unwrap(), ab);
    assert_eq!(
        r.range(b"a", b"a/b\t_t_am", 1).unwrap(),
        None,
        "over the limit"
    );
    assert_eq!(r.range(b"c", b"d", 10).unwrap(), Some(vec![]));

    let w = Writer::open(d.path(), T).unwrap();
    w.commit([put("a/b\t_t_am", "n"), Op::Delete(b"a\t_t".to_vec())])
        .unwrap();
    drop(w);
    assert_eq!(r.freshen().unwrap(), Freshness::CaughtUp);
    let now = pairs(&[("a/b\t_t", "2"), ("a/b\t_t_am", "n")]);
    assert_eq!(r.range(b"a", b"a/b\t_t_am", 10).unwrap(), now);
    std::thread::scope(|s| {
        s.spawn(|| assert_eq!(r.range(b"a", b"a/b\t_t_am", 10).unwrap(), now));
    });

    // Writes not merged yet, in level-0 tables (a writer flushes on close): the range
    // merges them with the rest.
    for i in 0..4 {
        let w = Writer::open(d.path(), T).unwrap();
        w.commit([put(&format!("a/{i}\t_t"), "z")]).unwrap();
        drop(w);
    }
    assert_eq!(r.freshen().unwrap(), Freshness::CaughtUp);
    let more = pairs(&[
        ("a/0\t_t", "z"),
        ("a/1\t_t", "z"),
        ("a/2\t_t", "z"),
        ("a/3\t_t", "z"),
        ("a/b\t_t", "2"),
        ("a/b\t_t_am", "n"),
    ]);
    assert_eq!(r.range(b"a", b"a/b\t_t_am", 10).unwrap(), more);
    let r = Secondary::open(d.path(), None, 1 << 20).unwrap();
    assert_eq!(r.range(b"a", b"a/b\t_t_am", 10).unwrap(), more);

    let s = Snapshot::open(d.path()).unwrap();
    assert_eq!(Lookup::range(&s, b"a", b"a/b\t_t_am", 10).unwrap(), None);
}
