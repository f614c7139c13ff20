//! `noid -f Dbdir compact`: rewrite an embedded minter's tables into one sorted level
//! (noid-store's `Store::compact`; docs/SCALING.md, "Capacity on one machine"). Not a
//! Perl verb: like `prune-log`, it never comes from bulk lines or the web.

use clap::{Parser, ValueEnum};
use noid_store::{Compaction, Levels, TableIndex};

use crate::invocation::Invocation;

/// noid compact: rewrite an embedded minter's tables into one sorted level.
///
/// A bulk load of identifiers in no key order leaves the store's tables in several
/// levels, and every lookup that misses (a chop-back's ancestors, a resolver asked for
/// an unknown identifier) and every range read consults each level. After loading
/// millions of identifiers, compacting puts them all in the last level, so that
/// lookups cost what they cost in a small store. It rewrites every table, so tables
/// written by an earlier version take this version's table options. It holds the
/// writers' lock while it runs (other writers wait, as for any write; resolvers keep
/// answering), needs free disk for a second copy of the store while it runs, and
/// changes no key or value:
/// `noid export` is the same before and after. A minter held by PostgreSQL has no such
/// tables (PostgreSQL's autovacuum keeps its own); a follower's local copy is compacted
/// by its noidr in the background.
///
/// With --index, the tables are rewritten with their index and filters laid out as it
/// says, and every writer after writes them so (the store's setting, kept in
/// NOID/table-index). Whole (the default) is the fastest while every resolver can hold
/// the store's index and filters in memory, about 7 bytes per identifier of N2T's
/// shape, whatever its --cache-mb. In pieces, a resolver holds in memory only the
/// pieces that fit in half its block cache, so that its memory stays within what it was
/// given, at some cost per lookup: at 50 million identifiers, an Apache child with
/// mod_noid's cache-mb=64 held 208 MB instead of 817 at the same request rate, while
/// a single noidr spent a quarter more CPU per hit (docs/SCALING.md, "Memory, bounded
/// by configuration"). The resolvers log, as they open, which they hold.
#[derive(Parser, Debug)]
#[command(name = "noid compact")]
struct CompactArgs {
    /// How the tables hold their index and filters, from now on.
    #[arg(long, value_enum, value_name = "LAYOUT")]
    index: Option<IndexArg>,
}

/// `--index`'s values.
#[derive(Clone, Copy, Debug, ValueEnum)]
enum IndexArg {
    /// One index block and one filter block per table.
    Whole,
    /// Index and filters in 4 KB pieces, held in memory as the block cache allows.
    Pieces,
}

impl From<IndexArg> for TableIndex {
    fn from(a: IndexArg) -> TableIndex {
        match a {
            IndexArg::Whole => TableIndex::Whole,
            IndexArg::Pieces => TableIndex::Pieces,
        }
    }
}

/// The command's definition, named as a subcommand of noid's, for noid(1) and the
/// shell completions.
#[cfg(test)]
pub fn command() -> clap::Command {
    <CompactArgs as clap::CommandFactory>::command().name("compact")
}

/// Run `compact ARGS` on the session's minter: 0 when compacted, 1 when it could not
/// be (with why on stderr), 2 for bad arguments.
pub fn run(session: &Invocation, args: &[String]) -> u8 {
    let parsed = match crate::mode::parse_args::<CompactArgs>("noid compact", args) {
        Ok(a) => a,
        Err(code) => return code,
    };
    let store = match crate::store::open_writer(session) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    match store.compact(parsed.index.map(TableIndex::from)) {
        Ok(Some(c)) => {
            print!("{}", report(&c));
            0
        }
        Ok(None) => {
            eprintln!(
                "error: {}: a minter held by PostgreSQL has no tables of noid's to compact \
                 (PostgreSQL's autovacuum keeps its own)",
                session.dbdir_display
            );
            1
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// What a compaction did, as `noid compact` prints it: the tables before and after,
/// level by level, the time it took, and how the tables hold their index and filters.
fn report(c: &Compaction) -> String {
    format!(
        "compacted in {:.1} s\nbefore: {}\nafter:  {}\nindex and filters: {}\n",
        c.took.as_secs_f64(),
        levels(&c.before),
        levels(&c.after),
        match c.index {
            TableIndex::Whole => "whole",
            TableIndex::Pieces => "in pieces",
        }
    )
}

/// `N table files, B bytes (level L: N, …)`.
fn levels(l: &Levels) -> String {
    let files = l.files();
    let each: Vec<String> =
        l.0.iter()
            .map(|v| format!("level {}: {}", v.level, v.files))
            .collect();
    format!(
        "{files} table file{}, {} bytes{}",
        if files == 1 { "" } else { "s" },
        l.bytes(),
        if each.is_empty() {
            String::new()
        } else {
            format!(" ({})", each.join(", "))
        }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_store::Level;

    #[test]
    fn a_report_names_each_level_and_the_totals() {
        let c = Compaction {
            before: Levels(vec![
                Level {
                    level: 0,
                    files: 3,
                    bytes: 300,
                },
                Level {
                    level: 6,
                    files: 1,
                    bytes: 1000,
                },
            ]),
            after: Levels(vec![Level {
                level: 6,
                files: 1,
                bytes: 1200,
            }]),
            took: std::time::Duration::from_millis(1250),
            index: TableIndex::Whole,
        };
        assert_eq!(
            report(&c),
            "compacted in 1.2 s\nbefore: 4 table files, 1300 bytes (level 0: 3, level 6: 1)\n\
             after:  1 table file, 1200 bytes (level 6: 1)\nindex and filters: whole\n"
        );
        let empty = Compaction {
            before: Levels::default(),
            after: Levels::default(),
            took: std::time::Duration::ZERO,
            index: TableIndex::Pieces,
        };
        assert_eq!(
            report(&empty),
            "compacted in 0.0 s\nbefore: 0 table files, 0 bytes\nafter:  0 table files, 0 bytes\n\
             index and filters: in pieces\n"
        );
    }
}
