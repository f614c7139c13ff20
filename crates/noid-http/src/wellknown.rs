//! `GET /.well-known/ark`, the ARK specification's discovery URL (draft-kunze-ark-43
//! §3.4, §5.6): the resolver service's path as plain text, one line (`/`: `ark:…`
//! appended to it resolves) ([`discovery`]).
//!
//! `GET /-/ark` ([`SERVICE_PATH`]), the service description that `/.well-known/ark`
//! answered before: the root, the NAANs it serves, and the global resolver it forwards
//! other ARKs to. The facts come from the backend ([`crate::Backend::ark_service`]; in
//! `noidr`, `noid_resolve::wellknown`). ANVL `text/plain` by default:
//!
//! ```text
//! erc:
//! resolver: /
//! naan: 12345
//! naan: 13030
//! global-resolver: https://n2t.net/
//! ```
//!
//! JSON when the client prefers `application/json`:
//! `{"resolver":"/","naans":["12345","13030"],"global_resolver":"https://n2t.net/"}`
//! (`null` when ARKs are not forwarded).

use noid_resolve::wellknown::{ArkService, ROOT};

use crate::page::{self, PageFormat};

/// The discovery path.
pub const PATH: &str = "/.well-known/ark";

/// The service description's path: under `/-/`, where no identifier is (as no scheme
/// and no NAAN begins with `-`), beside the stylesheet.
pub const SERVICE_PATH: &str = "/-/ark";

/// The discovery answer: the resolver's path, one line of plain text.
pub fn discovery() -> String {
    format!("{ROOT}\n")
}

/// The page in `fmt` (HTML clients get ANVL).
pub fn page(fmt: PageFormat, service: &ArkService) -> String {
    match fmt {
        PageFormat::Json => {
            #[derive(serde::Serialize)]
            struct WellKnown<'a> {
                resolver: &'a str,
                naans: &'a [String],
                global_resolver: Option<&'a str>,
            }
            page::json_line(&WellKnown {
                resolver: ROOT,
                naans: &service.naans,
                global_resolver: service.global_resolver.as_deref(),
            })
        }
        PageFormat::Anvl | PageFormat::Html => {
            let mut s = String::from("erc:\n");
            noid_core::anvl::element_str(&mut s, "resolver", ROOT);
            for n in &service.naans {
                noid_core::anvl::element_str(&mut s, "naan", n);
            }
            if let Some(g) = &service.global_resolver {
                noid_core::anvl::element_str(&mut s, "global-resolver", g);
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_is_the_path_alone() {
        assert_eq!(discovery(), "/\n");
    }

    #[test]
    fn both_formats() {
        let s = ArkService {
            naans: vec!["12345".into(), "13030".into()],
            global_resolver: Some("https://n2t.net/".into()),
        };
        assert_eq!(
            page(PageFormat::Anvl, &s),
            "erc:\nresolver: /\nnaan: 12345\nnaan: 13030\nglobal-resolver: https://n2t.net/\n"
        );
        assert_eq!(
            page(PageFormat::Json, &s),
            "{\"resolver\":\"/\",\"naans\":[\"12345\",\"13030\"],\"global_resolver\":\"https://n2t.net/\"}\n"
        );
        assert_eq!(
            page(PageFormat::Json, &ArkService::default()),
            "{\"resolver\":\"/\",\"naans\":[],\"global_resolver\":null}\n"
        );
        assert_eq!(
            page(PageFormat::Anvl, &ArkService::default()),
            "erc:\nresolver: /\n"
        );
    }
}
