//! `noid lui encode|decode|normalize`: Crockford base32 LUIs spelled exactly as the
//! Python package base32-lib 1.1.1 spells them, for sites turning integer record ids
//! into LUIs and back. Needs no minter.

use clap::{Parser, Subcommand};
use noid_template::lui::{decode, encode, normalize, split, Spelling};

use crate::output::Out;

/// Crockford base32 local unique identifiers (LUIs), as base32-lib 1.1.1 spells them:
/// digits 0-9 and a-z without i, l, o and u, an optional ISO 7064 MOD 97-10 checksum
/// as two final decimal digits, dashes for readability.
#[derive(Parser, Debug)]
#[command(name = "noid lui", disable_version_flag = true)]
struct LuiArgs {
    #[command(subcommand)]
    command: LuiCommand,
}

#[derive(Subcommand, Debug)]
enum LuiCommand {
    /// Print the LUI of NUMBER.
    Encode {
        /// A whole number from 0 to 18446744073709551615.
        #[arg(value_parser = number)]
        number: u64,
        /// Insert a dash after every K characters (0: none).
        #[arg(long, value_name = "K", default_value_t = 0)]
        split: usize,
        /// Pad with leading zeros to L characters, checksum included.
        #[arg(long, value_name = "L", default_value_t = 0)]
        min_length: usize,
        /// Append the two-digit checksum.
        #[arg(long)]
        checksum: bool,
    },
    /// Print the number a LUI spells (upper case, dashes, I/L for 1 and O for 0 are
    /// accepted).
    Decode {
        /// The LUI.
        #[arg(allow_hyphen_values = true)]
        string: String,
        /// The last two characters are a checksum to verify (as in base32-lib, they
        /// must be the two digits themselves, no dash among them).
        #[arg(long)]
        checksum: bool,
    },
    /// Print the canonical spelling of a LUI: lower case, I and L read as 1, O as 0,
    /// dashes dropped (or put back every K characters with --split).
    Normalize {
        /// The LUI.
        #[arg(allow_hyphen_values = true)]
        string: String,
        /// Insert a dash after every K characters (0: none).
        #[arg(long, value_name = "K", default_value_t = 0)]
        split: usize,
        /// Verify the checksum (the last two characters, once dashes are dropped).
        #[arg(long)]
        checksum: bool,
    },
}

/// A 64-bit unsigned number written in decimal digits only.
fn number(s: &str) -> Result<u64, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err("expected a whole number of decimal digits".into());
    }
    s.parse()
        .map_err(|_| "the number does not fit in 64 bits (at most 18446744073709551615)".into())
}

/// `lui encode|decode|normalize …`. Its arguments are clap's to parse when it runs, so
/// that clap's complaints and `--help` print where the verb runs.
#[derive(Debug)]
pub struct Lui {
    args: Vec<String>,
}

impl Lui {
    /// Take the arguments after `lui`.
    pub fn parse(args: Vec<String>) -> Lui {
        Lui { args }
    }

    /// Run it.
    pub fn run(&self, out: &mut Out) {
        run(&self.args, out)
    }
}

/// Run `noid lui ARGS…`.
fn run(args: &[String], out: &mut Out) {
    let argv = std::iter::once("noid lui".to_string()).chain(args.iter().cloned());
    let parsed = match LuiArgs::try_parse_from(argv) {
        Ok(p) => p,
        Err(e) => {
            let text = e.render().to_string();
            if e.use_stderr() {
                out.fail(text);
            } else {
                out.out(text);
            }
            return;
        }
    };
    let answer = match parsed.command {
        LuiCommand::Encode {
            number,
            split,
            min_length,
            checksum,
        } => Ok(encode(
            number,
            Spelling {
                split_every: split,
                min_length,
                checksum,
            },
        )),
        LuiCommand::Decode { string, checksum } => decode(&string, checksum)
            .map(|n| n.to_string())
            .map_err(|e| format!("error: lui decode {string:?}: {e}")),
        LuiCommand::Normalize {
            string,
            split: every,
            checksum,
        } => normalize(&string)
            .and_then(|plain| {
                if checksum {
                    decode(&plain, true)?;
                }
                Ok(split(&plain, every))
            })
            .map_err(|e| format!("error: lui normalize {string:?}: {e}")),
    };
    match answer {
        Ok(line) => out.out(format!("{line}\n")),
        Err(msg) => out.fail(format!("{msg}\n")),
    }
}
