//! `noid index` and `noid search` through the real binary and store: the index built on
//! first use, a query's matches in each format, refusals and exit statuses. Expected
//! output written from the bindings made here.

use std::collections::BTreeSet;
use std::process::Command;

use crate::util::*;

fn minter() -> Dir {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "example.org", "oac"]);
    assert_eq!(d.mint(2), ["13030/f54x54g11", "13030/f5154dn7k"]);
    let binds = "bind set 13030/f54x54g11 what 'The wonderful wizard of Oz'\n\
                 bind set 13030/f54x54g11 who 'Baum, L. Frank'\n\
                 bind set 13030/f54x54g11 _t https://example.org/oz\n\
                 bind set 13030/f5154dn7k what 'Ozma of Oz, \"the\" sequel'\n";
    d.noid_stdin(&["-"], binds.as_bytes()).ok();
    d
}

#[test]
fn search_formats_and_statuses() {
    let d = minter();
    let table = d.noid(&["search", "wizard"]).ok().to_string();
    assert!(table.starts_with("id "), "{table}");
    assert!(
        table.contains("\n13030/f54x54g11  The wonderful wizard of Oz"),
        "{table}"
    );
    assert!(
        table.contains("# 1 of 1 matching identifiers shown\n"),
        "{table}"
    );
    assert!(table.contains("# host: example.org 1\n"), "{table}");
    let csv = d
        .noid(&["search", "oz", "--format", "csv"])
        .ok()
        .to_string();
    let mut rows: Vec<&str> = csv.lines().collect();
    rows[1..].sort();
    // The last column is the bind's time (this run's): only its century is known.
    assert_eq!(rows.len(), 3, "{csv}");
    assert_eq!(rows[0], "id,target,who,what,when,where,how,status,updated");
    assert!(
        rows[1].starts_with("13030/f5154dn7k,,,\"Ozma of Oz, \"\"the\"\" sequel\",,,,unchecked,20"),
        "{csv}"
    );
    assert!(
        rows[2].starts_with(
            "13030/f54x54g11,https://example.org/oz,\"Baum, L. Frank\",The wonderful wizard of Oz,,,,unchecked,20"
        ),
        "{csv}"
    );
    let anvl = d
        .noid(&["search", "who:\"baum, l. frank\"", "--format", "anvl"])
        .ok()
        .to_string();
    assert!(
        anvl.starts_with(
            "id: 13030/f54x54g11\ntarget: https://example.org/oz\nwho: Baum, L. Frank\n"
        ),
        "{anvl}"
    );
    let status = d.noid(&["index", "status"]).ok().to_string();
    assert!(status.starts_with("identifiers: 2\n"), "{status}");
    // A bind after the index was built is found by the next search (the index was
    // older than the store, so it was built again).
    d.noid(&["bind", "set", "13030/f5154dn7k", "who", "Baum"])
        .ok();
    let after = d
        .noid(&["search", "who:baum", "--format", "csv"])
        .ok()
        .to_string();
    assert_eq!(after.lines().count(), 2, "{after}");
    assert!(
        after
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("13030/f5154dn7k,,Baum,"),
        "{after}"
    );
    // Nothing found: exit status 1, an empty table.
    let none = d.noid(&["search", "dorothy"]);
    none.failed();
    assert_eq!(none.stdout, "# 0 of 0 matching identifiers shown\n");
    // A query that cannot be read: the reason, exit status 2.
    let bad = d.noid(&["search", "status:gone"]);
    assert_eq!(bad.code, 2);
    assert_eq!(
        bad.stderr,
        "noid search: status:gone is no link status: use one of ok, redirected, failing, broken, \
         blocked, soft404, parked, drifted, unchecked\n"
    );
}

/// `GET /a/POP/search` on `noid serve`: a page of matches with the facets as JSON, every
/// match as CSV ("download what I see"), and a clear 400 for what cannot be read. The
/// expected ids and counts are the bindings the test makes.
#[test]
fn the_api_answers_a_search_with_its_facets_and_its_download() {
    use crate::api::Api;
    let api = Api::start();
    let sam = "sam:secret";
    for (id, title, target) in [
        ("x1", "Tide gauges of the bay", "https://a.example.org/1"),
        ("x2", "Tide tables", "https://b.example.org/2"),
        ("x3", "Harbour photographs", "https://a.example.org/3"),
    ] {
        // (egg's :hx modifier: `^20` is a space inside one word)
        let line = format!(":hx {id}.set what {}", title.replace(' ', "^20"));
        assert_eq!(api.get_as(sam, "/a/sam/b", &line).0, 200);
        let (status, body) = api.get_as(sam, "/a/sam/b", &format!("{id}.set _t {target}"));
        assert_eq!(status, 200, "{body}");
    }
    let (status, body) = api.get_as(sam, "/a/sam/search", "q=tide&sort=id");
    assert_eq!(status, 200, "{body}");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["total"], 2);
    let ids: Vec<&str> = v["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["x1", "x2"]);
    assert_eq!(v["hits"][0]["what"], "Tide gauges of the bay");
    assert_eq!(v["hits"][0]["target"], "https://a.example.org/1");
    assert_eq!(
        v["facets"]["host"],
        serde_json::json!([["a.example.org", 1], ["b.example.org", 1]])
    );
    // host: narrows; the download is every match, as CSV.
    let (status, body) = api.get_as(sam, "/a/sam/search", "q=host:a.example.org&format=csv");
    assert_eq!(status, 200, "{body}");
    let mut rows = csv::Reader::from_reader(body.as_bytes());
    // (in the index's order)
    let mut got: Vec<(String, String)> = rows
        .records()
        .map(|r| {
            let r = r.unwrap();
            (r[0].to_string(), r[1].to_string())
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [
            ("x1".to_string(), "https://a.example.org/1".to_string()),
            ("x3".to_string(), "https://a.example.org/3".to_string())
        ]
    );
    // What cannot be read is refused with what to do.
    assert_eq!(
        api.get_as(sam, "/a/sam/search", ""),
        (
            400,
            "error: give a query: search?q=WORDS (docs/SEARCH.md has the language)\n".into()
        )
    );
    assert_eq!(
        api.get_as(sam, "/a/sam/search", "q=tide&per=0"),
        (
            400,
            "error: per \"0\": give a number from 1 to 1000\n".into()
        )
    );
    let (status, body) = api.get_as(sam, "/a/sam/search", "q=updated:>never");
    assert_eq!(status, 400, "{body}");
    assert!(
        body.starts_with("error: the query cannot be read: "),
        "{body}"
    );
}

/// An export of many matches is produced as it goes: over `noid serve` in chunked
/// transfer of at most 64 KiB each (no `Content-Length`, which a body held whole would
/// carry), over the CGI spooled to a file and sent with its exact `Content-Length`; both
/// hold every match, as the identifiers were loaded.
#[test]
fn an_export_of_many_matches_is_streamed_by_the_api_and_whole_over_the_cgi() {
    const N: usize = 20_000;
    let api = crate::api::Api::start();
    let binder = api.dir("binders/sam");
    let mut load = String::new();
    for n in 0..N {
        load.push_str(&format!(
            "bind set g{n:05} _t https://gauges.example.org/{n}\nbind set g{n:05} what gauge\n"
        ));
    }
    let loaded = run(
        {
            let mut c = Command::new(noid_exe());
            c.arg("-f").arg(&binder).arg("-");
            c
        },
        load.as_bytes(),
    );
    loaded.ok();
    let expected: BTreeSet<(String, String)> = (0..N)
        .map(|n| {
            (
                format!("g{n:05}"),
                format!("https://gauges.example.org/{n}"),
            )
        })
        .collect();
    let rows = |csv_text: &[u8]| -> BTreeSet<(String, String)> {
        csv::Reader::from_reader(csv_text)
            .records()
            .map(|r| {
                let r = r.unwrap();
                (r[0].to_string(), r[1].to_string())
            })
            .collect()
    };

    // noid serve: curl --raw keeps the chunks' framing.
    let out = Command::new("curl")
        .args(["-s", "--raw", "-D", "-", "-u", "sam:secret"])
        .arg(format!(
            "http://127.0.0.1:{}/a/sam/search?q=gauge&format=csv",
            api.port
        ))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = out.stdout;
    let end = text.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&text[..end]).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    assert!(!head.contains("content-length"), "{head}");
    assert!(head.contains("content-type: text/csv"), "{head}");
    let (mut body, mut chunks, mut at) = (Vec::new(), Vec::new(), end);
    loop {
        let eol = at + text[at..].windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(std::str::from_utf8(&text[at..eol]).unwrap(), 16).unwrap();
        if size == 0 {
            break;
        }
        body.extend_from_slice(&text[eol + 2..eol + 2 + size]);
        chunks.push(size);
        at = eol + 2 + size + 2;
    }
    assert!(chunks.len() > 1, "one chunk: {chunks:?}");
    assert!(chunks.iter().all(|&c| c <= 64 << 10), "{chunks:?}");
    assert_eq!(rows(&body), expected);

    // The CGI, as Apache runs it.
    let cgi = api.dir("noidu-api");
    std::os::unix::fs::symlink(noid_exe(), &cgi).unwrap();
    let out = Command::new(&cgi)
        .env_clear()
        .env("NOID_API_CONFIG", api.dir("api.toml"))
        .env("PATH_INFO", "/sam/search")
        .env("QUERY_STRING", "q=gauge&format=csv")
        .env("REMOTE_ADDR", "127.0.0.1")
        .env("REMOTE_USER", "sam")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = out.stdout;
    let end = text.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = String::from_utf8_lossy(&text[..end]).to_string();
    assert!(head.starts_with("Status: 200 OK\r\n"), "{head}");
    assert!(
        head.contains(&format!("Content-Length: {}\r\n", text.len() - end)),
        "{head} (body {} bytes)",
        text.len() - end
    );
    assert_eq!(rows(&text[end..]), expected);
}
