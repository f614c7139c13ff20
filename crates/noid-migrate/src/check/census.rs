//! The census: counts gathered in one pass over every record of the store, and the
//! (rare) identifiers stored under a spelling other than the directory's own.

use noid_core::keys;
use noid_core::Lookup;
use noid_minter::gate::Gate;
use noid_minter::Minter;

use super::CheckError;

/// An identifier stored under a spelling other than the one its directory stores it
/// under (a record written before the identifier gate existed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Respelled {
    /// The spelling it is stored under (`ark:13030/x`).
    pub stored: String,
    /// The directory's spelling of it (`13030/x`).
    pub canonical: String,
}

/// Counts gathered in one pass over every record, in bytewise key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Census {
    /// All records.
    pub records: u64,
    /// Circulation records whose latest status is `i` (issued).
    pub issued: u64,
    /// … `q` (queued).
    pub queued_status: u64,
    /// … `u` (unqueued).
    pub unqueued: u64,
    /// … anything else.
    pub other_status: u64,
    /// `ID<TAB>:/h` keys.
    pub holds: u64,
    /// `:/q/…` queue entries.
    pub queue_entries: u64,
    /// `:/idmap/…` rules.
    pub idmap_rules: u64,
    /// `:/:/…` notes.
    pub notes: u64,
    /// User bindings (`ID<TAB>ELEM`, ELEM not starting with `:/`).
    pub bindings: u64,
    /// Identifiers with at least one user binding.
    pub bound_ids: u64,
    /// Identifiers stored under another spelling than the directory's, in key order.
    /// Labelled ARKs (`ark:…`, `https://host/ark:…`) and ARKs whose identifier part
    /// is not in the ARK draft's normal form (`13030/x-y`, `ark:/99999/a%7e`) are: a
    /// bare `NAAN/…` of another NAAN is another spelling only in a populator's binder,
    /// whose NAANs the directory does not record.
    pub respelled: Vec<Respelled>,
    last_bound: Vec<u8>,
    last_id: Vec<u8>,
    gate: Gate,
}

impl Census {
    /// An empty census of a directory whose identifiers `gate` spells.
    pub fn new(gate: Gate) -> Census {
        Census {
            gate,
            ..Census::default()
        }
    }

    /// An empty census of the minter stored in `l`, spelling identifiers as its
    /// directory does ([`Gate::of`]).
    pub fn of<L: Lookup + ?Sized>(l: &L) -> Result<Census, CheckError> {
        Ok(Census::new(Gate::of(&Minter::load(l)?)))
    }

    /// Count one record.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        self.records += 1;
        if key.starts_with(keys::ADMIN_PREFIX.as_bytes()) {
            if key.starts_with(keys::QUEUE_PREFIX) {
                self.queue_entries += 1;
            } else if key.starts_with(keys::IDMAP_PREFIX) {
                // Long-term minters hold the pseudo-identifier `:/idmap/ELEM` too.
                let held = key
                    .strip_suffix(keys::HOLD.as_bytes())
                    .is_some_and(|k| k.last() == Some(&keys::SEPARATOR));
                if held {
                    self.holds += 1;
                } else {
                    self.idmap_rules += 1;
                }
            } else if key.starts_with(keys::NOTE_PREFIX.as_bytes()) {
                self.notes += 1;
            }
            return;
        }
        let Some(tab) = key.iter().position(|&b| b == keys::SEPARATOR) else {
            return;
        };
        let (id, elem) = (&key[..tab], &key[tab + 1..]);
        // An identifier's keys are contiguous (they share the prefix `ID<TAB>`).
        if self.last_id != id {
            self.last_id.clear();
            self.last_id.extend_from_slice(id);
            self.spell(id);
        }
        match elem {
            e if e == keys::CIRC.as_bytes() => match value.first() {
                Some(b'i') => self.issued += 1,
                Some(b'q') => self.queued_status += 1,
                Some(b'u') => self.unqueued += 1,
                _ => self.other_status += 1,
            },
            e if e == keys::HOLD.as_bytes() => self.holds += 1,
            e if keys::is_admin_elem(e) => {}
            _ => {
                self.bindings += 1;
                if self.bound_ids == 0 || self.last_bound != id {
                    self.bound_ids += 1;
                    self.last_bound.clear();
                    self.last_bound.extend_from_slice(id);
                }
            }
        }
    }

    /// Note `id` when the directory stores it under another spelling: a labelled ARK,
    /// or an ARK whose identifier part is not in the draft's normal form (hyphens, a
    /// lower-case `%xx`), which the gate now writes without them.
    fn spell(&mut self, id: &[u8]) {
        // The cheap tests first: an ARK label starts with `a` or `A`, a resolver's
        // address before one with `h` or `H`; a part to normalise holds a `-`, a `%` or
        // the lead byte 0xE2 of the typographic hyphens.
        let labelled = matches!(id.first(), Some(b'a' | b'A' | b'h' | b'H'));
        if !labelled && !id.iter().any(|b| matches!(b, b'-' | b'%' | 0xE2)) {
            return;
        }
        let Ok(id) = std::str::from_utf8(id) else {
            return;
        };
        if let Some(canonical) = self.gate.stored_spelling(id) {
            self.respelled.push(Respelled {
                stored: id.to_string(),
                canonical,
            });
        }
    }
}
