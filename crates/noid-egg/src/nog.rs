//! Minter commands as N2T's minter URLs take them (EggNog's `nog`): `mint N` prints N
//! new identifiers as `s: ID` lines (bare in plain format).

use noid_core::Lookup;
use noid_minter::mint_engine::{self, Minted, Order};
use noid_minter::{Context, Minter, Txn};

use crate::error::BinderError;
use crate::render::Format;

/// The most identifiers one request may mint: a larger batch is more than one
/// response should hold, and its client can ask again.
pub const MAX_MINT: u64 = 100_000;

/// A parsed minter command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NogCommand {
    /// `mint N`.
    Mint(u64),
    /// `help` (or nothing).
    Help,
}

/// What `help` prints for a minter.
pub const NOG_HELP: &str = "\
# noid minter commands: mint N (N new identifiers, at most 100000 per request)
# options: -m plain|anvl|json|xml
";

/// Parse a minter command line; returns the output format and the command.
pub fn parse(line: &str, default: Format) -> Result<(Format, NogCommand), BinderError> {
    let tokens = crate::token::split(line)?;
    let mut format = default;
    let mut rest = tokens.iter().map(String::as_str);
    let mut word = rest.next();
    while let Some(w) = word.filter(|w| w.starts_with('-')) {
        match w {
            "-m" | "--format" => {
                let f = rest
                    .next()
                    .ok_or_else(|| BinderError::refused(format!("{w} needs a format")))?;
                format = Format::parse(f)?;
            }
            _ => return Err(BinderError::refused(format!("unknown option: {w}"))),
        }
        word = rest.next();
    }
    match word {
        None | Some("help") => Ok((format, NogCommand::Help)),
        Some("mint" | "nab") => {
            let arg = rest.next().unwrap_or("");
            let n = arg
                .parse::<u64>()
                .ok()
                .filter(|n| *n > 0 && arg.bytes().all(|c| c.is_ascii_digit()))
                .ok_or_else(|| {
                    BinderError::refused(format!(
                        "Argument error: expected positive integer, got \"{arg}\""
                    ))
                })?;
            if n > MAX_MINT {
                return Err(BinderError::refused(format!(
                    "at most {MAX_MINT} identifiers per request, not {n}"
                )));
            }
            Ok((format, NogCommand::Mint(n)))
        }
        Some(w) if is_admin(w) => Err(BinderError::Unauthorized),
        Some(w) => Err(BinderError::refused(format!("unknown command: {w}"))),
    }
}

/// Minter administration that never runs through a URL.
fn is_admin(word: &str) -> bool {
    matches!(
        word,
        "mkminter" | "rmminter" | "dbcreate" | "import" | "queue" | "hold"
    )
}

/// Mint `n` identifiers in `txn` (the caller commits before printing them), with
/// noid-minter's mint engine ([`mint_engine::mint_in_one`]). When a mint fails (a
/// `stopN` minter at its end), the identifiers minted before it stand, as `nog` prints
/// them before its note, and come back with the error; the minter's exit status
/// (`stopN`, `wrapN`) is left in `minter.exit_status`.
pub fn mint_n<L: Lookup + ?Sized>(
    txn: &mut Txn<'_, L>,
    minter: &mut Minter,
    ctx: &Context,
    n: u64,
) -> Result<Vec<String>, (Vec<String>, BinderError)> {
    let ids = |minted: Vec<Minted>| minted.into_iter().map(|m| m.id).collect();
    match mint_engine::mint_in_one(txn, minter, ctx, &Order::plain(n)) {
        Ok(minted) => Ok(ids(minted)),
        Err((minted, e)) => Err((ids(minted), e.into())),
    }
}

/// The lines that report minted identifiers, then the minter's notes (EggNog's
/// `note: chars added (via add3) …` when the template grew), as `nog` prints them.
pub fn render_minted(ids: &[String], notes: &[String], format: Format) -> Vec<u8> {
    let mut out = Vec::new();
    match format {
        Format::Json => {
            let body = if notes.is_empty() {
                serde_json::json!({ "s": ids })
            } else {
                serde_json::json!({ "s": ids, "notes": notes })
            };
            out.extend_from_slice(body.to_string().as_bytes());
            out.push(b'\n');
        }
        Format::Xml => crate::xml::minted(&mut out, ids, notes),
        Format::Anvl | Format::Plain => {
            for id in ids {
                if format == Format::Anvl {
                    out.extend_from_slice(b"s: ");
                }
                out.extend_from_slice(id.as_bytes());
                out.push(b'\n');
            }
            for note in notes {
                out.extend_from_slice(note.as_bytes());
                out.push(b'\n');
            }
            out.push(b'\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mint_counts() {
        assert_eq!(
            parse("mint 3", Format::Anvl).unwrap(),
            (Format::Anvl, NogCommand::Mint(3))
        );
        assert_eq!(
            parse("mint x", Format::Anvl).unwrap_err(),
            BinderError::refused("Argument error: expected positive integer, got \"x\"")
        );
        assert_eq!(
            parse("mint +3", Format::Anvl).unwrap_err(),
            BinderError::refused("Argument error: expected positive integer, got \"+3\"")
        );
        assert_eq!(
            parse("mkminter x", Format::Anvl),
            Err(BinderError::Unauthorized)
        );
    }

    #[test]
    fn growth_notes_follow_the_spings() {
        let ids = ["99999/fk4d".to_string(), "99999/fk4dd0".to_string()];
        let notes =
            ["note: chars added (via add1) to template 'fk4.rd' to create 'fk4.rdd'".to_string()];
        assert_eq!(
            String::from_utf8(render_minted(&ids, &notes, Format::Anvl)).unwrap(),
            "s: 99999/fk4d\ns: 99999/fk4dd0\n\
             note: chars added (via add1) to template 'fk4.rd' to create 'fk4.rdd'\n\n"
        );
        assert_eq!(
            String::from_utf8(render_minted(&ids, &[], Format::Plain)).unwrap(),
            "99999/fk4d\n99999/fk4dd0\n\n"
        );
        assert_eq!(
            String::from_utf8(render_minted(&ids, &notes, Format::Json)).unwrap(),
            "{\"notes\":[\"note: chars added (via add1) to template 'fk4.rd' to create \
             'fk4.rdd'\"],\"s\":[\"99999/fk4d\",\"99999/fk4dd0\"]}\n"
        );
    }
}
