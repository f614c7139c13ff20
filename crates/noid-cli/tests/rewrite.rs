//! `noid rewrite` and `noid history` from the command line, on real RocksDB minters:
//! the preview, the operation and its `op:` line, the undo, their errors, and a
//! rewrite killed midway (SIGKILL) whose identifiers are each old or new and whose undo
//! restores the ones it changed. Expected outputs are written out from docs/HISTORY.md.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use crate::util::{noid_exe, Dir};

/// A binder with `n` identifiers `x0…`, each with the target `https://old.org/I`,
/// bound by one bulk run.
fn binder(n: usize) -> Dir {
    let d = Dir::minter(&[]);
    let lines: String = (0..n)
        .map(|i| format!("bind set x{i} _t https://old.org/{i}\n"))
        .collect();
    d.noid_stdin(&["-"], lines.as_bytes()).ok();
    d
}

/// Every identifier's target, read from a snapshot of the store (a bulk `noid get`
/// of thousands of identifiers would take a minute).
fn targets(d: &Dir, n: usize) -> Vec<String> {
    let store = noid_store::open::reader(d.path()).unwrap();
    (0..n)
        .map(|i| {
            let values = noid_egg::elements::values(&*store, &format!("x{i}"), "_t").unwrap();
            let texts: Vec<String> = values
                .into_iter()
                .map(|(_, v)| String::from_utf8(v).unwrap())
                .collect();
            texts.join(" | ")
        })
        .collect()
}

/// The op id of an operation's first line.
fn op_of(stdout: &str) -> String {
    let first = stdout.lines().next().unwrap_or_default();
    first
        .strip_prefix("op: ")
        .unwrap_or_else(|| panic!("no op line: {stdout}"))
        .to_string()
}

#[test]
fn rewrite_previews_applies_undoes_and_history_shows_it() {
    let d = binder(3);
    let dry = d.noid(&[
        "rewrite",
        "--from",
        "https://old.org/",
        "--to",
        "https://new.org/",
        "--dry-run",
        "--sample",
        "2",
    ]);
    assert_eq!(
        dry.ok(),
        "would change: 3 identifiers\n\
         x0\thttps://old.org/0\t->\thttps://new.org/0\n\
         x1\thttps://old.org/1\t->\thttps://new.org/1\n"
    );
    assert_eq!(
        targets(&d, 3),
        [
            "https://old.org/0",
            "https://old.org/1",
            "https://old.org/2"
        ]
    );
    assert!(
        !d.path().join("write.log").exists(),
        "a dry run writes nothing"
    );

    let applied = d.noid(&[
        "rewrite",
        "--from",
        "https://old.org/",
        "--to",
        "https://new.org/",
        "--under",
        "x1",
        "--under",
        "x2",
    ]);
    let op = op_of(applied.ok());
    assert_eq!(
        applied.stdout,
        format!("op: {op}\nchanged: 2 identifiers\n")
    );
    assert_eq!(
        targets(&d, 3),
        [
            "https://old.org/0",
            "https://new.org/1",
            "https://new.org/2"
        ]
    );

    let h = d.noid(&["history", "x1", "--format", "csv"]);
    let rows: Vec<&str> = h.ok().lines().collect();
    assert_eq!(
        rows[0],
        "when,id,populator,agent,acting_for,action,element,old,new,op"
    );
    assert_eq!(rows.len(), 2, "{}", h.stdout);
    assert!(
        rows[1].ends_with(&format!(
            ",x1,,{},,set,_t,https://old.org/1,https://new.org/1,{op}",
            crate::util::contact()
        )),
        "{}",
        rows[1]
    );
    // Another spelling of nothing logged: no rows, and a note on stderr for a table.
    let none = d.noid(&["history", "x0"]);
    assert_eq!(none.ok(), "");
    assert!(
        none.stderr.starts_with("no logged writes to x0 in "),
        "{}",
        none.stderr
    );

    // x2 changed again by hand: the undo refuses it, restores x1, exits 1.
    d.noid(&["bind", "set", "x2", "_t", "https://other.org/2"])
        .ok();
    let undo = d.noid(&["rewrite", "--undo", &op]);
    undo.failed();
    let undo_op = op_of(&undo.stdout);
    assert_ne!(undo_op, op);
    assert_eq!(
        undo.stdout,
        format!("op: {undo_op}\nrestored: 1 identifiers\n")
    );
    assert_eq!(
        undo.stderr,
        format!("refused: x2: changed since {op}: _t is now https://other.org/2\n")
    );
    assert_eq!(
        targets(&d, 3),
        [
            "https://old.org/0",
            "https://old.org/1",
            "https://other.org/2"
        ]
    );
}

#[test]
fn bad_rewrites_are_refused_and_change_nothing() {
    let d = binder(1);
    let cases: [(&[&str], &str); 4] = [
        (
            &["--from", "", "--to", "https://b.org/"],
            "error: --from needs the prefix to replace (https://old.example.org/)\n",
        ),
        (
            &["--from", "https://old.org/", "--to", "https://old.org/"],
            "error: --to is the same as --from (https://old.org/): nothing would change\n",
        ),
        (
            &["--from", "https://old.org/", "--to", "javascript:alert(1)//"],
            "error: --to javascript:alert(1)//: a target must not run code in a browser (javascript:, vbscript:, data:)\n",
        ),
        (
            &["--undo", "20260101T000000Z-000000"],
            "",
        ),
    ];
    for (args, stderr) in cases {
        let mut a = vec!["rewrite"];
        a.extend_from_slice(args);
        let r = d.noid(&a);
        r.failed();
        if stderr.is_empty() {
            assert_eq!(
                r.stderr,
                format!(
                    "error: no operation 20260101T000000Z-000000 in the write log ({})\n",
                    d.path().join("write.log").display()
                )
            );
        } else {
            assert_eq!(r.stderr, stderr, "{args:?}");
        }
        assert_eq!(r.stdout, "", "{args:?}");
    }
    // A to-prefix that makes no target: the identifier is refused, exit 1.
    let r = d.noid(&[
        "rewrite",
        "--from",
        "https://old.org/",
        "--to",
        "no scheme/",
    ]);
    r.failed();
    assert_eq!(
        r.stderr,
        "refused: x0: no scheme/0 would not be a target: a target must be an absolute URL (https://…) or a stored code (410 reason, 301 URL)\n"
    );
    assert_eq!(targets(&d, 1), ["https://old.org/0"]);
    // Usage errors: exit 2.
    assert_eq!(d.noid(&["rewrite", "--to", "x"]).code, 2);
    assert_eq!(
        d.noid(&["rewrite", "--undo", "x", "--from", "a", "--to", "b"])
            .code,
        2
    );
}

/// A rewrite killed with SIGKILL while it runs: each identifier holds its old target
/// or its new one (never neither), some but not all were changed, and the undo of its
/// operation restores exactly the changed ones.
#[test]
fn a_rewrite_killed_midway_leaves_old_or_new_and_its_undo_restores_them() {
    const N: usize = 5_000;
    const BATCH: usize = 10;
    let d = binder(N);
    let log = d.path().join("write.log");
    let mut child = Command::new(noid_exe())
        .env_remove("NOID")
        .arg("-f")
        .arg(d.path())
        .args([
            "rewrite",
            "--from",
            "https://old.org/",
            "--to",
            "https://new.org/",
        ])
        .args(["--batch", &BATCH.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let op = op_of(&first);
    // Records are logged before their batch's commit: a third batch logged means the
    // first two were committed.
    loop {
        let logged = std::fs::read(&log).map_or(0, |t| t.iter().filter(|&&b| b == b'\n').count());
        if logged >= 3 * BATCH {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the rewrite ended before it was killed"
        );
        std::thread::yield_now();
    }
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9)
    );

    let after = targets(&d, N);
    assert_eq!(after.len(), N);
    let mut changed = 0;
    for (i, t) in after.iter().enumerate() {
        if *t == format!("https://new.org/{i}") {
            changed += 1;
        } else {
            assert_eq!(
                *t,
                format!("https://old.org/{i}"),
                "x{i} is neither old nor new"
            );
        }
    }
    assert!(
        (2 * BATCH..N).contains(&changed),
        "changed {changed} of {N}"
    );

    let undo = d.noid(&["rewrite", "--undo", &op]);
    let undo_op = op_of(undo.ok());
    assert_eq!(
        undo.stdout,
        format!("op: {undo_op}\nrestored: {changed} identifiers\n")
    );
    let restored = targets(&d, N);
    assert!(
        restored
            .iter()
            .enumerate()
            .all(|(i, t)| *t == format!("https://old.org/{i}")),
        "not every target is back"
    );
    d.assert_check_clean();
}

/// The API's `history` and `rewrite` on a running `noid serve`: preview, apply (its
/// writes read back through the API at once), undo, and the refusals.
#[test]
fn the_api_previews_applies_undoes_and_shows_history() {
    use crate::api::Api;
    let api = Api::start();
    let sam = "sam:secret";
    for i in 1..=2 {
        let (status, body) =
            api.get_as(sam, "/a/sam/b", &format!("x{i}.set _t https://old.org/{i}"));
        assert_eq!(status, 200, "{body}");
    }
    let form = "from=https%3A%2F%2Fold.org%2F&to=https%3A%2F%2Fnew.org%2F";
    let (status, body) = api.post_as(sam, "/a/sam/rewrite", "", &format!("action=preview&{form}"));
    assert_eq!(
        (status, body.as_str()),
        (
            200,
            "{\"count\":2,\"sample\":[{\"id\":\"x1\",\"new\":\"https://new.org/1\",\"old\":\"https://old.org/1\"},\
             {\"id\":\"x2\",\"new\":\"https://new.org/2\",\"old\":\"https://old.org/2\"}],\"skipped\":[]}\n"
        )
    );
    // A read-only populator previews but may not apply; a GET carries no action.
    let (status, _) = api.post_as(
        "viewer:look",
        "/a/ro/rewrite",
        "",
        &format!("action=apply&{form}"),
    );
    assert_eq!(status, 403);
    assert_eq!(
        api.get_as(sam, "/a/sam/rewrite", "action=apply"),
        (
            400,
            "error: action \"\": give preview, apply or undo (in the POST body)\n".into()
        )
    );
    assert_eq!(
        api.get_as(sam, "/a/sam/b", "x1.get _t").1,
        "_t: https://old.org/1\n\negg-status: 0\n"
    );

    let (status, body) = api.post_as(sam, "/a/sam/rewrite", "", &format!("action=apply&{form}"));
    assert_eq!(status, 200, "{body}");
    let op = body
        .split("\"op\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    assert_eq!(
        body,
        format!("{{\"changed\":2,\"op\":\"{op}\",\"refused\":[],\"stopped\":null}}\n")
    );
    assert_eq!(
        api.get_as(sam, "/a/sam/b", "x1.get _t").1,
        "_t: https://new.org/1\n\negg-status: 0\n"
    );

    let (status, body) = api.get_as(sam, "/a/sam/history", "id=x1");
    assert_eq!(status, 200, "{body}");
    assert!(body.starts_with("{\"changes\":[{"), "{body}");
    assert!(
        body.contains("\"element\":\"_t\",\"epoch\":") && body.contains(&format!(
            "\"id\":\"x1\",\"new\":\"https://new.org/1\",\"old\":[{{\"element\":\"_t\",\"value\":\"https://old.org/1\"}}],\"op\":\"{op}\",\"populator\":\"sam\""
        )),
        "{body}"
    );
    assert_eq!(body.matches("\"action\":\"set\"").count(), 2, "{body}");

    let (status, body) = api.post_as(sam, "/a/sam/rewrite", "", &format!("action=undo&op={op}"));
    assert_eq!(status, 200, "{body}");
    assert!(body.starts_with("{\"changed\":2,\"op\":\""), "{body}");
    assert_eq!(
        api.get_as(sam, "/a/sam/b", "x2.get _t").1,
        "_t: https://old.org/2\n\negg-status: 0\n"
    );
    assert_eq!(
        api.post_as(sam, "/a/sam/rewrite", "", "action=undo&op=nope"),
        (
            400,
            format!(
                "error: no operation nope in the write log ({})\n",
                api.dir("binders/sam/write.log").display()
            )
        )
    );
}

/// The same requests through the API's CGI (`noidu-api`, as Apache runs it): a rewrite
/// applied in the CGI's own process, then the history it logged.
#[test]
fn the_cgi_applies_a_rewrite_and_shows_history() {
    use std::io::Write;
    let api = crate::api::Api::start();
    let cgi = api.dir("noidu-api");
    std::os::unix::fs::symlink(noid_exe(), &cgi).unwrap();
    let run = |path: &str, query: &str, body: &str| {
        let mut cmd = Command::new(&cgi);
        cmd.env_clear()
            .env("NOID_API_CONFIG", api.dir("api.toml"))
            .env("PATH_INFO", path)
            .env("QUERY_STRING", query)
            .env("REMOTE_ADDR", "127.0.0.1")
            .env("REMOTE_USER", "sam")
            .env("CONTENT_LENGTH", body.len().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(body.as_bytes())
            .unwrap();
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    };
    assert!(run("/sam/b", "x1.set%20_t%20https://old.org/1", "").starts_with("Status: 200"));
    let applied = run(
        "/sam/rewrite",
        "",
        "action=apply&from=https%3A%2F%2Fold.org%2F&to=https%3A%2F%2Fnew.org%2F",
    );
    let head = "Status: 200 OK\r\ncontent-type: application/json\r\n\r\n";
    let json = applied
        .strip_prefix(head)
        .unwrap_or_else(|| panic!("{applied}"));
    let op = json
        .split("\"op\":\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap()
        .to_string();
    assert_eq!(
        json,
        format!("{{\"changed\":1,\"op\":\"{op}\",\"refused\":[],\"stopped\":null}}\n")
    );
    let csv = run("/sam/history", "id=x1&format=csv", "");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[..3],
        [
            "Status: 200 OK",
            "content-type: text/csv; charset=UTF-8",
            ""
        ]
    );
    assert_eq!(
        rows[3],
        "when,id,populator,agent,acting_for,action,element,old,new,op"
    );
    assert!(
        rows[4].ends_with(",x1,sam,sam,,set,_t,,https://old.org/1,"),
        "{csv}"
    );
    assert!(
        rows[5].ends_with(&format!(
            ",x1,sam,sam,,set,_t,https://old.org/1,https://new.org/1,{op}"
        )),
        "{csv}"
    );
}

/// `--query` selects the identifiers a search finds (the same matches as `noid
/// search`): only those whose title holds the word "moth" change; a query and `--under` together,
/// and a query that cannot be read, are refused and change nothing.
#[test]
fn a_query_selects_what_search_finds() {
    let d = binder(4);
    for (i, what) in [
        (0, "Moth survey of Kent"),
        (2, "Moth traps"),
        (3, "Beetles"),
    ] {
        d.noid(&["bind", "set", &format!("x{i}"), "what", what])
            .ok();
    }
    let query = [
        "rewrite",
        "--from",
        "https://old.org/",
        "--to",
        "https://new.org/",
    ];
    let dry = d.noid(&[&query[..], &["--query", "moth", "--dry-run"]].concat());
    let searched = d.noid(&["search", "moth", "--format", "csv"]);
    // (in the index's order)
    let mut found: Vec<&str> = searched
        .ok()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    found.sort();
    assert_eq!(found, ["x0", "x2"], "{}", searched.stdout);
    assert_eq!(
        dry.ok(),
        "would change: 2 identifiers\n\
         x0\thttps://old.org/0\t->\thttps://new.org/0\n\
         x2\thttps://old.org/2\t->\thttps://new.org/2\n"
    );
    let applied = d.noid(&[&query[..], &["--query", "moth"]].concat());
    let op = op_of(applied.ok());
    assert_eq!(
        applied.stdout,
        format!("op: {op}\nchanged: 2 identifiers\n")
    );
    assert_eq!(
        targets(&d, 4),
        [
            "https://new.org/0",
            "https://old.org/1",
            "https://new.org/2",
            "https://old.org/3"
        ]
    );
    let both = d.noid(&[&query[..], &["--query", "moth", "--under", "x"]].concat());
    assert_eq!(both.code, 2, "{}", both.stderr);
    let unread = d.noid(&[&query[..], &["--query", "updated:>never"]].concat());
    assert_eq!(unread.code, 1, "{}", unread.stderr);
    assert!(
        unread.stderr.contains("the query cannot be read: "),
        "{}",
        unread.stderr
    );
}
