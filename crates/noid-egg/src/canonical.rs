//! An egg command as one self-contained `:hx` command line ([`canonical`]): the form
//! a write is logged in and replayed from (the write log's records are noid-binder's
//! `write_log`), with every byte the command syntax would read specially written
//! `^hh` ([`escape`]). The inverse of the egg parser, so it lives beside it.

use crate::command::Command;

/// `cmd` as a self-contained `:hx` command line; `None` for commands that write nothing.
pub fn canonical(cmd: &Command) -> Option<String> {
    let line = |id: &str, op: &str, args: &[&[u8]]| {
        // Room for the words and a few escapes: the line is allocated once.
        let words = id.len() + op.len() + args.iter().map(|a| a.len() + 3).sum::<usize>();
        let mut s = String::with_capacity(words + 24);
        s.push_str(":hx ");
        if id.is_empty() {
            s.push_str(op);
        } else {
            escape_into(&mut s, id.as_bytes());
            s.push('.');
            s.push_str(op);
        }
        for a in args {
            s.push(' ');
            if a.is_empty() {
                s.push_str("\"\"");
            } else {
                escape_into(&mut s, a);
            }
        }
        s
    };
    Some(match cmd {
        Command::Bind {
            op,
            id,
            elem,
            value,
        } => {
            let word = op.bind_word();
            line(id, word, &[elem.as_bytes(), value])
        }
        Command::Incr { id, elem, by } => {
            line(id, "incr", &[elem.as_bytes(), by.to_string().as_bytes()])
        }
        Command::Remove { id, elem, report } => line(
            id,
            if *report { "delete" } else { "rm" },
            &[elem.as_bytes()],
        ),
        Command::Purge { id } => line(id, "purge", &[]),
        _ => return None,
    })
}

/// `^hh` for every byte that is not plainly safe in a token: whitespace, controls,
/// non-ASCII, quotes, backslash, the escape itself, `|` (splits id from element),
/// `.` is safe (the operation follows the last one), and the characters that make a
/// token indirect, a modifier or a binder prefix (`@ & : <`), and a leading `-` or `#`.
pub fn escape(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() + 8);
    escape_into(&mut s, b);
    s
}

/// [`escape`], appended to `out` (every write logged escapes its id, element, value
/// and received line; a table look-up and a one-byte push per byte).
pub fn escape_into(out: &mut String, b: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(b.len());
    for (i, &c) in b.iter().enumerate() {
        // A leading `-` would read as an option, and a leading `#` as the start of a
        // comment when the line is split shell-style (it is, once a value is `""`).
        if SAFE[usize::from(c)] && !(i == 0 && (c == b'-' || c == b'#')) {
            out.push(char::from(c));
        } else {
            out.push('^');
            out.push(char::from(HEX[usize::from(c >> 4)]));
            out.push(char::from(HEX[usize::from(c & 15)]));
        }
    }
}

/// Bytes [`escape`] leaves as they are: ASCII graphic characters but `^|'"\@&:<`.
const SAFE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0x21;
    while c < 0x7f {
        t[c] = true;
        c += 1;
    }
    let special = b"^|'\"\\@&:<";
    let mut i = 0;
    while i < special.len() {
        t[special[i] as usize] = false;
        i += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Op, Session};

    #[test]
    fn canonical_commands_parse_back_to_themselves() {
        let cmds = [
            Command::Bind {
                op: Op::Set,
                id: "ark:/99999/fk4 x|y".into(),
                elem: "@e: f\tg".into(),
                value: b"v\n'\"\\^ \xff".to_vec(),
            },
            Command::Bind {
                op: Op::Add,
                id: String::new(),
                elem: "e".into(),
                value: Vec::new(),
            },
            Command::Incr {
                id: "i".into(),
                elem: "n".into(),
                by: -3,
            },
            Command::Remove {
                id: "<i".into(),
                elem: "e".into(),
                report: true,
            },
            Command::Purge { id: ":i".into() },
            Command::Purge { id: "-i".into() },
            // Found by fuzzing: `""` makes the line split shell-style, where a word
            // that starts with `#` begins a comment; the bind replayed as `help`.
            Command::Bind {
                op: Op::Add,
                id: "#oo".into(),
                elem: "bar".into(),
                value: Vec::new(),
            },
        ];
        for cmd in cmds {
            let line = canonical(&cmd).unwrap();
            let parsed = Session::new(false).parse(&line, &mut std::io::empty());
            let got = parsed.command.unwrap();
            // A value that is not UTF-8 survives; text fields are UTF-8 by construction.
            assert_eq!(got, cmd, "{line}");
        }
    }

    #[test]
    fn escape_hex_codes_every_byte_but_plain_ascii() {
        // Hex codes by hand: ^ 5e, | 7c, ' 27, " 22, \ 5c, @ 40, & 26, : 3a, < 3c,
        // space 20, tab 09, DEL 7f, 0xff; a `-` (2d) or `#` (23) only when it leads.
        assert_eq!(
            escape(b"-a-^|'\"\\@&:< \t\x7f\xffz.~!/"),
            "^2da-^5e^7c^27^22^5c^40^26^3a^3c^20^09^7f^ffz.~!/"
        );
        assert_eq!(escape(b"#a#"), "^23a#");
        assert_eq!(escape(b""), "");
        assert_eq!(escape(b"ark:/99999/fk4"), "ark^3a/99999/fk4");
        let mut out = String::from("x ");
        escape_into(&mut out, b"a b");
        assert_eq!(out, "x a^20b");
    }
}
