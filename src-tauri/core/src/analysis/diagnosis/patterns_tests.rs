//! Per-item rule checks at and around every threshold, with hand-built score maps.
use super::*;
use FailurePattern::*;

/// The patterns whose rule fires, before the item is read as a whole (`reading`).
fn fired(scores: &BTreeMap<String, f64>) -> Vec<FailurePattern> {
    FailurePattern::ALL
        .into_iter()
        .filter(|p| p.check(scores).is_some())
        .collect()
}

fn scores(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(m, s)| (m.to_string(), *s)).collect()
}

fn fires(pattern: FailurePattern, pairs: &[(&str, f64)]) -> bool {
    fired(&scores(pairs)).contains(&pattern)
}

#[test]
fn retrieval_miss_fires_only_below_half_on_both_relevance_and_coverage() {
    assert!(fires(
        RetrievalMiss,
        &[(RETRIEVAL_RELEVANCE, 0.49), (RETRIEVAL_COVERAGE, 0.49)]
    ));
    assert!(
        !fires(
            RetrievalMiss,
            &[(RETRIEVAL_RELEVANCE, 0.5), (RETRIEVAL_COVERAGE, 0.49)]
        ),
        "0.5 is not < 0.5"
    );
    assert!(
        !fires(
            RetrievalMiss,
            &[(RETRIEVAL_RELEVANCE, 0.49), (RETRIEVAL_COVERAGE, 0.5)]
        ),
        "both must be low"
    );
}

#[test]
fn context_ignored_needs_trusted_relevance_and_almost_no_chunk_used() {
    assert!(
        fires(
            ContextIgnored,
            &[(RETRIEVAL_RELEVANCE, 0.6), (CONTEXT_UTILIZATION, 0.19)]
        ),
        "0.6 is ≥ 0.6"
    );
    assert!(
        !fires(
            ContextIgnored,
            &[(RETRIEVAL_RELEVANCE, 0.67), (CONTEXT_UTILIZATION, 0.33)]
        ),
        "using one of three relevant-looking chunks is normal (nw-003, nw-006, nw-007 of the example)"
    );
    assert!(!fires(
        ContextIgnored,
        &[(RETRIEVAL_RELEVANCE, 0.59), (CONTEXT_UTILIZATION, 0.0)]
    ));
    assert!(!fires(
        ContextIgnored,
        &[(RETRIEVAL_RELEVANCE, 1.0), (CONTEXT_UTILIZATION, 0.5)]
    ));
}

#[test]
fn context_ignored_also_fires_when_one_chunk_covers_the_question_but_not_on_a_contradiction() {
    // hd-09 of the help-desk set: one of two chunks gives the 6-hour rule, and the
    // answer offers generic advice instead.
    let ignored = [
        (RETRIEVAL_RELEVANCE, 0.5),
        (RETRIEVAL_COVERAGE, 1.0),
        (CONTEXT_UTILIZATION, 0.0),
    ];
    assert!(fires(ContextIgnored, &ignored));
    assert!(
        !fires(
            ContextIgnored,
            &[ignored[0], (RETRIEVAL_COVERAGE, 0.5), ignored[2]]
        ),
        "neither relevance nor coverage says the chunks held the answer"
    );
    let contradicted = [
        ignored[0],
        ignored[1],
        ignored[2],
        (IMPLICIT_CONTRADICTION, 0.0),
    ];
    assert!(
        !fires(ContextIgnored, &contradicted),
        "an answer that reverses the passage used it wrongly: F, not B"
    );
}

#[test]
fn single_metric_grounding_patterns_fire_strictly_below_half() {
    for (pattern, metric) in [
        (Hallucination, STRICT_FAITHFULNESS),
        (OverConfidence, NEGATIVE_REJECTION),
    ] {
        assert!(
            fires(pattern, &[(metric, 0.49)]),
            "{metric} 0.49 fires {pattern:?}"
        );
        assert!(
            !fires(pattern, &[(metric, 0.5)]),
            "{metric} 0.5 is not < 0.5"
        );
    }
}

#[test]
fn a_contradiction_is_subtle_distortion_and_not_also_hallucination() {
    // "not open on Sundays" against "open every day": one claim, contradicted. Before,
    // F needed faithfulness ≥ 0.6 and the one contradicted claim made it 0, so the
    // contradiction raised no pattern at all.
    let scores = [(STRICT_FAITHFULNESS, 0.0), (IMPLICIT_CONTRADICTION, 0.0)];
    assert!(fires(SubtleDistortion, &scores));
    assert!(!fires(Hallucination, &scores), "named once, by F");
    assert!(!fires(
        SubtleDistortion,
        &[(STRICT_FAITHFULNESS, 1.0), (IMPLICIT_CONTRADICTION, 0.5)]
    ));
    assert!(fires(
        Hallucination,
        &[(STRICT_FAITHFULNESS, 0.0), (IMPLICIT_CONTRADICTION, 1.0)]
    ));
}

#[test]
fn a_decline_is_a_wrong_refusal_or_nothing_never_over_confidence_or_incomplete() {
    let wrong_refusal = [
        (NEGATIVE_REJECTION, 0.0),
        (ANSWER_DECLINED, 1.0),
        (PASSAGES_HELD_ANSWER, 1.0),
        (ANSWER_COMPLETENESS, 0.0),
        (RETRIEVAL_RELEVANCE, 0.9),
        (CONTEXT_UTILIZATION, 0.0),
    ];
    assert!(fires(WrongRefusal, &wrong_refusal));
    for other in [OverConfidence, Incomplete, ContextIgnored] {
        assert!(!fires(other, &wrong_refusal), "{other:?} on a refusal");
    }
    let over_confident = [
        (NEGATIVE_REJECTION, 0.0),
        (ANSWER_DECLINED, 0.0),
        (PASSAGES_HELD_ANSWER, 0.0),
    ];
    assert!(fires(OverConfidence, &over_confident));
    assert!(!fires(WrongRefusal, &over_confident));
    let correct_abstention = [
        (NEGATIVE_REJECTION, 1.0),
        (ANSWER_DECLINED, 1.0),
        (PASSAGES_HELD_ANSWER, 0.0),
        (ANSWER_COMPLETENESS, 0.0),
        (RETRIEVAL_COVERAGE, 0.8),
    ];
    for pattern in FailurePattern::ALL {
        assert!(
            !fires(pattern, &correct_abstention),
            "{pattern:?} on a right decline"
        );
    }
}

#[test]
fn a_chain_with_some_steps_backed_is_multi_hop_not_hallucination() {
    let partly = [(STRICT_FAITHFULNESS, 0.33), (MULTI_HOP_FAITHFULNESS, 0.33)];
    assert!(fires(MultiHopFailure, &partly));
    assert!(!fires(Hallucination, &partly));
    let none_backed = [(STRICT_FAITHFULNESS, 0.0), (MULTI_HOP_FAITHFULNESS, 0.0)];
    assert!(
        fires(Hallucination, &none_backed),
        "nothing backed is invention"
    );
}

#[test]
fn a_wrong_missing_or_extra_citation_is_a_citation_failure() {
    assert!(fires(
        CitationFailure,
        &[(CITATION_STRICT, 0.0), (CITATION_NONE, 1.0)]
    ));
    assert!(!fires(CitationFailure, &[(CITATION_STRICT, 1.0)]));
    assert!(
        !fires(
            CitationFailure,
            &[(CITATION_STRICT, 0.0), (ANSWER_DECLINED, 1.0)]
        ),
        "a decline cites nothing, rightly"
    );
}

#[test]
fn generation_quality_takes_the_minimum_of_the_scores_present() {
    assert!(fires(
        GenerationQuality,
        &[(COHERENCE, 1.0), (CLARITY, 0.49), (ANSWER_CONCISENESS, 1.0)]
    ));
    assert!(
        fires(GenerationQuality, &[(ANSWER_CONCISENESS, 0.49)]),
        "one present input is enough"
    );
    assert!(
        !fires(GenerationQuality, &[(COHERENCE, 0.5), (CLARITY, 0.9)]),
        "min 0.5 is not < 0.5"
    );
    let trigger = GenerationQuality
        .check(&scores(&[(COHERENCE, 0.3), (CLARITY, 0.1)]))
        .unwrap();
    assert_eq!(
        trigger.severity, 0.1,
        "severity is the minimum the rule tested"
    );
    assert_eq!(
        trigger.scores.len(),
        2,
        "only the inputs present are reported"
    );
}

#[test]
fn incomplete_fires_below_point_six_on_completeness_whatever_retrieval_covered() {
    assert!(fires(
        Incomplete,
        &[(ANSWER_COMPLETENESS, 0.59), (RETRIEVAL_COVERAGE, 0.59)]
    ));
    assert!(!fires(
        Incomplete,
        &[(ANSWER_COMPLETENESS, 0.6), (RETRIEVAL_COVERAGE, 0.0)]
    ));
    assert!(
        fires(
            Incomplete,
            &[(ANSWER_COMPLETENESS, 0.5), (RETRIEVAL_COVERAGE, 1.0)]
        ),
        "half an answer although the answer was retrieved (nw-022 of the example)"
    );
    assert!(
        fires(Incomplete, &[(ANSWER_COMPLETENESS, 0.0)]),
        "coverage is not needed"
    );
}

#[test]
fn a_correct_abstention_is_not_incomplete() {
    let abstention = [
        (ANSWER_COMPLETENESS, 0.0),
        (RETRIEVAL_COVERAGE, 0.0),
        (NEGATIVE_REJECTION, 1.0),
    ];
    assert!(
        !fires(Incomplete, &abstention),
        "nw-021 of the example declined rightly"
    );
    assert!(fires(
        Incomplete,
        &[
            (ANSWER_COMPLETENESS, 0.0),
            (RETRIEVAL_COVERAGE, 1.0),
            (NEGATIVE_REJECTION, 1.0)
        ]
    ));
    // Where the decline is recorded, an answer that did not decline and answered none
    // of the question's parts is incomplete, even though its steps were all backed
    // (negative rejection 1) and the passages missed the question.
    assert!(fires(
        Incomplete,
        &[
            (ANSWER_COMPLETENESS, 0.0),
            (RETRIEVAL_COVERAGE, 0.0),
            (NEGATIVE_REJECTION, 1.0),
            (ANSWER_DECLINED, 0.0)
        ]
    ));
    assert!(!fires(
        Incomplete,
        &[
            (ANSWER_COMPLETENESS, 0.0),
            (RETRIEVAL_COVERAGE, 0.0),
            (NEGATIVE_REJECTION, 1.0),
            (ANSWER_DECLINED, 1.0)
        ]
    ));
}

#[test]
fn a_rule_with_a_missing_input_does_not_fire() {
    assert!(
        !fires(RetrievalMiss, &[(RETRIEVAL_RELEVANCE, 0.0)]),
        "coverage missing"
    );
    assert!(
        !fires(ContextIgnored, &[(RETRIEVAL_RELEVANCE, 1.0)]),
        "utilization missing"
    );
    assert!(
        !fires(SubtleDistortion, &[(STRICT_FAITHFULNESS, 0.0)]),
        "contradiction missing"
    );
    assert!(fired(&BTreeMap::new()).is_empty(), "no scores, no patterns");
}

#[test]
fn judge_free_signals_never_fire_a_pattern() {
    let only_signals = scores(&[
        (TOKEN_OVERLAP, 0.0),
        (CONTEXT_SIMILARITY, 0.0),
        (READABILITY, 0.0),
        (ANSWER_LENGTH, 0.0),
    ]);
    assert!(
        fired(&only_signals).is_empty(),
        "they corroborate, they do not diagnose"
    );
}

#[test]
fn patterns_come_back_in_fix_order_with_their_stages() {
    let all_bad = scores(&[
        (RETRIEVAL_RELEVANCE, 0.0),
        (ANSWER_COMPLETENESS, 0.0),
        (RETRIEVAL_COVERAGE, 0.0),
        (STRICT_FAITHFULNESS, 0.0),
        (CLARITY, 0.0),
    ]);
    assert_eq!(
        fired(&all_bad),
        vec![RetrievalMiss, Hallucination, GenerationQuality, Incomplete]
    );
    assert_eq!(ContextIgnored.stage(), Stage::RetrievalToGeneration);
    assert_eq!(Incomplete.stage(), Stage::RetrievalAndGeneration);
    assert_eq!(
        Incomplete.fix_order(),
        2,
        "H is fixed with generation although it blames retrieval too"
    );
}

#[test]
fn a_pattern_is_named_by_its_letter_its_name_or_its_serialised_name_and_nothing_else() {
    assert_eq!(
        FailurePattern::named("F"),
        Some(FailurePattern::SubtleDistortion)
    );
    assert_eq!(
        FailurePattern::named(" f "),
        Some(FailurePattern::SubtleDistortion)
    );
    assert_eq!(
        FailurePattern::named("Subtle Distortion"),
        Some(FailurePattern::SubtleDistortion)
    );
    // The window sends back the name the diagnosis it read was serialised with.
    assert_eq!(
        FailurePattern::named("over_confidence"),
        Some(FailurePattern::OverConfidence)
    );
    assert_eq!(FailurePattern::named("Z"), None);
    assert_eq!(FailurePattern::named("subtle"), None);
    assert_eq!(FailurePattern::named("subtle_"), None);
    assert_eq!(FailurePattern::named(""), None);
    for p in FailurePattern::ALL {
        assert_eq!(FailurePattern::from_letter(p.letter()), Some(p));
    }
}
