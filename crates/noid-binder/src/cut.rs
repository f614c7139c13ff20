//! Why a bulk request's body ended before its end ([`Cut`]): the transport that reads
//! the body (noid-api's streamed body) returns it as an I/O error of the body's
//! reader ([`Cut::into_io`]), and the bulk run gets it back ([`cut_of`]) to say so in
//! its answer. Here, below the transport, so that the run needs no HTTP to read it.

use std::io;
use std::time::Duration;

/// How long a directory's thread waits for a streamed body's next chunk before it
/// treats the body as cut off (a client that stalls must not hold the binder longer).
pub const STALL: Duration = Duration::from_secs(30);

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
    /// No data for [`STALL`].
    Stalled,
    /// The server is stopping.
    Stopping,
    /// A line longer than [`MAX_LINE`].
    LineTooLong,
}

impl std::fmt::Display for Cut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Cut::Client(e) => write!(f, "the request body was cut off ({e})"),
            Cut::Stalled => write!(f, "the request body stalled for {} s", STALL.as_secs()),
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
