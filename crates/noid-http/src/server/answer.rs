//! A connection's buffered requests, answered in order into its output.

use super::conn::{send, Conn, Context, OUTPUT_HIGH, READ_BUF};
use crate::request::{self, Parsed};
use crate::respond::{self, Deadline};
use crate::response::{status, Response};

/// Answers the whole heads buffered, in order, into the output, until the output
/// reaches [`OUTPUT_HIGH`] or a response closes the connection.
pub(super) fn answer(conn: &mut Conn, cx: &mut Context<'_>) {
    let cfg = &cx.shared.config;
    conn.backlog = false;
    while conn.start < conn.end && !conn.close_after {
        if conn.output.len() - conn.sent >= OUTPUT_HIGH {
            conn.backlog = true;
            return;
        }
        if cx.shared.watch.is_some() && conn.pending() {
            // Pipelined: earlier answers go out before a lookup that the watchdog may
            // have to answer on the socket (errors show at the next send).
            let _ = send(conn);
        }
        let buffered = &conn.input[conn.start..conn.end];
        match request::parse(buffered) {
            Parsed::Partial => {
                if buffered.len() >= head_limit(cfg) {
                    refuse(conn, cx, status::HEADERS_TOO_LARGE);
                }
                return;
            }
            Parsed::Refused(code) => {
                refuse(conn, cx, code);
                return;
            }
            Parsed::Head(head, len) => {
                let deadline = cx
                    .shared
                    .watch
                    .as_deref()
                    .zip(cx.slot)
                    .map(|(watch, slot)| Deadline {
                        watch,
                        slot,
                        fd: conn.io.fd(),
                        may_write: conn.sent == conn.output.len(),
                    });
                let mut response = respond::handle(&*cx.shared.backend, cfg, &head, deadline);
                if !head.keep_alive || cx.draining {
                    response.close = true;
                }
                let keep_alive_10 = head.http10 && !response.close;
                let is_head = head.method == "HEAD";
                response.write(
                    &mut conn.output,
                    is_head,
                    keep_alive_10,
                    cx.clock.date(cx.now),
                );
                conn.start += len;
                if response.close {
                    conn.close_after = true;
                    conn.start = conn.end;
                }
            }
        }
    }
}

/// The longest request head read:
/// [`Config::max_header_bytes`](crate::Config::max_header_bytes), at least [`READ_BUF`].
pub(super) fn head_limit(cfg: &crate::Config) -> usize {
    cfg.max_header_bytes.max(READ_BUF)
}

/// Answers `code` (400 or 431) and closes the connection.
fn refuse(conn: &mut Conn, cx: &mut Context<'_>, code: u16) {
    let body = if code == status::HEADERS_TOO_LARGE {
        "request head too large\n"
    } else {
        "bad request\n"
    };
    let mut r = Response::text(code, body);
    r.close = true;
    r.write(&mut conn.output, false, false, cx.clock.date(cx.now));
    conn.close_after = true;
    conn.start = conn.end;
}
