//! `noid explain` and `noid rules test` on docs/RESOLUTION.md's request kinds ("Request
//! kinds and answers"): the bindings and answers are that table's, the words of each
//! step the ones noid-resolve's explanation writes (checked there too).

use crate::util::Dir;

/// Some of the table's bindings: (identifier, element, value).
const BINDINGS: [(&str, &str, &str); 5] = [
    ("ark:/00224/foo", "_t", "zaf"),
    ("ark:/12345/xt2", "_t", "http://obj.example.com/datasets/"),
    ("ark:/13030/gone", "_t", "410 withdrawn"),
    ("ark:/13030/gone", "successor", "ark:/13030/new"),
    ("ark:/13960", "_t", "https://archive.org/ark:/${id}"),
];

/// A minter holding [`BINDINGS`] (through `noid bind`).
fn minter() -> Dir {
    let m = Dir::new();
    m.noid(&["dbcreate"]).ok();
    for (id, elem, value) in BINDINGS {
        m.noid(&["bind", "set", id, elem, value]).ok();
    }
    m
}

/// `noid explain ark:/12345/xt2rv8b/chap3/` on [`BINDINGS`] with the built-in rules: a
/// final `/` dropped, a chop-back to `ark:/12345/xt2`, its passed-on suffix.
const XT2_EXPLAINED: &str = "request: ark:/12345/xt2rv8b/chap3/\n\
    \x20 respelled: a final / or . of an ARK is ignored (the ARK draft, §3.1): ark:/12345/xt2rv8b/chap3\n\
    \x20 found: chopped back to the longest bound ancestor: ark:/12345/xt2, the rest \"rv8b/chap3\" passed on (_t = \"http://obj.example.com/datasets/\")\n\
    \x20 decided: redirect 302 to http://obj.example.com/datasets/rv8b/chap3\n\
    answer: redir302 http://obj.example.com/datasets/rv8b/chap3 (chop-back)\n\
    standing of ark:/12345/xt2: not good (who missing; what missing; when missing; how missing)\n\
    web servers:\n\
    \x20 Apache, mod_noid's NoidResolve: 302 to http://obj.example.com/datasets/rv8b/chap3, before the rules run\n\
    \x20 Apache, noid-resolve.conf (prg: or mod_noid's map): RewriteRule [R=302] to http://obj.example.com/datasets/rv8b/chap3\n\
    \x20 nginx, the module (noid-module-resolve.conf): 302 to http://obj.example.com/datasets/rv8b/chap3\n\
    \x20 nginx or Apache proxying to noidr --http: 302 to http://obj.example.com/datasets/rv8b/chap3\n";

/// A table of the N2T cases on [`BINDINGS`], with a shoulder rule's and a DOI rule's.
const CASES: &str = "# request\texpected answer\tAccept\n\
    ark:/00224/foo/bar//zif?zaf=ab&cd\tredir302 zaf/bar//zif?zaf=ab&cd\n\
    ark:/12345/xt2rv8b/chap3/sect5//para4.txt.1.bak\tredir302 http://obj.example.com/datasets/rv8b/chap3/sect5//para4.txt.1.bak\n\
    ark:/12345/fk4abc\tredir302 https://e.org/abc\n\
    doi:10.5072/FK2ABC\tredir302 https://doi.org/10.5072/FK2ABC\n\
    ark:/99999/nope\tNULL\n\
    ark:/13030/gone\tredir410 withdrawn\ttext/html\n";

/// Rules under which every case of [`CASES`] answers as expected.
const RULES: &str =
    "doi: https://doi.org/${id}\nark:/12345/fk4 https://e.org/${blade}\nglobal-resolver off\n";

/// Rules that drop the shoulder rule and forward again, and what they break.
const CHANGED_RULES: &str = "doi: https://doi.org/${id}\n";
const CHANGED_DIFF: &str = "line 4: ark:/12345/fk4abc\n- redir302 https://e.org/abc\n+ NULL\n\
    line 6: ark:/99999/nope\n- NULL\n+ redir302 https://n2t.net/ark:/99999/nope\n\
    4 of 6 cases answer as expected; 2 differ\n";

#[test]
fn explain_says_each_step_the_answer_and_the_web_servers_paths() {
    let m = minter();
    let r = m.noid(&["explain", "ark:/12345/xt2rv8b/chap3/"]);
    assert_eq!(r.ok(), XT2_EXPLAINED);
    // A NAAN rule bound in the store, in JSON.
    let r = m.noid(&["explain", "ark:/13960/t6m0", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(r.ok()).unwrap();
    assert_eq!(v["answer"], "redir302 https://archive.org/ark:/13960/t6m0");
    assert_eq!(v["outcome"], "hit");
    assert_eq!(
        v["steps"][0]["says"],
        "a shoulder, NAAN or scheme target bound in the store: ark:/13960, the rest \"/t6m0\" passed on (_t = \"https://archive.org/ark:/${id}\")"
    );
    // A tombstone: the rules send 410s on to noidr's page.
    let r = m.noid(&["explain", "ark:/13030/gone"]);
    assert!(
        r.ok().contains("  decided: ark:/13030/gone is withdrawn (410): its tombstone names the successor ark:/13030/new\nanswer: redir410 withdrawn (hit)\n"),
        "{}",
        r.stdout
    );
    // Bad input: a clear error and the usage exit status.
    let r = m.noid(&["explain"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("<ID>"), "{}", r.stderr);
    let r = m.noid(&["explain", "ark:/1/x", "--rules", "/nonexistent/rules"]);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            2,
            "noid explain: cannot read rules file /nonexistent/rules: No such file or directory (os error 2)\n"
        )
    );
}

#[test]
fn rules_test_passes_a_table_and_diffs_what_a_changed_rules_file_breaks() {
    let m = minter();
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.tsv");
    std::fs::write(&cases, CASES).unwrap();
    let rules = dir.path().join("rules");
    std::fs::write(&rules, RULES).unwrap();
    let r = m.noid(&[
        "rules",
        "test",
        rules.to_str().unwrap(),
        cases.to_str().unwrap(),
    ]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, "6 of 6 cases answer as expected; 0 differ\n")
    );
    // The candidate drops the shoulder rule and forwards again.
    std::fs::write(&rules, CHANGED_RULES).unwrap();
    let r = m.noid(&[
        "rules",
        "test",
        rules.to_str().unwrap(),
        cases.to_str().unwrap(),
    ]);
    assert_eq!((r.code, r.stdout.as_str()), (1, CHANGED_DIFF));
    // A cases file that is not one.
    std::fs::write(&cases, "ark:/1/x redir302 y\n").unwrap();
    let r = m.noid(&[
        "rules",
        "test",
        rules.to_str().unwrap(),
        cases.to_str().unwrap(),
    ]);
    assert_eq!(
        (r.code, r.stderr),
        (
            2,
            format!(
                "noid rules test: bad cases file {}: line 1: want REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT]: no tab in the line\n",
                cases.display()
            )
        )
    );
}

/// A running `noid serve` whose binders hold [`BINDINGS`] (bound through the API's bulk
/// POST): `sam` resolves with the built-in rules, `res` (no login) with the rules file
/// [`RULES`] named in its configuration.
fn api_with_bindings() -> (crate::api::Api, tempfile::TempDir) {
    let files = tempfile::tempdir().unwrap();
    let rules = files.path().join("rules");
    std::fs::write(&rules, RULES).unwrap();
    let api = crate::api::Api::start_with(&format!(
        "[populator.res]\nopen = true\nbinder = \"{{root}}/binders/res\"\nrules = \"{}\"\n",
        rules.display()
    ));
    let bulk: String = BINDINGS
        .iter()
        .map(|(id, elem, value)| format!("{id}.set {elem} \"{value}\"\n"))
        .collect();
    for pop in ["sam", "res"] {
        let (status, body) = api.curl(
            Some("sam:secret").filter(|_| pop == "sam"),
            &format!("/a/{pop}/b"),
            "-",
            Some(&bulk),
            &[],
        );
        assert_eq!(
            (status, body.as_str()),
            (
                200,
                "# committed 5 commands, through line 5\negg-status: 0\n"
            )
        );
    }
    (api, files)
}

/// `GET /a/POP/explain` answers what `noid explain` prints, as text or JSON, with the
/// populator's configured rules; bad requests are 400s saying what to give.
#[test]
fn the_api_explains_as_noid_explain_does() {
    let (api, _files) = api_with_bindings();
    let sam = "sam:secret";
    let explain = |user: Option<&str>, pop: &str, query: &str| {
        api.get(user, &format!("/a/{pop}/explain"), query)
    };
    assert_eq!(
        explain(Some(sam), "sam", "id=ark:/12345/xt2rv8b/chap3/&format=text"),
        (200, XT2_EXPLAINED.to_string())
    );
    // A read-only populator's login is answered too: explaining only reads.
    assert_eq!(
        explain(
            Some("viewer:look"),
            "ro",
            "id=ark:/12345/xt2rv8b/chap3/&format=text"
        ),
        (200, XT2_EXPLAINED.to_string())
    );
    // The same explanation as one JSON object.
    let (status, body) = explain(Some(sam), "sam", "id=ark:/12345/xt2rv8b/chap3/");
    assert_eq!(status, 200, "{body}");
    let to = "http://obj.example.com/datasets/rv8b/chap3";
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).unwrap(),
        serde_json::json!({
            "request": "ark:/12345/xt2rv8b/chap3/",
            "steps": [
                {"kind": "respelled", "says": "a final / or . of an ARK is ignored (the ARK draft, §3.1): ark:/12345/xt2rv8b/chap3"},
                {"kind": "found", "says": "chopped back to the longest bound ancestor: ark:/12345/xt2, the rest \"rv8b/chap3\" passed on (_t = \"http://obj.example.com/datasets/\")"},
                {"kind": "decided", "says": format!("redirect 302 to {to}")},
            ],
            "answer": format!("redir302 {to}"),
            "outcome": "chop-back",
            "bound": {"id": "ark:/12345/xt2", "good": false,
                      "missing": ["who", "what", "when", "how"], "malformed": []},
            "web_servers": [
                {"server": "Apache, mod_noid's NoidResolve", "does": format!("302 to {to}, before the rules run")},
                {"server": "Apache, noid-resolve.conf (prg: or mod_noid's map)", "does": format!("RewriteRule [R=302] to {to}")},
                {"server": "nginx, the module (noid-module-resolve.conf)", "does": format!("302 to {to}")},
                {"server": "nginx or Apache proxying to noidr --http", "does": format!("302 to {to}")},
            ],
        })
    );
    // Content negotiation (docs/RESOLUTION.md's table): an Accept naming a type with no
    // `_,eTm,` target is answered with the metadata page.
    let (status, body) = explain(
        Some(sam),
        "sam",
        "id=ark:/00224/foo&accept=application/json",
    );
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        v["answer"],
        "inflect \"op=cn.application/json\" \"id=ark:/00224/foo\""
    );
    // The shoulder rule of res's rules file applies there.
    let answer = |user, pop| {
        let (status, body) = explain(user, pop, "id=ark:/12345/fk4abc&proto=http");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str::<serde_json::Value>(&body).unwrap()["answer"].clone()
    };
    assert_eq!(answer(None, "res"), "redir302 https://e.org/abc");
    // Without it nothing matches, and the NAAN is the binder's own (it holds
    // ark:/12345/xt2), so nothing forwards it either: as CHANGED_DIFF's line 4.
    assert_eq!(answer(Some(sam), "sam"), "NULL");
    // Bad requests.
    let usage = "explain?id=ID[&accept=TYPE][&proto=http|https][&format=json|text]";
    for (query, why) in [
        ("", format!("give the identifier as it would be asked for: {usage}")),
        ("id=x&proto=ftp", format!("proto \"ftp\": give http or https: {usage}")),
        (
            "id=x&accept=t\u{e9}xt/html",
            format!("accept \"t\u{e9}xt/html\": give an Accept header's value (visible ASCII, e.g. application/json or text/html): {usage}"),
        ),
        ("id=x&format=csv", "format \"csv\": give json or text".into()),
        ("id=x&ids=y", "unknown field \"ids\": give id, accept, proto, format".into()),
    ] {
        assert_eq!(
            explain(Some(sam), "sam", query),
            (400, format!("error: {why}\n")),
            "{query}"
        );
    }
    assert_eq!(
        explain(None, "sam", "id=x"),
        (401, "error: 401 unauthorized\n".into())
    );
}

/// `POST /a/POP/rules/test` runs the cases `noid rules test` runs, on the populator's
/// binder: every case's outcome in JSON, the CLI's diff as text, `200` either way with
/// `passed` saying whether all passed; bad tables and rules are 400s.
#[test]
fn the_api_tests_a_candidate_rules_file() {
    let (api, files) = api_with_bindings();
    let (rules, cases) = (files.path().join("candidate"), files.path().join("cases"));
    std::fs::write(&cases, CASES).unwrap();
    // curl sends the files as form fields, as the documentation shows.
    let test = |candidate: &str, extra: &[&str]| {
        std::fs::write(&rules, candidate).unwrap();
        let mut cmd = std::process::Command::new("curl");
        cmd.args(["-s", "-u", "sam:secret", "-w", "\n%{http_code}"])
            .arg("--data-urlencode")
            .arg(format!("rules@{}", rules.display()))
            .arg("--data-urlencode")
            .arg(format!("cases@{}", cases.display()))
            .args(extra)
            .arg(format!("http://127.0.0.1:{}/a/sam/rules/test", api.port));
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        let (body, code) = out.rsplit_once('\n').unwrap();
        (code.parse::<u16>().unwrap(), body.to_string())
    };
    let (status, body) = test(RULES, &[]);
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (&v["passed"], &v["total"], &v["differ"], &v["summary"]),
        (
            &serde_json::json!(true),
            &serde_json::json!(6),
            &serde_json::json!(0),
            &serde_json::json!("6 of 6 cases answer as expected; 0 differ")
        )
    );
    assert_eq!(
        v["cases"][5],
        serde_json::json!({"line": 7, "request": "ark:/13030/gone", "accept": "text/html",
                           "expected": "redir410 withdrawn", "got": "redir410 withdrawn",
                           "passed": true})
    );
    // The changed rules: what `noid rules test` prints, and each case in JSON.
    assert_eq!(
        test(CHANGED_RULES, &["-d", "format=text"]),
        (200, CHANGED_DIFF.to_string())
    );
    let (status, body) = test(CHANGED_RULES, &[]);
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (&v["passed"], &v["differ"]),
        (&serde_json::json!(false), &serde_json::json!(2))
    );
    assert_eq!(
        v["cases"][2],
        serde_json::json!({"line": 4, "request": "ark:/12345/fk4abc", "accept": null,
                           "expected": "redir302 https://e.org/abc", "got": "NULL",
                           "passed": false})
    );
    // Bad requests: each a 400 saying what to give.
    let give = "give rules=TEXT&cases=TEXT[&registry=TEXT] (curl --data-urlencode rules@FILE --data-urlencode cases@FILE)";
    assert_eq!(
        test("ark:/12345/fk4\n", &[]),
        (
            400,
            format!("error: the rules are not a rules file: line 1: rule \"ark:/12345/fk4\" has no target: {give}\n")
        )
    );
    let post = |body: &str| api.post_as("sam:secret", "/a/sam/rules/test", "", body);
    assert_eq!(
        post("rules=x"),
        (400, format!("error: give the cases table: {give}\n"))
    );
    assert_eq!(
        post("rules=global-resolver+off&cases=ark%3A%2F1%2Fx+redir302+y"),
        (
            400,
            format!("error: the cases are not a cases table: line 1: want REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT]: no tab in the line (one case a line: REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT]): {give}\n")
        )
    );
    assert_eq!(
        post("rules=global-resolver+off&cases=%23+nothing"),
        (400, format!("error: the cases table has no cases: one a line, REQUEST<TAB>EXPECTED ANSWER[<TAB>ACCEPT]: {give}\n"))
    );
    assert_eq!(
        post("rules=x&case=y"),
        (
            400,
            "error: unknown field \"case\": give rules, cases, registry, format\n".into()
        )
    );
    // A multipart form is not read as one.
    let out = std::process::Command::new("curl")
        .args([
            "-s",
            "-u",
            "sam:secret",
            "-w",
            "\n%{http_code}",
            "-F",
            "rules=x",
            "-F",
            "cases=y",
        ])
        .arg(format!("http://127.0.0.1:{}/a/sam/rules/test", api.port))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "error: the fields are form-encoded (application/x-www-form-urlencoded), not multipart/form-data: give rules, cases, registry, format (curl --data-urlencode rules@FILE --data-urlencode cases@FILE)\n\n400"
    );
}

/// The same explanation through the API's CGI (`noidu-api`, as Apache runs it), read
/// on a snapshot of the binder in the CGI's own process.
#[test]
fn the_cgi_explains() {
    let (api, _files) = api_with_bindings();
    let cgi = api.dir("noidu-api");
    std::os::unix::fs::symlink(crate::util::noid_exe(), &cgi).unwrap();
    let out = std::process::Command::new(&cgi)
        .env_clear()
        .env("NOID_API_CONFIG", api.dir("api.toml"))
        .env("PATH_INFO", "/sam/explain")
        .env("QUERY_STRING", "id=ark:/12345/xt2rv8b/chap3/&format=text")
        .env("REMOTE_ADDR", "127.0.0.1")
        .env("REMOTE_USER", "sam")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("Status: 200 OK\r\ncontent-type: text/plain; charset=UTF-8\r\n\r\n{XT2_EXPLAINED}")
    );
}

/// A populator whose rules file cannot be read stops `noid serve` from starting, with
/// the file and the reason named.
#[test]
fn a_bad_rules_file_in_the_configuration_is_refused_at_start() {
    let root = tempfile::tempdir().unwrap();
    let binder = root.path().join("b");
    let m = std::process::Command::new(crate::util::noid_exe())
        .arg("-f")
        .arg(&binder)
        .arg("dbcreate")
        .output()
        .unwrap();
    assert!(m.status.success());
    let config = root.path().join("api.toml");
    for (rules, why) in [
        (
            root.path().join("missing"),
            format!(
                "cannot read rules file {}/missing: No such file or directory (os error 2)",
                root.path().display()
            ),
        ),
        (
            root.path().join("bad"),
            format!(
                "bad rules file {}/bad: line 2: rule \"doi:\" has no target",
                root.path().display()
            ),
        ),
    ] {
        std::fs::write(root.path().join("bad"), "# comment\ndoi:\n").unwrap();
        std::fs::write(
            &config,
            format!(
                "[populator.p]\nopen = true\nbinder = \"{}\"\nrules = \"{}\"\n",
                binder.display(),
                rules.display()
            ),
        )
        .unwrap();
        let out = std::process::Command::new(crate::util::noid_exe())
            .args(["serve", "--http", "127.0.0.1:0", "--config"])
            .arg(&config)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.contains(&format!("populator p: {why}")), "{stderr}");
    }
}

/// The console's Explain and Test rules pages: the steps and the answer laid out, a
/// request holding markup shown as text, a bad protocol refused with the reason, the
/// rules form refused without its token (nothing run), run with it, and a bad table
/// refused with the reason.
#[test]
fn the_console_explains_and_tests_rules() {
    let (api, _files) = api_with_bindings();
    let b = crate::console::Browser::new(&api, "sam");
    b.login("sam", "sam", "secret");
    let p = b.get("/console/p/sam/explain?id=ark:/12345/xt2rv8b/chap3/");
    assert_eq!(p.status, 200, "{}", p.body);
    for shown in [
        "<li><span class=\"kind\">decided</span>: redirect 302 to http://obj.example.com/datasets/rv8b/chap3</li>",
        "<p class=\"answer\"><code>redir302 http://obj.example.com/datasets/rv8b/chap3</code> (chop-back)</p>",
        "<tr><td>nginx, the module (noid-module-resolve.conf)</td><td>302 to http://obj.example.com/datasets/rv8b/chap3</td></tr>",
    ] {
        assert!(p.body.contains(shown), "{shown}\n{}", p.body);
    }
    let p = b.get("/console/p/sam/explain?id=%3Cscript%3Ex%3C/script%3E");
    assert_eq!(p.status, 200);
    assert!(!p.body.contains("<script>"), "{}", p.body);
    assert!(p
        .body
        .contains("<code>&lt;script&gt;x&lt;/script&gt;</code>"));
    let p = b.get("/console/p/sam/explain?id=x&proto=ftp");
    assert_eq!(p.status, 400);
    assert!(
        p.body
            .contains("Not explained: proto &quot;ftp&quot;: give http or https."),
        "{}",
        p.body
    );

    let rules = "/console/p/sam/rules";
    let p = b.request(
        rules,
        Some(&[("rules", RULES), ("cases", CASES)]),
        &["multipart"],
    );
    assert_eq!(p.status, 403);
    assert!(!p.body.contains("cases answer"), "{}", p.body);
    let token = b.get(rules).token();
    let p = b.request(
        rules,
        Some(&[("csrf", &token), ("rules", RULES), ("cases", CASES)]),
        &["multipart"],
    );
    assert_eq!(p.status, 200, "{}", p.body);
    assert!(p.body.contains(
        "<p class=\"notice ok\" role=\"status\">6 of 6 cases answer as expected; 0 differ.</p>"
    ));
    let p = b.request(
        rules,
        Some(&[
            ("csrf", &token),
            ("rules", RULES),
            ("cases", "ark:/1/x redir302 y"),
        ]),
        &["multipart"],
    );
    assert_eq!(p.status, 400);
    assert!(
        p.body.contains(
            "Not tested: the cases are not a cases table: line 1: want \
             REQUEST&lt;TAB&gt;EXPECTED ANSWER[&lt;TAB&gt;ACCEPT]: no tab in the line"
        ),
        "{}",
        p.body
    );
}
