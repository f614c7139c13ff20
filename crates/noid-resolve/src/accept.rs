//! The `Accept` header (RFC 9110 §12.5.1), read once for both uses: content negotiation
//! in resolution (which `_,eTm,TYPE` target, or which metadata type) and the format of
//! an HTTP metadata page (JSON or ANVL).
//!
//! A media range's weight is its `q` parameter (a name matched in any case, a value from
//! 0 to 1 with at most three decimals, kept in thousandths; a malformed value counts as
//! 1); a range with weight 0 is not acceptable and is left out. The others are in order
//! of weight, ranges of equal weight in the order the client listed them.

use std::cmp::Reverse;

/// The acceptable media ranges of one `Accept` header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Accept<'a> {
    /// (weight in thousandths, media range as written), most preferred first.
    ranges: Vec<(u16, &'a str)>,
}

impl<'a> Accept<'a> {
    /// Read an `Accept` header's value.
    pub fn parse(header: &'a str) -> Accept<'a> {
        let mut ranges: Vec<(u16, &str)> = header
            .split(',')
            .filter_map(|item| {
                let mut params = item.split(';');
                let range = params.next()?.trim();
                let q = params
                    .filter_map(|p| p.split_once('='))
                    .find(|(name, _)| name.trim().eq_ignore_ascii_case("q"))
                    .map_or(1000, |(_, v)| weight(v.trim()));
                (!range.is_empty() && q > 0).then_some((q, range))
            })
            .collect();
        ranges.sort_by_key(|&(q, _)| Reverse(q));
        Accept { ranges }
    }

    /// Whether `*/*` is acceptable: the client takes whatever the resource is.
    pub fn takes_anything(&self) -> bool {
        self.ranges.iter().any(|(_, r)| *r == "*/*")
    }

    /// Whether the client asks for particular types: it names one exactly, and does not
    /// take anything (`*/*`). Browsers send `*/*` and get the plain redirect.
    pub fn negotiates(&self) -> bool {
        !self.takes_anything() && self.types().next().is_some()
    }

    /// The media types named exactly (no `type/*` or `*/*` ranges), most preferred
    /// first, as written (media types are case-insensitive: compare with
    /// `eq_ignore_ascii_case`).
    pub fn types(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.ranges
            .iter()
            .map(|&(_, r)| r)
            .filter(|r| !r.ends_with("/*"))
    }

    /// Of `choices`, the one the client prefers, if it names any of them.
    pub fn preferred<'c>(&self, choices: &[&'c str]) -> Option<&'c str> {
        self.types()
            .find_map(|t| choices.iter().find(|c| c.eq_ignore_ascii_case(t)).copied())
    }
}

/// A `q` value in thousandths, clamped to 0..=1000; a malformed one counts as 1.
fn weight(q: &str) -> u16 {
    match q.parse::<f32>() {
        Ok(q) if q.is_finite() => (q.clamp(0.0, 1.0) * 1000.0).round() as u16,
        _ => 1000,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(header: &str, types: &[&str], anything: bool) {
        let a = Accept::parse(header);
        assert_eq!(a.types().collect::<Vec<_>>(), types, "{header}");
        assert_eq!(a.takes_anything(), anything, "{header}");
    }

    #[test]
    fn ordered_by_weight_then_by_position() {
        check(
            "text/turtle;q=0.5, application/json",
            &["application/json", "text/turtle"],
            false,
        );
        check("a/x;q=0.5, b/y;q=0.5, c/z", &["c/z", "a/x", "b/y"], false);
        check("a/x;q=0.001, b/y;q=0.01", &["b/y", "a/x"], false);
        check("a/x;level=1;q=0.2, b/y;q=0.3", &["b/y", "a/x"], false);
    }

    #[test]
    fn weight_zero_is_not_acceptable() {
        check("application/json;q=0, text/html", &["text/html"], false);
        check("a/x;q=0.000", &[], false);
        check("a/x;q=0.0004", &[], false);
        check("*/*;q=0, a/x", &["a/x"], false);
    }

    #[test]
    fn q_names_any_case_values_clamped_or_lenient() {
        check("a/x;Q=0.1, b/y;q=0.2", &["b/y", "a/x"], false);
        check("a/x;q=7, b/y;q=0.9", &["a/x", "b/y"], false);
        check("a/x;q=abc, b/y;q=0.9", &["a/x", "b/y"], false);
        check("a/x; q = 0.1 , b/y", &["b/y", "a/x"], false);
    }

    #[test]
    fn wildcards() {
        check("text/html,*/*;q=0.8", &["text/html"], true);
        check("text/*", &[], false);
        check("", &[], false);
        check(" , ,", &[], false);
    }

    #[test]
    fn preferred_choice() {
        let choices = ["application/json", "text/plain"];
        let pick = |h: &str| Accept::parse(h).preferred(&choices);
        assert_eq!(
            pick("text/html, application/json;q=0.9"),
            Some("application/json")
        );
        assert_eq!(pick("text/plain, application/json"), Some("text/plain"));
        assert_eq!(
            pick("text/plain;q=0.5, application/JSON"),
            Some("application/json")
        );
        assert_eq!(pick("application/json;q=0, text/html"), None);
        assert_eq!(pick("*/*"), None);
    }
}
