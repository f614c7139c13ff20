//! From process arguments to an exit status: choose the mode (one command, bulk,
//! web), build the [`Invocation`], and run.

use std::time::Duration;

use clap::{CommandFactory, Parser};

use crate::args::Args;
use crate::bulk;
use crate::invocation::Invocation;
use crate::mode::Mode;
use crate::output::Out;
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
    let session = Invocation {
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
    // The process modes; every other word is a command.
    match Mode::of(&args.command[0]) {
        Some(Mode::Serve) => crate::serve::serve(&args.command[1..]),
        Some(Mode::Replay) => crate::replay::replay(&session, &args.command[1..]),
        Some(Mode::PruneLog) => crate::prune::run(&session, &args.command[1..]),
        Some(Mode::Links) => crate::links::run(&session, &args.command[1..]),
        Some(Mode::Explain) => crate::resolving::explain(&session, &args.command[1..]),
        Some(Mode::Rules) => crate::resolving::rules(&session, &args.command[1..]),
        Some(Mode::Index) => crate::search::index(&session, &args.command[1..]),
        Some(Mode::Search) => crate::search::search(&session, &args.command[1..]),
        Some(Mode::History) => crate::history::history(&session, &args.command[1..]),
        Some(Mode::Rewrite) => crate::history::rewrite(&session, &args.command[1..]),
        Some(Mode::Stats) => crate::stats::run(&session, &args.command[1..]),
        Some(Mode::Compact) => crate::compact::run(&session, &args.command[1..]),
        _ => bulk::run_words(&session, args.command),
    }
}

/// `argv` with `--` put after noid's own options when the command is an egg command
/// (`ID.OP …`, `list`, `next`, `var`), so that egg's options before it (`-m FORMAT`, `--ack`,
/// `--all`, `:hx` …) reach egg instead of being refused by noid's option parser.
/// Perl Noid's commands never start with an option, so their command lines are
/// unchanged. noid's options are read from clap's definition ([`Args`]).
pub fn egg_options_passed(argv: Vec<String>) -> Vec<String> {
    let mut cmd = Args::command();
    cmd.build();
    let mut i = 1;
    while let Some(a) = argv.get(i) {
        if a == "--" {
            return argv;
        }
        match option_words(&cmd, a) {
            Some(n) => i += n,
            None => break,
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

/// How many words the option starting at `word` takes (1, or 2 when its value is the
/// next word), or None when `word` is no option of `cmd`'s.
fn option_words(cmd: &clap::Command, word: &str) -> Option<usize> {
    let (name, glued) = match word.strip_prefix("--") {
        Some(long) => match long.split_once('=') {
            Some((name, _)) => (name, true),
            None => (long, false),
        },
        None => {
            let mut chars = word.strip_prefix('-')?.chars();
            let short = chars.next()?;
            let glued = chars.next().is_some();
            let arg = cmd.get_arguments().find(|a| a.get_short() == Some(short))?;
            return Some(words_of(arg, glued));
        }
    };
    let arg = cmd.get_arguments().find(|a| a.get_long() == Some(name))?;
    Some(words_of(arg, glued))
}

/// 2 for an option whose value is the next word, else 1.
fn words_of(arg: &clap::Arg, value_glued: bool) -> usize {
    if arg.get_action().takes_values() && !value_glued {
        2
    } else {
        1
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
        // Every spelling clap accepts for noid's options.
        assert_eq!(
            pass(&["--lock-timeout=5", "-fd", "--quiet", "-h", "i.get", "a"]),
            [
                "noid",
                "--lock-timeout=5",
                "-fd",
                "--quiet",
                "-h",
                "--",
                "i.get",
                "a"
            ]
        );
        assert_eq!(
            pass(&["--lock-timeout", "5", "-v", "--help", "i.get", "a"]),
            [
                "noid",
                "--lock-timeout",
                "5",
                "-v",
                "--help",
                "--",
                "i.get",
                "a"
            ]
        );
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
