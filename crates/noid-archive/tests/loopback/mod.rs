//! A small real HTTP/1.1 server on 127.0.0.1 for the tests: it answers each request
//! with what the test's function makes of it, closes the connection, and keeps every
//! request it was sent, so that a test can show what reached it.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
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

/// A server on a port of its own.
pub struct Server {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    /// Serve: `answer` makes each response (status line and headers after
    /// `HTTP/1.1 `, without the blank line) from the request and how many came before.
    pub fn start(answer: impl Fn(&Seen, usize) -> String + Send + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let kept = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    continue;
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
                let response =
                    format!("HTTP/1.1 {head}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                let _ = stream.write_all(response.as_bytes());
            }
        });
        Server { base, seen }
    }

    /// Every request received so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}
