//! From process arguments to an exit status: choose the mode (one command, bulk,
//! web), build the [`Session`], and run.

use std::time::Duration;

use clap::Parser;

use crate::args::Args;
use crate::bulk;
use crate::output::Out;
use crate::session::Session;
use crate::usage::usage;

/// Run the `noid` command.
pub fn run() -> u8 {
    let argv0 = std::env::args().next().unwrap_or_else(|| "noid".into());
    let name = argv0.rsplit('/').next().unwrap_or(&argv0).to_string();
    if name.starts_with("noidu") {
        return crate::cgi::run(&argv0);
    }
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    if args.version {
        println!("This is \"noid\" version 0.424.");
        return 0;
    }
    let session = Session {
        dbdir: crate::env::dbdir(args.dbdir.as_deref(), &argv0),
        dbdir_display: crate::env::dbdir(args.dbdir.as_deref(), &argv0)
            .display()
            .to_string(),
        web: false,
        progress: !args.quiet,
        contact: crate::env::contact(false),
        lock_timeout: Duration::from_secs(args.lock_timeout),
        last_context: Default::default(),
        atlast_status: Default::default(),
    };
    if session.contact.is_empty() {
        eprintln!("Can't tell who you are.");
        return 1;
    }
    if args.command.is_empty() {
        let mut out = Out::default();
        usage(&mut out, true, true, "intro");
        let _ = out.flush(false);
        return 2;
    }
    match args.command[0].as_str() {
        "serve" => crate::api::serve(&args.command[1..]),
        "replay" => crate::api::replay(&session, &args.command[1..]),
        _ => bulk::run_words(&session, args.command),
    }
}
