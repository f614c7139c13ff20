//! The usage and help texts of Perl Noid's `noid` script, printed the way it printed
//! them: through `bprint` (a space after every newline, so the text reads as one ANVL
//! `Usage:` element), to stderr when in error, with the closing newline always on stdout.

use crate::output::Out;

/// The help topics: `intro all templates`, then the commands of the verb table
/// ([`noid_core::verbs::commands`]) in Perl's order.
fn topics() -> Vec<&'static str> {
    let mut t = vec!["intro", "all", "templates"];
    t.extend(noid_core::verbs::commands().map(|v| v.word));
    // The process modes (`noid serve`, `replay`, `prune-log`, `links`, `explain`, `rules`): run from the command
    // line only, but documented here too.
    t.extend(crate::mode::words());
    t
}

/// The help text of `topic` (`brief` selects the one-paragraph summary); "" when none.
fn info(topic: &str, brief: bool) -> &'static str {
    match (topic, brief) {
        ("bind", true) => "\n   noid bind How Id Element Value\t# to bind an Id's Element, where\n      How is set|add|insert|new|replace|mint|append|prepend|delete|purge.\n      Use an Id of :idmap/Idpattern, Value=PerlReplacementPattern so that\n      fetch returns variable values.  Use \":\" as Element to read Elements\n      and Values up to a blank line from stdin (up to EOF with \":-\").\n",
        ("dbcreate", true) => "\n   noid dbcreate [ Template (long|-|short) [ NAAN NAA SubNAA ] ]\n      where Template=prefix.Tmask, T=(r|s|z), and mask=string of (e|d|k)\n",
        ("dbcreate", false) => "\nTo create an identifier minter governed by Template and Term (\"long\" or \"-\"),\n\n   noid dbcreate [ Template Term [ NAAN NAA SubNAA ] ]\n\nThe Template gives the number and form of generated identifiers.  Examples:\n\n    .rddd        minter of random 3-digit numbers that stops after the 1000th\n    .zd          sequential numbers without limit, adding new digits as needed\n  bc.sdddd       sequential 4-digit numbers with constant prefix \"bc\"\n    .rdedeede    .7 billion random ids, extended-digits at chars 2, 4, 5 and 7\n  fk.rdeeek      .24 million random ids with prefix \"fk\" and final check char\n\nFor persistent identifiers, use \"long\" for Term, and specify the NAAN, NAA,\nand SubNAA.  Otherwise, use \"-\" for Term or omit it.  The NAAN is a globally\nregistered Name Assigning Authority Number; for identifiers conforming to the\nARK scheme, this is a 5-digit number registered with ark@cdlib.org, or 00000.\nThe NAA is the character string equivalent registered for the NAAN; for\nexample, the NAAN, 13030, corresponds to the NAA, \"cdlib.org\".  The SubNAA\nis also a character string, but it is a locally determined and possibly\nstructured subauthority string (e.g., \"oac\", \"ucb/dpg\", \"practice_area\") that\nis not globally registered.\n",
        ("fetch", true) => "\n   noid fetch Id Element ...\t\t# fetch/map one or more Elements\n",
        ("fetch", false) => "\nTo bind,\n\n   noid bind replace fk0wqkb myGoto http://www.cdlib.org/foobar.html\n\nsets \"myGoto\" element of identifier \"fk0wqkb\" to a string (here a URL).\n",
        ("get", true) => "\n   noid get Id Element ...\t\t# fetch/map Elements without labels\n",
        ("hold", true) => "\n   noid hold (set|release) Id ...\t# place or remove a \"hold\" on Id(s)\n",
        ("mint", true) => "\n   noid mint N [ Elem Value ]\t# to mint N identifiers (optionally binding)\n",
        ("queue", true) => "\n   noid queue (now|first|lvf|Time) Id ...\t# queue (eg, recycle) Id(s)\n      Time is NU, meaning N units, where U= d(ays) | s(econds).\n      With \"lvf\" (Lowest Value First) lowest value of id will mint first.\n",
        ("validate", true) => "\n   noid validate Template Id ...\t# to check if Ids are valid\n      Use Template of \"-\" to use the minter's native template.\n",
        ("import", true) => "\n   noid import Path\t\t\t# create this minter from a Perl Noid one\n      Path is an old NOID directory, its noid.bdb, or a db_dump -p text file (- for stdin).\n   noid import --backend URL [--minter NAME] Path\t# the same, held by PostgreSQL\n",
        ("export", true) => "\n   noid export [noid|dbdump]\t\t# write the whole minter to stdout\n",
        ("check", true) => "\n   noid check [--repair]\t\t# report the minter's health\n",
        ("serve", true) => "\n   noid serve --http ADDR --config FILE\t# the N2T binder and minter API, and the console\n",
        ("serve", false) => "\nTo serve populators' binders and minters over HTTP (N2T's API: /a/POP/b?ID.set\nELEM VALUE, /a/POP/m/SCHEME/NAAN/SHOULDER?mint N) and the populators' console\n(/console/, in a browser),\n\n   noid serve --http 127.0.0.1:8080 --config /etc/noid/api.toml\n\nADDR is HOST:PORT, PORT (loopback) or unix:/path/to/socket; port 0 lets the\nsystem pick one, logged once it listens.  FILE names each populator's password\nfile, binder and minters (docs/API.md; the console: docs/CONSOLE.md).  Serve it\non loopback or a unix socket behind a TLS front server (nginx-conf/,\napache-conf/).  Every write passes the identifier gate: one spelling per\nidentifier, check characters, the populator's shoulders.  \"noid serve --help\"\nfor the options.\n",
        ("replay", true) => "\n   noid replay LOG\t\t\t# apply a binder's write log again\n",
        ("history", true) => "\n   noid history Id [--format table|json|csv]\t# Id's logged writes, old -> new\n",
        ("rewrite", true) => "\n   noid rewrite --from PREFIX --to PREFIX [--dry-run]\t# change many targets\n   noid rewrite --undo OPID\t\t# put back what operation OPID changed\n",
        ("stats", true) => "\n   noid stats [Id|Prefix] [--days N] [--format text|csv|json]\t# resolution counts\n",
        ("compact", true) => "\n   noid compact [--index whole|pieces]\t# rewrite the minter's tables into one level (after bulk loads)\n",
        ("prune-log", true) => "\n   noid prune-log --keep N | --before SEQ\t# drop old change-log rows (PostgreSQL)\n",
        ("index", true) => "\n   noid index rebuild|status\t\t# the search index (noid index --help)\n",
        ("search", true) => "\n   noid search QUERY [--format table|csv|json|anvl]\t# find identifiers (noid search --help)\n",
        ("links", true) => "\n   noid links check|report ...\t\t# check targets, report their health (noid links --help)\n   noid links archive|mark|unmark|policy|save ...\t# archived copies of targets\n",
        ("explain", true) => "\n   noid explain Id [--accept TYPE] [--rules FILE] [--registry FILE]\t# why Id resolves as it does\n",
        ("rules", true) => "\n   noid rules test RULES CASES [--registry FILE]\t# a rules file tried on a table of requests\n",
        ("standing", true) => "\n   noid standing [Id ...]\t\t# which kernel elements Ids lack (all Ids if none)\n",
        ("standing", false) => "\nTo report whether identifiers are in good standing as N2T defines it,\n\n   noid standing Id ...       # the named Ids\n   noid standing              # every Id with a binding in the minter\n\nAn Id is in good standing when who, what, when and how are bound (where is\nimplied by the Id) and every kernel value (who what when where how language\npeek size) is well formed: an actual value, or a reserved code for a missing\nvalue, (:unac) (:unal) (:unap) (:unas) (:unav) (:unkn) (:none) (:null) (:etal)\n(:tba), optionally followed by text, or (:at) followed by a reference.  The how\nvalue is a metatype, \"(:mtype data+code set) time series\" or \"text\", made of\ntext image audio video data code term service agent human project event oba.\nEach Id is reported as a record; one that is not in good standing makes the\nexit status 1.\n",
        ("lui", true) => "\n   noid lui encode|decode|normalize ...\t# Crockford base32 LUIs (noid lui --help)\n",
        ("lui", false) => "\nTo turn integer record ids into Crockford base32 LUIs and back, spelled as the\nPython package base32-lib 1.1.1 spells them (no minter needed):\n\n   noid lui encode NUMBER [--split K] [--min-length L] [--checksum]\n   noid lui decode STRING [--checksum]\n   noid lui normalize STRING [--split K] [--checksum]\n\n   noid lui encode 923446243762 --split 4 --checksum     prints tw0t-ywdj-94\n   noid lui decode TW0T-YWDJ-94 --checksum               prints 923446243762\n\nThe checksum is ISO 7064 MOD 97-10, two final decimal digits.  Bad input (a\ncharacter outside the alphabet, a wrong checksum, a number beyond 64 bits) is\nan error on stderr with exit status 1.  \"noid lui COMMAND --help\" for details.\n",
        ("templates", false) => "\nA Template is Prefix.Mask, where the Mask is a generator letter (r random,\ns sequential, z sequential without limit), one or more mask characters and an\noptional final k (check character).  Mask characters, each one position:\n\n   d  0-9 (10)                     e  0-9 and consonants but l (29)\n   i  0-9 and x (11)               x  0-9, a-f and _ (17)\n   v  0-9, a-z and _ (37)          E  1-9 and consonants but l, both cases (47)\n   l  0-9, a-z but l, A-Z (61)     w  0-9, a-z, A-Z and #*+@_ (67)\n   c  visible ASCII but %-./\\ (89; some must be escaped in URLs, so never\n      with a NAAN)\n\nd and e are Perl Noid's; the others are Noid4Php's extended repertoires.  The\ncheck character is computed over e for masks of d, i and e, else over the first\nof x, v, E, l, w, c holding every character of the prefix and the mask.\n\nA LUI template, [Prefix.]luiN[-W], mints Crockford base32 LUIs of N characters\n(3 to 14, the last two a checksum) with a dash every W, in an order drawn from\na secret key: lui10-4 mints ids like tw0t-ywdj-94.  Validation and resolution\naccept any spelling (upper case, dashes anywhere, I or L for 1, O for 0).\n\nWhen a bounded minter has issued its whole namespace, Perl Noid stops (long and\nmedium term) or starts over (short term).  \"dbcreate --atlast addN ...\" grows\nthe template instead (its first N mask characters repeated: eedk, eedeedk,\needeedeedk, ...), \"stopN\" stops with exit status N, \"wrapN\" starts over and\nexits with status N.\n",
        _ => "",
    }
}

/// Perl's `usage(in_error, brief, topic)`, appended to `out`.
pub fn usage(out: &mut Out, in_error: bool, brief: bool, topic: &str) {
    let topic = if topic.is_empty() {
        "intro".to_string()
    } else {
        topic.to_lowercase()
    };
    let all = topics();
    let blurbs: Vec<&str> = all
        .iter()
        .copied()
        .filter(|t| t.starts_with(topic.as_str()))
        .collect();
    let mut text = String::new();
    if blurbs.len() != 1 {
        if blurbs.is_empty() {
            text.push_str(&format!("Sorry: nothing under \"{topic}\".\n"));
        } else {
            text.push_str(&format!(
                "Help: Your request ({topic}), matches more than one topic:\n\t({}).\n",
                blurbs.join(", ")
            ));
        }
        text.push_str(" You might try one of these topics:");
        emit(out, in_error, &text, false);
        // Perl printed the topic list itself to STDOUT.
        let mut n = 0;
        let mut rest = all.iter();
        let mut list = String::new();
        loop {
            if rest.len() == 0 {
                list.push_str("\n ");
                break;
            }
            if n % 8 == 0 {
                list.push_str("\n\t");
            } else {
                list.push(' ');
                list.push_str(rest.next().expect("topic"));
            }
            n += 1;
        }
        list.push_str("\n\n");
        out.out(list);
        return;
    }
    let blurb = blurbs[0];
    if blurb == "intro" {
        let mut t =
            String::from("Usage:\n              noid [-f Dbdir] [-v] [-h] Command Arguments");
        if brief {
            t.push_str("\n              noid -h             (for help with a Command summary).");
            emit(out, in_error, &t, true);
            out.out("\n\n");
            return;
        }
        t.push_str("\n\nDbdir defaults to \".\" if not found from -f or a NOID environment variable.\nFor more information try \"noid --help\" or \"noid help Command\".  Summary:\n");
        for c in noid_core::verbs::commands() {
            t.push_str(info(c.word, true));
        }
        t.push_str("\nIf invoked as \"noidu...\", output is formatted for a web client.  Give Command\nas \"-\" to run a block of noid Commands read from stdin or from POST data.");
        emit(out, in_error, &t, true);
        out.out("\n\n");
        return;
    }
    let t = info(blurb, brief);
    if t.is_empty() {
        let name = if brief {
            format!("{blurb}/brief")
        } else {
            blurb.to_string()
        };
        emit(
            out,
            in_error,
            &format!("Sorry: no information on \"{name}\".\n\n"),
            false,
        );
        return;
    }
    emit(out, in_error, t, true);
    out.out("\n");
}

fn emit(out: &mut Out, in_error: bool, text: &str, bprint: bool) {
    match (in_error, bprint) {
        (true, true) => out.bprint_err(text),
        (true, false) => out.err(text),
        (false, true) => out.bprint_out(text),
        (false, false) => out.out(text),
    }
}
