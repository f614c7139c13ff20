//! Executing a [`Command`] against a binder: the same write transaction and minter
//! state the `noid` CLI uses, so every change passes noid's checks (peppers,
//! long-term minters, reserved element names) and commits the same way.

use noid_core::keys;
use noid_core::Lookup;
use noid_minter::{bind::authorize_change, modified, Minter, Txn};

use crate::command::{Agent, Command, Op};
use crate::elements;
use crate::error::BinderError;
use crate::reply::Reply;

/// The values a write found before it changed them, as (element, value) in stored
/// order: those of the one element it wrote (`set`, `add`, `incr`, `rm` …; none when
/// the element had no value), or every element it removed (`purge`). Read in the
/// write's own transaction, before it writes, so the write log can show what it
/// replaced (noid-binder's history) and an undo can put it back.
pub type Prior = Vec<(String, Vec<u8>)>;

/// Run `cmd`. A failed command leaves `txn` as it found it; the caller commits.
pub fn execute<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    minter: &mut Minter,
    agent: &Agent,
    cmd: &Command,
) -> Reply {
    execute_noting_prior(txn, minter, agent, cmd).0
}

/// [`execute`], with the values a successful write replaced ([`Prior`]; `None` for a
/// command that wrote nothing).
pub fn execute_noting_prior<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    minter: &mut Minter,
    agent: &Agent,
    cmd: &Command,
) -> (Reply, Option<Prior>) {
    let sp = txn.savepoint();
    let mut prior = None;
    match run(txn, minter, agent, cmd, &mut prior) {
        Ok(r) => (r, prior),
        Err(e) => {
            txn.rollback_to(sp);
            (Reply::Error(e), None)
        }
    }
}

/// The (element, value) pairs of `had`, the values of `elem`.
fn prior_of(elem: &str, had: &[&elements::Stored]) -> Prior {
    had.iter()
        .map(|(_, v)| (elem.to_string(), v.clone()))
        .collect()
}

fn run<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    minter: &mut Minter,
    agent: &Agent,
    cmd: &Command,
    prior: &mut Option<Prior>,
) -> Result<Reply, BinderError> {
    Ok(match cmd {
        Command::Bind {
            op,
            id,
            elem,
            value,
        } => bind(txn, minter, agent, *op, (id, elem), value, prior)?,
        Command::Incr { id, elem, by } => incr(txn, minter, agent, (id, elem), *by, prior)?,
        Command::Read {
            id,
            elems,
            labelled,
            all,
        } => {
            let mut found = read(txn, id, elems, *all)?;
            if found.is_empty() {
                if let Some(stored) = minter.gate.respelled(id) {
                    found = read(txn, &stored, elems, *all)?;
                }
            }
            Reply::Values {
                id: id.clone(),
                whole: elems.is_empty(),
                labelled: *labelled,
                elems: found,
            }
        }
        Command::Remove { id, elem, report } => {
            remove(txn, minter, agent, (id, elem), *report, prior)?
        }
        Command::Purge { id } => {
            let base = authorize_change(txn, minter, id, "")?;
            *prior = Some(elements::all(txn, &base)?);
            let count = elements::purge(txn, &base)?;
            if count > 0 {
                modified::record(txn, &base, agent.now);
            }
            Reply::Purged {
                id: id.clone(),
                count,
            }
        }
        Command::Exists { id, elem } => {
            let exists = |txn: &mut Txn<'_, L>, id: &str| -> Result<bool, BinderError> {
                let base = noid_resolve::read_id(txn, id)?;
                Ok(match elem {
                    Some(e) => !elements::values(txn, base, e)?.is_empty(),
                    None => elements::id_exists(txn, base)?,
                })
            };
            let mut found = exists(txn, id)?;
            if !found {
                if let Some(stored) = minter.gate.respelled(id) {
                    found = exists(txn, &stored)?;
                }
            }
            Reply::Exists(found)
        }
        Command::List {
            binder,
            max,
            after,
            prefixes,
            all,
            circulated,
        } => {
            // A prefix in another spelling also finds the records stored in the
            // binder's own (`99999/fk4` finds `ark:/99999/fk4…` in a populator's binder).
            let mut prefixes = prefixes.clone();
            let respelled: Vec<String> = prefixes
                .iter()
                .filter_map(|p| minter.gate.respelled(p))
                .collect();
            prefixes.extend(respelled);
            Reply::Listing {
                binder: binder.clone(),
                max: *max,
                found: elements::list(
                    txn,
                    &prefixes,
                    after.as_deref(),
                    *max,
                    elements::Counted {
                        admin: *all,
                        circulated: *circulated,
                    },
                )?,
            }
        }
        Command::Norm { id, shadow } => Reply::Id(if *shadow {
            crate::norm::shadow(id)
        } else {
            crate::norm::normalize(id)
        }),
        Command::Resolve { id, headers } => Reply::Resolved(resolve(txn, id, headers.as_deref())),
        Command::Print(text) => Reply::Text(text.clone()),
        Command::Nothing => Reply::Nothing,
        Command::Help => Reply::Text(HELP.as_bytes().to_vec()),
        Command::Version => Reply::Text(
            format!(
                "version: This is the noid binder (egg commands), version {}\n",
                env!("CARGO_PKG_VERSION")
            )
            .into_bytes(),
        ),
    })
}

/// `set`, `let`, `add`, `insert` of `value` on (identifier, element).
fn bind<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    minter: &mut Minter,
    agent: &Agent,
    op: Op,
    (id, elem): (&str, &str),
    value: &[u8],
    prior: &mut Option<Prior>,
) -> Result<Reply, BinderError> {
    let id = authorize_change(txn, minter, id, elem)?;
    let view = elements::IdKeys::read(txn, &id)?;
    let had = view.values(elem);
    *prior = Some(prior_of(elem, &had));
    match op {
        Op::Let if !had.is_empty() => {
            return Err(BinderError::refused(format!(
                "cannot proceed on an element ({elem}) that already has a value"
            )))
        }
        Op::Set | Op::Let => {
            elements::remove(txn, &had);
            txn.put(keys::elem(&id, elem), value);
        }
        _ => elements::append(txn, &id, elem, &had, value),
    }
    elements::init_admin(txn, &view, &agent.who, agent.now);
    modified::record(txn, &id, agent.now);
    noid_minter::saves::queue_on_bind(txn, minter, &id, elem, agent.now)?;
    Ok(Reply::Done {
        oxum: Some((value.len(), 1)),
    })
}

/// `incr` and `decr`: `by` added to the element's one integer value (none: 0).
fn incr<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    minter: &mut Minter,
    agent: &Agent,
    (id, elem): (&str, &str),
    by: i64,
    prior: &mut Option<Prior>,
) -> Result<Reply, BinderError> {
    let id = authorize_change(txn, minter, id, elem)?;
    let view = elements::IdKeys::read(txn, &id)?;
    let had = view.values(elem);
    *prior = Some(prior_of(elem, &had));
    if had.len() > 1 {
        return Err(BinderError::refused(format!(
            "cannot increment an element ({elem}) that has {} values",
            had.len()
        )));
    }
    let current = match had.first() {
        None => 0,
        Some((_, v)) => {
            let s = String::from_utf8_lossy(v);
            s.trim().parse::<i64>().map_err(|_| {
                BinderError::refused(format!(
                    "cannot increment an element ({elem}) whose value ({s}) is not an integer"
                ))
            })?
        }
    };
    let value = current
        .checked_add(by)
        .ok_or_else(|| BinderError::refused("integer overflow"))?;
    txn.put(keys::elem(&id, elem), value.to_string());
    elements::init_admin(txn, &view, &agent.who, agent.now);
    modified::record(txn, &id, agent.now);
    Ok(Reply::Number {
        elem: elem.to_string(),
        value,
    })
}

/// `get` and `fetch`: the values of `elems` (every element when empty, the admin
/// elements only with `all`), as (element, value) in order.
fn read<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    id: &str,
    elems: &[String],
    all: bool,
) -> Result<Vec<(String, Vec<u8>)>, BinderError> {
    let base = noid_resolve::read_id(txn, id)?;
    if elems.is_empty() {
        let mut v = elements::all(txn, base)?;
        if !all {
            v.retain(|(e, _)| !elements::is_admin(e));
        }
        return Ok(v);
    }
    let mut v = Vec::new();
    for e in elems {
        for (_, value) in elements::values(txn, base, e)? {
            v.push((e.clone(), value));
        }
    }
    Ok(v)
}

/// `rm` and `delete` (`report`) of every value of (identifier, element).
fn remove<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    minter: &mut Minter,
    agent: &Agent,
    (id, elem): (&str, &str),
    report: bool,
    prior: &mut Option<Prior>,
) -> Result<Reply, BinderError> {
    let id = authorize_change(txn, minter, id, elem)?;
    let view = elements::IdKeys::read(txn, &id)?;
    let had = view.values(elem);
    *prior = Some(prior_of(elem, &had));
    let (count, octets) = elements::remove(txn, &had);
    if count > 0 {
        modified::record(txn, &id, agent.now);
    }
    Ok(if report {
        Reply::Removed {
            id,
            elem: elem.to_string(),
            count,
            octets,
        }
    } else {
        Reply::Done {
            oxum: Some((octets, count)),
        }
    })
}

/// `resolve [HEADERS]`: the egg line protocol's answer line, without its newline.
fn resolve<L: Lookup + ?Sized>(txn: &mut Txn<'_, L>, id: &str, headers: Option<&str>) -> Vec<u8> {
    let mut line = format!("{id}.resolve").into_bytes();
    if let Some(h) = headers {
        line.push(b' ');
        line.extend_from_slice(h.as_bytes());
    }
    let mut out = Vec::new();
    noid_resolve::egg::answer(
        &noid_resolve::Resolver::default(),
        txn,
        &line,
        noid_resolve::egg::Miss::Eggnog,
        &mut out,
    );
    if out.last() == Some(&b'\n') {
        out.pop();
    }
    out
}

/// What `help` prints.
pub const HELP: &str = "\
# noid binder commands (egg syntax): [options] [modifiers] ID.OP [ELEM [VALUE]]
#   or ID|ELEM.OP [VALUE]
# ops: set let add insert incr decr get fetch rm delete purge exists
#      norm shadow resolve [HEADERS]   list MAX [PREFIX...]   next MAX ID [PREFIX...]
#      var pr logmark help version
# modifiers: :hx (decode ^hh), :hxC (decode Chh), :all, :allnot
# options: --ack, --all, --verbose, -m plain|anvl|json|xml
# indirect values: @ (a line), @- (to a blank line), @-- (to the end), @-N (N octets),
#   @-XYZ (to a line XYZ), &NAME (session variable)
# bulk: '-' as the command, then one command per line of input
";
