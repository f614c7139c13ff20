//! The most recent archived copy of a URL, through a Memento TimeGate (RFC 7089).
//!
//! The TimeGate (`{timegate}{url}`) is asked with `Accept-Datetime` set to now, so it
//! chooses the memento nearest now: the most recent. It answers a redirect to that
//! memento (RFC 7089 §4.1, pattern 2), or 404 when it holds none. The redirect is
//! followed (a few hops: an archive may redirect a memento to a neighbour) to an answer
//! with `Memento-Datetime`, which dates the copy; failing that header, the date that
//! the `Link` headers seen give the memento's URL. An archive's answer without either
//! is not taken for a copy.

use std::time::SystemTime;

use reqwest::header::{HeaderMap, ACCEPT, LINK, LOCATION};
use reqwest::StatusCode;

use crate::link::{self, Link};
use crate::{ArchiveError, Archived, Config};

/// The header naming the moment a client wants a copy of (RFC 7089 §2.1.1).
const ACCEPT_DATETIME: &str = "accept-datetime";
/// The header dating a memento (RFC 7089 §2.1.2).
const MEMENTO_DATETIME: &str = "memento-datetime";

/// The most recent copy of `url` that `config`'s TimeGate knows, `None` when it holds
/// none (404). The checker calls this when a target turns broken; `noid links archive`
/// when a curator asks.
pub async fn find(config: &Config, url: &str) -> Result<Option<Archived>, ArchiveError> {
    let mut at = format!("{}{}", config.timegate, url);
    let now = httpdate::fmt_http_date(SystemTime::now());
    let mut links = Vec::new();
    for hop in 0..=config.max_redirects {
        let answer = config
            .client
            .get(&at)
            .header(ACCEPT_DATETIME, &now)
            .header(ACCEPT, "*/*")
            .send()
            .await
            .map_err(|e| ArchiveError::request(&at, &e))?;
        let (status, headers) = (answer.status(), answer.headers().clone());
        links.extend(links_of(&headers));
        if let Some(datetime) = text(&headers, MEMENTO_DATETIME) {
            if status.is_success() || status.is_redirection() {
                return Ok(Some(copy(url, &at, datetime)));
            }
        }
        if status == StatusCode::NOT_FOUND && hop == 0 {
            return Ok(None);
        }
        if status.is_redirection() {
            let location = text(&headers, LOCATION.as_str())
                .ok_or_else(|| unexpected(&at, "a redirect with no Location"))?;
            let next = answer
                .url()
                .join(&location)
                .map_err(|e| unexpected(&at, &format!("a Location that is no URL ({e})")))?;
            at = next.to_string();
            continue;
        }
        if status.is_success() {
            // No Memento-Datetime: a Link header may still date this URL.
            return match dated(&links, &at) {
                Some(datetime) => Ok(Some(copy(url, &at, datetime))),
                None => Err(unexpected(
                    &at,
                    &format!("{status} with no Memento-Datetime"),
                )),
            };
        }
        return Err(unexpected(&at, &status.to_string()));
    }
    Err(unexpected(
        &at,
        &format!("more than {} redirects", config.max_redirects),
    ))
}

/// The record of the copy of `original` found at `url`.
fn copy(original: &str, url: &str, datetime: String) -> Archived {
    Archived {
        url: url.to_string(),
        datetime,
        original: original.to_string(),
        found: crate::now(),
    }
}

/// The date the links seen give the memento at `url`.
fn dated(links: &[Link], url: &str) -> Option<String> {
    links
        .iter()
        .find(|l| l.is("memento") && l.uri == url)
        .and_then(|l| l.param("datetime"))
        .map(str::to_string)
}

fn links_of(headers: &HeaderMap) -> Vec<Link> {
    link::parse(headers.get_all(LINK).iter().filter_map(|v| v.to_str().ok()))
}

fn text(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn unexpected(url: &str, reason: &str) -> ArchiveError {
    ArchiveError::Unexpected {
        url: url.to_string(),
        reason: reason.to_string(),
    }
}
