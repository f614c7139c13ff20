//! What `noid serve` has done, for operators: `GET /metrics` in the Prometheus text
//! format (written by `noid_serving::exposition`, as `noidr`'s). Per configured
//! populator: requests by HTTP status, identifiers minted and binder writes committed,
//! and requests whose writes failed (the store could not be opened, a commit failed,
//! the write log failed); and the time a command takes at its directory's thread
//! (queued behind the store lock, run, committed, logged), by kind of work; and the
//! console's logged-in sessions kept (`noid_console_sessions`, bounded by
//! `console::session::MAX_SESSIONS`). docs/MONITORING.md lists the families and the alerts built on them.
//!
//! Every series of a configured populator exists from the start (at 0), so that a
//! rate or an alert over it is defined before the first failure. Requests for paths
//! that name no configured populator are counted under `populator="-"`, so that a
//! client cannot make up label values. Counting takes a mutex: each request of this
//! service also waits for a synced commit, which costs far more.
//!
//! `/metrics` is answered on the service's own address only: a request a front
//! server forwarded (it carries `X-Forwarded-For`) gets `404`, like any path that is
//! no route, so that publishing `/a/` through the front server does not publish this.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use hyper::StatusCode;
use noid_binder::api::{plain, ApiReply};
use noid_binder::{Kind, Observer, Stage};
use noid_serving::exposition::{self, family, label_value};

/// The label of requests that name no configured populator.
const NO_POPULATOR: &str = "-";

/// The statuses every populator's request counts start with (the ones the API gives:
/// answers, and refusals before a command runs).
const STATUSES: [u16; 4] = [200, 401, 403, 429];

/// The duration histogram's bounds, in nanoseconds and as `le` (seconds): a command's
/// commit is synced (milliseconds), a bulk POST may run for minutes.
const BUCKETS: [(u64, &str); 12] = [
    (1_000_000, "0.001"),
    (2_500_000, "0.0025"),
    (5_000_000, "0.005"),
    (10_000_000, "0.01"),
    (25_000_000, "0.025"),
    (50_000_000, "0.05"),
    (100_000_000, "0.1"),
    (250_000_000, "0.25"),
    (1_000_000_000, "1"),
    (5_000_000_000, "5"),
    (30_000_000_000, "30"),
    (300_000_000_000, "300"),
];

/// One populator's counts.
#[derive(Debug, Default, Clone)]
struct Counts {
    /// Requests by HTTP status.
    statuses: BTreeMap<u16, u64>,
    /// Identifiers minted and committed.
    minted: u64,
    /// Binder writes committed (write log records).
    binds: u64,
    /// Requests whose writes failed, by [`Stage`].
    failed: [u64; Stage::ALL.len()],
}

/// A histogram of durations.
#[derive(Debug, Default, Clone)]
struct Histogram {
    /// By bucket, not cumulative; the last is `+Inf`.
    buckets: [u64; BUCKETS.len() + 1],
    sum_ns: u64,
}

#[derive(Debug, Default)]
struct State {
    /// By populator name (`-`: none configured by that name).
    populators: BTreeMap<String, Counts>,
    /// By [`Kind`].
    durations: [Histogram; Kind::ALL.len()],
}

/// The service's counts.
#[derive(Debug, Default)]
pub struct Metrics {
    state: Mutex<State>,
}

/// What the directory writers tell (noid-binder's [`Observer`]), counted.
impl Observer for Metrics {
    fn minted(&self, populator: &str, n: u64) {
        Metrics::minted(self, populator, n);
    }
    fn bound(&self, populators: &mut dyn Iterator<Item = &str>) {
        Metrics::bound(self, populators);
    }
    fn failed(&self, populator: &str, stage: Stage) {
        Metrics::failed(self, populator, stage);
    }
    fn took(&self, kind: Kind, took: Duration) {
        Metrics::took(self, kind, took);
    }
}

impl Metrics {
    /// Counts for these configured populators, every series at 0.
    pub fn new<'a>(populators: impl IntoIterator<Item = &'a String>) -> Metrics {
        let zero = Counts {
            statuses: STATUSES.iter().map(|&s| (s, 0)).collect(),
            ..Counts::default()
        };
        let mut state = State::default();
        for name in populators
            .into_iter()
            .map(String::as_str)
            .chain([NO_POPULATOR])
        {
            state.populators.insert(name.to_string(), zero.clone());
        }
        Metrics {
            state: Mutex::new(state),
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// The counts of `populator`, or of [`NO_POPULATOR`] when it is not configured.
    fn of<'s>(state: &'s mut State, populator: &str) -> &'s mut Counts {
        let key = if state.populators.contains_key(populator) {
            populator
        } else {
            NO_POPULATOR
        };
        state
            .populators
            .get_mut(key)
            .expect("every populator has counts")
    }

    /// A request for `populator` (`None`: its path names none) was answered `status`.
    pub fn answered(&self, populator: Option<&str>, status: u16) {
        self.with(|s| {
            *Self::of(s, populator.unwrap_or(NO_POPULATOR))
                .statuses
                .entry(status)
                .or_default() += 1
        });
    }

    /// `n` identifiers minted for `populator` were committed.
    pub fn minted(&self, populator: &str, n: u64) {
        self.with(|s| Self::of(s, populator).minted += n);
    }

    /// Binder writes were committed: one per populator named in `populators`.
    pub fn bound<'a>(&self, populators: impl IntoIterator<Item = &'a str>) {
        self.with(|s| {
            for p in populators {
                Self::of(s, p).binds += 1;
            }
        });
    }

    /// A request of `populator` failed at `stage`.
    pub fn failed(&self, populator: &str, stage: Stage) {
        self.with(|s| Self::of(s, populator).failed[stage as usize] += 1);
    }

    /// Work of `kind` was answered by its directory's thread `took` after it was
    /// queued there.
    pub fn took(&self, kind: Kind, took: Duration) {
        let ns = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        self.with(|s| {
            let h = &mut s.durations[kind as usize];
            h.buckets[exposition::bucket(&BUCKETS, ns)] += 1;
            h.sum_ns = h.sum_ns.saturating_add(ns);
        });
    }

    /// `GET /metrics`: `200` and the exposition; `404` for another method or a request
    /// a front server forwarded (see the module's doc).
    /// `console_sessions`: the console's logged-in sessions kept now.
    pub fn reply(
        &self,
        req: &hyper::Request<hyper::body::Incoming>,
        console_sessions: usize,
        links: &crate::links::gauges::Gauges,
    ) -> ApiReply {
        let forwarded = req.headers().contains_key("x-forwarded-for");
        if req.method() != hyper::Method::GET || forwarded {
            return plain(StatusCode::NOT_FOUND, "error: not found\n");
        }
        let mut text = self.prometheus();
        family(
            &mut text,
            "noid_console_sessions",
            "gauge",
            "The console's logged-in sessions kept (login forms keep none).",
        );
        text.push_str(&format!("noid_console_sessions {console_sessions}\n"));
        links.exposition(&mut text);
        ApiReply {
            body: text.into_bytes(),
            ..plain(StatusCode::OK, "")
        }
    }

    /// The Prometheus text exposition (format 0.0.4).
    pub fn prometheus(&self) -> String {
        let state = self.with(|s| (s.populators.clone(), s.durations.clone()));
        let (populators, durations) = state;
        let mut s = String::with_capacity(4096);
        let each =
            |s: &mut String, name: &str, kind: &str, help: &str, value: &dyn Fn(&Counts) -> u64| {
                family(s, name, kind, help);
                for (pop, c) in &populators {
                    s.push_str(&format!(
                        "{name}{{populator=\"{}\"}} {}\n",
                        label_value(pop),
                        value(c)
                    ));
                }
            };
        family(
            &mut s,
            "noid_api_requests_total",
            "counter",
            "Requests answered, by populator (\"-\": the path names no configured one) and HTTP status.",
        );
        for (pop, c) in &populators {
            for (status, n) in &c.statuses {
                s.push_str(&format!(
                    "noid_api_requests_total{{populator=\"{}\",code=\"{status}\"}} {n}\n",
                    label_value(pop)
                ));
            }
        }
        each(
            &mut s,
            "noid_api_minted_total",
            "counter",
            "Identifiers minted and committed, by populator.",
            &|c| c.minted,
        );
        each(
            &mut s,
            "noid_api_binds_total",
            "counter",
            "Binder writes committed (egg commands that changed bindings, one write log record each), by populator.",
            &|c| c.binds,
        );
        family(
            &mut s,
            "noid_api_write_failures_total",
            "counter",
            "Requests whose writes failed, by populator and stage: open (store lock or minter not had), commit (nothing written), log (written, write log not).",
        );
        for (pop, c) in &populators {
            for stage in Stage::ALL {
                s.push_str(&format!(
                    "noid_api_write_failures_total{{populator=\"{}\",stage=\"{}\"}} {}\n",
                    label_value(pop),
                    stage.name(),
                    c.failed[stage as usize]
                ));
            }
        }
        family(
            &mut s,
            "noid_api_command_duration_seconds",
            "histogram",
            "Time from a request's work queued at its directory's thread to its answer (the store lock, the commands, the synced commit and write log), by kind of work.",
        );
        for kind in Kind::ALL {
            let h = &durations[kind as usize];
            let labels = format!("work=\"{}\"", kind.name());
            exposition::histogram(
                &mut s,
                "noid_api_command_duration_seconds",
                &labels,
                &BUCKETS,
                &h.buckets,
                h.sum_ns,
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_series_of_a_configured_populator_starts_at_zero() {
        let names = ["sam".to_string(), "ro".to_string()];
        let m = Metrics::new(&names);
        m.answered(Some("sam"), 200);
        m.answered(Some("sam"), 200);
        m.answered(Some("mallory"), 404);
        m.answered(None, 404);
        m.answered(Some("ro"), 403);
        m.minted("sam", 5);
        m.bound(["sam", "sam", "ro"]);
        m.failed("ro", Stage::Log);
        m.took(Kind::Mint, Duration::from_millis(3));
        m.took(Kind::Mint, Duration::from_secs(400));
        let text = m.prometheus();
        let expected = "\
# HELP noid_api_requests_total Requests answered, by populator (\"-\": the path names no configured one) and HTTP status.
# TYPE noid_api_requests_total counter
noid_api_requests_total{populator=\"-\",code=\"200\"} 0
noid_api_requests_total{populator=\"-\",code=\"401\"} 0
noid_api_requests_total{populator=\"-\",code=\"403\"} 0
noid_api_requests_total{populator=\"-\",code=\"404\"} 2
noid_api_requests_total{populator=\"-\",code=\"429\"} 0
noid_api_requests_total{populator=\"ro\",code=\"200\"} 0
noid_api_requests_total{populator=\"ro\",code=\"401\"} 0
noid_api_requests_total{populator=\"ro\",code=\"403\"} 1
noid_api_requests_total{populator=\"ro\",code=\"429\"} 0
noid_api_requests_total{populator=\"sam\",code=\"200\"} 2
noid_api_requests_total{populator=\"sam\",code=\"401\"} 0
noid_api_requests_total{populator=\"sam\",code=\"403\"} 0
noid_api_requests_total{populator=\"sam\",code=\"429\"} 0
# HELP noid_api_minted_total Identifiers minted and committed, by populator.
# TYPE noid_api_minted_total counter
noid_api_minted_total{populator=\"-\"} 0
noid_api_minted_total{populator=\"ro\"} 0
noid_api_minted_total{populator=\"sam\"} 5
# HELP noid_api_binds_total Binder writes committed (egg commands that changed bindings, one write log record each), by populator.
# TYPE noid_api_binds_total counter
noid_api_binds_total{populator=\"-\"} 0
noid_api_binds_total{populator=\"ro\"} 1
noid_api_binds_total{populator=\"sam\"} 2
# HELP noid_api_write_failures_total Requests whose writes failed, by populator and stage: open (store lock or minter not had), commit (nothing written), log (written, write log not).
# TYPE noid_api_write_failures_total counter
noid_api_write_failures_total{populator=\"-\",stage=\"open\"} 0
noid_api_write_failures_total{populator=\"-\",stage=\"commit\"} 0
noid_api_write_failures_total{populator=\"-\",stage=\"log\"} 0
noid_api_write_failures_total{populator=\"ro\",stage=\"open\"} 0
noid_api_write_failures_total{populator=\"ro\",stage=\"commit\"} 0
noid_api_write_failures_total{populator=\"ro\",stage=\"log\"} 1
noid_api_write_failures_total{populator=\"sam\",stage=\"open\"} 0
noid_api_write_failures_total{populator=\"sam\",stage=\"commit\"} 0
noid_api_write_failures_total{populator=\"sam\",stage=\"log\"} 0
# HELP noid_api_command_duration_seconds Time from a request's work queued at its directory's thread to its answer (the store lock, the commands, the synced commit and write log), by kind of work.
# TYPE noid_api_command_duration_seconds histogram
";
        assert!(text.starts_with(expected), "{text}");
        let mint = "\
noid_api_command_duration_seconds_bucket{work=\"mint\",le=\"0.0025\"} 0
noid_api_command_duration_seconds_bucket{work=\"mint\",le=\"0.005\"} 1
";
        assert!(text.contains(mint), "{text}");
        assert!(text.ends_with(
            "noid_api_command_duration_seconds_bucket{work=\"mint\",le=\"300\"} 1\n\
             noid_api_command_duration_seconds_bucket{work=\"mint\",le=\"+Inf\"} 2\n\
             noid_api_command_duration_seconds_sum{work=\"mint\"} 400.003\n\
             noid_api_command_duration_seconds_count{work=\"mint\"} 2\n"
        ));
        assert!(text.contains("noid_api_command_duration_seconds_count{work=\"egg\"} 0\n"));
        assert!(text.contains("noid_api_command_duration_seconds_sum{work=\"bulk\"} 0\n"));
    }
}
