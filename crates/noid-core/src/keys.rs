//! The key layout of Perl Noid 0.424 (spec §4), in one place: every crate that reads or
//! writes a minter's key space (the minter, the resolver, the daemon's caches, the
//! migration tools) builds its keys here.
//!
//! The builders are `#[inline]`: the minter builds several keys per minted id, and
//! without it a call from another crate could not be inlined.
//!
//! Admin keys start with `:/`; per-identifier keys are `ID<TAB>ELEM`, with the
//! reserved elements `:/c` (circulation), `:/h` (hold), `:/m` (last write) and `:/p`
//! (pepper), which are admin elements too (they start with `:/`).

/// What every admin key, and every reserved element of an identifier, starts with.
pub const ADMIN_PREFIX: &str = ":/";

/// Separates an identifier from its element in a binding key.
pub const SEPARATOR: u8 = b'\t';

/// The circulation record element.
pub const CIRC: &str = ":/c";

/// The hold element.
pub const HOLD: &str = ":/h";

/// The pepper element.
pub const PEPPER: &str = ":/p";

/// The last-write element: when the identifier's bindings were last changed, in
/// seconds since the epoch (decimal text). Not Perl Noid's: written by every binding
/// path (`noid_minter::modified::record`), read for HTTP's `Last-Modified`; like the
/// other `:/` elements it is hidden from `fetch`, `get` and egg reads.
pub const MODIFIED: &str = ":/m";

/// The prefix of every `:idmap` rule key.
pub const IDMAP_PREFIX: &[u8] = b":/idmap/";

/// The prefix of every queue entry.
pub const QUEUE_PREFIX: &[u8] = b":/q/";

/// The prefix of user notes, `:/:/`.
pub const NOTE_PREFIX: &str = ":/:/";

/// The admin key `:/NAME`.
#[inline]
pub fn admin(name: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(ADMIN_PREFIX.len() + name.len());
    k.extend_from_slice(ADMIN_PREFIX.as_bytes());
    k.extend_from_slice(name.as_bytes());
    k
}

/// The names (after `:/`) of the admin keys that more than one module reads or writes;
/// build the keys with [`admin`].
pub mod name {
    /// The generator's counter: how many identifiers have been generated.
    pub const OACOUNTER: &str = "oacounter";
    /// The template's mask (`reedeedk`, `lui10-4` …).
    pub const MASK: &str = "mask";
    /// The whole template (`Prefix.Mask`), "" for a bind-only minter.
    pub const TEMPLATE: &str = "template";
    /// The minter's NAAN.
    pub const NAAN: &str = "naan";
    /// A noid extension that vouches that no candidate the generator has yet to
    /// produce in its current cycle has a circulation record or a hold.
    ///
    /// Minting must skip held and already-circulating candidates, which costs two
    /// store probes per candidate; on a large mint those probes are most of the time
    /// spent. Before its first wrap a generator never repeats a candidate, so the
    /// probes can only find records that something other than the generator wrote: a
    /// queue entry or a hold on an identifier not yet issued. `dbcreate` sets the key;
    /// queueing, such a hold, and a wrap remove it for good, and minting then probes
    /// as Perl does. A minter without the key (one imported from Perl Noid, say)
    /// always probes.
    pub const FRESH: &str = "fresh";
    /// A noid extension holding a LUI minter's secret permutation key, 32 hexadecimal
    /// digits made from the OS's random source at `dbcreate` (the key is
    /// [`super::LUI_KEY`]).
    pub const LUI: &str = "luikey";
    /// A noid extension holding what the minter does when its namespace is used up
    /// (`addN`, `stopN`, `wrapN`); without it, Perl Noid's behaviour.
    pub const ATLAST: &str = "atlast";
}

/// `:/luikey`, the secret of a LUI minter's permutation. Only a LUI minter has it, so
/// a reader learns from one (cached) prefix check whether other spellings of an
/// identifier can be asked for at all.
pub const LUI_KEY: &[u8] = b":/luikey";

/// The binding key `ID<TAB>ELEM`.
#[inline]
pub fn elem(id: &str, elem: &str) -> Vec<u8> {
    // Allocated at its final size: one key per minted id, so the cost counts.
    let mut k = Vec::with_capacity(id.len() + elem.len() + 1);
    push_elem(&mut k, id, elem);
    k
}

/// The binding key `ID<TAB>ELEM` built into `buf` (cleared first), reusing its
/// allocation: resolution builds several keys per request into one buffer. (Inlined: a
/// chop-back builds eight keys, most with a constant element.)
#[inline]
pub fn elem_into(buf: &mut Vec<u8>, id: &str, elem: &str) {
    buf.clear();
    buf.reserve(id.len() + elem.len() + 1);
    push_elem(buf, id, elem);
}

#[inline]
fn push_elem(buf: &mut Vec<u8>, id: &str, elem: &str) {
    buf.extend_from_slice(id.as_bytes());
    buf.push(SEPARATOR);
    buf.extend_from_slice(elem.as_bytes());
}

/// The prefix under which all of an identifier's keys sort: `ID<TAB>`.
#[inline]
pub fn id_prefix(id: &str) -> Vec<u8> {
    elem(id, "")
}

/// Whether a binding's element is an admin element (`:/c`, `:/h`, `:/p` …), which
/// listings of an identifier's bindings leave out.
#[inline]
pub fn is_admin_elem(elem: &[u8]) -> bool {
    elem.starts_with(ADMIN_PREFIX.as_bytes())
}

/// A binding key split into its identifier and element, or None for an admin key
/// (`:/…`) and for an identifier's admin elements (`ID<TAB>:/…`).
pub fn split_binding(key: &[u8]) -> Option<(&[u8], &[u8])> {
    if key.starts_with(ADMIN_PREFIX.as_bytes()) {
        return None;
    }
    let tab = memchr::memchr(SEPARATOR, key)?;
    let (id, elem) = (&key[..tab], &key[tab + 1..]);
    (!is_admin_elem(elem)).then_some((id, elem))
}

/// The circulation record key `ID<TAB>:/c`.
#[inline]
pub fn circ(id: &str) -> Vec<u8> {
    elem(id, CIRC)
}

/// The hold key `ID<TAB>:/h`.
#[inline]
pub fn hold(id: &str) -> Vec<u8> {
    elem(id, HOLD)
}

/// The pepper key `ID<TAB>:/p`.
#[inline]
pub fn pepper(id: &str) -> Vec<u8> {
    elem(id, PEPPER)
}

/// The last-write key `ID<TAB>:/m`.
#[inline]
pub fn modified(id: &str) -> Vec<u8> {
    elem(id, MODIFIED)
}

/// The queue entry key `:/q/QDATE/SEQ6/PADDEDID`.
#[inline]
pub fn queue(qdate: &str, seqnum: u64, padded_id: &str) -> Vec<u8> {
    format!(":/q/{qdate}/{:06}/{padded_id}", seqnum % 1_000_000).into_bytes()
}

/// The `:idmap` rule key `:/idmap/ELEM<TAB>PATTERN`.
#[inline]
pub fn idmap(elem_name: &str, pattern: &str) -> Vec<u8> {
    let mut k = idmap_prefix(elem_name);
    k.extend_from_slice(pattern.as_bytes());
    k
}

/// The prefix of every `:idmap` rule of one element: `:/idmap/ELEM<TAB>`.
#[inline]
pub fn idmap_prefix(elem_name: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(IDMAP_PREFIX.len() + elem_name.len() + 1);
    k.extend_from_slice(IDMAP_PREFIX);
    k.extend_from_slice(elem_name.as_bytes());
    k.push(SEPARATOR);
    k
}

/// Whether `key` (or a key prefix) lies among the `:idmap` rules.
#[inline]
pub fn is_idmap_key(key: &[u8]) -> bool {
    key.starts_with(IDMAP_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout as spec §4 writes it out.
    #[test]
    fn layout() {
        assert_eq!(admin("oacounter"), b":/oacounter");
        // Readers find LUI minters by the key `dbcreate` writes: one key, two spellings.
        assert_eq!(admin(name::LUI), LUI_KEY);
        assert_eq!(elem("13030/f5", "_t"), b"13030/f5\t_t");
        assert_eq!(id_prefix("13030/f5"), b"13030/f5\t");
        assert_eq!(circ("x"), b"x\t:/c");
        assert_eq!(hold("x"), b"x\t:/h");
        assert_eq!(pepper("x"), b"x\t:/p");
        assert_eq!(modified("x"), b"x\t:/m");
        assert_eq!(queue("20260101", 1_000_007, "x"), b":/q/20260101/000007/x");
        assert_eq!(idmap("_t", "^ft"), b":/idmap/_t\t^ft");
        assert_eq!(idmap_prefix("_t"), b":/idmap/_t\t");
        assert!(is_idmap_key(b":/idmap/_t\t^ft"));
        assert!(!is_idmap_key(b":/q/x"));
        assert!(is_admin_elem(b":/c"));
        assert!(!is_admin_elem(b"_t"));
    }
}
