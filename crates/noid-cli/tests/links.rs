//! `noid links check` and `noid links report` through the real binary and store,
//! against a real HTTP server on loopback (noid-links' test servers): the summary by
//! status, the rows recorded, the address guard without --allow-net (the server sees
//! no request), the targets chosen by --under and --ids, and every bad input refused
//! with a message and the store left as it was.

use noid_links::testing::{Reply, Server};

use crate::util::*;

const PAGE: &str = "<html><title>Annual report</title><p>the quick brown fox jumps over the \
                    lazy dog and keeps running through the green field until evening</p>";

fn server() -> Server {
    Server::http(|r| match r.path.as_str() {
        "/ok" => Reply::html(200, PAGE),
        "/moved" => Reply::redirect(301, "/ok"),
        _ => Reply::status(404),
    })
}

/// A minter with tst0 → /ok, tst1's JSON (content negotiation) → /gone, tst2 → /moved
/// and tst3 bound but with no target.
fn minter(server: &Server) -> Dir {
    let d = Dir::minter(&["tst.zd"]);
    assert_eq!(d.mint(4), ["tst0", "tst1", "tst2", "tst3"]);
    let binds = format!(
        "bind set tst0 _t {}\nbind set tst1 _,eTm,application/json {}\n\
         bind set tst2 _t {}\nbind set tst3 who Anonymous\n",
        server.url("/ok"),
        server.url("/gone"),
        server.url("/moved")
    );
    d.noid_stdin(&["-"], binds.as_bytes()).ok();
    d
}

const LOOPBACK: [&str; 6] = [
    "--allow-net",
    "127.0.0.0/8",
    "--contact",
    "https://ids.example.org/links",
    "--interval",
    "0s",
];

fn check(d: &Dir, extra: &[&str]) -> Run {
    let mut args = vec!["links", "check"];
    args.extend_from_slice(&LOOPBACK);
    args.extend_from_slice(extra);
    d.noid(&args)
}

fn summary(counts: &[(&str, usize)], changed: usize) -> String {
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    let mut s = format!("targets: {total}\n");
    for status in [
        "ok",
        "redirected",
        "failing",
        "broken",
        "blocked",
        "soft404",
        "parked",
        "drifted",
    ] {
        let n = counts.iter().find(|(s, _)| *s == status).map_or(0, |c| c.1);
        s.push_str(&format!("{status}: {n}\n"));
    }
    s + &format!("changed: {changed}\n")
}

/// The report's rows without the two time columns (checked, since).
fn rows(csv: &str) -> Vec<String> {
    csv.lines()
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 9, "{l}");
            if f[0] != "id" {
                assert!(f[4].ends_with('Z') && f[4].len() == 20, "checked {}", f[4]);
            }
            [f[0], f[1], f[2], f[3], f[6], f[7], f[8]].join(",")
        })
        .collect()
}

#[test]
fn check_records_every_target_and_report_lists_them() {
    let s = server();
    let d = minter(&s);
    let out = check(&d, &["--failures", "1", "--span", "0s"]);
    assert_eq!(
        out.ok(),
        summary(&[("ok", 1), ("redirected", 1), ("broken", 1)], 3)
    );
    let (ok, gone, moved) = (s.url("/ok"), s.url("/gone"), s.url("/moved"));
    let report = d.noid(&["links", "report"]);
    assert_eq!(
        rows(report.ok()),
        [
            "id,target,status,http,detail,location,failures".to_string(),
            format!("tst0,{ok},ok,200,200,,0"),
            format!("tst1,{gone},broken,404,404,,1"),
            format!("tst2,{moved},redirected,200,301 → {ok},{ok},0"),
        ]
    );
    let json = d.noid(&["links", "report", "--status", "broken", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(json.ok()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(v[0]["id"], "tst1");
    assert_eq!(v[0]["http"], 404);
    // Checked again: nothing changed, and the server was asked again.
    let before = s.requests();
    let again = check(&d, &["--failures", "1", "--span", "0s"]);
    assert_eq!(
        again.ok(),
        summary(&[("ok", 1), ("redirected", 1), ("broken", 1)], 0)
    );
    assert!(s.requests() > before);
    // The identifiers' own elements are unchanged by a check.
    assert_eq!(d.noid(&["get", "tst0", "_t"]).ok(), format!("{ok}\n"));
}

#[test]
fn without_allow_net_no_request_reaches_the_loopback_server() {
    let s = server();
    let d = minter(&s);
    let out = d.noid(&[
        "links",
        "check",
        "--contact",
        "https://ids.example.org/links",
    ]);
    assert_eq!(out.ok(), summary(&[("failing", 3)], 3));
    assert_eq!(s.requests(), 0);
    let report = d.noid(&["links", "report", "--under", "tst0"]);
    let row = report.ok().lines().nth(1).unwrap().to_string();
    assert!(
        row.ends_with(
            ",address 127.0.0.1 not allowed (a special-purpose range; --allow-net opens one),,1"
        ),
        "{row}"
    );
}

#[test]
fn under_and_ids_choose_the_targets() {
    let s = server();
    let d = minter(&s);
    assert_eq!(
        check(&d, &["--under", "tst2"]).ok(),
        summary(&[("redirected", 1)], 1)
    );
    let list = d.path().join("ids.txt");
    std::fs::write(&list, "tst0\n\ntst2\n").unwrap();
    assert_eq!(
        check(&d, &["--ids", list.to_str().unwrap()]).ok(),
        summary(&[("ok", 1), ("redirected", 1)], 1)
    );
    let mut args = vec!["links", "check", "--ids", "-"];
    args.extend_from_slice(&LOOPBACK);
    let r = d.noid_stdin(&args, b"tst3\ntst0\n");
    assert_eq!(r.code, 1, "an id without a target fails the command");
    assert_eq!(r.stdout, summary(&[("ok", 1)], 0));
    assert_eq!(
        r.stderr,
        "noid links: tst3: no target bound (_t, _,eTm, or _,eTi,), nothing to check\n"
    );
}

#[test]
fn bad_input_is_refused_and_the_store_left_as_it_was() {
    let s = server();
    let d = minter(&s);
    let usage = |args: &[&str], says: &str| {
        let r = d.noid(args);
        assert_eq!(r.code, 2, "{args:?}: {r:?}");
        assert!(r.stderr.contains(says), "{args:?}: {}", r.stderr);
    };
    usage(
        &["links", "report", "--status", "fine"],
        "no status \"fine\"; one of ok redirected failing broken blocked soft404 parked drifted",
    );
    usage(
        &["links", "check", "--allow-net", "10.0.0.0/33"],
        "\"10.0.0.0/33\" is not an address range",
    );
    usage(
        &["links", "check", "--span", "soon"],
        "\"soon\" is not a duration",
    );
    usage(&["links", "check", "--failures", "0"], "0 is not in 1..");
    usage(
        &["links", "report", "--format", "xml"],
        "invalid value 'xml'",
    );
    usage(
        &["links", "check", "--under", "a", "--ids", "-"],
        "cannot be used with",
    );
    usage(&["links"], "Usage: noid links <COMMAND>");
    let r = d.noid(&[
        "links",
        "check",
        "--contact",
        "x",
        "--ids",
        "/nonexistent/ids",
    ]);
    r.failed();
    assert!(
        r.stderr
            .starts_with("noid links: --ids /nonexistent/ids: No such file"),
        "{}",
        r.stderr
    );
    let r = d.noid_stdin(&["links", "check"], b"");
    r.failed();
    assert!(r.stderr.contains("--contact URL"), "{}", r.stderr);
    assert_eq!(s.requests(), 0);
    assert_eq!(
        d.noid(&["links", "report"]).ok(),
        "id,target,status,http,checked,since,detail,location,failures\n"
    );
    assert!(d
        .noid(&["links", "check", "--help"])
        .ok()
        .contains("--allow-net <CIDR>"));
}
