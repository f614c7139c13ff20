//! Identifiers stored under more than one spelling, and their merge.
//!
//! Records written before the identifier gate keep the spelling they arrived in, so one
//! identifier can be split over several records (`13030/x`, `ark:13030/x`,
//! `ARK:/13030/x`): a read finds one part, a write adds to another. The census lists
//! the identifiers stored under a spelling other than the directory's; here each is
//! grouped with the directory's spelling of it, and the merge that `--repair` makes is
//! planned: every key of the other spellings (bindings, egg's further values under
//! `:/d/…`, noid's own records such as `:/c`, `:/h` and `:/m`) moves to the directory's
//! spelling.
//!
//! The merge never chooses between values. Where two spellings hold the same key with
//! different values, the identifier is not merged at all and the finding names the
//! elements that differ, for a person to settle. Two values have an order that settles
//! them: the last write `:/m` keeps the later time, egg's creation time `_,ec` the
//! earlier. An equal value is kept once.

use std::collections::{BTreeMap, BTreeSet};

use noid_core::keys;
use noid_core::Lookup;
use noid_egg::elements::{element_of, CREATED};

use super::census::Census;
use super::findings::{Finding, Problem};
use super::repair::{Plan, Repair};
use super::CheckError;

/// What the spelling findings leave for the other checks to know.
pub(crate) struct Merged {
    /// The findings, one per identifier stored under more than one spelling.
    pub problems: Vec<Problem>,
    /// Hold keys (`:/h`) beyond the first of an identifier held under several
    /// spellings: `:/held` counts held identifiers, and such an identifier is held
    /// once (a merge removes these keys).
    pub extra_holds: u64,
}

/// One identifier's keys as the merge would leave them under its directory's spelling,
/// by the part of the key after `ID<TAB>`.
struct Union {
    /// The merged keys, and whether each differs from the directory spelling's own.
    keys: BTreeMap<Vec<u8>, (Vec<u8>, bool)>,
    /// The elements whose values differ between spellings.
    conflicts: BTreeSet<String>,
    /// Hold keys found again under a further spelling.
    extra_holds: u64,
}

impl Union {
    /// The keys stored under `canonical` (perhaps none).
    fn of(rows: Vec<(Vec<u8>, Vec<u8>)>, canonical: &str) -> Union {
        let at = canonical.len() + 1;
        Union {
            keys: rows
                .into_iter()
                .map(|(k, v)| (k[at..].to_vec(), (v, false)))
                .collect(),
            conflicts: BTreeSet::new(),
            extra_holds: 0,
        }
    }

    /// Add one key of another spelling (`elem` is the part after `ID<TAB>`).
    fn add(&mut self, elem: &[u8], value: Vec<u8>) {
        let Some((held, changed)) = self.keys.get_mut(elem) else {
            self.keys.insert(elem.to_vec(), (value, true));
            return;
        };
        if *held == value {
            if elem == keys::HOLD.as_bytes() {
                self.extra_holds += 1;
            }
            return;
        }
        match settled(elem, held, &value) {
            Some(true) => {
                *held = value;
                *changed = true;
            }
            Some(false) => {}
            None => {
                self.conflicts
                    .insert(String::from_utf8_lossy(element_of(elem)).into_owned());
            }
        }
    }
}

/// Whether `new` replaces `old` as the value of `elem`, when their order settles it:
/// the later last write (`:/m`) and the earlier creation time (`_,ec`), both decimal
/// seconds. None for values that conflict.
fn settled(elem: &[u8], old: &[u8], new: &[u8]) -> Option<bool> {
    let seconds = |v: &[u8]| std::str::from_utf8(v).ok()?.parse::<i64>().ok();
    let (old, new) = (seconds(old)?, seconds(new)?);
    if elem == keys::MODIFIED.as_bytes() {
        Some(new > old)
    } else if elem == CREATED.as_bytes() {
        Some(new < old)
    } else {
        None
    }
}

/// The identifiers the census found under other spellings, as findings, with the
/// merges of those without conflicts planned in `plan`.
pub(crate) fn spelling_problems<L: Lookup + ?Sized>(
    l: &L,
    census: &Census,
    plan: &mut Plan,
) -> Result<Merged, CheckError> {
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in &census.respelled {
        groups
            .entry(r.canonical.as_str())
            .or_default()
            .push(r.stored.as_str());
    }
    let mut merged = Merged {
        problems: Vec::new(),
        extra_holds: 0,
    };
    for (canonical, others) in groups {
        let mut union = Union::of(
            l.scan_prefix(&keys::id_prefix(canonical), usize::MAX)?,
            canonical,
        );
        let canonical_stored = !union.keys.is_empty();
        let mut moved = Vec::new();
        for other in &others {
            let at = other.len() + 1;
            for (k, v) in l.scan_prefix(&keys::id_prefix(other), usize::MAX)? {
                union.add(&k[at..], v);
                moved.push(k);
            }
        }
        let mut spellings: Vec<String> = others.iter().map(|s| s.to_string()).collect();
        if canonical_stored {
            spellings.insert(0, canonical.to_string());
        }
        let finding = Finding::Spellings {
            id: canonical.to_string(),
            spellings,
            canonical_stored,
            conflicts: union.conflicts.iter().cloned().collect(),
        };
        merged.extra_holds += union.extra_holds;
        let repair = union.conflicts.is_empty().then(|| {
            let keys = moved.len();
            for k in moved {
                plan.delete(k);
            }
            for (elem, (value, changed)) in union.keys {
                if changed {
                    let mut k = keys::id_prefix(canonical);
                    k.extend_from_slice(&elem);
                    plan.put(k, value);
                }
            }
            Repair::Merged {
                from: others.iter().map(|s| s.to_string()).collect(),
                into: canonical.to_string(),
                keys,
            }
        });
        merged.problems.push(Problem { finding, repair });
    }
    Ok(merged)
}
