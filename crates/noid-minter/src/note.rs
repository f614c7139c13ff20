//! `note KEY VALUE`: free-form user values stored under `:/:/KEY`.

use noid_resolve::Lookup;

use crate::error::MinterError;
use crate::txn::Txn;

/// Store a user note.
pub fn note<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    key: &str,
    value: &[u8],
) -> Result<(), MinterError> {
    if key.is_empty() {
        return Err(MinterError::refused("You must supply a key and a value."));
    }
    txn.put(
        format!("{}{key}", crate::keys::NOTE_PREFIX).into_bytes(),
        value,
    );
    Ok(())
}
