//! The judge-free metrics (METRICS.md); which metrics exist is `crate::catalogue`.
//!
//! Owns: computing the deterministic metrics for one item. Must not: touch SQL, the network or
//! the filesystem. A metric that cannot be computed returns `Status::Error` with a
//! message, never a score of 0; an item that lacks the needed fields is `Skipped` with
//! the reason.

pub mod citation;
pub mod lexical;
pub mod overall;
pub mod ragchecker;
pub mod ragvue;
pub mod reference;
pub mod scorecard;

use serde::{Deserialize, Serialize};

use crate::item::{Field, Item};

// The catalogue, stages and result types sit below every stage (the store keeps results,
// the judge and criteria name metrics); these paths keep `metrics::…` reading naturally
// for the stages above.
pub use crate::catalogue::{
    self, catalogue, find, in_order, resolve_selection, resolve_selection_in, stage, Family,
    MetricResult, MetricSpec, Scope, Status,
};

/// Settings the deterministic metrics read. Defaults follow METRICS.md.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MetricConfig {
    /// k for `reference.recall_at_k` and `reference.mrr_at_k`.
    pub k: usize,
    /// Regex whose first capture group (or first non-empty group) is a cited id.
    pub citation_pattern: String,
}

impl Default for MetricConfig {
    fn default() -> Self {
        MetricConfig {
            k: 10,
            citation_pattern: citation::DEFAULT_PATTERN.to_string(),
        }
    }
}

/// The fields of `needs` the item lacks, in catalogue order.
pub fn missing_fields(item: &Item, needs: &[Field]) -> Vec<Field> {
    needs.iter().copied().filter(|f| !item.has(*f)).collect()
}

/// A human sentence naming what is missing: "needs a ground-truth answer and retrieved contexts".
pub fn skip_reason(missing: &[Field]) -> String {
    let names: Vec<&str> = missing.iter().map(|f| f.describe()).collect();
    match names.len() {
        0 => String::new(),
        1 => format!("the item has no {}", strip_article(names[0])),
        _ => {
            let (last, rest) = names.split_last().unwrap();
            let rest: Vec<&str> = rest.iter().map(|n| strip_article(n)).collect();
            format!(
                "the item has no {} or {}",
                rest.join(", "),
                strip_article(last)
            )
        }
    }
}

fn strip_article(s: &str) -> &str {
    s.strip_prefix("an ")
        .or_else(|| s.strip_prefix("a "))
        .unwrap_or(s)
}

/// Computes one judge-free metric for one item: `Skipped` when fields are missing,
/// `Error` when the metric is unknown here or needs a judge.
pub fn compute(spec: &MetricSpec, item: &Item, config: &MetricConfig) -> MetricResult {
    let missing = missing_fields(item, spec.needs);
    if !missing.is_empty() {
        return MetricResult::skipped(spec.id, skip_reason(&missing));
    }
    match spec.family {
        Family::Citation => citation::compute(spec.id, item, config),
        // Judge-free path for RAGChecker: only the labels the item already carries.
        Family::RagChecker if item.has(Field::RagCheckerLabels) => ragchecker::compute(spec.id, item),
        Family::RagChecker => MetricResult::skipped(
            spec.id,
            "the item has no precomputed RAGChecker claims and labels, and no judge was chosen to extract them",
        ),
        Family::Reference => reference::compute(spec.id, item, config),
        Family::Ragvue if !spec.judge && !spec.synthesised => lexical::compute(spec.id, item),
        _ => MetricResult::error(spec.id, format!("{} needs a judge, and no judge is available in this build", spec.id)),
    }
}
