//! Who is asking: HTTP Basic credentials checked against a populator's `htpasswd -B`
//! file, or the login a trusted front server passes on; failed attempts counted per
//! client address and logged (never with the password).
//!
//! bcrypt is slow on purpose, so a login whose password was verified is remembered
//! (as a keyed hash of the password, for [`REMEMBER`]) and a keep-alive client does
//! not pay for bcrypt on every request. A changed password file forgets everything
//! learnt from it.

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use base64::Engine;

/// How long a verified password is remembered.
pub const REMEMBER: Duration = Duration::from_secs(300);
/// Failed attempts allowed per client address within [`WINDOW`]; more get `429`.
pub const MAX_FAILURES: u32 = 10;
/// The window failed attempts are counted over.
pub const WINDOW: Duration = Duration::from_secs(60);

/// Credentials from an `Authorization: Basic` header.
#[derive(Clone)]
pub struct Basic {
    /// The login.
    pub user: String,
    /// The password (never logged or kept).
    pub password: String,
}

impl std::fmt::Debug for Basic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Basic").field("user", &self.user).finish()
    }
}

/// Parse an `Authorization` header value.
pub fn parse_basic(header: &str) -> Option<Basic> {
    let (scheme, b64) = header.trim().split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let raw = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .ok()?;
    let text = String::from_utf8(raw).ok()?;
    let (user, password) = text.split_once(':')?;
    Some(Basic {
        user: user.to_string(),
        password: password.to_string(),
    })
}

/// The logins of one password file, as last read.
struct File {
    modified: Option<SystemTime>,
    hashes: HashMap<String, String>,
    /// Login → (keyed hash of the verified password, when verified).
    verified: HashMap<String, (u64, Instant)>,
}

/// The password files in use, read on first use and again whenever they change.
pub struct Passwords {
    files: Mutex<HashMap<PathBuf, File>>,
    keyed: RandomState,
}

impl Default for Passwords {
    fn default() -> Self {
        Passwords {
            files: Mutex::new(HashMap::new()),
            keyed: RandomState::new(),
        }
    }
}

/// What a password file says about a login and password.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// The password is right.
    Valid,
    /// The login is unknown or the password wrong.
    Invalid,
}

impl Passwords {
    /// Whether `login` is in `file` (for logins a front server vouches for).
    pub fn knows(&self, file: &Path, login: &str) -> bool {
        let mut files = self.files.lock().expect("password files");
        match refresh(&mut files, file) {
            Some(f) => f.hashes.contains_key(login),
            None => false,
        }
    }

    /// Check `cred` against `file`. Blocking: bcrypt takes milliseconds.
    pub fn check(&self, file: &Path, cred: &Basic) -> Verdict {
        let key = self.keyed.hash_one(&cred.password);
        let hash = {
            let mut files = self.files.lock().expect("password files");
            let Some(f) = refresh(&mut files, file) else {
                return Verdict::Invalid;
            };
            if let Some((k, at)) = f.verified.get(&cred.user) {
                if *k == key && at.elapsed() < REMEMBER {
                    return Verdict::Valid;
                }
            }
            match f.hashes.get(&cred.user) {
                Some(h) => h.clone(),
                None => return Verdict::Invalid,
            }
        };
        let ok = if hash.starts_with("$2") {
            bcrypt::verify(&cred.password, &hash).unwrap_or(false)
        } else {
            log::warn!(
                "{}: login {} has no bcrypt hash (use htpasswd -B)",
                file.display(),
                cred.user
            );
            false
        };
        if !ok {
            return Verdict::Invalid;
        }
        let mut files = self.files.lock().expect("password files");
        if let Some(f) = files.get_mut(file) {
            f.verified.insert(cred.user.clone(), (key, Instant::now()));
        }
        Verdict::Valid
    }
}

/// The file's entry, read again if it changed; `None` (and logged) if unreadable.
fn refresh<'a>(files: &'a mut HashMap<PathBuf, File>, path: &Path) -> Option<&'a mut File> {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let stale = files.get(path).is_none_or(|f| f.modified != modified);
    if stale {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                log::error!("password file {}: {e}", path.display());
                files.remove(path);
                return None;
            }
        };
        let hashes = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split_once(':'))
            .map(|(u, h)| (u.to_string(), h.trim().to_string()))
            .collect();
        files.insert(
            path.to_path_buf(),
            File {
                modified,
                hashes,
                verified: HashMap::new(),
            },
        );
    }
    files.get_mut(path)
}

/// Failed attempts per client address.
#[derive(Default)]
pub struct Failures {
    by_client: Mutex<HashMap<Option<IpAddr>, (u32, Instant)>>,
}

impl Failures {
    /// Whether `client` has failed too often lately.
    pub fn blocked(&self, client: Option<IpAddr>) -> bool {
        let map = self.by_client.lock().expect("failures");
        map.get(&client)
            .is_some_and(|(n, since)| *n >= MAX_FAILURES && since.elapsed() < WINDOW)
    }

    /// Count a failed attempt.
    pub fn record(&self, client: Option<IpAddr>) {
        let mut map = self.by_client.lock().expect("failures");
        if map.len() > 100_000 {
            map.retain(|_, (_, since)| since.elapsed() < WINDOW);
        }
        let e = map.entry(client).or_insert((0, Instant::now()));
        if e.1.elapsed() >= WINDOW {
            *e = (0, Instant::now());
        }
        e.0 += 1;
    }
}

/// Constant-time comparison of a presented secret with the configured one.
pub fn same_secret(given: &[u8], expected: &[u8]) -> bool {
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_header() {
        // "sam:se:cret" in base64
        let b = parse_basic("Basic c2FtOnNlOmNyZXQ=").unwrap();
        assert_eq!((b.user.as_str(), b.password.as_str()), ("sam", "se:cret"));
        assert!(parse_basic("Bearer x").is_none());
        assert!(format!("{b:?}").contains("sam") && !format!("{b:?}").contains("cret"));
    }

    #[test]
    fn secrets() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abd", b"abc"));
        assert!(!same_secret(b"ab", b"abc"));
    }
}
