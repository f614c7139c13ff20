//! The front page, `GET /`: a box that resolves or shows any identifier (N2T's minimal
//! interface), the NAANs this resolver serves, and how inflections work. A browser gets
//! HTML; other clients get the page's twin, what [`crate::wellknown`] serves (ANVL, or
//! JSON when preferred).
//!
//! The box is a GET form on `/` itself: `/?id=ID` answers `303 See Other` to `/ID`
//! (which redirects to the target), `/?id=ID&go=info` to `/ID?info` (the metadata
//! page). The identifier goes into the path %-encoded so that the server's one
//! decoding of the path ([`crate::route::identifier`]) gives back exactly what was
//! typed, `?`, `%` and spaces included.

use noid_resolve::wellknown::ArkService;

use crate::layout::{self, link, link_or_text};
use crate::page::PageFormat;
use crate::route::{split, Route};

/// The page in `fmt`.
pub fn page(fmt: PageFormat, service: &ArkService) -> String {
    if fmt != PageFormat::Html {
        return crate::wellknown::page(fmt, service);
    }
    let mut s = layout::start("Resolve an identifier");
    s.push_str("<h1>Resolve an identifier</h1>\n");
    resolve_box(&mut s, "");
    s.push_str("<h2>NAANs served</h2>\n");
    if service.naans.is_empty() {
        s.push_str("<p>None: this resolver serves its identifiers without a NAAN.</p>\n");
    } else {
        s.push_str("<ul>\n");
        for naan in &service.naans {
            s.push_str("<li>");
            link(&mut s, &format!("/ark:/{naan}"), &format!("ark:/{naan}"));
            s.push_str("</li>\n");
        }
        s.push_str("</ul>\n");
    }
    if let Some(g) = &service.global_resolver {
        s.push_str("<p>Other ARKs are sent on to ");
        link_or_text(&mut s, g);
        s.push_str(".</p>\n");
    }
    s.push_str(INFLECTIONS);
    layout::end(&mut s);
    s
}

/// The resolve box, holding `value` (nothing on the front page; the identifier asked
/// for on the not-found page, to be corrected), and what its two buttons do.
pub(crate) fn resolve_box(s: &mut String, value: &str) {
    s.push_str(
        "<form action=\"/\" method=\"get\" role=\"search\">\n\
         <label for=\"id\">Identifier</label>\n\
         <input type=\"text\" id=\"id\" name=\"id\" required autocapitalize=\"off\" \
         spellcheck=\"false\" placeholder=\"ark:/12345/x6np1wh8k\"",
    );
    if !value.is_empty() {
        s.push_str(" value=\"");
        noid_serving::html::escape_into(s, value);
        s.push('"');
    }
    s.push_str(
        ">\n\
         <button type=\"submit\" name=\"go\" value=\"resolve\">Resolve</button>\n\
         <button type=\"submit\" name=\"go\" value=\"info\" class=\"second\">Show metadata</button>\n\
         </form>\n\
         <p>Resolve goes to the identifier's target; Show metadata shows what is bound to it.</p>\n",
    );
}

/// How inflections work: what each ending asks of an identifier.
const INFLECTIONS: &str = "<h2>Inflections</h2>\n\
<p>What follows an identifier changes what it answers:</p>\n<dl>\n\
<dt>ark:/12345/x6np1wh8k</dt><dd>goes to the target.</dd>\n\
<dt>ark:/12345/x6np1wh8k?</dt><dd>shows the kernel metadata: who, what, when, where, how.</dd>\n\
<dt>ark:/12345/x6np1wh8k??</dt><dd>shows every element (<code>?info</code> is the same).</dd>\n\
<dt>ark:/12345/x6np1wh8k/chapter2</dt><dd>an unbound tail is passed on to the target of \
the longest bound part (suffix passthrough).</dd>\n\
<dt>*/pdb:2gc4</dt><dd>lists the identifier's target at every provider of its prefix.</dd>\n\
<dt>ark:/12345</dt><dd>a prefix alone shows its record and the records below it.</dd>\n\
</dl>\n<p>The same pages come as ANVL text or JSON to a client that asks for \
<code>text/plain</code> or <code>application/json</code>.</p>\n";

/// Where the box sends a query `/?QUERY`: `/ID` or `/ID?info`; `None` when it names no
/// identifier (the front page is shown). An identifier spelled as a route of its own
/// (`health`, `metrics`, `redirect/x`, …) goes to `/redirect/ID`, which takes any
/// identifier ([`crate::route::split`]): `/health` would be the health check.
pub fn target(query: &str) -> Option<String> {
    let (mut id, mut info) = (None, false);
    for pair in query.split('&') {
        let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
        match name {
            "id" => id = Some(form_value(value)),
            "go" => info = value == "info",
            _ => {}
        }
    }
    let id = id?;
    let id = id.trim().trim_start_matches('/');
    if id.is_empty() {
        return None;
    }
    // A pasted ARK's inner white space and line breaks (the ARK draft's §3.1).
    let unspaced = noid_core::normalize::without_pasted_space(id);
    let id = unspaced.as_deref().unwrap_or(id);
    let mut to = String::with_capacity(id.len() + 17);
    to.push('/');
    encode_path(&mut to, id);
    if split(&to) != Some((Route::Direct, &to[1..])) {
        to.insert_str(0, "/redirect");
    }
    if info {
        to.push_str("?info");
    }
    Some(to)
}

/// A form value as the browser sent it (`application/x-www-form-urlencoded`: `+` for
/// a space, then `%HH`), decoded by the one %-decoder.
fn form_value(v: &str) -> String {
    let spaced = v.replace('+', " ");
    String::from_utf8_lossy(&noid_core::percent_decode(&spaced)).into_owned()
}

/// `id` %-encoded for a path: RFC 3986's unreserved characters, sub-delimiters, `:`,
/// `@` and `/` as they are, every other byte (`%`, `?`, `#`, space, non-ASCII) as `%HH`.
fn encode_path(out: &mut String, id: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &b in id.as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
            out.push(b as char);
        } else {
            out.push('%');
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        }
    }
}

/// The front page's heading, for tests.
#[cfg(test)]
fn heading(s: &str) -> &str {
    let start = s.find("<h1>").unwrap();
    &s[start..s.find("</h1>").unwrap() + 5]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_sends_the_identifier_back_exactly() {
        assert_eq!(
            target("id=ark%3A%2F13030%2Ff54x54g11&go=resolve").as_deref(),
            Some("/ark:/13030/f54x54g11")
        );
        assert_eq!(
            target("id=ark%3A%2F13030%2Ff54x54g11&go=info").as_deref(),
            Some("/ark:/13030/f54x54g11?info")
        );
        // A space, `?`, `%` and non-ASCII come back through the path's one decoding.
        let to = target("id=+13030%2Fa+b%3F%2520%C3%A9+&go=resolve").unwrap();
        assert_eq!(to, "/13030/a%20b%3F%2520%C3%A9");
        let path = to.strip_prefix('/').unwrap();
        assert_eq!(
            crate::route::identifier(path, None).unwrap(),
            "13030/a b?%20é"
        );
        assert_eq!(target("id=&go=info"), None);
        // A pasted ARK broken over lines, with spaces (ARK draft §3.1).
        assert_eq!(
            target("id=ark%3A%2F13030%2Ff54x%0D%0A54g11+&go=info").as_deref(),
            Some("/ark:/13030/f54x54g11?info")
        );
        assert_eq!(target("id=+"), None);
        assert_eq!(target("go=info"), None);
        assert_eq!(target(""), None);
        assert_eq!(target("id=%2Fark:/1/x").as_deref(), Some("/ark:/1/x"));
    }

    /// Found by fuzzing (fuzz/fuzz_targets/http_path.rs): `health` typed in the box was
    /// sent to `/health`, the health check, and `lookup/x` to the lookup route, which
    /// resolves `x`.
    #[test]
    fn the_box_sends_an_identifier_spelled_as_a_route_through_redirect() {
        for (query, to, id) in [
            ("id=health", "/redirect/health", "health"),
            (
                "id=healthz&go=info",
                "/redirect/healthz?info",
                "healthz?info",
            ),
            ("id=metrics", "/redirect/metrics", "metrics"),
            (
                "id=.well-known%2Fark",
                "/redirect/.well-known/ark",
                ".well-known/ark",
            ),
            ("id=-%2Fnoid.css", "/redirect/-/noid.css", "-/noid.css"),
            ("id=redirect%2Fx", "/redirect/redirect/x", "redirect/x"),
            ("id=lookup%2Fx", "/redirect/lookup/x", "lookup/x"),
            ("id=auth%2F", "/redirect/auth/", "auth/"),
        ] {
            let sent = target(query).unwrap();
            assert_eq!(sent, to, "{query}");
            let (path, q) = match sent.split_once('?') {
                Some((p, q)) => (p, Some(q)),
                None => (sent.as_str(), None),
            };
            let (route, rest) = split(path).unwrap();
            assert_eq!(route, Route::Redirect, "{query}");
            assert_eq!(crate::route::identifier(rest, q).unwrap(), id, "{query}");
        }
        // `healthy` and `redirects/x` are no routes: sent as they are.
        assert_eq!(target("id=healthy").as_deref(), Some("/healthy"));
        assert_eq!(target("id=redirects%2Fx").as_deref(), Some("/redirects/x"));
    }

    #[test]
    fn html_and_its_twins() {
        let service = ArkService {
            naans: vec!["13030".into()],
            global_resolver: Some("https://n2t.net/".into()),
        };
        let html = page(PageFormat::Html, &service);
        assert_eq!(heading(&html), "<h1>Resolve an identifier</h1>");
        assert!(
            html.contains(
                "<h2>NAANs served</h2>\n<ul>\n<li><a href=\"/ark:/13030\">ark:/13030</a></li>\n</ul>\n\
                 <p>Other ARKs are sent on to <a href=\"https://n2t.net/\">https://n2t.net/</a>.</p>\n\
                 <h2>Inflections</h2>\n"
            ),
            "{html}"
        );
        assert_eq!(
            page(PageFormat::Anvl, &service),
            "erc:\nresolver: /\nnaan: 13030\nglobal-resolver: https://n2t.net/\n"
        );
        assert_eq!(
            page(PageFormat::Json, &ArkService::default()),
            "{\"resolver\":\"/\",\"naans\":[],\"global_resolver\":null}\n"
        );
        let none = page(PageFormat::Html, &ArkService::default());
        assert!(none.contains("<h2>NAANs served</h2>\n<p>None: "), "{none}");
    }
}
