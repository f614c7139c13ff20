//! `mint N` and `peppermint N`: identifiers are committed in batches, each synced to
//! disk before its identifiers are printed, so an identifier seen by anyone is never
//! minted again, even if the process is killed.

use noid_minter::bind::BindArgs;
use noid_minter::{mint, Minter, MinterError, Txn};
use noid_store::Writer;
use rand::Rng;

use crate::output::Out;
use crate::session::Session;
use crate::usage::usage;

/// Identifiers per synced batch: large enough that the sync is cheap per id, small
/// enough that output starts promptly.
const BATCH: u64 = 100_000;

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
    let mint_one = |txn: &mut Txn<'_, Writer>, m: &mut Minter| -> Result<String, MinterError> {
        let pepper = peppered.then(new_pepper);
        let id = mint::mint(txn, m, &ctx, pepper.as_deref())?;
        if let (Some(e), Some(v)) = (elem, value) {
            let args = BindArgs {
                how: "set",
                id: &id,
                elem: e,
                value: Some(v.as_bytes()),
                new_pepper: None,
            };
            noid_minter::bind::bind(txn, m, &ctx, &args)?;
        }
        Ok(match pepper {
            Some(p) => format!("id: {id}!{p}\n"),
            None => format!("id: {id}\n"),
        })
    };
    // Start from a committed state so that a failed batch can simply be dropped and
    // replayed: no per-write undo records are needed while minting.
    m.flush(txn);
    commit(txn, out)?;
    txn.set_undo(false);
    let result = mint_batches(txn, m, n, out, commit, &mint_one);
    txn.set_undo(true);
    result?;
    out.out("\n");
    Ok(())
}

/// Mint `n` identifiers in synced batches of [`BATCH`], each batch's lines printed only
/// after its commit.
fn mint_batches(
    txn: &mut Txn<'_, Writer>,
    m: &mut Minter,
    n: u64,
    out: &mut Out,
    commit: &mut dyn FnMut(&mut Txn<'_, Writer>, &mut Out) -> Result<(), MinterError>,
    mint_one: &dyn Fn(&mut Txn<'_, Writer>, &mut Minter) -> Result<String, MinterError>,
) -> Result<(), MinterError> {
    let mut left = n;
    while left > 0 {
        let batch = left.min(BATCH);
        let mark = out.stdout.len();
        let mut done = 0;
        let mut failure = None;
        for _ in 0..batch {
            match mint_one(txn, m) {
                Ok(line) => {
                    out.out(line);
                    done += 1;
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        if let Some(e) = failure {
            // The failed identifier may have left partial writes: drop the batch and
            // replay its good identifiers (minting is deterministic), then commit them.
            txn.clear();
            *m = Minter::load(&*txn)?;
            out.stdout.truncate(mark);
            for _ in 0..done {
                let line = mint_one(txn, m)?;
                out.out(line);
            }
            m.flush(txn);
            commit(txn, out)?;
            out.fail(format!("{e}\n"));
            return Err(e);
        }
        left -= batch;
        m.flush(txn);
        if left > 0 {
            commit(txn, out)?;
        }
    }
    Ok(())
}
