//! One binder's schedule: rounds that walk its identifiers in key order and check
//! every target once per `[links] interval`, the checks spread evenly over it.
//!
//! * **One checker per site.** A round runs only while this process holds the
//!   directory's lease (noid-store's `open::lease`: a file lock for RocksDB, an
//!   advisory lock in the shared database for PostgreSQL, whatever the number of hosts
//!   running `noid serve`); another process waits for it, trying every [`LEASE_RETRY`].
//! * **Spread evenly.** A round first counts the targets (N); the k-th target's check
//!   starts at `start + k × interval / N`, at most `concurrency` identifiers checked at
//!   once (per-host limits are the checker's).
//! * **Resumes.** Each identifier's outcomes are written with `:/links/cursor` set to
//!   it, in one change through the directory's writer thread, in key order whatever
//!   order the checks end in; a restarted server resumes after the cursor. A round
//!   that reaches the end deletes the cursor, and the next starts one interval after
//!   it began.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{FuturesOrdered, StreamExt};
use noid_binder::api::LinksConfig;
use noid_binder::{Who, Work};
use noid_core::links::{self, LinkState, Status, CURSOR};
use noid_core::Lookup;
use noid_egg::{Command, Reply};
use tokio::time::Instant;

use super::digest::Digests;
use crate::awaited::submit;
use crate::service::Service;
use noid_core::Writes;
use noid_links::{Checker, Policy, Target};
use noid_store::open::Lease;

/// How often a process without the lease tries to take it.
pub const LEASE_RETRY: Duration = Duration::from_secs(10);
/// Identifiers read from the store at a time.
const PAGE: usize = 256;

/// One binder's schedule.
pub struct Schedule {
    service: Arc<Service>,
    dir: PathBuf,
    /// The binder's name in the gauges (its first populator's).
    label: String,
    links: LinksConfig,
    /// Its populators' digests, sent while the lease is held.
    digests: Option<Arc<Digests>>,
}

/// An identifier's targets, each with its recorded state.
type Targets = Vec<(String, Option<LinkState>)>;

/// An identifier read for a round: its targets, and whether an archived copy is to be
/// looked up for a broken one (noid-archive's `copies::wanted` covers it, and none is
/// kept yet).
struct Listed {
    id: String,
    archive: bool,
    targets: Targets,
}

impl Schedule {
    /// The schedule of binder `dir`.
    pub fn new(
        service: Arc<Service>,
        dir: PathBuf,
        label: String,
        links: LinksConfig,
        digests: Option<Arc<Digests>>,
    ) -> Schedule {
        Schedule {
            service,
            dir,
            label,
            links,
            digests,
        }
    }

    /// Run rounds for as long as the server runs, while holding the lease.
    pub async fn run(self) {
        loop {
            let dir = self.dir.clone();
            let lease = tokio::task::spawn_blocking(move || noid_store::open::lease(&dir)).await;
            match lease {
                Ok(Ok(Some(lease))) => {
                    log::info!("links: checking the targets of binder {}", self.label);
                    let digests = self.digests.clone().map(|d| tokio::spawn(d.run()));
                    self.rounds(lease).await;
                    if let Some(d) = digests {
                        d.abort();
                    }
                    log::warn!("links: binder {}: the lease was lost", self.label);
                }
                Ok(Ok(None)) => log::debug!(
                    "links: binder {}: another process checks its targets",
                    self.label
                ),
                Ok(Err(e)) => log::warn!("links: binder {}: no lease: {e}", self.label),
                Err(e) => log::warn!("links: binder {}: {e}", self.label),
            }
            tokio::time::sleep(LEASE_RETRY).await;
        }
    }

    /// Rounds, until the lease is lost.
    async fn rounds(&self, lease: Lease) {
        let mut lease = Held(Some(lease));
        loop {
            let began = Instant::now();
            match self.round(&mut lease, began).await {
                Ok(true) => {}
                Ok(false) => return lease.release().await,
                Err(e) => {
                    log::warn!("links: binder {}: {e}", self.label);
                    tokio::time::sleep(LEASE_RETRY).await;
                    continue;
                }
            }
            tokio::time::sleep_until(began + self.links.interval).await;
        }
    }

    /// One round from the cursor to the end; `Ok(false)` when the lease was lost.
    async fn round(&self, lease: &mut Held, began: Instant) -> Result<bool, String> {
        let cursor = self.read(|store| store.get(CURSOR)).await?;
        let mut after = cursor.map(|c| String::from_utf8_lossy(&c).into_owned());
        let total = self.count().await?;
        let pace = self.links.interval / total.max(1) as u32;
        // A checker per round: it keeps what it learns of each host (its pacing, its
        // not-found page) for as long as it lives.
        let (checker, policy) = super::setup::checker(&self.links)?;
        let checker = Arc::new(checker);
        let archive = Arc::new(super::setup::archive_config(&self.links)?);
        let mut next = began;
        let mut inflight = FuturesOrdered::new();
        loop {
            let page = self.page(after.clone()).await?;
            let Some(last) = page.last() else {
                break;
            };
            after = Some(last.id.clone());
            for Listed {
                id,
                archive: wanted,
                targets,
            } in page
            {
                if targets.is_empty() {
                    continue;
                }
                // Wait for this identifier's turn and a free place, recording the
                // checks that end meanwhile.
                loop {
                    let free = inflight.len() < self.links.concurrency;
                    if free && Instant::now() >= next {
                        break;
                    }
                    tokio::select! {
                        Some(done) = inflight.next(), if !inflight.is_empty() => {
                            self.record(done).await?
                        }
                        _ = tokio::time::sleep_until(next), if free => {}
                    }
                }
                next += pace * targets.len() as u32;
                let archive = wanted.then(|| archive.clone());
                inflight.push_back(check(checker.clone(), policy, archive, id, targets));
            }
            if !lease.held().await {
                return Ok(false);
            }
        }
        while let Some(done) = inflight.next().await {
            self.record(done).await?;
        }
        self.write(vec![(CURSOR.to_vec(), None)]).await?;
        Ok(true)
    }

    /// Write an identifier's outcomes and move the cursor to it, as one change; count
    /// them in the gauges.
    async fn record(
        &self,
        (id, done): (String, Vec<(String, Option<LinkState>, Writes)>),
    ) -> Result<(), String> {
        let mut writes: Writes = Vec::new();
        for (target, previous, w) in done {
            let key = links::state_key(&id, &target);
            if let Some(new) = w
                .iter()
                .find(|(k, _)| *k == key)
                .and_then(|(_, v)| v.as_deref())
                .and_then(LinkState::decode)
            {
                self.service
                    .link_gauges
                    .checked(&self.label, &target, previous.as_ref(), &new);
            }
            writes.extend(w);
        }
        writes.push((CURSOR.to_vec(), Some(id.into_bytes())));
        self.write(writes).await
    }

    async fn write(&self, writes: Writes) -> Result<(), String> {
        let store = super::setup::binder_writer(&self.service, &self.dir);
        let answer = submit(&store, Work::Links(writes), self.who(), false).await;
        if answer.failed {
            return Err(String::from_utf8_lossy(&answer.body).trim().to_string());
        }
        Ok(())
    }

    /// Who the schedule's writes are from.
    fn who(&self) -> Who {
        Who {
            populator: self.label.clone(),
            login: "noid-links".into(),
            client: "-".into(),
            acting_for: None,
        }
    }

    /// `f` on the binder's read-only view.
    async fn read<T: Send + 'static>(
        &self,
        f: impl Fn(&dyn Lookup) -> Result<T, noid_core::LookupError> + Send + 'static,
    ) -> Result<T, String> {
        self.service
            .view(&self.dir, f)
            .await?
            .map_err(|e| e.to_string())
    }

    /// Up to [`PAGE`] identifiers after `after`, in key order, with their targets and
    /// their targets' recorded states.
    async fn page(&self, after: Option<String>) -> Result<Vec<Listed>, String> {
        let (admission, who) = (self.service.site().admitted(&self.dir), self.who());
        self.service
            .view(&self.dir, move |store| {
                let ids = list(store, &admission, &who, after.clone())?;
                let mut out = Vec::with_capacity(ids.len());
                for id in ids {
                    let mut targets = Vec::new();
                    let of_id = noid_links::targets::targets_of_id(store, &id);
                    for t in of_id.map_err(|e| e.to_string())? {
                        let t = t.url;
                        let state = store
                            .get(&links::state_key(&id, &t))
                            .map_err(|e| e.to_string())?
                            .and_then(|v| LinkState::decode(&v));
                        targets.push((t, state));
                    }
                    // A copy is looked up for a broken target until one is kept.
                    let archive = !targets.is_empty()
                        && noid_archive::copies::wanted(store, &id).map_err(|e| e.to_string())?
                        && store
                            .get(&links::archived_key(&id))
                            .map_err(|e| e.to_string())?
                            .is_none();
                    out.push(Listed {
                        id,
                        archive,
                        targets,
                    });
                }
                Ok(out)
            })
            .await?
    }

    /// The number of targets in the binder; the gauges set from its records.
    async fn count(&self) -> Result<usize, String> {
        let mut after = None;
        let mut total = 0;
        loop {
            let page = self.page(after).await?;
            let Some(last) = page.last() else {
                break;
            };
            after = Some(last.id.clone());
            total += page.iter().map(|l| l.targets.len()).sum::<usize>();
        }
        let states = self
            .read(|store| {
                let pairs = store.scan_prefix(links::STATE_PREFIX, usize::MAX)?;
                Ok(pairs
                    .into_iter()
                    .filter_map(|(k, v)| {
                        let (_, target) = links::parse_state_key(&k)?;
                        Some((target.to_string(), LinkState::decode(&v)?.status))
                    })
                    .collect::<Vec<_>>())
            })
            .await?;
        self.service
            .link_gauges
            .set(&self.label, states.iter().map(|(t, s)| (t.as_str(), *s)));
        Ok(total)
    }
}

/// Check every target of `id`, at once; with `archive` (the policy covers `id` and no
/// copy is kept yet), a broken target gets its archived copy looked up, kept in the
/// same change as its status.
async fn check(
    checker: Arc<Checker>,
    policy: Policy,
    archive: Option<Arc<noid_archive::Config>>,
    id: String,
    targets: Targets,
) -> (String, Vec<(String, Option<LinkState>, Writes)>) {
    let now = noid_archive::now();
    let checks = targets.into_iter().map(|(url, previous)| {
        let (checker, id, archive) = (checker.clone(), id.clone(), archive.clone());
        async move {
            let target = Target {
                id: id.clone(),
                url: url.clone(),
            };
            let outcome = checker
                .check_one(target, previous.clone(), &policy, now)
                .await;
            let mut writes = noid_links::writes(&outcome);
            let broken = outcome.state.status == Status::Broken;
            if let (true, Some(config)) = (broken, archive) {
                match noid_archive::find(&config, &url).await {
                    Ok(Some(copy)) => writes.push((links::archived_key(&id), Some(copy.encode()))),
                    Ok(None) => {}
                    Err(e) => log::warn!("links: {id}: no archived copy of {url}: {e}"),
                }
            }
            (url, previous, writes)
        }
    });
    let done = futures_util::future::join_all(checks).await;
    (id, done)
}

/// The lease while a schedule holds it. Asking a PostgreSQL lease whether it is still
/// held, and letting it go, block on its connection: both run on a blocking thread,
/// never on the runtime's.
struct Held(Option<Lease>);

impl Held {
    /// Whether it is still held.
    async fn held(&mut self) -> bool {
        let Some(mut lease) = self.0.take() else {
            return false;
        };
        match tokio::task::spawn_blocking(move || {
            let held = lease.held();
            (lease, held)
        })
        .await
        {
            Ok((lease, held)) => {
                self.0 = Some(lease);
                held
            }
            Err(_) => false,
        }
    }

    /// Let it go.
    async fn release(mut self) {
        if let Some(lease) = self.0.take() {
            let _ = tokio::task::spawn_blocking(move || drop(lease)).await;
        }
    }
}

/// Up to [`PAGE`] identifiers with bindings after `after`, in key order (egg's `list`).
fn list(
    store: &dyn Lookup,
    admission: &noid_minter::gate::Admission,
    who: &Who,
    after: Option<String>,
) -> Result<Vec<String>, String> {
    let list = Command::List {
        binder: String::new(),
        max: Some(PAGE),
        after,
        prefixes: Vec::new(),
        all: false,
        circulated: false,
    };
    match noid_binder::read(store, admission, who, &[list])?.pop() {
        Some(Reply::Listing { found, .. }) => Ok(found.ids),
        Some(Reply::Error(e)) => Err(e.to_string()),
        _ => Err("the store gave no listing".into()),
    }
}
