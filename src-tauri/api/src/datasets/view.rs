//! What the Home and Data screens receive: datasets, their validation report, what they
//! can measure, and preview pages of their items. Mapped from core types; lists that can
//! be long (rejected lines, warnings, duplicates) are capped here, with exact counts
//! beside them, so a 100 000-line report never crosses the IPC boundary whole.

use ragnosis_core::dataset::{
    Duplicate, Format, MappingChoice, Rejected, Schema, ValidationReport, Warning,
};
use ragnosis_core::measurable::Measurable;
use ragnosis_core::store::datasets::DatasetRow;
use ragnosis_core::store::items::StoredItem;
use serde::Serialize;

/// Rows of each report list sent to the window; the report says how many there are.
pub const LISTED: usize = 200;

/// One canonical field and where it came from in the file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MappedField {
    /// The canonical field ("question", "contexts", ...).
    pub field: String,
    /// The file's field names read into it, as the mapping found them ("response",
    /// "retrieved_contexts").
    pub sources: Vec<String>,
}

/// How many accepted items carry each field.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FieldCount {
    /// "question", "answer", "contexts", "ground_truth", "citation_label", "ranking",
    /// "ragchecker_labels".
    pub field: String,
    /// The badge the metric picker shows for it ("Q", "A", "C", ...).
    pub badge: String,
    /// Accepted items carrying it.
    pub items: u64,
}

/// The validation report as the Data screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Report {
    /// The imported file's path as given.
    pub file: String,
    /// The file's size in bytes.
    pub file_bytes: u64,
    /// "JSONL", "JSON array", "JSON object (key \"results\")", "CSV (delimiter ',')".
    pub format: Option<String>,
    /// "RAGVUE", "RAGAS", "RAGChecker", "RAG citations", "custom".
    pub schema: Option<String>,
    /// Each canonical field with the source fields mapped onto it.
    pub mapping: Vec<MappedField>,
    /// Records read, accepted or rejected.
    pub items_read: u64,
    /// Records stored as items.
    pub items_accepted: u64,
    /// Rejected records in all; `rejected` lists the first `LISTED`.
    pub rejected_count: u64,
    /// The first `LISTED` rejected lines.
    pub rejected: Vec<Rejected>,
    /// Warnings in all; `warnings` lists the first `LISTED`.
    pub warning_count: u64,
    /// The first `LISTED` warnings, each with its line.
    pub warnings: Vec<Warning>,
    /// Accepted items repeating an earlier item's content, in all.
    pub duplicate_count: u64,
    /// The first `LISTED` of them, each with the line of the item it repeats.
    pub duplicates: Vec<Duplicate>,
    /// Per canonical field, how many accepted items carry it.
    pub coverage: Vec<FieldCount>,
    /// ISO 639-1 guess from the questions ("en", "de"), when confident.
    pub language: Option<String>,
    /// Retrieved chunks over the import's context token budget (each also a warning).
    pub oversize_contexts: u64,
    /// Where the mapping was ambiguous (or the user mapped a field): the choice and why.
    pub choices: Vec<MappingChoice>,
}

/// How the Data screen names a file format: "JSONL", "TSV", "Parquet (1200 rows)", ….
pub fn format_label(format: &Format) -> String {
    match format {
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

/// How the Data screen names a recognised schema: "RAGAS", "LangSmith runs", "custom", ….
pub fn schema_label(schema: Schema) -> &'static str {
    match schema {
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

impl From<ValidationReport> for Report {
    fn from(r: ValidationReport) -> Self {
        use ragnosis_core::item::Field;
        let c = &r.coverage;
        let counts = [
            (Field::Question, c.question),
            (Field::Answer, c.answer),
            (Field::Contexts, c.contexts),
            (Field::GroundTruth, c.ground_truth),
            (Field::CitationLabel, c.citation_label),
            (Field::Ranking, c.ranking),
            (Field::RagCheckerLabels, c.ragchecker_labels),
        ];
        Report {
            format: r.format.as_ref().map(format_label),
            schema: r.schema.map(|s| schema_label(s).to_string()),
            mapping: r
                .mapping
                .into_iter()
                .map(|(field, sources)| MappedField { field, sources })
                .collect(),
            items_read: r.items_read,
            items_accepted: r.items_accepted,
            rejected_count: r.rejected_count,
            rejected: r.rejected.into_iter().take(LISTED).collect(),
            warning_count: r.warning_count,
            warnings: r.warnings.into_iter().take(LISTED).collect(),
            duplicate_count: r.duplicates.len() as u64,
            duplicates: r.duplicates.into_iter().take(LISTED).collect(),
            coverage: counts
                .into_iter()
                .map(|(f, n)| FieldCount {
                    field: field_name(f),
                    badge: f.badge().into(),
                    items: n,
                })
                .collect(),
            language: r.language,
            oversize_contexts: r.oversize_contexts,
            choices: r.choices,
            file: r.file,
            file_bytes: r.file_bytes,
        }
    }
}

pub fn field_name(field: ragnosis_core::item::Field) -> String {
    serde_json::to_value(field)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// A dataset with its report, right after an import or when the Data screen opens.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DatasetReport {
    /// The stored dataset: id, name, source path, file hash, item count, schema and status.
    pub dataset: DatasetRow,
    /// None for datasets imported before reports were stored.
    pub report: Option<Report>,
    /// The file's exact bytes were imported before, and this is that dataset.
    pub reused: bool,
}

impl From<ragnosis_core::import::Imported> for DatasetReport {
    fn from(imported: ragnosis_core::import::Imported) -> Self {
        DatasetReport {
            dataset: imported.dataset,
            report: Some(imported.report.into()),
            reused: imported.reused,
        }
    }
}

/// One metric's reach over a dataset ("what can be measured").
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricReach {
    /// The metric's id.
    pub metric: String,
    /// Items carrying every field the metric needs.
    pub items: u64,
    /// Badges of needed fields no item has ("GT", "CIT"): why `items` is 0.
    pub absent: Vec<String>,
}

/// What a dataset can measure, per metric of the catalogue.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DatasetReach {
    /// Items in the dataset.
    pub items: u64,
    /// Every metric of the catalogue, in catalogue order.
    pub metrics: Vec<MetricReach>,
}

impl From<Measurable> for DatasetReach {
    fn from(m: Measurable) -> Self {
        DatasetReach {
            items: m.items,
            metrics: m
                .metrics
                .into_iter()
                .map(|r| MetricReach {
                    metric: r.metric.to_string(),
                    items: r.items,
                    absent: r.absent.iter().map(|f| f.badge().to_string()).collect(),
                })
                .collect(),
        }
    }
}

/// An item in the preview table: the fields a person checks at a glance.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemPreview {
    /// The item's row id in the store.
    pub item_id: i64,
    /// 0-based position in the file's accepted items.
    pub ordinal: i64,
    /// 1-based line of the file where the item's record starts.
    pub source_line: i64,
    /// The id the user's file gave the item, if any.
    pub external_id: Option<String>,
    /// The question's first 400 characters, "…" when cut.
    pub question: String,
    /// The answer's first 400 characters, when the item has an answer.
    pub answer: Option<String>,
    /// How many retrieved chunks the item has.
    pub contexts: u32,
    /// The reference answer's first 400 characters, when the item has one.
    pub ground_truth: Option<String>,
    /// The citation label as the file gave it, when it has one.
    pub citation_label: Option<String>,
}

/// Characters of each text field a preview row carries.
const PREVIEW_CHARS: usize = 400;

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

impl From<StoredItem> for ItemPreview {
    fn from(s: StoredItem) -> Self {
        ItemPreview {
            item_id: s.id,
            ordinal: s.ordinal,
            source_line: s.source_line,
            external_id: s.item.id,
            question: excerpt(&s.item.question),
            answer: s.item.answer.as_deref().map(excerpt),
            contexts: s.item.contexts.len() as u32,
            ground_truth: s.item.ground_truth.as_deref().map(excerpt),
            citation_label: s.item.citation_label,
        }
    }
}

/// One page of a dataset's items.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemsPage {
    /// Items in the dataset.
    pub total: i64,
    /// The 0-based position of the page's first item.
    pub offset: i64,
    /// The page's items, in file order.
    pub items: Vec<ItemPreview>,
}

/// What an import would store with the given mapping: its report and its first items
/// (nothing is stored).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MappingPreview {
    /// What the import would report, as the Data screen shows it.
    pub report: Report,
    /// The first `MAPPING_PREVIEW_ITEMS` items the mapping accepts.
    pub items: Vec<ItemPreview>,
}

/// The first items of a mapping preview: enough to see the fields land right.
pub const MAPPING_PREVIEW_ITEMS: usize = 5;

impl MappingPreview {
    /// The preview of a dry-run import: the report and the first accepted `items`.
    pub fn new(report: ValidationReport, items: Vec<ragnosis_core::dataset::AcceptedItem>) -> Self {
        MappingPreview {
            report: report.into(),
            items: items
                .into_iter()
                .enumerate()
                .map(|(i, a)| {
                    ItemPreview::from(StoredItem {
                        id: 0,
                        dataset_id: 0,
                        ordinal: i as i64,
                        source_line: a.line as i64,
                        content_hash: a.content_hash,
                        item: a.item,
                    })
                })
                .collect(),
        }
    }
}
