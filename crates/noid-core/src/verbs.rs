//! The words of the `noid` command, in one table: for each its word, whether it changes
//! a minter, and which lines serve it. Every place that answers a line reads it: the
//! CLI's parser (`noid-cli`'s `Request::parse`), `noid help`'s topics and summary, web
//! mode's refusals (`noidu…`), and noidr's line protocol (noid-resolve's `noid_line`),
//! which answers a verb it does not serve with "use the noid command" (or "read-only"
//! for a writing verb) instead of "no such command". A verb added here is known to all
//! of them at once.
//!
//! The words that start a mode of the `noid` process instead of a command (`serve`,
//! `replay`, `prune-log`, `links`, `explain`, `rules`) are here as words no line serves, so that noidr refuses them
//! as writes; which mode each starts, and that the command line runs it, is noid-cli's
//! (its `mode` module).

/// A verb of the `noid` command; [`VERBS`] says what each one is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    /// `bind How Id Element Value`.
    Bind,
    /// `dbinfo [brief|full|dump]`.
    DbInfo,
    /// `dbcreate [Template …]`.
    DbCreate,
    /// `fetch Id [Element…]`.
    Fetch,
    /// `get Id [Element…]`.
    Get,
    /// `hello`.
    Hello,
    /// `help [Topic]`.
    Help,
    /// `hold set|release Id…`.
    Hold,
    /// `mint N`.
    Mint,
    /// `note Key Value`.
    Note,
    /// `peppermint N`.
    Peppermint,
    /// `queue When Id…`.
    Queue,
    /// `validate Template Id…`.
    Validate,
    /// `import Path`.
    Import,
    /// `export [noid|dbdump]`.
    Export,
    /// `check [--repair]`.
    Check,
    /// `lui encode|decode|normalize …`.
    Lui,
    /// `standing [Id…]`.
    Standing,
    /// `serve`: a mode of the `noid` process (noid-cli), no line's command.
    Serve,
    /// `replay`: a mode of the `noid` process (noid-cli), no line's command.
    Replay,
    /// `prune-log`: a mode of the `noid` process (noid-cli), no line's command.
    PruneLog,
    /// `links`: a mode of the `noid` process (noid-cli), no line's command.
    Links,
    /// `explain`: a mode of the `noid` process (noid-cli), no line's command.
    Explain,
    /// `rules`: a mode of the `noid` process (noid-cli), no line's command.
    Rules,
    /// `index`: a mode of the `noid` process (noid-cli), no line's command.
    Index,
    /// `search`: a mode of the `noid` process (noid-cli), no line's command.
    Search,
    /// `history`: a mode of the `noid` process (noid-cli), no line's command.
    History,
    /// `rewrite`: a mode of the `noid` process (noid-cli), no line's command.
    Rewrite,
    /// `stats`: a mode of the `noid` process (noid-cli), no line's command.
    Stats,
    /// `compact`: a mode of the `noid` process (noid-cli), no line's command.
    Compact,
    /// `dbimport`: no place serves it; noidr has always refused it as a write.
    DbImport,
}

/// Which lines serve a verb.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// As a command: on the command line (`noid … VERB ARGS`), as a line of `noid -`
    /// (bulk) or of a web POST body (`?-`). A verb not served so is no command: a bulk
    /// line naming it is "no such command".
    pub bulk: bool,
    /// In web mode (`noidu…` as a CGI); a bulk verb that is not is refused there with
    /// Perl's `command "VERB" not allowed in URL interface`.
    pub web: bool,
    /// By noidr's noid line protocol (one line in, one line out, read-only).
    pub noidr: bool,
}

/// One verb of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verb {
    /// Which verb.
    pub name: Name,
    /// Its word on a command line.
    pub word: &'static str,
    /// Whether it changes a minter (or creates one).
    pub writes: bool,
    /// Where it is served.
    pub served: Served,
}

/// Served everywhere the noid command runs, not by noidr.
const NOID: Served = Served {
    bulk: true,
    web: true,
    noidr: false,
};
/// Served everywhere, noidr included (the read verbs of one line).
const EVERYWHERE: Served = Served {
    noidr: true,
    ..NOID
};
/// A bulk verb that web mode refuses (Perl's `dbcreate`, and `import`).
const NOT_WEB: Served = Served { web: false, ..NOID };
/// Served by no line: the process modes (noid-cli's) and `dbimport`.
const NOWHERE: Served = Served {
    bulk: false,
    web: false,
    noidr: false,
};

const fn verb(name: Name, word: &'static str, writes: bool, served: Served) -> Verb {
    Verb {
        name,
        word,
        writes,
        served,
    }
}

/// Every verb, in the order of Perl Noid's help (`noid help`'s summary and topics),
/// then the words of the process modes (in the order of their help topics).
pub const VERBS: &[Verb] = &[
    verb(Name::Bind, "bind", true, NOID),
    verb(Name::DbInfo, "dbinfo", false, NOID),
    verb(Name::DbCreate, "dbcreate", true, NOT_WEB),
    verb(Name::Fetch, "fetch", false, EVERYWHERE),
    verb(Name::Get, "get", false, EVERYWHERE),
    verb(Name::Hello, "hello", false, EVERYWHERE),
    verb(Name::Help, "help", false, EVERYWHERE),
    verb(Name::Hold, "hold", true, NOID),
    verb(Name::Mint, "mint", true, NOID),
    verb(Name::Note, "note", true, NOID),
    verb(Name::Peppermint, "peppermint", true, NOID),
    verb(Name::Queue, "queue", true, NOID),
    verb(Name::Validate, "validate", false, NOID),
    verb(Name::Import, "import", true, NOT_WEB),
    verb(Name::Export, "export", false, NOID),
    verb(Name::Check, "check", false, NOID),
    verb(Name::Lui, "lui", false, NOID),
    verb(Name::Standing, "standing", false, NOID),
    verb(Name::Serve, "serve", true, NOWHERE),
    verb(Name::Replay, "replay", true, NOWHERE),
    verb(Name::PruneLog, "prune-log", true, NOWHERE),
    verb(Name::Links, "links", true, NOWHERE),
    verb(Name::Explain, "explain", false, NOWHERE),
    verb(Name::Rules, "rules", false, NOWHERE),
    verb(Name::Index, "index", false, NOWHERE),
    verb(Name::Search, "search", false, NOWHERE),
    verb(Name::History, "history", false, NOWHERE),
    verb(Name::Rewrite, "rewrite", true, NOWHERE),
    verb(Name::Stats, "stats", false, NOWHERE),
    verb(Name::Compact, "compact", true, NOWHERE),
    verb(Name::DbImport, "dbimport", true, NOWHERE),
];

/// The verb spelled `word` (exactly: verbs are lower case).
pub fn find(word: &str) -> Option<&'static Verb> {
    VERBS.iter().find(|v| v.word == word)
}

/// The commands of `noid help` (the verbs a bulk line may name), in Perl's order.
pub fn commands() -> impl Iterator<Item = &'static Verb> {
    VERBS.iter().filter(|v| v.served.bulk)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table as Perl Noid 0.424's help lists its commands (`noid` lines 755–870),
    /// then this project's verbs; words are unique.
    #[test]
    fn table() {
        let words: Vec<&str> = commands().map(|v| v.word).collect();
        assert_eq!(
            words,
            [
                "bind",
                "dbinfo",
                "dbcreate",
                "fetch",
                "get",
                "hello",
                "help",
                "hold",
                "mint",
                "note",
                "peppermint",
                "queue",
                "validate",
                "import",
                "export",
                "check",
                "lui",
                "standing"
            ]
        );
        for v in VERBS {
            assert_eq!(find(v.word), Some(v), "{} is found as itself", v.word);
        }
        let noidr: Vec<&str> = VERBS
            .iter()
            .filter(|v| v.served.noidr)
            .map(|v| v.word)
            .collect();
        assert_eq!(noidr, ["fetch", "get", "hello", "help"]);
        let not_web: Vec<&str> = commands()
            .filter(|v| !v.served.web)
            .map(|v| v.word)
            .collect();
        assert_eq!(not_web, ["dbcreate", "import"]);
        assert_eq!(find("Mint"), None);
    }
}
