//! A stand-alone server on a static map, for trying web-server configs without a
//! minter: `mapserver ADDR FILE`, where each line of FILE is `ID<TAB>TARGET` and a
//! target may start with a code (`301 https://…`). Not the resolver: no chopping,
//! no rules; `noidr --http` is.

use std::collections::HashMap;
use std::sync::Arc;

use noid_http::{Answer, LookupError, Request};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: mapserver ADDR FILE");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&args[2]).expect("read map file");
    let mut map = HashMap::new();
    for line in text.lines() {
        if let Some((id, t)) = line.split_once('\t') {
            let (code, target) = match t.split_once(' ') {
                Some((c, rest)) if c.len() == 3 && c.bytes().all(|b| b.is_ascii_digit()) => {
                    (c.parse().unwrap(), rest.to_owned())
                }
                _ => (302, t.to_owned()),
            };
            map.insert(id.to_owned(), (code, target));
        }
    }
    let backend = move |r: &Request<'_>| -> Result<Answer, LookupError> {
        Ok(match map.get(r.id) {
            Some((code, target)) => Answer::Redirect {
                code: *code,
                target: target.clone(),
            },
            None => Answer::NotFound,
        })
    };
    noid_http::run(&args[1], Arc::new(backend), 1).expect("serve");
}
