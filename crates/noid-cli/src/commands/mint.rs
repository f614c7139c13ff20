//! `mint N` and `peppermint N`: identifiers are committed in batches, each synced to
//! disk before its identifiers are printed, so an identifier seen by anyone is never
//! minted again, even if the process is killed.

use noid_minter::{mint, Minter, MinterError, Txn};
use noid_store::Writer;
use rand::Rng;

use crate::output::Out;
use crate::session::Session;
use crate::usage::usage;

/// Identifiers per synced batch: large enough that the sync is cheap per id, small
/// enough that output starts promptly.
const BATCH: u64 = 20_000;

/// A new random pepper: eight Noid extended digits.
pub fn new_pepper() -> String {
    let mut r = rand::thread_rng();
    (0..8)
        .map(|_| noid_core::xdigits::xdigit(r.gen_range(0..29)) as char)
        .collect()
}

/// Run `mint`/`peppermint`; `commit` makes the batch durable and prints what came before.
pub fn run(
    session: &Session,
    txn: &mut Txn<'_, Writer>,
    m: &mut Minter,
    peppered: bool,
    args: &[String],
    out: &mut Out,
    commit: &mut dyn FnMut(&mut Txn<'_, Writer>, &mut Out) -> Result<(), MinterError>,
) -> Result<(), MinterError> {
    let n = match args.first() {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            n.parse::<u64>().unwrap_or(u64::MAX)
        }
        other => {
            let got = other.map_or("nothing".to_string(), |n| format!("\"{n}\""));
            out.fail(format!(
                "Argument error: expected positive integer, got {got}\n"
            ));
            usage(
                out,
                true,
                true,
                if peppered { "peppermint" } else { "mint" },
            );
            return Err(MinterError::refused("bad count"));
        }
    };
    let (elem, value) = (args.get(1), args.get(2));
    if elem.is_some() && value.is_none() {
        out.fail("error: mint N Elem Value: a value is required with an element.\n");
        return Err(MinterError::refused("mint elem without value"));
    }
    let ctx = session.context();
    let mut left = n;
    while left > 0 {
        let batch = left.min(BATCH);
        for _ in 0..batch {
            let sp = txn.savepoint();
            let pepper = peppered.then(new_pepper);
            let minted = mint::mint(txn, m, &ctx, pepper.as_deref()).and_then(|id| {
                if let (Some(e), Some(v)) = (elem, value) {
                    let args = noid_minter::bind::BindArgs {
                        how: "set",
                        id: &id,
                        elem: e,
                        value: Some(v.as_bytes()),
                        new_pepper: None,
                    };
                    noid_minter::bind::bind(txn, m, &ctx, &args)?;
                }
                Ok(id)
            });
            match minted {
                Ok(id) => match pepper {
                    Some(p) => out.out(format!("id: {id}!{p}\n")),
                    None => out.out(format!("id: {id}\n")),
                },
                Err(e) => {
                    txn.rollback_to(sp);
                    *m = Minter::load(&*txn)?;
                    commit(txn, out)?;
                    out.fail(format!("{e}\n"));
                    return Err(e);
                }
            }
        }
        left -= batch;
        if left > 0 {
            commit(txn, out)?;
        }
    }
    out.out("\n");
    Ok(())
}
