//! `noid standing` through the real binary and store: the N2T page's good standing
//! (who, what, when and how bound, kernel values well formed), for named ids, in bulk
//! mode and over the whole minter. Expected records are written from the page's
//! element table, reserved codes and metatypes.

use crate::util::*;

/// A minter with the page's Oz record bound to its first id, a second id bound with
/// an unknown metatype and a malformed reserved code, and a third minted but unbound.
fn minter() -> Dir {
    let d = Dir::minter(&["f5.reedeedk", "long", "13030", "example.org", "oac"]);
    assert_eq!(
        d.mint(3),
        ["13030/f54x54g11", "13030/f5154dn7k", "13030/f5wd3q12m"]
    );
    let binds = "bind set 13030/f54x54g11 who '(:unkn) Anonymous'\n\
                 bind set 13030/f54x54g11 what 'The wonderful wizard of Oz'\n\
                 bind set 13030/f54x54g11 when '1900, c1899'\n\
                 bind set 13030/f54x54g11 how '(:mtype data+code set) time series'\n\
                 bind set 13030/f54x54g11 peek '(:at) https://example.org/thumb.png'\n\
                 bind set 13030/f5154dn7k how '(:mtype book)'\n\
                 bind set 13030/f5154dn7k when '(:soon)'\n";
    d.noid_stdin(&["-"], binds.as_bytes()).ok();
    d
}

const GOOD: &str = "id: 13030/f54x54g11\nstanding: good\n\n";
const BAD: &str = "id: 13030/f5154dn7k\nstanding: not good\nmissing: who\nmissing: what\n\
                   malformed: how: unknown metatype \"book\"\n\
                   malformed: when: unknown reserved code (:soon)\n\n";

#[test]
fn one_id_in_good_standing() {
    let d = minter();
    assert_eq!(d.noid(&["standing", "13030/f54x54g11"]).ok(), GOOD);
}

#[test]
fn missing_and_malformed_elements_fail_the_command() {
    let d = minter();
    let r = d.noid(&["standing", "13030/f5154dn7k", "13030/f54x54g11"]);
    assert_eq!(r.failed().stdout, format!("{BAD}{GOOD}"));
    let unbound = d.noid(&["standing", "13030/f5wd3q12m"]);
    assert_eq!(
        unbound.failed().stdout,
        "id: 13030/f5wd3q12m\nstanding: not good\nmissing: who\nmissing: what\nmissing: when\nmissing: how\n\n"
    );
}

#[test]
fn bulk_mode_sees_the_batchs_own_binds() {
    let d = minter();
    let r = d.noid_stdin(
        &["-"],
        b"bind set 13030/f5154dn7k how text\nbind set 13030/f5154dn7k who W\n\
          bind set 13030/f5154dn7k what X\nbind set 13030/f5154dn7k when (:tba)\n\
          standing 13030/f5154dn7k\n",
    );
    assert!(r.ok().ends_with("id: 13030/f5154dn7k\nstanding: good\n\n"));
}

#[test]
fn whole_minter_judges_every_bound_id_in_key_order() {
    let d = minter();
    let r = d.noid(&["standing"]);
    assert_eq!(
        r.failed().stdout,
        format!("{BAD}{GOOD}# 2 identifiers: 1 in good standing, 1 not\n")
    );
    let empty = Dir::minter(&[".zd"]);
    assert_eq!(
        empty.noid(&["standing"]).ok(),
        "# 0 identifiers: 0 in good standing, 0 not\n"
    );
}
