//! The end of an identifier's life, each behind its own page: **withdrawing** it (its
//! target becomes the stored code `410 REASON`, which the resolver answers with a
//! tombstone page, and a `successor` may name what replaces it: docs/RESOLUTION.md,
//! "Withdrawn identifiers"), and **purging** it (every element removed, after the
//! curator types the identifier to confirm). Both run as one typed change through
//! [`super::binder::Binder::run`]; the write log keeps what they replaced.

use hyper::StatusCode;
use noid_egg::{Command, Op};

use super::binder::Binding;
use super::ctx::{see_other, Ctx, Handled};
use super::html::{escape, notice, post_form, query_value};

/// The reason of a withdrawn identifier (`_t` = `410 REASON`), if it is withdrawn.
fn withdrawn(bindings: &[Binding]) -> Option<String> {
    let t = bindings.iter().find(|(e, _)| e == "_t")?;
    let t = std::str::from_utf8(&t.1).ok()?;
    t.strip_prefix("410 ")
        .filter(|_| !t.contains('\n'))
        .map(|r| r.trim().to_string())
}

/// The banner of a withdrawn identifier's page (empty for one that is not).
pub fn banner(c: &Ctx, bindings: &[Binding]) -> String {
    let Some(reason) = withdrawn(bindings) else {
        return String::new();
    };
    let successor = bindings
        .iter()
        .find(|(e, _)| e == "successor")
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned());
    let mut s = String::from("<div class=\"notice error\" role=\"status\" id=\"withdrawn\">\n<p><strong>Withdrawn.</strong> ");
    s.push_str(&if reason.is_empty() {
        "No reason was given.".to_string()
    } else {
        format!("Reason: {}", escape(&reason))
    });
    s.push_str("</p>\n");
    if let Some(succ) = successor {
        s.push_str(&format!(
            "<p>Successor: <a href=\"{}id?id={}\">{}</a></p>\n",
            c.base(),
            query_value(&succ),
            escape(&succ)
        ));
    }
    s.push_str("<p>The resolver answers it with a tombstone page (410 Gone).</p>\n</div>\n");
    s
}

/// The withdraw form for `id`, showing `reason` and `successor` as entered.
fn withdraw_body(c: &Ctx, id: &str, targets: &str, reason: &str, successor: &str) -> String {
    let mut s = format!(
        "<p>Withdrawing <strong>{}</strong> replaces its target{} with the stored code \
         <code>410</code> and your reason: the resolver then answers it with a tombstone \
         page (410 Gone) showing its metadata, the reason and the successor. Its other \
         elements stay; the write log keeps the target it had.</p>\n",
        escape(id),
        if targets.is_empty() {
            String::new()
        } else {
            format!(" (now <code>{}</code>)", escape(targets))
        }
    );
    s.push_str(&post_form(&c.session, &format!("{}withdraw", c.base())));
    s.push_str(&format!(
        "<input type=\"hidden\" name=\"id\" value=\"{}\">\n\
         <label for=\"reason\">Reason (shown to readers)</label>\n\
         <input type=\"text\" id=\"reason\" name=\"reason\" value=\"{}\" required>\n\
         <label for=\"successor\">Successor (optional: the identifier or URL that replaces it)</label>\n\
         <input type=\"text\" id=\"successor\" name=\"successor\" value=\"{}\">\n\
         <p><button type=\"submit\" class=\"danger\">Withdraw {}</button> \
         <a href=\"{}id?id={}\">Cancel</a></p>\n</form>\n",
        escape(id),
        escape(reason),
        escape(successor),
        escape(id),
        c.base(),
        query_value(id)
    ));
    s
}

/// The current target of `bindings`, as text (empty when none).
fn target_of(bindings: &[Binding]) -> String {
    bindings
        .iter()
        .find(|(e, _)| e == "_t")
        .map(|(_, v)| String::from_utf8_lossy(v).replace('\n', " · "))
        .unwrap_or_default()
}

/// `GET withdraw?id=ID`: the withdraw form.
pub fn withdraw_form(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.query.text("id").to_string();
        let bindings = match c.binder().fetch(&id).await {
            Ok(b) => b,
            Err(e) => return c.page(StatusCode::OK, "Withdraw", &notice("error", &e)),
        };
        if bindings.is_empty() {
            let body = notice(
                "error",
                &format!("Nothing is bound to {id}: there is nothing to withdraw."),
            );
            return c.page(StatusCode::NOT_FOUND, "Withdraw", &body);
        }
        let body = withdraw_body(&c, &id, &target_of(&bindings), "", "");
        c.page(StatusCode::OK, "Withdraw", &body)
    })
}

/// `POST withdraw`: set the target to `410 REASON` and, if given, the successor.
pub fn withdraw(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.form.text("id").to_string();
        let reason = c.form.text("reason").to_string();
        let successor = c.form.text("successor").to_string();
        let again = |why: &str, targets: &str| {
            let body = notice("error", why) + &withdraw_body(&c, &id, targets, &reason, &successor);
            c.page(StatusCode::UNPROCESSABLE_ENTITY, "Withdraw", &body)
        };
        let bindings = match c.binder().fetch(&id).await {
            Ok(b) => b,
            Err(e) => return again(&e, ""),
        };
        if bindings.is_empty() {
            return again(
                &format!("Nothing is bound to {id}: there is nothing to withdraw."),
                "",
            );
        }
        if reason.is_empty() {
            return again(
                "Give a reason: readers see it on the tombstone page.",
                &target_of(&bindings),
            );
        }
        let set = |elem: &str, value: String| Command::Bind {
            op: Op::Set,
            id: id.clone(),
            elem: elem.into(),
            value: value.into_bytes(),
        };
        let mut commands = vec![set("_t", format!("410 {reason}"))];
        if !successor.is_empty() {
            commands.push(set("successor", successor.clone()));
        }
        if let Err(e) = c.binder().run(commands).await {
            return again(&format!("Not withdrawn: {e}"), &target_of(&bindings));
        }
        see_other(&format!("{}id?id={}", c.base(), query_value(&id)))
    })
}

/// The purge confirmation for `id` with `n` elements bound.
fn purge_body(c: &Ctx, id: &str, n: usize) -> String {
    let mut body = format!(
        "<p>Purging removes every element bound to <strong>{}</strong> ({n} bound now). \
         It cannot be undone. To withdraw an identifier instead, so that readers learn \
         why it is gone, <a href=\"{}withdraw?id={}\">withdraw it</a>.</p>\n",
        escape(id),
        c.base(),
        query_value(id)
    );
    body.push_str(&post_form(&c.session, &format!("{}purge", c.base())));
    body.push_str(&format!(
        "<input type=\"hidden\" name=\"id\" value=\"{}\">\n\
         <label for=\"confirm\">Type the identifier to confirm</label>\n\
         <input type=\"text\" id=\"confirm\" name=\"confirm\" autocomplete=\"off\" required>\n\
         <p><button type=\"submit\" class=\"danger\">Purge {}</button> \
         <a href=\"{}id?id={}\">Cancel</a></p>\n</form>\n",
        escape(id),
        escape(id),
        c.base(),
        query_value(id)
    ));
    body
}

/// `GET purge?id=ID`: the confirmation.
pub fn purge_form(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.query.text("id").to_string();
        let n = match c.binder().fetch(&id).await {
            Ok(b) => b.len(),
            Err(e) => return c.page(StatusCode::OK, "Purge", &notice("error", &e)),
        };
        let body = purge_body(&c, &id, n);
        c.page(StatusCode::OK, "Purge", &body)
    })
}

/// `POST purge`: purge the identifier, when the identifier typed to confirm is it.
pub fn purge(c: Ctx) -> Handled {
    Box::pin(async move {
        let id = c.form.text("id").to_string();
        if c.form.text("confirm") != id {
            let n = c.binder().fetch(&id).await.map_or(0, |b| b.len());
            let body = notice(
                "error",
                "Not purged: the identifier typed to confirm is not this one. Type it exactly as shown.",
            ) + &purge_body(&c, &id, n);
            return c.page(StatusCode::UNPROCESSABLE_ENTITY, "Purge", &body);
        }
        let purge = Command::Purge { id: id.clone() };
        let body = match c.binder().run(vec![purge]).await {
            Err(e) => notice("error", &format!("Not purged: {e}")),
            Ok(_) => notice("ok", &format!("Purged {id}.")),
        };
        c.page(StatusCode::OK, "Purge", &body)
    })
}
