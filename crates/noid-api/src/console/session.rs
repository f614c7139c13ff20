//! Console sessions: who is logged in, for which populator, the form token (CSRF) of
//! the session, and the cookie that names it.
//!
//! A session is named by a random 256-bit id sent only in the cookie (never in a
//! URL). Logged-in sessions are kept in a table; logging in starts a new one (a new
//! id and a new token), so an id learnt before the login is worth nothing after it.
//! A session ends after [`Sessions::idle`] without a request, after [`MAX_AGE`] in
//! any case, and at logout; the table holds at most [`MAX_SESSIONS`], the oldest
//! ended first when a login would pass that.
//!
//! The login form's session is kept nowhere ([`Sessions::login_form`]): its id is a
//! random nonce with the time it was issued, and its form token a MAC of the id under
//! a key the service draws at start. Anyone may ask for the login form, as often as
//! they like, without the table growing (issue 42, item 7); the form's token still
//! binds the POST to the browser that holds the cookie.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hmac::{KeyInit, Mac};
use rand::RngCore;

use noid_binder::api::same_secret;

/// The cookie naming a logged-in session.
pub const COOKIE: &str = "noid_console";
/// The cookie naming a session that is not logged in yet (the login form's). It has a
/// name of its own so that starting one never replaces a logged-in session's cookie:
/// a browser arriving from another site sends no cookie (`SameSite=Strict`).
pub const LOGIN_COOKIE: &str = "noid_console_login";
/// The path the cookies are sent for over plain HTTP (over TLS: `/`, as their
/// `__Host-` prefix requires; [`set_cookie`]).
pub const COOKIE_PATH: &str = "/console/";
/// The longest a session lives, however busy.
pub const MAX_AGE: Duration = Duration::from_secs(12 * 3600);
/// Logged-in sessions kept at most; a login beyond it ends the oldest.
pub const MAX_SESSIONS: usize = 10_000;

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
pub struct LoginSession {
    /// The id the cookie carries.
    pub id: String,
    /// The token every form of the session carries.
    pub csrf: String,
    /// The login, once logged in.
    pub user: Option<User>,
}

impl LoginSession {
    /// No session: the request named none that is live. No form token matches it.
    pub fn none() -> LoginSession {
        LoginSession {
            id: String::new(),
            csrf: String::new(),
            user: None,
        }
    }
}

struct Kept {
    session: LoginSession,
    created: Instant,
    seen: Instant,
}

/// The logged-in sessions, and their ids in the order they were created (some of
/// those ended since): expiry goes from the front, one session at a time.
#[derive(Default)]
struct Table {
    by_id: HashMap<String, Kept>,
    order: VecDeque<String>,
}

/// The sessions of a running service (in memory: a restart logs everyone out).
pub struct Sessions {
    table: Mutex<Table>,
    /// Idle time after which a session ends (and a login form's token expires).
    pub idle: Duration,
    /// The key of the login forms' tokens.
    key: [u8; 32],
    /// The clock the login forms' ids count from.
    epoch: Instant,
}

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

impl Sessions {
    /// An empty set of sessions ending after `idle` without requests.
    pub fn new(idle: Duration) -> Sessions {
        let mut key = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut key);
        Sessions {
            table: Mutex::new(Table::default()),
            idle,
            key,
            epoch: Instant::now(),
        }
    }

    /// The live logged-in session `id` names (its idle time starts again); `None`
    /// when unknown or expired (and then forgotten).
    pub fn get(&self, id: &str) -> Option<LoginSession> {
        self.get_at(id, Instant::now())
    }

    /// [`Sessions::get`] at time `now` (the tests give the time).
    fn get_at(&self, id: &str, now: Instant) -> Option<LoginSession> {
        let mut t = self.table.lock().expect("sessions");
        let live = t.by_id.get(id).is_some_and(|k| self.live(k, now));
        if !live {
            t.by_id.remove(id);
            return None;
        }
        let k = t.by_id.get_mut(id).expect("checked above");
        k.seen = now;
        Some(k.session.clone())
    }

    /// Whether session `k` is still live at `now`.
    fn live(&self, k: &Kept, now: Instant) -> bool {
        now.saturating_duration_since(k.seen) < self.idle
            && now.saturating_duration_since(k.created) < MAX_AGE
    }

    /// A new logged-in session for `user`. Before it is added, sessions at the
    /// front of the creation order that have ended or expired are dropped, and the
    /// oldest one too if the table is full: each step O(1), never a sweep of the
    /// whole table.
    pub fn start(&self, user: User) -> LoginSession {
        self.start_at(user, Instant::now())
    }

    /// [`Sessions::start`] at time `now` (the tests give the time).
    fn start_at(&self, user: User, now: Instant) -> LoginSession {
        let session = LoginSession {
            id: token(),
            csrf: token(),
            user: Some(user),
        };
        let mut guard = self.table.lock().expect("sessions");
        let t = &mut *guard;
        while let Some(front) = t.order.front() {
            let keep = t
                .by_id
                .get(front)
                .is_some_and(|k| self.live(k, now) && t.by_id.len() < MAX_SESSIONS);
            if keep {
                break;
            }
            t.by_id.remove(front);
            t.order.pop_front();
        }
        // Ids of sessions ended by logout stay in the order until they reach its
        // front; when they are most of it, they go at once.
        if t.order.len() > 2 * MAX_SESSIONS.max(t.by_id.len()) {
            let by_id = &t.by_id;
            t.order.retain(|id| by_id.contains_key(id));
        }
        t.by_id.insert(
            session.id.clone(),
            Kept {
                session: session.clone(),
                created: now,
                seen: now,
            },
        );
        t.order.push_back(session.id.clone());
        session
    }

    /// End session `id` (logout, or replaced at login).
    pub fn end(&self, id: &str) {
        self.table.lock().expect("sessions").by_id.remove(id);
    }

    /// Logged-in sessions kept (live or not yet dropped).
    pub fn len(&self) -> usize {
        self.table.lock().expect("sessions").by_id.len()
    }

    /// A new login form's session, kept nowhere: its id is the time it was issued
    /// (milliseconds since the service started) and a random nonce, its token the
    /// id's MAC ([`Sessions::login_session`] checks both).
    pub fn login_form(&self) -> LoginSession {
        let mut nonce = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        let id = format!("{}.{}", self.epoch.elapsed().as_millis(), hex(&nonce));
        LoginSession {
            csrf: self.login_token(&id),
            id,
            user: None,
        }
    }

    /// The login form's session that `id` names, if this service issued it less than
    /// [`Sessions::idle`] ago.
    pub fn login_session(&self, id: &str) -> Option<LoginSession> {
        let (issued, nonce) = id.split_once('.')?;
        let issued = Duration::from_millis(issued.parse().ok()?);
        let now = self.epoch.elapsed();
        let fresh = issued <= now && now - issued < self.idle;
        if !fresh || nonce.len() != 32 || !nonce.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some(LoginSession {
            csrf: self.login_token(id),
            id: id.to_string(),
            user: None,
        })
    }

    fn login_token(&self, id: &str) -> String {
        let mut mac = HmacSha256::new_from_slice(&self.key).expect("any key length");
        mac.update(b"noid console login form\0");
        mac.update(id.as_bytes());
        hex(&mac.finalize().into_bytes())
    }
}

/// Whether `given` is the session's form token (in constant time); never for
/// [`LoginSession::none`].
pub fn token_matches(session: &LoginSession, given: &str) -> bool {
    !session.csrf.is_empty() && same_secret(given.as_bytes(), session.csrf.as_bytes())
}

/// 32 random bytes from the operating system, as hex.
fn token() -> String {
    let mut b = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut b);
    hex(&b)
}

fn hex(b: &[u8]) -> String {
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

/// The name cookie `name` has for a browser that reached the console over TLS
/// (`secure`, [`crate::console`] says when): `__Host-NAME`, which a browser keeps only
/// from a TLS answer, `Secure`, with `Path=/` and no `Domain`, so that neither a page
/// over plain HTTP nor another host (a sibling subdomain included) can set or replace
/// it; over plain HTTP (loopback, tests), `NAME`.
pub fn cookie_name(name: &str, secure: bool) -> String {
    match secure {
        true => format!("__Host-{name}"),
        false => name.to_string(),
    }
}

/// The `Set-Cookie` value setting cookie `name` to `id`: `HttpOnly`,
/// `SameSite=Strict`; over TLS (`secure`) named `__Host-NAME`, `Secure` and
/// `Path=/` (as the prefix requires), otherwise `Path=/console/`. `None` for `id`
/// ends the cookie.
pub fn set_cookie(name: &str, id: Option<&str>, secure: bool) -> String {
    let name = cookie_name(name, secure);
    let mut c = match id {
        Some(id) => format!("{name}={id}"),
        None => format!("{name}=; Max-Age=0"),
    };
    c.push_str("; Path=");
    c.push_str(if secure { "/" } else { COOKIE_PATH });
    c.push_str("; HttpOnly; SameSite=Strict");
    if secure {
        c.push_str("; Secure");
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(n: usize) -> User {
        User {
            populator: "sam".into(),
            login: format!("l{n}"),
        }
    }

    /// At the times the test gives (no clock read, no sleep): a session lives while
    /// each request comes less than `idle` after the one before, at most `MAX_AGE`.
    #[test]
    fn sessions_expire_and_end() {
        let idle = Duration::from_millis(50);
        let s = Sessions::new(idle);
        let t0 = Instant::now();
        let a = s.start_at(user(0), t0);
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
        let c = busy.start_at(user(2), t0);
        assert!(busy.get_at(&c.id, t0 + MAX_AGE / 2).is_some());
        assert!(
            busy.get_at(&c.id, t0 + MAX_AGE).is_none(),
            "older than MAX_AGE"
        );
        let b = s.start(user(1));
        s.end(&b.id);
        assert!(s.get(&b.id).is_none());
    }

    /// Issue 42 item 7: login forms are not kept, however many are asked for.
    #[test]
    fn login_forms_are_kept_nowhere() {
        let s = Sessions::new(Duration::from_secs(1800));
        let forms: Vec<LoginSession> = (0..20_000).map(|_| s.login_form()).collect();
        assert_eq!(s.len(), 0);
        let first = &forms[0];
        let back = s
            .login_session(&first.id)
            .expect("a form this service issued");
        assert_eq!((back.id.as_str(), &back.user), (first.id.as_str(), &None));
        assert!(token_matches(&back, &first.csrf));
        assert!(
            !token_matches(&back, &forms[1].csrf),
            "another form's token"
        );
        // An id that was not issued here: altered, or made up.
        let mut altered = first.id.clone();
        altered.replace_range(altered.len() - 1.., "x");
        for id in [altered.as_str(), "0.0", "", "abc", "99999999999999.00"] {
            assert!(s.login_session(id).is_none(), "{id:?}");
        }
        // The same id under another service's key has another token.
        let other = Sessions::new(Duration::from_secs(1800));
        let theirs = other.login_session(&first.id).unwrap();
        assert!(!token_matches(&theirs, &first.csrf));
        // A form older than the idle time has expired.
        let expired = Sessions::new(Duration::ZERO);
        assert!(expired.login_session(&expired.login_form().id).is_none());
    }

    /// The table holds at most MAX_SESSIONS logged-in sessions, the oldest ended
    /// first; ended ones are dropped as they reach the front.
    #[test]
    fn logged_in_sessions_are_bounded() {
        let s = Sessions::new(Duration::from_secs(1800));
        let ids: Vec<String> = (0..MAX_SESSIONS + 5).map(|n| s.start(user(n)).id).collect();
        assert_eq!(s.len(), MAX_SESSIONS);
        assert!(ids[..5].iter().all(|id| s.get(id).is_none()));
        assert_eq!(s.get(&ids[5]).unwrap().user, Some(user(5)));
        assert_eq!(
            s.get(&ids[MAX_SESSIONS + 4]).unwrap().user,
            Some(user(MAX_SESSIONS + 4))
        );
        for id in &ids[5..15] {
            s.end(id);
        }
        assert_eq!(s.len(), MAX_SESSIONS - 10);
        s.start(user(0));
        assert_eq!(s.len(), MAX_SESSIONS - 9, "no live session ended for it");
        assert_eq!(s.table.lock().unwrap().order.len(), MAX_SESSIONS - 9);
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
            "__Host-noid_console=abc; Path=/; HttpOnly; SameSite=Strict; Secure"
        );
        assert_eq!(
            set_cookie(LOGIN_COOKIE, None, true),
            "__Host-noid_console_login=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict; Secure"
        );
        assert_eq!(
            set_cookie(COOKIE, Some("abc"), false),
            "noid_console=abc; Path=/console/; HttpOnly; SameSite=Strict"
        );
        // Over TLS only the prefixed cookie counts: a plain one may have been set by a
        // page over plain HTTP.
        let both = ["noid_console=plain; __Host-noid_console=tls"];
        assert_eq!(
            from_cookies(both.into_iter(), &cookie_name(COOKIE, true)),
            Some("tls".into())
        );
        assert_eq!(
            from_cookies(both.into_iter(), &cookie_name(COOKIE, false)),
            Some("plain".into())
        );
        assert_eq!(
            set_cookie(COOKIE, None, false),
            "noid_console=; Max-Age=0; Path=/console/; HttpOnly; SameSite=Strict"
        );
        assert!(!token_matches(&LoginSession::none(), ""));
    }
}
