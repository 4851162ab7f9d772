//! CSV / TSV with a header row, streamed record by record.
//!
//! Owns: the header check (a question column is required), turning each row into a
//! record for the mapper (list cells as a JSON array or ` || `-separated; JSON cells for
//! labels and metadata), and row-level reasons (field-count mismatch, invalid UTF-8,
//! too long). Must not: map fields itself or hold more than one row.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{Map, Value};

use super::aliases::{field_of, question_aliases, Canon};
use super::csv_records::{CsvRecords, Next, Record};
use super::encoding;
use super::lines::{human_bytes, open_after_bom, LineReader};
use super::python_literal;
use super::report::Collector;
use super::traces;
use super::DatasetError;

/// Separator for list cells that are not JSON arrays.
pub const LIST_SEPARATOR: &str = " || ";

/// What people often join passages with in a spreadsheet. A cell is split at it only
/// when every piece reads as a passage (`PASSAGE_WORDS` words or more), so a value such
/// as "yes | no" stays whole; the import report says so.
const PIPE: &str = " | ";
const PASSAGE_WORDS: usize = 4;

/// What a column's cells become in the record handed to the mapper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Text,
    List,
    Json,
    /// A column no field is named after: text, or an object when the whole cell is a
    /// JSON object or a Python dict (pandas writes a dict column as `str(dict)`).
    Unnamed,
}

pub(crate) fn read(
    path: &Path,
    delimiter: u8,
    collector: &mut Collector<'_>,
) -> Result<(), DatasetError> {
    let unreadable = |e: std::io::Error| DatasetError::unreadable(path, e);
    let max = collector.limits().max_line_bytes;
    let (reader, start) = open_after_bom(path).map_err(unreadable)?;
    let mut records = CsvRecords::new(LineReader::new(reader, start, max), delimiter, max);
    let mut row = Record::default();

    let columns = match records.next_record(&mut row).map_err(unreadable)? {
        Next::Record => column_names(&row),
        _ => Vec::new(),
    };
    take_header(path, &columns, collector)?;
    let kinds: Vec<Cell> = columns.iter().map(|name| cell_kind(name)).collect();
    let mut piped_noted = vec![false; columns.len()];

    loop {
        match records.next_record(&mut row).map_err(unreadable)? {
            Next::End => return Ok(()),
            Next::TooLong { line, offset } => {
                let reason = format!(
                    "the row at line {line} is over the {} size limit",
                    human_bytes(max as u64)
                );
                collector.reject(line, offset, reason);
            }
            Next::Unclosed { line, offset } => {
                let reason = "a quoted field opened in this row is never closed".to_string();
                collector.reject(line, offset, reason);
            }
            Next::Record if row.len != columns.len() => {
                let reason = format!(
                    "row has {} fields but the header has {} (a missing or extra delimiter?)",
                    row.len,
                    columns.len()
                );
                collector.reject(row.line, row.offset, reason);
            }
            Next::Record => match row_to_record(&row, &columns, &kinds) {
                Ok((record, piped, transcoded)) => {
                    if transcoded {
                        collector.warn(row.line, encoding::READ_AS_1252.to_string());
                    }
                    for column in piped {
                        if !std::mem::replace(&mut piped_noted[column], true) {
                            collector.note_choice(
                                &columns[column],
                                "split at \" | \"",
                                vec!["one passage per cell".into()],
                                "its cells hold passages joined with \" | \"; each became its own context (write \" || \" or a JSON list to say so outright)",
                            );
                        }
                    }
                    collector.record(row.line, row.offset, record)?
                }
                Err(reason) => collector.reject(row.line, row.offset, reason),
            },
        }
    }
}

/// Checks the header and tells the collector what it names. An event table of spans has
/// its question inside a span's attributes, not in a column: its first row decides how
/// it is read, as in a JSON file; any other table needs a question column (or a
/// `--map` that names one).
fn take_header(
    path: &Path,
    columns: &[String],
    collector: &mut Collector<'_>,
) -> Result<(), DatasetError> {
    if traces::header_names_spans(columns) {
        return Ok(());
    }
    if !collector.maps_question() && !columns.iter().any(|c| field_of(c) == Some(Canon::Question)) {
        return Err(DatasetError::UnsupportedShape {
            path: path.display().to_string(),
            message: format!(
                "the header has no question column (looked for {}); its columns are: {}",
                question_aliases().join(", "),
                listed_columns(columns)
            ),
        });
    }
    collector.set_columns(columns);
    Ok(())
}

/// Trimmed header names; a repeated name gets a `_2`, `_3` suffix so no column is lost.
/// Each name's next free suffix is remembered: searching from `_2` in the list of names
/// for every repeat took time growing with the cube of the columns (a header of 4,000
/// empty names: seconds, found by the importer's fuzz campaign).
fn column_names(header: &Record) -> Vec<String> {
    let mut names: Vec<String> = Vec::with_capacity(header.len);
    let mut taken: HashSet<String> = HashSet::with_capacity(header.len);
    let mut next_suffix: HashMap<String, usize> = HashMap::new();
    for raw in header.fields() {
        let base = match encoding::as_utf8(raw) {
            Ok(Some(bytes)) => String::from_utf8(bytes).expect("transcoded to UTF-8"),
            _ => String::from_utf8_lossy(raw).into_owned(),
        };
        let base = base.trim().to_string();
        let mut name = base.clone();
        if taken.contains(&name) {
            let n = next_suffix.entry(base.clone()).or_insert(2);
            loop {
                name = format!("{base}_{n}");
                *n += 1;
                if !taken.contains(&name) {
                    break;
                }
            }
        }
        taken.insert(name.clone());
        names.push(name);
    }
    names
}

/// The columns for a message: the first 30, then how many more.
fn listed_columns(columns: &[String]) -> String {
    const SHOWN: usize = 30;
    let mut text = columns
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if columns.len() > SHOWN {
        text.push_str(&format!(" … and {} more", columns.len() - SHOWN));
    }
    text
}

fn cell_kind(column: &str) -> Cell {
    match field_of(column) {
        Some(canon) if canon.is_list() => Cell::List,
        Some(canon) if canon.is_structured() => Cell::Json,
        Some(_) => Cell::Text,
        None => Cell::Unnamed,
    }
}

/// A row as a record, the list columns whose cell was split at `PIPE`, and whether a
/// cell was read as Windows-1252 (`encoding`).
type RowRecord = (Map<String, Value>, Vec<usize>, bool);

/// The row as a `RowRecord`, or why it is rejected.
fn row_to_record(row: &Record, columns: &[String], kinds: &[Cell]) -> Result<RowRecord, String> {
    let mut record = Map::with_capacity(columns.len());
    let mut piped = Vec::new();
    let mut transcoded = false;
    for (at, ((raw, column), kind)) in row.fields().iter().zip(columns).zip(kinds).enumerate() {
        let owned;
        let cell = match encoding::as_utf8(raw) {
            Ok(None) => std::str::from_utf8(raw).expect("checked as UTF-8"),
            Ok(Some(bytes)) => {
                transcoded = true;
                owned = String::from_utf8(bytes).expect("transcoded to UTF-8");
                owned.as_str()
            }
            Err(reason) => return Err(format!("column `{column}` {reason}")),
        };
        if cell.trim().is_empty() {
            continue;
        }
        let value = match kind {
            Cell::Text => Value::String(cell.to_string()),
            Cell::List => {
                let (value, split_at_pipe) = list_cell(cell);
                if split_at_pipe {
                    piped.push(at);
                }
                value
            }
            Cell::Json => json_cell(cell),
            Cell::Unnamed => object_cell(cell),
        };
        record.insert(column.clone(), value);
    }
    Ok((record, piped, transcoded))
}

/// A JSON array when the cell is one, a Python list literal (`['a', "b's"]`, as pandas
/// writes RAGAS results), else items separated by ` || ` (one item if none), or by ` | `
/// when every piece reads as a passage (then `true`: the split is reported).
fn list_cell(cell: &str) -> (Value, bool) {
    let trimmed = cell.trim();
    if trimmed.starts_with('[') {
        if let Ok(array @ Value::Array(_)) = serde_json::from_str::<Value>(trimmed) {
            return (array, false);
        }
        if let Some(array @ Value::Array(_)) = python_literal::parse(trimmed) {
            return (array, false);
        }
    }
    let mut items: Vec<&str> = cell
        .split(LIST_SEPARATOR)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let mut split_at_pipe = false;
    if items.len() == 1 && items[0].contains(PIPE) {
        let piped: Vec<&str> = items[0]
            .split(PIPE)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if piped.len() > 1
            && piped
                .iter()
                .all(|p| p.split_whitespace().count() >= PASSAGE_WORDS)
        {
            items = piped;
            split_at_pipe = true;
        }
    }
    let list = items
        .into_iter()
        .map(|s| Value::String(s.to_string()))
        .collect();
    (Value::Array(list), split_at_pipe)
}

fn object_cell(cell: &str) -> Value {
    let trimmed = cell.trim();
    if trimmed.starts_with('{') && trimmed.ends_with('}') {
        let object = serde_json::from_str::<Value>(trimmed)
            .ok()
            .or_else(|| python_literal::parse(trimmed));
        if let Some(object @ Value::Object(_)) = object {
            return object;
        }
    }
    Value::String(cell.to_string())
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
        assert_eq!(
            list_cell(r#"["a, b", "c"]"#).0,
            serde_json::json!(["a, b", "c"])
        );
        assert_eq!(
            list_cell("first chunk || second chunk").0,
            serde_json::json!(["first chunk", "second chunk"])
        );
        assert_eq!(
            list_cell("[not json").0,
            serde_json::json!(["[not json"]),
            "bad JSON is one item"
        );
    }

    #[test]
    fn passages_joined_with_a_single_bar_are_split_and_short_values_are_not() {
        let (value, split) =
            list_cell("The office opens at 9 on weekdays. | On Saturdays it closes at 5 pm sharp.");
        assert!(split);
        assert_eq!(
            value,
            serde_json::json!([
                "The office opens at 9 on weekdays.",
                "On Saturdays it closes at 5 pm sharp."
            ])
        );
        assert_eq!(
            list_cell("yes | no"),
            (serde_json::json!(["yes | no"]), false)
        );
        assert_eq!(
            list_cell("the first passage is here | the second passage is here || ").0,
            serde_json::json!(["the first passage is here", "the second passage is here"]),
            "a trailing separator does not keep the bar inside a passage"
        );
        assert!(
            !list_cell("Plans: basic | pro cost 5 and 9 euros a month.").1,
            "a piece of under four words keeps the cell whole"
        );
    }

    #[test]
    fn python_list_cells_become_lists() {
        assert_eq!(
            list_cell(r#"['Paris is the capital.', "It's on the Seine.", 'a\nb']"#).0,
            serde_json::json!(["Paris is the capital.", "It's on the Seine.", "a\nb"])
        );
        assert_eq!(
            list_cell("['one' 'two']").0,
            serde_json::json!(["one", "two"])
        );
        assert_eq!(list_cell("[]").0, serde_json::json!([]));
        assert_eq!(
            list_cell("[not, a, list]").0,
            serde_json::json!(["[not, a, list]"]),
            "unquoted items are not a Python list of text"
        );
    }

    /// The header the fuzz campaign found (thousands of empty names) read in linear
    /// time, with the names the quadratic search gave.
    #[test]
    fn a_header_of_thousands_of_repeated_names_gets_distinct_names() {
        let mut fields = vec![Vec::new(); 5_001];
        fields.extend([b"q".to_vec(), b"q".to_vec(), b"q_2".to_vec()]);
        let header = Record {
            len: fields.len(),
            fields,
            ..Record::default()
        };
        let names = column_names(&header);
        assert_eq!(names.len(), 5_004);
        assert_eq!(&names[..3], ["", "_2", "_3"]);
        assert_eq!(&names[5_001..], ["q", "q_2", "q_2_2"]);
        let distinct: HashSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "no column is lost");
    }

    #[test]
    fn repeated_column_names_are_kept_apart() {
        let header = Record {
            fields: vec![b"question".to_vec(), b" note ".to_vec(), b"note".to_vec()],
            len: 3,
            ..Record::default()
        };
        assert_eq!(column_names(&header), ["question", "note", "note_2"]);
    }
}
