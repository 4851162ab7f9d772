//! The RAGXplain diamond and RAGalyst's judged metrics, read from the verdicts that carry
//! them: the scorecard (rubric ratings, answer correctness and its failure taxonomy),
//! the aspects call (the grading note) and the reasoning call (answerability is its
//! "the contexts alone suffice" judgement — the same question RAGVUE's negative
//! rejection asks, so it is asked once).
//!
//! Pure functions, like `ragvue`: the run engine obtains the verdicts.

use serde_json::json;

use super::MetricResult;
use crate::item::Item;
use crate::judge::task::{Criterion, Reasoning, Scorecard};

/// The result of one scorecard criterion. `note` is the grading note the rating used.
pub fn from_scorecard(
    criterion: Criterion,
    card: &Scorecard,
    note: &[String],
    item: &Item,
    k: usize,
) -> MetricResult {
    let id = criterion.metric_id();
    let Some(rated) = card.score(criterion) else {
        return MetricResult::error(id, "the judge's scorecard has no rating for this metric");
    };
    let mut details = json!({ "rationale": rated.rationale });
    match criterion {
        Criterion::GradingNote => details["structure_note"] = json!(note),
        Criterion::AnswerCorrectness => {
            let applies: Vec<_> = card.failures.iter().filter(|f| f.applies).collect();
            details["failures"] = json!(card.failures);
            details["failure_categories"] = json!(applies
                .iter()
                .map(|f| f.category.as_str())
                .collect::<Vec<_>>());
            if let Some(missed) = missed_top_ranked(item, k).filter(|_| !card.failures.is_empty()) {
                details["missed_top_ranked"] = json!(missed);
            }
            // Whether the reference itself says the documents do not answer: then an
            // answer it contradicts was given where declining was right (the diagnosis
            // reads it as over-confidence, not as a changed fact).
            if let Some(truth) = item.ground_truth.as_deref() {
                details["reference_declines"] =
                    json!(crate::judge::offline::says_documents_lack(truth));
            }
        }
        _ => details["rubric"] = json!([0.2, 0.4, 0.6, 0.8, 1.0]),
    }
    let explanation = if rated.rationale.trim().is_empty() {
        format!("Rated {:.2}.", rated.score)
    } else {
        rated.rationale.clone()
    };
    MetricResult::ok(id, rated.score, explanation, details)
}

/// RAGalyst's judge-free taxonomy entry: the gold context is not among the top `k`
/// retrieved. `None` when the item has no ranking to check.
pub fn missed_top_ranked(item: &Item, k: usize) -> Option<bool> {
    let ranked = item.ranked_ids();
    if ranked.is_empty() || item.gold_context_ids.is_empty() {
        return None;
    }
    let top = &ranked[..ranked.len().min(k.max(1))];
    Some(super::reference::first_gold_rank(top, &item.gold_context_ids).is_none())
}

/// 1 when the contexts alone are enough to answer the question.
pub fn answerability(id: &str, reasoning: &Reasoning) -> MetricResult {
    let explanation = if reasoning.contexts_sufficient {
        "The retrieved context alone holds everything needed to answer the question."
    } else {
        "The retrieved context alone is not enough to answer the question."
    };
    let reason = if reasoning.reason.trim().is_empty() {
        explanation.to_string()
    } else {
        format!("{explanation} {}", reasoning.reason.trim())
    };
    MetricResult::ok(
        id,
        if reasoning.contexts_sufficient {
            1.0
        } else {
            0.0
        },
        reason,
        json!({ "contexts_sufficient": reasoning.contexts_sufficient, "reason": reasoning.reason }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::task::{CriterionScore, FailureCheck, FAILURE_CATEGORIES};

    fn card(correctness: f64, applying: &[&str]) -> Scorecard {
        Scorecard {
            scores: vec![CriterionScore {
                criterion: Criterion::AnswerCorrectness,
                score: correctness,
                rationale: "close but misses the year".into(),
            }],
            failures: FAILURE_CATEGORIES
                .iter()
                .map(|c| FailureCheck {
                    category: c.to_string(),
                    applies: applying.contains(c),
                    explanation: "e".into(),
                })
                .collect(),
        }
    }

    #[test]
    fn correctness_carries_the_categories_that_apply_and_the_ranking_miss() {
        let mut item = Item {
            retrieved_ids: vec!["d3".into(), "d9".into()],
            gold_context_ids: vec!["d1".into()],
            ..Default::default()
        };
        let got = from_scorecard(
            Criterion::AnswerCorrectness,
            &card(0.5, &["under_specificity"]),
            &[],
            &item,
            10,
        );
        assert_eq!(got.score, Some(0.5));
        assert_eq!(got.explanation, "close but misses the year");
        assert_eq!(
            got.details["failure_categories"],
            json!(["under_specificity"])
        );
        assert_eq!(got.details["missed_top_ranked"], json!(true));
        item.retrieved_ids.push("d1".into());
        let found = from_scorecard(
            Criterion::AnswerCorrectness,
            &card(0.5, &[]),
            &[],
            &item,
            10,
        );
        assert_eq!(found.details["missed_top_ranked"], json!(false));
        let outside_k =
            from_scorecard(Criterion::AnswerCorrectness, &card(0.5, &[]), &[], &item, 2);
        assert_eq!(outside_k.details["missed_top_ranked"], json!(true));
    }

    #[test]
    fn a_criterion_the_scorecard_lacks_is_an_error_not_a_zero() {
        let got = from_scorecard(
            Criterion::Factuality,
            &card(0.5, &[]),
            &[],
            &Item::default(),
            10,
        );
        assert_eq!(got.status, crate::metrics::Status::Error);
        assert_eq!(got.score, None);
    }
}
