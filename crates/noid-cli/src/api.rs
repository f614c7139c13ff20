//! `noid serve` (the binder and minter HTTP API, crate `noid-api`) and `noid replay`
//! (re-applying a binder's write log).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Parser;
use noid_egg::writelog::Record;
use noid_egg::Session as EggSession;
use noid_minter::batch::{self, Batch, Feed, Step};
use noid_store::{Store, StoreError};

use crate::session::Session;

/// noid serve: the N2T-style binder and minter API over HTTP.
#[derive(Parser, Debug)]
#[command(name = "noid serve")]
struct Serve {
    /// Where to listen: HOST:PORT, PORT (loopback), or unix:/path/to/socket. Port 0
    /// lets the system pick a free port; the address bound is logged to stderr once it
    /// listens ("noid serve: HTTP API on ADDR", at the default log level, info).
    #[arg(long, value_name = "ADDR")]
    http: String,
    /// The configuration file (populators, binders, minters, password files).
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
}

/// `noid serve --http ADDR --config FILE`.
pub fn serve(args: &[String]) -> u8 {
    let serve = match Serve::try_parse_from(
        std::iter::once("noid serve".to_string()).chain(args.iter().cloned()),
    ) {
        Ok(s) => s,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let _ = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .try_init();
    match noid_api::run(&serve.http, &serve.config, crate::env::temper) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("noid serve: {e}");
            1
        }
    }
}

/// Writes applied per commit while replaying.
const REPLAY_BATCH: usize = 100_000;

/// `noid -f DIR replay LOG`: apply a write log's commands, as their agents at their
/// times, to the binder in DIR.
pub fn replay(session: &Session, args: &[String]) -> u8 {
    let [log] = args else {
        eprintln!("usage: noid -f Dbdir replay LOG");
        return 2;
    };
    let file = match std::fs::File::open(log) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {log}: {e}");
            return 1;
        }
    };
    let writer = match crate::store::open_writer(session) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let mut batch = match Batch::open(&*writer) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let mut feed = Replay {
        log,
        lines: std::io::BufReader::new(file).lines().enumerate(),
        egg: EggSession::new(false),
        applied: 0,
        failed: 0,
        ok: true,
    };
    batch::run(&mut batch, &mut feed);
    if !feed.ok {
        return 1;
    }
    println!("replayed {} writes from {log}", feed.applied);
    u8::from(feed.failed > 0)
}

/// A write log's records as a write batch's feed; errors go to stderr as they happen.
struct Replay<'a, L> {
    log: &'a str,
    lines: std::iter::Enumerate<L>,
    egg: EggSession<'static>,
    applied: usize,
    failed: usize,
    /// The log was read and every batch written.
    ok: bool,
}

impl<L: Iterator<Item = std::io::Result<String>>> Feed<dyn Store> for Replay<'_, L> {
    fn run_next(&mut self, batch: &mut Batch<'_, dyn Store>) -> Step {
        let log = self.log;
        let (n, line) = loop {
            match self.lines.next() {
                None => return Step::End,
                Some((n, Ok(line))) if !line.is_empty() => break (n, line),
                Some((_, Ok(_))) => {}
                Some((_, Err(e))) => {
                    eprintln!("error: {log}: {e}");
                    self.ok = false;
                    return Step::Abort;
                }
            }
        };
        let outcome = Record::parse(&line)
            .map_err(|e| e.to_string())
            .and_then(|r| {
                let (txn, minter) = batch.parts().map_err(|e| e.to_string())?;
                let agent = r.replay_agent();
                let o = self
                    .egg
                    .run(txn, minter, &agent, &r.command, None, &mut std::io::empty());
                o.error.map_or(Ok(()), |e| Err(e.to_string()))
            });
        match outcome {
            Ok(()) => self.applied += 1,
            Err(e) => {
                self.failed += 1;
                eprintln!("error: {log} line {}: {e}", n + 1);
            }
        }
        Step::Ran
    }

    fn commit_due(&mut self, pending: usize) -> bool {
        pending >= REPLAY_BATCH
    }

    fn committed(&mut self, _: &dyn Store, outcome: Result<(), StoreError>, _: bool) -> bool {
        if let Err(e) = outcome {
            eprintln!("error: {e}; the last batch was not written");
            self.ok = false;
        }
        self.ok
    }
}

/// The API as a CGI (`noidu…` with `NOID_API_CONFIG` naming the configuration): Apache
/// authenticated the user (`REMOTE_USER`); `ScriptAlias /a …` gives the rest of the
/// path in `PATH_INFO`.
pub fn cgi(config: &std::path::Path) -> u8 {
    use std::io::Read;
    let var = |n: &str| std::env::var(n).ok().filter(|v| !v.is_empty());
    let mut out = std::io::stdout().lock();
    let service = match noid_api::service(config, crate::env::temper) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("noid API CGI: {e}");
            let _ = out.write_all(b"Status: 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\nerror: the API is not configured\n");
            return 1;
        }
    };
    let mut body = Vec::new();
    if let Some(len) = var("CONTENT_LENGTH").and_then(|l| l.parse::<u64>().ok()) {
        let _ = std::io::stdin().take(len).read_to_end(&mut body);
    }
    let req = noid_api::cgi::CgiRequest {
        path: format!("/a{}", var("PATH_INFO").unwrap_or_default()),
        query: var("QUERY_STRING").unwrap_or_default(),
        remote_user: var("REMOTE_USER"),
        remote_addr: var("REMOTE_ADDR").and_then(|a| a.parse().ok()),
        acting_for: var("HTTP_ACTING_FOR"),
        body,
    };
    let resp = noid_api::cgi::respond(&service, req);
    match noid_api::cgi::write(resp, &mut out) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}
