//! "Usage": how often identifiers were resolved, as the resolvers counted them
//! (docs/COUNTS.md), per identifier (the "Usage" section of an identifier's page,
//! [`identifier_section`]) and per shoulder or any prefix (the Usage page,
//! `usage?id=PREFIX&days=N`): a chart of the requests per day ([`super::usage_chart`],
//! SVG drawn here), its numbers in a table, the totals by kind for people and robots,
//! the most resolved and most asked missing identifiers (each linked to its page),
//! and downloads of the same report as CSV and JSON (`usage.csv`, `usage.json`).
//!
//! The request is checked and the counts read as the API's `stats` reads them
//! (noid-binder's `api::stats`: [`Asked`], [`directories`], [`read`]), so the page, the
//! API and `noid stats` show the same numbers. Reading them opens no store.

use hyper::header::{HeaderValue, CONTENT_DISPOSITION, CONTENT_TYPE};
use hyper::StatusCode;
use noid_binder::api::stats::{directories, read, Asked, Counted, Ranked, Report};

use super::ctx::{text, Ctx, Handled};
use super::html::{escape, notice, query_value};
use super::usage_chart::{self, per_day};
use crate::reply::Resp;

/// Days the console shows when none are asked for: the chart's 90.
pub const CHART_DAYS: u32 = 90;
/// The most days the page draws and tabulates (a year and a day); the downloads and
/// the API give longer periods.
pub const MAX_PAGE_DAYS: u32 = 366;
/// Length of the lists on the Usage page, and in the identifier page's section.
const PAGE_TOP: &str = "20";
const SECTION_TOP: &str = "5";

/// What the page's query asks for, checked as the API checks it; `max_days` bounds the
/// period further (the pages', not the downloads').
fn asked_of(c: &Ctx, top: &str, max_days: u32) -> Result<Asked, String> {
    let days = match c.query.text("days") {
        "" => CHART_DAYS.to_string(),
        d => d.to_string(),
    };
    let asked = Asked::checked(c.query.text("id"), &days, top)?;
    if asked.days > max_days {
        return Err(format!(
            "days {:?}: give a number from 1 to {max_days} here (the CSV and JSON \
             downloads and the API's stats give up to 36600)",
            asked.days
        ));
    }
    Ok(asked)
}

/// The counts `asked` asks for, of the populator's binder and minters, read on a
/// blocking thread.
async fn counted(c: &Ctx, asked: &Asked) -> Result<Counted, String> {
    let dirs = directories(&c.pop);
    let query = asked.query();
    tokio::task::spawn_blocking(move || read(&dirs, &query))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("The counts cannot be read: {e}"))
}

/// The query string of `asked` (for the links to the same report).
fn query_of(asked: &Asked) -> String {
    format!(
        "id={}&days={}",
        query_value(asked.subject.as_deref().unwrap_or("")),
        asked.days
    )
}

/// `GET usage?id=ID|PREFIX&days=N`: the form, and the report.
pub fn page(c: Ctx) -> Handled {
    Box::pin(async move {
        const TITLE: &str = "Usage";
        let asked = match asked_of(&c, PAGE_TOP, MAX_PAGE_DAYS) {
            Ok(a) => a,
            Err(e) => {
                let days = c.query.text("days").to_string();
                let body = notice("error", &format!("Not shown: {e}."))
                    + &form(&c, c.query.text("id"), &days);
                return c.page(StatusCode::BAD_REQUEST, TITLE, &body);
            }
        };
        let mut body = form(
            &c,
            asked.subject.as_deref().unwrap_or(""),
            &asked.days.to_string(),
        );
        match counted(&c, &asked).await {
            Ok(counted) => body.push_str(&report_html(&c, &asked, &counted, "h2", "usage")),
            Err(e) => {
                body.push_str(&notice("error", &e));
                return c.page(StatusCode::SERVICE_UNAVAILABLE, TITLE, &body);
            }
        }
        c.page(StatusCode::OK, TITLE, &body)
    })
}

/// The identifier page's "Usage" section: the last 90 days of `id` (and of the
/// identifiers that start with it: its suffixes, as asked).
pub async fn identifier_section(c: &Ctx, id: &str) -> String {
    let mut s = String::from("<h2 id=\"usage\">Usage</h2>\n");
    let asked = match Asked::checked(id, &CHART_DAYS.to_string(), SECTION_TOP) {
        Ok(a) => a,
        Err(e) => return s + &notice("error", &e),
    };
    match counted(c, &asked).await {
        Ok(counted) => s.push_str(&report_html(c, &asked, &counted, "h3", "id-usage")),
        Err(e) => s.push_str(&notice("error", &e)),
    }
    s.push_str(&format!(
        "<p><a href=\"{}usage?{}\">Open its Usage page</a> (other periods, longer lists)</p>\n",
        escape(&c.base()),
        escape(&query_of(&asked))
    ));
    s
}

/// The report laid out under headings of level `h`; `id` prefixes the chart's ids.
/// Before anything is counted, only a sentence saying so.
fn report_html(c: &Ctx, asked: &Asked, counted: &Counted, h: &str, id: &str) -> String {
    let report = &counted.report;
    let mut s = String::new();
    if !counted.counted {
        // Nothing to chart or list: said once, in words (not a notice: nothing is wrong).
        s.push_str(
            "<p class=\"uncounted\">Nothing has been counted yet: the resolvers count with \
             <code>noidr --counts</code> or the web server modules' <code>counts=SECS</code> \
             (docs/COUNTS.md).</p>\n",
        );
        return s;
    }
    if report.total.all() == 0 {
        s.push_str(&format!(
            "<p>No requests were counted for {} from {} to {} (UTC).</p>\n",
            subject_html(report),
            report.from,
            report.to
        ));
    }
    s.push_str(&usage_chart::svg(report, id));
    s.push_str(&days_table(report));
    s.push_str(&format!("<{h}>Totals by kind</{h}>\n"));
    s.push_str(&totals_table(report));
    for (title, list, empty) in [
        (
            "Most resolved",
            &report.most_resolved,
            "No identifier was resolved.",
        ),
        (
            "Most asked for and missing",
            &report.most_asked_missing,
            "No identifier was asked for and missing.",
        ),
    ] {
        s.push_str(&format!("<{h}>{title}</{h}>\n"));
        s.push_str(&ranked_table(c, title, list, empty));
    }
    let q = escape(&query_of(asked));
    s.push_str(&format!(
        "<p class=\"downloads\">Download this report: <a href=\"{base}usage.csv?{q}\" download>CSV</a> \
         (one row per day, identifier, kind and class) · \
         <a href=\"{base}usage.json?{q}\" download>JSON</a></p>\n",
        base = escape(&c.base())
    ));
    s
}

/// The report's subject as HTML.
fn subject_html(report: &Report) -> String {
    if report.subject.is_empty() {
        "any identifier".into()
    } else {
        format!("<code>{}</code>", escape(&report.subject))
    }
}

/// The chart's numbers: one row a day (the days without counts too).
fn days_table(report: &Report) -> String {
    let mut s = format!(
        "<details class=\"usage-days\">\n<summary>The numbers, day by day</summary>\n\
         <table class=\"usage\">\n<caption>{}</caption>\n<thead><tr><th scope=\"col\">Day \
         (UTC)</th><th scope=\"col\" class=\"n\">People</th><th scope=\"col\" \
         class=\"n\">Robots</th></tr></thead>\n<tbody>\n",
        escape(&usage_chart::title(report))
    );
    for d in &report.days {
        let (people, robots) = per_day(d);
        s.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td class=\"n\">{people}</td><td class=\"n\">{robots}</td></tr>\n",
            escape(&d.day)
        ));
    }
    s.push_str("</tbody>\n</table>\n</details>\n");
    s
}

/// The totals of the period by kind (`redirect-302`, `miss`, …), people and robots.
fn totals_table(report: &Report) -> String {
    let t = &report.total;
    let mut kinds: Vec<&String> = t.person.keys().chain(t.robot.keys()).collect();
    kinds.sort();
    kinds.dedup();
    if kinds.is_empty() {
        return "<p>None.</p>\n".into();
    }
    let mut s = String::from(
        "<table class=\"usage\">\n<caption>Requests by kind of answer</caption>\n<thead><tr>\
         <th scope=\"col\">Kind</th><th scope=\"col\" class=\"n\">People</th>\
         <th scope=\"col\" class=\"n\">Robots</th></tr></thead>\n<tbody>\n",
    );
    for kind in kinds {
        s.push_str(&format!(
            "<tr><th scope=\"row\">{}</th><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>\n",
            escape(kind),
            t.person.get(kind).copied().unwrap_or(0),
            t.robot.get(kind).copied().unwrap_or(0)
        ));
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// A ranked list, each identifier linked to its page.
fn ranked_table(c: &Ctx, caption: &str, list: &[Ranked], empty: &str) -> String {
    if list.is_empty() {
        return format!("<p>{empty}</p>\n");
    }
    let mut s = format!(
        "<table class=\"usage ranked\">\n<caption>{caption}</caption>\n<thead><tr>\
         <th scope=\"col\">Identifier</th><th scope=\"col\" class=\"n\">People</th>\
         <th scope=\"col\" class=\"n\">Robots</th></tr></thead>\n<tbody>\n"
    );
    for r in list {
        s.push_str(&format!(
            "<tr><td><a href=\"{}id?id={}\">{}</a></td><td class=\"n\">{}</td>\
             <td class=\"n\">{}</td></tr>\n",
            escape(&c.base()),
            query_value(&r.id),
            escape(&r.id),
            r.people,
            r.robots
        ));
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// The form (a GET: the page's address is the question, to bookmark or mail).
fn form(c: &Ctx, id: &str, days: &str) -> String {
    format!(
        "<form method=\"get\" action=\"{}usage\" role=\"search\">\n<div class=\"pair\">\n\
         <div><label for=\"usage-id\">Identifier or prefix</label>\n\
         <input type=\"text\" id=\"usage-id\" name=\"id\" value=\"{}\" \
         aria-describedby=\"usage-id-hint\">\n\
         <p class=\"hint\" id=\"usage-id-hint\">A shoulder (<code>ark:/99999/fk4</code>), a \
         NAAN or one identifier; empty for all.</p></div>\n\
         <div><label for=\"usage-days\">Days</label>\n\
         <input type=\"number\" id=\"usage-days\" name=\"days\" min=\"1\" max=\"{MAX_PAGE_DAYS}\" \
         value=\"{}\" aria-describedby=\"usage-days-hint\">\n\
         <p class=\"hint\" id=\"usage-days-hint\">The last N days, today (UTC) included.</p>\
         </div>\n</div>\n<button type=\"submit\">Show</button>\n</form>\n",
        escape(&c.base()),
        escape(id),
        escape(days)
    )
}

/// `GET usage.csv` and `usage.json`: the report of the same query, downloaded.
fn download(c: Ctx, csv: bool) -> Handled {
    Box::pin(async move {
        let asked = match asked_of(&c, PAGE_TOP, noid_binder::api::stats::MAX_DAYS) {
            Ok(a) => a,
            Err(e) => return text(StatusCode::BAD_REQUEST, &format!("{e}\n")),
        };
        let report = match counted(&c, &asked).await {
            Ok(counted) => counted.report,
            Err(e) => return text(StatusCode::SERVICE_UNAVAILABLE, &format!("{e}\n")),
        };
        let (body, kind, name) = if csv {
            (report.csv(), "text/csv; charset=utf-8", "usage.csv")
        } else {
            (report.json(), "application/json", "usage.json")
        };
        downloaded(&body, kind, name)
    })
}

/// A `200` of `body` as an attachment named `name`.
fn downloaded(body: &str, kind: &'static str, name: &'static str) -> Resp {
    let mut r = text(StatusCode::OK, body);
    let h = r.headers_mut();
    h.insert(CONTENT_TYPE, HeaderValue::from_static(kind));
    if let Ok(v) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        h.insert(CONTENT_DISPOSITION, v);
    }
    r
}

/// `GET usage.csv`.
pub fn csv(c: Ctx) -> Handled {
    download(c, true)
}

/// `GET usage.json`.
pub fn json(c: Ctx) -> Handled {
    download(c, false)
}
