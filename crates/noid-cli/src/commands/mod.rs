//! The noid commands, one module per command family. Each fills an [`Out`]; none
//! writes to the terminal or commits by itself (except `mint`, which commits in
//! batches so that identifiers are printed only once they are durable).

pub mod bind;
pub mod dbcreate;
pub mod lui;
pub mod mint;
pub mod port;
pub mod read;
pub mod simple;

/// How a command touches the minter, which decides how it is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Needs no database (`hello`, `help`, `lui`).
    Plain,
    /// Creates a minter (`dbcreate`).
    Create,
    /// Reads only (`fetch`, `get`, `dbinfo`, `validate`): no lock taken.
    Read,
    /// Changes the minter (`mint`, `bind`, `hold`, `queue`, `note`, `peppermint`).
    Write,
    /// Moves a whole minter in or out, or checks it (`import`, `export`, `check`).
    Port,
}

/// The kind of `cmd`, or None for an unknown command.
pub fn kind(cmd: &str) -> Option<Kind> {
    Some(match cmd {
        "hello" | "help" | "lui" => Kind::Plain,
        "dbcreate" => Kind::Create,
        "fetch" | "get" | "dbinfo" | "validate" => Kind::Read,
        "mint" | "peppermint" | "bind" | "hold" | "queue" | "note" => Kind::Write,
        "import" | "export" | "check" => Kind::Port,
        _ => return None,
    })
}
