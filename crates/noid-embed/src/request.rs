//! An HTTP request asked of an egg map as a redirect (the nginx module): the request
//! line of the egg protocol made from the request exactly as `noid-resolve.conf` makes
//! it in Apache; the answer line is read back into a status and a target by
//! `noid_resolve::web_answer`, which `noid explain` reads too.

use noid_core::ident::{ark_reached_as_sent, web_askable};
use noid_core::percent_decode;
pub use noid_resolve::web_answer::{plain_redirect, read_answer, split_link, Redirect};

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
}
