//! Rows as CSV (RFC 4180) and JSON Lines, through [`Row::cell`]: no
//! dependency, one rule per format.

use std::io::{self, Write};

pub use super::rows::Cell;
use super::rows::Row;
use super::Table;

/// Writes a CSV cell: nothing for null (which engines read as NULL), an
/// integer in decimal, text as it is unless it is empty or holds a comma,
/// a double quote, CR or LF, in which case it is quoted (quotes doubled), so
/// that the empty string (`""`) stays apart from null.
pub fn cell_csv<W: Write + ?Sized>(out: &mut W, cell: Cell<'_>) -> io::Result<()> {
    match cell {
        Cell::Null => Ok(()),
        Cell::Int(n) => write!(out, "{n}"),
        Cell::Text(s) => {
            let quote = s.is_empty() || s.bytes().any(|b| matches!(b, b',' | b'"' | b'\r' | b'\n'));
            if !quote {
                return out.write_all(s.as_bytes());
            }
            out.write_all(b"\"")?;
            for (i, piece) in s.split('"').enumerate() {
                if i > 0 {
                    out.write_all(b"\"\"")?;
                }
                out.write_all(piece.as_bytes())?;
            }
            out.write_all(b"\"")
        }
    }
}

/// Writes `table`'s CSV header line: its column names.
pub fn write_csv_header<W: Write + ?Sized>(out: &mut W, table: Table) -> io::Result<()> {
    write_csv_header_except(out, table, None)
}

/// Writes `table`'s CSV header line without the column at index `skip`
/// (a Hive partition's column, which its directory's name holds).
pub fn write_csv_header_except<W: Write + ?Sized>(
    out: &mut W,
    table: Table,
    skip: Option<usize>,
) -> io::Result<()> {
    let mut first = true;
    for (i, c) in table.columns().iter().enumerate() {
        if Some(i) == skip {
            continue;
        }
        if !std::mem::take(&mut first) {
            out.write_all(b",")?;
        }
        out.write_all(c.name.as_bytes())?;
    }
    out.write_all(b"\n")
}

/// Writes `rows` as CSV lines (LF-terminated), after the header line when
/// `header`.
pub fn write_csv<R: Row, W: Write + ?Sized>(
    out: &mut W,
    rows: &[R],
    header: bool,
) -> io::Result<()> {
    if header {
        write_csv_header(out, R::TABLE)?;
    }
    rows.iter()
        .try_for_each(|row| write_csv_row(out, row, None))
}

/// Writes `row` as a CSV line (LF-terminated), without the column at index
/// `skip`.
pub fn write_csv_row<R: Row, W: Write + ?Sized>(
    out: &mut W,
    row: &R,
    skip: Option<usize>,
) -> io::Result<()> {
    let mut first = true;
    for i in 0..R::COLUMNS.len() {
        if Some(i) == skip {
            continue;
        }
        if !std::mem::take(&mut first) {
            out.write_all(b",")?;
        }
        cell_csv(out, row.cell(i))?;
    }
    out.write_all(b"\n")
}

/// Writes `rows` as JSON Lines: one object per row, every column a key in
/// the table's order, `null` for a null cell (every line has the same
/// shape).
pub fn write_jsonl<R: Row, W: Write + ?Sized>(out: &mut W, rows: &[R]) -> io::Result<()> {
    rows.iter()
        .try_for_each(|row| write_jsonl_row(out, row, None))
}

/// Writes `row` as a JSON Lines line, without the column at index `skip`.
pub fn write_jsonl_row<R: Row, W: Write + ?Sized>(
    out: &mut W,
    row: &R,
    skip: Option<usize>,
) -> io::Result<()> {
    let mut first = true;
    for (i, c) in R::COLUMNS.iter().enumerate() {
        if Some(i) == skip {
            continue;
        }
        out.write_all(if std::mem::take(&mut first) {
            b"{\""
        } else {
            b",\""
        })?;
        out.write_all(c.name.as_bytes())?;
        out.write_all(b"\":")?;
        match row.cell(i) {
            Cell::Null => out.write_all(b"null")?,
            Cell::Int(n) => write!(out, "{n}")?,
            Cell::Text(s) => crate::escape::json_string(out, s)?,
        }
    }
    out.write_all(b"}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::DiagnosticRow;

    fn csv(cell: Cell<'_>) -> String {
        let mut v = Vec::new();
        cell_csv(&mut v, cell).unwrap();
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn csv_quotes_only_what_needs_it_and_keeps_empty_apart_from_null() {
        assert_eq!(csv(Cell::Null), "");
        assert_eq!(csv(Cell::Text("")), "\"\"");
        assert_eq!(csv(Cell::Int(-12)), "-12");
        assert_eq!(csv(Cell::Text("plain text")), "plain text");
        assert_eq!(csv(Cell::Text("a,b")), "\"a,b\"");
        assert_eq!(csv(Cell::Text("say \"hi\"\n")), "\"say \"\"hi\"\"\n\"");
    }

    #[test]
    fn jsonl_lines_have_every_column_in_order() {
        let row = DiagnosticRow {
            file_id: 2,
            line: 7,
            byte: None,
            kind: "too-deep".into(),
            severity: "error",
            message: "a \"quote\"".into(),
        };
        let mut v = Vec::new();
        write_jsonl(&mut v, &[row]).unwrap();
        let line = String::from_utf8(v).unwrap();
        let keys: Vec<String> = Table::Diagnostics
            .columns()
            .iter()
            .map(|c| format!("\"{}\":", c.name))
            .collect();
        let mut at = 0;
        for k in &keys {
            let found = line[at..].find(k.as_str()).map(|i| i + at);
            at = found.unwrap_or_else(|| panic!("{k} missing or out of order in {line}"));
        }
        assert!(line.contains("\"byte\":null") && line.contains(r#""message":"a \"quote\"""#));
        assert!(line.ends_with("}\n"));
    }

    #[test]
    fn a_column_can_be_left_out() {
        let row = DiagnosticRow {
            file_id: 2,
            line: 7,
            byte: None,
            kind: "too-deep".into(),
            severity: "error",
            message: "m".into(),
        };
        let mut v = Vec::new();
        write_csv_header_except(&mut v, Table::Diagnostics, Some(0)).unwrap();
        write_csv_row(&mut v, &row, Some(0)).unwrap();
        write_jsonl_row(&mut v, &row, Some(0)).unwrap();
        let text = String::from_utf8(v).unwrap();
        assert_eq!(
            text,
            "line,byte,kind,severity,message\n7,,too-deep,error,m\n\
             {\"line\":7,\"byte\":null,\"kind\":\"too-deep\",\"severity\":\"error\",\"message\":\"m\"}\n"
        );
    }
}
