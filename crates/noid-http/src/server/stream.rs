//! The sockets a server thread accepts on and answers on, TCP or unix, as one type each.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, RawFd};

use mio::net::{TcpListener, TcpStream, UnixListener, UnixStream};

/// A listening socket registered with one thread's loop.
pub(super) enum Acceptor {
    Tcp(TcpListener),
    Unix(UnixListener),
}

/// An accepted connection's socket.
pub(super) enum Stream {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Stream {
    pub(super) fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.read(buf),
            Stream::Unix(s) => s.read(buf),
        }
    }

    pub(super) fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Tcp(s) => s.write(buf),
            Stream::Unix(s) => s.write(buf),
        }
    }

    pub(super) fn shutdown_write(&self) {
        let _ = match self {
            Stream::Tcp(s) => s.shutdown(std::net::Shutdown::Write),
            Stream::Unix(s) => s.shutdown(std::net::Shutdown::Write),
        };
    }

    pub(super) fn fd(&self) -> RawFd {
        match self {
            Stream::Tcp(s) => s.as_raw_fd(),
            Stream::Unix(s) => s.as_raw_fd(),
        }
    }

    /// The socket as mio registers it, whichever kind it is.
    pub(super) fn source(&mut self) -> &mut dyn mio::event::Source {
        match self {
            Stream::Tcp(s) => s,
            Stream::Unix(s) => s,
        }
    }
}
