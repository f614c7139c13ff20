//! The minter's admin state (`:/template`, `:/oacounter`, the counters …) loaded once
//! per process, kept in memory, and written through to the transaction as it changes.
//!
//! Loading the 293 counters for every candidate identifier would dominate minting
//! time; instead [`Minter`] holds them and writes only what a step touched.

use noid_core::generator::{parse_saclist, parse_siclist, CompiledMask, Counter, GeneratorState};
use noid_core::template::GenType;
use noid_resolve::Lookup;

use crate::error::MinterError;
use crate::keys;
use crate::txn::Txn;

/// Who is acting and when: the caller supplies the clock and identity, so that this
/// crate does no I/O.
pub struct Context {
    /// Perl's `who_are_you`: `login/group`, prefixed `REMOTE_USER@host ` on the web.
    pub contact: String,
    /// Seconds since the epoch, now.
    pub now: i64,
    /// Perl's `temper`: epoch seconds → local `YYYYMMDDhhmmss`.
    pub temper: fn(i64) -> String,
}

impl Context {
    /// `temper(now)`.
    pub fn now_temper(&self) -> String {
        (self.temper)(self.now)
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
    /// The mask compiled for fast generation (None for a bind-only or corrupt minter).
    pub compiled: Option<CompiledMask>,
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
    /// Not stored: true once this process saw the queue empty and has queued nothing
    /// since, so that minting need not look at the queue for every identifier.
    pub queue_known_empty: bool,
}

fn truthy(s: &str) -> bool {
    !(s.is_empty() || s == "0")
}

fn num<T: std::str::FromStr + Default>(s: &str) -> T {
    s.trim().parse().unwrap_or_default()
}

impl Minter {
    /// Load the admin state from the store.
    pub fn load<L: Lookup + ?Sized>(l: &L) -> Result<Minter, MinterError> {
        let s = |name: &str| -> Result<String, MinterError> {
            Ok(l.get(&keys::admin(name))?
                .map(|v| String::from_utf8_lossy(&v).into_owned())
                .unwrap_or_default())
        };
        let total: i64 = s("total")?.trim().parse().unwrap_or(-1);
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
        let gen = GeneratorState {
            oacounter: num(&s("oacounter")?),
            oatop: s("oatop")?.trim().parse().unwrap_or(-1),
            total,
            percounter: num(&s("percounter")?),
            counters,
            saclist: parse_saclist(&s("saclist")?)
                .map_err(|e| MinterError::Store(format!("bad :/saclist: {e}")))?,
            siclist: parse_siclist(&s("siclist")?)
                .map_err(|e| MinterError::Store(format!("bad :/siclist: {e}")))?,
        };
        Ok(Minter {
            template: s("template")?,
            prefix: s("prefix")?,
            compiled: CompiledMask::new(&s("mask")?),
            mask: s("mask")?,
            firstpart: s("firstpart")?,
            naan: s("naan")?,
            addcheckchar: truthy(&s("addcheckchar")?),
            longterm: truthy(&s("longterm")?),
            wrap: truthy(&s("wrap")?),
            genonly: truthy(&s("genonly")?),
            gen_type: GenType::from_stored(&s("generator_type")?),
            padwidth: num(&s("padwidth")?),
            gen,
            held: num(&s("held")?),
            queued: num(&s("queued")?),
            fseqnum: num(&s("fseqnum")?),
            gseqnum: num(&s("gseqnum")?),
            gseqnum_date: num(&s("gseqnum_date")?),
            queue_known_empty: false,
        })
    }

    /// Write an admin value through to the transaction.
    pub(crate) fn set<L: Lookup + ?Sized>(txn: &mut Txn<'_, L>, name: &str, value: impl ToString) {
        txn.put(keys::admin(name), value.to_string());
    }

    /// Write the generator state a `genid` step may have changed: `oacounter`, the
    /// touched counter (or all of them after a wrap), and the counter lists.
    pub(crate) fn save_gen<L: Lookup + ?Sized>(
        &self,
        txn: &mut Txn<'_, L>,
        ch: noid_core::generator::Changes,
    ) {
        Self::set(txn, "oacounter", self.gen.oacounter);
        let (touched, lists_changed, all) = (ch.counter.map(|n| n as usize), ch.lists, ch.reset);
        if all {
            Self::set(txn, "percounter", self.gen.percounter);
            for (n, c) in self.gen.counters.iter().enumerate() {
                Self::set(txn, &format!("c{n}/value"), c.value);
                Self::set(txn, &format!("c{n}/top"), c.top);
            }
        } else if let Some(n) = touched {
            Self::set(txn, &format!("c{n}/value"), self.gen.counters[n].value);
        }
        if lists_changed || all {
            Self::set(txn, "saclist", self.gen.saclist_string());
            Self::set(txn, "siclist", self.gen.siclist_string());
        }
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
