//! `noid check`: what the operator of a long-lived minter needs to know, and the
//! repairs `--repair` makes.
//!
//! The caller feeds every record of the store, in key order, to a [`Census`] (one
//! pass, constant memory), then calls [`analyze`] with a [`Lookup`] on the same
//! store. The analysis reports counts, replays the generator on a copy of its state
//! to list the next identifiers it will produce and how each is already used, and
//! lists the counters that disagree with the stored state. Each problem that can be
//! repaired comes with the writes that repair it; [`Analysis::repair`] gathers them
//! into one batch for the caller to commit atomically under the writers' lock.

use std::collections::BTreeMap;
use std::fmt;

use noid_core::generator::{init_counters, GeneratorState};
use noid_core::template::{parse_template, GenType};
use noid_minter::{keys, Minter};
use noid_resolve::Lookup;

/// A failure to read the store (not a finding about it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckError(pub String);

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CheckError {}

impl From<noid_resolve::LookupError> for CheckError {
    fn from(e: noid_resolve::LookupError) -> Self {
        CheckError(format!("error: {e}"))
    }
}

impl From<noid_minter::MinterError> for CheckError {
    fn from(e: noid_minter::MinterError) -> Self {
        CheckError(e.to_string())
    }
}

/// Counts gathered in one pass over every record, in bytewise key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// All records.
    pub records: u64,
    /// Circulation records whose latest status is `i` (issued).
    pub issued: u64,
    /// … `q` (queued).
    pub queued_status: u64,
    /// … `u` (unqueued).
    pub unqueued: u64,
    /// … anything else.
    pub other_status: u64,
    /// `ID<TAB>:/h` keys.
    pub holds: u64,
    /// `:/q/…` queue entries.
    pub queue_entries: u64,
    /// `:/idmap/…` rules.
    pub idmap_rules: u64,
    /// `:/:/…` notes.
    pub notes: u64,
    /// User bindings (`ID<TAB>ELEM`, ELEM not starting with `:/`).
    pub bindings: u64,
    /// Identifiers with at least one user binding.
    pub bound_ids: u64,
    last_bound: Vec<u8>,
}

impl Census {
    /// An empty census.
    pub fn new() -> Census {
        Census::default()
    }

    /// Count one record.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        self.records += 1;
        if let Some(name) = key.strip_prefix(b":/") {
            if name.starts_with(b"q/") {
                self.queue_entries += 1;
            } else if name.starts_with(b"idmap/") {
                // Long-term minters hold the pseudo-identifier `:/idmap/ELEM` too.
                if key.ends_with(b"\t:/h") {
                    self.holds += 1;
                } else {
                    self.idmap_rules += 1;
                }
            } else if name.starts_with(b":/") {
                self.notes += 1;
            }
            return;
        }
        let Some(tab) = key.iter().position(|&b| b == b'\t') else {
            return;
        };
        let (id, elem) = (&key[..tab], &key[tab + 1..]);
        match elem {
            b":/c" => match value.first() {
                Some(b'i') => self.issued += 1,
                Some(b'q') => self.queued_status += 1,
                Some(b'u') => self.unqueued += 1,
                _ => self.other_status += 1,
            },
            b":/h" => self.holds += 1,
            e if e.starts_with(b":/") => {}
            _ => {
                self.bindings += 1;
                if self.bound_ids == 0 || self.last_bound != id {
                    self.bound_ids += 1;
                    self.last_bound.clear();
                    self.last_bound.extend_from_slice(id);
                }
            }
        }
    }
}

/// How a generated candidate is already used, and so what `mint` would do with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Use {
    /// Never circulated, not held, nothing bound: `mint` issues it.
    Free,
    /// Held (and never circulated): `mint` skips it, as intended.
    Held,
    /// Its circulation record says queued: it comes out of the queue instead.
    Queued,
    /// Its circulation record says unqueued (deleted): `mint` skips it.
    Unqueued,
    /// Issued before on a short-term minter, which re-issues after wrapping.
    Reissue,
    /// Issued before (circulation record given): the generator is behind.
    Issued(String),
    /// Never issued but has bindings (how many): `mint` would hand out an identifier
    /// that already means something.
    Bound(usize),
    /// A circulation record with an unknown status.
    Other(String),
}

impl Use {
    /// Whether this use means the generator state is behind the store.
    pub fn is_problem(&self) -> bool {
        matches!(self, Use::Issued(_) | Use::Bound(_))
    }

    fn describe(&self) -> String {
        match self {
            Use::Free => "free".into(),
            Use::Held => "held (mint skips it)".into(),
            Use::Queued => "queued (mint skips it; it comes out of the queue)".into(),
            Use::Unqueued => "unqueued (mint skips it)".into(),
            Use::Reissue => "issued before (short term: re-issued after wrapping)".into(),
            Use::Issued(rec) => format!("ALREADY ISSUED (circulation record {rec})"),
            Use::Bound(1) => "ALREADY BOUND (1 element) but never issued".into(),
            Use::Bound(n) => format!("ALREADY BOUND ({n} elements) but never issued"),
            Use::Other(rec) => format!("circulation record {rec} (mint skips it)"),
        }
    }
}

/// How `mint` would treat `id` now.
pub fn classify<L: Lookup + ?Sized>(l: &L, m: &Minter, id: &str) -> Result<Use, CheckError> {
    if let Some(rec) = l.get(&keys::circ(id))? {
        let rec = String::from_utf8_lossy(&rec).into_owned();
        return Ok(match rec.as_bytes().first() {
            Some(b'i') if m.wrap && !m.longterm => Use::Reissue,
            Some(b'i') => Use::Issued(rec),
            Some(b'q') => Use::Queued,
            Some(b'u') => Use::Unqueued,
            _ => Use::Other(rec),
        });
    }
    if l.get(&keys::hold(id))?.is_some() {
        return Ok(Use::Held);
    }
    let bound = l
        .scan_prefix(&keys::id_prefix(id), 1000)?
        .iter()
        .filter(|(k, _)| !k[id.len() + 1..].starts_with(b":/"))
        .count();
    Ok(if bound > 0 {
        Use::Bound(bound)
    } else {
        Use::Free
    })
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong (without the `problem: ` prefix).
    pub text: String,
    /// What `--repair` does about it, or `None` when it must be repaired by hand.
    pub repair: Option<String>,
}

/// Settings of the analysis.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// How many upcoming identifiers to list and test (and, when repairing, how many
    /// consecutive unused ones end the search for used ones).
    pub lookahead: usize,
    /// The most candidates a repair replays when looking for the end of a run of
    /// used identifiers.
    pub max_skip: u64,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            lookahead: 10,
            max_skip: 10_000_000,
        }
    }
}

/// The outcome of [`analyze`].
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The report, one line each (`label: value`).
    pub lines: Vec<String>,
    /// Findings.
    pub problems: Vec<Problem>,
    writes: BTreeMap<Vec<u8>, Vec<u8>>,
}

impl Analysis {
    /// Whether all is well.
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// How many problems `--repair` can repair.
    pub fn repairable(&self) -> usize {
        self.problems.iter().filter(|p| p.repair.is_some()).count()
    }

    /// The writes that repair every repairable problem, to commit as one batch.
    pub fn repair(&self) -> Vec<(Vec<u8>, Vec<u8>)> {
        self.writes
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }
}

fn line(label: &str, value: impl fmt::Display) -> String {
    format!("{:<13}{value}", format!("{label}:"))
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Analyse the minter seen through `l`, whose records were all counted in `census`.
pub fn analyze<L: Lookup + ?Sized>(
    l: &L,
    census: &Census,
    opts: Options,
) -> Result<Analysis, CheckError> {
    let m = Minter::load(l)?;
    if m.template.is_empty() && l.get(&keys::admin("version"))?.is_none() {
        return Err(CheckError(
            "error: this store is not a Noid minter (it has no :/version and no :/template)".into(),
        ));
    }
    let mut a = Analysis {
        lines: Vec::new(),
        problems: Vec::new(),
        writes: BTreeMap::new(),
    };
    let term = if m.longterm {
        "long"
    } else if m.wrap {
        "short"
    } else {
        "medium"
    };
    let kind = if m.genonly {
        m.gen_type.as_str()
    } else {
        "bind-only"
    };
    a.lines.push(line(
        "template",
        format!("{} ({kind}, {term} term)", m.template),
    ));
    a.lines.push(line(
        "minted",
        format!(
            ":/oacounter {}; circulation records: {} issued, {} queued, {} unqueued{}",
            m.gen.oacounter,
            census.issued,
            census.queued_status,
            census.unqueued,
            if census.other_status > 0 {
                format!(", {} other", census.other_status)
            } else {
                String::new()
            }
        ),
    ));
    a.lines.push(line("held", census.holds));
    a.lines.push(line("queued", census.queue_entries));
    let left = if m.gen.oatop < 0 {
        "unlimited".to_string()
    } else {
        let n = (m.gen.oatop - m.gen.oacounter as i64).max(0);
        if m.wrap {
            format!("{n} (short term: then minting starts over)")
        } else {
            n.to_string()
        }
    };
    a.lines.push(line("left", left));
    a.lines.push(line(
        "bindings",
        format!(
            "{} on {}, {}, {}",
            census.bindings,
            plural(census.bound_ids, "identifier", "identifiers"),
            plural(census.idmap_rules, ":idmap rule", ":idmap rules"),
            plural(census.notes, "note", "notes")
        ),
    ));

    // The counts kept beside the records.
    let admin = |name: &str| keys::admin(name);
    if m.held != census.holds as i64 {
        a.problems.push(Problem {
            text: format!(
                ":/held is {} but {} held",
                m.held,
                plural(census.holds, "identifier is", "identifiers are")
            ),
            repair: Some(format!(":/held set to {}", census.holds)),
        });
        a.writes
            .insert(admin("held"), census.holds.to_string().into_bytes());
    }
    if m.queued != census.queue_entries as i64 {
        a.problems.push(Problem {
            text: format!(
                ":/queued is {} but the queue holds {}",
                m.queued,
                plural(census.queue_entries, "entry", "entries")
            ),
            repair: Some(format!(":/queued set to {}", census.queue_entries)),
        });
        a.writes.insert(
            admin("queued"),
            census.queue_entries.to_string().into_bytes(),
        );
    }

    // The generator's state against itself and the template.
    let mut fixed = m.gen.clone();
    let mut counters_sound = true;
    if m.genonly || !m.template.is_empty() {
        if let Ok(t) = parse_template(&m.template) {
            if t.total != m.gen.total {
                counters_sound = false;
                a.problems.push(Problem {
                    text: format!(
                        ":/total is {} but the template {} gives {}",
                        m.gen.total, m.template, t.total
                    ),
                    repair: None,
                });
            }
        }
    }
    if m.gen.oatop != m.gen.total {
        a.problems.push(Problem {
            text: format!(":/oatop is {} but :/total is {}", m.gen.oatop, m.gen.total),
            repair: Some(format!(":/oatop set to {}", m.gen.total)),
        });
        fixed.oatop = m.gen.total;
        a.writes
            .insert(admin("oatop"), m.gen.total.to_string().into_bytes());
    }
    // A LUI minter counts with `:/oacounter` alone; its counters are never used.
    if m.gen_type == GenType::Random && m.lui.is_none() {
        counters_sound &= check_counters(&m.gen, &mut fixed, &mut a);
    } else if m.gen.oatop >= 0 && !m.wrap && m.gen.oacounter as i64 > m.gen.oatop {
        a.problems.push(Problem {
            text: format!(
                ":/oacounter {} is beyond :/oatop {}",
                m.gen.oacounter, m.gen.oatop
            ),
            repair: None,
        });
    }

    // The next identifiers, from the state as stored.
    let mut used = 0;
    if m.generates() && counters_sound {
        let mut g = m.gen.clone();
        let mut body = String::new();
        for _ in 0..opts.lookahead {
            let id = match m.candidates().next(&mut g, &mut body) {
                Ok(id) => id,
                Err(e) => {
                    a.lines.push(line("next", format!("none: {e}")));
                    break;
                }
            };
            let u = classify(l, &m, &id)?;
            used += usize::from(u.is_problem());
            a.lines.push(line("next", format!("{id} {}", u.describe())));
        }
    } else if !m.generates() {
        a.lines
            .push(line("next", format!("none: bad mask \"{}\"", m.mask)));
    }

    // Where a repair would move the generator: past the last used candidate of a run
    // that ends with `lookahead` unused ones in a row.
    let mut skip = None;
    if m.generates() && counters_sound && used > 0 {
        let mut g = fixed.clone();
        let mut body = String::new();
        let (mut scanned, mut clean, mut used_seen, mut last_used) = (0u64, 0usize, 0u64, None);
        while scanned < opts.max_skip && clean < opts.lookahead {
            let Ok(id) = m.candidates().next(&mut g, &mut body) else {
                break;
            };
            scanned += 1;
            if classify(l, &m, &id)?.is_problem() {
                used_seen += 1;
                clean = 0;
                last_used = Some((g.clone(), scanned));
            } else {
                clean += 1;
            }
        }
        let run_open = clean < opts.lookahead && scanned >= opts.max_skip;
        if let Some((state, at)) = last_used {
            skip = Some((state, at, used_seen, run_open));
        }
    }
    if used > 0 {
        let text = format!(
            "{} of the next {} identifiers the generator will produce {} already issued or bound: the counters are behind the store (an outdated minter?)",
            used,
            opts.lookahead,
            if used == 1 { "is" } else { "are" }
        );
        match skip {
            Some((state, at, used_seen, run_open)) => {
                let passed = at - used_seen;
                let mut what = format!(
                    "the generator skipped {} ({} already used{})",
                    plural(at, "identifier", "identifiers"),
                    used_seen,
                    if passed > 0 {
                        format!(", {passed} unused passed over")
                    } else {
                        String::new()
                    }
                );
                if run_open {
                    what.push_str(&format!(
                        "; used identifiers continue past the {} replayed",
                        opts.max_skip
                    ));
                }
                a.problems.push(Problem {
                    text,
                    repair: Some(what),
                });
                fixed = state;
            }
            None if fixed != m.gen => a.problems.push(Problem {
                text,
                repair: Some("the repaired counters no longer lead to used identifiers".into()),
            }),
            None => a.problems.push(Problem { text, repair: None }),
        }
    }
    gen_writes(&m.gen, &fixed, &mut a.writes);
    Ok(a)
}

/// Check the random generator's counters and lists; record fixes in `fixed`.
/// Returns false when the counters are too damaged to replay.
fn check_counters(gen: &GeneratorState, fixed: &mut GeneratorState, a: &mut Analysis) -> bool {
    let expect = init_counters(gen.total);
    if gen.percounter != expect.percounter {
        a.problems.push(Problem {
            text: format!(
                ":/percounter is {} but a namespace of {} needs {}",
                gen.percounter, gen.total, expect.percounter
            ),
            repair: None,
        });
        return false;
    }
    if gen.counters.len() != expect.counters.len() {
        a.problems.push(Problem {
            text: format!(
                "the minter has {} counters but a namespace of {} needs {}",
                gen.counters.len(),
                gen.total,
                expect.counters.len()
            ),
            repair: None,
        });
        return false;
    }
    let bad_tops: Vec<String> = gen
        .counters
        .iter()
        .zip(&expect.counters)
        .enumerate()
        .filter(|(_, (c, e))| c.top != e.top)
        .map(|(n, (c, e))| format!("c{n} ({} instead of {})", c.top, e.top))
        .collect();
    if !bad_tops.is_empty() {
        a.problems.push(Problem {
            text: format!(
                "counter tops differ from the namespace's: {}",
                bad_tops.join(", ")
            ),
            repair: None,
        });
        return false;
    }
    for (n, c) in gen.counters.iter().enumerate() {
        if c.value > c.top {
            a.problems.push(Problem {
                text: format!(":/c{n}/value is {} beyond its top {}", c.value, c.top),
                repair: Some(format!(":/c{n}/value set to {}", c.top)),
            });
            fixed.counters[n].value = c.top;
        }
    }
    let sac: Vec<u32> = (0..fixed.counters.len() as u32)
        .filter(|&n| fixed.counters[n as usize].value < fixed.counters[n as usize].top)
        .collect();
    let mut sic: Vec<u32> = Vec::new();
    for &n in &gen.siclist {
        let c = fixed.counters.get(n as usize);
        if c.is_some_and(|c| c.value >= c.top) && !sic.contains(&n) {
            sic.push(n);
        }
    }
    for n in 0..fixed.counters.len() as u32 {
        let c = fixed.counters[n as usize];
        if c.value >= c.top && !sic.contains(&n) {
            sic.push(n);
        }
    }
    if gen.saclist != sac || gen.siclist != sic {
        fixed.saclist = sac;
        fixed.siclist = sic;
        a.problems.push(Problem {
            text: format!(
                "the counter lists disagree with the counters: :/saclist has {} and :/siclist {} names, the counters say {} active and {} exhausted",
                gen.saclist.len(),
                gen.siclist.len(),
                fixed.saclist.len(),
                fixed.siclist.len()
            ),
            repair: Some(":/saclist and :/siclist rebuilt from the counters".into()),
        });
    }
    let sum: u64 = fixed.counters.iter().map(|c| c.value).sum();
    if gen.oacounter != sum {
        a.problems.push(Problem {
            text: format!(
                ":/oacounter is {} but the counters have handed out {} numbers",
                gen.oacounter, sum
            ),
            repair: Some(format!(":/oacounter set to {sum}")),
        });
        fixed.oacounter = sum;
    }
    true
}

/// The admin writes that turn generator state `old` into `new`.
fn gen_writes(old: &GeneratorState, new: &GeneratorState, w: &mut BTreeMap<Vec<u8>, Vec<u8>>) {
    let mut put = |name: String, v: String| {
        w.insert(keys::admin(&name), v.into_bytes());
    };
    if old.oacounter != new.oacounter {
        put("oacounter".into(), new.oacounter.to_string());
    }
    if old.percounter != new.percounter {
        put("percounter".into(), new.percounter.to_string());
    }
    for (n, c) in new.counters.iter().enumerate() {
        let o = old.counters.get(n).copied().unwrap_or_default();
        if o.value != c.value {
            put(format!("c{n}/value"), c.value.to_string());
        }
        if o.top != c.top {
            put(format!("c{n}/top"), c.top.to_string());
        }
    }
    if old.saclist != new.saclist {
        put("saclist".into(), new.saclist_string());
    }
    if old.siclist != new.siclist {
        put("siclist".into(), new.siclist_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::generator::assemble;
    use noid_minter::create::{dbcreate, CreateArgs};
    use noid_resolve::MemLookup;

    /// A fresh minter in memory, as dbcreate makes it.
    fn create(template: &str, term: &str) -> MemLookup {
        let long = term == "long";
        let c = dbcreate(&CreateArgs {
            template: Some(template),
            term: Some(term),
            naan: long.then_some("13030"),
            naa: long.then_some("cdlib.org"),
            subnaa: long.then_some("oac/cmp"),
            contact: "me/me",
            when: "20260101000000",
            where_: "host:/x",
            dbdir_display: ".",
            samples: (1, 2),
            atlast: None,
            lui_key: [0; 16],
        })
        .unwrap();
        let l = MemLookup::new();
        for (k, v) in c.keys {
            l.insert(keys::admin(&k), v);
        }
        l
    }

    fn census(l: &MemLookup) -> Census {
        let mut c = Census::new();
        for (k, v) in l.scan_prefix(b"", usize::MAX).unwrap() {
            c.add(&k, &v);
        }
        c
    }

    /// Mint `n` identifiers the way Perl does on the generator path (no queue, no
    /// holds in the way), recording circulation and, for long term, the hold.
    fn mint(l: &MemLookup, n: usize) -> Vec<String> {
        let mut m = Minter::load(l).unwrap();
        let mask = m.compiled.clone().unwrap();
        let mut ids = Vec::new();
        for _ in 0..n {
            let mut body = String::new();
            m.gen
                .genid_into(&mask, m.gen_type, m.wrap, &mut body)
                .unwrap();
            let id = assemble(&m.firstpart, &body, m.addcheckchar);
            l.insert(
                keys::circ(&id),
                format!("i|20260101000000|me/me|{}", m.gen.oacounter),
            );
            if m.longterm {
                l.insert(keys::hold(&id), "1");
                m.held += 1;
            }
            ids.push(id);
        }
        save(l, &m.gen);
        l.insert(keys::admin("held"), m.held.to_string());
        ids
    }

    fn save(l: &MemLookup, g: &GeneratorState) {
        l.insert(keys::admin("oacounter"), g.oacounter.to_string());
        for (n, c) in g.counters.iter().enumerate() {
            l.insert(keys::admin(&format!("c{n}/value")), c.value.to_string());
        }
        l.insert(keys::admin("saclist"), g.saclist_string());
        l.insert(keys::admin("siclist"), g.siclist_string());
    }

    fn apply(l: &MemLookup, a: &Analysis) {
        for (k, v) in a.repair() {
            l.insert(k, v);
        }
    }

    #[test]
    fn a_healthy_minter() {
        let l = create("f5.reedeedk", "long");
        let ids = mint(&l, 3);
        assert_eq!(
            ids,
            ["13030/f54x54g11", "13030/f5154dn7k", "13030/f5wd3q12m"]
        );
        let a = analyze(&l, &census(&l), Options::default()).unwrap();
        assert!(a.ok(), "{:?}", a.problems);
        assert_eq!(a.lines[0], "template:    f5.reedeedk (random, long term)");
        assert_eq!(
            a.lines[1],
            "minted:      :/oacounter 3; circulation records: 3 issued, 0 queued, 0 unqueued"
        );
        assert_eq!(a.lines[2], "held:        3");
        assert_eq!(a.lines[4], "left:        70728097");
        assert_eq!(
            a.lines
                .iter()
                .filter(|l| l.starts_with("next:") && l.ends_with(" free"))
                .count(),
            10
        );
    }

    #[test]
    fn an_outdated_minter_is_found_and_repaired() {
        let l = create(".rddd", "-");
        let before = Minter::load(&l).unwrap().gen;
        let ids = mint(&l, 5);
        assert_eq!(ids, ["169", "041", "913", "781", "653"]);
        // A backup of the generator state from before the mints is restored.
        save(&l, &before);
        l.insert("041\tnote", "bound elsewhere");
        let a = analyze(&l, &census(&l), Options::default()).unwrap();
        assert_eq!(a.problems.len(), 1, "{:?}", a.problems);
        assert!(
            a.problems[0]
                .text
                .starts_with("5 of the next 10 identifiers"),
            "{}",
            a.problems[0].text
        );
        assert_eq!(
            a.problems[0].repair.as_deref(),
            Some("the generator skipped 5 identifiers (5 already used)")
        );
        assert_eq!(
            a.lines[6],
            "next:        169 ALREADY ISSUED (circulation record i|20260101000000|me/me|1)"
        );
        apply(&l, &a);
        let again = analyze(&l, &census(&l), Options::default()).unwrap();
        assert!(again.ok(), "{:?}", again.problems);
        let mut m = Minter::load(&l).unwrap();
        assert_eq!(m.gen.oacounter, 5);
        let mut body = String::new();
        m.gen
            .genid_into(&m.compiled.clone().unwrap(), m.gen_type, false, &mut body)
            .unwrap();
        assert_eq!(body, "525");
    }

    #[test]
    fn a_bound_but_unissued_candidate_is_a_problem() {
        let l = create("x.sdd", "-");
        l.insert("x01\tgoto", "somewhere");
        let a = analyze(&l, &census(&l), Options::default()).unwrap();
        assert_eq!(
            a.lines[7],
            "next:        x01 ALREADY BOUND (1 element) but never issued"
        );
        assert_eq!(
            a.problems[0].repair.as_deref(),
            Some("the generator skipped 2 identifiers (1 already used, 1 unused passed over)")
        );
        apply(&l, &a);
        assert!(analyze(&l, &census(&l), Options::default()).unwrap().ok());
        assert_eq!(Minter::load(&l).unwrap().gen.oacounter, 2);
    }

    #[test]
    fn held_queued_and_counters_are_checked() {
        let l = create("f5.reedeedk", "long");
        mint(&l, 3);
        l.insert(keys::admin("held"), "7");
        l.insert(keys::admin("queued"), "1");
        l.insert(keys::admin("oacounter"), "4");
        l.insert(keys::admin("c50/value"), "241393");
        let a = analyze(&l, &census(&l), Options::default()).unwrap();
        let texts: Vec<&str> = a.problems.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                ":/held is 7 but 3 identifiers are held",
                ":/queued is 1 but the queue holds 0 entries",
                "the counter lists disagree with the counters: :/saclist has 293 and :/siclist 0 names, the counters say 292 active and 1 exhausted",
                ":/oacounter is 4 but the counters have handed out 241395 numbers",
            ]
        );
        assert_eq!(a.repairable(), 4);
        apply(&l, &a);
        let again = analyze(&l, &census(&l), Options::default()).unwrap();
        assert!(again.ok(), "{:?}", again.problems);
        assert_eq!(l.get(b":/siclist").unwrap().unwrap(), b" c50");
    }

    #[test]
    fn damaged_counters_are_not_replayed() {
        let l = create("f5.reedeedk", "long");
        l.insert(keys::admin("percounter"), "5");
        let a = analyze(&l, &census(&l), Options::default()).unwrap();
        assert_eq!(
            a.problems[0].text,
            ":/percounter is 5 but a namespace of 70728100 needs 241393"
        );
        assert_eq!(a.repairable(), 0);
        assert!(!a.lines.iter().any(|l| l.starts_with("next:")));
    }

    #[test]
    fn census_counts() {
        let l = create(".zd", "-");
        l.insert("a\t:/c", "i|x|y|1");
        l.insert("a\t:/h", "1");
        l.insert("a\tx", "1");
        l.insert("a\ty", "1");
        l.insert("b\t:/c", "qi|x|y|1");
        l.insert("c\t:/c", "u|x|y|1");
        l.insert("c\tz", "1");
        l.insert(":/q/00000000000000/000001/c", "c");
        l.insert(":/idmap/e\t^x", "y");
        l.insert(":/idmap/e\t:/h", "1");
        l.insert(":/:/note", "n");
        let c = census(&l);
        assert_eq!(
            (
                c.issued,
                c.queued_status,
                c.unqueued,
                c.holds,
                c.bindings,
                c.bound_ids,
                c.queue_entries,
                c.idmap_rules,
                c.notes
            ),
            (1, 1, 1, 2, 3, 2, 1, 1, 1)
        );
    }
}
