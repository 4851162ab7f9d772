//! JSONL: one JSON object per line, read through the bounded line reader.
//!
//! Owns: per-line parsing and the line-level reasons (too long, invalid JSON at column N,
//! not an object). Blank lines are allowed and skipped. Must not: buffer more than one
//! line, or stop at a bad line (every bad line becomes a `Rejected` entry).

use std::path::Path;

use serde_json::{Map, Value};

use super::encoding;
use super::finite;
use super::lines::{human_bytes, open_after_bom, LineReader};
use super::report::Collector;
use super::values::type_name;
use super::DatasetError;

pub(crate) fn read(path: &Path, collector: &mut Collector<'_>) -> Result<(), DatasetError> {
    for_each_object(path, collector, |collector, line, offset, record| {
        collector.record(line, offset, record)
    })
}

/// Every JSON object line of the file, with its line number and byte offset; a line
/// that is too long, not JSON or not an object is rejected on `collector` and skipped.
pub(crate) fn for_each_object(
    path: &Path,
    collector: &mut Collector<'_>,
    mut on_object: impl FnMut(
        &mut Collector<'_>,
        u64,
        u64,
        Map<String, Value>,
    ) -> Result<(), DatasetError>,
) -> Result<(), DatasetError> {
    let unreadable = |e: std::io::Error| DatasetError::unreadable(path, e);
    let max_line = collector.limits().max_line_bytes;
    let (reader, start) = open_after_bom(path).map_err(unreadable)?;
    let mut lines = LineReader::new(reader, start, max_line);
    let mut buf = Vec::new();
    while let Some(line) = lines.next_line(&mut buf).map_err(unreadable)? {
        if let Some(length) = line.too_long {
            let reason = format!(
                "line {} is {}, over the {} line limit",
                line.number,
                human_bytes(length),
                human_bytes(max_line as u64)
            );
            collector.reject(line.number, line.offset, reason);
            continue;
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        // A line that is not UTF-8: Windows-1252 text is read as such, with a warning;
        // anything else is rejected with what to do (`encoding`).
        match encoding::as_utf8(&buf) {
            Ok(None) => {}
            Ok(Some(transcoded)) => {
                buf = transcoded;
                collector.warn(line.number, encoding::READ_AS_1252.to_string());
            }
            Err(reason) => {
                collector.reject(
                    line.number,
                    line.offset,
                    format!("line {} {reason}", line.number),
                );
                continue;
            }
        }
        let parsed = serde_json::from_slice::<Value>(&buf).or_else(|e| {
            // Python's `NaN`: read as a missing value, said on the line.
            match finite::replaced(&buf).and_then(|(b, _)| serde_json::from_slice(&b).ok()) {
                Some(value) => {
                    collector.warn(line.number, finite::warning());
                    Ok(value)
                }
                None => Err(e),
            }
        });
        match parsed {
            Ok(Value::Object(record)) => on_object(collector, line.number, line.offset, record)?,
            Ok(other) => collector.reject(
                line.number,
                line.offset,
                format!("line holds {}, not a JSON object", type_name(&other)),
            ),
            Err(e) => collector.reject(line.number, line.offset, invalid_json(&e, false)),
        }
    }
    Ok(())
}

/// "invalid JSON at column 12: expected `:`": serde's message without its own position
/// suffix, since the line is reported separately (or included when `with_line`).
pub(crate) fn invalid_json(e: &serde_json::Error, with_line: bool) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full);
    if with_line {
        format!(
            "invalid JSON at line {} column {}: {message}",
            e.line(),
            e.column()
        )
    } else {
        format!("invalid JSON at column {}: {message}", e.column())
    }
}
