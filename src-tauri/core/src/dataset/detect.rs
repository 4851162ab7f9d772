//! Format detection by content, never by extension.
//!
//! After a BOM and leading whitespace: `[` is a JSON array; `{` is JSONL when the first
//! line is a complete JSON object (unless the file is that one object and it has no
//! question field: a minified document, whose structure `outline` reads), otherwise
//! a multi-line JSON document (or JSONL again, when line 1 is cut mid-value and line 2 is
//! a complete object); `PAR1` is a Parquet file; anything else is CSV/TSV. Also rejects empty and binary
//! files. Owns: those decisions. Must not: read more than the first line or two (plus a
//! whitespace-only prefix), or import anything.

use std::fs::File;
use std::io::{self, BufRead, Read};
use std::path::Path;

use serde_json::{Map, Value};

use super::aliases::{classify, Canon};
use super::encoding;
use super::lines::{open_after_bom, LineReader, BOM};
use super::outline;
use super::{DatasetError, ImportLimits};

/// The first bytes of a Parquet file (its last four are the same).
const PARQUET_MAGIC: &[u8] = b"PAR1";

/// Bytes checked for a binary file's signature.
const SNIFF_BYTES: usize = 8 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Jsonl,
    JsonArray,
    /// A `{ ... }` document; the wrapper key is found while streaming.
    JsonDocument,
    Csv {
        delimiter: u8,
    },
    /// A Parquet file (`PAR1` first): read by rows, not as text.
    Parquet,
}

pub(crate) fn detect(path: &Path, limits: &ImportLimits) -> Result<Shape, DatasetError> {
    let display = path.display().to_string();
    let unreadable = |e: io::Error| DatasetError::unreadable(path, e);
    let mut file = File::open(path).map_err(unreadable)?;
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(unreadable)?;
    if head.starts_with(PARQUET_MAGIC) {
        return Ok(Shape::Parquet);
    }
    let skip = if head.starts_with(BOM) { BOM.len() } else { 0 };
    // Only a real binary file is refused whole; a byte that is not UTF-8 text is the
    // line's or row's business, wherever it sits (`encoding`).
    if let Some(what) = encoding::binary_kind(&head[skip..]) {
        return Err(DatasetError::BinaryFile {
            path: display,
            what: what.to_string(),
        });
    }
    let first =
        match head[skip..].iter().find(|b| !b.is_ascii_whitespace()) {
            Some(&b) => b,
            None => first_non_whitespace(&mut file).map_err(unreadable)?.ok_or(
                DatasetError::EmptyFile {
                    path: display.clone(),
                },
            )?,
        };
    let shape = match first {
        b'[' => Shape::JsonArray,
        b'{' => brace_shape(path, limits).map_err(unreadable)?,
        _ => Shape::Csv {
            delimiter: csv_delimiter(path, limits).map_err(unreadable)?,
        },
    };
    Ok(shape)
}

/// Keeps reading (in small chunks) until a non-whitespace byte; `None` at end of file.
fn first_non_whitespace(file: &mut File) -> io::Result<Option<u8>> {
    let mut chunk = [0u8; SNIFF_BYTES];
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            return Ok(None);
        }
        if let Some(&b) = chunk[..n].iter().find(|b| !b.is_ascii_whitespace()) {
            return Ok(Some(b));
        }
    }
}

/// JSONL or a JSON document, judged by the first non-blank line.
fn brace_shape(path: &Path, limits: &ImportLimits) -> io::Result<Shape> {
    let (reader, start) = open_after_bom(path)?;
    let mut lines = LineReader::new(reader, start, limits.max_line_bytes);
    let mut buf = Vec::new();
    let Some(line) = next_non_blank(&mut lines, &mut buf)? else {
        return Ok(Shape::JsonDocument);
    };
    if line.too_long.is_some() {
        // Only a minified document has a first line over the line limit.
        return Ok(Shape::JsonDocument);
    }
    match serde_json::from_slice::<Value>(&buf) {
        Ok(Value::Object(object)) => {
            let alone = next_non_blank(&mut lines, &mut buf)?.is_none();
            Ok(if alone && holds_item_list(object) {
                Shape::JsonDocument
            } else {
                Shape::Jsonl
            })
        }
        Err(e) if e.is_eof() => {
            // An open structure: a pretty-printed document (whose first line ends at `{`,
            // `[` or `,`), unless line 1 was cut mid-value and the next line is a
            // complete object: then it is JSONL with a truncated first record.
            let structural_end = matches!(buf.trim_ascii_end().last(), Some(b'{' | b'[' | b','));
            let next_is_object = !structural_end
                && next_non_blank(&mut lines, &mut buf)?.is_some_and(|l| l.too_long.is_none())
                && serde_json::from_slice::<Value>(&buf).is_ok_and(|v| v.is_object());
            Ok(if next_is_object {
                Shape::Jsonl
            } else {
                Shape::JsonDocument
            })
        }
        _ => Ok(Shape::Jsonl),
    }
}

fn next_non_blank<R: BufRead>(
    lines: &mut LineReader<R>,
    buf: &mut Vec<u8>,
) -> io::Result<Option<super::lines::Line>> {
    while let Some(line) = lines.next_line(buf)? {
        if line.too_long.is_some() || !buf.iter().all(u8::is_ascii_whitespace) {
            return Ok(Some(line));
        }
    }
    Ok(None)
}

/// A document rather than an item: a lone one-line object with no question field of its
/// own (`{"testRunData": {"testCases": [...]}}`, a span's attributes); where its records
/// are is for `outline` to find.
fn holds_item_list(object: Map<String, Value>) -> bool {
    if object
        .keys()
        .any(|k| classify(k).is_some_and(|a| a.canon == Canon::Question))
    {
        return false;
    }
    let outline = outline::Outline {
        sketch: outline::sketch_of(&Value::Object(object), 0),
        more_values: false,
        error: None,
    };
    outline::plan(&outline).is_ok()
}

/// Tab when the header has tabs and no more commas (outside quotes) than tabs; else
/// comma, or semicolon when that is the only separator in the header.
fn csv_delimiter(path: &Path, limits: &ImportLimits) -> io::Result<u8> {
    let (reader, start) = open_after_bom(path)?;
    let mut lines = LineReader::new(reader, start, limits.max_line_bytes);
    let mut buf = Vec::new();
    if next_non_blank(&mut lines, &mut buf)?.is_none() {
        return Ok(b',');
    }
    let (mut tabs, mut commas, mut semicolons, mut quoted) = (0, 0, 0, false);
    for &b in &buf {
        match b {
            b'"' => quoted = !quoted,
            b'\t' if !quoted => tabs += 1,
            b',' if !quoted => commas += 1,
            b';' if !quoted => semicolons += 1,
            _ => {}
        }
    }
    Ok(if tabs > 0 && tabs >= commas {
        b'\t'
    } else if commas == 0 && semicolons > 0 {
        b';'
    } else {
        b','
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn shape_of(bytes: &[u8]) -> Result<Shape, DatasetError> {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(bytes).unwrap();
        detect(file.path(), &ImportLimits::default())
    }

    #[test]
    fn shapes_come_from_content() {
        assert_eq!(shape_of(b"\xEF\xBB\xBF \n[{}]").unwrap(), Shape::JsonArray);
        assert_eq!(
            shape_of(b"{\"question\": \"q\"}\r\n{\"question\": \"r\"}").unwrap(),
            Shape::Jsonl
        );
        assert_eq!(
            shape_of(b"{\n \"results\": []\n}").unwrap(),
            Shape::JsonDocument
        );
        assert_eq!(
            shape_of(b"{\"results\": [{\"query\": \"q\"}]}\n").unwrap(),
            Shape::JsonDocument
        );
        assert_eq!(
            shape_of(b"{\"question\": oops}\n{\"question\": \"q\"}").unwrap(),
            Shape::Jsonl
        );
        assert_eq!(
            shape_of(b"question\tanswer\nq\ta\n").unwrap(),
            Shape::Csv { delimiter: b'\t' }
        );
        assert_eq!(
            shape_of(b"question,\"a\tb\"\n").unwrap(),
            Shape::Csv { delimiter: b',' }
        );
        assert_eq!(
            shape_of(b"question;answer\n").unwrap(),
            Shape::Csv { delimiter: b';' }
        );
    }

    #[test]
    fn a_truncated_first_record_does_not_turn_jsonl_into_a_document() {
        let text = b"{\"question\": \"cut off\n{\"question\": \"q\"}\n";
        assert_eq!(shape_of(text).unwrap(), Shape::Jsonl);
        let one_per_line = b"{\"results\": [\n{\"query\": \"only item\"}\n]}\n";
        assert_eq!(shape_of(one_per_line).unwrap(), Shape::JsonDocument);
    }

    #[test]
    fn a_one_line_item_with_a_data_list_is_still_jsonl() {
        let line = b"{\"question\": \"q\", \"data\": [{\"x\": 1}]}\n";
        assert_eq!(shape_of(line).unwrap(), Shape::Jsonl);
    }

    #[test]
    fn whitespace_only_is_empty_and_nul_is_binary() {
        let spaces = vec![b' '; 3 * SNIFF_BYTES];
        assert!(matches!(
            shape_of(&spaces),
            Err(DatasetError::EmptyFile { .. })
        ));
        let utf16: Vec<u8> = "{\"question\": \"why?\"}"
            .bytes()
            .flat_map(|b| [b, 0])
            .collect();
        assert!(matches!(
            shape_of(&utf16),
            Err(DatasetError::BinaryFile { .. })
        ));
        assert!(
            shape_of(b"{\"question\": \"caf\xe9\"}\n").is_ok(),
            "a Latin-1 byte is the line's business, not the file's"
        );
    }
}
