//! Clients at loopback addresses of their own, for the tests of per-client limits
//! (noidr's and `noid serve`'s; noid-cli's tests include this file): the whole of
//! 127.0.0.0/8 is the local host on Linux, so a socket bound to 127.0.0.2 before it
//! connects is, to a server on 127.0.0.1, another client than one from 127.0.0.1.

use std::io::{ErrorKind, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::time::Duration;

use socket2::{Domain, Socket, Type};

/// A connection to `server` from `source` (any port), with a read timeout of 60 s so
/// that a server bug fails the test instead of hanging it.
pub fn connect_from(source: Ipv4Addr, server: SocketAddr) -> TcpStream {
    let s = Socket::new(Domain::IPV4, Type::STREAM, None).expect("socket");
    s.bind(&SocketAddr::from((source, 0)).into())
        .expect("bind a loopback source address");
    s.connect(&server.into()).expect("connect");
    let s: TcpStream = s.into();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    s
}

/// Read `s` until the server closes it; what it sent first (the text of a refusal, or
/// nothing). Panics if the server keeps it open for the read timeout.
pub fn read_until_closed(s: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut buf = [0; 1024];
    loop {
        match s.read(&mut buf) {
            Ok(0) => return String::from_utf8_lossy(&got).into_owned(),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => {
                return String::from_utf8_lossy(&got).into_owned()
            }
            Err(e) => panic!(
                "the server kept the connection open ({e}); it sent {:?}",
                String::from_utf8_lossy(&got)
            ),
        }
    }
}
