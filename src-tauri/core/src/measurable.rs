//! What a stored dataset can be measured with: for every metric of the catalogue, how
//! many items carry all the fields it needs. The Data screen lists it ("what can be
//! measured") and the manual metric picker greys out metrics no item supports.
//!
//! Owns: counting field combinations over a dataset's items. Reads items through
//! `store`; uses `Item::has` and `MetricSpec::needs`, so it agrees with what a run
//! would skip. One pass over the items; memory is one counter per field combination.

use serde::Serialize;

use crate::error::Result;
use crate::item::{Field, Item};
use crate::metrics::{self, MetricSpec};
use crate::store::{self, Store};

/// One metric's reach over a dataset.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Reach {
    /// The metric's id.
    pub metric: &'static str,
    /// Items carrying every field the metric needs.
    pub items: u64,
    /// Needed fields that no item of the dataset has: why `items` is 0, when it is.
    pub absent: Vec<Field>,
}

/// What a dataset can measure, per metric of the catalogue (the Data screen's "what can
/// be measured" and the metric picker).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Measurable {
    /// Items in the dataset.
    pub items: u64,
    /// Every metric of the catalogue, in catalogue order.
    pub metrics: Vec<Reach>,
}

/// Counts of items per combination of present fields (bit i = `Field::ALL[i]`).
#[derive(Debug, Clone)]
pub struct FieldCombinations {
    counts: Vec<u64>,
    items: u64,
}

impl Default for FieldCombinations {
    fn default() -> Self {
        FieldCombinations {
            counts: vec![0; 1 << Field::ALL.len()],
            items: 0,
        }
    }
}

fn mask(fields: impl IntoIterator<Item = Field>) -> usize {
    fields
        .into_iter()
        .map(|f| 1usize << Field::ALL.iter().position(|g| *g == f).unwrap_or(0))
        .fold(0, |a, b| a | b)
}

impl FieldCombinations {
    pub fn add(&mut self, item: &Item) {
        self.counts[mask(Field::ALL.into_iter().filter(|f| item.has(*f)))] += 1;
        self.items += 1;
    }

    /// Items that have every field in `needs`.
    pub fn with_all(&self, needs: &[Field]) -> u64 {
        let need = mask(needs.iter().copied());
        self.counts
            .iter()
            .enumerate()
            .filter(|(m, _)| m & need == need)
            .map(|(_, c)| *c)
            .sum()
    }

    pub fn reach(&self, spec: &'static MetricSpec) -> Reach {
        Reach {
            metric: spec.id,
            items: self.with_all(spec.needs),
            absent: spec
                .needs
                .iter()
                .copied()
                .filter(|f| self.with_all(&[*f]) == 0)
                .collect(),
        }
    }
}

/// Every catalogue metric's reach over the dataset's items.
pub fn for_dataset(store: &Store, dataset_id: i64) -> Result<Measurable> {
    store::datasets::get(store.conn(), dataset_id)?;
    let mut combinations = FieldCombinations::default();
    store::items::for_each(store.conn(), dataset_id, |stored| {
        combinations.add(&stored.item)
    })?;
    Ok(Measurable {
        items: combinations.items,
        metrics: metrics::catalogue()
            .iter()
            .map(|spec| combinations.reach(spec))
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Context;

    fn item(answer: bool, contexts: bool, ground_truth: bool) -> Item {
        Item {
            question: "Q?".into(),
            answer: answer.then(|| "A".to_string()),
            contexts: if contexts {
                vec![Context {
                    id: None,
                    text: "C".into(),
                }]
            } else {
                vec![]
            },
            ground_truth: ground_truth.then(|| "GT".to_string()),
            ..Default::default()
        }
    }

    #[test]
    fn a_metric_reaches_only_items_with_all_its_fields_together() {
        let mut c = FieldCombinations::default();
        // Answers and contexts each appear twice, but together only once.
        for it in [
            item(true, true, false),
            item(true, false, false),
            item(false, true, false),
        ] {
            c.add(&it);
        }
        let faithfulness = c.reach(metrics::find("ragvue.strict_faithfulness").unwrap());
        assert_eq!(faithfulness.items, 1, "needs answer AND contexts");
        let token_f1 = c.reach(metrics::find("reference.token_f1").unwrap());
        assert_eq!(token_f1.items, 0);
        assert_eq!(
            token_f1.absent,
            vec![Field::GroundTruth],
            "no item has a ground truth: that is the reason"
        );
    }
}
