//! What `noidr` has answered, for operators: requests by kind of answer, the answers
//! the lookup deadline gave in the store's place, and a latency histogram, with the
//! follower's catch-ups, reopens, generation (the view's and the writers') and last
//! write seen, and the registry providers' health. docs/MONITORING.md lists every
//! family and the alerts built on them.
//! `--http` serves them as `GET /metrics` (Prometheus text format); every mode writes
//! them as one line to stderr on SIGUSR1.
//!
//! **No shared writes per request** (ARCHITECTURE.md, "Performance"): each request
//! thread counts into cells of its own (`thread_local::ThreadLocal`), with a plain load
//! and store (no locked read-modify-write: only that thread writes them); a scrape sums
//! every thread's cells. A thread that ends leaves its cells to the next thread that
//! gets its id, so nothing counted is lost.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use noid_resolve::{Outcome, Registry};
use noid_serving::exposition::{self, family, label_value, seconds};
use noid_store::FollowStatus;
use thread_local::ThreadLocal;

use crate::position::Position;

/// The latency histogram's bucket bounds, in nanoseconds, and as Prometheus writes
/// them (`le`, in seconds). A request that takes longer than the last goes to `+Inf`.
const BUCKETS: [(u64, &str); 12] = [
    (10_000, "0.00001"),
    (25_000, "0.000025"),
    (50_000, "0.00005"),
    (100_000, "0.0001"),
    (250_000, "0.00025"),
    (500_000, "0.0005"),
    (1_000_000, "0.001"),
    (2_500_000, "0.0025"),
    (10_000_000, "0.01"),
    (100_000_000, "0.1"),
    (1_000_000_000, "1"),
    (10_000_000_000, "10"),
];

/// A count written by one thread only, read by any.
#[derive(Default)]
struct Cell(AtomicU64);

impl Cell {
    /// Add `n`: a load and a store, which only the owning thread does.
    #[inline]
    fn add(&self, n: u64) {
        self.0.store(
            self.0.load(Ordering::Relaxed).wrapping_add(n),
            Ordering::Relaxed,
        );
    }

    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// One thread's counts.
#[derive(Default)]
struct Counts {
    /// By [`Outcome::index`].
    outcomes: [Cell; Outcome::ALL.len()],
    /// By bucket (not cumulative); the last is `+Inf`.
    buckets: [Cell; BUCKETS.len() + 1],
    /// Sum of the latencies, in nanoseconds.
    latency_ns: Cell,
    /// Requests answered with the lookup deadline's error in the store's place.
    late: Cell,
}

/// The requests answered, counted per thread; with `--follow`, where the copy stands.
#[derive(Default)]
pub struct Metrics {
    threads: ThreadLocal<Counts>,
    follow: Option<Arc<Position>>,
}

/// Every thread's counts, summed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Totals {
    /// By [`Outcome::index`].
    pub outcomes: [u64; Outcome::ALL.len()],
    /// By bucket, not cumulative; the last is `+Inf`.
    pub buckets: [u64; BUCKETS.len() + 1],
    /// Sum of the latencies, in nanoseconds.
    pub latency_ns: u64,
    /// Requests answered with the lookup deadline's error in the store's place.
    pub late: u64,
}

impl Metrics {
    /// Metrics that also show the `--follow` copy's position.
    pub fn following(position: Arc<Position>) -> Metrics {
        Metrics {
            threads: ThreadLocal::new(),
            follow: Some(position),
        }
    }

    /// Count one request, answered as `outcome`, which took since `start`.
    #[inline]
    pub fn record(&self, outcome: Outcome, start: Instant) {
        let ns = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let c = self.threads.get_or_default();
        c.outcomes[outcome.index()].add(1);
        c.latency_ns.add(ns);
        c.buckets[exposition::bucket(&BUCKETS, ns)].add(1);
    }

    /// Count one request answered with the lookup deadline's error (the line protocols'
    /// error line, HTTP's `503`) in the store's place, which took since `start`: an
    /// error, and a late answer.
    pub fn record_late(&self, start: Instant) {
        self.record(Outcome::Error, start);
        self.threads.get_or_default().late.add(1);
    }

    /// Every thread's counts, summed.
    pub fn totals(&self) -> Totals {
        let mut t = Totals::default();
        for c in self.threads.iter() {
            for (sum, cell) in t.outcomes.iter_mut().zip(&c.outcomes) {
                *sum += cell.get();
            }
            for (sum, cell) in t.buckets.iter_mut().zip(&c.buckets) {
                *sum += cell.get();
            }
            t.latency_ns += c.latency_ns.get();
            t.late += c.late.get();
        }
        t
    }

    /// The Prometheus text exposition (format 0.0.4) of the counts, of `store` and of
    /// the health of `registry`'s probed providers.
    pub fn prometheus(&self, store: &FollowStatus, registry: &Registry) -> String {
        let t = self.totals();
        let mut s = String::with_capacity(4096);
        family(
            &mut s,
            "noidr_requests_total",
            "counter",
            "Requests answered, by kind of answer.",
        );
        for o in Outcome::ALL {
            let _ = writeln!(
                s,
                "noidr_requests_total{{kind=\"{}\"}} {}",
                o.name(),
                t.outcomes[o.index()]
            );
        }
        family(
            &mut s,
            "noidr_late_answers_total",
            "counter",
            "Requests answered with the lookup deadline's error (HTTP: 503) in place of the store's answer, also counted as kind \"error\".",
        );
        let _ = writeln!(s, "noidr_late_answers_total {}", t.late);
        family(
            &mut s,
            "noidr_request_duration_seconds",
            "histogram",
            "Time from taking a request to its answer inside noidr (store catch-up and resolution).",
        );
        exposition::histogram(
            &mut s,
            "noidr_request_duration_seconds",
            "",
            &BUCKETS,
            &t.buckets,
            t.latency_ns,
        );
        family(
            &mut s,
            "noidr_store_catch_ups_total",
            "counter",
            "Catch-ups with the store that brought writers' new commits.",
        );
        let _ = writeln!(s, "noidr_store_catch_ups_total {}", store.catch_ups);
        family(
            &mut s,
            "noidr_store_reopens_total",
            "counter",
            "Times the store was opened anew (SIGHUP, a replaced or returning store).",
        );
        let _ = writeln!(s, "noidr_store_reopens_total {}", store.reopens);
        family(
            &mut s,
            "noidr_store_open",
            "gauge",
            "1 while a view of the store is open, else 0.",
        );
        let _ = writeln!(s, "noidr_store_open {}", u8::from(store.open));
        if let Some(g) = store.generation {
            family(
                &mut s,
                "noidr_store_generation",
                "gauge",
                "The writers' generation counter (NOID/generation) as noidr last saw it.",
            );
            let _ = writeln!(s, "noidr_store_generation {g}");
        }
        if let Some(g) = store.writers_generation {
            family(
                &mut s,
                "noidr_store_writers_generation",
                "gauge",
                "The writers' generation counter (NOID/generation) now; ahead of noidr_store_generation while noidr has not caught up.",
            );
            let _ = writeln!(s, "noidr_store_writers_generation {g}");
        }
        if let Some(age) = store.last_write_age {
            family(
                &mut s,
                "noidr_store_last_write_age_seconds",
                "gauge",
                "Seconds since noidr last caught up with a writer's new commits.",
            );
            let _ = writeln!(
                s,
                "noidr_store_last_write_age_seconds {}",
                seconds(duration_ns(age))
            );
        }
        if let Some(f) = &self.follow {
            follow_families(&mut s, f);
        }
        provider_family(&mut s, registry);
        s
    }

    /// The same as one line, for stderr (SIGUSR1).
    pub fn line(&self, store: &FollowStatus) -> String {
        let t = self.totals();
        let mut s = String::from("metrics:");
        for o in Outcome::ALL {
            let _ = write!(s, " {}={}", o.name(), t.outcomes[o.index()]);
        }
        let _ = write!(s, " late={}", t.late);
        let _ = write!(s, " latency-sum={}s latency-le=", seconds(t.latency_ns));
        let mut cumulative = 0;
        for (i, (_, le)) in BUCKETS.iter().enumerate() {
            cumulative += t.buckets[i];
            let _ = write!(s, "{le}:{cumulative},");
        }
        let _ = write!(
            s,
            "+Inf:{} catch-ups={} reopens={} store={}",
            cumulative + t.buckets[BUCKETS.len()],
            store.catch_ups,
            store.reopens,
            if store.open { "open" } else { "closed" }
        );
        if let Some(g) = store.generation {
            let _ = write!(s, " generation={g}");
        }
        if let Some(age) = store.last_write_age {
            let _ = write!(s, " last-write-age={}s", seconds(duration_ns(age)));
        }
        if let Some(f) = &self.follow {
            let seen = f.seen();
            let num = |v: Option<i64>| v.map_or("unknown".to_string(), |v| v.to_string());
            let _ = write!(
                s,
                " follow-applied={} follow-head={} follow-lag={} follow-remade={} follow-verified={}",
                num(seen.applied),
                num(seen.head),
                seen.lag
                    .map_or("unknown".to_string(), |l| format!("{}s", seconds(duration_ns(l)))),
                seen.remade,
                seen.verified
            );
        }
        s
    }
}

/// The `--follow` copy's families.
fn follow_families(s: &mut String, f: &Position) {
    let seen = f.seen();
    if let Some(applied) = seen.applied {
        family(
            s,
            "noidr_follow_applied_seq",
            "gauge",
            "The last change-log sequence number applied to the --follow copy.",
        );
        let _ = writeln!(s, "noidr_follow_applied_seq {applied}");
    }
    if let Some(head) = seen.head {
        family(
            s,
            "noidr_follow_head_seq",
            "gauge",
            "The minter's change-log head (its last committed change) as last read.",
        );
        let _ = writeln!(s, "noidr_follow_head_seq {head}");
    }
    if let Some(lag) = seen.lag {
        family(
            s,
            "noidr_follow_lag_seconds",
            "gauge",
            "Seconds since the --follow copy was last known to hold every committed change.",
        );
        let _ = writeln!(s, "noidr_follow_lag_seconds {}", seconds(duration_ns(lag)));
    }
    family(
        s,
        "noidr_follow_remade_total",
        "counter",
        "Times the --follow copy was made anew from a snapshot (log gap or pruned, minter behind it, checksum mismatch).",
    );
    let _ = writeln!(s, "noidr_follow_remade_total {}", seen.remade);
    family(
        s,
        "noidr_follow_verified_total",
        "counter",
        "Checksum comparisons that found the --follow copy equal to the minter.",
    );
    let _ = writeln!(s, "noidr_follow_verified_total {}", seen.verified);
}

/// `noidr_provider_up`: per registry provider with a probe URL, whether its last probe
/// found it up (1) or down (0); up until probed. Nothing without such providers.
fn provider_family(s: &mut String, registry: &Registry) {
    let mut probed = registry.records().iter().flat_map(|r| {
        r.providers
            .iter()
            .filter(|p| p.probe.is_some())
            .map(move |p| (r, p))
    });
    let Some(first) = probed.next() else {
        return;
    };
    family(
        s,
        "noidr_provider_up",
        "gauge",
        "1 while a registry provider's probe (--probe-interval) finds it up, 0 while down; up until probed.",
    );
    for (record, provider) in std::iter::once(first).chain(probed) {
        let _ = writeln!(
            s,
            "noidr_provider_up{{prefix=\"{}\",provider=\"{}\"}} {}",
            label_value(&record.prefix),
            label_value(&provider.code),
            u8::from(registry.is_healthy(provider))
        );
    }
}

/// `noidr_resolutions_counted_total{kind, class}`: what `--counts` counted since noidr
/// started (the per-identifier counts are in the counts store, read by `noid stats`).
pub fn counted(s: &mut String, totals: &noid_counts::Totals) {
    family(
        s,
        "noidr_resolutions_counted_total",
        "counter",
        "Requests counted in the resolution counts (--counts), by kind of answer and by person or robot.",
    );
    for (kind, counts) in noid_counts::GROUPS.iter().zip(totals) {
        for (class, n) in ["person", "robot"].iter().zip(counts) {
            let _ = writeln!(
                s,
                "noidr_resolutions_counted_total{{kind=\"{kind}\",class=\"{class}\"}} {n}"
            );
        }
    }
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_every_thread_are_summed_and_survive_the_thread() {
        let m = Metrics::default();
        let long_ago = Instant::now() - Duration::from_secs(20);
        m.record(Outcome::Hit, Instant::now());
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    m.record(Outcome::Miss, Instant::now());
                    m.record(Outcome::ChopBack, long_ago);
                });
            }
        });
        let t = m.totals();
        assert_eq!(t.outcomes, [1, 3, 0, 3, 0]);
        assert_eq!(t.outcomes.iter().sum::<u64>(), 7);
        assert_eq!(t.buckets[BUCKETS.len()], 3, "20 s is past the last bound");
        assert!(t.latency_ns >= 60_000_000_000);
        let status = FollowStatus {
            open: true,
            catch_ups: 2,
            reopens: 1,
            generation: Some(7),
            last_write_age: None,
            writers_generation: Some(9),
        };
        let text = m.prometheus(&status, &Registry::empty());
        assert!(
            text.contains("noidr_requests_total{kind=\"chop-back\"} 3\n"),
            "{text}"
        );
        assert!(text.contains("noidr_request_duration_seconds_bucket{le=\"+Inf\"} 7\n"));
        assert!(text.contains("noidr_request_duration_seconds_bucket{le=\"10\"} 4\n"));
        assert!(text.contains("noidr_store_generation 7\n"));
        assert!(text.contains(
            "# TYPE noidr_store_writers_generation gauge\nnoidr_store_writers_generation 9\n"
        ));
        assert!(text.contains("noidr_late_answers_total 0\n"));
        assert!(!text.contains("last_write_age"));
        assert!(!text.contains("noidr_provider_up"), "no probed provider");
        let line = m.line(&status);
        assert!(
            line.starts_with(
                "metrics: hit=1 chop-back=3 inflection=0 miss=3 error=0 late=0 latency-sum="
            ),
            "{line}"
        );
        assert!(line.ends_with(",10:4,+Inf:7 catch-ups=2 reopens=1 store=open generation=7"));
    }

    #[test]
    fn late_answers_are_errors_too() {
        let m = Metrics::default();
        m.record_late(Instant::now());
        m.record_late(Instant::now());
        m.record(Outcome::Hit, Instant::now());
        let t = m.totals();
        assert_eq!((t.outcomes, t.late), ([1, 0, 0, 0, 2], 2));
        let status = FollowStatus {
            open: false,
            catch_ups: 0,
            reopens: 0,
            generation: None,
            last_write_age: None,
            writers_generation: None,
        };
        let text = m.prometheus(&status, &Registry::empty());
        assert!(text.contains(
            "# HELP noidr_late_answers_total Requests answered with the lookup deadline's error \
             (HTTP: 503) in place of the store's answer, also counted as kind \"error\".\n\
             # TYPE noidr_late_answers_total counter\n\
             noidr_late_answers_total 2\n"
        ));
        assert!(text.contains("noidr_requests_total{kind=\"error\"} 2\n"));
        assert!(text.contains("noidr_store_open 0\n"));
        assert!(!text.contains("noidr_store_writers_generation"));
        assert!(m.line(&status).contains(" error=2 late=2 latency-sum="));
    }

    #[test]
    fn probed_providers_are_up_or_down_by_prefix_and_code() {
        let registry = Registry::parse(
            "prefix: pdb:\n\
             provider: rcsb https://www.rcsb.org/structure/$id\n\
             provider: pdbe https://www.ebi.ac.uk/pdbe/entry/pdb/$id\n\
             provider: pdbj https://pdbj.org/mine/summary/$id\n\
             probe: rcsb http://127.0.0.1:1/rcsb\n\
             probe: pdbe http://127.0.0.1:1/pdbe\n\
             \n\
             prefix: ark:/99999\n\
             provider: main https://example.org/$id\n\
             probe: main http://127.0.0.1:1/main\n",
        )
        .unwrap();
        let pdbe = registry
            .probes()
            .into_iter()
            .find(|p| p.code == "pdbe")
            .unwrap();
        assert!(registry.set_healthy(pdbe.slot, false));
        let status = FollowStatus {
            open: true,
            catch_ups: 0,
            reopens: 0,
            generation: Some(1),
            last_write_age: None,
            writers_generation: Some(1),
        };
        let text = Metrics::default().prometheus(&status, &registry);
        let family = &text[text.find("# HELP noidr_provider_up").unwrap()..];
        assert_eq!(
            family,
            "# HELP noidr_provider_up 1 while a registry provider's probe (--probe-interval) \
             finds it up, 0 while down; up until probed.\n\
             # TYPE noidr_provider_up gauge\n\
             noidr_provider_up{prefix=\"ark:/99999\",provider=\"main\"} 1\n\
             noidr_provider_up{prefix=\"pdb:\",provider=\"rcsb\"} 1\n\
             noidr_provider_up{prefix=\"pdb:\",provider=\"pdbe\"} 0\n"
        );
    }
}
