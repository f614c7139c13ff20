//! Web mode: invoked under a name starting `noidu` (for example `noidu_kt5` as a CGI
//! script), the command comes from `QUERY_STRING` (`+` for spaces, `%`-escapes
//! decoded), `?-` runs the commands in the POST body, output is `text/plain` with
//! errors on the same stream, and `-f` and `dbcreate` are refused. With
//! `NOID_API_CONFIG` set, it is the binder and minter API instead (noid-binder's
//! `api::cgi`, in every build: it needs no HTTP server or async runtime).

use std::io::{Read, Write};
use std::time::Duration;

use crate::bulk;
use noid_binder::api::{self, cgi, Site};

use crate::invocation::Invocation;

/// Run in web mode.
pub fn run(argv0: &str) -> u8 {
    if let Some(config) = std::env::var_os("NOID_API_CONFIG").filter(|c| !c.is_empty()) {
        return api(std::path::Path::new(&config));
    }
    let mut so = std::io::stdout();
    let _ = so.write_all(b"Content-Type: text/plain\n\n");
    let _ = so.flush();
    if std::env::args()
        .skip(1)
        .any(|a| a == "-f" || a.starts_with("-f"))
    {
        println!("-f option not allowed in URL interface.");
        return 2;
    }
    // Raw bytes that are not UTF-8 are read as their %-escapes are (lossily), not
    // taken for a missing query.
    let Some(query) = std::env::var_os("QUERY_STRING") else {
        println!("error: No QUERY_STRING (hence no command) defined.");
        return 2;
    };
    let words = match noid_egg::words::web_query(&query.to_string_lossy()) {
        Ok(words) => words,
        Err(complaint) => {
            println!("{complaint}");
            return 2;
        }
    };
    let dbdir = crate::env::dbdir(None, argv0);
    let session = Invocation {
        dbdir_display: dbdir.display().to_string(),
        dbdir,
        web: true,
        progress: false,
        contact: crate::env::contact(true),
        lock_timeout: Duration::from_secs(60),
        last_context: Default::default(),
        atlast_status: Default::default(),
        egg_vars: Default::default(),
    };
    bulk::run_words(&session, words)
}

/// The API as a CGI (`noidu…` with `NOID_API_CONFIG` naming the configuration): Apache
/// authenticated the user (`REMOTE_USER`); `ScriptAlias /a …` gives the rest of the
/// path in `PATH_INFO`.
fn api(config: &std::path::Path) -> u8 {
    let var = |n: &str| std::env::var(n).ok().filter(|v| !v.is_empty());
    let mut out = std::io::stdout().lock();
    let site = match Site::load(config, crate::env::temper) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("noid API CGI: {e}");
            let _ = out.write_all(b"Status: 500 Internal Server Error\r\nContent-Type: text/plain\r\n\r\nerror: the API is not configured\n");
            return 1;
        }
    };
    let mut body = Vec::new();
    if let Some(len) = var("CONTENT_LENGTH").and_then(|l| l.parse::<u64>().ok()) {
        if len > api::MAX_BODY as u64 {
            let _ = cgi::write(api::body_too_large(), &mut out);
            return 0;
        }
        let _ = std::io::stdin().take(len).read_to_end(&mut body);
    }
    let req = cgi::CgiRequest {
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
    let resp = cgi::respond(&site, req);
    // Buffered: an export's many lines go out in large writes.
    match cgi::write(resp, &mut std::io::BufWriter::with_capacity(1 << 16, out)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("noid API CGI: {e}");
            1
        }
    }
}
