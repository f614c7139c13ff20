//! The memo's kept answer of this thread's last HTTP lookup, so that counting the
//! request (`--counts`) is one increment in that answer ([`Counting::count_kept`])
//! rather than a second hash and look-up of its identifier.
//!
//! noid-http asks the backend to resolve a request, then to count it, on the same
//! thread and for the same request, passing the same identifier string to both; so
//! the lookup leaves its kept answer here with where that string is, and the count
//! takes it back only for that very string (same address and length: no bytes
//! compared, none copied). An identifier resolved again as sent (`%7E` kept) is a
//! second string, alive at the same time, and counted as the first: the kept answer
//! is then not this request's, and the count looks it up. Every lookup first forgets
//! the last one, so an answer that was not kept (a page) never counts on an earlier
//! one, whatever a later request's string reuses.
//!
//! [`Counting::count_kept`]: noid_counts::Counting::count_kept

use std::cell::RefCell;
use std::sync::Arc;

use noid_core::Kept;

/// The last lookup's kept answer and where the identifier it was asked for is.
struct Last {
    kept: Option<Arc<Kept>>,
    id: (usize, usize),
}

thread_local! {
    static LAST: RefCell<Last> = const { RefCell::new(Last { kept: None, id: (0, 0) }) };
}

/// Where `id` is: its address and length.
fn place(id: &str) -> (usize, usize) {
    (id.as_ptr() as usize, id.len())
}

/// Forgets the last lookup's answer (a lookup begins).
#[inline]
pub fn forget() {
    LAST.with_borrow_mut(|last| last.kept = None);
}

/// Keeps `kept`, the answer to a lookup of `id`.
#[inline]
pub fn remember(kept: &Arc<Kept>, id: &str) {
    LAST.with_borrow_mut(|last| {
        last.kept = Some(kept.clone());
        last.id = place(id);
    });
}

/// The last lookup's kept answer, if it was a lookup of this very `id` string; taken.
#[inline]
pub fn take_for(id: &str) -> Option<Arc<Kept>> {
    LAST.with_borrow_mut(|last| {
        if last.id == place(id) {
            last.kept.take()
        } else {
            None
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_answer_is_taken_once_and_only_for_its_identifier_string() {
        let kept = Kept::new(&b"\x00"[..]);
        let (decoded, sent) = (String::from("ark:/1/a~b"), String::from("ark:/1/a%7Eb"));
        remember(&kept, &sent);
        assert!(take_for(&decoded).is_none(), "another identifier");
        remember(&kept, &decoded);
        let same_bytes = decoded.clone();
        assert!(take_for(&same_bytes).is_none(), "the same bytes elsewhere");
        assert!(take_for(&decoded).is_some());
        assert!(take_for(&decoded).is_none(), "taken");
        remember(&kept, &decoded);
        forget();
        assert!(take_for(&decoded).is_none(), "forgotten by the next lookup");
    }
}
