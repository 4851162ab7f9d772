//! The pipeline stage each metric speaks for: retrieval, grounding, generation. Part of
//! the catalogue (a metric's stage is a fact about the metric), read by the stage verdicts
//! of a run (`analysis::stages`), the report and the offline judge's insights.

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

/// Which stage a metric speaks for; `None` for metrics left out of stage scores.
pub fn stage_of(metric: &str) -> Option<PipelineStage> {
    use PipelineStage::*;
    Some(match metric {
        "ragvue.retrieval_relevance"
        | "ragvue.retrieval_coverage"
        | "ragchecker.claim_recall"
        | "ragchecker.context_precision"
        | "reference.recall_at_k"
        | "reference.mrr_at_k"
        | "ragxplain.context_relevancy"
        | "ragxplain.context_recall"
        | "ragalyst.answerability" => Retrieval,
        "ragvue.strict_faithfulness"
        | "ragvue.context_utilization"
        | "ragvue.negative_rejection"
        | "ragvue.multi_hop_faithfulness"
        | "ragvue.implicit_contradiction"
        | "ragvue.token_overlap"
        | "ragvue.context_similarity"
        | "ragchecker.faithfulness"
        | "ragchecker.context_utilization"
        | "ragchecker.hallucination"
        | "ragchecker.noise_sensitivity_relevant"
        | "ragchecker.noise_sensitivity_irrelevant"
        | "citation.strict_accuracy"
        | "citation.lenient_accuracy"
        | "citation.no_citation_rate"
        | "citation.multi_citation_rate"
        | "ragxplain.context_adherence" => Grounding,
        "ragvue.answer_relevance"
        | "ragvue.answer_completeness"
        | "ragvue.clarity"
        | "ragvue.coherence"
        | "ragvue.answer_conciseness"
        | "ragvue.answer_length"
        | "ragchecker.precision"
        | "ragchecker.recall"
        | "ragchecker.f1"
        | "reference.semantic_similarity"
        | "ragxplain.answer_relevancy"
        | "ragxplain.factuality"
        | "ragxplain.grading_note"
        | "ragalyst.answer_correctness" => Generation,
        _ => return None,
    })
}
