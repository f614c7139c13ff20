//! Peppered identifiers (`ID!PEPPER`): the pepper is a per-identifier password that
//! every change to a peppered identifier must quote (noid manual, `peppermint`).

use noid_core::Lookup;

use crate::error::{MinterError, Refusal};
use crate::txn::Txn;
use noid_core::keys;

/// The admin key set once a minter has issued its first peppered identifier; kept with
/// the rest of the minter's state, which reads it.
pub use crate::state::PEPPERED;

/// The base identifier that a change may act on: `given` itself when it is not
/// peppered, or the part before `!` when the pepper after it is the stored one.
pub fn authorize<L: Lookup + ?Sized>(
    txn: &Txn<'_, L>,
    m: &crate::Minter,
    given: &str,
) -> Result<String, MinterError> {
    if !m.peppered {
        return Ok(given.to_string());
    }
    if let Some((base, pep)) = given.rsplit_once('!') {
        if let Some(stored) = txn.get(&keys::pepper(base))? {
            return if stored == pep.as_bytes() {
                Ok(base.to_string())
            } else {
                Err(Refusal::WrongPepper {
                    id: base.to_string(),
                }
                .into())
            };
        }
    }
    if txn.exists(&keys::pepper(given))? {
        return Err(Refusal::PepperRequired {
            id: given.to_string(),
        }
        .into());
    }
    Ok(given.to_string())
}
