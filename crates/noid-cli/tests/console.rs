//! The populator console (`/console/`) through the real binaries: `noid serve` on
//! 127.0.0.1 (the API tests' populators: `sam` with binder and minter, `ro` read-only
//! on the same binder, `other` with its own binder), real `curl` keeping cookies in a
//! jar as a browser does, and the stores read back with the `noid` CLI. Expected
//! identifiers come from the CLI minting an identical minter; expected write log
//! lines from the write log's documented layout.

use std::path::PathBuf;
use std::process::Command;

use crate::api::Api;
use crate::util::{noid_exe, Dir};

/// Among a request's extra headers: send the form as `multipart/form-data` (as a form
/// with a file field is sent).
const MULTIPART: &str = "multipart";

/// One browser: a cookie jar.
pub(crate) struct Browser {
    pub(crate) jar: PathBuf,
    port: u16,
    /// Extra request headers.
    headers: Vec<String>,
}

/// A response: status, headers (lower-case names), body.
#[derive(Debug)]
pub(crate) struct Page {
    pub(crate) status: u16,
    headers: Vec<(String, String)>,
    pub(crate) body: String,
}

impl Page {
    /// A response read some other way (a file upload's, by its own `curl`).
    pub(crate) fn new(status: u16, body: String) -> Page {
        Page {
            status,
            headers: Vec::new(),
            body,
        }
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first form token on the page.
    pub(crate) fn token(&self) -> String {
        let at = self
            .body
            .find("name=\"csrf\" value=\"")
            .expect("a form token")
            + 19;
        self.body[at..at + 64].to_string()
    }
}

impl Browser {
    pub(crate) fn new(api: &Api, name: &str) -> Browser {
        Browser {
            jar: api.dir(&format!("jar-{name}")),
            port: api.port,
            headers: Vec::new(),
        }
    }

    pub(crate) fn request(
        &self,
        path: &str,
        form: Option<&[(&str, &str)]>,
        extra: &[&str],
    ) -> Page {
        let mut cmd = Command::new("curl");
        cmd.args(["-s", "-i", "--path-as-is", "-c"])
            .arg(&self.jar)
            .arg("-b")
            .arg(&self.jar);
        for h in self
            .headers
            .iter()
            .map(String::as_str)
            .chain(extra.iter().copied())
            .filter(|h| *h != MULTIPART)
        {
            cmd.args(["-H", h]);
        }
        // `MULTIPART` among the extras: the form as multipart/form-data.
        let multipart = extra.contains(&MULTIPART);
        for (k, v) in form.unwrap_or(&[]) {
            let how = if multipart {
                "--form-string"
            } else {
                "--data-urlencode"
            };
            cmd.arg(how).arg(format!("{k}={v}"));
        }
        if form == Some(&[]) {
            cmd.args(["-X", "POST"]);
        }
        let out = cmd
            .arg(format!("http://127.0.0.1:{}{path}", self.port))
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(": "))
            .map(|(n, v)| (n.to_ascii_lowercase(), v.to_string()))
            .collect();
        Page {
            status,
            headers,
            body: body.to_string(),
        }
    }

    pub(crate) fn get(&self, path: &str) -> Page {
        self.request(path, None, &[])
    }

    pub(crate) fn post(&self, path: &str, fields: &[(&str, &str)]) -> Page {
        self.request(path, Some(fields), &[])
    }

    /// Log in with the login form.
    pub(crate) fn login(&self, populator: &str, login: &str, password: &str) -> Page {
        let token = self.get("/console/login").token();
        self.post(
            "/console/login",
            &[
                ("csrf", &token),
                ("populator", populator),
                ("login", login),
                ("password", password),
            ],
        )
    }

    /// The value of cookie `name` in the jar.
    fn cookie(&self, name: &str) -> Option<String> {
        let jar = std::fs::read_to_string(&self.jar).ok()?;
        jar.lines()
            .filter(|l| !l.starts_with('#') || l.starts_with("#HttpOnly_"))
            .filter_map(|l| l.rsplit_once('\t'))
            .find(|(before, _)| before.ends_with(&format!("\t{name}")))
            .map(|(_, v)| v.to_string())
    }

    /// The logged-in session's id.
    fn session_id(&self) -> Option<String> {
        self.cookie("noid_console")
    }
}

fn noid_get(api: &Api, binder: &str, id: &str, elem: &str) -> String {
    let out = Command::new(noid_exe())
        .arg("-f")
        .arg(api.dir(binder))
        .args(["get", id, elem])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

fn write_log(api: &Api, binder: &str) -> String {
    std::fs::read_to_string(api.dir(binder).join("write.log")).unwrap_or_default()
}

#[test]
fn login_mint_bind_edit_purge_logout() {
    let api = Api::start();
    let b = Browser::new(&api, "sam");
    // A page of a populator without a session: to the login form, no session started.
    let p = b.get("/console/p/sam/");
    assert_eq!(
        (p.status, p.header("location")),
        (303, Some("/console/login"))
    );
    assert_eq!(p.header("set-cookie"), None);
    b.get("/console/login");
    let before = b
        .cookie("noid_console_login")
        .expect("the login form's session");
    let p = b.login("sam", "sam", "secret");
    assert_eq!(
        (p.status, p.header("location")),
        (303, Some("/console/p/sam/"))
    );
    let after = b.session_id().unwrap();
    assert_ne!(before, after, "logging in starts a new session");
    assert_eq!(
        b.cookie("noid_console_login"),
        None,
        "the login form's session ended"
    );
    let home = b.get("/console/p/sam/");
    assert_eq!(home.status, 200);
    assert!(home
        .body
        .contains("<li>ark/99999/fk4 · <a href=\"/console/p/sam/mint?minter=ark%2F99999%2Ffk4\">"));

    // Mint 3 with a target each: the identifiers the CLI mints from the same minter.
    let token = b.get("/console/p/sam/mint").token();
    let p = b.post(
        "/console/p/sam/mint",
        &[
            ("csrf", &token),
            ("minter", "ark/99999/fk4"),
            ("n", "3"),
            ("target", "https://example.org/$id"),
        ],
    );
    assert_eq!(
        (p.status, p.header("location")),
        (303, Some("/console/p/sam/minted?n=1")),
        "{}",
        p.body
    );
    let p = b.get("/console/p/sam/minted?n=1");
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p
        .body
        .contains("Minted 3 from ark/99999/fk4 and bound their targets."));
    assert!(
        !p.body.contains("at the resolver"),
        "no resolver link without [console] resolver"
    );
    let twin = Dir::minter(&["fk4.reedeedk", "long", "99999", "example.org", "test"]);
    let expected = twin.mint(3);
    for id in &expected {
        assert!(
            p.body.contains(&format!(">ark:/{id}</a></li>")),
            "{id} in {}",
            p.body
        );
        // Stored in the binder's spelling (the identifier gate): `ark:/NAAN/…`.
        assert_eq!(
            noid_get(&api, "binders/sam", &format!("ark:/{id}"), "_t"),
            format!("https://example.org/{id}\n")
        );
    }
    let log = write_log(&api, "binders/sam");
    let first: Vec<&str> = log.lines().next().unwrap().split('\t').collect();
    assert_eq!(
        first[1..5],
        [
            "127.0.0.1",
            "sam",
            "sam",
            format!(
                ":hx ark^3a/{}.set _t https^3a//example.org/{}",
                expected[0], expected[0]
            )
            .as_str()
        ]
    );

    // Edit the kernel: standing goes from missing everything to good.
    let id = &expected[0];
    let stored = format!("ark:/{id}");
    let page = format!("/console/p/sam/id?id={}", id.replace('/', "%2F"));
    let p = b.get(&page);
    assert!(p
        .body
        .contains("Standing: not good: missing who, what, when, how."));
    let token = p.token();
    let mut fields = vec![
        ("csrf", token.as_str()),
        ("id", id.as_str()),
        ("_t", "https://example.org/moved"),
        ("who-code", "unkn"),
        ("who", ""),
        ("what", "A <b>title</b>"),
        ("when-code", "tba"),
        ("how", "text article"),
        ("action", "check"),
    ];
    let p = b.post("/console/p/sam/id", &fields);
    assert!(p.body.contains("Standing: good"), "{}", p.body);
    assert!(p.body.contains("value=\"A &lt;b&gt;title&lt;/b&gt;\""));
    assert_eq!(
        noid_get(&api, "binders/sam", &stored, "who"),
        "\n",
        "check writes nothing"
    );
    fields.last_mut().unwrap().1 = "save";
    let p = b.post("/console/p/sam/id", &fields);
    assert_eq!(p.status, 303, "{}", p.body);
    assert_eq!(noid_get(&api, "binders/sam", &stored, "who"), "(:unkn)\n");
    assert_eq!(noid_get(&api, "binders/sam", &stored, "when"), "(:tba)\n");
    assert_eq!(
        noid_get(&api, "binders/sam", &stored, "what"),
        "A <b>title</b>\n"
    );
    assert_eq!(
        noid_get(&api, "binders/sam", &stored, "_t"),
        "https://example.org/moved\n"
    );
    let p = b.get(&page);
    assert!(p.body.contains("Standing: good"));
    assert!(p
        .body
        .contains("<option value=\"unkn\" selected>(:unkn) known to be unknown"));

    // Browse by prefix, a page at a time.
    let p = b.get("/console/p/sam/browse?prefix=99999%2Ffk4");
    let mut sorted = expected.clone();
    sorted.sort();
    let listed: Vec<&str> = p
        .body
        .lines()
        .filter(|l| l.starts_with("<li><a href=\"/console/p/sam/id?"))
        .collect();
    assert_eq!(listed.len(), 3, "{}", p.body);
    assert!(listed[0].ends_with(&format!(">ark:/{}</a></li>", sorted[0])));

    // Purge, after the confirmation page.
    let p = b.get(&format!(
        "/console/p/sam/purge?id={}",
        id.replace('/', "%2F")
    ));
    assert!(p.body.contains("(5 bound now)"), "{}", p.body);
    let token = p.token();
    let p = b.post(
        "/console/p/sam/purge",
        &[("csrf", &token), ("id", id), ("confirm", id)],
    );
    assert!(p.body.contains(&format!("Purged {id}.")));
    assert_eq!(noid_get(&api, "binders/sam", &stored, "_t"), "\n");
    let log = write_log(&api, "binders/sam");
    let last: Vec<&str> = log.lines().last().unwrap().split('\t').collect();
    // A typed command's record: what was received is the command itself.
    let purge = format!(":hx ark^3a/{id}.purge");
    assert_eq!(
        last[4..7],
        [
            purge.as_str(),
            &purge
                .replace('^', "^5e")
                .replace(':', "^3a")
                .replace(' ', "^20"),
            "-"
        ]
    );
    // What the purge removed, every element in name order (the creation time varies),
    // and no operation.
    assert!(last[7].starts_with("=_,ec|"), "{}", last[7]);
    assert!(
        last[7].ends_with(
            " _,ep|p^3asam^7c^7c76 _t|https^3a//example.org/moved how|text^20article \
             what|A^20^3cb>title^3c/b> when|(^3atba) who|(^3aunkn)"
        ),
        "{}",
        last[7]
    );
    assert_eq!(last[8], "-");

    // Logout ends the session: its cookie, and the session itself on the server.
    let old = b.session_id().unwrap();
    let token = b.get("/console/p/sam/").token();
    let p = b.post("/console/logout", &[("csrf", &token)]);
    assert_eq!(
        (p.status, p.header("location")),
        (303, Some("/console/login"))
    );
    assert!(p
        .header("set-cookie")
        .unwrap()
        .starts_with("noid_console=; Max-Age=0;"));
    let replay = Browser {
        headers: vec![format!("Cookie: noid_console={old}")],
        jar: api.dir("jar-none"),
        port: api.port,
    };
    let p = replay.get("/console/p/sam/");
    assert_eq!(
        (p.status, p.header("location")),
        (303, Some("/console/login"))
    );
}

#[test]
fn forged_forms_are_refused() {
    let api = Api::start();
    let b = Browser::new(&api, "sam");
    b.login("sam", "sam", "secret");
    let eve = Browser::new(&api, "eve");
    eve.login("sam", "sam", "secret");
    let theirs = eve.get("/console/p/sam/").token();
    let mine = b.get("/console/p/sam/").token();
    assert_ne!(mine, theirs);
    let save = |token: Option<&str>| {
        let mut f = vec![
            ("id", "x1"),
            ("_t", "https://evil.example"),
            ("action", "save"),
        ];
        if let Some(t) = token {
            f.push(("csrf", t));
        }
        b.post("/console/p/sam/id", &f)
    };
    for (why, token) in [
        ("missing", None),
        ("wrong", Some("0".repeat(64))),
        ("another session's", Some(theirs.clone())),
    ] {
        let p = save(token.as_deref());
        assert_eq!(p.status, 403, "{why} token");
        assert!(p.body.contains("This form is not from your session"));
    }
    // The login form and logout are forms too.
    let p = Browser::new(&api, "fresh").post(
        "/console/login",
        &[
            ("populator", "sam"),
            ("login", "sam"),
            ("password", "secret"),
        ],
    );
    assert_eq!(p.status, 403);
    assert_eq!(b.post("/console/logout", &[("csrf", &theirs)]).status, 403);
    assert_eq!(b.get("/console/p/sam/").status, 200, "still logged in");
    assert_eq!(noid_get(&api, "binders/sam", "x1", "_t"), "\n");
    assert_eq!(write_log(&api, "binders/sam"), "");
    // The right token writes.
    assert_eq!(save(Some(&mine)).status, 303);
    assert_eq!(
        noid_get(&api, "binders/sam", "x1", "_t"),
        "https://evil.example\n"
    );
    // A multipart form (an upload's) is checked the same way.
    let fields = [
        ("id", "x2"),
        ("_t", "https://m.example"),
        ("action", "save"),
    ];
    let p = b.request("/console/p/sam/id", Some(&fields), &[MULTIPART]);
    assert_eq!(p.status, 403, "multipart without a token");
    let with: Vec<(&str, &str)> = [("csrf", mine.as_str())]
        .into_iter()
        .chain(fields)
        .collect();
    let p = b.request("/console/p/sam/id", Some(&with), &[MULTIPART]);
    assert_eq!(p.status, 303, "multipart with the token: {}", p.body);
    assert_eq!(
        noid_get(&api, "binders/sam", "x2", "_t"),
        "https://m.example\n"
    );
}

#[test]
fn another_populators_binder_is_refused() {
    let api = Api::start();
    let b = Browser::new(&api, "sam");
    // olga's login is for populator other, not sam.
    let p = b.login("sam", "olga", "pw");
    assert_eq!(p.status, 401);
    assert!(p.body.contains("Login failed"));
    b.login("sam", "sam", "secret");
    let token = b.get("/console/p/sam/").token();
    for page in [
        "/console/p/other/",
        "/console/p/other/browse",
        "/console/p/other/id?id=x",
    ] {
        let p = b.get(page);
        assert_eq!(p.status, 403, "{page}");
        assert!(p.body.contains("You are logged in for another populator"));
    }
    let p = b.post(
        "/console/p/other/id",
        &[
            ("csrf", &token),
            ("id", "x"),
            ("_t", "https://x"),
            ("action", "save"),
        ],
    );
    assert_eq!(p.status, 403);
    assert_eq!(noid_get(&api, "binders/other", "x", "_t"), "\n");
    // A read-only populator's login sees the binder and cannot write it.
    let ro = Browser::new(&api, "ro");
    ro.login("ro", "viewer", "look");
    let token = ro.get("/console/p/ro/").token();
    let p = ro.post(
        "/console/p/ro/id",
        &[
            ("csrf", &token),
            ("id", "y"),
            ("_t", "https://y"),
            ("action", "save"),
        ],
    );
    assert!(
        p.body
            .contains("Not saved: 403 forbidden: read-only access"),
        "{}",
        p.body
    );
    assert_eq!(noid_get(&api, "binders/sam", "y", "_t"), "\n");
}

#[test]
fn cookie_attributes_basic_login_and_expiry() {
    let api =
        Api::start_with("[front]\nsecret = \"s3cret-front\"\n\n[console]\nsession_idle = 1\n");
    let b = Browser::new(&api, "plain");
    let p = b.get("/console/login");
    let id = b.cookie("noid_console_login").unwrap();
    assert_eq!(
        p.header("set-cookie"),
        Some(
            format!("noid_console_login={id}; Path=/console/; HttpOnly; SameSite=Strict").as_str()
        )
    );
    assert_eq!(p.header("cache-control"), Some("no-store"));
    // Behind the front server, which says the browser uses TLS: Secure.
    let tls = Browser {
        headers: vec![
            "X-Noid-Front-Secret: s3cret-front".into(),
            "X-Forwarded-Proto: https".into(),
        ],
        ..Browser::new(&api, "tls")
    };
    let p = tls.get("/console/login");
    let set = p.header("set-cookie").unwrap();
    let tls_id = set
        .strip_prefix("__Host-noid_console_login=")
        .and_then(|v| v.split_once(';'))
        .map(|(id, _)| id.to_string())
        .unwrap_or_else(|| panic!("{set}"));
    assert_eq!(
        set,
        format!("__Host-noid_console_login={tls_id}; Path=/; HttpOnly; SameSite=Strict; Secure")
    );
    // Over TLS the prefixed cookie names the session (no new one is given), and a
    // plain one, which a page over plain HTTP may have set, does not. (Each from a
    // browser of its own: nothing in a cookie jar but the cookie given.)
    let tls_browser = |jar: &str| Browser {
        headers: tls.headers.clone(),
        ..Browser::new(&api, jar)
    };
    let p = tls_browser("tls-prefixed").request(
        "/console/login",
        None,
        &[&format!("Cookie: __Host-noid_console_login={tls_id}")],
    );
    assert_eq!(p.header("set-cookie"), None);
    let p = tls_browser("tls-plain").request(
        "/console/login",
        None,
        &[&format!("Cookie: noid_console_login={tls_id}")],
    );
    assert!(p
        .header("set-cookie")
        .is_some_and(|c| c.starts_with("__Host-noid_console_login=")));
    // Anyone else saying so is not believed.
    let p =
        Browser::new(&api, "liar").request("/console/login", None, &["X-Forwarded-Proto: https"]);
    assert!(!p.header("set-cookie").unwrap().contains("Secure"));

    // HTTP Basic: 401 asks for credentials; good ones give a session, which lives
    // while requests come less than session_idle (1 s) apart. The bounds come from
    // the test's own clock around the requests: the server saw the login after
    // `sent` and the next request before `answered`, so a session it ended with
    // less than a second between those two was ended too early; more than a second
    // (a loaded machine) proves nothing, and the pair is tried again.
    let idle = std::time::Duration::from_secs(1);
    let basic = Browser::new(&api, "basic");
    let p = basic.get("/console/basic/sam");
    assert_eq!(p.status, 401);
    assert_eq!(
        p.header("www-authenticate"),
        Some("Basic realm=\"noid console: sam\"")
    );
    let mut tries = 0;
    let last_request = loop {
        let sent = std::time::Instant::now();
        let p = basic.request(
            "/console/basic/sam",
            None,
            &["Authorization: Basic c2FtOnNlY3JldA=="],
        );
        assert_eq!(
            (p.status, p.header("location")),
            (303, Some("/console/p/sam/"))
        );
        let status = basic.get("/console/p/sam/").status;
        let answered = std::time::Instant::now();
        if status == 200 {
            break answered;
        }
        assert!(
            answered - sent >= idle,
            "a session ended {:?} after its login",
            answered - sent
        );
        tries += 1;
        assert!(tries < 10, "never two requests within session_idle");
    };
    // The session ends after session_idle without a request: the server saw the last
    // one before `last_request`.
    std::thread::sleep(idle.saturating_sub(last_request.elapsed()));
    let p = basic.get("/console/p/sam/");
    assert_eq!(
        (p.status, p.header("location")),
        (303, Some("/console/login"))
    );
}

/// Withdrawing is a page of its own (a reason, a successor) and the identifier's page
/// says it is withdrawn; purging needs the identifier typed to confirm (issue 41,
/// item 5).
#[test]
fn withdraw_with_a_reason_and_purge_after_typing_the_identifier() {
    let api = Api::start();
    let b = Browser::new(&api, "sam");
    b.login("sam", "sam", "secret");
    let id = "ark:/99999/fk4gone";
    let bulk = ":hx ark^3a/99999/fk4gone.set _t https^3a//example.org/x\n\
                :hx ark^3a/99999/fk4gone.set what A^20title\n";
    assert_eq!(api.post_as("sam:secret", "/a/sam/b", "-", bulk).0, 200);
    let q = "ark%3A%2F99999%2Ffk4gone";
    let page = b.get(&format!("/console/p/sam/id?id={q}"));
    assert!(!page.body.contains("id=\"withdrawn\""));
    assert!(page.body.contains(&format!(
        "<a href=\"/console/p/sam/withdraw?id={q}\">Withdraw this identifier…</a>"
    )));

    // No reason: refused, nothing written.
    let form = b.get(&format!("/console/p/sam/withdraw?id={q}"));
    assert!(
        form.body
            .contains("(now <code>https://example.org/x</code>)"),
        "{}",
        form.body
    );
    let token = form.token();
    let p = b.post(
        "/console/p/sam/withdraw",
        &[
            ("csrf", &token),
            ("id", id),
            ("reason", " "),
            ("successor", ""),
        ],
    );
    assert_eq!(p.status, 422);
    assert!(p
        .body
        .contains("Give a reason: readers see it on the tombstone page."));
    assert_eq!(
        noid_get(&api, "binders/sam", id, "_t"),
        "https://example.org/x\n"
    );

    let p = b.post(
        "/console/p/sam/withdraw",
        &[
            ("csrf", &token),
            ("id", id),
            ("reason", "duplicate of fk4kept"),
            ("successor", "ark:/99999/fk4kept"),
        ],
    );
    assert_eq!(
        (p.status, p.header("location")),
        (303, Some(format!("/console/p/sam/id?id={q}").as_str()))
    );
    assert_eq!(
        noid_get(&api, "binders/sam", id, "_t"),
        "410 duplicate of fk4kept\n"
    );
    assert_eq!(
        noid_get(&api, "binders/sam", id, "successor"),
        "ark:/99999/fk4kept\n"
    );
    assert_eq!(noid_get(&api, "binders/sam", id, "what"), "A title\n");
    let page = b.get(&format!("/console/p/sam/id?id={q}"));
    assert!(page.body.contains(
        "<div class=\"notice error\" role=\"status\" id=\"withdrawn\">\n<p><strong>Withdrawn.</strong> Reason: duplicate of fk4kept</p>\n\
         <p>Successor: <a href=\"/console/p/sam/id?id=ark%3A%2F99999%2Ffk4kept\">ark:/99999/fk4kept</a></p>"
    ), "{}", page.body);

    // Purge: the identifier typed wrong is refused and nothing is removed.
    let token = b.get(&format!("/console/p/sam/purge?id={q}")).token();
    let p = b.post(
        "/console/p/sam/purge",
        &[
            ("csrf", &token),
            ("id", id),
            ("confirm", "ark:/99999/fk4gon"),
        ],
    );
    assert_eq!(p.status, 422);
    assert!(p
        .body
        .contains("Not purged: the identifier typed to confirm is not this one."));
    assert_eq!(noid_get(&api, "binders/sam", id, "what"), "A title\n");
    let p = b.post(
        "/console/p/sam/purge",
        &[("csrf", &token), ("id", id), ("confirm", id)],
    );
    assert!(p.body.contains(&format!("Purged {id}.")));
    assert_eq!(noid_get(&api, "binders/sam", id, "what"), "\n");
}

/// `:/oacounter` of minter directory `dir`, as `noid dbinfo` reports it: how many
/// identifiers the minter has issued.
fn issued(api: &Api, dir: &str) -> String {
    let out = Command::new(noid_exe())
        .arg("-f")
        .arg(api.dir(dir))
        .arg("dbinfo")
        .output()
        .unwrap();
    let info = String::from_utf8(out.stdout).unwrap();
    info.lines()
        .find_map(|l| l.strip_prefix("  :/oacounter: "))
        .unwrap_or_else(|| panic!("no counter in {info}"))
        .to_string()
}

/// The mint form answers with a redirect to its result, kept by the service: a reload
/// mints nothing; each identifier is shown in full with its resolver link, all of them
/// in a text area and a download; identifiers minted without a target are listed in
/// Browse (issue 41, item 4).
#[test]
fn mint_result_survives_a_reload_and_unbound_ids_are_browsable() {
    let api = Api::start_with("[console]\nresolver = \"https://n2t.example.org\"\n");
    let b = Browser::new(&api, "sam");
    b.login("sam", "sam", "secret");
    let token = b.get("/console/p/sam/mint").token();
    let form = [
        ("csrf", token.as_str()),
        ("minter", "ark/99999/fk4"),
        ("n", "2"),
        ("target", ""),
    ];
    let p = b.post("/console/p/sam/mint", &form);
    assert_eq!(
        (p.status, p.header("location")),
        (303, Some("/console/p/sam/minted?n=1")),
        "{}",
        p.body
    );
    let twin = Dir::minter(&["fk4.reedeedk", "long", "99999", "example.org", "test"]);
    let expected = twin.mint(2);
    let full: Vec<String> = expected.iter().map(|id| format!("ark:/{id}")).collect();
    let shown = |p: &Page| {
        assert_eq!(p.status, 200, "{}", p.body);
        assert!(
            p.body.contains("Minted 2 from ark/99999/fk4."),
            "{}",
            p.body
        );
        for ark in &full {
            let link = format!(
                "<li><a href=\"/console/p/sam/id?id={}\">{ark}</a> · \
                 <a href=\"https://n2t.example.org/{ark}\">at the resolver</a></li>",
                ark.replace(':', "%3A").replace('/', "%2F")
            );
            assert!(p.body.contains(&link), "{link} in {}", p.body);
        }
        let area = format!(
            "<textarea id=\"all\" readonly rows=\"2\">{}</textarea>",
            full.join("\n")
        );
        assert!(p.body.contains(&area), "{area} in {}", p.body);
    };
    shown(&b.get("/console/p/sam/minted?n=1"));
    assert_eq!(issued(&api, "minters/sam/ark/99999/fk4"), "2");
    // Reloading shows the same identifiers and mints nothing.
    shown(&b.get("/console/p/sam/minted?n=1"));
    assert_eq!(issued(&api, "minters/sam/ark/99999/fk4"), "2");
    let text = b.get("/console/p/sam/minted.txt?n=1");
    assert_eq!(text.status, 200);
    assert_eq!(
        text.header("content-disposition"),
        Some("attachment; filename=\"minted-1.txt\"")
    );
    assert_eq!(text.body, format!("{}\n{}\n", full[0], full[1]));
    // Another populator's login does not see it; an unknown result says so.
    let olga = Browser::new(&api, "olga");
    olga.login("other", "olga", "pw");
    assert_eq!(olga.get("/console/p/other/minted?n=1").status, 404);
    let gone = b.get("/console/p/sam/minted?n=2");
    assert_eq!(gone.status, 404);
    assert!(gone.body.contains("This mint result is not kept"));

    // Nothing is bound to them, yet Browse lists them, marked, by any prefix spelling;
    // an identifier minted with a target is listed unmarked among them.
    assert_eq!(noid_get(&api, "binders/sam", &full[0], "_t"), "\n");
    let token = b.get("/console/p/sam/mint").token();
    let form = [
        ("csrf", token.as_str()),
        ("minter", "ark/99999/fk4"),
        ("n", "1"),
        ("target", "https://example.org/$id"),
    ];
    assert_eq!(b.post("/console/p/sam/mint", &form).status, 303);
    let bound = format!("ark:/{}", twin.mint(1)[0]);
    let mut all: Vec<(String, bool)> = full.iter().map(|a| (a.clone(), false)).collect();
    all.push((bound, true));
    all.sort();
    let expected_items: Vec<String> = all
        .iter()
        .map(|(ark, bound)| {
            format!(
                "<li><a href=\"/console/p/sam/id?id={}\">{ark}</a>{}</li>",
                ark.replace(':', "%3A").replace('/', "%2F"),
                if *bound {
                    ""
                } else {
                    " <span class=\"unbound\">(minted, nothing bound yet)</span>"
                }
            )
        })
        .collect();
    for prefix in ["99999%2Ffk4", "ark%3A%2F99999%2Ffk4", ""] {
        let p = b.get(&format!("/console/p/sam/browse?prefix={prefix}"));
        let items: Vec<&str> = p
            .body
            .lines()
            .filter(|l| l.starts_with("<li><a href=\"/console/p/sam/id?"))
            .collect();
        assert_eq!(items, expected_items, "prefix {prefix}");
    }
    // Paging goes on past a minted identifier.
    let p = b.get(&format!(
        "/console/p/sam/browse?prefix=&after={}",
        all[0].0.replace(':', "%3A").replace('/', "%2F")
    ));
    let items: Vec<&str> = p
        .body
        .lines()
        .filter(|l| l.starts_with("<li><a href=\"/console/p/sam/id?"))
        .collect();
    assert_eq!(items, expected_items[1..]);
}

/// Recent writes filtered by identifier (any spelling), login or populator, and day
/// (issue 41, item 8), on a write log of the documented layout with known days.
#[test]
fn recent_writes_filter_by_identifier_login_and_day() {
    let api = Api::start();
    let b = Browser::new(&api, "sam");
    b.login("sam", "sam", "secret");
    // EPOCH CLIENT POPULATOR AGENT COMMAND RECEIVED ACTING_FOR; days in UTC.
    let records = [
        // 2026-11-20 10:00:00
        "1795168800\t127.0.0.1\tsam\tsam\t:hx ark^3a/99999/fk4aa.set _t https^3a//example.org/a\tx\t-",
        // 2026-11-21 23:59:59
        "1795305599\t127.0.0.1\tsam\talice\t:hx ark^3a/99999/fk4bb.set what B\tx\t-",
        // 2026-11-22 00:00:00
        "1795305600\t127.0.0.1\tteam\tbob\t:hx ark^3a/99999/fk4aa.set what A\tx\t-",
        // 2026-11-23 12:00:00
        "1795435200\t127.0.0.1\tsam\tsam\t:hx ark^3a/13030/f54x54g11.set _t https^3a//example.org/m\tx\t-",
    ];
    std::fs::write(
        api.dir("binders/sam").join("write.log"),
        records.join("\n") + "\n",
    )
    .unwrap();
    let a1 = "2026-11-20 10:00:00|sam|ark:/99999/fk4aa|set _t";
    let b2 = "2026-11-21 23:59:59|alice (sam)|ark:/99999/fk4bb|set what";
    let c3 = "2026-11-22 00:00:00|bob (team)|ark:/99999/fk4aa|set what";
    let d4 = "2026-11-23 12:00:00|sam|ark:/13030/f54x54g11|set _t";
    let rows = |query: &str| -> Vec<String> {
        let p = b.get(&format!("/console/p/sam/writes?{query}"));
        assert_eq!(p.status, 200, "{query}: {}", p.body);
        p.body
            .lines()
            .filter(|l| l.starts_with("<tr><td data-label=\"When (UTC)\">"))
            .map(|l| {
                let cells: Vec<&str> = l
                    .split("<td data-label=\"")
                    .skip(1)
                    .map(|c| {
                        let c = &c[c.find("\">").unwrap() + 2..c.find("</td>").unwrap()];
                        // The identifier's cell is a link: its text.
                        c.rsplit_once("\">")
                            .map_or(c, |(_, t)| t)
                            .trim_end_matches("</a>")
                    })
                    .collect();
                cells[..4].join("|")
            })
            .collect()
    };
    assert_eq!(rows(""), [d4, c3, b2, a1]);
    for spelling in [
        "99999%2Ffk4aa",
        "ark%3A%2F99999%2Ffk4aa",
        "ARK%3A99999%2Ffk4aa",
        "https%3A%2F%2Fn2t.net%2Fark%3A%2F99999%2Ffk4aa",
    ] {
        assert_eq!(rows(&format!("id={spelling}")), [c3, a1], "{spelling}");
    }
    assert_eq!(rows("id=ark%3A13030%2Ff54x54g11"), [d4]);
    assert_eq!(rows("who=alice"), [b2]);
    assert_eq!(rows("who=team"), [c3]);
    assert_eq!(rows("who=sam"), [d4, b2, a1]);
    // A day is whole and in UTC: 23:59:59 is in it, the next midnight is not.
    assert_eq!(rows("from=2026-11-21&to=2026-11-21"), [b2]);
    assert_eq!(rows("from=2026-11-22"), [d4, c3]);
    assert_eq!(rows("to=2026-11-21"), [b2, a1]);
    assert_eq!(rows("id=99999%2Ffk4aa&from=2026-11-21"), [c3]);
    let p = b.get("/console/p/sam/writes?who=nobody");
    assert!(p.body.contains("No writes here match the filter."));
    // A day in another form is refused, saying how to write it.
    let p = b.get("/console/p/sam/writes?from=21%2F11%2F2026");
    assert_eq!(p.status, 400);
    assert!(
        p.body.contains(
            "From: give a day as YYYY-MM-DD (such as 2026-11-28), not &quot;21/11/2026&quot;."
        ),
        "{}",
        p.body
    );
    let p = b.get("/console/p/sam/writes?from=2026-11-22&to=2026-11-21");
    assert_eq!(p.status, 400);
    assert!(p.body.contains("To is before From"));
}

/// Issue 42 item 11: a console page that reports a store error names the store by its
/// directory's name, not by where it is on the disk. Here sam's binder lost its
/// database after the service started.
#[test]
fn store_errors_on_pages_name_the_store_not_its_path() {
    let api = Api::start();
    let b = Browser::new(&api, "sam");
    assert_eq!(b.login("sam", "sam", "secret").status, 303);
    std::fs::remove_dir_all(api.dir("binders/sam/NOID")).unwrap();
    let p = b.get("/console/p/sam/id?id=ark%3A%2F99999%2Ffk4x");
    assert!(
        p.body
            .contains("no database (sam/NOID/noid.rocksdb) -- use dbcreate?"),
        "{}",
        p.body
    );
    let root = api.dir("").display().to_string();
    assert!(!p.body.contains(root.trim_end_matches('/')), "{}", p.body);
}
