//! `dbcreate`: the admin keys of a new minter, its creation record (`NOID/README`,
//! also stored as `:/erc`) and the report printed to the user.

use noid_template::generator::{assemble_in, init_counters, n2xdig};
use noid_template::growth::AtLast;
use noid_template::lui::LuiGenerator;
use noid_template::permutation::key_to_hex;
use noid_template::repertoire::Repertoire;
use noid_template::template::{human_num, parse_template, GenType, Template};

use crate::error::{MinterError, Refusal};
use noid_core::keys::name;

/// What `dbcreate` was given, plus the facts about the environment it records.
pub struct CreateArgs<'a> {
    /// The template, absent for a bind-only minter (which then mints with `.zd`).
    pub template: Option<&'a str>,
    /// `long`, `medium`, `-` or `short` (default `-`).
    pub term: Option<&'a str>,
    /// NAA number, e.g. `13030`.
    pub naan: Option<&'a str>,
    /// Name Assigning Authority, e.g. `cdlib.org`.
    pub naa: Option<&'a str>,
    /// Sub-authority, e.g. `oac/cmp`.
    pub subnaa: Option<&'a str>,
    /// Who is creating it.
    pub contact: &'a str,
    /// `temper(now)`.
    pub when: &'a str,
    /// `host:/absolute/dbdir`.
    pub where_: &'a str,
    /// The Dbdir as the user named it (for "See DIR/NOID/README").
    pub dbdir_display: &'a str,
    /// Two random numbers for the "Sample identifiers" line (Perl used unseeded rand).
    pub samples: (u64, u64),
    /// What to do when the namespace is used up (a noid extension); `None` keeps Perl's
    /// behaviour (stop, or wrap for short term).
    pub atlast: Option<AtLast>,
    /// A secret from the OS's random source, kept as a LUI minter's permutation key.
    pub lui_key: [u8; 16],
}

/// The result of a successful `dbcreate`.
pub struct Created {
    /// Every admin key and value to store.
    pub keys: Vec<(String, String)>,
    /// The creation record (README contents, also `:/erc`).
    pub readme: String,
    /// The report for standard output (without the final blank line).
    pub report: String,
    /// Perl's log line.
    pub log: String,
}

/// Validate the arguments and compute the new minter's contents.
pub fn dbcreate(a: &CreateArgs<'_>) -> Result<Created, MinterError> {
    let c = check(a)?;
    let Checked {
        ref t,
        template_str,
        naan,
        longterm,
        genonly,
        ..
    } = c;
    let firstpart = if naan.is_empty() {
        t.prefix.clone()
    } else {
        format!("{naan}/{}", t.prefix)
    };
    let unlimited = t.total == -1;
    let gen_type = t.gen_type.as_str();
    let total_word = if unlimited {
        "unlimited".to_string()
    } else {
        t.total.to_string()
    };
    let lui = t.lui.map(|shape| LuiGenerator::new(shape, a.lui_key));
    let sample = |r: u64| -> String {
        let n = if unlimited {
            r % 100_000
        } else {
            r % (t.total.max(1) as u64)
        };
        if let Some(lui) = &lui {
            let mut body = firstpart.clone();
            lui.write(n, &mut body);
            return body;
        }
        let body = match t.gen_type {
            GenType::Random if !unlimited => n2xdig(n + 1, &t.mask),
            _ => n2xdig(n, &t.mask),
        }
        .unwrap_or_default();
        assemble_in(&firstpart, &body, t.check)
    };
    let (s1, s2) = (sample(a.samples.0), sample(a.samples.1));
    let mint_text = if unlimited {
        format!("an unbounded number of identifiers\n       with the template \"{template_str}\".")
    } else {
        format!(
            "{} identifiers with the template \"{template_str}\".",
            human_num(t.total)
        )
    };
    let what = format!(
        "{total_word} {gen_type} identifiers of form {template_str}\n       A Noid minting and binding database has been created that will bind\n       {}and mint {mint_text}\n       Sample identifiers would be \"{s1}\" and \"{s2}\".\n       Minting order is {gen_type}.",
        if genonly { "" } else { "any identifier " }
    );
    let props = t.properties(naan, longterm, genonly);
    let readme = creation_record(a, &c, &what, &props, &total_word);
    let mut report = format!(
        "Created:   minter for {what}  See {}/NOID/README for details.\n",
        a.dbdir_display
    );
    if t.needs_escaping() {
        report.push_str(ESCAPING);
    }

    let keys = admin_keys(a, &c, &firstpart, &props, &readme, lui.is_some());
    Ok(Created {
        keys,
        readme,
        report,
        log: format!("Creating database for template \"{template_str}\"."),
    })
}

/// What `dbcreate` was asked for, checked.
struct Checked<'a> {
    t: Template,
    template_str: &'a str,
    naan: &'a str,
    naa: &'a str,
    subnaa: &'a str,
    longterm: bool,
    wrap: bool,
    genonly: bool,
}

/// The arguments checked, with Perl's refusals in Perl's order.
fn check<'a>(a: &CreateArgs<'a>) -> Result<Checked<'a>, MinterError> {
    if a.contact.is_empty() {
        return Err(Refusal::NoContact.into());
    }
    let term = a.term.unwrap_or("-");
    let (longterm, wrap) = match term {
        "long" => (true, false),
        "medium" | "-" => (false, false),
        "short" => (false, true),
        other => return Err(Refusal::BadTerm(other.to_string()).into()),
    };
    let genonly = a.template.is_some();
    let template_str = a.template.unwrap_or(".zd");
    let t = parse_template(template_str).map_err(Refusal::BadTemplate)?;
    let naan = a.naan.unwrap_or("");
    let naa = a.naa.unwrap_or("");
    let subnaa = a.subnaa.unwrap_or("");
    if longterm {
        if a.naan.is_none() || a.naa.is_none() || a.subnaa.is_none() {
            return Err(Refusal::LongTermWithoutNaa.into());
        }
        let has5 = naan
            .as_bytes()
            .windows(5)
            .any(|w| w.iter().all(u8::is_ascii_digit));
        if !has5 || naa.is_empty() || subnaa.is_empty() {
            return Err(Refusal::LongTermBadNaa.into());
        }
    }

    if t.needs_escaping() && !naan.is_empty() {
        return Err(Refusal::NotLegalInArks(template_str.to_string()).into());
    }
    if matches!(a.atlast, Some(AtLast::Wrap(_))) && longterm {
        return Err(Refusal::WrapOnLongTerm.into());
    }
    Ok(Checked {
        t,
        template_str,
        naan,
        naa,
        subnaa,
        longterm,
        wrap,
        genonly,
    })
}

/// Every admin key of the new minter and its value: Perl's, then the extensions
/// (`fresh`, `atlast`, `luikey`), then the generator's counters.
fn admin_keys(
    a: &CreateArgs<'_>,
    c: &Checked<'_>,
    firstpart: &str,
    props: &str,
    readme: &str,
    lui: bool,
) -> Vec<(String, String)> {
    let Checked {
        t,
        template_str,
        naan,
        naa,
        subnaa,
        longterm,
        wrap,
        genonly,
    } = c;
    let (longterm, wrap, genonly) = (*longterm, *wrap, *genonly);
    let unlimited = t.total == -1;
    let gen = init_counters(t.total);
    let gen_type = t.gen_type.as_str();
    let b = |v: bool| if v { "1".to_string() } else { String::new() };
    let mut keys: Vec<(String, String)> = vec![
        ("naa".into(), (*naa).into()),
        (name::NAAN.into(), (*naan).into()),
        ("subnaa".into(), (*subnaa).into()),
        ("longterm".into(), b(longterm)),
        (
            "wrap".into(),
            b(match a.atlast {
                None => wrap,
                Some(at) => matches!(at, AtLast::Wrap(_)),
            }),
        ),
        (name::TEMPLATE.into(), (*template_str).into()),
        ("prefix".into(), t.prefix.clone()),
        (name::MASK.into(), t.mask.clone()),
        ("firstpart".into(), firstpart.into()),
        ("addcheckchar".into(), b(t.has_checkchar)),
        ("generator_type".into(), gen_type.into()),
        (
            "genonly".into(),
            if genonly { "1".into() } else { "0".into() },
        ),
        ("total".into(), t.total.to_string()),
        (
            "padwidth".into(),
            ((if unlimited { 16 } else { 2 }) + t.mask.len()).to_string(),
        ),
        (name::OACOUNTER.into(), "0".into()),
        ("oatop".into(), t.total.to_string()),
        ("held".into(), "0".into()),
        ("queued".into(), "0".into()),
        ("fseqnum".into(), "1".into()),
        ("gseqnum".into(), "1".into()),
        ("gseqnum_date".into(), "0".into()),
        ("version".into(), "0.424".into()),
        ("properties".into(), props.into()),
        ("erc".into(), readme.into()),
        ("percounter".into(), gen.percounter.to_string()),
        ("saclist".into(), gen.saclist_string()),
        ("siclist".into(), gen.siclist_string()),
    ];
    if !t.mask.is_empty() {
        keys.push((name::FRESH.into(), "1".into()));
    }
    if let Some(at) = a.atlast {
        keys.push((name::ATLAST.into(), at.to_string()));
    }
    if lui {
        keys.push((name::LUI.into(), key_to_hex(&a.lui_key)));
    }
    for (n, c) in gen.counters.iter().enumerate() {
        keys.push((format!("c{n}/top"), c.top.to_string()));
        keys.push((format!("c{n}/value"), c.value.to_string()));
    }
    keys
}

/// The report's and README's warning for templates using `c`.
const ESCAPING: &str = "       Warning: mask character 'c' mints characters that URLs and ARKs must escape\n       (\" < > ` { } | ^ [ ] # ?).\n";

/// The README lines on what the minter does beyond Perl Noid (empty for a minter Perl
/// Noid could have made, whose README stays exactly Perl's).
fn beyond_perl(t: &Template, atlast: Option<AtLast>) -> String {
    let mut s = String::new();
    if let Some(shape) = t.lui {
        s.push_str(&format!(
            "       Identifiers are Crockford base32 LUIs of {} characters, the last two an\n       ISO 7064 MOD 97-10 checksum, in an order drawn from this minter's secret\n       key. Readers may type them in upper case, with dashes anywhere, and I or L\n       for 1, O for 0.\n",
            shape.length
        ));
    } else if t
        .mask
        .bytes()
        .skip(1)
        .any(|c| c != b'k' && Repertoire::from_mask_char(c).is_some_and(|r| !r.is_perl()))
    {
        let mut seen = Vec::new();
        for r in t
            .mask
            .bytes()
            .skip(1)
            .filter_map(Repertoire::from_mask_char)
        {
            if !seen.contains(&r) {
                seen.push(r);
            }
        }
        let list: Vec<String> = seen
            .iter()
            .map(|r| format!("{} ({})", r.mask_char(), r.description()))
            .collect();
        s.push_str(&format!("       Mask characters: {}.\n", list.join(", ")));
        if let Some(c) = t.check {
            s.push_str(&format!(
                "       The check character is computed over the '{}' repertoire ({} characters).\n",
                c.mask_char(),
                c.radix()
            ));
        }
        if t.needs_escaping() {
            s.push_str(ESCAPING);
        }
    }
    if let Some(at) = atlast {
        let what = match at {
            AtLast::Add(1) => "the template grows by 1 character".to_string(),
            AtLast::Add(n) => format!("the template grows by {n} characters"),
            AtLast::Stop(n) => format!("minting stops with exit status {n}"),
            AtLast::Wrap(n) => format!("identifiers are issued again (exit status {n})"),
        };
        s.push_str(&format!(
            "Atlast:    {at} (when the namespace is used up, {what})\n"
        ));
    }
    s
}

/// The creation record (`NOID/README`, also `:/erc`), as Perl Noid 0.424 wrote it.
fn creation_record(
    a: &CreateArgs<'_>,
    c: &Checked<'_>,
    what: &str,
    props: &str,
    total_word: &str,
) -> String {
    let Checked {
        t,
        template_str,
        naan,
        naa,
        subnaa,
        genonly,
        ..
    } = c;
    let (naan, naa, subnaa): (&str, &str, &str) = (naan, naa, subnaa);
    let synonym = if *genonly {
        format!("noid_{}", t.synonym)
    } else {
        "noidany".to_string()
    };
    let p = |i: usize| {
        if props.as_bytes().get(i) == Some(&b'-') {
            "_ not"
        } else {
            "_____"
        }
    };
    let beyond_perl = beyond_perl(t, a.atlast);
    format!(
        "# Creation record for the identifier generator in NOID/noid.bdb.\n# \nerc:\nwho:       {contact}\nwhat:      {what}\nwhen:      {when}\nwhere:     {where_}\nVersion:   Noid 0.424\nSize:      {total_word}\nTemplate:  {template}\n       A suggested parent directory for this template is \"{synonym}\".  Note:\n       separate minters need separate directories, and templates can suggest\n       short names; e.g., the template \"xz.redek\" suggests the parent directory\n       \"noid_xz4\" since identifiers are \"xz\" followed by 4 characters.\n{beyond_perl}Policy:    (:{props})\n       This minter's durability summary is (maximum possible being \"GRANITE\")\n         \"{props}\", which breaks down, property by property, as follows.\n          ^^^^^^^\n          |||||||_{p6} (E)lided of vowels to avoid creating words by accident\n          ||||||_{p5} (T)ranscription safe due to a generated check character\n          |||||_{p4} (I)mpression safe from ignorable typesetter-added hyphens\n          ||||_{p3} (N)on-reassignable in life of Name Assigning Authority\n          |||_{p2} (A)lphabetic-run-limited to pairs to avoid acronyms\n          ||_{p1} (R)andomly sequenced to avoid series semantics\n          |_{p0} (G)lobally unique within a registered namespace (currently\n                     tests only ARK namespaces; apply for one at ark@cdlib.org)\nAuthority: {naa_t} | {subnaa_t}\nNAAN:      {naan_t}\n",
        contact = a.contact,
        when = a.when,
        where_ = a.where_,
        template = template_str,
        p6 = p(6),
        p5 = p(5),
        p4 = p(4),
        p3 = p(3),
        p2 = p(2),
        p1 = p(1),
        p0 = p(0),
        naa_t = if naa.is_empty() { "no Name Assigning Authority" } else { naa },
        subnaa_t = if subnaa.is_empty() { "no sub authority" } else { subnaa },
        naan_t = if naan.is_empty() { "no NAA Number" } else { naan },
    )
}
