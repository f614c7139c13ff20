//! One request line in, one answer line out, in the protocol chosen on the command line,
//! against the freshest view of the store.

use std::sync::Arc;
use std::time::Instant;

use noid_resolve::egg::{self, Miss};
use noid_resolve::{noid_line, Outcome};

use noid_store::Follower;

use crate::args::Protocol;
use crate::current::Current;
use crate::metrics::Metrics;

/// Answers request lines; shared by nothing but the line loop.
pub struct Answerer {
    protocol: Protocol,
    current: Arc<Current>,
    miss: Miss,
    metrics: Arc<Metrics>,
}

impl Answerer {
    /// An answerer for `protocol`, with the resolver in force for the egg protocol,
    /// counting its answers in `metrics`.
    pub fn new(
        protocol: Protocol,
        current: Arc<Current>,
        miss: Miss,
        metrics: Arc<Metrics>,
    ) -> Answerer {
        Answerer {
            protocol,
            current,
            miss,
            metrics,
        }
    }

    /// Append exactly one answer line for `line` to `out`. A store that cannot be read
    /// gives one `error: …` line, never a missing line.
    pub fn answer(&self, follower: &Follower, line: &[u8], out: &mut Vec<u8>) {
        let start = Instant::now();
        let outcome = match follower.fresh() {
            Ok(view) => match self.protocol {
                Protocol::Noid => noid_line::answer(&*view, line, out),
                Protocol::Egg => {
                    egg::answer(&self.current.resolver(), &*view, line, self.miss, out)
                }
            },
            Err(e) => {
                log::debug!("store unavailable: {e}");
                match self.protocol {
                    Protocol::Noid => noid_line::error_line(&e, out),
                    Protocol::Egg => egg::error_line(&e, out),
                }
                Outcome::Error
            }
        };
        self.metrics.record(outcome, start);
    }
}
