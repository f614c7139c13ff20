//! What can go wrong asking an archive.

use std::fmt;

/// Why an archive could not be asked, or its answer not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveError {
    /// The HTTP client could not be made (TLS set-up, runtime).
    Client(String),
    /// No answer: DNS, connection, TLS or timeout (the URL asked, and why).
    Unreachable {
        /// What was asked.
        url: String,
        /// Why no answer came.
        reason: String,
    },
    /// An answer that is not what the protocol says (the URL asked, and what came).
    Unexpected {
        /// What was asked.
        url: String,
        /// What came instead.
        reason: String,
    },
    /// The store could not be read or written.
    Store(String),
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveError::Client(why) => write!(f, "HTTP client: {why}"),
            ArchiveError::Unreachable { url, reason } => {
                write!(f, "no answer from {url}: {reason}")
            }
            ArchiveError::Unexpected { url, reason } => write!(f, "{url} answered {reason}"),
            ArchiveError::Store(why) => write!(f, "store: {why}"),
        }
    }
}

impl std::error::Error for ArchiveError {}

impl ArchiveError {
    /// A failed request to `url`.
    pub(crate) fn request(url: &str, e: &reqwest::Error) -> ArchiveError {
        // reqwest's Display names the URL already; its source says why.
        let mut reason = String::new();
        let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(e);
        while let Some(c) = cause {
            reason = c.to_string();
            cause = c.source();
        }
        if reason.is_empty() {
            reason = e.to_string();
        }
        if e.is_timeout() {
            reason = format!("timed out ({reason})");
        }
        ArchiveError::Unreachable {
            url: url.to_string(),
            reason,
        }
    }
}
