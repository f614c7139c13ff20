//! The HTML page a browser gets for an identifier's metadata (`?`, `??`, `?info`) and
//! for a withdrawn identifier: the kernel elements, each named with what it says
//! ([`kernel::about`]) and its value read as N2T defines it (reserved codes such as
//! `(:unav)` spelled out in words, `how`'s metatype named, `(:at)` references as
//! links, malformed values marked), the other elements for `??`, the target, the
//! standing as `noid standing` reports it, the last write, and the alternate
//! providers of its prefix with their health. Every rule comes from
//! `noid_resolve::kernel`; the frame from [`crate::layout`].

use noid_resolve::kernel::{self, Standing, Value};
use noid_resolve::ProviderTarget;

use crate::layout::{self, escape, link, link_or_text};

/// What a page shows besides the bindings, found by other lookups than the answer's.
#[derive(Default, Clone, Copy)]
pub struct Facts<'a> {
    /// The identifier's last write (seconds since the epoch).
    pub modified: Option<i64>,
    /// Its target at every provider of its prefix's registry record (`*/ID`), in
    /// failover order.
    pub providers: &'a [ProviderTarget],
}

/// The page for `id` showing `shown` (name, value), with the target and standing read
/// from all of the id's `bindings`.
pub fn page(
    id: &str,
    shown: &[(&str, String)],
    bindings: &[(String, Vec<u8>)],
    facts: Facts<'_>,
) -> String {
    page_with(id, "", shown, bindings, facts)
}

/// A withdrawn identifier's page: as [`page`], with why it was withdrawn (`text`, the
/// target's text after `410 `) and its successor, as a link, after the heading.
pub fn tombstone(
    id: &str,
    text: &str,
    successor: Option<&str>,
    shown: &[(&str, String)],
    bindings: &[(String, Vec<u8>)],
    facts: Facts<'_>,
) -> String {
    let mut notice = String::from("<div class=\"withdrawn\">\n<p>Withdrawn");
    if !text.is_empty() {
        notice.push_str(": ");
        escape(&mut notice, text);
    }
    notice.push_str("</p>\n");
    if let Some(next) = successor {
        notice.push_str("<p>Successor: ");
        match layout::successor_href(next) {
            Some(href) => link(&mut notice, &href, next),
            None => escape(&mut notice, next),
        }
        notice.push_str("</p>\n");
    }
    notice.push_str("</div>\n");
    page_with(id, &notice, shown, bindings, facts)
}

/// The page, with `notice` (HTML) between the heading and the metadata.
fn page_with(
    id: &str,
    notice: &str,
    shown: &[(&str, String)],
    bindings: &[(String, Vec<u8>)],
    facts: Facts<'_>,
) -> String {
    let mut s = layout::start(id);
    s.push_str("<h1>");
    escape(&mut s, id);
    s.push_str("</h1>\n");
    s.push_str(notice);
    // `_t` is shown as the target below, not as an element.
    let (kern, other): (Vec<_>, Vec<_>) = shown
        .iter()
        .filter(|(n, _)| *n != "_t")
        .partition(|(n, _)| kernel::is_kernel(n));
    s.push_str("<h2>Kernel metadata</h2>\n");
    if kern.is_empty() {
        s.push_str("<p>None bound.</p>\n");
    } else {
        table(&mut s, &kern);
    }
    if !other.is_empty() {
        s.push_str("<h2>Other elements</h2>\n");
        table(&mut s, &other);
    }
    // A withdrawn identifier's target (`410 …`) is its notice, shown above.
    let target = bindings
        .iter()
        .find(|(n, _)| n == "_t")
        .filter(|_| notice.is_empty());
    if let Some((_, t)) = target {
        crate::choices::targets(&mut s, &String::from_utf8_lossy(t));
    }
    standing(&mut s, &Standing::of(bindings));
    if let Some(t) = facts.modified {
        s.push_str("<p>Last modified: ");
        s.push_str(&crate::response::http_date(t));
        s.push_str("</p>\n");
    }
    providers(&mut s, facts.providers);
    layout::end(&mut s);
    s
}

/// Rows of (name, value): the name with what a kernel element says, the value read.
fn table(s: &mut String, rows: &[&(&str, String)]) {
    s.push_str("<table>\n");
    for (name, value) in rows {
        s.push_str("<tr><th scope=\"row\">");
        escape(s, name);
        if let Some(about) = kernel::about(name) {
            s.push_str(" <span class=\"about\">");
            escape(s, about);
            s.push_str("</span>");
        }
        s.push_str("</th><td>");
        element(s, name, value);
        s.push_str("</td></tr>\n");
    }
    s.push_str("</table>\n");
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
            note(s, "(:at) ", kernel::Reserved::At.meaning());
        }
        Ok(Value::Reserved(r, text)) => {
            if text.is_empty() {
                s.push_str("<i>no value</i>");
            } else {
                escape(s, text);
            }
            note(s, &format!("(:{}) ", r.code()), r.meaning());
        }
        Ok(Value::Metatype(m, text)) => {
            escape(s, text);
            note(s, "", &format!("metatype: {m}"));
        }
        Err(why) => {
            escape(s, value);
            s.push_str(" <span class=\"note bad\">malformed: ");
            escape(s, &why.to_string());
            s.push_str("</span>");
        }
    }
}

/// A line under a value saying what it means.
fn note(s: &mut String, code: &str, text: &str) {
    s.push_str(" <span class=\"note\">");
    escape(s, code);
    escape(s, text);
    s.push_str("</span>");
}

/// The standing, and what falls short of it.
fn standing(s: &mut String, st: &Standing) {
    if st.is_good() {
        s.push_str("<h2>Standing</h2>\n<p><span class=\"good\">good</span>: every required kernel element is bound and well formed.</p>\n");
        return;
    }
    s.push_str("<h2>Standing</h2>\n<p><span class=\"bad\">not good</span></p>\n<ul>\n");
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

/// The providers of the identifier's prefix: each one's target as a link, which is
/// primary, and whether its probe finds it up.
pub(crate) fn providers(s: &mut String, targets: &[ProviderTarget]) {
    if targets.is_empty() {
        return;
    }
    s.push_str("<h2>Providers</h2>\n<ul>\n");
    for t in targets {
        s.push_str("<li>");
        escape(s, &t.code);
        s.push_str(": ");
        link_or_text(s, &t.target);
        s.push_str(if t.healthy {
            " — up"
        } else {
            " — <span class=\"bad\">down</span>"
        });
        if t.primary {
            s.push_str(", primary");
        }
        s.push_str("</li>\n");
    }
    s.push_str("</ul>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(n: &str, v: &str) -> (String, Vec<u8>) {
        (n.to_owned(), v.as_bytes().to_vec())
    }

    /// The page's `main`, without the frame ([`crate::layout`]'s own test has it).
    fn main_of(page: &str) -> &str {
        let start = page.find("<main>\n").expect("main") + 7;
        &page[start..page.find("</main>").expect("end of main")]
    }

    #[test]
    fn kernel_explained_with_links_target_standing_time_and_providers() {
        let all = [
            b("_t", "https://example.org/oz"),
            b("how", "(:mtype data+code set) time series"),
            b("peek", "(:at) https://example.org/t.png"),
            b("what", "Oz & <friends>"),
            b("when", "(:soon)"),
            b("who", "(:unkn) Anonymous"),
            b("where", "(:unav)"),
            b("note", "kept"),
        ];
        // `_t` shown (as `??` shows every binding) appears as the target only.
        let shown: Vec<(&str, String)> = all
            .iter()
            .map(|(n, v)| (n.as_str(), String::from_utf8_lossy(v).into_owned()))
            .collect();
        let providers = [
            ProviderTarget {
                code: "main".into(),
                target: "https://example.org/ark:/1/x".into(),
                primary: true,
                healthy: false,
            },
            ProviderTarget {
                code: "mirror".into(),
                target: "https://mirror.example.org/ark:/1/x".into(),
                primary: false,
                healthy: true,
            },
        ];
        let facts = Facts {
            modified: Some(1_700_000_000),
            providers: &providers,
        };
        let page = page("ark:/1/x", &shown, &all, facts);
        assert!(
            page.contains("<title>ark:/1/x — noid resolver</title>"),
            "{page}"
        );
        assert_eq!(
            main_of(&page),
            "<h1>ark:/1/x</h1>\n<h2>Kernel metadata</h2>\n<table>\n\
             <tr><th scope=\"row\">how <span class=\"about\">a metatype and resource type</span></th>\
             <td>time series <span class=\"note\">metatype: data+code set</span></td></tr>\n\
             <tr><th scope=\"row\">peek <span class=\"about\">a small preview of the object</span></th>\
             <td><a href=\"https://example.org/t.png\">https://example.org/t.png</a> \
             <span class=\"note\">(:at) present value is an indirect reference to the real value</span></td></tr>\n\
             <tr><th scope=\"row\">what <span class=\"about\">a name or other human-oriented identifier</span></th>\
             <td>Oz &amp; &lt;friends&gt;</td></tr>\n\
             <tr><th scope=\"row\">when <span class=\"about\">a date important in the object&#39;s lifecycle</span></th>\
             <td>(:soon) <span class=\"note bad\">malformed: unknown reserved code (:soon)</span></td></tr>\n\
             <tr><th scope=\"row\">who <span class=\"about\">a responsible person or party</span></th>\
             <td>Anonymous <span class=\"note\">(:unkn) known to be unknown (e.g., Anonymous, Inconnue)</span></td></tr>\n\
             <tr><th scope=\"row\">where <span class=\"about\">a location or machine-oriented identifier</span></th>\
             <td><i>no value</i> <span class=\"note\">(:unav) value unavailable, possibly unknown</span></td></tr>\n\
             </table>\n<h2>Other elements</h2>\n<table>\n\
             <tr><th scope=\"row\">note</th><td>kept</td></tr>\n</table>\n\
             <h2>Target</h2>\n<p><a href=\"https://example.org/oz\">https://example.org/oz</a></p>\n\
             <h2>Standing</h2>\n<p><span class=\"bad\">not good</span></p>\n<ul>\n\
             <li>malformed: when: unknown reserved code (:soon)</li>\n</ul>\n\
             <p>Last modified: Tue, 14 Nov 2023 22:13:20 GMT</p>\n\
             <h2>Providers</h2>\n<ul>\n\
             <li>main: <a href=\"https://example.org/ark:/1/x\">https://example.org/ark:/1/x</a> — \
             <span class=\"bad\">down</span>, primary</li>\n\
             <li>mirror: <a href=\"https://mirror.example.org/ark:/1/x\">https://mirror.example.org/ark:/1/x</a> — up</li>\n\
             </ul>\n"
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
        let s = page("x", &[], &all, Facts::default());
        assert_eq!(
            main_of(&s),
            "<h1>x</h1>\n<h2>Kernel metadata</h2>\n<p>None bound.</p>\n\
             <h2>Standing</h2>\n<p><span class=\"good\">good</span>: every required kernel \
             element is bound and well formed.</p>\n"
        );
        let mut v = String::new();
        element(&mut v, "peek", "(:at) javascript:alert(1)");
        assert!(v.starts_with("javascript:alert(1) <span"), "{v}");
    }

    #[test]
    fn withdrawn() {
        let all = [b("who", "A"), b("_t", "410 a <b>")];
        let shown = [("who", "A".to_string())];
        let s = tombstone(
            "ark:/1/x",
            "a <b>",
            Some("ark:/1/y"),
            &shown,
            &all,
            Facts::default(),
        );
        assert!(
            main_of(&s).starts_with(
                "<h1>ark:/1/x</h1>\n<div class=\"withdrawn\">\n<p>Withdrawn: a &lt;b&gt;</p>\n\
                 <p>Successor: <a href=\"/ark:/1/y\">ark:/1/y</a></p>\n</div>\n<h2>Kernel metadata</h2>\n"
            ),
            "{s}"
        );
        assert!(!s.contains("<h2>Target</h2>"), "{s}");
    }
}
