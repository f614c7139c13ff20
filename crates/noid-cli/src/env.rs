//! Facts about the caller's environment: which Dbdir, who is acting, local time.

use std::path::PathBuf;

/// Perl Noid's Dbdir search: `-f`, else `$NOID`, else the part after the first `_`
/// of the program name (`noid_fk9` → `fk9`), else the current directory.
pub fn dbdir(flag: Option<&str>, argv0: &str) -> PathBuf {
    if let Some(f) = flag {
        return PathBuf::from(f);
    }
    if let Some(n) = std::env::var_os("NOID").filter(|v| !v.is_empty()) {
        return PathBuf::from(n);
    }
    noid_store::Layout::dbdir_from_program_name(argv0).unwrap_or_else(|| PathBuf::from("."))
}

/// Perl's `who_are_you`: `login/group` (plus ` (euser/egroup)` when set-uid), prefixed
/// with `REMOTE_USER@host ` in web mode. Recorded in circulation records.
pub fn contact(web: bool) -> String {
    let ugid = {
        let _one_at_a_time = USER_DB.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: this thread holds `USER_DB`, as `pw`, `group` and `login_name` require;
        // `getuid` and `geteuid` only return numbers.
        unsafe {
            let (uid, euid) = (libc::getuid(), libc::geteuid());
            let (name, gid) = pw(uid);
            let login = login_name().unwrap_or(name);
            let mut s = format!("{login}/{}", group(gid));
            if euid != uid {
                let (ename, egid) = pw(euid);
                s.push_str(&format!(" ({ename}/{})", group(egid)));
            }
            s
        }
    };
    if web {
        let user = std::env::var("REMOTE_USER").unwrap_or_default();
        let host = std::env::var("REMOTE_HOST")
            .or_else(|_| std::env::var("REMOTE_ADDR"))
            .unwrap_or_default();
        format!("{user}@{host} {ugid}")
    } else {
        ugid
    }
}

/// Held while calling `getpwuid`, `getgrgid` and `getlogin`: they return records in
/// static storage that the next call, on any thread, overwrites.
static USER_DB: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The user name and group id of `uid` (the uid itself and group 0 if unknown).
///
/// # Safety
/// The caller holds [`USER_DB`], so that no other call overwrites the record while it
/// is copied.
unsafe fn pw(uid: libc::uid_t) -> (String, libc::gid_t) {
    // SAFETY: `getpwuid` takes a number; its result is checked for null below.
    let p = unsafe { libc::getpwuid(uid) };
    if p.is_null() {
        return (uid.to_string(), 0);
    }
    // SAFETY: a non-null result points to a valid `passwd` record whose `pw_name` is a
    // NUL-terminated string; the caller's lock keeps them unchanged until copied here.
    unsafe {
        let name = std::ffi::CStr::from_ptr((*p).pw_name)
            .to_string_lossy()
            .into_owned();
        (name, (*p).pw_gid)
    }
}

/// The name of group `gid` (empty if unknown).
///
/// # Safety
/// As for [`pw`]: the caller holds [`USER_DB`].
unsafe fn group(gid: libc::gid_t) -> String {
    // SAFETY: `getgrgid` takes a number; its result is checked for null below.
    let g = unsafe { libc::getgrgid(gid) };
    if g.is_null() {
        return String::new();
    }
    // SAFETY: a non-null result points to a valid `group` record whose `gr_name` is a
    // NUL-terminated string, unchanged until copied (the caller's lock).
    unsafe {
        std::ffi::CStr::from_ptr((*g).gr_name)
            .to_string_lossy()
            .into_owned()
    }
}

/// The login name of the session, if it has one.
///
/// # Safety
/// As for [`pw`]: the caller holds [`USER_DB`].
unsafe fn login_name() -> Option<String> {
    // SAFETY: `getlogin` takes nothing; its result is checked for null below.
    let p = unsafe { libc::getlogin() };
    if p.is_null() {
        return None;
    }
    // SAFETY: a non-null result is a NUL-terminated string, unchanged until copied
    // (the caller's lock).
    Some(
        unsafe { std::ffi::CStr::from_ptr(p) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// Perl's `temper`: local time as `YYYYMMDDhhmmss`.
pub fn temper(epoch: i64) -> String {
    use chrono::TimeZone;
    match chrono::Local.timestamp_opt(epoch, 0) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            t.format("%Y%m%d%H%M%S").to_string()
        }
        chrono::LocalResult::None => "00000000000000".to_string(),
    }
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// This host's name, for the creation record.
pub fn hostname() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: `buf` is writable for the length passed; `gethostname` writes at most
    // that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr() as *mut libc::c_char, buf.len()) };
    if rc != 0 {
        return "localhost".into();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}
