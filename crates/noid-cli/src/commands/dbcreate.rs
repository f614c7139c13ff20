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

use crate::invocation::Invocation;
use crate::output::Out;

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
    pub fn run(&self, session: &Invocation, out: &mut Out) {
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

/// Create the minter and print its report, or print why not (nothing is created
/// when the arguments are bad).
fn create(
    session: &Invocation,
    opts: &Result<Options, String>,
    args: &[Option<String>; 5],
    out: &mut Out,
) {
    match created(session, opts, args) {
        Ok(report) => out.out(format!("{report}\n")),
        Err(msg) => {
            out.out(msg);
            out.failed = true;
        }
    }
}

/// The new minter's report, or the message (with its blank line) saying why none was
/// made.
fn created(
    session: &Invocation,
    opts: &Result<Options, String>,
    args: &[Option<String>; 5],
) -> Result<String, String> {
    let layout = noid_store::Layout::new(&session.dbdir);
    if layout.has_minter() {
        return Err(already_exists(session));
    }
    let (atlast, backend) = checked(session, opts).map_err(|msg| format!("{msg}\n\n"))?;
    let a = |i: usize| args[i].as_deref();
    let when = session.context().stamp;
    let where_ = format!("{}:{}", crate::env::hostname(), absolute(session));
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
    })
    .map_err(|e| format!("{e}\n\n"))?;
    let writer = match crate::store::create(session, backend.as_ref()) {
        Ok(w) => w,
        Err(StoreError::AlreadyExists(_)) => return Err(already_exists(session)),
        Err(e) => return Err(format!("error: {e}\n\n")),
    };
    let (readme, log) = (&layout.readme, &layout.log);
    std::fs::write(readme, &created.readme)
        .and_then(|_| std::fs::write(log, format!("{}\n", created.log)))
        .map_err(|e| format!("error: cannot write {}: {e}\n\n", readme.display()))?;
    let ops = created
        .keys
        .iter()
        .map(|(k, v)| noid_store::Op::Put(noid_core::keys::admin(k), v.clone().into_bytes()));
    writer.commit(ops).map_err(|e| format!("error: {e}\n\n"))?;
    Ok(created.report)
}

/// The options checked: what happens at the namespace's end, and where the minter is
/// held (PostgreSQL, or None for the embedded store).
fn checked(
    session: &Invocation,
    opts: &Result<Options, String>,
) -> Result<(Option<AtLast>, Option<Location>), String> {
    let o = opts.as_ref().map_err(String::clone)?;
    let backend = match (&o.backend, &o.minter) {
        (None, None) => None,
        (None, Some(_)) => return Err("error: --minter needs --backend.".to_string()),
        (Some(url), name) => {
            let name = name
                .clone()
                .unwrap_or_else(|| Location::default_name(&session.dbdir));
            let loc = Location::new(url, &name);
            Some(loc.map_err(|e| format!("error: {}", e.describe("--backend")))?)
        }
    };
    Ok((o.atlast, backend))
}

/// The Dbdir as an absolute path, as Perl Noid recorded it (`$PWD/DIR`).
fn absolute(session: &Invocation) -> String {
    if session.dbdir.is_absolute() {
        return session.dbdir.display().to_string();
    }
    let pwd = std::env::var("PWD")
        .ok()
        .or_else(|| {
            std::env::current_dir()
                .ok()
                .map(|p| p.display().to_string())
        })
        .unwrap_or_default();
    format!("{pwd}/{}", session.dbdir_display)
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

fn already_exists(session: &Invocation) -> String {
    let where_ = if session.dbdir_display == "." {
        "the current directory".to_string()
    } else {
        format!("\"{}\"", session.dbdir_display)
    };
    format!(
        "error: a NOID database already exists in {where_}.\n\tTo permit creation of a new minter, rename\n\tor remove the entire NOID subdirectory.\n\n"
    )
}
