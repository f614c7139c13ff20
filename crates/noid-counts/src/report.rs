//! Reading the counts: what `noid stats` prints, the API's `stats` answers and the
//! console's Usage pages show: per day, per kind and class, for one identifier or every identifier
//! that starts with a prefix (a shoulder), with the most resolved and the most asked
//! missing identifiers. Per shoulder is derived here, at read time; the store keeps
//! identifiers only.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::key::{day_text, Class, Day, Kind};
use crate::segment::Entry;

/// What one count is of.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key {
    pub day: Day,
    pub id: Vec<u8>,
    pub kind: Kind,
    pub class: Class,
}

/// `entries` with the counts of equal keys added up, in key order.
pub fn summed(entries: &[Entry]) -> BTreeMap<Key, u64> {
    sum(entries.iter())
}

/// `entries` with the counts of equal keys added up.
fn sum<'a>(entries: impl Iterator<Item = &'a Entry>) -> BTreeMap<Key, u64> {
    let mut sums = BTreeMap::new();
    for e in entries {
        let key = Key {
            day: e.day,
            id: e.id.clone(),
            kind: e.kind,
            class: e.class,
        };
        *sums.entry(key).or_insert(0) += e.count;
    }
    sums
}

/// The spelling identifiers are compared in: an ARK's `ark:/` written `ark:` (the
/// ARK draft's two spellings of one identifier), any case of the `ark:` label.
fn canonical(id: &[u8]) -> Vec<u8> {
    let (head, rest) = spelled(id);
    [head, rest].concat()
}

/// `id` in the spelling compared, as its two parts: `ark:` (or nothing) and the rest.
fn spelled(id: &[u8]) -> (&'static [u8], &[u8]) {
    if id.len() >= 4 && id[..4].eq_ignore_ascii_case(b"ark:") {
        (b"ark:", id[4..].strip_prefix(b"/").unwrap_or(&id[4..]))
    } else {
        (b"", id)
    }
}

/// Whether `id`, in the spelling compared, starts with `prefix` (already in it):
/// `canonical(id).starts_with(prefix)` without making the spelling, once per count read.
fn starts_with(id: &[u8], prefix: &[u8]) -> bool {
    let (head, rest) = spelled(id);
    let n = prefix.len().min(head.len());
    head[..n] == prefix[..n] && rest.starts_with(&prefix[n..])
}

/// What to report on.
#[derive(Debug, Clone)]
pub struct Query {
    /// An identifier, or a prefix of identifiers (a shoulder); `None`: all.
    pub subject: Option<String>,
    /// The last day reported (today, usually).
    pub to: Day,
    /// How many days, up to and including `to`.
    pub days: u32,
    /// How long the most-resolved and most-asked-missing lists are.
    pub top: usize,
}

/// The counts of one day, or of the whole period.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tallies {
    /// Answers by kind name (`redirect-302`, `miss`, …) to people.
    pub person: BTreeMap<String, u64>,
    /// The same to robots.
    pub robot: BTreeMap<String, u64>,
}

impl Tallies {
    fn add(&mut self, kind: Kind, class: Class, count: u64) {
        let side = match class {
            Class::Person => &mut self.person,
            Class::Robot => &mut self.robot,
        };
        *side.entry(kind.name()).or_insert(0) += count;
    }

    /// Answers to people that found the identifier (every kind but a miss).
    pub fn resolved_by_people(&self) -> u64 {
        self.person
            .iter()
            .filter(|(k, _)| *k != "miss")
            .map(|(_, n)| n)
            .sum()
    }

    /// Every answer counted, to people and robots.
    pub fn all(&self) -> u64 {
        self.person.values().chain(self.robot.values()).sum()
    }
}

/// One day's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayTallies {
    /// `YYYY-MM-DD` (UTC).
    pub day: String,
    #[serde(flatten)]
    pub tallies: Tallies,
}

/// An identifier and how many times people and robots asked for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ranked {
    pub id: String,
    pub people: u64,
    pub robots: u64,
}

/// The report of a [`Query`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The identifier or prefix, or `""` for all.
    pub subject: String,
    pub from: String,
    pub to: String,
    /// Every day of the period, the days without counts too (a chart's x axis).
    pub days: Vec<DayTallies>,
    pub total: Tallies,
    /// Found identifiers by answers to people (then robots), most first.
    pub most_resolved: Vec<Ranked>,
    /// Identifiers asked for and not found, by requests (people and robots), most
    /// first: broken citations somewhere.
    pub most_asked_missing: Vec<Ranked>,
    /// The matching counts themselves (`noid stats --format csv`).
    #[serde(skip)]
    pub rows: Vec<(Key, u64)>,
}

impl Query {
    /// The first day of the period.
    pub fn from(&self) -> Day {
        self.to.saturating_sub(self.days.saturating_sub(1))
    }

    /// Whether `e` is of the period and of the subject (`subject`: the query's, in
    /// the spelling compared).
    fn keeps(&self, e: &Entry, subject: Option<&[u8]>) -> bool {
        e.day >= self.from() && e.day <= self.to && subject.is_none_or(|s| starts_with(&e.id, s))
    }

    /// The report on `entries` (read from a [`crate::CountsDir`]).
    pub fn report(&self, entries: &[Entry]) -> Report {
        let from = self.from();
        let mut days: Vec<DayTallies> = (from..=self.to)
            .map(|d| DayTallies {
                day: day_text(d),
                tallies: Tallies::default(),
            })
            .collect();
        let mut total = Tallies::default();
        let mut resolved: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        let mut missing: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        let mut rows = Vec::new();
        // Only the counts asked about are summed: a question about one identifier or
        // shoulder then costs a scan of the store's counts, not a sort of all of them.
        let subject = self.subject.as_ref().map(|s| canonical(s.as_bytes()));
        let kept = entries.iter().filter(|e| self.keeps(e, subject.as_deref()));
        for (key, count) in sum(kept) {
            days[(key.day - from) as usize]
                .tallies
                .add(key.kind, key.class, count);
            total.add(key.kind, key.class, count);
            let id = String::from_utf8_lossy(&key.id).into_owned();
            let list = if key.kind.resolved() {
                &mut resolved
            } else {
                &mut missing
            };
            let r = list.entry(id).or_default();
            match key.class {
                Class::Person => r.0 += count,
                Class::Robot => r.1 += count,
            }
            rows.push((key, count));
        }
        let ranked = |list: BTreeMap<String, (u64, u64)>| {
            list.into_iter()
                .map(|(id, (people, robots))| Ranked { id, people, robots })
                .collect::<Vec<_>>()
        };
        // Resolved: by people, then robots (robots inflate what is used); missing: by
        // everyone (a robot that follows a broken link found a broken citation too).
        let mut most_resolved = ranked(resolved);
        most_resolved.sort_by(|a, b| {
            (b.people, b.robots)
                .cmp(&(a.people, a.robots))
                .then_with(|| a.id.cmp(&b.id))
        });
        most_resolved.truncate(self.top);
        let mut most_asked_missing = ranked(missing);
        most_asked_missing.sort_by(|a, b| {
            (b.people + b.robots)
                .cmp(&(a.people + a.robots))
                .then_with(|| a.id.cmp(&b.id))
        });
        most_asked_missing.truncate(self.top);
        Report {
            subject: self.subject.clone().unwrap_or_default(),
            from: day_text(from),
            to: day_text(self.to),
            days,
            total,
            most_resolved,
            most_asked_missing,
            rows,
        }
    }
}

impl Report {
    /// `day,identifier,kind,class,count`, one line a key, with a header line.
    pub fn csv(&self) -> String {
        let mut out = String::from("day,identifier,kind,class,count\n");
        for (key, count) in &self.rows {
            let id = String::from_utf8_lossy(&key.id);
            let id = if id.contains([',', '"', '\n', '\r']) {
                format!("\"{}\"", id.replace('"', "\"\""))
            } else {
                id.into_owned()
            };
            out.push_str(&format!(
                "{},{id},{},{},{count}\n",
                day_text(key.day),
                key.kind.name(),
                key.class.name()
            ));
        }
        out
    }

    /// The report as JSON (without the rows).
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The report as text for people.
    pub fn text(&self) -> String {
        let subject = if self.subject.is_empty() {
            "all identifiers"
        } else {
            &self.subject
        };
        let mut out = format!("{subject}, {} to {} (UTC)\n", self.from, self.to);
        let mut kinds: Vec<&String> = self
            .total
            .person
            .keys()
            .chain(self.total.robot.keys())
            .collect();
        kinds.sort();
        kinds.dedup();
        if kinds.is_empty() {
            out.push_str("no requests counted\n");
        }
        for kind in kinds {
            let person = self.total.person.get(kind).copied().unwrap_or(0);
            let robot = self.total.robot.get(kind).copied().unwrap_or(0);
            out.push_str(&format!(
                "{kind:<14} {person:>10} people {robot:>10} robots\n"
            ));
        }
        for (title, list) in [
            ("most resolved", &self.most_resolved),
            ("most asked missing", &self.most_asked_missing),
        ] {
            if !list.is_empty() {
                out.push_str(&format!("{title}:\n"));
                for r in list {
                    out.push_str(&format!(
                        "{:>10} people {:>10} robots  {}\n",
                        r.people, r.robots, r.id
                    ));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `starts_with` answers as the spelling made whole would.
    #[test]
    fn a_prefix_matches_in_either_spelling_of_an_ark() {
        let ids: [&[u8]; 6] = [
            b"ark:/99999/fk4a",
            b"ARK:99999/fk4a",
            b"ark:",
            b"ar",
            b"doi:10.5072/x",
            b"",
        ];
        let prefixes: [&[u8]; 8] = [
            b"ark:/99999/fk4",
            b"ark:99999",
            b"ARK:/",
            b"ar",
            b"a",
            b"doi:10",
            b"ark:/99999/fk4ab",
            b"",
        ];
        for id in ids {
            for p in prefixes {
                let p = canonical(p);
                assert_eq!(
                    starts_with(id, &p),
                    canonical(id).starts_with(&p),
                    "{:?} {:?}",
                    String::from_utf8_lossy(id),
                    String::from_utf8_lossy(&p)
                );
            }
        }
        assert!(starts_with(
            b"ARK:99999/fk4a",
            &canonical(b"ark:/99999/fk4")
        ));
        assert!(!starts_with(b"doi:10.5072/x", &canonical(b"ark:")));
    }
}
