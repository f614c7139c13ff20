//! A store that stalls (issue 22): `--lookup-deadline` against a real stall. The
//! minter is served through a FUSE pass-through file system (`stallfs.py`, on Debian's
//! python3-fusepy) that the test pauses, as a hung disk or a network file system gone
//! away would stall it: a read of a table block that RocksDB has not cached then waits
//! until the file system is resumed.
//!
//! No time is asserted: an answer that arrives while the file system is still paused
//! can only have come from the deadline; without one, a request would wait
//! here until the test's read timeout failed it. Nor is it asserted that a lookup on
//! the healthy store beats the deadline (a block read through FUSE on a loaded machine
//! may not): such a request is asked again until it resolves ([`ask_resolved`],
//! [`get_resolved`]), within a bound that only a hung resolver reaches.
//!
//! Mounting needs root (as CI and the project's machines run); without it these tests
//! fail rather than pass having tried nothing, unless `NOID_NO_MOUNT_TESTS=1` says to
//! skip them, which they then say (for a developer without root only: under CI or as
//! root it fails, `root_only`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{noidr_bin, Http, Minter, Noidr};

/// Identifiers bound in the store: enough that their table file spans many blocks, so
/// that each probe below reads a block no earlier request has cached.
const IDS: usize = 20_000;

fn id(i: usize) -> String {
    format!("ark:/99999/s{i:05}")
}

fn target(i: usize) -> String {
    format!("https://e.org/{i}/{}", "x".repeat(60))
}

/// The store seen through a pausable FUSE mount; unmounted (after resuming) when
/// dropped, also when the test fails.
struct StallFs {
    dir: tempfile::TempDir,
    daemon: Child,
}

impl StallFs {
    /// Mount `root` at a fresh mount point; `None` when told to skip mounts.
    fn mount(root: &Path) -> Option<StallFs> {
        if crate::root_only::skip_mount_test("a FUSE mount") {
            return None;
        }
        let fusepy = Command::new("/usr/bin/python3")
            .args(["-c", "import fusepy"])
            .status()
            .is_ok_and(|s| s.success());
        assert!(
            fusepy,
            "python3-fusepy is missing (scripts/setup.sh installs it as root; \
             NOID_NO_MOUNT_TESTS=1 skips these tests)"
        );
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join("mnt")).unwrap();
        let script = Path::new(&manifest_dir()).join("tests/stallfs.py");
        let mut fs = StallFs {
            daemon: Command::new("/usr/bin/python3")
                .arg(script)
                .arg(root)
                .arg(dir.path().join("mnt"))
                .arg(dir.path().join("pause"))
                .stdin(Stdio::null())
                .spawn()
                .expect("start stallfs.py"),
            dir,
        };
        // Mounted once the mount point shows the store's NOID/.
        for _ in 0..3000 {
            if fs.mnt().join("NOID").is_dir() {
                return Some(fs);
            }
            if let Ok(Some(status)) = fs.daemon.try_wait() {
                panic!("stallfs.py exited ({status}): FUSE mounts need root (NOID_NO_MOUNT_TESTS=1 skips)");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("stallfs.py did not mount in 30 s");
    }

    /// The minter directory as the resolver sees it.
    fn mnt(&self) -> PathBuf {
        self.dir.path().join("mnt")
    }

    /// Every operation on the mount waits from now on.
    fn pause(&self) {
        std::fs::write(self.dir.path().join("pause"), b"").unwrap();
    }

    fn resume(&self) {
        let _ = std::fs::remove_file(self.dir.path().join("pause"));
    }
}

impl Drop for StallFs {
    fn drop(&mut self) {
        self.resume();
        let _ = Command::new("umount").arg("-l").arg(self.mnt()).status();
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// A minter of [`IDS`] bindings written in one commit (one table file).
fn minter() -> Minter {
    let m = Minter::new();
    let bindings: Vec<(String, String)> = (0..IDS).map(|i| (id(i), target(i))).collect();
    let triples: Vec<(&str, &str, &str)> = bindings
        .iter()
        .map(|(i, t)| (i.as_str(), "_t", t.as_str()))
        .collect();
    m.bind(&triples);
    m
}

/// The error line of the noid protocol for a request the store did not answer.
const LATE: &str = "error: no answer from the store within 1 s (--lookup-deadline)";

/// How long a request on the healthy store may go on being answered late before the
/// test fails: a bound for a resolver that never resolves again, not a speed.
const RESOLVES_WITHIN: Duration = Duration::from_secs(120);

/// Ask `request` until its answer is not [`LATE`]; that answer.
fn ask_resolved(r: &mut Noidr, request: &str) -> String {
    let start = Instant::now();
    loop {
        let answer = r.ask(request);
        if answer != LATE {
            return answer;
        }
        assert!(
            start.elapsed() < RESOLVES_WITHIN,
            "{request}: never resolved"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `GET path` until the response is not a `503`, counting the `503`s in `late`; that
/// response.
fn get_resolved(server: &Http, path: &str, late: &std::cell::Cell<u64>) -> String {
    let start = Instant::now();
    loop {
        let r = server.get(path, "");
        if r.get(9..12) != Some("503") {
            return r;
        }
        late.set(late.get() + 1);
        assert!(
            start.elapsed() < RESOLVES_WITHIN,
            "{path}: never resolved: {r}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The noid line protocol (Apache `RewriteMap prg:`): while the store is paused, the
/// stalled request and every one after it are answered with the error line, one line
/// each; once the store is back, the stalled lookup returns and noidr resolves again,
/// in step.
#[test]
fn a_stalled_store_gets_error_lines_within_the_deadline() {
    let m = minter();
    let Some(fs) = StallFs::mount(m.dbdir()) else {
        return;
    };
    let mut r = Noidr::start(
        &fs.mnt(),
        &[
            "--protocol",
            "noid",
            "--lookup-deadline",
            "1",
            "--cache-mb",
            "1",
        ],
    );
    // Without a working deadline a request would wait for the test to resume the file
    // system, that is forever: fail instead (noidr killed, its output closed).
    let _deadman = Deadman::arm(r.child.id());
    let get = |i: usize| format!("get {} _t", id(i));
    assert_eq!(ask_resolved(&mut r, &get(0)), target(0));
    fs.pause();
    // Ids far apart: each read is a table block not read before.
    assert_eq!(r.ask(&get(IDS / 2)), LATE);
    for i in 1..=5 {
        assert_eq!(r.ask(&get(IDS / 2 + i * 1000)), LATE);
    }
    // Pipelined requests while stalled: one error line each.
    r.send(format!("{}\n{}", get(3), get(4)).as_bytes());
    assert_eq!(r.read_line(), LATE.as_bytes());
    assert_eq!(r.read_line(), LATE.as_bytes());
    fs.resume();
    // The stalled lookup returns; requests are resolved again, and stay in step.
    assert_eq!(ask_resolved(&mut r, &get(1)), target(1));
    for i in [IDS / 2, IDS - 1, 7, 8] {
        assert_eq!(ask_resolved(&mut r, &get(i)), target(i));
    }
    assert!(r.finish().success());
}

/// HTTP: the stalled request gets a 503 (and its connection is closed), so do others
/// while the store stays stalled, `/health` says so, and after the store is back
/// redirects are answered again.
#[test]
fn a_stalled_store_gets_503_within_the_deadline() {
    let m = minter();
    let Some(fs) = StallFs::mount(m.dbdir()) else {
        return;
    };
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(fs.mnt());
    cmd.args(["--lookup-deadline", "1", "--cache-mb", "1"]);
    // Killed before the file system it reads is unmounted (also when the test fails).
    let server = Http::start(cmd, "127.0.0.1:0");
    let get = |path: &str| server.get(path, "");
    let status = |r: &str| r.get(9..12).unwrap_or("").to_owned();
    // The 503s given to identifiers: the lookup deadline's answers, which /metrics counts.
    let late = std::cell::Cell::new(0);
    let r = get_resolved(&server, &format!("/redirect/{}", id(0)), &late);
    assert_eq!(status(&r), "302", "{r}");
    fs.pause();
    let r = get(&format!("/redirect/{}", id(IDS / 2)));
    assert_eq!(status(&r), "503", "{r}");
    assert!(r.ends_with("no answer from the store within 1 s\n"), "{r}");
    let r = get(&format!("/redirect/{}", id(IDS / 2 + 1000)));
    assert_eq!(status(&r), "503", "{r}");
    late.set(late.get() + 2);
    assert_eq!(status(&get("/health")), "503");
    fs.resume();
    let r = get_resolved(&server, &format!("/redirect/{}", id(1)), &late);
    assert_eq!(status(&r), "302", "{r}");
    assert_eq!(status(&get("/health")), "200");
    for i in [IDS / 2, IDS - 1] {
        let r = get_resolved(&server, &format!("/redirect/{}", id(i)), &late);
        assert!(
            r.contains(&format!("\r\nlocation: {}\r\n", target(i))),
            "{r}"
        );
    }
    let metrics = get("/metrics");
    assert!(
        metrics.contains(&format!("\nnoidr_late_answers_total {}\n", late.get())),
        "{} late answers: {metrics}",
        late.get()
    );
}

/// Kills a process that is still running two minutes after being armed, so that a test
/// waiting for it fails instead of hanging; disarmed when dropped.
struct Deadman(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Deadman {
    fn arm(pid: u32) -> Deadman {
        let disarmed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let d = disarmed.clone();
        std::thread::spawn(move || {
            for _ in 0..1200 {
                if d.load(std::sync::atomic::Ordering::Acquire) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            eprintln!("noidr {pid} still waiting after 2 minutes: killed");
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        });
        Deadman(disarmed)
    }
}

impl Drop for Deadman {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Release);
    }
}

/// This crate's directory: `cargo test` sets `CARGO_MANIFEST_DIR` when it runs the test;
/// the value compiled in names the checkout that built it, which a target directory
/// shared by several checkouts may have kept.
fn manifest_dir() -> std::ffi::OsString {
    std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into())
}
