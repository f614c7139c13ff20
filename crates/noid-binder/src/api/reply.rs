//! A response as the API decides it, before a transport carries it: `noid serve`'s
//! hyper response (noid-api), or a CGI's standard output ([`super::cgi::write`]). Plain
//! values (the `http` crate's status and header types, no runtime): the body is
//! complete, or, for an export of every match, a [`Producer`] the transport runs after
//! the head has gone out, so that the export is never held in memory whole.

use std::io::{self, Write};

use http::header::{HeaderMap, HeaderValue, CONTENT_TYPE, RETRY_AFTER, WWW_AUTHENTICATE};
use http::StatusCode;
use noid_egg::BinderError;

use crate::writer::WorkResult;

/// A complete response of the API: status, body, and what its headers say (all are
/// plain text).
#[derive(Debug)]
pub struct ApiReply {
    /// The status.
    pub status: StatusCode,
    /// `egg` or `nog` for a command's answer (the version header it carries).
    pub tool: Option<&'static str>,
    /// The realm a `401` asks credentials for (`WWW-Authenticate`).
    pub realm: Option<String>,
    /// Seconds a `429` asks the client to wait (`Retry-After`).
    pub retry_after: Option<u64>,
    /// The body's type when it is not plain text (a report's CSV or JSON).
    pub content_type: Option<&'static str>,
    /// What the answer's `Noid-Note` header tells the client beside the body.
    pub note: Option<Note>,
    /// The body (all of it, or what goes before the producer's part).
    pub body: Vec<u8>,
    /// The rest of the body, written as it is produced.
    pub producer: Option<Producer>,
}

/// What an answer's `Noid-Note` header says beside its body (a byte in every reply,
/// not a string: replies are returned by value on every path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    /// A counts report that is empty because no resolver has counted yet.
    NothingCounted,
}

impl Note {
    /// The header's value.
    pub fn text(self) -> &'static str {
        match self {
            Note::NothingCounted => {
                "no counts yet: the resolvers count with noidr --counts or the modules' \
                 counts=SECS"
            }
        }
    }
}

/// A body written as it is produced, into whatever the transport gives: `noid serve`'s
/// connection (in chunks, at the client's pace) or the CGI's standard output. An error
/// after the head has gone out cannot change the status: the transport then cuts the
/// response off (hyper aborts the connection; the CGI exits non-zero), so that a
/// client never takes a part of an export for the whole.
pub struct Producer(Box<dyn FnOnce(&mut dyn Write) -> io::Result<()> + Send>);

impl Producer {
    /// Write the body into `out`.
    pub fn produce(self, out: &mut dyn Write) -> io::Result<()> {
        (self.0)(out)
    }
}

impl std::fmt::Debug for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Producer")
    }
}

impl ApiReply {
    /// The headers.
    pub fn headers(&self) -> HeaderMap {
        let mut h = HeaderMap::new();
        match self.tool {
            Some(tool) => command_headers(&mut h, tool),
            None => {
                h.insert(
                    CONTENT_TYPE,
                    HeaderValue::from_static(
                        self.content_type.unwrap_or("text/plain; charset=UTF-8"),
                    ),
                );
            }
        }
        let realm = self.realm.as_ref();
        if let Some(v) =
            realm.and_then(|r| HeaderValue::from_str(&format!("Basic realm=\"{r}\"")).ok())
        {
            h.insert(WWW_AUTHENTICATE, v);
        }
        if let Some(s) = self.retry_after {
            h.insert(RETRY_AFTER, HeaderValue::from(s));
        }
        if let Some(note) = self.note {
            h.insert("noid-note", HeaderValue::from_static(note.text()));
        }
        h
    }

    /// The whole body: the complete part, then what the producer writes (for a
    /// transport that needs it all at once, and for tests).
    pub fn into_body(self) -> io::Result<Vec<u8>> {
        let mut body = self.body;
        if let Some(p) = self.producer {
            p.produce(&mut body)?;
        }
        Ok(body)
    }
}

/// A `400` saying what is wrong with the request and what to give (`error: WHY`).
pub fn bad(why: &str) -> ApiReply {
    plain(StatusCode::BAD_REQUEST, &format!("error: {why}\n"))
}

/// A `200` whose body is of `content_type` (a report's CSV or JSON, a search's export).
pub fn typed(content_type: &'static str, body: impl Into<Vec<u8>>) -> ApiReply {
    ApiReply {
        content_type: Some(content_type),
        body: body.into(),
        ..plain(StatusCode::OK, "")
    }
}

/// A `200` whose body of `content_type` is written by `produce` as it goes (a search's
/// export of every match).
pub fn streamed(
    content_type: &'static str,
    produce: impl FnOnce(&mut dyn Write) -> io::Result<()> + Send + 'static,
) -> ApiReply {
    ApiReply {
        producer: Some(Producer(Box::new(produce))),
        ..typed(content_type, Vec::new())
    }
}

/// A plain-text response.
pub fn plain(status: StatusCode, text: &str) -> ApiReply {
    ApiReply {
        status,
        tool: None,
        realm: None,
        retry_after: None,
        content_type: None,
        note: None,
        body: text.as_bytes().to_vec(),
        producer: None,
    }
}

/// `401` asking for Basic credentials of the populator `realm`.
pub fn unauthorized(realm: &str) -> ApiReply {
    ApiReply {
        realm: Some(realm.to_string()),
        ..plain(StatusCode::UNAUTHORIZED, "error: 401 unauthorized\n")
    }
}

/// The response to a command: its output, then `egg-status:` (or `nog-status:`).
pub fn finish(answer: WorkResult, note: Option<String>, tool: &'static str) -> ApiReply {
    let status = match answer.refusal {
        Some(BinderError::Unauthorized) => StatusCode::UNAUTHORIZED,
        Some(BinderError::ReadOnly) => StatusCode::FORBIDDEN,
        Some(BinderError::TooLarge(_)) => StatusCode::PAYLOAD_TOO_LARGE,
        _ => StatusCode::OK,
    };
    let mut body = note.map(String::into_bytes).unwrap_or_default();
    let code = answer.status();
    body.extend(answer.body);
    body.extend(status_line(tool, code).bytes());
    ApiReply {
        status,
        tool: Some(tool),
        realm: None,
        retry_after: None,
        content_type: None,
        note: None,
        body,
        producer: None,
    }
}

/// `egg-status: 0|1` (`nog-status:` for minters, a `stopN`/`wrapN` minter's N when it
/// stopped or wrapped), the answer's last line.
pub fn status_line(tool: &str, status: u8) -> String {
    format!("{tool}-status: {status}\n")
}

/// A command response's headers: plain text, and the version header of `tool`.
pub fn command_headers(h: &mut HeaderMap, tool: &str) {
    h.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=UTF-8"),
    );
    h.insert(
        if tool == "egg" {
            "egg-version"
        } else {
            "nog-version"
        },
        HeaderValue::from_static(concat!("noid ", env!("CARGO_PKG_VERSION"))),
    );
}
