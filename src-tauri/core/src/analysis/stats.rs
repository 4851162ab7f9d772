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
    pub share_below_half: Option<f64>,
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
            share_below_half: None,
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
            share_below_half: Some(sorted.iter().filter(|s| **s < 0.5).count() as f64 / n as f64),
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

/// Linear interpolation between closest ranks (the common "type 7" definition).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
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
            s.share_below_half,
            Some(0.4),
            "0.0 and 0.25 are below 0.5; 0.5 is not"
        );
        // mean ± 2.776 * 0.3953 / sqrt(5) = 0.5 ± 0.4908
        assert!((s.ci95_low.unwrap() - 0.009_2).abs() < 1e-3);
        assert!((s.ci95_high.unwrap() - 0.990_8).abs() < 1e-3);
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
    fn single_score_has_no_interval() {
        let s = MetricStats::from_scores("m", &[0.8], 0, 0, false);
        assert_eq!(s.mean, Some(0.8));
        assert_eq!((s.ci95_low, s.ci95_high), (None, None));
    }
}
