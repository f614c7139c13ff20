//! One invocation's settings, shared by every command it runs.

use std::path::PathBuf;
use std::time::Duration;

use noid_minter::Context;

/// Where and as whom commands run.
pub struct Session {
    /// The Dbdir.
    pub dbdir: PathBuf,
    /// The Dbdir as named (for messages, as Perl printed it).
    pub dbdir_display: String,
    /// Web (`noidu…`) mode: no dbcreate, stderr merged into stdout.
    pub web: bool,
    /// Who is acting.
    pub contact: String,
    /// How long to wait for the write lock.
    pub lock_timeout: Duration,
}

impl Session {
    /// The domain context for an operation starting now.
    pub fn context(&self) -> Context {
        Context::new(self.contact.clone(), crate::env::now(), crate::env::temper)
    }

    /// Perl's database path in messages (`DIR/NOID/noid.bdb`).
    pub fn dbname(&self) -> String {
        format!("{}/NOID/noid.bdb", self.dbdir_display)
    }
}
