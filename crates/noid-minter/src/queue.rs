//! The queue: identifiers waiting to be minted (again), ordered by their keys
//! `:/q/QDATE/SEQ6/PADDEDID` (spec §4.4). `lvf` and `first` entries carry an all-zero
//! date so they come out before dated ones.

use noid_core::Lookup;

use crate::circ::{self, set_circ_rec};
use crate::error::{MinterError, Refusal};
use crate::hold::{is_held, validation_errors};
use crate::state::{Context, Minter};
use crate::txn::Txn;
use noid_core::keys;

const ZERO_DATE: &str = "00000000000000";

/// `queue WHEN ID…`: returns the per-id lines (`id: ID` or `error: …`), or an error
/// when nothing could be started.
pub fn queue<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    when: Option<&str>,
    ids: &[String],
) -> Result<Vec<String>, MinterError> {
    if m.template.is_empty() {
        return Err(Refusal::QueueOnBindOnly.into());
    }
    if ctx.contact.is_empty() {
        return Err(Refusal::ContactUndefined.into());
    }
    let Some(when) = when else {
        return Err(Refusal::QueueWithoutWhen.into());
    };
    if ids.is_empty() {
        return Err(Refusal::QueueWithoutIds.into());
    }
    let (mut seqnum, qdate, delete) = match when {
        "now" => (0, ctx.stamp.clone(), false),
        "first" => (m.fseqnum, ZERO_DATE.to_string(), false),
        "lvf" => (0, ZERO_DATE.to_string(), false),
        "delete" => (0, ZERO_DATE.to_string(), true),
        w => match parse_delay(w) {
            Some(secs) => (0, (ctx.temper)(ctx.now + secs), false),
            None => return Err(Refusal::BadQueueTime(w.to_string()).into()),
        },
    };
    let dated = qdate != ZERO_DATE;
    if dated {
        let q: u64 = qdate.parse().unwrap_or(0);
        if q > m.gseqnum_date {
            m.gseqnum = 1;
            seqnum = 1;
            m.gseqnum_date = q;
        } else {
            seqnum = m.gseqnum;
        }
    }
    if m.genonly {
        let errs = validation_errors(m, ids);
        if !errs.is_empty() {
            return Err(Refusal::QueueNotValidated(errs).into());
        }
    }
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        if is_held(txn, id)? {
            out.push(format!(
                "error: a hold has been set for \"{id}\" and must be released before the identifier can be queued for minting."
            ));
            continue;
        }
        let (status, rec) = circ::status(txn, id)?;
        if status == Some(b'q') && !delete {
            out.push(format!("error: id {id} cannot be queued since it appears to be in the queue already -- circ record is {rec}"));
            continue;
        }
        if status == Some(b'u') && delete {
            out.push(format!(
                "error: id {id} has been unqueued already -- circ record is {rec}"
            ));
            continue;
        }
        if status != Some(b'q') && delete {
            out.push(format!(
                "error: id {id} cannot be unqueued since its circ record does not indicate its being queued, circ record is {rec}"
            ));
            continue;
        }
        set_circ_rec(txn, m, ctx, id, if delete { 'u' } else { 'q' }, &rec)?;
        m.queued += 1;
        if m.gen.total != -1 && m.queued > m.gen.oatop {
            out.push(format!("error: queue count ({}) exceeding total possible on id {id}.  Queue operation aborted.", m.queued));
            m.queued -= 1;
            break;
        }
        txn.put(keys::queue(&qdate, seqnum, &m.padded(id)), id.as_bytes());
        m.queue_idle_until = None;
        out.push(format!("id: {id}"));
        if seqnum != 0 {
            seqnum += 1;
        }
    }
    if when == "first" {
        m.fseqnum = seqnum;
    } else if dated {
        m.gseqnum = seqnum;
    }
    Ok(out)
}

/// `N`, `Nd` or `Ns` → seconds.
fn parse_delay(w: &str) -> Option<i64> {
    let (digits, mult) = match w.as_bytes().last()? {
        b'd' => (&w[..w.len() - 1], 86_400),
        b's' => (&w[..w.len() - 1], 1),
        _ => (w, 1),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<i64>().ok()?.checked_mul(mult)
}
