//! The store against real RocksDB databases in temporary directories.

use std::time::{Duration, Instant};

use noid_resolve::Lookup;
use noid_store::{Op, Reader, Snapshot, StoreError, Writer};

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
    let mut r = Reader::open(d.path(), None, 1 << 20).unwrap();
    assert!(!r.refresh_if_changed().unwrap(), "nothing changed yet");
    for i in 0..50 {
        let w = Writer::open(d.path(), T).unwrap();
        w.commit([put("k", &i.to_string())]).unwrap();
        drop(w);
        assert!(r.refresh_if_changed().unwrap());
        assert_eq!(r.get(b"k").unwrap(), Some(i.to_string().into_bytes()));
        assert!(!r.refresh_if_changed().unwrap());
    }
}

#[test]
fn reader_waits_for_a_writer_at_work_then_catches_up() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    let mut r = Reader::open(d.path(), None, 1 << 20).unwrap();
    w.commit([put("live", "yes")]).unwrap();
    // The writer still holds the lock (it may be flushing on close): no catch-up yet.
    assert!(!r.refresh_if_changed().unwrap());
    drop(w);
    assert!(r.refresh_if_changed().unwrap());
    assert_eq!(r.get(b"live").unwrap().as_deref(), Some(&b"yes"[..]));
    assert!(!r.refresh_if_changed().unwrap());
}

#[test]
fn replaced_store_is_detected_and_reopened() {
    let d = tempfile::tempdir().unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([put("k", "old")]).unwrap();
    drop(w);
    let mut r = Reader::open(d.path(), None, 1 << 20).unwrap();
    assert!(!r.replaced());
    std::fs::remove_dir_all(d.path().join("NOID")).unwrap();
    let w = Writer::create(d.path(), T).unwrap();
    w.commit([put("k", "new")]).unwrap();
    drop(w);
    assert!(r.replaced());
    r.reopen().unwrap();
    assert!(!r.replaced());
    assert_eq!(r.get(b"k").unwrap().as_deref(), Some(&b"new"[..]));
}
