//! `hello` and `help [TOPIC]`.

use crate::output::Out;
use crate::usage::usage;

/// `hello`.
pub fn hello(out: &mut Out) {
    out.out("Hello.\n");
}

/// `help [TOPIC]`.
#[derive(Debug)]
pub struct Help {
    topic: Option<String>,
}

impl Help {
    /// Parse the arguments after `help`: a topic, or none for the introduction.
    pub fn parse(args: Vec<String>) -> Help {
        Help {
            topic: args.into_iter().next(),
        }
    }

    /// Print the topic's full help.
    pub fn run(&self, out: &mut Out) {
        usage(out, false, false, self.topic.as_deref().unwrap_or("intro"));
    }
}
