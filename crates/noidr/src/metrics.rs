//! What `noidr` has answered, for operators: requests by kind of answer and a latency
//! histogram, with the follower's catch-ups, reopens, generation and last write seen.
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

use noid_resolve::Outcome;
use noid_store::FollowStatus;
use thread_local::ThreadLocal;

use crate::replicate::Position;

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
        let bucket = BUCKETS
            .iter()
            .position(|&(bound, _)| ns <= bound)
            .unwrap_or(BUCKETS.len());
        c.buckets[bucket].add(1);
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
        }
        t
    }

    /// The Prometheus text exposition (format 0.0.4) of the counts and of `store`.
    pub fn prometheus(&self, store: &FollowStatus) -> String {
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
            "noidr_request_duration_seconds",
            "histogram",
            "Time from taking a request to its answer inside noidr (store catch-up and resolution).",
        );
        let mut cumulative = 0;
        for (i, (_, le)) in BUCKETS.iter().enumerate() {
            cumulative += t.buckets[i];
            let _ = writeln!(
                s,
                "noidr_request_duration_seconds_bucket{{le=\"{le}\"}} {cumulative}"
            );
        }
        let count = cumulative + t.buckets[BUCKETS.len()];
        let _ = writeln!(
            s,
            "noidr_request_duration_seconds_bucket{{le=\"+Inf\"}} {count}"
        );
        let _ = writeln!(
            s,
            "noidr_request_duration_seconds_sum {}",
            seconds(t.latency_ns)
        );
        let _ = writeln!(s, "noidr_request_duration_seconds_count {count}");
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
        s
    }

    /// The same as one line, for stderr (SIGUSR1).
    pub fn line(&self, store: &FollowStatus) -> String {
        let t = self.totals();
        let mut s = String::from("metrics:");
        for o in Outcome::ALL {
            let _ = write!(s, " {}={}", o.name(), t.outcomes[o.index()]);
        }
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

/// The `# HELP` and `# TYPE` lines that open a metric family.
fn family(s: &mut String, name: &str, kind: &str, help: &str) {
    let _ = write!(s, "# HELP {name} {help}\n# TYPE {name} {kind}\n");
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Nanoseconds as seconds, exactly (no float rounding): `1500` is `0.0000015`.
fn seconds(ns: u64) -> String {
    let (whole, frac) = (ns / 1_000_000_000, ns % 1_000_000_000);
    if frac == 0 {
        return whole.to_string();
    }
    let frac = format!("{frac:09}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact() {
        assert_eq!(seconds(0), "0");
        assert_eq!(seconds(1_500), "0.0000015");
        assert_eq!(seconds(2_000_000_000), "2");
        assert_eq!(seconds(12_345_000_000), "12.345");
    }

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
        };
        let text = m.prometheus(&status);
        assert!(
            text.contains("noidr_requests_total{kind=\"chop-back\"} 3\n"),
            "{text}"
        );
        assert!(text.contains("noidr_request_duration_seconds_bucket{le=\"+Inf\"} 7\n"));
        assert!(text.contains("noidr_request_duration_seconds_bucket{le=\"10\"} 4\n"));
        assert!(text.contains("noidr_store_generation 7\n"));
        assert!(!text.contains("last_write_age"));
        let line = m.line(&status);
        assert!(
            line.starts_with("metrics: hit=1 chop-back=3 inflection=0 miss=3 error=0 latency-sum="),
            "{line}"
        );
        assert!(line.ends_with(",10:4,+Inf:7 catch-ups=2 reopens=1 store=open generation=7"));
    }
}
