//! HTML escaping: the one rule for every page the project serves (the resolver's
//! public pages in noid-http and the populator console in noid-api), so that a value
//! from the store is made safe for text and quoted attributes the same way everywhere.

use std::fmt::Write;

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

/// `text` escaped as [`escape_into`] does, with every character that is invisible or
/// reorders the text around it shown by its code point instead (`[U+202E]`): NUL and the
/// other C0 and C1 controls but TAB, LF and CR, DEL, and the bidirectional formatting
/// characters (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069). For stored text
/// shown as HTML text: a right-to-left override in a value would otherwise make what
/// follows it read backwards (`exe.txt` shown as `txt.exe`), on the page and in what
/// a reader copies from it. Not for attribute values that are URLs.
pub fn escape_visible_into(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(i) = rest.find(is_hidden) {
        escape_into(out, &rest[..i]);
        let c = rest[i..].chars().next().unwrap_or_default();
        let _ = write!(out, "[U+{:04X}]", c as u32);
        rest = &rest[i + c.len_utf8()..];
    }
    escape_into(out, rest);
}

/// Whether [`escape_visible_into`] shows `c` by its code point.
fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        | '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
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

    #[test]
    fn invisible_and_reordering_characters_are_shown_by_code_point() {
        let mut s = String::new();
        escape_visible_into(&mut s, "a\u{202e}txt.exe\0<b>\t\u{2066}x\u{7f}\u{85}\né");
        assert_eq!(
            s,
            "a[U+202E]txt.exe[U+0000]&lt;b&gt;\t[U+2066]x[U+007F][U+0085]\né"
        );
        // Letters of right-to-left scripts are text, not formatting.
        let mut s = String::new();
        escape_visible_into(&mut s, "שלום");
        assert_eq!(s, "שלום");
    }
}
