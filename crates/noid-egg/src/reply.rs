//! What a command produced ([`Reply`]), before [`crate::render`] prints it: made by
//! [`crate::exec`], carried back to callers that hold values rather than lines.

use crate::elements;
use crate::error::BinderError;

/// What a command produced, before rendering.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// A write; `oxum` is (octets, values) written or removed, shown with `--ack`.
    Done {
        /// Octets and number of values the write stored or removed.
        oxum: Option<(usize, usize)>,
    },
    /// Values read by `get`/`fetch`.
    Values {
        /// The identifier.
        id: String,
        /// All of the identifier's elements (with the `# id:` comments around them).
        whole: bool,
        /// Names shown even in plain format (`fetch`).
        labelled: bool,
        /// (element, value) in order.
        elems: Vec<(String, Vec<u8>)>,
    },
    /// `exists`.
    Exists(bool),
    /// `purge`: how many elements went.
    Purged {
        /// The identifier.
        id: String,
        /// Elements removed, admin elements included.
        count: usize,
    },
    /// `delete`: what went.
    Removed {
        /// The identifier.
        id: String,
        /// The element.
        elem: String,
        /// Values removed.
        count: usize,
        /// Their octets.
        octets: usize,
    },
    /// `incr`/`decr`: the element's new value.
    Number {
        /// The element.
        elem: String,
        /// Its value now.
        value: i64,
    },
    /// `norm`, `shadow`: an identifier.
    Id(String),
    /// `list`, `next`.
    Listing {
        /// The binder's name.
        binder: String,
        /// The limit asked for (`None`: none).
        max: Option<usize>,
        /// What was found.
        found: elements::Listing,
    },
    /// `resolve`: the resolver's answer line (without its newline).
    Resolved(Vec<u8>),
    /// Text printed as it is (`pr`, `help`, `version`).
    Text(Vec<u8>),
    /// Nothing to print (`var`, `logmark`).
    Nothing,
    /// The command failed; the transaction is as it was before it.
    Error(BinderError),
}

impl Reply {
    /// Whether the command failed (exit status 1, `egg-status: 1`).
    pub fn failed(&self) -> bool {
        matches!(self, Reply::Error(_))
    }
}
