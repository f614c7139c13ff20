//! Faults under a running `noidr` (issue 22): a writer stopped with SIGSTOP while it
//! holds the lock, and the store's `NOID/` directory deleted or replaced. `noidr` keeps
//! its one-answer-per-line contract throughout and recovers when the store does.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::util::{noid_bin, Minter, Noidr};

/// A process that is sent SIGCONT and SIGKILL when dropped, so a failing test never
/// leaves a stopped writer holding a lock.
struct Guard(Child);

impl Guard {
    fn signal(&self, sig: &str) {
        let ok = Command::new("kill")
            .args([sig, &self.0.id().to_string()])
            .status()
            .expect("run kill")
            .success();
        assert!(ok, "kill {sig}");
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-CONT", &self.0.id().to_string()])
            .stderr(Stdio::null())
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn noid(dbdir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(noid_bin())
        .arg("-f")
        .arg(dbdir)
        .args(args)
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .expect("run noid")
}

fn lock_is_held(dbdir: &Path) -> bool {
    let f = std::fs::File::open(dbdir.join("NOID/lock")).expect("NOID/lock");
    f.try_lock().is_err()
}

/// A `noid mint` stopped while it holds the writers' lock: `noidr` answers from what
/// was committed, another writer waits `--lock-timeout` and fails with the lock's
/// message, and once the stopped writer goes on, writing works again.
#[test]
fn a_stopped_writer_blocks_writers_not_the_resolver() {
    let dir = tempfile::tempdir().unwrap();
    let dbdir = dir.path();
    assert!(noid(dbdir, &["dbcreate", ".zd"]).status.success());
    assert!(noid(dbdir, &["mint", "1"]).status.success());
    assert!(noid(dbdir, &["bind", "set", "0", "_t", "https://e.org/0"])
        .status
        .success());
    let mut n = Noidr::start(dbdir, &[]);
    assert_eq!(n.ask("get 0 _t"), "https://e.org/0");

    let writer = Guard(
        Command::new(noid_bin())
            .arg("-f")
            .arg(dbdir)
            .args(["mint", "3000000"])
            .env_clear()
            .stdout(Stdio::null())
            .spawn()
            .expect("start noid mint"),
    );
    let mut attempts = 0;
    while !lock_is_held(dbdir) {
        attempts += 1;
        assert!(attempts < 30_000, "the minter never took the lock");
        std::thread::sleep(Duration::from_millis(1));
    }
    writer.signal("-STOP");
    // A kill between our look and the stop would leave the lock free; the mint of
    // three million takes long enough that it does not finish first.
    assert!(lock_is_held(dbdir), "the stopped minter holds the lock");

    for _ in 0..100 {
        assert_eq!(n.ask("get 0 _t"), "https://e.org/0");
        assert_eq!(n.ask("get 1 _t"), "NULL");
    }
    let other = noid(
        dbdir,
        &["--lock-timeout", "1", "bind", "set", "0", "_t", "x"],
    );
    assert_eq!(other.status.code(), Some(1));
    assert_eq!(other.stdout, b"");
    assert_eq!(
        String::from_utf8_lossy(&other.stderr),
        format!(
            "error: lock timeout after 1 seconds; another noid process holds \"{}/NOID/lock\"\n",
            dbdir.display()
        )
    );

    writer.signal("-CONT");
    let mut writer = writer;
    assert!(writer.0.wait().unwrap().success(), "the minter finished");
    assert!(
        noid(dbdir, &["bind", "set", "0", "_t", "https://e.org/new"])
            .status
            .success()
    );
    let mut answer = String::new();
    for _ in 0..1000 {
        answer = n.ask("get 0 _t");
        if answer == "https://e.org/new" {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(answer, "https://e.org/new");
    assert_eq!(n.finish().code(), Some(0));
}

/// `NOID/` moved away under a running `noidr`, then a different store put in its
/// place: every request gets exactly one answer line all along (a probe after each
/// shows the answers stay in step), and the new store's answers come through.
#[test]
fn noid_directory_deleted_and_replaced() {
    let m = Minter::new();
    m.bind(&[("a", "_t", "old")]);
    let mut n = Noidr::start(m.dbdir(), &["--protocol", "egg"]);
    assert_eq!(n.ask("a.resolve"), "redir302 old");

    let aside = tempfile::tempdir().unwrap();
    std::fs::rename(m.dbdir().join("NOID"), aside.path().join("NOID")).unwrap();
    for i in 0..50 {
        // Whatever the answer to a request on a missing store, there is exactly one:
        // the next line is the answer to the next request.
        let first = n.ask(&format!("a{i}.resolve"));
        assert!(!first.contains('\n'), "{first:?}");
        n.send(b"");
        assert_eq!(n.read_line(), b"NULL", "request {i}: answers out of step");
    }

    // Another store takes its place.
    let replacement = Minter::new();
    replacement.bind(&[("a", "_t", "new")]);
    std::fs::rename(replacement.dbdir().join("NOID"), m.dbdir().join("NOID")).unwrap();
    let mut answer = String::new();
    for _ in 0..1000 {
        answer = n.ask("a.resolve");
        if answer == "redir302 new" {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(answer, "redir302 new", "noidr follows the new store");
    assert_eq!(n.finish().code(), Some(0));
}
