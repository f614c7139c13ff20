//! The frame every HTML page of `noidr --http` shares (the front page, identifier,
//! withdrawn identifier, record and provider pages): a document in English with a
//! phone's viewport, the one stylesheet, a header leading back to the front page, the
//! page's `main`; and HTML escaping, written once here.
//!
//! The stylesheet is served at [`STYLE_PATH`], `/-/noid.css`: no identifier can take
//! that path, since no URI scheme and no NAAN begins with `-` (a scheme starts with a
//! letter, RFC 3986; a NAAN with a digit), and the shipped web-server configs forward
//! only scheme-prefixed identifiers. Pages need no JavaScript.

/// Where the stylesheet is served.
pub const STYLE_PATH: &str = "/-/noid.css";

/// The stylesheet.
pub const STYLE: &str = include_str!("noid.css");

/// The stylesheet's media type.
pub const STYLE_TYPE: &str = "text/css; charset=utf-8";

/// A page's start, up to and including `<main>`: the head titled `title`, the header.
pub(crate) fn start(title: &str) -> String {
    let mut s = String::with_capacity(2048);
    s.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>",
    );
    escape(&mut s, title);
    s.push_str(" — noid resolver</title><link rel=\"stylesheet\" href=\"");
    s.push_str(STYLE_PATH);
    s.push_str(
        "\"></head>\n<body>\n<header><nav aria-label=\"resolver\"><a href=\"/\">noid resolver</a>\
         <a href=\"/-/ark\">ARK service description</a></nav></header>\n<main>\n",
    );
    s
}

/// Ends a page begun by [`start`].
pub(crate) fn end(s: &mut String) {
    s.push_str("</main>\n</body></html>\n");
}

/// An `http(s)` URL as a link; anything else as text (no `javascript:` links).
pub(crate) fn link_or_text(s: &mut String, v: &str) {
    if is_web_url(v) {
        link(s, v, v);
    } else {
        escape(s, v);
    }
}

/// Whether `v` is an `http://` or `https://` URL, the only kind a page links to as
/// given.
pub(crate) fn is_web_url(v: &str) -> bool {
    v.starts_with("https://") || v.starts_with("http://")
}

/// `<a href="HREF">TEXT</a>`, both escaped (the text as [`escape`] shows it).
pub(crate) fn link(s: &mut String, href: &str, text: &str) {
    s.push_str("<a href=\"");
    noid_serving::html::escape_into(s, href);
    s.push_str("\">");
    escape(s, text);
    s.push_str("</a>");
}

/// `v` as HTML text, appended to `s`: HTML's special characters escaped, NUL, other
/// controls and bidirectional overrides shown as `[U+202E]` (the one rule:
/// [`noid_serving::html::escape_visible_into`]).
pub(crate) fn escape(s: &mut String, v: &str) {
    noid_serving::html::escape_visible_into(s, v);
}

/// Where a successor is found: an `http(s)` URL as it is, an identifier (`scheme:…`) at
/// this resolver (`/ark:/…`); `None` for anything else, and for text that cannot be a
/// URL reference (spaces, `<`, `>`, `"`).
pub(crate) fn successor_href(successor: &str) -> Option<String> {
    if successor.is_empty() || successor.contains([' ', '<', '>', '"', '\t']) {
        return None;
    }
    if successor.starts_with("https://") || successor.starts_with("http://") {
        return Some(successor.to_string());
    }
    let scheme = successor.split_once(':')?.0;
    let is_scheme = scheme
        .as_bytes()
        .first()
        .is_some_and(u8::is_ascii_alphabetic)
        && scheme
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'));
    is_scheme.then(|| format!("/{}", successor.trim_start_matches('/')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame() {
        let mut s = start("a<b");
        s.push_str("<h1>x</h1>\n");
        end(&mut s);
        assert_eq!(
            s,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
             <title>a&lt;b — noid resolver</title><link rel=\"stylesheet\" href=\"/-/noid.css\">\
             </head>\n<body>\n<header><nav aria-label=\"resolver\"><a href=\"/\">noid resolver</a>\
             <a href=\"/-/ark\">ARK service description</a></nav></header>\n<main>\n\
             <h1>x</h1>\n</main>\n</body></html>\n"
        );
    }

    #[test]
    fn links_only_to_the_web() {
        let mut s = String::new();
        link_or_text(&mut s, "https://e.org/?a=1&b=\"2\"");
        s.push(' ');
        link_or_text(&mut s, "javascript:alert(1)");
        assert_eq!(
            s,
            "<a href=\"https://e.org/?a=1&amp;b=&quot;2&quot;\">https://e.org/?a=1&amp;b=&quot;2&quot;</a> \
             javascript:alert(1)"
        );
    }

    #[test]
    fn the_stylesheet_path_is_no_identifier() {
        assert_eq!(
            crate::route::split(STYLE_PATH),
            Some((crate::route::Route::Style, ""))
        );
        assert!(STYLE.contains("body {"));
    }
}
