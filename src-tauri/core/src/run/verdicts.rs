//! An item's judge verdicts turned into metric results: each judged metric from the
//! verdicts it needs, or an error naming the failed task when one is missing.

use serde_json::json;

use super::phases::{EngineSettings, FirstPhase, SecondPhase};
use crate::item::Item;
use crate::judge::task::{
    AnswerReview, AspectCoverage, ChunkScore, Criterion, Grounding, Reasoning,
};
use crate::judge::JudgeError;
use crate::metrics::{ragvue, scorecard, MetricResult};

pub(super) fn scorecard_metric(
    id: &str,
    item: &Item,
    settings: &EngineSettings,
    first: &FirstPhase,
    second: &SecondPhase,
) -> MetricResult {
    if id == "ragalyst.answerability" {
        return from(first.reasoning.as_ref(), id, |r| {
            scorecard::answerability(id, r)
        });
    }
    let Some(criterion) = Criterion::of_metric(id) else {
        return MetricResult::error(id, format!("{id} has no judged computation"));
    };
    let note: &[String] = match first.note.as_ref() {
        Some(Err(e)) if criterion == Criterion::GradingNote => return judge_error(id, e),
        Some(Ok(note)) => note,
        _ => &[],
    };
    if criterion == Criterion::GradingNote && note.is_empty() {
        return MetricResult::error(
            id,
            "the judge wrote no grading note for this question, so the answer's structure could not be rated",
        );
    }
    from(second.scorecard.as_ref(), id, |card| {
        scorecard::from_scorecard(criterion, card, note, item, settings.metric_config.k)
    })
}

pub(super) struct Verdicts<'a> {
    pub(super) chunk_scores: Option<&'a Result<Vec<ChunkScore>, JudgeError>>,
    pub(super) coverage: Option<&'a Result<Vec<AspectCoverage>, JudgeError>>,
    pub(super) review: Option<&'a Result<AnswerReview, JudgeError>>,
    pub(super) aspects_failed: Option<&'a JudgeError>,
    pub(super) grounding: Option<&'a Result<Grounding, JudgeError>>,
    pub(super) reasoning: Option<&'a Result<Reasoning, JudgeError>>,
}

pub(super) fn ragvue_metric(
    id: &str,
    item: &Item,
    settings: &EngineSettings,
    v: &Verdicts,
) -> MetricResult {
    let contexts: Vec<String> = item.contexts.iter().map(|c| c.text.clone()).collect();
    match id {
        "ragvue.retrieval_relevance" => from(v.chunk_scores, id, |c| {
            ragvue::retrieval_relevance(id, c, settings.tau.unwrap_or(ragvue::DEFAULT_TAU))
        }),
        "ragvue.retrieval_coverage" => from(v.coverage, id, |c| ragvue::retrieval_coverage(id, c)),
        "ragvue.answer_relevance" => from(v.review, id, |r| ragvue::answer_relevance(id, r)),
        "ragvue.answer_completeness" => match v.aspects_failed {
            Some(e) => judge_error(id, e),
            None => from(v.review, id, |r| ragvue::answer_completeness(id, r)),
        },
        "ragvue.clarity" => from(v.review, id, |r| ragvue::clarity(id, r)),
        "ragvue.coherence" => from(v.review, id, |r| ragvue::coherence(id, r)),
        "ragvue.answer_conciseness" => from(v.review, id, |r| ragvue::answer_conciseness(id, r)),
        "ragvue.strict_faithfulness" => from(v.grounding, id, |g| {
            ragvue::strict_faithfulness(id, g, &contexts)
        }),
        "ragvue.context_utilization" => from(v.grounding, id, |g| {
            ragvue::context_utilization(id, g, contexts.len())
        }),
        "ragvue.implicit_contradiction" => {
            from(v.grounding, id, |g| ragvue::implicit_contradiction(id, g))
        }
        "ragvue.negative_rejection" => from(v.reasoning, id, |r| ragvue::negative_rejection(id, r)),
        "ragvue.multi_hop_faithfulness" => {
            if !ragvue::needs_several_facts(&item.question, item.ground_truth.as_deref()) {
                return MetricResult::skipped(
                    id,
                    "the question asks for a single fact, so there is no chain of facts to check",
                );
            }
            from(v.reasoning, id, |r| ragvue::multi_hop_faithfulness(id, r))
        }
        _ => MetricResult::error(id, format!("{id} has no judged computation")),
    }
}

pub(super) fn from<T>(
    verdict: Option<&Result<T, JudgeError>>,
    id: &str,
    f: impl FnOnce(&T) -> MetricResult,
) -> MetricResult {
    match verdict {
        Some(Ok(v)) => f(v),
        Some(Err(e)) => judge_error(id, e),
        None => MetricResult::error(
            id,
            "internal: the judge task this metric needs was not planned",
        ),
    }
}

/// A metric the judge could not score: the message, and in the details the stable error
/// code (what the run, the exports and the window branch on) and the judge's raw reply
/// when it could not be read.
pub(super) fn judge_error(id: &str, e: &JudgeError) -> MetricResult {
    let mut result = MetricResult::error(id, format!("The judge could not score this item: {e}"));
    result.details = match e.raw_output() {
        Some(raw) => json!({ "error_code": e.code().as_str(), "raw_output": raw }),
        None => json!({ "error_code": e.code().as_str() }),
    };
    result
}
