//! The analysis as text: the report's `label: value` lines, and what each finding and
//! repair says.

use std::fmt;

use super::candidate::Use;
use super::findings::{Analysis, Finding, Summary, Upcoming};
use super::repair::Repair;

impl Analysis {
    /// The report, one line each (`label: value`): the facts, then the next
    /// identifiers.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = self.summary.lines();
        for u in &self.upcoming {
            lines.push(match u {
                Upcoming::Id(id, how) => line("next", format!("{id} {how}")),
                Upcoming::None(e) => line("next", format!("none: {e}")),
            });
        }
        lines
    }
}

impl Summary {
    /// The facts, one line each.
    fn lines(&self) -> Vec<String> {
        let c = &self.census;
        let other = if c.other_status > 0 {
            format!(", {} other", c.other_status)
        } else {
            String::new()
        };
        let left = match self.left {
            None => "unlimited".to_string(),
            Some(n) if self.wraps => format!("{n} (short term: then minting starts over)"),
            Some(n) => n.to_string(),
        };
        vec![
            line(
                "template",
                format!("{} ({}, {} term)", self.template, self.kind, self.term),
            ),
            line(
                "minted",
                format!(
                    ":/oacounter {}; circulation records: {} issued, {} queued, {} unqueued{other}",
                    self.oacounter, c.issued, c.queued_status, c.unqueued
                ),
            ),
            line("held", c.holds),
            line("queued", c.queue_entries),
            line("left", left),
            line(
                "bindings",
                format!(
                    "{} on {}, {}, {}",
                    c.bindings,
                    plural(c.bound_ids, "identifier", "identifiers"),
                    plural(c.idmap_rules, ":idmap rule", ":idmap rules"),
                    plural(c.notes, "note", "notes")
                ),
            ),
        ]
    }
}

impl fmt::Display for Use {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Use::Free => f.write_str("free"),
            Use::Held => f.write_str("held (mint skips it)"),
            Use::Queued => f.write_str("queued (mint skips it; it comes out of the queue)"),
            Use::Unqueued => f.write_str("unqueued (mint skips it)"),
            Use::Reissue => f.write_str("issued before (short term: re-issued after wrapping)"),
            Use::Issued(rec) => write!(f, "ALREADY ISSUED (circulation record {rec})"),
            Use::Bound(1) => f.write_str("ALREADY BOUND (1 element) but never issued"),
            Use::Bound(n) => write!(f, "ALREADY BOUND ({n} elements) but never issued"),
            Use::Other(rec) => write!(f, "circulation record {rec} (mint skips it)"),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::HeldCount { stored, held } => write!(
                f,
                ":/held is {stored} but {} held",
                plural(*held, "identifier is", "identifiers are")
            ),
            Finding::QueuedCount { stored, entries } => write!(
                f,
                ":/queued is {stored} but the queue holds {}",
                plural(*entries, "entry", "entries")
            ),
            Finding::Total {
                stored,
                template,
                expected,
            } => write!(
                f,
                ":/total is {stored} but the template {template} gives {expected}"
            ),
            Finding::Oatop { oatop, total } => {
                write!(f, ":/oatop is {oatop} but :/total is {total}")
            }
            Finding::BeyondOatop { oacounter, oatop } => {
                write!(f, ":/oacounter {oacounter} is beyond :/oatop {oatop}")
            }
            Finding::Percounter {
                stored,
                total,
                expected,
            } => write!(
                f,
                ":/percounter is {stored} but a namespace of {total} needs {expected}"
            ),
            Finding::CounterCount {
                stored,
                total,
                expected,
            } => write!(
                f,
                "the minter has {stored} counters but a namespace of {total} needs {expected}"
            ),
            Finding::CounterTops(tops) => {
                let tops: Vec<String> = tops
                    .iter()
                    .map(|(n, top, expected)| format!("c{n} ({top} instead of {expected})"))
                    .collect();
                write!(
                    f,
                    "counter tops differ from the namespace's: {}",
                    tops.join(", ")
                )
            }
            Finding::CounterBeyondTop { n, value, top } => {
                write!(f, ":/c{n}/value is {value} beyond its top {top}")
            }
            Finding::CounterLists {
                saclist,
                siclist,
                active,
                exhausted,
            } => write!(
                f,
                "the counter lists disagree with the counters: :/saclist has {saclist} and :/siclist {siclist} names, the counters say {active} active and {exhausted} exhausted"
            ),
            Finding::Oacounter { stored, sum } => write!(
                f,
                ":/oacounter is {stored} but the counters have handed out {sum} numbers"
            ),
            Finding::GeneratorBehind { used, lookahead } => write!(
                f,
                "{used} of the next {lookahead} identifiers the generator will produce {} already issued or bound: the counters are behind the store (an outdated minter?)",
                if *used == 1 { "is" } else { "are" }
            ),
            Finding::Spellings {
                id,
                spellings,
                canonical_stored,
                conflicts,
            } => {
                match (canonical_stored, spellings.as_slice()) {
                    (false, [one]) => write!(
                        f,
                        "{one} is stored under a spelling other than the binder's ({id})"
                    )?,
                    (true, _) => write!(
                        f,
                        "{id} is stored under {} spellings: {}",
                        spellings.len(),
                        spellings.join(", ")
                    )?,
                    (false, _) => write!(
                        f,
                        "{id} is stored under {} spellings, none of them the binder's: {}",
                        spellings.len(),
                        spellings.join(", ")
                    )?,
                }
                if !conflicts.is_empty() {
                    write!(
                        f,
                        "; they hold different values of {}, so they are not merged (needs repairing by hand)",
                        conflicts.join(", ")
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Repair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Repair::Set { name, value } => write!(f, ":/{name} set to {value}"),
            Repair::ListsRebuilt => {
                f.write_str(":/saclist and :/siclist rebuilt from the counters")
            }
            Repair::Skipped {
                skipped,
                used,
                continues_past,
            } => {
                let passed = skipped - used;
                write!(
                    f,
                    "the generator skipped {} ({used} already used",
                    plural(*skipped, "identifier", "identifiers")
                )?;
                if passed > 0 {
                    write!(f, ", {passed} unused passed over")?;
                }
                f.write_str(")")?;
                if let Some(limit) = continues_past {
                    write!(f, "; used identifiers continue past the {limit} replayed")?;
                }
                Ok(())
            }
            Repair::CountersRepaired => {
                f.write_str("the repaired counters no longer lead to used identifiers")
            }
            Repair::Merged { from, into, keys } => write!(
                f,
                "{} merged into {into} ({})",
                from.join(", "),
                plural(*keys as u64, "key", "keys")
            ),
        }
    }
}

/// A report line: the label and its colon padded to 13 columns.
fn line(label: &str, value: impl fmt::Display) -> String {
    format!("{:<13}{value}", format!("{label}:"))
}

/// `n` and the noun that agrees with it.
fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
