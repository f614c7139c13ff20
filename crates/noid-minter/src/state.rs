//! The minter's admin state (`:/template`, `:/oacounter`, the counters …) loaded once
//! per process, kept in memory, and written through to the transaction as it changes.
//!
//! Loading the 293 counters for every candidate identifier would dominate minting
//! time; instead [`Minter`] holds them and writes only what a step touched.

use noid_core::Lookup;
use noid_template::generator::{
    assemble_in, parse_saclist, parse_siclist, CompiledMask, Counter, GenError, GeneratorState,
};
use noid_template::growth::AtLast;
use noid_template::lui::{LuiGenerator, LuiShape};
use noid_template::permutation::key_from_hex;
use noid_template::repertoire::Repertoire;
use noid_template::template::{check_of, GenType};

use crate::error::MinterError;
use crate::txn::Txn;
use noid_core::keys;
use noid_core::keys::name::{ATLAST, FRESH, LUI, MASK, NAAN, OACOUNTER, TEMPLATE};

/// Who is acting and when: the caller supplies the clock and identity, so that this
/// crate does no I/O.
#[derive(Debug, Clone)]
pub struct Context {
    /// Perl's `who_are_you`: `login/group`, prefixed `REMOTE_USER@host ` on the web.
    pub contact: String,
    /// Seconds since the epoch, now.
    pub now: i64,
    /// Perl's `temper`: epoch seconds → local `YYYYMMDDhhmmss`.
    pub temper: fn(i64) -> String,
    /// `temper(now)`, computed once: every circulation record of an operation carries it.
    pub stamp: String,
}

impl Context {
    /// `temper(now)` (the same as [`Context::stamp`]).
    pub fn now_temper(&self) -> String {
        self.stamp.clone()
    }

    /// A context for `contact` acting at `now`.
    pub fn new(contact: String, now: i64, temper: fn(i64) -> String) -> Context {
        Context {
            stamp: temper(now),
            contact,
            now,
            temper,
        }
    }
}

/// Everything under `:/` that minting, holding and queueing consult.
#[derive(Debug, Clone)]
pub struct Minter {
    /// `:/template`, "" for a bind-only minter.
    pub template: String,
    /// `:/prefix`.
    pub prefix: String,
    /// `:/mask`.
    pub mask: String,
    /// The mask compiled for fast generation (None for a bind-only, LUI or corrupt
    /// minter).
    pub compiled: Option<CompiledMask>,
    /// The repertoire of the check character, when `:/addcheckchar` is set.
    pub check: Option<Repertoire>,
    /// For a LUI minter (`:/mask` `luiN[-W]` and a `:/luikey`), its generator.
    pub lui: Option<LuiGenerator>,
    /// `:/atlast`, what to do when the namespace is used up.
    pub atlast: Option<AtLast>,
    /// `:/firstpart`: NAAN + "/" (when a NAAN was given) + prefix.
    pub firstpart: String,
    /// `:/naan`.
    pub naan: String,
    /// `:/addcheckchar`.
    pub addcheckchar: bool,
    /// `:/longterm`: auto-hold on mint; no binding of unissued identifiers.
    pub longterm: bool,
    /// `:/wrap`: short term, restart at exhaustion.
    pub wrap: bool,
    /// `:/genonly`: identifiers must validate against the template.
    pub genonly: bool,
    /// `:/peppered`: some identifier was peppermint-ed (a noid extension).
    pub peppered: bool,
    /// `:/fresh` (see [`FRESH`]): candidates need no hold or circulation probe.
    pub fresh: bool,
    /// `:/generator_type`.
    pub gen_type: GenType,
    /// `:/padwidth`, for queue keys.
    pub padwidth: usize,
    /// Counters and `oacounter`.
    pub gen: GeneratorState,
    /// `:/held`.
    pub held: i64,
    /// `:/queued`.
    pub queued: i64,
    /// `:/fseqnum`.
    pub fseqnum: u64,
    /// `:/gseqnum`.
    pub gseqnum: u64,
    /// `:/gseqnum_date`.
    pub gseqnum_date: u64,
    /// Not stored: the time (`YYYYMMDDhhmmss`) before which this process knows the queue
    /// has nothing ripe (`u64::MAX` when it is empty); queueing resets it. Minting then
    /// need not look at the queue for every identifier.
    pub queue_idle_until: Option<u64>,
    /// Not stored: notes for the user that minting produced (a template that grew),
    /// for the caller to print after the identifiers.
    pub notes: Vec<String>,
    /// Not stored: the exit status an `atlast` setting asks for (a `stopN` minter that
    /// stopped, a `wrapN` minter that wrapped).
    pub exit_status: Option<u8>,
    /// Not stored: the counters were re-initialised (a wrap or a growth) since the last
    /// flush, so [`Minter::flush`] must compare them all even if `oacounter` came back
    /// to the value it last wrote.
    pub(crate) counters_reset: bool,
    /// Not stored: the identifier gate every identifier a caller changes passes
    /// ([`crate::gate`]): this minter's own rules, and what the caller added (a
    /// populator's minters), kept across [`Minter::reloaded`].
    pub gate: crate::gate::Gate,
    /// The prefixes of the save-on-bind policy (`:/links/b/PREFIX`, `""`: every
    /// identifier): a target bound to an identifier under one is queued for an archive
    /// to save ([`crate::saves`]). Empty unless set, and then a bind reads nothing more.
    pub save_on_bind: Vec<String>,
    /// Not stored: the admin values as last written to the transaction, so that
    /// [`Minter::flush`] writes only what changed.
    persisted: Box<Persisted>,
}

/// The admin values a [`Minter`] changes in memory, as last written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Persisted {
    gen: GeneratorState,
    fresh: bool,
    held: i64,
    queued: i64,
    fseqnum: u64,
    gseqnum: u64,
    gseqnum_date: u64,
}

/// The admin key set once a minter has issued its first peppered identifier
/// (`crate::pepper`). Until then no identifier can be peppered, and changes skip the
/// pepper look-up.
pub const PEPPERED: &str = "peppered";

fn truthy(s: &str) -> bool {
    !(s.is_empty() || s == "0")
}

fn num<T: std::str::FromStr + Default>(s: &str) -> T {
    s.trim().parse().unwrap_or_default()
}

/// What turns the generator's state into candidate identifiers: the minter's template,
/// apart from its [`GeneratorState`], so that minting advances the minter's own state
/// and `noid check` a copy.
#[derive(Debug, Clone, Copy)]
pub struct Candidates<'a> {
    firstpart: &'a str,
    mask: &'a str,
    compiled: Option<&'a CompiledMask>,
    lui: Option<&'a LuiGenerator>,
    check: Option<Repertoire>,
    gen_type: GenType,
    wrap: bool,
}

impl Candidates<'_> {
    /// The next candidate from `gen`: Perl's `genid` and check character for a mask,
    /// the permuted counter for a LUI minter.
    pub fn next(&self, gen: &mut GeneratorState, body: &mut String) -> Result<String, GenError> {
        body.clear();
        if let Some(lui) = self.lui {
            let n = gen.take_counter(self.wrap)?;
            lui.write(n, body);
            return Ok(format!("{}{body}", self.firstpart));
        }
        let Some(mask) = self.compiled else {
            return Err(GenError::BadMask {
                mask: self.mask.to_string(),
            });
        };
        gen.genid_into(mask, self.gen_type, self.wrap, body)?;
        Ok(assemble_in(self.firstpart, body, self.check))
    }
}

impl Minter {
    /// The template's side of candidate generation.
    pub fn candidates(&self) -> Candidates<'_> {
        Candidates {
            firstpart: &self.firstpart,
            mask: &self.mask,
            compiled: self.compiled.as_ref(),
            lui: self.lui.as_ref(),
            check: self.check,
            gen_type: self.gen_type,
            wrap: self.wrap,
        }
    }

    /// The next candidate from the minter's own generator state. The fields are
    /// borrowed one by one, so the template is read while the counters advance in place
    /// (nothing is moved out and back for each candidate).
    pub fn next_candidate(&mut self, body: &mut String) -> Result<String, GenError> {
        let Minter {
            firstpart,
            mask,
            compiled,
            lui,
            check,
            gen_type,
            wrap,
            gen,
            ..
        } = self;
        Candidates {
            firstpart,
            mask,
            compiled: compiled.as_ref(),
            lui: lui.as_ref(),
            check: *check,
            gen_type: *gen_type,
            wrap: *wrap,
        }
        .next(gen, body)
    }

    /// True when the minter has a generator (a mask or a LUI template).
    pub fn generates(&self) -> bool {
        self.compiled.is_some() || self.lui.is_some()
    }

    /// Load the admin state from the store.
    pub fn load<L: Lookup + ?Sized>(l: &L) -> Result<Minter, MinterError> {
        let s = |name: &str| admin_value(l, name);
        let gen = load_generator(l)?;
        let prefix = s("prefix")?;
        let mask = s(MASK)?;
        let addcheckchar = truthy(&s("addcheckchar")?);
        let compiled = CompiledMask::new(&mask);
        let check = match &compiled {
            // A stored template was valid when it was made; an imported one that no
            // repertoire covers still gets a check character, over the widest.
            Some(c) => check_of(&prefix, &c.positions().collect::<Vec<_>>(), addcheckchar)
                .unwrap_or(Some(Repertoire::Visible)),
            None => None,
        };
        let lui = load_lui(&mask, s(LUI)?)?;
        let atlast = match s(ATLAST)? {
            a if a.is_empty() => None,
            a => Some(a.parse().map_err(MinterError::BadAtLast)?),
        };
        let mut m = Minter {
            template: s(TEMPLATE)?,
            compiled,
            check,
            lui,
            atlast,
            prefix,
            mask,
            firstpart: s("firstpart")?,
            naan: s(NAAN)?,
            addcheckchar,
            longterm: truthy(&s("longterm")?),
            wrap: truthy(&s("wrap")?),
            genonly: truthy(&s("genonly")?),
            peppered: truthy(&s(PEPPERED)?),
            fresh: truthy(&s(FRESH)?),
            gen_type: GenType::from_stored(&s("generator_type")?),
            padwidth: num(&s("padwidth")?),
            gen,
            held: num(&s("held")?),
            queued: num(&s("queued")?),
            fseqnum: num(&s("fseqnum")?),
            gseqnum: num(&s("gseqnum")?),
            gseqnum_date: num(&s("gseqnum_date")?),
            queue_idle_until: None,
            notes: Vec::new(),
            exit_status: None,
            counters_reset: false,
            gate: crate::gate::Gate::default(),
            save_on_bind: save_on_bind(l)?,
            persisted: Box::new(Persisted {
                gen: noid_template::generator::init_counters(-1),
                fresh: false,
                held: 0,
                queued: 0,
                fseqnum: 0,
                gseqnum: 0,
                gseqnum_date: 0,
            }),
        };
        m.persisted = Box::new(m.current());
        m.gate = crate::gate::Gate::of(&m);
        Ok(m)
    }

    /// The minter read back from `l` (after a rollback or a failed commit), keeping the
    /// gate its caller set up.
    pub fn reloaded<L: Lookup + ?Sized>(&self, l: &L) -> Result<Minter, MinterError> {
        let mut m = Minter::load(l)?;
        m.gate = self.gate.clone();
        Ok(m)
    }

    fn current(&self) -> Persisted {
        Persisted {
            gen: self.gen.clone(),
            fresh: self.fresh,
            held: self.held,
            queued: self.queued,
            fseqnum: self.fseqnum,
            gseqnum: self.gseqnum,
            gseqnum_date: self.gseqnum_date,
        }
    }

    /// Whether the in-memory admin values differ from those last flushed (an
    /// operation that failed without touching them needs no reload after a rollback).
    pub fn is_dirty(&self) -> bool {
        self.current() != *self.persisted
    }

    /// Write the admin values that changed since the last flush into `txn`.
    ///
    /// Operations change the minter in memory only; callers flush before they commit and
    /// before they take a savepoint, so that a rolled-back transaction and a minter
    /// re-loaded from it agree. Counters change by the hundred thousand during a large
    /// mint; writing each change through would dominate minting time.
    pub fn flush<L: Lookup + ?Sized>(&mut self, txn: &mut Txn<'_, L>) {
        let p = &self.persisted;
        let g = &self.gen;
        let mut w: Vec<(String, String)> = Vec::new();
        if g.oacounter != p.gen.oacounter {
            w.push((OACOUNTER.into(), g.oacounter.to_string()));
        }
        if g.percounter != p.gen.percounter {
            w.push(("percounter".into(), g.percounter.to_string()));
        }
        // Counters only move with oacounter (or a wrap, which also resets oacounter), so
        // a bulk run of binds skips the 293-counter comparison.
        let counters_may_differ = g.oacounter != p.gen.oacounter
            || g.counters.len() != p.gen.counters.len()
            || std::mem::take(&mut self.counters_reset);
        let counters = if counters_may_differ {
            &g.counters[..]
        } else {
            &[]
        };
        for (n, c) in counters.iter().enumerate() {
            let old = p.gen.counters.get(n);
            if old.map(|o| o.value) != Some(c.value) {
                w.push((format!("c{n}/value"), c.value.to_string()));
            }
            if old.map(|o| o.top) != Some(c.top) {
                w.push((format!("c{n}/top"), c.top.to_string()));
            }
        }
        // A namespace that grew may be spread over fewer counters.
        for n in g.counters.len()..p.gen.counters.len() {
            txn.delete(keys::admin(&format!("c{n}/value")));
            txn.delete(keys::admin(&format!("c{n}/top")));
        }
        if g.saclist != p.gen.saclist {
            w.push(("saclist".into(), g.saclist_string()));
        }
        if g.siclist != p.gen.siclist {
            w.push(("siclist".into(), g.siclist_string()));
        }
        for (name, now, then) in [
            ("held", self.held, p.held),
            ("queued", self.queued, p.queued),
            ("fseqnum", self.fseqnum as i64, p.fseqnum as i64),
            ("gseqnum", self.gseqnum as i64, p.gseqnum as i64),
            (
                "gseqnum_date",
                self.gseqnum_date as i64,
                p.gseqnum_date as i64,
            ),
        ] {
            if now != then {
                w.push((name.into(), now.to_string()));
            }
        }
        let lost_fresh = p.fresh && !self.fresh;
        if w.is_empty() && !lost_fresh {
            return;
        }
        if lost_fresh {
            txn.delete(keys::admin(FRESH));
        }
        for (k, v) in w {
            txn.put(keys::admin(&k), v);
        }
        *self.persisted = self.current();
    }

    /// The identifier with the minter's first part removed and zero-padded to
    /// `padwidth`, as Perl's `sprintf("%0Ns")` pads strings (for queue keys).
    pub fn padded(&self, id: &str) -> String {
        let bare = id
            .strip_prefix(self.firstpart.as_str())
            .filter(|_| !self.firstpart.is_empty())
            .unwrap_or(id);
        if bare.len() >= self.padwidth {
            bare.to_string()
        } else {
            format!("{}{bare}", "0".repeat(self.padwidth - bare.len()))
        }
    }
}

/// The admin value `:/NAME` as text, "" when absent (as Perl Noid reads it).
fn admin_value<L: Lookup + ?Sized>(l: &L, name: &str) -> Result<String, MinterError> {
    Ok(l.get(&keys::admin(name))?
        .map(|v| String::from_utf8_lossy(&v).into_owned())
        .unwrap_or_default())
}

/// The generator's stored state: the counters under `:/cN/top` and `:/cN/value`, and
/// the admin values that drive them.
fn load_generator<L: Lookup + ?Sized>(l: &L) -> Result<GeneratorState, MinterError> {
    let s = |name: &str| admin_value(l, name);
    let total: i64 = s("total")?.trim().parse().unwrap_or(-1);
    let counters = load_counters(l)?;
    Ok(GeneratorState {
        oacounter: num(&s(OACOUNTER)?),
        oatop: s("oatop")?.trim().parse().unwrap_or(-1),
        total,
        percounter: num(&s("percounter")?),
        counters,
        saclist: parse_saclist(&s("saclist")?).map_err(|error| MinterError::BadCounterList {
            key: "saclist",
            error,
        })?,
        siclist: parse_siclist(&s("siclist")?).map_err(|error| MinterError::BadCounterList {
            key: "siclist",
            error,
        })?,
    })
}

/// The counters `:/cN/top` and `:/cN/value`, in order of N.
fn load_counters<L: Lookup + ?Sized>(l: &L) -> Result<Vec<Counter>, MinterError> {
    let mut counters: Vec<Counter> = Vec::new();
    for (k, v) in l.scan_prefix(b":/c", 4096)? {
        let k = String::from_utf8_lossy(&k);
        let Some(rest) = k.strip_prefix(":/c") else {
            continue;
        };
        let Some((n, field)) = rest.split_once('/') else {
            continue;
        };
        let Ok(n) = n.parse::<usize>() else { continue };
        if counters.len() <= n {
            counters.resize(n + 1, Counter { top: 0, value: 0 });
        }
        let v: u64 = num(&String::from_utf8_lossy(&v));
        match field {
            "top" => counters[n].top = v,
            "value" => counters[n].value = v,
            _ => {}
        }
    }
    Ok(counters)
}

/// A LUI minter's generator, from its mask (`luiN[-W]`) and its secret key; None for
/// another mask.
fn load_lui(mask: &str, key: String) -> Result<Option<LuiGenerator>, MinterError> {
    let Some(shape) = mask.strip_prefix("lui").and_then(LuiShape::parse) else {
        return Ok(None);
    };
    let key_bytes = key_from_hex(&key).ok_or(MinterError::BadLuiKey(key))?;
    Ok(Some(LuiGenerator::new(shape, key_bytes)))
}

/// The save-on-bind policy's prefixes (`:/links/b/PREFIX`).
fn save_on_bind<L: Lookup + ?Sized>(l: &L) -> Result<Vec<String>, MinterError> {
    const MOST: usize = 10_000;
    Ok(l.scan_prefix(noid_core::links::SAVE_ON_BIND_PREFIX, MOST)?
        .into_iter()
        .filter_map(|(k, _)| {
            k.strip_prefix(noid_core::links::SAVE_ON_BIND_PREFIX)
                .map(<[u8]>::to_vec)
        })
        .map(|p| String::from_utf8_lossy(&p).into_owned())
        .collect())
}
