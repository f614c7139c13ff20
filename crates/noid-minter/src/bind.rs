//! Binding: `bind HOW ID ELEM VALUE` with every How of the noid manual, and its
//! four-line report.

use noid_core::Lookup;

use crate::error::{MinterError, Refusal};
use crate::hold::validation_errors;
use crate::state::{Context, Minter};
use crate::txn::Txn;
use crate::{mint, pepper};
use noid_core::keys;

/// The kinds of binding (noid manual, `bind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Only if the element does not exist.
    New,
    /// Only if the element exists.
    Replace,
    /// New or replace.
    Set,
    /// Only if the element exists: add at the end.
    Append,
    /// New or append.
    Add,
    /// Only if the element exists: add at the beginning.
    Prepend,
    /// New or prepend.
    Insert,
    /// Remove; an error if unbound.
    Delete,
    /// Remove, bound or not.
    Purge,
    /// New, on a freshly minted identifier (the Id argument must be `new`).
    Mint,
    /// New, on a freshly peppermint-ed identifier.
    Peppermint,
}

impl How {
    /// Parse a How word.
    pub fn parse(s: &str) -> Option<How> {
        Some(match s {
            "new" => How::New,
            "replace" => How::Replace,
            "set" => How::Set,
            "append" => How::Append,
            "add" => How::Add,
            "prepend" => How::Prepend,
            "insert" => How::Insert,
            "delete" => How::Delete,
            "purge" => How::Purge,
            "mint" => How::Mint,
            "peppermint" => How::Peppermint,
            _ => return None,
        })
    }

    fn needs_value(self) -> bool {
        !matches!(self, How::Delete | How::Purge)
    }
}

/// What the CLI supplies for a bind.
pub struct BindArgs<'a> {
    /// The How word as given.
    pub how: &'a str,
    /// The identifier (or `new`, or `:idmap/PATTERN`).
    pub id: &'a str,
    /// The element name.
    pub elem: &'a str,
    /// The value (absent for delete/purge).
    pub value: Option<&'a [u8]>,
    /// The pepper to use for `peppermint`.
    pub new_pepper: Option<&'a str>,
    /// How an `:idmap` rule's pattern is checked before it is stored (its error, if
    /// it is not a pattern): the resolver's compiler, which the caller supplies so that
    /// the minter needs no regular expression engine of its own.
    pub check_pattern: fn(&str) -> Result<(), String>,
}

/// Bind, returning the report (without the trailing blank line).
pub fn bind<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    a: &BindArgs<'_>,
) -> Result<String, MinterError> {
    let how_word = a.how;
    if a.id.is_empty() {
        return Err(Refusal::BindWithoutId.into());
    }
    let Some(how) = How::parse(how_word) else {
        return Err(Refusal::BadHow(how_word.to_string()).into());
    };
    if a.elem.is_empty() {
        return Err(Refusal::BindWithoutElement {
            how: how_word.to_string(),
        }
        .into());
    }
    let empty: &[u8] = b"";
    let value = match a.value {
        Some(v) => v,
        None if how.needs_value() => {
            return Err(Refusal::BindWithoutValue {
                how: how_word.to_string(),
                elem: a.elem.to_string(),
            }
            .into())
        }
        None => empty,
    };

    let (id, elem) = binding_target(txn, m, ctx, a, how)?;
    if matches!(how, How::Mint | How::Peppermint) {
        reserved_elem(&id, &elem)?;
    }
    // Perl holds an `:idmap` rule's pseudo-id on a long-term minter.
    if m.longterm && id.starts_with(":/idmap/") && !is_issued_or_held(txn, &id)? {
        crate::hold::hold_set(txn, m, &id)?;
    }

    let key = keys::elem(&id, &elem);
    let old = txn.get(&key)?;
    let must_exist = matches!(how, How::Replace | How::Append | How::Prepend | How::Delete);
    let must_not_exist = matches!(how, How::New | How::Mint | How::Peppermint);
    if must_exist && old.is_none() {
        return Err(Refusal::NotBound {
            how: how_word.to_string(),
            id,
            elem,
        }
        .into());
    }
    if must_not_exist && old.is_some() {
        return Err(Refusal::AlreadyBound {
            how: how_word.to_string(),
            id,
            elem,
        }
        .into());
    }
    let existed = old.is_some();
    let status = write_value(txn, how, key, old, value);
    // Removing what was not there writes nothing; `:idmap` rules are not identifiers.
    let wrote = existed || !matches!(how, How::Delete | How::Purge);
    if wrote && !id.starts_with(":/") {
        crate::modified::record(txn, &id, ctx.now);
        crate::saves::queue_on_bind(txn, m, &id, &elem, ctx.now)?;
    }
    Ok(format!(
        "Id:      {id}\nElement: {elem}\nBind:    {how_word}\nStatus:  ok, {status}\n"
    ))
}

/// The checks every change to element `elem` of an identifier given by a caller (not
/// minted, not an `:idmap` rule) passes, whichever syntax asked for it: the identifier
/// gate (one spelling per identifier, its check character, the populator's shoulders:
/// [`crate::gate`]), the pepper of a
/// peppered identifier, a `genonly` minter's validation, reserved element names, and a
/// long-term minter's rule against binding unissued identifiers. Returns the
/// identifier to change (a peppered one without its pepper).
pub fn authorize_change<L: Lookup + ?Sized>(
    txn: &Txn<'_, L>,
    m: &Minter,
    given: &str,
    elem: &str,
) -> Result<String, MinterError> {
    let id = pepper::authorize(txn, m, &m.gate.admit(given)?)?;
    if m.genonly {
        let errs = validation_errors(m, std::slice::from_ref(&id));
        if let Some(e) = errs.into_iter().next() {
            return Err(Refusal::InvalidId(e).into());
        }
    }
    reserved_elem(&id, elem)?;
    if m.longterm && !is_issued_or_held(txn, &id)? {
        return Err(Refusal::UnissuedOnLongTerm { id }.into());
    }
    Ok(id)
}

/// Element names beginning `:/` hold noid's own records (circulation, hold, pepper).
fn reserved_elem(id: &str, elem: &str) -> Result<(), MinterError> {
    if elem.starts_with(":/") {
        return Err(Refusal::ReservedElement { id: id.to_string() }.into());
    }
    Ok(())
}

fn is_issued_or_held<L: Lookup + ?Sized>(txn: &Txn<'_, L>, id: &str) -> Result<bool, MinterError> {
    Ok(txn.exists(&keys::circ(id))? || txn.exists(&keys::hold(id))?)
}

/// The identifier and element a bind writes: a newly minted identifier (`mint`,
/// `peppermint`, only for the id `new`), an `:idmap` rule's pseudo-identifier (its
/// pattern checked when it is to be stored), or an identifier the caller may change.
fn binding_target<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    m: &mut Minter,
    ctx: &Context,
    a: &BindArgs<'_>,
    how: How,
) -> Result<(String, String), MinterError> {
    let how_word = a.how;
    Ok(if matches!(how, How::Mint | How::Peppermint) {
        if a.id != "new" {
            return Err(Refusal::MintBindWithoutNew {
                how: how_word.to_string(),
                id: a.id.to_string(),
            }
            .into());
        }
        let minted = mint::mint(
            txn,
            m,
            ctx,
            if how == How::Peppermint {
                a.new_pepper
            } else {
                None
            },
        )?;
        (minted, a.elem.to_string())
    } else if let Some(rest) = a.id.strip_prefix(':') {
        let Some(pattern) = rest.strip_prefix("idmap/").filter(|p| !p.is_empty()) else {
            return Err(Refusal::ColonId(a.id.to_string()).into());
        };
        if how.needs_value() {
            (a.check_pattern)(pattern).map_err(|reason| Refusal::BadIdmapPattern {
                id: a.id.to_string(),
                reason,
            })?;
        }
        (format!(":/idmap/{}", a.elem), pattern.to_string())
    } else {
        (authorize_change(txn, m, a.id, a.elem)?, a.elem.to_string())
    })
}

/// Write `value` under `key` as `how` says, over the `old` value, and the status
/// Perl reports.
fn write_value<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    how: How,
    key: Vec<u8>,
    old: Option<Vec<u8>>,
    value: &[u8],
) -> String {
    let old_len = old.as_ref().map_or(0, Vec::len);
    match how {
        How::New | How::Replace | How::Set | How::Mint | How::Peppermint => {
            txn.put(key, value);
            format!("{} bytes written, replacing {old_len} bytes", value.len())
        }
        How::Append | How::Add => {
            let mut v = old.unwrap_or_default();
            v.extend_from_slice(value);
            txn.put(key, v);
            format!(
                "{} bytes written to the end of {old_len} bytes",
                value.len()
            )
        }
        How::Prepend | How::Insert => {
            let mut v = value.to_vec();
            v.extend_from_slice(&old.unwrap_or_default());
            txn.put(key, v);
            format!(
                "{} bytes written to the beginning of {old_len} bytes",
                value.len()
            )
        }
        How::Delete | How::Purge => {
            txn.delete(key);
            format!("{old_len} bytes removed")
        }
    }
}
