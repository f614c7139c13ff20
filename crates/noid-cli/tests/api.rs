//! The binder and minter HTTP API through the real binaries: `noid serve` on
//! 127.0.0.1, real `curl`, binders and minters made by `noid dbcreate`, and the same
//! stores read back with `noid`. Expected outputs come from the spec's case list
//! (`../shared/spec-binder-api.md`) and from the CLI minting the same minter.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::util::{noid_exe, serve, Dir};

/// A running `noid serve` with two populators: `sam` (binder + minters, password file
/// with `sam`/`secret`), `ro` (read-only view of the same binder, login `viewer`),
/// `other` (its own binder, login `olga`).
pub(crate) struct Api {
    child: Child,
    pub(crate) port: u16,
    root: tempfile::TempDir,
}

impl Drop for Api {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn htpasswd(path: &Path, users: &[(&str, &str)]) {
    let mut text = String::new();
    for (u, p) in users {
        let h = bcrypt::hash_with_result(p, 4)
            .unwrap()
            .format_for_version(bcrypt::Version::TwoY);
        text.push_str(&format!("{u}:{h}\n"));
    }
    std::fs::write(path, text).unwrap();
}

fn dbcreate(dir: &Path, args: &[&str]) {
    let out = Command::new(noid_exe())
        .arg("-f")
        .arg(dir)
        .arg("dbcreate")
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

impl Api {
    pub(crate) fn start() -> Api {
        Api::start_with("")
    }

    pub(crate) fn start_with(extra: &str) -> Api {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        dbcreate(&r.join("binders/sam"), &[]);
        dbcreate(&r.join("binders/other"), &[]);
        dbcreate(
            &r.join("minters/sam/ark/99999/fk4"),
            &["fk4.reedeedk", "long", "99999", "example.org", "test"],
        );
        htpasswd(&r.join("pwd_sam"), &[("sam", "secret")]);
        htpasswd(&r.join("pwd_ro"), &[("viewer", "look")]);
        htpasswd(&r.join("pwd_other"), &[("olga", "pw")]);
        let extra = extra.replace("{root}", &r.display().to_string());
        // Binders an extra populator names must exist when the service starts.
        for line in extra.lines() {
            if let Some(dir) = line
                .strip_prefix("binder = \"")
                .and_then(|l| l.strip_suffix('"'))
            {
                if !std::path::Path::new(dir).exists() {
                    dbcreate(std::path::Path::new(dir), &[]);
                }
            }
        }
        let config = format!(
            r#"{extra}
[populator.sam]
htpasswd = "{r}/pwd_sam"
binder = "{r}/binders/sam"
minters = "{r}/minters/sam"
any_identifier = true

[populator.ro]
htpasswd = "{r}/pwd_ro"
binder = "{r}/binders/sam"
write = false

[populator.other]
htpasswd = "{r}/pwd_other"
binder = "{r}/binders/other"
"#,
            r = r.display()
        );
        std::fs::write(r.join("api.toml"), config).unwrap();
        let (child, port) = serve(&r.join("api.toml"));
        Api { child, port, root }
    }

    pub(crate) fn dir(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// Stop `noid serve` (SIGKILL, mid-work) and start it again on the same
    /// configuration and directories.
    pub(crate) fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (child, port) = serve(&self.root.path().join("api.toml"));
        (self.child, self.port) = (child, port);
    }

    /// The process id of the running `noid serve`.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `curl` a path (query given unencoded; it is %-encoded here) as `user`; returns (status, body).
    pub(crate) fn get(&self, user: Option<&str>, path: &str, query: &str) -> (u16, String) {
        self.curl(user, path, query, None, &[])
    }

    /// `curl` a path as `user` (`login:password`); returns (status, body).
    pub(crate) fn get_as(&self, user: &str, path: &str, query: &str) -> (u16, String) {
        self.curl(Some(user), path, query, None, &[])
    }

    /// POST `body` to a path as `user` (`login:password`); returns (status, body).
    pub(crate) fn post_as(&self, user: &str, path: &str, query: &str, body: &str) -> (u16, String) {
        self.curl(Some(user), path, query, Some(body), &[])
    }

    pub(crate) fn curl(
        &self,
        user: Option<&str>,
        path: &str,
        query: &str,
        body: Option<&str>,
        headers: &[&str],
    ) -> (u16, String) {
        let mut q = String::new();
        for c in query.bytes() {
            if c.is_ascii_alphanumeric() || b"-._~:/@!$&'()*+,;=".contains(&c) {
                q.push(c as char);
            } else {
                q.push_str(&format!("%{c:02X}"));
            }
        }
        let url = format!("http://127.0.0.1:{}{path}?{q}", self.port);
        let mut cmd = Command::new("curl");
        cmd.args(["-s", "--path-as-is", "-o", "-", "-w", "\n%{http_code}"]);
        if let Some(u) = user {
            cmd.args(["-u", u]);
        }
        for h in headers {
            cmd.args(["-H", h]);
        }
        if let Some(b) = body {
            cmd.args(["--data-binary", "@-"]);
            cmd.stdin(Stdio::piped());
            let mut child = cmd.arg(&url).stdout(Stdio::piped()).spawn().unwrap();
            child.stdin.take().unwrap().write_all(b.as_bytes()).unwrap();
            return split(child.wait_with_output().unwrap().stdout);
        }
        split(cmd.arg(&url).output().unwrap().stdout)
    }
}

fn split(out: Vec<u8>) -> (u16, String) {
    let text = String::from_utf8(out).unwrap();
    let (body, code) = text.rsplit_once('\n').unwrap();
    (code.parse().unwrap(), body.to_string())
}

const SAM: Option<&str> = Some("sam:secret");

#[test]
fn authentication_and_refusals() {
    let api = Api::start();
    // spec 3: 401 without credentials, wrong ones, or an unknown login.
    for user in [None, Some("sam:wrong"), Some("nobody:secret")] {
        assert_eq!(
            api.get(user, "/a/sam/b", "i.fetch"),
            (401, "error: 401 unauthorized\n".into()),
            "{user:?}"
        );
    }
    // Another populator's login: authenticated, not allowed here.
    assert_eq!(
        api.get(Some("olga:pw"), "/a/sam/b", "i.fetch"),
        (403, "error: 403 forbidden\n".into())
    );
    assert_eq!(
        api.get(Some("olga:pw"), "/a/sam/m/ark/99999/fk4", "mint 1"),
        (403, "error: 403 forbidden\n".into())
    );
    // spec 48 and 53: admin commands, -d, <binder>.
    assert_eq!(
        api.get(SAM, "/a/sam/b", "mkbinder foo"),
        (401, "error: 401 unauthorized\n\negg-status: 1\n".into())
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "-d pestx i.set a b"),
        (
            200,
            "error: -d or -p not allowed in query string\n\negg-status: 1\n".into()
        )
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "<xyzzy>i.set bow wow"),
        (
            200,
            "error: <binder> prefix not allowed from remote connections\n\negg-status: 1\n".into()
        )
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "i.set a @/etc/passwd"),
        (401, "error: 401 unauthorized\n\negg-status: 1\n".into())
    );
    // No path reaches an unconfigured directory.
    for path in [
        "/a/sam/m/ark/99999/../fk4",
        "/a/sam/m/ark/../../binders",
        "/a/../b",
        "/a/sam/m/ark/99999/nosuch",
    ] {
        let (code, _) = api.get(SAM, path, "mint 1");
        assert_eq!(code, 404, "{path}");
    }
    // A populator that is not configured is answered as one whose logins all fail
    // (issue 42, item 6): sam's login is another populator's there.
    assert_eq!(
        api.get(SAM, "/a/nobody/b", "mint 1"),
        (403, "error: 403 forbidden\n".into())
    );
    // sam's login is not other's.
    assert_eq!(api.get(SAM, "/a/other/m/ark/99999/fk4", "mint 1").0, 403);
    assert_eq!(
        api.get(SAM, "/a/sam/m/ark/99999/fk4", "mkminter x"),
        (401, "error: 401 unauthorized\n\nnog-status: 1\n".into())
    );
}

#[test]
fn bind_fetch_and_the_cli_sees_the_same_bindings() {
    let api = Api::start();
    // spec 49, 46, 51, 52
    assert_eq!(
        api.get(SAM, "/a/sam/b", "i.set moo cow"),
        (200, "egg-status: 0\n".into())
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "--verbose i.fetch moo"),
        (
            200,
            "note: remote user: sam\nmoo: cow\n\negg-status: 0\n".into()
        )
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "--ack foo.set moodle cow").1,
        "oxum: 3.1\n\negg-status: 0\n"
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "--ack foo.add moodle sheep").1,
        "oxum: 5.1\n\negg-status: 0\n"
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "--ack foo.rm moodle").1,
        "oxum: 8.2\n\negg-status: 0\n"
    );
    api.get(SAM, "/a/sam/b", "i.set hello th+ere");
    assert_eq!(
        api.get(SAM, "/a/sam/b", "i.fetch hello").1,
        "hello: th+ere\n\negg-status: 0\n"
    );
    api.get(SAM, "/a/sam/b", "i.set bow wow");
    assert_eq!(
        api.get(SAM, "/a/sam/b", "i.delete bow").1,
        "ok: element removed: i|bow\n\negg-status: 0\n"
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "xyzzy").1,
        "error: unknown command: xyzzy\n\negg-status: 1\n"
    );
    assert_eq!(
        api.get(
            SAM,
            "/a/sam/b",
            "ark:/99999/fk4f30n.set _t https://archive.org/details/AllAboutBooks"
        ),
        (200, "egg-status: 0\n".into())
    );
    let get = Command::new(noid_exe())
        .arg("-f")
        .arg(api.dir("binders/sam"))
        .args(["get", "ark:/99999/fk4f30n", "_t"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(get.stdout).unwrap(),
        "https://archive.org/details/AllAboutBooks\n"
    );
    // Read-only populator: reads yes, writes 403.
    assert_eq!(
        api.get(Some("viewer:look"), "/a/ro/b", "i.get moo"),
        (200, "moo: cow\n\negg-status: 0\n".into())
    );
    assert_eq!(
        api.get(Some("viewer:look"), "/a/ro/b", "i.set moo horse"),
        (
            403,
            "error: 403 forbidden: read-only access\n\negg-status: 1\n".into()
        )
    );
}

#[test]
fn bulk_posts() {
    let api = Api::start();
    let body = "\
 ark:/13960/t6m042969.set _t http://www.archive.org/details/wonderfulwizardo00baumiala
 ark:/13960/t6m042969.set how \"(:mtype text)\"
 ark:/13960/t6m042969.set who \"Baum, L. Frank (Lyman Frank), 1856-1919\"
 ark:/13960/t6m042969.add who \"Denslow, W. W. (William Wallace), 1856-1915\"
# a comment
 ark:/13960/t6m042969.set what \"The wonderful wizard of Oz\"
blech
 ark:/13960/t6m042969.fetch who
";
    assert_eq!(
        api.curl(SAM, "/a/sam/b", "-", Some(body), &[]),
        (
            200,
            "error: unknown command: blech\n\n\
             note: non-zero status (1) returned by command on line 7\n\
             who: Baum, L. Frank (Lyman Frank), 1856-1919\n\
             who: Denslow, W. W. (William Wallace), 1856-1915\n\n\
             # committed 7 commands, through line 8\n\
             egg-status: 1\n"
                .into()
        )
    );
    // An indirect value from the body of a single command.
    assert_eq!(
        api.curl(
            SAM,
            "/a/sam/b",
            "j|a.set @-",
            Some("two\nlines\n\nignored"),
            &[]
        )
        .0,
        200
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "j.fetch a").1,
        "a: two%0alines\n\negg-status: 0\n"
    );
}

#[test]
fn minting_matches_the_cli() {
    let api = Api::start();
    // The same minter made again elsewhere mints the same identifiers in the same order.
    let twin = Dir::minter(&["fk4.reedeedk", "long", "99999", "example.org", "test"]);
    let want: String = twin
        .noid(&["mint", "3"])
        .ok()
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| format!("s: {}\n", l.strip_prefix("id: ").unwrap()))
        .collect();
    assert_eq!(
        api.get(SAM, "/a/sam/m/ark/99999/fk4", "mint 3"),
        (200, format!("{want}\nnog-status: 0\n"))
    );
    assert_eq!(
        api.get(SAM, "/a/sam/m/ark/99999/fk4", "mint x"),
        (
            200,
            "error: Argument error: expected positive integer, got \"x\"\n\nnog-status: 1\n".into()
        )
    );
}

#[test]
fn write_log_replays_to_the_same_bindings() {
    let api = Api::start();
    for q in [
        "i.set a b",
        "i.add a c",
        ":hx i.set b^0ar x^20y",
        "j.set _t http://example.org/",
        "j.purge",
        "k.set n 1",
        "k.incr n 5",
        "k.let n 2",
        "l.set gone soon",
        "l.rm gone",
    ] {
        api.get(SAM, "/a/sam/b", q);
    }
    api.curl(SAM, "/a/sam/b", "m|v.set @-", Some("multi\nline\n\n"), &[]);
    let log = std::fs::read_to_string(api.dir("binders/sam/write.log")).unwrap();
    // Nine accepted writes (the failed `let` is not one).
    assert_eq!(log.lines().count(), 10, "{log}");
    assert!(log
        .lines()
        .all(|l| l.split('\t').nth(1) == Some("127.0.0.1")));
    let copy = Dir::minter(&[]);
    let replay = copy.noid(&["replay", api.dir("binders/sam/write.log").to_str().unwrap()]);
    assert_eq!(
        replay.ok(),
        "replayed 10 writes from ".to_string()
            + api.dir("binders/sam/write.log").to_str().unwrap()
            + "\n"
    );
    // Every binding key, as `noid export` writes it (admin keys, which record where
    // and when each store was made, differ).
    let bindings = |dir: &Path| {
        let out = Command::new(noid_exe())
            .arg("-f")
            .arg(dir)
            .arg("export")
            .output()
            .unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with(":/") && !l.starts_with('#'))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let original = bindings(&api.dir("binders/sam"));
    assert!(original.len() >= 10, "{original:?}");
    assert_eq!(bindings(copy.path()), original);
}

#[test]
fn failed_attempts_are_limited() {
    let api = Api::start();
    for _ in 0..10 {
        assert_eq!(api.get(Some("sam:bad"), "/a/sam/b", "i.fetch").0, 401);
    }
    assert_eq!(api.get(SAM, "/a/sam/b", "i.fetch").0, 429);
}

#[test]
fn a_trusted_front_server_names_the_user() {
    let api = Api::start_with("[front]\nsecret = \"s3cr3t\"\n");
    let h = ["X-Remote-User: sam", "X-Noid-Front-Secret: s3cr3t"];
    assert_eq!(
        api.curl(None, "/a/sam/b", "--verbose i.exists", None, &h),
        (
            200,
            "note: remote user: sam\nexists: 0\n\negg-status: 0\n".into()
        )
    );
    // A wrong secret is no front server: Basic authentication applies.
    let bad = ["X-Remote-User: sam", "X-Noid-Front-Secret: guess"];
    assert_eq!(api.curl(None, "/a/sam/b", "i.exists", None, &bad).0, 401);
    // A login the populator does not have.
    let other = ["X-Remote-User: olga", "X-Noid-Front-Secret: s3cr3t"];
    assert_eq!(api.curl(None, "/a/sam/b", "i.exists", None, &other).0, 403);
}

/// A keep-alive HTTP/1.1 client on a raw socket: one request at a time, the answer's
/// status and body.
struct KeepAlive {
    reader: std::io::BufReader<std::net::TcpStream>,
    auth: String,
}

impl KeepAlive {
    fn connect(port: u16, user: &str) -> KeepAlive {
        use base64::Engine;
        let s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_nodelay(true).unwrap();
        KeepAlive {
            reader: std::io::BufReader::new(s),
            auth: base64::engine::general_purpose::STANDARD.encode(user),
        }
    }

    /// GET `target` (already %-encoded).
    fn get(&mut self, target: &str) -> (u16, String) {
        use std::io::{BufRead, Read};
        let req = format!(
            "GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic {}\r\n\r\n",
            self.auth
        );
        self.reader.get_mut().write_all(req.as_bytes()).unwrap();
        let mut status = String::new();
        self.reader.read_line(&mut status).unwrap();
        let code: u16 = status.split(' ').nth(1).unwrap().parse().unwrap();
        let mut len = 0;
        loop {
            let mut h = String::new();
            self.reader.read_line(&mut h).unwrap();
            if h == "\r\n" {
                break;
            }
            if let Some((n, v)) = h.split_once(':') {
                if n.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().unwrap();
                }
            }
        }
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body).unwrap();
        (code, String::from_utf8(body).unwrap())
    }
}

/// Issue 18's concurrency test: 8 keep-alive clients binding through the API while
/// `noid bind` processes bind and `noid mint` mints on the API's minter; every
/// acknowledged write is in the store afterwards and no identifier is minted twice.
#[test]
fn api_writers_cli_writers_and_minting_lose_nothing() {
    let api = Api::start();
    let port = api.port;
    let binder = api.dir("binders/sam");
    let minter = api.dir("minters/sam/ark/99999/fk4");
    let clients: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                let mut c = KeepAlive::connect(port, "sam:secret");
                let mut acked = Vec::new();
                let mut minted = Vec::new();
                for i in 0..60 {
                    let (code, body) = c.get(&format!("/a/sam/b?api{t}-{i}.set%20e%20v{t}-{i}"));
                    if code == 200 && body == "egg-status: 0\n" {
                        acked.push((format!("api{t}-{i}"), format!("v{t}-{i}")));
                    }
                    if i % 20 == 0 {
                        let (code, body) = c.get("/a/sam/m/ark/99999/fk4?mint%203");
                        assert_eq!(code, 200, "{body}");
                        minted.extend(
                            body.lines()
                                .filter_map(|l| l.strip_prefix("s: "))
                                .map(str::to_string),
                        );
                    }
                }
                (acked, minted)
            })
        })
        .collect();
    let cli_binds: Vec<_> = (0..2)
        .map(|t| {
            let binder = binder.clone();
            std::thread::spawn(move || {
                let mut acked = Vec::new();
                for i in 0..15 {
                    let out = Command::new(noid_exe())
                        .arg("-f")
                        .arg(&binder)
                        .args([
                            "bind",
                            "set",
                            &format!("cli{t}-{i}"),
                            "e",
                            &format!("w{t}-{i}"),
                        ])
                        .output()
                        .unwrap();
                    if out.status.success() {
                        acked.push((format!("cli{t}-{i}"), format!("w{t}-{i}")));
                    }
                }
                acked
            })
        })
        .collect();
    let cli_mint = std::thread::spawn(move || {
        let mut ids = Vec::new();
        for _ in 0..5 {
            let out = Command::new(noid_exe())
                .arg("-f")
                .arg(&minter)
                .args(["mint", "4"])
                .output()
                .unwrap();
            assert!(out.status.success(), "{out:?}");
            ids.extend(
                String::from_utf8(out.stdout)
                    .unwrap()
                    .lines()
                    .filter_map(|l| l.strip_prefix("id: "))
                    .map(str::to_string),
            );
        }
        ids
    });
    let mut acked = Vec::new();
    let mut minted = Vec::new();
    for c in clients {
        let (a, m) = c.join().unwrap();
        acked.extend(a);
        minted.extend(m);
    }
    for c in cli_binds {
        acked.extend(c.join().unwrap());
    }
    minted.extend(cli_mint.join().unwrap());
    assert_eq!(acked.len(), 8 * 60 + 2 * 15, "every write was acknowledged");
    assert_eq!(minted.len(), 8 * 3 * 3 + 5 * 4);
    let distinct: std::collections::BTreeSet<_> = minted.iter().collect();
    assert_eq!(
        distinct.len(),
        minted.len(),
        "an identifier was minted twice"
    );
    let export = Command::new(noid_exe())
        .arg("-f")
        .arg(api.dir("binders/sam"))
        .arg("export")
        .output()
        .unwrap();
    let export = String::from_utf8(export.stdout).unwrap();
    let stored: std::collections::BTreeSet<&str> = export.lines().collect();
    for (id, v) in &acked {
        assert!(
            stored.contains(format!("{id}\\te\t{v}").as_str()),
            "{id} e {v} lost"
        );
    }
}

/// The same API as a CGI, as Apache runs it: `noidu-api` with `NOID_API_CONFIG`,
/// `PATH_INFO`, `QUERY_STRING` and the login Apache authenticated in `REMOTE_USER`.
#[test]
fn the_api_as_a_cgi() {
    let api = Api::start();
    let cgi = api.dir("noidu-api");
    std::os::unix::fs::symlink(noid_exe(), &cgi).unwrap();
    let run = |path: &str, query: &str, user: Option<&str>, body: &str| {
        let mut cmd = Command::new(&cgi);
        cmd.env_clear()
            .env("NOID_API_CONFIG", api.dir("api.toml"))
            .env("PATH_INFO", path)
            .env("QUERY_STRING", query)
            .env("REMOTE_ADDR", "127.0.0.1")
            .env("CONTENT_LENGTH", body.len().to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        if let Some(u) = user {
            cmd.env("REMOTE_USER", u);
        }
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(body.as_bytes())
            .unwrap();
        String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap()
    };
    let head = "content-type: text/plain; charset=UTF-8\r\negg-version: noid 0.1.0\r\n\r\n";
    assert_eq!(
        run("/sam/b", "i.set%20moo%20cow", Some("sam"), ""),
        format!("Status: 200 OK\r\n{head}egg-status: 0\n")
    );
    assert_eq!(
        run("/sam/b", "-", Some("sam"), "i.add moo calf\ni.fetch moo\n"),
        format!(
            "Status: 200 OK\r\n{head}moo: cow\nmoo: calf\n\n\
             # committed 2 commands, through line 2\negg-status: 0\n"
        )
    );
    assert_eq!(
        run("/sam/b", "i.fetch", None, ""),
        "Status: 401 Unauthorized\r\ncontent-type: text/plain; charset=UTF-8\r\n\r\nerror: 401 unauthorized\n"
    );
    assert_eq!(
        run("/sam/b", "i.fetch", Some("olga"), ""),
        "Status: 403 Forbidden\r\ncontent-type: text/plain; charset=UTF-8\r\n\r\nerror: 403 forbidden\n"
    );
    assert!(run("/sam/b", "mkbinder%20x", Some("sam"), "").starts_with("Status: 401"));
    assert!(run("/sam/../other/b", "i.fetch", Some("sam"), "").starts_with("Status: 404"));
    // The service sees the CGI's writes, and both logged them.
    assert_eq!(
        api.get(SAM, "/a/sam/b", "i.get moo").1,
        "moo: cow\nmoo: calf\n\negg-status: 0\n"
    );
    let log = std::fs::read_to_string(api.dir("binders/sam/write.log")).unwrap();
    assert_eq!(log.lines().count(), 2, "{log}");
    // A read takes no lock: while a writer holds the binder between its commits (as
    // `noid serve`'s writer thread does, its store open and paused), the CGI's read
    // answers from a snapshot, with every write acknowledged.
    let binder = api.dir("binders/sam");
    let held = noid_store::open::writer(&binder, Duration::from_secs(10)).unwrap();
    assert!(held.pause(Duration::from_secs(5)).unwrap(), "busy released");
    assert!(
        noid_store::open::writer(&binder, Duration::from_millis(10)).is_err(),
        "the writers' lock is held"
    );
    assert_eq!(
        run("/sam/b", "i.get%20moo", Some("sam"), ""),
        format!("Status: 200 OK\r\n{head}moo: cow\nmoo: calf\n\negg-status: 0\n")
    );
    drop(held);
}

/// A running `noidr` on a binder, speaking the noid line protocol.
struct Noidr {
    child: Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Noidr {
    fn start(dbdir: &Path) -> Noidr {
        // Built next to noid (scripts/test-all.sh builds every binary first).
        let exe = noid_exe().with_file_name("noidr");
        assert!(
            exe.is_file(),
            "{} is missing: cargo build --release --workspace --bins",
            exe.display()
        );
        let mut child = Command::new(exe)
            .arg("-f")
            .arg(dbdir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        Noidr {
            child,
            stdin,
            stdout,
        }
    }

    fn ask(&mut self, line: &str) -> String {
        use std::io::BufRead;
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
        let mut answer = String::new();
        self.stdout.read_line(&mut answer).unwrap();
        answer.trim_end_matches('\n').to_string()
    }
}

impl Drop for Noidr {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Issue 18: "noidr sees it at its next request". Each write `noid serve` acknowledges
/// is answered by a running `noidr` at the request sent right after the answer, many
/// times in a row, also after the service sat idle and while a CLI write came between.
#[test]
fn acknowledged_writes_are_seen_by_noidr_at_its_next_request() {
    let api = Api::start();
    let mut noidr = Noidr::start(&api.dir("binders/sam"));
    assert_eq!(noidr.ask("get ark:/99999/fk4n0 _t"), "NULL");
    let mut c = KeepAlive::connect(api.port, "sam:secret");
    for i in 0..300 {
        let (code, body) = c.get(&format!(
            "/a/sam/b?ark:/99999/fk4n{i}.set%20_t%20https://example.org/{i}"
        ));
        assert_eq!((code, body.as_str()), (200, "egg-status: 0\n"), "write {i}");
        assert_eq!(
            noidr.ask(&format!("get ark:/99999/fk4n{i} _t")),
            format!("https://example.org/{i}"),
            "noidr's next request after write {i}"
        );
        if i % 100 == 99 {
            // A rewrite of an earlier binding, seen at once too.
            c.get(&format!("/a/sam/b?ark:/99999/fk4n0.set%20_t%20again{i}"));
            assert_eq!(noidr.ask("get ark:/99999/fk4n0 _t"), format!("again{i}"));
        }
    }
    // A bulk POST's writes are acknowledged only once committed, and seen next.
    let body: String = (0..50)
        .map(|i| format!("ark:/99999/fk4b{i}.set _t https://example.org/b{i}\n"))
        .collect();
    let (code, out) = api.curl(SAM, "/a/sam/b", "-", Some(&body), &[]);
    assert_eq!(
        (code, out.as_str()),
        (
            200,
            "# committed 50 commands, through line 50\negg-status: 0\n"
        )
    );
    for i in 0..50 {
        assert_eq!(
            noidr.ask(&format!("get ark:/99999/fk4b{i} _t")),
            format!("https://example.org/b{i}")
        );
    }
}

/// A bulk POST's batch commits are acknowledgements too: once the client has read
/// `# committed N commands, through line L` (before it has even sent the rest of its
/// body), `noidr`'s next request sees line L's write, and not the next line's, which
/// is not committed yet.
#[test]
fn a_bulk_posts_committed_batches_are_seen_by_noidr_before_it_ends() {
    use base64::Engine;
    use std::io::Read;
    let api = Api::start();
    let mut noidr = Noidr::start(&api.dir("binders/sam"));
    let line = |i: usize| format!("ark:/99999/fk4p{i}.set _t https://example.org/p{i}\n");
    // More than one batch (100,000 key writes: 25,000 `set`s of new identifiers).
    let first: String = (0..26_000).map(line).collect();
    let rest: String = (26_000..30_000).map(line).collect();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", api.port)).unwrap();
    // Only so that a broken server fails the test instead of hanging it.
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let auth = base64::engine::general_purpose::STANDARD.encode("sam:secret");
    write!(
        s,
        "POST /a/sam/b?- HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic {auth}\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{first}",
        first.len() + rest.len()
    )
    .unwrap();
    let mut got = Vec::new();
    let mut buf = [0; 4096];
    let progress = loop {
        let n = s.read(&mut buf).unwrap();
        assert_ne!(n, 0, "{}", String::from_utf8_lossy(&got));
        got.extend(&buf[..n]);
        let text = String::from_utf8_lossy(&got);
        if let Some((_, after)) = text.split_once("# committed ") {
            if let Some((progress, _)) = after.split_once('\n') {
                break progress.to_string();
            }
        }
    };
    let (n, l) = progress.split_once(" commands, through line ").unwrap();
    let (n, l): (usize, usize) = (n.parse().unwrap(), l.parse().unwrap());
    assert_eq!(n, l);
    assert!((1..26_000).contains(&n), "{progress}");
    for i in [0, n / 2, n - 1] {
        assert_eq!(
            noidr.ask(&format!("get ark:/99999/fk4p{i} _t")),
            format!("https://example.org/p{i}"),
            "line {}",
            i + 1
        );
    }
    assert_eq!(noidr.ask(&format!("get ark:/99999/fk4p{n} _t")), "NULL");
    s.write_all(rest.as_bytes()).unwrap();
    let mut tail = String::new();
    s.read_to_string(&mut tail).unwrap();
    assert!(
        tail.contains("# committed 30000 commands, through line 30000\negg-status: 0\n"),
        "{tail}"
    );
    assert_eq!(
        noidr.ask("get ark:/99999/fk4p29999 _t"),
        "https://example.org/p29999"
    );
}

/// Send a raw HTTP/1.0 request whose body is cut short: the head claims `claimed`
/// octets, `sent` follows, then the sending side is closed (or, with `hold`, kept open
/// while `then` runs). Returns the response's status and body (HTTP/1.0: no chunks, the
/// body ends with the connection).
fn cut_request(
    port: u16,
    target: &str,
    claimed: usize,
    sent: &str,
    then: impl FnOnce(),
    hold: bool,
) -> (u16, String) {
    use base64::Engine;
    use std::io::Read;
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    let auth = base64::engine::general_purpose::STANDARD.encode("sam:secret");
    write!(
        s,
        "POST {target} HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Basic {auth}\r\nContent-Length: {claimed}\r\n\r\n{sent}"
    )
    .unwrap();
    s.flush().unwrap();
    if !hold {
        s.shutdown(std::net::Shutdown::Write).unwrap();
    }
    then();
    let mut raw = String::new();
    s.read_to_string(&mut raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap();
    let code = head.split(' ').nth(1).unwrap().parse().unwrap();
    (code, body.to_string())
}

/// Issue 18 item 4: a bulk POST whose body is cut off mid-way runs the complete
/// command lines that arrived, commits them and says how far it got; the partial last
/// line is not run.
#[test]
fn a_bulk_post_cut_off_says_how_far_it_got() {
    let api = Api::start();
    let sent = "c1.set a 1\nc2.set a 2\nblech\nc3.set a 3\nc4.set a";
    let (code, body) = cut_request(api.port, "/a/sam/b?-", 100_000, sent, || (), false);
    assert_eq!(code, 200);
    let (before, after) = body
        .split_once("error: the request body was cut off (")
        .unwrap_or_else(|| panic!("{body}"));
    assert_eq!(
        before,
        "error: unknown command: blech\n\nnote: non-zero status (1) returned by command on line 3\n"
    );
    assert!(
        after.ends_with(
            "); the commands after line 4 were not run\n\n\
             # committed 4 commands, through line 4\negg-status: 1\n"
        ),
        "{after}"
    );
    for (id, want) in [("c1", "1\n"), ("c2", "2\n"), ("c3", "3\n"), ("c4", "\n")] {
        let got = Command::new(noid_exe())
            .arg("-f")
            .arg(api.dir("binders/sam"))
            .args(["get", id, "a"])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(got.stdout).unwrap(), want, "{id}");
    }
}

/// A bulk POST whose body never begins (the head claims octets that do not come) is
/// answered, after the 30 s stall limit, with how far it got: nothing run, nothing
/// committed; the binder's thread was not held meanwhile.
#[test]
fn a_bulk_post_whose_body_never_comes_is_answered_as_stalled() {
    let api = Api::start();
    let port = api.port;
    let (code, body) = cut_request(
        port,
        "/a/sam/b?-",
        100,
        "",
        || {
            // Meanwhile the binder takes other writes.
            let (code, body) = KeepAlive::connect(port, "sam:secret").get("/a/sam/b?w.set%20a%201");
            assert_eq!((code, body.as_str()), (200, "egg-status: 0\n"));
        },
        true,
    );
    assert_eq!(
        (code, body.as_str()),
        (
            200,
            "error: the request body stalled for 30 s; the commands after line 0 were not run\n\n\
             # committed 0 commands, through line 0\negg-status: 1\n"
        )
    );
}

/// A bulk POST in progress when the server is told to stop (SIGTERM) ends at its next
/// command, commits what ran, and says so; what it reports committed is what the
/// binder holds. The signal is sent once the client has read a batch's
/// acknowledgement, with the run still busy (more lines sent than that batch, and
/// more announced than sent): the report cannot be less than what was acknowledged.
/// Every line asks for an acknowledgement (`--ack`: `oxum: …`), so the answer shows
/// which commands ran: exactly those reported committed.
#[test]
fn a_bulk_post_stopped_by_the_server_says_how_far_it_got() {
    use base64::Engine;
    use std::io::Read;
    let mut api = Api::start();
    let pid = api.child.id().to_string();
    let line = |i: usize| format!("--ack ark:/99999/fk4s{i}.set _t https://example.org/s{i}\n");
    // Two batches' worth and more (a batch commits at 100,000 key writes: 25,000
    // `set`s of new identifiers).
    let total = 60_000;
    let body: String = (0..total).map(line).collect();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", api.port)).unwrap();
    // Only so that a broken server fails the test instead of hanging it.
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let auth = base64::engine::general_purpose::STANDARD.encode("sam:secret");
    write!(
        s,
        "POST /a/sam/b?- HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Basic {auth}\r\n\
         Content-Length: {}\r\n\r\n",
        body.len() + 1_000_000
    )
    .unwrap();
    let mut w = s.try_clone().unwrap();
    // The body from a thread of its own: the server's answer is read meanwhile. (Its
    // write fails once the server has answered and closed; that is expected.)
    let sender = std::thread::spawn(move || {
        let _ = w.write_all(body.as_bytes());
    });
    let mut got = Vec::new();
    let mut buf = [0; 4096];
    let acked = loop {
        let n = s.read(&mut buf).unwrap();
        assert_ne!(n, 0, "{}", String::from_utf8_lossy(&got));
        got.extend(&buf[..n]);
        let text = String::from_utf8_lossy(&got);
        if let Some((_, after)) = text.split_once("# committed ") {
            if let Some((progress, _)) = after.split_once('\n') {
                let (n, l) = progress.split_once(" commands, through line ").unwrap();
                let (n, l): (usize, usize) = (n.parse().unwrap(), l.parse().unwrap());
                assert_eq!(n, l, "{progress}");
                break n;
            }
        }
    };
    assert!((1..total).contains(&acked), "{acked}");
    let k = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(k.success());
    s.read_to_end(&mut got).unwrap();
    sender.join().unwrap();
    let raw = String::from_utf8(got).unwrap();
    let (_, answer) = raw.split_once("\r\n\r\n").unwrap();
    let ack = format!("# committed {acked} commands, through line {acked}\n");
    let (batch, after) = answer
        .split_once(&ack)
        .unwrap_or_else(|| panic!("{answer}"));
    let (pending, tail) = after
        .split_once("error: the server is stopping; the commands after line ")
        .unwrap_or_else(|| panic!("{after}"));
    let ran = |out: &str| out.matches("oxum: ").count();
    assert_eq!(ran(batch), acked, "commands that ran in the first batch");
    let (line_no, rest) = tail.split_once(' ').unwrap();
    let n: usize = line_no.parse().unwrap();
    assert_eq!(
        rest,
        format!("were not run\n\n# committed {n} commands, through line {n}\negg-status: 1\n")
    );
    assert!(
        (acked..=total).contains(&n),
        "{n} committed, {acked} acknowledged before"
    );
    assert_eq!(
        acked + ran(pending),
        n,
        "the commands that ran after the first batch are not those reported committed"
    );
    assert!(
        api.child.wait().unwrap().success(),
        "noid serve stopped cleanly"
    );
    // Lines 1 to n are in the binder (the first, the last acknowledged, the last
    // reported), line n + 1 is not.
    let get = |i: usize| {
        let out = Command::new(noid_exe())
            .arg("-f")
            .arg(api.dir("binders/sam"))
            .args(["get", &format!("ark:/99999/fk4s{i}"), "_t"])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    for i in [0, acked - 1, n - 1] {
        assert_eq!(
            get(i),
            format!("https://example.org/s{i}\n"),
            "line {}",
            i + 1
        );
    }
    if n < total {
        assert_eq!(get(n), "\n", "line {} was not run", n + 1);
    }
}

/// A bulk POST sent with `Expect: 100-continue` (curl sends one for bodies over 1 MiB)
/// is told `100 Continue` before its final response: a client that saw the final head
/// first would hold its body back until its own timeout (curl: a second or more).
#[test]
fn a_bulk_post_expecting_100_continue_is_told_to_continue_first() {
    use base64::Engine;
    use std::io::{BufRead, BufReader, Read};
    let api = Api::start();
    let body = "e1.set a 1\ne2.set a 2\n";
    let s = std::net::TcpStream::connect(("127.0.0.1", api.port)).unwrap();
    // Only so that a broken server fails the test instead of hanging it.
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let auth = base64::engine::general_purpose::STANDARD.encode("sam:secret");
    let mut r = BufReader::new(s);
    write!(
        r.get_mut(),
        "POST /a/sam/b?- HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic {auth}\r\n\
         Content-Length: {}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .unwrap();
    let mut first = String::new();
    while !first.ends_with("\r\n\r\n") {
        assert_ne!(r.read_line(&mut first).unwrap(), 0, "{first}");
    }
    assert_eq!(first, "HTTP/1.1 100 Continue\r\n\r\n");
    r.get_mut().write_all(body.as_bytes()).unwrap();
    let mut rest = String::new();
    r.read_to_string(&mut rest).unwrap();
    let (head, chunked) = rest.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    // Chunks: a hexadecimal size line, that many octets, CRLF; size 0 ends the body.
    let mut answer = String::new();
    let mut left = chunked;
    loop {
        let (size, after) = left.split_once("\r\n").unwrap();
        let size = usize::from_str_radix(size, 16).unwrap();
        if size == 0 {
            break;
        }
        answer.push_str(&after[..size]);
        left = after[size..].strip_prefix("\r\n").unwrap();
    }
    assert_eq!(
        answer,
        "# committed 2 commands, through line 2\negg-status: 0\n"
    );
    for (id, want) in [("e1", "1\n"), ("e2", "2\n")] {
        let got = Command::new(noid_exe())
            .arg("-f")
            .arg(api.dir("binders/sam"))
            .args(["get", id, "a"])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8(got.stdout).unwrap(), want, "{id}");
    }
}

/// Issue 18 item 5: `X-Forwarded-For` names the client only when the configured front
/// server sends it (from one of its addresses, or with its secret): for the populator's
/// allow-list, the failed-attempt limit and the write log. `Acting-For` is logged.
#[test]
fn forwarded_clients_and_acting_for() {
    let api = Api::start_with(
        r#"[front]
secret = "s3cr3t"
addresses = ["127.0.0.1"]

[populator.fwd]
htpasswd = "{root}/pwd_sam"
binder = "{root}/binders/sam"
allow = ["10.1.2.0/24"]
"#,
    );
    let xff = |a: &str| format!("X-Forwarded-For: 192.0.2.1, {a}");
    assert_eq!(
        api.curl(SAM, "/a/fwd/b", "i.set a b", None, &[&xff("10.1.2.3")]),
        (200, "egg-status: 0\n".into())
    );
    assert_eq!(
        api.curl(SAM, "/a/fwd/b", "i.fetch a", None, &[&xff("10.9.9.9")]),
        (403, "error: 403 forbidden\n".into())
    );
    assert_eq!(
        api.curl(SAM, "/a/fwd/b", "i.fetch a", None, &[]).0,
        403,
        "the front server itself is not on the allow-list"
    );
    // Failed attempts count against the forwarded client, not the front server.
    for _ in 0..10 {
        let r = api.curl(
            Some("sam:bad"),
            "/a/fwd/b",
            "i.fetch",
            None,
            &[&xff("10.1.2.4")],
        );
        assert_eq!(r.0, 401);
    }
    // (sam's password, verified a moment ago from 10.1.2.3, is remembered and not
    // refused anywhere: only attempts that need checking are.)
    let bad = |a: &str| {
        api.curl(Some("sam:bad"), "/a/fwd/b", "i.fetch a", None, &[&xff(a)])
            .0
    };
    assert_eq!(bad("10.1.2.4"), 429);
    assert_eq!(bad("10.1.2.3"), 401);
    assert_eq!(
        api.curl(SAM, "/a/fwd/b", "i.fetch a", None, &[&xff("10.1.2.3")]),
        (200, "a: b\n\negg-status: 0\n".into())
    );
    // N2T's Acting-For: shown by --verbose, kept in the write log.
    let acting = "Acting-For: http://n2t.net/ark:/99166/b4cd3";
    assert_eq!(
        api.curl(
            SAM,
            "/a/fwd/b",
            "--verbose i.set c d",
            None,
            &[&xff("10.1.2.3"), acting]
        ),
        (
            200,
            "note: remote user: sam acting for &P/b4cd3\negg-status: 0\n".into()
        )
    );
    let log = std::fs::read_to_string(api.dir("binders/sam/write.log")).unwrap();
    let fields: Vec<Vec<&str>> = log.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(fields.len(), 2, "{log}");
    assert_eq!(
        fields[0][1..],
        [
            "10.1.2.3",
            "fwd",
            "sam",
            ":hx i.set a b",
            "i.set^20a^20b",
            "-",
            "=",
            "-"
        ]
    );
    assert_eq!(
        fields[1][1..],
        [
            "10.1.2.3",
            "fwd",
            "sam",
            ":hx i.set c d",
            "^2d-verbose^20i.set^20c^20d",
            "http^3a//n2t.net/ark^3a/99166/b4cd3",
            "=",
            "-"
        ]
    );
}

/// Without `addresses`, `X-Forwarded-For` from a client that is not the front server
/// (no secret) is ignored; with the secret it is believed.
#[test]
fn forwarded_for_is_ignored_from_others() {
    let api = Api::start_with(
        r#"[front]
secret = "s3cr3t"

[populator.fwd]
htpasswd = "{root}/pwd_sam"
binder = "{root}/binders/sam"
allow = ["10.1.2.0/24"]
"#,
    );
    let xff = "X-Forwarded-For: 10.1.2.3";
    assert_eq!(api.curl(SAM, "/a/fwd/b", "i.exists", None, &[xff]).0, 403);
    assert_eq!(
        api.curl(
            SAM,
            "/a/fwd/b",
            "i.exists",
            None,
            &[xff, "X-Noid-Front-Secret: s3cr3t"]
        ),
        (200, "exists: 0\n\negg-status: 0\n".into())
    );
}

/// The egg operations added for spec cases 42-44 and `-m xml`, over HTTP (ANVL and
/// `--all` by default, as N2T answers).
#[test]
fn list_norm_shadow_resolve_and_xml_over_http() {
    let api = Api::start();
    for id in [
        "ark:/12345/f84",
        "ark:/12345/f81",
        "ark:/12345/f83",
        "ark:/12345/f82",
        "ark:/12345/g1",
    ] {
        api.get(SAM, "/a/sam/b", &format!("{id}.set _t http://e.org/{id}"));
    }
    assert_eq!(
        api.get(SAM, "/a/sam/b", "list - ark:/12345/f8"),
        (
            200,
            "# listing for binder sam, max 1000\nid: ark:/12345/f81\nid: ark:/12345/f82\n\
             id: ark:/12345/f83\nid: ark:/12345/f84\n\
             # produced 4 ids, 12 bindings (average 3.00 bindings per id)\n\negg-status: 0\n"
                .into()
        )
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "list - xyzzy").1,
        "# listing for binder sam, max 1000\n\
         # produced 0 ids, 0 bindings (average 0.00 bindings per id)\n\negg-status: 0\n"
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "ark:12345/e-f?g-h.norm").1,
        "id: ark:/12345/ef?g-h\n\negg-status: 0\n"
    );
    assert_eq!(
        api.get(
            SAM,
            "/a/sam/b",
            ":hx \"  DOI:10.12345/croWD-^0a^09 sOUrced?lower.norm\""
        )
        .1,
        "id: doi:10.12345/CROWD-SOURCED?lower\n\negg-status: 0\n"
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "doi:10.123/THIS-THat?NO-W.shadow")
            .1,
        "id: ark:/b0123/thisthat?NO-W\n\negg-status: 0\n"
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "ark:/12345/f81.resolve").1,
        "redir302 http://e.org/ark:/12345/f81\negg-status: 0\n"
    );
    assert_eq!(
        api.get(SAM, "/a/sam/b", "-m xml :allnot ark:/12345/g1.fetch").1,
        "<record id=\"ark:/12345/g1\"><element name=\"_t\">http://e.org/ark:/12345/g1</element></record>\n\
         egg-status: 0\n"
    );
    assert_eq!(
        api.get(SAM, "/a/sam/m/ark/99999/fk4", "-m xml mint 1").0,
        200
    );
    assert!(api
        .get(SAM, "/a/sam/m/ark/99999/fk4", "-m xml mint 1")
        .1
        .starts_with("<minted><s>99999/fk4"));
}

/// Remove every identifier from sam's binder (through the API: `list 0`, then `purge`).
fn clear(api: &Api) {
    let (_, listing) = api.get(SAM, "/a/sam/b", "list 0");
    for line in listing.lines() {
        let Some(shown) = line.strip_prefix("id: ") else {
            continue;
        };
        // ANVL values encode `%` and newlines.
        let mut id = Vec::new();
        let b = shown.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match &b[i..] {
                [b'%', b'2', b'5', ..] => (id.push(b'%'), i += 3).1,
                [b'%', b'0', b'a', ..] => (id.push(b'\n'), i += 3).1,
                [c, ..] => (id.push(*c), i += 1).1,
                [] => unreachable!(),
            };
        }
        let esc = noid_egg::canonical::escape(&id);
        let (code, out) = api.get(SAM, "/a/sam/b", &format!(":hx {esc}.purge"));
        assert_eq!(code, 200, "{out}");
    }
    let (_, listing) = api.get(SAM, "/a/sam/b", "list 0");
    assert!(listing.contains("# produced 0 ids"), "{listing}");
}

/// The spec's case list (crates/noid-egg/tests/cases/table.rs) through a real
/// `noid serve` and `curl`, each case from an emptied binder.
#[test]
fn spec_cases_through_noid_serve() {
    #[allow(dead_code)]
    mod cases {
        include!("../../noid-egg/tests/cases/table.rs");
    }
    let api = Api::start();
    let mut ran = 0;
    for case in cases::CASES {
        let Some(want) = cases::expected(case, true, "sam") else {
            continue;
        };
        clear(&api);
        for s in case.setup {
            let (code, out) = api.get(SAM, "/a/sam/b", s);
            assert!(
                code == 200 && out.ends_with("egg-status: 0\n"),
                "case {} setup {s}: {code} {out}",
                case.name
            );
        }
        let (code, out) = if case.bulk {
            api.curl(SAM, "/a/sam/b", "-", Some(case.command), &[])
        } else {
            api.get(SAM, "/a/sam/b", case.command)
        };
        let status = format!("egg-status: {}\n", u8::from(case.failed));
        let mut body = out
            .strip_suffix(&status)
            .unwrap_or_else(|| panic!("case {}: {out}", case.name))
            .to_string();
        if case.bulk {
            // The API's last line, `# committed N commands, through line L`.
            let at = body
                .rfind("# committed ")
                .unwrap_or_else(|| panic!("case {}: {out}", case.name));
            assert!(
                (at == 0 || body[..at].ends_with('\n')) && body[at..].matches('\n').count() == 1,
                "case {}: {out}",
                case.name
            );
            body.truncate(at);
        }
        assert_eq!(
            (code, cases::placeholders(&body)),
            (case.status, want),
            "case {}",
            case.name
        );
        ran += 1;
    }
    assert_eq!(ran, cases::CASES.len());
}

/// Spec case 40 (mod.t:193) over HTTP: a one-million-octet `@-1000000` value read from
/// the body of a single command.
#[test]
fn a_million_octets_from_the_request_body() {
    let api = Api::start();
    let big = "x".repeat(1_000_000);
    assert_eq!(
        api.curl(SAM, "/a/sam/b", "j|a.set @-1000000", Some(&big), &[]),
        (200, "egg-status: 0\n".into())
    );
    let (code, body) = api.get(SAM, "/a/sam/b", "-m plain j.get a");
    assert_eq!(code, 200);
    assert_eq!(body.len(), 1_000_002 + "egg-status: 0\n".len());
}

/// Spec cases 54 (nog_mint.t:93) and 55 (nog_mint.t:125) over HTTP: a minter at its end with `stopN` answers the
/// identifiers it could mint, then why it stopped, and `nog-status: N`; one with `wrapN`
/// starts again and answers `nog-status: N`. What was answered is what was stored.
#[test]
fn minters_that_stop_or_wrap() {
    let api = Api::start();
    dbcreate(
        &api.dir("minters/sam/ark/99999/sd"),
        &["--atlast", "stop7", ".sd"],
    );
    dbcreate(
        &api.dir("minters/sam/ark/99999/wd"),
        &["--atlast", "wrap5", ".sd"],
    );
    let digits = |r: std::ops::Range<u32>| -> String { r.map(|i| format!("s: {i}\n")).collect() };
    assert_eq!(
        api.get(SAM, "/a/sam/m/ark/99999/sd", "mint 15"),
        (
            200,
            format!(
                "{}error: identifiers exhausted (stopped at 10).\n\nnog-status: 7\n",
                digits(0..10)
            )
        )
    );
    assert_eq!(
        api.get(SAM, "/a/sam/m/ark/99999/sd", "mint 1"),
        (
            200,
            "error: identifiers exhausted (stopped at 10).\n\nnog-status: 7\n".into()
        )
    );
    assert_eq!(
        api.get(SAM, "/a/sam/m/ark/99999/wd", "mint 12"),
        (
            200,
            format!("{}s: 0\ns: 1\n\nnog-status: 5\n", digits(0..10))
        )
    );
    assert_eq!(
        api.get(SAM, "/a/sam/m/ark/99999/wd", "mint 1"),
        (200, "s: 2\n\nnog-status: 0\n".into())
    );
    // Spec case 55 (nog_mint.t:125): add1 grows the template and goes on, status 0.
    dbcreate(
        &api.dir("minters/sam/ark/99999/ad"),
        &["--atlast", "add1", ".sd"],
    );
    let (code, body) = api.get(SAM, "/a/sam/m/ark/99999/ad", "mint 20");
    assert_eq!(code, 200);
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 20 + 1 + 1 + 1, "{body}");
    assert!(
        lines[..10].iter().all(|l| l.len() == "s: 0".len()),
        "{body}"
    );
    assert!(
        lines[10..20].iter().all(|l| l.len() == "s: 00".len()),
        "{body}"
    );
    assert_eq!(
        lines[20..],
        [
            "note: chars added (via add1) to template '.sd' to create '.sdd'",
            "",
            "nog-status: 0"
        ]
    );
    // The stopped minter's ten identifiers are stored as issued.
    let info = Command::new(noid_exe())
        .arg("-f")
        .arg(api.dir("minters/sam/ark/99999/sd"))
        .arg("dbinfo")
        .output()
        .unwrap();
    assert!(
        String::from_utf8(info.stdout)
            .unwrap()
            .contains("  :/oacounter: 10\n"),
        "ten identifiers issued"
    );
}

/// `GET /metrics` (docs/MONITORING.md): requests by populator and status, identifiers
/// minted, binder writes and failed writes per populator, each as the requests sent
/// here make them; a request that a front server forwarded is refused.
#[test]
fn metrics_count_requests_mints_binds_and_failed_writes() {
    let api = Api::start();
    let (code, minted) = api.get(SAM, "/a/sam/m/ark/99999/fk4", "mint 3");
    let ids = minted.lines().filter(|l| l.starts_with("s: ")).count();
    assert_eq!((code, ids), (200, 3), "{minted}");
    assert_eq!(api.get(SAM, "/a/sam/b", "a.set _t https://e.org/a").0, 200);
    let bulk = "x.set _t https://e.org/x\nx.set who W\nx.fetch who\n";
    assert_eq!(api.curl(SAM, "/a/sam/b", "-", Some(bulk), &[]).0, 200);
    assert_eq!(api.get(Some("sam:wrong"), "/a/sam/b", "a.fetch").0, 401);
    assert_eq!(api.get(Some("olga:pw"), "/a/sam/b", "a.fetch").0, 403);
    assert_eq!(api.get(Some("viewer:look"), "/a/ro/b", "y.set _t u").0, 403);
    assert_eq!(api.get(SAM, "/a/nobody/b", "a.fetch").0, 403);
    assert_eq!(api.get(SAM, "/nowhere", "").0, 404);
    // other's binder is gone: its store cannot be opened, nothing is written.
    std::fs::remove_dir_all(api.dir("binders/other/NOID")).unwrap();
    let (code, body) = api.get(Some("olga:pw"), "/a/other/b", "z.set _t u");
    assert_eq!(code, 200);
    assert!(body.ends_with("egg-status: 1\n"), "{body}");

    let (code, text) = api.get(None, "/metrics", "");
    assert_eq!(code, 200);
    let requests = "\
noid_api_requests_total{populator=\"-\",code=\"200\"} 0
noid_api_requests_total{populator=\"-\",code=\"401\"} 0
noid_api_requests_total{populator=\"-\",code=\"403\"} 1
noid_api_requests_total{populator=\"-\",code=\"404\"} 1
noid_api_requests_total{populator=\"-\",code=\"429\"} 0
noid_api_requests_total{populator=\"other\",code=\"200\"} 1
noid_api_requests_total{populator=\"other\",code=\"401\"} 0
noid_api_requests_total{populator=\"other\",code=\"403\"} 0
noid_api_requests_total{populator=\"other\",code=\"429\"} 0
noid_api_requests_total{populator=\"ro\",code=\"200\"} 0
noid_api_requests_total{populator=\"ro\",code=\"401\"} 0
noid_api_requests_total{populator=\"ro\",code=\"403\"} 1
noid_api_requests_total{populator=\"ro\",code=\"429\"} 0
noid_api_requests_total{populator=\"sam\",code=\"200\"} 3
noid_api_requests_total{populator=\"sam\",code=\"401\"} 1
noid_api_requests_total{populator=\"sam\",code=\"403\"} 1
noid_api_requests_total{populator=\"sam\",code=\"429\"} 0
";
    assert!(text.contains(requests), "{text}");
    for line in [
        "noid_api_minted_total{populator=\"sam\"} 3",
        "noid_api_minted_total{populator=\"ro\"} 0",
        // One single command and two of the bulk POST's lines wrote; a fetch does not.
        "noid_api_binds_total{populator=\"sam\"} 3",
        "noid_api_binds_total{populator=\"ro\"} 0",
        "noid_api_binds_total{populator=\"other\"} 0",
        "noid_api_write_failures_total{populator=\"other\",stage=\"open\"} 1",
        "noid_api_write_failures_total{populator=\"sam\",stage=\"open\"} 0",
        "noid_api_write_failures_total{populator=\"sam\",stage=\"commit\"} 0",
        // Work that reached a directory's thread: sam's set, ro's refused set, other's.
        "noid_api_command_duration_seconds_count{work=\"egg\"} 3",
        "noid_api_command_duration_seconds_count{work=\"bulk\"} 1",
        "noid_api_command_duration_seconds_count{work=\"mint\"} 1",
        "noid_console_sessions 0",
    ] {
        assert!(text.contains(&format!("\n{line}\n")), "{line}:\n{text}");
    }
    // Not through a front server.
    let forwarded = api.curl(None, "/metrics", "", None, &["X-Forwarded-For: 192.0.2.1"]);
    assert_eq!(forwarded, (404, "error: not found\n".into()));
}
