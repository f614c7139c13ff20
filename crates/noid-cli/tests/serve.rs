//! `noid serve` on a port the system picks, for the tests of noid-cli and noidr (which
//! include this file).

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// Start `NOID serve --http 127.0.0.1:0 --config CONFIG`: the system picks a free port
/// and noid serve logs the address it bound (`noid serve: HTTP API on ADDR`), which is
/// read here; so the test talks to its own server, never to whatever took a port it
/// guessed. The rest of its log is read and dropped (a full pipe would block it).
pub fn start(noid: &Path, config: &Path) -> (Child, u16) {
    let mut child = Command::new(noid)
        .args(["serve", "--http", "127.0.0.1:0", "--config"])
        .arg(config)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start noid serve");
    let mut log = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut seen = String::new();
    let port = loop {
        let mut line = String::new();
        if log.read_line(&mut line).expect("read noid serve's log") == 0 {
            let status = child.wait().expect("wait for noid serve");
            panic!("noid serve exited ({status}) before listening:\n{seen}");
        }
        if let Some((_, addr)) = line.split_once("HTTP API on 127.0.0.1:") {
            break addr.trim().parse::<u16>().expect("a port");
        }
        seen.push_str(&line);
    };
    std::thread::spawn(move || std::io::copy(&mut log, &mut std::io::sink()));
    (child, port)
}
