//! `dbcreate [--atlast addN|stopN|wrapN] [--backend URL [--minter NAME]] [Template
//! [Term [NAAN NAA SubNAA]]]`: a new minter in `Dbdir/NOID/`, embedded or held by the
//! PostgreSQL database at URL (docs/SCALING.md).
//!
//! Unlike Perl Noid, nothing is left behind when the arguments are bad: they are
//! checked before the directory is made.

use noid_minter::create::{dbcreate, CreateArgs};
use noid_store::pg::Location;
use noid_store::StoreError;
use noid_template::growth::AtLast;
use rand::Rng;

use crate::output::Out;
use crate::session::Session;

/// `dbcreate`, with the arguments Perl takes in order.
#[derive(Debug)]
pub struct DbCreate {
    /// The options, or why one is refused (said once it is known that no minter
    /// exists yet).
    opts: Result<Options, String>,
    /// Template, Term, NAAN, NAA, SubNAA; absent ones are None.
    args: [Option<String>; 5],
}

impl DbCreate {
    /// Parse the arguments after `dbcreate` (the minter judges them, once it is
    /// known that no minter exists yet).
    pub fn parse(args: Vec<String>) -> DbCreate {
        let (opts, rest) = match options(&args) {
            Ok((opts, rest)) => (Ok(opts), rest),
            Err(msg) => (Err(msg), &args[..]),
        };
        let mut rest = rest.iter().cloned();
        DbCreate {
            opts,
            args: std::array::from_fn(|_| rest.next()),
        }
    }

    /// Run it.
    pub fn run(&self, session: &Session, out: &mut Out) {
        create(session, &self.opts, &self.args, out)
    }
}

/// dbcreate's options, each given at most once before the other arguments.
#[derive(Debug, Default)]
struct Options {
    /// What the minter does when its namespace is used up (`--atlast`).
    atlast: Option<AtLast>,
    /// The PostgreSQL database that holds the minter (`--backend URL`).
    backend: Option<String>,
    /// The minter's name in that database (`--minter NAME`; the Dbdir's name).
    minter: Option<String>,
}

fn create(
    session: &Session,
    opts: &Result<Options, String>,
    args: &[Option<String>; 5],
    out: &mut Out,
) {
    let layout = noid_store::Layout::new(&session.dbdir);
    if layout.has_minter() {
        out.out(already_exists(session));
        out.failed = true;
        return;
    }
    let checked = opts.as_ref().map_err(String::clone).and_then(|o| {
        let backend = match (&o.backend, &o.minter) {
            (None, None) => None,
            (None, Some(_)) => return Err("error: --minter needs --backend.".to_string()),
            (Some(url), name) => {
                let name = name
                    .clone()
                    .unwrap_or_else(|| Location::default_name(&session.dbdir));
                Some(Location::new(url, &name)?)
            }
        };
        Ok((o.atlast, backend))
    });
    let (atlast, backend) = match checked {
        Ok(c) => c,
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
    let writer = match crate::store::create(session, backend.as_ref()) {
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
        .map(|(k, v)| noid_store::Op::Put(noid_core::keys::admin(k), v.clone().into_bytes()));
    let (readme, log) = (&layout.readme, &layout.log);
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

/// Takes the leading options off the arguments: `--atlast VALUE` (what the minter does
/// when its namespace is used up; without it, Perl Noid's behaviour), `--backend URL`
/// and `--minter NAME`, each also as `--OPTION=VALUE`.
fn options(args: &[String]) -> Result<(Options, &[String]), String> {
    let mut opts = Options::default();
    let mut rest = args;
    while let Some(first) = rest.first().map(String::as_str) {
        let Some((name, inline)) = ["atlast", "backend", "minter"].iter().find_map(|&n| {
            let flag = format!("--{n}");
            if first == flag {
                Some((n, None))
            } else {
                first
                    .strip_prefix(&format!("{flag}="))
                    .map(|v| (n, Some(v.to_string())))
            }
        }) else {
            break;
        };
        let value = match inline {
            Some(v) => {
                rest = &rest[1..];
                v
            }
            None => match rest.get(1) {
                Some(v) => {
                    rest = &rest[2..];
                    v.clone()
                }
                None => {
                    return Err(match name {
                        "atlast" => "error: --atlast needs a value (addN, stopN or wrapN).".into(),
                        "backend" => "error: --backend needs a value (a postgres:// URL).".into(),
                        _ => "error: --minter needs a value (the minter's name).".into(),
                    })
                }
            },
        };
        let given = match name {
            "atlast" => opts
                .atlast
                .replace(value.parse::<AtLast>().map_err(|e| format!("error: {e}"))?)
                .is_some(),
            "backend" => opts.backend.replace(value).is_some(),
            _ => opts.minter.replace(value).is_some(),
        };
        if given {
            return Err(format!("error: --{name} is given twice."));
        }
    }
    Ok((opts, rest))
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
