//! The binder and minter HTTP API through the real binaries: `noid serve` on
//! 127.0.0.1, real `curl`, binders and minters made by `noid dbcreate`, and the same
//! stores read back with `noid`. Expected outputs come from the spec's case list
//! (`../shared/spec-binder-api.md`) and from the CLI minting the same minter.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::{noid_exe, Dir};

/// A running `noid serve` with two populators: `sam` (binder + minters, password file
/// with `sam`/`secret`), `ro` (read-only view of the same binder, login `viewer`),
/// `other` (its own binder, login `olga`).
struct Api {
    child: Child,
    port: u16,
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
    fn start() -> Api {
        Api::start_with("")
    }

    fn start_with(extra: &str) -> Api {
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
        let config = format!(
            r#"{extra}
[populator.sam]
htpasswd = "{r}/pwd_sam"
binder = "{r}/binders/sam"
minters = "{r}/minters/sam"

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
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(noid_exe())
            .args(["serve", "--http", &format!("127.0.0.1:{port}"), "--config"])
            .arg(r.join("api.toml"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let start = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "noid serve did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Api { child, port, root }
    }

    fn dir(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// `curl` a path (query given unencoded; it is %-encoded here) as `user`; returns (status, body).
    fn get(&self, user: Option<&str>, path: &str, query: &str) -> (u16, String) {
        self.curl(user, path, query, None, &[])
    }

    fn curl(
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
        "/a/nobody/b",
        "/a/sam/m/ark/99999/nosuch",
    ] {
        let (code, _) = api.get(SAM, path, "mint 1");
        assert_eq!(code, 404, "{path}");
    }
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
        format!("Status: 200 OK\r\n{head}moo: cow\nmoo: calf\n\negg-status: 0\n")
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
}
