//! The synthesised per-item overalls: `ragvue.retrieval_overall` (harmonic mean of
//! retrieval relevance and coverage) and `ragvue.answer_overall` (weighted mean of the
//! answer metrics present, weights renormalised). Errored or skipped inputs are absent,
//! never zeros.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::MetricResult;

/// Named weights over answer metric ids.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WeightProfile {
    pub name: String,
    pub weights: BTreeMap<String, f64>,
}

impl WeightProfile {
    /// `ragvue-paper`: the weights of the RAGVUE paper.
    pub fn ragvue_paper() -> WeightProfile {
        Self::from_pairs(
            "ragvue-paper",
            &[
                ("ragvue.strict_faithfulness", 0.50),
                ("ragvue.answer_relevance", 0.30),
                ("ragvue.answer_completeness", 0.15),
                ("ragvue.clarity", 0.05),
            ],
        )
    }

    /// `ragvue-0.6`: the weights of RAGVUE 0.6 with its extension metrics.
    pub fn ragvue_06() -> WeightProfile {
        Self::from_pairs(
            "ragvue-0.6",
            &[
                ("ragvue.strict_faithfulness", 0.30),
                ("ragvue.answer_relevance", 0.20),
                ("ragvue.coherence", 0.10),
                ("ragvue.implicit_contradiction", 0.10),
                ("ragvue.answer_completeness", 0.10),
                ("ragvue.clarity", 0.05),
                ("ragvue.answer_conciseness", 0.05),
                ("ragvue.negative_rejection", 0.05),
                ("ragvue.multi_hop_faithfulness", 0.05),
            ],
        )
    }

    pub fn builtin(name: &str) -> Option<WeightProfile> {
        match name {
            "ragvue-paper" => Some(Self::ragvue_paper()),
            "ragvue-0.6" => Some(Self::ragvue_06()),
            _ => None,
        }
    }

    fn from_pairs(name: &str, pairs: &[(&str, f64)]) -> WeightProfile {
        WeightProfile {
            name: name.into(),
            weights: pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }
}

impl Default for WeightProfile {
    fn default() -> Self {
        Self::ragvue_paper()
    }
}

/// Harmonic mean of relevance and coverage; 0 if either is 0; the one present passes
/// through when the other is missing. None when neither was scored.
pub fn retrieval_overall(relevance: Option<f64>, coverage: Option<f64>) -> Option<f64> {
    match (relevance, coverage) {
        (Some(r), Some(c)) if r + c > 0.0 => Some(2.0 * r * c / (r + c)),
        (Some(_), Some(_)) => Some(0.0),
        (Some(x), None) | (None, Some(x)) => Some(x),
        (None, None) => None,
    }
}

/// Weighted mean over the metrics present in `scores`, weights renormalised over them.
pub fn answer_overall(scores: &BTreeMap<String, f64>, profile: &WeightProfile) -> Option<f64> {
    let (mut sum, mut weight) = (0.0, 0.0);
    for (metric, w) in &profile.weights {
        if let Some(score) = scores.get(metric) {
            sum += w * score;
            weight += w;
        }
    }
    (weight > 0.0).then(|| sum / weight)
}

/// The overall results for an item from its other results (only `ok` ones count).
pub fn synthesise(id: &str, results: &[MetricResult], profile: &WeightProfile) -> MetricResult {
    let ok = |metric: &str| {
        results
            .iter()
            .find(|r| r.metric == metric && r.status == super::Status::Ok)
            .and_then(|r| r.score)
    };
    match id {
        "ragvue.retrieval_overall" => {
            let (rr, rc) = (
                ok("ragvue.retrieval_relevance"),
                ok("ragvue.retrieval_coverage"),
            );
            match retrieval_overall(rr, rc) {
                Some(score) => MetricResult::ok(
                    id,
                    score,
                    format!(
                        "Harmonic mean of retrieval relevance ({}) and coverage ({}).",
                        show(rr),
                        show(rc)
                    ),
                    json!({ "retrieval_relevance": rr, "retrieval_coverage": rc }),
                ),
                None => MetricResult::skipped(
                    id,
                    "neither retrieval relevance nor coverage was scored for this item",
                ),
            }
        }
        "ragvue.answer_overall" => {
            let present: BTreeMap<String, f64> = profile
                .weights
                .keys()
                .filter_map(|m| ok(m).map(|s| (m.clone(), s)))
                .collect();
            match answer_overall(&present, profile) {
                Some(score) => MetricResult::ok(
                    id,
                    score,
                    format!(
                        "Weighted mean of {} answer metrics (profile {}).",
                        present.len(),
                        profile.name
                    ),
                    json!({ "profile": profile.name, "inputs": present }),
                ),
                None => MetricResult::skipped(
                    id,
                    "none of the weighted answer metrics was scored for this item",
                ),
            }
        }
        _ => MetricResult::error(id, format!("{id} is not a synthesised metric")),
    }
}

fn show(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.2}"))
        .unwrap_or_else(|| "not scored".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scores(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn retrieval_overall_worked_check() {
        let v = retrieval_overall(Some(0.5), Some(1.0)).unwrap();
        assert!(
            (v - 0.6667).abs() < 1e-4,
            "RR 0.5, RC 1.0 → 0.6667, got {v}"
        );
        assert_eq!(retrieval_overall(Some(0.0), Some(1.0)), Some(0.0));
        assert_eq!(
            retrieval_overall(None, Some(0.4)),
            Some(0.4),
            "the one present passes through"
        );
    }

    #[test]
    fn answer_overall_worked_checks_for_ragvue_paper() {
        let p = WeightProfile::ragvue_paper();
        let all = scores(&[
            ("ragvue.strict_faithfulness", 1.0),
            ("ragvue.answer_relevance", 0.8),
            ("ragvue.answer_completeness", 0.5),
            ("ragvue.clarity", 1.0),
        ]);
        assert!((answer_overall(&all, &p).unwrap() - 0.865).abs() < 1e-9);
        let two = scores(&[("ragvue.answer_relevance", 0.8), ("ragvue.clarity", 1.0)]);
        assert!(
            (answer_overall(&two, &p).unwrap() - 0.8286).abs() < 1e-4,
            "weights renormalised over AR and CL"
        );
    }

    #[test]
    fn errored_inputs_are_absent_not_zero() {
        let results = vec![
            MetricResult::ok("ragvue.answer_relevance", 0.8, "", serde_json::Value::Null),
            MetricResult::error("ragvue.strict_faithfulness", "judge failed"),
            MetricResult::ok("ragvue.clarity", 1.0, "", serde_json::Value::Null),
        ];
        let r = synthesise(
            "ragvue.answer_overall",
            &results,
            &WeightProfile::ragvue_paper(),
        );
        assert!(
            (r.score.unwrap() - 0.8286).abs() < 1e-4,
            "the failed faithfulness is left out, not counted as 0"
        );
    }

    #[test]
    fn ragvue_06_weights_sum_to_one() {
        let total: f64 = WeightProfile::ragvue_06().weights.values().sum();
        assert!((total - 1.0).abs() < 1e-9);
    }
}
