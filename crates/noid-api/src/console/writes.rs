//! The binder's recent writes, newest first, from its write log (noid-binder's `recent`),
//! a page of [`PAGE`] at a time: every write the API, `noid serve`'s bulk POSTs and the
//! console made, with who made it and when.

use chrono::NaiveDate;
use hyper::StatusCode;
use noid_core::spelling::{self, Canon};

use super::ctx::{Ctx, Handled};
use super::html::{escape, notice, query_value};
use noid_binder::recent::{self, Write, PAGE};

/// Characters of a value shown (the identifier's page has it whole).
const SHOWN: usize = 120;

/// Most log records one filtered page reads looking for matches; past them, the page
/// offers to look further back ("Older writes"), so that a filter that matches
/// nothing never reads a long log in one request.
const SCANNED: usize = 10_000;

/// Which writes the page shows: all by default.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Filter {
    /// The identifier, in the binder's spelling (any spelling is given).
    pub id: Option<String>,
    /// A login or populator: writes by it or for it.
    pub who: Option<String>,
    /// Writes from this day on (UTC), as epoch seconds.
    pub from: Option<i64>,
    /// Writes before the end of this day (UTC), as epoch seconds of the next day.
    pub until: Option<i64>,
}

impl Filter {
    /// The filter the query's `id`, `who`, `from` and `to` fields ask for; identifiers
    /// are respelled as the binder's gate stores them (`ark:13030/x`,
    /// `https://n2t.net/ark:/13030/x` and `13030/x` are `ark:/13030/x`), so any
    /// spelling finds the writes. An error says which field is wrong and how to write it.
    pub fn of(
        id: &str,
        who: &str,
        from: &str,
        to: &str,
        naans: Vec<String>,
    ) -> Result<Filter, String> {
        let id = match id {
            "" => None,
            given => Some(
                spelling::canonical(given, &Canon::Ark { naans })
                    .map_err(|e| format!("Identifier: {e}."))?
                    .into_owned(),
            ),
        };
        let day = |field: &str, text: &str| -> Result<Option<i64>, String> {
            if text.is_empty() {
                return Ok(None);
            }
            NaiveDate::parse_from_str(text, "%Y-%m-%d")
                .map(|d| {
                    Some(
                        d.and_hms_opt(0, 0, 0)
                            .expect("midnight")
                            .and_utc()
                            .timestamp(),
                    )
                })
                .map_err(|_| {
                    format!("{field}: give a day as YYYY-MM-DD (such as 2026-11-28), not {text:?}.")
                })
        };
        let from = day("From", from)?;
        let until = day("To", to)?.map(|t| t + 86_400);
        if let (Some(f), Some(u)) = (from, until) {
            if u <= f {
                return Err("To is before From: give the earlier day in From.".into());
            }
        }
        Ok(Filter {
            id,
            who: Some(who.to_string()).filter(|w| !w.is_empty()),
            from,
            until,
        })
    }

    /// Whether the page shows every write.
    pub fn is_all(&self) -> bool {
        *self == Filter::default()
    }

    /// Whether write `w` passes.
    pub fn admits(&self, w: &Write) -> bool {
        let r = &w.record;
        self.id.as_ref().is_none_or(|id| w.id == *id)
            && self
                .who
                .as_ref()
                .is_none_or(|who| r.agent == *who || r.populator == *who)
            && self.from.is_none_or(|f| r.epoch >= f)
            && self.until.is_none_or(|u| r.epoch < u)
    }
}

/// The writes the filter admits before byte `before` of `log`: up to [`PAGE`] of them,
/// reading at most [`SCANNED`] records, and where to look for older ones.
fn filtered(
    log: &std::path::Path,
    filter: &Filter,
    before: Option<u64>,
) -> std::io::Result<recent::Page> {
    if filter.is_all() {
        return recent::page(log, before, PAGE);
    }
    let mut found = recent::Page::default();
    let mut cursor = before;
    let mut scanned = 0;
    loop {
        let page = recent::page(log, cursor, PAGE)?;
        scanned += page.writes.len().max(1);
        for w in page.writes {
            if found.writes.len() == PAGE {
                // Older writes start after this page's last shown one.
                found.older = Some(found.writes.last().expect("a write").offset);
                return Ok(found);
            }
            if filter.admits(&w) {
                found.writes.push(w);
            }
        }
        match page.older {
            Some(o) if scanned < SCANNED => cursor = Some(o),
            older => {
                found.older = older;
                return Ok(found);
            }
        }
    }
}

/// `GET writes?id=ID&who=LOGIN&from=DAY&to=DAY&before=OFFSET`.
pub fn page(c: Ctx) -> Handled {
    Box::pin(async move {
        let Some(log) = c.pop.log_path() else {
            return c.page(
                StatusCode::OK,
                "Recent writes",
                "<p>This populator has no binder.</p>\n",
            );
        };
        let q = &c.query;
        let fields = [q.text("id"), q.text("who"), q.text("from"), q.text("to")];
        let mut body = filter_form(&c, &fields);
        let naans = c
            .binder()
            .minters()
            .into_iter()
            .map(|[_, naan, _]| naan)
            .collect();
        let filter = match Filter::of(fields[0], fields[1], fields[2], fields[3], naans) {
            Ok(f) => f,
            Err(why) => {
                body = notice("error", &why) + &body;
                return c.page(StatusCode::BAD_REQUEST, "Recent writes", &body);
            }
        };
        let before = q.text("before").parse::<u64>().ok();
        let wanted = filter.clone();
        let read = tokio::task::spawn_blocking(move || filtered(&log, &wanted, before)).await;
        let page = match read {
            Ok(Ok(p)) => p,
            Ok(Err(e)) => {
                body.push_str(&notice("error", &format!("Cannot read the write log: {e}")));
                return c.page(StatusCode::INTERNAL_SERVER_ERROR, "Recent writes", &body);
            }
            Err(_) => return c.page(StatusCode::INTERNAL_SERVER_ERROR, "Recent writes", ""),
        };
        if page.writes.is_empty() && filter.is_all() {
            body.push_str("<p>No writes are recorded in this binder's write log.</p>\n");
        } else if page.writes.is_empty() {
            body.push_str("<p>No writes here match the filter.</p>\n");
        } else {
            body.push_str(&table(&c, &page.writes));
        }
        // The links keep the filter.
        let kept: String = ["id", "who", "from", "to"]
            .iter()
            .zip(fields)
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| format!("{k}={}&", query_value(v)))
            .collect();
        let base = escape(&c.base());
        body.push_str("<nav aria-label=\"Pages of writes\">\n<p>");
        if before.is_some() {
            body.push_str(&format!(
                "<a href=\"{base}writes?{}\">Newest writes</a> ",
                escape(kept.trim_end_matches('&'))
            ));
        }
        if let Some(o) = page.older {
            body.push_str(&format!(
                "<a href=\"{base}writes?{}before={o}\">Older writes</a>",
                escape(&kept)
            ));
        }
        body.push_str("</p>\n</nav>\n");
        c.page(StatusCode::OK, "Recent writes", &body)
    })
}

/// The filter's form, with the values given.
fn filter_form(c: &Ctx, [id, who, from, to]: &[&str; 4]) -> String {
    format!(
        "<form method=\"get\" action=\"{}writes\" class=\"filter\" role=\"search\" \
         aria-label=\"Filter the writes\">\n<div class=\"pair\">\n\
         <div><label for=\"f-id\">Identifier (any spelling)</label>\n\
         <input type=\"text\" id=\"f-id\" name=\"id\" value=\"{}\"></div>\n\
         <div><label for=\"f-who\">Login or populator</label>\n\
         <input type=\"text\" id=\"f-who\" name=\"who\" value=\"{}\"></div>\n\
         <div><label for=\"f-from\">From (UTC day)</label>\n\
         <input type=\"date\" id=\"f-from\" name=\"from\" value=\"{}\"></div>\n\
         <div><label for=\"f-to\">To (UTC day, included)</label>\n\
         <input type=\"date\" id=\"f-to\" name=\"to\" value=\"{}\"></div>\n</div>\n\
         <p><button type=\"submit\">Filter</button> <a href=\"{0}writes\">All writes</a></p>\n</form>\n",
        escape(&c.base()),
        escape(id),
        escape(who),
        escape(from),
        escape(to)
    )
}

/// The writes as a table.
fn table(c: &Ctx, writes: &[Write]) -> String {
    let mut s = String::from(
        "<div class=\"scroll\" role=\"region\" aria-label=\"Writes\" tabindex=\"0\">\n\
         <table class=\"writes\">\n<caption>Writes, newest first</caption>\n<thead><tr>\
         <th scope=\"col\">When (UTC)</th><th scope=\"col\">Who</th>\
         <th scope=\"col\">Identifier</th><th scope=\"col\">Change</th>\
         <th scope=\"col\">Value</th></tr></thead>\n<tbody>\n",
    );
    for w in writes {
        let r = &w.record;
        let who = if r.agent == r.populator {
            r.agent.clone()
        } else {
            format!("{} ({})", r.agent, r.populator)
        };
        s.push_str(&format!(
            "<tr><td data-label=\"When (UTC)\">{}</td><td data-label=\"Who\">{}</td>\
             <td data-label=\"Identifier\"><a href=\"{}id?id={}\">{}</a></td>\
             <td data-label=\"Change\">{}</td><td data-label=\"Value\">{}</td></tr>\n",
            when(r.epoch),
            escape(&who),
            escape(&c.base()),
            query_value(&w.id),
            escape(&shown(&w.id)),
            escape(&shown(&w.action)),
            escape(&shown(&w.value))
        ));
    }
    s.push_str("</tbody>\n</table>\n</div>\n");
    s
}

/// The first [`SHOWN`] characters of `text`, and, when there are more, a mark that
/// says the cell is cut and how long the whole is (display only: the log keeps it
/// whole).
fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN) {
        None => text.to_string(),
        Some((cut, _)) => format!("{}… (cut; {} octets in all)", &text[..cut], text.len()),
    }
}

/// Epoch seconds as `2026-11-25 19:17:55`, in UTC: the same wherever the server runs.
fn when(epoch: i64) -> String {
    chrono::DateTime::from_timestamp(epoch, 0).map_or_else(
        || epoch.to_string(),
        |t| t.format("%Y-%m-%d %H:%M:%S").to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_cells_are_cut_for_display_and_say_so() {
        assert_eq!(shown("short"), "short");
        let exact = "é".repeat(SHOWN);
        assert_eq!(shown(&exact), exact);
        let long = format!("{exact}xyz");
        assert_eq!(
            shown(&long),
            format!("{exact}… (cut; {} octets in all)", 2 * SHOWN + 3)
        );
    }
}
