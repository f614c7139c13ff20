//! `hello`, `help`, `hold`, `queue`, `note`: commands whose work is one call into the
//! minter crate plus Perl's output conventions.

use noid_minter::{hold, note, queue, Minter, MinterError, Txn};
use noid_store::Writer;

use crate::output::Out;
use crate::session::Session;
use crate::usage::usage;

/// `hello`.
pub fn hello(out: &mut Out) {
    out.out("Hello.\n");
}

/// `help [topic]`.
pub fn help(out: &mut Out, args: &[String]) {
    usage(
        out,
        false,
        false,
        args.first().map(String::as_str).unwrap_or("intro"),
    );
}

/// `hold set|release ID…`.
pub fn hold(
    txn: &mut Txn<'_, Writer>,
    m: &mut Minter,
    args: &[String],
    out: &mut Out,
) -> Result<(), MinterError> {
    match hold::hold(
        txn,
        m,
        args.first().map(String::as_str),
        args.get(1..).unwrap_or(&[]),
    ) {
        Ok(msg) => {
            out.out(format!("{msg}\n\n"));
            Ok(())
        }
        Err(MinterError::Refused(msg)) => {
            out.fail(format!("{msg}\n"));
            usage(out, true, true, "hold");
            Err(MinterError::Refused(msg))
        }
        Err(e) => Err(e),
    }
}

/// `queue WHEN ID…`.
pub fn queue(
    session: &Session,
    txn: &mut Txn<'_, Writer>,
    m: &mut Minter,
    args: &[String],
    out: &mut Out,
) -> Result<(), MinterError> {
    let ctx = session.context();
    match queue::queue(
        txn,
        m,
        &ctx,
        args.first().map(String::as_str),
        args.get(1..).unwrap_or(&[]),
    ) {
        Ok(lines) => {
            out.out(format!("{}\n", lines.join("\n")));
            let n = lines.iter().filter(|l| !l.starts_with("error:")).count();
            out.out(format!(
                "note: {n} identifier{} queued\n",
                if n == 1 { "" } else { "s" }
            ));
            if n < lines.len() {
                out.failed = true;
            }
            Ok(())
        }
        Err(MinterError::Refused(msg)) => {
            out.fail(format!("{msg}\n"));
            out.out("note: 0 identifiers queued\n");
            Err(MinterError::Refused(msg))
        }
        Err(e) => Err(e),
    }
}

/// `note KEY VALUE`.
pub fn note(txn: &mut Txn<'_, Writer>, args: &[String], out: &mut Out) -> Result<(), MinterError> {
    let (Some(key), Some(value)) = (args.first(), args.get(1)) else {
        out.fail("You must supply a key and a value.\n");
        usage(out, true, true, "note");
        return Err(MinterError::refused("You must supply a key and a value."));
    };
    note::note(txn, key, value.as_bytes())
}
