//! An identifier's history on its page ([`history_section`]), and "Change many": find
//! and replace a prefix of the targets, with a preview, an operation id and an undo
//! ([`form`], [`submit`]). Both read or write through noid-binder's `history` and
//! `rewrite`, as `noid history` and `noid rewrite` and the API's `history` and
//! `rewrite` do (noid-binder's `api::changes`).

use hyper::StatusCode;
use noid_binder::api::changes::{apply_in, preview_in, undo_in};
use noid_binder::history::{self, Change};
use noid_binder::rewrite::{self, Applied, Preview, Rewrite, TARGET};

use super::ctx::{Ctx, Handled};
use super::html::{escape, notice, post_form};

/// Changes of an identifier its page shows, newest first.
const SHOWN: usize = 100;

/// The History section of `id`'s page: who, when, which element, old value → new, from
/// the binder's write log (newest first).
pub async fn history_section(c: &Ctx, id: &str) -> String {
    let mut s = String::from("<h2 id=\"history\">History</h2>\n");
    let Some(log) = c.pop.log_path() else {
        return s + "<p>This populator has no binder.</p>\n";
    };
    let given = id.to_string();
    let found =
        tokio::task::spawn_blocking(move || history::history(&history::log_files(&log), &given))
            .await;
    let changes = match found {
        Ok(Ok(c)) => c,
        Ok(Err(e)) => return s + &notice("error", &format!("The write log cannot be read: {e}")),
        Err(e) => return s + &notice("error", &e.to_string()),
    };
    if changes.is_empty() {
        s.push_str(
            "<p>No logged writes: nothing was written here through the API, the console \
             or <code>noid rewrite</code>.</p>\n",
        );
        return s;
    }
    s.push_str(
        "<table>\n<caption>Writes to this identifier, newest first (old values of writes \
         logged before they were recorded show as “not recorded”)</caption>\n<tr>\
         <th scope=\"col\">When (UTC)</th><th scope=\"col\">Who</th>\
         <th scope=\"col\">Change</th><th scope=\"col\">Old value</th>\
         <th scope=\"col\">New value</th><th scope=\"col\">Operation</th></tr>\n",
    );
    for ch in changes.iter().rev().take(SHOWN) {
        s.push_str(&row(ch));
    }
    s.push_str("</table>\n");
    if changes.len() > SHOWN {
        s.push_str(&format!(
            "<p>{} older writes are not shown: <code>noid history</code> lists them all.</p>\n",
            changes.len() - SHOWN
        ));
    }
    s
}

/// One change as a table row.
fn row(ch: &Change) -> String {
    let who = match &ch.acting_for {
        Some(a) => format!("{} for {a}", ch.agent),
        None => ch.agent.clone(),
    };
    let when = chrono::DateTime::from_timestamp(ch.when, 0).map_or_else(
        || ch.when.to_string(),
        |t| t.format("%Y-%m-%d %H:%M:%S").to_string(),
    );
    format!(
        "<tr><td>{}</td><td>{}</td><td>{} <code>{}</code></td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        escape(&when),
        escape(&who),
        escape(ch.action),
        escape(&ch.element),
        escape(&history::old_text(ch)),
        escape(&ch.new),
        escape(ch.op.as_deref().unwrap_or("")),
    )
}

/// The find-and-replace form, filled with `from`, `to`, `under` and `query`.
fn rewrite_form(c: &Ctx, from: &str, to: &str, (under, query): (&str, &str)) -> String {
    format!(
        "{}<p class=\"hint\">Every target (<code>_t</code>, each line of it) that starts \
         with the first prefix is changed to start with the second. The preview shows how \
         many would change; nothing changes until you apply it, and an applied change can \
         be undone.</p>\n\
         <label for=\"from\">Targets starting with</label>\n\
         <input type=\"text\" id=\"from\" name=\"from\" value=\"{}\" inputmode=\"url\" required>\n\
         <label for=\"to\">Change that start to</label>\n\
         <input type=\"text\" id=\"to\" name=\"to\" value=\"{}\" inputmode=\"url\" required>\n\
         <label for=\"under\">Only identifiers starting with (optional)</label>\n\
         <input type=\"text\" id=\"under\" name=\"under\" value=\"{}\">\n\
         <label for=\"query\">Or only identifiers matching a search (optional)</label>\n\
         <input type=\"text\" id=\"query\" name=\"query\" value=\"{}\" aria-describedby=\"query-hint\">\n\
         <p class=\"hint\" id=\"query-hint\">In the language of Search: \
         <code>host:old.example.org</code>, <code>under:ark:/13030/f5 -status:ok</code>.</p>\n\
         <p><button type=\"submit\" name=\"action\" value=\"preview\">Preview</button></p>\n</form>\n",
        post_form(&c.session, &format!("{}rewrite", c.base())),
        escape(from),
        escape(to),
        escape(under),
        escape(query)
    )
}

/// `GET rewrite`: the find-and-replace form.
pub fn form(c: Ctx) -> Handled {
    Box::pin(async move {
        let body = rewrite_form(&c, "", "", ("", ""));
        c.page(StatusCode::OK, "Change many targets", &body)
    })
}

/// The preview page's body: the count, the sample, and the Apply button.
fn preview_html(c: &Ctx, p: &Preview, from: &str, to: &str, scope: (&str, &str)) -> String {
    let (under, query) = scope;
    let mut s = format!(
        "<p id=\"count\">{} identifiers would change.</p>\n",
        p.count
    );
    if !p.sample.is_empty() {
        s.push_str(&format!(
            "<table>\n<caption>The first {} of them</caption>\n<tr><th scope=\"col\">Identifier</th>\
             <th scope=\"col\">Old target</th><th scope=\"col\">New target</th></tr>\n",
            p.sample.len()
        ));
        for x in &p.sample {
            s.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                escape(&x.id),
                escape(&x.old),
                escape(&x.new)
            ));
        }
        s.push_str("</table>\n");
    }
    s.push_str(&refused_table("Left as they are", &p.skipped));
    if p.count > 0 {
        s.push_str(&post_form(&c.session, &format!("{}rewrite", c.base())));
        for (name, value) in [
            ("from", from),
            ("to", to),
            ("under", under),
            ("query", query),
        ] {
            s.push_str(&format!(
                "<input type=\"hidden\" name=\"{name}\" value=\"{}\">\n",
                escape(value)
            ));
        }
        s.push_str(&format!(
            "<p><button type=\"submit\" name=\"action\" value=\"apply\">Apply to {} identifiers</button></p>\n</form>\n",
            p.count
        ));
    }
    s.push_str("<h2>Change the request</h2>\n");
    s.push_str(&rewrite_form(c, from, to, scope));
    s
}

/// A table of identifiers and why each was left or refused ("" when none).
fn refused_table(caption: &str, list: &[(String, String)]) -> String {
    if list.is_empty() {
        return String::new();
    }
    let mut s = format!(
        "<table>\n<caption>{} ({})</caption>\n<tr><th scope=\"col\">Identifier</th><th scope=\"col\">Why</th></tr>\n",
        escape(caption),
        list.len()
    );
    for (id, why) in list {
        s.push_str(&format!(
            "<tr><td>{}</td><td>{}</td></tr>\n",
            escape(id),
            escape(why)
        ));
    }
    s + "</table>\n"
}

/// An operation's page: its id, what it did, and the button that undoes it.
fn applied_html(c: &Ctx, op: &str, done: &Applied, word: &str) -> String {
    let mut s = format!(
        "<p id=\"op\">Operation <code>{}</code>: {} {} identifiers.</p>\n",
        escape(op),
        word,
        done.changed
    );
    if let Some(why) = &done.stopped {
        s.push_str(&notice("error", &format!("It stopped: {why}")));
    }
    s.push_str(&refused_table("Refused", &done.refused));
    s.push_str(&post_form(&c.session, &format!("{}rewrite", c.base())));
    s.push_str(&format!(
        "<input type=\"hidden\" name=\"op\" value=\"{}\">\n\
         <p><button type=\"submit\" name=\"action\" value=\"undo\">Undo operation {}</button></p>\n</form>\n",
        escape(op),
        escape(op)
    ));
    s
}

/// `POST rewrite`: preview, apply or undo.
pub fn submit(c: Ctx) -> Handled {
    Box::pin(async move {
        let title = "Change many targets";
        let (from, to, under) = (
            c.form.text("from").to_string(),
            c.form.text("to").to_string(),
            c.form.text("under").trim().to_string(),
        );
        let query = c.form.text("query").trim().to_string();
        let action = c.form.text("action").to_string();
        let refuse = |status: StatusCode, why: &str| {
            let body = notice("error", why) + &rewrite_form(&c, &from, &to, (&under, &query));
            c.page(status, title, &body)
        };
        let Some(dir) = c.pop.populator.binder.clone() else {
            return refuse(StatusCode::NOT_FOUND, "This populator has no binder.");
        };
        let log = c.pop.log_path().unwrap_or_else(|| dir.join("write.log"));
        if action != "preview" && !c.binder().writes() {
            return refuse(StatusCode::FORBIDDEN, "This login may read, not write.");
        }
        let who = c.who();
        let store = c.service.store(&dir, Some(log.clone()));
        let read_only = !c.binder().writes();
        let unders = if under.is_empty() {
            Vec::new()
        } else {
            vec![under.clone()]
        };
        if action == "undo" {
            let op = c.form.text("op").to_string();
            let done = tokio::task::spawn_blocking(move || {
                let run = |work| store.run(work, who.clone(), read_only);
                undo_in(&run, &log, &who, &op)
            })
            .await;
            return match done {
                Ok(Ok((op, done))) => c.page(
                    StatusCode::OK,
                    title,
                    &applied_html(&c, &op, &done, "restored"),
                ),
                Ok(Err(e)) => refuse(StatusCode::UNPROCESSABLE_ENTITY, &e),
                Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
            };
        }
        let rw = match Rewrite::new(TARGET, &from, &to) {
            Ok(rw) => rw,
            Err(e) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, &e),
        };
        // (a query opens the search index, which may rebuild it: off the runtime)
        let (d, q) = (dir.clone(), query.clone());
        let sel = match tokio::task::spawn_blocking(move || rewrite::select(&d, unders, Some(&q)))
            .await
        {
            Ok(Ok(sel)) => sel,
            Ok(Err(e)) => return refuse(StatusCode::UNPROCESSABLE_ENTITY, &e),
            Err(e) => return refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
        };
        match action.as_str() {
            "preview" => {
                let p = tokio::task::spawn_blocking(move || preview_in(&dir, &sel, &rw, 20)).await;
                match p {
                    Ok(Ok(p)) => {
                        let body = preview_html(&c, &p, &from, &to, (&under, &query));
                        c.page(StatusCode::OK, title, &body)
                    }
                    Ok(Err(e)) => refuse(StatusCode::SERVICE_UNAVAILABLE, &e),
                    Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
                }
            }
            "apply" => {
                let done = tokio::task::spawn_blocking(move || {
                    let run = |work| store.run(work, who.clone(), read_only);
                    apply_in(&run, &log, &who, &sel, &rw)
                })
                .await;
                match done {
                    Ok(Ok((op, done))) => c.page(
                        StatusCode::OK,
                        title,
                        &applied_html(&c, &op, &done, "changed"),
                    ),
                    Ok(Err(e)) => refuse(StatusCode::SERVICE_UNAVAILABLE, &e),
                    Err(e) => refuse(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
                }
            }
            other => refuse(
                StatusCode::BAD_REQUEST,
                &format!("Unknown action {other:?}: use the Preview button."),
            ),
        }
    })
}
