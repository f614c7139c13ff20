//! The census: counts gathered in one pass over every record of the store.

use noid_core::keys;

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
    last_bound: Vec<u8>,
}

impl Census {
    /// An empty census.
    pub fn new() -> Census {
        Census::default()
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
}
