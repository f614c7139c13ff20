//! [`Config::lookup_deadline`](crate::Config::lookup_deadline) over HTTP: a request the
//! backend has not answered within the deadline gets a `503` (and its connection is
//! closed), and so does every request while that lookup stays stalled; then the server
//! resolves again.
//!
//! The claim protocol is `noid_serving::deadline`'s (one watchdog for every server);
//! what is HTTP's is here: what the watchdog does in a claimed lookup's place. Each
//! server thread's lookup leaves the connection's socket as its note (and whether the
//! request is a HEAD, and whether the watchdog may write on the socket): the watchdog
//! writes a whole `503` response with `Connection: close` there and shuts the socket
//! down. The server thread, finding its lookup claimed, closes the connection. While
//! earlier responses of the connection are still unsent, the watchdog only shuts the
//! socket down: a `503` written ahead of them would answer the wrong request.

use std::os::fd::RawFd;
use std::time::Duration;

pub(crate) use noid_serving::deadline::{Slot, Watched};

/// The server's watchdog.
pub(crate) type Watch = noid_serving::deadline::Watchdog<Answer503>;

/// Note bit: the request is a HEAD (the 503 then has no body).
const HEAD: u64 = 1 << 32;
/// Note bit: the watchdog must not write on the socket, only shut it down.
const QUIET: u64 = 1 << 33;

/// The note of a lookup for a request on socket `fd`, a HEAD request if `head`, whose
/// 503 the watchdog may write only if `may_write`.
pub(crate) fn note(fd: RawFd, head: bool, may_write: bool) -> u64 {
    u64::from(fd as u32) | if head { HEAD } else { 0 } | if may_write { 0 } else { QUIET }
}

/// The 503's text for `deadline`.
pub(crate) fn message(deadline: Duration) -> String {
    format!(
        "no answer from the store within {} s\n",
        deadline.as_secs_f64()
    )
}

/// What the watchdog does in place of a claimed lookup: a `503` on its socket.
pub(crate) struct Answer503 {
    body: String,
}

impl Answer503 {
    pub(crate) fn new(deadline: Duration) -> Answer503 {
        Answer503 {
            body: message(deadline),
        }
    }
}

impl noid_serving::deadline::Answer for Answer503 {
    fn answer(&self, note: u64) {
        answer_503(
            note as u32 as RawFd,
            note & HEAD != 0,
            note & QUIET == 0,
            &self.body,
        );
    }
}

/// Write a whole `503` response on `fd` (if `write`) and shut the socket down, so that
/// the connection's own (late) response can never follow it.
fn answer_503(fd: RawFd, head: bool, write: bool, body: &str) {
    let mut response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8{}\r\n\
         content-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
        crate::response::SECURITY_HEADERS,
        body.len()
    );
    if !head {
        response.push_str(body);
    }
    let mut rest = if write { response.as_bytes() } else { &[] };
    while !rest.is_empty() {
        // SAFETY: `fd` is the socket of the connection whose lookup is claimed: its
        // server thread is still inside the lookup (it waits for the watchdog to finish
        // before returning to its event loop, which owns and closes the socket), so the
        // descriptor is not closed or reused. `rest` is a valid buffer.
        let n = unsafe {
            libc::send(
                fd,
                rest.as_ptr().cast(),
                rest.len(),
                libc::MSG_NOSIGNAL | libc::MSG_DONTWAIT,
            )
        };
        if n <= 0 {
            // A full socket buffer (a client that does not read) or a gone client: the
            // shutdown below still ends the connection.
            break;
        }
        rest = &rest[n as usize..];
    }
    // SAFETY: as above, `fd` is a live socket descriptor.
    unsafe {
        libc::shutdown(fd, libc::SHUT_RDWR);
    }
}
