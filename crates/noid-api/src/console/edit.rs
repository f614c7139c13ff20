//! One identifier: its target and kernel metadata (`who`, `what`, `when`, `how`) with
//! the reserved values offered, its standing (judged by noid-resolve's `kernel`, as
//! `noid standing` and the resolver's pages judge it), and purging it after a
//! confirmation.
//!
//! "Check standing" re-renders the form with the standing of the values entered,
//! writing nothing; "Save" writes the changes as egg `set` and `rm` commands in one
//! bulk request.

use hyper::StatusCode;
use noid_resolve::kernel::{self, Base, Reserved, Standing, Value};

use super::egg::{errors, purge_line, rm_line, set_line, Binding};
use super::form::Form;
use super::html::{escape, notice, post_form, query_value};
use super::{see_other, Ctx, Handled};

/// The elements the form edits: the target and the required kernel.
const EDITED: [&str; 5] = ["_t", "who", "what", "when", "how"];

/// The value of `elem` the form holds: a reserved code chosen (`ELEM-code`) followed
/// by the text (`ELEM`), or the text alone.
fn entered(f: &Form, elem: &str) -> String {
    let text = f.text(elem);
    match f.text(&format!("{elem}-code")) {
        "" => text.to_string(),
        code if text.is_empty() => format!("(:{code})"),
        code => format!("(:{code}) {text}"),
    }
}

/// A stored value split into its reserved code (empty for none) and the rest.
fn split(elem: &str, value: &str) -> (&'static str, String) {
    match kernel::parse_elem(elem, value) {
        Ok(Value::Reserved(r, rest)) => (r.code(), rest.to_string()),
        _ => ("", value.to_string()),
    }
}

/// The first value of each element (the one `get` and the resolver read).
fn first_values(bindings: &[Binding]) -> Vec<(String, Vec<u8>)> {
    let mut seen: Vec<(String, Vec<u8>)> = Vec::new();
    for (e, v) in bindings {
        if !seen.iter().any(|(s, _)| s == e) {
            seen.push((e.clone(), v.as_bytes().to_vec()));
        }
    }
    seen
}

/// The standing as a sentence.
fn standing_html(s: &Standing) -> String {
    if s.is_good() {
        return "<p class=\"standing good\" id=\"standing\">Standing: good (every required kernel element is present and well formed).</p>\n".into();
    }
    let mut parts = Vec::new();
    if !s.missing.is_empty() {
        parts.push(format!("missing {}", s.missing.join(", ")));
    }
    for (e, why) in &s.malformed {
        parts.push(format!("{e} is malformed: {why}"));
    }
    format!(
        "<p class=\"standing bad\" id=\"standing\">Standing: not good: {}.</p>\n",
        escape(&parts.join("; "))
    )
}

/// The edit form for `id` showing `values` (element, value).
fn edit_form(c: &Ctx, id: &str, values: &[(String, Vec<u8>)]) -> String {
    let value = |e: &str| {
        values
            .iter()
            .find(|(n, _)| n == e)
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
            .unwrap_or_default()
    };
    let mut s = standing_html(&Standing::of(values));
    s.push_str(&post_form(&c.session, &format!("{}id", c.base())));
    s.push_str(&format!(
        "<input type=\"hidden\" name=\"id\" value=\"{}\">\n\
         <label for=\"_t\">Target URL (<code>_t</code>)</label>\n\
         <input type=\"text\" id=\"_t\" name=\"_t\" value=\"{}\">\n",
        escape(id),
        escape(&value("_t"))
    ));
    for elem in &EDITED[1..] {
        let (code, text) = split(elem, &value(elem));
        s.push_str(&format!(
            "<fieldset>\n<legend>{elem}</legend>\n<div class=\"pair\">\n<div>\
             <label for=\"{elem}-code\">Reserved value</label>\n\
             <select id=\"{elem}-code\" name=\"{elem}-code\">\n<option value=\"\">none: the text is the value</option>\n"
        ));
        for r in Reserved::ALL {
            let sel = if r.code() == code { " selected" } else { "" };
            s.push_str(&format!(
                "<option value=\"{c}\"{sel}>(:{c}) {}</option>\n",
                escape(r.meaning()),
                c = r.code()
            ));
        }
        s.push_str(&format!(
            "</select></div>\n<div><label for=\"{elem}\">Text</label>\n\
             <input type=\"text\" id=\"{elem}\" name=\"{elem}\" value=\"{}\"></div>\n</div>\n",
            escape(&text)
        ));
        if *elem == "how" {
            let terms: Vec<&str> = Base::ALL.iter().map(|b| b.term()).collect();
            s.push_str(&format!(
                "<p class=\"hint\">A metatype first ({}; joined with +, then set for a group), \
                 then the kind of resource, e.g. <code>text article</code>; or a reserved value.</p>\n",
                terms.join(", ")
            ));
        }
        s.push_str("</fieldset>\n");
    }
    s.push_str(
        "<p><button type=\"submit\" name=\"action\" value=\"check\" class=\"secondary\">Check standing</button>\
         <button type=\"submit\" name=\"action\" value=\"save\">Save</button></p>\n</form>\n",
    );
    s
}

/// The other elements, shown as they are.
fn others(bindings: &[Binding]) -> String {
    let rest: Vec<&Binding> = bindings
        .iter()
        .filter(|(e, _)| !EDITED.contains(&e.as_str()))
        .collect();
    if rest.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2>Other elements</h2>\n<table>\n<tr><th scope=\"col\">element</th><th scope=\"col\">value</th></tr>\n");
    for (e, v) in rest {
        s.push_str(&format!(
            "<tr><td>{}</td><td>{}</td></tr>\n",
            escape(e),
            escape(v)
        ));
    }
    s.push_str("</table>\n");
    s
}

/// The form that opens an identifier.
fn open_form(c: &Ctx, id: &str) -> String {
    format!(
        "<form method=\"get\" action=\"{}id\">\n<label for=\"open-id\">Identifier</label>\n\
         <input type=\"text\" id=\"open-id\" name=\"id\" value=\"{}\" required>\n\
         <button type=\"submit\">Open</button>\n</form>\n",
        c.base(),
        escape(id)
    )
}

/// `GET id?id=ID`: the identifier's form (an empty one for an identifier not bound yet).
pub fn show(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.query.text("id").to_string();
        if id.is_empty() {
            let body = open_form(&c, "");
            return c.page(StatusCode::OK, "Identifier", &body);
        }
        let mut body = String::new();
        if c.query.text("saved") == "1" {
            body.push_str(&notice("ok", "Saved."));
        }
        match c.binder().fetch(&id).await {
            Ok(bindings) => {
                if bindings.is_empty() {
                    body.push_str(
                        "<p>Nothing is bound to this identifier yet: saving creates it.</p>\n",
                    );
                }
                body.push_str(&edit_form(&c, &id, &first_values(&bindings)));
                body.push_str(&others(&bindings));
                if !bindings.is_empty() {
                    body.push_str(&format!(
                        "<p><a href=\"{}purge?id={}\">Purge this identifier…</a></p>\n",
                        c.base(),
                        query_value(&id)
                    ));
                }
            }
            Err(e) => body.push_str(&notice("error", &e)),
        }
        body.push_str("<h2>Open another identifier</h2>\n");
        body.push_str(&open_form(&c, ""));
        c.page(StatusCode::OK, &id, &body)
    })
}

/// `POST id`: check the entered values' standing, or save them.
pub fn save(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.form.text("id").to_string();
        if id.is_empty() {
            return see_other(&format!("{}id", c.base()));
        }
        let b = c.binder();
        let current = match b.fetch(&id).await {
            Ok(v) => first_values(&v),
            Err(e) => return c.page(StatusCode::OK, &id, &notice("error", &e)),
        };
        let entered: Vec<(String, String)> = EDITED
            .iter()
            .map(|e| (e.to_string(), entered(&c.form, e)))
            .collect();
        if c.form.text("action") != "save" {
            // Check: the current bindings with the entered values in their place.
            let mut values: Vec<(String, Vec<u8>)> = current
                .into_iter()
                .filter(|(e, _)| !EDITED.contains(&e.as_str()))
                .collect();
            values.extend(
                entered
                    .iter()
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(e, v)| (e.clone(), v.as_bytes().to_vec())),
            );
            let body = notice(
                "ok",
                "Not saved yet: the standing below is that of the values entered.",
            ) + &edit_form(&c, &id, &values);
            return c.page(StatusCode::OK, &id, &body);
        }
        let mut lines = String::new();
        for (e, v) in &entered {
            let now = current
                .iter()
                .find(|(n, _)| n == e)
                .map(|(_, v)| v.as_slice());
            match (now, v.is_empty()) {
                (Some(_), true) => lines.push_str(&(rm_line(&id, e) + "\n")),
                (Some(old), false) if old == v.as_bytes() => {}
                (_, false) => lines.push_str(&(set_line(&id, e, v) + "\n")),
                (None, true) => {}
            }
        }
        if !lines.is_empty() {
            let answer = b.bulk(lines).await;
            if answer.failed {
                let body = notice("error", &format!("Not saved: {}", errors(&answer)));
                return c.page(StatusCode::OK, &id, &body);
            }
        }
        see_other(&format!("{}id?id={}&saved=1", c.base(), query_value(&id)))
    })
}

/// `GET purge?id=ID`: the confirmation.
pub fn purge_form(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.query.text("id").to_string();
        let n = match c.binder().fetch(&id).await {
            Ok(b) => b.len(),
            Err(e) => return c.page(StatusCode::OK, "Purge", &notice("error", &e)),
        };
        let mut body = format!(
            "<p>Purging removes every element bound to <strong>{}</strong> ({n} bound now). \
             It cannot be undone.</p>\n",
            escape(&id)
        );
        body.push_str(&post_form(&c.session, &format!("{}purge", c.base())));
        body.push_str(&format!(
            "<input type=\"hidden\" name=\"id\" value=\"{}\">\n\
             <p><button type=\"submit\" class=\"danger\">Purge {}</button> \
             <a href=\"{}id?id={}\">Cancel</a></p>\n</form>\n",
            escape(&id),
            escape(&id),
            c.base(),
            query_value(&id)
        ));
        c.page(StatusCode::OK, "Purge", &body)
    })
}

/// `POST purge`: purge the identifier.
pub fn purge(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.form.text("id").to_string();
        let answer = c.binder().egg(purge_line(&id)).await;
        let body = if answer.failed {
            notice("error", &format!("Not purged: {}", errors(&answer)))
        } else {
            notice("ok", &format!("Purged {id}."))
        };
        c.page(StatusCode::OK, "Purge", &body)
    })
}
