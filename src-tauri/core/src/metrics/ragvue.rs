//! The judge-based RAGVUE metrics (Family 1 and the 0.6 extensions), computed from judge
//! verdicts. Pure functions: the run engine obtains the verdicts (each at most once per
//! item) and these turn them into scores with evidence.
//!
//! Scores are recomputed here from the verdict's parts (e.g. completeness = addressed /
//! aspects), never copied from a number the judge states about itself.

use serde_json::json;

use super::MetricResult;
use crate::judge::task::{AnswerReview, AspectCoverage, ChunkScore, Grounding, Reasoning, Support};
use crate::text;

/// Default relevance threshold τ for `retrieval_relevance`.
pub const DEFAULT_TAU: f64 = 0.7;

pub fn retrieval_relevance(id: &str, chunks: &[ChunkScore], tau: f64) -> MetricResult {
    if chunks.is_empty() {
        return MetricResult::skipped(id, "there are no retrieved chunks to score");
    }
    let relevant = chunks.iter().filter(|c| c.relevance >= tau).count();
    let score = relevant as f64 / chunks.len() as f64;
    let explanation = format!(
        "{relevant} of {} retrieved chunks are useful for the question (relevance ≥ {tau}).",
        chunks.len()
    );
    MetricResult::ok(
        id,
        score,
        explanation,
        json!({ "tau": tau, "chunks": chunks }),
    )
}

pub fn retrieval_coverage(id: &str, aspects: &[AspectCoverage]) -> MetricResult {
    if aspects.is_empty() {
        return MetricResult::error(
            id,
            "the judge found no aspects in the question to check coverage against",
        );
    }
    let covered = aspects.iter().filter(|a| a.covered).count();
    let missing: Vec<&str> = aspects
        .iter()
        .filter(|a| !a.covered)
        .map(|a| a.aspect.as_str())
        .collect();
    let explanation = if missing.is_empty() {
        format!(
            "The retrieved chunks cover all {} parts of the question.",
            aspects.len()
        )
    } else {
        format!(
            "The retrieved chunks cover {covered} of {} parts of the question; missing: {}.",
            aspects.len(),
            missing.join("; ")
        )
    };
    MetricResult::ok(
        id,
        covered as f64 / aspects.len() as f64,
        explanation,
        json!({ "aspects": aspects }),
    )
}

pub fn answer_relevance(id: &str, review: &AnswerReview) -> MetricResult {
    let mut explanation = format!(
        "The answer's alignment with what was asked is {:.2}.",
        review.relevance
    );
    if !review.missing_parts.is_empty() {
        explanation.push_str(&format!(" Missing: {}.", review.missing_parts.join("; ")));
    }
    if !review.off_topic.is_empty() {
        explanation.push_str(&format!(" Off topic: {}.", review.off_topic.join("; ")));
    }
    MetricResult::ok(
        id,
        review.relevance,
        explanation,
        json!({ "missing_parts": review.missing_parts, "off_topic": review.off_topic }),
    )
}

pub fn answer_completeness(id: &str, review: &AnswerReview) -> MetricResult {
    if review.aspects.is_empty() {
        return MetricResult::error(
            id,
            "the judge returned no aspects to check the answer against",
        );
    }
    let addressed = review.aspects.iter().filter(|a| a.addressed).count();
    let missing: Vec<&str> = review
        .aspects
        .iter()
        .filter(|a| !a.addressed)
        .map(|a| a.aspect.as_str())
        .collect();
    let explanation = if missing.is_empty() {
        format!(
            "The answer addresses all {} parts of the question.",
            review.aspects.len()
        )
    } else {
        format!(
            "The answer addresses {addressed} of {} parts; not addressed: {}.",
            review.aspects.len(),
            missing.join("; ")
        )
    };
    MetricResult::ok(
        id,
        addressed as f64 / review.aspects.len() as f64,
        explanation,
        json!({ "aspects": review.aspects }),
    )
}

pub fn clarity(id: &str, review: &AnswerReview) -> MetricResult {
    let explanation = if review.clarity_issues.is_empty() {
        format!("The answer reads clearly ({:.2}).", review.clarity)
    } else {
        format!(
            "Clarity {:.2}: {}.",
            review.clarity,
            review.clarity_issues.join("; ")
        )
    };
    MetricResult::ok(
        id,
        review.clarity,
        explanation,
        json!({ "issues": review.clarity_issues, "suggestions": review.suggestions }),
    )
}

pub fn coherence(id: &str, review: &AnswerReview) -> MetricResult {
    let explanation = if review.coherence_issues.is_empty() {
        "The answer's reasoning holds together.".to_string()
    } else {
        format!(
            "Coherence problems: {}.",
            review.coherence_issues.join("; ")
        )
    };
    MetricResult::ok(
        id,
        review.coherence,
        explanation,
        json!({ "issues": review.coherence_issues }),
    )
}

pub fn answer_conciseness(id: &str, review: &AnswerReview) -> MetricResult {
    let explanation = if review.conciseness_issues.is_empty() {
        "The answer has no repetition or filler.".to_string()
    } else {
        format!(
            "Conciseness problems: {}.",
            review.conciseness_issues.join("; ")
        )
    };
    MetricResult::ok(
        id,
        review.conciseness,
        explanation,
        json!({ "issues": review.conciseness_issues }),
    )
}

/// Strict faithfulness, with RAGVUE's safety net applied here rather than trusted to the
/// judge: a claim labelled hallucinated whose normalised text occurs verbatim in the
/// contexts counts as supported.
pub fn strict_faithfulness(id: &str, grounding: &Grounding, contexts: &[String]) -> MetricResult {
    if grounding.claims.is_empty() {
        return MetricResult::skipped(id, "the answer makes no factual claims to check");
    }
    let normalised_contexts: Vec<String> =
        contexts.iter().map(|c| text::normalize_squad(c)).collect();
    let mut claims = Vec::with_capacity(grounding.claims.len());
    let (mut supported, mut partial, mut full) = (0usize, 0usize, 0usize);
    for claim in &grounding.claims {
        let mut support = claim.support;
        let mut rescued = false;
        if support != Support::Supported {
            let needle = text::normalize_squad(&claim.claim);
            if !needle.is_empty() && normalised_contexts.iter().any(|c| c.contains(&needle)) {
                support = Support::Supported;
                rescued = true;
            }
        }
        match support {
            Support::Supported => supported += 1,
            Support::PartiallyHallucinated => partial += 1,
            Support::FullyHallucinated => full += 1,
        }
        claims.push(json!({
            "claim": claim.claim,
            "support": support,
            "reason": if rescued { "The claim appears word for word in the contexts." } else { claim.reason.as_str() },
            "chunk": claim.chunk,
            "unconfirmed_anchors": claim.unconfirmed_anchors,
            "verbatim_rescue": rescued,
        }));
    }
    let total = supported + partial + full;
    let explanation = if supported == total {
        format!("All {total} claims of the answer are supported by the contexts.")
    } else {
        format!(
            "{supported} of {total} claims are supported; {partial} partly and {full} fully unsupported by the contexts."
        )
    };
    MetricResult::ok(
        id,
        supported as f64 / total as f64,
        explanation,
        json!({ "claims": claims, "supported": supported, "partially_hallucinated": partial, "fully_hallucinated": full }),
    )
}

pub fn context_utilization(id: &str, grounding: &Grounding, chunk_count: usize) -> MetricResult {
    if chunk_count == 0 {
        return MetricResult::skipped(id, "there are no retrieved chunks");
    }
    let mut used: Vec<usize> = grounding
        .used_chunks
        .iter()
        .copied()
        .filter(|i| *i < chunk_count)
        .collect();
    used.sort_unstable();
    used.dedup();
    let explanation = format!(
        "The answer draws on {} of {chunk_count} retrieved chunks.",
        used.len()
    );
    MetricResult::ok(
        id,
        used.len() as f64 / chunk_count as f64,
        explanation,
        json!({ "used_chunks": used }),
    )
}

pub fn implicit_contradiction(id: &str, grounding: &Grounding) -> MetricResult {
    let penalty: f64 = grounding
        .contradictions
        .iter()
        .map(|c| match c.severity.to_ascii_lowercase().as_str() {
            "high" => 1.0,
            "medium" => 0.5,
            _ => 0.25,
        })
        .sum();
    let explanation = if grounding.contradictions.is_empty() {
        "No subtle mismatches with the contexts were found.".to_string()
    } else {
        let kinds: Vec<String> = grounding
            .contradictions
            .iter()
            .map(|c| format!("{} ({})", c.kind.replace('_', " "), c.severity))
            .collect();
        format!("Subtle mismatches with the contexts: {}.", kinds.join(", "))
    };
    MetricResult::ok(
        id,
        (1.0 - penalty).max(0.0),
        explanation,
        json!({ "contradictions": grounding.contradictions }),
    )
}

/// 1 when the answer's behaviour matches the evidence: it answers when the contexts
/// suffice and abstains when they do not.
pub fn negative_rejection(id: &str, reasoning: &Reasoning) -> MetricResult {
    let right = reasoning.contexts_sufficient != reasoning.answer_abstains;
    let explanation = match (reasoning.contexts_sufficient, reasoning.answer_abstains) {
        (true, false) => "The contexts contain the answer and the model answered.",
        (false, true) => "The contexts do not contain the answer and the model rightly declined.",
        (false, false) => "The contexts do not contain the answer, yet the model answered anyway (over-confidence).",
        (true, true) => "The contexts contain the answer, yet the model declined to answer.",
    };
    MetricResult::ok(
        id,
        if right { 1.0 } else { 0.0 },
        explanation,
        json!({ "contexts_sufficient": reasoning.contexts_sufficient, "answer_abstains": reasoning.answer_abstains, "reason": reasoning.reason }),
    )
}

/// Words of a question that combines facts: a total, a comparison. A condition ("if")
/// is not one: "What happens if I lose my card?" asks for one rule.
#[rustfmt::skip]
const COMBINING_WORDS: &[&str] = &[
    "total", "combined", "altogether", "both", "difference", "compare", "compared",
    "comparison", "sum", "cumulative", "than", "whichever", "longer", "shorter", "older",
    "newer", "cheaper", "costlier",
];

/// Whether a question needs two or more facts combined — from its wording (a total, a
/// comparison), or from a ground truth that states a computation ("2 x 4 = 8", "in
/// total"). A single-fact question has no chain of reasoning, so multi-hop faithfulness
/// does not apply: scoring it there only repeated strict faithfulness under another
/// pattern's name. Two questions in one ("… and can I carry any over?") ask for two
/// separate facts, not a combination: answering one of them is incompleteness (H).
pub fn needs_several_facts(question: &str, ground_truth: Option<&str>) -> bool {
    let lower = question.to_lowercase();
    let combining = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .any(|w| COMBINING_WORDS.contains(&w));
    // A reference that reasons: a computation, a fraction or a sum of stated values
    // ("students pay half of the 2 euro fee", "the 1-week loan plus 3 renewals"), or a
    // conclusion drawn from a comparison ("7 hours 30, which is longer than 6 hours, so
    // business class is allowed").
    let computed = ground_truth.is_some_and(|gt| {
        let gt = gt.to_lowercase();
        let words: Vec<&str> = gt
            .split(|c: char| !c.is_alphanumeric() && c != '.')
            .filter(|w| !w.is_empty())
            .collect();
        let plus_a_number = words
            .windows(2)
            .any(|w| w[0] == "plus" && w[1].chars().next().is_some_and(|c| c.is_ascii_digit()));
        // "Twice a year" is how often, not a product: a multiple reasons only when
        // it is not followed by a word of frequency.
        let fraction = words.iter().enumerate().any(|(i, w)| match *w {
            "half" => true,
            "twice" | "double" | "triple" => !words.get(i + 1).is_some_and(|next| {
                matches!(
                    *next,
                    "a" | "an"
                        | "per"
                        | "each"
                        | "every"
                        | "in"
                        | "daily"
                        | "weekly"
                        | "monthly"
                        | "yearly"
                        | "annually"
                        | "termly"
                )
            }),
            _ => false,
        });
        let concluded = gt.contains(", so ") && words.iter().any(|w| COMBINING_WORDS.contains(w));
        [" = ", " x ", " × ", "in total", "altogether", "combined"]
            .iter()
            .any(|cue| gt.contains(cue))
            || plus_a_number
            || fraction
            || concluded
    });
    combining || computed
}

pub fn multi_hop_faithfulness(id: &str, reasoning: &Reasoning) -> MetricResult {
    if reasoning.hops.is_empty() {
        return MetricResult::skipped(id, "the answer has no reasoning steps to check");
    }
    let good = reasoning
        .hops
        .iter()
        .filter(|h| h.grounded && h.follows)
        .count();
    let explanation = format!(
        "{good} of {} reasoning steps are backed by the contexts and follow from the previous step.",
        reasoning.hops.len()
    );
    MetricResult::ok(
        id,
        good as f64 / reasoning.hops.len() as f64,
        explanation,
        json!({ "hops": reasoning.hops }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::task::{Contradiction, GroundedClaim, Hop};

    fn claim(text: &str, support: Support) -> GroundedClaim {
        GroundedClaim {
            claim: text.into(),
            support,
            reason: "judge says so".into(),
            chunk: None,
            unconfirmed_anchors: vec![],
        }
    }

    #[test]
    fn a_multiple_of_frequency_is_no_computation() {
        let q = "Do I still have to send in evidence?";
        assert!(!needs_several_facts(
            q,
            Some("No. It is allowed twice per academic year.")
        ));
        assert!(!needs_several_facts(
            q,
            Some("Twice a year, for up to 7 days.")
        ));
        assert!(needs_several_facts(
            q,
            Some("Twice the standard fee, 30 euros.")
        ));
    }

    #[test]
    fn a_reference_that_reasons_marks_a_question_that_combines_facts() {
        let combines = |gt: &str| needs_several_facts("How much do I pay?", Some(gt));
        assert!(combines(
            "4 euros: at most 4 DVDs, and students pay half of the 2 euro fee."
        ));
        assert!(combines(
            "4 weeks: the 1-week loan plus 3 renewals of 1 week each."
        ));
        assert!(combines(
            "Yes: the flight takes 7 hours 30 minutes, which is longer than 6 hours, so business class is allowed."
        ));
        // Two facts side by side are two questions, not a combination.
        assert!(!combines(
            "26 days plus public holidays; up to 5 days can be carried over."
        ));
        assert!(!combines("Economy, so book through TravelDesk."));
        assert!(!needs_several_facts(
            "What happens if I lose my card?",
            None
        ));
        assert!(needs_several_facts(
            "What is the total fee for two DVDs?",
            None
        ));
    }

    #[test]
    fn retrieval_relevance_counts_chunks_at_or_above_tau() {
        let chunks: Vec<ChunkScore> = [0.9, 0.7, 0.69, 0.1]
            .iter()
            .enumerate()
            .map(|(i, r)| ChunkScore {
                index: i,
                relevance: *r,
                reason: String::new(),
            })
            .collect();
        let r = retrieval_relevance("ragvue.retrieval_relevance", &chunks, 0.7);
        assert_eq!(r.score, Some(0.5), "0.9 and 0.7 pass τ=0.7; 0.69 does not");
    }

    #[test]
    fn verbatim_claim_is_rescued_by_the_safety_net() {
        let grounding = Grounding {
            claims: vec![
                claim("Gold has the symbol Au.", Support::FullyHallucinated),
                claim("It is blue.", Support::FullyHallucinated),
            ],
            used_chunks: vec![],
            contradictions: vec![],
        };
        let r = strict_faithfulness(
            "sf",
            &grounding,
            &["Gold has the symbol Au, number 79.".into()],
        );
        assert_eq!(
            r.score,
            Some(0.5),
            "the verbatim claim becomes supported, the other stays hallucinated"
        );
        assert_eq!(r.details["claims"][0]["verbatim_rescue"], true);
    }

    #[test]
    fn no_claims_is_skipped_not_zero() {
        let r = strict_faithfulness(
            "sf",
            &Grounding {
                claims: vec![],
                used_chunks: vec![],
                contradictions: vec![],
            },
            &[],
        );
        assert_eq!(r.status, crate::metrics::Status::Skipped);
        assert_eq!(r.score, None);
    }

    #[test]
    fn negative_rejection_rewards_matching_behaviour_only() {
        let mk = |sufficient, abstains| Reasoning {
            hops: vec![],
            contexts_sufficient: sufficient,
            answer_abstains: abstains,
            reason: String::new(),
        };
        assert_eq!(negative_rejection("nr", &mk(true, false)).score, Some(1.0));
        assert_eq!(negative_rejection("nr", &mk(false, true)).score, Some(1.0));
        assert_eq!(
            negative_rejection("nr", &mk(false, false)).score,
            Some(0.0),
            "answering without evidence is over-confidence"
        );
        assert_eq!(negative_rejection("nr", &mk(true, true)).score, Some(0.0));
    }

    #[test]
    fn contradictions_lower_the_score_by_severity() {
        let g = Grounding {
            claims: vec![],
            used_chunks: vec![],
            contradictions: vec![
                Contradiction {
                    kind: "negation_flip".into(),
                    severity: "medium".into(),
                    explanation: String::new(),
                },
                Contradiction {
                    kind: "magnitude_shift".into(),
                    severity: "low".into(),
                    explanation: String::new(),
                },
            ],
        };
        assert_eq!(implicit_contradiction("ic", &g).score, Some(0.25));
    }

    #[test]
    fn multi_hop_counts_grounded_and_connected_hops() {
        let hop = |g, f| Hop {
            step: "s".into(),
            grounded: g,
            follows: f,
            chunk: None,
            reason: String::new(),
        };
        let r = Reasoning {
            hops: vec![hop(true, true), hop(true, false), hop(false, true)],
            contexts_sufficient: true,
            answer_abstains: false,
            reason: String::new(),
        };
        assert!((multi_hop_faithfulness("mh", &r).score.unwrap() - 1.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn context_utilization_ignores_out_of_range_and_duplicate_indices() {
        let g = Grounding {
            claims: vec![],
            used_chunks: vec![0, 0, 2, 7],
            contradictions: vec![],
        };
        assert_eq!(context_utilization("cu", &g, 4).score, Some(0.5));
    }
}
