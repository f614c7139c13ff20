//! The closed set of binder commands, and the operation words that name them.

/// An operation word (`ID.OP`), as EggNog names them; aliases map to one variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `set`: replace every value of the element.
    Set,
    /// `let`: set, only if the element has no value.
    Let,
    /// `add` (`another`, `vinsert`): append a value.
    Add,
    /// `insert`: EggNog appends it too.
    Insert,
    /// `incr`: add an integer (default 1) to the element's one value.
    Incr,
    /// `decr`: subtract an integer (default 1).
    Decr,
    /// `get`: values (labelled except in plain format).
    Get,
    /// `fetch`: labelled values.
    Fetch,
    /// `rm`: remove every value, silently.
    Rm,
    /// `delete`: remove every value, and say how many.
    Delete,
    /// `purge`: remove every element of the identifier.
    Purge,
    /// `exists`: whether the identifier (or one of its elements) is bound.
    Exists,
    /// `var`: set a session variable (`&NAME` expands to it).
    Var,
    /// `pr`: print the arguments.
    Pr,
    /// `logmark`: a mark for the write log (nothing else happens).
    Logmark,
    /// `help`, `usage`, `man`.
    Help,
    /// `version`.
    Version,
    /// `mint`, `nab`: minting lives at the minter URLs, not in binders.
    Mint,
    /// EggNog's binder administration (`mkbinder`, `rmbinder`, `dbsave` …): never run
    /// through a binder command here.
    Admin,
    /// `list MAX [PREFIX…]`: identifiers in key order.
    List,
    /// `next MAX ID [PREFIX…]`: identifiers after `ID` in key order.
    Next,
    /// `norm`: the identifier as the resolver normalises it.
    Norm,
    /// `shadow`: the shadow ARK of the normalised identifier.
    Shadow,
    /// `resolve [HEADERS]`: the resolver's one-line answer.
    Resolve,
}

impl Op {
    /// The operation named `word`.
    pub fn parse(word: &str) -> Option<Op> {
        Some(match word {
            "set" => Op::Set,
            "let" => Op::Let,
            "add" | "another" | "vinsert" => Op::Add,
            "insert" => Op::Insert,
            "incr" => Op::Incr,
            "decr" => Op::Decr,
            "get" => Op::Get,
            "fetch" => Op::Fetch,
            "rm" => Op::Rm,
            "delete" => Op::Delete,
            "purge" => Op::Purge,
            "exists" => Op::Exists,
            "var" => Op::Var,
            "pr" => Op::Pr,
            "logmark" => Op::Logmark,
            "help" | "usage" | "man" => Op::Help,
            "version" => Op::Version,
            "mint" | "nab" => Op::Mint,
            "mkbinder" | "bmake" | "rmbinder" | "brm" | "bmv" | "bshow" | "brmgroup" | "cfq"
            | "dbsave" | "dbload" | "mstat" | "mstatus" | "iddump" | "idload" | "bname"
            | "dbcreate" | "import" | "mkminter" | "rmminter" => Op::Admin,
            "list" => Op::List,
            "next" => Op::Next,
            "norm" => Op::Norm,
            "shadow" => Op::Shadow,
            "resolve" => Op::Resolve,
            _ => return None,
        })
    }

    /// The word a binding (`Command::Bind`'s operation) is written as: in the write
    /// log's canonical line and on the console's recent-writes page, so both name a
    /// write alike (`another` and `vinsert` are logged as `add`).
    pub fn bind_word(self) -> &'static str {
        match self {
            Op::Set => "set",
            Op::Let => "let",
            Op::Insert => "insert",
            _ => "add",
        }
    }
}

/// What an operation needs from the rest of its line, so that parsing takes each
/// shape in one place and the compiler checks that every operation has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// Answered from the word alone.
    Word(WordOp),
    /// Names no identifier; acts on the session or the binder as a whole.
    Session(SessionOp),
    /// Acts on an identifier (`ID.OP`, `ID|ELEM.OP`).
    Id(IdOp),
}

/// [`Shape::Word`] operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WordOp {
    /// [`Op::Admin`]: refused.
    Admin,
    /// [`Op::Mint`]: refused.
    Mint,
    /// [`Op::Help`].
    Help,
    /// [`Op::Version`].
    Version,
}

/// [`Shape::Session`] operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionOp {
    /// [`Op::Var`].
    Var,
    /// [`Op::Logmark`].
    Logmark,
    /// [`Op::List`] (`next: false`) and [`Op::Next`].
    List {
        /// `next MAX ID`: identifiers after ID.
        next: bool,
    },
    /// [`Op::Pr`].
    Pr,
}

/// [`Shape::Id`] operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdOp {
    /// `set`, `let`, `add`, `insert`: the [`Op`] itself goes into [`Command::Bind`].
    Bind(Op),
    /// [`Op::Incr`] and [`Op::Decr`].
    Incr {
        /// `decr`.
        decr: bool,
    },
    /// [`Op::Get`] and [`Op::Fetch`].
    Read {
        /// `fetch`: labelled even in plain format.
        labelled: bool,
    },
    /// [`Op::Rm`] and [`Op::Delete`].
    Remove {
        /// `delete`: says what went.
        report: bool,
    },
    /// [`Op::Purge`].
    Purge,
    /// [`Op::Exists`].
    Exists,
    /// [`Op::Norm`] and [`Op::Shadow`].
    Norm {
        /// `shadow`.
        shadow: bool,
    },
    /// [`Op::Resolve`].
    Resolve,
}

impl Op {
    /// The operation's [`Shape`].
    pub(crate) fn shape(self) -> Shape {
        match self {
            Op::Admin => Shape::Word(WordOp::Admin),
            Op::Mint => Shape::Word(WordOp::Mint),
            Op::Help => Shape::Word(WordOp::Help),
            Op::Version => Shape::Word(WordOp::Version),
            Op::Var => Shape::Session(SessionOp::Var),
            Op::Logmark => Shape::Session(SessionOp::Logmark),
            Op::List => Shape::Session(SessionOp::List { next: false }),
            Op::Next => Shape::Session(SessionOp::List { next: true }),
            Op::Pr => Shape::Session(SessionOp::Pr),
            Op::Set | Op::Let | Op::Add | Op::Insert => Shape::Id(IdOp::Bind(self)),
            Op::Incr => Shape::Id(IdOp::Incr { decr: false }),
            Op::Decr => Shape::Id(IdOp::Incr { decr: true }),
            Op::Get => Shape::Id(IdOp::Read { labelled: false }),
            Op::Fetch => Shape::Id(IdOp::Read { labelled: true }),
            Op::Rm => Shape::Id(IdOp::Remove { report: false }),
            Op::Delete => Shape::Id(IdOp::Remove { report: true }),
            Op::Purge => Shape::Id(IdOp::Purge),
            Op::Exists => Shape::Id(IdOp::Exists),
            Op::Norm => Shape::Id(IdOp::Norm { shadow: false }),
            Op::Shadow => Shape::Id(IdOp::Norm { shadow: true }),
            Op::Resolve => Shape::Id(IdOp::Resolve),
        }
    }
}

/// A parsed command, ready to execute. Identifiers and element names are text; values
/// are bytes (`:hx` and indirect tokens can carry any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `set`, `let`, `add`, `insert`.
    Bind {
        /// Which of the four.
        op: Op,
        /// The identifier.
        id: String,
        /// The element.
        elem: String,
        /// The value.
        value: Vec<u8>,
    },
    /// `incr` and `decr` (a negative `by` for decr).
    Incr {
        /// The identifier.
        id: String,
        /// The element.
        elem: String,
        /// The amount added.
        by: i64,
    },
    /// `get` and `fetch`.
    Read {
        /// The identifier.
        id: String,
        /// The elements asked for; all of them when empty.
        elems: Vec<String>,
        /// Labelled (`fetch`) even in plain format.
        labelled: bool,
        /// Show the admin elements too (`--all`, `:all`).
        all: bool,
    },
    /// `rm` and `delete`.
    Remove {
        /// The identifier.
        id: String,
        /// The element.
        elem: String,
        /// `delete` reports what it removed.
        report: bool,
    },
    /// `purge`.
    Purge {
        /// The identifier.
        id: String,
    },
    /// `exists`.
    Exists {
        /// The identifier.
        id: String,
        /// The element, when asking about one.
        elem: Option<String>,
    },
    /// `list` and `next`: identifiers with bindings, in key order.
    List {
        /// The binder's name, shown in the listing's first comment.
        binder: String,
        /// At most this many identifiers; `None`: no limit (`0`).
        max: Option<usize>,
        /// Only identifiers after this one (`next`).
        after: Option<String>,
        /// Only identifiers starting with one of these (all when empty).
        prefixes: Vec<String>,
        /// Count the admin elements among the bindings (`--all`, `:all`).
        all: bool,
        /// List the identifiers a minter issued (those with a circulation record,
        /// `ID<TAB>:/c`, bound or not) instead of those with bindings: how a
        /// minter's directory says what it minted. No egg line asks for it.
        circulated: bool,
    },
    /// `norm` and `shadow`.
    Norm {
        /// The identifier as given.
        id: String,
        /// `shadow`: the shadow ARK rather than the normalised form.
        shadow: bool,
    },
    /// `resolve`.
    Resolve {
        /// The identifier.
        id: String,
        /// The header blob (`!!!ac=…!!!!!!pr=…!!!`), if given.
        headers: Option<String>,
    },
    /// `pr`: text printed as it is.
    Print(Vec<u8>),
    /// `var` and `logmark`: nothing to execute or print (the session already acted).
    Nothing,
    /// `help`.
    Help,
    /// `version`.
    Version,
}

impl Command {
    /// The identifier a change names, for the commands that change one.
    fn changed_id(&self) -> Option<&str> {
        match self {
            Command::Bind { id, .. }
            | Command::Incr { id, .. }
            | Command::Remove { id, .. }
            | Command::Purge { id } => Some(id),
            _ => None,
        }
    }

    /// The command with the identifier it changes in the spelling the binder stores
    /// (the identifier gate, `noid_minter::gate`), or the gate's refusal; the command
    /// itself, not a copy, when the identifier is already so spelled. Executing it and
    /// logging it then agree: a replayed write log names the record written.
    pub fn admitted(
        &self,
        gate: &noid_minter::gate::Gate,
    ) -> Result<std::borrow::Cow<'_, Command>, noid_minter::Refusal> {
        use std::borrow::Cow;
        let Some(given) = self.changed_id() else {
            return Ok(Cow::Borrowed(self));
        };
        let stored = gate.admit(given)?;
        if let Command::Bind { elem, value, .. } = self {
            gate.admit_value(&stored, elem, value)?;
        }
        Ok(match stored {
            Cow::Borrowed(_) => Cow::Borrowed(self),
            Cow::Owned(id) => {
                let mut cmd = self.clone();
                match &mut cmd {
                    Command::Bind { id: i, .. }
                    | Command::Incr { id: i, .. }
                    | Command::Remove { id: i, .. }
                    | Command::Purge { id: i } => *i = id,
                    _ => {}
                }
                Cow::Owned(cmd)
            }
        })
    }

    /// Whether executing the command may change the binder.
    pub fn writes(&self) -> bool {
        matches!(
            self,
            Command::Bind { .. }
                | Command::Incr { .. }
                | Command::Remove { .. }
                | Command::Purge { .. }
        )
    }
}

/// Who acts, and when: recorded in a new identifier's admin elements.
#[derive(Debug, Clone)]
pub struct Agent {
    /// The populator or login.
    pub who: String,
    /// Seconds since the epoch.
    pub now: i64,
}
