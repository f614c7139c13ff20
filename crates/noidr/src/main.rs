//! `noidr`: the resolver daemon (work in progress).

fn main() {}
