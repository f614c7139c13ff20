//! The counts store on a real directory: several writers at once, torn ends,
//! compaction beside a live writer, a compaction cut short, and the report.

use std::fs;
use std::io::Write;

use noid_counts::{Class, CountsDir, Kind, Query, Tally};

/// A counts block's body: `n` answers of `kind` for `id` to `class`.
fn body(tally: &Tally, id: &str, kind: Kind, class: Class, n: u64) -> Vec<u8> {
    for _ in 0..n {
        tally.count(id.as_bytes(), kind, class);
    }
    let mut body = Vec::new();
    tally.drain(&mut body);
    body
}

fn total(dir: &CountsDir) -> u64 {
    dir.read().unwrap().iter().map(|e| e.count).sum()
}

#[test]
fn writers_append_side_by_side_and_a_reader_sums_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CountsDir::new(tmp.path().join("counts"));
    let tally = Tally::default();
    let mut a = dir.writer().unwrap();
    let mut b = dir.writer().unwrap();
    assert_ne!(a.path(), b.path());
    a.append(&body(
        &tally,
        "ark:/1/a",
        Kind::Redirect(302),
        Class::Person,
        3,
    ))
    .unwrap();
    b.append(&body(
        &tally,
        "ark:/1/a",
        Kind::Redirect(302),
        Class::Person,
        4,
    ))
    .unwrap();
    a.append(&body(&tally, "ark:/1/zz", Kind::Miss, Class::Robot, 2))
        .unwrap();
    assert_eq!(total(&dir), 9);
    // A torn write at the end of b: skipped, the rest still read.
    let whole = body(&tally, "ark:/1/a", Kind::Redirect(302), Class::Person, 5);
    let mut file = fs::OpenOptions::new().append(true).open(b.path()).unwrap();
    file.write_all(&b"NCC1"[..]).unwrap();
    file.write_all(&(whole.len() as u32 + 12).to_le_bytes())
        .unwrap();
    drop(file);
    assert_eq!(total(&dir), 9);
}

#[test]
fn compaction_folds_only_the_segments_of_gone_writers_and_keeps_the_sums() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CountsDir::new(tmp.path().join("counts"));
    let tally = Tally::default();
    for n in 1..=3 {
        let mut gone = dir.writer().unwrap();
        gone.append(&body(
            &tally,
            "ark:/1/a",
            Kind::Inflection,
            Class::Person,
            n,
        ))
        .unwrap();
    }
    let mut live = dir.writer().unwrap();
    live.append(&body(&tally, "ark:/1/b", Kind::Page, Class::Robot, 10))
        .unwrap();
    assert_eq!(total(&dir), 16);
    let done = dir.compact().unwrap();
    assert_eq!(done.folded, 3);
    // The live segment, the folded one, and the lock file.
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("folded-")));
    assert_eq!(total(&dir), 16);
    // The live writer keeps appending after the compaction.
    live.append(&body(&tally, "ark:/1/b", Kind::Page, Class::Robot, 1))
        .unwrap();
    assert_eq!(total(&dir), 17);
}

#[test]
fn a_compaction_cut_short_before_its_deletions_counts_nothing_twice() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CountsDir::new(tmp.path().join("counts"));
    let tally = Tally::default();
    for n in [2, 5] {
        let mut gone = dir.writer().unwrap();
        gone.append(&body(
            &tally,
            "ark:/1/a",
            Kind::Redirect(301),
            Class::Person,
            n,
        ))
        .unwrap();
    }
    // Keep copies of the two segments, compact, and put the copies back: as if the
    // compaction had stopped after its rename, before deleting what it folded.
    let copies: Vec<(std::path::PathBuf, Vec<u8>)> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), fs::read(&p).unwrap()))
        .collect();
    assert_eq!(dir.compact().unwrap().folded, 2);
    for (path, bytes) in &copies {
        fs::write(path, bytes).unwrap();
    }
    assert_eq!(total(&dir), 7);
    let again = dir.compact().unwrap();
    assert_eq!((again.folded, again.leftovers), (0, 2));
    assert_eq!(total(&dir), 7);
}

#[test]
fn the_report_sums_a_shoulder_by_day_and_ranks_resolved_and_missing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = CountsDir::new(tmp.path().join("counts"));
    let tally = Tally::default();
    let mut w = dir.writer().unwrap();
    tally.set_day(20_000);
    w.append(&body(
        &tally,
        "ark:/99999/fk4a",
        Kind::Redirect(302),
        Class::Person,
        3,
    ))
    .unwrap();
    w.append(&body(
        &tally,
        "ark:99999/fk4a",
        Kind::Redirect(302),
        Class::Robot,
        2,
    ))
    .unwrap();
    tally.set_day(20_001);
    w.append(&body(
        &tally,
        "ark:/99999/fk4b",
        Kind::Inflection,
        Class::Person,
        1,
    ))
    .unwrap();
    w.append(&body(
        &tally,
        "ark:/99999/fk4zz",
        Kind::Miss,
        Class::Person,
        4,
    ))
    .unwrap();
    w.append(&body(
        &tally,
        "ark:/99999/xx",
        Kind::Redirect(302),
        Class::Person,
        9,
    ))
    .unwrap();
    // Outside the period: day 19_998.
    tally.set_day(19_998);
    w.append(&body(
        &tally,
        "ark:/99999/fk4a",
        Kind::Redirect(302),
        Class::Person,
        50,
    ))
    .unwrap();
    let query = Query {
        subject: Some("ark:/99999/fk4".into()),
        to: 20_001,
        days: 3,
        top: 10,
    };
    let report = query.report(&dir.read().unwrap());
    // Day 20000 is 2024-10-04 (`date -u -d @$((20000*86400)) +%F`).
    assert_eq!(
        (report.from.as_str(), report.to.as_str()),
        ("2024-10-03", "2024-10-05")
    );
    assert_eq!(report.days.len(), 3);
    assert_eq!(report.days[0].tallies.all(), 0);
    assert_eq!(report.days[1].tallies.person["redirect-302"], 3);
    assert_eq!(report.days[1].tallies.robot["redirect-302"], 2);
    assert_eq!(report.total.all(), 10);
    fn ranked(l: &[noid_counts::Ranked]) -> Vec<(&str, u64, u64)> {
        l.iter()
            .map(|r| (r.id.as_str(), r.people, r.robots))
            .collect()
    }
    // Both spellings of fk4a are the shoulder's; each is listed as asked, people first.
    assert_eq!(
        ranked(&report.most_resolved),
        [
            ("ark:/99999/fk4a", 3, 0),
            ("ark:/99999/fk4b", 1, 0),
            ("ark:99999/fk4a", 0, 2)
        ]
    );
    assert_eq!(
        ranked(&report.most_asked_missing),
        [("ark:/99999/fk4zz", 4, 0)]
    );
    assert_eq!(
        report.csv(),
        "day,identifier,kind,class,count\n\
         2024-10-04,ark:/99999/fk4a,redirect-302,person,3\n\
         2024-10-04,ark:99999/fk4a,redirect-302,robot,2\n\
         2024-10-05,ark:/99999/fk4b,inflection,person,1\n\
         2024-10-05,ark:/99999/fk4zz,miss,person,4\n"
    );
}
