//! Owners' digests (docs/LINKS.md, "Digests"): for each populator, what newly broke,
//! drifted or was blocked (every status [`Status::is_news`] names) since its last
//! digest (`:/links/d/POPULATOR`, the time its last digest covered), mailed as plain
//! text (SMTP to a relay, or `sendmail`) and/or POSTed as JSON to a webhook; never an
//! attachment. Each links to the populator's "Link health" page, filtered by status.
//!
//! A target is news when its last change in the period is to such a status and it
//! still has it (one that broke and came back is not). Nothing new, nothing sent; the
//! mark moves on only once every destination took the digest, so a relay that is down
//! gets the same news again next time.
//!
//! Sent by the process that holds the binder's lease (the schedule's), so one digest
//! leaves per populator whatever the number of hosts.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::Mailbox;
use lettre::{Message, SendmailTransport, SmtpTransport, Transport};
use noid_binder::api::{Digest, LinksConfig, Mailer};
use noid_binder::link_health::{creator, time, Filter};
use noid_binder::{Who, Work};
use noid_core::links::{self, Change, LinkState, Status};
use noid_core::{Lookup, LookupError};

use crate::awaited::submit;
use crate::service::Service;

/// How long a webhook has to answer.
const WEBHOOK_TIMEOUT: Duration = Duration::from_secs(30);

/// One target's news.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct News {
    /// The identifier.
    pub id: String,
    /// The target.
    pub target: String,
    /// When it changed (seconds since the epoch).
    pub at: u64,
    /// The change.
    pub change: Change,
}

/// A populator's digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Made {
    /// The populator.
    pub populator: String,
    /// The period it covers: after `from`, up to `until` (seconds since the epoch).
    pub from: u64,
    /// The end of the period.
    pub until: u64,
    /// The news, by status, each in key order.
    pub news: BTreeMap<Status, Vec<News>>,
    /// The console's base URL (`https://noid.example.org/console/`).
    pub console: String,
}

impl Made {
    /// The "Link health" page of the populator's targets with `status`.
    pub fn page(&self, status: Status) -> String {
        let filter = Filter {
            status: Some(status),
            ..Filter::default()
        };
        format!(
            "{}/p/{}/links?{}",
            self.console.trim_end_matches('/'),
            self.populator,
            filter.query()
        )
    }

    /// How many targets are news.
    pub fn count(&self) -> usize {
        self.news.values().map(Vec::len).sum()
    }

    /// The mail's subject.
    pub fn subject(&self) -> String {
        let parts: Vec<String> = self
            .news
            .iter()
            .map(|(s, n)| format!("{} {s}", n.len()))
            .collect();
        format!(
            "noid link health for {}: {}",
            self.populator,
            parts.join(", ")
        )
    }

    /// The mail's text.
    pub fn text(&self) -> String {
        let mut s = format!(
            "Targets of populator {} that changed from {} to {}:\n",
            self.populator,
            time(self.from),
            time(self.until)
        );
        for (status, news) in &self.news {
            s.push_str(&format!(
                "\n{status} ({}): {}\n",
                news.len(),
                self.page(*status)
            ));
            for n in news {
                let seen = match (&n.change.detail, n.change.http) {
                    (d, _) if !d.is_empty() => d.clone(),
                    (_, Some(h)) => format!("HTTP {h}"),
                    (_, None) => String::new(),
                };
                s.push_str(&format!("  {} {}: {seen}\n", n.id, n.target));
            }
        }
        s
    }

    /// The webhook's JSON.
    pub fn json(&self) -> String {
        let news: Vec<serde_json::Value> = self
            .news
            .values()
            .flatten()
            .map(|n| {
                serde_json::json!({
                    "id": n.id,
                    "target": n.target,
                    "status": n.change.to.as_str(),
                    "from": n.change.from.map(|s| s.as_str()),
                    "http": n.change.http,
                    "detail": n.change.detail,
                    "at": time(n.at),
                })
            })
            .collect();
        let pages: serde_json::Map<String, serde_json::Value> = self
            .news
            .keys()
            .map(|s| (s.as_str().to_string(), self.page(*s).into()))
            .collect();
        serde_json::json!({
            "populator": self.populator,
            "from": time(self.from),
            "until": time(self.until),
            "news": news,
            "pages": pages,
        })
        .to_string()
    }
}

/// The news of `populator` after `from` up to `until`: the targets whose last change
/// then is to a status that is news and still theirs. `owns` says whether an
/// identifier is the populator's.
pub fn news(
    store: &dyn Lookup,
    from: u64,
    until: u64,
    owns: &dyn Fn(&dyn Lookup, &str) -> Result<bool, LookupError>,
) -> Result<BTreeMap<Status, Vec<News>>, LookupError> {
    let mut last: BTreeMap<(String, String), (u64, Change)> = BTreeMap::new();
    for (k, v) in store.scan_prefix(links::HISTORY_PREFIX, usize::MAX)? {
        let Ok(rest) = std::str::from_utf8(&k[links::HISTORY_PREFIX.len()..]) else {
            continue;
        };
        let mut parts = rest.rsplitn(2, '\t');
        let (Some(at), Some(id_target)) = (parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(at), Some((id, target))) = (at.parse::<u64>(), id_target.split_once('\t')) else {
            continue;
        };
        if at <= from || at > until {
            continue;
        }
        if let Some(change) = Change::decode(&v) {
            last.insert((id.to_string(), target.to_string()), (at, change));
        }
    }
    let mut out: BTreeMap<Status, Vec<News>> = BTreeMap::new();
    for ((id, target), (at, change)) in last {
        if !change.to.is_news() || !owns(store, &id)? {
            continue;
        }
        let now = store
            .get(&links::state_key(&id, &target))?
            .and_then(|v| LinkState::decode(&v));
        if now.map(|s| s.status) != Some(change.to) {
            continue;
        }
        out.entry(change.to).or_default().push(News {
            id,
            target,
            at,
            change,
        });
    }
    Ok(out)
}

/// Where a digest goes, checked at startup.
#[derive(Debug, Clone)]
pub struct Destinations {
    mail: Option<(Mailer, Mailbox, Mailbox)>,
    webhook: Option<String>,
}

/// The digests of one binder's populators.
pub struct Digests {
    service: Arc<Service>,
    dir: PathBuf,
    /// The binder's populators with somewhere to send their digest, and where.
    populators: Vec<(String, Destinations)>,
    /// The populators whose binder this is (an identifier with no recorded creator is
    /// the first one's).
    owners: Vec<String>,
    console: String,
    every: Duration,
}

/// The digest destinations of every populator, their addresses parsed: an error
/// names the populator and the address.
pub fn destinations(
    service: &Service,
    digest: &Digest,
) -> Result<BTreeMap<String, Destinations>, String> {
    let mut out = BTreeMap::new();
    let mailbox = |who: &str, field: &str, a: &str| {
        a.parse::<Mailbox>()
            .map_err(|e| format!("{who}: {field} {a:?} is not a mail address: {e}"))
    };
    for (name, p) in service.site().populators() {
        let mail = match (digest.to_of(&p.populator), digest.mailer(), &digest.from) {
            (Some(to), Some(mailer), Some(from)) => Some((
                mailer,
                mailbox("links.digest", "from", from)?,
                mailbox(&format!("populator {name}"), "digest_to", to)?,
            )),
            _ => None,
        };
        let webhook = digest.webhook_of(&p.populator).map(str::to_string);
        if mail.is_some() || webhook.is_some() {
            out.insert(name.clone(), Destinations { mail, webhook });
        }
    }
    Ok(out)
}

impl Digests {
    /// The digests of binder `dir`'s populators.
    pub fn new(
        service: Arc<Service>,
        dir: PathBuf,
        links: &LinksConfig,
        digest: &Digest,
        all: &BTreeMap<String, Destinations>,
    ) -> Digests {
        let owners: Vec<String> = service
            .site()
            .populators()
            .iter()
            .filter(|(_, p)| p.populator.binder.as_deref() == Some(dir.as_path()))
            .map(|(n, _)| n.clone())
            .collect();
        let populators = owners
            .iter()
            .filter_map(|n| all.get(n).map(|d| (n.clone(), d.clone())))
            .collect();
        Digests {
            service,
            dir,
            populators,
            owners,
            console: links.console_url.clone().unwrap_or_default(),
            every: digest.every,
        }
    }

    /// Send each populator's digest when it is due, for as long as the task runs
    /// (aborted when the lease is lost).
    pub async fn run(self: Arc<Self>) {
        if self.populators.is_empty() {
            return;
        }
        loop {
            let mut wait = self.every;
            for (name, dest) in &self.populators {
                match self.due(name, dest).await {
                    Ok(left) => wait = wait.min(left),
                    Err(e) => log::warn!("links: digest of populator {name}: {e}"),
                }
            }
            tokio::time::sleep(wait.max(Duration::from_millis(100))).await;
        }
    }

    /// Send populator `name`'s digest if it is due: how long until the next is.
    async fn due(&self, name: &str, dest: &Destinations) -> Result<Duration, String> {
        let key = links::digest_key(name);
        let mark = self
            .service
            .view(&self.dir, move |store| store.get(&key))
            .await?
            .map_err(|e| e.to_string())?
            .and_then(|v| String::from_utf8(v).ok()?.trim().parse::<u64>().ok())
            .unwrap_or(0);
        // Whole seconds only: a change later in this second is the next digest's.
        let now = noid_archive::now() - 1;
        let every = self.every.as_secs().max(1);
        if mark + every > now {
            return Ok(Duration::from_secs(mark + every - now));
        }
        let (populator, first) = (name.to_string(), self.owners.first().cloned());
        let owners = self.owners.clone();
        let found = self
            .service
            .view(&self.dir, move |store| {
                let owns = |s: &dyn Lookup, id: &str| -> Result<bool, LookupError> {
                    Ok(match creator(s, id)? {
                        Some(c) if owners.contains(&c) => c == populator,
                        _ => first.as_deref() == Some(populator.as_str()),
                    })
                };
                news(store, mark, now, &owns)
            })
            .await?
            .map_err(|e| e.to_string())?;
        let made = Made {
            populator: name.to_string(),
            from: mark,
            until: now,
            news: found,
            console: self.console.clone(),
        };
        if made.count() > 0 {
            send(&made, dest.clone()).await?;
            log::info!(
                "links: digest of populator {name} sent ({} targets)",
                made.count()
            );
        }
        let store = super::setup::binder_writer(&self.service, &self.dir);
        let writes = vec![(links::digest_key(name), Some(now.to_string().into_bytes()))];
        let who = Who {
            populator: name.to_string(),
            login: "noid-links".into(),
            client: "-".into(),
            acting_for: None,
        };
        let answer = submit(&store, Work::Links(writes), who, false).await;
        if answer.failed {
            return Err(String::from_utf8_lossy(&answer.body).trim().to_string());
        }
        Ok(self.every)
    }
}

/// Send `made` to every destination (on a blocking thread: lettre's and ureq's
/// transports block).
async fn send(made: &Made, dest: Destinations) -> Result<(), String> {
    let made = made.clone();
    tokio::task::spawn_blocking(move || {
        if let Some((mailer, from, to)) = &dest.mail {
            mail(&made, mailer, from.clone(), to.clone())?;
        }
        if let Some(url) = &dest.webhook {
            post(&made, url)?;
        }
        Ok(())
    })
    .await
    .map_err(|e| e.to_string())?
}

/// Mail `made` as plain text.
fn mail(made: &Made, mailer: &Mailer, from: Mailbox, to: Mailbox) -> Result<(), String> {
    let message = Message::builder()
        .from(from)
        .to(to)
        .subject(made.subject())
        .header(ContentType::TEXT_PLAIN)
        .body(made.text())
        .map_err(|e| format!("the digest's mail: {e}"))?;
    match mailer {
        Mailer::Smtp(relay) => {
            let (host, port) = relay.rsplit_once(':').unwrap_or((relay, "25"));
            let port = port.parse().unwrap_or(25);
            SmtpTransport::builder_dangerous(host)
                .port(port)
                .build()
                .send(&message)
                .map(drop)
                .map_err(|e| format!("SMTP relay {relay}: {e}"))
        }
        Mailer::Sendmail(path) => SendmailTransport::new_with_command(path)
            .send(&message)
            .map_err(|e| format!("sendmail {}: {e}", path.display())),
    }
}

/// POST `made` as JSON to `url`; any status but 2xx is a failure.
fn post(made: &Made, url: &str) -> Result<(), String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(WEBHOOK_TIMEOUT))
        .http_status_as_error(false)
        .user_agent(concat!("noid-links/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let answer = agent
        .post(url)
        .content_type("application/json")
        .send(made.json().as_bytes())
        .map_err(|e| format!("webhook {url}: {e}"))?;
    let status = answer.status();
    if status.is_success() {
        Ok(())
    } else {
        Err(format!("webhook {url}: answered {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::MemLookup;

    fn state(status: Status) -> LinkState {
        LinkState {
            status,
            http: Some(404),
            checked: 150,
            since: 150,
            failures: 1,
            failing_since: None,
            detail: "404".into(),
            location: None,
            fingerprint: None,
            cert_expires: None,
        }
    }

    fn changed(m: &MemLookup, id: &str, at: u64, from: Option<Status>, to: Status) {
        let t = format!("https://e.org/{id}");
        let change = Change {
            from,
            to,
            http: Some(404),
            detail: "404".into(),
        };
        m.insert(links::history_key(id, &t, at), change.encode());
        m.insert(links::state_key(id, &t), state(to).encode());
    }

    /// News is the last change in the period, to a status that is news and still the
    /// target's, of the populator's identifiers only.
    #[test]
    fn news_is_what_changed_in_the_period_and_still_holds() {
        let m = MemLookup::new();
        changed(&m, "a", 150, Some(Status::Ok), Status::Broken);
        changed(&m, "old", 90, Some(Status::Ok), Status::Broken);
        changed(&m, "theirs", 150, Some(Status::Ok), Status::Drifted);
        // Broke, then came back within the period: no news.
        changed(&m, "back", 120, Some(Status::Ok), Status::Broken);
        changed(&m, "back", 140, Some(Status::Broken), Status::Ok);
        // Broke in the period, but its state says otherwise now.
        changed(&m, "stale", 130, None, Status::Blocked);
        m.insert(
            links::state_key("stale", "https://e.org/stale"),
            state(Status::Ok).encode(),
        );
        let owns = |_: &dyn Lookup, id: &str| Ok(id != "theirs");
        let found = news(&m, 100, 200, &owns).unwrap();
        let ids: Vec<(Status, Vec<&str>)> = found
            .iter()
            .map(|(s, n)| (*s, n.iter().map(|n| n.id.as_str()).collect()))
            .collect();
        assert_eq!(ids, [(Status::Broken, vec!["a"])]);
        let made = Made {
            populator: "sam".into(),
            from: 100,
            until: 200,
            news: found,
            console: "https://n.example.org/console/".into(),
        };
        assert_eq!(made.subject(), "noid link health for sam: 1 broken");
        assert_eq!(
            made.text(),
            "Targets of populator sam that changed from 1970-01-01T00:01:40Z to \
             1970-01-01T00:03:20Z:\n\nbroken (1): \
             https://n.example.org/console/p/sam/links?status=broken\n  a https://e.org/a: 404\n"
        );
    }
}
