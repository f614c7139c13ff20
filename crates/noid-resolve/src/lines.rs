//! A request line of the line protocols (noid `get ID ELEM`, egg `ID.resolve`) answered
//! on a view of the store, with the answer the view kept for the same line ([`Memo`]).
//!
//! `noidr`'s stdin/stdout loop and the web server modules (crate `noid-embed`) answer
//! through [`answer_line`], so a line gets the same answer line whichever of them is
//! asked; the memo's key (what else an answer depends on) is [`crate::memo::key`].

use std::sync::Arc;

use noid_core::{Kept, Lookup, Memo};

use crate::egg::{self, Miss};
use crate::memo::{self, Kind};
use crate::{noid_line, Outcome, Resolver};

/// What a request was answered with: its outcome, and the kept answer it was given
/// from (or kept as), which is where a counter counts its uses ([`Kept`]); `None` for
/// an answer not kept (an error, a long answer or request).
pub struct Answered {
    /// What the answer is.
    pub outcome: Outcome,
    /// The memo's answer, when there is one.
    pub kept: Option<Arc<Kept>>,
}

impl Answered {
    /// An answer not kept.
    pub fn unkept(outcome: Outcome) -> Answered {
        Answered {
            outcome,
            kept: None,
        }
    }
}

/// The protocol a line is answered in.
#[derive(Clone, Copy)]
pub enum LineProtocol<'a> {
    /// Perl Noid's resolver mode: read-only noid commands (`get ID ELEM`).
    Noid,
    /// EggNog's `ID.resolve [HEADERS]`, resolved by `resolver`, the one in force since
    /// `generation` resolvers were replaced (part of the memo's key), answering misses
    /// with `miss`.
    Egg {
        /// The resolver in force.
        resolver: &'a Resolver,
        /// How many resolvers were put in force before it (read before `resolver`).
        generation: u64,
        /// A miss's answer.
        miss: Miss,
    },
}

/// Append the answer line to `line` (with its `\n`) to `out`: the one kept from an
/// earlier request of the same line ([`Memo`]) while the view, the resolver in
/// force and the providers' health are those it was computed with (all three in its
/// key), else resolved on `view`. Errors and long answers are not kept. Inlined into
/// its callers (each server's request loop): as a call of its own it cost a truncated
/// request 3 % more instructions than the same code in noidr had.
#[inline(always)]
pub fn answer_line<V: Lookup + Memo + ?Sized>(
    view: &V,
    protocol: LineProtocol<'_>,
    line: &[u8],
    out: &mut Vec<u8>,
) -> Answered {
    let kind = match protocol {
        LineProtocol::Noid => Kind::Noid,
        LineProtocol::Egg { .. } => Kind::Egg,
    };
    answer_kept(view, protocol, kind, &[], line, out, |out| {
        resolve(view, protocol, line, out)
    })
}

/// Append to `out` the answer kept for the request of `kind` made of `fields` and
/// `last` ([`memo::key`], with the resolver in force and the providers' health for
/// the egg protocol), or the one `compute` appends, kept unless it is an error or
/// longer than [`memo::MAX_ANSWER`]; a request longer than [`memo::MAX_REQUEST`] is
/// computed each time. For callers that key an answer by something other than its
/// line (the nginx module: the parts of the HTTP request it makes the line from), as
/// [`answer_line`] keys it by the line.
#[inline(always)]
pub fn answer_kept<V: Lookup + Memo + ?Sized>(
    view: &V,
    protocol: LineProtocol<'_>,
    kind: Kind,
    fields: &[Option<&[u8]>],
    last: &[u8],
    out: &mut Vec<u8>,
    compute: impl FnOnce(&mut Vec<u8>) -> Outcome,
) -> Answered {
    let stamp = match protocol {
        LineProtocol::Noid => None,
        LineProtocol::Egg {
            resolver,
            generation,
            ..
        } => Some((generation, resolver.registry().health_changes())),
    };
    let Some(key) = memo::key(kind, stamp, fields, last) else {
        return Answered::unkept(compute(out));
    };
    let at = out.len();
    let mut computed = false;
    let kept = view.memo(&key, || {
        computed = true;
        let outcome = compute(out);
        let answer = &out[at..];
        if outcome == Outcome::Error || answer.len() > memo::MAX_ANSWER {
            return Err(outcome);
        }
        let mut kept = Vec::with_capacity(1 + answer.len());
        kept.push(outcome.index() as u8);
        kept.extend_from_slice(answer);
        Ok(Kept::new(kept))
    });
    match kept {
        Ok(kept) => {
            if !computed {
                out.extend_from_slice(&kept[1..]);
            }
            Answered {
                outcome: Outcome::ALL[usize::from(kept[0])],
                kept: Some(kept),
            }
        }
        Err(outcome) => Answered::unkept(outcome),
    }
}

/// `line` parsed, resolved on `view` and rendered in `protocol`, without the memo: for
/// a caller whose own [`answer_kept`] key already names everything the line is made
/// of (the nginx module), which would otherwise keep each answer twice, paying for a
/// second key, look-up and insertion on every first request.
pub fn resolve<V: Lookup + ?Sized>(
    view: &V,
    protocol: LineProtocol<'_>,
    line: &[u8],
    out: &mut Vec<u8>,
) -> Outcome {
    match protocol {
        LineProtocol::Egg { resolver, miss, .. } => egg::answer(resolver, view, line, miss, out),
        LineProtocol::Noid => noid_line::answer(view, line, out),
    }
}
