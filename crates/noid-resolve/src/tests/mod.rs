//! Table-driven tests of resolution through the egg protocol's exact answer lines, and
//! of the [`Answer`] values the HTTP layer maps: the lookup steps (`steps`), the output
//! decision (`output`), and here the helpers and the crate-wide contracts.

mod archived;
mod draft;
mod explain;
mod normal;
mod output;
mod passthrough;
mod records;
mod signposting;
mod steps;
mod tombstone;

use crate::egg::{self, Miss};
use crate::{Answer, Request, Resolver, Rules};
use noid_core::{Lookup, MemLookup, PointLookups};

/// A store from `(id, element, value)` triples; `:idmap/PATTERN` ids become rules and
/// the id `:/` the minter's own records (`(":/", "naan", "13030")` is `:/naan`).
pub(crate) fn store(bindings: &[(&str, &str, &str)]) -> MemLookup {
    let l = MemLookup::new();
    for (id, elem, value) in bindings {
        match id.strip_prefix(":idmap/") {
            Some(pattern) => l.bind_idmap(pattern, elem, value),
            None if *id == ":/" => l.insert(noid_core::keys::admin(elem), *value),
            None => l.bind(id, elem, value),
        }
    }
    l
}

/// One egg request against `bindings` with the rules file `rules`: the exact answer line.
#[track_caller]
pub(crate) fn check_rules(bindings: &[(&str, &str, &str)], rules: &str, line: &str, expect: &str) {
    let l = store(bindings);
    let r = Resolver::new(Rules::parse(rules).expect("rules parse"));
    // Both ways: ancestors read as one range, and looked up one by one.
    for (how, l) in [("range", &l as &dyn Lookup), ("point", &PointLookups(&l))] {
        let mut out = Vec::new();
        egg::answer(&r, l, line.as_bytes(), Miss::Null, &mut out);
        assert_eq!(
            String::from_utf8_lossy(&out),
            format!("{expect}\n"),
            "request {line:?} ({how} lookups)"
        );
    }
}

/// As [`check_rules`] with no rules and no forwarding.
#[track_caller]
pub(crate) fn check(bindings: &[(&str, &str, &str)], line: &str, expect: &str) {
    check_rules(bindings, "global-resolver off", line, expect)
}

#[track_caller]
pub(crate) fn resolve(bindings: &[(&str, &str, &str)], req: Request<'_>) -> Answer {
    let l = store(bindings);
    let r = Resolver::new(Rules::empty());
    let answer = r.resolve(&l, &req).unwrap();
    assert_eq!(r.resolve(&PointLookups(&l), &req).unwrap(), answer);
    answer
}

// ---- concurrency contract -----------------------------------------------------------

#[test]
fn resolver_is_shared_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Resolver>();
    assert_send_sync::<MemLookup>();
    let l = std::sync::Arc::new(store(&[
        ("ark:/12345/fk4a", "_t", "A"),
        (":idmap/^m", "_t", "M"),
    ]));
    let r = std::sync::Arc::new(Resolver::default());
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let (l, r) = (l.clone(), r.clone());
            std::thread::spawn(move || {
                for j in 0..500 {
                    let id = format!("ark:/12345/fk4a/{i}/{j}");
                    let a = r.resolve(&*l, &Request::new(&id)).unwrap();
                    assert_eq!(
                        a,
                        Answer::Redirect {
                            code: 302,
                            target: format!("A/{i}/{j}")
                        }
                    );
                    let a = r.resolve(&*l, &Request::new("mx")).unwrap();
                    assert_eq!(
                        a,
                        Answer::Redirect {
                            code: 302,
                            target: "Mx".into()
                        }
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}
