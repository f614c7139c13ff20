//! [`Resolver::signposts`]: the FAIR Signposting links ([`crate::signpost`]) of the
//! identifier whose record answered a request, for the redirect or metadata page that
//! answers it. Asked only when the rules file says `signposting on`, after the answer:
//! the resolution is run again with a [`Trace`] that keeps the identifier whose record
//! was found (a rule's redirect has no record, and so no signposts), then that record
//! is read whole.

use noid_core::lookup::{Lookup, LookupError};

use super::answer::{Found, Via};
use super::negotiate::metadata;
use super::trace::{StepKind, Trace};
use super::{Answer, Request, Resolver};
use crate::noid_keys::NoidKeys;
use crate::signpost::Signposts;

/// Keeps the identifier whose own record (not a rule) answered.
#[derive(Default)]
struct Bound(Option<String>);

impl Trace for Bound {
    #[inline(always)]
    fn note(&mut self, _kind: StepKind, _says: impl FnOnce() -> String) {}

    fn found(&mut self, found: &Found<'_>) {
        if found.via != Via::Rule {
            self.0 = Some(found.root.to_string());
        }
    }
}

impl Resolver {
    /// The signposts of the identifier that answers `req`, when the rules file turns
    /// signposting on and the answer is a redirect (3xx), a metadata page, a content
    /// negotiation's answer or several targets of an identifier's own record; `None`
    /// otherwise (a rule, a miss, a tombstone, a registry's page).
    pub fn signposts<L: Lookup + ?Sized>(
        &self,
        store: &L,
        req: &Request<'_>,
    ) -> Result<Option<Signposts>, LookupError> {
        if !self.rules.signposting {
            return Ok(None);
        }
        let mut bound = Bound::default();
        let (answer, _) = self.resolve_traced(store, req, &mut bound)?;
        let signposted = match &answer {
            Answer::Redirect { code, .. } => (300..400).contains(code),
            Answer::Inflection { .. } | Answer::Negotiate { .. } | Answer::Multi { .. } => true,
            _ => false,
        };
        let Some(id) = bound.0.filter(|_| signposted) else {
            return Ok(None);
        };
        let bindings = metadata(&NoidKeys(store), &id)?;
        Ok(Some(Signposts::of(
            &id,
            &self.rules.citation_url(&id),
            &bindings,
        )))
    }
}
