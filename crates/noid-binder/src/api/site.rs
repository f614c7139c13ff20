//! The N2T API as configured, without its transport: the populators and their
//! directories, their password files, and one writer thread per directory. The checks
//! every request passes before its command ([`Site::admit`], [`Site::front_login`])
//! live here once, for `noid serve`'s HTTP handler and for the CGI alike; checking a
//! password (bcrypt, slow) and counting failed attempts are the HTTP service's.
//!
//! A populator that is not configured is answered as one whose logins all fail
//! (`401`, the same realm and body; `403` for a login of another populator), so that
//! neither populator names nor logins can be learnt from the answers or their timing.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::StatusCode;
use noid_core::Lookup;
use noid_minter::gate::Admission;
use noid_store::{Follower, Freshness};

use super::config::{self, Checked, Config};
use super::passwords::Passwords;
use super::reply::{plain, ApiReply};
use super::route::{self, Route};
use crate::admission::AdmissionSource;
use crate::observe::{Observer, Unobserved};
use crate::reads::snapshot_between_writers;
use crate::writer::{DirectoryWriter, Settings};

/// The block cache of each directory's read-only view.
const READ_CACHE: usize = 8 << 20;
/// How long a read waits for a commit under way before it opens a snapshot of its own
/// (a commit takes milliseconds; a snapshot costs about seven follower reads).
const READ_WAIT: Duration = Duration::from_millis(500);

/// The API's configuration, password files and directory writers.
pub struct Site {
    config: Config,
    populators: BTreeMap<String, Checked>,
    passwords: Passwords,
    writers: Mutex<HashMap<PathBuf, DirectoryWriter>>,
    /// What each directory read through a view admits (as its writer does).
    admissions: Mutex<HashMap<PathBuf, AdmissionSource>>,
    /// The read-only view of each directory read, following its writers.
    followers: Mutex<HashMap<PathBuf, Arc<Follower>>>,
    settings: Settings,
}

impl Site {
    /// The site of a checked configuration; circulation records are stamped with
    /// `temper`, work is told to `observer`.
    pub fn new(
        config: Config,
        populators: BTreeMap<String, Checked>,
        temper: fn(i64) -> String,
        observer: Arc<dyn Observer>,
    ) -> Site {
        let settings = Settings {
            lock_timeout: Duration::from_secs(config.lock_timeout),
            temper,
            stopping: Arc::new(AtomicBool::new(false)),
            observer,
        };
        Site {
            config,
            populators,
            passwords: Passwords::default(),
            writers: Mutex::new(HashMap::new()),
            admissions: Mutex::new(HashMap::new()),
            followers: Mutex::new(HashMap::new()),
            settings,
        }
    }

    /// Load the configuration file at `path`, counting nothing (the CGI's: one
    /// request per process).
    pub fn load(path: &Path, temper: fn(i64) -> String) -> Result<Site, String> {
        let (config, populators) = config::load(path)?;
        Ok(Site::new(config, populators, temper, Arc::new(Unobserved)))
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The configured populators by name.
    pub fn populators(&self) -> &BTreeMap<String, Checked> {
        &self.populators
    }

    /// The configured populator `name`.
    pub fn populator(&self, name: &str) -> Option<&Checked> {
        self.populators.get(name)
    }

    /// The password files in use.
    pub fn passwords(&self) -> &Passwords {
        &self.passwords
    }

    /// How directories are opened and records stamped.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Tell running bulk requests to stop at their next command (the server is
    /// stopping); each says how far it got.
    pub fn stop(&self) {
        self.settings.stopping.store(true, Ordering::Relaxed);
        for f in self.followers.lock().expect("followers").values() {
            f.stop();
        }
    }

    /// `f` on a read-only view of the store in `dir`, never through its writer thread:
    /// the directory's follower, brought up to date with every write acknowledged so
    /// far (waiting up to [`READ_WAIT`] for a commit under way to finish); when a writer
    /// keeps the store busy for longer (a `noid` process holds it from open to close) or
    /// the follower cannot be had, a snapshot opened for this read alone between writers
    /// (waiting as a writer would, up to the lock timeout); on PostgreSQL, a read-only
    /// transaction. Either way a write acknowledged before the read is in it.
    pub fn reading<T>(&self, dir: &Path, f: impl FnOnce(&dyn Lookup) -> T) -> Result<T, String> {
        let follower = self
            .followers
            .lock()
            .expect("followers")
            .entry(dir.to_path_buf())
            .or_insert_with(|| Follower::new(dir, None, READ_CACHE))
            .clone();
        let between_writers = |f| snapshot_between_writers(dir, self.settings.lock_timeout, f);
        match follower.fresh() {
            Ok(view) => match view.secondary().freshen_within(READ_WAIT) {
                Ok(Freshness::Current | Freshness::CaughtUp) => Ok(f(&*view)),
                _ => between_writers(f),
            },
            // No follower: a minter held by PostgreSQL, or one that cannot be opened (the
            // snapshot says why).
            Err(_) => between_writers(f),
        }
    }

    /// Where what binder `dir` admits comes from: the minters of the populators whose
    /// binder it is (`crate::admission`).
    pub fn admission(&self, dir: &Path) -> AdmissionSource {
        let owners: Vec<&Checked> = self
            .populators
            .values()
            .filter(|p| p.populator.binder.as_deref() == Some(dir))
            .collect();
        let roots = owners
            .iter()
            .filter_map(|p| p.populator.minters.clone())
            .collect();
        let limit = !owners.iter().any(|p| p.populator.any_identifier);
        AdmissionSource::new(roots, limit)
    }

    /// What directory `dir` admits now, for a read through a snapshot (the same its
    /// writer thread applies); the minters' templates are read again only when their
    /// directories change.
    pub fn admitted(&self, dir: &Path) -> Arc<Admission> {
        let mut sources = self.admissions.lock().expect("admissions");
        sources
            .entry(dir.to_path_buf())
            .or_insert_with(|| self.admission(dir))
            .admission()
    }

    /// The writer thread of directory `dir` (binder writes logged to `log`), started
    /// on first use.
    pub fn writer(&self, dir: &Path, log: Option<PathBuf>) -> DirectoryWriter {
        let mut writers = self.writers.lock().expect("writers");
        writers
            .entry(dir.to_path_buf())
            .or_insert_with(|| {
                let admission = self.admission(dir);
                DirectoryWriter::start(dir.to_path_buf(), log, self.settings.clone(), admission)
            })
            .clone()
    }

    /// The checks every request passes before its login, over HTTP and as a CGI
    /// alike: a populator's route, the populator if it is configured (`None`: it is
    /// answered as one whose logins all fail, so that populator names cannot be told
    /// apart), and a client its allow-list admits.
    pub fn admit(
        &self,
        path: &str,
        client: Option<IpAddr>,
    ) -> Result<(Route, Option<&Checked>), ApiReply> {
        let route =
            route::parse(path).ok_or_else(|| plain(StatusCode::NOT_FOUND, "error: not found\n"))?;
        let pop = self.populators.get(route.populator());
        if pop.is_some_and(|p| !p.allows(client)) {
            log::warn!(
                "populator {}: refused client {}",
                route.populator(),
                client.map_or_else(|| "unix".into(), |ip| ip.to_string())
            );
            return Err(plain(StatusCode::FORBIDDEN, "error: 403 forbidden\n"));
        }
        Ok((route, pop))
    }

    /// The login a front server authenticated (Apache's `REMOTE_USER` for the CGI),
    /// when it is one of populator `name`'s.
    pub fn front_login(
        &self,
        name: &str,
        pop: Option<&Checked>,
        login: String,
    ) -> Result<String, ApiReply> {
        if pop.is_some_and(|p| self.vouched(p, &login)) {
            return Ok(login);
        }
        log::warn!("populator {name}: front server's user {login} is not one of its logins");
        Err(plain(StatusCode::FORBIDDEN, "error: 403 forbidden\n"))
    }

    /// Whether `login` may act for populator `pop` on a front server's word.
    pub fn vouched(&self, pop: &Checked, login: &str) -> bool {
        match &pop.populator.htpasswd {
            _ if pop.populator.open => true,
            Some(file) => self.passwords.knows(file, login),
            None => false,
        }
    }
}
