//! Console sessions: who is logged in, for which populator, the form token (CSRF) of
//! the session, and the cookie that names it.
//!
//! A session is named by a random 256-bit id sent only in the cookie (never in a
//! URL). Every browser that opens a console page gets a session, logged in or not,
//! so that even the login form carries a token ([`crate::console`] checks it before
//! any POST handler runs); logging in replaces the session by a new one (a new id and
//! a new token), so an id learnt before the login is worth nothing after it.
//!
//! A session ends after [`Sessions::idle`] without a request, after [`MAX_AGE`] in
//! any case, and at logout.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::RngCore;

use crate::auth::same_secret;

/// The cookie naming a logged-in session.
pub const COOKIE: &str = "noid_console";
/// The cookie naming a session that is not logged in yet (the login form's). It has a
/// name of its own so that starting one never replaces a logged-in session's cookie:
/// a browser arriving from another site sends no cookie (`SameSite=Strict`).
pub const LOGIN_COOKIE: &str = "noid_console_login";
/// The path the cookie is sent for.
pub const COOKIE_PATH: &str = "/console/";
/// The longest a session lives, however busy.
pub const MAX_AGE: Duration = Duration::from_secs(12 * 3600);
/// Sessions kept before expired ones are swept.
const SWEEP_AT: usize = 10_000;

/// Who a logged-in session acts as: the API's populator and login.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The populator (its binder, minters and rights).
    pub populator: String,
    /// The login, as the write log records it.
    pub login: String,
}

/// One session, as a request sees it.
#[derive(Debug, Clone)]
pub struct Session {
    /// The id the cookie carries.
    pub id: String,
    /// The token every form of the session carries.
    pub csrf: String,
    /// The login, once logged in.
    pub user: Option<User>,
}

impl Session {
    /// No session: the request named none that is live. No form token matches it.
    pub fn none() -> Session {
        Session {
            id: String::new(),
            csrf: String::new(),
            user: None,
        }
    }
}

struct Kept {
    session: Session,
    created: Instant,
    seen: Instant,
}

/// The sessions of a running service (in memory: a restart logs everyone out).
pub struct Sessions {
    by_id: Mutex<HashMap<String, Kept>>,
    /// Idle time after which a session ends.
    pub idle: Duration,
}

impl Sessions {
    /// An empty set of sessions ending after `idle` without requests.
    pub fn new(idle: Duration) -> Sessions {
        Sessions {
            by_id: Mutex::new(HashMap::new()),
            idle,
        }
    }

    /// The live session `id` names (its idle time starts again); `None` when unknown
    /// or expired (and then forgotten).
    pub fn get(&self, id: &str) -> Option<Session> {
        self.get_at(id, Instant::now())
    }

    /// [`Sessions::get`] at time `now` (the tests give the time).
    fn get_at(&self, id: &str, now: Instant) -> Option<Session> {
        let mut map = self.by_id.lock().expect("sessions");
        let live = map.get(id).is_some_and(|k| self.live(k, now));
        if !live {
            map.remove(id);
            return None;
        }
        let k = map.get_mut(id).expect("checked above");
        k.seen = now;
        Some(k.session.clone())
    }

    /// Whether session `k` is still live at `now`.
    fn live(&self, k: &Kept, now: Instant) -> bool {
        now.saturating_duration_since(k.seen) < self.idle
            && now.saturating_duration_since(k.created) < MAX_AGE
    }

    /// A new session for `user` (none: not logged in yet).
    pub fn start(&self, user: Option<User>) -> Session {
        self.start_at(user, Instant::now())
    }

    /// [`Sessions::start`] at time `now` (the tests give the time).
    fn start_at(&self, user: Option<User>, now: Instant) -> Session {
        let session = Session {
            id: token(),
            csrf: token(),
            user,
        };
        let mut map = self.by_id.lock().expect("sessions");
        if map.len() >= SWEEP_AT {
            map.retain(|_, k| self.live(k, now));
        }
        map.insert(
            session.id.clone(),
            Kept {
                session: session.clone(),
                created: now,
                seen: now,
            },
        );
        session
    }

    /// End session `id` (logout, or replaced at login).
    pub fn end(&self, id: &str) {
        self.by_id.lock().expect("sessions").remove(id);
    }
}

/// Whether `given` is the session's form token (in constant time); never for
/// [`Session::none`].
pub fn token_matches(session: &Session, given: &str) -> bool {
    !session.csrf.is_empty() && same_secret(given.as_bytes(), session.csrf.as_bytes())
}

/// 32 random bytes from the operating system, as hex.
fn token() -> String {
    let mut b = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut b);
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The value of cookie `name` in a request's `Cookie` headers.
pub fn from_cookies<'a>(headers: impl Iterator<Item = &'a str>, name: &str) -> Option<String> {
    headers
        .flat_map(|h| h.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.trim_matches('"').to_string())
}

/// The `Set-Cookie` value setting cookie `name` to `id`: `HttpOnly`,
/// `SameSite=Strict`, and `Secure` when the browser reached the console over TLS
/// ([`crate::console`] says when). `None` for `id` ends the cookie.
pub fn set_cookie(name: &str, id: Option<&str>, secure: bool) -> String {
    let mut c = match id {
        Some(id) => format!("{name}={id}"),
        None => format!("{name}=; Max-Age=0"),
    };
    c.push_str("; Path=");
    c.push_str(COOKIE_PATH);
    c.push_str("; HttpOnly; SameSite=Strict");
    if secure {
        c.push_str("; Secure");
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At the times the test gives (no clock read, no sleep): a session lives while
    /// each request comes less than `idle` after the one before, at most `MAX_AGE`.
    #[test]
    fn sessions_expire_and_end() {
        let idle = Duration::from_millis(50);
        let s = Sessions::new(idle);
        let t0 = Instant::now();
        let a = s.start_at(None, t0);
        assert_eq!(a.id.len(), 64);
        assert_ne!(a.id, a.csrf);
        // Each request starts the idle time again.
        let mut t = t0;
        for _ in 0..3 {
            t += idle - Duration::from_millis(1);
            assert!(s.get_at(&a.id, t).is_some(), "a request within idle");
        }
        assert!(s.get_at(&a.id, t + idle).is_none(), "idle session expired");
        assert!(
            s.get_at(&a.id, t).is_none(),
            "an expired session is forgotten"
        );
        // However busy, a session ends after MAX_AGE.
        let busy = Sessions::new(MAX_AGE);
        let c = busy.start_at(None, t0);
        assert!(busy.get_at(&c.id, t0 + MAX_AGE / 2).is_some());
        assert!(
            busy.get_at(&c.id, t0 + MAX_AGE).is_none(),
            "older than MAX_AGE"
        );
        let b = s.start(None);
        s.end(&b.id);
        assert!(s.get(&b.id).is_none());
    }

    #[test]
    fn cookies() {
        let headers = ["a=1; noid_console=abc", "x=y"];
        assert_eq!(
            from_cookies(headers.into_iter(), COOKIE),
            Some("abc".into())
        );
        assert_eq!(from_cookies(headers.into_iter(), LOGIN_COOKIE), None);
        assert_eq!(from_cookies(["noid_consolex=1"].into_iter(), COOKIE), None);
        assert_eq!(
            set_cookie(COOKIE, Some("abc"), true),
            "noid_console=abc; Path=/console/; HttpOnly; SameSite=Strict; Secure"
        );
        assert_eq!(
            set_cookie(COOKIE, None, false),
            "noid_console=; Max-Age=0; Path=/console/; HttpOnly; SameSite=Strict"
        );
        assert!(!token_matches(&Session::none(), ""));
    }
}
