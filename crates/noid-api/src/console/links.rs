//! "Link health": what the link checker found of the populator's targets (noid-binder's
//! [`link_health`]), counted by status, filtered by status, shoulder (or any prefix),
//! populator and host, each row linked to its identifier's page, and a CSV download
//! of exactly the rows shown. The identifier's page shows its targets' status and
//! history ([`identifier_section`]). Read through the binder's read-only view, never
//! the writer thread.

use hyper::header::{HeaderValue, CONTENT_DISPOSITION, CONTENT_TYPE};
use hyper::StatusCode;
use noid_binder::link_health::{self, Filter, Report, TargetHistory};
use noid_core::links::Status;

use super::ctx::{Ctx, Handled};
use super::html::{escape, notice, query_value};

/// Rows one page shows (and its download holds); a narrower filter shows the rest.
pub const SHOWN: usize = 1000;

/// The filter the page's query asks for, or what is wrong with it.
fn filter_of(c: &Ctx) -> Result<Filter, String> {
    let q = &c.query;
    Filter::of(
        q.text("status"),
        q.text("under"),
        q.text("populator"),
        q.text("host"),
    )
    .map_err(|e| format!("Status: {e}."))
}

/// The report of the page's filter.
async fn read(c: &Ctx, filter: &Filter) -> Result<Report, String> {
    let f = filter.clone();
    c.binder()
        .view(move |store| link_health::report(store, &f, SHOWN).map_err(|e| e.to_string()))
        .await?
}

/// `GET links`: the counts, the filter form, the rows.
pub fn page(c: Ctx) -> Handled {
    Box::pin(async move {
        const TITLE: &str = "Link health";
        let filter = match filter_of(&c) {
            Ok(f) => f,
            Err(e) => {
                let body = notice("error", &e) + &form(&c, &Filter::default());
                return c.page(StatusCode::BAD_REQUEST, TITLE, &body);
            }
        };
        let mut body = form(&c, &filter);
        match read(&c, &filter).await {
            Ok(report) => {
                body.push_str(&counts(&c, &filter, &report));
                body.push_str(&rows(&c, &filter, &report));
            }
            Err(e) => body.push_str(&notice("error", &e)),
        }
        c.page(StatusCode::OK, TITLE, &body)
    })
}

/// `GET links.csv`: the rows the page shows with the same query, as CSV.
pub fn download(c: Ctx) -> Handled {
    Box::pin(async move {
        let report = match filter_of(&c) {
            Ok(filter) => read(&c, &filter).await,
            Err(e) => Err(e),
        };
        let report = match report {
            Ok(r) => r,
            Err(e) => return super::ctx::text(StatusCode::BAD_REQUEST, &format!("{e}\n")),
        };
        let mut r = super::ctx::text(StatusCode::OK, &link_health::csv(&report.rows));
        let h = r.headers_mut();
        h.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/csv; charset=utf-8"),
        );
        h.insert(
            CONTENT_DISPOSITION,
            HeaderValue::from_static("attachment; filename=\"link-health.csv\""),
        );
        r
    })
}

/// The filter form (a GET: the page's address is the filter, to bookmark or mail).
fn form(c: &Ctx, f: &Filter) -> String {
    let mut options = String::from("<option value=\"\">any</option>\n");
    for s in Status::ALL {
        options.push_str(&format!(
            "<option value=\"{s}\"{}>{s}</option>\n",
            if f.status == Some(s) { " selected" } else { "" }
        ));
    }
    let text = |name: &str, label: &str, value: &str| {
        format!(
            "<div><label for=\"links-{name}\">{label}</label>\n\
             <input type=\"text\" id=\"links-{name}\" name=\"{name}\" value=\"{}\"></div>\n",
            escape(value)
        )
    };
    format!(
        "<form method=\"get\" action=\"{base}links\" role=\"search\">\n<div class=\"pair\">\n\
         <div><label for=\"links-status\">Status</label>\n\
         <select id=\"links-status\" name=\"status\">\n{options}</select></div>\n{}{}{}</div>\n\
         <button type=\"submit\">Show</button>\n</form>\n",
        text("under", "Shoulder or prefix", &f.under),
        text(
            "populator",
            "Populator",
            f.populator.as_deref().unwrap_or("")
        ),
        text("host", "Host", f.host.as_deref().unwrap_or("")),
        base = c.base(),
    )
}

/// The counts by status of the filter's targets, each a link to them.
fn counts(c: &Ctx, f: &Filter, report: &Report) -> String {
    let mut s = String::from(
        "<h2>By status</h2>\n<table class=\"counts\">\n<thead><tr><th scope=\"col\">Status</th>\
         <th scope=\"col\">Targets</th></tr></thead>\n<tbody>\n",
    );
    for (status, n) in &report.counts {
        let only = Filter {
            status: Some(*status),
            ..f.clone()
        };
        s.push_str(&format!(
            "<tr><td><a href=\"{}links?{}\">{status}</a></td><td>{n}</td></tr>\n",
            c.base(),
            escape(&only.query())
        ));
    }
    s.push_str("</tbody>\n</table>\n");
    s
}

/// The rows, and the download of them.
fn rows(c: &Ctx, f: &Filter, report: &Report) -> String {
    let base = c.base();
    let mut s = String::from("<h2>Targets</h2>\n");
    if report.rows.is_empty() {
        s.push_str("<p>No target matches.</p>\n");
        return s;
    }
    s.push_str(&format!(
        "<p><a href=\"{base}links.csv?{}\" download>Download these {} rows (CSV)</a></p>\n",
        escape(&f.query()),
        report.rows.len()
    ));
    if report.more > 0 {
        s.push_str(&notice(
            "ok",
            &format!(
                "{} more targets match: narrow the filter to see them.",
                report.more
            ),
        ));
    }
    s.push_str(
        "<div class=\"scroll\" role=\"region\" aria-label=\"Targets\" tabindex=\"0\">\n\
         <table class=\"writes links\">\n<thead><tr><th scope=\"col\">Identifier</th>\
         <th scope=\"col\">Target</th><th scope=\"col\">Status</th><th scope=\"col\">HTTP</th>\
         <th scope=\"col\">Checked</th><th scope=\"col\">Since</th><th scope=\"col\">Detail</th>\
         </tr></thead>\n<tbody>\n",
    );
    for r in &report.rows {
        let st = &r.state;
        s.push_str(&format!(
            "<tr><td data-label=\"Identifier\"><a href=\"{base}id?id={}\">{}</a></td>\
             <td data-label=\"Target\">{}</td><td data-label=\"Status\">{}</td>\
             <td data-label=\"HTTP\">{}</td><td data-label=\"Checked\">{}</td>\
             <td data-label=\"Since\">{}</td><td data-label=\"Detail\">{}</td></tr>\n",
            query_value(&r.id),
            escape(&r.id),
            escape(&r.target),
            st.status,
            st.http.map(|h| h.to_string()).unwrap_or_default(),
            link_health::time(st.checked),
            link_health::time(st.since),
            escape(&st.detail)
        ));
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
    s
}

/// The identifier page's "Link health" section: each target the checker has seen,
/// its status and its history (empty when it has seen none).
pub async fn identifier_section(c: &Ctx, id: &str) -> String {
    let asked = id.to_string();
    let read = c
        .binder()
        .view(move |store| link_health::of_identifier(store, &asked).map_err(|e| e.to_string()))
        .await;
    let targets: Vec<TargetHistory> = match read {
        Ok(Ok(t)) => t,
        Ok(Err(e)) | Err(e) => return notice("error", &e),
    };
    if targets.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2>Link health</h2>\n");
    for t in &targets {
        let st = &t.state;
        s.push_str(&format!(
            "<p><span class=\"target\">{}</span>: <strong>{}</strong>{} · checked {} · since {}{}</p>\n",
            escape(&t.target),
            st.status,
            st.http.map(|h| format!(" (HTTP {h})")).unwrap_or_default(),
            link_health::time(st.checked),
            link_health::time(st.since),
            if st.detail.is_empty() {
                String::new()
            } else {
                format!(" · {}", escape(&st.detail))
            }
        ));
        if t.changes.is_empty() {
            continue;
        }
        s.push_str(
            "<table class=\"history\">\n<caption>History</caption>\n<thead><tr>\
             <th scope=\"col\">When</th><th scope=\"col\">From</th><th scope=\"col\">To</th>\
             <th scope=\"col\">HTTP</th><th scope=\"col\">Seen</th></tr></thead>\n<tbody>\n",
        );
        for (at, ch) in t.changes.iter().rev() {
            s.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                link_health::time(*at),
                ch.from.map(|f| f.as_str()).unwrap_or("(first check)"),
                ch.to,
                ch.http.map(|h| h.to_string()).unwrap_or_default(),
                escape(&ch.detail)
            ));
        }
        s.push_str("</tbody>\n</table>\n");
    }
    s
}
