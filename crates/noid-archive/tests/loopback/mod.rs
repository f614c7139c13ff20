//! A small real HTTP/1.1 server on 127.0.0.1 for the tests: it answers each request
//! with what the test's function makes of it and keeps every request it was sent, so
//! that a test can show what reached it. Each connection is served on a thread of its
//! own, closed after one answer ([`Server::start`]) or kept open for more
//! ([`Server::keep_alive`]).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// One request as received.
#[derive(Debug, Clone)]
pub struct Seen {
    /// `GET`, …
    pub method: String,
    /// The request-target.
    pub path: String,
    /// Headers, names lower-cased.
    pub headers: Vec<(String, String)>,
}

impl Seen {
    /// The value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Makes a response (status line and headers after `HTTP/1.1 `, without the blank
/// line) from a request and how many came before it.
type Answer = dyn Fn(&Seen, usize) -> String + Send + Sync;

/// A server on a port of its own.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    /// Serve one request per connection.
    pub fn start(answer: impl Fn(&Seen, usize) -> String + Send + Sync + 'static) -> Server {
        Server::serve(Arc::new(answer), false)
    }

    /// Serve requests on a connection until the client closes it.
    #[allow(dead_code)]
    pub fn keep_alive(answer: impl Fn(&Seen, usize) -> String + Send + Sync + 'static) -> Server {
        Server::serve(Arc::new(answer), true)
    }

    fn serve(answer: Arc<Answer>, keep_alive: bool) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { return };
                let (answer, kept) = (answer.clone(), kept.clone());
                std::thread::spawn(move || connection(stream, &*answer, &kept, keep_alive));
            }
        });
        Server { base, seen }
    }

    /// Every request received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Answer the requests of one connection.
fn connection(mut stream: TcpStream, answer: &Answer, kept: &Mutex<Vec<Seen>>, keep_alive: bool) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                break;
            }
            if let Some((n, v)) = h.trim_end().split_once(':') {
                headers.push((n.to_ascii_lowercase(), v.trim().to_string()));
            }
        }
        let request = Seen {
            method: method.to_string(),
            path: path.to_string(),
            headers,
        };
        let before = {
            let mut all = kept.lock().unwrap();
            all.push(request.clone());
            all.len() - 1
        };
        let head = answer(&request, before);
        let close = if keep_alive {
            ""
        } else {
            "Connection: close\r\n"
        };
        let response = format!("HTTP/1.1 {head}\r\nContent-Length: 0\r\n{close}\r\n");
        if stream.write_all(response.as_bytes()).is_err() || !keep_alive {
            return;
        }
    }
}
