//! `noid stats`: the counts store's segments written through crate `noid-counts` (as
//! `noidr --counts` writes them), read by the real `noid`; the expected outputs are
//! worked out from the counts written here, the dates from the system clock.

use noid_counts::{Class, CountsDir, Kind, Tally};

use crate::util::Dir;

/// Today and `n` days before, `YYYY-MM-DD` (UTC), by chrono from the system clock.
fn date(days_ago: u64) -> String {
    let today = chrono::Utc::now().date_naive();
    (today - chrono::Days::new(days_ago))
        .format("%Y-%m-%d")
        .to_string()
}

/// Counts of a shoulder and one other identifier, today and 40 days ago, in two
/// processes' segments (one of them ended, one still "running").
fn counted() -> (Dir, CountsDir, noid_counts::SegmentWriter) {
    let m = Dir::new();
    let dir = CountsDir::new(m.path().join("counts"));
    let tally = Tally::default();
    let today = noid_counts::today();
    let count = |w: &mut noid_counts::SegmentWriter, day, id: &str, kind, class, n| {
        tally.set_day(day);
        for _ in 0..n {
            tally.count(id.as_bytes(), kind, class);
        }
        let mut body = Vec::new();
        tally.drain(&mut body);
        w.append(&body).unwrap();
    };
    let mut ended = dir.writer().unwrap();
    count(
        &mut ended,
        today,
        "ark:/99999/fk4a",
        Kind::Redirect(302),
        Class::Person,
        3,
    );
    count(
        &mut ended,
        today,
        "ark:/99999/fk4a?",
        Kind::Inflection,
        Class::Person,
        1,
    );
    count(
        &mut ended,
        today,
        "ark:/99999/fk4zz",
        Kind::Miss,
        Class::Robot,
        4,
    );
    drop(ended);
    let mut running = dir.writer().unwrap();
    count(
        &mut running,
        today,
        "ark:99999/fk4b",
        Kind::Redirect(301),
        Class::Robot,
        2,
    );
    count(
        &mut running,
        today,
        "ark:/13030/x",
        Kind::Redirect(302),
        Class::Person,
        7,
    );
    count(
        &mut running,
        today - 40,
        "ark:/99999/fk4a",
        Kind::Redirect(302),
        Class::Person,
        5,
    );
    (m, dir, running)
}

#[test]
fn stats_of_a_shoulder_in_text_csv_and_json() {
    let (m, _dir, _running) = counted();
    let text = m.noid(&["stats", "ark:/99999/fk4"]).ok().to_string();
    assert_eq!(
        text,
        format!(
            "ark:/99999/fk4, {} to {} (UTC)\n\
             inflection              1 people          0 robots\n\
             miss                    0 people          4 robots\n\
             redirect-301            0 people          2 robots\n\
             redirect-302            3 people          0 robots\n\
             most resolved:\n\
             \x20        4 people          0 robots  ark:/99999/fk4a\n\
             \x20        0 people          2 robots  ark:99999/fk4b\n\
             most asked missing:\n\
             \x20        0 people          4 robots  ark:/99999/fk4zz\n",
            date(29),
            date(0)
        )
    );
    // 60 days reach the 5 redirects of 40 days ago.
    let csv = m
        .noid(&[
            "stats",
            "ark:/99999/fk4a",
            "--days",
            "60",
            "--format",
            "csv",
        ])
        .ok()
        .to_string();
    assert_eq!(
        csv,
        format!(
            "day,identifier,kind,class,count\n\
             {old},ark:/99999/fk4a,redirect-302,person,5\n\
             {now},ark:/99999/fk4a,redirect-302,person,3\n\
             {now},ark:/99999/fk4a,inflection,person,1\n",
            old = date(40),
            now = date(0)
        )
    );
    let json: serde_json::Value =
        serde_json::from_str(m.noid(&["stats", "--days", "7", "--format", "json"]).ok()).unwrap();
    assert_eq!(json["from"], date(6));
    assert_eq!(json["days"].as_array().unwrap().len(), 7);
    assert_eq!(json["days"][6]["day"], date(0));
    assert_eq!(json["days"][6]["person"]["redirect-302"], 10);
    assert_eq!(json["total"]["robot"]["miss"], 4);
    assert_eq!(json["most_resolved"][0]["id"], "ark:/13030/x");
    assert_eq!(json["most_resolved"][0]["people"], 7);
}

#[test]
fn compaction_keeps_the_counts_and_the_running_segment() {
    let (m, dir, running) = counted();
    let before = m
        .noid(&["stats", "--days", "60", "--format", "csv"])
        .ok()
        .to_string();
    let r = m.noid(&["stats", "--compact", "--days", "60", "--format", "csv"]);
    assert_eq!(r.ok(), before);
    // Only the ended process's segment is folded: nothing to fold it with yet.
    assert_eq!(
        r.stderr,
        "compacted: 0 files folded into one, 0 already folded removed\n"
    );
    drop(running);
    let r = m.noid(&["stats", "--compact", "--days", "60", "--format", "csv"]);
    assert_eq!(r.ok(), before);
    assert_eq!(
        r.stderr,
        "compacted: 2 files folded into one, 0 already folded removed\n"
    );
    let files = std::fs::read_dir(dir.path()).unwrap().count();
    assert_eq!(
        files, 2,
        "the folded segment and the compaction's lock file"
    );
}

#[test]
fn stats_without_counts_says_so_and_bad_options_are_usage_errors() {
    let m = Dir::new();
    let r = m.noid(&["stats"]);
    assert_eq!(
        r.ok(),
        format!(
            "all identifiers, {} to {} (UTC)\nno requests counted\n",
            date(29),
            date(0)
        )
    );
    assert!(
        r.stderr.contains("(noidr counts with --counts)"),
        "{}",
        r.stderr
    );
    let r = m.noid(&["stats", "--days", "0"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--days"), "{}", r.stderr);
    let r = m.noid(&["stats", "--format", "xml"]);
    assert_eq!(r.code, 2);
}
