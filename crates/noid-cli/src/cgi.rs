//! Web mode: invoked under a name starting `noidu` (for example `noidu_kt5` as a CGI
//! script), the command comes from `QUERY_STRING` (`+` for spaces, `%`-escapes
//! decoded), `?-` runs the commands in the POST body, output is `text/plain` with
//! errors on the same stream, and `-f` and `dbcreate` are refused. With
//! `NOID_API_CONFIG` set, it is the binder and minter API instead (`noid_api::cgi`).

use std::io::Write;
use std::time::Duration;

use crate::bulk;
use crate::invocation::Invocation;

/// Run in web mode.
pub fn run(argv0: &str) -> u8 {
    if let Some(config) = std::env::var_os("NOID_API_CONFIG").filter(|c| !c.is_empty()) {
        return crate::serve::cgi(std::path::Path::new(&config));
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
