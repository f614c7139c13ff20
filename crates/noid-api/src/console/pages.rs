//! The populator's first page (its binder and minters), minting, and browsing the
//! identifiers by prefix (the binder's and the minters').

use std::collections::BTreeMap;
use std::sync::Arc;

use hyper::header::{HeaderValue, CONTENT_DISPOSITION};
use hyper::StatusCode;

use super::ctx::{Ctx, Handled};
use super::html::{escape, notice, post_form, query_value};
use super::minted::{full_id, Minted, KEPT};
use crate::reply::Resp;
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

/// `POST mint`: mint N, then bind the target to each (one bulk request); the result
/// is kept ([`super::minted`]) and the answer is a redirect to its page.
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
        let minted = c.service.console.minted.add(Minted {
            number: 0,
            populator: c.user.populator.clone(),
            minter: path,
            ids,
            stopped: error,
            bound,
        });
        super::ctx::see_other(&format!("{}minted?n={}", c.base(), minted.number))
    })
}

/// The mint result `?n=` names, if it is kept and the populator's.
fn kept(c: &Ctx) -> Option<Arc<Minted>> {
    let n = c.query.text("n").parse().ok()?;
    c.service.console.minted.get(n, &c.user.populator)
}

/// The page for a mint result that is not kept (or not the populator's).
fn not_kept(c: &Ctx) -> Resp {
    let body = notice(
        "error",
        &format!(
            "This mint result is not kept: the service keeps the last {KEPT} and \
             forgets them when it restarts. The identifiers are in Recent writes (when \
             targets were bound) and in Browse."
        ),
    );
    c.page(StatusCode::NOT_FOUND, "Minted", &body)
}

/// `GET minted?n=N`: what the mint form's POST minted (it answers with a redirect
/// here, so that reloading shows the same identifiers and mints nothing).
pub fn minted(c: Ctx) -> Handled {
    Box::pin(async move {
        let Some(m) = kept(&c) else {
            return not_kept(&c);
        };
        let base = c.base();
        let mut body = String::new();
        if let Some(e) = &m.stopped {
            body.push_str(&notice("error", &format!("Minting stopped: {e}")));
        }
        let minter = m.minter.join("/");
        match &m.bound {
            Some(Some(e)) => body.push_str(&notice(
                "error",
                &format!("Binding the targets failed: {e}"),
            )),
            Some(None) => body.push_str(&notice(
                "ok",
                &format!(
                    "Minted {} from {minter} and bound their targets.",
                    m.ids.len()
                ),
            )),
            None => body.push_str(&notice(
                "ok",
                &format!("Minted {} from {minter}.", m.ids.len()),
            )),
        }
        let resolver = c.service.console.resolver.as_deref();
        body.push_str("<ul class=\"minted\">\n");
        for id in &m.ids {
            let full = m.full(id);
            body.push_str(&format!(
                "<li><a href=\"{base}id?id={}\">{}</a>",
                query_value(&full),
                escape(&full)
            ));
            if let Some(r) = resolver {
                body.push_str(&format!(
                    " · <a href=\"{}\">at the resolver</a>",
                    escape(&format!("{r}{full}"))
                ));
            }
            body.push_str("</li>\n");
        }
        body.push_str("</ul>\n");
        if !m.ids.is_empty() {
            let all: Vec<String> = m.ids.iter().map(|id| m.full(id)).collect();
            body.push_str(&format!(
                "<h2>Copy them</h2>\n<label for=\"all\">All {} identifiers, one a line</label>\n\
                 <textarea id=\"all\" readonly rows=\"{}\">{}</textarea>\n\
                 <p><a href=\"{base}minted.txt?n={}\" download>Download them as text</a></p>\n",
                all.len(),
                all.len().clamp(2, 12),
                escape(&all.join("\n")),
                m.number
            ));
        }
        body.push_str("<h2>Mint more</h2>\n");
        body.push_str(&mint_body(&c, &minter, "1", ""));
        let status = if m.stopped.is_some() {
            StatusCode::INTERNAL_SERVER_ERROR
        } else {
            StatusCode::OK
        };
        c.page(status, "Minted", &body)
    })
}

/// `GET minted.txt?n=N`: a mint result's identifiers in full, one a line, as a
/// download.
pub fn minted_text(c: Ctx) -> Handled {
    Box::pin(async move {
        let Some(m) = kept(&c) else {
            return not_kept(&c);
        };
        let text: String = m.ids.iter().map(|id| m.full(id) + "\n").collect();
        let mut r = super::ctx::text(StatusCode::OK, &text);
        let disposition = format!("attachment; filename=\"minted-{}.txt\"", m.number);
        if let Ok(v) = HeaderValue::from_str(&disposition) {
            r.headers_mut().insert(CONTENT_DISPOSITION, v);
        }
        r
    })
}

/// One identifier Browse lists.
struct Listed {
    /// As the binder stores it; a minted one unbound in full (`ark:/NAAN/…`), the
    /// spelling it gets when something is bound.
    id: String,
    /// Whether anything is bound to it (otherwise a minter of the populator issued it).
    bound: bool,
}

/// Up to `max` identifiers starting with `prefix`, after `after`, in order: the
/// binder's, and those the populator's minters issued that have nothing bound yet
/// (read from each minter's circulation records), so that an identifier minted
/// without a target is found here too.
async fn listing(
    c: &Ctx,
    prefix: &str,
    after: Option<&str>,
    max: usize,
) -> Result<Vec<Listed>, String> {
    let b = c.binder();
    let mut found = BTreeMap::new();
    if b.has_binder() {
        for id in b.list(prefix, after, max).await? {
            found.insert(id, true);
        }
    }
    for path in b.minters() {
        // `after` in the minter's spelling: its identifiers all begin with `scheme`
        // in full.
        let scheme = full_id(&path[0], "");
        let after_here = match after {
            None => None,
            Some(a) => match a.strip_prefix(scheme.as_str()) {
                Some(rest) => Some(rest),
                None if a < scheme.as_str() => None,
                None => continue,
            },
        };
        for id in b.minted(&path, prefix, after_here, max).await? {
            found.entry(full_id(&path[0], &id)).or_insert(false);
        }
    }
    // Each list is whole up to its last identifier, so the first `max` of both are.
    Ok(found
        .into_iter()
        .take(max)
        .map(|(id, bound)| Listed { id, bound })
        .collect())
}

/// `GET browse?prefix=P&after=ID`: the identifiers starting with P ([`listing`]), a
/// page at a time (egg's `list` and `next`).
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
        let ids = match listing(&c, prefix, after, PAGE + 1).await {
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
            for l in shown {
                body.push_str(&format!(
                    "<li><a href=\"{base}id?id={}\">{}</a>{}</li>\n",
                    query_value(&l.id),
                    escape(&l.id),
                    if l.bound {
                        ""
                    } else {
                        " <span class=\"unbound\">(minted, nothing bound yet)</span>"
                    }
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
                query_value(&last.id)
            ));
        }
        body.push_str("</p></nav>\n");
        c.page(StatusCode::OK, "Browse", &body)
    })
}
