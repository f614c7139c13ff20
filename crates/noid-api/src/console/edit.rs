//! One identifier: its targets and kernel metadata (`who`, `what`, `when`, `how`) with
//! the reserved values offered, and its standing (judged by noid-resolve's `kernel`, as
//! `noid standing` and the resolver's pages judge it). Withdrawing and purging it are
//! [`super::retire`]'s.
//!
//! "Check standing" re-renders the form with the standing of the values entered,
//! writing nothing; "Save" writes back only the elements the curator changed, as typed
//! binder commands run as one change ([`super::binder::Binder::run`]).
//!
//! A save must write back exactly what the person changed, so each element is compared
//! with what the form showed of its stored value ([`Shown`]), not with what a browser
//! happens to send: several targets (a `_t` of several lines) are shown as several
//! fields and joined again with line breaks; a text with a line break is a text area
//! (a one-line field would drop the break), whose `CR LF` browsers send is read as the
//! `LF` it showed; a value that is not UTF-8 text is shown and never written.

use hyper::StatusCode;
use noid_egg::{Command, Op};
use noid_resolve::kernel::{self, Base, Reserved, Standing, Value};

use super::binder::Binding;
use super::ctx::{see_other, Ctx, Handled};
use super::form::Form;
use super::html::{escape, notice, post_form, query_value};

/// Every element the form edits.
const EDITED: [&str; 5] = ["_t", "who", "what", "when", "how"];

/// An edited element's value as the form shows it and as a save reads it back: the
/// same function of the stored bytes and of the posted fields, so that an untouched
/// field compares equal and is not written.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shown {
    /// Targets, one per field (a `_t` of several lines), without empty lines.
    Targets(Vec<String>),
    /// A reserved code (empty for none) and the text, line breaks as `LF`.
    Text { code: &'static str, text: String },
    /// Bytes that are not UTF-8 text: shown, never edited.
    Binary,
}

impl Shown {
    /// How the form shows `elem`'s stored value (`None`: not bound).
    fn of(elem: &str, stored: Option<&[u8]>) -> Shown {
        let Ok(text) = std::str::from_utf8(stored.unwrap_or_default()) else {
            return Shown::Binary;
        };
        if elem == "_t" {
            return Shown::Targets(
                text.split('\n')
                    .map(|t| t.trim().to_string())
                    .filter(|t| !t.is_empty())
                    .collect(),
            );
        }
        let text = text.replace("\r\n", "\n");
        match kernel::parse_elem(elem, &text) {
            Ok(Value::Reserved(r, rest)) => Shown::Text {
                code: r.code(),
                text: rest.to_string(),
            },
            _ => Shown::Text { code: "", text },
        }
    }

    /// What form `f` posted for `elem`.
    fn posted(elem: &str, f: &Form) -> Shown {
        if elem == "_t" {
            return Shown::Targets(
                f.fields
                    .iter()
                    .filter(|(n, _)| n == "_t")
                    .map(|(_, v)| v.trim().to_string())
                    .filter(|t| !t.is_empty())
                    .collect(),
            );
        }
        let code = Reserved::ALL
            .iter()
            .find(|r| r.code() == f.text(&format!("{elem}-code")))
            .map_or("", |r| r.code());
        Shown::Text {
            code,
            text: f.get(elem).unwrap_or("").replace("\r\n", "\n"),
        }
    }

    /// The value to store, empty for none.
    fn value(&self) -> Vec<u8> {
        match self {
            Shown::Targets(t) => t.join("\n").into_bytes(),
            Shown::Text { code: "", text } => text.clone().into_bytes(),
            Shown::Text { code, text } if text.is_empty() => format!("(:{code})").into_bytes(),
            Shown::Text { code, text } => format!("(:{code}) {text}").into_bytes(),
            Shown::Binary => Vec::new(),
        }
    }
}

/// The first value of `elem` among `bindings` (the one `get` and the resolver read).
fn first<'a>(bindings: &'a [Binding], elem: &str) -> Option<&'a [u8]> {
    bindings
        .iter()
        .find(|(e, _)| e == elem)
        .map(|(_, v)| v.as_slice())
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

/// The targets' fields: one per target, and an empty one to add another.
fn targets_html(targets: &[String]) -> String {
    let mut s = String::from(
        "<fieldset id=\"targets\">\n<legend>Targets (<code>_t</code>)</legend>\n\
         <p class=\"hint\">An absolute URL (<code>https://…</code>) or a stored code \
         (<code>410 reason</code>, <code>301 URL</code>). Several targets give readers a \
         choice; empty a field to remove its target.</p>\n",
    );
    for (i, t) in targets
        .iter()
        .chain(std::iter::once(&String::new()))
        .enumerate()
    {
        let label = if i < targets.len() {
            format!("Target {}", i + 1)
        } else {
            "Add a target".to_string()
        };
        s.push_str(&format!(
            "<label for=\"_t-{i}\">{label}</label>\n\
             <input type=\"text\" id=\"_t-{i}\" name=\"_t\" value=\"{}\" inputmode=\"url\">\n",
            escape(t)
        ));
    }
    s.push_str("</fieldset>\n");
    s
}

/// A kernel element's fields: its reserved code and its text (a text area when the
/// text holds a line break, which a one-line field would drop).
fn kernel_html(elem: &str, code: &str, text: &str) -> String {
    let mut s = format!(
        "<fieldset>\n<legend>{elem}</legend>\n<div class=\"pair\">\n<div>\
         <label for=\"{elem}-code\">Reserved value</label>\n\
         <select id=\"{elem}-code\" name=\"{elem}-code\">\n<option value=\"\">none: the text is the value</option>\n"
    );
    for r in Reserved::ALL {
        let sel = if r.code() == code { " selected" } else { "" };
        s.push_str(&format!(
            "<option value=\"{c}\"{sel}>(:{c}) {}</option>\n",
            escape(r.meaning()),
            c = r.code()
        ));
    }
    s.push_str(&format!(
        "</select></div>\n<div><label for=\"{elem}\">Text</label>\n"
    ));
    if text.contains('\n') {
        // The line break after the start tag is dropped by HTML parsers, so a text
        // starting with a line break keeps it.
        s.push_str(&format!(
            "<textarea id=\"{elem}\" name=\"{elem}\" rows=\"{}\">\n{}</textarea></div>\n</div>\n",
            text.lines().count().clamp(2, 12),
            escape(text)
        ));
    } else {
        s.push_str(&format!(
            "<input type=\"text\" id=\"{elem}\" name=\"{elem}\" value=\"{}\"></div>\n</div>\n",
            escape(text)
        ));
    }
    if elem == "how" {
        let terms: Vec<&str> = Base::ALL.iter().map(|b| b.term()).collect();
        s.push_str(&format!(
            "<p class=\"hint\">A metatype first ({}; joined with +, then set for a group), \
             then the kind of resource, e.g. <code>text article</code>; or a reserved value.</p>\n",
            terms.join(", ")
        ));
    }
    s.push_str("</fieldset>\n");
    s
}

/// The edit form for `id` showing `shown` (element, how it is shown); `bindings` give
/// the standing.
fn edit_form(c: &Ctx, id: &str, shown: &[(&str, Shown)], standing: &Standing) -> String {
    let mut s = standing_html(standing);
    s.push_str(&post_form(&c.session, &format!("{}id", c.base())));
    s.push_str(&format!(
        "<input type=\"hidden\" name=\"id\" value=\"{}\">\n",
        escape(id)
    ));
    for (elem, v) in shown {
        match v {
            Shown::Targets(t) => s.push_str(&targets_html(t)),
            Shown::Text { code, text } => s.push_str(&kernel_html(elem, code, text)),
            Shown::Binary => s.push_str(&format!(
                "<p class=\"hint\"><code>{}</code> holds bytes that are not UTF-8 text; \
                 the console shows and keeps them, but cannot edit them.</p>\n",
                escape(elem)
            )),
        }
    }
    s.push_str(
        "<p><button type=\"submit\" name=\"action\" value=\"check\" class=\"secondary\">Check standing</button>\
         <button type=\"submit\" name=\"action\" value=\"save\">Save</button></p>\n</form>\n",
    );
    s
}

/// How the form shows each edited element of `bindings`.
fn shown_of(bindings: &[Binding]) -> Vec<(&'static str, Shown)> {
    EDITED
        .iter()
        .map(|e| (*e, Shown::of(e, first(bindings, e))))
        .collect()
}

/// The standing of `bindings` with the edited elements as `shown`.
fn standing_of(bindings: &[Binding], shown: &[(&str, Shown)]) -> Standing {
    let mut values: Vec<(String, Vec<u8>)> = bindings
        .iter()
        .filter(|(e, _)| !EDITED.contains(&e.as_str()))
        .cloned()
        .collect();
    for (e, v) in shown {
        match v {
            Shown::Binary => values.extend(first(bindings, e).map(|b| (e.to_string(), b.to_vec()))),
            v if v.value().is_empty() => {}
            v => values.push((e.to_string(), v.value())),
        }
    }
    Standing::of(&values)
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
            escape(&String::from_utf8_lossy(v))
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
                body.push_str(&super::retire::banner(&c, &bindings));
                if bindings.is_empty() {
                    body.push_str(
                        "<p>Nothing is bound to this identifier yet: saving creates it.</p>\n",
                    );
                }
                let shown = shown_of(&bindings);
                body.push_str(&edit_form(&c, &id, &shown, &standing_of(&bindings, &shown)));
                body.push_str(&others(&bindings));
                body.push_str(&super::links::identifier_section(&c, &id).await);
                body.push_str(&super::changes::history_section(&c, &id).await);
                body.push_str(&super::resolving::identifier_section(&c, &id).await);
                body.push_str(&super::usage::identifier_section(&c, &id).await);
                if !bindings.is_empty() {
                    body.push_str(&format!(
                        "<p><a href=\"{base}withdraw?id={q}\">Withdraw this identifier…</a> · \
                         <a href=\"{base}purge?id={q}\">Purge this identifier…</a></p>\n",
                        base = c.base(),
                        q = query_value(&id)
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

/// The commands that write `posted` over `current` for `id`: only the elements whose
/// posted value differs from what the form showed of the stored one.
fn changes(
    id: &str,
    current: &[(&'static str, Shown)],
    posted: &[(&'static str, Shown)],
) -> Vec<Command> {
    let mut commands = Vec::new();
    for ((elem, was), (_, now)) in current.iter().zip(posted) {
        if was == now || *was == Shown::Binary {
            continue;
        }
        let value = now.value();
        commands.push(if value.is_empty() {
            Command::Remove {
                id: id.to_string(),
                elem: elem.to_string(),
                report: false,
            }
        } else {
            Command::Bind {
                op: Op::Set,
                id: id.to_string(),
                elem: elem.to_string(),
                value,
            }
        });
    }
    commands
}

/// `POST id`: check the entered values' standing, or save them.
pub fn save(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.form.text("id").to_string();
        if id.is_empty() {
            return see_other(&format!("{}id", c.base()));
        }
        let b = c.binder();
        let bindings = match b.fetch(&id).await {
            Ok(v) => v,
            Err(e) => return c.page(StatusCode::OK, &id, &notice("error", &e)),
        };
        let current = shown_of(&bindings);
        let posted: Vec<(&'static str, Shown)> = current
            .iter()
            .map(|(e, was)| match was {
                Shown::Binary => (*e, Shown::Binary),
                _ => (*e, Shown::posted(e, &c.form)),
            })
            .collect();
        if c.form.text("action") != "save" {
            let body = notice(
                "ok",
                "Not saved yet: the standing below is that of the values entered.",
            ) + &edit_form(&c, &id, &posted, &standing_of(&bindings, &posted));
            return c.page(StatusCode::OK, &id, &body);
        }
        let commands = changes(&id, &current, &posted);
        if !commands.is_empty() {
            if let Err(e) = b.run(commands).await {
                let body = notice("error", &format!("Not saved: {e}"))
                    + &edit_form(&c, &id, &posted, &standing_of(&bindings, &posted));
                return c.page(StatusCode::UNPROCESSABLE_ENTITY, &id, &body);
            }
        }
        see_other(&format!("{}id?id={}&saved=1", c.base(), query_value(&id)))
    })
}
