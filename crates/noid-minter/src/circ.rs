//! Circulation records (`ID<TAB>:/c` = `SVEC|DATE|CONTACT|OACOUNTER`) and what issuing
//! an identifier does besides writing one.

use std::fmt::Write as _;

use noid_core::Lookup;

use crate::error::MinterError;
use crate::hold;
use crate::state::{Context, Minter};
use crate::txn::Txn;
use noid_core::keys;

/// The first letter of an identifier's status history (`i` issued, `q` queued,
/// `u` unqueued), or `None` when it never circulated.
pub fn status<L: Lookup + ?Sized>(
    txn: &Txn<'_, L>,
    id: &str,
) -> Result<(Option<u8>, String), MinterError> {
    let rec = txn.get_str(&keys::circ(id))?;
    Ok((rec.bytes().next(), rec))
}

/// The status history part of a record (`iqi` in `iqi|…`).
pub fn svec(rec: &str) -> &str {
    rec.split('|').next().unwrap_or("")
}

/// Write a circulation record with `letter` prepended to the old history.
///
/// Issuing (`i`) also removes any pepper, clears the bindings of an identifier that
/// circulated before (Perl meant to and did not: see docs/COMPATIBILITY.md), and on a
/// long-term minter places the automatic hold.
pub fn set_circ_rec<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    id: &str,
    letter: char,
    old_rec: &str,
) -> Result<(), MinterError> {
    let rec = record(letter, svec(old_rec), ctx, m.gen.oacounter);
    if letter == 'i' {
        // Only an identifier that circulated before can have bindings to clear or a
        // pepper; skipping the delete for first issues keeps tombstones out of the store.
        if !old_rec.is_empty() {
            clear_bindings(txn, id)?;
            txn.delete(keys::pepper(id));
        }
        if m.longterm {
            hold::place_new_hold(txn, m, id)?;
        }
    } else {
        // Queued or unqueued: the generator may yet produce this id (see noid_core::keys::name::FRESH).
        m.fresh = false;
    }
    txn.put(keys::circ(id), rec);
    Ok(())
}

/// Issue a fresh candidate (see `noid_core::keys::name::FRESH`): it has no circulation record, hold,
/// bindings or pepper, pending or stored, so the new keys go in without look-ups.
pub fn issue_fresh<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    id: &str,
) -> Result<(), MinterError> {
    if m.longterm {
        hold::count_new_hold(m, id)?;
        txn.put_new(keys::hold(id), "1");
    }
    txn.put_new(keys::circ(id), record('i', "", ctx, m.gen.oacounter));
    Ok(())
}

/// A circulation record: `letter` prepended to the history `svec`, then the date, the
/// contact and the `oacounter` (built without `format!`: a large mint writes millions).
fn record(letter: char, svec: &str, ctx: &Context, oacounter: u64) -> String {
    let mut rec = String::with_capacity(24 + svec.len() + ctx.stamp.len() + ctx.contact.len());
    rec.push(letter);
    rec.push_str(svec);
    rec.push('|');
    rec.push_str(&ctx.stamp);
    rec.push('|');
    rec.push_str(&ctx.contact);
    rec.push('|');
    let _ = write!(rec, "{oacounter}");
    rec
}

/// Remove every user binding of `id` (its `ID<TAB>ELEM` keys other than `:/…`).
fn clear_bindings<L: Lookup + ?Sized>(txn: &mut Txn<'_, L>, id: &str) -> Result<(), MinterError> {
    let prefix = keys::id_prefix(id);
    for (k, _) in txn.scan_prefix(&prefix, usize::MAX)? {
        if !k[prefix.len()..].starts_with(b":/") {
            txn.delete(k);
        }
    }
    Ok(())
}
