//! Pass rates corrected for the judge's own errors.
//!
//! A judge that calls some good answers bad and some bad answers good biases the share
//! of items it passes. Where people have labelled items pass / fail for a metric, the
//! judge's true positive rate (TPR: of the items people pass, the share it passes) and
//! true negative rate (TNR) on those labels give the Rogan–Gladen estimate of the true
//! pass rate from the observed one `q`:
//!
//!   corrected = (q + TNR − 1) / (TPR + TNR − 1), clamped to [0, 1].
//!
//! Its 95% interval carries the uncertainty of all three rates: a bootstrap that
//! resamples the labelled pairs (TPR, TNR) and the run's scores (q) together, with a
//! fixed seed. When TPR + TNR − 1 is near 0 the judge separates nothing on the labels and
//! no correction is given.
//!
//! Owns: that estimate. Pure: the caller brings the pairs and scores.

use serde::{Deserialize, Serialize};

use crate::analysis::compare::bootstrap::SplitMix64;
use crate::analysis::stats::quantile;
use crate::judge_check::Estimate;

/// A judge score at or above this passes (the pass line of the run comparison).
const PASS: f64 = 0.5;
/// Below this Youden index (TPR + TNR − 1) the judge tells too little apart to correct.
const MIN_YOUDEN: f64 = 0.1;
/// Labelled items of each kind (pass and fail) the rates need.
const MIN_PER_CLASS: usize = 3;
const RESAMPLES: usize = 2000;
const SEED: u64 = 0xC088_EC7E;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CorrectedRate {
    /// The share of the run's scored items the judge passes.
    pub raw: f64,
    pub corrected: Estimate,
    pub true_positive_rate: f64,
    pub true_negative_rate: f64,
    /// Labelled items the rates come from.
    pub labels: u64,
    /// Scored items the raw rate comes from.
    pub items: u64,
}

impl CorrectedRate {
    /// The sentence a reader sees, with a second one when the correction moves the rate
    /// across a band line (good ≥ 0.75, critical < 0.5): then the raw figure would have
    /// said something else.
    pub fn sentence(&self, metric: &str) -> String {
        let c = self.corrected;
        let mut text = format!(
            "Corrected for the judge's errors on {} labelled items (it passes {:.0}% of those people pass and fails {:.0}% of those they fail), {metric} passes {:.2} of items (95% interval {:.2}–{:.2}) where the judge alone says {:.2}.",
            self.labels,
            self.true_positive_rate * 100.0,
            self.true_negative_rate * 100.0,
            c.value,
            c.ci_low,
            c.ci_high,
            self.raw
        );
        let (before, after) = (band(self.raw), band(c.value));
        if before != after {
            text.push_str(&format!(
                " The correction changes the verdict: {before} by the judge alone, {after} once its errors are allowed for."
            ));
        }
        text
    }
}

fn band(rate: f64) -> &'static str {
    if rate >= 0.75 {
        "good"
    } else if rate >= 0.5 {
        "needs attention"
    } else {
        "critical"
    }
}

/// The corrected pass rate from (judge score, human label 0/1) pairs and the run's
/// scores of the metric; `None` when the labels are not pass / fail, hold too few of
/// either kind, or show a judge that separates nothing.
pub fn corrected_rate(pairs: &[(f64, f64)], scores: &[f64]) -> Option<CorrectedRate> {
    if scores.is_empty() || !pairs.iter().all(|(_, h)| *h == 0.0 || *h == 1.0) {
        return None;
    }
    let passes = pairs.iter().filter(|(_, h)| *h == 1.0).count();
    if passes < MIN_PER_CLASS || pairs.len() - passes < MIN_PER_CLASS {
        return None;
    }
    let (tpr, tnr) = rates(pairs.iter());
    let raw = share_passing(scores.iter());
    let value = estimate(raw, tpr, tnr)?;
    let mut rng = SplitMix64::new(SEED);
    let mut draws = Vec::with_capacity(RESAMPLES);
    for _ in 0..RESAMPLES {
        let labelled = (0..pairs.len()).map(|_| &pairs[rng.below(pairs.len())]);
        let (t, n) = rates(labelled);
        let q = share_passing((0..scores.len()).map(|_| &scores[rng.below(scores.len())]));
        if let Some(p) = estimate(q, t, n) {
            draws.push(p);
        }
    }
    draws.sort_by(f64::total_cmp);
    let corrected = Estimate {
        value,
        ci_low: quantile(&draws, 0.025).min(value),
        ci_high: quantile(&draws, 0.975).max(value),
    };
    Some(CorrectedRate {
        raw,
        corrected,
        true_positive_rate: tpr,
        true_negative_rate: tnr,
        labels: pairs.len() as u64,
        items: scores.len() as u64,
    })
}

/// (TPR, TNR) of labelled pairs; a class absent from a resample reads as 0.
fn rates<'a>(pairs: impl Iterator<Item = &'a (f64, f64)>) -> (f64, f64) {
    let (mut tp, mut pos, mut tn, mut neg) = (0u32, 0u32, 0u32, 0u32);
    for (score, label) in pairs {
        if *label == 1.0 {
            pos += 1;
            tp += u32::from(*score >= PASS);
        } else {
            neg += 1;
            tn += u32::from(*score < PASS);
        }
    }
    let share = |a: u32, b: u32| {
        if b == 0 {
            0.0
        } else {
            f64::from(a) / f64::from(b)
        }
    };
    (share(tp, pos), share(tn, neg))
}

fn share_passing<'a>(scores: impl Iterator<Item = &'a f64>) -> f64 {
    let (mut passing, mut n) = (0u32, 0u32);
    for s in scores {
        n += 1;
        passing += u32::from(*s >= PASS);
    }
    if n == 0 {
        0.0
    } else {
        f64::from(passing) / f64::from(n)
    }
}

/// Rogan–Gladen, clamped; `None` when the judge separates too little.
fn estimate(q: f64, tpr: f64, tnr: f64) -> Option<f64> {
    let youden = tpr + tnr - 1.0;
    (youden >= MIN_YOUDEN).then(|| ((q + tnr - 1.0) / youden).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_corrected_rate_matches_a_hand_computation() {
        // Labels: 10 passes, the judge passes 8 (TPR 0.8); 10 fails, it fails 7 (TNR 0.7).
        let mut pairs = vec![(0.9, 1.0); 8];
        pairs.extend(vec![(0.2, 1.0); 2]);
        pairs.extend(vec![(0.1, 0.0); 7]);
        pairs.extend(vec![(0.8, 0.0); 3]);
        // The run: 60 of 100 items pass. (0.6 + 0.7 − 1) / (0.8 + 0.7 − 1) = 0.3 / 0.5.
        let mut scores = vec![0.9; 60];
        scores.extend(vec![0.1; 40]);
        let c = corrected_rate(&pairs, &scores).unwrap();
        assert!((c.raw - 0.6).abs() < 1e-12);
        assert!(
            (c.true_positive_rate - 0.8).abs() < 1e-12
                && (c.true_negative_rate - 0.7).abs() < 1e-12
        );
        assert!((c.corrected.value - 0.6).abs() < 1e-12, "{c:?}");
        assert!(
            c.corrected.ci_low < 0.6 && c.corrected.ci_high > 0.6,
            "{c:?}"
        );
        // 80 of 100 pass by the judge: (0.8 − 0.3) / 0.5 = 1.0, clamped; good either way.
        let mut scores = vec![0.9; 80];
        scores.extend(vec![0.1; 20]);
        let c = corrected_rate(&pairs, &scores).unwrap();
        assert_eq!(c.corrected.value, 1.0);
        // 40 of 100: (0.4 − 0.3) / 0.5 = 0.2 — the judge alone said "critical" (0.40),
        // and so does the correction.
        let mut scores = vec![0.9; 40];
        scores.extend(vec![0.1; 60]);
        let c = corrected_rate(&pairs, &scores).unwrap();
        assert!((c.corrected.value - 0.2).abs() < 1e-12);
        assert!(!c.sentence("m").contains("changes the verdict"));
    }

    #[test]
    fn a_correction_that_crosses_a_band_line_says_so() {
        // TPR 1.0, TNR 0.6: the judge passes many bad items. 78% raw (good) is
        // (0.78 + 0.6 − 1) / 0.6 = 0.633 (needs attention).
        let mut pairs = vec![(0.9, 1.0); 10];
        pairs.extend(vec![(0.1, 0.0); 6]);
        pairs.extend(vec![(0.9, 0.0); 4]);
        let mut scores = vec![0.9; 78];
        scores.extend(vec![0.1; 22]);
        let c = corrected_rate(&pairs, &scores).unwrap();
        assert!((c.corrected.value - 0.38 / 0.6).abs() < 1e-12, "{c:?}");
        let s = c.sentence("ragvue.clarity");
        assert!(
            s.contains("changes the verdict: good by the judge alone, needs attention"),
            "{s}"
        );
    }

    #[test]
    fn no_correction_without_enough_labels_of_each_kind_or_a_useful_judge() {
        let scores = vec![0.9, 0.1];
        assert!(corrected_rate(&[(0.9, 1.0), (0.1, 0.0)], &scores).is_none());
        assert!(
            corrected_rate(&[(0.7, 0.6); 10], &scores).is_none(),
            "not pass/fail labels"
        );
        // A judge that passes everything: TPR 1, TNR 0, Youden 0.
        let mut blind = vec![(0.9, 1.0); 5];
        blind.extend(vec![(0.9, 0.0); 5]);
        assert!(corrected_rate(&blind, &scores).is_none());
    }
}
