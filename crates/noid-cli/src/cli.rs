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
    let args = match Args::try_parse_from(egg_options_passed(std::env::args().collect())) {
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
        egg_vars: Default::default(),
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
        "prune-log" => crate::prune::run(&session, &args.command[1..]),
        _ => bulk::run_words(&session, args.command),
    }
}

/// `argv` with `--` put after noid's own options when the command is an egg command
/// (`ID.OP …`, `list`, `next`, `var`), so that egg's options before it (`-m FORMAT`, `--ack`,
/// `--all`, `:hx` …) reach egg instead of being refused by noid's option parser.
/// Perl Noid's commands never start with an option, so their command lines are
/// unchanged.
pub fn egg_options_passed(argv: Vec<String>) -> Vec<String> {
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        match a.as_str() {
            "--" => return argv,
            "-q" | "--quiet" | "-v" | "--version" | "-h" | "--help" => i += 1,
            "-f" | "--lock-timeout" => i += 2,
            _ if a.starts_with("--lock-timeout=") => i += 1,
            _ if a.starts_with("-f") && a.len() > 2 => i += 1,
            _ => break,
        }
    }
    match argv.get(i..) {
        Some(rest) if !rest.is_empty() && noid_egg::is_egg(rest) => {
            let mut v = argv[..i].to_vec();
            v.push("--".into());
            v.extend_from_slice(rest);
            v
        }
        _ => argv,
    }
}

#[cfg(test)]
mod tests {
    use super::egg_options_passed;

    fn pass(args: &[&str]) -> Vec<String> {
        let argv = std::iter::once("noid")
            .chain(args.iter().copied())
            .map(String::from)
            .collect();
        egg_options_passed(argv)
    }

    #[test]
    fn egg_options_reach_egg() {
        assert_eq!(
            pass(&["-f", "d", "-m", "anvl", "--ack", "i.set", "a", "b"]),
            ["noid", "-f", "d", "--", "-m", "anvl", "--ack", "i.set", "a", "b"]
        );
        assert_eq!(
            pass(&["-q", ":hx", "i.get", "a"]),
            ["noid", "-q", "--", ":hx", "i.get", "a"]
        );
        assert_eq!(pass(&["list", "-", "x"]), ["noid", "--", "list", "-", "x"]);
        // Perl Noid's commands and noid's own options are left alone.
        for perl in [
            &["-f", "d", "bind", "set", "i", "-m", "x"][..],
            &["--lock-timeout", "5", "mint", "1"],
            &["-", "x"],
            &["-v"],
            &["-x", "mint", "1"],
            &["--", "-m", "plain", "i.get", "a"],
        ] {
            let argv: Vec<String> = std::iter::once("noid")
                .chain(perl.iter().copied())
                .map(String::from)
                .collect();
            assert_eq!(egg_options_passed(argv.clone()), argv, "{perl:?}");
        }
    }
}
