//! The page a browser gets for an identifier with several targets (`300 Multiple
//! Choices`): each target as a link of its own, for the reader to choose. Other clients
//! get the ANVL or JSON list ([`crate::page::multi`]). The metadata page shows a `_t`
//! that holds several targets with the same list ([`targets`]).

use crate::layout::{self, escape, link_or_text};

/// The `300` page for `id` and its `targets`.
pub fn page(id: &str, targets: &[String]) -> String {
    let mut s = layout::start(id);
    s.push_str("<h1>");
    escape(&mut s, id);
    s.push_str("</h1>\n<p>This identifier has ");
    s.push_str(&targets.len().to_string());
    s.push_str(" targets. Choose one:</p>\n");
    list(&mut s, targets.iter().map(String::as_str));
    layout::end(&mut s);
    s
}

/// A `_t` value on a metadata page: one target as a paragraph, several (one per line,
/// as the resolver splits them: [`noid_resolve::split_targets`]) as a list, each
/// target a link of its own.
pub(crate) fn targets(s: &mut String, value: &str) {
    let all: Vec<&str> = noid_resolve::split_targets(value).collect();
    if all.len() > 1 {
        s.push_str("<h2>Targets</h2>\n");
        list(s, all.into_iter());
    } else {
        s.push_str("<h2>Target</h2>\n<p>");
        link_or_text(s, value.trim_matches(['\r', '\n']));
        s.push_str("</p>\n");
    }
}

/// Targets as a list, each an `http(s)` link or (any other scheme) text.
fn list<'a>(s: &mut String, targets: impl Iterator<Item = &'a str>) {
    s.push_str("<ul class=\"targets\">\n");
    for t in targets {
        s.push_str("<li>");
        link_or_text(s, t);
        s.push_str("</li>\n");
    }
    s.push_str("</ul>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_link_per_target() {
        let mut s = String::new();
        targets(
            &mut s,
            "https://a.example/x\r\nhttps://b.example/?q=1&r=2\n\n",
        );
        assert_eq!(
            s,
            "<h2>Targets</h2>\n<ul class=\"targets\">\n\
             <li><a href=\"https://a.example/x\">https://a.example/x</a></li>\n\
             <li><a href=\"https://b.example/?q=1&amp;r=2\">https://b.example/?q=1&amp;r=2</a></li>\n\
             </ul>\n"
        );
        let mut s = String::new();
        targets(&mut s, "https://a.example/x\n");
        assert_eq!(
            s,
            "<h2>Target</h2>\n<p><a href=\"https://a.example/x\">https://a.example/x</a></p>\n"
        );
    }
}
