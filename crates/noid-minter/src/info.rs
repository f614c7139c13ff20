//! `dbinfo brief|full|dump`: the minter's key space as text.

use noid_core::Lookup;

use crate::error::MinterError;

/// The dbinfo text for `level` (`brief` when absent).
pub fn dbinfo<L: Lookup + ?Sized>(l: &L, level: &str) -> Result<Vec<u8>, MinterError> {
    let mut out = Vec::new();
    let line = |out: &mut Vec<u8>, indent: &str, k: &[u8], v: &[u8]| {
        out.extend_from_slice(indent.as_bytes());
        out.extend_from_slice(k);
        out.extend_from_slice(b": ");
        out.extend_from_slice(v);
        out.push(b'\n');
    };
    if level == "dump" {
        for (k, v) in l.scan_prefix(b"", usize::MAX)? {
            line(&mut out, "", &k, &v);
        }
        return Ok(out);
    }
    let notes = l.scan_prefix(noid_core::keys::NOTE_PREFIX.as_bytes(), usize::MAX)?;
    if !notes.is_empty() {
        out.extend_from_slice(b"User Assigned Values\n");
        for (k, v) in &notes {
            line(&mut out, "  ", k, v);
        }
        out.push(b'\n');
    }
    out.extend_from_slice(b"Admin Values\n");
    for (k, v) in l.scan_prefix(b":/", usize::MAX)? {
        if level != "full" && brief_hides(&k) {
            continue;
        }
        line(&mut out, "  ", &k, &v);
    }
    out.push(b'\n');
    Ok(out)
}

/// Keys `dbinfo brief` leaves out: the counters and counter lists, and a LUI minter's
/// secret key (whoever has it can tell which identifiers come next).
fn brief_hides(k: &[u8]) -> bool {
    if k.strip_prefix(b":/") == Some(noid_core::keys::name::LUI.as_bytes()) {
        return true;
    }
    if let Some(rest) = k.strip_prefix(b":/c") {
        return rest.first().is_some_and(u8::is_ascii_digit);
    }
    k.starts_with(b":/saclist") || k.starts_with(b":/recycle/")
}
