//! What a mint form minted, kept in the service's memory so that the form's POST can
//! answer `303 See Other` to a page that shows it: reloading that page shows the same
//! identifiers and mints nothing. Kept per service, the last [`KEPT`] results, each
//! shown only to the populator whose login minted it (as the uploads are,
//! `crate::upload::run::Uploads`).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// Mint results kept for their pages, per service.
pub const KEPT: usize = 64;

/// One submission of the mint form.
#[derive(Debug)]
pub struct Minted {
    /// Its number, in its page's query.
    pub number: u64,
    /// The populator whose minter minted.
    pub populator: String,
    /// The minter, as `SCHEME/NAAN/SHOULDER`.
    pub minter: [String; 3],
    /// The identifiers, as the minter gave them, in minting order.
    pub ids: Vec<String>,
    /// Why minting stopped early, if it did.
    pub stopped: Option<String>,
    /// Whether targets were asked for, and if so why binding them failed (`Some(None)`:
    /// bound).
    pub bound: Option<Option<String>>,
}

impl Minted {
    /// Identifier `id` in full: under an `ark` minter `ark:/NAAN/…` (the minter mints
    /// `NAAN/…`, and the binder stores ARKs so), otherwise `SCHEME:ID`.
    pub fn full(&self, id: &str) -> String {
        full_id(&self.minter[0], id)
    }
}

/// `id`, minted by a minter of scheme `scheme`, in full (see [`Minted::full`]).
pub fn full_id(scheme: &str, id: &str) -> String {
    let scheme = scheme.to_ascii_lowercase();
    if id.to_ascii_lowercase().starts_with(&format!("{scheme}:")) {
        id.to_string()
    } else if scheme == "ark" {
        format!("ark:/{id}")
    } else {
        format!("{scheme}:{id}")
    }
}

/// The mint results of a service.
#[derive(Default)]
pub struct Kept {
    next: AtomicU64,
    results: Mutex<VecDeque<Arc<Minted>>>,
}

impl Kept {
    /// Keep `minted` (its number is given here), forgetting the oldest beyond [`KEPT`].
    pub fn add(&self, mut minted: Minted) -> Arc<Minted> {
        minted.number = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let minted = Arc::new(minted);
        let mut results = self.results.lock().expect("minted");
        if results.len() == KEPT {
            results.pop_front();
        }
        results.push_back(minted.clone());
        minted
    }

    /// Result `number`, if it is kept and belongs to `populator`.
    pub fn get(&self, number: u64, populator: &str) -> Option<Arc<Minted>> {
        let results = self.results.lock().expect("minted");
        results
            .iter()
            .find(|m| m.number == number && m.populator == populator)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn minted(populator: &str) -> Minted {
        Minted {
            number: 0,
            populator: populator.into(),
            minter: ["ark".into(), "99999".into(), "fk4".into()],
            ids: vec!["99999/fk4x".into()],
            stopped: None,
            bound: None,
        }
    }

    #[test]
    fn only_the_last_are_kept_and_only_for_their_populator() {
        let kept = Kept::default();
        let first = kept.add(minted("sam"));
        assert_eq!(first.number, 1);
        assert!(kept.get(1, "sam").is_some());
        assert!(kept.get(1, "other").is_none());
        for _ in 0..KEPT {
            kept.add(minted("sam"));
        }
        assert!(kept.get(1, "sam").is_none(), "the oldest is forgotten");
        assert!(kept.get(2, "sam").is_some());
        assert!(kept.get(KEPT as u64 + 1, "sam").is_some());
    }

    #[test]
    fn full_identifiers() {
        assert_eq!(full_id("ark", "99999/fk4x"), "ark:/99999/fk4x");
        assert_eq!(full_id("ark", "ark:/99999/fk4x"), "ark:/99999/fk4x");
        assert_eq!(full_id("doi", "10.5072/x"), "doi:10.5072/x");
    }
}
