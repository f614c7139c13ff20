//! One request line in, one answer line out, in the protocol chosen on the command line,
//! against the freshest view of the store.

use noid_resolve::egg::{self, Miss};
use noid_resolve::{noid_line, Resolver};

use noid_store::Follower;

use crate::args::Protocol;

/// Answers request lines; shared by nothing but the line loop.
pub struct Answerer {
    protocol: Protocol,
    resolver: Resolver,
    miss: Miss,
}

impl Answerer {
    /// An answerer for `protocol`, with the resolver used by the egg protocol.
    pub fn new(protocol: Protocol, resolver: Resolver, miss: Miss) -> Answerer {
        Answerer {
            protocol,
            resolver,
            miss,
        }
    }

    /// Append exactly one answer line for `line` to `out`. A store that cannot be read
    /// gives one `error: …` line, never a missing line.
    pub fn answer(&self, follower: &Follower, line: &[u8], out: &mut Vec<u8>) {
        let view = match follower.fresh() {
            Ok(view) => view,
            Err(e) => {
                log::debug!("store unavailable: {e}");
                match self.protocol {
                    Protocol::Noid => noid_line::error_line(&e, out),
                    Protocol::Egg => egg::error_line(&e, out),
                }
                return;
            }
        };
        match self.protocol {
            Protocol::Noid => noid_line::answer(&*view, line, out),
            Protocol::Egg => egg::answer(&self.resolver, &*view, line, self.miss, out),
        }
    }
}
