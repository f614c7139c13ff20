//! `mint N` and `peppermint N`: the arguments and the output. The minting itself,
//! in synced batches each committed before its identifiers are printed (so an
//! identifier seen by anyone is never minted again, even if the process is killed), is
//! noid-minter's mint engine.

use noid_minter::mint_engine::{self, BindEach, Landing, Minted, Order, Stopped};
use noid_minter::Txn;
use noid_store::{Store, StoreError};

use super::minter_hooks::{check_idmap_pattern, new_pepper};
use super::{Failed, Writing};
use crate::complaint::Complaint;
use crate::output::Out;

/// How `mint` makes a batch durable and shows its lines; the caller owns the output
/// streams and knows how a failure is reported.
pub trait Batches {
    /// Commit the transaction's writes, synced, then print `out`.
    fn commit(&mut self, txn: &mut Txn<'_, dyn Store>, out: &mut Out) -> Result<(), Failed>;
    /// Report a commit that failed (nothing of it is printed).
    fn failed_commit(&mut self, e: StoreError, out: &mut Out);
    /// Print `out`, whose writes are already durable.
    fn print(&mut self, out: &mut Out) -> Result<(), Failed>;
}

/// `mint N [ELEM VALUE]` or `peppermint N [ELEM VALUE]`.
#[derive(Debug)]
pub struct Mint {
    /// How many identifiers.
    count: u64,
    /// `peppermint`: each identifier gets a new pepper.
    peppered: bool,
    /// An element and value to bind to each new identifier.
    bind: Option<(String, String)>,
}

impl Mint {
    /// Parse the arguments after `mint` or (`peppered`) `peppermint`.
    pub fn parse(peppered: bool, args: Vec<String>) -> Result<Mint, Complaint> {
        let mut args = args.into_iter();
        let count = match args.next() {
            Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                n.parse::<u64>().unwrap_or(u64::MAX)
            }
            other => {
                let got = other.map_or("nothing".to_string(), |n| format!("\"{n}\""));
                let verb = if peppered { "peppermint" } else { "mint" };
                return Err(Complaint::new(format!(
                    "Argument error: expected positive integer, got {got}"
                ))
                .with_usage(verb));
            }
        };
        let bind = match (args.next(), args.next()) {
            (None, _) => None,
            (Some(elem), Some(value)) => Some((elem, value)),
            (Some(_), None) => {
                return Err(Complaint::new(
                    "error: mint N Elem Value: a value is required with an element.",
                ))
            }
        };
        Ok(Mint {
            count,
            peppered,
            bind,
        })
    }

    /// Run it within the write batch `w`. Every batch of identifiers but the last is
    /// committed (and printed) by the mint engine; the last is left in the transaction
    /// for the caller, which commits it with whatever follows (unless the store takes
    /// two commits at once).
    pub fn run(&self, w: &mut Writing<'_, '_>, out: &mut Out) -> Result<(), Failed> {
        let ctx = w.session.context();
        let order = Order {
            count: self.count,
            pepper: self.peppered.then_some(new_pepper as fn() -> String),
            bind: self.bind.as_ref().map(|(elem, value)| BindEach {
                elem,
                value,
                check_pattern: check_idmap_pattern,
            }),
        };
        let mut shown = Shown {
            batches: &mut *w.batches,
            out: &mut *out,
        };
        let result = mint_engine::mint_in_batches(w.txn, w.minter, &ctx, &order, &mut shown);
        let m = &mut *w.minter;
        if let Err(Stopped::Failed(e)) = &result {
            out.fail(format!("{e}\n"));
        }
        for note in m.notes.drain(..) {
            out.out(format!("{note}\n"));
        }
        if let Some(status) = m.exit_status.take() {
            w.session.atlast_status.set(Some(status));
        }
        if result.is_err() {
            return Err(Failed::Reported);
        }
        out.out("\n");
        Ok(())
    }
}

/// The mint engine's batches as `mint` prints them: `id: ID` lines (`id: ID!PEPPER`
/// when peppered), committed and printed as the caller's [`Batches`] does.
struct Shown<'a> {
    batches: &'a mut dyn Batches,
    out: &'a mut Out,
}

impl Landing<dyn Store> for Shown<'_> {
    fn minted(&mut self, minted: Vec<Minted>) {
        let lines = &mut self.out.stdout;
        for Minted { id, pepper } in &minted {
            lines.extend_from_slice(b"id: ");
            lines.extend_from_slice(id.as_bytes());
            if let Some(p) = pepper {
                lines.push(b'!');
                lines.extend_from_slice(p.as_bytes());
            }
            lines.push(b'\n');
        }
    }

    fn commit(&mut self, txn: &mut Txn<'_, dyn Store>) -> Result<(), Stopped> {
        let done = self.batches.commit(txn, self.out);
        done.map_err(|failed| self.stopped(failed))
    }

    fn print(&mut self) -> Result<(), Stopped> {
        let done = self.batches.print(self.out);
        done.map_err(|failed| self.stopped(failed))
    }

    fn failed_commit(&mut self, e: StoreError) {
        self.batches.failed_commit(e, self.out);
    }
}

impl Shown<'_> {
    /// A failure of the caller's commit or print, reported here if it has not been.
    fn stopped(&mut self, failed: Failed) -> Stopped {
        if let Failed::Minter(e) = failed {
            self.out.fail(format!("{e}\n"));
        }
        Stopped::Reported
    }
}
