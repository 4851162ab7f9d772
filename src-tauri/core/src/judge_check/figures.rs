//! The agreement figures of a judge check: balanced accuracy, Spearman's rho and AUROC,
//! each with a percentile bootstrap 95% interval.
//!
//! The bootstrap resamples the check's items with a fixed seed, so the same verdicts
//! always give the same interval; 1,000 resamples keep the interval's ends stable to
//! about ±0.01 at the sample sizes used here (60 per task).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::analysis::stats::quantile;
use crate::judge::offline::fit::calibration::Confusion;

const RESAMPLES: usize = 1000;
const SEED: u64 = 0x5eed_c4ec;

/// A figure and its 95% interval. `None` when the sample cannot define it (one class
/// only, or fewer than three pairs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Estimate {
    pub value: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// Mean of the true positive and true negative rates of `(predicted, actual)` pairs (the
/// offline judge's calibration `Confusion`); undefined with one class only.
pub fn balanced_accuracy(pairs: &[(bool, bool)]) -> Option<f64> {
    let mut confusion = Confusion::default();
    for &(predicted, actual) in pairs {
        confusion.add(predicted, actual);
    }
    let negatives = confusion.n() - confusion.positives();
    (confusion.positives() > 0 && negatives > 0).then(|| confusion.balanced_accuracy())
}

/// Probability that a random positive scores above a random negative (ties count half),
/// by ranks (ties share their mean rank): O(n log n), so bootstrapping thousands of rows
/// stays quick.
pub fn auroc(pairs: &[(f64, bool)]) -> Option<f64> {
    let pos = pairs.iter().filter(|p| p.1).count();
    let neg = pairs.len() - pos;
    if pos == 0 || neg == 0 {
        return None;
    }
    let scores: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let rank_sum: f64 = ranks(&scores)
        .iter()
        .zip(pairs)
        .filter(|(_, p)| p.1)
        .map(|(r, _)| r)
        .sum();
    let (p, n) = (pos as f64, neg as f64);
    Some((rank_sum - p * (p + 1.0) / 2.0) / (p * n))
}

fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let mut out = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for k in i..=j {
            out[order[k]] = rank;
        }
        i = j + 1;
    }
    out
}

/// Spearman's rho of `(judge, human)` pairs: Pearson's r of their ranks.
pub fn spearman(pairs: &[(f64, f64)]) -> Option<f64> {
    if pairs.len() < 3 {
        return None;
    }
    let a = ranks(&pairs.iter().map(|p| p.0).collect::<Vec<_>>());
    let b = ranks(&pairs.iter().map(|p| p.1).collect::<Vec<_>>());
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut cov, mut va, mut vb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(&b) {
        cov += (x - ma) * (y - mb);
        va += (x - ma).powi(2);
        vb += (y - mb).powi(2);
    }
    // A constant judge carries no ranking information: rho is 0, not undefined.
    if va == 0.0 || vb == 0.0 {
        return Some(0.0);
    }
    Some(cov / (va * vb).sqrt())
}

/// `figure` on `pairs` with a percentile bootstrap interval over resampled pairs.
pub fn estimate<T: Copy>(pairs: &[T], figure: impl Fn(&[T]) -> Option<f64>) -> Option<Estimate> {
    let value = figure(pairs)?;
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut draws = Vec::with_capacity(RESAMPLES);
    let mut resample = Vec::with_capacity(pairs.len());
    for _ in 0..RESAMPLES {
        resample.clear();
        resample.extend((0..pairs.len()).map(|_| pairs[rng.gen_range(0..pairs.len())]));
        if let Some(v) = figure(&resample) {
            draws.push(v);
        }
    }
    Some(interval(value, draws))
}

/// [`estimate`] of [`auroc`], equal to it up to float rounding: the same draws, but each
/// resample is read as a count per pair over one sort of the scores, where a resample
/// of its own would be sorted again. Thousands of rows resampled a thousand times
/// (the offline judge's held-out figures) spent most of their time sorting.
pub fn auroc_estimate(pairs: &[(f64, bool)]) -> Option<Estimate> {
    let value = auroc(pairs)?;
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&a, &b| pairs[a].0.total_cmp(&pairs[b].0));
    // Tied scores, lowest first: each group is a run of `order`.
    let groups: Vec<&[usize]> = order.chunk_by(|&a, &b| pairs[a].0 == pairs[b].0).collect();
    let mut rng = StdRng::seed_from_u64(SEED);
    let mut draws = Vec::with_capacity(RESAMPLES);
    let mut counts = vec![0u32; pairs.len()];
    for _ in 0..RESAMPLES {
        counts.iter_mut().for_each(|c| *c = 0);
        for _ in 0..pairs.len() {
            counts[rng.gen_range(0..pairs.len())] += 1;
        }
        // Each positive beats the negatives below its score and ties with half of those
        // on it.
        let (mut negatives_below, mut positives, mut wins) = (0.0, 0.0, 0.0);
        for group in &groups {
            let (mut pos, mut neg) = (0.0, 0.0);
            for &i in *group {
                let c = f64::from(counts[i]);
                if pairs[i].1 {
                    pos += c;
                } else {
                    neg += c;
                }
            }
            wins += pos * (negatives_below + neg / 2.0);
            negatives_below += neg;
            positives += pos;
        }
        if positives > 0.0 && negatives_below > 0.0 {
            draws.push(wins / (positives * negatives_below));
        }
    }
    Some(interval(value, draws))
}

/// The figure with the 2.5th and 97.5th percentiles of its bootstrap draws.
fn interval(value: f64, mut draws: Vec<f64>) -> Estimate {
    if draws.is_empty() {
        return Estimate {
            value,
            ci_low: value,
            ci_high: value,
        };
    }
    draws.sort_by(f64::total_cmp);
    Estimate {
        value,
        ci_low: quantile(&draws, 0.025),
        ci_high: quantile(&draws, 0.975),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn balanced_accuracy_is_chance_for_a_majority_guesser() {
        let mut pairs = vec![(false, false); 90];
        pairs.extend(vec![(false, true); 10]);
        assert_eq!(balanced_accuracy(&pairs), Some(0.5));
        assert_eq!(
            balanced_accuracy(&[(true, true)]),
            None,
            "one class only defines no balanced accuracy"
        );
    }

    #[test]
    fn spearman_reads_ranks_not_values() {
        let monotone = [(1.0, 10.0), (2.0, 20.0), (3.0, 1000.0), (4.0, 1001.0)];
        assert!((spearman(&monotone).unwrap() - 1.0).abs() < 1e-12);
        let reversed = [(4.0, 1.0), (3.0, 2.0), (2.0, 3.0), (1.0, 4.0)];
        assert!((spearman(&reversed).unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(spearman(&[(1.0, 1.0), (1.0, 2.0), (1.0, 3.0)]), Some(0.0));
    }

    #[test]
    fn auroc_counts_ties_as_half() {
        assert_eq!(auroc(&[(0.9, true), (0.1, false)]), Some(1.0));
        assert_eq!(auroc(&[(0.5, true), (0.5, false)]), Some(0.5));
        assert_eq!(auroc(&[(0.5, true)]), None);
        let pairs = [(0.9, true), (0.5, true), (0.5, false), (0.1, false)];
        assert_eq!(auroc(&pairs), Some(0.875));
        assert_eq!(auroc(&[(0.3, true)]), None);
    }

    #[test]
    fn auroc_interval_read_from_counts_is_the_resampled_one() {
        // Ties, both classes, uneven sizes.
        let pairs: Vec<(f64, bool)> = (0..157)
            .map(|i| (f64::from((i * 37) % 23) / 23.0, (i * 11) % 7 < 3))
            .collect();
        let fast = auroc_estimate(&pairs).unwrap();
        let slow = estimate(&pairs, auroc).unwrap();
        for (a, b) in [
            (fast.value, slow.value),
            (fast.ci_low, slow.ci_low),
            (fast.ci_high, slow.ci_high),
        ] {
            assert!((a - b).abs() < 1e-12, "{fast:?} against {slow:?}");
        }
        assert!(fast.ci_low < fast.ci_high, "{fast:?}");
        assert_eq!(auroc_estimate(&[(0.4, true), (0.6, true)]), None);
    }

    #[test]
    fn bootstrap_interval_brackets_the_figure_and_is_reproducible() {
        let pairs: Vec<(bool, bool)> = (0..60).map(|i| (i % 3 != 0, i % 2 == 0)).collect();
        let a = estimate(&pairs, balanced_accuracy).unwrap();
        let b = estimate(&pairs, balanced_accuracy).unwrap();
        assert_eq!(a, b, "same verdicts, same interval");
        assert!(a.ci_low <= a.value && a.value <= a.ci_high, "{a:?}");
        assert!(
            a.ci_high - a.ci_low > 0.05,
            "60 items cannot pin a figure to within 0.05: {a:?}"
        );
    }
}
