//! What `GET /-/ark` (the ARK service description) tells a client
//! about this resolver: its root path, the NAANs it serves, and the global resolver it
//! sends the other ARKs to.
//!
//! The NAANs served are the minter's own (`:/naan`, recorded by `noid dbcreate`), those
//! the rules file declares ours (`local-naans`, the same list that keeps forwarding
//! from looping), and those of the prefix registry's ARK records (`ark:/13030`, or a
//! shoulder `ark:/13030/fk4`): a populator's binder has no `:/naan`, and its curator
//! describes its NAANs in the registry. All three are in memory or one key away; the
//! store is not walked to find the NAANs of the identifiers bound (a binder that holds
//! ARKs of a NAAN named nowhere else lists it with `local-naans`).

use crate::registry::Registry;
use crate::rules::Rules;
use noid_core::keys;
use noid_core::lookup::{Lookup, LookupError};

/// The resolver's root path: `ark:…` appended to it is resolved.
pub const ROOT: &str = "/";

/// The facts `/-/ark` publishes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ArkService {
    /// NAANs served, lower-case, sorted, each once.
    pub naans: Vec<String>,
    /// Where ARKs of other NAANs are forwarded (`global-resolver`), if anywhere.
    pub global_resolver: Option<String>,
}

/// The service facts of a store read through `l` under `rules` and `registry`.
pub fn ark_service<L: Lookup + ?Sized>(
    l: &L,
    rules: &Rules,
    registry: &Registry,
) -> Result<ArkService, LookupError> {
    let mut naans: Vec<String> = rules
        .local_naans
        .iter()
        .map(|n| n.to_ascii_lowercase())
        .collect();
    naans.extend(registry_naans(registry));
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

/// The NAANs of the registry's ARK records, a NAAN's (`ark:/13030`) or a shoulder's
/// (`ark:/13030/fk4`); its keys are in the ARK normal form, the NAAN lower-case.
fn registry_naans(registry: &Registry) -> impl Iterator<Item = String> + '_ {
    registry.records().iter().filter_map(|r| {
        let naan = r.prefix.strip_prefix("ark:/")?.split('/').next()?;
        (!naan.is_empty()).then(|| naan.to_ascii_lowercase())
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
            ark_service(&l, &rules, &Registry::empty()).unwrap(),
            ArkService {
                naans: vec!["13030".into(), "67890".into(), "b5072".into()],
                global_resolver: Some("https://n2t.net/".into()),
            }
        );
        l.insert(":/naan", b"13030");
        l.insert(":/naan", b"12345");
        assert_eq!(
            ark_service(&l, &Rules::empty(), &Registry::empty()).unwrap(),
            ArkService {
                naans: vec!["12345".into()],
                global_resolver: None,
            }
        );
        l.insert(":/naan", b"");
        assert_eq!(
            ark_service(&l, &Rules::empty(), &Registry::empty()).unwrap(),
            ArkService::default()
        );
    }

    /// A populator's binder: no `:/naan`, no rules; its NAANs are those of its
    /// registry's ARK records, whichever level and spelling.
    #[test]
    fn naans_from_the_registry() {
        let registry = Registry::parse(
            "prefix: ark:\nname: ARK\n\n\
             prefix: ark:/13030\nname: CDL\n\n\
             prefix: ARK:/B5072/fk4\nname: shoulder\n\n\
             prefix: ark:/13030/qt9\nname: shoulder\n\n\
             prefix: doi:10.5072\nname: DataCite test prefix\n\n\
             prefix: pdb:\nname: PDB\n",
        )
        .unwrap();
        assert_eq!(
            ark_service(&MemLookup::new(), &Rules::empty(), &registry).unwrap(),
            ArkService {
                naans: vec!["13030".into(), "b5072".into()],
                global_resolver: None,
            }
        );
    }
}
