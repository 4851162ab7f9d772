//! A verdict per pipeline stage — retrieval, grounding, generation — for readers who will
//! not read a metric table: one score and a traffic-light band each.
//!
//! Owns: the stage score and the bands (which metric speaks for which stage is
//! `metrics::stage`). Pure: reads a `RunSummary`, nothing else.
//!
//! Stage score = the plain mean of the run-level means of the stage's metrics that were
//! scored in this run, each read so that higher is better (a lower-is-better metric
//! counts as 1 − mean). Every metric weighs the same. Left out on purpose: the
//! synthesised overalls (they would count their inputs twice), readability (a style
//! measure: technical answers read "hard" without being wrong), the surface-overlap
//! reference metrics (exact match, token F1, ROUGE-L, BLEU: a correct long-form answer
//! scores low on them, so averaging them in called generation "critical" on runs whose
//! answers were right) and dataset-level scores. A stage with none of its metrics in the
//! run has no score and no band.
//!
//! Bands (METRICS.md): ≥ 0.75 good, 0.50–0.74 needs attention, < 0.50 critical.

use serde::{Deserialize, Serialize};

use super::RunSummary;
use crate::catalogue::stage::{stage_of, PipelineStage};

/// Traffic-light band of a score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Band {
    Good,
    NeedsAttention,
    Critical,
}

impl Band {
    pub fn of(score: f64) -> Band {
        if score >= 0.75 {
            Band::Good
        } else if score >= 0.5 {
            Band::NeedsAttention
        } else {
            Band::Critical
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Band::Good => "good",
            Band::NeedsAttention => "needs attention",
            Band::Critical => "critical",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageVerdict {
    pub stage: PipelineStage,
    pub score: Option<f64>,
    pub band: Option<Band>,
    /// The metrics the score averages, in the run's order.
    pub metrics: Vec<String>,
}

/// One verdict per stage, in pipeline order; `metric_order` is the run's metric list.
pub fn verdicts(summary: &RunSummary, metric_order: &[String]) -> Vec<StageVerdict> {
    PipelineStage::ALL
        .into_iter()
        .map(|stage| {
            let mut used = Vec::new();
            let mut goodness = Vec::new();
            for id in metric_order.iter().filter(|id| stage_of(id) == Some(stage)) {
                let Some(m) = summary.metrics.get(id) else {
                    continue;
                };
                let Some(mean) = m.stats.mean else { continue };
                goodness.push(if m.stats.lower_is_better {
                    1.0 - mean
                } else {
                    mean
                });
                used.push(id.clone());
            }
            let score = (!goodness.is_empty())
                .then(|| goodness.iter().sum::<f64>() / goodness.len() as f64);
            StageVerdict {
                stage,
                score,
                band: score.map(Band::of),
                metrics: used,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::analysis::{MetricStats, MetricSummary};

    fn summary(means: &[(&str, f64, bool)]) -> RunSummary {
        let metrics = means
            .iter()
            .map(|(id, mean, lower)| {
                let stats = MetricStats::from_scores(id, &[*mean], 0, 0, *lower);
                (
                    id.to_string(),
                    MetricSummary {
                        stats,
                        lowest: vec![],
                        highest: vec![],
                        skip_reasons: vec![],
                        histogram: vec![],
                    },
                )
            })
            .collect::<BTreeMap<_, _>>();
        RunSummary {
            run_id: 1,
            items: 1,
            metrics,
            dataset_metrics: BTreeMap::new(),
            dataset_details: BTreeMap::new(),
            errors: vec![],
            diagnosis: None,
            taxonomy: None,
            judged_by: None,
        }
    }

    #[test]
    fn stage_score_is_the_mean_of_its_metrics_read_higher_is_better() {
        let s = summary(&[
            ("reference.recall_at_k", 0.9, false),
            ("reference.mrr_at_k", 0.7, false),
            ("ragchecker.hallucination", 0.4, true),
            ("citation.strict_accuracy", 0.5, false),
            ("ragvue.readability", 0.1, false),
        ]);
        let order: Vec<String> = s.metrics.keys().cloned().collect();
        let v = verdicts(&s, &order);
        // Retrieval: (0.9 + 0.7) / 2 = 0.8 → good.
        assert!((v[0].score.unwrap() - 0.8).abs() < 1e-12);
        assert_eq!(v[0].band, Some(Band::Good));
        // Grounding: hallucination 0.4 reads as 0.6; (0.6 + 0.5) / 2 = 0.55 → needs attention.
        assert!((v[1].score.unwrap() - 0.55).abs() < 1e-12);
        assert_eq!(v[1].band, Some(Band::NeedsAttention));
        // Generation: readability alone does not make a verdict.
        assert_eq!((v[2].score, v[2].band), (None, None));
    }

    #[test]
    fn bands_follow_the_catalogue_cut_offs() {
        assert_eq!(Band::of(0.75), Band::Good);
        assert_eq!(Band::of(0.7499), Band::NeedsAttention);
        assert_eq!(Band::of(0.5), Band::NeedsAttention);
        assert_eq!(Band::of(0.4999), Band::Critical);
    }
}
