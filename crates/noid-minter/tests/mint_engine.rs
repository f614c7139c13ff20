//! The mint engine tested directly, over a store in memory whose commit can be made to
//! fail: the identifiers come out in Perl Noid's order (compared with minters Perl Noid
//! 0.424 made) one commit at a time and with two in flight; after a failed commit or a
//! failed mint nothing half-written remains, and the next mint goes on with exactly the
//! identifier Perl Noid would give.

mod support;

use noid_core::{keys, Lookup};
use noid_minter::batch;
use noid_minter::mint_engine::{
    mint_in_batches, mint_in_one, BindEach, Landing, Minted, Order, Stopped,
};
use noid_minter::{Minter, Txn};
use support::{
    context, perl_issued, perl_next, random_long, random_short, sequential_medium, MemError,
    MemStore,
};

/// What a caller shows: identifiers only after the commit that makes them durable.
#[derive(Default)]
struct Shown {
    /// Minted, waiting for a commit.
    pending: Vec<Minted>,
    /// Shown, in order.
    shown: Vec<Minted>,
    /// Commits that failed, as reported.
    failures: Vec<String>,
}

impl Shown {
    fn ids(&self) -> Vec<String> {
        self.shown.iter().map(|m| m.id.clone()).collect()
    }
}

impl Landing<MemStore> for Shown {
    fn minted(&mut self, minted: Vec<Minted>) {
        self.pending.extend(minted);
    }

    fn commit(&mut self, txn: &mut Txn<'_, MemStore>) -> Result<(), Stopped> {
        match batch::commit(txn) {
            Ok(()) => self.print(),
            Err(e) => {
                self.failed_commit(e);
                Err(Stopped::Reported)
            }
        }
    }

    fn print(&mut self) -> Result<(), Stopped> {
        self.shown.append(&mut self.pending);
        Ok(())
    }

    fn failed_commit(&mut self, e: MemError) {
        self.pending.clear();
        self.failures.push(e.to_string());
    }
}

/// Mint `order` in batches into `store` as `noid mint` does, committing the last batch
/// (which the engine leaves to its caller) when the mint succeeded.
fn mint(store: &MemStore, order: &Order<'_>, shown: &mut Shown) -> Result<(), Stopped> {
    let mut txn = Txn::new(store);
    let mut m = Minter::load(&txn).expect("a minter");
    let result = mint_in_batches(&mut txn, &mut m, &context(), order, shown);
    if result.is_ok() {
        m.flush(&mut txn);
        shown.commit(&mut txn)?;
    }
    assert!(txn.is_empty(), "nothing of the mint is left uncommitted");
    assert_eq!(
        m.gen,
        Minter::load(store).unwrap().gen,
        "the minter in memory is the stored one"
    );
    result
}

/// A store with batches of 4 identifiers and `depth` commits in flight.
fn batched(store: MemStore, depth: usize) -> MemStore {
    store.batched(4, depth)
}

#[test]
fn batches_mint_in_perl_order_one_at_a_time_and_two_in_flight() {
    let perl = perl_issued("random-long");
    assert_eq!(perl.len(), 25, "the fixture's mint 25");
    for depth in [1, 2] {
        let store = batched(random_long(), depth);
        let mut shown = Shown::default();
        mint(&store, &Order::plain(25), &mut shown).expect("mint 25");
        assert_eq!(shown.ids(), perl, "{depth} in flight");
        let mut circulating = perl.clone();
        circulating.sort();
        assert_eq!(store.circulating(), circulating);
        assert_eq!(store.admin("oacounter"), "25");
        // The start, seven batches of 4 committed on the way (the last with them when
        // two are in flight), none failed.
        assert!(store.commits() >= 8, "{} commits", store.commits());
        assert!(shown.failures.is_empty());
        if depth == 2 {
            assert!(
                store.commits_after_previous() > 0,
                "commits were made while the one before was in flight"
            );
        } else {
            assert_eq!(store.commits_after_previous(), 0);
        }
    }
}

#[test]
fn a_short_minter_wraps_as_perl_did_with_two_in_flight() {
    // `.rd short`: ten identifiers, then it wraps (`:/fresh` drops, and the commits in
    // flight are awaited before each identifier is minted).
    let mut perl = perl_issued("random-short");
    perl.extend(perl_next("random-short"));
    assert_eq!(perl.len(), 37);
    let store = batched(random_short(), 2);
    let mut shown = Shown::default();
    mint(&store, &Order::plain(37), &mut shown).expect("mint 37");
    assert_eq!(shown.ids(), perl);
}

#[test]
fn a_failed_commit_leaves_what_was_committed_and_the_next_mint_goes_on_as_perl_did() {
    let perl = perl_issued("random-long");
    for depth in [1, 2] {
        let store = batched(random_long(), depth);
        // The first commit is the empty one at the start; then batches 1, 2 and 3.
        store.fail_commit(4);
        let mut shown = Shown::default();
        let failed = mint(&store, &Order::plain(25), &mut shown);
        assert!(matches!(failed, Err(Stopped::Reported)), "{failed:?}");
        assert_eq!(shown.failures, ["disk full"], "{depth} in flight");
        assert_eq!(shown.ids(), perl[..8], "two batches stand");
        let mut circulating = perl[..8].to_vec();
        circulating.sort();
        assert_eq!(
            store.circulating(),
            circulating,
            "nothing of the failed batch or of any after it was written"
        );
        assert_eq!(store.admin("oacounter"), "8");
        mint(&store, &Order::plain(17), &mut shown).expect("mint 17 more");
        assert_eq!(
            shown.ids(),
            perl,
            "the failed batch's identifiers come next"
        );
        assert_eq!(store.admin("oacounter"), "25");
    }
}

#[test]
fn a_mint_that_fails_keeps_the_identifiers_before_it_then_fails_again() {
    // `tst3.sdd medium`: 99999/tst300 to 99999/tst399, then Perl's error.
    let all: Vec<String> = (0..100).map(|i| format!("99999/tst3{i:02}")).collect();
    assert_eq!(perl_next("sequential-medium")[1], all[40]);
    let exhausted = "error: identifiers exhausted (stopped at 100).";
    for (depth, bound) in [(1, false), (2, false), (1, true)] {
        let store = batched(sequential_medium(), depth);
        let each = BindEach {
            elem: "_t",
            value: "https://example.org/x",
            check_pattern: |_| Ok(()),
        };
        let order = Order {
            count: 102,
            pepper: None,
            bind: bound.then_some(each),
        };
        let mut shown = Shown::default();
        match mint(&store, &order, &mut shown) {
            Err(Stopped::Failed(e)) => assert_eq!(e.to_string(), exhausted),
            other => panic!("{other:?}"),
        }
        assert_eq!(shown.ids(), all, "depth {depth}, bound {bound}");
        assert_eq!(store.circulating(), all);
        assert_eq!(store.admin("oacounter"), "100");
        let targets = store
            .all_keys()
            .iter()
            .filter(|k| k.ends_with("\t_t"))
            .count();
        assert_eq!(targets, if bound { 100 } else { 0 });
        // The next mint fails at once, writing nothing.
        let keys = store.all_keys();
        let mut again = Shown::default();
        match mint(&store, &Order::plain(1), &mut again) {
            Err(Stopped::Failed(e)) => assert_eq!(e.to_string(), exhausted),
            other => panic!("{other:?}"),
        }
        assert!(again.shown.is_empty());
        assert_eq!(store.all_keys(), keys);
    }
}

#[test]
fn peppered_and_bound_identifiers_store_their_pepper_and_element() {
    let store = batched(sequential_medium(), 1);
    let order = Order {
        count: 6,
        pepper: Some(|| "b3dk7m9q".to_string()),
        bind: Some(BindEach {
            elem: "who",
            value: "Jane Doe",
            check_pattern: |_| Ok(()),
        }),
    };
    let mut shown = Shown::default();
    mint(&store, &order, &mut shown).expect("mint 6");
    for (i, m) in shown.shown.iter().enumerate() {
        assert_eq!(m.id, format!("99999/tst30{i}"));
        assert_eq!(m.pepper.as_deref(), Some("b3dk7m9q"));
        let get = |k: Vec<u8>| store.keys.get(&k).unwrap();
        assert_eq!(get(keys::pepper(&m.id)), Some(b"b3dk7m9q".to_vec()));
        assert_eq!(get(keys::elem(&m.id, "who")), Some(b"Jane Doe".to_vec()));
    }
}

#[test]
fn minting_in_one_transaction_keeps_what_came_before_and_stops_as_perl_did() {
    let store = sequential_medium();
    let mut txn = Txn::new(&store);
    let mut m = Minter::load(&txn).unwrap();
    let ctx = context();
    txn.put(keys::elem("99999/other", "note"), "kept");
    let ids = |v: Vec<Minted>| v.into_iter().map(|m| m.id).collect::<Vec<_>>();
    let first = mint_in_one(&mut txn, &mut m, &ctx, &Order::plain(3)).expect("mint 3");
    assert_eq!(ids(first), ["99999/tst300", "99999/tst301", "99999/tst302"]);
    let (rest, e) = mint_in_one(&mut txn, &mut m, &ctx, &Order::plain(105)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "error: identifiers exhausted (stopped at 100)."
    );
    let want: Vec<String> = (3..100).map(|i| format!("99999/tst3{i:02}")).collect();
    assert_eq!(ids(rest), want);
    m.flush(&mut txn);
    batch::commit(&mut txn).expect("commit");
    assert_eq!(store.admin("oacounter"), "100");
    assert_eq!(store.circulating().len(), 100);
    assert_eq!(
        store.keys.get(&keys::elem("99999/other", "note")).unwrap(),
        Some(b"kept".to_vec())
    );
}

#[test]
fn one_transaction_and_batches_mint_the_same_identifiers() {
    let in_batches = batched(random_long(), 2);
    let mut shown = Shown::default();
    mint(&in_batches, &Order::plain(25), &mut shown).expect("mint 25");
    let in_one = random_long();
    let mut txn = Txn::new(&in_one);
    let mut m = Minter::load(&txn).unwrap();
    let minted = mint_in_one(&mut txn, &mut m, &context(), &Order::plain(25)).expect("mint");
    assert_eq!(minted, shown.shown);
}
