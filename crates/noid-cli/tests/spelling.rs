//! One identifier is one record, whatever spelling it arrived in (the identifier gate):
//! `ark:99999/X` (the current ARK specification's form), `ARK:/99999/X`, a resolver URL
//! `https://n2t.net/ark:/99999/X` and the bare `99999/X` the minter prints reach the
//! record `ark:/99999/X` of a populator's binder, on every write path (the API, the
//! console, the upload, `noid -` bulk and the CLI on a minter's directory, whose own
//! form is the bare one); a check character typo is refused on each. And a console
//! save writes back only what the curator changed, byte for byte.
//!
//! Expected identifiers come from the CLI minting a twin of the populator's minter;
//! expected values are the values the test bound.

use crate::api::Api;
use crate::console::Browser;
use crate::util::Dir;

/// The API tests' service with populator `lim`: login `sam`, its own binder, the
/// minter `ark/99999/fk4`, and (unlike `sam`) writes limited to that minter's shoulder.
fn limited_api() -> Api {
    Api::start_with(
        r#"
[populator.lim]
htpasswd = "{root}/pwd_sam"
binder = "{root}/binders/lim"
minters = "{root}/minters/sam"
"#,
    )
}

/// The first identifier the API tests' minter `ark/99999/fk4` mints, and a typo of it
/// that keeps its shape (its last character changed).
fn minted_and_typo() -> (String, String) {
    let twin = Dir::minter(&["fk4.reedeedk", "long", "99999", "example.org", "test"]);
    let id = twin.mint(1).remove(0);
    let last = id.chars().last().unwrap();
    let other = if last == 'b' { 'c' } else { 'b' };
    let typo = format!("{}{other}", &id[..id.len() - 1]);
    (id, typo)
}

/// Every key of the binder: `noid dbinfo dump`'s lines naming `needle`.
fn keys_naming(api: &Api, binder: &str, needle: &str) -> Vec<String> {
    let out = std::process::Command::new(crate::util::noid_exe())
        .arg("-f")
        .arg(api.dir(binder))
        .args(["dbinfo", "dump"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.contains(needle) && !l.contains("\t:/") && !l.contains("\t_,"))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_spelling_reaches_one_record_over_the_api() {
    let api = limited_api();
    let (id, typo) = minted_and_typo();
    let ark = format!("ark:/{id}");
    let naan_part = id.strip_prefix("99999/").unwrap();
    let spellings = [
        (format!("ark:99999/{naan_part}"), "who"),
        (format!("ARK:/99999/{naan_part}"), "what"),
        (format!("https://n2t.net/ark:/99999/{naan_part}"), "when"),
        (id.clone(), "how"),
    ];
    for (spelling, elem) in &spellings {
        let (status, body) = api.get_as(
            "sam:secret",
            "/a/lim/b",
            &format!("{spelling}.set {elem} v-{elem}"),
        );
        assert_eq!(
            (status, body.as_str()),
            (200, "egg-status: 0\n"),
            "{spelling}"
        );
    }
    assert_eq!(
        keys_naming(&api, "binders/lim", naan_part),
        [
            format!("{ark}\thow: v-how"),
            format!("{ark}\twhat: v-what"),
            format!("{ark}\twhen: v-when"),
            format!("{ark}\twho: v-who"),
        ]
    );
    // Any spelling reads the record.
    let (status, body) = api.get_as(
        "sam:secret",
        "/a/lim/b",
        &format!("ark:99999/{naan_part}.get who"),
    );
    assert_eq!(
        (status, body.as_str()),
        (200, "who: v-who\n\negg-status: 0\n")
    );
    // A typo of the check character is refused, and nothing is written.
    let (status, body) = api.get_as("sam:secret", "/a/lim/b", &format!("{typo}.set who x"));
    assert_eq!(
        (status, body),
        (
            200,
            format!(
                "error: ark:/{typo}: its check character does not match (minter 99999/fk4.reedeedk): a character is mistyped\n\negg-status: 1\n"
            )
        )
    );
    assert_eq!(
        keys_naming(&api, "binders/lim", &typo[6..]),
        Vec::<String>::new()
    );
    // Outside the populator's shoulders: refused, naming them.
    let (status, body) = api.get_as("sam:secret", "/a/lim/b", "ark:/12345/x.set who x");
    assert_eq!(
        (status, body.as_str()),
        (
            200,
            "error: ark:/12345/x: this populator writes only identifiers under ark:/99999/fk4\n\negg-status: 1\n"
        )
    );
    // A target that runs code in a browser (the egg language's rule; the console
    // checks more).
    let (status, body) = api.get_as(
        "sam:secret",
        "/a/lim/b",
        &format!("{id}.set _t javascript:alert(1)"),
    );
    assert_eq!(
        (status, body),
        (
            200,
            format!("error: {ark}: \"javascript:alert(1)\" cannot be a target: a target must not run code in a browser (javascript:, vbscript:, data:)\n\negg-status: 1\n")
        )
    );
    // Extra words after a value are refused, never dropped.
    let (status, body) = api.get_as(
        "sam:secret",
        "/a/lim/b",
        &format!("{id}.set what Migrant Mother, Nipomo"),
    );
    assert_eq!(
        (status, body.as_str()),
        (
            200,
            "error: set takes one value, and 2 more words followed it (Mother, Nipomo); quote a value with spaces: ID.set what 'A value with spaces'\n\negg-status: 1\n"
        )
    );
}

#[test]
fn bulk_and_the_cli_on_a_minter_use_its_own_form() {
    let (id, typo) = minted_and_typo();
    let m = Dir::minter(&["fk4.reedeedk", "medium", "99999", "example.org", "test"]);
    let naan_part = id.strip_prefix("99999/").unwrap();
    let r = m.noid(&[
        "bind",
        "set",
        &format!("ARK:/99999/{naan_part}"),
        "who",
        "W",
    ]);
    assert_eq!(
        r.ok(),
        format!("Id:      {id}\nElement: who\nBind:    set\nStatus:  ok, 1 bytes written, replacing 0 bytes\n\n")
    );
    let r = m.noid_stdin(
        &["-"],
        format!("https://n2t.net/ark:/99999/{naan_part}.set what T\n{typo}.set what T\n")
            .as_bytes(),
    );
    assert_eq!(
        (r.stdout, r.code),
        (
            format!("error: {typo}: its check character does not match (minter 99999/fk4.reedeedk): a character is mistyped\n\n"),
            1
        )
    );
    assert_eq!(m.noid(&["get", &id, "who", "what"]).ok(), "W\nT\n");
    let r = m.noid(&["bind", "set", &typo, "who", "W"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        m.noid(&["get", &typo]).stderr,
        format!("note: no elements bound under {typo}.\n")
    );
}

#[test]
fn a_console_save_writes_back_only_what_changed() {
    let api = limited_api();
    let (id, _) = minted_and_typo();
    let ark = format!("ark:/{id}");
    let targets = "https://example.org/a\nhttps://example.org/b";
    let title = "Migrant \"Mother\", Nipomo, 'Calif.', 1936 ";
    let who = "Lange, Dorothea\nU.S. Resettlement Administration";
    let bulk = format!(
        ":hx {a}.set _t {}\n:hx {a}.set what {}\n:hx {a}.set who {}\n",
        hx(targets),
        hx(title),
        hx(who),
        a = hx(&ark)
    );
    let (status, _) = api.post_as("sam:secret", "/a/lim/b", "-", &bulk);
    assert_eq!(status, 200);
    let b = Browser::new(&api, "sam");
    b.login("lim", "sam", "secret");
    // Opened in another spelling: the same record, targets as two fields.
    let page = b.get(&format!("/console/p/lim/id?id=ark%3A99999%2F{}", &id[6..]));
    assert!(!page.body.contains("Nothing is bound"), "{}", page.body);
    assert!(
        page.body
            .contains("name=\"_t\" value=\"https://example.org/a\""),
        "{}",
        page.body
    );
    assert!(page
        .body
        .contains("name=\"_t\" value=\"https://example.org/b\""));
    assert!(page.body.contains("<textarea id=\"who\" name=\"who\" rows=\"2\">\nLange, Dorothea\nU.S. Resettlement Administration</textarea>"), "{}", page.body);
    // What a browser sends back: the fields as shown (a text area's line breaks as
    // CR LF), with `when` filled in.
    let token = page.token();
    let fields = [
        ("csrf", token.as_str()),
        ("id", id.as_str()),
        ("_t", "https://example.org/a"),
        ("_t", "https://example.org/b"),
        ("_t", ""),
        ("who-code", ""),
        ("who", "Lange, Dorothea\r\nU.S. Resettlement Administration"),
        ("what-code", ""),
        ("what", title),
        ("when-code", ""),
        ("when", "1936"),
        ("how-code", ""),
        ("how", ""),
        ("action", "save"),
    ];
    let log_before = std::fs::read_to_string(api.dir("binders/lim/write.log")).unwrap();
    let p = b.post("/console/p/lim/id", &fields);
    assert_eq!(p.status, 303, "{}", p.body);
    // Read back with the CLI, byte for byte: each value and the line break `get` adds.
    let get = |elem: &str| {
        let out = std::process::Command::new(crate::util::noid_exe())
            .arg("-f")
            .arg(api.dir("binders/lim"))
            .args(["get", &ark, elem])
            .output()
            .unwrap();
        out.stdout
    };
    assert_eq!(get("_t"), format!("{targets}\n").into_bytes());
    assert_eq!(get("what"), format!("{title}\n").into_bytes());
    assert_eq!(get("who"), format!("{who}\n").into_bytes());
    assert_eq!(get("when"), b"1936\n");
    let log = std::fs::read_to_string(api.dir("binders/lim/write.log")).unwrap();
    let added: Vec<&str> = log[log_before.len()..]
        .lines()
        .map(|l| l.split('\t').nth(4).unwrap())
        .collect();
    assert_eq!(added, [format!(":hx {}.set when 1936", hx(&ark))]);
    // The write log names logins and addresses: its owner's alone.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(api.dir("binders/lim/write.log"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    // A target that is not an absolute URL is refused, and nothing is written.
    let page = b.get(&format!("/console/p/lim/id?id={}", id.replace('/', "%2F")));
    let token = page.token();
    let mut bad = fields;
    bad[0].1 = &token;
    bad[4].1 = "www.example.edu/x";
    let p = b.post("/console/p/lim/id", &bad);
    assert_eq!(p.status, 422, "{}", p.body);
    assert!(
        p.body.contains(&format!(
            "Not saved: {ark}: &quot;www.example.edu/x&quot; cannot be a target"
        )),
        "{}",
        p.body
    );
    assert!(p
        .body
        .contains("cannot be a target: a target must be an absolute URL"));
    assert_eq!(
        std::fs::read_to_string(api.dir("binders/lim/write.log")).unwrap(),
        log
    );
}

/// `s` in the write log's `^hh` escapes (every byte but letters, digits and `.-_/`).
fn hx(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b".-_/".contains(&b) {
                (b as char).to_string()
            } else {
                format!("^{b:02x}")
            }
        })
        .collect()
}

/// `noid get` and `noid fetch` read an ARK with nothing bound as typed under the
/// spelling the gate stored it in (the ARK draft's normal form: hyphens dropped, `%XX`
/// upper-cased, either label form), as the resolver does; what is bound as typed is
/// read as before, and an ARK bound in no spelling is still not bound.
#[test]
fn get_and_fetch_read_an_ark_in_any_spelling() {
    let m = Dir::new();
    m.noid(&["dbcreate"]).ok();
    m.noid(&[
        "bind",
        "set",
        "ark:/12345/x9-ab-cd",
        "_t",
        "https://example.org/a",
    ])
    .ok();
    m.noid(&[
        "bind",
        "set",
        "ark:/12345/w%7e1",
        "_t",
        "https://example.org/d",
    ])
    .ok();
    for typed in [
        "ark:/12345/x9-ab-cd",
        "ark:12345/x9‐ab‐cd",
        "ARK:/12345/x9abcd",
    ] {
        assert_eq!(
            m.noid(&["get", typed, "_t"]).ok(),
            "https://example.org/a\n",
            "{typed}"
        );
    }
    assert_eq!(
        m.noid(&["fetch", "ark:12345/w%7E1", "_t"]).ok(),
        "id:    ark:/12345/w%7E1\nCirc:  uncirculated\n_t: https://example.org/d\n\n"
    );
    let r = m.noid(&["fetch", "ark:/12345/x9-ab-ce", "_t"]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (
            1,
            "id:    ark:/12345/x9-ab-ce\nCirc:  uncirculated\nerror: \"ark:/12345/x9-ab-ce _t\" is not bound.\n\n"
        )
    );
}
