//! A criterion as the judge receives it for one item: its question, scale, anchors and
//! examples, and only the fields of the item it reads. The judge knows the task, not the
//! definition (`ragnosis_judge::task::CriterionTask`).

use super::{Definition, ReadField};
use crate::item::Item;
use ragnosis_judge::task::CriterionTask;

impl Definition {
    /// The judge's task of this criterion on `item`, with only the fields it reads.
    pub fn task(&self, item: &Item) -> CriterionTask {
        use ReadField as R;
        let reads = |f: R| self.reads(f);
        CriterionTask {
            name: self.name.clone(),
            text: self.question.trim().to_string(),
            scale: self.scale,
            anchors: self.anchors.clone(),
            examples: self.examples.clone(),
            reads: sorted_reads(&self.reads),
            question: if reads(R::Question) {
                item.question.clone()
            } else {
                String::new()
            },
            answer: if reads(R::Answer) {
                item.answer.clone().unwrap_or_default()
            } else {
                String::new()
            },
            chunks: if reads(R::Contexts) {
                item.contexts.iter().map(|c| c.text.clone()).collect()
            } else {
                Vec::new()
            },
            ground_truth: if reads(R::GroundTruth) {
                item.ground_truth.clone().unwrap_or_default()
            } else {
                String::new()
            },
        }
    }
}

/// The fields in their fixed order, so the prompt does not depend on how a file lists
/// them.
fn sorted_reads(reads: &[ReadField]) -> Vec<ReadField> {
    let mut out = reads.to_vec();
    out.sort();
    out.dedup();
    out
}
