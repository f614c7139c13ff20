//! Loopback HTTP and HTTPS servers for tests (feature `testing`): each answers every
//! request with what its handler says, counts what it was asked and how many requests
//! it had in flight at most, and serves keep-alive HTTP/1.1 on 127.0.0.1 only. HTTPS
//! servers hold a certificate from a [`TestCa`] made in the test.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A request as the handler sees it.
#[derive(Debug, Clone)]
pub struct Request {
    /// `HEAD`, `GET` …
    pub method: String,
    /// The path and query.
    pub path: String,
    /// The `Host` header.
    pub host: String,
    /// The `User-Agent` header.
    pub user_agent: String,
    /// How many requests for this path the server had before this one.
    pub nth: usize,
    /// When it came.
    pub at: std::time::Instant,
    /// The protocol (`HTTP/1.1`, `HTTP/2.0`).
    pub version: String,
}

/// What the server answers.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status.
    pub status: u16,
    /// Headers besides `Content-Length`.
    pub headers: Vec<(String, String)>,
    /// The body (not sent to a HEAD).
    pub body: String,
    /// How long to wait before answering.
    pub delay: Duration,
}

impl Reply {
    /// `status` with an empty body.
    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: String::new(),
            delay: Duration::ZERO,
        }
    }

    /// `status` with an HTML `body`.
    pub fn html(status: u16, body: &str) -> Reply {
        Reply {
            body: body.to_string(),
            ..Reply::status(status)
        }
        .header("Content-Type", "text/html; charset=utf-8")
    }

    /// A redirect with `status` to `location`.
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::status(status).header("Location", location)
    }

    /// This reply with one more header.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// This reply, sent after `delay`.
    pub fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

type Handler = dyn Fn(&Request) -> Reply + Send + Sync;

/// What a server saw.
#[derive(Default)]
struct Seen {
    requests: AtomicUsize,
    in_flight: AtomicUsize,
    most_in_flight: AtomicUsize,
    per_path: Mutex<HashMap<String, usize>>,
    log: Mutex<Vec<Request>>,
    unlogged: std::sync::atomic::AtomicBool,
}

/// A server on 127.0.0.1, running on a runtime of its own until dropped.
pub struct Server {
    /// Where it listens.
    pub addr: SocketAddr,
    seen: Arc<Seen>,
    runtime: Option<Arc<tokio::runtime::Runtime>>,
}

impl Server {
    /// An HTTP server answering with `handler`.
    pub fn http(handler: impl Fn(&Request) -> Reply + Send + Sync + 'static) -> Server {
        Server::start([127, 0, 0, 1].into(), Arc::new(handler), None)
    }

    /// An HTTP server on another loopback address (`127.0.0.2` …).
    pub fn http_at(
        ip: std::net::Ipv4Addr,
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> Server {
        assert!(ip.is_loopback(), "test servers listen on loopback only");
        Server::start(ip, Arc::new(handler), None)
    }

    /// An HTTPS server with a certificate from `ca` for `names`.
    pub fn https(
        ca: &TestCa,
        names: &[&str],
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> Server {
        Server::start(
            [127, 0, 0, 1].into(),
            Arc::new(handler),
            Some(ca.server_config(names)),
        )
    }

    /// An HTTPS server that speaks HTTP/2 only (ALPN `h2`), with a certificate from
    /// `ca` for `names`.
    pub fn https_h2(
        ca: &TestCa,
        names: &[&str],
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> Server {
        let mut config = (*ca.server_config(names)).clone();
        config.alpn_protocols = vec![b"h2".to_vec()];
        Server::listen_as(
            &Arc::new(runtime(1)),
            [127, 0, 0, 1].into(),
            Arc::new(handler),
            Some(Arc::new(config)),
            true,
        )
    }

    /// `n` HTTP servers (virtual hosts on as many ports) answering with `handler`,
    /// sharing one runtime of `threads` threads, each counting its own requests.
    pub fn http_hosts(
        n: usize,
        threads: usize,
        handler: impl Fn(&Request) -> Reply + Send + Sync + 'static,
    ) -> Vec<Server> {
        let runtime = Arc::new(runtime(threads));
        let handler: Arc<Handler> = Arc::new(handler);
        (0..n)
            .map(|_| Server::listen(&runtime, [127, 0, 0, 1].into(), handler.clone(), None))
            .collect()
    }

    fn start(
        ip: std::net::Ipv4Addr,
        handler: Arc<Handler>,
        tls: Option<Arc<rustls::ServerConfig>>,
    ) -> Server {
        Server::listen(&Arc::new(runtime(1)), ip, handler, tls)
    }

    fn listen(
        runtime: &Arc<tokio::runtime::Runtime>,
        ip: std::net::Ipv4Addr,
        handler: Arc<Handler>,
        tls: Option<Arc<rustls::ServerConfig>>,
    ) -> Server {
        Server::listen_as(runtime, ip, handler, tls, false)
    }

    fn listen_as(
        runtime: &Arc<tokio::runtime::Runtime>,
        ip: std::net::Ipv4Addr,
        handler: Arc<Handler>,
        tls: Option<Arc<rustls::ServerConfig>>,
        h2: bool,
    ) -> Server {
        let listener = std::net::TcpListener::bind((ip, 0)).expect("a loopback port");
        listener.set_nonblocking(true).expect("non-blocking");
        let addr = listener.local_addr().expect("its address");
        let seen = Arc::new(Seen::default());
        let shared = seen.clone();
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
            let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    continue;
                };
                let (handler, seen, acceptor) = (handler.clone(), shared.clone(), acceptor.clone());
                tokio::spawn(async move {
                    match acceptor {
                        Some(acceptor) => {
                            if let Ok(tls) = acceptor.accept(stream).await {
                                if h2 {
                                    serve_h2(tls, handler, seen).await;
                                } else {
                                    serve(tls, &*handler, &seen).await;
                                }
                            }
                        }
                        None => serve(stream, &*handler, &seen).await,
                    }
                });
            }
        });
        Server {
            addr,
            seen,
            runtime: Some(runtime.clone()),
        }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Requests answered (or being answered) so far.
    pub fn requests(&self) -> usize {
        self.seen.requests.load(Ordering::SeqCst)
    }

    /// The most requests it had in flight at once.
    pub fn most_in_flight(&self) -> usize {
        self.seen.most_in_flight.load(Ordering::SeqCst)
    }

    /// Every request so far, in the order they came.
    pub fn log(&self) -> Vec<Request> {
        self.seen.log.lock().unwrap().clone()
    }

    /// Forget what was seen: the counts and the log start again.
    pub fn reset(&self) {
        self.seen.requests.store(0, Ordering::SeqCst);
        self.seen.most_in_flight.store(0, Ordering::SeqCst);
        self.seen.per_path.lock().unwrap().clear();
        self.seen.log.lock().unwrap().clear();
    }

    /// Keep no log of requests (counts only): for benchmarks' long runs.
    pub fn unlogged(self) -> Server {
        self.seen.unlogged.store(true, Ordering::SeqCst);
        self
    }
}

fn runtime(threads: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()
        .expect("a runtime")
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(rt) = self.runtime.take().and_then(|rt| Arc::try_unwrap(rt).ok()) {
            rt.shutdown_background();
        }
    }
}

/// A port on 127.0.0.1 where nothing listens (bound, then closed).
pub fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    l.local_addr().expect("its address").port()
}

/// Answer the requests of one connection until it closes.
async fn serve<S: AsyncRead + AsyncWrite + Unpin>(mut s: S, handler: &Handler, seen: &Seen) {
    let mut buf = Vec::new();
    loop {
        let end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i;
            }
            let mut chunk = [0u8; 4096];
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end + 4);
        let mut lines = head.split("\r\n");
        let mut first = lines.next().unwrap_or("").split(' ');
        let (method, path, version) = (
            first.next().unwrap_or("").to_string(),
            first.next().unwrap_or("/").to_string(),
            first.next().unwrap_or("").to_string(),
        );
        let header = |name: &str| {
            head.split("\r\n")
                .skip(1)
                .filter_map(|l| l.split_once(':'))
                .find(|(n, _)| n.trim().eq_ignore_ascii_case(name))
                .map(|(_, v)| v.trim().to_string())
                .unwrap_or_default()
        };
        let unlogged = seen.unlogged.load(Ordering::Relaxed);
        let nth = if unlogged {
            0
        } else {
            let mut per_path = seen.per_path.lock().unwrap();
            let n = per_path.entry(path.clone()).or_insert(0);
            *n += 1;
            *n - 1
        };
        let request = Request {
            method,
            path,
            host: header("host"),
            user_agent: header("user-agent"),
            nth,
            at: std::time::Instant::now(),
            version,
        };
        seen.requests.fetch_add(1, Ordering::SeqCst);
        let now = seen.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        seen.most_in_flight.fetch_max(now, Ordering::SeqCst);
        if !unlogged {
            seen.log.lock().unwrap().push(request.clone());
        }
        let reply = handler(&request);
        if !reply.delay.is_zero() {
            tokio::time::sleep(reply.delay).await;
        }
        let mut out = format!(
            "HTTP/1.1 {} Status\r\nContent-Length: {}\r\n",
            reply.status,
            reply.body.len()
        );
        for (n, v) in &reply.headers {
            out.push_str(&format!("{n}: {v}\r\n"));
        }
        out.push_str("\r\n");
        if request.method != "HEAD" {
            out.push_str(&reply.body);
        }
        let wrote = s.write_all(out.as_bytes()).await.is_ok() && s.flush().await.is_ok();
        seen.in_flight.fetch_sub(1, Ordering::SeqCst);
        if !wrote {
            return;
        }
    }
}

/// Answer the requests of one HTTP/2 connection (hyper's server) until it closes.
async fn serve_h2<S>(io: S, handler: Arc<Handler>, seen: Arc<Seen>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = hyper::service::service_fn(move |r: hyper::Request<hyper::body::Incoming>| {
        let header = |name: &str| {
            r.headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_string()
        };
        let request = Request {
            method: r.method().to_string(),
            path: r
                .uri()
                .path_and_query()
                .map_or("/".into(), |p| p.to_string()),
            host: r.uri().authority().map_or(String::new(), |a| a.to_string()),
            user_agent: header("user-agent"),
            nth: 0,
            at: std::time::Instant::now(),
            version: format!("{:?}", r.version()),
        };
        seen.requests.fetch_add(1, Ordering::SeqCst);
        seen.log.lock().unwrap().push(request.clone());
        let reply = handler(&request);
        let mut response = hyper::Response::builder().status(reply.status);
        for (n, v) in &reply.headers {
            response = response.header(n.as_str(), v.as_str());
        }
        let body = if request.method == "HEAD" {
            bytes::Bytes::new()
        } else {
            bytes::Bytes::from(reply.body)
        };
        let response = response.body(http_body_util::Full::new(body));
        async move { response }
    });
    let _ = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
        .serve_connection(hyper_util::rt::TokioIo::new(io), service)
        .await;
}

/// A certificate authority made for a test, and certificates it signs.
pub struct TestCa {
    /// Its certificate, PEM (what a client trusts).
    pub pem: String,
    issuer: Issuer<'static, KeyPair>,
}

impl Default for TestCa {
    fn default() -> TestCa {
        TestCa::new()
    }
}

impl TestCa {
    /// A new CA.
    pub fn new() -> TestCa {
        let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(DnType::CommonName, "noid-links test CA");
        let key = KeyPair::generate().expect("a key");
        let cert = params.self_signed(&key).expect("the CA");
        TestCa {
            pem: cert.pem(),
            issuer: Issuer::new(params, key),
        }
    }

    /// A server configuration with a certificate for `names` (names or addresses).
    pub fn server_config(&self, names: &[&str]) -> Arc<rustls::ServerConfig> {
        let key = KeyPair::generate().expect("a key");
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let cert = CertificateParams::new(names)
            .expect("names")
            .signed_by(&key, &self.issuer)
            .expect("a certificate");
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .expect("TLS versions")
        .with_no_client_auth()
        .with_single_cert(
            vec![CertificateDer::from(cert.der().to_vec())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .expect("a server config");
        Arc::new(config)
    }
}
