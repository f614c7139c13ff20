//! Meta-resolution: `*/ID` lists the target of ID at every provider of its prefix, from
//! the prefix registry (`crate::registry`), in failover order. (The redirect to one
//! provider is a rule, `find`; a truncated identifier's record is step 6, `fallback`.)

use super::answer::{Answer, ProviderTarget};
use super::find::level_key;
use super::target::{finish_target, split_code};
use super::{Request, Resolver};
use noid_core::ident::Parsed;
use noid_core::lookup::{Lookup, LookupError};

impl Resolver {
    /// `*/ID`: the providers of the most specific record (shoulder, NAAN, scheme) that
    /// has any, each with ID's target there; a truncated ID answers its record as it
    /// would without `*/`; nothing else is listed (not found).
    pub(super) fn providers<L: Lookup + ?Sized>(
        &self,
        l: &L,
        key: &mut Vec<u8>,
        req: &Request<'_>,
        id: &str,
    ) -> Result<Answer, LookupError> {
        let p = Parsed::new(id);
        if let Some(truncated) = self.truncated_key(&p) {
            return self.fallback(l, key, &p, Some(truncated));
        }
        if self.registry.is_empty() {
            return Ok(Answer::NotFound);
        }
        let levels = [
            p.shoulder_key(),
            p.naan_key(),
            Some(p.scheme_key()).filter(|s| !s.is_empty()),
        ];
        for k in levels.into_iter().flatten() {
            let Some(record) = self.registry.get(&level_key(&p, k)) else {
                continue;
            };
            if record.providers.is_empty() {
                continue;
            }
            let suffix = &p.norm[k.len()..];
            let proto = req.proto.unwrap_or("http");
            let primary = &record.providers[record.primary];
            let targets = record
                .in_order()
                .map(|pv| ProviderTarget {
                    code: pv.code.clone(),
                    target: finish_target(
                        split_code(&pv.template).1,
                        suffix,
                        Some(&p),
                        Some(proto),
                        p.ext.as_deref(),
                    ),
                    primary: std::ptr::eq(pv, primary),
                    healthy: self.registry.is_healthy(pv),
                })
                .collect();
            return Ok(Answer::Providers {
                id: id.to_string(),
                prefix: record.prefix.clone(),
                targets,
            });
        }
        Ok(Answer::NotFound)
    }
}
