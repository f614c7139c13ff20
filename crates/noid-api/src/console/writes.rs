//! The binder's recent writes, newest first, from its write log ([`crate::recent`]),
//! a page of [`PAGE`] at a time: every write the API, `noid serve`'s bulk POSTs and the
//! console made, with who made it and when.

use hyper::StatusCode;

use super::html::{escape, query_value};
use super::{Ctx, Handled};
use crate::recent::{self, Write, PAGE};

/// Characters of a value shown (the identifier's page has it whole).
const SHOWN: usize = 120;

/// `GET writes?before=OFFSET`.
pub fn page(c: Ctx) -> Handled {
    Box::pin(async move {
        let Some(log) = c.pop.log_path() else {
            return c.page(
                StatusCode::OK,
                "Recent writes",
                "<p>This populator has no binder.</p>\n",
            );
        };
        let before = c.query.text("before").parse::<u64>().ok();
        let read = tokio::task::spawn_blocking(move || recent::page(&log, before, PAGE)).await;
        let page = match read {
            Ok(Ok(p)) => p,
            Ok(Err(e)) => {
                let body = super::html::notice("error", &format!("Cannot read the write log: {e}"));
                return c.page(StatusCode::INTERNAL_SERVER_ERROR, "Recent writes", &body);
            }
            Err(_) => return c.page(StatusCode::INTERNAL_SERVER_ERROR, "Recent writes", ""),
        };
        let mut body = String::new();
        if page.writes.is_empty() {
            body.push_str("<p>No writes are recorded in this binder's write log.</p>\n");
        } else {
            body.push_str(&table(&c, &page.writes));
        }
        body.push_str("<nav aria-label=\"Pages of writes\">\n<p>");
        if before.is_some() {
            body.push_str(&format!(
                "<a href=\"{}writes\">Newest writes</a> ",
                escape(&c.base())
            ));
        }
        if let Some(o) = page.older {
            body.push_str(&format!(
                "<a href=\"{}writes?before={o}\">Older writes</a>",
                escape(&c.base())
            ));
        }
        body.push_str("</p>\n</nav>\n");
        c.page(StatusCode::OK, "Recent writes", &body)
    })
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
            "<tr><td>{}</td><td>{}</td><td><a href=\"{}id?id={}\">{}</a></td><td>{}</td><td>{}</td></tr>\n",
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
