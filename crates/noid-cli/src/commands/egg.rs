//! Egg commands (`ID.set ELEM VALUE`, `ID.fetch` …, the language of EggNog and of
//! N2T's API, crate `noid-egg`) next to Perl Noid's verbs: a command whose first
//! word has the `ID.OP` form is egg. It runs in the write batch like `bind`, so a
//! binding made either way is the same key and `noidr` resolves it at once.

use std::io::BufReader;

use noid_egg::{Agent, Session};

use super::{Failed, Writing};
use crate::output::Out;

/// One egg command, as its words.
#[derive(Debug)]
pub struct Egg {
    words: Vec<String>,
    web: bool,
}

impl Egg {
    /// The command's words (options, modifiers, `ID.OP`, arguments).
    pub fn parse(words: Vec<String>, web: bool) -> Egg {
        Egg { words, web }
    }

    /// Run it within the write batch `w`. Indirect tokens (`@`, `@-` …) read standard
    /// input; in bulk mode, where standard input carries the commands, they read the
    /// lines after the command (as `egg -` does), and `@FILE` reads the file (never in
    /// web mode).
    pub fn run(&self, w: &mut Writing<'_, '_>, out: &mut Out) -> Result<(), Failed> {
        let files = |p: &str| std::fs::read(p);
        let mut session = Session::new(self.web);
        if !self.web {
            session.files = Some(&files);
        }
        session.binder = w.session.dbdir_display.clone();
        session.vars = std::mem::take(&mut *w.session.egg_vars.borrow_mut());
        let agent = Agent {
            who: w.session.contact.clone(),
            now: crate::env::now(),
        };
        let outcome = match (w.stdin.as_mut(), w.commands.as_mut()) {
            (Some(stdin), _) => {
                let mut input = BufReader::new(stdin);
                session.run_tokens(w.txn, w.minter, &agent, &self.words, &mut input)
            }
            (None, Some(commands)) => {
                session.run_tokens(w.txn, w.minter, &agent, &self.words, &mut **commands)
            }
            (None, None) => {
                session.run_tokens(w.txn, w.minter, &agent, &self.words, &mut std::io::empty())
            }
        };
        *w.session.egg_vars.borrow_mut() = std::mem::take(&mut session.vars);
        out.out(outcome.output);
        match outcome.error {
            None => Ok(()),
            Some(_) => {
                out.failed = true;
                Err(Failed::Reported)
            }
        }
    }
}
