//! Robots told from people by their User-Agent, with the COUNTER-Robots list shipped
//! in `data/` (see its README there: source, version, MIT licence).
//!
//! The list's patterns are compiled once into one case-insensitive regular expression
//! (as the list asks: "we strongly advise case-insensitive matching"). Matching a long
//! User-Agent against it costs some microseconds, so each thread keeps the class of the
//! User-Agents it saw last in a small direct-mapped cache keyed by their hash: a
//! server sees few distinct User-Agents at a time, and a repeat costs one hash.
//! Nothing of the User-Agent is kept but that hash.

use std::cell::RefCell;
use std::hash::BuildHasher;

use std::sync::atomic::{AtomicU64, Ordering};

use crate::key::Class;

/// The shipped list: one pattern a line.
pub const COUNTER_ROBOTS: &str = include_str!("../data/COUNTER_Robots_list.txt");

/// User-Agents whose class each thread keeps (a power of two).
const CACHE: usize = 64;

/// One cache slot: the classifier it is of ([`Robots::id`]), a User-Agent's hash and
/// its class (id 0: empty).
type Slot = (u64, u64, Class);

thread_local! {
    /// The thread's classes of the User-Agents it saw last. A plain thread-local, which
    /// a request reaches in an instruction or two, is shared by the process's
    /// classifiers, so each slot names the classifier it is of.
    static SEEN: RefCell<[Slot; CACHE]> = const { RefCell::new([(0, 0, Class::Person); CACHE]) };
}

/// The next classifier's id (never 0).
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The robots classifier.
pub struct Robots {
    pattern: regex::Regex,
    /// The class of a request without a User-Agent, or with an empty one (the list
    /// says: a robot's), known without a hash or a match.
    empty: Class,
    hasher: foldhash::fast::FixedState,
    /// Which classifier a cache slot is of: unique in the process.
    id: u64,
}

impl Robots {
    /// The classifier of the shipped COUNTER-Robots list.
    pub fn shipped() -> Robots {
        // The crate's tests compile every line of the shipped file.
        Robots::from_list(COUNTER_ROBOTS).expect("the shipped robots list compiles")
    }

    /// A classifier of `list`: one regular expression a line, matched anywhere in the
    /// User-Agent, ignoring case; blank lines are skipped.
    pub fn from_list(list: &str) -> Result<Robots, regex::Error> {
        let alternatives: Vec<String> = list
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| format!("(?:{l})"))
            .collect();
        let pattern = regex::RegexBuilder::new(&alternatives.join("|"))
            .case_insensitive(true)
            .size_limit(64 << 20)
            .build()?;
        let empty = if pattern.is_match("") {
            Class::Robot
        } else {
            Class::Person
        };
        Ok(Robots {
            pattern,
            empty,
            hasher: foldhash::fast::FixedState::with_seed(0x6e6f_6964),
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
        })
    }

    /// The class of a request with this User-Agent; `None` (no header) is classed
    /// as the empty User-Agent, which the list counts as a robot (`^.?$`).
    pub fn classify(&self, user_agent: Option<&[u8]>) -> Class {
        let ua = match user_agent {
            None | Some(b"") => return self.empty,
            Some(ua) => ua,
        };
        let hash = self.hasher.hash_one(ua);
        let slot = hash as usize % CACHE;
        let seen = SEEN.with_borrow(|seen| {
            let (id, h, class) = seen[slot];
            (id == self.id && h == hash).then_some(class)
        });
        if let Some(class) = seen {
            return class;
        }
        let class = self.matches(ua);
        SEEN.with_borrow_mut(|seen| seen[slot] = (self.id, hash, class));
        class
    }

    /// The class by the list itself, without the cache.
    fn matches(&self, ua: &[u8]) -> Class {
        let text = String::from_utf8_lossy(ua);
        if self.pattern.is_match(&text) {
            Class::Robot
        } else {
            Class::Person
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_shipped_list_compiles() {
        let mut lines = 0;
        for line in COUNTER_ROBOTS.lines().filter(|l| !l.trim().is_empty()) {
            regex::Regex::new(line).unwrap_or_else(|e| panic!("{line:?}: {e}"));
            lines += 1;
        }
        // generated/COUNTER_Robots_list.txt of 2024-04-22 has 327 lines.
        assert_eq!(lines, 327);
    }

    #[test]
    fn robots_and_people_are_told_apart_and_the_cache_agrees() {
        let robots = Robots::shipped();
        let cases: [(Option<&str>, Class); 7] = [
            (Some("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"), Class::Robot),
            (Some("curl/8.5.0"), Class::Robot),
            (Some("Wget/1.21.4"), Class::Robot),
            (Some("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"), Class::Person),
            (Some("Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15"), Class::Person),
            (Some(""), Class::Robot),
            (None, Class::Robot),
        ];
        for _ in 0..2 {
            for (ua, class) in cases {
                assert_eq!(robots.classify(ua.map(str::as_bytes)), class, "{ua:?}");
            }
        }
    }
}
