//! The link checker's Prometheus series on `/metrics` (docs/LINKS.md, "Gauges on `/metrics`"):
//!
//! * `noid_links_targets{binder,status}`: targets by status, every status listed;
//! * `noid_links_checks_total`: checks made since the server started (a counter:
//!   Prometheus computes checks per second with `rate()`);
//! * `noid_links_failing_targets{host}`: targets `failing` or `broken` on a host, for
//!   the [`TOP_HOSTS`] hosts with the most only, so that the number of series stays
//!   bounded whatever the number of hosts.
//!
//! Kept up to date by the schedule: set from a scan of the binder's records when a
//! round starts, then moved by each check's outcome.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use noid_core::links::{LinkState, Status};
use noid_serving::exposition::{family, label_value};

use noid_binder::link_health::host_of;

/// Hosts listed in `noid_links_failing_targets`, those with the most failing targets.
pub const TOP_HOSTS: usize = 20;

/// The link checker's counts, shared by the schedules and `/metrics`.
#[derive(Debug, Default)]
pub struct Gauges {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Per binder (its label): targets by status, and failing targets by host.
    binders: BTreeMap<String, Binder>,
    checks: u64,
}

#[derive(Debug, Default)]
struct Binder {
    by_status: BTreeMap<Status, u64>,
    failing_by_host: HashMap<String, u64>,
}

/// Whether a status counts as a failure of its host.
fn failing(s: Status) -> bool {
    matches!(s, Status::Failing | Status::Broken)
}

impl Binder {
    fn add(&mut self, target: &str, status: Status, n: i64) {
        let c = self.by_status.entry(status).or_default();
        *c = c.saturating_add_signed(n);
        if let (true, Some(host)) = (failing(status), host_of(target)) {
            let c = self.failing_by_host.entry(host.clone()).or_default();
            *c = c.saturating_add_signed(n);
            if *c == 0 {
                self.failing_by_host.remove(&host);
            }
        }
    }
}

impl Gauges {
    /// Binder `label`'s counts, from every (target, state) its records hold now.
    pub fn set<'a>(&self, label: &str, states: impl Iterator<Item = (&'a str, Status)>) {
        let mut b = Binder::default();
        for (target, status) in states {
            b.add(target, status, 1);
        }
        self.state
            .lock()
            .expect("gauges")
            .binders
            .insert(label.to_string(), b);
    }

    /// A check of `target` in binder `label` was recorded: it went from `old` to `new`.
    pub fn checked(&self, label: &str, target: &str, old: Option<&LinkState>, new: &LinkState) {
        let mut s = self.state.lock().expect("gauges");
        s.checks += 1;
        let b = s.binders.entry(label.to_string()).or_default();
        if let Some(old) = old {
            b.add(target, old.status, -1);
        }
        b.add(target, new.status, 1);
    }

    /// The series, in the text exposition.
    pub fn exposition(&self, out: &mut String) {
        let s = self.state.lock().expect("gauges");
        if s.binders.is_empty() {
            return;
        }
        family(
            out,
            "noid_links_targets",
            "gauge",
            "Targets by the status the link checker last found.",
        );
        for (label, b) in &s.binders {
            for status in Status::ALL {
                out.push_str(&format!(
                    "noid_links_targets{{binder=\"{label}\",status=\"{status}\"}} {}\n",
                    b.by_status.get(&status).copied().unwrap_or(0)
                ));
            }
        }
        family(
            out,
            "noid_links_checks_total",
            "counter",
            "Checks of a target made by the link checker's schedule since the server started.",
        );
        out.push_str(&format!("noid_links_checks_total {}\n", s.checks));
        let mut hosts: HashMap<&str, u64> = HashMap::new();
        for b in s.binders.values() {
            for (h, n) in &b.failing_by_host {
                *hosts.entry(h).or_default() += n;
            }
        }
        let mut hosts: Vec<(&str, u64)> = hosts.into_iter().collect();
        hosts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        family(
            out,
            "noid_links_failing_targets",
            "gauge",
            "Targets failing or broken on a host, for the 20 hosts with the most.",
        );
        for (h, n) in hosts.into_iter().take(TOP_HOSTS) {
            out.push_str(&format!(
                "noid_links_failing_targets{{host=\"{}\"}} {n}\n",
                label_value(h)
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(status: Status) -> LinkState {
        LinkState {
            status,
            http: None,
            checked: 0,
            since: 0,
            failures: 0,
            failing_since: None,
            detail: String::new(),
            location: None,
            fingerprint: None,
            cert_expires: None,
        }
    }

    #[test]
    fn counts_move_with_each_check_and_hosts_are_bounded() {
        let g = Gauges::default();
        let targets: Vec<String> = (0..25).map(|i| format!("http://h{i:02}.org/")).collect();
        g.set(
            "sam",
            targets.iter().map(|t| (t.as_str(), Status::Broken)).chain([
                ("http://h00.org/b", Status::Failing),
                ("http://ok.org/", Status::Ok),
            ]),
        );
        g.checked(
            "sam",
            "http://ok.org/",
            Some(&state(Status::Ok)),
            &state(Status::Failing),
        );
        let mut out = String::new();
        g.exposition(&mut out);
        assert!(out.contains("noid_links_targets{binder=\"sam\",status=\"ok\"} 0\n"));
        assert!(out.contains("noid_links_targets{binder=\"sam\",status=\"failing\"} 2\n"));
        assert!(out.contains("noid_links_targets{binder=\"sam\",status=\"broken\"} 25\n"));
        assert!(out.contains("noid_links_checks_total 1\n"));
        let hosts: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("noid_links_failing_targets{"))
            .collect();
        assert_eq!(hosts.len(), TOP_HOSTS);
        assert_eq!(hosts[0], "noid_links_failing_targets{host=\"h00.org\"} 2");
        assert_eq!(hosts[1], "noid_links_failing_targets{host=\"h01.org\"} 1");
        assert_eq!(
            hosts[TOP_HOSTS - 1],
            "noid_links_failing_targets{host=\"h19.org\"} 1"
        );
    }
}
