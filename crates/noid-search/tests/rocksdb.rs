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
/// leave it) makes the index stale: the next open builds it again and finds the write.
#[test]
fn an_index_older_than_the_store_is_rebuilt() {
    let (dir, store) = minter();
    drop(SearchIndex::open(dir.path()).unwrap());
    assert!(SearchIndex::open_checked(dir.path()).unwrap().is_ok());
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
}
