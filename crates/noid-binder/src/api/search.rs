//! `GET /a/POP/search?q=QUERY`: the binder's identifiers that match a query in the
//! curator's language (noid-search, docs/SEARCH.md), for `noid serve` and the CGI alike.
//!
//! | request | answers |
//! |---|---|
//! | `search?q=Q[&page=N][&per=N][&sort=KEY]` | `{"query", "total", "page", "per", "sort", "hits": [...], "facets": {...}}` |
//! | `search?q=Q&format=csv\|jsonl\|anvl` | every match, as `noid search --format` writes it ("download what I see") |
//!
//! `per` is at most [`noid_search::index::MAX_PAGE`]; `sort` is `relevance` (the default)
//! or a column (`id title creator date target updated created`, `-` before it for the
//! largest first). The index is the one `noid index` keeps beside the binder, held open
//! by the process and caught up with the store at each request (`noid_search::current`;
//! rebuilt, at its first use, when missing or damaged).

use std::path::Path;
use std::sync::Arc;

use http::StatusCode;
use noid_search::export::COLUMNS;
use noid_search::index::MAX_PAGE;
use noid_search::{Format, Query, SearchIndex, Sort};
use serde_json::{json, Value};

use super::fields::Fields;
use super::reply::{bad, plain, streamed, typed, ApiReply};

/// The index of binder `dir`, caught up with its store, or the `503` saying why not.
pub fn opened(dir: &Path) -> Result<Arc<SearchIndex>, ApiReply> {
    noid_search::current(dir).map_err(|e| {
        plain(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!("error: the search index cannot be opened: {e}\n"),
        )
    })
}

/// Every match of `query` in `index` as `format`, written as it is found: the API's
/// `&format=` and the console's downloads. The matches are those of the index as it
/// stood when the export began (one searcher), whatever is written meanwhile.
pub fn export(index: Arc<SearchIndex>, query: Query, format: Format) -> ApiReply {
    streamed(format.media_type(), move |out| {
        index
            .export(&query, format, out)
            .map(|_| ())
            .map_err(|e| std::io::Error::other(format!("the search failed: {e}")))
    })
}

/// The answer to a search of binder `dir` with query string `raw_query` (not decoded).
pub fn answer(dir: &Path, raw_query: &str) -> ApiReply {
    let fields = Fields::parse(raw_query.as_bytes());
    let get = |name: &str| fields.get(name);
    let text = get("q");
    if text.trim().is_empty() {
        return bad("give a query: search?q=WORDS (docs/SEARCH.md has the language)");
    }
    let query: Query = match text.parse() {
        Ok(q) => q,
        Err(e) => return bad(&format!("the query cannot be read: {e}")),
    };
    let index = match opened(dir) {
        Ok(i) => i,
        Err(unavailable) => return unavailable,
    };
    if let Some(name) = Some(get("format")).filter(|f| !f.is_empty()) {
        let Some(format) = Format::parse(name) else {
            return bad(&format!("format {name:?}: give csv, jsonl or anvl"));
        };
        return export(index, query, format);
    }
    let number = |name: &str, default: usize, max: usize| match get(name) {
        "" => Ok(default),
        n => match n.parse::<usize>() {
            Ok(v) if (1..=max).contains(&v) => Ok(v),
            _ => Err(format!("{name} {n:?}: give a number from 1 to {max}")),
        },
    };
    let (page, per) = match (number("page", 1, 1_000_000), number("per", 50, MAX_PAGE)) {
        (Ok(p), Ok(n)) => (p, n),
        (Err(e), _) | (_, Err(e)) => return bad(&e),
    };
    let sort_name = match get("sort") {
        "" => "relevance",
        s => s,
    };
    let Some(sort) = Sort::parse(sort_name) else {
        return bad(&format!(
            "sort {sort_name:?}: give relevance, id, title, creator, date, target, updated or \
             created (a - before it for the largest first)"
        ));
    };
    match index.search(&query, (page - 1) * per, per, sort) {
        Ok(r) => {
            // Each hit as a row of the export's JSON lines (the same columns).
            let hits: Vec<Value> = r
                .hits
                .iter()
                .map(|h| {
                    let row = h.row();
                    let pairs = COLUMNS
                        .iter()
                        .zip(row)
                        .map(|(c, v)| (c.to_string(), json!(v)));
                    Value::Object(pairs.collect())
                })
                .collect();
            let facet = |f: &[(String, u64)]| -> Vec<Value> {
                f.iter().map(|(v, n)| json!([v, n])).collect()
            };
            let body = json!({
                "query": query.to_string(),
                "total": r.total,
                "page": page,
                "per": per,
                "sort": sort_name,
                "hits": hits,
                "facets": {
                    "shoulder": facet(&r.facets.shoulder),
                    "host": facet(&r.facets.host),
                    "populator": facet(&r.facets.populator),
                    "standing": facet(&r.facets.standing),
                    "status": facet(&r.facets.status),
                },
            });
            typed("application/json", body.to_string() + "\n")
        }
        Err(e) => plain(
            StatusCode::INTERNAL_SERVER_ERROR,
            &format!("error: the search failed: {e}\n"),
        ),
    }
}
