//! The repair plan: what `--repair` writes (and deletes) for each problem it can
//! repair, gathered into one batch, and the search for where the generator should
//! resume when it is behind the store.

use std::collections::BTreeMap;

use noid_core::keys;
use noid_core::{Lookup, Writes};
use noid_minter::Minter;
use noid_template::generator::GeneratorState;

use super::candidate::classify;
use super::findings::{Analysis, Options};
use super::CheckError;

/// What `--repair` does about a problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repair {
    /// An admin value is set.
    Set {
        /// The admin key's name (`held`, `c3/value`, …).
        name: String,
        /// Its new value.
        value: String,
    },
    /// `:/saclist` and `:/siclist` are rebuilt from the counters.
    ListsRebuilt,
    /// The generator moves past a run of used identifiers.
    Skipped {
        /// Candidates skipped.
        skipped: u64,
        /// How many of them were used.
        used: u64,
        /// Set when used identifiers continue past this many candidates replayed.
        continues_past: Option<u64>,
    },
    /// The counters' repairs alone move the generator past the used identifiers.
    CountersRepaired,
    /// An identifier's other spellings merged into the directory's.
    Merged {
        /// The spellings merged (and no longer stored).
        from: Vec<String>,
        /// The directory's spelling, which holds every value now.
        into: String,
        /// How many keys were under the other spellings.
        keys: usize,
    },
}

/// Where the generator resumes after a run of used identifiers.
#[derive(Debug)]
pub(crate) struct Skip {
    /// The generator's state after the last used identifier of the run.
    state: GeneratorState,
    /// Candidates replayed up to that one.
    at: u64,
    /// How many of them were used.
    used: u64,
    /// Whether the search stopped at its limit with the run not yet over.
    open: bool,
    /// The search's limit.
    limit: u64,
}

/// The writes of every repair, as planned during the analysis.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// The generator's state as stored.
    before: GeneratorState,
    /// The generator's state as repaired.
    after: GeneratorState,
    held: Option<u64>,
    queued: Option<u64>,
    /// Writes to identifiers' keys (the merges of spellings): a value, or None to
    /// delete the key.
    ids: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
}

impl Plan {
    /// A plan that changes nothing of the generator state `gen`.
    pub(crate) fn new(gen: &GeneratorState) -> Plan {
        Plan {
            before: gen.clone(),
            after: gen.clone(),
            held: None,
            queued: None,
            ids: BTreeMap::new(),
        }
    }

    /// The generator's state as repaired so far.
    pub(crate) fn generator(&self) -> &GeneratorState {
        &self.after
    }

    /// The generator's state as repaired so far, to repair further.
    pub(crate) fn generator_mut(&mut self) -> &mut GeneratorState {
        &mut self.after
    }

    /// Set `:/held`.
    pub(crate) fn set_held(&mut self, n: u64) -> Repair {
        self.held = Some(n);
        set("held", n)
    }

    /// Set an identifier's key `key` to `value`.
    pub(crate) fn put(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.ids.insert(key, Some(value));
    }

    /// Delete an identifier's key `key`.
    pub(crate) fn delete(&mut self, key: Vec<u8>) {
        self.ids.insert(key, None);
    }

    /// Set `:/queued`.
    pub(crate) fn set_queued(&mut self, n: u64) -> Repair {
        self.queued = Some(n);
        set("queued", n)
    }

    /// Set `:/oatop`.
    pub(crate) fn set_oatop(&mut self, n: i64) -> Repair {
        self.after.oatop = n;
        set("oatop", n)
    }

    /// Move the generator past a run of used identifiers.
    pub(crate) fn skip(&mut self, skip: Skip) -> Repair {
        self.after = skip.state;
        Repair::Skipped {
            skipped: skip.at,
            used: skip.used,
            continues_past: skip.open.then_some(skip.limit),
        }
    }

    /// Every write, in key order: the admin values, then the identifiers' keys.
    fn writes(&self) -> BTreeMap<Vec<u8>, Option<Vec<u8>>> {
        let mut w = self.ids.clone();
        let mut put = |name: &str, v: String| {
            w.insert(keys::admin(name), Some(v.into_bytes()));
        };
        if let Some(n) = self.held {
            put("held", n.to_string());
        }
        if let Some(n) = self.queued {
            put("queued", n.to_string());
        }
        let (old, new) = (&self.before, &self.after);
        if old.oatop != new.oatop {
            put("oatop", new.oatop.to_string());
        }
        if old.oacounter != new.oacounter {
            put(keys::name::OACOUNTER, new.oacounter.to_string());
        }
        if old.percounter != new.percounter {
            put("percounter", new.percounter.to_string());
        }
        for (n, c) in new.counters.iter().enumerate() {
            let o = old.counters.get(n).copied().unwrap_or_default();
            if o.value != c.value {
                put(&format!("c{n}/value"), c.value.to_string());
            }
            if o.top != c.top {
                put(&format!("c{n}/top"), c.top.to_string());
            }
        }
        if old.saclist != new.saclist {
            put("saclist", new.saclist_string());
        }
        if old.siclist != new.siclist {
            put("siclist", new.siclist_string());
        }
        w
    }
}

/// An admin value set to `value`.
pub(crate) fn set(name: &str, value: impl ToString) -> Repair {
    Repair::Set {
        name: name.to_string(),
        value: value.to_string(),
    }
}

impl Analysis {
    /// The writes that repair every repairable problem, in key order, to commit as one
    /// batch: each key with its new value, or None to delete it.
    pub fn repair(&self) -> Writes {
        self.plan.writes().into_iter().collect()
    }
}

/// Where a repair would move the generator: past the last used candidate of a run
/// that ends with `lookahead` unused ones in a row, replaying from `from`.
pub(crate) fn skip_past_used<L: Lookup + ?Sized>(
    l: &L,
    m: &Minter,
    from: &GeneratorState,
    opts: Options,
) -> Result<Option<Skip>, CheckError> {
    let mut g = from.clone();
    let mut body = String::new();
    let (mut scanned, mut clean, mut used_seen, mut last_used) = (0u64, 0usize, 0u64, None);
    while scanned < opts.max_skip && clean < opts.lookahead {
        let Ok(id) = m.candidates().next(&mut g, &mut body) else {
            break;
        };
        scanned += 1;
        if classify(l, m, &id)?.is_problem() {
            used_seen += 1;
            clean = 0;
            last_used = Some((g.clone(), scanned));
        } else {
            clean += 1;
        }
    }
    let open = clean < opts.lookahead && scanned >= opts.max_skip;
    Ok(last_used.map(|(state, at)| Skip {
        state,
        at,
        used: used_seen,
        open,
        limit: opts.max_skip,
    }))
}
