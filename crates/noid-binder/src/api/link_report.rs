//! `GET /a/POP/links`: the link checker's report on the populator's binder, the same
//! rows as the console's "Link health" page ([`crate::link_health`]), as CSV or JSON.
//!
//! | query | answers |
//! |---|---|
//! | `status=S&under=P&populator=N&host=H` (each optional) | the targets they select |
//! | `id=ID` | `ID`'s targets, each with its history of changes (JSON) |
//! | `format=csv` or `format=json` (the default) | the report's form |
//! | `limit=N` | at most N rows (default and most [`MAX_ROWS`]) |

use http::StatusCode;
use noid_core::Lookup;

use super::fields::Fields;
use super::reply::{bad, plain, typed, ApiReply};
use crate::link_health::{self, Filter};

/// Most rows one answer carries; a filter narrows a larger report.
pub const MAX_ROWS: usize = 100_000;

/// What a `links` request asks, read from its query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// The targets a filter selects.
    Report {
        /// Which.
        filter: Filter,
        /// CSV rather than JSON.
        csv: bool,
        /// At most this many rows.
        limit: usize,
    },
    /// One identifier's targets and their history.
    Identifier(String),
}

impl Ask {
    /// The ask of a query string (`application/x-www-form-urlencoded`, not yet
    /// decoded); `400` naming the field that is wrong.
    pub fn of(query: &str) -> Result<Ask, ApiReply> {
        let fields = Fields::parse(query.as_bytes());
        let get = |name: &str| fields.get(name);
        let bad = |why: String| bad(&why);
        if let Some(n) = fields.unknown(&KNOWN) {
            return Err(bad(format!(
                "unknown field {n:?}: give {}",
                KNOWN.join(", ")
            )));
        }
        if !get("id").is_empty() {
            return Ok(Ask::Identifier(get("id").to_string()));
        }
        let csv = match get("format") {
            "" | "json" => false,
            "csv" => true,
            f => return Err(bad(format!("format {f:?}: give csv or json"))),
        };
        let limit = match get("limit") {
            "" => MAX_ROWS,
            n => n
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_ROWS).contains(n))
                .ok_or_else(|| bad(format!("limit {n:?}: give a number from 1 to {MAX_ROWS}")))?,
        };
        let filter =
            Filter::of(get("status"), get("under"), get("populator"), get("host")).map_err(bad)?;
        Ok(Ask::Report { filter, csv, limit })
    }

    /// The answer, read from `store`.
    pub fn answer(&self, store: &dyn Lookup) -> ApiReply {
        let failed = |e: noid_core::LookupError| {
            plain(
                StatusCode::INTERNAL_SERVER_ERROR,
                &format!("error: reading the link records: {e}\n"),
            )
        };
        match self {
            Ask::Report { filter, csv, limit } => {
                match link_health::report(store, filter, *limit) {
                    Ok(r) if *csv => typed("text/csv; charset=UTF-8", link_health::csv(&r.rows)),
                    Ok(r) => typed("application/json", link_health::json(&r)),
                    Err(e) => failed(e),
                }
            }
            Ask::Identifier(id) => match link_health::of_identifier(store, id) {
                Ok(targets) => typed("application/json", identifier_json(id, &targets)),
                Err(e) => failed(e),
            },
        }
    }
}

/// The query fields a `links` request may have.
const KNOWN: [&str; 7] = [
    "status",
    "under",
    "populator",
    "host",
    "format",
    "limit",
    "id",
];

/// `{"id": ID, "targets": [{…a report row…, "history": [{"at", "from", "to", "http",
/// "detail"}]}]}`.
fn identifier_json(id: &str, targets: &[link_health::TargetHistory]) -> String {
    let targets: Vec<serde_json::Value> = targets
        .iter()
        .map(|t| {
            let mut row = link_health::row_json(&link_health::Row {
                id: id.to_string(),
                target: t.target.clone(),
                state: t.state.clone(),
            });
            let history: Vec<serde_json::Value> = t
                .changes
                .iter()
                .map(|(at, c)| {
                    serde_json::json!({
                        "at": link_health::time(*at),
                        "from": c.from.map(|s| s.as_str()),
                        "to": c.to.as_str(),
                        "http": c.http,
                        "detail": c.detail,
                    })
                })
                .collect();
            row["history"] = history.into();
            row
        })
        .collect();
    let mut s = serde_json::json!({ "id": id, "targets": targets }).to_string();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_read_as_forms_with_clear_errors() {
        assert_eq!(
            Ask::of("status=broken&under=ark%3A%2F1%2F&format=csv").unwrap(),
            Ask::Report {
                filter: Filter::of("broken", "ark:/1/", "", "").unwrap(),
                csv: true,
                limit: MAX_ROWS
            }
        );
        assert_eq!(
            Ask::of("id=ark%3A%2F1%2Fa%26b").unwrap(),
            Ask::Identifier("ark:/1/a&b".into())
        );
        let body = |q: &str| String::from_utf8(Ask::of(q).unwrap_err().body).unwrap();
        assert_eq!(
            body("format=xml"),
            "error: format \"xml\": give csv or json\n"
        );
        assert_eq!(
            body("stat=ok"),
            "error: unknown field \"stat\": give status, under, populator, host, format, limit, id\n"
        );
        assert_eq!(
            body("limit=0"),
            "error: limit \"0\": give a number from 1 to 100000\n"
        );
        assert_eq!(
            Ask::of("status=dead").unwrap_err().status,
            StatusCode::BAD_REQUEST
        );
    }
}
