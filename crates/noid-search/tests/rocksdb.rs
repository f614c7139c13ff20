//! The index over a real embedded (RocksDB) store: the fixture's queries, facets and
//! export; a damaged index rebuilt; identifiers re-indexed after they change.

mod common;

use std::time::Duration;

use noid_search::SearchIndex;
use noid_store::{Op, Store};

fn minter() -> (tempfile::TempDir, Box<dyn Store>) {
    let dir = tempfile::tempdir().unwrap();
    let store = noid_store::open::create(dir.path(), None, Duration::from_secs(5)).unwrap();
    common::load(&*store);
    (dir, store)
}

#[test]
fn finds_the_fixture() {
    let (dir, _store) = minter();
    let index = SearchIndex::open(dir.path()).expect("built on first open");
    assert_eq!(index.status().documents, 5);
    common::check(&index);
}

#[test]
fn damaged_or_missing_index_is_rebuilt() {
    let (dir, _store) = minter();
    drop(SearchIndex::rebuild(dir.path()).unwrap());
    let at = SearchIndex::dir_of(dir.path());
    // Sound: opened as it is.
    assert!(SearchIndex::open_checked(dir.path()).unwrap().is_ok());
    // A segment file cut in half.
    let file = common::largest_file(&at);
    let len = file.metadata().unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let why = SearchIndex::open_checked(dir.path())
        .unwrap()
        .err()
        .expect("refused");
    assert!(why.contains("damaged") || why.contains("cannot"), "{why}");
    common::check(&SearchIndex::open(dir.path()).unwrap());
    // A file's bytes changed in place.
    let file = common::largest_file(&at);
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(&file, bytes).unwrap();
    assert!(SearchIndex::open_checked(dir.path()).unwrap().is_err());
    common::check(&SearchIndex::open(dir.path()).unwrap());
    // Missing.
    std::fs::remove_dir_all(&at).unwrap();
    assert_eq!(
        SearchIndex::open_checked(dir.path())
            .unwrap()
            .err()
            .as_deref(),
        Some("there is none")
    );
    common::check(&SearchIndex::open(dir.path()).unwrap());
    // Built from another store (the minter made anew): rebuilt.
    std::fs::write(at.join("noid-search"), "format: 1\nstore: rocksdb other\n").unwrap();
    assert!(SearchIndex::open_checked(dir.path()).unwrap().is_err());
    common::check(&SearchIndex::open(dir.path()).unwrap());
}

#[test]
fn update_indexes_what_changed() {
    let (dir, store) = minter();
    let index = SearchIndex::open(dir.path()).unwrap();
    assert_eq!(common::found(&index, "mathilda"), Vec::<String>::new());
    store
        .commit([
            Op::Put(b"13030/f5gg7\twhat".to_vec(), b"Mathilda".to_vec()),
            Op::Delete(b"13030/f5bb2\twho".to_vec()),
            Op::Delete(b"13030/f5bb2\twhat".to_vec()),
            Op::Delete(b"13030/f5bb2\t_t".to_vec()),
            Op::Delete(b"13030/f5bb2\t_,ep".to_vec()),
            Op::Delete(b"13030/f5bb2\t:/m".to_vec()),
        ])
        .unwrap();
    let reader = noid_store::open::reader(dir.path()).unwrap();
    index
        .update(
            &*reader,
            &["13030/f5gg7".to_string(), "13030/f5bb2".to_string()],
        )
        .unwrap();
    assert_eq!(common::found(&index, "mathilda"), ["13030/f5gg7"]);
    assert_eq!(common::found(&index, "shelley"), ["13030/f5aa1"]);
    assert_eq!(index.status().documents, 5);
}

/// A commit after the index was built (the writer still open, as `noid bind` would
/// leave it) makes the index older than the store: the next open brings it up to date
/// from the store's changed-identifiers feed (not rebuilt: a file put beside its own
/// stays), or rebuilds it when the feed lacks a commit.
#[test]
fn an_index_older_than_the_store_is_brought_up_to_date() {
    let (dir, store) = minter();
    drop(SearchIndex::open(dir.path()).unwrap());
    assert!(SearchIndex::open_checked(dir.path()).unwrap().is_ok());
    let marker = SearchIndex::dir_of(dir.path()).join("marker");
    std::fs::write(&marker, "").unwrap();
    store
        .commit([Op::Put(b"13030/f5hh8\twhat".to_vec(), b"Valperga".to_vec())])
        .unwrap();
    assert_eq!(
        SearchIndex::open_checked(dir.path())
            .unwrap()
            .err()
            .as_deref(),
        Some("the store changed since it was built")
    );
    let index = SearchIndex::open(dir.path()).unwrap();
    assert_eq!(common::found(&index, "valperga"), ["13030/f5hh8"]);
    assert!(marker.exists(), "brought up to date, not rebuilt");
    assert!(SearchIndex::open_checked(dir.path()).unwrap().is_ok());
    drop(index);
    // The feed loses the next commit's line: rebuilt.
    store
        .commit([Op::Put(b"13030/f5hh9\twhat".to_vec(), b"Mathilda".to_vec())])
        .unwrap();
    std::fs::write(noid_store::Layout::new(dir.path()).changes, "").unwrap();
    let index = SearchIndex::open(dir.path()).unwrap();
    assert_eq!(common::found(&index, "mathilda"), ["13030/f5hh9"]);
    assert!(!marker.exists(), "rebuilt");
}

/// A following index finds a write within a second of its commit (its background
/// thread reads the store's changed-identifiers feed), and its position survives: the
/// index is not rebuilt when opened again.
#[test]
fn a_write_is_found_by_a_following_index_within_a_second() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    let (dir, store) = minter();
    let followed = Arc::new(noid_search::Followed::open(dir.path()).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let thread = followed.spawn(Arc::clone(&stop));
    store
        .commit([Op::Put(b"13030/f5jj9\twhat".to_vec(), b"Lodore".to_vec())])
        .unwrap();
    let committed = Instant::now();
    while common::found(&followed.index(), "lodore").is_empty() {
        assert!(
            committed.elapsed() < Duration::from_secs(1),
            "not found within a second"
        );
        std::thread::park_timeout(Duration::from_millis(5));
    }
    stop.store(true, Ordering::Release);
    thread.thread().unpark();
    thread.join().unwrap();
    assert_eq!(common::found(&followed.index(), "lodore"), ["13030/f5jj9"]);
    // Current as recorded: opened as it is, not rebuilt.
    assert!(SearchIndex::open_checked(dir.path()).unwrap().is_ok());
}

/// Each catch-up says what it did: the identifiers of a commit indexed again, nothing
/// when nothing was committed, a rebuild when the feed lacks a commit's line (as after
/// an import, which writes none).
#[test]
fn catch_up_follows_the_feed_or_rebuilds() {
    use noid_search::CatchUp;

    let (dir, store) = minter();
    let followed = noid_search::Followed::open(dir.path()).unwrap();
    assert_eq!(followed.catch_up().unwrap(), CatchUp::Current);
    store
        .commit([
            Op::Put(b"13030/f5kk1\twhat".to_vec(), b"Perkin Warbeck".to_vec()),
            Op::Put(b"13030/f5kk2\twhat".to_vec(), b"Perkin".to_vec()),
            Op::Put(b":/oacounter".to_vec(), b"9".to_vec()),
        ])
        .unwrap();
    assert_eq!(followed.catch_up().unwrap(), CatchUp::Updated(2));
    assert_eq!(
        common::found(&followed.index(), "perkin"),
        ["13030/f5kk1", "13030/f5kk2"]
    );
    assert_eq!(followed.catch_up().unwrap(), CatchUp::Current);
    // A commit whose line is lost, then one with its line.
    store
        .commit([Op::Put(b"13030/f5kk3\twhat".to_vec(), b"Lodore".to_vec())])
        .unwrap();
    let feed = noid_store::Layout::new(dir.path()).changes;
    std::fs::write(&feed, "").unwrap();
    store
        .commit([Op::Put(b"13030/f5kk4\twhat".to_vec(), b"Falkner".to_vec())])
        .unwrap();
    assert_eq!(followed.catch_up().unwrap(), CatchUp::Rebuilt);
    assert_eq!(common::found(&followed.index(), "lodore"), ["13030/f5kk3"]);
    assert_eq!(common::found(&followed.index(), "falkner"), ["13030/f5kk4"]);
}

/// `noid_search::current` keeps one open index per directory and catches it up at each
/// call: a commit made between two calls is found by the second, through the same open
/// index (no reopening and checking of the whole index per request).
#[test]
fn the_current_index_is_kept_open_and_caught_up_at_each_call() {
    let (dir, store) = minter();
    let first = noid_search::current(dir.path()).unwrap();
    assert!(common::found(&first, "zastrozzi").is_empty());
    store
        .commit([Op::Put(
            b"13030/f5zz1\twhat".to_vec(),
            b"Zastrozzi".to_vec(),
        )])
        .unwrap();
    let second = noid_search::current(dir.path()).unwrap();
    assert_eq!(common::found(&second, "zastrozzi"), ["13030/f5zz1"]);
    assert!(
        std::sync::Arc::ptr_eq(&first, &second),
        "the same open index, updated in place"
    );
}
