//! The pipeline stage each metric speaks for: retrieval, grounding, generation. Part of
//! the catalogue (a metric's stage is a fact about the metric), read by the stage verdicts
//! of a run (`analysis::stages`), the report and the offline judge's insights.

pub use ragnosis_types::stage::PipelineStage;

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
