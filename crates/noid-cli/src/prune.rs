//! `noid -f Dbdir prune-log --keep N | --before SEQ [--ignore-followers]
//! [--forget-after SECS]`: drop old rows of a PostgreSQL minter's change log
//! (noid-store's `pg` `prune`; docs/SCALING.md). Not a Perl verb: like `serve` and
//! `replay`, it never comes from bulk lines or the web.

use clap::{ArgGroup, Parser};
use noid_store::pg::prune::{prune, Followers, Keep};
use noid_store::pg::Location;
use noid_store::Layout;

use crate::invocation::Invocation;

/// noid prune-log: drop old rows of a PostgreSQL minter's change log.
///
/// Followers (noidr --follow) apply the change log from where they stopped; one whose
/// position was pruned copies the minter anew from a snapshot, so keep enough of the
/// log for the followers that may be behind (stopped, partitioned). Each follower
/// records the change it is at in the database, and the changes a follower still needs
/// are kept unless --ignore-followers is given. Writers are not held up. Only minters
/// held by PostgreSQL have a change log.
#[derive(Parser, Debug)]
#[command(name = "noid prune-log", group(ArgGroup::new("which").required(true)))]
struct PruneLog {
    /// Keep the last N commits, drop the older ones (0 drops the whole log).
    #[arg(long, value_name = "N", group = "which")]
    keep: Option<u32>,
    /// Drop every commit numbered below SEQ (the number a follower reports as its
    /// applied change, noidr_follow_applied_seq).
    #[arg(long, value_name = "SEQ", group = "which")]
    before: Option<u64>,
    /// Drop what --keep or --before says even where a follower has not applied it
    /// yet (that follower copies the minter anew).
    #[arg(long)]
    ignore_followers: bool,
    /// Followers not heard of for SECS seconds (stopped, or taken away) no longer hold
    /// changes back.
    #[arg(long, value_name = "SECS", default_value_t = 7 * 86_400)]
    forget_after: u64,
}

/// The command's definition, named as a subcommand of noid's, for noid(1) and the
/// shell completions.
#[cfg(test)]
pub fn command() -> clap::Command {
    <PruneLog as clap::CommandFactory>::command().name("prune-log")
}

/// Run `prune-log ARGS` on the session's minter.
pub fn run(session: &Invocation, args: &[String]) -> u8 {
    let parsed: PruneLog = match crate::mode::parse_args("noid prune-log", args) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let keep = match (parsed.keep, parsed.before) {
        (Some(n), _) => Keep::Last(i64::from(n)),
        (None, Some(seq)) => Keep::From(i64::try_from(seq).unwrap_or(i64::MAX)),
        (None, None) => unreachable!("clap requires one"),
    };
    let loc = match Location::read(&Layout::new(&session.dbdir)) {
        Ok(Some(loc)) => loc,
        Ok(None) => {
            eprintln!(
                "error: {}: not a minter held by PostgreSQL (no NOID/backend); only those \
                 have a change log",
                session.dbdir_display
            );
            return 1;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let followers = if parsed.ignore_followers {
        Followers::Ignore
    } else {
        Followers::Respect {
            forget_after: std::time::Duration::from_secs(parsed.forget_after),
        }
    };
    match prune(&loc, keep, followers) {
        Ok(p) => {
            let held = if p.first_kept > p.head {
                format!("the change log is empty (head {})", p.head)
            } else {
                format!(
                    "the change log holds changes {} to {}",
                    p.first_kept, p.head
                )
            };
            let plural = if p.commits == 1 { "" } else { "s" };
            let kept = match &p.held_for {
                Some((name, applied)) => {
                    format!("; kept from change {} for follower {name}", applied + 1)
                }
                None => String::new(),
            };
            println!("ok: pruned {} change{plural}; {held}{kept}", p.commits);
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
