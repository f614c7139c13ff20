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
//! 9. not found.
//!
//! A found target then goes through the output decision (EggNog's `cnflect`,
//! `negotiate`): inflections, content negotiation, several targets;
//! then `target`: `${…}` placeholders and suffix, redirect code, prefix
//! extension, with `passthrough` keeping text from the request out of a target's
//! scheme and authority. `answer` holds what a step found and what resolution
//! answers.

mod answer;
mod chop;
mod find;
mod meta;
mod negotiate;
mod passthrough;
mod target;
mod tombstone;

pub use answer::{Answer, ProviderTarget};
pub use negotiate::{split_targets, KERNEL, METADATA_TYPES};
pub use tombstone::SUCCESSOR;

use crate::elem::read_id;
use crate::noid_keys::NoidKeys;
use crate::outcome::Outcome;
use crate::registry::Registry;
use crate::rules::Rules;
use answer::Found;
use find::Finding;
use noid_core::ident::Parsed;
use noid_core::keys;
use noid_core::lookup::{is_truthy, Lookup, LookupError, Ranged};
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
}

impl Resolver {
    /// A resolver with these rules and no prefix registry.
    pub fn new(rules: Rules) -> Resolver {
        Resolver {
            rules,
            registry: Arc::default(),
        }
    }

    /// A resolver with these rules and this prefix registry (shared with whoever probes
    /// its providers).
    pub fn with_registry(rules: Rules, registry: Arc<Registry>) -> Resolver {
        Resolver { rules, registry }
    }

    /// The prefix registry in force.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Resolve one request. Only storage failures are errors; every request, however
    /// malformed, gets an [`Answer`]. The steps in order; see the module's doc.
    pub fn resolve<L: Lookup + ?Sized>(
        &self,
        store: &L,
        req: &Request<'_>,
    ) -> Result<Answer, LookupError> {
        self.resolve_counted(store, req).map(|(answer, _)| answer)
    }

    /// [`Resolver::resolve`], and the kind of answer it is (for `noidr`'s metrics).
    pub fn resolve_counted<L: Lookup + ?Sized>(
        &self,
        store: &L,
        req: &Request<'_>,
    ) -> Result<(Answer, Outcome), LookupError> {
        let id = req.id.trim_start_matches('/');
        if id.is_empty() {
            return Ok((Answer::NotFound, Outcome::Miss));
        }
        // Minters store ARKs without `ark:/` (`13030/x`); see `noid_keys`.
        let l = &NoidKeys(store);
        let mut key = Vec::with_capacity(id.len() + 8);
        let (ahead, read) = chop::read_ahead(l, id)?;
        let l = &Ranged { l, read };
        // 1. The id as requested: the hot path, one lookup.
        if let Some(value) = target_of(l, &mut key, id)? {
            let found = Found::exact(id.into(), value, "");
            return self.finish_counted(l, req, found, None);
        }
        // A peppered id (`ID!PEPPER`) is read as the id itself.
        let base = read_id(l, id)?;
        if base.len() < id.len() {
            return self.resolve_counted(store, &Request { id: base, ..*req });
        }
        // `*/ID`: every provider's target (meta-resolution).
        if let Some(inner) = id.strip_prefix("*/") {
            let answer = self.providers(l, &mut key, req, inner)?;
            let outcome = Outcome::of(&answer, Outcome::Hit);
            return Ok((answer, outcome));
        }
        let (p, candidates) = match ahead {
            Some(a) => (a.parsed, Some(a.candidates)),
            None => (Parsed::new(id), None),
        };
        // 2–7: the first binding or rule that applies; else 6, 8, 9.
        match self.find(l, &mut key, id, &p, candidates)? {
            Finding::Found(found) => self.finish_counted(l, req, found, Some(&p)),
            Finding::Missed { truncated } => {
                let answer = self.fallback(l, &mut key, &p, truncated)?;
                let outcome = Outcome::of(&answer, Outcome::Hit);
                Ok((answer, outcome))
            }
        }
    }

    /// The output decision for what a step found, and the kind of answer it is.
    fn finish_counted<L: Lookup + ?Sized>(
        &self,
        l: &L,
        req: &Request<'_>,
        found: Found,
        parsed: Option<&Parsed>,
    ) -> Result<(Answer, Outcome), LookupError> {
        let kind = found.outcome();
        let mut answer = self.finish(l, req, found, parsed)?;
        // A redirect to a target a browser would run as a script is no target: not
        // found. (A 4xx code's text is a body, never a `Location`.)
        if matches!(&answer, Answer::Redirect { code, target }
            if *code < 400 && target::is_script_url(target))
        {
            answer = Answer::NotFound;
        }
        let outcome = Outcome::of(&answer, kind);
        Ok((answer, outcome))
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
