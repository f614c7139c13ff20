//! Who a login is: HTTP Basic credentials checked against a populator's `htpasswd -B`
//! file, and whether a login a trusted front server (Apache's `REMOTE_USER`) passes
//! on is in that file. Synchronous: bcrypt is run where the caller chooses (the HTTP
//! service on a blocking thread, the CGI in its own process).
//!
//! bcrypt is slow on purpose, so a login whose password was verified is remembered
//! (as a keyed hash of the password, for [`REMEMBER`]) and a keep-alive client does
//! not pay for bcrypt on every request. A changed password file forgets everything
//! learnt from it. A login the file does not have is checked against a dummy hash of
//! the file's cost, so that an unknown login takes as long to refuse as a wrong
//! password (issue 42, item 6).

use std::collections::hash_map::RandomState;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

use base64::Engine;

/// How long a verified password is remembered.
pub const REMEMBER: Duration = Duration::from_secs(300);

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
    /// A hash of a random password at the file's cost, for logins it does not have.
    dummy: Option<String>,
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

    /// Whether `cred` was verified against `file` lately (no bcrypt needed).
    pub fn remembered(&self, file: &Path, cred: &Basic) -> bool {
        let key = self.keyed.hash_one(&cred.password);
        let mut files = self.files.lock().expect("password files");
        refresh(&mut files, file)
            .and_then(|f| f.verified.get(&cred.user))
            .is_some_and(|(k, at)| *k == key && at.elapsed() < REMEMBER)
    }

    /// Check `cred` against `file`. Blocking: bcrypt takes milliseconds. Every check
    /// that is not of a remembered password runs bcrypt once at the file's cost: on
    /// the login's hash, or on a dummy one when the file has no such login (or no
    /// bcrypt hash for it), so that the time taken does not tell which.
    pub fn check(&self, file: &Path, cred: &Basic) -> Verdict {
        let key = self.keyed.hash_one(&cred.password);
        let (hash, dummy, cost) = {
            let mut files = self.files.lock().expect("password files");
            let Some(f) = refresh(&mut files, file) else {
                return Verdict::Invalid;
            };
            if let Some((k, at)) = f.verified.get(&cred.user) {
                if *k == key && at.elapsed() < REMEMBER {
                    return Verdict::Valid;
                }
            }
            let hash = f.hashes.get(&cred.user).cloned();
            (hash, f.dummy.clone(), cost_of(f))
        };
        let real = match hash {
            Some(h) if h.starts_with("$2") => Some(h),
            Some(_) => {
                log::warn!(
                    "{}: login {} has no bcrypt hash (use htpasswd -B)",
                    file.display(),
                    cred.user
                );
                None
            }
            None => None,
        };
        let Some(hash) = real else {
            let dummy = dummy.unwrap_or_else(|| self.dummy(file, cost));
            let _ = bcrypt::verify(&cred.password, &dummy);
            return Verdict::Invalid;
        };
        if !bcrypt::verify(&cred.password, &hash).unwrap_or(false) {
            return Verdict::Invalid;
        }
        let mut files = self.files.lock().expect("password files");
        if let Some(f) = files.get_mut(file) {
            f.verified.insert(cred.user.clone(), (key, Instant::now()));
        }
        Verdict::Valid
    }

    /// Make (outside the lock) and keep `file`'s dummy hash.
    fn dummy(&self, file: &Path, cost: u32) -> String {
        let mut password = [0u8; 16];
        rand::RngCore::fill_bytes(&mut rand::rngs::OsRng, &mut password);
        let dummy = bcrypt::hash(password, cost).unwrap_or_default();
        let mut files = self.files.lock().expect("password files");
        if let Some(f) = files.get_mut(file) {
            f.dummy = Some(dummy.clone());
        }
        dummy
    }
}

/// The bcrypt cost of the file's first bcrypt hash (`$2y$CC$…`); the lowest cost when
/// it has none (then no login can succeed, and there is nothing to time).
fn cost_of(f: &File) -> u32 {
    f.hashes
        .values()
        .filter(|h| h.starts_with("$2"))
        .find_map(|h| h.get(4..6)?.parse().ok())
        .unwrap_or(4)
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
                dummy: None,
            },
        );
    }
    files.get_mut(path)
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

    /// Issue 42 item 6: a login the file lacks is refused after a bcrypt of the
    /// file's cost, like a wrong password.
    #[test]
    fn unknown_logins_cost_a_bcrypt_too() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pwd");
        let hash = bcrypt::hash_with_result("secret", 6)
            .unwrap()
            .format_for_version(bcrypt::Version::TwoY);
        std::fs::write(&file, format!("sam:{hash}\n")).unwrap();
        let p = Passwords::default();
        let cred = |u: &str, pw: &str| Basic {
            user: u.into(),
            password: pw.into(),
        };
        assert_eq!(p.check(&file, &cred("nobody", "x")), Verdict::Invalid);
        let dummy = p.files.lock().unwrap()[&file].dummy.clone().unwrap();
        assert!(dummy.starts_with("$2b$06$"), "{dummy}");
        assert_eq!(p.check(&file, &cred("sam", "wrong")), Verdict::Invalid);
        assert_eq!(p.check(&file, &cred("sam", "secret")), Verdict::Valid);
    }
}
