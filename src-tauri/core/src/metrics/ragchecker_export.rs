//! The RAGChecker-compatible dataset export: macro means of the `ragchecker.*` metrics as
//! percentages rounded to one decimal, grouped as RAGChecker's `rag_eval` prints them
//! (`overall_metrics` / `retriever_metrics` / `generator_metrics`).
//!
//! Owns: the mapping from our ids to RAGChecker's export names. Must not: recompute
//! per-item metrics; it only averages and formats scores it is given.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

/// Our metric ids and the names RAGChecker's export uses, by group.
const EXPORT_GROUPS: [(&str, &[(&str, &str)]); 3] = [
    (
        "overall_metrics",
        &[
            ("precision", "precision"),
            ("recall", "recall"),
            ("f1", "f1"),
        ],
    ),
    (
        "retriever_metrics",
        &[
            ("claim_recall", "claim_recall"),
            ("context_precision", "context_precision"),
        ],
    ),
    (
        "generator_metrics",
        &[
            ("context_utilization", "context_utilization"),
            (
                "noise_sensitivity_relevant",
                "noise_sensitivity_in_relevant",
            ),
            (
                "noise_sensitivity_irrelevant",
                "noise_sensitivity_in_irrelevant",
            ),
            ("hallucination", "hallucination"),
            ("self_knowledge", "self_knowledge"),
            ("faithfulness", "faithfulness"),
        ],
    ),
];

/// The macro mean of each `ragchecker.*` metric over per-item `(metric id, score)` pairs
/// (only scored items: errors and skips are simply not passed in).
pub fn item_means<S: AsRef<str>>(
    scores: impl IntoIterator<Item = (S, f64)>,
) -> BTreeMap<String, f64> {
    let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for (id, score) in scores {
        let entry = sums.entry(id.as_ref().to_string()).or_default();
        entry.0 += score;
        entry.1 += 1;
    }
    sums.into_iter()
        .map(|(id, (sum, n))| (id, sum / n as f64))
        .collect()
}

/// RAGChecker's `rag_eval` output shape from dataset means keyed by metric id
/// (`ragchecker.precision`; bare names are accepted too): percentages rounded to one
/// decimal in `overall_metrics` / `retriever_metrics` / `generator_metrics`. A metric
/// with no mean (never scored) is `null`.
pub fn grouped_export(means: &BTreeMap<String, f64>) -> Value {
    let mut out = Map::new();
    for (group, members) in EXPORT_GROUPS {
        let mut g = Map::new();
        for (ours, theirs) in members {
            let mean = means
                .get(&format!("ragchecker.{ours}"))
                .or_else(|| means.get(*ours));
            g.insert(
                theirs.to_string(),
                mean.map_or(Value::Null, |m| json!((m * 1000.0).round() / 10.0)),
            );
        }
        out.insert(group.to_string(), Value::Object(g));
    }
    Value::Object(out)
}

/// `grouped_export` straight from per-item `(metric id, score)` pairs.
pub fn grouped_export_from_scores<S: AsRef<str>>(
    scores: impl IntoIterator<Item = (S, f64)>,
) -> Value {
    grouped_export(&item_means(scores))
}
