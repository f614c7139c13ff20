//! `dbcreate [--atlast addN|stopN|wrapN] [Template [Term [NAAN NAA SubNAA]]]`: a new
//! minter in `Dbdir/NOID/`.
//!
//! Unlike Perl Noid, nothing is left behind when the arguments are bad: they are
//! checked before the directory is made.

use noid_core::growth::AtLast;
use noid_minter::create::{dbcreate, CreateArgs};
use noid_store::{StoreError, Writer};
use rand::Rng;

use crate::output::Out;
use crate::session::Session;

/// `dbcreate`, with the arguments Perl takes in order.
#[derive(Debug)]
pub struct DbCreate {
    /// What the minter does when its namespace is used up (`--atlast`), or why that
    /// option is refused (said once it is known that no minter exists yet).
    atlast: Result<Option<AtLast>, String>,
    /// Template, Term, NAAN, NAA, SubNAA; absent ones are None.
    args: [Option<String>; 5],
}

impl DbCreate {
    /// Parse the arguments after `dbcreate` (the minter judges them, once it is
    /// known that no minter exists yet).
    pub fn parse(args: Vec<String>) -> DbCreate {
        let (atlast, rest) = match atlast_option(&args) {
            Ok((atlast, rest)) => (Ok(atlast), rest),
            Err(msg) => (Err(msg), &args[..]),
        };
        let mut rest = rest.iter().cloned();
        DbCreate {
            atlast,
            args: std::array::from_fn(|_| rest.next()),
        }
    }

    /// Run it.
    pub fn run(&self, session: &Session, out: &mut Out) {
        create(session, &self.atlast, &self.args, out)
    }
}

fn create(
    session: &Session,
    atlast: &Result<Option<AtLast>, String>,
    args: &[Option<String>; 5],
    out: &mut Out,
) {
    let layout = noid_store::Layout::new(&session.dbdir);
    if layout.exists() {
        out.out(already_exists(session));
        out.failed = true;
        return;
    }
    let atlast = match atlast {
        Ok(atlast) => *atlast,
        Err(msg) => {
            out.out(format!("{msg}\n\n"));
            out.failed = true;
            return;
        }
    };
    let a = |i: usize| args[i].as_deref();
    let ctx = session.context();
    let abs = if session.dbdir.is_absolute() {
        session.dbdir.display().to_string()
    } else {
        let pwd = std::env::var("PWD")
            .ok()
            .or_else(|| {
                std::env::current_dir()
                    .ok()
                    .map(|p| p.display().to_string())
            })
            .unwrap_or_default();
        format!("{pwd}/{}", session.dbdir_display)
    };
    let where_ = format!("{}:{abs}", crate::env::hostname());
    let when = ctx.stamp.clone();
    let mut r = rand::thread_rng();
    let created = dbcreate(&CreateArgs {
        template: a(0),
        term: a(1),
        naan: a(2),
        naa: a(3),
        subnaa: a(4),
        contact: &session.contact,
        when: &when,
        where_: &where_,
        dbdir_display: &session.dbdir_display,
        samples: (r.gen(), r.gen()),
        atlast,
        lui_key: rand::rngs::OsRng.gen(),
    });
    let created = match created {
        Ok(c) => c,
        Err(e) => {
            out.out(format!("{e}\n\n"));
            out.failed = true;
            return;
        }
    };
    let writer = match Writer::create(&session.dbdir, session.lock_timeout) {
        Ok(w) => w,
        Err(StoreError::AlreadyExists(_)) => {
            out.out(already_exists(session));
            out.failed = true;
            return;
        }
        Err(e) => {
            out.out(format!("error: {e}\n\n"));
            out.failed = true;
            return;
        }
    };
    let ops = created
        .keys
        .iter()
        .map(|(k, v)| noid_store::Op::Put(noid_minter::keys::admin(k), v.clone().into_bytes()));
    let readme = &writer.layout().readme;
    let log = &writer.layout().log;
    let files = std::fs::write(readme, &created.readme)
        .and_then(|_| std::fs::write(log, format!("{}\n", created.log)))
        .map_err(|e| format!("error: cannot write {}: {e}", readme.display()));
    if let Err(msg) = files {
        out.out(format!("{msg}\n\n"));
        out.failed = true;
        return;
    }
    if let Err(e) = writer.commit(ops) {
        out.out(format!("error: {e}\n\n"));
        out.failed = true;
        return;
    }
    out.out(format!("{}\n", created.report));
}

/// Takes a leading `--atlast VALUE` (or `--atlast=VALUE`) off the arguments: what the
/// minter does when its namespace is used up. Without it, Perl Noid's behaviour.
fn atlast_option(args: &[String]) -> Result<(Option<AtLast>, &[String]), String> {
    let (value, rest) = match args.first().map(String::as_str) {
        Some("--atlast") => match args.get(1) {
            Some(v) => (v.as_str(), &args[2..]),
            None => return Err("error: --atlast needs a value (addN, stopN or wrapN).".into()),
        },
        Some(a) if a.starts_with("--atlast=") => (&a["--atlast=".len()..], &args[1..]),
        _ => return Ok((None, args)),
    };
    let atlast = value.parse::<AtLast>().map_err(|e| format!("error: {e}"))?;
    Ok((Some(atlast), rest))
}

fn already_exists(session: &Session) -> String {
    let where_ = if session.dbdir_display == "." {
        "the current directory".to_string()
    } else {
        format!("\"{}\"", session.dbdir_display)
    };
    format!(
        "error: a NOID database already exists in {where_}.\n\tTo permit creation of a new minter, rename\n\tor remove the entire NOID subdirectory.\n\n"
    )
}
