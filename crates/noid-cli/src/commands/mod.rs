//! The verbs of the `noid` command, one module per verb family, each holding its
//! arguments' parse, its execution and its output. Verbs are grouped by how they
//! touch the minter, which decides how the runner ([`crate::bulk`]) runs them:
//! [`Plain`] verbs need none, [`Read`] verbs read a snapshot (or the open write
//! batch), [`Write`] verbs share a write batch, and `dbcreate` and the [`Port`] verbs
//! open the store themselves. Every verb fills an [`Out`]; none writes to the
//! terminal or commits by itself, except `mint`, which commits in batches so that
//! identifiers are printed only once they are durable, and `export`, which streams.

pub mod bind;
pub mod check;
pub mod dbcreate;
pub mod dbinfo;
pub mod egg;
pub mod export;
pub mod fetch;
pub mod help;
pub mod hold;
pub mod import;
pub mod lui;
pub mod mint;
pub mod minter_hooks;
pub mod note;
pub mod queue;
pub mod standing;
pub mod validate;

use noid_core::Lookup;
use noid_minter::MinterError;

use crate::complaint::Complaint;
use crate::invocation::Invocation;
use crate::output::Out;

mod writing;
pub use writing::{Failed, Writing};

/// A verb with its arguments, by how it touches the minter.
#[derive(Debug)]
pub enum Action {
    /// Needs no minter.
    Plain(Plain),
    /// Creates a minter.
    Create(dbcreate::DbCreate),
    /// Reads the minter.
    Read(Read),
    /// Changes the minter.
    Write(Write),
    /// Moves a whole minter in or out, or checks it.
    Port(Port),
}

impl Action {
    /// Whether Perl's "no database" complaint comes before anything the verb says.
    pub fn needs_minter(&self) -> bool {
        matches!(self, Action::Read(_) | Action::Write(_))
    }
}

/// Verbs that need no minter.
#[derive(Debug)]
pub enum Plain {
    /// `hello`.
    Hello,
    /// `help [TOPIC]`.
    Help(help::Help),
    /// `lui encode|decode|normalize …`.
    Lui(lui::Lui),
}

impl Plain {
    /// Run it.
    pub fn run(&self, out: &mut Out) {
        match self {
            Plain::Hello => help::hello(out),
            Plain::Help(h) => h.run(out),
            Plain::Lui(l) => l.run(out),
        }
    }
}

/// Verbs that only read: they run against a lock-free snapshot, or against the open
/// write batch in bulk mode so that they see the commands before them.
#[derive(Debug)]
pub enum Read {
    /// `fetch`/`get`.
    Fetch(fetch::Fetch),
    /// `dbinfo`.
    DbInfo(dbinfo::DbInfo),
    /// `validate`.
    Validate(validate::Validate),
    /// `standing ID…`.
    Standing(standing::Judge),
    /// A read verb whose arguments were refused.
    Refused(Complaint),
}

impl Read {
    /// Run it against `l`. An error is the store's, not yet reported.
    pub fn run(&self, l: &dyn Lookup, out: &mut Out) -> Result<(), MinterError> {
        match self {
            Read::Fetch(f) => f.run(l, out),
            Read::DbInfo(d) => d.run(l, out),
            Read::Validate(v) => v.run(l, out),
            Read::Standing(j) => j.run(l, out),
            Read::Refused(c) => {
                c.render(out);
                Ok(())
            }
        }
    }
}

/// Verbs that change the minter. Consecutive ones share one open store and one
/// transaction (see [`crate::bulk`]).
#[derive(Debug)]
pub enum Write {
    /// `mint`/`peppermint`.
    Mint(mint::Mint),
    /// `bind`.
    Bind(bind::Bind),
    /// `hold`.
    Hold(hold::Hold),
    /// `queue`.
    Queue(queue::Queue),
    /// `note`.
    Note(note::Note),
    /// An egg command (`ID.OP …`).
    Egg(egg::Egg),
    /// A write verb whose arguments were refused.
    Refused(Complaint),
}

impl Write {
    /// Run it within the open write batch `w`. On `Err` the caller undoes the verb's
    /// writes.
    pub fn run(&self, w: &mut Writing<'_, '_>, out: &mut Out) -> Result<(), Failed> {
        match self {
            Write::Mint(m) => m.run(w, out),
            Write::Bind(b) => b.run(w, out),
            Write::Hold(h) => h.run(w, out),
            Write::Queue(q) => q.run(w, out),
            Write::Note(n) => n.run(w),
            Write::Egg(e) => e.run(w, out),
            Write::Refused(c) => {
                c.render(out);
                Err(Failed::Reported)
            }
        }
    }
}

/// Verbs that move a whole minter in or out, or check it; each opens the store in
/// its own way.
#[derive(Debug)]
pub enum Port {
    /// `import`.
    Import(import::Import),
    /// `export`.
    Export(export::Export),
    /// `check`.
    Check(check::Check),
    /// `standing` with no ids: every identifier.
    Standing(standing::Judge),
    /// A port verb whose arguments were refused.
    Refused(Complaint),
}

impl Port {
    /// Run it.
    pub fn run(&self, session: &Invocation, out: &mut Out) {
        match self {
            Port::Import(i) => i.run(session, out),
            Port::Export(e) => e.run(session, out),
            Port::Check(c) => c.run(session, out),
            Port::Standing(j) => j.run_all(session, out),
            Port::Refused(c) => c.render(out),
        }
    }
}
