//! Where a run's commands come from ([`Source`]: the command line, standard input in bulk
//! mode, a web POST body) and what a command may read besides its words ([`Input`]):
//! shared by the runner ([`crate::bulk`]) and the write batch ([`crate::batch`]).

use std::io::{BufRead, Read};

/// Where commands come from.
pub trait Source {
    /// The next command's words; `Err` for a line that does not split into words.
    fn next_command(&mut self) -> Option<Result<Vec<String>, String>>;
    /// Whether another command is already available without waiting.
    fn more_buffered(&self) -> bool;
    /// Where a command reads its input: standard input for `bind … :`/`:-` and egg's
    /// indirect tokens when it is not the command stream, else the command stream
    /// itself (egg's indirect tokens read the lines after their command, as in
    /// `egg -`).
    fn input(&mut self) -> Input<'_>;
    /// The identifiers that the commands already buffered bind, for a store that reads
    /// ahead ([`noid_store::Store::read_ahead`]); nothing by default.
    fn upcoming(&self) -> Upcoming {
        Upcoming::default()
    }
}

/// What the buffered commands will read: the identifiers of their `bind` lines.
#[derive(Default)]
pub struct Upcoming {
    /// The identifiers, in input order, as given (a peppered one also without its pepper).
    pub ids: Vec<String>,
    /// The complete lines they were taken from.
    pub lines: usize,
}

/// What a command may read besides its words.
pub enum Input<'a> {
    /// The process's standard input (one command from the command line).
    Stdin(&'a mut dyn Read),
    /// The lines after the command in the command stream (bulk mode).
    Commands(&'a mut dyn BufRead),
}
