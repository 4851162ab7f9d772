//! Per-item rule checks at and around every threshold, with hand-built score maps.
use super::*;
use FailurePattern::*;

fn scores(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
    pairs.iter().map(|(m, s)| (m.to_string(), *s)).collect()
}

fn fires(pattern: FailurePattern, pairs: &[(&str, f64)]) -> bool {
    patterns_for(&scores(pairs)).contains(&pattern)
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
fn single_metric_grounding_patterns_fire_strictly_below_half() {
    for (pattern, metric) in [
        (Hallucination, STRICT_FAITHFULNESS),
        (OverConfidence, NEGATIVE_REJECTION),
        (MultiHopFailure, MULTI_HOP_FAITHFULNESS),
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
fn subtle_distortion_needs_faithful_answer_with_implicit_contradiction() {
    assert!(fires(
        SubtleDistortion,
        &[(STRICT_FAITHFULNESS, 0.6), (IMPLICIT_CONTRADICTION, 0.49)]
    ));
    assert!(!fires(
        SubtleDistortion,
        &[(STRICT_FAITHFULNESS, 0.59), (IMPLICIT_CONTRADICTION, 0.0)]
    ));
    assert!(!fires(
        SubtleDistortion,
        &[(STRICT_FAITHFULNESS, 1.0), (IMPLICIT_CONTRADICTION, 0.5)]
    ));
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
        !fires(SubtleDistortion, &[(IMPLICIT_CONTRADICTION, 0.0)]),
        "faithfulness missing"
    );
    assert!(
        patterns_for(&BTreeMap::new()).is_empty(),
        "no scores, no patterns"
    );
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
        patterns_for(&only_signals).is_empty(),
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
        patterns_for(&all_bad),
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
