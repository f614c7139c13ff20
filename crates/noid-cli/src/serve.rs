//! `noid serve` (the binder and minter HTTP API, crate `noid-api`). Built with the cargo
//! feature `server` (on by default); a `noid` built without it has no HTTP server,
//! async runtime or hyper in it, and says so when asked to serve. The API's CGI needs
//! none of these: it is in every build (`crate::cgi`).

use std::path::PathBuf;

use clap::Parser;

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
    let serve: Serve = match crate::mode::parse_args("noid serve", args) {
        Ok(s) => s,
        Err(code) => return code,
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
