//! The prefix registry in the real `noidr`: truncated identifiers answer their record,
//! `*/ID` lists every provider, and with `--probe-interval` real local HTTP servers
//! stand for the providers: when the primary stops, redirects fail over to the second
//! provider, and come back when it returns (in the line protocol and over HTTP).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::eqnice;
use crate::util::{noidr_bin, Http, Minter, Noidr};

/// A provider: a real HTTP server on 127.0.0.1 answering `200` to every request, which
/// can be stopped (its port then refuses connections) and started again on that port.
struct Provider {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Provider {
    fn start() -> Provider {
        Provider::on(TcpListener::bind("127.0.0.1:0").unwrap())
    }

    fn on(l: TcpListener) -> Provider {
        let addr = l.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            for s in l.incoming() {
                if flag.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(mut s) = s else { continue };
                let mut got = Vec::new();
                let mut b = [0u8; 1024];
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                while !got.ends_with(b"\r\n\r\n") {
                    match s.read(&mut b) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => got.extend_from_slice(&b[..n]),
                    }
                }
                let _ = s.write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                );
            }
        });
        Provider {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    /// Stop accepting and close the port.
    fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        self.thread.take().unwrap().join().unwrap();
    }

    /// Serve again on the same port.
    fn restart(&mut self) {
        *self = Provider::on(TcpListener::bind(self.addr).unwrap());
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        if self.thread.is_some() {
            self.stop();
        }
    }
}

/// The registry file: `pdb:` with providers `one` (primary) and `two`, both probed, and
/// a NAAN with a shoulder.
fn registry(dir: &Path, one: SocketAddr, two: SocketAddr) -> std::path::PathBuf {
    let path = dir.join("registry.anvl");
    std::fs::write(
        &path,
        format!(
            "# providers are local test servers\n\
             prefix: pdb:\n\
             name: Protein Data Bank\n\
             provider: one http://{one}/structure/$id\n\
             provider: two http://{two}/entry/{{$id}}\n\
             probe: one http://{one}/health\n\
             probe: two http://{two}/health\n\
             \n\
             prefix: ark:/99999\n\
             name: Test NAAN\n\
             who: N2T\n\
             \n\
             prefix: ark:/99999/fk4\n\
             name: test shoulder\n"
        ),
    )
    .unwrap();
    path
}

/// Ask until `ask` gives `want` (or 120 s pass, a failure): the probes run on their own
/// schedule, so the test waits for the state change rather than timing it.
fn wait_for(what: &str, want: &str, mut ask: impl FnMut() -> String) {
    let start = Instant::now();
    loop {
        let got = ask();
        if got == want {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "{what}: still {got:?}, expected {want:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn line_protocol_fails_over_and_back() {
    let (mut one, two) = (Provider::start(), Provider::start());
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path(), one.addr, two.addr);
    let m = Minter::new();
    let reg = reg.to_str().unwrap();
    let mut r = Noidr::start(
        m.dbdir(),
        &[
            "--protocol",
            "egg",
            "--registry",
            reg,
            "--probe-interval",
            "0.2",
        ],
    );
    let primary = format!("redir302 http://{}/structure/2gc4", one.addr);
    let second = format!("redir302 http://{}/entry/2gc4", two.addr);
    eqnice!("pdb:2gc4", primary, r.ask("pdb:2gc4.resolve"));
    let list = format!(
        "inflect \"op=providers\" \"id=pdb:2gc4\" \"prefix=pdb:\" \
         \"target=http://{}/structure/2gc4\" \"target=http://{}/entry/2gc4\"",
        one.addr, two.addr
    );
    eqnice!("*/pdb:2gc4", list, r.ask("*/pdb:2gc4.resolve"));
    eqnice!(
        "ark:99999/",
        "inflect \"op=partial\" \"partial=ark:/99999\" \"name=Test%20NAAN\" \"who=N2T\" \
         \"below=ark:/99999/fk4\"",
        r.ask("ark:99999/.resolve")
    );

    one.stop();
    wait_for("after the primary stopped", &second, || {
        r.ask("pdb:2gc4.resolve")
    });
    eqnice!(
        "*/pdb:2gc4",
        format!("{list} \"down=one\""),
        r.ask("*/pdb:2gc4.resolve")
    );
    one.restart();
    wait_for("after the primary came back", &primary, || {
        r.ask("pdb:2gc4.resolve")
    });
    eqnice!("*/pdb:2gc4", list, r.ask("*/pdb:2gc4.resolve"));
    assert!(r.finish().success());
}

/// One HTTP/1.1 request on the unix socket: the whole response.
fn get(server: &Http, path: &str, accept: &str) -> String {
    server.get(path, &format!("Accept: {accept}\r\n"))
}

fn location(response: &str) -> String {
    let status = &response[9..12];
    let loc = response
        .split("\r\n")
        .find_map(|l| l.strip_prefix("location: "))
        .unwrap_or("");
    format!("{status} {loc}")
}

fn body(response: &str) -> &str {
    response.split_once("\r\n\r\n").unwrap().1
}

/// A browser's `Accept` (Chromium's).
const BROWSER: &str = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/// An HTML page's `main`, without the frame every page shares.
fn main_of(page: &str) -> &str {
    let start = page.find("<main>\n").expect("main") + 7;
    &page[start..page.find("</main>").expect("end of main")]
}

#[test]
fn http_pages_and_failover() {
    let (mut one, two) = (Provider::start(), Provider::start());
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path(), one.addr, two.addr);
    let m = Minter::new();
    m.bind(&[("ark:/99999/fk4", "who", "EZID")]);
    let sock = dir.path().join("noidr.sock");
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f").arg(m.dbdir()).arg("--registry").arg(&reg);
    cmd.args(["--probe-interval", "0.2", "--probe-timeout", "5"]);
    let mut server = Http::start(cmd, sock.to_str().unwrap());
    let primary = format!("302 http://{}/structure/2gc4", one.addr);
    let second = format!("302 http://{}/entry/2gc4", two.addr);
    assert_eq!(location(&get(&server, "/pdb:2gc4", "*/*")), primary);

    // Truncated forms: the record page in ANVL, JSON and HTML.
    for path in [
        "/ark:/99999",
        "/ark:99999",
        "/ark:/99999/",
        "/redirect/ARK:99999",
    ] {
        let r = get(&server, path, "*/*");
        assert!(r.starts_with("HTTP/1.1 200"), "{path}: {r}");
        assert_eq!(
            body(&r),
            "prefix: ark:/99999\nname: Test NAAN\nwho: N2T\n\nprefix: ark:/99999/fk4\nname: test shoulder\n",
            "{path}"
        );
    }
    // A shoulder alone: its record page and the store's bindings on it (was a 404).
    for path in [
        "/ark:/99999/fk4",
        "/ark:99999/fk4/",
        "/redirect/ark:/99999/fk4",
    ] {
        let r = get(&server, path, "*/*");
        assert!(r.starts_with("HTTP/1.1 200"), "{path}: {r}");
        assert_eq!(
            body(&r),
            "prefix: ark:/99999/fk4\nname: test shoulder\nwho: EZID\n",
            "{path}"
        );
    }
    assert_eq!(
        body(&get(&server, "/ark:/99999/fk4", "application/json")),
        "{\"prefix\":\"ark:/99999/fk4\",\"level\":\"shoulder\",\"name\":\"test shoulder\",\
         \"providers\":[],\"elements\":{},\"bindings\":{\"who\":\"EZID\"},\"below\":[]}\n"
    );
    let r = get(&server, "/ark:/99999", "application/json");
    assert!(r.contains("content-type: application/json\r\n"), "{r}");
    assert_eq!(
        body(&r),
        "{\"prefix\":\"ark:/99999\",\"level\":\"naan\",\"name\":\"Test NAAN\",\"who\":\"N2T\",\
         \"providers\":[],\"elements\":{},\"bindings\":{},\"below\":[{\"prefix\":\"ark:/99999/fk4\",\
         \"level\":\"shoulder\",\"name\":\"test shoulder\",\"providers\":[],\"elements\":{}}]}\n"
    );
    let r = get(
        &server,
        "/ark:/99999",
        "text/html,application/xhtml+xml,*/*;q=0.8",
    );
    assert!(
        r.contains("content-type: text/html; charset=utf-8\r\n"),
        "{r}"
    );
    assert_eq!(
        main_of(body(&r)),
        "<h1>ark:/99999</h1>\n<table>\n<tr><th scope=\"row\">level</th><td>naan</td></tr>\n\
         <tr><th scope=\"row\">name</th><td>Test NAAN</td></tr>\n\
         <tr><th scope=\"row\">who</th><td>N2T</td></tr>\n</table>\n\
         <h2>Records below</h2>\n<ul>\n\
         <li><a href=\"/ark:/99999/fk4\">ark:/99999/fk4</a>: test shoulder</li>\n</ul>\n"
    );
    let r = get(&server, "/pdb:", "*/*");
    assert_eq!(
        body(&r),
        format!(
            "prefix: pdb:\nname: Protein Data Bank\nprovider: one http://{0}/structure/$id\n\
             provider: two http://{1}/entry/{{$id}}\nprimary: one\nprobe: one http://{0}/health\n\
             probe: two http://{1}/health\n",
            one.addr, two.addr
        )
    );
    // No record: a truncated id with nothing bound is not found, as before.
    assert!(get(&server, "/doi:10.5072", "*/*").starts_with("HTTP/1.1 404"));

    // `*/`: every provider's target.
    let anvl = format!(
        "id: pdb:2gc4\nprefix: pdb:\nprovider: one http://{}/structure/2gc4\n\
         provider: two http://{}/entry/2gc4\nprimary: one\n",
        one.addr, two.addr
    );
    let r = get(&server, "/*/pdb:2gc4", "*/*");
    assert!(r.starts_with("HTTP/1.1 200"), "{r}");
    assert_eq!(body(&r), anvl);
    let (one_addr, two_addr) = (one.addr, two.addr);
    let json = |healthy_one: bool| {
        format!(
            "{{\"id\":\"pdb:2gc4\",\"prefix\":\"pdb:\",\"providers\":[\
             {{\"code\":\"one\",\"target\":\"http://{}/structure/2gc4\",\"primary\":true,\"healthy\":{healthy_one}}},\
             {{\"code\":\"two\",\"target\":\"http://{}/entry/2gc4\",\"primary\":false,\"healthy\":true}}]}}\n",
            one_addr, two_addr
        )
    };
    assert_eq!(
        body(&get(&server, "/*/pdb:2gc4", "application/json")),
        json(true)
    );

    one.stop();
    wait_for("after the primary stopped", &second, || {
        location(&get(&server, "/pdb:2gc4", "*/*"))
    });
    assert_eq!(
        body(&get(&server, "/*/pdb:2gc4", "application/json")),
        json(false)
    );
    assert_eq!(
        body(&get(&server, "/*/pdb:2gc4", "*/*")),
        format!("{anvl}down: one\n")
    );
    // The HTML pages: the record page links each provider's site, the provider list
    // says which is down.
    assert_eq!(
        main_of(body(&get(&server, "/pdb:", BROWSER))),
        format!(
            "<h1>pdb:</h1>\n<table>\n<tr><th scope=\"row\">level</th><td>scheme</td></tr>\n\
             <tr><th scope=\"row\">name</th><td>Protein Data Bank</td></tr>\n</table>\n\
             <h2>Providers</h2>\n<ul>\n\
             <li>one: <a href=\"http://{0}/\">http://{0}/structure/$id</a>, primary</li>\n\
             <li>two: <a href=\"http://{1}/\">http://{1}/entry/{{$id}}</a></li>\n</ul>\n",
            one_addr, two_addr
        )
    );
    assert_eq!(
        main_of(body(&get(&server, "/*/pdb:2gc4", BROWSER))),
        format!(
            "<h1>pdb:2gc4</h1>\n<p>Its target at every provider of <a href=\"/pdb:\">pdb:</a>, \
             in failover order.</p>\n<h2>Providers</h2>\n<ul>\n\
             <li>one: <a href=\"http://{0}/structure/2gc4\">http://{0}/structure/2gc4</a> — \
             <span class=\"bad\">down</span>, primary</li>\n\
             <li>two: <a href=\"http://{1}/entry/2gc4\">http://{1}/entry/2gc4</a> — up</li>\n</ul>\n",
            one_addr, two_addr
        )
    );
    one.restart();
    wait_for("after the primary came back", &primary, || {
        location(&get(&server, "/pdb:2gc4", "*/*"))
    });
    assert!(server.stop().success());
}

#[test]
fn registry_file_is_checked_and_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reg");
    std::fs::write(
        &path,
        "prefix: PDB:\nprovider: b https://b.org/$id\nprovider: a https://a.org/{$id}\nprimary: a\n\n\
         # NAAN\nprefix: ark:99999\nname: Test\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(noidr_bin())
            .arg("--registry")
            .arg(&path)
            .args(args)
            .env_clear()
            .output()
            .unwrap()
    };
    let out = run(&["--check-registry"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!(
            "{}: ok: 2 records (1 schemes, 1 NAANs or prefixes, 0 shoulders), 2 providers, 0 probed\n",
            path.display()
        )
    );
    let out = run(&["--write-registry", "-"]);
    assert!(out.status.success(), "{out:?}");
    let canonical = "# noid prefix registry: ANVL records separated by blank lines \
         (docs/RESOLUTION.md, \"The prefix registry\").\n\n\
         prefix: ark:/99999\nname: Test\n\n\
         prefix: pdb:\nprovider: b https://b.org/$id\nprovider: a https://a.org/{$id}\nprimary: a\n";
    assert_eq!(String::from_utf8(out.stdout).unwrap(), canonical);
    let written = dir.path().join("out");
    let out = run(&["--write-registry", written.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_to_string(&written).unwrap(), canonical);

    // A bad file: status 2, the line named, nothing on stdout, nothing written.
    std::fs::write(
        &path,
        "prefix: pdb:\nprovider: a https://a.org/$id\nprimary: z\n",
    )
    .unwrap();
    let out = run(&["--write-registry", written.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "noidr: error: bad registry file {}: line 3: primary \"z\" is not a provider of pdb:\n",
            path.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&written).unwrap(), canonical);
    let out = run(&["--check-registry"]);
    assert_eq!(out.status.code(), Some(2));
    // --probe-interval needs a registry; a bad interval is refused.
    let out = Command::new(noidr_bin())
        .args(["--probe-interval", "1"])
        .env_clear()
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "noidr: error: --probe-interval needs --registry (the providers to probe)\n"
    );
}

/// SIGHUP re-reads the registry: a file that no longer reads is reported and the
/// registry in force kept; a good one is put in force.
#[test]
fn sighup_rereads_the_registry() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("reg");
    std::fs::write(&reg, "prefix: pdb:\nprovider: a https://v1.org/$id\n").unwrap();
    let m = Minter::new();
    let mut child = Command::new(noidr_bin())
        .arg("-f")
        .arg(m.dbdir())
        .args(["--protocol", "egg", "--registry"])
        .arg(&reg)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    std::thread::spawn(move || {
        for line in stderr.lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut r = Noidr {
        stdin: child.stdin.take(),
        stdout: child.stdout.take().map(std::io::BufReader::new),
        child,
    };
    let hup = |pid: u32| {
        let st = Command::new("kill")
            .args(["-HUP", &pid.to_string()])
            .status()
            .unwrap();
        assert!(st.success());
    };
    eqnice!("pdb:1", "redir302 https://v1.org/1", r.ask("pdb:1.resolve"));

    std::fs::write(&reg, "prefix: pdb:\nprovider: a\n").unwrap();
    hup(r.child.id());
    let kept = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("noidr reports the bad file");
        if line.contains("the rules and registry in force are kept") {
            break line;
        }
    };
    assert!(
        kept.contains(&format!(
            "bad registry file {}: line 2: expected \"provider: CODE URL-PATTERN\"",
            reg.display()
        )),
        "{kept}"
    );
    eqnice!("pdb:1", "redir302 https://v1.org/1", r.ask("pdb:1.resolve"));

    std::fs::write(&reg, "prefix: pdb:\nprovider: a https://v2.org/{$id}\n").unwrap();
    hup(r.child.id());
    wait_for("after SIGHUP", "redir302 https://v2.org/1", || {
        r.ask("pdb:1.resolve")
    });
    assert!(r.finish().success());
}
