//! `bind HOW ID ELEM VALUE`, including the `:` (paragraph) and `:-` (rest of input)
//! element forms that read elements and values from standard input.

use std::io::Read;

use noid_minter::bind::{bind, BindArgs};
use noid_minter::{Minter, MinterError, Txn};
use noid_store::Writer;

use crate::output::Out;
use crate::session::Session;
use crate::usage::usage;

/// Run `bind`. `stdin` is None in bulk mode, where standard input carries commands.
pub fn run(
    session: &Session,
    txn: &mut Txn<'_, Writer>,
    m: &mut Minter,
    args: &[String],
    stdin: Option<&mut dyn Read>,
    out: &mut Out,
) -> Result<(), MinterError> {
    let how = args.first().map(String::as_str).unwrap_or("");
    let id = args.get(1).map(String::as_str).unwrap_or("");
    let elem = args.get(2).map(String::as_str).unwrap_or("");
    let value = args.get(3);
    if elem == ":" || elem == ":-" {
        if let Some(v) = value {
            out.fail(format!(
                "Why give a value ({v}) with an element \"{elem}\"?\n"
            ));
            return Err(MinterError::refused("value with :"));
        }
        let Some(stdin) = stdin else {
            out.fail(format!("error: element \"{elem}\" reads standard input, which carries the commands in bulk mode.\n"));
            return Err(MinterError::refused("stdin"));
        };
        let mut input = Vec::new();
        stdin
            .read_to_end(&mut input)
            .map_err(|e| MinterError::Store(format!("reading standard input: {e}")))?;
        let input = String::from_utf8_lossy(&input).into_owned();
        let pairs = if elem == ":" {
            paragraph_pairs(&input)
        } else {
            rest_pair(&input)
        };
        let pairs = match pairs {
            Ok(p) => p,
            Err(msg) => {
                out.fail(format!("{msg}\n"));
                return Err(MinterError::refused(msg));
            }
        };
        for (e, v) in pairs {
            one(session, txn, m, how, id, &e, Some(v.as_bytes()), out)?;
        }
        return Ok(());
    }
    if elem.starts_with(':') {
        out.fail(format!(
            "Binding to element syntax \"{elem}\" not supported.\n"
        ));
        return Err(MinterError::refused("element syntax"));
    }
    one(
        session,
        txn,
        m,
        how,
        id,
        elem,
        value.map(|v| v.as_bytes()),
        out,
    )
}

#[allow(clippy::too_many_arguments)]
fn one(
    session: &Session,
    txn: &mut Txn<'_, Writer>,
    m: &mut Minter,
    how: &str,
    id: &str,
    elem: &str,
    value: Option<&[u8]>,
    out: &mut Out,
) -> Result<(), MinterError> {
    let ctx = session.context();
    let pepper = if how == "peppermint" {
        Some(super::mint::new_pepper())
    } else {
        None
    };
    let args = BindArgs {
        how,
        id,
        elem,
        value,
        new_pepper: pepper.as_deref(),
    };
    match bind(txn, m, &ctx, &args) {
        Ok(report) => {
            out.out(report);
            out.out("\n");
            Ok(())
        }
        Err(MinterError::Refused(msg)) => {
            out.fail(format!("{msg}\n"));
            usage(out, false, true, "bind");
            Err(MinterError::Refused(msg))
        }
        Err(e) => Err(e),
    }
}

/// `:` — `Elem: value` pairs up to the first blank line, email-header style, with
/// indented continuation lines; `#` lines are comments.
fn paragraph_pairs(input: &str) -> Result<Vec<(String, String)>, String> {
    let para = input.split("\n\n").next().unwrap_or("");
    let mut pairs: Vec<(String, String)> = Vec::new();
    for line in para.lines() {
        if line.starts_with('#') {
            continue;
        }
        if line.starts_with(|c: char| c.is_whitespace()) {
            if let Some(last) = pairs.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim_start());
                continue;
            }
        }
        match line.split_once(':') {
            Some((e, v)) if !e.trim().is_empty() => {
                pairs.push((e.trim().to_string(), v.trim_start().to_string()))
            }
            _ if line.trim().is_empty() => {}
            _ => {
                return Err(format!(
                    "error: bad element line \"{line}\" (expected Element: Value)."
                ))
            }
        }
    }
    Ok(pairs)
}

/// `:-` — the first non-blank, non-comment line is `Elem: value`; every following
/// line is part of the value, which ends with a newline.
fn rest_pair(input: &str) -> Result<Vec<(String, String)>, String> {
    let mut lines = input
        .lines()
        .skip_while(|l| l.starts_with('#') || l.trim().is_empty());
    let Some(first) = lines.next() else {
        return Err("error:  no non-blank, non-comment input.".into());
    };
    let Some((e, v)) = first.split_once(':') else {
        return Err(
            "error:  missing element or colon on first non-blank, non-comment line.".into(),
        );
    };
    let e = e.trim();
    if e.is_empty() || !e.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Err(
            "error:  missing element or colon on first non-blank, non-comment line.".into(),
        );
    }
    let mut value = v.trim_start().to_string();
    for l in lines {
        value.push('\n');
        value.push_str(l);
    }
    value.push('\n');
    Ok(vec![(e.to_string(), value)])
}
