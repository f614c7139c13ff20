//! Holds: an identifier with `ID<TAB>:/h` is skipped by minting and cannot be queued.

use noid_core::Lookup;

use crate::error::{MinterError, Refusal};
use crate::state::Minter;
use crate::txn::Txn;
use noid_core::keys;

/// Place a hold (idempotent), keeping `:/held` in step.
pub fn hold_set<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    id: &str,
) -> Result<(), MinterError> {
    if txn.exists(&keys::hold(id))? {
        return Ok(());
    }
    // A hold on an identifier that never circulated may lie ahead of the generator
    // (see noid_core::keys::name::FRESH); one that circulated was issued by the generator already, or
    // queued, which cleared the flag.
    if m.fresh && !txn.exists(&keys::circ(id))? {
        m.fresh = false;
    }
    place_new_hold(txn, m, id)
}

/// Place a hold on an identifier known not to be held (the automatic hold of a
/// long-term mint, whose candidate was just checked).
pub(crate) fn place_new_hold<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    id: &str,
) -> Result<(), MinterError> {
    count_new_hold(m, id)?;
    txn.put(keys::hold(id), "1");
    Ok(())
}

/// Count a new hold in `:/held`, refusing a count beyond the namespace's size.
pub(crate) fn count_new_hold(m: &mut Minter, id: &str) -> Result<(), MinterError> {
    m.held += 1;
    if m.gen.total != -1 && m.held > m.gen.oatop {
        let n = m.held;
        m.held -= 1;
        return Err(Refusal::HoldCountExceeded {
            count: n,
            id: id.to_string(),
        }
        .into());
    }
    Ok(())
}

/// Release a hold (idempotent).
pub fn hold_release<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    id: &str,
) -> Result<(), MinterError> {
    let key = keys::hold(id);
    if !txn.exists(&key)? {
        return Ok(());
    }
    m.held -= 1;
    if m.held < 0 {
        let n = m.held;
        m.held += 1;
        return Err(Refusal::HoldCountNegative {
            count: n,
            id: id.to_string(),
        }
        .into());
    }
    txn.delete(key);
    Ok(())
}

/// Whether `id` is held.
pub fn is_held<L: Lookup + ?Sized>(txn: &Txn<'_, L>, id: &str) -> Result<bool, MinterError> {
    Ok(txn.exists(&keys::hold(id))?)
}

/// The `hold set|release ID…` command: validates first on a generator minter, then
/// applies to every id. Returns the success line `ok: N hold(s) placed` (Perl says
/// "placed" for releases too).
pub fn hold<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    on_off: Option<&str>,
    ids: &[String],
) -> Result<String, MinterError> {
    let on = match on_off {
        None => return Err(Refusal::HoldWithoutDirective.into()),
        Some("set") => true,
        Some("release") => false,
        Some(other) => return Err(Refusal::BadHoldDirective(other.to_string()).into()),
    };
    if ids.is_empty() {
        return Err(Refusal::HoldWithoutIds.into());
    }
    if m.genonly {
        let errs = validation_errors(m, ids);
        if !errs.is_empty() {
            return Err(Refusal::HoldNotValidated(errs).into());
        }
    }
    for id in ids {
        if on {
            hold_set(txn, m, id)?;
        } else {
            hold_release(txn, m, id)?;
        }
    }
    let n = ids.len();
    Ok(format!(
        "ok: {n} hold{} placed",
        if n == 1 { "" } else { "s" }
    ))
}

/// The `iderr:` lines of ids that do not validate against the minter's template.
pub fn validation_errors(m: &Minter, ids: &[String]) -> Vec<String> {
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    match noid_template::validate::validate_ids("-", &m.template, &m.naan, &refs) {
        Ok(lines) => lines
            .into_iter()
            .filter(|l| l.starts_with("iderr:"))
            .collect(),
        Err(e) => vec![e],
    }
}
