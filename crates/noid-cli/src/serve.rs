//! `noid serve` (the binder and minter HTTP API, crate `noid-api`) and the API as a CGI.
//! Built with the cargo feature `server` (on by default); a `noid` built without it has
//! no HTTP server, async runtime or hyper in it, and says so when asked to serve.

use std::io::Write;
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
        if len > noid_api::handler::MAX_BODY as u64 {
            let _ = noid_api::cgi::write(noid_api::handler::body_too_large(), &mut out);
            return 0;
        }
        let _ = std::io::stdin().take(len).read_to_end(&mut body);
    }
    let req = noid_api::cgi::CgiRequest {
        path: format!("/a{}", var("PATH_INFO").unwrap_or_default()),
        query: var("QUERY_STRING").unwrap_or_default(),
        remote_user: var("REMOTE_USER"),
        remote_addr: var("REMOTE_ADDR").and_then(|a| a.parse().ok()),
        acting_for: var("HTTP_ACTING_FOR"),
        sec_fetch_site: var("HTTP_SEC_FETCH_SITE"),
        origin: var("HTTP_ORIGIN"),
        host: var("HTTP_HOST"),
        body,
    };
    let resp = noid_api::cgi::respond(&service, req);
    match noid_api::cgi::write(resp, &mut out) {
        Ok(()) => 0,
        Err(_) => 1,
    }
}
