//! Provider probes over HTTPS in the real `noidr`: a real TLS server on 127.0.0.1 with a
//! certificate for `localhost` from a CA made here. With the CA given (`--probe-ca`) the
//! provider probed as `https://localhost:PORT` is up; probed by address, a name its
//! certificate does not hold, it is down; without the CA (the system's store alone) it
//! is down. Each down provider is logged with the reason.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::{ServerConfig, ServerConnection, StreamOwned};

use crate::eqnice;
use crate::util::{noidr_bin, Minter, Noidr};

/// An HTTPS server answering `200` to every request it reads, counting them.
struct TlsServer {
    addr: SocketAddr,
    /// The test CA's certificate, PEM.
    ca_pem: String,
    answered: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl TlsServer {
    /// A CA, a certificate for `localhost` signed by it, and the server.
    fn start() -> TlsServer {
        let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "noidr test CA");
        let ca_key = KeyPair::generate().unwrap();
        let ca_cert = ca.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca, ca_key);
        let key = KeyPair::generate().unwrap();
        let cert = CertificateParams::new(vec!["localhost".to_string()])
            .unwrap()
            .signed_by(&key, &issuer)
            .unwrap();
        let config =
            ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
                .with_safe_default_protocol_versions()
                .unwrap()
                .with_no_client_auth()
                .with_single_cert(
                    vec![CertificateDer::from(cert.der().to_vec())],
                    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
                )
                .unwrap();
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let (answered, stop) = (
            Arc::new(AtomicUsize::new(0)),
            Arc::new(AtomicBool::new(false)),
        );
        let (count, flag, config) = (answered.clone(), stop.clone(), Arc::new(config));
        let thread = std::thread::spawn(move || {
            for s in l.incoming() {
                if flag.load(Ordering::SeqCst) {
                    return;
                }
                let Ok(s) = s else { continue };
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let conn = ServerConnection::new(config.clone()).unwrap();
                // A failed handshake (the client refused the certificate) is no answer.
                if answer(StreamOwned::new(conn, s)).is_ok() {
                    count.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        TlsServer {
            addr,
            ca_pem: ca_cert.pem(),
            answered,
            stop,
            thread: Some(thread),
        }
    }
}

/// Read one request head and answer it.
fn answer(mut s: StreamOwned<ServerConnection, TcpStream>) -> std::io::Result<()> {
    let mut got = Vec::new();
    let mut b = [0u8; 1024];
    while !got.ends_with(b"\r\n\r\n") {
        match s.read(&mut b)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => got.extend_from_slice(&b[..n]),
        }
    }
    s.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")?;
    s.conn.send_close_notify();
    s.flush()
}

impl Drop for TlsServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// `pdb:` with two providers on the server: `good` probed by the name its certificate
/// holds, `named` by the address, which it does not hold.
fn registry(dir: &Path, port: u16) -> PathBuf {
    let path = dir.join("registry.anvl");
    std::fs::write(
        &path,
        format!(
            "prefix: pdb:\n\
             provider: good https://localhost:{port}/s/$id\n\
             provider: named https://127.0.0.1:{port}/s/$id\n\
             probe: good https://localhost:{port}/health\n\
             probe: named https://127.0.0.1:{port}/health\n"
        ),
    )
    .unwrap();
    path
}

/// `noidr --protocol egg` probing the registry every 0.2 s, its log in `log`.
fn start(m: &Minter, reg: &Path, ca: Option<&Path>, log: &Path) -> Noidr {
    let mut cmd = Command::new(noidr_bin());
    cmd.arg("-f")
        .arg(m.dbdir())
        .args(["--protocol", "egg", "--probe-interval", "0.2"]);
    cmd.arg("--registry").arg(reg);
    if let Some(ca) = ca {
        cmd.arg("--probe-ca").arg(ca);
    }
    cmd.stderr(Stdio::from(std::fs::File::create(log).unwrap()));
    Noidr::spawn_with_stderr(cmd)
}

#[test]
fn https_probes_verify_the_certificate() {
    let server = TlsServer::start();
    let port = server.addr.port();
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path(), port);
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, &server.ca_pem).unwrap();
    let m = Minter::new();
    let list = format!(
        "inflect \"op=providers\" \"id=pdb:1\" \"prefix=pdb:\" \
         \"target=https://localhost:{port}/s/1\" \"target=https://127.0.0.1:{port}/s/1\""
    );
    let within = Duration::from_secs(120);

    // The CA given: `good` answers through TLS and stays up; `named` goes down. Each
    // round probes `good` first, so its outcome is in before `named` is marked down.
    let log = dir.path().join("with-ca.log");
    let mut r = start(&m, &reg, Some(&ca), &log);
    r.ask_until("*/pdb:1.resolve", &format!("{list} \"down=named\""), within);
    eqnice!(
        "pdb:1",
        format!("redir302 https://localhost:{port}/s/1"),
        r.ask("pdb:1.resolve")
    );
    assert!(r.finish().success());
    assert!(
        server.answered.load(Ordering::SeqCst) >= 1,
        "good was never answered"
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let down = format!("provider named of pdb: is down: https://127.0.0.1:{port}/health: ");
    let why = "io: invalid peer certificate: certificate not valid for name \"127.0.0.1\"; \
               certificate is only valid for DnsName(\"localhost\")\n";
    assert!(text.contains(&format!("{down}{why}")), "{text}");
    assert!(!text.contains("provider good"), "{text}");

    // The system's CA store alone: `good`'s issuer is unknown, both are down.
    let before = server.answered.load(Ordering::SeqCst);
    let log = dir.path().join("without-ca.log");
    let mut r = start(&m, &reg, None, &log);
    r.ask_until(
        "*/pdb:1.resolve",
        &format!("{list} \"down=good\" \"down=named\""),
        within,
    );
    assert!(r.finish().success());
    assert_eq!(server.answered.load(Ordering::SeqCst), before);
    let text = std::fs::read_to_string(&log).unwrap();
    let down = format!("provider good of pdb: is down: https://localhost:{port}/health: ");
    assert!(
        text.contains(&format!(
            "{down}io: invalid peer certificate: UnknownIssuer\n"
        )),
        "{text}"
    );
}

#[test]
fn a_bad_probe_ca_stops_noidr() {
    let dir = tempfile::tempdir().unwrap();
    let reg = registry(dir.path(), 9);
    let ca = dir.path().join("ca.pem");
    std::fs::write(&ca, "no certificate here\n").unwrap();
    let m = Minter::new();
    let out = Command::new(noidr_bin())
        .arg("-f")
        .arg(m.dbdir())
        .args(["--probe-interval", "1", "--registry"])
        .arg(&reg)
        .arg("--probe-ca")
        .arg(&ca)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    eqnice!(
        "--probe-ca",
        format!(
            "noidr: error: --probe-ca {}: no PEM certificate in the file\n",
            ca.display()
        ),
        String::from_utf8_lossy(&out.stderr)
    );
    // Without --probe-interval it is refused.
    let out = Command::new(noidr_bin())
        .arg("-f")
        .arg(m.dbdir())
        .arg("--probe-ca")
        .arg(&ca)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    eqnice!(
        "--probe-ca alone",
        "noidr: error: --probe-ca needs --probe-interval (it is for the probes)\n",
        String::from_utf8_lossy(&out.stderr)
    );
}
