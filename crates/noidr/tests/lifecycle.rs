//! Signals, end of input, a store replaced under the daemon.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::eqnice;
use crate::util::{Minter, Noidr};

fn kill(pid: u32, sig: &str) {
    let st = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(pid.to_string())
        .status()
        .expect("run kill");
    assert!(st.success());
}

fn secondaries(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |d| d.count())
}

#[test]
fn end_of_input_exits_zero_and_cleans_up() {
    let m = Minter::new();
    m.bind(&[("X", "_t", "x")]);
    let sec = tempfile::tempdir().unwrap();
    // Left by a noidr that was killed with SIGKILL (no such pid can exist).
    std::fs::create_dir(sec.path().join("secondary-99999999-0")).unwrap();
    let mut n = Noidr::start(
        m.dbdir(),
        &[
            "--protocol",
            "egg",
            "--secondary-dir",
            sec.path().to_str().unwrap(),
        ],
    );
    eqnice!("X.resolve", "redir302 x", n.ask("X.resolve"));
    assert_eq!(
        secondaries(sec.path()),
        1,
        "stale directory swept, ours made"
    );
    let st = n.finish();
    assert!(st.success(), "{st:?}");
    assert_eq!(secondaries(sec.path()), 0, "secondary dir removed");
}

/// Each SIGHUP reopens the store (the metrics count it: checked, not waited for), and
/// answers go on from the reopened store.
#[test]
fn sighup_reopens_and_keeps_answering() {
    let m = Minter::new();
    m.bind(&[("X", "_t", "x")]);
    let (mut n, errors) = Noidr::start_with_stderr(m.dbdir(), &["--protocol", "egg"]);
    eqnice!("X.resolve", "redir302 x", n.ask("X.resolve"));
    let line = n.usr1_line(&errors);
    assert_eq!(Noidr::count(&line, "reopens"), 0, "{line}");
    for hup in 1..=3 {
        kill(n.child.id(), "HUP");
        let line = n.usr1_until(&errors, "reopens", hup);
        assert_eq!(Noidr::count(&line, "reopens"), hup, "{line}");
        assert!(line.contains(" store=open"), "{line}");
        eqnice!("X.resolve", "redir302 x", n.ask("X.resolve"));
    }
    m.bind(&[("X", "_t", "y")]);
    eqnice!("X.resolve", "redir302 y", n.ask("X.resolve"));
    assert!(n.finish().success());
}

#[test]
fn sigterm_exits_zero_and_cleans_up() {
    for sig in ["TERM", "INT"] {
        let m = Minter::new();
        let sec = tempfile::tempdir().unwrap();
        let mut n = Noidr::start(
            m.dbdir(),
            &["--secondary-dir", sec.path().to_str().unwrap()],
        );
        eqnice!("hello", "Hello.", n.ask("hello"));
        kill(n.child.id(), sig);
        let st = n.child.wait().unwrap();
        assert_eq!(st.code(), Some(0), "{sig}: {st:?}");
        assert_eq!(secondaries(sec.path()), 0, "{sig}: secondary dir removed");
    }
}

#[test]
fn replaced_store_is_reopened() {
    let m = Minter::new();
    m.bind(&[("X", "_t", "old")]);
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    eqnice!("X.resolve", "redir302 old", n.ask("X.resolve"));
    std::fs::remove_dir_all(m.dbdir().join("NOID")).unwrap();
    let w = noid_store::Writer::create(m.dbdir(), Duration::from_secs(5)).unwrap();
    w.commit([noid_store::Op::Put(b"X\t_t".to_vec(), b"new".to_vec())])
        .unwrap();
    drop(w);
    let start = Instant::now();
    loop {
        let a = n.ask("X.resolve");
        if a == "redir302 new" {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "still {a:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(n.finish().success());
}

#[test]
fn closed_output_is_a_clean_exit() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let m = Minter::new();
    let mut child = Command::new(crate::util::noidr_bin())
        .arg("-f")
        .arg(m.dbdir())
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(b"hello\n").unwrap();
    stdin.flush().unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "Hello.\n");
    // Apache died: our stdout is closed; the next answer cannot be written. (Requests
    // keep coming until noidr is gone: a process another test thread is starting
    // can hold a copy of our end of the pipe for a moment, and an answer written
    // then does not fail.)
    drop(stdout);
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed().as_secs() < 20 {
        if stdin
            .write_all(b"hello\n")
            .and_then(|()| stdin.flush())
            .is_err()
        {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let st = child.wait().unwrap();
    assert_eq!(st.code(), Some(0), "{st:?}");
}
