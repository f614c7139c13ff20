//! What the link checker keeps of each target, and where: one plain record per
//! (identifier, target) and one per change of its status, under admin keys (`:/links/…`)
//! so that an identifier's own elements, `fetch` and resolution are unchanged by a check.
//!
//! The checker (noid-links) writes these; the console, the API, the reports and the
//! resolver's archived-copy fallback read them. Both storage engines keep them as they
//! keep every key, so a site on PostgreSQL shares them between its hosts.
//!
//! Keys (identifiers and targets never hold a tab: the identifier gate refuses one):
//!
//! * `:/links/s/ID<TAB>TARGET` → [`LinkState`], the target's status now;
//! * `:/links/h/ID<TAB>TARGET<TAB>SECONDS` → [`Change`], one per change of status, the
//!   time as 20 decimal digits so that a target's history scans in time order;
//! * `:/links/a/ID` → [`Archived`], the archived copy the resolver may fall back on;
//! * `:/links/m/ID` → a curator's mark: treat `ID`'s target as broken (the time marked);
//! * `:/links/f/PREFIX` → `on`: copies are fetched for broken targets of identifiers
//!   under PREFIX (empty: the whole minter);
//! * `:/links/b/PREFIX` → `on`: a target bound to an identifier under PREFIX is queued
//!   for an archive to save ([`SaveRequest`]; empty: the whole minter);
//! * `:/links/v/ID<TAB>TARGET` → a request to an archive to save `TARGET` (noid-archive's
//!   save-on-bind queue: attempts, when to try next, the outcome);
//! * `:/links/d/POPULATOR` → the time (seconds) its last digest covered;
//! * `:/links/cursor` → where a scheduled round stopped (an identifier), to resume.
//!
//! Values are ANVL lines ([`crate::anvl`]): readable in a dump, and a field added later
//! is skipped by an older reader.

use crate::anvl;
use crate::lookup::{Lookup, LookupError};

/// What every link-health key starts with.
pub const PREFIX: &[u8] = b":/links/";
/// What every state key starts with.
pub const STATE_PREFIX: &[u8] = b":/links/s/";
/// What every history key starts with.
pub const HISTORY_PREFIX: &[u8] = b":/links/h/";
/// What every archived-copy key starts with.
pub const ARCHIVED_PREFIX: &[u8] = b":/links/a/";
/// What every digest key starts with.
pub const DIGEST_PREFIX: &[u8] = b":/links/d/";
/// What every curator's mark starts with.
pub const MARK_PREFIX: &[u8] = b":/links/m/";
/// What every archived-copy policy key starts with.
pub const POLICY_PREFIX: &[u8] = b":/links/f/";
/// What every queued save request starts with.
pub const SAVE_PREFIX: &[u8] = b":/links/v/";
/// What every save-on-bind policy key starts with.
pub const SAVE_ON_BIND_PREFIX: &[u8] = b":/links/b/";
/// The scheduled round's resume point.
pub const CURSOR: &[u8] = b":/links/cursor";

fn key(prefix: &[u8], parts: &[&[u8]]) -> Vec<u8> {
    let mut k = prefix.to_vec();
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            k.push(b'\t');
        }
        k.extend_from_slice(p);
    }
    k
}

/// The key of the status of `target`, a target of `id`.
pub fn state_key(id: &str, target: &str) -> Vec<u8> {
    key(STATE_PREFIX, &[id.as_bytes(), target.as_bytes()])
}

/// The prefix of the states of every target of `id`.
pub fn states_of(id: &str) -> Vec<u8> {
    key(STATE_PREFIX, &[id.as_bytes(), b""])
}

/// The key of the change of `target`'s status at `at` (seconds since the epoch).
pub fn history_key(id: &str, target: &str, at: u64) -> Vec<u8> {
    let when = format!("{at:020}");
    key(
        HISTORY_PREFIX,
        &[id.as_bytes(), target.as_bytes(), when.as_bytes()],
    )
}

/// The prefix of every change of `target`'s status, oldest first.
pub fn history_of(id: &str, target: &str) -> Vec<u8> {
    key(HISTORY_PREFIX, &[id.as_bytes(), target.as_bytes(), b""])
}

/// The key of `id`'s archived copy.
pub fn archived_key(id: &str) -> Vec<u8> {
    key(ARCHIVED_PREFIX, &[id.as_bytes()])
}

/// The key of a curator's mark on `id`: its target is treated as broken.
pub fn mark_key(id: &str) -> Vec<u8> {
    key(MARK_PREFIX, &[id.as_bytes()])
}

/// The key of the policy that fetches archived copies for identifiers under `prefix`.
pub fn policy_key(prefix: &str) -> Vec<u8> {
    key(POLICY_PREFIX, &[prefix.as_bytes()])
}

/// The key of the policy that asks an archive to save the targets bound to the
/// identifiers under `prefix` (`""`: every identifier).
pub fn save_on_bind_key(prefix: &str) -> Vec<u8> {
    key(SAVE_ON_BIND_PREFIX, &[prefix.as_bytes()])
}

/// The key of the request to save `target`, a target of `id`, in an archive.
pub fn save_key(id: &str, target: &str) -> Vec<u8> {
    key(SAVE_PREFIX, &[id.as_bytes(), target.as_bytes()])
}

/// The key of `populator`'s last digest.
pub fn digest_key(populator: &str) -> Vec<u8> {
    key(DIGEST_PREFIX, &[populator.as_bytes()])
}

/// The identifier and target a state key names (`None` for another key).
pub fn parse_state_key(k: &[u8]) -> Option<(&str, &str)> {
    let rest = std::str::from_utf8(k.strip_prefix(STATE_PREFIX)?).ok()?;
    rest.split_once('\t')
}

/// Whether `id` is under `prefix`, a prefix of an archived-copy policy (the minter's,
/// or the resolver's rules file): it begins `id`, and an ARK prefix's also begins an
/// ARK stored without `ark:/`, as minters store them. `""` covers every identifier.
pub fn covers(prefix: &str, id: &str) -> bool {
    id.starts_with(prefix)
        || (!id.starts_with("ark:")
            && prefix
                .strip_prefix("ark:/")
                .is_some_and(|bare| id.starts_with(bare)))
}

/// Whether `target`, a target of `id`, is to be treated as gone: a curator marked it
/// (`:/links/m/ID`), or the checker found it broken. Where an archived copy may stand
/// in for it (the resolver's fallback, the copies fetched) this is the one test.
pub fn is_gone<L: Lookup + ?Sized>(l: &L, id: &str, target: &str) -> Result<bool, LookupError> {
    if l.get(&mark_key(id))?.is_some() {
        return Ok(true);
    }
    let state = l.get(&state_key(id, target))?;
    Ok(state
        .and_then(|s| LinkState::decode(&s))
        .is_some_and(|s| s.status == Status::Broken))
}

/// Where a request to save a target stands (noid-archive's save queue).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SaveState {
    /// Waiting for its next try.
    Queued,
    /// The archive saved it.
    Saved,
    /// Given up after the archive client's last try.
    Failed,
}

impl SaveState {
    /// Its spelling in the record.
    pub fn as_str(self) -> &'static str {
        match self {
            SaveState::Queued => "queued",
            SaveState::Saved => "saved",
            SaveState::Failed => "failed",
        }
    }

    fn parse(s: &str) -> Option<SaveState> {
        [SaveState::Queued, SaveState::Saved, SaveState::Failed]
            .into_iter()
            .find(|st| st.as_str() == s)
    }
}

/// A request to an archive to save a target (`:/links/v/ID<TAB>TARGET`), as recorded:
/// written by every binding path when the save-on-bind policy covers the identifier
/// (noid-minter), and by noid-archive's queue, which tries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveRequest {
    /// Where it stands.
    pub state: SaveState,
    /// When it was queued (seconds since the epoch).
    pub queued: u64,
    /// Tries made.
    pub attempts: u32,
    /// When it is next due (for [`SaveState::Queued`]).
    pub next: u64,
    /// The last try's outcome: where the copy is, or why it failed.
    pub detail: String,
}

impl SaveRequest {
    /// A request queued at `now`, due at once.
    pub fn queued_at(now: u64) -> SaveRequest {
        SaveRequest {
            state: SaveState::Queued,
            queued: now,
            attempts: 0,
            next: now,
            detail: String::new(),
        }
    }

    /// The record as stored.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, value) in [
            ("state", self.state.as_str().to_string()),
            ("queued", self.queued.to_string()),
            ("attempts", self.attempts.to_string()),
            ("next", self.next.to_string()),
            ("detail", self.detail.clone()),
        ] {
            anvl::element(&mut out, name.as_bytes(), value.as_bytes());
        }
        out
    }

    /// The record stored as `bytes`.
    pub fn decode(bytes: &[u8]) -> Option<SaveRequest> {
        let text = std::str::from_utf8(bytes).ok()?;
        let get = |name: &str| {
            text.lines()
                .filter_map(|l| l.split_once(": "))
                .find(|(n, _)| *n == name)
                .map(|(_, v)| anvl::decode_value(v).into_owned())
        };
        Some(SaveRequest {
            state: SaveState::parse(&get("state")?)?,
            queued: get("queued")?.parse().ok()?,
            attempts: get("attempts")?.parse().ok()?,
            next: get("next")?.parse().ok()?,
            detail: get("detail").unwrap_or_default(),
        })
    }
}

/// The host of a target URL, lower-cased (`None`: not a URL with one): what the link
/// reports and the search index group targets by.
pub fn host_of(target: &str) -> Option<String> {
    let rest = target.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => host.split(':').next()?,
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

/// A target's status, spelled as the reports and the console spell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Status {
    /// It answers as it did.
    Ok,
    /// A permanent redirect to another URL: the target should be updated.
    Redirected,
    /// It failed, but not yet often enough, or for long enough, to be called broken.
    Failing,
    /// It failed K times in a row over at least D.
    Broken,
    /// A bot wall or challenge (401, 403, 429): not known to be broken.
    Blocked,
    /// It answers 200 with the host's not-found page.
    Soft404,
    /// It now leads to a parked domain.
    Parked,
    /// It answers, but with other content than at the last good check.
    Drifted,
}

impl Status {
    /// Every status, in the order reports list them.
    pub const ALL: [Status; 8] = [
        Status::Ok,
        Status::Redirected,
        Status::Failing,
        Status::Broken,
        Status::Blocked,
        Status::Soft404,
        Status::Parked,
        Status::Drifted,
    ];

    /// Its spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Redirected => "redirected",
            Status::Failing => "failing",
            Status::Broken => "broken",
            Status::Blocked => "blocked",
            Status::Soft404 => "soft404",
            Status::Parked => "parked",
            Status::Drifted => "drifted",
        }
    }

    /// The status spelled `s`.
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }

    /// Whether an owner is told when a target newly has it (a digest's news).
    pub fn is_news(self) -> bool {
        matches!(
            self,
            Status::Broken | Status::Drifted | Status::Blocked | Status::Parked | Status::Soft404
        )
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a page looked like at a good check, to tell when it changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// The page's title, as read.
    pub title: String,
    /// A similarity hash of the page's text: near pages, few differing bits.
    pub simhash: u64,
}

/// A target's status now, and what the checker needs to decide the next one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkState {
    /// The status.
    pub status: Status,
    /// The HTTP status of the last answer (`None`: no answer, see `detail`).
    pub http: Option<u16>,
    /// When it was last checked (seconds since the epoch).
    pub checked: u64,
    /// When it took this status.
    pub since: u64,
    /// Failures in a row up to now.
    pub failures: u32,
    /// When the first of those failures was seen.
    pub failing_since: Option<u64>,
    /// What was seen, in a few words (`connection refused`, `404`, `→ https://…`).
    pub detail: String,
    /// Where the redirects ended, when they led elsewhere.
    pub location: Option<String>,
    /// The page at the last good check.
    pub fingerprint: Option<Fingerprint>,
    /// When the TLS certificate expires, for an HTTPS target.
    pub cert_expires: Option<u64>,
}

impl LinkState {
    /// The record as stored.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        field(&mut out, "status", self.status.as_str());
        if let Some(h) = self.http {
            field(&mut out, "http", &h.to_string());
        }
        field(&mut out, "checked", &self.checked.to_string());
        field(&mut out, "since", &self.since.to_string());
        field(&mut out, "failures", &self.failures.to_string());
        if let Some(t) = self.failing_since {
            field(&mut out, "failing-since", &t.to_string());
        }
        field(&mut out, "detail", &self.detail);
        if let Some(l) = &self.location {
            field(&mut out, "location", l);
        }
        if let Some(fp) = &self.fingerprint {
            field(&mut out, "title", &fp.title);
            field(&mut out, "simhash", &format!("{:016x}", fp.simhash));
        }
        if let Some(t) = self.cert_expires {
            field(&mut out, "cert-expires", &t.to_string());
        }
        out
    }

    /// The record stored as `bytes` (`None` when it is not one).
    pub fn decode(bytes: &[u8]) -> Option<LinkState> {
        let fields = fields(bytes)?;
        let get = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        let num = |name: &str| get(name).and_then(|v| v.parse::<u64>().ok());
        let fingerprint = match (get("title"), get("simhash")) {
            (Some(title), Some(h)) => Some(Fingerprint {
                title: title.clone(),
                simhash: u64::from_str_radix(h, 16).ok()?,
            }),
            _ => None,
        };
        Some(LinkState {
            status: Status::parse(get("status")?)?,
            http: get("http").and_then(|v| v.parse().ok()),
            checked: num("checked")?,
            since: num("since")?,
            failures: get("failures").and_then(|v| v.parse().ok()).unwrap_or(0),
            failing_since: num("failing-since"),
            detail: get("detail").cloned().unwrap_or_default(),
            location: get("location").cloned(),
            fingerprint,
            cert_expires: num("cert-expires"),
        })
    }
}

/// One change of a target's status: when, to what, and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The status it changed from (`None`: its first check).
    pub from: Option<Status>,
    /// The status it changed to.
    pub to: Status,
    /// The HTTP status seen.
    pub http: Option<u16>,
    /// What was seen.
    pub detail: String,
}

impl Change {
    /// The record as stored.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        if let Some(from) = self.from {
            field(&mut out, "from", from.as_str());
        }
        field(&mut out, "to", self.to.as_str());
        if let Some(h) = self.http {
            field(&mut out, "http", &h.to_string());
        }
        field(&mut out, "detail", &self.detail);
        out
    }

    /// The record stored as `bytes`.
    pub fn decode(bytes: &[u8]) -> Option<Change> {
        let fields = fields(bytes)?;
        let get = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        Some(Change {
            from: match get("from") {
                Some(f) => Some(Status::parse(f)?),
                None => None,
            },
            to: Status::parse(get("to")?)?,
            http: get("http").and_then(|v| v.parse().ok()),
            detail: get("detail").cloned().unwrap_or_default(),
        })
    }
}

/// An archived copy of an identifier's target (a Memento, RFC 7089).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Archived {
    /// The copy's URL.
    pub url: String,
    /// When the archive made it (`Memento-Datetime`, as the archive wrote it).
    pub datetime: String,
    /// The target it is a copy of.
    pub original: String,
    /// When it was found (seconds since the epoch).
    pub found: u64,
}

impl Archived {
    /// The record as stored.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        field(&mut out, "url", &self.url);
        field(&mut out, "datetime", &self.datetime);
        field(&mut out, "original", &self.original);
        field(&mut out, "found", &self.found.to_string());
        out
    }

    /// The record stored as `bytes`.
    pub fn decode(bytes: &[u8]) -> Option<Archived> {
        let fields = fields(bytes)?;
        let get = |name: &str| fields.iter().find(|(n, _)| n == name).map(|(_, v)| v);
        Some(Archived {
            url: get("url")?.clone(),
            datetime: get("datetime")?.clone(),
            original: get("original")?.clone(),
            found: get("found")?.parse().ok()?,
        })
    }
}

fn field(out: &mut Vec<u8>, name: &str, value: &str) {
    anvl::element(out, name.as_bytes(), value.as_bytes());
}

/// The `NAME: VALUE` lines of a record, decoded (`None`: not text).
fn fields(bytes: &[u8]) -> Option<Vec<(String, String)>> {
    let text = std::str::from_utf8(bytes).ok()?;
    Some(
        text.lines()
            .filter_map(|line| line.split_once(": "))
            .map(|(n, v)| (n.to_string(), anvl::decode_value(v).into_owned()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_spelled_as_documented() {
        assert_eq!(
            state_key("ark:/1/x", "https://e.org/"),
            b":/links/s/ark:/1/x\thttps://e.org/"
        );
        assert_eq!(
            history_key("ark:/1/x", "https://e.org/", 1_700_000_000),
            b":/links/h/ark:/1/x\thttps://e.org/\t00000000001700000000"
        );
        assert_eq!(archived_key("ark:/1/x"), b":/links/a/ark:/1/x");
        assert_eq!(digest_key("sam"), b":/links/d/sam");
        assert_eq!(mark_key("ark:/1/x"), b":/links/m/ark:/1/x");
        assert_eq!(policy_key("ark:/1/fk4"), b":/links/f/ark:/1/fk4");
        assert_eq!(
            save_key("ark:/1/x", "https://e.org/"),
            b":/links/v/ark:/1/x\thttps://e.org/"
        );
        assert_eq!(
            parse_state_key(b":/links/s/ark:/1/x\thttps://e.org/a\tb"),
            Some(("ark:/1/x", "https://e.org/a\tb"))
        );
        assert!(states_of("ark:/1/x").starts_with(STATE_PREFIX));
        assert!(history_of("a", "t").ends_with(b"a\tt\t"));
    }

    #[test]
    fn a_policy_prefix_covers_an_ark_in_both_spellings() {
        assert!(covers("", "ark:/1/x"));
        assert!(covers("ark:/12345/fk4", "ark:/12345/fk4x"));
        assert!(covers("ark:/12345/fk4", "12345/fk4x"));
        assert!(!covers("ark:/12345/fk4", "ark:/12345/x"));
        assert!(!covers("ark:/12345", "ark:12345/x"));
    }

    #[test]
    fn a_state_with_every_field_reads_back_as_written() {
        let state = LinkState {
            status: Status::Drifted,
            http: Some(200),
            checked: 1_800_000_000,
            since: 1_799_000_000,
            failures: 0,
            failing_since: Some(5),
            detail: "title: \"Home\" → \"Parked\"\nline two 100%".into(),
            location: Some("https://e.org/b".into()),
            fingerprint: Some(Fingerprint {
                title: "Home: page".into(),
                simhash: 0xdead_beef_0000_0001,
            }),
            cert_expires: Some(1_800_100_000),
        };
        let bytes = state.encode();
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            "status: drifted\nhttp: 200\nchecked: 1800000000\nsince: 1799000000\n\
             failures: 0\nfailing-since: 5\n\
             detail: title: \"Home\" → \"Parked\"%0aline two 100%25\n\
             location: https://e.org/b\ntitle: Home: page\nsimhash: deadbeef00000001\n\
             cert-expires: 1800100000\n"
        );
        assert_eq!(LinkState::decode(&bytes), Some(state));
        let bare = LinkState::decode(b"status: broken\nchecked: 3\nsince: 2\n").unwrap();
        assert_eq!(
            (bare.status, bare.http, bare.failures),
            (Status::Broken, None, 0)
        );
        assert_eq!(
            LinkState::decode(b"status: fine\nchecked: 3\nsince: 2\n"),
            None
        );
    }

    #[test]
    fn changes_and_archived_copies_read_back_as_written() {
        let change = Change {
            from: Some(Status::Failing),
            to: Status::Broken,
            http: None,
            detail: "connection refused".into(),
        };
        assert_eq!(Change::decode(&change.encode()), Some(change));
        let first = Change {
            from: None,
            to: Status::Ok,
            http: Some(200),
            detail: String::new(),
        };
        assert_eq!(Change::decode(&first.encode()), Some(first));
        let copy = Archived {
            url: "http://web.archive.org/web/20200101000000/https://e.org/".into(),
            datetime: "Wed, 01 Jan 2020 00:00:00 GMT".into(),
            original: "https://e.org/".into(),
            found: 42,
        };
        assert_eq!(Archived::decode(&copy.encode()), Some(copy));
    }

    #[test]
    fn statuses_are_spelled_as_the_reports_spell_them() {
        let spelled: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            spelled,
            [
                "ok",
                "redirected",
                "failing",
                "broken",
                "blocked",
                "soft404",
                "parked",
                "drifted"
            ]
        );
        assert!(Status::ALL
            .iter()
            .all(|s| Status::parse(s.as_str()) == Some(*s)));
    }
}
