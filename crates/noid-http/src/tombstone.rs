//! A withdrawn identifier's page (`noid_resolve::Answer::Tombstone`), served with 410
//! Gone: the kernel metadata (as the brief `?` page shows it), why it was withdrawn (the
//! target's text after `410 `), and its successor (the `successor` element) when bound,
//! also as a `Link: <…>; rel="successor-version"` header (RFC 5829).
//!
//! ANVL: the `?` page's record followed by `withdrawn: TEXT` and `successor: S`. JSON:
//! `{"id":…,"withdrawn":TEXT,"successor":S or null,"erc":{…}}`. HTML: the browser's
//! metadata page with both after the heading, the successor as a link.

use crate::layout::successor_href;
use crate::page::{self, PageFormat};

/// The page in `fmt`.
pub fn page(
    fmt: PageFormat,
    id: &str,
    text: &str,
    successor: Option<&str>,
    bindings: &[(String, Vec<u8>)],
    facts: crate::metadata_html::Facts<'_>,
) -> String {
    match fmt {
        PageFormat::Anvl => {
            let mut s = page::metadata(fmt, "id", id, None, bindings, false);
            noid_core::anvl::element_str(&mut s, "withdrawn", text);
            if let Some(next) = successor {
                noid_core::anvl::element_str(&mut s, "successor", next);
            }
            s
        }
        PageFormat::Json => {
            let shown = page::shown(bindings, false);
            let mut json = page::MetadataJson::new("id", id, None, &shown);
            json.withdrawn = Some(page::Withdrawn {
                withdrawn: text,
                successor,
            });
            page::json_line(&json)
        }
        PageFormat::Html => {
            let shown = page::shown(bindings, false);
            crate::metadata_html::tombstone(id, text, successor, &shown, bindings, facts)
        }
    }
}

/// The `Link` header naming the successor, if it has an address.
pub fn link(successor: &str) -> Option<String> {
    successor_href(successor).map(|href| format!("<{href}>; rel=\"successor-version\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(n: &str, v: &str) -> (String, Vec<u8>) {
        (n.to_owned(), v.as_bytes().to_vec())
    }

    #[test]
    fn formats() {
        let bs = [
            b("who", "A"),
            b("where", "ark:/1/x"),
            b("successor", "ark:/1/y"),
        ];
        assert_eq!(
            page(
                PageFormat::Anvl,
                "ark:/1/x",
                "gone",
                Some("ark:/1/y"),
                &bs,
                Default::default()
            ),
            "erc:\nwho: A\nwhere: ark:/1/x\nwithdrawn: gone\nsuccessor: ark:/1/y\n"
        );
        assert_eq!(
            page(
                PageFormat::Json,
                "ark:/1/x",
                "",
                None,
                &bs[..1],
                Default::default()
            ),
            "{\"id\":\"ark:/1/x\",\"withdrawn\":\"\",\"successor\":null,\"erc\":{\"who\":\"A\"}}\n"
        );
        let html = page(
            PageFormat::Html,
            "ark:/1/x",
            "a <b>",
            Some("ark:/1/y"),
            &bs,
            Default::default(),
        );
        assert!(
            html.contains(
                "<h1>ark:/1/x</h1>\n<div class=\"withdrawn\">\n<p>Withdrawn: a &lt;b&gt;</p>\n\
                 <p>Successor: <a href=\"/ark:/1/y\">ark:/1/y</a></p>\n</div>\n"
            ),
            "{html}"
        );
    }

    #[test]
    fn successor_addresses() {
        assert_eq!(
            link("https://e.org/new").as_deref(),
            Some("<https://e.org/new>; rel=\"successor-version\"")
        );
        assert_eq!(successor_href("ark:/1/y").as_deref(), Some("/ark:/1/y"));
        assert_eq!(
            successor_href("doi:10.5072/X").as_deref(),
            Some("/doi:10.5072/X")
        );
        assert_eq!(
            successor_href("javascript:alert(1)").as_deref(),
            Some("/javascript:alert(1)")
        );
        assert_eq!(successor_href("see the new record"), None);
        assert_eq!(successor_href("13030/x"), None);
        assert_eq!(successor_href("<x>"), None);
    }
}
