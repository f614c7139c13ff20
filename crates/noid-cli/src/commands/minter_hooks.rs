//! What the CLI hands the minter that the minter cannot make itself: new peppers (from
//! the system's random numbers; the minter does no I/O) and the check of an `:idmap`
//! pattern (the resolver's compiler; the minter has no regular expressions). `bind` and
//! `mint` both use them.

use rand::Rng;

/// A new random pepper: eight Noid extended digits.
pub fn new_pepper() -> String {
    let mut r = rand::thread_rng();
    (0..8)
        .map(|_| noid_template::xdigits::xdigit(r.gen_range(0..29)) as char)
        .collect()
}

/// An `:idmap` rule's pattern, checked as the resolver will compile it.
pub fn check_idmap_pattern(pattern: &str) -> Result<(), String> {
    noid_resolve::idmap::compile_pattern(pattern)
        .map(drop)
        .map_err(|e| e.to_string())
}
