//! The command line: global options through clap, then a Perl-style command word and
//! its arguments, which bulk and web modes also feed from other sources.

use clap::Parser;

/// noid: mint, bind and resolve persistent identifiers (a Rust Noid, compatible with
/// Perl Noid 0.424 minters, commands and output).
#[derive(Parser, Debug)]
#[command(
    name = "noid",
    disable_version_flag = true,
    after_help = "Commands (noid help COMMAND for details):\n  dbcreate [--atlast addN|stopN|wrapN] [Template [Term [NAAN NAA SubNAA]]]\n                                                  create a minter in Dbdir/NOID\n                                                  (noid help templates)\n  mint N | peppermint N                           mint N identifiers\n  bind How Id Element Value                       bind (How: new replace set append add\n                                                  prepend insert delete purge mint peppermint)\n  fetch Id [Element...] | get Id [Element...]     show bindings (labelled | bare)\n  hold set|release Id...                          place or remove holds\n  queue now|first|lvf|delete|N[ds] Id...          queue ids for (re)minting\n  validate Template|- Id...                       check ids against a template\n  note Key Value                                  store a user note\n  dbinfo [brief|full|dump]                        show the minter's keys\n  import Path | export [noid|dbdump] | check [--repair]\n  lui encode|decode|normalize ...                 Crockford base32 LUIs (noid lui --help)\n  hello | help [Topic]\n  -                                               run one command per stdin line (bulk)\n\nOptions must come before the command; everything after it is passed as is, so\nvalues starting with '-' or '+' are bound literally.\n\nExit status: 0 on success, 1 when a command failed or was refused, 2 for usage errors."
)]
pub struct Args {
    /// Minter directory (Dbdir); the database lives in Dbdir/NOID. Defaults to $NOID,
    /// then the part after '_' in the program name (noid_fk9 → fk9), then ".".
    #[arg(short = 'f', value_name = "Dbdir")]
    pub dbdir: Option<String>,

    /// Print the version and exit.
    #[arg(short = 'v', long = "version")]
    pub version: bool,

    /// Seconds to wait for another noid process that holds the minter's write lock.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    pub lock_timeout: u64,

    /// The command and its arguments ("-" for bulk mode).
    #[arg(trailing_var_arg = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}
