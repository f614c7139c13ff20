//! The page for an identifier whose target is gone and stands in an archive
//! (`noid_resolve::Answer::Archived`, where the rules file says `archived-copy page`):
//! 200, saying the original no longer answers and linking to the archived copy with
//! the date the archive made it; a `Link` header names both (RFC 7089's `memento` and
//! `original` relations), so that a client can follow the copy without reading the page.
//!
//! ANVL: `id`, `original`, `archived`, `archived-at`. JSON:
//! `{"id":…,"original":…,"archived":{"url":…,"datetime":…}}`. HTML: the heading, the
//! notice, the two links.

use crate::layout::{self, escape, link_or_text};
use crate::page::{self, PageFormat};

/// The page in `fmt`.
pub fn page(fmt: PageFormat, id: &str, original: &str, url: &str, datetime: &str) -> String {
    match fmt {
        PageFormat::Anvl => {
            let mut s = String::new();
            noid_core::anvl::element_str(&mut s, "id", id);
            noid_core::anvl::element_str(&mut s, "original", original);
            noid_core::anvl::element_str(&mut s, "archived", url);
            noid_core::anvl::element_str(&mut s, "archived-at", datetime);
            s
        }
        PageFormat::Json => {
            #[derive(serde::Serialize)]
            struct Copy<'a> {
                url: &'a str,
                datetime: &'a str,
            }
            #[derive(serde::Serialize)]
            struct Page<'a> {
                id: &'a str,
                original: &'a str,
                archived: Copy<'a>,
            }
            page::json_line(&Page {
                id,
                original,
                archived: Copy { url, datetime },
            })
        }
        PageFormat::Html => {
            let mut s = layout::start(id);
            s.push_str("<h1>");
            escape(&mut s, id);
            s.push_str("</h1>\n<div class=\"withdrawn\">\n<p>The original is gone: ");
            link_or_text(&mut s, original);
            s.push_str(" no longer answers.</p>\n<p>An archived copy, made ");
            escape(&mut s, datetime);
            s.push_str(": ");
            link_or_text(&mut s, url);
            s.push_str("</p>\n</div>\n");
            layout::end(&mut s);
            s
        }
    }
}

/// The `Link` header naming the copy and the original, when both are web addresses
/// that a header can carry.
pub fn link(original: &str, url: &str, datetime: &str) -> Option<String> {
    let fits = |v: &str| layout::is_web_url(v) && !v.contains(['<', '>', '"', ' ', '\t']);
    (fits(original) && fits(url) && !datetime.contains(['"', '\\'])).then(|| {
        format!("<{url}>; rel=\"memento\"; datetime=\"{datetime}\", <{original}>; rel=\"original\"")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const COPY: &str = "https://web.archive.org/web/2020/https://e.org/x";

    #[test]
    fn formats() {
        let at = "Wed, 01 Jan 2020 00:00:00 GMT";
        assert_eq!(
            page(PageFormat::Anvl, "ark:/1/x", "https://e.org/x", COPY, at),
            "id: ark:/1/x\noriginal: https://e.org/x\n\
             archived: https://web.archive.org/web/2020/https://e.org/x\n\
             archived-at: Wed, 01 Jan 2020 00:00:00 GMT\n"
        );
        assert_eq!(
            page(PageFormat::Json, "ark:/1/x", "https://e.org/x", COPY, at),
            "{\"id\":\"ark:/1/x\",\"original\":\"https://e.org/x\",\"archived\":\
             {\"url\":\"https://web.archive.org/web/2020/https://e.org/x\",\
             \"datetime\":\"Wed, 01 Jan 2020 00:00:00 GMT\"}}\n"
        );
        let html = page(PageFormat::Html, "ark:/1/x", "https://e.org/<x>", COPY, at);
        assert!(
            html.contains(
                "<h1>ark:/1/x</h1>\n<div class=\"withdrawn\">\n<p>The original is gone: \
                 <a href=\"https://e.org/&lt;x&gt;\">https://e.org/&lt;x&gt;</a> no longer \
                 answers.</p>\n<p>An archived copy, made Wed, 01 Jan 2020 00:00:00 GMT: \
                 <a href=\"https://web.archive.org/web/2020/https://e.org/x\">\
                 https://web.archive.org/web/2020/https://e.org/x</a></p>\n</div>\n"
            ),
            "{html}"
        );
    }

    #[test]
    fn the_link_header_names_web_addresses_only() {
        assert_eq!(
            link("https://e.org/x", COPY, "Wed, 01 Jan 2020 00:00:00 GMT").as_deref(),
            Some(
                "<https://web.archive.org/web/2020/https://e.org/x>; rel=\"memento\"; \
                 datetime=\"Wed, 01 Jan 2020 00:00:00 GMT\", <https://e.org/x>; rel=\"original\""
            )
        );
        assert_eq!(link("ftp://e.org/x", COPY, "d"), None);
        assert_eq!(link("https://e.org/x>", COPY, "d"), None);
        assert_eq!(link("https://e.org/x", COPY, "d\""), None);
    }
}
