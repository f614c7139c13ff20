//! How the web servers' shipped configurations take an egg answer line: what the nginx
//! module and mod_noid answer themselves ([`read_answer`], [`plain_redirect`]) and what
//! `noid-resolve.conf`'s rules do with the rest ([`paths`], for `noid explain`). One
//! reading of the line for the modules and for the explanation of what they would do.

/// What an egg answer line says to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redirect<'a> {
    /// `redirNNN TARGET`: answer NNN (3xx with `Location: TARGET`, or 404, 410).
    To(u16, &'a [u8]),
    /// `inflect …`: a page (metadata, several targets) that only `noidr --http` renders.
    Page,
    /// `NULL`, `redir302 ` with an empty target (`miss=eggnog`), or anything else.
    Miss,
}

/// An egg answer line (without its newline) split at its first tab followed by `<`:
/// the answer, and the `Link` header's value of a signposted redirect after it, if
/// there is one (`signposting on`, [`crate::egg`], which writes a tab in such a
/// redirect's target as `%09`). A line without signposts is whole, tabs and all: a
/// target whose tab is followed by `<` would be misread, and none is a URL.
pub fn split_link(line: &[u8]) -> (&[u8], Option<&[u8]>) {
    let mut from = 0;
    while let Some(tab) = memchr::memchr(b'\t', &line[from..]).map(|t| from + t) {
        if line.get(tab + 1) == Some(&b'<') {
            return (&line[..tab], Some(&line[tab + 1..]));
        }
        from = tab + 1;
    }
    (line, None)
}

/// What the egg answer line `answer` (without its newline) says; a signposted
/// redirect's `Link` value ([`split_link`]) is not part of its target.
pub fn read_answer(answer: &[u8]) -> Redirect<'_> {
    let answer = split_link(answer).0;
    if answer.starts_with(b"inflect ") {
        return Redirect::Page;
    }
    let Some(rest) = answer.strip_prefix(b"redir") else {
        return Redirect::Miss;
    };
    let (code, target) = match rest.iter().position(|&c| c == b' ') {
        Some(sp) => (&rest[..sp], &rest[sp + 1..]),
        None => return Redirect::Miss,
    };
    let code = std::str::from_utf8(code)
        .ok()
        .and_then(|c| c.parse::<u16>().ok());
    match code {
        Some(c @ (404 | 410)) => Redirect::To(c, target),
        Some(c @ 300..=399) if !target.is_empty() => Redirect::To(c, target),
        _ => Redirect::Miss,
    }
}

/// The answer `answer` as the redirect (3xx or 404) that `noid-resolve.conf`'s rules
/// would send for it, when Apache may send it without them (mod_noid's `NoidResolve`);
/// `None` leaves the answer to the rules, which then answer it as always.
///
/// The rules send `redirNNN TARGET` as `Location: TARGET` unchanged when NNN is three
/// digits and TARGET an absolute `http://` or `https://` URL of visible ASCII that does
/// not end in `?`. mod_rewrite changes any other: it qualifies a relative target with
/// the server's own name, drops a trailing `?` (an empty query), and httpd answers 500
/// for a control character. A 3xx other than 301, 303, 307 and 308 is sent as 302
/// (the rules' `^redir3\d\d`); `redir404` is a 404. Everything else (410, pages,
/// misses, errors) has rules of its own.
pub fn plain_redirect(answer: &[u8]) -> Option<(u16, &[u8])> {
    let rest = split_link(answer).0.strip_prefix(b"redir")?;
    let (code, target) = (rest.get(..3)?, rest.get(4..)?);
    if rest[3] != b' ' || !code.iter().all(u8::is_ascii_digit) {
        return None;
    }
    match code {
        b"404" => return Some((404, target)),
        [b'3', ..] => {}
        _ => return None,
    }
    let absolute = target.starts_with(b"http://") || target.starts_with(b"https://");
    let visible = target.iter().all(|&c| (0x21..0x7f).contains(&c));
    if !absolute || !visible || target.ends_with(b"?") {
        return None;
    }
    let status = match code {
        b"301" => 301,
        b"303" => 303,
        b"307" => 307,
        b"308" => 308,
        _ => 302,
    };
    Some((status, target))
}

/// How each shipped configuration takes the egg answer line `line`: (the server and
/// its configuration, what it does), for `noid explain`.
pub fn paths(line: &[u8]) -> Vec<(&'static str, String)> {
    let apache_rules = "Apache, noid-resolve.conf (prg: or mod_noid's map)";
    let apache_module = "Apache, mod_noid's NoidResolve";
    let nginx = "nginx, the module (noid-module-resolve.conf)";
    let proxy = "nginx or Apache proxying to noidr --http";
    let mut out = Vec::new();
    match read_answer(line) {
        Redirect::To(404, _) | Redirect::Miss => {
            out.push((
                apache_rules,
                "a miss: 404, or NOID_MISS_GLOBAL's resolver, or on to the site's own \
                 pages with NOID_MISS_FALLTHROUGH"
                    .to_string(),
            ));
            out.push((
                nginx,
                "a miss: 404 (or the location's fallback)".to_string(),
            ));
            out.push((proxy, "404 with noidr's page".to_string()));
        }
        Redirect::To(410, _) => {
            out.push((
                apache_rules,
                "410: proxied to NOIDR_URL for the tombstone page, else httpd's bare 410"
                    .to_string(),
            ));
            out.push((
                nginx,
                "410: the tombstone page from noidr --http (the pages' location)".to_string(),
            ));
            out.push((proxy, "410 with the tombstone page".to_string()));
        }
        Redirect::To(code, target) => {
            let target = String::from_utf8_lossy(target);
            match plain_redirect(line) {
                Some((status, _)) => {
                    out.push((
                        apache_module,
                        format!("{status} to {target}, before the rules run"),
                    ));
                    out.push((
                        apache_rules,
                        format!("RewriteRule [R={status}] to {target}"),
                    ));
                }
                None => out.push((
                    apache_rules,
                    format!(
                        "{code} to {target} as mod_rewrite sends it (a relative target \
                         qualified, an empty query dropped, a control character a 500)"
                    ),
                )),
            }
            out.push((nginx, format!("{code} to {target}")));
            out.push((proxy, format!("{code} to {target}")));
        }
        Redirect::Page => {
            out.push((
                apache_rules,
                "a page: proxied to NOIDR_URL (noidr --http), else a miss".to_string(),
            ));
            out.push((
                nginx,
                "a page: from noidr --http (noid-module-pages.conf)".to_string(),
            ));
            out.push((proxy, "the page, from noidr".to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_read_as_redirects() {
        assert_eq!(
            read_answer(b"redir301 https://e.org/x?a=b"),
            Redirect::To(301, b"https://e.org/x?a=b")
        );
        assert_eq!(
            read_answer(b"redir410 withdrawn"),
            Redirect::To(410, b"withdrawn")
        );
        assert_eq!(read_answer(b"redir302 "), Redirect::Miss);
        assert_eq!(read_answer(b"NULL"), Redirect::Miss);
        assert_eq!(read_answer(b"error: x"), Redirect::Miss);
        assert_eq!(read_answer(b"redir200 x"), Redirect::Miss);
        assert_eq!(read_answer(b"inflect ark:/1/m ?"), Redirect::Page);
    }

    /// What `noid-resolve.conf`'s rules send, from the rules themselves (see
    /// `plain_redirect`'s comment): each a case the rules would change or answer.
    #[test]
    fn plain_redirects_are_the_ones_the_rules_send_unchanged() {
        let t = |a: &'static str| {
            plain_redirect(a.as_bytes()).map(|(c, t)| (c, std::str::from_utf8(t).unwrap()))
        };
        assert_eq!(
            t("redir302 https://e.org/x?a=b"),
            Some((302, "https://e.org/x?a=b"))
        );
        assert_eq!(t("redir301 http://e.org/"), Some((301, "http://e.org/")));
        assert_eq!(
            t("redir303 https://e.org/m.ttl"),
            Some((303, "https://e.org/m.ttl"))
        );
        assert_eq!(
            t("redir307 https://e.org/a"),
            Some((307, "https://e.org/a"))
        );
        assert_eq!(
            t("redir308 https://e.org/a"),
            Some((308, "https://e.org/a"))
        );
        assert_eq!(
            t("redir300 https://e.org/a"),
            Some((302, "https://e.org/a"))
        );
        assert_eq!(
            t("redir399 https://e.org/a"),
            Some((302, "https://e.org/a"))
        );
        assert_eq!(t("redir404 "), Some((404, "")));
        assert_eq!(t("redir404 x y"), Some((404, "x y")));
        for left in [
            "redir302 /local/path",            // qualified by mod_rewrite
            "redir302 HTTPS://e.org/a",        // mod_rewrite's own test, case-insensitive
            "redir302 doi:10.1/x",             // not absolute to mod_rewrite: qualified
            "redir302 https://e.org/a?",       // the empty query dropped
            "redir302 https://e.org/a b",      // a space
            "redir302 https://e.org/a\tb",     // a control character: httpd's 500
            "redir302 https://e.org/\u{20ac}", // not ASCII
            "redir302 ",                       // EggNog's miss
            "redir302",
            "redir410 withdrawn", // the rules' tombstone or proxy
            "redir+30 https://e.org/a",
            "redir3007 https://e.org/a",
            "redir200 https://e.org/a",
            "inflect ark:/1/m ?",
            "NULL",
            "error: x",
        ] {
            assert_eq!(plain_redirect(left.as_bytes()), None, "{left}");
        }
    }
}
