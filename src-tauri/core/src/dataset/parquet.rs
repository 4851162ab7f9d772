//! Parquet files (AutoRAG's qa and result files, every Hugging Face dataset, a pandas
//! `to_parquet`): each row becomes a record for the collector, as a JSON array element
//! does, so the same names, shapes and dialects apply.
//!
//! Owns: the row limit, rows the reader could not decode (rejected by row number, with
//! the rest of their row group), and the format line of the report. Must not: decode
//! Parquet itself (`ragnosis-columnar` does, so the core never rebuilds it) or map fields.

use std::path::Path;

use ragnosis_columnar::{ParquetRows, Row};

use super::lines::human_bytes;
use super::report::Collector;
use super::{DatasetError, Format};

pub(crate) fn read(path: &Path, collector: &mut Collector<'_>) -> Result<(), DatasetError> {
    let rows = ParquetRows::open(path).map_err(|e| DatasetError::UnsupportedShape {
        path: path.display().to_string(),
        message: format!("this Parquet file cannot be read ({e}); is it complete?"),
    })?;
    let layout = rows.layout();
    collector.set_format(Format::Parquet {
        rows: layout.rows,
        row_groups: layout.row_groups as u64,
    });
    let max = collector.limits().max_line_bytes;
    // Rows carry no byte offset of their own: the row number is the place.
    rows.for_each(|row| match row {
        Row::Record(number, record) => {
            let size = serde_json::to_vec(&record).map_or(0, |bytes| bytes.len());
            if size > max {
                let reason = format!(
                    "row {number} is over the {} size limit ({} as JSON)",
                    human_bytes(max as u64),
                    human_bytes(size as u64)
                );
                collector.reject(number, 0, reason);
                return Ok(());
            }
            collector.record(number, 0, record)
        }
        Row::Lost {
            row,
            rows_lost,
            reason,
        } => {
            let rest = match rows_lost {
                0 | 1 => String::new(),
                n => format!(" (and the {} rows after it in its row group)", n - 1),
            };
            let reason = format!("row {row}{rest} could not be decoded: {reason}");
            collector.reject(row, 0, reason);
            Ok(())
        }
    })
}
