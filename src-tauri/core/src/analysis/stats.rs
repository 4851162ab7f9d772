//! Descriptive statistics of one metric over a run's items.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// A run's figures for one metric. Only `ok` results enter the numbers; skipped and
/// errored items are counted beside them, never averaged in as zeros.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricStats {
    pub metric: String,
    pub n: u64,
    pub skipped: u64,
    pub errors: u64,
    pub mean: Option<f64>,
    pub std: Option<f64>,
    pub median: Option<f64>,
    pub p25: Option<f64>,
    pub p75: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    /// Share of scores that fail the 0.5 line in the metric's direction: below 0.5, or
    /// above it for a lower-is-better metric (the same pass line as run comparison).
    #[serde(alias = "share_below_half")]
    pub share_failing: Option<f64>,
    /// 95% confidence interval of the mean (Student's t); needs n ≥ 2.
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    pub lower_is_better: bool,
}

impl MetricStats {
    pub fn from_scores(
        metric: &str,
        scores: &[f64],
        skipped: u64,
        errors: u64,
        lower_is_better: bool,
    ) -> MetricStats {
        let mut sorted: Vec<f64> = scores.iter().copied().filter(|s| s.is_finite()).collect();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let n = sorted.len();
        let empty = MetricStats {
            metric: metric.to_string(),
            n: n as u64,
            skipped,
            errors,
            mean: None,
            std: None,
            median: None,
            p25: None,
            p75: None,
            min: None,
            max: None,
            share_failing: None,
            ci95_low: None,
            ci95_high: None,
            lower_is_better,
        };
        if n == 0 {
            return empty;
        }
        let mean = sorted.iter().sum::<f64>() / n as f64;
        let std = if n > 1 {
            (sorted.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let (ci95_low, ci95_high) = match t_critical_95(n) {
            Some(t) => {
                let half = t * std / (n as f64).sqrt();
                (Some((mean - half).max(0.0)), Some((mean + half).min(1.0)))
            }
            None => (None, None),
        };
        MetricStats {
            mean: Some(mean),
            std: Some(std),
            median: Some(quantile(&sorted, 0.5)),
            p25: Some(quantile(&sorted, 0.25)),
            p75: Some(quantile(&sorted, 0.75)),
            min: Some(sorted[0]),
            max: Some(sorted[n - 1]),
            share_failing: Some(
                sorted
                    .iter()
                    .filter(|s| !passes(**s, lower_is_better))
                    .count() as f64
                    / n as f64,
            ),
            ci95_low,
            ci95_high,
            ..empty
        }
    }
}

/// Two-sided 95% critical value of Student's t with n − 1 degrees of freedom.
pub fn t_critical_95(n: usize) -> Option<f64> {
    if n < 2 {
        return None;
    }
    StudentsT::new(0.0, 1.0, (n - 1) as f64)
        .ok()
        .map(|t| t.inverse_cdf(0.975))
}

/// Wilson score 95% interval of a proportion `successes / n` (`None` when n is 0). Unlike
/// the normal approximation it stays inside [0, 1] and is honest on small n: one item in
/// eight is 12.5%, but the interval runs from about 2% to 47%.
pub fn wilson_95(successes: u64, n: u64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    const Z: f64 = 1.959_963_984_540_054;
    let (k, n) = (successes.min(n) as f64, n as f64);
    let p = k / n;
    let z2 = Z * Z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denominator;
    Some(((centre - half).max(0.0), (centre + half).min(1.0)))
}

/// Linear interpolation between closest ranks (the common "type 7" definition).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// The pass line of a score (flips, failing items).
pub const PASS_LINE: f64 = 0.5;

/// Whether a score passes: ≥ 0.5 (`PASS_LINE`), or ≤ 0.5 for a lower-is-better metric.
pub fn passes(score: f64, lower_is_better: bool) -> bool {
    if lower_is_better {
        score <= PASS_LINE
    } else {
        score >= PASS_LINE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_critical_matches_published_table_values() {
        // Standard t-table, two-sided 95%: df=1 → 12.706, df=9 → 2.262, df=29 → 2.045.
        assert!((t_critical_95(2).unwrap() - 12.706).abs() < 1e-3);
        assert!((t_critical_95(10).unwrap() - 2.262).abs() < 1e-3);
        assert!((t_critical_95(30).unwrap() - 2.045).abs() < 1e-3);
        assert_eq!(t_critical_95(1), None);
    }

    #[test]
    fn stats_of_known_sample() {
        let s = MetricStats::from_scores("m", &[0.0, 0.25, 0.5, 0.75, 1.0], 2, 1, false);
        assert_eq!(s.n, 5);
        assert_eq!((s.skipped, s.errors), (2, 1));
        assert_eq!(s.mean, Some(0.5));
        assert_eq!(s.median, Some(0.5));
        assert_eq!((s.p25, s.p75), (Some(0.25), Some(0.75)));
        assert!(
            (s.std.unwrap() - 0.395_284_7).abs() < 1e-6,
            "sample std with n-1"
        );
        assert_eq!(
            s.share_failing,
            Some(0.4),
            "0.0 and 0.25 are below 0.5; 0.5 is not"
        );
        // mean ± 2.776 * 0.3953 / sqrt(5) = 0.5 ± 0.4908
        assert!((s.ci95_low.unwrap() - 0.009_2).abs() < 1e-3);
        assert!((s.ci95_high.unwrap() - 0.990_8).abs() < 1e-3);
    }

    #[test]
    fn the_failing_share_reads_lower_is_better_metrics_the_right_way_round() {
        let scores = [0.0, 0.1, 0.2, 0.9];
        let higher = MetricStats::from_scores("m", &scores, 0, 0, false);
        let lower = MetricStats::from_scores("hallucination", &scores, 0, 0, true);
        assert_eq!(higher.share_failing, Some(0.75), "three below 0.5 fail");
        assert_eq!(
            lower.share_failing,
            Some(0.25),
            "only 0.9 fails when lower is better"
        );
    }

    #[test]
    fn no_scores_means_no_numbers_not_zeros() {
        let s = MetricStats::from_scores("m", &[], 3, 4, false);
        assert_eq!(s.n, 0);
        assert_eq!(
            s.mean, None,
            "an all-error metric has no mean, not a mean of 0"
        );
        assert_eq!(s.errors, 4);
    }

    #[test]
    fn wilson_interval_matches_statsmodels() {
        // statsmodels 0.14 proportion_confint(k, n, method="wilson").
        let cases = [
            (1, 8, 0.022_417_491, 0.470_888_182),
            (4, 8, 0.215_216_062, 0.784_783_938),
            (0, 5, 0.0, 0.434_482_465),
            (30, 100, 0.218_948_853, 0.395_848_546),
        ];
        for (k, n, low, high) in cases {
            let (l, h) = wilson_95(k, n).unwrap();
            assert!(
                (l - low).abs() < 1e-6 && (h - high).abs() < 1e-6,
                "{k}/{n}: {l} {h}"
            );
        }
        assert_eq!(wilson_95(0, 0), None, "no items, no interval");
    }

    #[test]
    fn single_score_has_no_interval() {
        let s = MetricStats::from_scores("m", &[0.8], 0, 0, false);
        assert_eq!(s.mean, Some(0.8));
        assert_eq!((s.ci95_low, s.ci95_high), (None, None));
    }
}
