//! The offline judge's scorecard (RAGXplain's rubric criteria, RAGalyst's answer
//! correctness and failure taxonomy) and its grading note. Every rating is an honest
//! approximation built from the same evidence the other verdicts use, and each
//! rationale says what was counted:
//!
//! - context_relevancy: the chunk relevance scores (best chunk and average);
//! - context_adherence: the grounding verdict's share of supported claims;
//! - answer_relevancy: the answer review's intent alignment;
//! - context_recall / factuality: the ground truth's claims checked against the chunks /
//!   the answer with the claim-label check;
//! - grading_note: the answer's form against the form the question's wording implies;
//! - answer_correctness: agreement with the ground truth, figure by figure, yes or no and
//!   claim by claim (`reference`); the sentence similarity alone is
//!   `reference.semantic_similarity`.
//!
//! Owns: these mappings and the taxonomy rules. Must not: call a model.

use crate::offline::{
    answer::review, claim_labels, claims::reference, claims::split, coverage::relevance,
    faithfulness::grounding, SupportParams,
};
use crate::semantic::SemanticModel;
use crate::task::{
    Criterion, CriterionScore, FailureCheck, Scorecard, ScorecardTask, Support, FAILURE_CATEGORIES,
};
use crate::validate::on_rubric;
use ragnosis_types::item::Label;
use ragnosis_types::text;

/// The form a good answer takes, read off the question's wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    YesNo,
    List,
    Explanation,
    ShortFact,
}

fn form_of(question: &str) -> Form {
    let lower = question.trim().to_lowercase();
    let first = lower.split_whitespace().next().unwrap_or("");
    let has = |words: &[&str]| {
        words.iter().any(|w| {
            lower
                .split_whitespace()
                .any(|t| t.trim_matches(|c: char| !c.is_alphanumeric()) == *w)
        })
    };
    if split::asks_yes_no(question) {
        Form::YesNo
    } else if has(&[
        "list", "name", "steps", "ways", "types", "examples", "which",
    ]) && has(&["are", "were", "list", "steps", "ways", "types", "examples"])
    {
        Form::List
    } else if matches!(first, "why" | "how" | "explain" | "describe")
        || has(&["explain", "describe"])
    {
        Form::Explanation
    } else {
        Form::ShortFact
    }
}

/// The grading note the offline judge writes: one or two points about form.
pub fn structure_note(question: &str) -> Vec<String> {
    match form_of(question) {
        Form::YesNo => vec![
            "Opens with a clear yes or no.".into(),
            "Follows with one or two sentences giving the reason.".into(),
        ],
        Form::List => {
            vec!["A list naming each item asked for, one per line or separated by commas.".into()]
        }
        Form::Explanation => vec![
            "Leads with the main point in one sentence.".into(),
            "Explains it in two to five sentences, in order.".into(),
        ],
        Form::ShortFact => {
            vec!["A short, direct statement of the fact asked for, in one sentence.".into()]
        }
    }
}

/// How well the answer's form fits the question's: (rating, rationale).
fn grading_note(question: &str, answer: &str) -> (f64, String) {
    let words = answer.split_whitespace().count();
    let sentences = text::sentences(answer).len();
    let lower = answer.trim().to_lowercase();
    let (fits, what) = match form_of(question) {
        Form::YesNo => (
            lower.starts_with("yes") || lower.starts_with("no"),
            "a yes/no question should open with yes or no",
        ),
        Form::List => (
            answer.contains('\n') || answer.matches(',').count() >= 1 || lower.contains(" and "),
            "a question asking for several things should list them",
        ),
        Form::Explanation => (
            sentences >= 2 || words >= 20,
            "a why/how question should explain in a few sentences",
        ),
        Form::ShortFact => (
            (1..=40).contains(&words),
            "a factual question should get a short, direct statement",
        ),
    };
    let padded = words > 150;
    let rating = match (fits, padded) {
        (true, false) => 1.0,
        (true, true) => 0.6,
        (false, false) => 0.4,
        (false, true) => 0.2,
    };
    let verdict = if fits {
        "The answer has that form"
    } else {
        "The answer does not have that form"
    };
    let length = if padded { " and runs long" } else { "" };
    (
        rating,
        format!("{verdict}{length} ({what}; offline form check)."),
    )
}

/// Shares of `claims` that some passage entails, and whether any passage contradicts one.
fn entailed_share(
    claims: &[String],
    passages: &[String],
    params: &SupportParams,
) -> Option<(f64, bool)> {
    if claims.is_empty() || passages.is_empty() {
        return None;
    }
    let labels = claim_labels(claims, passages, params, None);
    let entailed = labels
        .iter()
        .filter(|row| row.contains(&Label::Entailment))
        .count();
    let contradicted = labels.iter().any(|row| row.contains(&Label::Contradiction));
    Some((entailed as f64 / claims.len() as f64, contradicted))
}

/// Below this offline correctness the failure taxonomy is filled in. RAGalyst's line is
/// `TAXONOMY_BELOW` (0.9) on a judge's rubric; the offline score is a sentence cosine, on
/// which a correct answer in other words reads 0.65–0.9, and the taxonomy then flagged
/// eight of the bundled example's ten good answers ("other").
const OFFLINE_TAXONOMY_BELOW: f64 = 0.65;

/// What the taxonomy rules read, gathered once.
struct Signals {
    recall: Option<f64>,
    factuality: Option<(f64, bool)>,
    fabricated: usize,
    distortions: usize,
    relevance: f64,
    coherence: f64,
    form_fits: bool,
    answer_words: usize,
    truth_words: usize,
}

// long: one scorecard gathers every criterion's evidence from the same claims and sentences; apart,
// each would recompute them
pub fn scorecard(
    task: &ScorecardTask,
    params: &SupportParams,
    semantic: Option<&SemanticModel>,
) -> Scorecard {
    let ScorecardTask {
        question,
        answer,
        chunks,
        ground_truth,
        ..
    } = task;
    let truth_claims = if ground_truth.trim().is_empty() {
        Vec::new()
    } else {
        split::split(ground_truth)
    };
    let review = review::review(question, answer, &[], semantic);
    let grounded = (!chunks.is_empty() && !answer.trim().is_empty())
        .then(|| grounding::ground(question, answer, chunks, params, None));
    let recall = entailed_share(&truth_claims, chunks, params);
    let factuality = entailed_share(&truth_claims, std::slice::from_ref(answer), params);
    let note = grading_note(question, answer);
    let mut scores = Vec::new();
    for &criterion in &task.criteria {
        let (score, rationale) = match criterion {
            Criterion::ContextRelevancy => {
                let rated = relevance::score_chunks(question, chunks, semantic);
                if rated.is_empty() {
                    (0.2, "There are no chunks to rate.".to_string())
                } else {
                    let best = rated.iter().map(|c| c.relevance).fold(0.0, f64::max);
                    let mean = rated.iter().map(|c| c.relevance).sum::<f64>() / rated.len() as f64;
                    (
                        0.6 * best + 0.4 * mean,
                        format!("The best chunk's relevance is {best:.2} and the average {mean:.2} (offline chunk scores)."),
                    )
                }
            }
            Criterion::ContextAdherence => match &grounded {
                Some(g) if !g.claims.is_empty() => {
                    let credit: f64 = g
                        .claims
                        .iter()
                        .map(|c| match c.support {
                            Support::Supported => 1.0,
                            Support::PartiallyHallucinated => 0.5,
                            Support::FullyHallucinated => 0.0,
                        })
                        .sum();
                    let share = credit / g.claims.len() as f64;
                    (share, format!("{share:.0}% of the answer's claims are backed by the chunks (offline grounding).", share = share * 100.0))
                }
                _ => (1.0, "The answer asserts nothing beyond the chunks (offline grounding).".to_string()),
            },
            Criterion::AnswerRelevancy => (
                review.relevance,
                format!("The answer's alignment with the question is {:.2} (offline review).", review.relevance),
            ),
            Criterion::ContextRecall => match recall {
                Some((share, _)) => (
                    share,
                    format!("The chunks state {:.0}% of the ground truth's claims (offline claim check).", share * 100.0),
                ),
                None => (0.2, "The ground truth has no checkable claim or there are no chunks.".to_string()),
            },
            Criterion::Factuality => match factuality {
                Some((share, contradicted)) => {
                    let capped = if contradicted { share.min(0.4) } else { share };
                    let clash = if contradicted { "; the answer contradicts part of it" } else { "" };
                    (
                        capped,
                        format!("The answer carries {:.0}% of the ground truth's claims{clash} (offline claim check).", share * 100.0),
                    )
                }
                None => (0.2, "The ground truth has no checkable claim.".to_string()),
            },
            Criterion::GradingNote => note.clone(),
            Criterion::AnswerCorrectness => {
                let checked =
                    reference::check(question, answer, ground_truth, chunks, params, semantic);
                (checked.score, checked.rationale)
            }
        };
        let score = if criterion.is_rubric() {
            on_rubric(score)
        } else {
            score.clamp(0.0, 1.0)
        };
        scores.push(CriterionScore {
            criterion,
            score,
            rationale,
        });
    }
    let low = scores
        .iter()
        .any(|s| s.criterion == Criterion::AnswerCorrectness && s.score < OFFLINE_TAXONOMY_BELOW);
    let failures = if task.taxonomy && low {
        let signals = Signals {
            recall: recall.map(|r| r.0),
            factuality,
            fabricated: grounded.as_ref().map_or(0, |g| {
                g.claims
                    .iter()
                    .filter(|c| c.support == Support::FullyHallucinated)
                    .count()
            }),
            distortions: grounded.as_ref().map_or(0, |g| g.contradictions.len()),
            relevance: review.relevance,
            coherence: review.coherence,
            form_fits: note.0 >= 0.6,
            answer_words: answer.split_whitespace().count(),
            truth_words: ground_truth.split_whitespace().count(),
        };
        taxonomy(&signals)
    } else {
        Vec::new()
    };
    Scorecard { scores, failures }
}

/// Every category with applies and a reason, from the offline signals.
fn taxonomy(s: &Signals) -> Vec<FailureCheck> {
    let fact = s.factuality.map_or(1.0, |f| f.0);
    let contradicted = s.factuality.is_some_and(|f| f.1);
    let checks: [(bool, String); 9] = [
        (
            s.recall.is_some_and(|r| r >= 0.5) && fact < 0.5,
            "The chunks state most of the ground truth, but the answer carries little of it."
                .into(),
        ),
        (
            !s.form_fits,
            "The answer's form does not fit what the question asks for.".into(),
        ),
        (
            s.answer_words * 2 < s.truth_words && fact < 1.0,
            "The answer is much shorter than the ground truth and leaves out details it has."
                .into(),
        ),
        (
            s.answer_words > 3 * s.truth_words.max(5) && fact < 1.0,
            "The answer is far longer than the ground truth and misses some of its points.".into(),
        ),
        (
            contradicted,
            "The answer states something the ground truth contradicts.".into(),
        ),
        (
            s.fabricated > 0,
            format!(
                "{} of the answer's claims appear in no chunk.",
                s.fabricated
            ),
        ),
        (
            s.relevance < 0.5,
            "The answer does not address what the question asks.".into(),
        ),
        (
            s.distortions > 0,
            format!(
                "The answer changes {} detail(s) of the chunks.",
                s.distortions
            ),
        ),
        (
            s.coherence < 0.5,
            "The answer's statements do not hold together.".into(),
        ),
    ];
    let none = checks.iter().all(|(applies, _)| !applies);
    FAILURE_CATEGORIES
        .iter()
        .zip(checks.into_iter().chain(std::iter::once((
            none,
            "No other category matched what the offline checks found.".to_string(),
        ))))
        .map(|(category, (applies, explanation))| FailureCheck {
            category: category.to_string(),
            applies,
            explanation: if applies {
                explanation
            } else {
                "Not found by the offline checks.".into()
            },
        })
        .collect()
}
