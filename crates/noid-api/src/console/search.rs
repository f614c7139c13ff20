//! "Search": the binder's identifiers found by what they hold, in the curator's query
//! language (docs/SEARCH.md): a table of title, creator, date, target and link status,
//! sortable by each column, with the facets as links that narrow the query, pages, and a
//! download of every match (CSV, JSON lines, ANVL). The same noid-search calls as `noid
//! search` and the API's `search`; the index beside the binder is held open by the
//! service and caught up with the store at each request (`noid_search::current`).

use std::path::PathBuf;

use hyper::header::{HeaderValue, CONTENT_DISPOSITION};
use hyper::StatusCode;
use noid_search::{Format, Query, Results, Sort};

use super::ctx::{Ctx, Handled};
use super::html::{escape, notice, query_value};

/// Hits per page.
const PER_PAGE: usize = 50;

/// The columns of the table: label, the sort's name, the hit's value.
const COLUMNS: [(&str, &str); 5] = [
    ("Title", "title"),
    ("Creator", "creator"),
    ("Date", "date"),
    ("Target", "target"),
    ("Updated", "updated"),
];

/// The query form (a GET: the page's address is the search, to bookmark or mail).
fn form(c: &Ctx, q: &str) -> String {
    format!(
        "<form method=\"get\" action=\"{}search\" role=\"search\">\n\
         <label for=\"q\">Find identifiers</label>\n\
         <input type=\"search\" id=\"q\" name=\"q\" value=\"{}\" \
         aria-describedby=\"q-hint\">\n\
         <button type=\"submit\">Search</button>\n\
         <p class=\"hint\" id=\"q-hint\">Words and <code>\"phrases\"</code> anywhere; \
         <code>what:Title</code>, <code>host:example.org</code>, \
         <code>under:ark:/13030/f5</code>, <code>updated:&gt;2026-01-01</code>, \
         <code>status:broken</code>, <code>withdrawn:yes</code>; <code>-</code> before a \
         condition leaves it out.</p>\n</form>\n",
        c.base(),
        escape(q)
    )
}

/// The binder's directory, or the page that says there is none.
fn binder_dir(c: &Ctx) -> Option<PathBuf> {
    c.pop.populator.binder.clone()
}

/// `GET search?q=Q[&sort=KEY][&page=N]`.
pub fn page(c: Ctx) -> Handled {
    Box::pin(async move {
        let title = "Search";
        let q = c.query.text("q").to_string();
        let mut body = form(&c, &q);
        if q.trim().is_empty() {
            return c.page(StatusCode::OK, title, &body);
        }
        let query: Query = match q.parse() {
            Ok(query) => query,
            Err(e) => {
                body.push_str(&notice("error", &format!("The query cannot be read: {e}")));
                return c.page(StatusCode::BAD_REQUEST, title, &body);
            }
        };
        let sort_name = match c.query.text("sort") {
            "" => "relevance".to_string(),
            s => s.to_string(),
        };
        let Some(sort) = Sort::parse(&sort_name) else {
            body.push_str(&notice(
                "error",
                &format!("There is no sort {sort_name:?}."),
            ));
            return c.page(StatusCode::BAD_REQUEST, title, &body);
        };
        let page = c.query.text("page").parse::<usize>().unwrap_or(1).max(1);
        let Some(dir) = binder_dir(&c) else {
            body.push_str("<p>This populator has no binder.</p>\n");
            return c.page(StatusCode::NOT_FOUND, title, &body);
        };
        let asked = query.clone();
        let found = tokio::task::spawn_blocking(move || {
            noid_search::current(&dir)
                .and_then(|i| i.search(&asked, (page - 1) * PER_PAGE, PER_PAGE, sort))
        })
        .await;
        let results = match found {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                body.push_str(&notice("error", &format!("The search failed: {e}")));
                return c.page(StatusCode::SERVICE_UNAVAILABLE, title, &body);
            }
            Err(e) => {
                body.push_str(&notice("error", &e.to_string()));
                return c.page(StatusCode::INTERNAL_SERVER_ERROR, title, &body);
            }
        };
        body.push_str(&results_html(&c, &q, &sort_name, page, &results));
        c.page(StatusCode::OK, title, &body)
    })
}

/// The link to this search with `sort` and `page`.
fn href(c: &Ctx, q: &str, sort: &str, page: usize) -> String {
    let mut s = format!("{}search?q={}", c.base(), query_value(q));
    if sort != "relevance" {
        s.push_str(&format!("&amp;sort={}", query_value(sort)));
    }
    if page > 1 {
        s.push_str(&format!("&amp;page={page}"));
    }
    s
}

/// The count, the downloads, the facets, the table and the pages.
fn results_html(c: &Ctx, q: &str, sort: &str, page: usize, r: &Results) -> String {
    let first = (page - 1) * PER_PAGE + 1;
    let last = (first + r.hits.len()).saturating_sub(1);
    let mut s = match r.total {
        0 => "<p id=\"count\" role=\"status\">No identifiers match.</p>\n".to_string(),
        1 => "<p id=\"count\" role=\"status\">1 identifier matches.</p>\n".to_string(),
        n => format!(
            "<p id=\"count\" role=\"status\">{n} identifiers match; {first}–{last} shown.</p>\n"
        ),
    };
    if r.total == 0 {
        return s;
    }
    s.push_str("<p class=\"downloads\">Download every match: ");
    let downloads: Vec<String> = [
        ("search.csv", "CSV"),
        ("search.jsonl", "JSON lines"),
        ("search.anvl", "ANVL"),
    ]
    .iter()
    .map(|(path, label)| {
        format!(
            "<a href=\"{}{path}?q={}\" download>{label}</a>",
            c.base(),
            query_value(q)
        )
    })
    .collect();
    s.push_str(&downloads.join(", "));
    s.push_str("</p>\n");
    s.push_str(&facets_html(c, q, r));
    s.push_str(
        "<div class=\"scroll\">\n<table class=\"hits\">\n<caption>Matching identifiers (choose a column's heading to \
         sort by it)</caption>\n<tr><th scope=\"col\">Identifier</th>",
    );
    for (label, key) in COLUMNS {
        let (aria, next) = if sort == key {
            (" aria-sort=\"ascending\"", format!("-{key}"))
        } else if sort == format!("-{key}") {
            (" aria-sort=\"descending\"", key.to_string())
        } else {
            ("", key.to_string())
        };
        s.push_str(&format!(
            "<th scope=\"col\"{aria}><a href=\"{}\">{label}</a></th>",
            href(c, q, &next, 1)
        ));
    }
    s.push_str("<th scope=\"col\">Link status</th></tr>\n");
    for h in &r.hits {
        let cell = |v: &Option<String>| escape(v.as_deref().unwrap_or(""));
        let updated = h
            .updated
            .and_then(|t| chrono::DateTime::from_timestamp(t, 0))
            .map_or_else(String::new, |t| t.format("%Y-%m-%d").to_string());
        s.push_str(&format!(
            "<tr><td><a href=\"{}id?id={}\">{}</a></td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td>{}</td></tr>\n",
            c.base(),
            query_value(&h.id),
            escape(&h.id),
            cell(&h.what),
            cell(&h.who),
            cell(&h.when),
            cell(&h.target),
            escape(&updated),
            escape(&h.statuses.join(", ")),
        ));
    }
    s.push_str("</table>\n</div>\n");
    let pages = r.total.div_ceil(PER_PAGE);
    if pages > 1 {
        s.push_str("<nav aria-label=\"Pages of matches\"><p>");
        if page > 1 {
            s.push_str(&format!(
                "<a href=\"{}\" rel=\"prev\">Previous</a> ",
                href(c, q, sort, page - 1)
            ));
        }
        s.push_str(&format!("Page {page} of {pages}"));
        if page < pages {
            s.push_str(&format!(
                " <a href=\"{}\" rel=\"next\">Next</a>",
                href(c, q, sort, page + 1)
            ));
        }
        s.push_str("</p></nav>\n");
    }
    s
}

/// The facets: each value a link to the query narrowed by it, with its count.
fn facets_html(c: &Ctx, q: &str, r: &Results) -> String {
    let groups: [(&str, &str, &Vec<(String, u64)>); 5] = [
        ("Shoulder", "under", &r.facets.shoulder),
        ("Target host", "host", &r.facets.host),
        ("Populator", "populator", &r.facets.populator),
        ("Standing", "standing", &r.facets.standing),
        ("Link status", "status", &r.facets.status),
    ];
    let mut s = String::from("<section class=\"facets\" aria-labelledby=\"facets\">\n<h2 id=\"facets\">Narrow the matches</h2>\n");
    for (label, field, values) in groups {
        if values.is_empty() {
            continue;
        }
        s.push_str(&format!("<h3>{label}</h3>\n<ul>\n"));
        for (value, n) in values.iter().take(10) {
            let narrowed = format!("{q} {field}:{}", quoted(value));
            s.push_str(&format!(
                "<li><a href=\"{}\">{}</a> ({n})</li>\n",
                href(c, &narrowed, "relevance", 1),
                escape(value)
            ));
        }
        s.push_str("</ul>\n");
    }
    s + "</section>\n"
}

/// A facet's value as the query language writes it: in quotes (a `"` or `\` inside
/// escaped with `\`) when it holds white space or either (shoulders, hosts and
/// statuses never do; a populator's name might).
fn quoted(value: &str) -> String {
    if !value.contains(|c: char| c.is_whitespace() || c == '"' || c == '\\') {
        return value.to_string();
    }
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

/// `GET search.csv|search.jsonl|search.anvl?q=Q`: every match, for download.
pub fn download(c: Ctx, format: Format, name: &'static str) -> Handled {
    Box::pin(async move {
        let q = c.query.text("q").to_string();
        let query: Query = match q.parse() {
            Ok(query) => query,
            Err(e) => {
                return super::ctx::text(
                    StatusCode::BAD_REQUEST,
                    &format!("The query cannot be read: {e}\n"),
                )
            }
        };
        let Some(dir) = binder_dir(&c) else {
            return super::ctx::text(StatusCode::NOT_FOUND, "This populator has no binder.\n");
        };
        // Opening (and catching up) the index reads the disk: a blocking thread's work.
        let opened =
            tokio::task::spawn_blocking(move || noid_binder::api::search::opened(&dir)).await;
        let reply = match opened {
            Ok(Ok(index)) => noid_binder::api::search::export(index, query, format),
            Ok(Err(unavailable)) => unavailable,
            Err(e) => {
                return super::ctx::text(StatusCode::INTERNAL_SERVER_ERROR, &format!("{e}\n"))
            }
        };
        let ok = reply.status.is_success();
        let mut r = crate::reply::response(reply);
        if !ok {
            return r;
        }
        let h = r.headers_mut();
        if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
            h.insert(CONTENT_DISPOSITION, v);
        }
        r
    })
}

/// `GET search.csv`.
pub fn csv(c: Ctx) -> Handled {
    download(c, Format::Csv, "search.csv")
}

/// `GET search.jsonl`.
pub fn json_lines(c: Ctx) -> Handled {
    download(c, Format::JsonLines, "search.jsonl")
}

/// `GET search.anvl`.
pub fn anvl(c: Ctx) -> Handled {
    download(c, Format::Anvl, "search.anvl")
}
