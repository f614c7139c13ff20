//! Minting: take the ripe head of the queue, or generate the next candidate and skip
//! it while it is held or already circulating (spec §4.3).

use noid_core::Lookup;
use noid_template::generator::{init_counters, CompiledMask};
use noid_template::growth::{growth_note, AtLast};
use noid_template::template::parse_template;

use crate::circ::{self, set_circ_rec};
use crate::error::{MinterError, Refusal};
use crate::hold::is_held;
use crate::state::{Context, Minter};
use crate::txn::Txn;
use noid_core::keys;

/// Mint one identifier, recording every change in `txn`. With `pepper`, the
/// identifier is peppered (its cookie stored under `ID<TAB>:/p`).
pub fn mint<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    pepper: Option<&str>,
) -> Result<String, MinterError> {
    if m.template.is_empty() || m.mask.is_empty() {
        return Err(Refusal::NoTemplate.into());
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
            return Err(Refusal::QueuedCountNegative {
                count: m.queued,
                id,
            }
            .into());
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
    let mut body = String::with_capacity(32);
    loop {
        body.clear();
        if m.gen.is_exhausted() {
            at_last(txn, m)?;
        }
        if m.wrap && m.gen.is_exhausted() {
            // The generator starts its cycle again: candidates may circulate already.
            m.fresh = false;
            m.counters_reset = true;
        }
        let id = candidate(m, &mut body)?;
        if m.fresh {
            // Neither held nor circulating (see `noid_core::keys::name::FRESH`): no probe needed.
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

/// The next candidate identifier from the minter's generator.
fn candidate(m: &mut Minter, body: &mut String) -> Result<String, MinterError> {
    Ok(m.next_candidate(body).map_err(Refusal::Generator)?)
}

/// The namespace is used up: apply the minter's `atlast` setting. Growing changes the
/// template and restarts the counters; stopping and wrapping only set the exit status
/// (the generator itself stops, or wraps when `:/wrap` is set).
fn at_last<L: Lookup + ?Sized>(txn: &mut Txn<'_, L>, m: &mut Minter) -> Result<(), MinterError> {
    match m.atlast {
        None => Ok(()),
        Some(AtLast::Stop(status) | AtLast::Wrap(status)) => {
            m.exit_status = Some(status);
            Ok(())
        }
        Some(AtLast::Add(n)) => grow(txn, m, n),
    }
}

/// EggNog's `addN`: the template grows by `n` characters, the counters restart, and the
/// mint reports it. Every identifier of the grown template is longer than any earlier
/// one, so none can come again.
fn grow<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    n: usize,
) -> Result<(), MinterError> {
    let cannot = |reason: String| Refusal::CannotGrow {
        stopped_at: m.gen.oatop,
        template: m.template.clone(),
        reason,
    };
    let old = parse_template(&m.template).map_err(|e| cannot(e.to_string()))?;
    let new = old.grown(n).map_err(|e| cannot(e.to_string()))?;
    m.notes.push(growth_note(n, &m.template, &new.template));
    m.gen = init_counters(new.total);
    m.counters_reset = true;
    m.compiled = CompiledMask::new(&new.mask);
    m.lui = match (&m.lui, new.lui) {
        (Some(old), Some(shape)) => Some(old.grown(shape)),
        _ => None,
    };
    m.template = new.template.clone();
    m.mask = new.mask.clone();
    m.padwidth = new.padwidth();
    for (k, v) in [
        (keys::name::TEMPLATE, new.template.clone()),
        (keys::name::MASK, new.mask.clone()),
        ("total", new.total.to_string()),
        ("oatop", new.total.to_string()),
        ("padwidth", new.padwidth().to_string()),
    ] {
        txn.put(keys::admin(k), v);
    }
    Ok(())
}
