//! The fixture both backends' tests load: six identifiers written key by key as the
//! writers store them (noid-core's `keys`, egg's `_,ep` and duplicates, the link
//! checker's states), and what each query must find, worked out by hand from them.

use std::path::Path;

use noid_core::links::{LinkState, Status};
use noid_search::{Format, Query, SearchIndex, Sort, SortKey};
use noid_store::{Op, Store};

/// 2026-01-01T00:00:00Z (`date -d 2026-01-01Z +%s`).
pub const JAN_2026: i64 = 1_767_225_600;
/// 2025-01-01T00:00:00Z.
pub const JAN_2025: i64 = 1_735_689_600;

fn put(k: &str, v: &str) -> Op {
    Op::Put(k.as_bytes().to_vec(), v.as_bytes().to_vec())
}

fn state(status: Status) -> String {
    let s = LinkState {
        status,
        http: Some(200),
        checked: 1,
        since: 1,
        failures: 0,
        failing_since: None,
        detail: String::new(),
        location: None,
        fingerprint: None,
        cert_expires: None,
    };
    String::from_utf8(s.encode()).unwrap()
}

/// The fixture's keys.
pub fn fixture() -> Vec<Op> {
    let t = |secs: i64| secs.to_string();
    vec![
        put(":/oacounter", "6"),
        put(":/naan", "13030"),
        // A: good standing, a broken target, a duplicate title, populator oca.
        put("13030/f5aa1\t:/c", "i|20251201000000|oca|1"),
        put("13030/f5aa1\t:/m", &t(JAN_2026 + 100)),
        put("13030/f5aa1\t_,ep", "p:oca||76"),
        put("13030/f5aa1\t_,ec", &t(JAN_2025 + 5)),
        put("13030/f5aa1\t_t", "https://example.org/frank"),
        put("13030/f5aa1\twho", "Shelley, Mary"),
        put(
            "13030/f5aa1\twhat",
            "Frankenstein; or, The Modern Prometheus",
        ),
        put("13030/f5aa1\twhen", "1818"),
        put("13030/f5aa1\thow", "text book"),
        put("13030/f5aa1\t:/d/what\t0000000001", "Un monstre moderne"),
        put(
            ":/links/s/13030/f5aa1\thttps://example.org/frank",
            &state(Status::Broken),
        ),
        // B: incomplete (no when, no how), an ok target, populator oca.
        put("13030/f5bb2\t:/m", &t(JAN_2025)),
        put("13030/f5bb2\t_,ep", "p:oca||76"),
        put("13030/f5bb2\t_t", "https://Example.ORG/last"),
        put("13030/f5bb2\twho", "Shelley, Mary"),
        put("13030/f5bb2\twhat", "The Last Man"),
        put(
            ":/links/s/13030/f5bb2\thttps://Example.ORG/last",
            &state(Status::Ok),
        ),
        // C: another shoulder, a malformed how, populator ucla, never checked.
        put("13030/g7cc3\t:/m", &t(JAN_2026 + 10 * 86_400)),
        put("13030/g7cc3\t_,ep", "p:ucla||76"),
        put("13030/g7cc3\t_t", "https://archive.example.net/x"),
        put("13030/g7cc3\twho", "Austen, Jane"),
        put("13030/g7cc3\twhat", "Pride and Prejudice"),
        put("13030/g7cc3\twhen", "1813"),
        put("13030/g7cc3\thow", "dissertation"),
        // D: withdrawn (a 410 target), good standing.
        put("13030/f5dd4\t:/c", "i|20240101000000|x|4"),
        put("13030/f5dd4\t_t", "410 withdrawn in 2024"),
        put("13030/f5dd4\twho", "(:unav)"),
        put("13030/f5dd4\twhat", "Withdrawn thing"),
        put("13030/f5dd4\twhen", "2024"),
        put("13030/f5dd4\thow", "text"),
        // E: minted, nothing bound.
        put("13030/f5ee5\t:/c", "i|20260101000000|x|5"),
        // F: only held: not an identifier anybody issued or bound.
        put("13030/f5ff6\t:/h", "1"),
    ]
}

/// Load the fixture into a new minter's store.
pub fn load(store: &dyn Store) {
    store.commit(fixture()).expect("commit the fixture");
}

/// The ids `query` finds, sorted.
pub fn found(index: &SearchIndex, query: &str) -> Vec<String> {
    let q: Query = query.parse().unwrap_or_else(|e| panic!("{query}: {e}"));
    let r = index
        .search(&q, 0, 100, Sort::by(SortKey::Id))
        .expect("search");
    let ids: Vec<String> = r.hits.iter().map(|h| h.id.clone()).collect();
    assert_eq!(r.total, ids.len(), "{query}: total");
    ids
}

/// What each query finds in the fixture, by hand.
pub const EXPECTED: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "13030/f5aa1",
            "13030/f5bb2",
            "13030/f5dd4",
            "13030/f5ee5",
            "13030/g7cc3",
        ],
    ),
    ("shelley", &["13030/f5aa1", "13030/f5bb2"]),
    ("\"modern prometheus\"", &["13030/f5aa1"]),
    ("\"prometheus modern\"", &[]),
    ("monstre", &["13030/f5aa1"]),
    ("who:\"shelley, MARY\"", &["13030/f5aa1", "13030/f5bb2"]),
    ("who:shelley", &[]),
    ("host:example.org", &["13030/f5aa1", "13030/f5bb2"]),
    (
        "under:ark:/13030/f5",
        &["13030/f5aa1", "13030/f5bb2", "13030/f5dd4", "13030/f5ee5"],
    ),
    ("under:https://n2t.net/ark:/13030/g7", &["13030/g7cc3"]),
    ("under:13030/f5a", &["13030/f5aa1"]),
    ("updated:>=2026-01-01", &["13030/f5aa1", "13030/g7cc3"]),
    ("updated:<2026-01-01", &["13030/f5bb2"]),
    ("updated:2026-01-01", &["13030/f5aa1"]),
    ("created:2025-01-01", &["13030/f5aa1"]),
    ("created:<2025-01-01", &["13030/f5dd4"]),
    ("status:broken", &["13030/f5aa1"]),
    (
        "status:unchecked",
        &["13030/f5dd4", "13030/f5ee5", "13030/g7cc3"],
    ),
    ("withdrawn:yes", &["13030/f5dd4"]),
    ("standing:good", &["13030/f5aa1", "13030/f5dd4"]),
    ("standing:incomplete", &["13030/f5bb2", "13030/f5ee5"]),
    ("standing:malformed", &["13030/g7cc3"]),
    ("populator:oca", &["13030/f5aa1", "13030/f5bb2"]),
    ("shelley -status:broken", &["13030/f5bb2"]),
    ("austen OR withdrawn:yes", &["13030/f5dd4", "13030/g7cc3"]),
    ("-under:13030/f5", &["13030/g7cc3"]),
];

/// Every expected query, the facets of all, and the CSV export, against `index`.
pub fn check(index: &SearchIndex) {
    for (query, ids) in EXPECTED {
        assert_eq!(found(index, query), *ids, "{query}");
    }
    let all = index
        .search(&Query::All, 0, 10, Sort::by(SortKey::Id))
        .expect("search");
    let pairs = |v: &[(&str, u64)]| -> Vec<(String, u64)> {
        v.iter().map(|(s, n)| (s.to_string(), *n)).collect()
    };
    assert_eq!(
        all.facets.shoulder,
        pairs(&[("ark:/13030/f5", 4), ("ark:/13030/g7", 1)])
    );
    assert_eq!(
        all.facets.host,
        pairs(&[("example.org", 2), ("archive.example.net", 1)])
    );
    assert_eq!(all.facets.populator, pairs(&[("oca", 2), ("ucla", 1)]));
    assert_eq!(
        all.facets.standing,
        pairs(&[("good", 2), ("incomplete", 2), ("malformed", 1)])
    );
    assert_eq!(
        all.facets.status,
        pairs(&[("unchecked", 3), ("broken", 1), ("ok", 1)])
    );
    // The facets count the matches, not the page.
    let shelley = index
        .search(&"shelley".parse().unwrap(), 0, 1, Sort::by(SortKey::Id))
        .unwrap();
    assert_eq!(shelley.hits.len(), 1);
    assert_eq!(shelley.facets.status, pairs(&[("broken", 1), ("ok", 1)]));

    // The console's sortable columns: titles in byte order, the one without a title
    // last; the latest writes first.
    let ids = |sort: &str, limit: usize| -> Vec<String> {
        let sort = Sort::parse(sort).unwrap();
        let r = index.search(&Query::All, 0, limit, sort).unwrap();
        r.hits.into_iter().map(|h| h.id).collect()
    };
    assert_eq!(
        ids("title", 10),
        [
            "13030/f5aa1",
            "13030/g7cc3",
            "13030/f5bb2",
            "13030/f5dd4",
            "13030/f5ee5"
        ]
    );
    assert_eq!(
        ids("-title", 4),
        ["13030/f5dd4", "13030/f5bb2", "13030/g7cc3", "13030/f5aa1"]
    );
    assert_eq!(
        ids("-updated", 3),
        ["13030/g7cc3", "13030/f5aa1", "13030/f5bb2"]
    );
    assert_eq!(
        ids("updated", 3),
        ["13030/f5bb2", "13030/f5aa1", "13030/g7cc3"]
    );

    let mut csv_out = Vec::new();
    let n = index
        .export(&"shelley".parse().unwrap(), Format::Csv, &mut csv_out)
        .expect("export");
    assert_eq!(n, 2);
    let mut reader = csv::Reader::from_reader(csv_out.as_slice());
    assert_eq!(
        reader.headers().unwrap().iter().collect::<Vec<_>>(),
        ["id", "target", "who", "what", "when", "where", "how", "status", "updated"]
    );
    let mut rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    rows.sort();
    let want: Vec<Vec<String>> = [
        [
            "13030/f5aa1",
            "https://example.org/frank",
            "Shelley, Mary",
            "Frankenstein; or, The Modern Prometheus",
            "1818",
            "",
            "text book",
            "broken",
            "2026-01-01T00:01:40Z",
        ],
        [
            "13030/f5bb2",
            "https://Example.ORG/last",
            "Shelley, Mary",
            "The Last Man",
            "",
            "",
            "",
            "ok",
            "2025-01-01T00:00:00Z",
        ],
    ]
    .iter()
    .map(|r| r.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(rows, want);
}

/// The index directory's largest file (a segment's data).
pub fn largest_file(dir: &Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .max_by_key(|p| p.metadata().unwrap().len())
        .unwrap()
}
