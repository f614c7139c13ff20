//! `import PATH`: an old minter (its `NOID` directory, its `noid.bdb` through Debian's
//! `db_dump -p`, a `db_dump -p` text file, a `noid export` file, or `-` for standard
//! input) read into a new store (see docs/MIGRATION.md).
//!
//! The store is built in a staging directory beside `Dbdir/NOID` and moved into place
//! only when complete and validated, so an import that fails or is interrupted leaves
//! no store behind. One module per step: [`old`] works out what PATH is, [`db_dump`]
//! runs BerkeleyDB's dump tool, [`load`] reads the records into the staged store,
//! [`staging`] owns the staging directory and publishes the result; [`error`] says
//! what went wrong.

mod db_dump;
mod error;
mod load;
mod old;
mod staging;

use noid_store::Layout;

use crate::complaint::Complaint;
use crate::output::Out;
use crate::session::Session;

/// `import PATH`.
#[derive(Debug)]
pub struct Import {
    path: String,
}

impl Import {
    /// Parse the arguments after `import`: exactly one path.
    pub fn parse(args: Vec<String>) -> Result<Import, Complaint> {
        match <[String; 1]>::try_from(args) {
            Ok([path]) => Ok(Import { path }),
            Err(_) => Err(Complaint::new(
                "error: import needs one PATH: an old minter's NOID directory, its noid.bdb, a db_dump -p text file, a noid export file, or - for standard input",
            )),
        }
    }

    /// Run it.
    pub fn run(&self, session: &Session, out: &mut Out) {
        if Layout::new(&session.dbdir).has_minter() {
            out.fail(format!(
                "error: a NOID database already exists in \"{}\".\n\tTo import into it, rename or remove the entire NOID subdirectory, or choose another Dbdir with -f.\n",
                session.dbdir_display
            ));
            return;
        }
        let path = &self.path;
        match old::locate(path).and_then(|old| load::load(session, path, &old)) {
            Ok(summary) => out.out(format!(
                "ok: imported {} keys from {path}: template {} ({}, {} term), :/oacounter {}\n",
                summary.records,
                summary.template,
                summary.gen_type,
                summary.term,
                summary.oacounter
            )),
            Err(e) => out.fail(format!("{e}\n")),
        }
    }
}
