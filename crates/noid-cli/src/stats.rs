//! `noid -f Dbdir stats [ID|PREFIX]`: the resolution counts that `noidr --counts`
//! writes in `Dbdir/counts/` (crate `noid-counts`), summed over every process's
//! segment, for one identifier, a shoulder or all; for a minter held by PostgreSQL,
//! the sum its web nodes shipped to its database (`noid_binder::usage`). A mode of
//! the process: it never comes from bulk lines or the web.

use clap::{Parser, ValueEnum};
use noid_binder::usage::{self, CountsSource};
use noid_counts::{counts_dir_of, today, Query};

use crate::invocation::Invocation;

/// noid stats: how often identifiers were resolved, per UTC day, as counted by
/// noidr --counts (prg and --http): redirects by code, misses, inflections and other
/// pages, with robots (by the COUNTER-Robots list of User-Agents) apart from people,
/// and the most resolved and most asked missing identifiers.
///
/// ID|PREFIX selects an identifier and every identifier that starts with it (a
/// shoulder: ark:/99999/fk4); ark:/NAAN and ark:NAAN are the same. The text and JSON
/// formats give the totals, each day's counts and the lists; CSV gives one row per
/// day, identifier, kind and class. Counts reach the store every --counts-interval
/// (5 s) of each noidr. --compact folds the files of the noidr processes that have
/// ended into one (safe while others write). For a minter held by PostgreSQL, the
/// counts are those its web nodes (noidr --follow --counts) shipped to its database,
/// added up.
#[derive(Parser, Debug)]
#[command(name = "noid stats")]
struct StatsArgs {
    /// An identifier, or a prefix of identifiers (a shoulder); all when left out.
    subject: Option<String>,
    /// How many days, up to and including today (UTC).
    #[arg(long, value_name = "N", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(1..=36_600))]
    days: u32,
    /// How to print the counts.
    #[arg(long, value_enum, default_value_t = StatsFormat::Text)]
    format: StatsFormat,
    /// How many identifiers the most-resolved and most-asked-missing lists name.
    #[arg(long, value_name = "N", default_value_t = 20)]
    top: usize,
    /// Fold the counts files of processes that have ended into one first.
    #[arg(long)]
    compact: bool,
}

#[derive(ValueEnum, Debug, Clone, Copy)]
enum StatsFormat {
    /// Totals, then the lists.
    Text,
    /// One row per day, identifier, kind and class, with a header row.
    Csv,
    /// The totals, every day's counts and the lists.
    Json,
}

/// The command's definition, named as a subcommand of noid's, for noid(1) and the
/// shell completions.
#[cfg(test)]
pub fn command() -> clap::Command {
    <StatsArgs as clap::CommandFactory>::command().name("stats")
}

/// `noid stats …`.
pub fn run(session: &Invocation, args: &[String]) -> u8 {
    let a: StatsArgs = match crate::mode::parse_args("noid stats", args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    if a.compact {
        match usage::compact(&session.dbdir) {
            Ok(done) => eprintln!(
                "compacted: {} files folded into one, {} already folded removed",
                done.folded, done.leftovers
            ),
            Err(e) => {
                eprintln!(
                    "error: cannot compact {}: {e}",
                    counts_dir_of(&session.dbdir).display()
                );
                return 1;
            }
        }
    }
    let query = Query {
        subject: a.subject,
        to: today(),
        days: a.days,
        top: a.top,
    };
    let report = match usage::report(&session.dbdir, &query) {
        Ok((report, CountsSource::Local { exists, path })) => {
            if !exists {
                eprintln!(
                    "no counts in {} (noidr counts with --counts)",
                    path.display()
                );
            }
            report
        }
        Ok((report, CountsSource::Postgres { .. })) => report,
        Err(e) => {
            eprintln!(
                "error: cannot read the counts of {}: {e}",
                session.dbdir.display()
            );
            return 1;
        }
    };
    print!(
        "{}",
        match a.format {
            StatsFormat::Text => report.text(),
            StatsFormat::Csv => report.csv(),
            StatsFormat::Json => report.json(),
        }
    );
    0
}
