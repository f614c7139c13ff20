//! The egg binder command language (`noid-egg`), whole commands: any script, parsed
//! as the web API parses it (remote: no files) and executed on an in-memory minter,
//! parses into commands or errors and executes without a panic; every reply renders.
//!
//! Beyond "no panic": every write that parses renders back (`writelog::canonical`, the
//! self-contained `:hx` line the write log keeps and `noid replay` runs) to a line that
//! parses, in a fresh session, into the same command; a replayed log would otherwise
//! write something else than what was acknowledged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use noid_core::MemLookup;
use noid_egg::writelog::canonical;
use noid_egg::{execute, render, Agent, Session};
use noid_minter::{Minter, Txn};

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
        }
    }
});
