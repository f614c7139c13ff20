//! The HTML metadata page a browser gets for `?`, `??` and `?info`: the kernel
//! elements with reserved codes explained and `(:at)` references as links, the
//! target, and the identifier's standing as `noid standing` reports it (both read
//! values through `noid_resolve::kernel`).

use noid_resolve::kernel::{self, Standing, Value};

/// The page for `id` showing `shown` (name, value), with the target and standing read
/// from all of the id's `bindings`.
pub fn page(id: &str, shown: &[(&str, String)], bindings: &[(String, Vec<u8>)]) -> String {
    page_with(id, "", shown, bindings)
}

/// A withdrawn identifier's page: as [`page`], with why it was withdrawn (`text`, the
/// target's text after `410 `) and its successor, as a link, after the heading.
pub fn tombstone(
    id: &str,
    text: &str,
    successor: Option<&str>,
    shown: &[(&str, String)],
    bindings: &[(String, Vec<u8>)],
) -> String {
    let mut notice = String::from("<p>withdrawn");
    if !text.is_empty() {
        notice.push_str(": ");
        escape(&mut notice, text);
    }
    notice.push_str("</p>\n");
    if let Some(next) = successor {
        notice.push_str("<p>successor: ");
        match crate::tombstone::successor_href(next) {
            Some(href) => {
                notice.push_str("<a href=\"");
                escape(&mut notice, &href);
                notice.push_str("\">");
                escape(&mut notice, next);
                notice.push_str("</a>");
            }
            None => escape(&mut notice, next),
        }
        notice.push_str("</p>\n");
    }
    page_with(id, &notice, shown, bindings)
}

/// The page, with `notice` (HTML) between the heading and the table.
fn page_with(
    id: &str,
    notice: &str,
    shown: &[(&str, String)],
    bindings: &[(String, Vec<u8>)],
) -> String {
    let mut s = String::from("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
    escape(&mut s, id);
    s.push_str("</title></head>\n<body>\n<h1>");
    escape(&mut s, id);
    s.push_str("</h1>\n");
    s.push_str(notice);
    s.push_str("<table>\n");
    for (name, value) in shown {
        s.push_str("<tr><th>");
        escape(&mut s, name);
        s.push_str("</th><td>");
        element(&mut s, name, value);
        s.push_str("</td></tr>\n");
    }
    s.push_str("</table>\n");
    if let Some((_, t)) = bindings.iter().find(|(n, _)| n == "_t") {
        s.push_str("<p>target: ");
        link_or_text(&mut s, &String::from_utf8_lossy(t));
        s.push_str("</p>\n");
    }
    standing(&mut s, &Standing::of(bindings));
    s.push_str("</body></html>\n");
    s
}

/// One value: kernel values as `kernel` reads them, others as text.
fn element(s: &mut String, name: &str, value: &str) {
    if !kernel::is_kernel(name) {
        return escape(s, value);
    }
    match kernel::parse_elem(name, value) {
        Ok(Value::Text(t)) => escape(s, t),
        Ok(Value::Reserved(kernel::Reserved::At, reference)) => {
            link_or_text(s, reference);
            s.push_str(" <small>(:at) ");
            escape(s, kernel::Reserved::At.meaning());
            s.push_str("</small>");
        }
        Ok(Value::Reserved(r, text)) => {
            escape(s, text);
            s.push_str(" <small>(:");
            s.push_str(r.code());
            s.push_str(") ");
            escape(s, r.meaning());
            s.push_str("</small>");
        }
        Ok(Value::Metatype(m, text)) => {
            escape(s, text);
            s.push_str(" <small>metatype ");
            escape(s, &m.to_string());
            s.push_str("</small>");
        }
        Err(why) => {
            escape(s, value);
            s.push_str(" <small>malformed: ");
            escape(s, &why.to_string());
            s.push_str("</small>");
        }
    }
}

/// The standing, and what falls short of it.
fn standing(s: &mut String, st: &Standing) {
    if st.is_good() {
        s.push_str("<p>standing: good</p>\n");
        return;
    }
    s.push_str("<p>standing: not good</p>\n<ul>\n");
    for m in &st.missing {
        s.push_str("<li>missing: ");
        s.push_str(m);
        s.push_str("</li>\n");
    }
    for (elem, why) in &st.malformed {
        s.push_str("<li>malformed: ");
        escape(s, elem);
        s.push_str(": ");
        escape(s, &why.to_string());
        s.push_str("</li>\n");
    }
    s.push_str("</ul>\n");
}

/// An `http(s)` URL as a link; anything else as text (no `javascript:` links).
pub(crate) fn link_or_text(s: &mut String, v: &str) {
    if v.starts_with("https://") || v.starts_with("http://") {
        s.push_str("<a href=\"");
        escape(s, v);
        s.push_str("\">");
        escape(s, v);
        s.push_str("</a>");
    } else {
        escape(s, v);
    }
}

pub(crate) fn escape(s: &mut String, v: &str) {
    for c in v.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(n: &str, v: &str) -> (String, Vec<u8>) {
        (n.to_owned(), v.as_bytes().to_vec())
    }

    #[test]
    fn kernel_explained_with_links_target_and_standing() {
        let all = [
            b("_t", "https://example.org/oz"),
            b("how", "(:mtype data+code set) time series"),
            b("peek", "(:at) https://example.org/t.png"),
            b("what", "Oz & <friends>"),
            b("when", "(:soon)"),
            b("who", "(:unkn) Anonymous"),
        ];
        let shown: Vec<(&str, String)> = all[1..]
            .iter()
            .map(|(n, v)| (n.as_str(), String::from_utf8_lossy(v).into_owned()))
            .collect();
        assert_eq!(
            page("ark:/1/x", &shown, &all),
            "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ark:/1/x</title></head>\n\
             <body>\n<h1>ark:/1/x</h1>\n<table>\n\
             <tr><th>how</th><td>time series <small>metatype data+code set</small></td></tr>\n\
             <tr><th>peek</th><td><a href=\"https://example.org/t.png\">https://example.org/t.png</a> \
             <small>(:at) present value is an indirect reference to the real value</small></td></tr>\n\
             <tr><th>what</th><td>Oz &amp; &lt;friends&gt;</td></tr>\n\
             <tr><th>when</th><td>(:soon) <small>malformed: unknown reserved code (:soon)</small></td></tr>\n\
             <tr><th>who</th><td>Anonymous <small>(:unkn) known to be unknown (e.g., Anonymous, Inconnue)</small></td></tr>\n\
             </table>\n<p>target: <a href=\"https://example.org/oz\">https://example.org/oz</a></p>\n\
             <p>standing: not good</p>\n<ul>\n<li>malformed: when: unknown reserved code (:soon)</li>\n</ul>\n\
             </body></html>\n"
        );
    }

    #[test]
    fn good_standing_and_non_http_values_as_text() {
        let all = [
            b("how", "text"),
            b("peek", "(:at) javascript:alert(1)"),
            b("what", "W"),
            b("when", "2026"),
            b("who", "A"),
        ];
        let s = page("x", &[], &all);
        assert!(
            s.ends_with("</table>\n<p>standing: good</p>\n</body></html>\n"),
            "{s}"
        );
        let mut v = String::new();
        element(&mut v, "peek", "(:at) javascript:alert(1)");
        assert!(v.starts_with("javascript:alert(1) <small>"), "{v}");
    }
}
