//! Shipping a counts directory on a real directory: what is left to ship after an
//! offset (whole blocks only), the record of what was shipped, and compaction in a
//! shipped directory, which folds only what was wholly shipped and whose folded
//! segment is never offered for shipping.

use std::fs;
use std::io::Write;

use noid_counts::{Class, CountsDir, Kind, Shipping, Tally, SHIPPING_FILE};

/// A counts block's body: `n` answers of `kind` for `id`.
fn body(tally: &Tally, id: &str, kind: Kind, n: u64) -> Vec<u8> {
    for _ in 0..n {
        tally.count(id.as_bytes(), kind, Class::Person);
    }
    let mut body = Vec::new();
    tally.drain(&mut body);
    body
}

fn total(entries: &[noid_counts::Entry]) -> u64 {
    entries.iter().map(|e| e.count).sum()
}

#[test]
fn what_is_left_to_ship_is_the_whole_blocks_after_the_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CountsDir::new(tmp.path().join("counts"));
    let shipping = Shipping::open(&dir).unwrap();
    let tally = Tally::default();
    let mut w = dir.writer().unwrap();
    let name = w.path().file_name().unwrap().to_str().unwrap().to_string();
    assert_eq!(shipping.segments().unwrap(), vec![(name.clone(), 0)]);
    w.append(&body(&tally, "ark:/1/a", Kind::Redirect(302), 3))
        .unwrap();
    let first = shipping.unshipped(&name, 0).unwrap();
    assert_eq!(total(&first.entries), 3);
    // 12 bytes of head, an entry of 18 bytes and its 8-byte identifier.
    assert_eq!(first.end, 12 + 18 + 8);
    w.append(&body(&tally, "ark:/1/b", Kind::Miss, 4)).unwrap();
    // Half of a third block, as a write still under way (or cut short) leaves it.
    let third = body(&tally, "ark:/1/c", Kind::Page, 5);
    let mut file = fs::OpenOptions::new().append(true).open(w.path()).unwrap();
    file.write_all(b"NCC1").unwrap();
    file.write_all(&(third.len() as u32).to_le_bytes()).unwrap();
    let after = shipping.unshipped(&name, first.end).unwrap();
    assert_eq!(total(&after.entries), 4);
    assert_eq!(after.entries[0].id, b"ark:/1/b");
    assert_eq!(after.end, 2 * (12 + 18 + 8));
    let nothing = shipping.unshipped(&name, after.end).unwrap();
    assert_eq!((nothing.entries.len(), nothing.end), (0, after.end));
}

#[test]
fn a_shipped_directory_folds_only_wholly_shipped_segments_and_never_offers_a_folded_one() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CountsDir::new(tmp.path().join("counts"));
    let mut shipping = Shipping::open(&dir).unwrap();
    assert!(dir.path().join(SHIPPING_FILE).is_file());
    let tally = Tally::default();
    // Three writers that are gone: the first two wholly shipped, the third only up
    // to its first block.
    let mut names = Vec::new();
    for n in 1..=3u64 {
        let mut w = dir.writer().unwrap();
        w.append(&body(&tally, "ark:/1/a", Kind::Inflection, n))
            .unwrap();
        w.append(&body(&tally, "ark:/1/b", Kind::Inflection, 10 * n))
            .unwrap();
        names.push(w.path().file_name().unwrap().to_str().unwrap().to_string());
    }
    for name in &names[..2] {
        let end = shipping.unshipped(name, 0).unwrap().end;
        shipping.record(name, end).unwrap();
    }
    let half = 12 + 18 + 8;
    shipping.record(&names[2], half).unwrap();
    let before = total(&dir.read().unwrap());
    assert_eq!(before, 66);
    let done = dir.compact().unwrap();
    assert_eq!(done.folded, 2);
    assert_eq!(total(&dir.read().unwrap()), before);
    // The folded file is not a segment to ship; the unshipped one is still there,
    // with the rest of its counts.
    let reopened = Shipping::open(&dir).unwrap();
    assert_eq!(reopened.segments().unwrap(), vec![(names[2].clone(), half)]);
    assert_eq!(
        total(&reopened.unshipped(&names[2], half).unwrap().entries),
        30
    );
    // Once it is wholly shipped, it is folded with the folded file.
    let end = reopened.unshipped(&names[2], 0).unwrap().end;
    shipping.record(&names[2], end).unwrap();
    assert_eq!(dir.compact().unwrap().folded, 2);
    assert_eq!(total(&dir.read().unwrap()), before);
    assert_eq!(reopened.segments().unwrap(), vec![]);
    // A segment folded after it was listed has nothing left to ship.
    let gone = reopened.unshipped(&names[2], half).unwrap();
    assert_eq!((gone.entries.len(), gone.end), (0, half));
    // The record forgets segments that are gone at its next write.
    shipping.record("seg-0-0.counts", 0).unwrap();
    let text = fs::read_to_string(dir.path().join(SHIPPING_FILE)).unwrap();
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 0);
}

#[test]
fn a_directory_that_is_not_shipped_folds_every_gone_writer() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CountsDir::new(tmp.path().join("counts"));
    let tally = Tally::default();
    for n in 1..=2u64 {
        let mut w = dir.writer().unwrap();
        w.append(&body(&tally, "ark:/1/a", Kind::Hit, n)).unwrap();
    }
    assert_eq!(dir.compact().unwrap().folded, 2);
}

#[test]
fn a_backlog_is_offered_a_shipment_at_a_time_and_a_larger_block_whole() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CountsDir::new(tmp.path().join("counts"));
    let shipping = Shipping::open(&dir).unwrap();
    let tally = Tally::default();
    let mut w = dir.writer().unwrap();
    let name = w.path().file_name().unwrap().to_str().unwrap().to_string();
    // Blocks of 20,000 entries of 41 bytes (18 + a 23-byte identifier), 820,012 bytes
    // each: a shipment (8 MiB, 8,388,608 bytes) holds 10 of them (8,200,120 bytes);
    // 25 blocks, then one block of 300,000 entries (12,300,012 bytes), larger than a
    // shipment.
    let block = |ids: std::ops::Range<u64>| {
        for i in ids {
            tally.count(
                format!("ark:/1/{i:016}").as_bytes(),
                Kind::Hit,
                Class::Person,
            );
        }
        let mut body = Vec::new();
        tally.drain(&mut body);
        body
    };
    for b in 0..25 {
        w.append(&block(b * 20_000..(b + 1) * 20_000)).unwrap();
    }
    w.append(&block(0..300_000)).unwrap();
    let mut offsets = vec![0];
    let mut shipped = 0;
    loop {
        let from = *offsets.last().unwrap();
        let next = shipping.unshipped(&name, from).unwrap();
        if next.end == from {
            break;
        }
        shipped += total(&next.entries);
        offsets.push(next.end);
    }
    let b = 820_012;
    assert_eq!(
        offsets,
        vec![0, 10 * b, 20 * b, 25 * b, 25 * b + 12 + 300_000 * 41]
    );
    assert_eq!(shipped, 25 * 20_000 + 300_000);
    assert_eq!(
        offsets.last().copied(),
        Some(fs::metadata(w.path()).unwrap().len())
    );
}
