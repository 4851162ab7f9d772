//! Which items a run evaluates: the first N, a seeded random sample, or all.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Selection {
    /// Keep only the first `limit` items (file order).
    pub limit: Option<usize>,
    /// Then draw `sample` items at random with `seed`; they keep file order.
    pub sample: Option<usize>,
    pub seed: u64,
}

impl Selection {
    pub fn apply(&self, item_ids: &[i64]) -> Vec<i64> {
        let limited = &item_ids[..self.limit.unwrap_or(item_ids.len()).min(item_ids.len())];
        let Some(n) = self.sample.filter(|n| *n < limited.len()) else {
            return limited.to_vec();
        };
        // Partial Fisher-Yates with a seeded SplitMix64: the same seed always draws the
        // same items, on every platform.
        let mut positions: Vec<usize> = (0..limited.len()).collect();
        let mut state = self.seed;
        for i in 0..n {
            let j = i + (splitmix64(&mut state) % (positions.len() - i) as u64) as usize;
            positions.swap(i, j);
        }
        let mut chosen = positions[..n].to_vec();
        chosen.sort_unstable();
        chosen.into_iter().map(|p| limited[p]).collect()
    }
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_keeps_the_first_items() {
        let s = Selection {
            limit: Some(3),
            ..Default::default()
        };
        assert_eq!(s.apply(&[10, 11, 12, 13, 14]), vec![10, 11, 12]);
    }

    #[test]
    fn sample_is_reproducible_ordered_and_sized() {
        let ids: Vec<i64> = (0..1000).collect();
        let s = Selection {
            sample: Some(50),
            seed: 7,
            ..Default::default()
        };
        let a = s.apply(&ids);
        assert_eq!(a.len(), 50);
        assert_eq!(a, s.apply(&ids), "same seed, same sample");
        assert!(
            a.windows(2).all(|w| w[0] < w[1]),
            "sample keeps file order without repeats"
        );
        let other = Selection {
            seed: 8,
            ..s.clone()
        }
        .apply(&ids);
        assert_ne!(a, other, "another seed draws another sample");
    }

    #[test]
    fn sample_larger_than_data_takes_everything() {
        let s = Selection {
            sample: Some(10),
            seed: 1,
            ..Default::default()
        };
        assert_eq!(s.apply(&[1, 2, 3]), vec![1, 2, 3]);
    }
}
