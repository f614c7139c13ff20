//! A submitted form: `application/x-www-form-urlencoded` (every console form) or
//! `multipart/form-data` (forms that upload a file), so that the form token is found
//! the same way in both before any handler runs.
//!
//! A form is read only after its session is known ([`crate::console`] refuses a POST
//! without one unread), and never more of it than its kind needs ([`Limit`]): a body
//! is held in memory while it is parsed, so the limits, not the client, decide how much
//! memory a request may take. The number of fields is capped too
//! ([`MAX_FIELDS`]): `a&a&a…` is a field per two octets, each one a pair of strings.

use crate::body::{read_whole, WholeError};
use bytes::Bytes;
use hyper::body::Incoming;
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Request, StatusCode};

use crate::upload::MAX_UPLOAD;

/// Largest form a browser that is not logged in may send: the login and logout
/// forms, which need well under 1 KiB.
pub const MAX_ANON_FORM: usize = 64 << 10;
/// Largest `application/x-www-form-urlencoded` form of a logged-in session: an
/// identifier's form with a value at the API's limit
/// ([`noid_egg::MAX_REMOTE_VALUE`]), %-encoded (up to three octets each), and room
/// for the other fields.
pub const MAX_FORM: usize = 3 * noid_egg::MAX_REMOTE_VALUE + (1 << 20);
/// Largest `multipart/form-data` form of a logged-in session: the upload's file
/// ([`MAX_UPLOAD`]) and its other fields.
pub const MAX_MULTIPART: usize = MAX_UPLOAD + (1 << 20);
/// Most fields a form (or a page's query) has; the console's largest form has a few
/// dozen.
pub const MAX_FIELDS: usize = 1000;

/// How much of a body may be read: chosen from the session before the body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A browser that is not logged in ([`MAX_ANON_FORM`] for any form).
    Anonymous,
    /// A logged-in session ([`MAX_FORM`], or [`MAX_MULTIPART`] for a file's form).
    LoggedIn,
}

impl Limit {
    /// The most octets a form of type `mime` may have.
    pub fn octets(self, mime: &str) -> usize {
        match self {
            Limit::Anonymous => MAX_ANON_FORM,
            Limit::LoggedIn if mime.eq_ignore_ascii_case("multipart/form-data") => MAX_MULTIPART,
            Limit::LoggedIn => MAX_FORM,
        }
    }
}

/// Why a body is not a form the console reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormError {
    /// Longer than the limit (octets).
    TooLarge(usize),
    /// More than [`MAX_FIELDS`] fields.
    TooManyFields,
    /// Not a form's content type, or a body that does not parse as its type says.
    Malformed(String),
    /// Not all there within its deadline (seconds).
    Late(u64),
}

impl FormError {
    /// The status it is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            FormError::TooLarge(_) | FormError::TooManyFields => StatusCode::PAYLOAD_TOO_LARGE,
            FormError::Malformed(_) => StatusCode::BAD_REQUEST,
            FormError::Late(_) => StatusCode::REQUEST_TIMEOUT,
        }
    }
}

impl std::fmt::Display for FormError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FormError::TooLarge(n) if *n >= 1 << 20 => write!(
                f,
                "The form is larger than {} MiB, more than this form may send.",
                n >> 20
            ),
            FormError::TooLarge(n) => write!(
                f,
                "The form is larger than {} KiB, more than this form may send.",
                n >> 10
            ),
            FormError::TooManyFields => write!(
                f,
                "The form has more than {MAX_FIELDS} fields, more than any console form has."
            ),
            FormError::Malformed(e) => f.write_str(e),
            FormError::Late(s) => write!(
                f,
                "The form did not arrive within {s} seconds. Check your connection and send it again."
            ),
        }
    }
}

/// An uploaded file.
#[derive(Debug, Clone)]
pub struct Upload {
    /// The form field's name.
    pub field: String,
    /// The file name the browser gave, if any.
    pub file_name: Option<String>,
    /// The content.
    pub bytes: Bytes,
}

/// A submitted form's fields, in order.
#[derive(Debug, Clone, Default)]
pub struct Form {
    /// Text fields (name, value).
    pub fields: Vec<(String, String)>,
    /// File fields.
    pub uploads: Vec<Upload>,
}

impl Form {
    /// The first value of field `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The first value of field `name`, trimmed; empty when absent.
    pub fn text(&self, name: &str) -> &str {
        self.get(name).unwrap_or("").trim()
    }

    /// The first uploaded file of field `name`.
    pub fn upload(&self, name: &str) -> Option<&Upload> {
        self.uploads.iter().find(|u| u.field == name)
    }

    /// A query string's fields (GET forms: browse, edit); the first [`MAX_FIELDS`] of
    /// them (no page reads more).
    pub fn query(q: Option<&str>) -> Form {
        let fields = form_urlencoded::parse(q.unwrap_or("").as_bytes())
            .take(MAX_FIELDS)
            .map(|(n, v)| (n.into_owned(), v.into_owned()))
            .collect();
        Form {
            fields,
            uploads: Vec::new(),
        }
    }

    /// Read a POST's form, no more of it than `limit` allows for its type, all of it
    /// within `within` ([`crate::body::read_whole`]).
    pub async fn read(
        req: Request<Incoming>,
        limit: Limit,
        within: std::time::Duration,
    ) -> Result<Form, FormError> {
        let ctype = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("")
            .to_string();
        let mime = ctype.split(';').next().unwrap_or("").trim().to_string();
        let is_multipart = mime.eq_ignore_ascii_case("multipart/form-data");
        if !is_multipart && !mime.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Err(FormError::Malformed(format!(
                "not a form: Content-Type {ctype:?}"
            )));
        }
        let most = limit.octets(&mime);
        let declared = req
            .headers()
            .get(CONTENT_LENGTH)
            .and_then(|h| h.to_str().ok())
            .and_then(|l| l.parse::<u64>().ok());
        if declared.is_some_and(|n| n > most as u64) {
            return Err(FormError::TooLarge(most));
        }
        let body = read_whole(req.into_body(), most, within)
            .await
            .map_err(|e| match e {
                WholeError::TooLarge => FormError::TooLarge(most),
                WholeError::Late(t) => FormError::Late(t.as_secs()),
                WholeError::Failed(e) => FormError::Malformed(format!("cannot read the form: {e}")),
            })?;
        if is_multipart {
            return multipart(&ctype, body).await;
        }
        Ok(Form {
            fields: urlencoded(&body)?,
            uploads: Vec::new(),
        })
    }
}

/// The fields of a urlencoded body; a field is copied only once it is known to be
/// within [`MAX_FIELDS`].
fn urlencoded(body: &[u8]) -> Result<Vec<(String, String)>, FormError> {
    let mut fields = Vec::new();
    for (n, v) in form_urlencoded::parse(body) {
        if fields.len() == MAX_FIELDS {
            return Err(FormError::TooManyFields);
        }
        fields.push((n.into_owned(), v.into_owned()));
    }
    Ok(fields)
}

async fn multipart(ctype: &str, body: Bytes) -> Result<Form, FormError> {
    let malformed = |e: multer::Error| FormError::Malformed(e.to_string());
    let boundary = multer::parse_boundary(ctype).map_err(malformed)?;
    let stream = futures_util::stream::once(async move { Ok::<_, std::io::Error>(body) });
    let mut parts = multer::Multipart::new(stream, boundary);
    let mut form = Form::default();
    while let Some(field) = parts.next_field().await.map_err(malformed)? {
        if form.fields.len() + form.uploads.len() == MAX_FIELDS {
            return Err(FormError::TooManyFields);
        }
        let name = field.name().unwrap_or("").to_string();
        let file_name = field.file_name().map(str::to_string);
        let bytes = field.bytes().await.map_err(malformed)?;
        match file_name {
            Some(_) => form.uploads.push(Upload {
                field: name,
                file_name,
                bytes,
            }),
            None => form
                .fields
                .push((name, String::from_utf8_lossy(&bytes).into_owned())),
        }
    }
    Ok(form)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_capped_before_they_are_copied() {
        let within = "a&".repeat(MAX_FIELDS);
        assert_eq!(urlencoded(within.as_bytes()).unwrap().len(), MAX_FIELDS);
        let over = "a&".repeat(MAX_FIELDS + 1);
        assert_eq!(urlencoded(over.as_bytes()), Err(FormError::TooManyFields));
        assert_eq!(
            urlencoded(b"csrf=ab&login=s%20m").unwrap(),
            [("csrf".into(), "ab".into()), ("login".into(), "s m".into())]
        );
        assert_eq!(Form::query(Some(&over)).fields.len(), MAX_FIELDS);
    }

    #[test]
    fn limits_by_session_and_type() {
        assert_eq!(Limit::Anonymous.octets("multipart/form-data"), 64 << 10);
        assert_eq!(
            Limit::LoggedIn.octets("Multipart/Form-Data"),
            (16 << 20) + (1 << 20)
        );
        assert_eq!(
            Limit::LoggedIn.octets("application/x-www-form-urlencoded"),
            4 << 20
        );
        assert_eq!(
            FormError::TooLarge(64 << 10).to_string(),
            "The form is larger than 64 KiB, more than this form may send."
        );
    }
}
