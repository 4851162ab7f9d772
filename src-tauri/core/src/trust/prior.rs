//! Scores the source tool already gave (RAGAS metric columns, DeepEval `metricsData`,
//! promptfoo `namedScores`, trace evaluations, LangSmith feedback, Langfuse scores),
//! kept by the importer in each item's `metadata.prior_scores`, beside Ragnosis's own:
//! per item, and as agreement over a run for the pair (their score, our metric) the
//! user chooses — so someone moving from another evaluator sees where the two disagree.
//!
//! Owns: reading prior scores out of metadata, and the agreement figures (the same
//! Spearman ρ ± SE, Kendall τ-b and MAE as judge–human alignment). A prior score that
//! was an error in the source tool is shown as that error and never paired.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::alignment::{self, MetricAlignment};
use crate::dataset::{self, PRIOR_SCORES_KEY};
use crate::error::{Error, Result};
use crate::item::Item;
use crate::metrics::{self, Scope};
use crate::store::{self, Store};

/// Disagreements listed: the items most worth a look.
pub const DISAGREEMENTS: usize = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PriorScore {
    pub name: String,
    pub score: Option<f64>,
    pub label: Option<String>,
    pub explanation: Option<String>,
    /// The source tool could not compute it.
    pub error: Option<String>,
}

/// The item's prior scores, by name.
pub fn prior_scores(item: &Item) -> Vec<PriorScore> {
    let Some(Value::Object(priors)) = item.metadata.get(PRIOR_SCORES_KEY) else {
        return Vec::new();
    };
    let text = |v: Option<&Value>| match v {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => Some(other.to_string()),
    };
    priors
        .iter()
        .map(|(name, v)| {
            let score = v.get("score").and_then(dataset::number);
            PriorScore {
                name: name.clone(),
                score: score.filter(|s| s.is_finite()),
                label: text(v.get("label")),
                explanation: text(v.get("explanation")),
                error: text(v.get("error")),
            }
        })
        .collect()
}

/// An item where the two scores disagree most (by rank position).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PriorDisagreement {
    pub item_id: i64,
    pub question: String,
    pub ours: f64,
    pub theirs: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PriorAgreement {
    pub run_id: i64,
    pub prior: String,
    pub metric: String,
    /// n, Spearman ρ (± SE), Kendall τ-b and MAE over items with both scores.
    pub figures: MetricAlignment,
    /// Items whose prior score was an error in the source tool (not paired).
    pub prior_errors: u64,
    pub disagreements: Vec<PriorDisagreement>,
}

/// The names of the prior scores on a run's items, with how many items carry each.
pub fn names(store: &Store, run_id: i64) -> Result<Vec<(String, u64)>> {
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for item in run_items(store, run_id)? {
        for p in prior_scores(&item.item) {
            *counts.entry(p.name).or_default() += 1;
        }
    }
    Ok(counts.into_iter().collect())
}

fn run_items(store: &Store, run_id: i64) -> Result<Vec<store::items::StoredItem>> {
    let ids = store::run_items::item_ids(store.conn(), run_id)?;
    store::items::get_many(store.conn(), &ids)
}

/// The items where the run's score and the prior one disagree most, by rank (so two
/// scales, a 1–5 rubric and a 0–1 score, compare) and then by value.
fn disagreements(
    pairs: &[(f64, f64)],
    paired: &[&store::items::StoredItem],
) -> Vec<PriorDisagreement> {
    // Disagreement by rank, so two scales (a 1–5 rubric and a 0–1 score) compare.
    // Ranks scaled to 0–1 (ties share their mean rank).
    let rank_of = |values: Vec<f64>| -> Vec<f64> {
        let span = (values.len().max(2) - 1) as f64;
        alignment::ranks(&values)
            .into_iter()
            .map(|r| (r - 1.0) / span)
            .collect()
    };
    let our_ranks = rank_of(pairs.iter().map(|p| p.0).collect());
    let their_ranks = rank_of(pairs.iter().map(|p| p.1).collect());
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|a, b| {
        let gap =
            |i: usize| (our_ranks[i] - their_ranks[i]).abs() + (pairs[i].0 - pairs[i].1).abs();
        gap(*b).total_cmp(&gap(*a))
    });
    order
        .into_iter()
        .take(DISAGREEMENTS)
        .map(|i| PriorDisagreement {
            item_id: paired[i].id,
            question: paired[i].item.question.clone(),
            ours: pairs[i].0,
            theirs: pairs[i].1,
        })
        .collect()
}

/// How the source tool's `prior` agrees with the run's `metric` over the run's items.
pub fn agreement(store: &Store, run_id: i64, prior: &str, metric: &str) -> Result<PriorAgreement> {
    let run = store::runs::get(store.conn(), run_id)?;
    let item_metric = metrics::find(metric).is_some_and(|m| m.scope == Scope::Item);
    if !item_metric || !run.metrics.iter().any(|m| m == metric) {
        return Err(Error::Invalid(format!(
            "run #{run_id} has no per-item metric `{metric}`; its metrics are {}",
            run.metrics.join(", ")
        )));
    }
    let items = run_items(store, run_id)?;
    let known = names(store, run_id)?;
    if !known.iter().any(|(n, _)| n == prior) {
        let listed: Vec<&str> = known.iter().map(|(n, _)| n.as_str()).collect();
        return Err(Error::Invalid(if listed.is_empty() {
            format!("the items of run #{run_id} carry no scores from another tool")
        } else {
            format!(
                "no prior score named `{prior}`; the items carry {}",
                listed.join(", ")
            )
        }));
    }
    let ours: BTreeMap<i64, f64> =
        store::results::ok_scores_by_item(store.conn(), run_id, &[metric])?
            .into_iter()
            .filter_map(|s| s.scores.get(metric).map(|v| (s.item_id, *v)))
            .collect();
    let mut pairs = Vec::new();
    let mut paired = Vec::new();
    let mut prior_errors = 0;
    for stored in &items {
        let Some(theirs) = prior_scores(&stored.item)
            .into_iter()
            .find(|p| p.name == prior)
        else {
            continue;
        };
        match (theirs.score, ours.get(&stored.id)) {
            (Some(t), Some(o)) => {
                pairs.push((*o, t));
                paired.push(stored);
            }
            (None, _) => prior_errors += 1,
            _ => {}
        }
    }
    let figures = alignment::figures(metric, &pairs);
    let disagreements = disagreements(&pairs, &paired);
    Ok(PriorAgreement {
        run_id,
        prior: prior.to_string(),
        metric: metric.to_string(),
        figures,
        prior_errors,
        disagreements,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prior_scores_read_numbers_labels_and_errors_from_metadata() {
        let mut item = Item::default();
        item.metadata.insert(
            PRIOR_SCORES_KEY.into(),
            json!({"faithfulness": {"score": 0.5}, "judge": {"label": "pass", "score": true},
                   "recall": {"error": "timeout"}}),
        );
        let priors = prior_scores(&item);
        assert_eq!(priors.len(), 3);
        assert_eq!(priors[0].score, Some(0.5));
        assert_eq!(priors[1].score, Some(1.0));
        assert_eq!(priors[1].label.as_deref(), Some("pass"));
        assert_eq!(priors[2].score, None);
        assert_eq!(priors[2].error.as_deref(), Some("timeout"));
    }
}
