//! The analysis: the facts about a minter, the next identifiers its generator will
//! produce and how each is already used, and what is wrong, gathered into the values
//! of [`super::findings`]. The text is [`super::report`]'s, the writes
//! [`super::repair`]'s.

use noid_core::keys;
use noid_core::Lookup;
use noid_minter::Minter;
use noid_template::generator::GenError;
use noid_template::template::{parse_template, GenType};

use super::candidate::classify;
use super::census::Census;
use super::counters::check_counters;
use super::findings::{Analysis, Finding, Options, Problem, Summary, Upcoming};
use super::repair::{skip_past_used, Plan, Repair};
use super::spellings::spelling_problems;
use super::CheckError;

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
