//! Paired bootstrap confidence interval of a mean difference, reproducible bit for bit.
//!
//! Owns: the resampling and its pseudo-random source. The generator is SplitMix64,
//! written here rather than taken from `rand`, because `rand` does not promise that a
//! seeded generator gives the same stream across versions, and a report must not change
//! its numbers when a dependency is upgraded.

use crate::analysis::stats::quantile;

/// Resamples drawn for every interval.
pub const RESAMPLES: usize = 2000;
/// The fixed seed; each metric derives its own stream from it (`seed_for`).
pub const SEED: u64 = 0x5241_474E_4F53_4953; // "RAGNOSIS"

/// SplitMix64 (Steele, Lea and Flood, 2014): tiny, fast, and good enough to resample.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform index below `n` (n > 0), by Lemire's multiply-shift; the bias for the
    /// sample sizes seen here (n ≤ 2³²) is below 2⁻³², far under resampling noise.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// A per-metric seed: the run's fixed seed mixed with an FNV-1a hash of the metric id, so
/// metrics do not share one resampling stream and adding a metric changes no other.
pub fn seed_for(metric: &str) -> u64 {
    let mut hash: u64 = 0xCBF2_9CE4_8422_2325;
    for byte in metric.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01B3);
    }
    SEED ^ hash
}

/// Percentile 95% interval of the mean of `differences` (B − A per matched item) over
/// `resamples` resamples with replacement. `None` with fewer than two differences: one
/// pair says nothing about spread.
pub fn paired_ci95(differences: &[f64], resamples: usize, seed: u64) -> Option<(f64, f64)> {
    let n = differences.len();
    if n < 2 || resamples == 0 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| (0..n).map(|_| differences[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(|a, b| a.total_cmp(b));
    Some((quantile(&means, 0.025), quantile(&means, 0.975)))
}
