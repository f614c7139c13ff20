//! What is indexed of one identifier: a [`Record`], read from the keys under `ID<TAB>`
//! (one prefix scan, or the same keys met in a walk of the whole store) and the link
//! checker's records of its targets (`:/links/s/ID<TAB>TARGET`).
//!
//! Where each part comes from (the writers' own layouts, read here and nowhere else in
//! this crate):
//! * elements: `ID<TAB>ELEM` (first value) and egg's duplicates
//!   `ID<TAB>:/d/ELEM<TAB>SEQ` (noid-egg's `elements`), in that order; egg's admin
//!   elements `_,ep`/`_,ec` (and their older spellings) are not elements;
//! * populator: `_,ep` (`p:WHO||76`, egg's first write records who wrote);
//! * created: `_,ec` (seconds), else the circulation record's date (`:/c`,
//!   `SVEC|YYYYMMDDHHMMSS|…`);
//! * updated: `:/m` (noid-minter's `modified`);
//! * withdrawn: a `_t` of `410 …` (noid-resolve's `is_withdrawn`);
//! * standing: noid-resolve's `kernel::Standing` of the stored bindings;
//! * link status: one per checked target, "unchecked" when none was checked.

use noid_core::keys;
use noid_core::links::{self, LinkState};
use noid_core::{Lookup, LookupError};
use noid_resolve::kernel;

use crate::query::{identifier_key, LinkStatus, Standing};

/// Egg's duplicate values: `:/d/ELEM<TAB>` and a ten-digit sequence number.
const DUPE: &[u8] = b":/d/";
const SEQ_WIDTH: usize = 10;

/// What is indexed of one identifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The identifier as stored.
    pub id: String,
    /// Every element value, (name, value): first values in key order, then egg's
    /// further values in insertion order.
    pub elements: Vec<(String, String)>,
    /// Who wrote it first through egg (`_,ep`), if recorded.
    pub populator: Option<String>,
    /// Its standing.
    pub standing: Standing,
    /// Whether its target marks it withdrawn.
    pub withdrawn: bool,
    /// When it was created (seconds), if recorded.
    pub created: Option<i64>,
    /// When its bindings were last written (seconds), if recorded.
    pub updated: Option<i64>,
    /// The link status of each checked target, distinct, in `LinkStatus` order;
    /// `[Unchecked]` when none was checked.
    pub statuses: Vec<LinkStatus>,
}

impl Record {
    /// The record of `id` in `store`, `None` when nothing is stored under it.
    pub fn read<L: Lookup + ?Sized>(store: &L, id: &str) -> Result<Option<Record>, LookupError> {
        let prefix = keys::id_prefix(id);
        let rows = store.scan_prefix(&prefix, usize::MAX)?;
        let rows: Vec<(&[u8], &[u8])> = rows
            .iter()
            .map(|(k, v)| (&k[prefix.len()..], v.as_slice()))
            .collect();
        let states = store.scan_prefix(&links::states_of(id), usize::MAX)?;
        let statuses = states
            .iter()
            .filter_map(|(_, v)| LinkState::decode(v))
            .map(|s| s.status);
        Ok(Record::of(id, &rows, statuses))
    }

    /// The record of `id` from its keys (each `(ELEM, value)`, the part of the key after
    /// `ID<TAB>`, in key order) and its targets' link statuses; `None` when it has no
    /// element and no circulation record (only a hold, say).
    pub fn of(
        id: &str,
        rows: &[(&[u8], &[u8])],
        statuses: impl IntoIterator<Item = links::Status>,
    ) -> Option<Record> {
        let text = |v: &[u8]| String::from_utf8_lossy(v).into_owned();
        let mut firsts: Vec<(String, Vec<u8>)> = Vec::new();
        let mut dupes: Vec<(String, String)> = Vec::new();
        let (mut populator, mut ec, mut circ, mut updated) = (None, None, None, None);
        for &(elem, value) in rows {
            if let Some(d) = elem.strip_prefix(DUPE) {
                if d.len() > SEQ_WIDTH {
                    dupes.push((text(&d[..d.len() - SEQ_WIDTH - 1]), text(value)));
                }
                continue;
            }
            match elem {
                b":/m" => updated = seconds(value),
                b":/c" => circ = Some(value),
                b"_,ep" => populator = populator_of(value),
                b"_,ec" => ec = seconds(value),
                e if keys::is_admin_elem(e) || is_egg_admin(e) => {}
                e => firsts.push((text(e), value.to_vec())),
            }
        }
        if firsts.is_empty() && dupes.is_empty() && circ.is_none() {
            return None;
        }
        let judged = kernel::Standing::of(&firsts);
        let standing = if !judged.malformed.is_empty() {
            Standing::Malformed
        } else if !judged.missing.is_empty() {
            Standing::Incomplete
        } else {
            Standing::Good
        };
        let withdrawn = firsts
            .iter()
            .any(|(e, v)| e == "_t" && noid_resolve::is_withdrawn(&String::from_utf8_lossy(v)));
        let mut statuses: Vec<LinkStatus> = statuses.into_iter().map(LinkStatus::Checked).collect();
        statuses.sort();
        statuses.dedup();
        if statuses.is_empty() {
            statuses.push(LinkStatus::Unchecked);
        }
        let mut elements: Vec<(String, String)> =
            firsts.into_iter().map(|(e, v)| (e, text(&v))).collect();
        elements.extend(dupes);
        Some(Record {
            id: id.to_string(),
            elements,
            populator,
            standing,
            withdrawn,
            created: ec.or_else(|| circ.and_then(circulation_time)),
            updated,
            statuses,
        })
    }

    /// The first value of element `name`.
    pub fn first(&self, name: &str) -> Option<&str> {
        self.elements
            .iter()
            .find(|(e, _)| e == name)
            .map(|(_, v)| v.as_str())
    }

    /// Its targets: each line of each `_t` value.
    pub fn targets(&self) -> impl Iterator<Item = &str> {
        self.elements
            .iter()
            .filter(|(e, _)| e == "_t")
            .flat_map(|(_, v)| noid_resolve::split_targets(v))
    }

    /// The distinct hosts of its targets.
    pub fn hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> = self.targets().filter_map(links::host_of).collect();
        hosts.sort();
        hosts.dedup();
        hosts
    }

    /// Its identifier in the form `under:` compares ([`identifier_key`]).
    pub fn key(&self) -> String {
        identifier_key(&self.id)
    }

    /// Its shoulder (`ark:/13030/f5`), if it is an ARK with one.
    pub fn shoulder(&self) -> Option<String> {
        let key = self.key();
        let ark = key
            .strip_prefix("ark:")
            .map(|rest| format!("ark:/{rest}"))?;
        noid_core::ident::Parsed::new(&ark)
            .shoulder_key()
            .map(str::to_string)
    }
}

/// Egg's admin elements, which reads hide (noid-egg's `elements::is_admin`).
fn is_egg_admin(elem: &[u8]) -> bool {
    matches!(
        elem,
        b"__mc" | b"__mp" | b"_.ec" | b"_.ep" | b"_,ec" | b"_,ep"
    )
}

fn seconds(v: &[u8]) -> Option<i64> {
    std::str::from_utf8(v).ok()?.trim().parse().ok()
}

/// `p:WHO||76` → WHO.
fn populator_of(v: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(v).ok()?;
    let who = text.strip_prefix("p:")?.split('|').next()?;
    (!who.is_empty()).then(|| who.to_string())
}

/// The date of a circulation record `SVEC|YYYYMMDDHHMMSS|…`, in seconds.
fn circulation_time(rec: &[u8]) -> Option<i64> {
    let date = std::str::from_utf8(rec).ok()?.split('|').nth(1)?;
    let t = chrono::NaiveDateTime::parse_from_str(date, "%Y%m%d%H%M%S").ok()?;
    Some(t.and_utc().timestamp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::MemLookup;

    /// Every source of a record, as the writers store them (keys written out by hand).
    #[test]
    fn reads_what_the_writers_store() {
        let l = MemLookup::new();
        l.insert("13030/f5x\t:/c", "i|20260102030405|oca/x|7");
        l.insert("13030/f5x\t:/m", "1767312000");
        l.insert("13030/f5x\t_,ep", "p:oca||76");
        l.insert(
            "13030/f5x\t_t",
            "https://Example.org/a\nhttps://b.example/z",
        );
        l.insert("13030/f5x\twho", "Shelley, Mary");
        l.insert("13030/f5x\twhat", "Frankenstein");
        l.insert("13030/f5x\t:/d/what\t0000000001", "The Modern Prometheus");
        l.insert(
            ":/links/s/13030/f5x\thttps://b.example/z",
            "status: broken\nchecked: 1\nsince: 1\n",
        );
        let r = Record::read(&l, "13030/f5x").unwrap().unwrap();
        assert_eq!(
            r.elements,
            [
                ("_t", "https://Example.org/a\nhttps://b.example/z"),
                ("what", "Frankenstein"),
                ("who", "Shelley, Mary"),
                ("what", "The Modern Prometheus"),
            ]
            .map(|(a, b)| (a.to_string(), b.to_string()))
        );
        assert_eq!(r.populator.as_deref(), Some("oca"));
        // 2026-01-02T03:04:05Z (date -d 2026-01-02T03:04:05Z +%s).
        assert_eq!(r.created, Some(1_767_323_045));
        assert_eq!(r.updated, Some(1_767_312_000));
        assert_eq!(r.standing, Standing::Incomplete);
        assert!(!r.withdrawn);
        assert_eq!(r.statuses, [LinkStatus::Checked(links::Status::Broken)]);
        assert_eq!(r.hosts(), ["b.example", "example.org"]);
        assert_eq!(r.key(), "ark:13030/f5x");
        assert_eq!(r.shoulder().as_deref(), Some("ark:/13030/f5"));
        assert_eq!(Record::read(&l, "13030/none").unwrap(), None);
    }
}
