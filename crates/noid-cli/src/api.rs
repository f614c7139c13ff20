//! `noid serve` (the binder and minter HTTP API, crate `noid-api`) and `noid replay`
//! (re-applying a binder's write log).

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Parser;
use noid_egg::writelog::Record;
use noid_egg::Session as EggSession;
use noid_minter::{Minter, Txn};
use noid_store::{Op, Store};

use crate::session::Session;

/// noid serve: the N2T-style binder and minter API over HTTP.
#[derive(Parser, Debug)]
#[command(name = "noid serve")]
struct Serve {
    /// Where to listen: HOST:PORT, PORT (loopback), or unix:/path/to/socket.
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
    let mut txn = Txn::new(&*writer);
    let mut minter = match Minter::load(&txn) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{e}");
            return 1;
        }
    };
    let mut egg = EggSession::new(false);
    let (mut applied, mut failed) = (0usize, 0usize);
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                eprintln!("error: {log}: {e}");
                return 1;
            }
        };
        if line.is_empty() {
            continue;
        }
        let outcome = Record::parse(&line).map(|r| {
            egg.run(
                &mut txn,
                &mut minter,
                &r.replay_agent(),
                &r.command,
                None,
                &mut std::io::empty(),
            )
        });
        match outcome {
            Ok(o) if o.error.is_none() => applied += 1,
            Ok(o) => {
                failed += 1;
                eprintln!("error: {log} line {}: {}", n + 1, o.error.expect("failed"));
            }
            Err(e) => {
                failed += 1;
                eprintln!("error: {log} line {}: {e}", n + 1);
            }
        }
        if txn.len() >= REPLAY_BATCH && !commit(&mut txn) {
            return 1;
        }
    }
    if !commit(&mut txn) {
        return 1;
    }
    println!("replayed {applied} writes from {log}");
    u8::from(failed > 0)
}

fn commit(txn: &mut Txn<'_, dyn Store>) -> bool {
    let ops = txn.take_writes().into_iter().map(Op::from);
    match txn.base().commit(ops) {
        Ok(()) => true,
        Err(e) => {
            eprintln!("error: {e}; the last batch was not written");
            false
        }
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
