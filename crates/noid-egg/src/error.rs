//! Why a binder command failed: a refusal with EggNog's message, a refusal that a web
//! caller must see as `401 unauthorized`, or a storage failure.

use std::fmt;

use noid_minter::{MinterError, Refusal};

/// Why a command failed. Each renders as one `error: MESSAGE` element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BinderError {
    /// The command was refused or malformed; the message has no `error: ` prefix.
    Refused(String),
    /// The minter refused it (the checks `noid bind` makes), kept as its typed refusal.
    Minter(Refusal),
    /// A command (an admin one, `@FILE`) that remote callers may never run: EggNog
    /// answers it with `Status: 401 unauthorized`.
    Unauthorized,
    /// A write by a caller with read rights only.
    ReadOnly,
    /// The store failed; nothing of the command was applied.
    Store(String),
    /// A value longer than the session allows ([`crate::Session::max_value`]: remote
    /// callers' [`crate::MAX_REMOTE_VALUE`]); the limit in octets.
    TooLarge(usize),
}

impl BinderError {
    /// A refusal with this message.
    pub fn refused(msg: impl Into<String>) -> BinderError {
        BinderError::Refused(msg.into())
    }

    /// Whether a web caller's single command that failed so is answered with an HTTP
    /// status of its own (`401`, `403`, `413`) rather than `200` and `egg-status: 1`.
    pub fn has_own_status(&self) -> bool {
        matches!(
            self,
            BinderError::Unauthorized | BinderError::ReadOnly | BinderError::TooLarge(_)
        )
    }
}

impl fmt::Display for BinderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BinderError::Refused(m) | BinderError::Store(m) => f.write_str(m),
            BinderError::Minter(r) => f.write_str(&r.reason()),
            BinderError::Unauthorized => f.write_str("401 unauthorized"),
            BinderError::ReadOnly => f.write_str("403 forbidden: read-only access"),
            BinderError::TooLarge(limit) => write!(
                f,
                "413 value too large: a value may have at most {limit} octets ({} KiB) here",
                limit >> 10
            ),
        }
    }
}

impl std::error::Error for BinderError {}

impl From<MinterError> for BinderError {
    /// A refusal stays typed; any other failure is the store's. Either is shown by its
    /// reason (Perl's message without `error: `): the binder adds its own prefix.
    fn from(e: MinterError) -> Self {
        match e {
            MinterError::Refused(r) => BinderError::Minter(r),
            e => BinderError::Store(e.reason()),
        }
    }
}

impl From<noid_core::LookupError> for BinderError {
    fn from(e: noid_core::LookupError) -> Self {
        BinderError::Store(e.to_string())
    }
}
