//! Test harness: a minimal in-memory minter that drives `noid_template` exactly the way the
//! real minter does (firstpart, genid, assemble), so tests can assert minted ids.

#![allow(dead_code)] // Each test binary uses a different part of the harness.

use noid_template::generator::{
    assemble_in, init_counters, CompiledMask, GenError, GeneratorState,
};
use noid_template::template::{parse_template, Template};

/// The state dbcreate would set up for one minter, kept in memory.
pub struct Minter {
    /// The parsed template.
    pub template: Template,
    /// The counters, as dbcreate initialised them.
    pub state: GeneratorState,
    /// NAAN + "/" (when a NAAN is given) + prefix: `:/firstpart`.
    pub firstpart: String,
    /// The compiled mask.
    pub mask: CompiledMask,
    /// `:/wrap`: only short-term minters wrap.
    pub wrap: bool,
    /// The NAAN given at creation ("" for none).
    pub naan: String,
}

impl Minter {
    /// `dbcreate TEMPLATE TERM [NAAN …]`; `naan` is "" when none is given.
    pub fn new(template: &str, term: &str, naan: &str) -> Minter {
        let template = parse_template(template).expect("valid template");
        let state = init_counters(template.total);
        let mut firstpart = String::new();
        if !naan.is_empty() {
            firstpart.push_str(naan);
            firstpart.push('/');
        }
        firstpart.push_str(&template.prefix);
        let mask = CompiledMask::new(&template.mask).expect("valid mask");
        Minter {
            state,
            firstpart,
            mask,
            wrap: term == "short",
            naan: naan.to_string(),
            template,
        }
    }

    /// One `mint 1`.
    pub fn mint(&mut self) -> Result<String, GenError> {
        let mut body = String::new();
        self.state
            .genid_into(&self.mask, self.template.gen_type, self.wrap, &mut body)?;
        Ok(assemble_in(&self.firstpart, &body, self.template.check))
    }

    /// `mint n`, panicking on any error.
    pub fn mint_n(&mut self, n: usize) -> Vec<String> {
        (0..n).map(|_| self.mint().expect("mint")).collect()
    }
}
