//! Identifier decomposition (EggNog's `id_decompose`): scheme, NAAN, shoulder, blade,
//! prefix extension, and the normalised forms a request is looked up under.
//!
//! Only requests that missed their verbatim lookup are decomposed, so plain hits never
//! pay for this. All parts are byte ranges into one normalised string (`norm`) so that a
//! decomposition costs one allocation.

use std::borrow::Cow;
use std::ops::Range;

/// The identifier families whose layout we know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `ark:/NAAN/...` (also written `ark:NAAN/...`).
    Ark,
    /// `doi:10.NNNN/...`; DOIs are case-insensitive and stored upper-case by N2T/EZID.
    Doi,
    /// `scheme://host/...`: a URL used as an identifier.
    Url,
    /// Any other `scheme:...`.
    OtherScheme,
    /// No scheme (Noid's own `13030/f54x54g11`, or any string).
    Schemeless,
}

/// A decomposed identifier.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// Light normalisation: leading `/`s and a `t-` test prefix removed, `eoi:` → `doi:`,
    /// lower-case scheme, `ark:/` form, lower-case ARK NAAN, prefix extension removed.
    /// Everything after the NAAN is kept verbatim (a passed-through suffix keeps its case).
    pub norm: String,
    /// Which layout applies.
    pub family: Family,
    /// `scheme:` (with its colon) in `norm`; empty range when schemeless.
    pub scheme: Range<usize>,
    /// Start of the scheme-local id (`${id}`) in `norm`.
    pub local: usize,
    /// The NAAN (ARK) or DOI prefix (`10.5072`) or first `/`-segment of other schemes.
    pub naan: Option<Range<usize>>,
    /// End of the first-digit shoulder (`fk4` in `ark:/99999/fk4x`), if any.
    pub shoulder_end: Option<usize>,
    /// Length of the non-choppable start: ancestor chopping never goes shorter.
    pub stop_len: usize,
    /// Prefix extension (`-dev`, `-dev-2a`) moved off the scheme or NAAN.
    pub ext: Option<String>,
}

/// Length of `scheme:` at the start of `s` (`[A-Za-z][A-Za-z0-9+.-]*:`, RFC 3986's
/// scheme), colon included; `None` when `s` does not start with one.
pub fn scheme_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    if !b.first()?.is_ascii_alphabetic() {
        return None;
    }
    let n = b
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        .count();
    (b.get(n) == Some(&b':')).then_some(n + 1)
}

/// EggNog's "first-digit shoulder": `^[A-Za-z]*\d`.
fn first_digit_shoulder(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let letters = b.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    b.get(letters)
        .filter(|c| c.is_ascii_digit())
        .map(|_| letters + 1)
}

/// Whether an identifier asked for over HTTP (the path %-decoded once, then `?` and the
/// query as received) may be looked up: it holds no CR, LF or NUL. A decoded CR or LF is
/// never part of an identifier resolvable through a web server (Apache refuses such
/// keys) and would be a header-injection hazard if echoed, so such requests are misses:
/// in noid-http's routes and in the nginx module alike.
pub fn web_askable(id: &[u8]) -> bool {
    memchr::memchr3(b'\n', b'\r', 0, id).is_none()
}

/// Whether a request-target's path, as sent (not %-decoded; leading `/`s allowed),
/// names an ARK holding a `%`: such an ARK may hold `%7E` or `%2F` in its name and is
/// reached at its own URL (draft-kunze-ark-43 §3.1, §3.2), which the path's one decoding
/// would turn into `~` or a hierarchy separator. Every resolver that decodes the path
/// asks again with the path as sent when the decoded one found nothing: noid-http's
/// routes and the web server modules' maps alike.
///
/// ```
/// use noid_core::ident::ark_reached_as_sent;
/// assert!(ark_reached_as_sent(b"/ark:/12345/x7%7Ez"));
/// assert!(ark_reached_as_sent(b"ARK:12345/u%2fv"));
/// assert!(!ark_reached_as_sent(b"/ark:/12345/x7~z"));
/// assert!(!ark_reached_as_sent(b"doi:10.5072/a%2Fb"));
/// ```
pub fn ark_reached_as_sent(path: &[u8]) -> bool {
    let start = path.iter().position(|&c| c != b'/').unwrap_or(path.len());
    let path = &path[start..];
    path.get(..4)
        .is_some_and(|l| l.eq_ignore_ascii_case(b"ark:"))
        && path.contains(&b'%')
}

/// Chopping's notion of a word character: Perl's `[\w~]` on bytes (ASCII). Inlined:
/// chopping calls it for every byte of an id, from another crate.
#[inline]
pub fn is_word(c: u8) -> bool {
    WORD[usize::from(c)]
}

/// [`is_word`] as a table: chopping tests every byte of an id, and one load is cheaper
/// than the four range tests.
const WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        table[i] = c.is_ascii_alphanumeric() || c == b'_' || c == b'~';
        i += 1;
    }
    table
};

impl Parsed {
    /// Decompose a request id (leading `/`s already allowed).
    pub fn new(raw: &str) -> Parsed {
        let mut s = raw.trim_start_matches('/');
        if let Some(rest) = s.strip_prefix("t-") {
            if scheme_len(rest).is_some() {
                s = rest;
            }
        }
        let Some(slen) = scheme_len(s) else {
            return Parsed::schemeless(s);
        };
        // `norm` starts as the lower-case scheme name.
        let mut norm = String::with_capacity(s.len() + 1);
        norm.push_str(&s[..slen - 1]);
        norm.make_ascii_lowercase();
        let mut rest = &s[slen..];
        let mut ext = None;
        // (A byte search: `str::find` sets up a substring searcher costing more than
        // the whole scan of a scheme name.)
        if let Some(i) = norm.as_bytes().windows(4).position(|w| w == b"-dev") {
            ext = Some(norm[i..].to_string());
            norm.truncate(i);
        }
        if norm == "eoi" {
            norm.replace_range(.., "doi");
        }
        let family = match norm.as_str() {
            "ark" => Family::Ark,
            "doi" => Family::Doi,
            _ => Family::OtherScheme,
        };
        let urn = norm == "urn";
        if rest.starts_with("//") && family != Family::Ark {
            return Parsed::url(norm, rest, ext);
        }
        norm.push(':');
        let scheme_r = 0..norm.len();
        if family == Family::Ark {
            rest = rest.trim_start_matches('/');
            norm.push('/');
        } else if family == Family::Doi {
            rest = rest.trim_start_matches('/');
        }
        let local = norm.len();
        let mut naan = None;
        // A NAAN is the first segment, when a `/` follows it (ARKs and DOIs: also alone).
        let seg_end = rest.find('/');
        let has_naan = match family {
            Family::Ark | Family::Doi => !rest.is_empty(),
            _ => seg_end.is_some_and(|e| e > 0),
        };
        let mut after = rest;
        if has_naan {
            let end = seg_end.unwrap_or(rest.len());
            let mut seg = &rest[..end];
            if matches!(family, Family::Ark | Family::Doi) {
                if let Some(h) = seg.find('-').filter(|&h| h > 0) {
                    ext.get_or_insert_with(|| seg[h..].to_string());
                    seg = &seg[..h];
                }
            }
            let start = norm.len();
            norm.push_str(seg);
            if family == Family::Ark {
                norm[start..].make_ascii_lowercase();
            }
            naan = Some(start..norm.len());
            after = &rest[end..];
        }
        norm.push_str(after);
        let mut stop_len = match &naan {
            // After `NAAN/`; a NAAN with nothing after it cannot be chopped at all.
            Some(r) if norm.as_bytes().get(r.end) == Some(&b'/') => r.end + 1,
            Some(_) => norm.len(),
            None => local,
        };
        if urn {
            stop_len = norm[local..]
                .find(':')
                .map_or(norm.len(), |i| local + i + 1);
        }
        let shoulder_end = first_digit_shoulder(&norm[stop_len..]).map(|n| stop_len + n);
        if let Some(e) = shoulder_end {
            stop_len = e;
        }
        Parsed {
            norm,
            family,
            scheme: scheme_r,
            local,
            naan,
            shoulder_end,
            stop_len,
            ext,
        }
    }

    fn schemeless(s: &str) -> Parsed {
        // `13030/...` (a Noid id with its NAAN) has a NAAN-like first segment.
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        let (naan, mut stop_len) = if digits > 0 && s.as_bytes().get(digits) == Some(&b'/') {
            (Some(0..digits), digits + 1)
        } else {
            (None, 0)
        };
        let shoulder_end = first_digit_shoulder(&s[stop_len..]).map(|n| stop_len + n);
        match shoulder_end {
            Some(e) => stop_len = e,
            // No shoulder: the first word is the shortest ancestor (`X` for `X/foo`).
            None if stop_len == 0 => stop_len = s.bytes().take_while(|&c| is_word(c)).count(),
            None => {}
        }
        Parsed {
            norm: s.to_string(),
            family: Family::Schemeless,
            scheme: 0..0,
            local: 0,
            naan,
            shoulder_end,
            stop_len,
            ext: None,
        }
    }

    /// `norm` holds the scheme name.
    fn url(mut norm: String, rest: &str, ext: Option<String>) -> Parsed {
        norm.push(':');
        let local = norm.len();
        norm.push_str(rest);
        // `scheme://host/` cannot be chopped.
        let stop_len = norm[local + 2..]
            .find('/')
            .map_or(norm.len(), |i| local + 2 + i + 1);
        Parsed {
            scheme: 0..local,
            norm,
            family: Family::Url,
            local,
            naan: None,
            shoulder_end: None,
            stop_len,
            ext,
        }
    }

    /// `ark:`, `doi:` ... (empty when schemeless).
    pub fn scheme_key(&self) -> &str {
        &self.norm[self.scheme.clone()]
    }

    /// `ark:/12345`, `doi:10.5072` (the NAAN-level ancestor), if there is a NAAN.
    pub fn naan_key(&self) -> Option<&str> {
        self.naan.as_ref().map(|r| &self.norm[..r.end])
    }

    /// The NAAN alone (`12345`, `10.5072`).
    pub fn naan(&self) -> Option<&str> {
        self.naan.as_ref().map(|r| &self.norm[r.clone()])
    }

    /// `ark:/12345/fk4`, the shoulder-level ancestor, if the id has a first-digit shoulder.
    pub fn shoulder_key(&self) -> Option<&str> {
        self.shoulder_end.map(|e| &self.norm[..e])
    }

    /// Scheme-local id: `12345/fk4x` for `ark:/12345/fk4x`, `10.5072/FK2` for a DOI.
    pub fn local_id(&self) -> &str {
        &self.norm[self.local..]
    }

    /// NAAN-local id: what follows `NAAN/` (the scheme-local id when there is no NAAN).
    pub fn nlid(&self) -> &str {
        match &self.naan {
            Some(r) => self.norm[r.end..]
                .strip_prefix('/')
                .unwrap_or(&self.norm[r.end..]),
            None => self.local_id(),
        }
    }

    /// What follows the shoulder (or the NAAN when there is no shoulder).
    pub fn blade(&self) -> &str {
        match self.shoulder_end {
            Some(e) => &self.norm[e..],
            None => self.nlid(),
        }
    }

    /// A partial identifier (scheme alone, or scheme + NAAN) and its canonical key.
    pub fn partial_key(&self) -> Option<String> {
        if self.scheme.is_empty() || self.family == Family::Url {
            return None;
        }
        let local = self.local_id().trim_end_matches('/');
        if local.is_empty() {
            return Some(self.scheme_key().to_string());
        }
        if matches!(self.family, Family::Ark | Family::Doi) && !local.contains('/') {
            return Some(format!("{}{local}", &self.norm[..self.local]));
        }
        None
    }

    /// Other spellings of the whole id to try after the verbatim one missed, most likely
    /// first, without duplicates of `verbatim`: the light normalisation, the other ARK
    /// form (`ark:12345/x`), the hyphen-free ARK (hyphens are identity-inert in ARKs:
    /// [`crate::normalize::without_hyphens`], U+2010–U+2015 too),
    /// the upper-case DOI, and the DOI behind a shadow ARK (`ark:/b5072/fk2x` →
    /// `doi:10.5072/FK2X`).
    pub fn alternates(&self, verbatim: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::with_capacity(4);
        let push = |s: String, out: &mut Vec<String>| {
            if s != verbatim && !out.contains(&s) {
                out.push(s);
            }
        };
        if self.norm != verbatim {
            out.push(self.norm.clone());
        }
        match self.family {
            Family::Ark => {
                let local = self.local_id();
                push(["ark:", local].concat(), &mut out);
                if let Some(r) = &self.naan {
                    let after = crate::normalize::without_hyphens(&self.norm[r.end..]);
                    if let Cow::Owned(after) = after {
                        push([&self.norm[..r.end], &after].concat(), &mut out);
                    }
                }
                if let Some(doi) = self.shadow_doi() {
                    push(doi, &mut out);
                }
            }
            Family::Doi => push(format!("doi:{}", self.local_id().to_uppercase()), &mut out),
            _ => {}
        }
        out
    }

    /// The ARK specification's normal form of the identifier part (every hyphen,
    /// U+2010–U+2015 too, removed; `%XX` upper-cased) in both ARK forms, where it is a
    /// spelling [`Parsed::alternates`] does not already try: looked up after those.
    /// Empty for other families and for ids already in normal form (one byte search).
    pub fn normal_forms(&self, verbatim: &str, tried: &[String]) -> Vec<String> {
        let (Family::Ark, Some(r)) = (self.family, &self.naan) else {
            return Vec::new();
        };
        let Cow::Owned(part) = crate::normalize::identifier_part(&self.norm[r.end..]) else {
            return Vec::new();
        };
        let naan = &self.norm[self.local..r.end];
        [
            ["ark:/", naan, &part].concat(),
            ["ark:", naan, &part].concat(),
        ]
        .into_iter()
        .filter(|s| s != verbatim && !tried.contains(s))
        .collect()
    }

    /// The ARK specification's other spellings of this ARK that a stored key may use,
    /// as parses whose ancestors and inflections resolution looks up after this one's
    /// missed (draft-kunze-ark-43 §2.2, §3.1, §3.2): in normal form (without hyphens,
    /// `%XX` upper-cased: [`crate::normalize::identifier_part`]; `ark:/NAAN/…`), in the
    /// `ark:NAAN/…` label form, and both. Each keeps the request's characters but for
    /// hyphens and their case, so [`Parsed::tail_of`] maps a suffix back to the request's
    /// own text.
    /// Empty for other families and for an ARK without a NAAN.
    pub fn respellings(&self) -> Vec<Parsed> {
        let (Family::Ark, Some(r)) = (self.family, &self.naan) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(3);
        let hyphen_free = match crate::normalize::identifier_part(&self.norm[r.end..]) {
            Cow::Owned(part) => {
                let mut q = Parsed::new(&[&self.norm[..r.end], &part].concat());
                q.ext.clone_from(&self.ext);
                Some(q)
            }
            Cow::Borrowed(_) => None,
        };
        if let Some(q) = &hyphen_free {
            out.push(q.clone());
        }
        out.push(self.unslashed());
        if let Some(q) = hyphen_free {
            out.push(q.unslashed());
        }
        out
    }

    /// This `ark:/NAAN/…` parse written `ark:NAAN/…`: the same parts, one byte earlier.
    fn unslashed(&self) -> Parsed {
        let mut q = self.clone();
        q.norm.remove("ark:".len());
        q.local -= 1;
        q.naan = q.naan.map(|r| r.start - 1..r.end - 1);
        q.shoulder_end = q.shoulder_end.map(|e| e - 1);
        q.stop_len -= 1;
        q
    }

    /// The end of `self.norm` (the request's own spelling) that holds what `other`, one
    /// of [`Parsed::respellings`], holds after its first `len` bytes: the same characters
    /// but for hyphens, which stay with the part before it. A suffix passed through keeps
    /// the hyphens it was asked with (`ark:/12345/x-y/my-file.pdf` found on
    /// `ark:12345/xy` passes `/my-file.pdf` through).
    pub fn tail_of(&self, other: &Parsed, len: usize) -> &str {
        let hyphen = |c: &char| crate::normalize::is_hyphen(*c);
        let mut wanted = other.norm[len..].chars().filter(|c| !hyphen(c)).count();
        let mut start = self.norm.len();
        for (i, c) in self.norm.char_indices().rev() {
            if wanted == 0 {
                break;
            }
            if !hyphen(&c) {
                wanted -= 1;
            }
            start = i;
        }
        &self.norm[start..]
    }

    /// The DOI behind a shadow ARK ([`crate::shadow::doi_of_ark`]).
    fn shadow_doi(&self) -> Option<String> {
        let r = self.naan.as_ref()?;
        let naan = &self.norm[r.clone()];
        if !crate::shadow::is_shadow_naan(naan) {
            return None;
        }
        crate::shadow::doi_of_ark(naan, &self.norm[r.end..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(id: &str, norm: &str, stop: &str, shoulder: Option<&str>, naan_key: Option<&str>) {
        let p = Parsed::new(id);
        assert_eq!(p.norm, norm, "norm of {id}");
        assert_eq!(&p.norm[..p.stop_len], stop, "stop of {id}");
        assert_eq!(p.shoulder_key(), shoulder, "shoulder of {id}");
        assert_eq!(p.naan_key(), naan_key, "naan key of {id}");
    }

    #[test]
    fn ark_forms() {
        check(
            "ark:/12345/xt2rv8b/chap3",
            "ark:/12345/xt2rv8b/chap3",
            "ark:/12345/xt2",
            Some("ark:/12345/xt2"),
            Some("ark:/12345"),
        );
        check(
            "ARK:12345/x",
            "ark:/12345/x",
            "ark:/12345/",
            None,
            Some("ark:/12345"),
        );
        check(
            "/ark:/00224/foo/bar",
            "ark:/00224/foo/bar",
            "ark:/00224/",
            None,
            Some("ark:/00224"),
        );
        check(
            "ark:/B5072/fk2",
            "ark:/b5072/fk2",
            "ark:/b5072/fk2",
            Some("ark:/b5072/fk2"),
            Some("ark:/b5072"),
        );
    }

    #[test]
    fn doi_and_other_schemes() {
        check(
            "doi:10.5072/FK2abc",
            "doi:10.5072/FK2abc",
            "doi:10.5072/FK2",
            Some("doi:10.5072/FK2"),
            Some("doi:10.5072"),
        );
        check(
            "eoi:10.5072/X",
            "doi:10.5072/X",
            "doi:10.5072/",
            None,
            Some("doi:10.5072"),
        );
        check("pmid:12345", "pmid:12345", "pmid:1", Some("pmid:1"), None);
        check("urn:nbn:de:1234", "urn:nbn:de:1234", "urn:nbn:", None, None);
        check(
            "http://e.org/a/b",
            "http://e.org/a/b",
            "http://e.org/",
            None,
            None,
        );
    }

    #[test]
    fn schemeless_forms() {
        check(
            "13030/kt639k9/p2",
            "13030/kt639k9/p2",
            "13030/kt6",
            Some("13030/kt6"),
            Some("13030"),
        );
        check("X/foo", "X/foo", "X", None, None);
        check("fk491f/x", "fk491f/x", "fk4", Some("fk4"), None);
    }

    #[test]
    fn prefix_extension() {
        let p = Parsed::new("doi:10.12345-dev-2a/XYZ");
        assert_eq!(p.norm, "doi:10.12345/XYZ");
        assert_eq!(p.ext.as_deref(), Some("-dev-2a"));
        let p = Parsed::new("ark:/12345-dev/678");
        assert_eq!(p.norm, "ark:/12345/678");
        assert_eq!(p.ext.as_deref(), Some("-dev"));
        assert_eq!(p.nlid(), "678");
        let p = Parsed::new("xyzzy-dev:foo");
        assert_eq!(p.norm, "xyzzy:foo");
        assert_eq!(p.ext.as_deref(), Some("-dev"));
        assert_eq!(p.local_id(), "foo");
    }

    #[test]
    fn parts() {
        let p = Parsed::new("ark:/12345/fk4abc/d");
        assert_eq!(p.local_id(), "12345/fk4abc/d");
        assert_eq!(p.nlid(), "fk4abc/d");
        assert_eq!(p.blade(), "abc/d");
        assert_eq!(p.scheme_key(), "ark:");
    }

    #[test]
    fn partials() {
        for (id, key) in [
            ("ark:", Some("ark:")),
            ("ark:/", Some("ark:")),
            ("ark:/99999", Some("ark:/99999")),
            ("ark:99999/", Some("ark:/99999")),
            ("doi:10.5072", Some("doi:10.5072")),
            ("ark:/99999/fk4", None),
            ("pmid:", Some("pmid:")),
            ("pmid:1", None),
            ("X", None),
        ] {
            assert_eq!(Parsed::new(id).partial_key().as_deref(), key, "{id}");
        }
    }

    #[test]
    fn normal_forms() {
        let p = Parsed::new("ark:/12345/a-b-c");
        let tried = p.alternates("ark:/12345/a-b-c");
        assert_eq!(
            p.normal_forms("ark:/12345/a-b-c", &tried),
            vec!["ark:12345/abc".to_string()]
        );
        let p = Parsed::new("ARK:/B5072/x\u{2010}y%7e");
        assert_eq!(
            p.normal_forms("", &[]),
            vec![
                "ark:/b5072/xy%7E".to_string(),
                "ark:b5072/xy%7E".to_string()
            ]
        );
        assert!(Parsed::new("ark:/12345/xy")
            .normal_forms("", &[])
            .is_empty());
        assert!(Parsed::new("doi:10.5072/a-b")
            .normal_forms("", &[])
            .is_empty());
    }

    #[test]
    fn alternates() {
        let p = Parsed::new("ark:/12345/a-b-c");
        assert_eq!(
            p.alternates("ark:/12345/a-b-c"),
            vec!["ark:12345/a-b-c".to_string(), "ark:/12345/abc".to_string()]
        );
        let p = Parsed::new("ark:/b5072/fk2x");
        assert!(p
            .alternates("ark:/b5072/fk2x")
            .contains(&"doi:10.5072/FK2X".to_string()));
        let p = Parsed::new("ark:/c2345/x");
        assert!(p.alternates("").contains(&"doi:10.12345/X".to_string()));
        let p = Parsed::new("doi:10.5072/fk2x");
        assert_eq!(
            p.alternates("doi:10.5072/fk2x"),
            vec!["doi:10.5072/FK2X".to_string()]
        );
    }
}
