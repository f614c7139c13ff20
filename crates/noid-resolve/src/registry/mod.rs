//! The prefix registry: records for schemes (`pdb:`), NAANs and prefixes (`ark:/99999`,
//! `doi:10.5072`) and shoulders (`ark:/99999/fk4`), each with its name, who runs it, its
//! providers (URL patterns, one primary) and free elements.
//!
//! It is a file of its own, not more lines of the rules file: a record is several
//! elements (a provider is a code, a pattern and a health URL), which the rules file's
//! one-line `KEY TARGET` form cannot hold, and a site keeps it in version control as the
//! description of its namespaces, in the ANVL the metadata pages speak. `noidr` reads
//! the file at start (and on SIGHUP) and holds it in memory: a truncated identifier or a `*/` request costs a
//! hash lookup, no read of the store. Both files may be given; at one key a record's
//! providers come before a rule of the rules file (see docs/RESOLUTION.md).
//!
//! Providers' health ([`Registry::set_healthy`]) is the only thing that changes after
//! loading: one atomic flag per provider, written by the probes `noidr` runs and read by
//! every resolution that picks a provider ([`Registry::choose`]).
//!
//! [`read`] parses the file (every error names its line), [`write`] gives it back in its
//! canonical form.

mod read;
mod write;

#[cfg(test)]
pub(crate) mod tests;

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use noid_core::ident::Parsed;

pub use read::RegistryError;
pub use write::record_text;

/// Which kind of prefix a record describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// A scheme: `pdb:`, `ark:`.
    Scheme,
    /// A NAAN or DOI prefix: `ark:/99999`, `doi:10.5072`.
    Naan,
    /// A shoulder: `ark:/99999/fk4`, `doi:10.5072/FK2`.
    Shoulder,
}

impl Level {
    /// `scheme`, `naan`, `shoulder`: the name pages show.
    pub fn name(self) -> &'static str {
        match self {
            Level::Scheme => "scheme",
            Level::Naan => "naan",
            Level::Shoulder => "shoulder",
        }
    }
}

/// One provider of a prefix: a URL pattern that an identifier's target is made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Provider {
    /// Its short name (`rcsb`), unique within the record.
    pub code: String,
    /// The pattern as written in the file (`https://www.rcsb.org/structure/$id`).
    pub pattern: String,
    /// The pattern with `$id` and `{$id}` written `${id}`, the placeholder form the
    /// resolver's targets use (and expands: `resolve/target.rs`).
    pub(crate) template: String,
    /// The URL whose `HEAD` tells whether the provider is up, if it is probed.
    pub probe: Option<String>,
    /// Its health flag in [`Registry`].
    pub(crate) slot: usize,
}

/// One record of the registry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrefixRecord {
    /// The canonical key (`pdb:`, `ark:/99999`, `doi:10.5072/FK2`).
    pub prefix: String,
    /// Scheme, NAAN or shoulder.
    pub level: Level,
    /// Its name.
    pub name: Option<String>,
    /// Who runs it.
    pub who: Option<String>,
    /// Its providers, in the file's order.
    pub providers: Vec<Provider>,
    /// Index of the primary provider in `providers` (the first unless `primary:` says).
    pub primary: usize,
    /// Free elements, in the file's order.
    pub elements: Vec<(String, String)>,
    /// The line of the file the record starts on.
    pub line: usize,
}

impl PrefixRecord {
    /// The record's elements in their canonical order, as the file and pages write
    /// them: `prefix`, `name`, `who`, each `provider` (`CODE PATTERN`) as listed,
    /// `primary` when there are several providers, each `probe` (`CODE URL`), then the
    /// free elements as listed.
    pub fn anvl(&self) -> Vec<(&str, Cow<'_, str>)> {
        let mut out: Vec<(&str, Cow<'_, str>)> =
            vec![("prefix", Cow::Borrowed(self.prefix.as_str()))];
        if let Some(n) = &self.name {
            out.push(("name", Cow::Borrowed(n.as_str())));
        }
        if let Some(w) = &self.who {
            out.push(("who", Cow::Borrowed(w.as_str())));
        }
        for p in &self.providers {
            out.push(("provider", Cow::Owned(format!("{} {}", p.code, p.pattern))));
        }
        if self.providers.len() > 1 {
            out.push((
                "primary",
                Cow::Borrowed(self.providers[self.primary].code.as_str()),
            ));
        }
        for p in &self.providers {
            if let Some(url) = &p.probe {
                out.push(("probe", Cow::Owned(format!("{} {url}", p.code))));
            }
        }
        for (n, v) in &self.elements {
            out.push((n.as_str(), Cow::Borrowed(v.as_str())));
        }
        out
    }

    /// The providers in failover order: the primary, then the others as listed.
    pub fn in_order(&self) -> impl Iterator<Item = &Provider> {
        let primary = self.providers.get(self.primary);
        primary.into_iter().chain(
            self.providers
                .iter()
                .enumerate()
                .filter(move |(i, _)| *i != self.primary)
                .map(|(_, p)| p),
        )
    }
}

/// A provider to probe: what the prober needs, and the slot to report to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The record's key.
    pub prefix: String,
    /// The provider's code.
    pub code: String,
    /// The `http://` URL to `HEAD`.
    pub url: String,
    /// Where [`Registry::set_healthy`] records the outcome.
    pub slot: usize,
}

/// The registry: records by key, and one health flag per provider.
#[derive(Debug, Default)]
pub struct Registry {
    /// Sorted by key (so scheme, then its NAANs, then their shoulders).
    records: Vec<Arc<PrefixRecord>>,
    index: HashMap<String, usize>,
    /// Keys of the records directly below each record (NAANs of a scheme, shoulders of
    /// a NAAN), by record index.
    below: Vec<Vec<usize>>,
    health: Box<[AtomicBool]>,
    /// Changes of any health flag so far: what an answer kept from an earlier request
    /// compares, since a provider's health changes answers and no stored key does.
    health_changes: AtomicU64,
}

impl Registry {
    /// No records.
    pub fn empty() -> Registry {
        Registry::default()
    }

    /// Build from parsed records (any order; keys unique).
    pub(crate) fn from_records(mut records: Vec<PrefixRecord>) -> Registry {
        records.sort_by(|a, b| a.prefix.cmp(&b.prefix));
        let mut slots = 0;
        for r in &mut records {
            for p in &mut r.providers {
                p.slot = slots;
                slots += 1;
            }
        }
        let index: HashMap<String, usize> = records
            .iter()
            .enumerate()
            .map(|(i, r)| (r.prefix.clone(), i))
            .collect();
        let mut below = vec![Vec::new(); records.len()];
        for (i, r) in records.iter().enumerate() {
            if let Some(parent) = parent_key(&r.prefix, r.level) {
                if let Some(&p) = index.get(&parent) {
                    below[p].push(i);
                }
            }
        }
        Registry {
            records: records.into_iter().map(Arc::new).collect(),
            index,
            below,
            health: (0..slots).map(|_| AtomicBool::new(true)).collect(),
            health_changes: AtomicU64::new(0),
        }
    }

    /// True when there are no records.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Every record, sorted by key.
    pub fn records(&self) -> &[Arc<PrefixRecord>] {
        &self.records
    }

    /// The record of a canonical key.
    pub fn get(&self, key: &str) -> Option<&Arc<PrefixRecord>> {
        // (An empty map would still hash the key: misses without a registry pay nothing.)
        if self.records.is_empty() {
            return None;
        }
        self.index.get(key).map(|&i| &self.records[i])
    }

    /// The record of `key` followed by the records directly below it (a scheme's NAANs,
    /// a NAAN's shoulders): what a truncated identifier answers.
    pub fn with_below(&self, key: &str) -> Option<Vec<Arc<PrefixRecord>>> {
        if self.records.is_empty() {
            return None;
        }
        let &i = self.index.get(key)?;
        let mut out = Vec::with_capacity(1 + self.below[i].len());
        out.push(self.records[i].clone());
        out.extend(self.below[i].iter().map(|&j| self.records[j].clone()));
        Some(out)
    }

    /// The provider a redirect goes to: the first healthy one in failover order
    /// ([`PrefixRecord::in_order`]), else (all down) the primary; `None` without providers.
    pub fn choose<'r>(&self, record: &'r PrefixRecord) -> Option<&'r Provider> {
        record
            .in_order()
            .find(|p| self.is_healthy(p))
            .or_else(|| record.providers.get(record.primary))
    }

    /// Whether `provider` is up (always, unless a probe said otherwise).
    pub fn is_healthy(&self, provider: &Provider) -> bool {
        self.health
            .get(provider.slot)
            .is_none_or(|h| h.load(Ordering::Relaxed))
    }

    /// PrefixRecord a probe's outcome; true when it changed the provider's state (counted in
    /// [`Registry::health_changes`] after the flag is set).
    pub fn set_healthy(&self, slot: usize, healthy: bool) -> bool {
        let changed = self
            .health
            .get(slot)
            .is_some_and(|h| h.swap(healthy, Ordering::Relaxed) != healthy);
        if changed {
            self.health_changes.fetch_add(1, Ordering::Release);
        }
        changed
    }

    /// How many times a provider's health changed: an answer computed while this stayed
    /// the same saw the same health flags.
    pub fn health_changes(&self) -> u64 {
        self.health_changes.load(Ordering::Acquire)
    }

    /// The providers that have a probe URL.
    pub fn probes(&self) -> Vec<Probe> {
        self.records
            .iter()
            .flat_map(|r| {
                r.providers.iter().filter_map(|p| {
                    Some(Probe {
                        prefix: r.prefix.clone(),
                        code: p.code.clone(),
                        url: p.probe.clone()?,
                        slot: p.slot,
                    })
                })
            })
            .collect()
    }

    /// How many records of each level, and providers: `(schemes, naans, shoulders,
    /// providers)`.
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let n = |l: Level| self.records.iter().filter(|r| r.level == l).count();
        let providers = self.records.iter().map(|r| r.providers.len()).sum();
        (
            n(Level::Scheme),
            n(Level::Naan),
            n(Level::Shoulder),
            providers,
        )
    }
}

/// The key of the record a record is directly below, if any.
fn parent_key(prefix: &str, level: Level) -> Option<String> {
    let p = Parsed::new(prefix);
    match level {
        Level::Scheme => None,
        Level::Naan => Some(p.scheme_key().to_string()),
        Level::Shoulder => Some(p.naan_key().unwrap_or_else(|| p.scheme_key()).to_string()),
    }
}
