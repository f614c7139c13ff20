//! URL layout, as N2T's: `/a/POPULATOR/b` (the binder), `/a/POPULATOR/m/SCHEME/NAAN/SHOULDER`
//! (a minter), `/a/POPULATOR` (help); and noid's `/a/POPULATOR/links` (the link
//! checker's report on the binder's targets, docs/LINKS.md), `history`, `rewrite`,
//! `search`, `explain`, `rules/test` and `stats`. Anything else, and any step that is not a safe
//! name ([`is_safe_name`]: no `..`, no `/`), matches nothing.

use crate::safe_name::is_safe_name;

/// Where a request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `/a/POP` or `/a/POP/`.
    Help {
        /// The populator.
        populator: String,
    },
    /// `/a/POP/b`.
    Binder {
        /// The populator.
        populator: String,
    },
    /// `/a/POP/links`: what the link checker found.
    Links {
        /// The populator.
        populator: String,
    },
    /// `/a/POP/history` (an identifier's logged writes) or `/a/POP/rewrite` (change
    /// many, preview, undo): [`super::changes`].
    Changes {
        /// The populator.
        populator: String,
        /// `rewrite` (else `history`).
        rewrite: bool,
    },
    /// `/a/POP/search`: the binder's identifiers matching a query ([`super::search`]).
    Search {
        /// The populator.
        populator: String,
    },
    /// `/a/POP/explain` (why an identifier resolves as it does) or `/a/POP/rules/test`
    /// (a candidate rules file against a table of cases): [`super::resolving`].
    Resolving {
        /// The populator.
        populator: String,
        /// `rules/test` (else `explain`).
        test: bool,
    },
    /// `/a/POP/stats`: how often its identifiers were resolved ([`super::stats`]).
    Stats {
        /// The populator.
        populator: String,
    },
    /// `/a/POP/m/SCHEME/NAAN/SHOULDER`.
    Minter {
        /// The populator.
        populator: String,
        /// `SCHEME/NAAN/SHOULDER`, each a safe name.
        path: [String; 3],
    },
}

impl Route {
    /// The populator named in the route.
    pub fn populator(&self) -> &str {
        match self {
            Route::Help { populator }
            | Route::Binder { populator }
            | Route::Links { populator }
            | Route::Changes { populator, .. }
            | Route::Search { populator }
            | Route::Resolving { populator, .. }
            | Route::Stats { populator }
            | Route::Minter { populator, .. } => populator,
        }
    }
}

/// The route of a request path (not %-decoded: the names it allows need no escapes).
pub fn parse(path: &str) -> Option<Route> {
    let rest = path.strip_prefix("/a/")?;
    let steps: Vec<&str> = rest.split('/').collect();
    let safe = |s: &str| is_safe_name(s).then(|| s.to_string());
    Some(match steps[..] {
        [p] | [p, ""] => Route::Help {
            populator: safe(p)?,
        },
        [p, "b"] => Route::Binder {
            populator: safe(p)?,
        },
        [p, "links"] => Route::Links {
            populator: safe(p)?,
        },
        [p, step @ ("history" | "rewrite")] => Route::Changes {
            populator: safe(p)?,
            rewrite: step == "rewrite",
        },
        [p, "search"] => Route::Search {
            populator: safe(p)?,
        },
        [p, "explain"] => Route::Resolving {
            populator: safe(p)?,
            test: false,
        },
        [p, "rules", "test"] => Route::Resolving {
            populator: safe(p)?,
            test: true,
        },
        [p, "stats"] => Route::Stats {
            populator: safe(p)?,
        },
        [p, "m", scheme, naan, shoulder] => Route::Minter {
            populator: safe(p)?,
            path: [safe(scheme)?, safe(naan)?, safe(shoulder)?],
        },
        _ => return None,
    })
}

/// A query string %-decoded once (`+` stays a plus, as N2T reads it).
pub fn decode_query(q: &str) -> String {
    String::from_utf8_lossy(&noid_core::percent_decode(q)).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes() {
        assert_eq!(
            parse("/a/sam/b"),
            Some(Route::Binder {
                populator: "sam".into()
            })
        );
        assert_eq!(
            parse("/a/sam/m/ark/99999/fk4"),
            Some(Route::Minter {
                populator: "sam".into(),
                path: ["ark".into(), "99999".into(), "fk4".into()]
            })
        );
        assert_eq!(
            parse("/a/sam/links"),
            Some(Route::Links {
                populator: "sam".into()
            })
        );
        assert_eq!(
            parse("/a/sam/"),
            Some(Route::Help {
                populator: "sam".into()
            })
        );
        assert_eq!(
            parse("/a/sam/explain"),
            Some(Route::Resolving {
                populator: "sam".into(),
                test: false
            })
        );
        assert_eq!(
            parse("/a/sam/rules/test"),
            Some(Route::Resolving {
                populator: "sam".into(),
                test: true
            })
        );
        assert_eq!(
            parse("/a/sam/stats"),
            Some(Route::Stats {
                populator: "sam".into()
            })
        );
        for bad in [
            "/a/sam/stats/x",
            "/a/sam/rules",
            "/a/sam/rules/test/x",
            "/a/../b",
            "/a/sam/m/ark/../fk4",
            "/a/sam/m/ark/99999/..",
            "/a/sam/m/ark/99999",
            "/a/sam/b/x",
            "/a/.sam/b",
            "/a/sam%2f/b",
            "/b",
            "/a/",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn queries() {
        assert_eq!(decode_query("i.set%20a+b%25%2"), "i.set a+b%%2");
        assert_eq!(decode_query("%3Ahx%20x"), ":hx x");
    }
}
