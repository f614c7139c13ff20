//! A submitted form, read whole: `application/x-www-form-urlencoded` (every console
//! form) or `multipart/form-data` (forms that upload a file), so that the form token
//! is found the same way in both before any handler runs.

use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::CONTENT_TYPE;
use hyper::Request;

/// Largest form body read (an uploaded file included).
pub const MAX_FORM: usize = 256 << 20;

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

    /// A query string's fields (GET forms: browse, edit).
    pub fn query(q: Option<&str>) -> Form {
        Form {
            fields: urlencoded(q.unwrap_or("").as_bytes()),
            uploads: Vec::new(),
        }
    }

    /// Read a POST's form; an error message for a body that is not one.
    pub async fn read(req: Request<Incoming>) -> Result<Form, String> {
        let ctype = req
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("")
            .to_string();
        let body = Limited::new(req.into_body(), MAX_FORM)
            .collect()
            .await
            .map_err(|e| format!("cannot read the form: {e}"))?
            .to_bytes();
        let mime = ctype.split(';').next().unwrap_or("").trim();
        if mime.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Ok(Form {
                fields: urlencoded(&body),
                uploads: Vec::new(),
            });
        }
        if mime.eq_ignore_ascii_case("multipart/form-data") {
            return multipart(&ctype, body).await;
        }
        Err(format!("not a form: Content-Type {ctype:?}"))
    }
}

fn urlencoded(body: &[u8]) -> Vec<(String, String)> {
    form_urlencoded::parse(body).into_owned().collect()
}

async fn multipart(ctype: &str, body: Bytes) -> Result<Form, String> {
    let boundary = multer::parse_boundary(ctype).map_err(|e| e.to_string())?;
    let stream = futures_util::stream::once(async move { Ok::<_, std::io::Error>(body) });
    let mut parts = multer::Multipart::new(stream, boundary);
    let mut form = Form::default();
    while let Some(field) = parts.next_field().await.map_err(|e| e.to_string())? {
        let name = field.name().unwrap_or("").to_string();
        let file_name = field.file_name().map(str::to_string);
        let bytes = field.bytes().await.map_err(|e| e.to_string())?;
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
