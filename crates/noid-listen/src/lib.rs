//! Where a noid server listens: the `--http ADDR` argument ([`parse_addr`]: TCP or a
//! unix socket) and the bound socket ([`Listener`]), shared by the resolver's HTTP
//! server (noid-http) and the binder API (`noid serve`, noid-api), so that neither
//! depends on the other for it.

#![deny(missing_docs)]

use std::io;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::path::PathBuf;

/// Where to listen, as parsed from the `--http ADDR` argument by [`parse_addr`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Addr {
    /// A TCP address.
    Tcp(SocketAddr),
    /// A unix socket path.
    Unix(PathBuf),
}

/// Parses `--http ADDR`:
/// * `unix:/path/sock` or anything containing `/` → a unix socket;
/// * `PORT` or `:PORT` → `127.0.0.1:PORT` (loopback unless told otherwise);
/// * `HOST:PORT`, `[v6]:PORT` → that address;
/// * empty → `127.0.0.1:8090`.
pub fn parse_addr(addr: &str) -> io::Result<Addr> {
    let bad =
        |m: &str| io::Error::new(io::ErrorKind::InvalidInput, format!("--http {addr:?}: {m}"));
    let a = addr.trim();
    if let Some(p) = a.strip_prefix("unix:") {
        if p.is_empty() {
            return Err(bad("empty unix socket path"));
        }
        return Ok(Addr::Unix(PathBuf::from(p)));
    }
    if a.contains('/') {
        return Ok(Addr::Unix(PathBuf::from(a)));
    }
    if a.is_empty() {
        return Ok(Addr::Tcp(SocketAddr::from(([127, 0, 0, 1], 8090))));
    }
    let port_only = a.strip_prefix(':').unwrap_or(a);
    if !port_only.is_empty() && port_only.bytes().all(|b| b.is_ascii_digit()) {
        let port: u16 = port_only.parse().map_err(|_| bad("bad port"))?;
        return Ok(Addr::Tcp(SocketAddr::from(([127, 0, 0, 1], port))));
    }
    a.parse::<SocketAddr>()
        .map(Addr::Tcp)
        .map_err(|_| bad("expected HOST:PORT, PORT, or a unix socket path (unix:/path)"))
}

/// A bound listening socket.
#[derive(Debug)]
pub enum Listener {
    /// TCP.
    Tcp(std::net::TcpListener),
    /// A unix socket, and its path (removed by [`Listener::remove_socket_file`] when its server stops).
    Unix(std::os::unix::net::UnixListener, PathBuf),
}

/// The accept queue's length asked of the kernel (capped by `net.core.somaxconn`).
const BACKLOG: libc::c_int = 1024;

impl Listener {
    /// Binds `addr` (see [`parse_addr`]).
    ///
    /// For a unix socket, a stale socket file (nobody accepting on it) is removed
    /// first; a live one is an `AddrInUse` error. The socket file gets the process
    /// umask (set `UMask=` in systemd so that the web server's group can connect).
    pub fn bind(addr: &str) -> io::Result<Listener> {
        let listener = match parse_addr(addr)? {
            Addr::Tcp(sa) => Listener::Tcp(std::net::TcpListener::bind(sa)?),
            Addr::Unix(path) => {
                if let Ok(meta) = std::fs::symlink_metadata(&path) {
                    use std::os::unix::fs::FileTypeExt;
                    if !meta.file_type().is_socket() {
                        return Err(io::Error::new(
                            io::ErrorKind::AlreadyExists,
                            format!("{} exists and is not a socket", path.display()),
                        ));
                    }
                    if std::os::unix::net::UnixStream::connect(&path).is_ok() {
                        return Err(io::Error::new(
                            io::ErrorKind::AddrInUse,
                            format!("{} is in use by another server", path.display()),
                        ));
                    }
                    std::fs::remove_file(&path)?;
                }
                let l = std::os::unix::net::UnixListener::bind(&path)?;
                Listener::Unix(l, path)
            }
        };
        // A longer accept queue than std's 128, for bursts of new connections.
        // SAFETY: `listen` on a socket descriptor this value owns; a second `listen`
        // only changes the queue's length.
        unsafe {
            libc::listen(listener.fd(), BACKLOG);
        }
        Ok(listener)
    }

    /// The socket's descriptor.
    pub fn fd(&self) -> std::os::fd::RawFd {
        match self {
            Listener::Tcp(l) => l.as_raw_fd(),
            Listener::Unix(l, _) => l.as_raw_fd(),
        }
    }

    /// Another handle on the same listening socket, for another thread's loop.
    pub fn try_clone(&self) -> io::Result<Listener> {
        Ok(match self {
            Listener::Tcp(l) => Listener::Tcp(l.try_clone()?),
            Listener::Unix(l, p) => Listener::Unix(l.try_clone()?, p.clone()),
        })
    }

    /// Remove a unix socket's file (once nobody accepts on it any more).
    pub fn remove_socket_file(&self) {
        if let Listener::Unix(_, p) = self {
            let _ = std::fs::remove_file(p);
        }
    }

    /// The bound address, `127.0.0.1:PORT` or `unix:/path`.
    pub fn local_addr(&self) -> String {
        match self {
            Listener::Tcp(l) => l.local_addr().map(|a| a.to_string()).unwrap_or_default(),
            Listener::Unix(_, p) => format!("unix:{}", p.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addr_parsing() {
        let tcp = |s: &str| Addr::Tcp(s.parse().unwrap());
        assert_eq!(parse_addr("8090").unwrap(), tcp("127.0.0.1:8090"));
        assert_eq!(parse_addr(":8090").unwrap(), tcp("127.0.0.1:8090"));
        assert_eq!(parse_addr("").unwrap(), tcp("127.0.0.1:8090"));
        assert_eq!(parse_addr("0.0.0.0:80").unwrap(), tcp("0.0.0.0:80"));
        assert_eq!(parse_addr("[::1]:81").unwrap(), tcp("[::1]:81"));
        assert_eq!(
            parse_addr("unix:/run/n.sock").unwrap(),
            Addr::Unix("/run/n.sock".into())
        );
        assert_eq!(
            parse_addr("/run/n.sock").unwrap(),
            Addr::Unix("/run/n.sock".into())
        );
        assert_eq!(
            parse_addr("./n.sock").unwrap(),
            Addr::Unix("./n.sock".into())
        );
        assert!(parse_addr("localhost").is_err());
        assert!(parse_addr("99999").is_err());
        assert!(parse_addr("unix:").is_err());
    }
}
