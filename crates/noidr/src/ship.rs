//! `--follow … --counts`: ship the counts this web node's flusher writes in its
//! `--cache` directory to the database that holds the minter, where every node's add
//! up (noid-store's `CountsShipper`; docs/COUNTS.md, "Several web nodes").
//!
//! A thread of its own ships every interval, never a request thread: each round ships
//! every segment of the counts directory that has whole blocks past what was shipped
//! (those of earlier noidr processes in this directory too), each in one transaction
//! with the offset it shipped to. A database that cannot be reached only delays
//! shipping: the segments keep the counts, and a later round ships them. At a clean
//! end, [`at_end`] ships once more (for a bounded time) what the last flush wrote.

use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use noid_counts::{counts_dir_of, summed, CountsDir, Shipping};
use noid_store::pg::{CountRow, CountsShipper, Location};

/// How long a clean end waits for its last shipment.
const LAST_ROUND: Duration = Duration::from_secs(5);

/// Asks the shipping thread for its last round, and hears that it is done.
static END: OnceLock<Mutex<(Sender<()>, Receiver<()>)>> = OnceLock::new();

/// Start shipping the counts of the copy in `dir` to the minter at `location`, every
/// `interval`. Makes the counts directory's shipping record at once, before anything
/// is counted, so that a compaction never folds a segment before it is shipped.
pub fn start(location: &Location, dir: &Path, interval: Duration) -> anyhow::Result<()> {
    let counts = CountsDir::new(counts_dir_of(dir));
    let mut shipping = Shipping::open(&counts).map_err(|e| {
        anyhow::anyhow!(
            "--counts: cannot ship from {}: {e}",
            counts.path().display()
        )
    })?;
    let node = node_name(dir);
    let mut shipper = CountsShipper::new(location, &node);
    let (ask, asked) = mpsc::channel::<()>();
    let (tell, told) = mpsc::channel::<()>();
    let _ = END.set(Mutex::new((ask, told)));
    std::thread::Builder::new()
        .name("ship-counts".into())
        .spawn(move || {
            let mut failing = false;
            loop {
                let last = match asked.recv_timeout(interval) {
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                    Err(RecvTimeoutError::Timeout) => false,
                };
                round(&mut shipping, &mut shipper, &mut failing);
                if last {
                    let _ = tell.send(());
                    return;
                }
            }
        })?;
    Ok(())
}

/// At a clean end, once the last flush is written: ship it, waiting
/// [`LAST_ROUND`] at most (a database down keeps it for the next start).
pub fn at_end() {
    let Some(end) = END.get() else {
        return;
    };
    let end = end
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if end.0.send(()).is_ok() && end.1.recv_timeout(LAST_ROUND).is_err() {
        log::warn!("the last counts were not shipped yet: the next start ships them");
    }
}

/// One round: every segment with something new, unless another process ships this
/// directory. The first failure of a run of them is a warning, the others are
/// debug lines; the round that succeeds again says so.
fn round(shipping: &mut Shipping, shipper: &mut CountsShipper, failing: &mut bool) {
    let outcome = shipping
        .lock()
        .map_err(|e| e.to_string())
        .and_then(|lock| match lock {
            Some(_held) => ship_all(shipping, shipper),
            None => Ok(()),
        });
    match outcome {
        Ok(()) if *failing => {
            *failing = false;
            log::info!("counts: shipping again");
        }
        Ok(()) => {}
        Err(e) if !*failing => {
            *failing = true;
            log::warn!("counts: cannot ship them now (they are kept, and shipped later): {e}");
        }
        Err(e) => log::debug!("counts: cannot ship them now: {e}"),
    }
}

/// Ships what each segment has past what was shipped of it, a shipment at a time
/// (noid-counts' `SHIPMENT`).
fn ship_all(shipping: &mut Shipping, shipper: &mut CountsShipper) -> Result<(), String> {
    for (segment, mut recorded) in shipping.segments().map_err(|e| e.to_string())? {
        loop {
            let shipped = ship_one(shipping, shipper, &segment, recorded)?;
            if shipped == recorded {
                break;
            }
            recorded = shipped;
        }
    }
    Ok(())
}

/// Ships one shipment of `segment`, whose local record says `recorded`: the offset
/// shipped to.
fn ship_one(
    shipping: &mut Shipping,
    shipper: &mut CountsShipper,
    segment: &str,
    recorded: u64,
) -> Result<u64, String> {
    let new = shipping
        .unshipped(segment, recorded)
        .map_err(|e| e.to_string())?;
    if new.end == recorded {
        return Ok(recorded);
    }
    let shipped = shipper
        .ship(segment, |from| {
            let new = match from == recorded {
                true => new,
                // The database is ahead of the local record (a crash after a commit)
                // or behind it (restored from a backup): it decides.
                false => shipping.unshipped(segment, from)?,
            };
            Ok((rows(&new.entries), new.end))
        })
        .map_err(|e| e.to_string())?;
    shipping
        .record(segment, shipped)
        .map_err(|e| e.to_string())?;
    Ok(shipped)
}

/// The entries as the database's rows, equal keys added up.
fn rows(entries: &[noid_counts::Entry]) -> Vec<CountRow> {
    summed(entries)
        .into_iter()
        .map(|(key, count)| CountRow {
            day: key.day,
            id: key.id,
            kind: key.kind.group().to_string(),
            code: key.kind.code(),
            class: key.class.name().to_string(),
            count,
        })
        .collect()
}

/// The node's name in the database's record of shipments: `HOST:DIR`, as followers
/// name themselves.
fn node_name(dir: &Path) -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into());
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    format!("{host}:{}", dir.display())
}
