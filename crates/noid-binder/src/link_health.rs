//! What the link checker found, read back from a binder's `:/links/` records
//! ([`noid_core::links`]) for the console's "Link health" page, the API's `links`
//! answers and the owners' digests: one filter, one row type, one CSV and one JSON
//! rendering, so that the page, its download and the API show the same rows.
//!
//! Reads run on a read-only view (noid-binder's `Site::reading`), never through the
//! writer thread.

use std::collections::BTreeMap;

use noid_core::links::{self, Change, LinkState, Status};
use noid_core::{Lookup, LookupError};

/// The columns of a report, in order (as `noid links report` writes them).
pub const COLUMNS: [&str; 9] = [
    "id", "target", "status", "http", "checked", "since", "detail", "location", "failures",
];

/// Which targets are shown: all by default.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Filter {
    /// Only targets with this status.
    pub status: Option<Status>,
    /// Only identifiers starting with this (a shoulder, a prefix).
    pub under: String,
    /// Only identifiers this populator created (its `_,ep` admin element).
    pub populator: Option<String>,
    /// Only targets on this host (as written in the URL, case-insensitive).
    pub host: Option<String>,
}

impl Filter {
    /// The filter of a query's `status`, `under`, `populator` and `host` fields (empty:
    /// any); an error says which field is wrong and what it may be.
    pub fn of(status: &str, under: &str, populator: &str, host: &str) -> Result<Filter, String> {
        let status = match status {
            "" => None,
            s => Some(Status::parse(s).ok_or_else(|| {
                let all: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
                format!("status {s:?} is not one of {}", all.join(", "))
            })?),
        };
        Ok(Filter {
            status,
            under: under.to_string(),
            populator: Some(populator.to_string()).filter(|p| !p.is_empty()),
            host: Some(host.to_ascii_lowercase()).filter(|h| !h.is_empty()),
        })
    }

    /// The query string that asks for this filter (`status=broken&under=…`), empty
    /// fields left out: the console's links and the digest's.
    pub fn query(&self) -> String {
        let mut q = form_urlencoded::Serializer::new(String::new());
        if let Some(s) = self.status {
            q.append_pair("status", s.as_str());
        }
        if !self.under.is_empty() {
            q.append_pair("under", &self.under);
        }
        if let Some(p) = &self.populator {
            q.append_pair("populator", p);
        }
        if let Some(h) = &self.host {
            q.append_pair("host", h);
        }
        q.finish()
    }
}

/// One target and what the checker last found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The identifier.
    pub id: String,
    /// Its target.
    pub target: String,
    /// Its status now.
    pub state: LinkState,
}

/// The rows a filter shows, and the counts by status of every target it would show
/// with any status.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// Targets by status (every status, zero included), before the status filter.
    pub counts: BTreeMap<Status, usize>,
    /// The rows shown, in key order (identifier, then target), at most the limit.
    pub rows: Vec<Row>,
    /// Rows left out past the limit.
    pub more: usize,
}

/// The host of a target URL (noid-core's, shared with the search index).
pub use noid_core::links::host_of;

/// The populator that created `id` (its `_,ep` admin element, `p:WHO||76`).
pub fn creator(store: &dyn Lookup, id: &str) -> Result<Option<String>, LookupError> {
    let key = noid_core::keys::elem(id, noid_egg::elements::PERMS);
    Ok(store.get(&key)?.and_then(|v| {
        let text = String::from_utf8(v).ok()?;
        let who = text.strip_prefix("p:")?.split('|').next()?.to_string();
        Some(who).filter(|w| !w.is_empty())
    }))
}

/// The report of `filter` over `store`: at most `limit` rows.
pub fn report(store: &dyn Lookup, filter: &Filter, limit: usize) -> Result<Report, LookupError> {
    let mut prefix = links::STATE_PREFIX.to_vec();
    prefix.extend_from_slice(filter.under.as_bytes());
    let mut out = Report {
        counts: Status::ALL.iter().map(|s| (*s, 0)).collect(),
        ..Report::default()
    };
    let mut owners: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (k, v) in store.scan_prefix(&prefix, usize::MAX)? {
        let Some((id, target)) = links::parse_state_key(&k) else {
            continue;
        };
        let Some(state) = LinkState::decode(&v) else {
            continue;
        };
        if filter
            .host
            .as_ref()
            .is_some_and(|h| host_of(target).as_ref() != Some(h))
        {
            continue;
        }
        if let Some(p) = &filter.populator {
            let owner = match owners.get(id) {
                Some(o) => o.clone(),
                None => {
                    let o = creator(store, id)?;
                    owners.insert(id.to_string(), o.clone());
                    o
                }
            };
            if owner.as_ref() != Some(p) {
                continue;
            }
        }
        *out.counts.entry(state.status).or_default() += 1;
        if filter.status.is_some_and(|s| s != state.status) {
            continue;
        }
        if out.rows.len() < limit {
            out.rows.push(Row {
                id: id.to_string(),
                target: target.to_string(),
                state,
            });
        } else {
            out.more += 1;
        }
    }
    Ok(out)
}

/// One target of an identifier: its status now and each change of it, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetHistory {
    /// The target.
    pub target: String,
    /// Its status now.
    pub state: LinkState,
    /// Each change: when (seconds since the epoch) and what.
    pub changes: Vec<(u64, Change)>,
}

/// The targets of `id` the checker has seen, in key order, each with its history.
pub fn of_identifier(store: &dyn Lookup, id: &str) -> Result<Vec<TargetHistory>, LookupError> {
    let mut out = Vec::new();
    for (k, v) in store.scan_prefix(&links::states_of(id), usize::MAX)? {
        let (Some((_, target)), Some(state)) = (links::parse_state_key(&k), LinkState::decode(&v))
        else {
            continue;
        };
        let prefix = links::history_of(id, target);
        let mut changes = Vec::new();
        for (hk, hv) in store.scan_prefix(&prefix, usize::MAX)? {
            let at = std::str::from_utf8(&hk[prefix.len()..])
                .ok()
                .and_then(|t| t.parse::<u64>().ok());
            if let (Some(at), Some(change)) = (at, Change::decode(&hv)) {
                changes.push((at, change));
            }
        }
        out.push(TargetHistory {
            target: target.to_string(),
            state,
            changes,
        });
    }
    Ok(out)
}

/// Seconds since the epoch as RFC 3339 UTC, `2026-11-29T01:30:00Z`.
pub fn time(secs: u64) -> String {
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
    humantime::format_rfc3339_seconds(at).to_string()
}

/// One row's fields, in [`COLUMNS`]' order (an absent value empty).
pub fn fields(r: &Row) -> [String; 9] {
    let s = &r.state;
    [
        r.id.clone(),
        r.target.clone(),
        s.status.as_str().to_string(),
        s.http.map(|h| h.to_string()).unwrap_or_default(),
        time(s.checked),
        time(s.since),
        s.detail.clone(),
        s.location.clone().unwrap_or_default(),
        s.failures.to_string(),
    ]
}

/// The rows as CSV, the header [`COLUMNS`] first (the `csv` crate's quoting).
pub fn csv(rows: &[Row]) -> String {
    let mut w = csv::Writer::from_writer(Vec::new());
    let written = std::iter::once(COLUMNS.map(String::from))
        .chain(rows.iter().map(fields))
        .try_for_each(|record| w.write_record(&record));
    written.expect("CSV into memory");
    let bytes = w.into_inner().expect("CSV into memory");
    String::from_utf8(bytes).expect("CSV of UTF-8 fields")
}

/// The report as JSON: `{"counts": {STATUS: N, …}, "rows": [{COLUMN: …}, …], "more": N}`.
pub fn json(report: &Report) -> String {
    let counts: serde_json::Map<String, serde_json::Value> = report
        .counts
        .iter()
        .map(|(s, n)| (s.as_str().to_string(), (*n).into()))
        .collect();
    let rows: Vec<serde_json::Value> = report.rows.iter().map(row_json).collect();
    let mut s =
        serde_json::json!({ "counts": counts, "rows": rows, "more": report.more }).to_string();
    s.push('\n');
    s
}

/// One row as a JSON object of the [`COLUMNS`], as `noid links report --format json`
/// writes it (`http` and `failures` numbers, `http` and `location` null when absent).
pub fn row_json(r: &Row) -> serde_json::Value {
    let [id, target, status, _, checked, since, detail, _, _] = fields(r);
    serde_json::json!({
        "id": id,
        "target": target,
        "status": status,
        "http": r.state.http,
        "checked": checked,
        "since": since,
        "detail": detail,
        "location": r.state.location,
        "failures": r.state.failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::lookup::MemLookup;

    fn state(status: Status, http: Option<u16>, detail: &str) -> LinkState {
        LinkState {
            status,
            http,
            checked: 1_800_000_000,
            since: 1_799_999_000,
            failures: 0,
            failing_since: None,
            detail: detail.into(),
            location: None,
            fingerprint: None,
            cert_expires: None,
        }
    }

    fn store() -> MemLookup {
        let m = MemLookup::new();
        let put = |id: &str, t: &str, s: LinkState| m.insert(links::state_key(id, t), s.encode());
        put(
            "ark:/1/a",
            "https://A.org/x",
            state(Status::Ok, Some(200), ""),
        );
        put(
            "ark:/1/b",
            "http://b.org:8080/y",
            state(Status::Broken, None, "connection refused, 3 times"),
        );
        put(
            "ark:/2/c",
            "https://a.org/z",
            state(Status::Broken, Some(404), "404"),
        );
        m.bind("ark:/1/b", "_,ep", "p:sam||76");
        m
    }

    #[test]
    fn filters_count_before_the_status_and_render_alike() {
        let m = store();
        let all = report(&m, &Filter::default(), 10).unwrap();
        assert_eq!(all.rows.len(), 3);
        assert_eq!(
            (all.counts[&Status::Ok], all.counts[&Status::Broken]),
            (1, 2)
        );
        let broken = Filter::of("broken", "ark:/1/", "", "").unwrap();
        let r = report(&m, &broken, 10).unwrap();
        assert_eq!(
            r.rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
            ["ark:/1/b"]
        );
        assert_eq!((r.counts[&Status::Ok], r.counts[&Status::Broken]), (1, 1));
        assert_eq!(
            csv(&r.rows),
            "id,target,status,http,checked,since,detail,location,failures\n\
             ark:/1/b,http://b.org:8080/y,broken,,2027-01-15T08:00:00Z,2027-01-15T07:43:20Z,\
             \"connection refused, 3 times\",,0\n"
        );
        let by_host = report(&m, &Filter::of("", "", "", "a.ORG").unwrap(), 1).unwrap();
        assert_eq!((by_host.rows.len(), by_host.more), (1, 1));
        assert_eq!(by_host.rows[0].target, "https://A.org/x");
        let sams = report(&m, &Filter::of("", "", "sam", "").unwrap(), 10).unwrap();
        assert_eq!(sams.rows.len(), 1);
        assert_eq!(
            json(&sams),
            "{\"counts\":{\"blocked\":0,\"broken\":1,\"drifted\":0,\"failing\":0,\"ok\":0,\
             \"parked\":0,\"redirected\":0,\"soft404\":0},\"more\":0,\"rows\":[{\"checked\":\
             \"2027-01-15T08:00:00Z\",\"detail\":\"connection refused, 3 times\",\"failures\":0,\"http\":null,\
             \"id\":\"ark:/1/b\",\"location\":null,\"since\":\"2027-01-15T07:43:20Z\",\"status\":\"broken\",\
             \"target\":\"http://b.org:8080/y\"}]}\n"
        );
        assert_eq!(
            Filter::of("gone", "", "", "").unwrap_err(),
            "status \"gone\" is not one of ok, redirected, failing, broken, blocked, soft404, parked, drifted"
        );
        assert_eq!(broken.query(), "status=broken&under=ark%3A%2F1%2F");
    }

    #[test]
    fn an_identifiers_targets_with_their_history() {
        let m = store();
        let change = Change {
            from: Some(Status::Ok),
            to: Status::Broken,
            http: None,
            detail: "refused".into(),
        };
        m.insert(
            links::history_key("ark:/1/b", "http://b.org:8080/y", 1_799_999_000),
            change.encode(),
        );
        let h = of_identifier(&m, "ark:/1/b").unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(h[0].target, "http://b.org:8080/y");
        assert_eq!(h[0].changes, vec![(1_799_999_000, change)]);
        assert!(of_identifier(&m, "ark:/1/").unwrap().is_empty());
    }

    #[test]
    fn hosts() {
        assert_eq!(
            host_of("https://u:p@Ex.org:81/a?b").as_deref(),
            Some("ex.org")
        );
        assert_eq!(host_of("http://[::1]:8/").as_deref(), Some("::1"));
        assert_eq!(host_of("urn:x"), None);
    }
}
