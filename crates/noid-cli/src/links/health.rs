//! `noid -f Dbdir links check|report`: the health of every target the minter's
//! identifiers have (crate noid-links; docs/LINKS.md). `check` asks them and records
//! what it found (one commit per page of targets, through noid-store's writer, each
//! target's state and each change of status under `:/links/`); `report` lists what is
//! recorded. Built with the cargo feature `links` (on by default): the checker is
//! async (tokio, hyper), which a `noid` built without it does not hold.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use ipnet::IpNet;
use noid_core::links::{archived_key, parse_state_key, LinkState, Status, STATE_PREFIX};
use noid_links::config::{parse_cidr, parse_duration};
use noid_links::report::{Format, Report};
use noid_links::targets::{page_of_targets, targets_of_id};
use noid_links::{recorded, writes, BlockingChecker, CheckerConfig, Policy, Target};
use noid_store::{Op, Scan};

use crate::invocation::Invocation;

/// Targets checked, then recorded, per commit.
const PAGE: usize = 10_000;

/// `noid links check`'s options.
#[derive(Args, Debug)]
pub(super) struct CheckArgs {
    /// Only the identifiers that start with PREFIX (a shoulder, or any prefix).
    #[arg(long, value_name = "PREFIX", conflicts_with = "ids")]
    under: Option<String>,
    /// Only the identifiers listed in FILE, one a line ("-": standard input).
    #[arg(long, value_name = "FILE")]
    ids: Option<PathBuf>,
    /// Failures in a row before a target is broken.
    #[arg(long, value_name = "K", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    failures: u32,
    /// The least time from a target's first failure in a row to the one that makes it
    /// broken (e.g. 0s, 36h, 3days).
    #[arg(long, value_name = "DURATION", default_value = "72h", value_parser = duration)]
    span: Duration,
    /// Differing bits (of 64) of a page's text hash beyond which it has drifted.
    #[arg(long, value_name = "BITS", default_value_t = 12, value_parser = clap::value_parser!(u32).range(0..=64))]
    drift_bits: u32,
    /// Let the checker reach a special-purpose address range (loopback, private,
    /// link-local …), refused by default: for targets on an intranet. Repeatable.
    #[arg(long, value_name = "CIDR", value_parser = cidr)]
    allow_net: Vec<IpNet>,
    /// A URL (or mailto:) where the operators of the sites checked can reach you; sent
    /// in the User-Agent. Defaults to $NOID_LINKS_CONTACT.
    #[arg(long, value_name = "URL")]
    contact: Option<String>,
    /// A PEM file of CA certificates to trust beside the system's (a private CA).
    #[arg(long, value_name = "FILE")]
    ca_file: Option<PathBuf>,
    /// Requests in flight at once, over every host.
    #[arg(long, value_name = "N", default_value_t = 32, value_parser = clap::value_parser!(u32).range(1..=4096))]
    concurrency: u32,
    /// Requests in flight at once to one host.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=256))]
    per_host: u32,
    /// The least time between two requests to one host.
    #[arg(long, value_name = "DURATION", default_value = "500ms", value_parser = duration)]
    interval: Duration,
    /// How long one request may take.
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = duration)]
    timeout: Duration,
    /// Redirects followed before a target fails.
    #[arg(long, value_name = "N", default_value_t = 10)]
    max_redirects: usize,
    /// Answer NAME with ADDR instead of asking DNS (the address guard still judges
    /// ADDR). Repeatable.
    #[arg(long, value_name = "NAME=ADDR", value_parser = name_addr)]
    resolve: Vec<(String, IpAddr)>,
    /// Send HEAD (or GET where HEAD is refused) only, never reading pages: soft404,
    /// parked pages and drift are then not told.
    #[arg(long)]
    no_pages: bool,
    /// The Memento TimeGate asked for the archived copy of a target that turns broken,
    /// where the archived-copy policy covers its identifier (noid links policy).
    #[arg(long, value_name = "URL", default_value = noid_archive::DEFAULT_TIMEGATE)]
    timegate: String,
}

/// `noid links report`'s options.
#[derive(Args, Debug)]
pub(super) struct ReportArgs {
    /// Only the targets with this status (ok redirected failing broken blocked soft404
    /// parked drifted).
    #[arg(long, value_name = "STATUS", value_parser = status)]
    status: Option<Status>,
    /// Only the identifiers that start with PREFIX.
    #[arg(long, value_name = "PREFIX")]
    under: Option<String>,
    /// csv (a header line first) or json (an array of objects).
    #[arg(long, value_name = "FORMAT", default_value = "csv")]
    format: ReportFormat,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum ReportFormat {
    Csv,
    Json,
}

fn duration(s: &str) -> Result<Duration, String> {
    parse_duration(s).map_err(|e| e.to_string())
}

fn cidr(s: &str) -> Result<IpNet, String> {
    parse_cidr(s).map_err(|e| e.to_string())
}

fn status(s: &str) -> Result<Status, String> {
    Status::parse(s).ok_or_else(|| {
        let all: Vec<&str> = Status::ALL.iter().map(|s| s.as_str()).collect();
        format!("no status {s:?}; one of {}", all.join(" "))
    })
}

fn name_addr(s: &str) -> Result<(String, IpAddr), String> {
    let (name, addr) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?}: write NAME=ADDR, e.g. example.org=192.0.2.7"))?;
    let addr = addr
        .parse()
        .map_err(|_| format!("{addr:?} is not an IP address"))?;
    Ok((name.to_string(), addr))
}

/// The contact a User-Agent names: the option, else `$NOID_LINKS_CONTACT`.
fn contact(given: Option<String>) -> Result<String, String> {
    let contact = given
        .or_else(|| std::env::var("NOID_LINKS_CONTACT").ok())
        .filter(|c| !c.trim().is_empty())
        .ok_or(
            "say where the sites checked can reach you: --contact URL (or $NOID_LINKS_CONTACT), \
             e.g. --contact https://example.org/about-our-link-checker",
        )?;
    if contact.chars().any(|c| c.is_control() || c == ' ') {
        return Err(format!(
            "--contact {contact:?}: a URL without spaces or control characters"
        ));
    }
    Ok(contact)
}

/// `check`: every target chosen asked, what was found recorded, the summary printed.
pub(super) fn check(session: &Invocation, a: CheckArgs) -> Result<u8, String> {
    let mut config = CheckerConfig::new(&contact(a.contact)?);
    config.concurrency = a.concurrency as usize;
    config.per_host = a.per_host as usize;
    config.host_interval = a.interval;
    config.timeout = a.timeout;
    config.max_redirects = a.max_redirects;
    config.allow_net = a.allow_net;
    config.ca_file = a.ca_file;
    config.resolve = a.resolve;
    config.read_pages = !a.no_pages;
    let policy = Policy {
        failures: a.failures,
        span: a.span,
        drift_bits: a.drift_bits,
        ..Policy::default()
    };
    // The list of identifiers is read before anything else, so that a missing file
    // is an error with nothing checked.
    let ids = match &a.ids {
        None => None,
        Some(path) if path.as_os_str() == "-" => Some(read_ids(std::io::stdin().lock())?),
        Some(path) => {
            let file =
                std::fs::File::open(path).map_err(|e| format!("--ids {}: {e}", path.display()))?;
            Some(read_ids(std::io::BufReader::new(file))?)
        }
    };
    let reader = crate::store::open_reader(session).map_err(|e| e.to_string())?;
    let checker = BlockingChecker::new(config).map_err(|e| e.to_string())?;
    let now = noid_archive::now();
    let mut tally = Tally::default();
    let archive = super::archive::config(&a.timegate, noid_archive::DEFAULT_SAVE)
        .map_err(|e| format!("--timegate: {e}"))?;
    let mut code = 0;
    match ids {
        Some(ids) => {
            for chunk in ids.chunks(PAGE) {
                let mut targets = Vec::new();
                for id in chunk {
                    let found = targets_of_id(&*reader, id).map_err(|e| e.to_string())?;
                    if found.is_empty() {
                        eprintln!("noid links: {id}: no target bound (_t, _,eTm, or _,eTi,), nothing to check");
                        code = 1;
                    }
                    targets.extend(found);
                }
                check_page(
                    session, &*reader, &checker, targets, &policy, now, &archive, &mut tally,
                )?;
            }
        }
        None => {
            let mut from: Option<Vec<u8>> = None;
            loop {
                let (targets, next) = page_of_targets(
                    &mut |start, g| reader.scan_from(start, g),
                    a.under.as_deref(),
                    from.as_deref(),
                    PAGE,
                )
                .map_err(|e| e.to_string())?;
                check_page(
                    session, &*reader, &checker, targets, &policy, now, &archive, &mut tally,
                )?;
                match next {
                    Some(n) => from = Some(n),
                    None => break,
                }
            }
        }
    }
    print!("{}", tally.summary());
    Ok(code)
}

/// The identifiers of a list, one a line (blank lines skipped).
fn read_ids(input: impl BufRead) -> Result<Vec<String>, String> {
    let mut ids = Vec::new();
    for line in input.lines() {
        let line = line.map_err(|e| format!("--ids: {e}"))?;
        let id = line.trim();
        if !id.is_empty() {
            ids.push(id.to_string());
        }
    }
    Ok(ids)
}

/// Check one page of targets and record what was found in one commit, with the
/// archived copies of the targets that turned broken where the policy wants them.
#[allow(clippy::too_many_arguments)]
fn check_page(
    session: &Invocation,
    reader: &dyn Scan,
    checker: &BlockingChecker,
    targets: Vec<Target>,
    policy: &Policy,
    now: u64,
    archive: &noid_archive::Config,
    tally: &mut Tally,
) -> Result<(), String> {
    if targets.is_empty() {
        return Ok(());
    }
    let mut jobs = Vec::with_capacity(targets.len());
    for t in targets {
        let before = recorded(reader, &t).map_err(|e| e.to_string())?;
        jobs.push((t, before));
    }
    let mut ops = Vec::new();
    let mut broken = Vec::new();
    checker.check(jobs, policy, now, |outcome| {
        tally.count(&outcome.state, outcome.change.is_some());
        if outcome.state.status == Status::Broken {
            broken.push(outcome.target.clone());
        }
        ops.extend(
            writes(&outcome)
                .into_iter()
                .filter_map(|(k, v)| v.map(|v| Op::Put(k, v))),
        );
    });
    for t in broken {
        if let Some(copy) = archived_copy(reader, archive, &t)? {
            ops.push(Op::Put(archived_key(&t.id), copy.encode()));
        }
    }
    let writer = crate::store::open_writer(session).map_err(|e| e.to_string())?;
    writer.commit_all(&mut ops).map_err(|e| e.to_string())
}

/// The most recent archived copy of `t`, a broken target, when the archived-copy
/// policy covers its identifier (noid-archive's `copies::wanted`) and no copy is kept
/// yet; a TimeGate that fails is said on standard error and leaves the target without
/// one (the next check asks again).
fn archived_copy(
    reader: &dyn Scan,
    archive: &noid_archive::Config,
    t: &Target,
) -> Result<Option<noid_archive::Archived>, String> {
    let kept = reader
        .get(&archived_key(&t.id))
        .map_err(|e| e.to_string())?
        .is_some();
    if kept || !noid_archive::copies::wanted(reader, &t.id).map_err(|e| e.to_string())? {
        return Ok(None);
    }
    match noid_archive::block_on(noid_archive::find(archive, &t.url)).map_err(|e| e.to_string())? {
        Ok(copy) => Ok(copy),
        Err(e) => {
            eprintln!("noid links: {}: no archived copy of {}: {e}", t.id, t.url);
            Ok(None)
        }
    }
}

/// Targets by status, and how many changed.
#[derive(Default)]
struct Tally {
    by_status: BTreeMap<Status, usize>,
    changed: usize,
}

impl Tally {
    fn count(&mut self, state: &LinkState, changed: bool) {
        *self.by_status.entry(state.status).or_default() += 1;
        self.changed += usize::from(changed);
    }

    /// `targets: N`, then `STATUS: N` for every status, then `changed: N`.
    fn summary(&self) -> String {
        let total: usize = self.by_status.values().sum();
        let mut out = format!("targets: {total}\n");
        for s in Status::ALL {
            out.push_str(&format!("{s}: {}\n", self.by_status.get(&s).unwrap_or(&0)));
        }
        out.push_str(&format!("changed: {}\n", self.changed));
        out
    }
}

/// `report`: one row per recorded target.
pub(super) fn report(session: &Invocation, a: ReportArgs) -> Result<u8, String> {
    let reader = crate::store::open_reader(session).map_err(|e| e.to_string())?;
    let format = match a.format {
        ReportFormat::Csv => Format::Csv,
        ReportFormat::Json => Format::Json,
    };
    let stdout = std::io::stdout();
    let mut report = Report::new(format, stdout.lock()).map_err(|e| e.to_string())?;
    let mut prefix = STATE_PREFIX.to_vec();
    prefix.extend_from_slice(a.under.as_deref().unwrap_or("").as_bytes());
    let mut failed = None;
    reader
        .scan_from(&prefix, &mut |key, value| {
            if !key.starts_with(&prefix) {
                return false;
            }
            let (Some((id, target)), Some(state)) =
                (parse_state_key(key), LinkState::decode(value))
            else {
                return true;
            };
            if a.status.is_some_and(|s| s != state.status) {
                return true;
            }
            match report.row(id, target, &state) {
                Ok(()) => true,
                Err(e) => {
                    failed = Some(e.to_string());
                    false
                }
            }
        })
        .map_err(|e| e.to_string())?;
    if let Some(e) = failed {
        return Err(e);
    }
    report.finish().map_err(|e| e.to_string())?;
    Ok(0)
}
