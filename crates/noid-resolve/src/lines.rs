//! A request line of the line protocols (noid `get ID ELEM`, egg `ID.resolve`) answered
//! on a view of the store, with the answer the view kept for the same line ([`Memo`]).
//!
//! `noidr`'s stdin/stdout loop and the web server modules (crate `noid-embed`) answer
//! through [`answer_line`], so a line gets the same answer line whichever of them is
//! asked, and the memo's key (what else an answer depends on) is built in one place.

use std::sync::Arc;

use noid_core::{Lookup, Memo};

use crate::egg::{self, Miss};
use crate::{noid_line, Outcome, Resolver};

/// Longest request line whose answer is kept for the next time it is asked.
const MEMO_MAX_LINE: usize = 1024;

/// Longest answer line kept for the next time its request is asked.
const MEMO_MAX_ANSWER: usize = 1024;

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
/// key), else resolved on `view`. Errors and long answers are not kept.
pub fn answer_line<V: Lookup + Memo + ?Sized>(
    view: &V,
    protocol: LineProtocol<'_>,
    line: &[u8],
    out: &mut Vec<u8>,
) -> Outcome {
    if line.len() > MEMO_MAX_LINE {
        return resolve(view, protocol, line, out);
    }
    answer_kept(view, protocol, line, out, |out| {
        resolve(view, protocol, line, out)
    })
}

/// Append to `out` the answer kept for `request` in `protocol` (its key: the request,
/// and for the egg protocol the resolver in force and the providers' health), or the
/// one `compute` appends, kept unless it is an error or longer than 1 KiB. For callers
/// that key an answer by something other than its line (the nginx module: the raw
/// request it makes the line from), as [`answer_line`] keys it by the line.
pub fn answer_kept<V: Lookup + Memo + ?Sized>(
    view: &V,
    protocol: LineProtocol<'_>,
    request: &[u8],
    out: &mut Vec<u8>,
    compute: impl FnOnce(&mut Vec<u8>) -> Outcome,
) -> Outcome {
    let mut key = Vec::with_capacity(16 + request.len());
    if let LineProtocol::Egg {
        resolver,
        generation,
        ..
    } = protocol
    {
        key.extend_from_slice(&generation.to_le_bytes());
        key.extend_from_slice(&resolver.registry().health_changes().to_le_bytes());
    }
    key.extend_from_slice(request);
    let at = out.len();
    let mut computed = false;
    let kept = view.memo(&key, || {
        computed = true;
        let outcome = compute(out);
        let answer = &out[at..];
        if outcome == Outcome::Error || answer.len() > MEMO_MAX_ANSWER {
            return Err(outcome);
        }
        let mut kept = Vec::with_capacity(1 + answer.len());
        kept.push(outcome.index() as u8);
        kept.extend_from_slice(answer);
        Ok(Arc::<[u8]>::from(kept))
    });
    match kept {
        Ok(kept) => {
            if !computed {
                out.extend_from_slice(&kept[1..]);
            }
            Outcome::ALL[usize::from(kept[0])]
        }
        Err(outcome) => outcome,
    }
}

/// `line` parsed, resolved on `view` and rendered in `protocol`.
fn resolve<V: Lookup + ?Sized>(
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
