//! What the Home and Data screens receive: datasets, their validation report, what they
//! can measure, and preview pages of their items. Mapped from core types; lists that can
//! be long (rejected lines, warnings, duplicates) are capped here, with exact counts
//! beside them, so a 100 000-line report never crosses the IPC boundary whole.

use ragnosis_core::dataset::{Format, Schema, ValidationReport};
use ragnosis_core::store::datasets::DatasetRow;
use ragnosis_core::store::items::StoredItem;
use serde::Serialize;

/// Rows of each report list sent to the window; the report says how many there are.
pub const LISTED: usize = 200;

/// The validation report as the Data screen shows it: the import's own report with its
/// lists cut to the first `LISTED` (the counts beside them stay exact), the format and
/// schema named. The fields' badges are in `ui/src/lib/bindings/labels.ts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Report {
    /// The report as the import wrote it (its fields at the top level).
    #[serde(flatten)]
    pub validation: ValidationReport,
    /// "JSONL", "JSON array", "CSV (delimiter ',')", …
    pub format_label: Option<String>,
    /// "RAGVUE", "RAGAS", "RAGChecker", "RAG citations", "custom", …
    pub schema_label: Option<&'static str>,
    /// Accepted items repeating an earlier item's content, in all; `duplicates` lists the
    /// first `LISTED`.
    pub duplicate_count: u64,
}

impl From<ValidationReport> for Report {
    fn from(mut r: ValidationReport) -> Self {
        let duplicate_count = r.duplicates.len() as u64;
        r.rejected.truncate(LISTED);
        r.warnings.truncate(LISTED);
        r.duplicates.truncate(LISTED);
        Report {
            format_label: r.format.as_ref().map(Format::label),
            schema_label: r.schema.map(Schema::label),
            duplicate_count,
            validation: r,
        }
    }
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
