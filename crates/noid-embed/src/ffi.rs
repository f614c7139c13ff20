//! The C ABI (include/noid_embed.h). Every entry point runs its body through
//! [`boundary`], so that a Rust panic is logged and answered as an error instead of
//! unwinding into the web server (undefined behaviour across `extern "C"`).

use std::cell::RefCell;
use std::ffi::{c_char, c_int, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use noid_serving::header;
use noid_store::AnswerRegion;

use crate::deadline::SharedWord;
use crate::logger::{self, LogFn};
use crate::map::{Found, HttpRequest, Map};
use crate::options::{Config, ConfigError};
use crate::request::{plain_redirect, read_answer, split_link, Redirect};

/// `NOID_FOUND`, `NOID_NOT_FOUND`, `NOID_ERROR`.
const FOUND: c_int = 1;
const NOT_FOUND: c_int = 0;
const ERROR: c_int = -1;

/// The answer given for a lookup that panicked (the panic itself is logged).
const PANICKED: &[u8] = b"error: internal error in the resolver (logged)";

thread_local! {
    /// Each request thread's answer buffer: the answer handed to C stays valid until
    /// the thread's next lookup, and no lookup allocates one.
    static ANSWER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The `Link` header's value of this thread's last redirect, when signposted
    /// (`noid_map_link`); empty otherwise.
    static LINK: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// `f()`, or `on_panic` after logging the panic of `what`.
pub fn boundary<T>(what: &str, on_panic: T, f: impl FnOnce() -> T) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(v) => v,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "(no message)".into());
            log::error!("panic in {what}, answered as an error: {msg}");
            on_panic
        }
    }
}

/// See noid_embed.h.
///
/// # Safety
/// `log` is NULL or a function callable from any thread for as long as the library is
/// loaded.
#[no_mangle]
pub unsafe extern "C" fn noid_embed_set_log(log: Option<LogFn>, max_level: c_int) {
    boundary("noid_embed_set_log", (), || logger::set(log, max_level));
}

/// The arguments as strings.
///
/// # Safety
/// As `noid_map_check`'s.
unsafe fn config(
    protocol: *const c_char,
    dbdir: *const c_char,
    opts: *const *const c_char,
    nopts: usize,
) -> Result<Config, ConfigError> {
    let text = |p: *const c_char| -> Result<String, ConfigError> {
        if p.is_null() {
            return Err(ConfigError("missing argument".into()));
        }
        // SAFETY: the caller passes NUL-terminated strings.
        let s = unsafe { CStr::from_ptr(p) };
        s.to_str()
            .map(str::to_owned)
            .map_err(|_| ConfigError("an argument is not UTF-8".into()))
    };
    let mut words = Vec::with_capacity(nopts);
    for i in 0..nopts {
        // SAFETY: `opts` holds `nopts` pointers.
        words.push(text(unsafe { *opts.add(i) })?);
    }
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    Config::parse(&text(protocol)?, &text(dbdir)?, &words)
}

/// Copy `msg` into `err` (NUL-terminated, cut to `errlen` at a character's boundary).
///
/// # Safety
/// `err` is NULL or has room for `errlen` bytes.
unsafe fn write_err(msg: &str, err: *mut c_char, errlen: usize) {
    if err.is_null() || errlen == 0 {
        return;
    }
    let mut n = msg.len().min(errlen - 1);
    while !msg.is_char_boundary(n) {
        n -= 1;
    }
    // SAFETY: `n + 1 <= errlen` bytes are written into `err`.
    unsafe {
        std::ptr::copy_nonoverlapping(msg.as_ptr(), err.cast::<u8>(), n);
        *err.add(n) = 0;
    }
}

/// See noid_embed.h.
///
/// # Safety
/// `protocol` and `dbdir` are NUL-terminated strings, `opts` holds `nopts` of them,
/// `err` has room for `errlen` bytes (or is NULL).
#[no_mangle]
pub unsafe extern "C" fn noid_map_check(
    protocol: *const c_char,
    dbdir: *const c_char,
    opts: *const *const c_char,
    nopts: usize,
    err: *mut c_char,
    errlen: usize,
) -> c_int {
    let checked = boundary(
        "noid_map_check",
        Err(ConfigError("internal error".into())),
        || {
            // SAFETY: as this function's.
            unsafe { config(protocol, dbdir, opts, nopts) }
        },
    );
    match checked {
        Ok(_) => 0,
        Err(e) => {
            // SAFETY: as this function's.
            unsafe { write_err(&e.0, err, errlen) };
            -1
        }
    }
}

/// See noid_embed.h.
///
/// # Safety
/// As `noid_map_check`'s.
#[no_mangle]
pub unsafe extern "C" fn noid_map_region_bytes(
    protocol: *const c_char,
    dbdir: *const c_char,
    opts: *const *const c_char,
    nopts: usize,
) -> usize {
    boundary("noid_map_region_bytes", 0, || {
        // SAFETY: as this function's.
        unsafe { config(protocol, dbdir, opts, nopts) }.map_or(0, |c| c.region_bytes())
    })
}

/// See noid_embed.h.
///
/// # Safety
/// As `noid_map_check`'s; `shared` is NULL or an 8-aligned word of memory shared by the
/// server's processes, mapped for as long as the map is open; `region` is NULL or
/// `region_len` bytes of such memory, 8-aligned, zeroed by the parent and used by
/// nothing but the maps opened with it.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the C ABI: pointers and lengths
pub unsafe extern "C" fn noid_map_open(
    protocol: *const c_char,
    dbdir: *const c_char,
    opts: *const *const c_char,
    nopts: usize,
    shared: *mut u64,
    region: *mut u8,
    region_len: usize,
    err: *mut c_char,
    errlen: usize,
) -> *mut Map {
    let opened = boundary(
        "noid_map_open",
        Err(ConfigError("internal error".into())),
        || {
            // SAFETY: as this function's.
            let config = unsafe { config(protocol, dbdir, opts, nopts) }?;
            // SAFETY: as this function's.
            let shared = (!shared.is_null()).then(|| unsafe { SharedWord::new(shared) });
            // SAFETY: as this function's (`new` refuses NULL and a region too small).
            let region = unsafe { AnswerRegion::new(region, region_len) };
            Map::open(&config, shared, region)
        },
    );
    match opened {
        Ok(map) => Box::into_raw(Box::new(map)),
        Err(e) => {
            // SAFETY: as this function's.
            unsafe { write_err(&e.0, err, errlen) };
            std::ptr::null_mut()
        }
    }
}

/// See noid_embed.h.
///
/// # Safety
/// `map` comes from `noid_map_open` and is not closed; `key` holds `keylen` bytes;
/// `answer` and `len` are writable.
#[no_mangle]
pub unsafe extern "C" fn noid_map_answer(
    map: *const Map,
    key: *const c_char,
    keylen: usize,
    answer: *mut *const c_char,
    len: *mut usize,
) -> c_int {
    ANSWER.with(|buf| {
        let mut buf = buf.borrow_mut();
        buf.clear();
        let code = lookup(&mut buf, |buf| {
            // SAFETY: as this function's.
            let (map, key) =
                unsafe { (&*map, std::slice::from_raw_parts(key.cast::<u8>(), keylen)) };
            map.answer(key, buf)
        });
        // SAFETY: as this function's; the buffer lives in this thread until its next
        // lookup.
        unsafe {
            *answer = buf.as_ptr().cast::<c_char>();
            *len = buf.len();
        }
        code
    })
}

/// The result code of a lookup that answers into `buf` (emptied first), run through
/// [`boundary`]: a panic leaves [`PANICKED`] in `buf` and is an error.
fn lookup(buf: &mut Vec<u8>, answer: impl FnOnce(&mut Vec<u8>) -> Found) -> c_int {
    buf.clear();
    match boundary("a lookup", None, || Some(answer(&mut *buf))) {
        Some(Found::Value) => FOUND,
        Some(Found::NotFound) => NOT_FOUND,
        Some(Found::Error) => ERROR,
        None => {
            buf.clear();
            buf.extend_from_slice(PANICKED);
            ERROR
        }
    }
}

/// See noid_embed.h.
///
/// # Safety
/// `map` comes from `noid_map_open` with the egg protocol and is not closed; `target`,
/// `scheme` and `accept` hold `tlen`, `slen` and `alen` bytes; `status`, `location`
/// and `loclen` are writable.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the C ABI: pointers and lengths
pub unsafe extern "C" fn noid_map_redirect(
    map: *const Map,
    target: *const c_char,
    tlen: usize,
    scheme: *const c_char,
    slen: usize,
    accept: *const c_char,
    alen: usize,
    user_agent: *const c_char,
    ualen: usize,
    status: *mut c_int,
    location: *mut *const c_char,
    loclen: *mut usize,
) -> c_int {
    // SAFETY: as this function's.
    unsafe {
        redirect(
            false, map, target, tlen, scheme, slen, accept, alen, user_agent, ualen, status,
            location, loclen,
        )
    }
}

/// See noid_embed.h.
///
/// # Safety
/// As `noid_map_redirect`'s.
#[no_mangle]
#[allow(clippy::too_many_arguments)] // the C ABI: pointers and lengths
pub unsafe extern "C" fn noid_map_redirect_plain(
    map: *const Map,
    target: *const c_char,
    tlen: usize,
    scheme: *const c_char,
    slen: usize,
    accept: *const c_char,
    alen: usize,
    user_agent: *const c_char,
    ualen: usize,
    status: *mut c_int,
    location: *mut *const c_char,
    loclen: *mut usize,
) -> c_int {
    // SAFETY: as this function's.
    unsafe {
        redirect(
            true, map, target, tlen, scheme, slen, accept, alen, user_agent, ualen, status,
            location, loclen,
        )
    }
}

/// `noid_map_redirect`, or with `plain` `noid_map_redirect_plain`.
///
/// # Safety
/// As `noid_map_redirect`'s.
#[allow(clippy::too_many_arguments)] // the C ABI's arguments, passed on
unsafe fn redirect(
    plain: bool,
    map: *const Map,
    target: *const c_char,
    tlen: usize,
    scheme: *const c_char,
    slen: usize,
    accept: *const c_char,
    alen: usize,
    user_agent: *const c_char,
    ualen: usize,
    status: *mut c_int,
    location: *mut *const c_char,
    loclen: *mut usize,
) -> c_int {
    // SAFETY: as this function's.
    let (map, request) = unsafe {
        let request = HttpRequest {
            target: slice(target, tlen),
            scheme: slice(scheme, slen),
            accept: slice(accept, alen),
            // NULL: the request has no User-Agent (an empty one is sent as such).
            user_agent: (!user_agent.is_null()).then(|| slice(user_agent, ualen)),
        };
        (&*map, request)
    };
    ANSWER.with(|buf| {
        let mut buf = buf.borrow_mut();
        let found = lookup(&mut buf, |buf| map.answer_request(&request, plain, buf));
        // A signposted redirect's Link value, kept apart: the target is the answer's tail.
        LINK.with(|link| {
            let mut link = link.borrow_mut();
            link.clear();
            if found == FOUND {
                if let (answer, Some(value)) = split_link(&buf) {
                    let at = answer.len();
                    link.extend_from_slice(value);
                    buf.truncate(at);
                }
            }
        });
        let (found, code, start, end) = if plain {
            // Only what the rules would send unchanged; everything else, errors
            // included, is left to them.
            match (found, plain_redirect(&buf)) {
                // the target is the answer line's tail
                (FOUND, Some((code, to))) => (FOUND, code, buf.len() - to.len(), buf.len()),
                _ => (NOT_FOUND, 0, 0, 0),
            }
        } else {
            // The target is the answer line's tail: where it starts.
            let (code, found, start) = match (found, read_answer(&buf)) {
                (FOUND, Redirect::To(code, to)) => (code, FOUND, buf.len() - to.len()),
                (FOUND, Redirect::Page) => (0, FOUND, buf.len()),
                (ERROR, _) => (0, ERROR, 0),
                _ => (0, NOT_FOUND, buf.len()),
            };
            if found == FOUND && !header::is_clean(&buf[start..]) {
                // A target bound with control characters: the Location carries none.
                let target = buf.split_off(start);
                header::clean_into(&mut buf, &target);
            }
            (found, code, start, buf.len())
        };
        let to = &buf[start..end];
        // SAFETY: as this function's; the buffer lives in this thread until its next
        // lookup.
        unsafe {
            *status = c_int::from(code);
            *location = to.as_ptr().cast();
            *loclen = to.len();
        }
        found
    })
}

/// See noid_embed.h.
///
/// # Safety
/// `link` and `len` are writable.
#[no_mangle]
pub unsafe extern "C" fn noid_map_link(link: *mut *const c_char, len: *mut usize) {
    LINK.with(|value| {
        let value = value.borrow();
        // SAFETY: as this function's; the value lives in this thread until its next
        // redirect lookup.
        unsafe {
            *link = value.as_ptr().cast();
            *len = value.len();
        }
    });
}

/// `n` bytes at `p` (none for a NULL `p`).
///
/// # Safety
/// `p` is NULL or points to `n` readable bytes that outlive the slice's use.
unsafe fn slice<'a>(p: *const c_char, n: usize) -> &'a [u8] {
    if p.is_null() || n == 0 {
        return &[];
    }
    // SAFETY: as this function's.
    unsafe { std::slice::from_raw_parts(p.cast::<u8>(), n) }
}

/// See noid_embed.h.
///
/// # Safety
/// `map` comes from `noid_map_open` (or is NULL), and no lookup on it is under way or
/// comes later.
#[no_mangle]
pub unsafe extern "C" fn noid_map_close(map: *mut Map) {
    if map.is_null() {
        return;
    }
    // SAFETY: as this function's: the box is ours again, once.
    let map = unsafe { Box::from_raw(map) };
    boundary("noid_map_close", (), move || drop(map));
}
