//! Perl's replacement strings (`s/PATTERN/VALUE/`'s VALUE, a double-quoted string):
//! `$1`, `${1}`, `$&`, `` $` ``, `$'`, the lexical `$id` and `$elem`, `\U…\E`, `\u`,
//! `\x{…}` and the other escapes, parsed once and expanded for each match.

/// One piece of a parsed Perl replacement string.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Lit(Vec<u8>),
    Group(usize),
    Pre,
    Post,
    Id,
    Elem,
    /// `\U`, `\L`, `\E`: the case of what follows, until the next of them.
    Mode(CaseMode),
    /// `\u`, `\l`: the case of the next character.
    Next(CaseMode),
}

/// A Perl double-quoted replacement string, parsed once.
///
/// Understood: `$1`…`$99` (digits stop at the first non-digit, so `$1abc` is group 1 then
/// `abc`), `${1}`, `$&` and `$0` (whole match), `` $` `` and `$'` (text before and after
/// the match), `$id`/`${id}` (the identifier) and `$elem`/`${elem}` (the element name),
/// which were lexicals in scope of Perl Noid's `eval`; `\U … \E`, `\L … \E`, `\u`, `\l`;
/// escapes `\n \t \r \f \e \a \0 \xHH \x{HHHH}`, and `\` before any other character gives
/// that character (`\$` is a literal dollar).
///
/// Different from Perl on purpose: any other `$name` is empty (as an undefined Perl
/// variable would be, but without Perl's special variables such as `$$` or `$/`); a `$` not
/// followed by a name, digit or `{` is literal; `@` is always literal (Perl would
/// interpolate an array and usually lose the text, e.g. in `mailto:a@b.org`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement(Vec<Piece>);

impl Replacement {
    /// Parse a stored replacement value (raw bytes: values may be any bytes).
    pub fn parse(v: &[u8]) -> Replacement {
        let mut pieces = Vec::new();
        let mut lit = Vec::new();
        let mut i = 0;
        let flush = |lit: &mut Vec<u8>, pieces: &mut Vec<Piece>| {
            if !lit.is_empty() {
                pieces.push(Piece::Lit(std::mem::take(lit)));
            }
        };
        while i < v.len() {
            match v[i] {
                b'$' => {
                    let (piece, used) = parse_dollar(&v[i + 1..]);
                    match piece {
                        Some(p) => {
                            flush(&mut lit, &mut pieces);
                            if !matches!(p, Piece::Lit(ref l) if l.is_empty()) {
                                pieces.push(p);
                            }
                        }
                        None => lit.push(b'$'),
                    }
                    i += 1 + used;
                }
                b'\\' if i + 1 < v.len() => {
                    let (esc, used) = parse_escape(&v[i + 1..]);
                    match esc {
                        Escape::Bytes(b) => lit.extend_from_slice(&b),
                        Escape::Case(p) => {
                            flush(&mut lit, &mut pieces);
                            pieces.push(p);
                        }
                    }
                    i += 1 + used;
                }
                c => {
                    lit.push(c);
                    i += 1;
                }
            }
        }
        flush(&mut lit, &mut pieces);
        Replacement(pieces)
    }

    /// Expand for a match `caps` of `hay`, appending to `out`.
    pub(super) fn expand(
        &self,
        hay: &[u8],
        caps: &regex::bytes::Captures<'_>,
        elem: &str,
        out: &mut Vec<u8>,
    ) {
        let whole = caps.get(0).map_or(0..0, |m| m.range());
        let mut case = Case::default();
        for p in &self.0 {
            let text: &[u8] = match p {
                Piece::Lit(l) => l,
                Piece::Group(0) => &hay[whole.clone()],
                Piece::Group(n) => caps.get(*n).map_or(&[][..], |m| m.as_bytes()),
                Piece::Pre => &hay[..whole.start],
                Piece::Post => &hay[whole.end..],
                Piece::Id => hay,
                Piece::Elem => elem.as_bytes(),
                Piece::Mode(mode) => {
                    case.mode = *mode;
                    continue;
                }
                Piece::Next(mode) => {
                    case.next = *mode;
                    continue;
                }
            };
            case.push(text, out);
        }
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum CaseMode {
    #[default]
    None,
    Upper,
    Lower,
}

/// Perl's `\U \L \u \l` state while expanding.
#[derive(Debug, Default)]
struct Case {
    mode: CaseMode,
    next: CaseMode,
}

impl Case {
    fn push(&mut self, text: &[u8], out: &mut Vec<u8>) {
        if self.mode == CaseMode::None && self.next == CaseMode::None {
            out.extend_from_slice(text);
            return;
        }
        if text.is_empty() {
            return;
        }
        let s = String::from_utf8_lossy(text);
        let mut chars = s.chars();
        if self.next != CaseMode::None {
            if let Some(c) = chars.next() {
                let mut b = [0u8; 4];
                match self.next {
                    CaseMode::Upper => c
                        .to_uppercase()
                        .for_each(|u| out.extend_from_slice(u.encode_utf8(&mut b).as_bytes())),
                    _ => c
                        .to_lowercase()
                        .for_each(|u| out.extend_from_slice(u.encode_utf8(&mut b).as_bytes())),
                }
            }
            self.next = CaseMode::None;
        }
        let rest = chars.as_str();
        match self.mode {
            CaseMode::Upper => out.extend_from_slice(rest.to_uppercase().as_bytes()),
            CaseMode::Lower => out.extend_from_slice(rest.to_lowercase().as_bytes()),
            CaseMode::None => out.extend_from_slice(rest.as_bytes()),
        }
    }
}

/// Parse what follows a `$`; returns the piece (None = literal `$`) and bytes consumed.
fn parse_dollar(s: &[u8]) -> (Option<Piece>, usize) {
    match s.first() {
        Some(c) if c.is_ascii_digit() => {
            let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
            (Some(Piece::Group(parse_num(&s[..n]))), n)
        }
        Some(b'&') => (Some(Piece::Group(0)), 1),
        Some(b'`') => (Some(Piece::Pre), 1),
        Some(b'\'') => (Some(Piece::Post), 1),
        Some(b'{') => match s.iter().position(|&c| c == b'}') {
            Some(end) => {
                let name = &s[1..end];
                let piece = if !name.is_empty() && name.iter().all(u8::is_ascii_digit) {
                    Piece::Group(parse_num(name))
                } else {
                    named(name)
                };
                (Some(piece), end + 1)
            }
            None => (None, 0),
        },
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            let n = s
                .iter()
                .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                .count();
            (Some(named(&s[..n])), n)
        }
        _ => (None, 0),
    }
}

fn parse_num(digits: &[u8]) -> usize {
    digits.iter().fold(0usize, |n, d| {
        n.saturating_mul(10).saturating_add((d - b'0') as usize)
    })
}

/// A `$name`: the lexicals of Noid's eval that make sense, anything else is empty.
fn named(name: &[u8]) -> Piece {
    match name {
        b"id" => Piece::Id,
        b"elem" => Piece::Elem,
        _ => Piece::Lit(Vec::new()),
    }
}

enum Escape {
    Bytes(Vec<u8>),
    Case(Piece),
}

/// Parse what follows a `\` (at least one byte is there); returns the result and bytes used.
fn parse_escape(s: &[u8]) -> (Escape, usize) {
    let lit = |b: &[u8]| Escape::Bytes(b.to_vec());
    match s[0] {
        b'n' => (lit(b"\n"), 1),
        b't' => (lit(b"\t"), 1),
        b'r' => (lit(b"\r"), 1),
        b'f' => (lit(b"\x0c"), 1),
        b'e' => (lit(b"\x1b"), 1),
        b'a' => (lit(b"\x07"), 1),
        b'0' => (lit(b"\0"), 1),
        b'U' => (Escape::Case(Piece::Mode(CaseMode::Upper)), 1),
        b'L' => (Escape::Case(Piece::Mode(CaseMode::Lower)), 1),
        b'E' => (Escape::Case(Piece::Mode(CaseMode::None)), 1),
        b'u' => (Escape::Case(Piece::Next(CaseMode::Upper)), 1),
        b'l' => (Escape::Case(Piece::Next(CaseMode::Lower)), 1),
        b'x' => {
            let (cp, used) = if s.get(1) == Some(&b'{') {
                match s.iter().position(|&c| c == b'}') {
                    Some(end) => (hex_value(&s[2..end]), end + 1),
                    None => (None, 1),
                }
            } else {
                let n = s[1..]
                    .iter()
                    .take(2)
                    .take_while(|c| c.is_ascii_hexdigit())
                    .count();
                (hex_value(&s[1..1 + n]).or(Some(0)), 1 + n)
            };
            let c = cp.and_then(char::from_u32).unwrap_or('\u{FFFD}');
            let mut b = [0u8; 4];
            (lit(c.encode_utf8(&mut b).as_bytes()), used)
        }
        c => (lit(&[c]), 1),
    }
}

fn hex_value(h: &[u8]) -> Option<u32> {
    if h.is_empty() || h.len() > 8 {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
}
