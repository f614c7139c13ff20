//! The populator's first page (its binder and minters), minting, and browsing the
//! binder's identifiers by prefix.

use hyper::StatusCode;

use super::html::{escape, notice, post_form, query_value};
use super::{Ctx, Handled};
use noid_egg::{Command, Op};

/// Most identifiers minted by one form.
pub const MAX_MINT: u64 = 1000;
/// Identifiers per page when browsing.
pub const PAGE: usize = 50;

/// `/console/p/POP/`: the populator's binder and minters.
pub fn home(c: Ctx) -> Handled {
    Box::pin(async move {
        let b = c.binder();
        let base = c.base();
        let rights = if b.writes() {
            "read and write"
        } else {
            "read only"
        };
        let mut body = String::new();
        body.push_str("<h2>Binder</h2>\n");
        if b.has_binder() {
            body.push_str(&format!(
                "<p>Populator {} has a binder ({rights}). \
                 <a href=\"{base}browse\">Browse its identifiers</a> or \
                 <a href=\"{base}id\">open an identifier</a>.</p>\n",
                escape(&c.user.populator)
            ));
        } else {
            body.push_str("<p>This populator has no binder.</p>\n");
        }
        body.push_str("<h2>Minters</h2>\n");
        let minters = b.minters();
        if minters.is_empty() {
            body.push_str("<p>This populator has no minters.</p>\n");
        } else {
            body.push_str("<ul>\n");
            for m in &minters {
                let path = m.join("/");
                body.push_str(&format!(
                    "<li>{} · <a href=\"{base}mint?minter={}\">mint from it</a></li>\n",
                    escape(&path),
                    query_value(&path)
                ));
            }
            body.push_str("</ul>\n");
        }
        c.page(StatusCode::OK, "Binders and minters", &body)
    })
}

/// The mint form, its minter chosen by `?minter=`.
fn mint_body(c: &Ctx, chosen: &str, n: &str, target: &str) -> String {
    let minters = c.binder().minters();
    if minters.is_empty() {
        return "<p>This populator has no minters.</p>\n".into();
    }
    let mut s = post_form(&c.session, &format!("{}mint", c.base()));
    s.push_str("<label for=\"minter\">Minter</label>\n<select id=\"minter\" name=\"minter\">\n");
    for m in &minters {
        let path = m.join("/");
        let sel = if path == chosen { " selected" } else { "" };
        s.push_str(&format!(
            "<option value=\"{p}\"{sel}>{p}</option>\n",
            p = escape(&path)
        ));
    }
    s.push_str(&format!(
        "</select>\n<label for=\"n\">How many identifiers</label>\n\
         <input type=\"number\" id=\"n\" name=\"n\" min=\"1\" max=\"{MAX_MINT}\" value=\"{}\" required>\n\
         <label for=\"target\">Target URL (optional)</label>\n\
         <p class=\"hint\" id=\"target-hint\">Bound as each identifier's target (<code>_t</code>); \
         <code>$id</code> in it is replaced by the identifier.</p>\n\
         <input type=\"url\" id=\"target\" name=\"target\" value=\"{}\" aria-describedby=\"target-hint\">\n\
         <p><button type=\"submit\">Mint</button></p>\n</form>\n",
        escape(n),
        escape(target)
    ));
    s
}

/// `GET mint`.
pub fn mint_form(c: Ctx) -> Handled {
    Box::pin(async move {
        let body = mint_body(&c, c.query.text("minter"), "1", "");
        c.page(StatusCode::OK, "Mint", &body)
    })
}

/// `POST mint`: mint N, then bind the target to each (one bulk request).
pub fn mint(c: Ctx) -> Handled {
    Box::pin(async move {
        let f = &c.form;
        let again = |msg: &str| {
            let body = notice("error", msg)
                + &mint_body(&c, f.text("minter"), f.text("n"), f.text("target"));
            c.page(StatusCode::BAD_REQUEST, "Mint", &body)
        };
        let n = match f.text("n").parse::<u64>() {
            Ok(n) if (1..=MAX_MINT).contains(&n) => n,
            _ => {
                return again(&format!(
                    "Give a number of identifiers from 1 to {MAX_MINT}."
                ))
            }
        };
        let steps: Vec<String> = f.text("minter").split('/').map(str::to_string).collect();
        let Ok(path) = <[String; 3]>::try_from(steps) else {
            return again("Choose one of the minters.");
        };
        let target = f.text("target");
        // A target that cannot be stored is refused before anything is minted.
        if let Some(why) = (!target.is_empty())
            .then(|| noid_minter::gate::target_problem(&target.replace("$id", "x")))
            .flatten()
        {
            return again(&format!("The target cannot be stored: {why}."));
        }
        let b = c.binder();
        let (ids, error) = b.mint(&path, n).await;
        let mut bound = None;
        if !target.is_empty() && !ids.is_empty() {
            let binds = ids
                .iter()
                .map(|id| Command::Bind {
                    op: Op::Set,
                    id: id.clone(),
                    elem: "_t".into(),
                    value: target.replace("$id", id).into_bytes(),
                })
                .collect();
            bound = Some(b.run(binds).await.err());
        }
        let mut body = String::new();
        if let Some(e) = &error {
            body.push_str(&notice("error", &format!("Minting stopped: {e}")));
        }
        match &bound {
            Some(Some(e)) => body.push_str(&notice(
                "error",
                &format!("Binding the targets failed: {e}"),
            )),
            Some(None) => body.push_str(&notice(
                "ok",
                &format!("Minted {} and bound their targets.", ids.len()),
            )),
            None => body.push_str(&notice("ok", &format!("Minted {}.", ids.len()))),
        }
        body.push_str("<ul class=\"minted\">\n");
        for id in &ids {
            body.push_str(&format!(
                "<li><a href=\"{}id?id={}\">{}</a></li>\n",
                c.base(),
                query_value(id),
                escape(id)
            ));
        }
        body.push_str("</ul>\n<h2>Mint more</h2>\n");
        body.push_str(&mint_body(&c, &path.join("/"), "1", ""));
        let status = if error.is_some() {
            StatusCode::INTERNAL_SERVER_ERROR
        } else {
            StatusCode::OK
        };
        c.page(status, "Minted", &body)
    })
}

/// `GET browse?prefix=P&after=ID`: the binder's identifiers starting with P, a page
/// at a time (egg's `list` and `next`).
pub fn browse(c: Ctx) -> Handled {
    Box::pin(async move {
        let prefix = c.query.text("prefix");
        let after = Some(c.query.text("after")).filter(|a| !a.is_empty());
        let base = c.base();
        let mut body = format!(
            "<form method=\"get\" action=\"{base}browse\" role=\"search\">\n\
             <label for=\"prefix\">Identifiers starting with</label>\n\
             <input type=\"text\" id=\"prefix\" name=\"prefix\" value=\"{}\">\n\
             <button type=\"submit\">Show</button>\n</form>\n",
            escape(prefix)
        );
        let found = c.binder().list(prefix, after, PAGE + 1).await;
        let ids = match found {
            Ok(ids) => ids,
            Err(e) => {
                body.push_str(&notice("error", &e));
                return c.page(StatusCode::OK, "Browse", &body);
            }
        };
        let more = ids.len() > PAGE;
        let shown = &ids[..ids.len().min(PAGE)];
        if shown.is_empty() {
            body.push_str("<p>No identifiers here.</p>\n");
        } else {
            body.push_str("<ul class=\"ids\">\n");
            for id in shown {
                body.push_str(&format!(
                    "<li><a href=\"{base}id?id={}\">{}</a></li>\n",
                    query_value(id),
                    escape(id)
                ));
            }
            body.push_str("</ul>\n");
        }
        body.push_str("<nav aria-label=\"Pages\"><p>");
        if after.is_some() {
            body.push_str(&format!(
                "<a href=\"{base}browse?prefix={}\">First page</a> ",
                query_value(prefix)
            ));
        }
        if let (true, Some(last)) = (more, shown.last()) {
            body.push_str(&format!(
                "<a href=\"{base}browse?prefix={}&amp;after={}\" rel=\"next\">Next page</a>",
                query_value(prefix),
                query_value(last)
            ));
        }
        body.push_str("</p></nav>\n");
        c.page(StatusCode::OK, "Browse", &body)
    })
}
