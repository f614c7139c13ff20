//! The verbs of the `noid` command, in one table: for each verb its word, whether it
//! changes a minter, and where it is served. Every place that answers a verb reads it:
//! the CLI's parser (`noid-cli`'s `Request::parse` and the process modes `cli::run`
//! picks first), `noid help`'s topics and summary, web mode's refusals (`noidu…`), and
//! noidr's line protocol (noid-resolve's `noid_line`), which answers a verb it does not serve
//! with "use the noid command" (or "read-only" for a writing verb) instead of "no such
//! command". A verb added here is known to all of them at once.

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
    /// `serve --http ADDR --config FILE`: the binder and minter HTTP API.
    Serve,
    /// `replay LOG`: a binder's write log applied again.
    Replay,
    /// `prune-log --keep N | --before SEQ`: a PostgreSQL minter's change log pruned.
    PruneLog,
    /// `dbimport`: no place serves it; noidr has always refused it as a write.
    DbImport,
}

/// Where a verb is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    /// As the command of `noid … VERB ARGS` on the command line.
    pub cli: bool,
    /// As a line of `noid -` (bulk) or of a web POST body (`?-`); a verb served on the
    /// command line but not here is a mode of the process (`serve`, `replay`,
    /// `prune-log`), not a command: a bulk line naming it is "no such command".
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
    cli: true,
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
/// A mode of the `noid` process, chosen on its command line only.
const MODE: Served = Served {
    cli: true,
    bulk: false,
    web: false,
    noidr: false,
};
/// Served nowhere.
const NOWHERE: Served = Served { cli: false, ..MODE };

const fn verb(name: Name, word: &'static str, writes: bool, served: Served) -> Verb {
    Verb {
        name,
        word,
        writes,
        served,
    }
}

/// Every verb, in the order of Perl Noid's help (`noid help`'s summary and topics),
/// then the process modes.
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
    verb(Name::Serve, "serve", true, MODE),
    verb(Name::Replay, "replay", true, MODE),
    verb(Name::PruneLog, "prune-log", true, MODE),
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
