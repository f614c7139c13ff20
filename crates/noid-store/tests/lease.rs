//! The link checker's lease (`open::lease`): one holder at a time per store, on
//! RocksDB (a lock on `NOID/links.lease`) and on a real PostgreSQL server (an advisory
//! lock every host naming the database shares), given up when its holder lets go or
//! its connection ends.

use std::time::Duration;

use noid_store::open;
use noid_store::pg::testing::TestServer;
use noid_store::pg::Location;

#[test]
fn one_holder_of_a_rocksdb_stores_lease_at_a_time() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("binder");
    drop(open::create(&dir, None, Duration::from_secs(10)).unwrap());
    let mut first = open::lease(&dir).unwrap().expect("a free lease");
    assert!(first.held());
    assert!(open::lease(&dir).unwrap().is_none(), "a second holder");
    drop(first);
    assert!(
        open::lease(&dir).unwrap().is_some(),
        "free again once let go"
    );
}

#[test]
fn one_holder_of_a_postgresql_stores_lease_whatever_the_directory() {
    let server = TestServer::start();
    let url = server.create_database("lease");
    let root = tempfile::tempdir().unwrap();
    let loc = Location::new(&url, "m").unwrap();
    // Two hosts' directories naming the same minter in the database, and another
    // minter there whose lease is its own.
    let (a, b) = (root.path().join("a"), root.path().join("b"));
    drop(open::create(&a, Some(&loc), Duration::from_secs(10)).unwrap());
    std::fs::create_dir_all(b.join("NOID")).unwrap();
    std::fs::copy(a.join("NOID/backend"), b.join("NOID/backend")).unwrap();
    let other = root.path().join("other");
    let other_loc = Location::new(&url, "n").unwrap();
    drop(open::create(&other, Some(&other_loc), Duration::from_secs(10)).unwrap());

    let mut first = open::lease(&a).unwrap().expect("a free lease");
    assert!(first.held());
    assert!(
        open::lease(&b).unwrap().is_none(),
        "the other host's directory"
    );
    assert!(
        open::lease(&other).unwrap().is_some(),
        "another minter's lease"
    );
    drop(first);
    // The server lets the lock go as the session's backend ends, just after the client
    // closed it: poll, with a deadline.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while open::lease(&b).unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the lease was not free 10 s after its session ended"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
