//! A map's configuration, as the web server's directive gives it: a protocol, a minter
//! directory and `KEY=VALUE` words, checked when the server reads its configuration
//! (before any store is opened, so that `apachectl configtest` and `nginx -t` name the
//! mistake).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use noid_resolve::egg::Miss;
use noid_resolve::{Registry, Rules};
use noid_store::{AnswerRegion, ThreadCache};

/// The default lookup deadline (as `noidr --lookup-deadline`).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(2);

/// The default RocksDB block cache of one map in one worker process, in MiB.
pub const DEFAULT_CACHE_MB: usize = 64;

/// The default number of point reads each request thread keeps.
pub const DEFAULT_THREAD_CACHE: usize = 4_096;

/// The default number of whole answers a worker process keeps for all its threads.
pub const DEFAULT_ANSWER_CACHE: usize = 262_144;

/// The default number of whole answers the server's worker processes keep for one
/// another, in memory their parent shares with them (256 bytes each: 64 MiB, taken
/// only as answers fill it).
pub const DEFAULT_SHARED_ANSWERS: usize = 262_144;

/// The line protocol a map answers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `get ID ELEM` (noid-get.conf).
    Noid,
    /// `ID.resolve [HEADERS]` (noid-resolve.conf).
    Egg,
}

/// One map's configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// The line protocol.
    pub protocol: Protocol,
    /// The minter directory (holding `NOID/`), or a follower's cache.
    pub dbdir: PathBuf,
    /// `miss=null|eggnog`: the egg protocol's miss answer.
    pub miss: Miss,
    /// `rules=FILE`: the redirect rules (default: the built-in table).
    pub rules: Option<PathBuf>,
    /// `registry=FILE`: the prefix registry (default: none).
    pub registry: Option<PathBuf>,
    /// `deadline=SECS`: the lookup deadline; `0` turns it off.
    pub deadline: Option<Duration>,
    /// `cache-mb=MIB`: the RocksDB block cache of each worker process.
    pub cache_mb: usize,
    /// `thread-cache=N`: point reads kept per request thread.
    pub thread_cache: usize,
    /// `answer-cache=N`: whole answers kept per worker process, for all its threads.
    pub answer_cache: usize,
    /// `shared-answers=N`: whole answers kept by the worker processes for one another,
    /// where the server's parent maps memory for them (0: none).
    pub shared_answers: usize,
    /// `secondary-dir=DIR`: where the RocksDB secondaries keep their files (default: a
    /// directory under the system's temporary directory, removed at exit).
    pub secondary_dir: Option<PathBuf>,
    /// `counts=SECS`: count resolutions into `DBDIR/counts/` (crate `noid-counts`),
    /// each worker process writing every SECS seconds (0, the default: no counting).
    pub counts: Option<Duration>,
}

/// A configuration the directive cannot take, worded for the server's error message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

fn bad(msg: String) -> ConfigError {
    ConfigError(msg)
}

impl Config {
    /// The configuration of `protocol` (`noid` or `egg`) on `dbdir` with `options`
    /// (`KEY=VALUE` words).
    pub fn parse(protocol: &str, dbdir: &str, options: &[&str]) -> Result<Config, ConfigError> {
        let protocol = match protocol {
            "noid" => Protocol::Noid,
            "egg" => Protocol::Egg,
            other => return Err(bad(format!("unknown protocol '{other}' (noid or egg)"))),
        };
        if dbdir.is_empty() {
            return Err(bad("empty minter directory".into()));
        }
        let mut c = Config {
            protocol,
            dbdir: PathBuf::from(dbdir),
            miss: Miss::Null,
            rules: None,
            registry: None,
            deadline: Some(DEFAULT_DEADLINE),
            cache_mb: DEFAULT_CACHE_MB,
            thread_cache: DEFAULT_THREAD_CACHE,
            answer_cache: DEFAULT_ANSWER_CACHE,
            shared_answers: DEFAULT_SHARED_ANSWERS,
            secondary_dir: None,
            counts: None,
        };
        for word in options {
            let Some((key, value)) = word.split_once('=') else {
                return Err(bad(format!("'{word}' is not KEY=VALUE")));
            };
            c.set(key, value)?;
        }
        if c.protocol == Protocol::Noid && (c.rules.is_some() || c.registry.is_some()) {
            return Err(bad(
                "rules= and registry= apply to the egg protocol only".into()
            ));
        }
        c.check_files()?;
        Ok(c)
    }

    fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        match key {
            "miss" => {
                self.miss = match value {
                    "null" => Miss::Null,
                    "eggnog" => Miss::Eggnog,
                    _ => return Err(bad(format!("miss={value}: null or eggnog"))),
                }
            }
            "rules" => self.rules = Some(PathBuf::from(value)),
            "registry" => self.registry = Some(PathBuf::from(value)),
            "deadline" => self.deadline = deadline(value)?,
            "cache-mb" => self.cache_mb = count(key, value, 1, 1 << 20)?,
            "thread-cache" => self.thread_cache = count(key, value, 0, 1 << 24)?,
            "answer-cache" => self.answer_cache = count(key, value, 1, 1 << 26)?,
            "shared-answers" => self.shared_answers = count(key, value, 0, 1 << 24)?,
            "secondary-dir" => self.secondary_dir = Some(PathBuf::from(value)),
            "counts" => self.counts = counts(value)?,
            _ => {
                return Err(bad(format!(
                    "unknown option '{key}' (miss, rules, registry, deadline, cache-mb, \
                     thread-cache, answer-cache, shared-answers, secondary-dir, counts)"
                )))
            }
        }
        Ok(())
    }

    /// The rules and registry files read now, so that a bad one stops the server from
    /// starting instead of every worker failing later.
    fn check_files(&self) -> Result<(), ConfigError> {
        self.read_rules()?;
        self.read_registry()?;
        Ok(())
    }

    /// The rules in force: the `rules=` file, or the built-in table.
    pub fn read_rules(&self) -> Result<Rules, ConfigError> {
        match &self.rules {
            None => Ok(Rules::builtin()),
            Some(path) => Rules::parse(&read(path, "rules")?)
                .map_err(|e| bad(format!("bad rules file {}: {e}", path.display()))),
        }
    }

    /// The prefix registry: the `registry=` file, or an empty one.
    pub fn read_registry(&self) -> Result<Registry, ConfigError> {
        match &self.registry {
            None => Ok(Registry::empty()),
            Some(path) => Registry::parse(&read(path, "registry")?)
                .map_err(|e| bad(format!("bad registry file {}: {e}", path.display()))),
        }
    }

    /// The cache sizes of the map's views: point reads per thread, whole answers for
    /// the process (a web server has many request threads, which would rarely find an
    /// answer in caches of their own), and behind them `region`'s for all processes.
    pub fn thread_cache(&self, region: Option<AnswerRegion>) -> ThreadCache {
        ThreadCache {
            values: self.thread_cache,
            answers: 0,
            shared_answers: self.answer_cache,
            region,
        }
    }

    /// Bytes of shared memory the server's parent maps for `shared-answers=` (0: none).
    pub fn region_bytes(&self) -> usize {
        match self.shared_answers {
            0 => 0,
            n => AnswerRegion::bytes_for(n),
        }
    }
}

fn read(path: &Path, what: &str) -> Result<String, ConfigError> {
    std::fs::read_to_string(path)
        .map_err(|e| bad(format!("cannot read {what} file {}: {e}", path.display())))
}

/// `deadline=SECS`: 0 (none) or from 0.01 to 86400 seconds, as `noidr --lookup-deadline`.
fn deadline(value: &str) -> Result<Option<Duration>, ConfigError> {
    match value.parse::<f64>() {
        Ok(0.0) => Ok(None),
        Ok(s) if (0.01..=86400.0).contains(&s) => Ok(Some(Duration::from_secs_f64(s))),
        _ => Err(bad(format!(
            "deadline={value}: 0 (none) or from 0.01 to 86400 seconds"
        ))),
    }
}

/// `counts=SECS`: 0 (no counting) or from 0.1 to 3600 seconds between two writes, as
/// `noidr --counts-interval`.
fn counts(value: &str) -> Result<Option<Duration>, ConfigError> {
    match value.parse::<f64>() {
        Ok(0.0) => Ok(None),
        Ok(s) if (0.1..=3600.0).contains(&s) => Ok(Some(Duration::from_secs_f64(s))),
        _ => Err(bad(format!(
            "counts={value}: 0 (no counting) or from 0.1 to 3600 seconds"
        ))),
    }
}

fn count(key: &str, value: &str, min: usize, max: usize) -> Result<usize, ConfigError> {
    match value.parse::<usize>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(bad(format!(
            "{key}={value}: a whole number from {min} to {max}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_options() {
        let c = Config::parse("egg", "/srv/noid/kt5", &[]).unwrap();
        assert_eq!(c.protocol, Protocol::Egg);
        assert_eq!(c.miss, Miss::Null);
        assert_eq!(c.deadline, Some(Duration::from_secs(2)));
        assert_eq!(c.cache_mb, 64);
        let c = Config::parse(
            "egg",
            "/d",
            &[
                "miss=eggnog",
                "deadline=0.5",
                "cache-mb=8",
                "thread-cache=0",
            ],
        )
        .unwrap();
        assert_eq!(c.miss, Miss::Eggnog);
        assert_eq!(c.deadline, Some(Duration::from_millis(500)));
        assert_eq!((c.cache_mb, c.thread_cache), (8, 0));
        assert_eq!(
            Config::parse("noid", "/d", &["deadline=0"])
                .unwrap()
                .deadline,
            None
        );
    }

    #[test]
    fn mistakes_are_named() {
        let err = |p: &str, opts: &[&str]| Config::parse(p, "/d", opts).unwrap_err().0;
        assert_eq!(err("rrm", &[]), "unknown protocol 'rrm' (noid or egg)");
        assert_eq!(err("egg", &["miss"]), "'miss' is not KEY=VALUE");
        assert_eq!(err("egg", &["miss=none"]), "miss=none: null or eggnog");
        assert_eq!(
            err("egg", &["deadline=-1"]),
            "deadline=-1: 0 (none) or from 0.01 to 86400 seconds"
        );
        assert_eq!(
            err("egg", &["cache-mb=0"]),
            "cache-mb=0: a whole number from 1 to 1048576"
        );
        assert!(err("egg", &["colour=red"]).starts_with("unknown option 'colour'"));
        assert_eq!(
            err("noid", &["rules=/x"]),
            "rules= and registry= apply to the egg protocol only"
        );
        assert!(err("egg", &["rules=/nonexistent/rules"])
            .starts_with("cannot read rules file /nonexistent/rules: "));
        assert_eq!(
            Config::parse("egg", "", &[]).unwrap_err().0,
            "empty minter directory"
        );
    }

    #[test]
    fn a_bad_rules_file_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("rules");
        std::fs::write(&f, "this is not a rule\n").unwrap();
        let opt = format!("rules={}", f.display());
        let e = Config::parse("egg", "/d", &[&opt]).unwrap_err().0;
        assert!(
            e.starts_with(&format!("bad rules file {}: ", f.display())),
            "{e}"
        );
    }
}
