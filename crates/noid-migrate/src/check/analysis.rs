//! The analysis: the facts about a minter, the next identifiers its generator will
//! produce and how each is already used, and what is wrong, as data. The text is
//! [`super::report`]'s, the writes [`super::repair`]'s.

use noid_core::keys;
use noid_core::Lookup;
use noid_minter::Minter;
use noid_template::generator::GenError;
use noid_template::template::{parse_template, GenType};

use super::candidate::{classify, Use};
use super::census::Census;
use super::counters::check_counters;
use super::repair::{skip_past_used, Plan, Repair};
use super::spellings::spelling_problems;
use super::CheckError;

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

/// The facts the report opens with.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The minter's template.
    pub template: String,
    /// The generator type's name, or `bind-only`.
    pub kind: &'static str,
    /// `long`, `medium` or `short`.
    pub term: &'static str,
    /// `:/oacounter`.
    pub oacounter: u64,
    /// How many identifiers are left: None when unlimited.
    pub left: Option<u64>,
    /// Whether minting starts over once none are left (short term).
    pub wraps: bool,
    /// The counts of the store's records.
    pub census: Census,
}

/// One of the next identifiers the generator will produce, or why there are no more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Upcoming {
    /// The identifier, and how it is already used.
    Id(String, Use),
    /// The generator stops here.
    None(GenError),
}

/// What is wrong with the minter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// `:/held` disagrees with the holds in the store.
    HeldCount {
        /// `:/held`.
        stored: i64,
        /// Identifiers held.
        held: u64,
    },
    /// `:/queued` disagrees with the queue's entries.
    QueuedCount {
        /// `:/queued`.
        stored: i64,
        /// Entries in the queue.
        entries: u64,
    },
    /// `:/total` disagrees with the template.
    Total {
        /// `:/total`.
        stored: i64,
        /// The template.
        template: String,
        /// The template's namespace size.
        expected: i64,
    },
    /// `:/oatop` disagrees with `:/total`.
    Oatop {
        /// `:/oatop`.
        oatop: i64,
        /// `:/total`.
        total: i64,
    },
    /// A sequential minter that does not wrap counted past its top.
    BeyondOatop {
        /// `:/oacounter`.
        oacounter: u64,
        /// `:/oatop`.
        oatop: i64,
    },
    /// `:/percounter` disagrees with the namespace.
    Percounter {
        /// `:/percounter`.
        stored: u64,
        /// `:/total`.
        total: i64,
        /// What the namespace needs.
        expected: u64,
    },
    /// The number of counters disagrees with the namespace.
    CounterCount {
        /// Counters stored.
        stored: usize,
        /// `:/total`.
        total: i64,
        /// What the namespace needs.
        expected: usize,
    },
    /// Counter tops that differ from the namespace's: (counter, stored, expected).
    CounterTops(Vec<(usize, u64, u64)>),
    /// A counter's value beyond its top.
    CounterBeyondTop {
        /// The counter's number.
        n: usize,
        /// Its value.
        value: u64,
        /// Its top.
        top: u64,
    },
    /// `:/saclist` and `:/siclist` disagree with the counters.
    CounterLists {
        /// Names in `:/saclist`.
        saclist: usize,
        /// Names in `:/siclist`.
        siclist: usize,
        /// Active counters.
        active: usize,
        /// Exhausted counters.
        exhausted: usize,
    },
    /// `:/oacounter` disagrees with the sum of the counters.
    Oacounter {
        /// `:/oacounter`.
        stored: u64,
        /// What the counters have handed out.
        sum: u64,
    },
    /// Some of the next identifiers are already issued or bound.
    GeneratorBehind {
        /// How many.
        used: usize,
        /// Of how many looked at.
        lookahead: usize,
    },
    /// An identifier is stored under a spelling other than the directory's
    /// ([`super::spellings`]).
    Spellings {
        /// The directory's spelling of it.
        id: String,
        /// The spellings it is stored under: `id` first when it is one of them.
        spellings: Vec<String>,
        /// Whether anything is stored under `id` itself.
        canonical_stored: bool,
        /// The elements whose values differ between the spellings (a merge would
        /// have to choose): when there are any, `--repair` leaves it to a person.
        conflicts: Vec<String>,
    },
}

/// One finding, and what `--repair` does about it (None: it needs repairing by hand).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// What is wrong.
    pub finding: Finding,
    /// The repair, if `--repair` can make it.
    pub repair: Option<Repair>,
}

/// The outcome of [`analyze`].
#[derive(Debug, Clone)]
pub struct Analysis {
    /// The facts.
    pub summary: Summary,
    /// The next identifiers.
    pub upcoming: Vec<Upcoming>,
    /// Findings.
    pub problems: Vec<Problem>,
    /// The writes that make the repairs.
    pub(crate) plan: Plan,
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
}

/// Analyse the minter seen through `l`, whose records were all counted in `census`.
pub fn analyze<L: Lookup + ?Sized>(
    l: &L,
    census: &Census,
    opts: Options,
) -> Result<Analysis, CheckError> {
    let m = Minter::load(l)?;
    if m.template.is_empty() && l.get(&keys::admin("version"))?.is_none() {
        return Err(CheckError::NotAMinter);
    }
    let mut problems = Vec::new();
    let mut plan = Plan::new(&m.gen);
    let spelled = spelling_problems(l, census, &mut plan)?;
    count_problems(&m, census, spelled.extra_holds, &mut plan, &mut problems);
    let counters_sound = generator_problems(&m, &mut plan, &mut problems);
    let upcoming = if !m.generates() {
        vec![Upcoming::None(GenError::BadMask {
            mask: m.mask.clone(),
        })]
    } else if counters_sound {
        look_ahead(l, &m, opts, &mut plan, &mut problems)?
    } else {
        Vec::new()
    };
    problems.extend(spelled.problems);
    Ok(Analysis {
        summary: summarize(&m, census),
        upcoming,
        problems,
        plan,
    })
}

/// The counts kept beside the records (`:/held`, `:/queued`) against the records. An
/// identifier held under several spellings is one held identifier: `extra_holds` hold
/// keys count no further one.
fn count_problems(
    m: &Minter,
    census: &Census,
    extra_holds: u64,
    plan: &mut Plan,
    problems: &mut Vec<Problem>,
) {
    let held = census.holds - extra_holds;
    if m.held != held as i64 {
        problems.push(Problem {
            finding: Finding::HeldCount {
                stored: m.held,
                held,
            },
            repair: Some(plan.set_held(held)),
        });
    }
    if m.queued != census.queue_entries as i64 {
        problems.push(Problem {
            finding: Finding::QueuedCount {
                stored: m.queued,
                entries: census.queue_entries,
            },
            repair: Some(plan.set_queued(census.queue_entries)),
        });
    }
}

/// The generator's state against itself and the template. Returns whether its
/// counters are sound enough to replay the next identifiers from.
fn generator_problems(m: &Minter, plan: &mut Plan, problems: &mut Vec<Problem>) -> bool {
    let mut counters_sound = true;
    if m.genonly || !m.template.is_empty() {
        if let Ok(t) = parse_template(&m.template) {
            if t.total != m.gen.total {
                counters_sound = false;
                problems.push(Problem {
                    finding: Finding::Total {
                        stored: m.gen.total,
                        template: m.template.clone(),
                        expected: t.total,
                    },
                    repair: None,
                });
            }
        }
    }
    if m.gen.oatop != m.gen.total {
        problems.push(Problem {
            finding: Finding::Oatop {
                oatop: m.gen.oatop,
                total: m.gen.total,
            },
            repair: Some(plan.set_oatop(m.gen.total)),
        });
    }
    // A LUI minter counts with `:/oacounter` alone; its counters are never used.
    if m.gen_type == GenType::Random && m.lui.is_none() {
        counters_sound &= check_counters(&m.gen, plan, problems);
    } else if m.gen.oatop >= 0 && !m.wrap && m.gen.oacounter as i64 > m.gen.oatop {
        problems.push(Problem {
            finding: Finding::BeyondOatop {
                oacounter: m.gen.oacounter,
                oatop: m.gen.oatop,
            },
            repair: None,
        });
    }
    counters_sound
}

/// The next identifiers, from the state as stored, and where a repair would move
/// the generator when some of them are used already.
fn look_ahead<L: Lookup + ?Sized>(
    l: &L,
    m: &Minter,
    opts: Options,
    plan: &mut Plan,
    problems: &mut Vec<Problem>,
) -> Result<Vec<Upcoming>, CheckError> {
    let mut upcoming = Vec::new();
    let mut g = m.gen.clone();
    let mut body = String::new();
    for _ in 0..opts.lookahead {
        let id = match m.candidates().next(&mut g, &mut body) {
            Ok(id) => id,
            Err(e) => {
                upcoming.push(Upcoming::None(e));
                break;
            }
        };
        let u = classify(l, m, &id)?;
        upcoming.push(Upcoming::Id(id, u));
    }
    let used = upcoming
        .iter()
        .filter(|u| matches!(u, Upcoming::Id(_, u) if u.is_problem()))
        .count();
    if used > 0 {
        let repair = match skip_past_used(l, m, plan.generator(), opts)? {
            Some(skip) => Some(plan.skip(skip)),
            None if plan.generator() != &m.gen => Some(Repair::CountersRepaired),
            None => None,
        };
        problems.push(Problem {
            finding: Finding::GeneratorBehind {
                used,
                lookahead: opts.lookahead,
            },
            repair,
        });
    }
    Ok(upcoming)
}

/// The facts the report opens with.
fn summarize(m: &Minter, census: &Census) -> Summary {
    let term = if m.longterm {
        "long"
    } else if m.wrap {
        "short"
    } else {
        "medium"
    };
    Summary {
        template: m.template.clone(),
        kind: if m.genonly {
            m.gen_type.as_str()
        } else {
            "bind-only"
        },
        term,
        oacounter: m.gen.oacounter,
        left: (m.gen.oatop >= 0).then(|| (m.gen.oatop - m.gen.oacounter as i64).max(0) as u64),
        wraps: m.wrap,
        census: census.clone(),
    }
}
