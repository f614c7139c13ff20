//! An archived copy in place of a broken target (`archived-copy` in the rules file):
//! the redirect or the page, the egg line, and what stays as it was: every other
//! answer, and with no directive, every read.

use std::sync::Mutex;

use super::{check_rules, store};
use crate::{Answer, Request, Resolver, Rules};
use noid_core::links::{self, Archived, LinkState, Status};
use noid_core::lookup::{Lookup, LookupError, Pairs};
use noid_core::MemLookup;

const TARGET: &str = "https://gone.example.org/paper";
const COPY: &str = "https://web.archive.org/web/20200101000000/https://gone.example.org/paper";
const DATE: &str = "Wed, 01 Jan 2020 00:00:00 GMT";

fn state(status: Status) -> Vec<u8> {
    LinkState {
        status,
        http: None,
        checked: 1_800_000_000,
        since: 1_799_000_000,
        failures: 5,
        failing_since: Some(1_790_000_000),
        detail: "connection refused".into(),
        location: None,
        fingerprint: None,
        cert_expires: None,
    }
    .encode()
}

fn copy(original: &str) -> Vec<u8> {
    Archived {
        url: COPY.into(),
        datetime: DATE.into(),
        original: original.into(),
        found: 1_800_000_001,
    }
    .encode()
}

/// `id` bound to TARGET, with the checker's state `status` (if any) and a copy of
/// `original` (if any) stored under `id` spelled as `stored`.
fn broken(stored: &str, status: Option<Status>, original: Option<&str>) -> MemLookup {
    let l = store(&[(stored, "_t", TARGET)]);
    if let Some(s) = status {
        l.insert(links::state_key(stored, TARGET), state(s));
    }
    if let Some(o) = original {
        l.insert(links::archived_key(stored), copy(o));
    }
    l
}

fn resolve(rules: &str, l: &MemLookup, id: &str) -> Answer {
    let r = Resolver::new(Rules::parse(rules).unwrap());
    r.resolve(l, &Request::new(id)).unwrap()
}

fn redirect(target: &str) -> Answer {
    Answer::Redirect {
        code: 302,
        target: target.into(),
    }
}

#[test]
fn a_broken_target_redirects_to_its_archived_copy() {
    let l = broken("ark:/12345/x", Some(Status::Broken), Some(TARGET));
    assert_eq!(
        resolve("archived-copy redirect ark:/12345", &l, "ark:/12345/x"),
        redirect(COPY)
    );
    // A minter's ARK, stored without `ark:/`, requested with it.
    let l = broken("12345/x", Some(Status::Broken), Some(TARGET));
    assert_eq!(
        resolve("archived-copy redirect ark:/12345", &l, "ark:/12345/x"),
        redirect(COPY)
    );
}

#[test]
fn the_page_policy_answers_the_page_and_the_egg_line_redirects() {
    let l = broken("ark:/12345/x", Some(Status::Broken), Some(TARGET));
    assert_eq!(
        resolve("archived-copy page", &l, "ark:/12345/x"),
        Answer::Archived {
            id: "ark:/12345/x".into(),
            original: TARGET.into(),
            url: COPY.into(),
            datetime: DATE.into(),
        }
    );
    let bindings = [("ark:/12345/x", "_t", TARGET)];
    // check_rules builds its own store: the records are bound as admin keys there.
    let l = store(&bindings);
    l.insert(
        links::state_key("ark:/12345/x", TARGET),
        state(Status::Broken),
    );
    l.insert(links::archived_key("ark:/12345/x"), copy(TARGET));
    let r = Resolver::new(Rules::parse("archived-copy page").unwrap());
    let mut out = Vec::new();
    crate::egg::answer(
        &r,
        &l,
        b"ark:/12345/x.resolve",
        crate::egg::Miss::Null,
        &mut out,
    );
    assert_eq!(
        String::from_utf8(out).unwrap(),
        format!("redir302 {COPY}\n")
    );
}

#[test]
fn a_curators_mark_stands_for_broken() {
    let l = broken("ark:/12345/x", Some(Status::Ok), Some(TARGET));
    assert_eq!(
        resolve("archived-copy redirect", &l, "ark:/12345/x"),
        redirect(TARGET)
    );
    l.insert(links::mark_key("ark:/12345/x"), "1800000002");
    assert_eq!(
        resolve("archived-copy redirect", &l, "ark:/12345/x"),
        redirect(COPY)
    );
}

#[test]
fn only_a_broken_target_with_a_copy_of_itself_falls_back() {
    let rules = "archived-copy redirect";
    for (status, original, why) in [
        (
            Some(Status::Failing),
            Some(TARGET),
            "failing is not broken yet",
        ),
        (
            Some(Status::Blocked),
            Some(TARGET),
            "a bot wall is not broken",
        ),
        (Some(Status::Broken), None, "no copy stored"),
        (None, Some(TARGET), "never checked"),
        (
            Some(Status::Broken),
            Some("https://old.example.org/"),
            "the copy is of a target since replaced",
        ),
    ] {
        let l = broken("ark:/12345/x", status, original);
        assert_eq!(
            resolve(rules, &l, "ark:/12345/x"),
            redirect(TARGET),
            "{why}"
        );
    }
    // A copy that is no web page is no copy.
    let l = broken("ark:/12345/x", Some(Status::Broken), Some(TARGET));
    for url in ["javascript:alert(1)", "data:text/html,x"] {
        let record = Archived {
            url: url.into(),
            datetime: DATE.into(),
            original: TARGET.into(),
            found: 1,
        };
        l.insert(links::archived_key("ark:/12345/x"), record.encode());
        for how in ["redirect", "page"] {
            let rules = format!("archived-copy {how}");
            assert_eq!(
                resolve(&rules, &l, "ark:/12345/x"),
                redirect(TARGET),
                "{url}"
            );
        }
    }
    let l = broken("ark:/12345/x", Some(Status::Broken), Some(TARGET));
    // Under another prefix than the directive's.
    assert_eq!(
        resolve("archived-copy redirect ark:/99999", &l, "ark:/12345/x"),
        redirect(TARGET)
    );
    // A suffix passed through to the target is not what the copy is of; inflections
    // still show the metadata.
    assert_eq!(
        resolve(rules, &l, "ark:/12345/x/chapter1"),
        redirect(&format!("{TARGET}/chapter1"))
    );
    assert!(matches!(
        resolve(rules, &l, "ark:/12345/x?"),
        Answer::Inflection { .. }
    ));
}

/// A [`Lookup`] that writes down every key it is asked for.
struct Reads<'a>(&'a MemLookup, Mutex<Vec<Vec<u8>>>);

impl Lookup for Reads<'_> {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, LookupError> {
        self.1.lock().unwrap().push(key.to_vec());
        self.0.get(key)
    }
    fn scan_prefix(&self, prefix: &[u8], limit: usize) -> Result<Pairs, LookupError> {
        self.1.lock().unwrap().push(prefix.to_vec());
        self.0.scan_prefix(prefix, limit)
    }
}

#[test]
fn with_no_directive_resolution_reads_what_it_read_before() {
    let plain = store(&[("ark:/12345/x", "_t", TARGET)]);
    let records = broken("ark:/12345/x", Some(Status::Broken), Some(TARGET));
    records.insert(links::mark_key("ark:/12345/x"), "1");
    let mut seen = Vec::new();
    for l in [&plain, &records] {
        for rules in ["", "archived-copy page ark:/99999"] {
            let reads = Reads(l, Mutex::default());
            let r = Resolver::new(Rules::parse(rules).unwrap());
            let answer = r.resolve(&reads, &Request::new("ark:/12345/x")).unwrap();
            assert_eq!(answer, redirect(TARGET));
            seen.push(reads.1.into_inner().unwrap());
        }
    }
    assert_eq!(
        seen[0],
        [b"ark:/12345/x\t_t".to_vec()],
        "a plain hit: one read"
    );
    assert!(seen.iter().all(|s| *s == seen[0]), "{seen:?}");
    // And with the directive on, the reads it adds are the link records'.
    let reads = Reads(&records, Mutex::default());
    let r = Resolver::new(Rules::parse("archived-copy page").unwrap());
    r.resolve(&reads, &Request::new("ark:/12345/x")).unwrap();
    assert_eq!(
        reads.1.into_inner().unwrap(),
        [
            b"ark:/12345/x\t_t".to_vec(),
            links::archived_key("ark:/12345/x"),
            links::mark_key("ark:/12345/x"),
        ]
    );
}

#[test]
fn other_answers_are_unchanged_by_the_directive() {
    check_rules(
        &[("ark:/12345/y", "_t", "301 https://e.org/y")],
        "archived-copy redirect",
        "ark:/12345/y.resolve",
        "redir301 https://e.org/y",
    );
    // A miss stays a miss (not forwarded: the ARK draft's forwarding of unknown NAANs
    // is turned off, so that the test is of the directive alone).
    check_rules(
        &[],
        "archived-copy page\nglobal-resolver off",
        "ark:/12345/none.resolve",
        "NULL",
    );
}
