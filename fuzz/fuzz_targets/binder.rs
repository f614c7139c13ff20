//! The egg binder command language (`noid-egg`), whole commands: any script, parsed
//! as the web API parses it (remote: no files) and executed on an in-memory minter,
//! parses into commands or errors and executes without a panic; every reply renders.
//!
//! Beyond "no panic": every write that parses renders back (`canonical::canonical`, the
//! self-contained `:hx` line the write log keeps and `noid replay` runs) to a line that
//! parses, in a fresh session, into the same command; a replayed log would otherwise
//! write something else than what was acknowledged.
//!
//! And the commands' effect is a model's: a map of identifier to element to values,
//! changed alongside by each write that succeeded (`set` and `let` replace, `add` and
//! `insert` append, `incr`/`decr` add to the one integer, `rm`/`delete` remove the
//! element, `purge` the identifier) and left as it was by one that failed. After each
//! line every identifier written so far reads back (`elements::all`, the admin
//! elements `_,ep` and `_,ec` aside) exactly as the model holds it.
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use noid_core::MemLookup;
use noid_egg::elements::{self, is_admin};
use noid_egg::canonical::canonical;
use noid_egg::{execute, render, Agent, Command, Op, Reply, Session};
use noid_minter::{Minter, Txn};

/// What the binder must hold: per stored identifier, per element, its values in order.
type Model = BTreeMap<String, BTreeMap<String, Vec<Vec<u8>>>>;

/// The change a write that succeeded made, applied to `model`; the identifier it names
/// in its stored spelling (`None` for a command that writes nothing).
fn apply(model: &mut Model, minter: &Minter, command: &Command) -> Option<String> {
    let stored = |id: &str| -> String {
        minter
            .gate
            .admit(id)
            .expect("a write that succeeded names an admitted identifier")
            .into_owned()
    };
    match command {
        Command::Bind {
            op,
            id,
            elem,
            value,
        } => {
            let id = stored(id);
            if !is_admin(elem) {
                let values = model
                    .entry(id.clone())
                    .or_default()
                    .entry(elem.clone())
                    .or_default();
                match op {
                    Op::Set | Op::Let => *values = vec![value.clone()],
                    _ => values.push(value.clone()),
                }
            }
            Some(id)
        }
        Command::Incr { id, elem, by } => {
            let id = stored(id);
            if !is_admin(elem) {
                let values = model
                    .entry(id.clone())
                    .or_default()
                    .entry(elem.clone())
                    .or_default();
                assert!(
                    values.len() <= 1,
                    "incr succeeded on {} values",
                    values.len()
                );
                let current: i64 = match values.first() {
                    None => 0,
                    Some(v) => String::from_utf8_lossy(v)
                        .trim()
                        .parse()
                        .expect("an integer"),
                };
                let new = current
                    .checked_add(*by)
                    .expect("no overflow: incr succeeded");
                *values = vec![new.to_string().into_bytes()];
            }
            Some(id)
        }
        Command::Remove { id, elem, .. } => {
            let id = stored(id);
            if let Some(elems) = model.get_mut(&id) {
                elems.remove(elem);
            }
            Some(id)
        }
        Command::Purge { id } => {
            let id = stored(id);
            model.remove(&id);
            Some(id)
        }
        _ => None,
    }
}

/// `id` as the binder holds it: (element, value) by element, values in order.
fn held<L: noid_core::Lookup + ?Sized>(txn: &Txn<'_, L>, id: &str) -> Vec<(String, Vec<u8>)> {
    let mut all = elements::all(txn, id).expect("an in-memory read");
    all.retain(|(elem, _)| !is_admin(elem));
    all
}

/// `id` as the model holds it, in the same order.
fn modelled(model: &Model, id: &str) -> Vec<(String, Vec<u8>)> {
    model
        .get(id)
        .into_iter()
        .flatten()
        .flat_map(|(elem, values)| values.iter().map(move |v| (elem.clone(), v.clone())))
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let store = MemLookup::new();
    store.insert(":/template", "");
    let mut txn = Txn::new(&store);
    let Ok(mut minter) = Minter::load(&txn) else {
        return;
    };
    let agent = Agent {
        who: "fuzz".into(),
        now: 1_700_000_000,
    };
    let mut session = Session::new(true);
    let mut stdin: &[u8] = b"";
    let mut model = Model::new();
    let mut written: Vec<String> = Vec::new();
    for line in text.lines().take(32) {
        let parsed = session.parse(line, &mut stdin);
        if let Ok(command) = &parsed.command {
            if let Some(replay) = canonical(command) {
                let again = Session::new(true).parse(&replay, &mut &b""[..]);
                assert_eq!(
                    again.command.as_ref().ok(),
                    Some(command),
                    "{line:?} renders as {replay:?}, which parses otherwise: {:?}",
                    again.command
                );
            }
            let reply = execute(&mut txn, &mut minter, &agent, command);
            let _ = render(&reply, &parsed.settings);
            if !matches!(reply, Reply::Error(_)) {
                if let Some(id) = apply(&mut model, &minter, command) {
                    if !written.contains(&id) {
                        written.push(id);
                    }
                }
            }
            for id in &written {
                assert_eq!(
                    held(&txn, id),
                    modelled(&model, id),
                    "{id:?} after {line:?} ({command:?} answered {reply:?})"
                );
            }
        }
    }
});
