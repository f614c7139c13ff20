//! `bind HOW ID ELEM VALUE`, including the `:` (paragraph) and `:-` (rest of input)
//! element forms that read elements and values from standard input.

use std::io::Read;

use noid_minter::bind::{bind, BindArgs};
use noid_minter::MinterError;

use super::minter_hooks::{check_idmap_pattern, new_pepper};
use super::{Failed, Writing};
use crate::complaint::Complaint;
use crate::output::Out;
use crate::usage::usage;

/// `bind`.
#[derive(Debug)]
pub struct Bind {
    /// The How word, as given (the minter judges it; "" when missing).
    how: String,
    /// The identifier ("" when missing).
    id: String,
    /// The element or elements.
    elem: Elem,
}

/// Which element a `bind` binds, and to what.
#[derive(Debug)]
enum Elem {
    /// One named element ("" when missing) and its value.
    Named(String, Option<String>),
    /// Elements and values read from standard input.
    Stdin(Form),
}

/// How standard input gives elements and values.
#[derive(Debug, Clone, Copy)]
enum Form {
    /// `:`: `Elem: value` lines up to a blank line.
    Paragraph,
    /// `:-`: one element from the first line, the rest of the input its value.
    Rest,
}

impl Form {
    /// The element word that selects this form.
    fn word(self) -> &'static str {
        match self {
            Form::Paragraph => ":",
            Form::Rest => ":-",
        }
    }

    /// The elements and values in `input`, or Perl's complaint.
    fn pairs(self, input: &str) -> Result<Vec<(String, String)>, String> {
        match self {
            Form::Paragraph => paragraph_pairs(input),
            Form::Rest => rest_pair(input),
        }
    }
}

impl Bind {
    /// Parse the arguments after `bind`.
    pub fn parse(args: Vec<String>) -> Result<Bind, Complaint> {
        let mut args = args.into_iter();
        let how = args.next().unwrap_or_default();
        let id = args.next().unwrap_or_default();
        let elem = args.next().unwrap_or_default();
        let value = args.next();
        let elem = match (elem.as_str(), value) {
            (":" | ":-", Some(v)) => {
                return Err(Complaint::new(format!(
                    "Why give a value ({v}) with an element \"{elem}\"?"
                )))
            }
            (":", None) => Elem::Stdin(Form::Paragraph),
            (":-", None) => Elem::Stdin(Form::Rest),
            (e, _) if e.starts_with(':') => {
                return Err(Complaint::new(format!(
                    "Binding to element syntax \"{elem}\" not supported."
                )))
            }
            (_, value) => Elem::Named(elem, value),
        };
        Ok(Bind { how, id, elem })
    }

    /// Run it within the write batch `w`.
    pub fn run(&self, w: &mut Writing<'_, '_>, out: &mut Out) -> Result<(), Failed> {
        let form = match &self.elem {
            Elem::Named(elem, value) => {
                return self.one(w, elem, value.as_ref().map(|v| v.as_bytes()), out)
            }
            Elem::Stdin(form) => *form,
        };
        let Some(stdin) = w.stdin.as_mut() else {
            out.fail(format!("error: element \"{}\" reads standard input, which carries the commands in bulk mode.\n", form.word()));
            return Err(Failed::Reported);
        };
        let mut input = Vec::new();
        if let Err(e) = stdin.read_to_end(&mut input) {
            out.fail(format!("error: reading standard input: {e}\n"));
            return Err(Failed::Reported);
        }
        let pairs = match form.pairs(&String::from_utf8_lossy(&input)) {
            Ok(p) => p,
            Err(msg) => {
                out.fail(format!("{msg}\n"));
                return Err(Failed::Reported);
            }
        };
        for (e, v) in pairs {
            self.one(w, &e, Some(v.as_bytes()), out)?;
        }
        Ok(())
    }

    /// Bind one element and print the report.
    fn one(
        &self,
        w: &mut Writing<'_, '_>,
        elem: &str,
        value: Option<&[u8]>,
        out: &mut Out,
    ) -> Result<(), Failed> {
        let ctx = w.session.context();
        let pepper = (self.how == "peppermint").then(new_pepper);
        let args = BindArgs {
            how: &self.how,
            id: &self.id,
            elem,
            value,
            new_pepper: pepper.as_deref(),
            check_pattern: check_idmap_pattern,
        };
        match bind(w.txn, w.minter, &ctx, &args) {
            Ok(report) => {
                out.out(report);
                out.out("\n");
                Ok(())
            }
            Err(MinterError::Refused(msg)) => {
                out.fail(format!("{msg}\n"));
                usage(out, false, true, "bind");
                Err(Failed::Reported)
            }
            Err(e) => Err(e.into()),
        }
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
