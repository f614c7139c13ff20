//! The modes of the `noid` process: a first word of the command line that starts
//! something other than commands (`noid serve`, `noid replay`, `noid prune-log`,
//! `noid links`, `noid explain`, `noid rules`, `noid compact`, …). Their
//! words are in noid-core's verb table, served by no line (so that a bulk line naming
//! one is "no such command" and noidr refuses it as a write); which mode each starts,
//! and that only the command line starts them, is decided here.

use noid_core::verbs::{self, Name, Verb};

/// A mode of the process other than running commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `serve --http ADDR --config FILE`: the binder and minter HTTP API.
    Serve,
    /// `replay LOG`: a binder's write log applied again.
    Replay,
    /// `prune-log --keep N | --before SEQ`: a PostgreSQL minter's change log pruned.
    PruneLog,
    /// `links check|report|archive|mark|unmark|policy|save …`: the targets' health
    /// checked or reported, and their archived copies.
    Links,
    /// `explain ID …`: why an identifier resolves the way it does.
    Explain,
    /// `rules test RULES CASES`: a candidate rules file tried on a table of requests.
    Rules,
    /// `index rebuild|status`: the search index.
    Index,
    /// `search QUERY …`: identifiers found by metadata, target and state.
    Search,
    /// `history ID`: an identifier's logged writes.
    History,
    /// `rewrite --from … --to …` or `rewrite --undo OPID`: change many, or undo.
    Rewrite,
    /// `stats [ID|PREFIX]`: the resolution counts.
    Stats,
    /// `compact`: an embedded minter's tables rewritten into one level.
    Compact,
}

impl Mode {
    /// The mode a command line's first word starts, if it starts one.
    pub fn of(word: &str) -> Option<Mode> {
        verbs::find(word).and_then(Mode::of_verb)
    }

    fn of_verb(v: &Verb) -> Option<Mode> {
        match v.name {
            Name::Serve => Some(Mode::Serve),
            Name::Replay => Some(Mode::Replay),
            Name::PruneLog => Some(Mode::PruneLog),
            Name::Links => Some(Mode::Links),
            Name::Explain => Some(Mode::Explain),
            Name::Rules => Some(Mode::Rules),
            Name::Index => Some(Mode::Index),
            Name::Search => Some(Mode::Search),
            Name::History => Some(Mode::History),
            Name::Rewrite => Some(Mode::Rewrite),
            Name::Stats => Some(Mode::Stats),
            Name::Compact => Some(Mode::Compact),
            _ => None,
        }
    }
}

/// A mode's `args` parsed as the command `name` (`noid prune-log`, …); `Err` is the
/// exit status after clap printed why: 2 for a usage error, 0 for `--help`.
pub fn parse_args<P: clap::Parser>(name: &str, args: &[String]) -> Result<P, u8> {
    P::try_parse_from(std::iter::once(name.to_string()).chain(args.iter().cloned())).map_err(|e| {
        let _ = e.print();
        if e.use_stderr() {
            2
        } else {
            0
        }
    })
}

/// The words of the modes, in the verb table's order (that of their help topics).
pub fn words() -> impl Iterator<Item = &'static str> {
    verbs::VERBS
        .iter()
        .filter(|v| Mode::of_verb(v).is_some())
        .map(|v| v.word)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The modes, by their words; no command is a mode, and no mode is a command.
    #[test]
    fn modes_are_these_words_and_no_command() {
        assert_eq!(
            words().collect::<Vec<_>>(),
            [
                "serve",
                "replay",
                "prune-log",
                "links",
                "explain",
                "rules",
                "index",
                "search",
                "history",
                "rewrite",
                "stats",
                "compact"
            ]
        );
        assert_eq!(Mode::of("history"), Some(Mode::History));
        assert_eq!(Mode::of("rewrite"), Some(Mode::Rewrite));
        assert_eq!(Mode::of("stats"), Some(Mode::Stats));
        assert_eq!(Mode::of("compact"), Some(Mode::Compact));
        assert_eq!(Mode::of("links"), Some(Mode::Links));
        assert_eq!(Mode::of("serve"), Some(Mode::Serve));
        assert_eq!(Mode::of("replay"), Some(Mode::Replay));
        assert_eq!(Mode::of("prune-log"), Some(Mode::PruneLog));
        assert_eq!(Mode::of("links"), Some(Mode::Links));
        for v in verbs::VERBS {
            assert!(!(v.served.bulk && Mode::of(v.word).is_some()), "{}", v.word);
        }
        assert_eq!(Mode::of("dbimport"), None);
        assert_eq!(Mode::of("Serve"), None);
    }
}
