//! The resolution counts over the API (`GET /a/POP/stats`, through `noid serve` and the
//! CGI) and in the console (the Usage page and the identifier page's Usage section).
//! The counts store's segments are written through crate `noid-counts` (as `noidr
//! --counts` writes them) into the populator's binder and minter directories; the
//! expected reports are worked out by hand from the counts written here, the dates
//! from the system clock (chrono).

use noid_counts::{Class, CountsDir, Kind, Tally};
use serde_json::json;

use crate::api::Api;

/// Today and `n` days before, `YYYY-MM-DD` (UTC).
fn date(days_ago: u64) -> String {
    let today = chrono::Utc::now().date_naive();
    (today - chrono::Days::new(days_ago))
        .format("%Y-%m-%d")
        .to_string()
}

/// Write `counts` (days ago, identifier, kind, class, how many) as one process's
/// segment of the counts store in `dir`.
fn count(dir: &std::path::Path, counts: &[(u32, &str, Kind, Class, u64)]) {
    let store = CountsDir::new(dir.join("counts"));
    let mut writer = store.writer().unwrap();
    let tally = Tally::default();
    for (ago, id, kind, class, n) in counts {
        tally.set_day(noid_counts::today() - ago);
        for _ in 0..*n {
            tally.count(id.as_bytes(), *kind, *class);
        }
        let mut body = Vec::new();
        tally.drain(&mut body);
        writer.append(&body).unwrap();
    }
}

/// `noid serve` (crate::api's populators), with counts in sam's binder (which `ro`
/// shares) and in its minter `ark/99999/fk4`; `other` has none.
fn counted_api() -> Api {
    let api = Api::start();
    count(
        &api.dir("binders/sam"),
        &[
            (0, "ark:/99999/fk4a", Kind::Redirect(302), Class::Person, 3),
            (0, "ark:/99999/fk4a", Kind::Inflection, Class::Person, 1),
            (1, "ark:/99999/fk4zz", Kind::Miss, Class::Robot, 4),
            (
                100,
                "ark:/99999/fk4a",
                Kind::Redirect(302),
                Class::Person,
                9,
            ),
        ],
    );
    count(
        &api.dir("minters/sam/ark/99999/fk4"),
        &[
            (0, "ark:99999/fk4b", Kind::Redirect(301), Class::Robot, 2),
            (0, "ark:/13030/x", Kind::Redirect(302), Class::Person, 7),
            (2, "ark:/99999/fk4a", Kind::Redirect(302), Class::Person, 5),
        ],
    );
    api
}

/// The report of `ark:/99999/fk4` over the last 3 days, both directories added up,
/// worked out by hand from [`counted_api`]'s counts.
fn fk4_three_days() -> serde_json::Value {
    json!({
        "subject": "ark:/99999/fk4",
        "from": date(2),
        "to": date(0),
        "days": [
            {"day": date(2), "person": {"redirect-302": 5}, "robot": {}},
            {"day": date(1), "person": {}, "robot": {"miss": 4}},
            {"day": date(0), "person": {"inflection": 1, "redirect-302": 3},
             "robot": {"redirect-301": 2}},
        ],
        "total": {"person": {"inflection": 1, "redirect-302": 8},
                  "robot": {"miss": 4, "redirect-301": 2}},
        "most_resolved": [
            {"id": "ark:/99999/fk4a", "people": 9, "robots": 0},
            {"id": "ark:99999/fk4b", "people": 0, "robots": 2},
        ],
        "most_asked_missing": [{"id": "ark:/99999/fk4zz", "people": 0, "robots": 4}],
    })
}

/// The same report as CSV: one row per day, identifier, kind and class, in that order.
fn fk4_three_days_csv() -> String {
    format!(
        "day,identifier,kind,class,count\n\
         {d2},ark:/99999/fk4a,redirect-302,person,5\n\
         {d1},ark:/99999/fk4zz,miss,robot,4\n\
         {d0},ark:/99999/fk4a,redirect-302,person,3\n\
         {d0},ark:/99999/fk4a,inflection,person,1\n\
         {d0},ark:99999/fk4b,redirect-301,robot,2\n",
        d0 = date(0),
        d1 = date(1),
        d2 = date(2)
    )
}

/// `curl -i`: the status line's code, the headers (lower-case names) and the body.
fn get_with_headers(api: &Api, user: &str, path_and_query: &str) -> (u16, String, String) {
    let out = std::process::Command::new("curl")
        .args(["-s", "-i", "-u", user])
        .arg(format!("http://127.0.0.1:{}{path_and_query}", api.port))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    let code = head.split(' ').nth(1).unwrap().parse().unwrap();
    (code, head.to_lowercase(), body.to_string())
}

/// `GET /a/POP/stats` answers the hand-counted report as JSON and CSV, adding up the
/// binder's and the minters' counts; a populator with only the binder answers exactly
/// what `noid stats` prints for it; one without counts answers the empty report and
/// says so; bad values are 400s saying what to give.
#[test]
fn the_api_reports_the_counts_as_noid_stats_does() {
    let api = counted_api();
    let sam = "sam:secret";
    let (status, body) = api.get_as(sam, "/a/sam/stats", "id=ark:/99999/fk4&days=3");
    assert_eq!(status, 200, "{body}");
    let got: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(got, fk4_three_days());
    assert_eq!(
        api.get_as(sam, "/a/sam/stats", "id=ark:/99999/fk4&days=3&format=csv"),
        (200, fk4_three_days_csv())
    );
    // 120 days reach the 9 redirects of 100 days ago; top=1 keeps the first of each list.
    let (_, body) = api.get_as(sam, "/a/sam/stats", "id=ark:99999/fk4a&days=120&top=1");
    let got: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(got["days"].as_array().unwrap().len(), 120);
    assert_eq!(got["days"][19]["day"], date(100));
    assert_eq!(got["days"][19]["person"], json!({"redirect-302": 9}));
    assert_eq!(
        got["most_resolved"],
        json!([{"id": "ark:/99999/fk4a", "people": 18, "robots": 0}])
    );
    // ro has sam's binder and no minters: exactly `noid stats` of the binder.
    for (query, args) in [
        (
            "id=ark:/99999/fk4&days=3",
            vec!["--days", "3", "--format", "json"],
        ),
        (
            "days=120&format=csv",
            vec!["--days", "120", "--format", "csv"],
        ),
        ("", vec!["--format", "json"]),
    ] {
        let out = std::process::Command::new(crate::util::noid_exe())
            .arg("-f")
            .arg(api.dir("binders/sam"))
            .arg("stats")
            .args(query.contains("fk4").then_some("ark:/99999/fk4"))
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            api.get_as("viewer:look", "/a/ro/stats", query),
            (200, String::from_utf8(out.stdout).unwrap()),
            "{query}"
        );
    }
    // Nothing counted yet: the empty report, and a header saying so.
    let (status, head, body) = get_with_headers(&api, "olga:pw", "/a/other/stats?days=2");
    assert_eq!(status, 200);
    assert!(
        head.contains("content-type: application/json\r\n"),
        "{head}"
    );
    assert!(
        head.contains(
            "noid-note: no counts yet: the resolvers count with noidr --counts or the \
             modules' counts=secs"
        ),
        "{head}"
    );
    let got: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        got,
        json!({"subject": "", "from": date(1), "to": date(0),
               "days": [{"day": date(1), "person": {}, "robot": {}},
                        {"day": date(0), "person": {}, "robot": {}}],
               "total": {"person": {}, "robot": {}},
               "most_resolved": [], "most_asked_missing": []})
    );
    let (_, head, _) = get_with_headers(&api, sam, "/a/sam/stats?days=2");
    assert!(!head.contains("noid-note"), "{head}");
    let usage = "stats[?id=ID|PREFIX][&days=N][&top=N][&format=json|csv]";
    for (query, said) in [
        (
            "days=0",
            format!("days \"0\": give a number from 1 to 36600: {usage}"),
        ),
        (
            "days=36601",
            format!("days \"36601\": give a number from 1 to 36600: {usage}"),
        ),
        (
            "days=ten",
            format!("days \"ten\": give a number from 1 to 36600: {usage}"),
        ),
        (
            "top=-1",
            format!("top \"-1\": give a number from 0 to 10000: {usage}"),
        ),
        ("format=xml", "format \"xml\": give json or csv".to_string()),
        (
            "since=3",
            "unknown field \"since\": give id, days, top, format".to_string(),
        ),
    ] {
        assert_eq!(
            api.get_as(sam, "/a/sam/stats", query),
            (400, format!("error: {said}\n")),
            "{query}"
        );
    }
    // Another populator's login is refused, as for every route.
    assert_eq!(
        api.get_as("olga:pw", "/a/sam/stats", ""),
        (403, "error: 403 forbidden\n".into())
    );
}

/// The API's CGI (`noidu-api`, as Apache runs it) answers the same report, and the
/// same 400s.
#[test]
fn the_cgi_reports_the_counts() {
    let api = counted_api();
    let cgi = api.dir("noidu-api");
    std::os::unix::fs::symlink(crate::util::noid_exe(), &cgi).unwrap();
    let run = |path: &str, query: &str, user: &str| {
        let out = std::process::Command::new(&cgi)
            .env_clear()
            .env("NOID_API_CONFIG", api.dir("api.toml"))
            .env("PATH_INFO", path)
            .env("QUERY_STRING", query)
            .env("REMOTE_ADDR", "127.0.0.1")
            .env("REMOTE_USER", user)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let out = run("/sam/stats", "id=ark%3A%2F99999%2Ffk4&days=3", "sam");
    let (head, body) = out.split_once("\r\n\r\n").unwrap();
    assert_eq!(head, "Status: 200 OK\r\ncontent-type: application/json");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(body).unwrap(),
        fk4_three_days()
    );
    assert_eq!(
        run("/sam/stats", "id=ark:/99999/fk4&days=3&format=csv", "sam"),
        format!(
            "Status: 200 OK\r\ncontent-type: text/csv; charset=UTF-8\r\n\r\n{}",
            fk4_three_days_csv()
        )
    );
    assert_eq!(
        run("/sam/stats", "days=0", "sam"),
        "Status: 400 Bad Request\r\ncontent-type: text/plain; charset=UTF-8\r\n\r\n\
         error: days \"0\": give a number from 1 to 36600: \
         stats[?id=ID|PREFIX][&days=N][&top=N][&format=json|csv]\n"
    );
    let out = run("/other/stats", "days=1", "olga");
    assert!(
        out.starts_with(
            "Status: 200 OK\r\ncontent-type: application/json\r\nnoid-note: no counts yet: \
             the resolvers count with noidr --counts or the modules' counts=SECS\r\n\r\n{"
        ),
        "{out}"
    );
}

/// The console's Usage page and the identifier page's Usage section: the chart as an
/// image with its name, the day-by-day table holding exactly the hand-counted numbers,
/// the totals by kind, the lists linked to the identifiers' pages, the downloads equal
/// to the API's report, and bad periods refused with the reason.
#[test]
fn the_console_shows_the_usage_of_a_shoulder_and_of_an_identifier() {
    let api = counted_api();
    let b = crate::console::Browser::new(&api, "sam");
    b.login("sam", "sam", "secret");
    let p = b.get("/console/p/sam/usage?id=ark%3A%2F99999%2Ffk4&days=3");
    assert_eq!(p.status, 200, "{}", p.body);
    let title = format!(
        "Requests per day for ark:/99999/fk4, {} to {} (UTC)",
        date(2),
        date(0)
    );
    for shown in [
        format!(
            "<svg class=\"usage-chart\" viewBox=\"0 0 640 260\" role=\"img\" \
             aria-labelledby=\"usage-title usage-desc\" preserveAspectRatio=\"xMidYMid meet\">\n\
             <title id=\"usage-title\">{title}</title>\n<desc id=\"usage-desc\">3 days: 9 \
             requests by people and 6 by robots; the most on {}: 6 (4 by people, 2 by \
             robots).</desc>",
            date(0)
        ),
        format!(
            "<caption>{title}</caption>\n<thead><tr><th scope=\"col\">Day (UTC)</th>\
             <th scope=\"col\" class=\"n\">People</th><th scope=\"col\" class=\"n\">Robots</th>\
             </tr></thead>\n<tbody>\n\
             <tr><th scope=\"row\">{}</th><td class=\"n\">5</td><td class=\"n\">0</td></tr>\n\
             <tr><th scope=\"row\">{}</th><td class=\"n\">0</td><td class=\"n\">4</td></tr>\n\
             <tr><th scope=\"row\">{}</th><td class=\"n\">4</td><td class=\"n\">2</td></tr>\n\
             </tbody>",
            date(2),
            date(1),
            date(0)
        ),
        "<tbody>\n\
         <tr><th scope=\"row\">inflection</th><td class=\"n\">1</td><td class=\"n\">0</td></tr>\n\
         <tr><th scope=\"row\">miss</th><td class=\"n\">0</td><td class=\"n\">4</td></tr>\n\
         <tr><th scope=\"row\">redirect-301</th><td class=\"n\">0</td><td class=\"n\">2</td></tr>\n\
         <tr><th scope=\"row\">redirect-302</th><td class=\"n\">8</td><td class=\"n\">0</td></tr>\n\
         </tbody>"
            .to_string(),
        "<tr><td><a href=\"/console/p/sam/id?id=ark%3A%2F99999%2Ffk4a\">ark:/99999/fk4a</a>\
         </td><td class=\"n\">9</td><td class=\"n\">0</td></tr>\n\
         <tr><td><a href=\"/console/p/sam/id?id=ark%3A99999%2Ffk4b\">ark:99999/fk4b</a>\
         </td><td class=\"n\">0</td><td class=\"n\">2</td></tr>"
            .to_string(),
        "<tr><td><a href=\"/console/p/sam/id?id=ark%3A%2F99999%2Ffk4zz\">ark:/99999/fk4zz</a>\
         </td><td class=\"n\">0</td><td class=\"n\">4</td></tr>"
            .to_string(),
        "<a href=\"/console/p/sam/usage.csv?id=ark%3A%2F99999%2Ffk4&amp;days=3\" download>CSV</a>"
            .to_string(),
    ] {
        assert!(p.body.contains(&shown), "{shown}\n{}", p.body);
    }
    let csv = b.get("/console/p/sam/usage.csv?id=ark%3A%2F99999%2Ffk4&days=3");
    assert_eq!((csv.status, csv.body), (200, fk4_three_days_csv()));
    let j = b.get("/console/p/sam/usage.json?id=ark%3A%2F99999%2Ffk4&days=3");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&j.body).unwrap(),
        fk4_three_days()
    );

    // The identifier's page: its last 90 days (the 9 of 100 days ago left out).
    let p = b.get("/console/p/sam/id?id=ark%3A%2F99999%2Ffk4a");
    assert_eq!(p.status, 200, "{}", p.body);
    let section = &p.body[p
        .body
        .find("<h2 id=\"usage\">Usage</h2>")
        .expect("a Usage section")..];
    let rows: Vec<&str> = section
        .lines()
        .filter(|l| l.starts_with("<tr><th scope=\"row\">20"))
        .collect();
    assert_eq!(rows.len(), 90);
    let expected = |ago: u64, people: u64| {
        format!(
            "<tr><th scope=\"row\">{}</th><td class=\"n\">{people}</td><td class=\"n\">0</td></tr>",
            date(ago)
        )
    };
    for (i, row) in rows.iter().enumerate() {
        let ago = 89 - i as u64;
        let people = match ago {
            0 => 4,
            2 => 5,
            _ => 0,
        };
        assert_eq!(*row, expected(ago, people));
    }
    assert!(section
        .contains("<desc id=\"id-usage-desc\">90 days: 9 requests by people and 0 by robots"));

    for (query, said) in [
        ("days=367", "days 367: give a number from 1 to 366 here"),
        (
            "days=0",
            "days &quot;0&quot;: give a number from 1 to 36600",
        ),
    ] {
        let p = b.get(&format!("/console/p/sam/usage?{query}"));
        assert_eq!(p.status, 400, "{query}");
        assert!(p.body.contains(&format!("Not shown: {said}")), "{}", p.body);
    }
    // Nothing counted yet: said so.
    let o = crate::console::Browser::new(&api, "other");
    o.login("other", "olga", "pw");
    let p = o.get("/console/p/other/usage");
    assert_eq!(p.status, 200);
    assert!(
        p.body
            .contains("<p class=\"uncounted\">Nothing has been counted yet: the resolvers"),
        "{}",
        p.body
    );
    assert!(!p.body.contains("<svg"), "{}", p.body);
}
