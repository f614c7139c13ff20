//! What a page looks like, to tell when it changes or is not what it was: its title and
//! a 64-bit similarity hash of its text (Charikar's simhash over word triples: near
//! pages differ in few bits), and the signs of parking, challenge and not-found pages.

use std::hash::Hasher;

use noid_core::links::Fingerprint;
use siphasher::sip::SipHasher13;

/// What the checker read of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    /// Its title and text hash.
    pub fingerprint: Fingerprint,
    /// It reads as a parked domain's page (for sale, parking services).
    pub parking: bool,
    /// It reads as a bot wall or challenge (captcha, "checking your browser").
    pub challenge: bool,
    /// Its title says the page was not found.
    pub not_found_title: bool,
}

/// Words of parking pages and the parking services' names, lower case.
const PARKING: &[&str] = &[
    "this domain is for sale",
    "this domain may be for sale",
    "buy this domain",
    "domain is parked",
    "parked free",
    "parkingcrew",
    "sedoparking",
    "bodis.com",
    "above.com",
    "hugedomains",
    "afternic",
    "dan.com",
    "domain for sale",
];

/// Words of challenge pages, lower case.
const CHALLENGE: &[&str] = &[
    "captcha",
    "checking your browser",
    "just a moment...",
    "cf-chl",
    "challenge-platform",
    "are you a robot",
    "are you human",
    "access denied",
    "verify you are human",
];

/// Titles of not-found pages, lower case.
const NOT_FOUND: &[&str] = &[
    "not found",
    "404",
    "page not found",
    "no such page",
    "does not exist",
];

impl Page {
    /// What `html` (the start of a page, as read) shows.
    pub fn read(html: &str) -> Page {
        let lower = html.to_lowercase();
        let title = title(html);
        let title_lower = title.to_lowercase();
        Page {
            fingerprint: Fingerprint {
                simhash: simhash(&text(html)),
                title,
            },
            parking: PARKING.iter().any(|p| lower.contains(p)),
            challenge: CHALLENGE.iter().any(|p| lower.contains(p)),
            not_found_title: NOT_FOUND.iter().any(|p| title_lower.contains(p)),
        }
    }
}

/// The text of the page's `<title>`, whitespace collapsed ("" without one).
pub fn title(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let Some(open) = lower.find("<title") else {
        return String::new();
    };
    let Some(start) = lower[open..].find('>').map(|i| open + i + 1) else {
        return String::new();
    };
    let end = lower[start..]
        .find("</title")
        .map_or(html.len(), |i| start + i);
    collapse(&unescape(&html[start..end]))
}

/// The page's words: tags, scripts and styles left out.
pub fn text(html: &str) -> String {
    let lower = html.to_ascii_lowercase();
    let mut out = String::with_capacity(html.len() / 2);
    let mut i = 0;
    while i < html.len() {
        if html.as_bytes()[i] == b'<' {
            let skip_to = ["script", "style"]
                .iter()
                .find(|t| lower[i + 1..].starts_with(*t))
                .and_then(|t| lower[i..].find(&format!("</{t}")).map(|e| i + e));
            let from = skip_to.unwrap_or(i);
            match lower[from..].find('>') {
                Some(e) => i = from + e + 1,
                None => break,
            }
            out.push(' ');
        } else {
            let next = html[i..].find('<').map_or(html.len(), |e| i + e);
            out.push_str(&html[i..next]);
            i = next;
        }
    }
    collapse(&unescape(&out))
}

fn unescape(s: &str) -> String {
    s.replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&nbsp;", " ")
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Charikar's simhash of `text`'s word triples (lower case), 64 bits.
pub fn simhash(text: &str) -> u64 {
    let words: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let mut weights = [0i64; 64];
    let mut add = |shingle: &[String]| {
        let mut h = SipHasher13::new_with_keys(0x6e6f6964, 0x6c696e6b);
        for w in shingle {
            h.write(w.as_bytes());
            h.write_u8(0);
        }
        let v = h.finish();
        for (bit, weight) in weights.iter_mut().enumerate() {
            *weight += if v >> bit & 1 == 1 { 1 } else { -1 };
        }
    };
    if words.len() < 3 {
        add(&words);
    } else {
        words.windows(3).for_each(&mut add);
    }
    weights
        .iter()
        .enumerate()
        .filter(|(_, w)| **w > 0)
        .fold(0, |acc, (bit, _)| acc | 1 << bit)
}

/// How many bits two similarity hashes differ in.
pub fn distance(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_reads_as_its_title_and_text() {
        let html = "<html><head><TITLE> Annual  report &amp; data</title>\
                    <style>p{color:red}</style><script>var x='<p>';</script></head>\
                    <body><p>Three  words here</p></body></html>";
        assert_eq!(title(html), "Annual report & data");
        assert_eq!(text(html), "Annual report & data Three words here");
        assert_eq!(title("<p>no title</p>"), "");
        let parked = Page::read("<title>example.org</title><p>This domain is for sale!</p>");
        assert!(parked.parking && !parked.challenge && !parked.not_found_title);
        let wall = Page::read("<title>Just a moment...</title>");
        assert!(wall.challenge);
        assert!(Page::read("<title>404 Not Found</title>").not_found_title);
    }

    #[test]
    fn near_texts_are_near_and_other_texts_far() {
        let base = "the quick brown fox jumps over the lazy dog and keeps running through the \
                    green field until the evening comes and the sun sets behind the hills";
        let edited = base.replace("evening", "night");
        let other = "quarterly results show revenue growth in every region with strong \
                     demand for services and products across all markets this year";
        assert_eq!(simhash(base), simhash(base));
        assert!(distance(simhash(base), simhash(&edited)) <= 12);
        assert!(distance(simhash(base), simhash(other)) > 12);
    }
}
