//! The N2T API's requests without their transport: the configuration
//! ([`Config`]), routes (`/a/POP/b`, `/a/POP/m/SCHEME/NAAN/SHOULDER`), what an
//! authorised request does ([`Plan`]), the replies as plain values ([`ApiReply`]),
//! the cross-site rule ([`Sent`]), logins against password files ([`Passwords`]),
//! the checks before a command ([`Site`]) and the whole request as a CGI ([`cgi`]).
//! `noid serve`'s hyper handler (noid-api) adapts the same functions to HTTP, so the
//! two ways in cannot drift apart, and the CGI needs neither tokio nor hyper.

pub mod cgi;
pub mod changes;
mod config;
mod fields;
pub mod link_report;
mod links;
mod origin;
mod passwords;
mod plan;
mod reply;
pub mod resolving;
mod route;
#[cfg(feature = "search")]
pub mod search;
mod site;
pub mod stats;

pub use config::{
    front_addresses, load, parse, Checked, Config, ConsoleConfig, Front, Populator, ServeConfig,
};
pub use links::{Digest, LinksConfig, Mailer};
pub use origin::{same_site, Sent, REFUSED};
pub use passwords::{parse_basic, same_secret, Basic, Passwords, Verdict, REMEMBER};
pub use plan::{body_too_large, is_bulk, minter_dir, plan, verbose_note, Input, Plan, MAX_BODY};
pub use reply::{
    command_headers, finish, plain, status_line, streamed, unauthorized, ApiReply, Producer,
};
pub use route::{decode_query, parse as parse_route, Route};
pub use site::Site;
