//! The CSV form of an upload: a header row naming the columns, then one row per
//! identifier. The `id` column holds an identifier, or the word `mint` for one to be
//! minted; every other column is an element name (`_t` the target, `who`, `what`,
//! `when`, `how` the kernel), its cells the values to set. An empty cell sets
//! nothing. Read by the `csv` crate (RFC 4180 quoting, CRLF or LF, a UTF-8 BOM);
//! anything malformed refuses the whole file, naming its line, before anything runs.
//!
//! Spreadsheets name their columns for people, so the common header names are read as
//! the elements they mean ([`HEADERS`], any case): `ARK` or `Identifier` is the `id`
//! column, `URL` or `Target` is `_t`, `Title` is `what`, and so on. A file that is not
//! UTF-8 is read as Windows-1252, the encoding of Excel's legacy "CSV (Comma
//! delimited)" on Windows, and converted ([`Sheet::converted`] says so).

use super::UploadError;

/// The `id` cell that asks for a new identifier.
pub const MINT: &str = "mint";

/// Header names read as an element (compared in any case, after trimming): the
/// name people give a column, and the element it means. `id` is the identifier column.
pub const HEADERS: &[(&str, &str)] = &[
    ("ark", "id"),
    ("identifier", "id"),
    ("url", "_t"),
    ("target", "_t"),
    ("target url", "_t"),
    ("location", "_t"),
    ("title", "what"),
    ("creator", "who"),
    ("author", "who"),
    ("date", "when"),
    ("year", "when"),
    ("type", "how"),
];

/// A CSV upload, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sheet {
    /// The element names, in column order (the `id` column left out).
    pub elements: Vec<String>,
    /// The rows, in file order.
    pub rows: Vec<Row>,
    /// The encoding the file was converted from, when it was not UTF-8.
    pub converted: Option<&'static str>,
}

/// One row of a sheet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The line of the file where the row starts (the header is line 1).
    pub line: usize,
    /// The identifier, or `None` for `mint`.
    pub id: Option<String>,
    /// The row's cells, one per element of [`Sheet::elements`].
    pub values: Vec<String>,
}

impl Sheet {
    /// The sheet in `bytes` (UTF-8, or else Windows-1252, converted).
    pub fn read(bytes: &[u8]) -> Result<Sheet, UploadError> {
        if std::str::from_utf8(bytes).is_ok() {
            return Sheet::read_utf8(bytes);
        }
        let (text, _, _) = encoding_rs::WINDOWS_1252.decode(bytes);
        let mut sheet = Sheet::read_utf8(text.as_bytes())?;
        sheet.converted = Some("Windows-1252");
        Ok(sheet)
    }

    fn read_utf8(bytes: &[u8]) -> Result<Sheet, UploadError> {
        if let Some(line) = unclosed_quote(bytes) {
            return Err(UploadError::at(
                line,
                "a quoted cell is never closed (its opening \" has no closing \"): the rest of the file would be read as one cell",
            ));
        }
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .flexible(false)
            .from_reader(bytes);
        let mut lines = LineCount {
            bytes,
            at: 0,
            line: 1,
        };
        let header = reader.headers().map_err(|e| lines.error(&e))?.clone();
        let (id_col, elements) = columns(&header)?;
        let mut rows = Vec::new();
        for record in reader.records() {
            let record = record.map_err(|e| lines.error(&e))?;
            let line = record.position().map_or(0, |p| lines.of(p));
            rows.push(row(&record, line, id_col)?);
        }
        if rows.is_empty() {
            return Err(UploadError::whole("the file has a header row but no rows"));
        }
        Ok(Sheet {
            elements,
            rows,
            converted: None,
        })
    }

    /// How many rows ask for a new identifier.
    pub fn mints(&self) -> usize {
        self.rows.iter().filter(|r| r.id.is_none()).count()
    }
}

/// The line where a quoted cell opens that the file never closes, if one does. The
/// `csv` crate reads such a cell to the end of the file without a word; RFC 4180's
/// rule is followed: a `"` opens a quoted cell only at a cell's start, `""` inside one
/// is a quote, and any other `"` inside one closes it (a `"` in an unquoted cell, an
/// inch mark, is text).
fn unclosed_quote(bytes: &[u8]) -> Option<usize> {
    let (mut line, mut opened_at) = (1, None);
    let mut at_cell_start = true;
    // A UTF-8 byte order mark before the first cell.
    let mut i = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    while i < bytes.len() {
        let b = bytes[i];
        match (opened_at, b) {
            (None, b'"') if at_cell_start => opened_at = Some(line),
            (Some(_), b'"') if bytes.get(i + 1) == Some(&b'"') => i += 1,
            (Some(_), b'"') => opened_at = None,
            _ => {}
        }
        if b == b'\n' {
            line += 1;
        }
        at_cell_start = opened_at.is_none() && matches!(b, b',' | b'\n');
        i += 1;
    }
    opened_at
}

/// The `id` column's index and the element names of the others.
fn columns(header: &csv::StringRecord) -> Result<(usize, Vec<String>), UploadError> {
    let names: Vec<&str> = header
        .iter()
        .map(|n| {
            let n = n.trim();
            HEADERS
                .iter()
                .find(|(given, _)| given.eq_ignore_ascii_case(n))
                .map_or(n, |(_, elem)| elem)
        })
        .collect();
    if names.iter().all(|n| n.is_empty()) {
        return Err(UploadError::at(1, "the file is empty; the first line names the columns (id, _t, who, what, when, how, or any element)"));
    }
    let mut seen = std::collections::HashSet::new();
    for (i, name) in names.iter().enumerate() {
        if name.is_empty() {
            return Err(UploadError::at(1, format!("column {} has no name", i + 1)));
        }
        if !seen.insert(*name) {
            return Err(UploadError::at(
                1,
                format!("column '{name}' is named twice (headers such as 'URL' and 'Target' both name _t)"),
            ));
        }
    }
    let id_col = names
        .iter()
        .position(|n| *n == "id")
        .ok_or_else(|| {
            UploadError::at(
                1,
                "no 'id' column (each row's identifier, or 'mint'; 'ARK' and 'Identifier' are read as 'id')",
            )
        })?;
    if names.len() == 1 {
        return Err(UploadError::at(
            1,
            "no element columns besides 'id' (such as _t, who, what, when, how)",
        ));
    }
    let elements = names
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != id_col)
        .map(|(_, n)| n.to_string())
        .collect();
    Ok((id_col, elements))
}

/// One record as a row.
fn row(record: &csv::StringRecord, line: usize, id_col: usize) -> Result<Row, UploadError> {
    let id = record[id_col].trim();
    let id = match id {
        "" => {
            return Err(UploadError::at(
                line,
                "no identifier in the 'id' column (an identifier, or 'mint')",
            ))
        }
        MINT => None,
        _ => Some(id.to_string()),
    };
    let values = record
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != id_col)
        .map(|(_, v)| v.to_string())
        .collect();
    Ok(Row { line, id, values })
}

/// Lines counted as the reader goes (each record's newlines counted once).
struct LineCount<'b> {
    bytes: &'b [u8],
    /// Bytes before `at` are counted: `line` is the line of byte `at`.
    at: usize,
    line: usize,
}

impl LineCount<'_> {
    /// The line of the record the reader places at `p`. After a CRLF the reader
    /// places the next record at the LF (and its own line count is one short): the
    /// line is that of the first byte there that ends no line.
    fn of(&mut self, p: &csv::Position) -> usize {
        let from = (p.byte() as usize).min(self.bytes.len());
        let start = self.bytes[from..]
            .iter()
            .position(|b| !matches!(b, b'\r' | b'\n'))
            .map_or(self.bytes.len(), |n| from + n);
        if start < self.at {
            (self.at, self.line) = (0, 1);
        }
        let newlines = self.bytes[self.at..start].iter().filter(|&&b| b == b'\n');
        self.line += newlines.count();
        self.at = start;
        self.line
    }

    /// A reader's error, with its line.
    fn error(&mut self, e: &csv::Error) -> UploadError {
        csv_error(e.position().map(|p| self.of(p)), e)
    }
}

/// A CSV reader's error, with its line.
fn csv_error(line: Option<usize>, e: &csv::Error) -> UploadError {
    let why = match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "not UTF-8 text".to_string(),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("{len} fields where the header row has {expected_len}"),
        _ => e.to_string(),
    };
    match line {
        Some(l) => UploadError::at(l, why),
        None => UploadError::whole(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: usize, id: Option<&str>, values: &[&str]) -> Row {
        Row {
            line,
            id: id.map(str::to_string),
            values: values.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn reads_quotes_bom_crlf_utf8() {
        let text = "\u{feff}id,_t,who,note\r\n\
                    mint,https://example.org/a,\"Smith, J.\",\r\n\
                    ark:/13030/x1, https://example.org/b ,Müller,\"two\r\nlines \"\"quoted\"\"\"\r\n";
        let sheet = Sheet::read(text.as_bytes()).unwrap();
        assert_eq!(sheet.elements, ["_t", "who", "note"]);
        assert_eq!(
            sheet.rows,
            [
                row(2, None, &["https://example.org/a", "Smith, J.", ""]),
                row(
                    3,
                    Some("ark:/13030/x1"),
                    &[
                        " https://example.org/b ",
                        "Müller",
                        "two\r\nlines \"quoted\""
                    ]
                ),
            ]
        );
        assert_eq!(sheet.mints(), 1);
    }

    #[test]
    fn id_column_anywhere_and_line_numbers_after_multiline_cells() {
        let text = "_t,id\n\"a\nb\",x\nc,mint\n";
        let sheet = Sheet::read(text.as_bytes()).unwrap();
        assert_eq!(sheet.elements, ["_t"]);
        assert_eq!(
            sheet.rows,
            [row(2, Some("x"), &["a\nb"]), row(4, None, &["c"])]
        );
    }

    /// A spreadsheet's own header names and Excel's legacy encoding: the CSV of
    /// issue 41 (item 10), with "Müller" and a curly quote in Windows-1252.
    #[test]
    fn spreadsheet_headers_and_windows_1252() {
        let text = b"ARK,URL,Title,Creator,Date\nmint,https://e.org/1,\x93Migrant Mother\x94,M\xfcller,1936\n";
        let sheet = Sheet::read(text).unwrap();
        assert_eq!(sheet.elements, ["_t", "what", "who", "when"]);
        assert_eq!(
            sheet.rows,
            [row(
                2,
                None,
                &[
                    "https://e.org/1",
                    "\u{201c}Migrant Mother\u{201d}",
                    "M\u{fc}ller",
                    "1936"
                ]
            )]
        );
        assert_eq!(sheet.converted, Some("Windows-1252"));
        assert_eq!(Sheet::read(b"id,_t\nx,a\n").unwrap().converted, None);
        assert_eq!(
            refused(b"URL,Target\nx,a\n"),
            "line 1: column '_t' is named twice (headers such as 'URL' and 'Target' both name _t)"
        );
    }

    /// Issue 42, item 8: `x6,"abc` was read as a cell holding the rest of the file.
    #[test]
    fn an_unclosed_quote_is_refused_with_its_line() {
        assert_eq!(
            refused(b"id,_t\nx5,a\nx6,\"abc\nx7,b\n"),
            "line 3: a quoted cell is never closed (its opening \" has no closing \"): the rest of the file would be read as one cell"
        );
        // Closed quotes, doubled quotes and a quote inside an unquoted cell are fine.
        let ok =
            Sheet::read(b"id,what\nx,\"a \"\"b\"\" c\"\ny,5\" floppy\nz,\"two\nlines\"\n").unwrap();
        assert_eq!(ok.rows.len(), 3);
        assert_eq!(ok.rows[1].values, ["5\" floppy"]);
    }

    fn refused(text: &[u8]) -> String {
        Sheet::read(text).unwrap_err().to_string()
    }

    #[test]
    fn bad_input_is_refused_with_its_line() {
        assert_eq!(
            refused(b""),
            "line 1: the file is empty; the first line names the columns (id, _t, who, what, when, how, or any element)"
        );
        assert_eq!(refused(b"id,_t\n"), "the file has a header row but no rows");
        assert_eq!(
            refused(b"_t,who\nx,y\n"),
            "line 1: no 'id' column (each row's identifier, or 'mint'; 'ARK' and 'Identifier' are read as 'id')"
        );
        assert_eq!(
            refused(b"id\nx\n"),
            "line 1: no element columns besides 'id' (such as _t, who, what, when, how)"
        );
        assert_eq!(
            refused(b"id,_t,_t\nx,a,b\n"),
            "line 1: column '_t' is named twice (headers such as 'URL' and 'Target' both name _t)"
        );
        assert_eq!(refused(b"id,,who\nx,a,b\n"), "line 1: column 2 has no name");
        assert_eq!(
            refused(b"id,_t\nx,a\ny\n"),
            "line 3: 1 fields where the header row has 2"
        );
        assert_eq!(
            refused(b"id,_t\nx,a\n,b\n"),
            "line 3: no identifier in the 'id' column (an identifier, or 'mint')"
        );
    }
}
