//! The action rule table: impact thresholds, ranking, the cap, examples, the note.
use super::*;
use crate::analysis::diagnosis::PatternExample;
use FailurePattern::*;

fn summary(
    pattern: FailurePattern,
    count: u64,
    checked: u64,
    example_ids: &[i64],
) -> PatternSummary {
    let examples = example_ids
        .iter()
        .map(|id| PatternExample {
            item_id: *id,
            scores: vec![MetricScore {
                metric: "ragvue.strict_faithfulness".into(),
                score: 0.1,
            }],
            supporting: Vec::new(),
        })
        .collect();
    crate::analysis::diagnosis::PatternSummary::new(pattern, count, checked, examples)
}

#[test]
fn impact_thresholds_are_lower_for_earlier_stages() {
    // On 1000 items the Wilson lower bound is close to the share itself.
    assert_eq!(
        impact(RetrievalMiss, 120, 1000),
        Impact::High,
        "retrieval: 12% is already high"
    );
    assert_eq!(
        impact(Hallucination, 120, 1000),
        Impact::Medium,
        "grounding needs 15% for high"
    );
    assert_eq!(impact(GenerationQuality, 120, 1000), Impact::Medium);
    assert_eq!(impact(GenerationQuality, 80, 1000), Impact::Low);
    assert_eq!(impact(Incomplete, 300, 1000), Impact::High);
    assert_eq!(impact(ContextIgnored, 50, 1000), Impact::Medium);
    assert_eq!(impact(ContextIgnored, 20, 1000), Impact::Low);
    assert_eq!(impact(SubtleDistortion, 180, 1000), Impact::High);
}

#[test]
fn a_small_run_does_not_call_every_pattern_high() {
    // Eight items, four patterns on 5, 3, 2 and 1 of them: every raw share (12.5% and
    // up) passes the retrieval and grounding High lines, but the lower ends of their
    // Wilson intervals (0.31, 0.14, 0.07, 0.02) spread them out.
    let patterns = vec![
        summary(RetrievalMiss, 5, 8, &[1]),
        summary(Hallucination, 3, 8, &[2]),
        summary(OverConfidence, 2, 8, &[3]),
        summary(ContextIgnored, 1, 8, &[4]),
    ];
    let impacts: Vec<(FailurePattern, Impact)> = plan(&patterns, 8, &[], &BTreeMap::new())
        .into_iter()
        .map(|a| (a.pattern.unwrap(), a.impact))
        .collect();
    assert_eq!(
        impacts,
        vec![
            (RetrievalMiss, Impact::High),
            (Hallucination, Impact::Medium),
            (OverConfidence, Impact::Medium),
            (ContextIgnored, Impact::Low),
        ]
    );
}

#[test]
fn actions_are_ranked_by_impact_then_fix_order_one_per_pattern() {
    let patterns = vec![
        summary(RetrievalMiss, 12, 100, &[1]), // Wilson low 0.070: retrieval → Medium
        summary(Hallucination, 20, 100, &[2]), // 0.133: grounding → Medium
        summary(OverConfidence, 6, 100, &[3]), // 0.028 → Low
        summary(MultiHopFailure, 2, 100, &[4]), // Low
        summary(GenerationQuality, 9, 100, &[5]), // 0.048 → Low
        summary(Incomplete, 30, 100, &[6]),    // 0.219: generation → Medium
    ];
    let actions = plan(&patterns, 100, &[], &BTreeMap::new());
    let order: Vec<_> = actions.iter().map(|a| a.pattern.unwrap()).collect();
    assert_eq!(
        order,
        vec![
            RetrievalMiss,
            Hallucination,
            Incomplete,
            OverConfidence,
            MultiHopFailure,
            GenerationQuality
        ],
        "Medium upstream first, then Low by fix order and count; every pattern has its action"
    );
    assert!(actions.iter().all(|a| a.impact != Impact::None));
}

#[test]
fn equal_impact_goes_to_the_earlier_fix_even_with_fewer_items() {
    let patterns = vec![
        summary(GenerationQuality, 60, 100, &[1]),
        summary(RetrievalMiss, 30, 100, &[2]),
    ];
    let actions = plan(&patterns, 100, &[], &BTreeMap::new());
    assert_eq!(
        actions[0].pattern,
        Some(RetrievalMiss),
        "retrieval is fixed before generation"
    );
}

#[test]
fn example_is_the_worst_items_question() {
    let patterns = vec![summary(Hallucination, 3, 10, &[7, 3, 9])];
    let questions = BTreeMap::from([
        (7, "Does the Moon have rivers?".to_string()),
        (3, "other".to_string()),
    ]);
    let example = plan(&patterns, 10, &[], &questions)
        .remove(0)
        .example
        .expect("the worst item's question is known");
    assert_eq!(example.item_id, 7, "examples are stored worst first");
    assert_eq!(example.question, "Does the Moon have rivers?");
    assert_eq!(example.scores[0].metric, "ragvue.strict_faithfulness");
}

#[test]
fn whats_wrong_states_the_count_and_share() {
    let action = plan(
        &[summary(ContextIgnored, 3, 50, &[1])],
        50,
        &[],
        &BTreeMap::new(),
    )
    .remove(0);
    assert!(
        action
            .whats_wrong
            .starts_with("In 3 of 50 checked items (6%), useful passages"),
        "{}",
        action.whats_wrong
    );
    let tiny = plan(
        &[summary(ContextIgnored, 1, 1000, &[1])],
        1000,
        &[],
        &BTreeMap::new(),
    )
    .remove(0);
    assert!(
        tiny.whats_wrong.contains("(under 1%)"),
        "a real failure never reads 0%: {}",
        tiny.whats_wrong
    );
}

#[test]
fn no_pattern_gives_one_explained_note_not_an_empty_list() {
    let actions = plan(&[], 25, &[], &BTreeMap::new());
    assert_eq!(actions.len(), 1);
    assert_eq!(
        (actions[0].pattern, actions[0].impact),
        (None, Impact::None)
    );
    assert_eq!(actions[0].title, "No systematic failure found");
    assert!(actions[0].whats_wrong.contains("25 checked items"));
    let unchecked = plan(&[], 0, &FailurePattern::ALL, &BTreeMap::new());
    assert_eq!(
        unchecked[0].title, "No item could be checked for failure patterns",
        "nothing checked is not a clean bill"
    );
}

#[test]
fn every_pattern_has_a_concrete_fix() {
    for pattern in FailurePattern::ALL {
        let rule = rule(pattern);
        assert!(!rule.title.is_empty() && !rule.why.is_empty());
        assert!(
            rule.wrong.ends_with('.'),
            "{pattern:?}: the sentence is complete"
        );
        assert!(
            rule.fix.len() > 150,
            "{pattern:?}: a fix names settings and prompt text, not a slogan"
        );
    }
}
