//! The index over a minter held by a real PostgreSQL server (noid-store's test harness):
//! the fixture's queries, facets and export, the same as on the embedded store; a
//! damaged index rebuilt; identifiers re-indexed after they change.

mod common;

use std::time::Duration;

use noid_search::SearchIndex;
use noid_store::pg::testing::TestServer;
use noid_store::pg::Location;
use noid_store::Op;

#[test]
fn finds_the_fixture_on_postgresql() {
    let server = TestServer::start();
    let url = server.create_database("search");
    let dir = tempfile::tempdir().unwrap();
    let loc = Location::new(&url, "m").unwrap();
    let store = noid_store::open::create(dir.path(), Some(&loc), Duration::from_secs(10)).unwrap();
    common::load(&*store);
    let index = SearchIndex::open(dir.path()).expect("built on first open");
    assert_eq!(index.status().documents, 5);
    common::check(&index);
    drop(index);

    // A damaged file: refused, then rebuilt from the database.
    let file = common::largest_file(&SearchIndex::dir_of(dir.path()));
    let len = file.metadata().unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    assert!(SearchIndex::open_checked(dir.path()).unwrap().is_err());
    let index = SearchIndex::open(dir.path()).unwrap();
    common::check(&index);

    // A change re-indexed from the database.
    store
        .commit([Op::Put(b"13030/f5gg7\twhat".to_vec(), b"Mathilda".to_vec())])
        .unwrap();
    let reader = noid_store::open::reader(dir.path()).unwrap();
    index
        .update(&*reader, &["13030/f5gg7".to_string()])
        .unwrap();
    assert_eq!(common::found(&index, "mathilda"), ["13030/f5gg7"]);
}

/// A host of a PostgreSQL minter follows its local copy (noid-store's `pg::replica`):
/// the copy's writer appends the changed-identifiers feed as it applies the change log,
/// so a write to the database is found once the copy has it.
#[test]
fn a_host_follows_its_local_copy() {
    use noid_search::{CatchUp, Followed};
    use noid_store::pg::Replica;

    let server = TestServer::start();
    let url = server.create_database("copy");
    let dir = tempfile::tempdir().unwrap();
    let loc = Location::new(&url, "m").unwrap();
    let store = noid_store::open::create(dir.path(), Some(&loc), Duration::from_secs(10)).unwrap();
    common::load(&*store);
    let copy = tempfile::tempdir().unwrap();
    let mut replica = Replica::new(&loc, copy.path()).unwrap();
    replica.sync().unwrap();
    let followed = Followed::open(copy.path()).unwrap();
    common::check(&followed.index());
    store
        .commit([Op::Put(b"13030/f5gg7\twhat".to_vec(), b"Mathilda".to_vec())])
        .unwrap();
    replica.sync().unwrap();
    assert_eq!(followed.catch_up().unwrap(), CatchUp::Updated(1));
    assert_eq!(
        common::found(&followed.index(), "mathilda"),
        ["13030/f5gg7"]
    );
    // The database's own directory has no change counter to follow.
    let own = Followed::open(dir.path()).unwrap();
    assert_eq!(own.catch_up().unwrap(), CatchUp::NotFollowable);
}
