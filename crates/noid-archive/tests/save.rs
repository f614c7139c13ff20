//! Save-on-bind against a loopback "save" endpoint that fails once, then saves, with
//! the queue in a real RocksDB minter: queued, tried, retried after its backoff (the
//! clock is the test's: no sleeps), and its outcome recorded. And the copies, marks
//! and policies kept in the same store.

mod loopback;

use std::time::Duration;

use loopback::Server;
use noid_archive::save::{self, Ran, SaveRequest, State};
use noid_archive::{copies, Archived, Config};
use noid_core::links;

const T0: u64 = 1_800_000_000;
const TARGET: &str = "https://example.org/new-paper";

fn store(dir: &std::path::Path) -> Box<dyn noid_store::Store> {
    noid_store::open::create(dir, None, Duration::from_secs(5)).unwrap()
}

fn config(save: &str) -> Config {
    Config::with(
        "http://127.0.0.1:9/web/",
        save,
        "noid-test",
        Duration::from_secs(10),
    )
    .unwrap()
}

fn request(s: &dyn noid_store::Store) -> SaveRequest {
    let value = s
        .get(&links::save_key("ark:/1/x", TARGET))
        .unwrap()
        .unwrap();
    SaveRequest::decode(&value).unwrap()
}

#[test]
fn a_queued_save_is_retried_after_its_backoff_and_its_outcome_recorded() {
    let archive = Server::start(|_, before| {
        if before == 0 {
            "503 Service Unavailable".to_string()
        } else {
            "302 Found\r\nLocation: /web/20270115080000/https://example.org/new-paper".to_string()
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let config = config(&format!("{}/save/", archive.base));
    save::enqueue(&*s, "ark:/1/x", TARGET, T0).unwrap();
    assert_eq!(
        String::from_utf8(
            s.get(&links::save_key("ark:/1/x", TARGET))
                .unwrap()
                .unwrap()
        )
        .unwrap(),
        "state: queued\nqueued: 1800000000\nattempts: 0\nnext: 1800000000\ndetail: \n"
    );

    // First try: the archive fails; tried again after the first backoff.
    let ran = save::run(&*s, &config, T0, 100).unwrap();
    assert_eq!(
        ran,
        Ran {
            tried: 1,
            saved: 0,
            failed: 0
        }
    );
    let r = request(&*s);
    assert_eq!(
        (r.state, r.attempts, r.next),
        (State::Queued, 1, T0 + save::FIRST_BACKOFF)
    );
    assert_eq!(
        r.detail,
        format!(
            "{}/save/{TARGET} answered 503 Service Unavailable",
            archive.base
        )
    );

    // Not yet due: nothing is asked.
    let ran = save::run(&*s, &config, T0 + save::FIRST_BACKOFF - 1, 100).unwrap();
    assert_eq!(ran, Ran::default());
    assert_eq!(archive.seen().len(), 1);

    // Due: saved, where the archive says the copy is.
    let ran = save::run(&*s, &config, T0 + save::FIRST_BACKOFF, 100).unwrap();
    assert_eq!(
        ran,
        Ran {
            tried: 1,
            saved: 1,
            failed: 0
        }
    );
    let r = request(&*s);
    assert_eq!((r.state, r.attempts), (State::Saved, 2));
    assert_eq!(
        r.detail,
        format!(
            "{}/web/20270115080000/https://example.org/new-paper",
            archive.base
        )
    );
    let seen = archive.seen();
    assert_eq!(seen.len(), 2);
    assert!(
        seen.iter().all(
            |r| (r.method.as_str(), r.path.as_str(), r.header("user-agent"))
                == ("GET", &*format!("/save/{TARGET}"), Some("noid-test"))
        ),
        "{seen:?}"
    );

    // Saved is done: never asked again.
    assert_eq!(
        save::run(&*s, &config, T0 + 10 * save::MAX_BACKOFF, 100).unwrap(),
        Ran::default()
    );
    assert_eq!(archive.seen().len(), 2);
}

#[test]
fn copies_marks_and_policies_are_kept_in_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path());
    let copy = Archived {
        url: "https://web.archive.org/web/2020/https://e.org/".into(),
        datetime: "Wed, 01 Jan 2020 00:00:00 GMT".into(),
        original: "https://e.org/".into(),
        found: T0,
    };
    assert_eq!(copies::stored(&*s, "13030/x").unwrap(), None);
    copies::keep(&*s, "13030/x", &copy).unwrap();
    assert_eq!(copies::stored(&*s, "13030/x").unwrap(), Some(copy));
    assert_eq!(
        s.get(b":/links/a/13030/x").unwrap().unwrap(),
        b"url: https://web.archive.org/web/2020/https://e.org/\n\
          datetime: Wed, 01 Jan 2020 00:00:00 GMT\noriginal: https://e.org/\nfound: 1800000000\n"
    );

    copies::mark(&*s, "13030/x", true, T0).unwrap();
    assert!(copies::is_marked(&*s, "13030/x").unwrap());
    assert_eq!(
        s.get(b":/links/m/13030/x").unwrap().as_deref(),
        Some(&b"1800000000"[..])
    );
    copies::mark(&*s, "13030/x", false, T0).unwrap();
    assert!(!copies::is_marked(&*s, "13030/x").unwrap());

    // Off by default; on for one shoulder, then for the whole minter, then off again.
    assert!(!copies::wanted(&*s, "ark:/13030/fk4x").unwrap());
    copies::set_policy(&*s, "ark:/13030/fk4", true).unwrap();
    assert!(copies::wanted(&*s, "ark:/13030/fk4x").unwrap());
    assert!(copies::wanted(&*s, "13030/fk4x").unwrap());
    assert!(!copies::wanted(&*s, "ark:/13030/x").unwrap());
    copies::set_policy(&*s, "", true).unwrap();
    assert!(copies::wanted(&*s, "ark:/13030/x").unwrap());
    assert_eq!(copies::policies(&*s).unwrap(), ["", "ark:/13030/fk4"]);
    copies::set_policy(&*s, "", false).unwrap();
    copies::set_policy(&*s, "ark:/13030/fk4", false).unwrap();
    assert_eq!(copies::policies(&*s).unwrap(), Vec::<String>::new());
}
