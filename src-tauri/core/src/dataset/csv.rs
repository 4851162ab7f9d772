//! CSV / TSV with a header row, streamed row by row with the csv crate.
//!
//! Owns: the header check (a question column is required), turning each row into a
//! record for the mapper (list cells as a JSON array or ` || `-separated; JSON cells for
//! labels and metadata), and row-level reasons (field-count mismatch, invalid UTF-8).
//! Must not: map fields itself or hold more than one row.

use std::fs::File;
use std::io::{Seek, SeekFrom};
use std::path::Path;

use csv::{ByteRecord, ReaderBuilder};
use serde_json::{Map, Value};

use super::aliases::{classify, question_aliases, Canon};
use super::lines::BOM;
use super::report::Collector;
use super::DatasetError;

/// Separator for list cells that are not JSON arrays.
pub(crate) const LIST_SEPARATOR: &str = " || ";

/// What a column's cells become in the record handed to the mapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Text,
    List,
    Json,
}

pub(crate) fn read(
    path: &Path,
    delimiter: u8,
    collector: &mut Collector<'_>,
) -> Result<(), DatasetError> {
    let display = path.display().to_string();
    let unreadable = |message: String| DatasetError::Unreadable { path: display.clone(), message };
    let mut file = File::open(path).map_err(|e| unreadable(e.to_string()))?;
    let skipped = bom_length(&mut file).map_err(|e| unreadable(e.to_string()))?;
    let mut reader = ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .has_headers(true)
        .buffer_capacity(super::lines::READ_BUFFER)
        .from_reader(file);

    let header = reader.byte_headers().map_err(|e| unreadable(e.to_string()))?.clone();
    let columns = column_names(&header);
    let kinds: Vec<Cell> = columns.iter().map(|name| cell_kind(name)).collect();
    if !columns.iter().any(|c| classify(c).is_some_and(|a| a.canon == Canon::Question)) {
        return Err(DatasetError::UnsupportedShape {
            path: display,
            message: format!(
                "the header has no question column (looked for {}); its columns are: {}",
                question_aliases().join(", "),
                columns.join(", ")
            ),
        });
    }

    let mut row = ByteRecord::new();
    loop {
        let line_before = reader.position().line();
        match reader.read_byte_record(&mut row) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let reason = format!("unreadable row: {e}");
                let line = e.position().map_or(line_before, |p| p.line());
                collector.reject(line, 0, reason);
                continue;
            }
        }
        let position = row.position().cloned().unwrap_or_default();
        let (line, offset) = (position.line(), position.byte() + skipped);
        if row.len() == 1 && row[0].iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        if row.len() != columns.len() {
            let reason = format!(
                "row has {} fields but the header has {} (a missing or extra delimiter?)",
                row.len(),
                columns.len()
            );
            collector.reject(line, offset, reason);
            continue;
        }
        match row_to_record(&row, &columns, &kinds) {
            Ok(record) => collector.record(line, offset, record)?,
            Err(reason) => collector.reject(line, offset, reason),
        }
    }
    Ok(())
}

/// Moves past a UTF-8 BOM (the csv crate would make it part of the first column name).
fn bom_length(file: &mut File) -> std::io::Result<u64> {
    use std::io::Read;
    let mut head = [0u8; 3];
    let mut got = 0;
    while got < 3 {
        let n = file.read(&mut head[got..])?;
        if n == 0 {
            break;
        }
        got += n;
    }
    let skipped = if head[..got] == *BOM { 3 } else { 0 };
    file.seek(SeekFrom::Start(skipped))?;
    Ok(skipped)
}

/// Trimmed header names; a repeated name gets a `_2`, `_3` suffix so no column is lost.
fn column_names(header: &ByteRecord) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(header.len());
    for raw in header {
        let base = String::from_utf8_lossy(raw).trim().to_string();
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        names.push(name);
    }
    names
}

fn cell_kind(column: &str) -> Cell {
    match classify(column) {
        Some(a) if a.canon.is_list() => Cell::List,
        Some(a) if a.canon.is_structured() => Cell::Json,
        _ => Cell::Text,
    }
}

fn row_to_record(row: &ByteRecord, columns: &[String], kinds: &[Cell]) -> Result<Map<String, Value>, String> {
    let mut record = Map::with_capacity(columns.len());
    for ((raw, column), kind) in row.iter().zip(columns).zip(kinds) {
        let cell = std::str::from_utf8(raw)
            .map_err(|e| format!("column `{column}` is not valid UTF-8 (byte {})", e.valid_up_to()))?;
        if cell.trim().is_empty() {
            continue;
        }
        let value = match kind {
            Cell::Text => Value::String(cell.to_string()),
            Cell::List => list_cell(cell),
            Cell::Json => json_cell(cell),
        };
        record.insert(column.clone(), value);
    }
    Ok(record)
}

/// A JSON array when the cell is one, else items separated by ` || ` (one item if none).
fn list_cell(cell: &str) -> Value {
    let trimmed = cell.trim();
    if trimmed.starts_with('[') {
        if let Ok(array @ Value::Array(_)) = serde_json::from_str::<Value>(trimmed) {
            return array;
        }
    }
    Value::Array(
        cell.split(LIST_SEPARATOR)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| Value::String(s.to_string()))
            .collect(),
    )
}

fn json_cell(cell: &str) -> Value {
    let trimmed = cell.trim();
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        if let Ok(value) = serde_json::from_str::<Value>(trimmed) {
            return value;
        }
    }
    Value::String(cell.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_cells_accept_json_arrays_and_the_separator() {
        assert_eq!(list_cell(r#"["a, b", "c"]"#), serde_json::json!(["a, b", "c"]));
        assert_eq!(list_cell("first chunk || second chunk"), serde_json::json!(["first chunk", "second chunk"]));
        assert_eq!(list_cell("[not json"), serde_json::json!(["[not json"]), "bad JSON is one item");
    }

    #[test]
    fn repeated_column_names_are_kept_apart() {
        let header = ByteRecord::from(vec!["question", " note ", "note"]);
        assert_eq!(column_names(&header), ["question", "note", "note_2"]);
    }
}
