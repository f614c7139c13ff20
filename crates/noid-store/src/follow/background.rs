//! The follower's background thread: periodic catch-up, replaced-store detection, and
//! retries of a store that could not be opened.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use super::{Follower, CATCH_UP_EVERY, RETRY_OPEN_EVERY};

impl Follower {
    /// Start the background thread; it ends after [`Follower::stop`].
    pub fn spawn_background(self: &Arc<Self>) -> std::io::Result<()> {
        let me = self.clone();
        std::thread::Builder::new()
            .name("noid-catch-up".into())
            .spawn(move || me.background())
            .map(|_| ())
    }

    fn background(&self) {
        let mut last_retry = Instant::now();
        let mut failing = false;
        loop {
            std::thread::sleep(CATCH_UP_EVERY);
            if self.stopping.load(Ordering::Acquire) {
                break;
            }
            let Ok(view) = self.current() else {
                if last_retry.elapsed() >= RETRY_OPEN_EVERY {
                    last_retry = Instant::now();
                    if self.reopen().is_ok() {
                        log::warn!("minter {} is open now", self.dbdir.display());
                    }
                }
                continue;
            };
            let secondary = view.secondary();
            if secondary.replaced() {
                log::info!("minter {} was replaced; reopening", self.dbdir.display());
                drop(view);
                if let Err(e) = self.reopen() {
                    log::error!("{e}");
                }
                continue;
            }
            // Read before: commits after it may or may not be in this catch-up.
            let generation = secondary.generation();
            let caught_up = secondary.try_catch_up();
            if let Ok(true) = caught_up {
                self.stats.caught_up(generation);
            }
            match caught_up {
                Ok(_) if failing => {
                    failing = false;
                    log::warn!("catching up with minter works again");
                }
                Ok(_) => {}
                Err(e) if !failing => {
                    failing = true;
                    log::error!("catching up with minter {}: {e}", self.dbdir.display());
                }
                Err(_) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use noid_core::Lookup;

    use super::*;
    use crate::{Op, Writer};

    /// Polls `f`'s current view (no catch-up of its own) until `key` reads `want`.
    fn wait_for(f: &Follower, key: &[u8], want: &[u8]) {
        let start = Instant::now();
        loop {
            if let Ok(view) = f.current() {
                if view.get(key).unwrap().as_deref() == Some(want) {
                    return;
                }
            }
            assert!(start.elapsed() < Duration::from_secs(30), "never saw it");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn the_background_thread_opens_a_late_store_follows_it_and_notices_a_new_one() {
        let d = tempfile::tempdir().unwrap();
        let f = Follower::new(d.path(), None, 1 << 20);
        assert!(f.current().is_err());
        f.spawn_background().unwrap();
        let w = Writer::create(d.path(), Duration::from_secs(5)).unwrap();
        w.commit([Op::Put(b"k".to_vec(), b"1".to_vec())]).unwrap();
        drop(w);
        wait_for(&f, b"k", b"1");
        let w = Writer::open(d.path(), Duration::from_secs(5)).unwrap();
        w.commit([Op::Put(b"k".to_vec(), b"2".to_vec())]).unwrap();
        drop(w);
        wait_for(&f, b"k", b"2");
        // Removed and created anew: no counter the old view maps moves.
        std::fs::remove_dir_all(d.path().join("NOID")).unwrap();
        let w = Writer::create(d.path(), Duration::from_secs(5)).unwrap();
        w.commit([Op::Put(b"k".to_vec(), b"3".to_vec())]).unwrap();
        drop(w);
        wait_for(&f, b"k", b"3");
        f.stop();
    }
}
