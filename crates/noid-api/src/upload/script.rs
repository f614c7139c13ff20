//! A sheet's rows as the egg commands of one bulk run: `ID.set ELEM VALUE` for every
//! non-empty cell, one command a line, so that the bulk run's line `n` is command `n`.
//! Each line is the write log's own form of the command (noid-egg's
//! [`canonical`]: `:hx` with `^hh` escapes), so any text — spaces, quotes, newlines,
//! a leading `@` or `&` — arrives as it was in the cell.

use noid_egg::writelog::canonical;
use noid_egg::{Command, Op};

use super::sheet::Sheet;

/// The commands of a sheet and which row each comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The bulk body: one command per line.
    pub body: Vec<u8>,
    /// For each command (line `n` is `row_of[n - 1]`), the index of its row.
    pub row_of: Vec<usize>,
}

impl Script {
    /// The commands of `sheet`, its `mint` rows taking `minted`'s identifiers in
    /// order; rows with no identifier (not minted) give no commands.
    pub fn of(sheet: &Sheet, ids: &[Option<String>]) -> Script {
        let mut body = Vec::new();
        let mut row_of = Vec::new();
        for (r, (row, id)) in sheet.rows.iter().zip(ids).enumerate() {
            let Some(id) = id else { continue };
            for (elem, value) in sheet.elements.iter().zip(&row.values) {
                if value.is_empty() {
                    continue;
                }
                let cmd = Command::Bind {
                    op: Op::Set,
                    id: id.clone(),
                    elem: elem.clone(),
                    value: value.clone().into_bytes(),
                };
                body.extend(canonical(&cmd).expect("a write").bytes());
                body.push(b'\n');
                row_of.push(r);
            }
        }
        Script { body, row_of }
    }
}

/// Each row's identifier: its own, or the next of `minted` for a `mint` row (`None`
/// once `minted` runs out).
pub fn row_ids(sheet: &Sheet, minted: &[String]) -> Vec<Option<String>> {
    let mut minted = minted.iter();
    sheet
        .rows
        .iter()
        .map(|r| match &r.id {
            Some(id) => Some(id.clone()),
            None => minted.next().cloned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upload::sheet::Row;

    #[test]
    fn commands_escaped_one_per_line() {
        let sheet = Sheet {
            elements: vec!["_t".into(), "who".into(), "my note".into()],
            rows: vec![
                Row {
                    line: 2,
                    id: None,
                    values: vec!["https://e.org/a?b=1&c".into(), "".into(), "@x\n-y".into()],
                },
                Row {
                    line: 3,
                    id: Some("ark:/13030/x.1".into()),
                    values: vec!["".into(), "Müller, J.".into(), "".into()],
                },
                Row {
                    line: 4,
                    id: None,
                    values: vec!["u".into(), "".into(), "".into()],
                },
            ],
        };
        let ids = row_ids(&sheet, &["13030/f1".to_string()]);
        assert_eq!(
            ids,
            [Some("13030/f1".into()), Some("ark:/13030/x.1".into()), None]
        );
        let script = Script::of(&sheet, &ids);
        assert_eq!(
            String::from_utf8(script.body).unwrap(),
            ":hx 13030/f1.set _t https^3a//e.org/a?b=1^26c\n\
             :hx 13030/f1.set my^20note ^40x^0a-y\n\
             :hx ark^3a/13030/x.1.set who M^c3^bcller,^20J.\n"
        );
        assert_eq!(script.row_of, [0, 0, 1]);
    }
}
