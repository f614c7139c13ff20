//! Health probes of the prefix registry's providers (`--probe-interval`): one thread
//! sends a `HEAD` to each provider's `probe:` URL of the registry in force, one after
//! the other, then sleeps the interval, and records each outcome in the registry's health flags, which every
//! resolution reads (the line protocols and HTTP alike). A provider is up when its probe
//! answers a status below 400 within `--probe-timeout`; down on any other status, a
//! refused or timed-out connection, a failed TLS handshake, or a malformed answer.
//!
//! Probes are `http://` or `https://` requests made by `ureq` (rustls), never following a
//! redirect (a 3xx is an answer, so up) and never through a proxy (a health check is
//! asked directly). An `https://` provider's certificate is verified against the
//! system's CA store (`/etc/ssl/certs`, read once at start; `SSL_CERT_FILE` and
//! `SSL_CERT_DIR` point elsewhere) and the CA certificates of `--probe-ca FILE`, for
//! providers under a private CA: an unknown issuer or a certificate for another host
//! name is a provider down, logged with the reason.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use noid_resolve::registry::Probe;
use noid_resolve::Registry;
use ureq::tls::{Certificate, PemItem, RootCerts, TlsConfig};
use ureq::Agent;

use crate::current::Current;

/// What `--probe-interval`, `--probe-timeout` and `--probe-ca` ask for.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// Pause between rounds.
    pub interval: Duration,
    /// Connect, handshake and answer, each probe.
    pub timeout: Duration,
    /// More CA certificates (PEM) to trust besides the system's.
    pub ca: Option<PathBuf>,
}

/// Start the probe thread; it runs until the process exits. Each round probes the
/// providers of the registry in force (SIGHUP may have replaced it). The trust roots
/// are read first: a `--probe-ca` file that holds no certificate stops noidr here.
pub fn spawn(current: Arc<Current>, settings: &Settings) -> anyhow::Result<()> {
    let agent = agent(settings.timeout, roots(settings.ca.as_deref())?);
    if current.resolver().registry().probes().is_empty() {
        log::warn!("--probe-interval given, but no provider of the registry has a probe URL");
    }
    let interval = settings.interval;
    std::thread::Builder::new()
        .name("noidr-probe".into())
        .spawn(move || loop {
            let registry = current.resolver().registry().clone();
            for p in &registry.probes() {
                probe_once(&agent, &registry, p);
            }
            drop(registry);
            std::thread::sleep(interval);
        })?;
    Ok(())
}

/// Probe one provider and record the outcome, logging a change of state.
fn probe_once(agent: &Agent, registry: &Registry, p: &Probe) {
    let outcome = head(agent, &p.url);
    let up = matches!(outcome, Ok(code) if code < 400);
    if registry.set_healthy(p.slot, up) {
        match &outcome {
            Ok(code) if up => log::warn!("provider {} of {} is up ({code})", p.code, p.prefix),
            Ok(code) => log::warn!(
                "provider {} of {} is down: {} answered {code}",
                p.code,
                p.prefix,
                p.url
            ),
            Err(e) => log::warn!(
                "provider {} of {} is down: {}: {e}",
                p.code,
                p.prefix,
                p.url
            ),
        }
    }
}

/// The client every probe uses: no redirects, no proxy, no pooled connection (each
/// probe connects afresh, as a client would), every status an answer.
fn agent(timeout: Duration, roots: RootCerts) -> Agent {
    Agent::config_builder()
        .timeout_global(Some(timeout))
        .max_redirects(0)
        .http_status_as_error(false)
        .proxy(None)
        .max_idle_connections(0)
        .user_agent("noidr-probe")
        .tls_config(TlsConfig::builder().root_certs(roots).build())
        .build()
        .into()
}

/// `HEAD url`: the status code of the answer.
fn head(agent: &Agent, url: &str) -> Result<u16, ureq::Error> {
    Ok(agent.head(url).call()?.status().as_u16())
}

/// The trust roots: the system's CA store, then the certificates of `ca`. A system
/// store that cannot be read is logged (only `--probe-ca`'s then count); a `ca` file
/// that cannot be read or holds no certificate is an error.
fn roots(ca: Option<&Path>) -> anyhow::Result<RootCerts> {
    let mut certs = match ca {
        Some(path) => read_ca(path).with_context(|| format!("--probe-ca {}", path.display()))?,
        None => Vec::new(),
    };
    let native = rustls_native_certs::load_native_certs();
    for e in &native.errors {
        log::warn!("probes: reading the system's CA certificates: {e}");
    }
    certs.extend(
        native
            .certs
            .iter()
            .map(|c| Certificate::from_der(c.as_ref()).to_owned()),
    );
    if certs.is_empty() {
        log::warn!("probes: no CA certificate to trust: every https:// probe will fail");
    }
    Ok(RootCerts::from(certs))
}

/// The certificates of a PEM file (keys and other sections are skipped).
fn read_ca(path: &Path) -> anyhow::Result<Vec<Certificate<'static>>> {
    let pem = std::fs::read(path)?;
    let mut out = Vec::new();
    for item in ureq::tls::parse_pem(&pem) {
        if let PemItem::Certificate(c) = item? {
            out.push(c);
        }
    }
    if out.is_empty() {
        return Err(io::Error::other("no PEM certificate in the file").into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// A one-shot server answering `answer` to one request; what it received.
    fn serve_once(answer: &'static str) -> (String, std::thread::JoinHandle<String>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let h = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut got = Vec::new();
            let mut b = [0u8; 512];
            while !got.ends_with(b"\r\n\r\n") {
                let n = s.read(&mut b).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&b[..n]);
            }
            s.write_all(answer.as_bytes()).unwrap();
            String::from_utf8(got).unwrap()
        });
        (addr, h)
    }

    fn plain() -> Agent {
        agent(Duration::from_secs(10), roots(None).unwrap())
    }

    #[test]
    fn head_reads_the_status() {
        let (addr, h) = serve_once("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n");
        assert_eq!(
            head(&plain(), &format!("http://{addr}/health?x=1")).unwrap(),
            204
        );
        let got = h.join().unwrap().to_ascii_lowercase();
        assert!(got.starts_with("head /health?x=1 http/1.1\r\n"), "{got}");
        assert!(got.contains(&format!("\r\nhost: {addr}\r\n")), "{got}");
        assert!(got.contains("\r\nuser-agent: noidr-probe\r\n"), "{got}");
        let (addr, h) = serve_once("HTTP/1.0 503 Busy\r\n\r\n");
        assert_eq!(head(&plain(), &format!("http://{addr}")).unwrap(), 503);
        assert!(h.join().unwrap().starts_with("HEAD / HTTP/1.1\r\n"));
        // A redirect is an answer (up), not followed.
        let (addr, h) = serve_once(
            "HTTP/1.1 301 Moved\r\nLocation: http://127.0.0.1:9/\r\nContent-Length: 0\r\n\r\n",
        );
        assert_eq!(head(&plain(), &format!("http://{addr}/")).unwrap(), 301);
        h.join().unwrap();
        let (addr, h) = serve_once("garbage\r\n\r\n");
        assert!(head(&plain(), &format!("http://{addr}/")).is_err());
        h.join().unwrap();
    }

    #[test]
    fn refused_is_down() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        drop(l);
        assert!(head(&plain(), &format!("http://{addr}/")).is_err());
    }

    #[test]
    fn a_ca_file_must_hold_a_certificate() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        assert_eq!(
            format!("{:#}", roots(Some(&empty)).unwrap_err()),
            format!(
                "--probe-ca {}: no PEM certificate in the file",
                empty.display()
            )
        );
        let missing = dir.path().join("missing.pem");
        assert!(format!("{:#}", roots(Some(&missing)).unwrap_err())
            .starts_with(&format!("--probe-ca {}: No such file", missing.display())));
    }
}
