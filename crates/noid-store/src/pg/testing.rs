//! A throw-away PostgreSQL server for tests: Debian's server binaries, a fresh data
//! directory in a temporary directory, 127.0.0.1 on a free port, stopped (fast
//! shutdown) and removed when dropped, also when the test fails.
//!
//! `initdb` refuses to run as root, so under root the server runs as the `postgres`
//! user that Debian's package creates. Nothing is skipped: when no server can be
//! started, [`TestServer::start`] panics and says why.
//!
//! [`TestServer::standby_of`] makes a hot standby of a running server, streaming from
//! it (`pg_basebackup -R`), which [`TestServer::promote`] turns into a primary after
//! [`TestServer::crash`] stopped the other one.

use std::net::TcpListener;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a fresh server may take to accept connections on a loaded machine.
const START_WAIT: Duration = Duration::from_secs(120);

/// A running server, stopped when dropped.
pub struct TestServer {
    child: Child,
    port: u16,
    log: PathBuf,
    data: PathBuf,
    bin: PathBuf,
    owner: Option<(u32, u32)>,
    // Dropped after the server has stopped (fields drop after `Drop::drop`).
    _dir: tempfile::TempDir,
}

/// A temporary directory for a server's files, the server binaries, and the user the
/// server runs as (None: the current one).
fn prepare() -> (tempfile::TempDir, PathBuf, Option<(u32, u32)>) {
    let bin = server_bin_dir().unwrap_or_else(|| {
        panic!(
            "PostgreSQL server binaries not found (/usr/lib/postgresql/*/bin/initdb): \
             install Debian's postgresql package (scripts/setup.sh does)"
        )
    });
    let dir = tempfile::Builder::new()
        .prefix("noid-store-pg-test")
        .tempdir()
        .expect("a temporary directory");
    let owner = match std::fs::metadata(dir.path()).expect("stat").uid() {
        0 => Some(postgres_user()),
        _ => None,
    };
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))
            .expect("give the temporary directory to the postgres user");
    }
    (dir, bin, owner)
}

/// Make `c` run as `owner`, in the C locale.
fn as_owner(c: &mut Command, owner: Option<(u32, u32)>) {
    if let Some((uid, gid)) = owner {
        c.uid(uid).gid(gid);
    }
    c.env("LC_ALL", "C").env_remove("PGDATA");
}

impl TestServer {
    /// Start a server, or panic with the reason.
    pub fn start() -> TestServer {
        let (dir, bin, owner) = prepare();
        let data = dir.path().join("data");
        let mut initdb = Command::new(bin.join("initdb"));
        initdb.arg("-D").arg(&data);
        initdb.args([
            "-U",
            "noid",
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ]);
        as_owner(&mut initdb, owner);
        let out = initdb.output().expect("run initdb");
        assert!(
            out.status.success(),
            "initdb failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        TestServer::run(dir, bin, owner, data)
    }

    /// A hot standby of `primary`: a base backup of it (`pg_basebackup -R`, which also
    /// writes the settings that make the copy stream from `primary`) started as a
    /// server of its own. It answers reads only, until [`TestServer::promote`].
    pub fn standby_of(primary: &TestServer) -> TestServer {
        let (dir, bin, owner) = prepare();
        let data = dir.path().join("data");
        let mut backup = Command::new(bin.join("pg_basebackup"));
        backup.arg("-D").arg(&data);
        backup.args(["-h", "127.0.0.1", "-p", &primary.port.to_string()]);
        backup.args(["-U", "noid", "-R", "-X", "stream", "--checkpoint=fast"]);
        as_owner(&mut backup, owner);
        let out = backup.output().expect("run pg_basebackup");
        assert!(
            out.status.success(),
            "pg_basebackup failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        TestServer::run(dir, bin, owner, data)
    }

    /// Start the server on `data` (in `dir`), or panic with the reason.
    fn run(
        dir: tempfile::TempDir,
        bin: PathBuf,
        owner: Option<(u32, u32)>,
        data: PathBuf,
    ) -> TestServer {
        let log = dir.path().join("server.log");
        let mut last_log = String::new();
        // A port found free may be taken before the server binds it: try a few.
        for _ in 0..5 {
            let port = free_port();
            let mut child = launch(&bin, &data, dir.path(), owner, port, &log);
            let url = format!("postgres://noid@127.0.0.1:{port}/postgres");
            if wait_ready(&mut child, &url) {
                return TestServer {
                    child,
                    port,
                    log,
                    data,
                    bin,
                    owner,
                    _dir: dir,
                };
            }
            stop(&mut child);
            last_log = std::fs::read_to_string(&log).unwrap_or_default();
            if !last_log.contains("could not bind") {
                break;
            }
        }
        panic!("PostgreSQL did not start:\n{last_log}")
    }

    /// Stop the server (fast shutdown); [`TestServer::restart`] starts it again.
    pub fn stop(&mut self) {
        stop(&mut self.child);
    }

    /// Start a stopped server again on its data and port, or panic with the reason.
    pub fn restart(&mut self) {
        let dir = self
            .data
            .parent()
            .expect("the data's directory")
            .to_path_buf();
        self.child = launch(
            &self.bin, &self.data, &dir, self.owner, self.port, &self.log,
        );
        let url = self.url("postgres");
        assert!(
            wait_ready(&mut self.child, &url),
            "PostgreSQL did not start again:\n{}",
            self.log_text()
        );
    }

    /// A URL of database `db` on this server.
    pub fn url(&self, db: &str) -> String {
        format!("postgres://noid@127.0.0.1:{}/{db}", self.port)
    }

    /// Create database `db` and return its URL.
    pub fn create_database(&self, db: &str) -> String {
        let mut c = postgres::Client::connect(&self.url("postgres"), postgres::NoTls)
            .expect("connect to the test server");
        c.batch_execute(&format!("CREATE DATABASE {db}"))
            .expect("create the database");
        self.url(db)
    }

    /// The port the server listens on (on 127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stop the server at once, as a crash would (immediate shutdown, SIGQUIT: no
    /// checkpoint, connections cut).
    pub fn crash(&mut self) {
        let pid = self.child.id().to_string();
        let _ = Command::new("kill").args(["-QUIT", &pid]).status();
        let _ = self.child.wait();
    }

    /// Promote a standby to a primary (`pg_ctl promote`, waiting until it accepts
    /// writes), or panic with the reason.
    pub fn promote(&self) {
        let mut promote = Command::new(self.bin.join("pg_ctl"));
        promote.arg("promote").arg("-w").arg("-D").arg(&self.data);
        as_owner(&mut promote, self.owner);
        let out = promote.output().expect("run pg_ctl promote");
        assert!(
            out.status.success(),
            "pg_ctl promote failed: {}{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            self.log_text()
        );
    }

    /// The server's log so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

/// Start `postgres` on `data` and `port` (its socket in `dir`, its log in `log`).
fn launch(
    bin: &Path,
    data: &Path,
    dir: &Path,
    owner: Option<(u32, u32)>,
    port: u16,
    log: &Path,
) -> Child {
    let log_file = std::fs::File::create(log).expect("server log");
    if let Some((uid, gid)) = owner {
        std::os::unix::fs::chown(log, Some(uid), Some(gid)).expect("chown log");
    }
    let mut server = Command::new(bin.join("postgres"));
    server.arg("-D").arg(data).arg("-p").arg(port.to_string());
    server.arg("-k").arg(dir);
    server.args([
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "max_connections=60",
        "-c",
        "shared_buffers=16MB",
    ]);
    server.stdin(Stdio::null()).stdout(Stdio::null());
    server.stderr(log_file);
    as_owner(&mut server, owner);
    server.spawn().expect("start postgres")
}

/// Wait until the server at `url` accepts connections; false if it exited or never did.
fn wait_ready(child: &mut Child, url: &str) -> bool {
    let start = Instant::now();
    while start.elapsed() < START_WAIT {
        if let Ok(Some(_)) = child.try_wait() {
            return false;
        }
        if postgres::Client::connect(url, postgres::NoTls).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    false
}

/// The value of the setting `name` (`SHOW name`) in a session opened on `url` as noid
/// opens each of its own.
pub fn session_setting(url: &str, name: &str) -> String {
    let loc = super::Location::new(url, "m").expect("a database URL");
    let mut c = super::conn::connect(&loc).expect("connect");
    c.query_one(&format!("SHOW {name}"), &[])
        .expect("show")
        .get(0)
}

/// Fast shutdown (SIGINT), then SIGKILL if the server lingers.
fn stop(child: &mut Child) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    let pid = child.id().to_string();
    let _ = Command::new("kill").args(["-INT", &pid]).status();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(60) {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
}

impl Drop for TestServer {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

/// The newest `/usr/lib/postgresql/VERSION/bin` that has `initdb`.
fn server_bin_dir() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

/// The `postgres` user's uid and gid, from `/etc/passwd`.
fn postgres_user() -> (u32, u32) {
    let passwd = std::fs::read_to_string("/etc/passwd").expect("read /etc/passwd");
    passwd
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.first() == Some(&"postgres") && f.len() > 3)
                .then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))
                .flatten()
        })
        .unwrap_or_else(|| {
            panic!(
                "running as root, and there is no postgres user to run the server as \
                 (initdb refuses root): install Debian's postgresql package"
            )
        })
}

/// A TCP port on 127.0.0.1 that was free a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}
