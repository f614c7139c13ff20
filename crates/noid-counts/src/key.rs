//! What one count is of: the UTC day, what the answer was ([`Kind`]) and who asked
//! ([`Class`]). The identifier itself is kept beside them as bytes.

use std::time::{SystemTime, UNIX_EPOCH};

/// A UTC day: days since 1970-01-01.
pub type Day = u32;

/// Today's UTC day by the system clock.
pub fn today() -> Day {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    (secs / 86_400) as Day
}

/// A day as `YYYY-MM-DD`.
pub fn day_text(day: Day) -> String {
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default();
    epoch
        .checked_add_days(chrono::Days::new(u64::from(day)))
        .unwrap_or(epoch)
        .format("%Y-%m-%d")
        .to_string()
}

/// What the resolver answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Found, in a protocol that does not say how it is answered (noid's `get ID
    /// ELEM` lines).
    Hit,
    /// A redirect, with its status code (301, 302, 303, 307, 308), or another status
    /// the identifier's binding stores (`410 …`).
    Redirect(u16),
    /// Nothing bound: the identifier asked for is counted, for the "most asked
    /// missing" list.
    Miss,
    /// An inflection of a bound identifier (`?`, `??`, `/`…): its metadata.
    Inflection,
    /// Any other page about the identifier: content negotiation and citations,
    /// several targets, a tombstone, an archived copy, a registry record.
    Page,
}

impl Kind {
    /// The name the store's readers give it (`hit`, `redirect-302`, `miss`,
    /// `inflection`, `page`).
    pub fn name(self) -> String {
        match self {
            Kind::Redirect(code) => format!("redirect-{code}"),
            other => other.group().to_string(),
        }
    }

    /// The kind without its code (`redirect` for every redirect).
    pub fn group(self) -> &'static str {
        match self {
            Kind::Hit => "hit",
            Kind::Redirect(_) => "redirect",
            Kind::Miss => "miss",
            Kind::Inflection => "inflection",
            Kind::Page => "page",
        }
    }

    /// The kind of a group name ([`Kind::group`]) and a redirect's code (ignored for
    /// the other groups), as a store outside this crate keeps it (PostgreSQL's
    /// `noid_counts`); `None` for a group this version does not know.
    pub fn from_group(group: &str, code: u16) -> Option<Kind> {
        Some(match group {
            "hit" => Kind::Hit,
            "redirect" => Kind::Redirect(code),
            "miss" => Kind::Miss,
            "inflection" => Kind::Inflection,
            "page" => Kind::Page,
            _ => return None,
        })
    }

    /// A redirect's code; 0 for the other kinds.
    pub fn code(self) -> u16 {
        match self {
            Kind::Redirect(code) => code,
            _ => 0,
        }
    }

    /// Whether the identifier was found (every kind but a miss).
    pub fn resolved(self) -> bool {
        self != Kind::Miss
    }

    /// The kind's tag and code as stored.
    pub(crate) fn encode(self) -> (u8, u16) {
        match self {
            Kind::Hit => (0, 0),
            Kind::Redirect(code) => (1, code),
            Kind::Miss => (2, 0),
            Kind::Inflection => (3, 0),
            Kind::Page => (4, 0),
        }
    }

    /// The kind of a stored tag and code; `None` for a tag this version does not know.
    pub(crate) fn decode(tag: u8, code: u16) -> Option<Kind> {
        Some(match tag {
            0 => Kind::Hit,
            1 => Kind::Redirect(code),
            2 => Kind::Miss,
            3 => Kind::Inflection,
            4 => Kind::Page,
            _ => return None,
        })
    }
}

/// Who asked, as far as the User-Agent says ([`crate::Robots`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Not a known robot.
    Person,
    /// A User-Agent on the robots list (or none at all, as COUNTER counts it).
    Robot,
}

impl Class {
    /// `person` or `robot`.
    pub fn name(self) -> &'static str {
        match self {
            Class::Person => "person",
            Class::Robot => "robot",
        }
    }

    /// The class of a name ([`Class::name`]); `None` for another.
    pub fn from_name(name: &str) -> Option<Class> {
        match name {
            "person" => Some(Class::Person),
            "robot" => Some(Class::Robot),
            _ => None,
        }
    }

    pub(crate) fn encode(self) -> u8 {
        self as u8
    }

    pub(crate) fn decode(tag: u8) -> Option<Class> {
        match tag {
            0 => Some(Class::Person),
            1 => Some(Class::Robot),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_utc_dates() {
        assert_eq!(day_text(0), "1970-01-01");
        // 2024-02-29 is day 19782 (date -u -d 2024-02-29 +%s = 1709164800 = 19782 * 86400)
        assert_eq!(day_text(19_782), "2024-02-29");
    }

    #[test]
    fn every_kind_reads_back_as_stored() {
        for kind in [
            Kind::Hit,
            Kind::Redirect(303),
            Kind::Miss,
            Kind::Inflection,
            Kind::Page,
        ] {
            let (tag, code) = kind.encode();
            assert_eq!(Kind::decode(tag, code), Some(kind));
            assert_eq!(Kind::from_group(kind.group(), kind.code()), Some(kind));
        }
        assert_eq!(Kind::decode(9, 0), None);
        assert_eq!(Kind::from_group("redirects", 302), None);
        for class in [Class::Person, Class::Robot] {
            assert_eq!(Class::from_name(class.name()), Some(class));
        }
    }
}
