//! Minting: take the ripe head of the queue, or generate the next candidate and skip
//! it while it is held or already circulating (spec §4.3).

use noid_core::generator::assemble;
use noid_resolve::Lookup;

use crate::circ::{self, set_circ_rec};
use crate::error::MinterError;
use crate::hold::is_held;
use crate::keys;
use crate::state::{Context, Minter};
use crate::txn::Txn;

/// Mint one identifier, recording every change in `txn`. With `pepper`, the
/// identifier is peppered (its cookie stored under `ID<TAB>:/p`).
pub fn mint<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    pepper: Option<&str>,
) -> Result<String, MinterError> {
    if m.template.is_empty() || m.mask.is_empty() {
        return Err(MinterError::refused(
            "error: this minter does not generate identifiers (it was created without a template).",
        ));
    }
    let id = match from_queue(txn, m, ctx)? {
        Some(id) => id,
        None => generate(txn, m, ctx)?,
    };
    if let Some(p) = pepper {
        txn.put(keys::pepper(&id), p);
        if !m.peppered {
            m.peppered = true;
            txn.put(keys::admin(crate::pepper::PEPPERED), "1");
        }
    }
    Ok(id)
}

/// The queue path: take ripe entries off the head until one can be issued.
fn from_queue<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
) -> Result<Option<String>, MinterError> {
    let now: u64 = ctx.stamp.parse().unwrap_or(u64::MAX);
    if m.queue_idle_until.is_some_and(|t| now < t) {
        return Ok(None);
    }
    loop {
        let head = txn.scan_prefix(keys::QUEUE_PREFIX, 1)?;
        let Some((key, value)) = head.into_iter().next() else {
            m.queue_idle_until = Some(u64::MAX);
            if m.fseqnum > 1 {
                m.fseqnum = 1;
            }
            return Ok(None);
        };
        let qdate = key
            .get(4..18)
            .filter(|d| d.iter().all(u8::is_ascii_digit) && key.len() >= 18);
        let Some(qdate) = qdate else {
            // Not a queue entry Perl would take (no 14-digit date): never ripe.
            m.queue_idle_until = Some(u64::MAX);
            return Ok(None);
        };
        let qdate: u64 = std::str::from_utf8(qdate)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(u64::MAX);
        if now < qdate {
            m.queue_idle_until = Some(qdate);
            return Ok(None);
        }
        let id = String::from_utf8_lossy(&value).into_owned();
        txn.delete(key);
        if m.queued <= 0 {
            return Err(MinterError::refused(format!(
                "error: queued count ({}) going negative on id {id}",
                m.queued
            )));
        }
        m.queued -= 1;
        if is_held(txn, &id)? {
            continue;
        }
        let (status, rec) = circ::status(txn, &id)?;
        match status {
            None | Some(b'q') => {
                set_circ_rec(txn, m, ctx, &id, 'i', &rec)?;
                return Ok(Some(id));
            }
            _ => continue,
        }
    }
}

/// The generator path: candidates in Perl's order until one is free to issue.
fn generate<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
) -> Result<String, MinterError> {
    let Some(mask) = m.compiled.clone() else {
        return Err(MinterError::refused(format!(
            "error: bad mask \"{}\"",
            m.mask
        )));
    };
    let mut body = String::with_capacity(32);
    loop {
        body.clear();
        if m.wrap && m.gen.is_exhausted() {
            // The generator starts its cycle again: candidates may circulate already.
            m.fresh = false;
        }
        m.gen
            .genid_into(&mask, m.gen_type, m.wrap, &mut body)
            .map_err(|e| MinterError::refused(format!("error: {e}")))?;
        let id = assemble(&m.firstpart, &body, m.addcheckchar);
        if m.fresh {
            // Neither held nor circulating (see `state::FRESH`): no probe needed.
            circ::issue_fresh(txn, m, ctx, &id)?;
            return Ok(id);
        }
        if is_held(txn, &id)? {
            continue;
        }
        let (status, rec) = circ::status(txn, &id)?;
        let free = match status {
            None => true,
            Some(b'i') => m.wrap && !m.longterm,
            Some(_) => false,
        };
        if free {
            set_circ_rec(txn, m, ctx, &id, 'i', &rec)?;
            return Ok(id);
        }
    }
}
