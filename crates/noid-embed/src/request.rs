//! An HTTP request asked of an egg map as a redirect (the nginx module): the request
//! line of the egg protocol made from the request exactly as `noid-resolve.conf` makes
//! it in Apache, and the answer line read back into a status and a target.

use noid_core::ident::{ark_reached_as_sent, web_askable};
use noid_core::percent_decode;

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

/// Append to `line` the egg request line of a request for `target` (the raw
/// request-target: path and query as received), over `scheme`, with `accept`: the
/// path without its leading slashes, %-decoded once; the query as received (a bare `?`
/// or `??` is an inflection); the header blob with the protocol and the `Accept`
/// header, escaped so that it holds no space (the blob is %-decoded once).
///
/// `false` (a miss, as `noidr --http` answers it) when the identifier so made is not
/// UTF-8 or holds a CR, LF or NUL ([`web_askable`]).
#[must_use]
pub fn egg_line(target: &[u8], scheme: &[u8], accept: &[u8], line: &mut Vec<u8>) -> bool {
    line_of(target, scheme, accept, true, line)
}

/// [`egg_line`] with the path as sent, its `%XX` not decoded, for a path that names an
/// ARK holding a `%` ([`ark_reached_as_sent`]): asked when the decoded path found
/// nothing, so that an ARK holding `%7E` or `%2F` is reached at its own URL
/// (draft-kunze-ark-43 §3.1, §3.2), as `noidr --http` reaches it. `false` for any other
/// path.
#[must_use]
pub fn egg_line_as_sent(target: &[u8], scheme: &[u8], accept: &[u8], line: &mut Vec<u8>) -> bool {
    let path = memchr(b'?', target).map_or(target, |q| &target[..q]);
    ark_reached_as_sent(path) && line_of(target, scheme, accept, false, line)
}

fn line_of(target: &[u8], scheme: &[u8], accept: &[u8], decode: bool, line: &mut Vec<u8>) -> bool {
    let (path, query) = match memchr(b'?', target) {
        Some(q) => target.split_at(q),
        None => (target, &b""[..]),
    };
    let start = path.iter().position(|&c| c != b'/').unwrap_or(path.len());
    let path = &path[start..];
    let id = line.len();
    match std::str::from_utf8(path) {
        Ok(p) if decode => line.extend_from_slice(&percent_decode(p)),
        // %-escapes are ASCII: bytes that are not UTF-8 pass through as they are.
        _ => line.extend_from_slice(path),
    }
    line.extend_from_slice(query);
    if !web_askable(&line[id..]) || std::str::from_utf8(&line[id..]).is_err() {
        return false;
    }
    line.extend_from_slice(b".resolve !!!pr=");
    escape(scheme, line);
    line.extend_from_slice(b"!!!!!!ac=");
    escape(accept, line);
    line.extend_from_slice(b"!!!");
    true
}

fn memchr(c: u8, s: &[u8]) -> Option<usize> {
    s.iter().position(|&b| b == c)
}

/// `%`, `!`, white space and control bytes %-escaped: the blob's own markers and
/// separators never come from a header's value.
fn escape(value: &[u8], out: &mut Vec<u8>) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    for &c in value {
        if c == b'%' || c == b'!' || c <= b' ' || c == 0x7f {
            out.extend_from_slice(&[b'%', HEX[usize::from(c >> 4)], HEX[usize::from(c & 15)]]);
        } else {
            out.push(c);
        }
    }
}

/// What the egg answer line `answer` (without its newline) says.
pub fn read_answer(answer: &[u8]) -> Redirect<'_> {
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
    let rest = answer.strip_prefix(b"redir")?;
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

#[cfg(test)]
mod tests {
    use super::*;

    fn line(target: &str, accept: &str) -> String {
        let mut l = Vec::new();
        assert!(egg_line(
            target.as_bytes(),
            b"http",
            accept.as_bytes(),
            &mut l
        ));
        String::from_utf8(l).unwrap()
    }

    /// The keys noid-resolve.conf builds for the same requests (its comments).
    #[test]
    fn the_line_is_the_one_apache_sends() {
        assert_eq!(
            line("/ark:/13030/xt2?a=b", "text/html"),
            "ark:/13030/xt2?a=b.resolve !!!pr=http!!!!!!ac=text/html!!!"
        );
        assert_eq!(
            line("//ark:/1/a%20b", ""),
            "ark:/1/a b.resolve !!!pr=http!!!!!!ac=!!!"
        );
        assert_eq!(
            line("/ark:/13030/pct%2541?x=%26y", "*/*;q=0.8, text/turtle"),
            "ark:/13030/pct%41?x=%26y.resolve !!!pr=http!!!!!!ac=*/*;q=0.8,%20text/turtle!!!"
        );
        assert_eq!(
            line("/ark:/13030/m?", ""),
            "ark:/13030/m?.resolve !!!pr=http!!!!!!ac=!!!"
        );
        assert_eq!(
            line("/ark:/00224/foo/bar//zif", "a!!!b"),
            "ark:/00224/foo/bar//zif.resolve !!!pr=http!!!!!!ac=a%21%21%21b!!!"
        );
    }

    /// The requests `noidr --http` answers as misses (noid-http's `route::identifier`).
    #[test]
    fn identifiers_with_line_breaks_nul_or_not_utf8_are_not_asked() {
        for target in [
            &b"/ark:/1/a%0Ab"[..],
            b"/ark:/1/a%0Db",
            b"/ark:/1/a%00b",
            b"/ark:/1/a?x=\r",
            b"/ark:/1/a%FFb",
            b"/ark:/1/a\xffb",
        ] {
            assert!(
                !egg_line(target, b"http", b"", &mut Vec::new()),
                "{}",
                String::from_utf8_lossy(target)
            );
        }
    }

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
