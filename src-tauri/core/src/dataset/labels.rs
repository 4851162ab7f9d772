//! Reading a file of human labels: JSONL (one object per line) or CSV / TSV with a
//! header, detected by content like datasets. Each row names an item (its id, or its
//! question), a metric, a score — a number in [0, 1], or pass / fail — and an optional
//! note.
//!
//! Owns: the file format and its row-level reasons, with line numbers (the same line
//! reader and CSV records as datasets). Must not: resolve items or metrics, or store
//! anything (`crate::trust::labels` does).

use std::io::BufRead;
use std::path::Path;

use serde_json::{Map, Value};

use super::csv_records::{CsvRecords, Next, Record};
use super::lines::{open_after_bom, LineReader};
use super::DatasetError;

/// Longest label row read, in bytes: a note is a sentence, not a document.
const MAX_ROW: usize = 1 << 20;

/// The names a column (or key) may have, per field.
const ITEM: [&str; 5] = ["item", "item_id", "id", "query_id", "question_id"];
const QUESTION: [&str; 3] = ["question", "query", "user_input"];
const METRIC: [&str; 2] = ["metric", "metric_id"];
const SCORE: [&str; 4] = ["score", "label", "human_score", "value"];
const NOTE: [&str; 3] = ["note", "comment", "reason"];

/// One usable row of a labels file.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelRow {
    pub line: u64,
    /// The item's id when the row gives one.
    pub item: Option<String>,
    /// The item's question when the row gives one.
    pub question: Option<String>,
    pub metric: String,
    pub score: f64,
    pub note: Option<String>,
}

/// A row that could not be read, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct RowProblem {
    pub line: u64,
    pub reason: String,
}

// long: one pass over the rows: header detection, column choice and each row's checks share the
// reader and the problem list
/// Reads every row of `path`; a bad row is a problem with its line, never fatal. A file
/// that cannot be read at all, or has no usable header, is an error.
pub fn read_labels(path: &Path) -> Result<(Vec<LabelRow>, Vec<RowProblem>), DatasetError> {
    let unreadable = |e: std::io::Error| DatasetError::unreadable(path, e);
    let (mut reader, start) = open_after_bom(path).map_err(unreadable)?;
    let first = reader
        .fill_buf()
        .map_err(unreadable)?
        .iter()
        .copied()
        .find(|b| !b.is_ascii_whitespace());
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    let mut take = |line: u64, record: Result<Map<String, Value>, String>| match record
        .and_then(|r| row(&r))
    {
        Ok(mut row) => {
            row.line = line;
            rows.push(row);
        }
        Err(reason) => problems.push(RowProblem { line, reason }),
    };
    if first == Some(b'{') {
        let mut lines = LineReader::new(reader, start, MAX_ROW);
        let mut buf = Vec::new();
        while let Some(line) = lines.next_line(&mut buf).map_err(unreadable)? {
            if line.too_long.is_some() {
                take(line.number, Err("the line is over the 1 MB limit".into()));
                continue;
            }
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let record = match serde_json::from_slice::<Value>(&buf) {
                Ok(Value::Object(map)) => Ok(map),
                Ok(_) => Err("the line is JSON but not an object".to_string()),
                Err(e) => Err(format!("invalid JSON at column {}", e.column())),
            };
            take(line.number, record);
        }
        return Ok((rows, problems));
    }
    let header_line = {
        let bytes = reader.fill_buf().map_err(unreadable)?;
        let end = bytes
            .iter()
            .position(|b| *b == b'\n')
            .unwrap_or(bytes.len());
        bytes[..end].to_vec()
    };
    let delimiter = if header_line.contains(&b'\t') {
        b'\t'
    } else {
        b','
    };
    let mut records = CsvRecords::new(LineReader::new(reader, start, MAX_ROW), delimiter, MAX_ROW);
    let mut record = Record::default();
    let columns: Vec<String> = match records.next_record(&mut record).map_err(unreadable)? {
        Next::Record => record
            .fields()
            .iter()
            .map(|f| String::from_utf8_lossy(f).trim().to_lowercase())
            .collect(),
        _ => Vec::new(),
    };
    let has = |names: &[&str]| columns.iter().any(|c| names.contains(&c.as_str()));
    if !(has(&METRIC) && has(&SCORE) && (has(&ITEM) || has(&QUESTION))) {
        return Err(DatasetError::UnsupportedShape {
            path: path.display().to_string(),
            message: format!(
                "a labels file needs columns for the item (item or question), the metric and the score; its columns are: {}",
                columns.join(", ")
            ),
        });
    }
    loop {
        match records.next_record(&mut record).map_err(unreadable)? {
            Next::End => return Ok((rows, problems)),
            Next::TooLong { line, .. } => take(line, Err("the row is over the 1 MB limit".into())),
            Next::Unclosed { line, .. } => take(
                line,
                Err("a quoted field opened in this row is never closed".into()),
            ),
            Next::Record if record.len != columns.len() => take(
                record.line,
                Err(format!(
                    "row has {} fields but the header has {}",
                    record.len,
                    columns.len()
                )),
            ),
            Next::Record => {
                let mut map = Map::new();
                let mut bad_text = false;
                for (raw, column) in record.fields().iter().zip(&columns) {
                    match std::str::from_utf8(raw) {
                        Ok(text) => {
                            map.insert(column.clone(), Value::String(text.to_string()));
                        }
                        Err(_) => bad_text = true,
                    }
                }
                let result = if bad_text {
                    Err("the row is not valid UTF-8".to_string())
                } else {
                    Ok(map)
                };
                take(record.line, result);
            }
        }
    }
}

/// The first present, non-empty text among `names` (numbers are read as text: an id of
/// 17 is "17").
fn text(record: &Map<String, Value>, names: &[&str]) -> Option<String> {
    names.iter().find_map(|name| {
        let value = record
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)?;
        match value {
            Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    })
}

fn row(record: &Map<String, Value>) -> Result<LabelRow, String> {
    let item = text(record, &ITEM);
    let question = text(record, &QUESTION);
    if item.is_none() && question.is_none() {
        return Err("no item: give its id (item) or its question".into());
    }
    let metric = text(record, &METRIC).ok_or("no metric")?;
    let raw = record
        .iter()
        .find(|(k, _)| SCORE.iter().any(|s| k.eq_ignore_ascii_case(s)))
        .map(|(_, v)| v.clone())
        .ok_or("no score")?;
    let score = score(&raw)?;
    Ok(LabelRow {
        line: 0,
        item,
        question,
        metric,
        score,
        note: text(record, &NOTE),
    })
}

/// A label score typed by a person: a number from 0 to 1, or pass / fail words.
pub fn parse_score(text: &str) -> Result<f64, String> {
    score(&Value::String(text.to_string()))
}

/// A score in [0, 1], or pass / fail words, or true / false.
fn score(value: &Value) -> Result<f64, String> {
    let number = match value {
        Value::Number(n) => n.as_f64(),
        Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        Value::String(s) => match s.trim().to_lowercase().as_str() {
            "" => return Err("the score is empty".into()),
            "pass" | "passed" | "yes" | "true" | "good" | "correct" => Some(1.0),
            "fail" | "failed" | "no" | "false" | "bad" | "incorrect" => Some(0.0),
            other => other.parse::<f64>().ok(),
        },
        _ => None,
    };
    match number {
        Some(n) if (0.0..=1.0).contains(&n) => Ok(n),
        Some(n) => Err(format!("the score {n} is outside 0 to 1")),
        None => Err(format!(
            "the score {value} is not a number from 0 to 1, pass or fail"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str, text: &str) -> (Vec<LabelRow>, Vec<RowProblem>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        read_labels(&path).unwrap()
    }

    #[test]
    fn csv_rows_read_ids_questions_words_and_notes_with_their_lines() {
        let (rows, problems) = read(
            "l.csv",
            "item,metric,score,note\nq1,clarity,0.8,\"fine, mostly\"\n\n,clarity,pass,\nq3,clarity,1.4,\nq4,clarity,maybe,\n",
        );
        assert_eq!(rows.len(), 1);
        assert_eq!(
            (rows[0].line, rows[0].item.as_deref(), rows[0].score),
            (2, Some("q1"), 0.8)
        );
        assert_eq!(rows[0].note.as_deref(), Some("fine, mostly"));
        let lines: Vec<(u64, &str)> = problems
            .iter()
            .map(|p| (p.line, p.reason.as_str()))
            .collect();
        assert_eq!(lines[0], (4, "no item: give its id (item) or its question"));
        assert_eq!(lines[1], (5, "the score 1.4 is outside 0 to 1"));
        assert!(
            lines[2].0 == 6 && lines[2].1.contains("pass or fail"),
            "{lines:?}"
        );
    }

    #[test]
    fn jsonl_rows_take_numbers_booleans_and_questions() {
        let (rows, problems) = read(
            "l.jsonl",
            "{\"question\":\"What?\",\"metric\":\"ragvue.clarity\",\"score\":true}\n{\"id\":17,\"metric\":\"clarity\",\"label\":\"fail\"}\nnot json\n[1]\n",
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].question.as_deref(), rows[0].score),
            (Some("What?"), 1.0)
        );
        assert_eq!((rows[1].item.as_deref(), rows[1].score), (Some("17"), 0.0));
        assert_eq!(problems.len(), 2);
        assert!(problems[0].reason.starts_with("invalid JSON"));
        assert_eq!(problems[1].line, 4);
    }

    #[test]
    fn a_header_without_the_needed_columns_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.csv");
        std::fs::write(&path, "a,b\n1,2\n").unwrap();
        let err = read_labels(&path).unwrap_err().to_string();
        assert!(
            err.contains("needs columns") && err.contains("a, b"),
            "{err}"
        );
    }
}
