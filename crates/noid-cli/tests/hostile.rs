//! Hostile input to the whole program (issue 22): CGI queries and POST bodies that try
//! what the URL interface refuses or that are malformed, and random bulk scripts
//! (`noid -`) against a real store. Nothing panics, refusals leave the store as it was,
//! and after any script `noid check` finds the store consistent.

use std::os::unix::fs::symlink;
use std::process::Command;

use crate::util::*;

/// A minter `m` beside a `noidu_m` link, as a CGI directory is laid out.
fn cgi_dir() -> Dir {
    let d = Dir::new();
    let r = Command::new(noid_exe())
        .arg("-f")
        .arg(d.path().join("m"))
        .args(["dbcreate", ".sdd"])
        .output()
        .unwrap();
    assert!(r.status.success());
    symlink(noid_exe(), d.path().join("noidu_m")).unwrap();
    d
}

/// Run the CGI with `query` (none at all for `None`) and a request body.
fn noidu(d: &Dir, query: Option<&[u8]>, body: &[u8]) -> Run {
    use std::os::unix::ffi::OsStrExt;
    let mut cmd = Command::new(d.path().join("noidu_m"));
    cmd.current_dir(d.path())
        .env_clear()
        .env("REMOTE_USER", "alice")
        .env("REMOTE_ADDR", "10.0.0.1");
    if let Some(q) = query {
        cmd.env("QUERY_STRING", std::ffi::OsStr::from_bytes(q));
    }
    run(cmd, body)
}

fn export(d: &Dir) -> Vec<u8> {
    let out = Command::new(noid_exe())
        .arg("-f")
        .arg(d.path().join("m"))
        .arg("export")
        .output()
        .unwrap();
    assert!(out.status.success());
    out.stdout
}

const USAGE_TAIL: &str = "\n\nUsage:\n               noid [-f Dbdir] [-v] [-h] Command Arguments\n               noid -h             (for help with a Command summary).";

#[test]
fn cgi_refusals_leave_the_store_unchanged() {
    let d = cgi_dir();
    assert_eq!(
        noidu(&d, Some(b"mint+1"), b"").ok(),
        "Content-Type: text/plain\n\nid: 00\n\n"
    );
    let before = export(&d);
    let refused: [(&[u8], &[u8], &str); 6] = [
        // Options are not read from a query: `-f` is no command.
        (
            b"-f+/tmp+mint+1",
            b"",
            "error: no such command: -f (/tmp mint 1)\n",
        ),
        (
            b"dbcreate+.sd",
            b"",
            "error: command \"dbcreate\" not allowed in URL interface.\n",
        ),
        // A POST body (`?-`) is read as bulk commands, under the same refusals.
        (
            b"-",
            b"dbcreate .sd\n",
            "error: command \"dbcreate\" not allowed in URL interface.\n",
        ),
        (
            b"-",
            b"import /etc/passwd\n",
            "error: command \"import\" not allowed in URL interface.\n",
        ),
        (
            b"import+-",
            b"# noid export v1\n",
            "error: command \"import\" not allowed in URL interface.\n",
        ),
        (
            b"check+--repair",
            b"",
            "error: \"check --repair\" not allowed in URL interface.\n",
        ),
    ];
    for (query, body, message) in refused {
        let r = noidu(&d, Some(query), body);
        assert_eq!(r.code, 1, "{query:?}: {r:?}");
        assert!(
            r.stdout
                .starts_with(&format!("Content-Type: text/plain\n\n{message}")),
            "{query:?}: {}",
            r.stdout
        );
        assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    }
    assert!(
        noidu(&d, Some(b"-f+/tmp+mint+1"), b"")
            .stdout
            .ends_with(USAGE_TAIL),
        "a refused command is followed by the usage summary"
    );
    assert!(export(&d) == before, "a refused command changed the store");
}

#[test]
fn cgi_malformed_queries() {
    let d = cgi_dir();
    let before = export(&d);
    // No QUERY_STRING at all: a usage error.
    let r = noidu(&d, None, b"");
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            2,
            "Content-Type: text/plain\n\nerror: No QUERY_STRING (hence no command) defined.\n"
        )
    );
    // Unbalanced quotes: a usage error naming the query.
    let r = noidu(&d, Some(b"get+'unbalanced"), b"");
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            2,
            "Content-Type: text/plain\n\nerror: cannot split query (missing closing quote): get 'unbalanced\n"
        )
    );
    // NUL and invalid UTF-8 in an identifier: nothing is bound under it (`get` prints
    // an empty value and fails, as for any unbound identifier).
    for q in [&b"get+%00+x"[..], b"get+%FF%FE+x", b"get+\xff+x"] {
        let r = noidu(&d, Some(q), b"");
        assert_eq!(
            (r.code, r.stdout.as_str()),
            (1, "Content-Type: text/plain\n\n\n"),
            "{q:?}"
        );
    }
    // A 100 KB query (the kernel's limit for one environment string is 128 KiB): one
    // answer, no crash.
    let mut huge = b"get+".to_vec();
    huge.extend(std::iter::repeat_n(b'x', 100_000));
    huge.extend_from_slice(b"+e");
    let r = noidu(&d, Some(&huge), b"");
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (1, "Content-Type: text/plain\n\n\n")
    );
    assert!(export(&d) == before, "a malformed query changed the store");
}

/// A small deterministic generator, so a failing script can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

/// One random bulk line: real commands on real and unknown identifiers, with shell
/// quoting, odd bytes, and arguments missing or in excess.
fn random_line(rng: &mut Rng, minted: &[String]) -> String {
    let id = match rng.next() % 4 {
        0 if !minted.is_empty() => minted[(rng.next() % minted.len() as u64) as usize].clone(),
        1 => format!("13030/f5{}", rng.next() % 1000),
        2 => rng
            .pick(&["''", "\"\"", "'a b'", ":idmap/^x(.*)$", "-", "13030/"])
            .to_owned(),
        _ => rng
            .pick(&["x", "\\'", "'unbalanced", "a\"b", "é", "\u{1}", "%00"])
            .to_owned(),
    };
    let elem = rng.pick(&["_t", "e", "'x y'", "", ":", "\"\"", "_t_am"]);
    let value = rng.pick(&["v", "'a b c'", "\"q\\\"q\"", "$1", "", "\\n"]);
    match rng.next() % 14 {
        0 => format!("mint {}", rng.next() % 5),
        1 => format!("peppermint {}", rng.next() % 3),
        2 => format!(
            "bind {} {id} {elem} {value}",
            rng.pick(&[
                "set", "add", "append", "prepend", "insert", "new", "replace", "delete", "purge",
                "sett"
            ])
        ),
        3 => format!("fetch {id} {elem}"),
        4 => format!("get {id} {elem}"),
        5 => format!("hold {} {id}", rng.pick(&["set", "release", "x"])),
        6 => format!(
            "queue {} {id}",
            rng.pick(&["now", "first", "lvf", "delete", "2d", "3s", "bogus"])
        ),
        7 => format!("validate - {id}"),
        8 => format!("note {id} {value}"),
        9 => rng
            .pick(&["dbinfo", "dbinfo brief", "hello", "help", "help bind"])
            .to_owned(),
        10 => rng
            .pick(&["", "   ", "#", "'", "\"", "\\", "bogus x y"])
            .to_owned(),
        11 => rng
            .pick(&["dbcreate .sd", "import -", "-f /tmp mint 1", "- -"])
            .to_owned(),
        12 => format!(
            "bind set {id} {elem} {}",
            "w".repeat((rng.next() % 5000) as usize)
        ),
        _ => format!("mint 1 {id}"),
    }
}

/// Random bulk scripts against a real store: `noid -` exits 0 or 1 (never a crash
/// or a panic), and afterwards `noid check` finds no problem (every counter agrees
/// with the circulation records, so no identifier was issued twice unless queued).
/// `NOID_BULK_SCRIPTS` sets the number of scripts (default 40, 60 lines each).
#[test]
fn random_bulk_scripts_keep_the_store_consistent() {
    let scripts: u64 = match std::env::var("NOID_BULK_SCRIPTS") {
        Err(_) => 40,
        Ok(v) => match v.parse() {
            Ok(n) if n > 0 => n,
            _ => panic!("NOID_BULK_SCRIPTS={v:?}: expected a positive count"),
        },
    };
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "cdlib.org", "oac/cmp"]);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // Identifiers seen in `id:` lines (mint, but validate too), for later lines to use.
    let mut minted: Vec<String> = Vec::new();
    for n in 0..scripts {
        let script: String = (0..60)
            .map(|_| random_line(&mut rng, &minted) + "\n")
            .collect();
        let r = d.noid_stdin(&["-"], script.as_bytes());
        assert!(
            r.code == 0 || r.code == 1,
            "script {n} exited {}:\n{script}\nstderr:\n{}",
            r.code,
            r.stderr
        );
        assert!(
            !r.stderr.contains("panicked"),
            "script {n} panicked:\n{script}\nstderr:\n{}",
            r.stderr
        );
        minted.extend(ids(&r.stdout));
        let check = d.noid(&["check"]);
        assert!(
            check.code == 0 && check.stdout.ends_with("\nok: no problems found\n"),
            "after script {n}:\n{script}\ncheck:\n{}{}",
            check.stdout,
            check.stderr
        );
    }
    eprintln!("{scripts} scripts of 60 lines, {} ids minted", minted.len());
}
