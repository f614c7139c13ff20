//! One invocation's settings, shared by every command it runs.

use std::path::PathBuf;
use std::time::Duration;

use noid_minter::Context;

/// Where and as whom commands run.
pub struct Invocation {
    /// The Dbdir.
    pub dbdir: PathBuf,
    /// The Dbdir as named (for messages, as Perl printed it).
    pub dbdir_display: String,
    /// Web (`noidu…`) mode: no dbcreate, stderr merged into stdout.
    pub web: bool,
    /// Who is acting.
    pub contact: String,
    /// Progress bars on a terminal allowed (not `--quiet`, not web mode).
    pub progress: bool,
    /// How long to wait for the write lock.
    pub lock_timeout: Duration,
    /// The last context handed out: a bulk run of a million commands would otherwise
    /// format the local time a million times.
    pub last_context: std::cell::RefCell<Option<Context>>,
    /// The exit status a minter's `atlast` setting asked for (`stopN` that stopped,
    /// `wrapN` that wrapped), which replaces the usual 0 or 1.
    pub atlast_status: std::cell::Cell<Option<u8>>,
    /// Egg's session variables (`var NAME VALUE`, read as `&NAME`), kept from one egg
    /// line of a bulk run to the next, as `egg -` keeps them.
    pub egg_vars: std::cell::RefCell<std::collections::HashMap<String, Vec<u8>>>,
}

impl Invocation {
    /// The domain context for an operation starting now.
    pub fn context(&self) -> Context {
        let now = crate::env::now();
        let mut last = self.last_context.borrow_mut();
        match last.as_ref() {
            Some(c) if c.now == now => c.clone(),
            _ => {
                let c = Context::new(self.contact.clone(), now, crate::env::temper);
                *last = Some(c.clone());
                c
            }
        }
    }

    /// Perl's database path in messages (`DIR/NOID/noid.bdb`).
    pub fn dbname(&self) -> String {
        format!("{}/NOID/noid.bdb", self.dbdir_display)
    }
}
