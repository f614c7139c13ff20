//! The upload form's request body (`multipart/form-data`), read by `multer` within
//! [`MAX_UPLOAD`]: its text fields and the one file.

use std::collections::HashMap;

use bytes::Bytes;

use super::{UploadError, MAX_UPLOAD};

/// The form's field that carries the file.
pub const FILE_FIELD: &str = "file";

/// An upload form as sent.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Form {
    /// The text fields by name (the last of a name wins).
    pub fields: HashMap<String, String>,
    /// The file's name as the browser gave it, and its bytes.
    pub file: Option<(String, Vec<u8>)>,
}

impl Form {
    /// A text field, empty if absent.
    pub fn field(&self, name: &str) -> &str {
        self.fields.get(name).map_or("", String::as_str)
    }
}

/// The form in `body`, sent with `content_type`.
pub async fn read(content_type: &str, body: Bytes) -> Result<Form, UploadError> {
    let boundary = multer::parse_boundary(content_type)
        .map_err(|_| UploadError::whole("the form must be sent as multipart/form-data"))?;
    if body.len() > MAX_UPLOAD {
        return Err(too_large());
    }
    let stream = futures_util::stream::once(async move { Ok::<Bytes, std::io::Error>(body) });
    let limits = multer::Constraints::new()
        .size_limit(multer::SizeLimit::new().whole_stream(MAX_UPLOAD as u64));
    let mut parts = multer::Multipart::with_constraints(stream, boundary, limits);
    let mut form = Form::default();
    loop {
        let field = match parts.next_field().await {
            Ok(Some(f)) => f,
            Ok(None) => return Ok(form),
            Err(e) => return Err(form_error(e)),
        };
        let name = field.name().unwrap_or_default().to_string();
        if name == FILE_FIELD {
            let file = field.file_name().unwrap_or_default().to_string();
            let bytes = field.bytes().await.map_err(form_error)?;
            form.file = Some((file, bytes.to_vec()));
        } else {
            let text = field.text().await.map_err(form_error)?;
            form.fields.insert(name, text);
        }
    }
}

fn too_large() -> UploadError {
    UploadError::whole(format!(
        "the upload is larger than {} MiB",
        MAX_UPLOAD >> 20
    ))
}

fn form_error(e: multer::Error) -> UploadError {
    match e {
        multer::Error::StreamSizeExceeded { .. } | multer::Error::FieldSizeExceeded { .. } => {
            too_large()
        }
        e => UploadError::whole(format!("cannot read the form: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TYPE: &str = "multipart/form-data; boundary=XyZ";

    fn body(parts: &[(&str, Option<&str>, &str)]) -> Bytes {
        let mut b = String::new();
        for (name, file, value) in parts {
            b.push_str("--XyZ\r\nContent-Disposition: form-data; name=\"");
            b.push_str(name);
            b.push('"');
            if let Some(f) = file {
                b.push_str(&format!("; filename=\"{f}\"\r\nContent-Type: text/csv"));
            }
            b.push_str("\r\n\r\n");
            b.push_str(value);
            b.push_str("\r\n");
        }
        b.push_str("--XyZ--\r\n");
        Bytes::from(b)
    }

    #[tokio::test]
    async fn fields_and_file() {
        let b = body(&[
            ("csrf", None, "t0k"),
            ("format", None, "csv"),
            ("file", Some("rows.csv"), "id,_t\r\nmint,u\r\n"),
        ]);
        let form = read(TYPE, b).await.unwrap();
        assert_eq!(form.field("csrf"), "t0k");
        assert_eq!(form.field("format"), "csv");
        assert_eq!(form.field("minter"), "");
        assert_eq!(
            form.file,
            Some(("rows.csv".to_string(), b"id,_t\r\nmint,u\r\n".to_vec()))
        );
    }

    #[tokio::test]
    async fn refusals() {
        let e = read(
            "application/x-www-form-urlencoded",
            Bytes::from_static(b"a=b"),
        )
        .await
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the form must be sent as multipart/form-data"
        );
        let big = "x".repeat(MAX_UPLOAD + 1);
        let e = read(TYPE, body(&[("file", Some("a.csv"), &big)]))
            .await
            .unwrap_err();
        assert_eq!(e.to_string(), "the upload is larger than 16 MiB");
        let e = read(TYPE, Bytes::from_static(b"--XyZ\r\nnonsense"))
            .await
            .unwrap_err();
        assert!(e.to_string().starts_with("cannot read the form: "), "{e}");
    }
}
