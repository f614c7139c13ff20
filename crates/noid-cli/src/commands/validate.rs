//! `validate TEMPLATE|- ID…`: which identifiers a template could have produced.

use noid_core::Lookup;
use noid_minter::{Minter, MinterError};

use crate::output::Out;
use crate::usage::usage;

/// `validate`.
#[derive(Debug)]
pub struct Validate {
    /// A template, or `-` for the minter's own ("" when none was given).
    template: String,
    ids: Vec<String>,
}

impl Validate {
    /// Parse the arguments after `validate`.
    pub fn parse(args: Vec<String>) -> Validate {
        let mut args = args.into_iter();
        Validate {
            template: args.next().unwrap_or_default(),
            ids: args.collect(),
        }
    }

    /// Run it against `l`.
    pub fn run(&self, l: &dyn Lookup, out: &mut Out) -> Result<(), MinterError> {
        let m = Minter::load(l)?;
        let ids: Vec<&str> = self.ids.iter().map(String::as_str).collect();
        // A bind-only minter (no template argument at dbcreate) validates everything.
        let minter_template = if m.genonly { m.template.as_str() } else { "" };
        match noid_template::validate::validate_ids(&self.template, minter_template, &m.naan, &ids)
        {
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
}
