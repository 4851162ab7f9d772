//! RAGAS result files: numeric columns beyond the sample's fields are its metrics.
//!
//! Owns: reading RAGAS's metric columns (and NaN) as prior scores. Must not: map fields.

use serde_json::{json, Map, Value};

use super::super::aliases::classify;
use super::super::values::{is_absent, number};
use super::Notes;

/// Metric names RAGAS writes as result columns (any numeric column of a RAGAS file is
/// read as a prior score; these names also identify a RAGAS 0.1 file).
pub(super) const RAGAS_METRICS: [&str; 12] = [
    "faithfulness",
    "answer_relevancy",
    "response_relevancy",
    "context_precision",
    "context_recall",
    "context_entity_recall",
    "answer_correctness",
    "answer_similarity",
    "semantic_similarity",
    "factual_correctness",
    "llm_context_precision_with_reference",
    "llm_context_precision_without_reference",
];

/// RAGAS: numeric columns beyond the sample's fields are the metrics it computed.
pub(super) fn ragas(record: &mut Map<String, Value>, notes: &mut Notes) {
    // pandas writes its row index as a first column with an empty name.
    if let Some(index) = record.remove("") {
        record.insert("row_index".into(), index);
        notes.choose(
            "metadata",
            "row_index",
            vec!["(unnamed first column)".into()],
            "the unnamed first column is the row index pandas writes; it is kept as metadata, not read as a score",
        );
    }
    let metric_keys: Vec<String> = record
        .iter()
        .filter(|(k, v)| {
            classify(k).is_none()
                && k.as_str() != "row_index"
                && !k.to_ascii_lowercase().starts_with("unnamed")
                && (number(v).is_some()
                    // A JSON file's NaN was read as a missing value: still the metric's.
                    || (RAGAS_METRICS.contains(&k.as_str()) && is_absent(v)))
        })
        .map(|(k, _)| k.clone())
        .collect();
    for key in metric_keys {
        let value = record
            .remove(&key)
            .and_then(|v| number(&v))
            .unwrap_or(f64::NAN);
        // RAGAS writes NaN for a metric that failed: an error, not a 0.
        let score = if value.is_finite() {
            json!({ "score": value })
        } else {
            json!({ "error": "RAGAS recorded no score (NaN)" })
        };
        notes.prior(record, &key, "column", score);
    }
}
