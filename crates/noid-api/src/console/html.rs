//! The console's one layout and its small stylesheet: server-rendered HTML that needs
//! no script, with a skip link, landmarks, labelled fields and colours that meet WCAG
//! 2.1 AA contrast (every text colour is 4.5:1 or more on its background).
//!
//! Every text a page shows from the store or the request goes through [`escape`].

use super::session::LoginSession;

/// The stylesheet, served at `/console/style.css`.
pub const STYLE: &str = include_str!("style.css");

pub use noid_serving::html::{escape, escape_into};

/// `text` %-encoded for a URL's query value.
pub fn query_value(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// The hidden field carrying the session's form token; every `<form method="post">`
/// starts with it ([`post_form`]).
pub fn token_field(session: &LoginSession) -> String {
    format!(
        "<input type=\"hidden\" name=\"csrf\" value=\"{}\">",
        escape(&session.csrf)
    )
}

/// `<form method="post" action="ACTION">` with the form token; the caller adds the
/// fields and `</form>`.
pub fn post_form(session: &LoginSession, action: &str) -> String {
    format!(
        "<form method=\"post\" action=\"{}\">{}\n",
        escape(action),
        token_field(session)
    )
}

/// A message box: `kind` is `ok` or `error` (errors are announced to screen readers).
pub fn notice(kind: &str, text: &str) -> String {
    let role = if kind == "error" { "alert" } else { "status" };
    format!(
        "<p class=\"notice {kind}\" role=\"{role}\">{}</p>\n",
        escape(text)
    )
}

/// A whole page: the layout around `body` (HTML), titled `title`.
pub fn page(title: &str, session: &LoginSession, body: &str) -> String {
    let mut s = String::with_capacity(body.len() + 2048);
    s.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
    );
    escape_into(&mut s, title);
    s.push_str(
        " · noid console</title>\n<link rel=\"stylesheet\" href=\"/console/style.css\">\n\
         </head>\n<body>\n<a class=\"skip\" href=\"#main\">Skip to content</a>\n\
         <header>\n<p class=\"brand\"><a href=\"/console/\">noid console</a></p>\n",
    );
    if let Some(user) = &session.user {
        let base = format!("/console/p/{}/", user.populator);
        s.push_str("<nav aria-label=\"Console\">\n<ul>\n");
        for (path, label) in NAV {
            s.push_str(&format!(
                "<li><a href=\"{}{}\">{}</a></li>\n",
                escape(&base),
                path,
                label
            ));
        }
        s.push_str("</ul>\n</nav>\n");
        // A search box on every page (the search page has its own form).
        if title != "Search" {
            s.push_str(&format!(
                "<form class=\"quick-search\" method=\"get\" action=\"{}search\" role=\"search\">\n\
                 <label for=\"quick-q\">Search identifiers</label>\n\
                 <input type=\"search\" id=\"quick-q\" name=\"q\">\n\
                 <button type=\"submit\">Search</button>\n</form>\n",
                escape(&base)
            ));
        }
        s.push_str(&post_form(session, "/console/logout"));
        s.push_str("<p class=\"who\">");
        escape_into(&mut s, &user.login);
        s.push_str(" for ");
        escape_into(&mut s, &user.populator);
        s.push_str(" <button type=\"submit\">Log out</button></p>\n</form>\n");
    }
    s.push_str("</header>\n<main id=\"main\">\n<h1>");
    escape_into(&mut s, title);
    s.push_str("</h1>\n");
    s.push_str(body);
    s.push_str("</main>\n</body>\n</html>\n");
    s
}

/// The layout's navigation: path under `/console/p/POP/`, label.
pub const NAV: &[(&str, &str)] = &[
    ("", "Binders and minters"),
    ("mint", "Mint"),
    ("browse", "Browse"),
    ("search", "Search"),
    ("id", "Identifier"),
    ("upload", "Upload"),
    ("writes", "Recent writes"),
    ("rewrite", "Change many"),
    ("links", "Link health"),
    ("explain", "Explain"),
    ("rules", "Test rules"),
    ("usage", "Usage"),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(
            escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
        assert_eq!(query_value("ark:/1 2&x"), "ark%3A%2F1+2%26x");
    }
}
