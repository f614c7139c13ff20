//! The command line: global options through clap, then a Perl-style command word and
//! its arguments, which bulk and web modes also feed from other sources.

use clap::{Parser, ValueHint};

/// mint, bind and resolve persistent identifiers
///
/// noid is a Rust Noid, compatible with Perl Noid 0.424 minters, commands and output.
#[derive(Parser, Debug)]
#[command(
    name = "noid",
    disable_version_flag = true,
    after_help = "Commands (noid help COMMAND for details):\n  dbcreate [--atlast addN|stopN|wrapN] [Template [Term [NAAN NAA SubNAA]]]\n                                                  create a minter in Dbdir/NOID\n                                                  (noid help templates)\n  mint N | peppermint N                           mint N identifiers\n  bind How Id Element Value                       bind (How: new replace set append add\n                                                  prepend insert delete purge mint peppermint)\n  fetch Id [Element...] | get Id [Element...]     show bindings (labelled | bare)\n  hold set|release Id...                          place or remove holds\n  queue now|first|lvf|delete|N[ds] Id...          queue ids for (re)minting\n  validate Template|- Id...                       check ids against a template\n  note Key Value                                  store a user note\n  dbinfo [brief|full|dump]                        show the minter's keys\n  import Path | export [noid|dbdump] | check [--repair]\n  prune-log --keep N | --before SEQ               drop old change-log rows (PostgreSQL;\n                                                  noid prune-log --help)\n  compact                                         rewrite the tables into one level, after\n                                                  bulk loads (noid compact --help)\n  lui encode|decode|normalize ...                 Crockford base32 LUIs (noid lui --help)\n  standing [Id...]                                which kernel elements Ids lack (every Id if none)\n  links check|report [options]                    check every target, report their health\n                                                  (noid links --help; docs/LINKS.md)\n  links archive|mark|unmark|policy|save ...       archived copies of broken targets\n  explain Id [--accept TYPE] [--rules FILE]       why Id resolves as it does, step by step\n  rules test RULES CASES                          a rules file tried on a table of requests\n  index rebuild|status                            the search index (noid index --help)\n  search QUERY [--format table|csv|json|anvl]     find identifiers by metadata, target, state\n                                                  (noid search --help; docs/SEARCH.md)\n  history Id [--format table|json|csv]            an Id's logged writes: who, when, old -> new\n  rewrite --from PREFIX --to PREFIX [--dry-run]   change many targets (or --element); prints\n                                                  op: OPID (noid rewrite --help; docs/HISTORY.md)\n  rewrite --undo OPID                             put back what that operation changed\n  stats [Id|Prefix] [--days N] [--format csv|json]\n                                                  resolution counts of noidr --counts\n                                                  (noid stats --help; docs/COUNTS.md)\n  serve --http ADDR --config FILE                 the binder and minter HTTP API (noid serve --help)\n  replay LOG                                      apply a binder's write log again\n  hello | help [Topic]\n  -                                               run one command per stdin line (bulk)\n\nOptions must come before the command; everything after it is passed as is, so\nvalues starting with '-' or '+' are bound literally. Egg commands (ID.OP …, list,\nnext; docs/API.md) take egg's options and modifiers (-m FORMAT, --ack, --all, :hx)\nafter noid's own.\n\nExit status: 0 on success, 1 when a command failed or was refused, 2 for usage errors."
)]
pub struct Args {
    /// Minter directory (Dbdir); the database lives in Dbdir/NOID. Defaults to $NOID,
    /// then the part after '_' in the program name (noid_fk9 → fk9), then ".".
    #[arg(short = 'f', value_name = "Dbdir", value_hint = ValueHint::DirPath)]
    pub dbdir: Option<String>,

    /// Print the version and exit.
    #[arg(short = 'v', long = "version")]
    pub version: bool,

    /// No progress bars (import, export, check and bulk `noid -` draw them on standard
    /// error when it is a terminal).
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// Seconds to wait for another noid process that holds the minter's write lock.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub lock_timeout: u64,

    /// The command and its arguments ("-" for bulk mode).
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[cfg(test)]
mod tests {
    use clap::{Command, CommandFactory};

    use super::Args;
    use crate::output::Out;
    use crate::usage::usage;

    /// What `noid help` prints (without Perl's continuation spaces after newlines).
    fn noid_help() -> String {
        let mut out = Out::default();
        usage(&mut out, false, false, "");
        String::from_utf8(out.stdout).unwrap().replace("\n ", "\n")
    }

    /// noid as its man page and completions describe it: the options of [`Args`], the
    /// commands of `noid help` as subcommands (so that `noid <TAB>` offers them), then
    /// `prune-log` with its own options, and a page that lists them with `noid help`'s
    /// own summary and `prune-log`'s, followed by the paragraphs of `noid --help` after
    /// its short list.
    fn documented() -> Command {
        let cmd = Args::command();
        let help = noid_help();
        let (_, summary) = help
            .split_once("Summary:\n")
            .expect("noid help has a summary");
        let notes = cmd
            .get_after_help()
            .expect("noid --help has notes")
            .to_string();
        let (_, notes) = notes
            .split_once("\n\n")
            .expect("notes after the short list");
        let page = format!(
            "Commands: noid help COMMAND explains each.{}\n\n\
             noid prune-log --keep N | --before SEQ drops old rows of a PostgreSQL \
             minter's change log (noid prune-log --help).\n\n\
             noid history Id shows an identifier's logged writes, old value and new; \
             noid rewrite --from PREFIX --to PREFIX changes many targets at once, with \
             --dry-run to preview and --undo OPID to put them back (noid rewrite --help; \
             docs/HISTORY.md).\n\n{notes}\n\n\
             See also: noidr(8); /usr/share/doc/noid/README.md and the noid manual.",
            summary.trim_end()
        );
        cmd.after_long_help(page)
            .disable_help_subcommand(true)
            .subcommands(noid_core::verbs::commands().map(|c| Command::new(c.word)))
            .subcommand(crate::prune::command())
            .subcommand(crate::links::command())
            .subcommands(crate::resolving::commands())
            .subcommands(crate::search::commands())
            .subcommands(crate::history::commands())
            .subcommand(crate::stats::command())
            .subcommand(crate::compact::command())
    }

    /// `noid --help` names every verb the command line serves (the verb table's).
    #[test]
    fn help_names_every_verb() {
        let notes = Args::command()
            .get_after_help()
            .expect("noid --help has notes")
            .to_string();
        let commands = noid_core::verbs::commands().map(|v| v.word);
        for word in commands.chain(crate::mode::words()) {
            assert!(
                notes.contains(&format!("\n  {word} ")) || notes.contains(&format!("| {word} ")),
                "noid --help does not name {word}"
            );
        }
    }

    /// The package's noid(1) and shell completions are what this definition makes.
    #[test]
    fn man_page_and_completions_are_in_sync() {
        noid_package::check_generated(documented(), "1");
    }
}
