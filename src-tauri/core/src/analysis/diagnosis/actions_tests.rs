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
    PatternSummary {
        pattern,
        letter: pattern.letter(),
        name: pattern.name().into(),
        stage: pattern.stage(),
        description: pattern.description().into(),
        count,
        share: count as f64 / checked as f64,
        examples: example_ids
            .iter()
            .map(|id| PatternExample {
                item_id: *id,
                scores: vec![MetricScore {
                    metric: "ragvue.strict_faithfulness".into(),
                    score: 0.1,
                }],
                supporting: Vec::new(),
            })
            .collect(),
    }
}

#[test]
fn impact_thresholds_are_lower_for_earlier_stages() {
    assert_eq!(
        impact(RetrievalMiss, 0.10),
        Impact::High,
        "retrieval: 10% is already high"
    );
    assert_eq!(
        impact(Hallucination, 0.10),
        Impact::Medium,
        "grounding needs 15% for high"
    );
    assert_eq!(impact(GenerationQuality, 0.10), Impact::Medium);
    assert_eq!(impact(GenerationQuality, 0.0999), Impact::Low);
    assert_eq!(impact(Incomplete, 0.25), Impact::High);
    assert_eq!(impact(ContextIgnored, 0.03), Impact::Medium);
    assert_eq!(impact(ContextIgnored, 0.029), Impact::Low);
    assert_eq!(impact(SubtleDistortion, 0.15), Impact::High);
}

#[test]
fn actions_are_ranked_by_impact_then_count_and_capped_at_four() {
    let patterns = vec![
        summary(RetrievalMiss, 12, 100, &[1]),  // 12% retrieval → High
        summary(Hallucination, 20, 100, &[2]),  // 20% grounding → High, more items
        summary(OverConfidence, 6, 100, &[3]),  // Medium
        summary(MultiHopFailure, 2, 100, &[4]), // Low
        summary(GenerationQuality, 9, 100, &[5]), // 9% generation → Low, but more items than E
        summary(Incomplete, 30, 100, &[6]),     // 30% generation → High, most items
    ];
    let actions = plan(&patterns, 100, &BTreeMap::new());
    let order: Vec<_> = actions.iter().map(|a| a.pattern.unwrap()).collect();
    assert_eq!(
        order,
        vec![Incomplete, Hallucination, RetrievalMiss, OverConfidence],
        "High by count, then Medium; capped"
    );
    assert!(actions.iter().all(|a| a.impact != Impact::None));
}

#[test]
fn equal_impact_and_count_go_to_the_earlier_fix() {
    let patterns = vec![
        summary(GenerationQuality, 30, 100, &[1]),
        summary(RetrievalMiss, 30, 100, &[2]),
    ];
    let actions = plan(&patterns, 100, &BTreeMap::new());
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
    let example = plan(&patterns, 10, &questions)
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
    let actions = plan(&[], 25, &BTreeMap::new());
    assert_eq!(actions.len(), 1);
    assert_eq!(
        (actions[0].pattern, actions[0].impact),
        (None, Impact::None)
    );
    assert_eq!(actions[0].title, "No systematic failure found");
    assert!(actions[0].whats_wrong.contains("25 checked items"));
    let unchecked = plan(&[], 0, &BTreeMap::new());
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
