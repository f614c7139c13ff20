//! The key layout of Perl Noid 0.424 (spec §4), in one place.
//!
//! Admin keys start with `:/`; per-identifier keys are `ID<TAB>ELEM`, with the
//! reserved elements `:/c` (circulation), `:/h` (hold) and `:/p` (pepper).

/// The admin key `:/NAME`.
pub fn admin(name: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(2 + name.len());
    k.extend_from_slice(b":/");
    k.extend_from_slice(name.as_bytes());
    k
}

/// The binding key `ID<TAB>ELEM`.
pub fn elem(id: &str, elem: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(id.len() + 1 + elem.len());
    k.extend_from_slice(id.as_bytes());
    k.push(b'\t');
    k.extend_from_slice(elem.as_bytes());
    k
}

/// The prefix under which all of an identifier's keys sort: `ID<TAB>`.
pub fn id_prefix(id: &str) -> Vec<u8> {
    elem(id, "")
}

/// The circulation record key `ID<TAB>:/c`.
pub fn circ(id: &str) -> Vec<u8> {
    elem(id, ":/c")
}

/// The hold key `ID<TAB>:/h`.
pub fn hold(id: &str) -> Vec<u8> {
    elem(id, ":/h")
}

/// The pepper key `ID<TAB>:/p`.
pub fn pepper(id: &str) -> Vec<u8> {
    elem(id, ":/p")
}

/// The prefix of every queue entry.
pub const QUEUE_PREFIX: &[u8] = b":/q/";

/// The queue entry key `:/q/QDATE/SEQ6/PADDEDID`.
pub fn queue(qdate: &str, seqnum: u64, padded_id: &str) -> Vec<u8> {
    format!(":/q/{qdate}/{:06}/{padded_id}", seqnum % 1_000_000).into_bytes()
}

/// The prefix of user notes, `:/:/`.
pub const NOTE_PREFIX: &str = ":/:/";

/// The `:idmap` rule key `:/idmap/ELEM<TAB>PATTERN`.
pub fn idmap(elem_name: &str, pattern: &str) -> Vec<u8> {
    format!(":/idmap/{elem_name}\t{pattern}").into_bytes()
}
