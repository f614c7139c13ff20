//! Failed logins counted per login and client address ([`Failures`]), so that a
//! client guessing passwords is refused with `429` for a while; the passwords
//! themselves are checked by noid-binder (`noid_binder::api::Passwords`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failed attempts allowed per login and client address within [`WINDOW`]; more get
/// `429`.
pub const MAX_FAILURES: u32 = 10;
/// Failed attempts allowed per client address, whatever the logins, within
/// [`WINDOW`] (a client trying login after login).
pub const MAX_ADDRESS_FAILURES: u32 = 10 * MAX_FAILURES;
/// The window failed attempts are counted over, from the first.
pub const WINDOW: Duration = Duration::from_secs(60);

/// What attempts are counted under: a login from an address, and the address.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    Login(String, Option<IpAddr>),
    Address(Option<IpAddr>),
}

impl Key {
    fn most(&self) -> u32 {
        match self {
            Key::Login(..) => MAX_FAILURES,
            Key::Address(_) => MAX_ADDRESS_FAILURES,
        }
    }
}

/// Failed attempts within the window, when the window began, and attempts being
/// checked.
#[derive(Debug, Clone, Copy)]
struct Count {
    failed: u32,
    since: Instant,
    checking: u32,
}

/// Failed attempts per login and client address, and per address. An attempt is
/// counted before its password is checked ([`Failures::attempt`]): while attempts
/// being checked could reach the limit if they failed, more wait for them
/// ([`Failures::settled`]) instead of being checked alongside. So parallel attempts
/// cannot all pass the limit before the first failure is counted, and parallel
/// requests with the right password are not refused: they wait for the first, whose
/// password is then remembered.
#[derive(Default)]
pub struct Failures {
    counts: Mutex<HashMap<Key, Count>>,
    /// Told whenever an attempt is settled.
    pub settled: tokio::sync::Notify,
}

/// Why an attempt may not be checked now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotNow {
    /// Too many failures: refused until the window ends, this long from now.
    Refused(Duration),
    /// Attempts being checked could reach the limit: wait for one to settle.
    Busy,
}

/// An attempt being checked: a failure unless [`Attempt::succeeded`] says otherwise
/// (also when dropped unsettled, a client that went away meanwhile).
#[must_use]
pub struct Attempt<'f> {
    failures: &'f Failures,
    keys: [Key; 2],
    settled: bool,
}

impl std::fmt::Debug for Attempt<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Attempt").field("keys", &self.keys).finish()
    }
}

impl Attempt<'_> {
    /// The password was right: the attempt is no failure.
    pub fn succeeded(mut self) {
        self.settle(true);
    }

    fn settle(&mut self, ok: bool) {
        if std::mem::replace(&mut self.settled, true) {
            return;
        }
        {
            let mut map = self.failures.counts.lock().expect("failures");
            for k in &self.keys {
                if let Some(c) = map.get_mut(k) {
                    c.checking = c.checking.saturating_sub(1);
                    if !ok {
                        c.failed += 1;
                    }
                }
            }
        }
        self.failures.settled.notify_waiters();
    }
}

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        self.settle(false);
    }
}

impl Failures {
    /// Count an attempt of `login` from `client` before its password is checked, or
    /// say why it may not be checked now.
    pub fn attempt(&self, login: &str, client: Option<IpAddr>) -> Result<Attempt<'_>, NotNow> {
        let keys = [Key::Login(login.to_string(), client), Key::Address(client)];
        let mut map = self.counts.lock().expect("failures");
        if map.len() > 100_000 {
            map.retain(|_, c| c.checking > 0 || c.since.elapsed() < WINDOW);
        }
        let mut busy = false;
        for k in &keys {
            let c = map.entry(k.clone()).or_insert(Count {
                failed: 0,
                since: Instant::now(),
                checking: 0,
            });
            if c.since.elapsed() >= WINDOW {
                c.failed = 0;
                c.since = Instant::now();
            }
            if c.failed >= k.most() {
                let left = WINDOW.saturating_sub(c.since.elapsed());
                return Err(NotNow::Refused(left));
            }
            busy |= c.failed + c.checking >= k.most();
        }
        if busy {
            return Err(NotNow::Busy);
        }
        for k in &keys {
            if let Some(c) = map.get_mut(k) {
                c.checking += 1;
            }
        }
        Ok(Attempt {
            failures: self,
            keys,
            settled: false,
        })
    }
}

/// How long `wait` is, for people: `42 seconds` (rounded up, as [`seconds`]).
pub fn said(wait: Duration) -> String {
    match seconds(wait) {
        1 => "1 second".into(),
        s => format!("{s} seconds"),
    }
}

/// `wait` in whole seconds, rounded up (a `Retry-After` value).
pub fn seconds(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 42 item 3, issue 41 item 9: attempts count before they are checked, per
    /// login and address; one login's failures do not lock out another's.
    #[test]
    fn attempts_count_per_login_and_address() {
        let f = Failures::default();
        let a: Option<IpAddr> = Some("192.0.2.1".parse().unwrap());
        let b: Option<IpAddr> = Some("192.0.2.2".parse().unwrap());
        // Ten attempts being checked at once: the eleventh waits.
        let pending: Vec<Attempt> = (0..MAX_FAILURES)
            .map(|_| f.attempt("sam", a).unwrap())
            .collect();
        assert_eq!(f.attempt("sam", a).unwrap_err(), NotNow::Busy);
        assert!(
            f.attempt("olga", a).is_ok(),
            "another login from the address"
        );
        assert!(
            f.attempt("sam", b).is_ok(),
            "the login from another address"
        );
        // A right password is no failure: then one more may be checked.
        let mut pending = pending.into_iter();
        pending.next().unwrap().succeeded();
        let last = f.attempt("sam", a).unwrap();
        assert_eq!(f.attempt("sam", a).unwrap_err(), NotNow::Busy);
        // All ten fail (dropped unsettled: a failure): the next is refused until
        // the window ends.
        drop((pending, last));
        match f.attempt("sam", a) {
            Err(NotNow::Refused(wait)) => assert!(wait <= WINDOW && !wait.is_zero()),
            other => panic!("{other:?}"),
        }
        // The address's own limit, whatever the logins.
        let c: Option<IpAddr> = Some("192.0.2.3".parse().unwrap());
        for n in 0..MAX_ADDRESS_FAILURES {
            drop(f.attempt(&format!("l{n}"), c).unwrap());
        }
        assert!(matches!(f.attempt("new", c), Err(NotNow::Refused(_))));
        assert_eq!(said(Duration::from_millis(41_200)), "42 seconds");
        assert_eq!(seconds(Duration::from_secs(60)), 60);
    }
}
