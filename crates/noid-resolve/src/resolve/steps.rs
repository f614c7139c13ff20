//! [`Resolver::resolve`]: the steps of the module's doc in order, each handed to the
//! module of its kind, and the output decision for what a step found.

use noid_core::ident::Parsed;
use noid_core::lookup::{Lookup, LookupError, Ranged};

use super::answer::{Answer, By, Found, Via};
use super::find::Finding;
use super::trace::{StepKind, Trace, Untraced};
use super::{archived, chop, target, target_of, Request, Resolver};
use crate::elem::read_id;
use crate::noid_keys::NoidKeys;
use crate::outcome::Outcome;

impl Resolver {
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
    #[inline]
    pub fn resolve_counted<L: Lookup + ?Sized>(
        &self,
        store: &L,
        req: &Request<'_>,
    ) -> Result<(Answer, Outcome), LookupError> {
        self.resolve_traced(store, req, &mut Untraced)
    }

    /// [`Resolver::resolve_counted`], telling `trace` what each step decides.
    pub(super) fn resolve_traced<L: Lookup + ?Sized, T: Trace>(
        &self,
        store: &L,
        req: &Request<'_>,
        trace: &mut T,
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
            let found = Found::exact(id.into(), value, "", By::Asked);
            return self.finish_counted(l, req, found, None, trace);
        }
        // A peppered id (`ID!PEPPER`) is read as the id itself.
        let base = read_id(l, id)?;
        if base.len() < id.len() {
            trace.note(StepKind::Respelled, || {
                format!("a peppered identifier, read as {base}")
            });
            return self.resolve_traced(store, &Request { id: base, ..*req }, trace);
        }
        // `*/ID`: every provider's target (meta-resolution).
        if let Some(inner) = id.strip_prefix("*/") {
            let answer = self.providers(l, &mut key, req, inner)?;
            trace.note(StepKind::Found, || {
                format!("*/ID: the target of {inner} at every provider of its prefix")
            });
            let outcome = Outcome::of(&answer, Outcome::Hit);
            return Ok((answer, outcome));
        }
        // The ARK draft: a final `/` or `.` of an ARK is ignored (§3.1).
        if !self.rules.final_slash_inflects {
            if let Some(plain) = noid_core::normalize::without_final_structure(id) {
                trace.note(StepKind::Respelled, || {
                    format!("a final / or . of an ARK is ignored (the ARK draft, §3.1): {plain}")
                });
                return self.resolve_traced(store, &Request { id: &plain, ..*req }, trace);
            }
        }
        let (p, candidates) = match ahead {
            Some(a) => (a.parsed, Some(a.candidates)),
            None => (Parsed::new(id), None),
        };
        // 2–7: the first binding or rule that applies; else 6, 8, 9.
        match self.find(l, &mut key, id, &p, candidates, trace)? {
            Finding::Found(found) => self.finish_counted(l, req, found, Some(&p), trace),
            Finding::Missed { truncated } => {
                // A pasted ARK: resolved again without the white space a copy brought;
                // an ARK's `//` collapsed (the ARK draft's §3.2, step 8).
                let respelled = noid_core::normalize::without_pasted_space(id)
                    .or_else(|| noid_core::normalize::with_slashes_collapsed(id));
                if let Some(unspaced) = respelled {
                    trace.note(StepKind::Respelled, || {
                        format!(
                            "nothing found as asked; pasted white space dropped or // \
                             collapsed (the ARK draft, §3.1, §3.2): {unspaced}"
                        )
                    });
                    return self.resolve_traced(
                        store,
                        &Request {
                            id: &unspaced,
                            ..*req
                        },
                        trace,
                    );
                }
                let answer = self.fallback(l, &mut key, &p, truncated)?;
                trace.note(StepKind::Fallback, || fallback_says(&answer));
                let outcome = Outcome::of(&answer, Outcome::Hit);
                Ok((answer, outcome))
            }
        }
    }

    /// The output decision for what a step found, and the kind of answer it is.
    fn finish_counted<L: Lookup + ?Sized, T: Trace>(
        &self,
        l: &L,
        req: &Request<'_>,
        found: Found,
        parsed: Option<&Parsed>,
        trace: &mut T,
    ) -> Result<(Answer, Outcome), LookupError> {
        trace.found(&found);
        trace.bound(&found.root);
        let kind = found.outcome();
        // Where the rules file asks for archived copies (off by default: then this is
        // one length check), the id whose own target this is.
        let archived = match found.via {
            Via::Exact if found.suffix.is_empty() => self
                .rules
                .archived_copy(&found.root)
                .map(|how| (how, found.root.to_string())),
            _ => None,
        };
        let mut answer = self.finish(l, req, found, parsed)?;
        trace.note(StepKind::Decided, || decided_says(&answer));
        if let Some((how, id)) = archived {
            answer = archived::fall_back(l, how, &id, answer)?;
            if let Answer::Archived { url, .. } = &answer {
                trace.note(StepKind::Archived, || {
                    format!("the target is broken; the rules file's archived-copy page: {url}")
                });
            }
        }
        // A redirect to a target a browser would run as a script is no target: not
        // found. (A 4xx code's text is a body, never a `Location`.)
        if matches!(&answer, Answer::Redirect { code, target }
            if *code < 400 && target::is_script_url(target))
        {
            trace.note(StepKind::Refused, || {
                "the target is a URL a browser would run as a script: no target".into()
            });
            answer = Answer::NotFound;
        }
        let outcome = Outcome::of(&answer, kind);
        Ok((answer, outcome))
    }
}

/// What the fall-back steps did, for `noid explain`.
fn fallback_says(answer: &Answer) -> String {
    match answer {
        Answer::Record { key, .. } => {
            format!(
                "nothing bound: a truncated identifier, answered by the registry's record of {key}"
            )
        }
        Answer::Partial { key, .. } => {
            format!("nothing bound: a truncated identifier, answered by what is bound under {key}")
        }
        Answer::Redirect { target, .. } => {
            format!("nothing bound and the NAAN is not served here: sent on to the global resolver, {target}")
        }
        _ => "nothing bound, and no rule, :idmap or forwarding applies: not found".into(),
    }
}

/// The output decision's choice, for `noid explain`.
fn decided_says(answer: &Answer) -> String {
    match answer {
        Answer::Redirect { code, target } if *code >= 400 => {
            format!("the stored code {code} is answered as it is")
        }
        Answer::Redirect { code, target } => format!("redirect {code} to {target}"),
        Answer::Inflection { id, suffix, .. } => {
            format!(
                "the inflection {suffix:?} on {id}, with no inflection target: its metadata page"
            )
        }
        Answer::Negotiate { id, media_type, .. } => {
            format!("content negotiation asked for {media_type}, bound nowhere: {id}'s own metadata in that type")
        }
        Answer::Multi { targets, .. } => {
            format!("{} targets: 300 Multiple Choices", targets.len())
        }
        Answer::Tombstone { id, successor, .. } => match successor {
            Some(s) => format!("{id} is withdrawn (410): its tombstone names the successor {s}"),
            None => format!("{id} is withdrawn (410): its tombstone"),
        },
        other => format!("{other:?}"),
    }
}
