//! What `GET /.well-known/ark` (the ARK specification's discovery URL) tells a client
//! about this resolver: its root path, the NAANs it serves, and the global resolver it
//! sends the other ARKs to.
//!
//! The NAANs served are the minter's own (`:/naan`, recorded by `noid dbcreate`) and
//! those the rules file declares ours (`local-naans`, the same list that keeps
//! forwarding from looping). A binder that holds ARKs of other NAANs lists them with
//! `local-naans`: the store is not walked to find them.

use crate::rules::Rules;
use noid_core::keys;
use noid_core::lookup::{Lookup, LookupError};

/// The resolver's root path: `ark:…` appended to it is resolved.
pub const ROOT: &str = "/";

/// The facts `/.well-known/ark` publishes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArkService {
    /// NAANs served, lower-case, sorted, each once.
    pub naans: Vec<String>,
    /// Where ARKs of other NAANs are forwarded (`global-resolver`), if anywhere.
    pub global_resolver: Option<String>,
}

/// The service facts of a store read through `l` under `rules`.
pub fn ark_service<L: Lookup + ?Sized>(l: &L, rules: &Rules) -> Result<ArkService, LookupError> {
    let mut naans: Vec<String> = rules
        .local_naans
        .iter()
        .map(|n| n.to_ascii_lowercase())
        .collect();
    if let Some(v) = l.get(&keys::admin(keys::name::NAAN))? {
        let naan = String::from_utf8_lossy(&v).trim().to_ascii_lowercase();
        if !naan.is_empty() {
            naans.push(naan);
        }
    }
    naans.sort();
    naans.dedup();
    Ok(ArkService {
        naans,
        global_resolver: rules.global_resolver.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use noid_core::MemLookup;

    #[test]
    fn naans_from_the_minter_and_the_rules() {
        let l = MemLookup::new();
        let rules =
            Rules::parse("global-resolver https://n2t.net/\nlocal-naans 67890 B5072 13030\n")
                .unwrap();
        assert_eq!(
            ark_service(&l, &rules).unwrap(),
            ArkService {
                naans: vec!["13030".into(), "67890".into(), "b5072".into()],
                global_resolver: Some("https://n2t.net/".into()),
            }
        );
        l.insert(":/naan", b"13030");
        l.insert(":/naan", b"12345");
        assert_eq!(
            ark_service(&l, &Rules::empty()).unwrap(),
            ArkService {
                naans: vec!["12345".into()],
                global_resolver: None,
            }
        );
        l.insert(":/naan", b"");
        assert_eq!(
            ark_service(&l, &Rules::empty()).unwrap(),
            ArkService::default()
        );
    }
}
