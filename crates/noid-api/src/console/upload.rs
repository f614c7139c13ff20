//! The batch upload's pages: the form (a CSV sheet or egg lines, `multipart/form-data`),
//! the progress page (refreshed by the browser until the run is done; no script), the
//! result (rows that failed, with their lines) and its download (`row,id,outcome`).
//! What runs is [`crate::upload`]: the bulk POST's write path.

use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE};
use hyper::StatusCode;

use super::ctx::{Ctx, Handled};
use super::html::{escape, notice, token_field};
use crate::reply::Resp;
use crate::upload::outcome::{self, RowResult};
use crate::upload::run::{self, Job, UploadStage};
use crate::upload::{Upload, UploadError, UploadKind, MAX_UPLOAD};

/// Seconds between the progress page's reloads.
const REFRESH: u32 = 1;
/// Failed rows listed on the result page (all are in the download).
const LISTED: usize = 200;

/// `GET upload`: the form.
pub fn form(c: Ctx) -> Handled {
    Box::pin(async move {
        let body = form_body(&c, "csv", "");
        c.page(StatusCode::OK, "Upload", &body)
    })
}

/// `POST upload`: check the file, start the run, and go to its progress page.
pub fn submit(c: Ctx) -> Handled {
    Box::pin(async move {
        let f = &c.form;
        let again = |status, e: &UploadError| {
            let body = notice("error", &e.to_string())
                + &form_body(&c, f.text("format"), f.text("minter"));
            c.page(status, "Upload", &body)
        };
        let Some(kind) = UploadKind::parse(f.text("format")) else {
            return again(
                StatusCode::BAD_REQUEST,
                &UploadError::whole("Choose CSV or egg lines."),
            );
        };
        let file = match f.upload(crate::upload::FILE_FIELD) {
            Some(u) if !u.bytes.is_empty() => u,
            _ => {
                return again(
                    StatusCode::BAD_REQUEST,
                    &UploadError::whole("Choose a file to upload."),
                )
            }
        };
        if file.bytes.len() > MAX_UPLOAD {
            let e =
                UploadError::whole(format!("The file is larger than {} MiB.", MAX_UPLOAD >> 20));
            return again(StatusCode::PAYLOAD_TOO_LARGE, &e);
        }
        let upload = match Upload::read(kind, &file.bytes) {
            Ok(u) => u,
            Err(e) => return again(StatusCode::BAD_REQUEST, &e),
        };
        let name = file.file_name.clone().unwrap_or_default();
        let minter = Some(f.text("minter")).filter(|m| !m.is_empty());
        match run::start(&c.service, &c.pop, c.who(), name, upload, minter) {
            Ok(job) => super::ctx::see_other(&format!("{}uploads?n={}", c.base(), job.number)),
            Err(e) => again(StatusCode::BAD_REQUEST, &e),
        }
    })
}

/// The form, with `format` and `minter` chosen.
fn form_body(c: &Ctx, format: &str, minter: &str) -> String {
    let mut s = format!(
        "<p>Upload a CSV file (a header row, then one row per identifier) or a file of \
         egg commands, one per line. Every row is written through the binder's bulk \
         write path and recorded in its write log. Files up to {} MiB.</p>\n\
         <form method=\"post\" action=\"{}upload\" enctype=\"multipart/form-data\">{}\n\
         <fieldset>\n<legend>Format</legend>\n",
        MAX_UPLOAD >> 20,
        escape(&c.base()),
        token_field(&c.session)
    );
    for (value, label) in [("csv", "CSV with a header row"), ("egg", "Egg lines")] {
        let checked = if value == format || (format.is_empty() && value == "csv") {
            " checked"
        } else {
            ""
        };
        s.push_str(&format!(
            "<p class=\"choice\"><input type=\"radio\" id=\"format-{value}\" name=\"format\" \
             value=\"{value}\"{checked}><label for=\"format-{value}\">{label}</label></p>\n"
        ));
    }
    s.push_str(
        "</fieldset>\n<label for=\"minter\">Minter for <code>mint</code> rows</label>\n\
         <select id=\"minter\" name=\"minter\">\n<option value=\"\">none</option>\n",
    );
    for m in c.binder().minters() {
        let path = m.join("/");
        let sel = if path == minter { " selected" } else { "" };
        s.push_str(&format!(
            "<option value=\"{p}\"{sel}>{p}</option>\n",
            p = escape(&path)
        ));
    }
    s.push_str(
        "</select>\n<label for=\"file\">File</label>\n\
         <input type=\"file\" id=\"file\" name=\"file\" accept=\".csv,.txt,text/csv,text/plain\" required>\n\
         <p><button type=\"submit\">Upload</button></p>\n</form>\n\
         <h2>CSV columns</h2>\n<p><code>id</code>: the identifier, or <code>mint</code> for a new \
         one from the chosen minter. <code>_t</code>: the target URL. <code>who</code>, \
         <code>what</code>, <code>when</code>, <code>how</code>: the kernel metadata. Any other \
         column: an element of that name. An empty cell sets nothing.</p>\n\
         <pre>id,_t,who,what\nmint,https://example.org/1,\"Smith, J.\",A letter\n\
         ark:/99999/fk4x,https://example.org/2,(:unkn),(:unav)</pre>\n",
    );
    s
}

/// The upload `?n=` of this populator, if it is kept.
fn job(c: &Ctx) -> Option<std::sync::Arc<Job>> {
    let n = c.query.text("n").parse().unwrap_or(0);
    c.service.uploads.get(n, &c.user.populator)
}

/// The page saying there is no such upload.
fn no_job(c: &Ctx) -> Resp {
    c.page(
        StatusCode::NOT_FOUND,
        "No such upload",
        "<p>This upload is not known here (uploads are kept while the server runs, \
         the most recent 64).</p>\n",
    )
}

/// `GET uploads?n=N`: progress, reloaded every [`REFRESH`] s until done; then the result.
pub fn progress(c: Ctx) -> Handled {
    Box::pin(async move {
        let Some(job) = job(&c) else {
            return no_job(&c);
        };
        let title = format!("Upload {}", job.number);
        let head = format!(
            "<p>File <strong>{}</strong>, {} rows, uploaded by {}.</p>\n",
            escape(&job.file),
            job.rows,
            escape(&job.login)
        );
        let (done, total) = match job.stage() {
            UploadStage::Done(rows) => {
                return c.page(
                    StatusCode::OK,
                    &title,
                    &(head + &result_body(&c, &job, &rows)),
                )
            }
            UploadStage::Minting => (0, None),
            UploadStage::Running(total) => (
                job.tally.run.load(std::sync::atomic::Ordering::Relaxed),
                total,
            ),
        };
        let (bar, text) = match total {
            Some(t) => (
                format!(
                    "<progress id=\"bar\" max=\"{t}\" value=\"{done}\">{done} of {t}</progress>\n"
                ),
                format!("Running: {done} of {t} commands run."),
            ),
            None if matches!(job.stage(), UploadStage::Minting) => (
                String::new(),
                "Minting identifiers for the mint rows.".into(),
            ),
            None => (String::new(), format!("Running: {done} commands run.")),
        };
        let body = format!(
            "{head}{}{bar}<p>This page reloads itself every {REFRESH} s until the upload is done; \
             <a href=\"{}uploads?n={}\">reload it now</a>.</p>\n",
            notice("ok", &text),
            escape(&c.base()),
            job.number
        );
        let mut r = c.page(StatusCode::OK, &title, &body);
        r.headers_mut()
            .insert("refresh", HeaderValue::from(REFRESH));
        r
    })
}

/// The result: counts, the download, and the rows that failed.
fn result_body(c: &Ctx, job: &Job, rows: &[RowResult]) -> String {
    let failed: Vec<&RowResult> = rows.iter().filter(|r| !r.outcome.ok()).collect();
    let summary = format!(
        "Done: {} rows, {} written, {} failed.",
        rows.len(),
        rows.len() - failed.len(),
        failed.len()
    );
    let kind = if failed.is_empty() { "ok" } else { "error" };
    let mut s = notice(kind, &summary);
    if let Some(from) = job.converted {
        s.push_str(&notice(
            "ok",
            &format!(
                "The file was not UTF-8 text: it was read as {from} (the encoding of Excel's \
                 legacy \"CSV (Comma delimited)\") and converted."
            ),
        ));
    }
    s.push_str(&format!(
        "<p><a href=\"{}uploads/result.csv?n={}\" download>Download the result</a> \
         (CSV: row, id, outcome).</p>\n",
        escape(&c.base()),
        job.number
    ));
    if !failed.is_empty() {
        s.push_str(
            "<table>\n<caption>Rows that failed</caption>\n<thead><tr><th scope=\"col\">Line</th>\
             <th scope=\"col\">Identifier</th><th scope=\"col\">RowOutcome</th></tr></thead>\n<tbody>\n",
        );
        for r in failed.iter().take(LISTED) {
            s.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                r.row,
                escape(&r.id),
                escape(&r.outcome.to_string())
            ));
        }
        s.push_str("</tbody>\n</table>\n");
        if failed.len() > LISTED {
            s.push_str(&format!(
                "<p>The first {LISTED} are listed; the download has them all.</p>\n"
            ));
        }
    }
    let written: Vec<&RowResult> = rows
        .iter()
        .filter(|r| r.outcome.ok() && !r.id.is_empty())
        .collect();
    if !written.is_empty() {
        s.push_str(
            "<table>\n<caption>Identifiers written</caption>\n<thead><tr><th scope=\"col\">Line</th>\
             <th scope=\"col\">Identifier</th><th scope=\"col\">RowOutcome</th></tr></thead>\n<tbody>\n",
        );
        for r in written.iter().take(LISTED) {
            s.push_str(&format!(
                "<tr><td>{}</td><td><a href=\"{}id?id={}\">{}</a></td><td>{}</td></tr>\n",
                r.row,
                escape(&c.base()),
                super::html::query_value(&r.id),
                escape(&r.id),
                escape(&r.outcome.to_string())
            ));
        }
        s.push_str("</tbody>\n</table>\n");
        if written.len() > LISTED {
            s.push_str(&format!(
                "<p>The first {LISTED} are listed; the download has them all.</p>\n"
            ));
        }
    }
    s
}

/// `GET uploads/result.csv?n=N`: the result file.
pub fn download(c: Ctx) -> Handled {
    Box::pin(async move {
        let Some(job) = job(&c) else {
            return no_job(&c);
        };
        let UploadStage::Done(rows) = job.stage() else {
            return super::ctx::see_other(&format!("{}uploads?n={}", c.base(), job.number));
        };
        let csv = outcome::csv(&rows);
        let mut r = super::ctx::text(StatusCode::OK, &String::from_utf8_lossy(&csv));
        let h = r.headers_mut();
        h.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/csv; charset=utf-8"),
        );
        h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        let disposition = format!("attachment; filename=\"upload-{}-result.csv\"", job.number);
        if let Ok(v) = HeaderValue::from_str(&disposition) {
            h.insert(CONTENT_DISPOSITION, v);
        }
        r
    })
}
