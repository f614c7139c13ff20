//! EggNog's identifier normalisation, as its `ID.norm` and `ID.shadow` commands show it
//! (`../shared/spec-binder-api.md` §5, from EggNog's `egg_normalize.t`).
//!
//! The binder never normalises what it stores (`FOO` and `foo` are two identifiers);
//! these commands only tell a populator how the resolver would read an identifier. The
//! spellings noid's resolver tries at lookup time are `noid_resolve`'s (`ident`); this
//! module is the written-out form EggNog prints, which also infers a scheme for
//! schemeless identifiers and joins identifiers broken over lines.
//!
//! Steps of [`normalize`]: trim; with no `:`, whitespace runs become `:` (`ark 12345/x`);
//! a newline and the whitespace around it are dropped; a `?query` is set aside and put
//! back untouched; the scheme is lower-cased (`urn:` with its namespace); a schemeless
//! identifier gets one when its shape tells (`10.N/…` DOI, 32 hex digits UUID,
//! `NAAN/…` ARK, `host.tld/…` URL); then per scheme: ARKs lose leading slashes and take
//! the resolver's ARK normal form (`noid_core::normalize::ark`: NAAN lower-cased,
//! every hyphen removed, U+2010–U+2015 too, `%XX` lower-cased), written `ark:/NAAN/…`
//! as EggNog writes it (the normaliser's own form is `ark:NAAN/…`); DOIs are
//! upper-cased after the prefix, URLs get a lower-case host.
//!
//! EggNog documents only "hyphens removed" for ARKs (its tests use U+002D); the
//! typographic hyphens and the `%XX` case are the ARK specification's steps, which the
//! resolver applies, so `norm` shows what the resolver reads (docs/COMPATIBILITY.md).
//!
//! [`shadow`]: a DOI `doi:10.P/X` shadows as `ark:/CNNNN/x` (`noid_core::shadow`,
//! the mapping the resolver reads back), `urn:uuid:X` as `ark:/97720/X`, `uuid:X` as
//! `ark:/97721/X`, `purl:X` as `ark:/97722/X`. An identifier without a shadow shows its
//! normalised form.

use noid_core::{ident::scheme_len, normalize, shadow::ark_of_doi};

/// The normalised form of `raw`.
pub fn normalize(raw: &str) -> String {
    let mut s = raw.trim().to_string();
    if !s.contains(':') {
        s = s.split_whitespace().collect::<Vec<_>>().join(":");
    }
    let s = join_lines(&s);
    let (base, query) = match s.find('?') {
        Some(q) => (&s[..q], &s[q..]),
        None => (s.as_str(), ""),
    };
    let mut out = match scheme_len(base) {
        Some(n) => by_scheme(&base[..n].to_ascii_lowercase(), &base[n..]),
        None => match infer_scheme(base) {
            Some("http") => by_scheme("http", &format!("//{base}")),
            Some(scheme) => by_scheme(scheme, base),
            None => base.to_string(),
        },
    };
    out.push_str(query);
    out
}

/// The shadow ARK of `raw`, or its normalised form when it has none.
pub fn shadow(raw: &str) -> String {
    let n = normalize(raw);
    let (base, query) = match n.find('?') {
        Some(q) => (&n[..q], &n[q..]),
        None => (n.as_str(), ""),
    };
    let shadowed = if let Some(rest) = base.strip_prefix("doi:") {
        ark_of_doi(rest)
    } else if let Some(rest) = base.strip_prefix("urn:uuid:") {
        Some(format!("ark:/97720/{rest}"))
    } else if let Some(rest) = base.strip_prefix("uuid:") {
        Some(format!("ark:/97721/{rest}"))
    } else {
        base.strip_prefix("purl:")
            .map(|rest| format!("ark:/97722/{rest}"))
    };
    match shadowed {
        Some(mut s) => {
            s.push_str(query);
            s
        }
        None => n,
    }
}

/// `scheme` (lower case, without its colon) applied to the scheme-local part `local`.
fn by_scheme(scheme: &str, local: &str) -> String {
    let scheme = scheme.trim_end_matches(':');
    match scheme {
        "ark" => {
            // The normaliser's `ark:NAAN/…`, written in EggNog's `ark:/NAAN/…` form.
            let local = local.trim_start_matches('/');
            match normalize::ark(&format!("ark:{local}")) {
                Some(n) => format!("ark:/{}", &n["ark:".len()..]),
                None => "ark:/".to_string(),
            }
        }
        "doi" => {
            let local = local.trim_start_matches('/');
            match local.split_once('/') {
                Some((prefix, rest)) => format!("doi:{prefix}/{}", rest.to_uppercase()),
                None => format!("doi:{local}"),
            }
        }
        "urn" => match local.split_once(':') {
            Some((nid, rest)) => format!("urn:{}:{rest}", nid.to_ascii_lowercase()),
            None => format!("urn:{local}"),
        },
        "http" | "https" | "ftp" => match local.strip_prefix("//") {
            Some(rest) => {
                let (host, path) = match rest.find('/') {
                    Some(i) => rest.split_at(i),
                    None => (rest, ""),
                };
                format!("{scheme}://{}{path}", host.to_ascii_lowercase())
            }
            None => format!("{scheme}:{local}"),
        },
        _ => format!("{scheme}:{local}"),
    }
}

/// The scheme a schemeless identifier's shape implies (`urn:uuid` with its namespace).
fn infer_scheme(s: &str) -> Option<&'static str> {
    let b = s.as_bytes();
    if let Some(rest) = s.strip_prefix("10.") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            return Some("doi");
        }
    }
    if b.len() == 32 && b.iter().all(u8::is_ascii_hexdigit) {
        return Some("urn:uuid");
    }
    let naan = b
        .iter()
        .take_while(|c| b"0123456789bcdfghjkmnpqrstvwxz".contains(c))
        .count();
    if (5..=9).contains(&naan) && b.get(naan) == Some(&b'/') {
        return Some("ark");
    }
    let host = s.split('/').next().unwrap_or("");
    if s.contains('/')
        && host.contains('.')
        && !host.starts_with('.')
        && !host.ends_with('.')
        && host
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-')
        && host
            .rsplit('.')
            .next()
            .is_some_and(|tld| tld.bytes().all(|c| c.is_ascii_alphabetic()))
    {
        return Some("http");
    }
    None
}

/// `s` with every newline, and the whitespace around it, removed.
fn join_lines(s: &str) -> String {
    if !s.contains('\n') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut skipping = false;
    for c in s.chars() {
        if c == '\n' {
            let kept = out.trim_end().len();
            out.truncate(kept);
            skipping = true;
        } else if skipping && c.is_whitespace() {
        } else {
            skipping = false;
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_cases_43_and_44() {
        assert_eq!(normalize("ark:12345/e-f?g-h"), "ark:/12345/ef?g-h");
        assert_eq!(
            normalize("  DOI:10.12345/croWD-\n\t sOUrced?lower"),
            "doi:10.12345/CROWD-SOURCED?lower"
        );
        assert_eq!(
            shadow("doi:10.123/THIS-THat?NO-W"),
            "ark:/b0123/thisthat?NO-W"
        );
    }

    #[test]
    fn schemes_inferred_and_cased() {
        assert_eq!(normalize("10.5072/fk2x"), "doi:10.5072/FK2X");
        assert_eq!(normalize("12345/x-y"), "ark:/12345/xy");
        assert_eq!(
            normalize("0123456789abcdef0123456789ABCDEF"),
            "urn:uuid:0123456789abcdef0123456789ABCDEF"
        );
        assert_eq!(normalize("Example.ORG/a/B"), "http://example.org/a/B");
        assert_eq!(
            normalize("HTTP://Example.ORG/a/B"),
            "http://example.org/a/B"
        );
        assert_eq!(normalize("ark 12345/x"), "ark:/12345/x");
        assert_eq!(normalize("ARK:/B5072/fk-2"), "ark:/b5072/fk2");
        assert_eq!(normalize("URN:UUID:x"), "urn:uuid:x");
        assert_eq!(normalize("foo"), "foo");
        assert_eq!(normalize("PMID:123"), "pmid:123");
    }

    #[test]
    fn the_resolvers_ark_normal_form() {
        assert_eq!(
            normalize("ark:/12345/x\u{2013}y%7E?a-b"),
            "ark:/12345/xy%7E?a-b"
        );
        assert_eq!(shadow("doi:10.5072/A\u{2010}B"), "ark:/b5072/ab");
        // docs/RESOLUTION.md's vectors, but for the leading `/` of a request path.
        const DOC: &str = include_str!("../../../docs/RESOLUTION.md");
        let begin = DOC.find("<!-- normalisation vectors: begin -->").unwrap();
        let end = DOC.find("<!-- normalisation vectors: end -->").unwrap();
        let mut n = 0;
        for row in DOC[begin..end].lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = row.split('|').map(|c| c.trim().trim_matches('`')).collect();
            let (request, normal) = (cells[1], cells[2]);
            if !request.starts_with('/') {
                assert_eq!(
                    normalize(request),
                    format!("ark:/{}", &normal[4..]),
                    "{row}"
                );
                n += 1;
            }
        }
        assert_eq!(n, 17);
    }

    #[test]
    fn shadows() {
        assert_eq!(shadow("doi:10.5072/FK2-X"), "ark:/b5072/fk2x");
        assert_eq!(shadow("doi:10.12345/X"), "ark:/c2345/x");
        assert_eq!(shadow("urn:uuid:abc"), "ark:/97720/abc");
        assert_eq!(shadow("uuid:abc"), "ark:/97721/abc");
        assert_eq!(shadow("purl:a/b"), "ark:/97722/a/b");
        assert_eq!(shadow("ark:/12345/x"), "ark:/12345/x");
        assert_eq!(shadow("doi:10.123456/x"), "doi:10.123456/X");
    }
}
