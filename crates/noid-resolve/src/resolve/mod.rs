//! N2T-style resolution of one identifier to one [`Answer`], shared by the egg line
//! protocol and the HTTP server so that both answer exactly the same thing.
//!
//! The order of the steps follows EggNog's `resolve()` (see `docs/RESOLUTION.md` for the
//! table of request kinds and answers); [`Resolver::resolve`] and `find` take them in
//! this order, one module per kind of step:
//!
//! 1. the verbatim id's `_t` (a plain hit costs one lookup and nothing else); a peppered
//!    id `ID!PEPPER` is then read as `ID`; `*/ID` lists the targets at every provider of
//!    ID's prefix (`meta`);
//! 2. other spellings (normalisation, `ark:`↔`ark:/`, hyphens, DOI case, shadow ARKs:
//!    `noid_core::ident` parses, `find` looks up);
//! 3. an inflection suffix (`?`, `??`, `?info`, `/`, `./` …) on a bound id;
//! 4. ancestor chopping (suffix passthrough), longest bound ancestor first
//!    (`chop`, which for an id with ancestors reads them all as one range
//!    before step 1);
//! 5. the `:idmap` rules of `_t`;
//! 6. partial ids (`ark:`, `ark:/99999`, `doi:10.5072`): their record in the prefix
//!    registry, else their bindings (`meta`);
//! 7. redirect rules on the shoulder, NAAN or scheme (bound in the store, a registry
//!    record's provider, or the operator's rules file);
//! 8. forwarding of ARKs of other NAANs to a global resolver;
//! 9. not found; but a pasted ARK holding white space is first resolved again
//!    without it (`noid_core::normalize::without_pasted_space`).
//!
//! A found target then goes through the output decision (EggNog's `cnflect`,
//! `negotiate`): inflections, content negotiation, several targets;
//! then `target`: `${…}` placeholders and suffix, redirect code, prefix
//! extension, with `passthrough` keeping text from the request out of a target's
//! scheme and authority. `answer` holds what a step found and what resolution
//! answers. Last, `archived` puts an archived copy in place of a broken target where
//! the rules file asks for it.

mod answer;
mod archived;
mod chop;
mod commitment;
mod explain;
mod find;
mod meta;
mod negotiate;
mod ours;
mod passthrough;
mod signposted;
mod steps;
mod target;
mod tombstone;
mod trace;

pub use answer::{Answer, ProviderTarget};
pub use explain::Explanation;
pub use negotiate::{split_targets, KERNEL, LINKSET_TYPES, METADATA_TYPES};
pub use target::split_code;
pub use tombstone::{is_withdrawn, SUCCESSOR};
pub use trace::{Step, StepKind};

use crate::registry::Registry;
use crate::rules::Rules;
use noid_core::keys;
use noid_core::lookup::{is_truthy, Lookup, LookupError};
use std::sync::Arc;

/// The target element.
const TARGET: &str = "_t";
/// Ancestor-match flag: `n` forbids suffix passthrough below this id.
const ANCESTOR_MATCH: &str = "_t_am";

/// One resolution request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Request<'a> {
    /// The identifier as requested, including any suffix and any raw query/inflection
    /// (`ark:/12345/x??`, `ark:/12345/x/page2?q=1`); leading `/`s are ignored.
    pub id: &'a str,
    /// The client's `Accept` header, if any; a list containing `*/*` does not negotiate.
    pub accept: Option<&'a str>,
    /// `http` or `https`: the protocol prepended to rule targets that have none.
    pub proto: Option<&'a str>,
}

impl<'a> Request<'a> {
    /// A request for `id` with no headers.
    pub fn new(id: &'a str) -> Request<'a> {
        Request {
            id,
            accept: None,
            proto: None,
        }
    }
}

/// The resolver: the operator's rules and prefix registry, never changed after start
/// (but for the registry providers' health flags), so one instance serves every thread
/// (`Send + Sync`). Compiled `:idmap` rules are cached by [`crate::idmap`].
#[derive(Debug, Clone, Default)]
pub struct Resolver {
    rules: Rules,
    registry: Arc<Registry>,
    /// The NAANs found to be ours, so that forwarding's loop protection asks the store
    /// once per NAAN ([`ours::Ours`]).
    ours: Arc<ours::Ours>,
}

impl Resolver {
    /// A resolver with these rules and no prefix registry.
    pub fn new(rules: Rules) -> Resolver {
        Resolver::with_registry(rules, Arc::default())
    }

    /// A resolver with these rules and this prefix registry (shared with whoever probes
    /// its providers).
    pub fn with_registry(rules: Rules, registry: Arc<Registry>) -> Resolver {
        Resolver {
            rules,
            registry,
            ours: Arc::default(),
        }
    }

    /// The prefix registry in force.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }
}

/// The truthy `_t` of `id`, if any.
fn target_of<L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    id: &str,
) -> Result<Option<Vec<u8>>, LookupError> {
    truthy(l, key, id, TARGET)
}

/// The truthy value of `id elem`, if any.
fn truthy<L: Lookup + ?Sized>(
    l: &L,
    key: &mut Vec<u8>,
    id: &str,
    elem: &str,
) -> Result<Option<Vec<u8>>, LookupError> {
    keys::elem_into(key, id, elem);
    Ok(l.get(key)?.filter(|v| is_truthy(v)))
}

/// True when `id`'s `_t_am` flag is `n` (no suffix passthrough).
fn flag_is_n<L: Lookup + ?Sized>(l: &L, key: &mut Vec<u8>, id: &str) -> Result<bool, LookupError> {
    keys::elem_into(key, id, ANCESTOR_MATCH);
    Ok(l.get(key)?.is_some_and(|v| v.trim_ascii() == b"n"))
}
