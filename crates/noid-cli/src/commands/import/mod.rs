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

use noid_store::pg::Location;
use noid_store::{Layout, Op, Snapshot};

use crate::complaint::Complaint;
use crate::invocation::Invocation;
use crate::output::Out;

/// `import [--backend URL [--minter NAME]] PATH`.
#[derive(Debug)]
pub struct Import {
    path: String,
    /// `--backend URL` and `--minter NAME`: import into a new minter held by
    /// PostgreSQL (docs/SCALING.md).
    backend: Option<(String, Option<String>)>,
}

impl Import {
    /// Parse the arguments after `import`: `--backend URL` and `--minter NAME` if
    /// given, then exactly one path.
    pub fn parse(mut args: Vec<String>) -> Result<Import, Complaint> {
        let mut take = |flag: &str| -> Result<Option<String>, Complaint> {
            if args.first().map(String::as_str) != Some(flag) {
                return Ok(None);
            }
            if args.len() < 2 {
                return Err(Complaint::new(format!(
                    "error: import {flag} needs a value"
                )));
            }
            args.remove(0);
            Ok(Some(args.remove(0)))
        };
        let url = take("--backend")?;
        let minter = take("--minter")?;
        let backend = match (url, minter) {
            (None, Some(_)) => return Err(Complaint::new("error: --minter needs --backend.")),
            (None, None) => None,
            (Some(url), minter) => Some((url, minter)),
        };
        match <[String; 1]>::try_from(args) {
            Ok([path]) => Ok(Import { path, backend }),
            Err(_) => Err(Complaint::new(
                "error: import needs one PATH: an old minter's NOID directory, its noid.bdb, a db_dump -p text file, a noid export file, or - for standard input",
            )),
        }
    }

    /// Run it.
    pub fn run(&self, session: &Invocation, out: &mut Out) {
        if Layout::new(&session.dbdir).has_minter() {
            out.fail(format!(
                "error: a NOID database already exists in \"{}\".\n\tTo import into it, rename or remove the entire NOID subdirectory, or choose another Dbdir with -f.\n",
                session.dbdir_display
            ));
            return;
        }
        let path = &self.path;
        let loaded = match &self.backend {
            None => {
                old::locate(path).and_then(|old| load::load(session, &session.dbdir, path, &old))
            }
            Some((url, minter)) => {
                let name = minter
                    .clone()
                    .unwrap_or_else(|| Location::default_name(&session.dbdir));
                let loc = match Location::new(url, &name) {
                    Ok(l) => l,
                    Err(e) => return out.fail(format!("error: {}\n", e.describe("--backend"))),
                };
                into_postgres(session, path, &loc)
            }
        };
        match loaded {
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

/// Import PATH into a new minter held by PostgreSQL at `loc`: loaded and validated into
/// an embedded store in a staging Dbdir first, exactly as any import, then every key
/// written to the database in one transaction, with the README and log beside the
/// backend file. The staging Dbdir is removed whatever happens.
fn into_postgres(
    session: &Invocation,
    path: &str,
    loc: &Location,
) -> Result<noid_migrate::validate::Summary, error::ImportError> {
    let made = !session.dbdir.exists();
    std::fs::create_dir_all(&session.dbdir).map_err(|source| noid_store::StoreError::Io {
        path: session.dbdir.clone(),
        source,
    })?;
    let staged = session
        .dbdir
        .join(format!(".import-postgres-{}", std::process::id()));
    let result = old::locate(path)
        .and_then(|old| load::load(session, &staged, path, &old))
        .and_then(|summary| -> Result<_, error::ImportError> {
            let snap = Snapshot::open(&staged)?;
            let mut ops: Vec<Op> = Vec::new();
            snap.scan_from(b"", |k, v| {
                ops.push(Op::Put(k.to_vec(), v.to_vec()));
                true
            })?;
            drop(snap);
            let writer = noid_store::open::create(&session.dbdir, Some(loc), session.lock_timeout)?;
            writer.commit_all(&mut ops)?;
            let (from, to) = (Layout::new(&staged), Layout::new(&session.dbdir));
            for (a, b) in [(&from.readme, &to.readme), (&from.log, &to.log)] {
                if a.exists() {
                    std::fs::copy(a, b).map_err(|source| noid_store::StoreError::Io {
                        path: b.clone(),
                        source,
                    })?;
                }
            }
            Ok(summary)
        });
    let _ = std::fs::remove_dir_all(&staged);
    if made && result.is_err() {
        let _ = std::fs::remove_dir(&session.dbdir);
    }
    result
}
