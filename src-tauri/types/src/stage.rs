//! The three stages of a RAG pipeline a report speaks of. Which metric speaks for which
//! stage is the core's catalogue (`catalogue::stage::stage_of`).

use serde::{Deserialize, Serialize};

/// The three stages a stakeholder hears about. Coarser than the diagnosis's `Stage`,
/// which also names the hand-offs between stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PipelineStage {
    Retrieval,
    Grounding,
    Generation,
}

impl PipelineStage {
    pub const ALL: [PipelineStage; 3] = [
        PipelineStage::Retrieval,
        PipelineStage::Grounding,
        PipelineStage::Generation,
    ];

    pub fn label(self) -> &'static str {
        match self {
            PipelineStage::Retrieval => "retrieval",
            PipelineStage::Grounding => "grounding",
            PipelineStage::Generation => "generation",
        }
    }

    /// What the stage is, in one line for the executive summary.
    pub fn question(self) -> &'static str {
        match self {
            PipelineStage::Retrieval => "Does the search find the passages that hold the answer?",
            PipelineStage::Grounding => "Does the answer stick to those passages and cite them?",
            PipelineStage::Generation => "Is the answer relevant, complete and well written?",
        }
    }
}
