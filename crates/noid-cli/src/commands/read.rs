//! `fetch`, `get`, `dbinfo`, `validate`: commands that only read. They run against a
//! lock-free snapshot, or against the open write batch in bulk mode so that they see
//! the commands before them.

use noid_minter::{fetch, info, Minter, MinterError};
use noid_resolve::Lookup;

use crate::output::Out;
use crate::usage::usage;

/// `fetch ID [ELEM…]` (verbose) / `get ID [ELEM…]`.
pub fn fetch(
    l: &dyn Lookup,
    verbose: bool,
    args: &[String],
    out: &mut Out,
) -> Result<(), MinterError> {
    let r = fetch::fetch(
        l,
        verbose,
        args.first().map(String::as_str),
        args.get(1..).unwrap_or(&[]),
    )?;
    out.out(&r.stdout);
    if verbose && !r.stdout.is_empty() {
        out.out("\n");
    }
    out.err(&r.stderr);
    if !r.ok {
        out.failed = true;
    }
    Ok(())
}

/// `dbinfo [brief|full|dump]`.
pub fn dbinfo(l: &dyn Lookup, args: &[String], out: &mut Out) -> Result<(), MinterError> {
    let level = args.first().map(String::as_str).unwrap_or("brief");
    if !matches!(level, "brief" | "full" | "dump") {
        out.fail(format!(
            "error: dbinfo level must be brief, full or dump, not \"{level}\".\n"
        ));
        return Ok(());
    }
    out.out(info::dbinfo(l, level)?);
    Ok(())
}

/// `validate TEMPLATE|- ID…`.
pub fn validate(l: &dyn Lookup, args: &[String], out: &mut Out) -> Result<(), MinterError> {
    let m = Minter::load(l)?;
    let template = args.first().map(String::as_str).unwrap_or("");
    let ids: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    // A bind-only minter (no template argument at dbcreate) validates everything.
    let minter_template = if m.genonly { m.template.as_str() } else { "" };
    match noid_core::validate::validate_ids(template, minter_template, &m.naan, &ids) {
        Ok(lines) => {
            for line in &lines {
                out.out(format!("{line}\n"));
            }
            if lines.iter().any(|l| l.starts_with("iderr:")) {
                out.failed = true;
            }
        }
        Err(msg) => {
            out.fail(format!("{msg}\n"));
            usage(out, true, true, "validate");
        }
    }
    Ok(())
}
