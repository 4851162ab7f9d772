//! Run-level behaviour of the diagnosis on hand-built score maps: counts, shares,
//! worst-first examples, the primary stage and its tie-break.

use std::collections::BTreeMap;

use super::patterns::*;
use super::*;
use FailurePattern::*;

fn item(item_id: i64, pairs: &[(&str, f64)]) -> ItemScores {
    ItemScores {
        item_id,
        scores: pairs.iter().map(|(m, s)| (m.to_string(), *s)).collect(),
    }
}

fn count_of(tally: &Tally, pattern: FailurePattern) -> u64 {
    tally
        .patterns
        .iter()
        .find(|p| p.pattern == pattern)
        .map_or(0, |p| p.count)
}

#[test]
fn counts_and_shares_are_over_checked_items_only() {
    let items = vec![
        item(1, &[(STRICT_FAITHFULNESS, 0.2)]),
        item(2, &[(STRICT_FAITHFULNESS, 0.9)]),
        item(3, &[(STRICT_FAITHFULNESS, 0.4), (CLARITY, 0.1)]),
        item(4, &[("ragvue.token_overlap", 0.0)]), // no rule input: cannot be checked
    ];
    let tally = tally(&items);
    assert_eq!(
        tally.items_checked, 3,
        "an item with only judge-free signals is not checked"
    );
    assert_eq!(
        tally.items_with_patterns, 2,
        "item 3 counts once although it shows two patterns"
    );
    assert_eq!(count_of(&tally, Hallucination), 2);
    let c = tally
        .patterns
        .iter()
        .find(|p| p.pattern == Hallucination)
        .unwrap();
    assert!((c.share - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!((c.letter, c.stage), ('C', Stage::Grounding));
    assert!(
        tally.patterns.iter().all(|p| p.count > 0),
        "patterns that never fired are not listed"
    );
}

#[test]
fn examples_are_the_worst_three_worst_first_ties_in_run_order() {
    let items: Vec<ItemScores> = [(10, 0.3), (11, 0.1), (12, 0.45), (13, 0.1), (14, 0.2)]
        .iter()
        .map(|(id, sf)| {
            item(
                *id,
                &[(STRICT_FAITHFULNESS, *sf), ("ragvue.token_overlap", 0.05)],
            )
        })
        .collect();
    let tally = tally(&items);
    let c = &tally.patterns[0];
    let ids: Vec<i64> = c.examples.iter().map(|e| e.item_id).collect();
    assert_eq!(
        ids,
        vec![11, 13, 14],
        "0.1 (earlier item first), 0.1, 0.2; the rest are dropped"
    );
    assert_eq!(
        c.examples[0].scores,
        vec![MetricScore {
            metric: STRICT_FAITHFULNESS.into(),
            score: 0.1
        }]
    );
    assert_eq!(
        c.examples[0].supporting.len(),
        1,
        "token overlap corroborates a hallucination"
    );
}

fn retrieval_miss(item_id: i64) -> ItemScores {
    item(
        item_id,
        &[
            (RETRIEVAL_RELEVANCE, 0.1),
            (RETRIEVAL_COVERAGE, 0.1),
            (CLARITY, 0.9),
        ],
    )
}

fn unclear(item_id: i64) -> ItemScores {
    item(
        item_id,
        &[
            (RETRIEVAL_RELEVANCE, 0.9),
            (RETRIEVAL_COVERAGE, 0.9),
            (CLARITY, 0.1),
        ],
    )
}

fn clean(item_id: i64) -> ItemScores {
    item(
        item_id,
        &[
            (RETRIEVAL_RELEVANCE, 0.9),
            (RETRIEVAL_COVERAGE, 0.9),
            (CLARITY, 0.9),
        ],
    )
}

#[test]
fn fix_first_is_upstream_among_the_patterns_that_matter_most() {
    // G on 20 of 40 items, A on 8: both High (Wilson lower bounds 0.35 ≥ 0.25 and
    // 0.105 ≥ 0.10), so retrieval is fixed first although G affects more items.
    let mut items: Vec<ItemScores> = (0..20).map(unclear).collect();
    items.extend((20..28).map(retrieval_miss));
    items.extend((28..40).map(clean));
    let counted = tally(&items);
    assert_eq!(
        (
            count_of(&counted, GenerationQuality),
            count_of(&counted, RetrievalMiss)
        ),
        (20, 8)
    );
    assert_eq!(
        primary_stage(&counted.patterns, counted.items_checked),
        Some(Stage::Retrieval)
    );

    // One retrieval miss in 40 is Low; the High generation problem comes first.
    let mut items: Vec<ItemScores> = (0..20).map(unclear).collect();
    items.push(retrieval_miss(20));
    items.extend((21..40).map(clean));
    let counted = tally(&items);
    assert_eq!(
        primary_stage(&counted.patterns, counted.items_checked),
        Some(Stage::Generation)
    );
    let actions = actions::plan(
        &counted.patterns,
        counted.items_checked,
        &counted.unchecked,
        &BTreeMap::new(),
    );
    assert_eq!(
        actions[0].pattern,
        Some(GenerationQuality),
        "the first action is the stage to fix first"
    );
}

#[test]
fn primary_stage_tie_goes_to_the_stage_fixed_first() {
    // G (generation) and A (retrieval) on two items each: retrieval is fixed first.
    let items = vec![
        item(1, &[(CLARITY, 0.1)]),
        item(2, &[(CLARITY, 0.1)]),
        item(
            3,
            &[
                (RETRIEVAL_RELEVANCE, 0.9),
                (RETRIEVAL_COVERAGE, 0.9),
                (CONTEXT_UTILIZATION, 0.1),
            ],
        ),
        item(
            4,
            &[
                (RETRIEVAL_RELEVANCE, 0.9),
                (RETRIEVAL_COVERAGE, 0.9),
                (CONTEXT_UTILIZATION, 0.1),
            ],
        ),
    ];
    let counted = tally(&items);
    assert_eq!(
        (
            count_of(&counted, GenerationQuality),
            count_of(&counted, ContextIgnored)
        ),
        (2, 2)
    );
    assert_eq!(
        primary_stage(&counted.patterns, counted.items_checked),
        Some(Stage::RetrievalToGeneration),
        "B (retrieval group) beats G"
    );

    // Within a group the earlier letter wins: A (retrieval) before B, G before H.
    let retrieval = vec![
        item(1, &[(RETRIEVAL_RELEVANCE, 0.9), (CONTEXT_UTILIZATION, 0.1)]),
        item(2, &[(RETRIEVAL_RELEVANCE, 0.1), (RETRIEVAL_COVERAGE, 0.1)]),
    ];
    assert_eq!(
        primary_stage(&tally(&retrieval).patterns, 2),
        Some(Stage::Retrieval)
    );
    let generation = vec![
        item(1, &[(ANSWER_COMPLETENESS, 0.1), (RETRIEVAL_COVERAGE, 0.55)]),
        item(2, &[(COHERENCE, 0.1)]),
    ];
    assert_eq!(
        primary_stage(&tally(&generation).patterns, 2),
        Some(Stage::Generation)
    );
}

#[test]
fn four_grounding_rules_do_not_outvote_one_frequent_retrieval_pattern() {
    // Counting per pattern: C, D, E, F on one item each versus A on two items.
    let items = vec![
        item(1, &[(STRICT_FAITHFULNESS, 0.1)]),
        item(2, &[(NEGATIVE_REJECTION, 0.0)]),
        item(3, &[(MULTI_HOP_FAITHFULNESS, 0.1)]),
        item(
            4,
            &[(STRICT_FAITHFULNESS, 0.9), (IMPLICIT_CONTRADICTION, 0.1)],
        ),
        item(5, &[(RETRIEVAL_RELEVANCE, 0.1), (RETRIEVAL_COVERAGE, 0.1)]),
        item(6, &[(RETRIEVAL_RELEVANCE, 0.1), (RETRIEVAL_COVERAGE, 0.1)]),
    ];
    assert_eq!(
        primary_stage(&tally(&items).patterns, 6),
        Some(Stage::Retrieval)
    );
}

#[test]
fn clean_run_has_no_primary_stage_and_a_single_note() {
    let items = vec![item(1, &[(STRICT_FAITHFULNESS, 1.0), (CLARITY, 0.9)])];
    let tally = tally(&items);
    assert!(tally.patterns.is_empty());
    assert_eq!(primary_stage(&tally.patterns, tally.items_checked), None);
    let actions = actions::plan(
        &tally.patterns,
        tally.items_checked,
        &tally.unchecked,
        &BTreeMap::new(),
    );
    assert_eq!(actions.len(), 1, "the user reads why the list is empty");
    assert_eq!(actions[0].impact, Impact::None);
}

#[test]
fn a_clarity_only_run_says_which_patterns_it_could_not_check() {
    let items: Vec<ItemScores> = (0..8).map(|id| item(id, &[(CLARITY, 0.9)])).collect();
    let tally = tally(&items);
    assert_eq!(tally.items_checked, 8);
    assert_eq!(
        tally.unchecked,
        vec![
            RetrievalMiss,
            ContextIgnored,
            Hallucination,
            OverConfidence,
            SubtleDistortion,
            Incomplete,
            WrongRefusal
        ],
        "clarity feeds only G (E and J apply only to some data, so are not listed)"
    );
    let note = actions::plan(
        &tally.patterns,
        tally.items_checked,
        &tally.unchecked,
        &BTreeMap::new(),
    )
    .remove(0);
    assert_ne!(note.title, "No systematic failure found");
    assert!(
        note.whats_wrong
            .contains("7 of the 10 patterns could not be checked")
            && note.whats_wrong.contains("A (retrieval miss)")
            && note.whats_wrong.contains("H (incomplete)")
            && !note.whats_wrong.contains("G (generation quality)"),
        "{}",
        note.whats_wrong
    );
}

#[test]
fn diagnosis_round_trips_through_json() {
    let items = vec![item(1, &[(STRICT_FAITHFULNESS, 0.1)])];
    let tally = tally(&items);
    let diagnosis = Diagnosis {
        primary_stage: primary_stage(&tally.patterns, tally.items_checked),
        actions: actions::plan(
            &tally.patterns,
            tally.items_checked,
            &tally.unchecked,
            &BTreeMap::from([(1, "q".to_string())]),
        ),
        patterns: tally.patterns,
        items_with_patterns: tally.items_with_patterns,
        items_checked: tally.items_checked,
        unchecked: tally.unchecked,
        unsure: tally.unsure,
        unsure_items: tally.unsure_items,
        corrected_by_labels: tally.corrected_by_labels,
    };
    let json = serde_json::to_value(&diagnosis).unwrap();
    assert_eq!(
        json["patterns"][0]["pattern"], "hallucination",
        "the UI reads snake_case ids"
    );
    assert_eq!(json["primary_stage"], "grounding");
    assert_eq!(json["actions"][0]["impact"], "high");
    assert_eq!(
        serde_json::from_value::<Diagnosis>(json).unwrap(),
        diagnosis,
        "stored summaries load back unchanged"
    );
}

#[test]
fn the_verdict_says_how_many_what_most_often_and_what_to_fix_first() {
    let items = vec![
        item(1, &[(STRICT_FAITHFULNESS, 0.1)]),
        item(2, &[(STRICT_FAITHFULNESS, 0.2)]),
        item(3, &[(STRICT_FAITHFULNESS, 1.0)]),
    ];
    let tally = tally(&items);
    let diagnosis = Diagnosis {
        primary_stage: primary_stage(&tally.patterns, tally.items_checked),
        actions: actions::plan(
            &tally.patterns,
            tally.items_checked,
            &tally.unchecked,
            &BTreeMap::new(),
        ),
        patterns: tally.patterns,
        items_with_patterns: tally.items_with_patterns,
        items_checked: tally.items_checked,
        unchecked: tally.unchecked,
        unsure: 1,
        unsure_items: Vec::new(),
        corrected_by_labels: 0,
    };
    let said = verdict(&diagnosis).unwrap();
    assert!(
        said.starts_with("2 of 3 checked answers had a problem; 1 more needs a look;"),
        "{said}"
    );
    assert!(
        said.contains("most often C (hallucination), on 2 answers;"),
        "{said}"
    );
    assert!(said.contains("fix first: stop the model"), "{said}");
}
