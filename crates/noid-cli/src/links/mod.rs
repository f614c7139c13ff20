//! `noid -f Dbdir links …`: the health of the minter's targets and the archived copies
//! that stand in for broken ones (docs/LINKS.md). Not a Perl verb: like `prune-log`, it
//! never comes from bulk lines or the web. Built with the cargo feature `links` (on by
//! default): the checker and the archive client are async (tokio, hyper), which a
//! `noid` built without it does not hold.
//!
//! * `health`: `check` and `report` (crate noid-links);
//! * `archive`: `archive`, `mark`, `unmark`, `policy`, `save` (crate noid-archive).

mod archive;
mod health;

use clap::{Parser, Subcommand};

use crate::invocation::Invocation;

/// noid links: check every target of the minter's identifiers, report their health,
/// and keep archived copies to fall back on.
///
/// A target is each URL an identifier has: its _t (each line of a multi-target
/// value), its content-negotiation (_,eTm,TYPE) and inflection (_,eTi,SUFFIX)
/// targets. Statuses: ok, redirected, failing, broken, blocked, soft404, parked,
/// drifted (docs/LINKS.md says how each is decided).
#[derive(Parser, Debug)]
#[command(name = "noid links")]
struct Links {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Ask every target (or those under a prefix, or of the identifiers listed),
    /// record what was found, and print how many targets have each status. Where the
    /// archived-copy policy covers an identifier whose target turns broken, its most
    /// recent archived copy is looked up and kept.
    Check(health::CheckArgs),
    /// Write one row per checked target: id,target,status,http,checked,since,detail,
    /// location,failures (times in UTC, RFC 3339).
    Report(health::ReportArgs),
    #[command(flatten)]
    Archived(archive::What),
}

/// The command's definition, named as a subcommand of noid's, for noid(1) and the
/// shell completions.
#[cfg(test)]
pub fn command() -> clap::Command {
    <Links as clap::CommandFactory>::command().name("links")
}

/// Run `links ARGS` on the session's minter.
pub fn run(session: &Invocation, args: &[String]) -> u8 {
    let parsed: Links = match crate::mode::parse_args("noid links", args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let result = match parsed.command {
        Command::Check(a) => health::check(session, a),
        Command::Report(a) => health::report(session, a),
        Command::Archived(what) => return archive::run(session, what),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("noid links: {e}");
            1
        }
    }
}
