//! Why a bulk request's body ended before its end ([`Cut`]): the transport that reads
//! the body (noid-api's streamed body) returns it as an I/O error of the body's
//! reader ([`Cut::into_io`]), and the bulk run gets it back ([`cut_of`]) to say so in
//! its answer. Here, below the transport, so that the run needs no HTTP to read it.

use std::io;
use std::time::Duration;

/// The longest line of a bulk body: a command whose value is at the limit
/// ([`noid_egg::MAX_REMOTE_VALUE`]) written as `:hx` escapes (three octets each), and
/// room for the rest of the command. A longer line ends the run where it starts, so
/// that no line is ever held whole whatever its length.
pub const MAX_LINE: usize = 3 * noid_egg::MAX_REMOTE_VALUE + (64 << 10);

/// Why a body ended early; the bulk run says so in its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cut {
    /// The connection failed or closed before the body's end.
    Client(String),
    /// The body did not begin within the body deadline (seconds).
    Stalled(u64),
    /// Less than [`Pace::octets`] came while the run waited [`Pace::wait`] for it.
    Slow(Pace),
    /// The server is stopping.
    Stopping,
    /// A line longer than [`MAX_LINE`].
    LineTooLong,
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cut::Client(e) => write!(f, "the request body was cut off ({e})"),
            Cut::Stalled(s) => write!(f, "the request body stalled for {s} s"),
            Cut::Slow(p) => write!(
                f,
                "the request body came too slowly: less than {} octets in {} s while the \
                 binder waited for it (send the body as fast as it is read, or in smaller requests)",
                p.octets(),
                p.wait.as_secs()
            ),
            Cut::Stopping => f.write_str("the server is stopping"),
            Cut::LineTooLong => write!(
                f,
                "413 a line of the request body is longer than {MAX_LINE} octets \
                 (a value may have {} octets at most)",
                noid_egg::MAX_REMOTE_VALUE
            ),
        }
    }
}

/// How fast a bulk body must come while its run holds the binder: whenever the run has
/// waited `wait` in all for its body, at least `min_rate` octets a second of that wait
/// must have come since it last looked; otherwise the run ends there ([`Cut::Slow`]),
/// commits what ran and releases the binder. A body that arrives faster than the
/// binder reads it is never waited for, whatever its length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pace {
    /// How long the run waits before it looks (`[serve] bulk_wait`).
    pub wait: Duration,
    /// Octets a second (`[serve] bulk_min_rate`).
    pub min_rate: u64,
}

impl Pace {
    /// The octets that must come while the run waits [`Pace::wait`].
    pub fn octets(&self) -> u64 {
        self.min_rate.saturating_mul(self.wait.as_secs().max(1))
    }
}

impl Cut {
    /// The I/O error a body's reader returns for this cut; [`cut_of`] gets it back.
    pub fn into_io(self) -> io::Error {
        io::Error::other(CutError(self))
    }
}

/// The error carrying a [`Cut`] through `io::Error`.
#[derive(Debug)]
struct CutError(Cut);

impl std::fmt::Display for CutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for CutError {}

/// Why a read failed, if it was a body that ended early.
pub fn cut_of(e: &io::Error) -> Option<Cut> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<CutError>())
        .map(|c| c.0.clone())
}
