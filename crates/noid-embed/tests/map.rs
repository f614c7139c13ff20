//! A map on a real RocksDB store in a temporary directory: the answers of noidr's line
//! protocols (the expected lines are the ones tests/e2e/run.sh and noidr's tests expect
//! from `noidr` for the same bindings), as mod_rewrite reads them; a write seen at the
//! next lookup; the C ABI, panics included.

use std::ffi::{c_char, CString};
use std::path::Path;
use std::time::Duration;

use noid_embed::ffi::{
    boundary, noid_map_answer, noid_map_close, noid_map_open, noid_map_redirect,
    noid_map_redirect_plain,
};
use noid_embed::{Config, Found, HttpRequest, Map};
use noid_store::{AnswerRegion, Op, Writer};

const T: Duration = Duration::from_secs(5);

fn bind(dbdir: &Path, bindings: &[(&str, &str, &str)]) {
    let w = Writer::open(dbdir, T).unwrap();
    let ops = bindings.iter().map(|(id, elem, value)| {
        Op::Put(
            format!("{id}\t{elem}").into_bytes(),
            value.as_bytes().to_vec(),
        )
    });
    w.commit(ops).unwrap();
}

fn minter() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    drop(Writer::create(d.path(), T).unwrap());
    bind(
        d.path(),
        &[
            ("ark:/13030/xt1", "_t", "https://example.org/xt1"),
            ("ark:/13030/p1", "_t", "301 https://example.org/moved"),
            ("ark:/00224/foo", "_t", "https://example.org/zaf"),
            ("ark:/13030/gone", "_t", "410 withdrawn"),
            ("13030/kt639k9", "myGoto", "https://example.org/kt639k9"),
        ],
    );
    d
}

fn open(protocol: &str, dbdir: &Path, opts: &[&str]) -> Map {
    let secondary = format!("secondary-dir={}", std::env::temp_dir().display());
    let mut opts = opts.to_vec();
    opts.push(&secondary);
    Map::open(
        &Config::parse(protocol, dbdir.to_str().unwrap(), &opts).unwrap(),
        None,
        None,
    )
    .unwrap()
}

fn ask(map: &Map, key: &str) -> (Found, String) {
    let mut out = Vec::new();
    let found = map.answer(key.as_bytes(), &mut out);
    (found, String::from_utf8(out).unwrap())
}

fn value(s: &str) -> (Found, String) {
    (Found::Value, s.to_owned())
}

#[test]
fn egg_answers_are_noidrs() {
    let d = minter();
    let map = open("egg", d.path(), &[]);
    let blob = " !!!pr=http!!!!!!ac=!!!";
    assert_eq!(
        ask(&map, "ark:/13030/xt1.resolve"),
        value("redir302 https://example.org/xt1")
    );
    assert_eq!(
        ask(&map, &format!("ark:/13030/p1.resolve{blob}")),
        value("redir301 https://example.org/moved")
    );
    assert_eq!(
        ask(
            &map,
            &format!("ark:/00224/foo/bar//zif?zaf=ab&cd.resolve{blob}")
        ),
        value("redir302 https://example.org/zaf/bar//zif?zaf=ab&cd")
    );
    assert_eq!(
        ask(&map, "ark:/13030/gone.resolve"),
        value("redir410 withdrawn")
    );
    // A miss under a NAAN the store serves; another NAAN's ARK goes on to N2T (the
    // ARK draft's §3.3; the built-in rules name no other global resolver).
    assert_eq!(
        ask(&map, "ark:/13030/nope.resolve"),
        (Found::NotFound, "NULL".into())
    );
    assert_eq!(
        ask(&map, "ark:/99999/nope.resolve"),
        value("redir302 https://n2t.net/ark:/99999/nope")
    );
    // httpd never sends a prg: program a key holding a newline: not found.
    assert_eq!(
        ask(&map, "ark:/13030/xt1.resolve\n"),
        (Found::NotFound, String::new())
    );
    let (found, line) = ask(&map, "no method here");
    assert_eq!(found, Found::Error);
    assert!(line.starts_with("error: "), "{line}");
    // Asked again: the view's memo gives the same line.
    assert_eq!(
        ask(&map, "ark:/13030/xt1.resolve"),
        value("redir302 https://example.org/xt1")
    );
    let eggnog = open("egg", d.path(), &["miss=eggnog"]);
    assert_eq!(ask(&eggnog, "ark:/13030/nope.resolve"), value("redir302 "));
}

#[test]
fn noid_answers_are_noidrs() {
    let d = minter();
    let map = open("noid", d.path(), &[]);
    assert_eq!(
        ask(&map, "get 13030/kt639k9 myGoto"),
        value("https://example.org/kt639k9")
    );
    assert_eq!(
        ask(&map, "get '13030/kt639k9' myGoto"),
        value("https://example.org/kt639k9")
    );
    assert_eq!(
        ask(&map, "get 13030/nope myGoto"),
        (Found::NotFound, "NULL".into())
    );
    let (found, line) = ask(&map, "get 'it's' myGoto");
    assert_eq!(found, Found::Error);
    assert!(line.starts_with("error: "), "{line}");
}

#[test]
fn a_write_is_seen_at_the_next_lookup() {
    let d = minter();
    let map = open("egg", d.path(), &[]);
    for i in 0..10 {
        let target = format!("https://example.org/v{i}");
        bind(d.path(), &[("ark:/13030/live", "_t", &target)]);
        assert_eq!(
            ask(&map, "ark:/13030/live.resolve"),
            value(&format!("redir302 {target}"))
        );
    }
}

/// Two maps on one region of shared answers, as two Apache children on the memory
/// their parent mapped: each answers what the other computed, and after a write both
/// answer the new target at their next lookup (an answer of the old view is not taken).
#[test]
fn processes_share_answers_and_each_sees_a_write_at_its_next_lookup() {
    let d = minter();
    let bytes = Config::parse("egg", "/d", &[]).unwrap().region_bytes();
    assert_eq!(bytes, 262_144 * 256, "shared-answers= by default");
    let mut memory = vec![0u64; 64 * 1024 / 8];
    // SAFETY: zeroed, 8-aligned, outlives both maps (dropped below), used only by them.
    let region = unsafe { AnswerRegion::new(memory.as_mut_ptr().cast(), memory.len() * 8) };
    let config = Config::parse(
        "egg",
        d.path().to_str().unwrap(),
        &[&format!("secondary-dir={}", std::env::temp_dir().display())],
    )
    .unwrap();
    let one = Map::open(&config, None, region).unwrap();
    let two = Map::open(&config, None, region).unwrap();
    for i in 0..5 {
        let target = format!("https://example.org/s{i}");
        bind(d.path(), &[("ark:/13030/shared", "_t", &target)]);
        for map in [&one, &two, &one] {
            assert_eq!(
                ask(map, "ark:/13030/shared.resolve"),
                value(&format!("redir302 {target}")),
                "write {i}"
            );
        }
    }
    // The region holds the last answer (its key and answer bytes are in the memory).
    let bytes: Vec<u8> = memory.iter().flat_map(|w| w.to_le_bytes()).collect();
    let hit = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(hit(b"redir302 https://example.org/s4"));
    drop((one, two));
    drop(memory);
}

#[test]
fn a_store_not_there_answers_errors_until_it_is() {
    let d = tempfile::tempdir().unwrap();
    let dbdir = d.path().join("later");
    let map = open("egg", &dbdir, &[]);
    let (found, line) = ask(&map, "ark:/13030/xt1.resolve");
    assert_eq!(found, Found::Error);
    assert!(line.starts_with("error: "), "{line}");
    std::fs::create_dir(&dbdir).unwrap();
    drop(Writer::create(&dbdir, T).unwrap());
    bind(
        &dbdir,
        &[("ark:/13030/xt1", "_t", "https://example.org/xt1")],
    );
    // The follower tries again every second.
    let mut tries = 0;
    while ask(&map, "ark:/13030/xt1.resolve").0 == Found::Error {
        tries += 1;
        assert!(tries < 200, "the store was never opened");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        ask(&map, "ark:/13030/xt1.resolve"),
        value("redir302 https://example.org/xt1")
    );
}

/// nginx's requests: the answer of the line noid-resolve.conf makes, kept by the raw
/// request, and still a write seen at the next request.
#[test]
fn http_requests_answer_as_their_lines() {
    let d = minter();
    let map = open("egg", d.path(), &[]);
    let ask = |target: &str, accept: &str| {
        let mut out = Vec::new();
        let found = map.answer_request(
            &request(target.as_bytes(), accept.as_bytes()),
            false,
            &mut out,
        );
        (found, String::from_utf8(out).unwrap())
    };
    for _ in 0..2 {
        assert_eq!(
            ask("/ark:/13030/xt1", ""),
            value("redir302 https://example.org/xt1")
        );
        assert_eq!(
            ask("//ark:/00224/foo/bar//zif?zaf=ab&cd", "*/*"),
            value("redir302 https://example.org/zaf/bar//zif?zaf=ab&cd")
        );
        assert_eq!(
            ask("/ark:/13030/nope", ""),
            (Found::NotFound, "NULL".into())
        );
        assert_eq!(
            ask("/ark:/13030/xt1%0A", ""),
            (Found::NotFound, "NULL".into())
        );
    }
    bind(
        d.path(),
        &[("ark:/13030/xt1", "_t", "https://example.org/v2")],
    );
    assert_eq!(
        ask("/ark:/13030/xt1", ""),
        value("redir302 https://example.org/v2")
    );
}

/// Every row of docs/RESOLUTION.md's table of the ARK draft's rules, asked of the map as
/// the nginx module and mod_noid's `NoidResolve` ask it (the HTTP request, its path
/// %-encoded as a browser sends it) and as a line (`REQUEST.resolve`, what Apache's
/// rewrite rules and noidr's egg protocol read), against a real store holding the
/// table's bindings. A page (`metadata of ID`) is an `inflect` line, which only the
/// pages (`noidr --http`) render.
#[test]
fn every_row_of_the_draft_rules_table_answers_in_the_maps() {
    use noid_resolve::draft_table::{bindings, rows, Expected};
    let d = tempfile::tempdir().unwrap();
    drop(Writer::create(d.path(), T).unwrap());
    bind(d.path(), &bindings());
    let map = open("egg", d.path(), &[]);
    let rows = rows();
    assert_eq!(rows.len(), 35);
    for row in rows {
        let mut out = Vec::new();
        let target = format!("/{}", row.http_path());
        map.answer_request(&request(target.as_bytes(), b""), false, &mut out);
        let over_http = String::from_utf8(out).unwrap();
        let (_, line) = ask(&map, &format!("{}.resolve", row.request));
        for (how, answer) in [("request", &over_http), ("line", &line)] {
            let why = format!("{} as a {how}: {answer}", row.request);
            match row.expected {
                Expected::Redirect(want) => {
                    assert_eq!(answer, &format!("redir302 {want}"), "{why}")
                }
                Expected::Metadata(_) => assert!(answer.starts_with("inflect "), "{why}"),
                Expected::NotFound => assert_eq!(answer, "NULL", "{why}"),
            }
        }
    }
}

/// An egg map on `dbdir` opened through the C ABI, with no options, as the shims open
/// one.
fn open_c(dbdir: &Path) -> *mut Map {
    let (egg, dir) = (
        CString::new("egg").unwrap(),
        CString::new(dbdir.to_str().unwrap()).unwrap(),
    );
    let mut err = [0 as c_char; 64];
    // SAFETY: NUL-terminated strings, no options, an error buffer of its length.
    let map = unsafe {
        noid_map_open(
            egg.as_ptr(),
            dir.as_ptr(),
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    assert!(!map.is_null());
    map
}

/// The C ABI as the shims call it.
#[test]
fn the_c_abi() {
    let d = minter();
    let cstr = |s: &str| CString::new(s).unwrap();
    let (egg, dir) = (cstr("egg"), cstr(d.path().to_str().unwrap()));
    let bad = cstr("colour=red");
    let opts = [bad.as_ptr()];
    let mut err = [0 as c_char; 64];
    // SAFETY: NUL-terminated strings, an error buffer of its length.
    let map = unsafe {
        noid_map_open(
            egg.as_ptr(),
            dir.as_ptr(),
            opts.as_ptr(),
            1,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
            err.as_mut_ptr(),
            err.len(),
        )
    };
    assert!(map.is_null());
    // SAFETY: written NUL-terminated by noid_map_open.
    let msg = unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) }
        .to_str()
        .unwrap();
    // cut to the buffer: 63 bytes and the NUL
    assert_eq!(
        msg,
        "unknown option 'colour' (miss, rules, registry, deadline, cache"
    );
    let map = open_c(d.path());
    let answer = |key: &str| {
        let (mut p, mut n) = (std::ptr::null(), 0usize);
        // SAFETY: an open map, a key of its length, writable outputs.
        let code = unsafe { noid_map_answer(map, key.as_ptr().cast(), key.len(), &mut p, &mut n) };
        // SAFETY: the answer is valid until this thread's next lookup.
        let text = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) };
        (code, String::from_utf8(text.to_vec()).unwrap())
    };
    assert_eq!(
        answer("ark:/13030/xt1.resolve"),
        (1, "redir302 https://example.org/xt1".into())
    );
    assert_eq!(answer("ark:/13030/nope.resolve"), (0, "NULL".into()));
    assert_eq!(answer("nothing").0, -1);
    // SAFETY: opened above, no lookup under way.
    unsafe { noid_map_close(map) };
}

/// The two redirect entry points on the same requests: `noid_map_redirect` (nginx)
/// answers every redirect, a 410 and a page; `noid_map_redirect_plain` (Apache's
/// NoidResolve) only what noid-resolve.conf's rules would send unchanged, the rest a
/// miss for the rules to answer.
#[test]
fn redirects_and_plain_redirects() {
    let d = minter();
    bind(
        d.path(),
        &[
            ("ark:/13030/rel", "_t", "/local/page"),
            ("ark:/13030/q", "_t", "https://example.org/q?"),
            ("ark:/13030/sp", "_t", "https://example.org/a b"),
            ("ark:/13030/nf", "_t", "404 https://example.org/nf"),
        ],
    );
    let map = open_c(d.path());
    type Entry = unsafe extern "C" fn(
        *const Map,
        *const c_char,
        usize,
        *const c_char,
        usize,
        *const c_char,
        usize,
        *const c_char,
        usize,
        *mut i32,
        *mut *const c_char,
        *mut usize,
    ) -> i32;
    let ask = |entry: Entry, target: &str| {
        let (mut status, mut p, mut n) = (0, std::ptr::null(), 0usize);
        // SAFETY: an open egg map, strings of their lengths, writable outputs.
        let code = unsafe {
            entry(
                map,
                target.as_ptr().cast(),
                target.len(),
                "http".as_ptr().cast(),
                4,
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                &mut status,
                &mut p,
                &mut n,
            )
        };
        // SAFETY: the location is valid until this thread's next lookup.
        let to = unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) };
        (code, status, String::from_utf8(to.to_vec()).unwrap())
    };
    let (all, plain): (Entry, Entry) = (noid_map_redirect, noid_map_redirect_plain);
    let cases = [
        // target, noid_map_redirect, noid_map_redirect_plain
        (
            "/ark:/13030/xt1",
            (1, 302, "https://example.org/xt1"),
            (1, 302, "https://example.org/xt1"),
        ),
        (
            "/ark:/13030/p1",
            (1, 301, "https://example.org/moved"),
            (1, 301, "https://example.org/moved"),
        ),
        (
            "/ark:/13030/nf",
            (1, 404, "https://example.org/nf"),
            (1, 404, "https://example.org/nf"),
        ),
        ("/ark:/13030/gone", (1, 410, "withdrawn"), (0, 0, "")),
        ("/ark:/13030/rel", (1, 302, "/local/page"), (0, 0, "")),
        (
            "/ark:/13030/q",
            (1, 302, "https://example.org/q?"),
            (0, 0, ""),
        ),
        (
            "/ark:/13030/sp",
            (1, 302, "https://example.org/a b"),
            (0, 0, ""),
        ),
        ("/ark:/13030/xt1?", (1, 0, ""), (0, 0, "")),
        ("/ark:/13030/nope", (0, 0, ""), (0, 0, "")),
    ];
    for (target, want_all, want_plain) in cases {
        let (c, s, l) = want_all;
        assert_eq!(ask(all, target), (c, s, l.to_owned()), "{target}");
        let (c, s, l) = want_plain;
        assert_eq!(ask(plain, target), (c, s, l.to_owned()), "{target} (plain)");
    }
    // SAFETY: opened above, no lookup under way.
    unsafe { noid_map_close(map) };
}

/// A panic stops at the boundary: logged, answered with the fallback.
#[test]
fn a_panic_is_answered_as_an_error() {
    let answered = boundary("a test", -1, || -> i32 { panic!("on purpose") });
    assert_eq!(answered, -1);
    assert_eq!(boundary("a test", -1, || 7), 7);
}

/// Issue 43, item 6, in the web-server modules: with `rules=` naming a file that says
/// `archived-copy`, a broken target with an archived copy stored is answered with a
/// redirect to the copy, as a line and as an HTTP request; without it, as bound.
#[test]
fn a_broken_target_falls_back_on_its_archived_copy_where_the_rules_say() {
    use noid_core::links::{self, Archived, LinkState, Status};
    let d = minter();
    let copy = "https://web.archive.org/web/2020/https://example.org/xt1";
    let state = LinkState {
        status: Status::Broken,
        http: Some(404),
        checked: 1_800_000_000,
        since: 1_799_000_000,
        failures: 3,
        failing_since: Some(1_790_000_000),
        detail: "404".into(),
        location: None,
        fingerprint: None,
        cert_expires: None,
    };
    let record = Archived {
        url: copy.into(),
        datetime: "Wed, 01 Jan 2020 00:00:00 GMT".into(),
        original: "https://example.org/xt1".into(),
        found: 1_800_000_001,
    };
    let w = Writer::open(d.path(), T).unwrap();
    w.commit([
        Op::Put(
            links::state_key("ark:/13030/xt1", "https://example.org/xt1"),
            state.encode(),
        ),
        Op::Put(links::archived_key("ark:/13030/xt1"), record.encode()),
    ])
    .unwrap();
    drop(w);
    let rules = d.path().join("rules");
    std::fs::write(&rules, "archived-copy page ark:/13030/\n").unwrap();
    let rules_opt = format!("rules={}", rules.display());
    let map = open("egg", d.path(), &[&rules_opt]);
    assert_eq!(
        ask(&map, "ark:/13030/xt1.resolve"),
        value(&format!("redir302 {copy}"))
    );
    let mut out = Vec::new();
    let found = map.answer_request(&request(b"/ark:/13030/xt1", b""), false, &mut out);
    assert_eq!(
        (found, String::from_utf8(out).unwrap()),
        value(&format!("redir302 {copy}"))
    );
    // The same store, the built-in rules: as bound.
    let plain = open("egg", d.path(), &[]);
    assert_eq!(
        ask(&plain, "ark:/13030/xt1.resolve"),
        value("redir302 https://example.org/xt1")
    );
}

/// `counts=`: two maps on one store, as two worker processes have (each its own
/// segment), answered from two threads each, by line and by request; once closed,
/// the counts store holds exactly what was asked: lines as people's (no User-Agent
/// reaches a `RewriteMap`), HTTP requests by their User-Agent (a browser's, a
/// crawler's, none: COUNTER-Robots counts that as a robot); a `NoidResolve` request
/// it leaves to the rules (a miss) is not counted, since the rules' own look-up is.
#[test]
fn counts_of_two_workers_add_up_to_the_requests_asked() {
    use noid_counts::{counts_dir_of, Class, CountsDir, Kind};
    use std::collections::BTreeMap;
    let d = minter();
    let workers = [
        open("egg", d.path(), &["counts=0.1"]),
        open("egg", d.path(), &["counts=3600"]),
    ];
    std::thread::scope(|s| {
        for map in &workers {
            for _ in 0..2 {
                s.spawn(move || {
                    for _ in 0..250 {
                        assert_eq!(ask(map, "ark:/13030/xt1.resolve").0, Found::Value);
                        assert_eq!(ask(map, "ark:/13030/p1.resolve").0, Found::Value);
                        assert_eq!(ask(map, "ark:/13030/nope.resolve").0, Found::NotFound);
                        let agents: [Option<&[u8]>; 3] = [
                            Some(FIREFOX),
                            Some(b"Googlebot/2.1 (+http://www.google.com/bot.html)"),
                            None,
                        ];
                        for user_agent in agents {
                            let mut out = Vec::new();
                            let xt1 = HttpRequest {
                                user_agent,
                                ..request(b"/ark:/13030/xt1", b"")
                            };
                            assert_eq!(map.answer_request(&xt1, false, &mut out), Found::Value);
                            // Plain (NoidResolve): a redirect is counted, a miss left to the rules is not.
                            assert_eq!(map.answer_request(&xt1, true, &mut out), Found::Value);
                            let nope = HttpRequest {
                                user_agent,
                                ..request(b"/ark:/13030/nope", b"")
                            };
                            assert_eq!(map.answer_request(&nope, true, &mut out), Found::NotFound);
                        }
                    }
                });
            }
        }
    });
    // Closing a map (the worker's exit) writes what it has not written yet.
    drop(workers);
    let mut got = BTreeMap::new();
    for e in CountsDir::new(counts_dir_of(d.path())).read().unwrap() {
        *got.entry((String::from_utf8(e.id).unwrap(), e.kind, e.class))
            .or_insert(0u64) += e.count;
    }
    let person = |id: &str, kind| (id.to_string(), kind, Class::Person);
    let robot = |id: &str, kind| (id.to_string(), kind, Class::Robot);
    assert_eq!(
        got,
        BTreeMap::from([
            // 1000 lines, 2 x 1000 requests from the browser
            (person("ark:/13030/xt1", Kind::Redirect(302)), 3_000),
            // 2 x 1000 from the crawler, 2 x 1000 without a User-Agent
            (robot("ark:/13030/xt1", Kind::Redirect(302)), 4_000),
            (person("ark:/13030/p1", Kind::Redirect(301)), 1_000),
            (person("ark:/13030/nope", Kind::Miss), 1_000),
        ])
    );
}

/// Firefox's User-Agent, a person's.
const FIREFOX: &[u8] = b"Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/// An HTTP request for `target` over http with `accept`, without a User-Agent.
fn request<'a>(target: &'a [u8], accept: &'a [u8]) -> HttpRequest<'a> {
    HttpRequest {
        target,
        scheme: b"http",
        accept,
        user_agent: None,
    }
}
