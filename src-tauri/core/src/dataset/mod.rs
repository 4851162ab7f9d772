//! The one importer: reads a user's file (JSONL, JSON, CSV/TSV or Parquet, detected by
//! content), maps each record's fields onto the canonical `Item` (DATA.md aliases), and
//! validates.
//!
//! Owns: format detection, streaming readers, field mapping, the validation report.
//! Must not: touch SQL (the caller stores accepted items through the callback), or hold
//! the whole file in memory (a 1 GB file streams). Bad lines never abort the import and
//! are never skipped silently: each becomes a `Rejected` entry naming its line.
//!
//! Flow: `detect` picks the reader; `jsonl` (over the bounded `lines` reader), `json`
//! (serde visitors over the position-`tracked` reader), `csv` (over `csv_records`) or
//! `parquet` (rows from `ragnosis-columnar`) hand each record to `report::Collector`, which maps it (`mapping`, using `aliases`
//! and `values`), hashes it (`hash`), counts it, and passes it to the caller.
//! A JSON array element, CSV row or Parquet row is limited like a line (`max_line_bytes`).

mod aliases;
mod columns;
mod csv;
mod csv_records;
mod detect;
mod dialects;
mod encoding;
mod finite;
mod hash;
mod json;
mod jsonl;
pub mod labels;
pub mod language;
mod lines;
mod mapping;
mod outline;
mod parquet;
mod python_literal;
mod remap;
mod report;
mod scores_file;
mod traces;
mod tracked;
mod values;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::item::Item;
use detect::Shape;
use report::Collector;

/// Source separator for list-valued CSV cells that are not JSON arrays.
pub use self::csv::LIST_SEPARATOR;
pub use crate::error::DatasetError;
/// Metadata key holding the source tool's own scores.
pub use dialects::PRIOR_SCORES_KEY;
pub use language::guess_language;
/// Metadata key holding per-chunk context keys other than id/text (one entry per chunk).
pub use mapping::CONTEXT_EXTRAS_KEY;
pub use remap::{lookup, FieldMap, FieldOverride};
pub(crate) use values::number;

/// Configurable limits; violations are clear errors, not crashes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImportLimits {
    pub max_file_bytes: u64,
    pub max_line_bytes: usize,
    pub max_contexts: usize,
    /// A context longer than this many (whitespace) tokens is reported as oversize.
    pub context_token_budget: usize,
}

impl Default for ImportLimits {
    fn default() -> Self {
        ImportLimits {
            // Records are streamed one at a time (memory stays flat however long the
            // file), so the cap is only a guard against a wrong path: a million logged
            // items with five passages each make 2.7 GB of JSONL.
            max_file_bytes: 64 * 1024 * 1024 * 1024,
            max_line_bytes: 16 * 1024 * 1024,
            max_contexts: 200,
            context_token_budget: 2_000,
        }
    }
}

/// How the file was laid out, as the reader found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Format {
    Jsonl,
    JsonArray,
    /// An object whose `key` holds the array of items (`{"results": [...]}`).
    JsonWrapper {
        key: String,
    },
    /// A JSON object that is one record (a trace, a span's attributes).
    JsonObject,
    /// JSON values one after another with nothing around them (a console exporter).
    JsonValues,
    /// An object of parallel lists, one entry per item (`{"questions": [...],
    /// "predicted_answers": [...]}`) under `key` ("" for the top level).
    JsonColumns {
        key: String,
    },
    Csv {
        delimiter: char,
    },
    /// A Parquet file, one record per row.
    Parquet {
        rows: u64,
        row_groups: u64,
    },
    /// A trace export, one span per line, read one record per trace.
    Spans {
        dialect: String,
        spans: u64,
        traces: u64,
    },
}

impl Format {
    /// How the Data screen names the format: "JSONL", "TSV", "Parquet (1200 rows)", ….
    pub fn label(&self) -> String {
        match self {
            Format::Jsonl => "JSONL".into(),
            Format::JsonArray => "JSON array".into(),
            Format::JsonWrapper { key } => format!("JSON object (items under \"{key}\")"),
            Format::JsonObject => "JSON object (one record)".into(),
            Format::JsonValues => "JSON values one after another".into(),
            Format::JsonColumns { key } if key.is_empty() => {
                "JSON object of parallel lists (one entry per item)".into()
            }
            Format::JsonColumns { key } => {
                format!("JSON object of parallel lists under \"{key}\" (one entry per item)")
            }
            Format::Csv { delimiter: '\t' } => "TSV".into(),
            Format::Csv { delimiter } => format!("CSV (delimiter '{delimiter}')"),
            Format::Parquet {
                rows,
                row_groups: 1,
            } => format!("Parquet ({rows} rows)"),
            Format::Parquet { rows, row_groups } => {
                format!("Parquet ({rows} rows in {row_groups} row groups)")
            }
            Format::Spans {
                dialect,
                spans,
                traces,
            } => format!("{dialect} spans ({spans} spans in {traces} traces)"),
        }
    }
}

/// The tool or convention a file's field names were recognised as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Schema {
    Ragvue,
    Ragas,
    RagChecker,
    RagCitations,
    /// Spans of a trace export, one item per trace.
    OpenInference,
    GenAi,
    #[serde(rename = "langsmith")]
    LangSmith,
    Langfuse,
    #[serde(rename = "deepeval")]
    DeepEval,
    Promptfoo,
    /// InspectorRAGet's analytics file, one item per model result.
    #[serde(rename = "inspectorraget")]
    InspectorRagEt,
    /// TruLens's event table, one item per record.
    #[serde(rename = "trulens")]
    TruLens,
    #[serde(rename = "llamaindex")]
    LlamaIndex,
    Custom,
}

impl Schema {
    /// Every schema, in the order the importer tries them.
    pub const ALL: [Schema; 14] = [
        Schema::Ragvue,
        Schema::Ragas,
        Schema::RagChecker,
        Schema::RagCitations,
        Schema::OpenInference,
        Schema::GenAi,
        Schema::LangSmith,
        Schema::Langfuse,
        Schema::DeepEval,
        Schema::Promptfoo,
        Schema::InspectorRagEt,
        Schema::TruLens,
        Schema::LlamaIndex,
        Schema::Custom,
    ];

    /// How the Data screen names the schema: "RAGAS", "LangSmith runs", "custom", ….
    pub fn label(self) -> &'static str {
        match self {
            Schema::Ragvue => "RAGVUE",
            Schema::Ragas => "RAGAS",
            Schema::RagChecker => "RAGChecker",
            Schema::RagCitations => "RAG citations",
            Schema::OpenInference => "OpenInference traces",
            Schema::GenAi => "OpenTelemetry GenAI traces",
            Schema::LangSmith => "LangSmith runs",
            Schema::Langfuse => "Langfuse observations",
            Schema::DeepEval => "DeepEval",
            Schema::Promptfoo => "promptfoo results",
            Schema::TruLens => "TruLens event table",
            Schema::InspectorRagEt => "InspectorRAGet analytics",
            Schema::LlamaIndex => "LlamaIndex RAG dataset",
            Schema::Custom => "custom",
        }
    }
}

/// A line (or JSON array element, or CSV row) that was not imported, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Rejected {
    /// 1-based line number where the record starts.
    pub line: u64,
    /// Where the record starts in the file.
    pub byte_offset: u64,
    pub reason: String,
}

impl fmt::Display for Rejected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {} (byte {}): {}",
            self.line, self.byte_offset, self.reason
        )
    }
}

/// Something the user should know about an imported record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Warning {
    pub line: u64,
    pub message: String,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// An accepted item that repeats an earlier item's content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Duplicate {
    pub line: u64,
    /// The line of the item it repeats.
    pub first_line: u64,
    pub content_hash: String,
}

/// How many accepted items carry each canonical field (each key a `Field`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FieldCoverage {
    pub question: u64,
    pub answer: u64,
    pub contexts: u64,
    pub ground_truth: u64,
    pub citation_label: u64,
    pub ranking: u64,
    /// Keyed by the field's serialised name like the others, so every key is a `Field`;
    /// reports stored before carry the old key.
    #[serde(rename = "rag_checker_labels", alias = "ragchecker_labels")]
    pub ragchecker_labels: u64,
}

/// Everything the user sees before (and after) items are stored.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ValidationReport {
    /// The imported file's path as given.
    pub file: String,
    pub file_bytes: u64,
    pub format: Option<Format>,
    pub schema: Option<Schema>,
    /// canonical field -> the source field names mapped onto it.
    pub mapping: BTreeMap<String, Vec<String>>,
    /// Records read, accepted or rejected.
    pub items_read: u64,
    /// Records stored as items.
    pub items_accepted: u64,
    /// Total rejected lines; `rejected` lists the first `MAX_LISTED` of them.
    pub rejected_count: u64,
    pub rejected: Vec<Rejected>,
    pub warning_count: u64,
    pub warnings: Vec<Warning>,
    pub duplicates: Vec<Duplicate>,
    /// Per canonical field, how many accepted items carry it.
    pub coverage: FieldCoverage,
    /// ISO 639-1 guess ("en", "de", ...) from the questions, when confident.
    pub language: Option<String>,
    /// Retrieved chunks over the import's context token budget (each also a warning).
    pub oversize_contexts: u64,
    /// Where the mapping was ambiguous: the choice made and why.
    #[serde(default)]
    pub choices: Vec<MappingChoice>,
}

/// An ambiguous mapping resolved: `field` was read from `chosen` rather than from
/// `alternatives`, because `why`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MappingChoice {
    pub field: String,
    pub chosen: String,
    pub alternatives: Vec<String>,
    pub why: String,
}

/// At most this many rejected lines, warnings and duplicates are listed individually;
/// counts are always exact.
pub const MAX_LISTED: usize = 10_000;

/// An accepted record, handed to the caller as soon as it is read.
#[derive(Debug, Clone)]
pub struct AcceptedItem {
    pub line: u64,
    pub item: Item,
    pub content_hash: String,
    /// Line of the first item with the same content hash, if this one repeats it.
    pub duplicate_of: Option<u64>,
}

/// Streams `path`, calling `on_item` for every accepted record in file order, and
/// returns the validation report. `on_item` returning `Err(message)` stops the import
/// (e.g. the database is full) with `DatasetError::Aborted`.
///
/// Duplicates (same `Item::content_hash`) are still accepted and passed on, with
/// `duplicate_of` set; the caller decides whether to store them. Memory stays bounded by
/// one line / element / row plus about 40 bytes per distinct item (the duplicate index).
pub fn read_items<F>(
    path: &Path,
    limits: &ImportLimits,
    on_item: F,
) -> Result<ValidationReport, DatasetError>
where
    F: FnMut(AcceptedItem) -> Result<(), String>,
{
    read_items_mapped(path, limits, &FieldMap::default(), on_item)
}

/// `read_items` with the user's mapping overrides applied to every record.
pub fn read_items_mapped<F>(
    path: &Path,
    limits: &ImportLimits,
    map: &FieldMap,
    mut on_item: F,
) -> Result<ValidationReport, DatasetError>
where
    F: FnMut(AcceptedItem) -> Result<(), String>,
{
    map.check()
        .map_err(|message| DatasetError::UnsupportedShape {
            path: path.display().to_string(),
            message,
        })?;
    let display = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| DatasetError::unreadable(path, e))?;
    if !meta.is_file() {
        let message = "not a regular file".to_string();
        return Err(DatasetError::Unreadable {
            path: display,
            message,
        });
    }
    let size = meta.len();
    if size > limits.max_file_bytes {
        return Err(DatasetError::TooLarge {
            path: display,
            size,
            limit: limits.max_file_bytes,
        });
    }
    if size == 0 {
        return Err(DatasetError::EmptyFile { path: display });
    }
    let shape = detect::detect(path, limits)?;
    let mut collector = Collector::new(display, size, limits, map, &mut on_item);
    match shape {
        Shape::Jsonl => {
            collector.set_format(Format::Jsonl);
            jsonl::read(path, &mut collector)?;
        }
        Shape::JsonArray => json::read(path, false, &mut collector)?,
        Shape::JsonDocument => json::read(path, true, &mut collector)?,
        Shape::Csv { delimiter } => {
            collector.set_format(Format::Csv {
                delimiter: char::from(delimiter),
            });
            csv::read(path, delimiter, &mut collector)?;
        }
        Shape::Parquet => parquet::read(path, &mut collector)?,
    }
    if let Some(scores) = &map.scores_file {
        scores_file::read(scores, limits, &mut collector)?;
    }
    collector.end()?;
    let report = collector.finish();
    Ok(report)
}
