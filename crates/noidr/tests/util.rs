//! Test harness: a minter in a temp dir, written through `noid-store`'s writer (or the
//! real `noid` binary when it was built), and the real `noidr` binary on a real pipe,
//! started the way Apache starts it (empty environment).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc;
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

    /// [`Noidr::start`], its stderr read line by line on a thread (the lines come
    /// through the receiver).
    pub fn start_with_stderr(dbdir: &Path, args: &[&str]) -> (Noidr, mpsc::Receiver<String>) {
        let mut cmd = Command::new(noidr_bin());
        cmd.arg("-f").arg(dbdir).args(args).stderr(Stdio::piped());
        let mut noidr = Noidr::spawn_with_stderr(cmd);
        let stderr = noidr.child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        (noidr, rx)
    }

    /// SIGUSR1: the metrics line it then writes to stderr (read from `errors`, of
    /// [`Noidr::start_with_stderr`]), without its `noidr: metrics: `.
    pub fn usr1_line(&self, errors: &mpsc::Receiver<String>) -> String {
        let st = Command::new("kill")
            .args(["-USR1", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(st.success());
        loop {
            let line = errors
                .recv_timeout(Duration::from_secs(30))
                .expect("a metrics line on stderr");
            if let Some(rest) = line.strip_prefix("noidr: metrics: ") {
                return rest.to_string();
            }
        }
    }

    /// The count `NAME=N` of a SIGUSR1 metrics line (e.g. `reopens`, `catch-ups`).
    pub fn count(line: &str, name: &str) -> u64 {
        line.split(' ')
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no {name}= in {line:?}"))
    }

    /// Ask for the SIGUSR1 line until `count(NAME)` is at least `at_least` (60 s at
    /// most: a bound for a hung resolver, not a speed); the line that said so.
    pub fn usr1_until(&self, errors: &mpsc::Receiver<String>, name: &str, at_least: u64) -> String {
        let start = std::time::Instant::now();
        loop {
            let line = self.usr1_line(errors);
            if Noidr::count(&line, name) >= at_least {
                return line;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "never {name}={at_least}: {line}"
            );
            std::thread::sleep(Duration::from_millis(20));
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

/// A running `noidr --http`, stopped (SIGKILL) when dropped unless [`Http::stop`]ped.
pub struct Http {
    pub child: Child,
    /// Where it listens, as its log says: `HOST:PORT` or `unix:PATH`.
    pub addr: String,
}

impl Http {
    /// Start `cmd` (noidr and its flags) with `--http LISTEN --log-level info` and an
    /// empty environment, and wait until it listens; its log goes on to the test's
    /// stderr. `LISTEN` is `127.0.0.1:0` (a port the system picks, so none is guessed)
    /// or a unix socket path.
    pub fn start(cmd: Command, listen: &str) -> Http {
        Http::start_logging(cmd, listen, std::io::stderr())
    }

    /// [`Http::start`], its log (every line) copied to `log`.
    pub fn start_logging(
        mut cmd: Command,
        listen: &str,
        mut log: impl Write + Send + 'static,
    ) -> Http {
        let mut child = cmd
            .args(["--http", listen, "--log-level", "info"])
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start noidr");
        // The bound address is logged at info ("noidr: HTTP on ADDR (N threads)") once
        // the socket listens.
        let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
        let mut addr = None;
        let mut line = String::new();
        while addr.is_none() {
            line.clear();
            if stderr.read_line(&mut line).expect("read log") == 0 {
                let _ = child.kill();
                let _ = child.wait();
                panic!("noidr exited before listening");
            }
            let _ = log.write_all(line.as_bytes());
            addr = line
                .split_once("HTTP on ")
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .map(str::to_owned);
        }
        // Keep draining the log so that noidr never blocks on a full stderr pipe.
        std::thread::spawn(move || std::io::copy(&mut stderr, &mut log));
        Http {
            child,
            addr: addr.unwrap(),
        }
    }

    /// The TCP port listened on.
    pub fn port(&self) -> u16 {
        let port = self.addr.rsplit_once(':').map(|(_, p)| p.parse());
        port.and_then(Result::ok).expect("a TCP address")
    }

    /// A fresh connection, with a minute's bound on every read (a server bug fails the
    /// test instead of hanging it).
    pub fn connect(&self) -> Box<dyn ReadWrite> {
        let timeout = Some(Duration::from_secs(60));
        match self.addr.strip_prefix("unix:") {
            Some(path) => {
                let s = UnixStream::connect(path).expect("connect");
                s.set_read_timeout(timeout).unwrap();
                Box::new(s)
            }
            None => {
                let s = TcpStream::connect(&self.addr).expect("connect");
                s.set_read_timeout(timeout).unwrap();
                Box::new(s)
            }
        }
    }

    /// `GET PATH` with `HEADERS` (each line ending `\r\n`) and `Connection: close` on
    /// a fresh connection: the whole response (head and body), as text.
    pub fn get(&self, path: &str, headers: &str) -> String {
        let mut s = self.connect();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n{headers}\r\n"
        )
        .expect("send request");
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out
    }

    /// SIGTERM (the server drains its connections and exits): the exit status.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        let st = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill");
        assert!(st.success());
        self.child.wait().expect("wait for noidr")
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A connection of either kind.
pub trait ReadWrite: Read + Write {}

impl<T: Read + Write> ReadWrite for T {}

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
