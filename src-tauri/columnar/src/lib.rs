//! The rows of a Parquet file as JSON records, for the importer.
//!
//! Owns: opening the file, its column names, and turning each row into a JSON object
//! (lists as arrays, structs and maps as objects, NaN as null, bytes as base64), one row
//! group at a time so memory stays bounded by a row group's pages. Must not: know what
//! the columns mean (the importer maps them as it maps a JSON record).
//!
//! A row that cannot be decoded ends its row group (the reader cannot find the next row
//! without the broken one): the caller is told the row and how many rows of the group
//! were lost, and the next group is read.

use std::fs::File;
use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use serde_json::{Map, Value};

/// The columns pandas adds for its row index: no field of an item.
const PANDAS_INDEX: &str = "__index_level_";

/// What the file holds, known before any row is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    pub columns: Vec<String>,
    pub rows: u64,
    pub row_groups: usize,
    /// The program that wrote the file ("parquet-cpp-arrow version 17.0.0"), if it says.
    pub written_by: Option<String>,
}

/// One row, or why it could not be read.
#[derive(Debug)]
pub enum Row {
    /// 1-based row number and the row as a JSON object.
    Record(u64, Map<String, Value>),
    /// A row (1-based) that could not be decoded, with the rest of its row group.
    Lost {
        row: u64,
        rows_lost: u64,
        reason: String,
    },
}

/// The file is not a Parquet file this reader can open (cut short, damaged footer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenError(pub String);

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An open Parquet file.
pub struct ParquetRows {
    reader: SerializedFileReader<File>,
}

impl ParquetRows {
    pub fn open(path: &Path) -> Result<Self, OpenError> {
        let file = File::open(path).map_err(|e| OpenError(e.to_string()))?;
        let reader = guarded(|| SerializedFileReader::new(file))
            .map_err(OpenError)?
            .map_err(|e| OpenError(plain(&e)))?;
        Ok(ParquetRows { reader })
    }

    pub fn layout(&self) -> Layout {
        let meta = self.reader.metadata().file_metadata();
        let columns = meta
            .schema_descr()
            .root_schema()
            .get_fields()
            .iter()
            .map(|f| f.name().to_string())
            .filter(|name| !name.starts_with(PANDAS_INDEX))
            .collect();
        Layout {
            columns,
            rows: meta.num_rows().max(0) as u64,
            row_groups: self.reader.num_row_groups(),
            written_by: meta.created_by().map(str::to_string),
        }
    }

    /// Hands every row to `on_row` in file order; stops at the first `Err` it returns.
    pub fn for_each<E>(&self, mut on_row: impl FnMut(Row) -> Result<(), E>) -> Result<(), E> {
        let mut first_of_group = 1u64;
        for index in 0..self.reader.num_row_groups() {
            let group_rows = self.reader.metadata().row_group(index).num_rows().max(0) as u64;
            let mut read = 0u64;
            let mut lost = None;
            match guarded(|| self.reader.get_row_group(index)) {
                Ok(Ok(group)) => match guarded(|| group.get_row_iter(None)) {
                    Ok(Ok(mut rows)) => loop {
                        match guarded(|| rows.next()) {
                            Ok(None) => break,
                            Ok(Some(Ok(row))) => {
                                read += 1;
                                on_row(Row::Record(first_of_group + read - 1, record(&row)))?;
                            }
                            Ok(Some(Err(e))) => {
                                lost = Some(plain(&e));
                                break;
                            }
                            Err(damaged) => {
                                lost = Some(damaged);
                                break;
                            }
                        }
                    },
                    Ok(Err(e)) => lost = Some(plain(&e)),
                    Err(damaged) => lost = Some(damaged),
                },
                Ok(Err(e)) => lost = Some(plain(&e)),
                Err(damaged) => lost = Some(damaged),
            }
            if let Some(reason) = lost {
                on_row(Row::Lost {
                    row: first_of_group + read,
                    rows_lost: group_rows.saturating_sub(read).max(1),
                    reason,
                })?;
            }
            first_of_group += group_rows;
        }
        Ok(())
    }
}

/// Runs a step of the Parquet library, turning a panic into an error: on a damaged
/// file the library can index past a buffer rather than return an error, and a user's
/// broken file must never take the import (or the window) down with it.
fn guarded<T>(step: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(step))
        .map_err(|_| "the file is damaged (the Parquet reader stopped on it)".to_string())
}

/// A row as a JSON object, without pandas' index columns.
fn record(row: &parquet::record::Row) -> Map<String, Value> {
    match row.to_json_value() {
        Value::Object(mut map) => {
            map.retain(|key, _| !key.starts_with(PANDAS_INDEX));
            map
        }
        _ => Map::new(),
    }
}

/// The library's message without its "Parquet error: " prefix, which says nothing to a
/// user who was told the file is a Parquet file; a codec this build leaves out is named
/// with what to do about it.
fn plain(e: &parquet::errors::ParquetError) -> String {
    let text = e.to_string();
    let text = text.strip_prefix("Parquet error: ").unwrap_or(&text);
    match text.strip_prefix("Disabled feature at compile time: ") {
        Some(codec) => format!(
            "it is compressed with {codec}, which Ragnosis does not read; save it again with \
             snappy, gzip, zstd or brotli (pandas: to_parquet(compression=\"snappy\"))"
        ),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn real(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/real/autorag")
            .join(name)
    }

    fn all_rows(path: &Path) -> Vec<Row> {
        let rows = ParquetRows::open(path).expect("opens");
        let mut out = Vec::new();
        rows.for_each(|row| {
            out.push(row);
            Ok::<_, ()>(())
        })
        .unwrap();
        out
    }

    #[test]
    fn an_autorag_qa_file_gives_its_rows_with_lists_as_arrays() {
        let path = real("autorag-qa_data_sample.parquet");
        let layout = ParquetRows::open(&path).unwrap().layout();
        assert_eq!(layout.rows, 10);
        assert_eq!(
            layout.columns,
            ["qid", "query", "generation_gt", "retrieval_gt"],
            "pandas' index column is no column of the item"
        );
        let rows = all_rows(&path);
        assert_eq!(rows.len(), 10);
        let Row::Record(number, first) = &rows[0] else {
            panic!("{:?}", rows[0]);
        };
        assert_eq!(*number, 1);
        assert!(first["query"].as_str().is_some_and(|q| !q.is_empty()));
        assert!(first["generation_gt"].is_array(), "{first:?}");
        assert!(first["retrieval_gt"][0].is_array(), "a list of lists");
        assert!(matches!(rows[9], Row::Record(10, _)));
    }

    /// Damaged files as a broken disk or a bad download leaves them: a byte changed at
    /// places spread over the file. Each is refused or read, never a panic.
    #[test]
    fn a_damaged_file_is_refused_or_read_never_a_crash() {
        let bytes = std::fs::read(real("autorag-qa_data_sample.parquet")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("damaged.parquet");
        let (mut refused, mut lost) = (0, 0);
        for at in (4..bytes.len() - 4).step_by(37) {
            for flip in [0xFFu8, 0x01] {
                let mut damaged = bytes.clone();
                damaged[at] ^= flip;
                std::fs::write(&path, &damaged).unwrap();
                match ParquetRows::open(&path) {
                    Err(_) => refused += 1,
                    Ok(rows) => {
                        rows.for_each(|row| {
                            if let Row::Lost { .. } = row {
                                lost += 1;
                            }
                            Ok::<_, ()>(())
                        })
                        .unwrap();
                    }
                }
            }
        }
        assert!(refused + lost > 0, "some damage is noticed");
    }

    #[test]
    fn a_codec_this_build_leaves_out_is_named_with_what_to_do() {
        let e = parquet::errors::ParquetError::General(
            "Disabled feature at compile time: brotli".into(),
        );
        let said = plain(&e);
        assert!(
            said.contains("compressed with brotli") && said.contains("snappy"),
            "{said}"
        );
    }

    #[test]
    fn a_file_cut_short_is_refused_when_opened() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = std::fs::read(real("autorag-qa_data_sample.parquet")).unwrap();
        let cut = dir.path().join("cut.parquet");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        let refused = ParquetRows::open(&cut).err().expect("a footer is missing");
        assert!(!refused.0.is_empty());
    }
}
