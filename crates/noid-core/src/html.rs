//! HTML escaping: the one rule for every page the project serves (the resolver's
//! public pages in noid-http and the populator console in noid-api), so that a value
//! from the store is made safe for text and quoted attributes the same way everywhere.

/// `text` with `& < > " '` as entities, appended to `out`: safe as HTML text and as a
/// double- or single-quoted attribute value.
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// `text` escaped as [`escape_into`] does, in a new string.
pub fn escape(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    escape_into(&mut s, text);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_five_specials_become_entities_and_the_rest_stays() {
        assert_eq!(
            escape(r#"<a href="x?a=1&b='2'">é</a>"#),
            "&lt;a href=&quot;x?a=1&amp;b=&#39;2&#39;&quot;&gt;é&lt;/a&gt;"
        );
    }
}
