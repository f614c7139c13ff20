//! Errors of minter operations: a Perl-compatible message, or a storage failure.

use std::fmt;

/// Why an operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MinterError {
    /// A refusal with Perl Noid's message text (usually starting `error:`).
    Refused(String),
    /// The underlying store failed.
    Store(String),
}

impl MinterError {
    /// A refusal with this message.
    pub fn refused(msg: impl Into<String>) -> MinterError {
        MinterError::Refused(msg.into())
    }
}

impl fmt::Display for MinterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MinterError::Refused(m) => f.write_str(m),
            MinterError::Store(m) => write!(f, "error: {m}"),
        }
    }
}

impl std::error::Error for MinterError {}

impl From<noid_resolve::LookupError> for MinterError {
    fn from(e: noid_resolve::LookupError) -> Self {
        MinterError::Store(e.0)
    }
}
