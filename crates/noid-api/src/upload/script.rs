//! A sheet's rows as the typed commands of one bulk run: a `set` of ELEM to VALUE for
//! every non-empty cell, so that the run's command `n` is the script's command `n`.
//! The cells go in as values, never as command lines, so any text — spaces, quotes,
//! newlines, a leading `@` or `&` — arrives as it was in the cell.

use noid_egg::{Command, Op};

use super::sheet::Sheet;

/// The commands of a sheet and which row each comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    /// The commands, in order.
    pub commands: Vec<Command>,
    /// For each command (line `n` is `row_of[n - 1]`), the index of its row.
    pub row_of: Vec<usize>,
}

impl Script {
    /// The commands of `sheet`, its `mint` rows taking `minted`'s identifiers in
    /// order; rows with no identifier (not minted) give no commands.
    pub fn of(sheet: &Sheet, ids: &[Option<String>]) -> Script {
        let mut commands = Vec::new();
        let mut row_of = Vec::new();
        for (r, (row, id)) in sheet.rows.iter().zip(ids).enumerate() {
            let Some(id) = id else { continue };
            for (elem, value) in sheet.elements.iter().zip(&row.values) {
                if value.is_empty() {
                    continue;
                }
                commands.push(Command::Bind {
                    op: Op::Set,
                    id: id.clone(),
                    elem: elem.clone(),
                    value: value.clone().into_bytes(),
                });
                row_of.push(r);
            }
        }
        Script { commands, row_of }
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
    fn a_set_per_cell() {
        let sheet = Sheet {
            converted: None,
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
        let set = |id: &str, elem: &str, value: &str| Command::Bind {
            op: Op::Set,
            id: id.into(),
            elem: elem.into(),
            value: value.as_bytes().to_vec(),
        };
        assert_eq!(
            script.commands,
            [
                set("13030/f1", "_t", "https://e.org/a?b=1&c"),
                set("13030/f1", "my note", "@x\n-y"),
                set("ark:/13030/x.1", "who", "Müller, J."),
            ]
        );
        assert_eq!(script.row_of, [0, 0, 1]);
    }
}
