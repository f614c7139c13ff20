//! A random minter's counters checked against its namespace and against each other.

use noid_template::generator::{init_counters, GeneratorState};

use super::findings::{Finding, Problem};
use super::repair::{set, Plan, Repair};

/// Check the random generator's counters and lists, planning the repairs in `plan`.
/// Returns false when the counters are too damaged to replay.
pub(crate) fn check_counters(
    gen: &GeneratorState,
    plan: &mut Plan,
    problems: &mut Vec<Problem>,
) -> bool {
    let expect = init_counters(gen.total);
    if gen.percounter != expect.percounter {
        problems.push(Problem {
            finding: Finding::Percounter {
                stored: gen.percounter,
                total: gen.total,
                expected: expect.percounter,
            },
            repair: None,
        });
        return false;
    }
    if gen.counters.len() != expect.counters.len() {
        problems.push(Problem {
            finding: Finding::CounterCount {
                stored: gen.counters.len(),
                total: gen.total,
                expected: expect.counters.len(),
            },
            repair: None,
        });
        return false;
    }
    let bad_tops: Vec<(usize, u64, u64)> = gen
        .counters
        .iter()
        .zip(&expect.counters)
        .enumerate()
        .filter(|(_, (c, e))| c.top != e.top)
        .map(|(n, (c, e))| (n, c.top, e.top))
        .collect();
    if !bad_tops.is_empty() {
        problems.push(Problem {
            finding: Finding::CounterTops(bad_tops),
            repair: None,
        });
        return false;
    }
    let fixed = plan.generator_mut();
    for (n, c) in gen.counters.iter().enumerate() {
        if c.value > c.top {
            problems.push(Problem {
                finding: Finding::CounterBeyondTop {
                    n,
                    value: c.value,
                    top: c.top,
                },
                repair: Some(set(&format!("c{n}/value"), c.top)),
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
        problems.push(Problem {
            finding: Finding::CounterLists {
                saclist: gen.saclist.len(),
                siclist: gen.siclist.len(),
                active: sac.len(),
                exhausted: sic.len(),
            },
            repair: Some(Repair::ListsRebuilt),
        });
        fixed.saclist = sac;
        fixed.siclist = sic;
    }
    let sum: u64 = fixed.counters.iter().map(|c| c.value).sum();
    if gen.oacounter != sum {
        problems.push(Problem {
            finding: Finding::Oacounter {
                stored: gen.oacounter,
                sum,
            },
            repair: Some(set(noid_core::keys::name::OACOUNTER, sum)),
        });
        fixed.oacounter = sum;
    }
    true
}
