//! Test harness: a minter in a temp dir, written through `noid-store`'s writer (or the
//! real `noid` binary when it was built), and the real `noidr` binary on a real pipe,
//! started the way Apache starts it (empty environment).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

use noid_store::{Op, Writer};
use tempfile::TempDir;

/// The `noidr` binary under test.
pub fn noidr_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_noidr"))
}

/// The real `noid` CLI, built next to `noidr` (`cargo build --release --workspace
/// --bins`, as scripts/test-all.sh does first). Missing, the tests that need it fail
/// rather than test less.
pub fn noid_bin() -> PathBuf {
    let p = noidr_bin().with_file_name("noid");
    assert!(
        p.is_file(),
        "{} is missing: build the workspace's binaries first (cargo build --release --workspace --bins)",
        p.display()
    );
    p
}

/// A minter directory (`DIR/NOID/…`) in a fresh temp dir.
pub struct Minter {
    dir: TempDir,
}

impl Minter {
    /// An empty store.
    pub fn new() -> Minter {
        let dir = tempfile::tempdir().expect("temp dir");
        Writer::create(dir.path(), Duration::from_secs(10)).expect("create store");
        Minter { dir }
    }

    /// The Dbdir to pass to `-f`.
    pub fn dbdir(&self) -> &Path {
        self.dir.path()
    }

    /// Bind `(id, elem, value)` triples in one commit; ids `:idmap/PATTERN` become rules.
    pub fn bind(&self, bindings: &[(&str, &str, &str)]) {
        self.commit(bindings.iter().map(|(id, elem, value)| {
            let key = match id.strip_prefix(":idmap/") {
                Some(p) => format!(":/idmap/{elem}\t{p}"),
                None => format!("{id}\t{elem}"),
            };
            Op::Put(key.into_bytes(), value.as_bytes().to_vec())
        }));
    }

    /// Apply raw operations in one commit, as one `noid` process would.
    pub fn commit(&self, ops: impl IntoIterator<Item = Op>) {
        let w = Writer::open(self.dir.path(), Duration::from_secs(30)).expect("open writer");
        w.commit(ops).expect("commit");
    }

    /// `noid -f DIR bind set ID ELEM VALUE` with the real CLI; returns once the writer
    /// has finished.
    pub fn noid_bind_set(&self, id: &str, elem: &str, value: &str) {
        let out = Command::new(noid_bin())
            .arg("-f")
            .arg(self.dbdir())
            .args(["bind", "set", id, elem, value])
            .env_clear()
            .output()
            .expect("run noid");
        assert!(out.status.success(), "noid bind failed: {out:?}");
    }
}

/// A running `noidr` with its stdin and stdout piped.
pub struct Noidr {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<BufReader<ChildStdout>>,
}

impl Noidr {
    /// Start `noidr -f DBDIR ARGS…` with an empty environment, as Apache does.
    pub fn start(dbdir: &Path, args: &[&str]) -> Noidr {
        let mut cmd = Command::new(noidr_bin());
        cmd.arg("-f").arg(dbdir).args(args);
        Noidr::spawn(cmd)
    }

    /// Start a prepared command with piped stdin/stdout and an empty environment.
    pub fn spawn(mut cmd: Command) -> Noidr {
        cmd.stderr(Stdio::inherit());
        Noidr::spawn_with_stderr(cmd)
    }

    /// [`Noidr::spawn`], stderr going where `cmd` says.
    pub fn spawn_with_stderr(mut cmd: Command) -> Noidr {
        let mut child = cmd
            .env_clear()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start noidr");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().map(BufReader::new);
        Noidr {
            child,
            stdin,
            stdout,
        }
    }

    /// Send one request line (a `\n` is added).
    pub fn send(&mut self, line: &[u8]) {
        let w = self.stdin.as_mut().expect("stdin open");
        w.write_all(line).expect("write request");
        w.write_all(b"\n").expect("write newline");
        w.flush().expect("flush");
    }

    /// Read one answer line, without its `\n`.
    pub fn read_line(&mut self) -> Vec<u8> {
        let mut buf = Vec::new();
        let n = self
            .stdout
            .as_mut()
            .expect("stdout open")
            .read_until(b'\n', &mut buf)
            .expect("read answer");
        assert!(n > 0, "noidr closed its output");
        assert_eq!(buf.pop(), Some(b'\n'), "answer line is terminated");
        buf
    }

    /// One request, one answer (as text).
    pub fn ask(&mut self, line: &str) -> String {
        self.send(line.as_bytes());
        String::from_utf8(self.read_line()).expect("UTF-8 answer")
    }

    /// Ask until the answer is `want`, for at most `within`: how long a write takes to
    /// reach a follower (or, after a failover, its reconnection) on a loaded machine is
    /// not the subject of the tests that wait for it.
    pub fn ask_until(&mut self, request: &str, want: &str, within: Duration) {
        let start = std::time::Instant::now();
        loop {
            let got = self.ask(request);
            if got == want {
                return;
            }
            assert!(
                start.elapsed() < within,
                "{request}: still {got:?}, never {want:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Close stdin and wait for the exit status.
    pub fn finish(mut self) -> std::process::ExitStatus {
        drop(self.stdin.take());
        self.child.wait().expect("wait for noidr")
    }
}

impl Drop for Noidr {
    /// End of input first (a clean exit removes noidr's secondary directory), SIGKILL
    /// only if it does not exit within two seconds.
    fn drop(&mut self) {
        drop(self.stdin.take());
        for _ in 0..200 {
            if !matches!(self.child.try_wait(), Ok(None)) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `assert_eq!` for answer lines with the request in the message.
#[macro_export]
macro_rules! eqnice {
    ($request:expr, $expected:expr, $got:expr) => {{
        let (request, expected, got) = (&$request, $expected.to_string(), $got.to_string());
        if expected != got {
            panic!(
                "\nrequest:  {:?}\nexpected: {:?}\ngot:      {:?}\n",
                request, expected, got
            );
        }
    }};
}

/// A small deterministic generator (xorshift64*), so failures can be replayed.
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// Next 64 random bits.
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Number of lines for scaled tests: `NOIDR_ROBUST_LINES` (the figure is
/// 1,000,000), else `default`. A value that is not a positive count is an error, not a
/// test that quietly sends nothing.
pub fn scaled(default: u64) -> u64 {
    match std::env::var("NOIDR_ROBUST_LINES") {
        Err(_) => default,
        Ok(v) => match v.parse() {
            Ok(n) if n > 0 => n,
            _ => panic!("NOIDR_ROBUST_LINES={v:?}: expected a positive number of lines"),
        },
    }
}
