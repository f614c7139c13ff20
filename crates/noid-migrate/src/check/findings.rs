//! What `noid check` finds, as plain values: the facts about a minter ([`Summary`]), the
//! next identifiers ([`Upcoming`]), what is wrong ([`Finding`], [`Problem`]), gathered in
//! an [`Analysis`]. [`super::analysis`] makes them, [`super::report`] prints them and
//! [`super::repair`] writes their repairs.

use noid_template::generator::GenError;

use super::candidate::Use;
use super::census::Census;
use super::repair::{Plan, Repair};

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

/// The outcome of [`super::analyze`].
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
