//! Run comparison on hand-built runs; every expected number is worked out in a comment.

use std::collections::BTreeMap;

use super::bootstrap::{paired_ci95, seed_for, SplitMix64, RESAMPLES};
use super::*;

fn run(id: i64) -> RunRef {
    RunRef::new(id, None, None, "d".into(), "offline".into(), 0)
}

/// An item whose question (and content) is `hash`; its id `q{item_id}` is never shared
/// between runs here, so items pair by question.
fn item(item_id: i64, hash: &str, scores: &[(&str, f64)]) -> ScoredItem {
    ScoredItem {
        key: RunItemKey {
            item_id,
            ordinal: item_id - 1,
            external_id: Some(format!("q{item_id}")),
            content_hash: hash.into(),
            question_key: hash.into(),
        },
        scores: scores
            .iter()
            .map(|(m, s)| (m.to_string(), *s))
            .collect::<BTreeMap<_, _>>(),
        problems: None,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn deltas_flips_and_amber_flag_on_a_small_paired_sample() {
    // Matched by hash: h1, h2, h3. "hx" exists only in A, "hy" only in B.
    let a = vec![
        item(1, "h1", &[("m", 0.8)]),
        item(2, "h2", &[("m", 0.6)]),
        item(3, "h3", &[("m", 0.4)]),
        item(4, "hx", &[("m", 0.0)]),
    ];
    let b = vec![
        item(13, "h3", &[("m", 0.6)]),
        item(11, "h1", &[("m", 0.6)]),
        item(12, "h2", &[("m", 0.4)]),
        item(19, "hy", &[("m", 1.0)]),
    ];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!(
        (c.matched, c.only_in_a, c.only_in_b),
        (3, 1, 1),
        "hx and hy have no partner"
    );
    let m = &c.metrics[0];
    assert_eq!(m.pairs, 3);
    // mean A = (0.8 + 0.6 + 0.4) / 3 = 0.6; mean B = (0.6 + 0.4 + 0.6) / 3 = 0.5333…
    assert!(close(m.mean_a.unwrap(), 0.6));
    assert!(close(m.mean_b.unwrap(), 1.6 / 3.0));
    // delta = mean of (−0.2, −0.2, +0.2) = −0.0667: beyond the 0.05 threshold …
    assert!(close(m.delta.unwrap(), -0.2 / 3.0));
    // … but a resample of three +0.2 (p = 1/27 > 2.5%) puts the upper bound at +0.2, so
    // the interval reaches 0 and the flag is amber, not red.
    let (lo, hi) = (m.ci95_low.unwrap(), m.ci95_high.unwrap());
    assert!(
        close(lo, -0.2) && close(hi, 0.2),
        "interval was [{lo}, {hi}]"
    );
    assert_eq!(m.flag, Flag::Amber);
    assert!(m.within_noise, "an interval through 0 is within noise");
    // q2 went 0.6 → 0.4 (pass → fail); q3 went 0.4 → 0.6 (fail → pass); q1 stayed a pass.
    assert_eq!(
        m.to_fail
            .iter()
            .map(|f| f.label.as_str())
            .collect::<Vec<_>>(),
        ["q2"]
    );
    assert_eq!(
        (m.to_fail[0].item_id_a, m.to_fail[0].item_id_b),
        (2, 12),
        "ids of both runs are kept"
    );
    assert_eq!(
        m.to_pass
            .iter()
            .map(|f| f.label.as_str())
            .collect::<Vec<_>>(),
        ["q3"]
    );
}

#[test]
fn lower_is_better_regression_is_red_when_the_interval_excludes_zero() {
    // Hallucination rose by exactly 0.5 on both items: every resample mean is 0.5, so the
    // interval is [0.5, 0.5], entirely on the worse side.
    let a = vec![item(1, "h1", &[("h", 0.1)]), item(2, "h2", &[("h", 0.2)])];
    let b = vec![item(3, "h1", &[("h", 0.6)]), item(4, "h2", &[("h", 0.7)])];
    let c = compare(run(1), run(2), &[("h".into(), true)], &a, &b, 0.05);
    let m = &c.metrics[0];
    assert!(close(m.delta.unwrap(), 0.5));
    assert!(close(m.ci95_low.unwrap(), 0.5) && close(m.ci95_high.unwrap(), 0.5));
    assert_eq!(m.flag, Flag::Red, "a higher hallucination rate is worse");
    assert!(!m.within_noise);
    // Lower is better passes at ≤ 0.5: 0.1 and 0.2 passed, 0.6 and 0.7 fail.
    assert_eq!(m.to_fail.len(), 2);
    assert!(m.to_pass.is_empty());
    assert_eq!(c.regressions().count(), 1);
}

#[test]
fn only_items_scored_in_both_runs_enter_the_pairs() {
    // h2 errored in B (no ok score), h3 has no score for "m" in A: one pair is left.
    let a = vec![
        item(1, "h1", &[("m", 0.9)]),
        item(2, "h2", &[("m", 0.9)]),
        item(3, "h3", &[]),
    ];
    let b = vec![
        item(4, "h1", &[("m", 0.7)]),
        item(5, "h2", &[]),
        item(6, "h3", &[("m", 0.1)]),
    ];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    let m = &c.metrics[0];
    assert_eq!((c.matched, m.pairs), (3, 1));
    assert!(close(m.delta.unwrap(), -0.2));
    assert_eq!(
        (m.ci95_low, m.ci95_high),
        (None, None),
        "one pair gives no interval"
    );
    assert_eq!(
        m.flag,
        Flag::Amber,
        "worse by 0.2 without an interval cannot be called certain"
    );
}

#[test]
fn duplicate_content_pairs_by_first_occurrence() {
    let a = vec![item(1, "h", &[("m", 0.2)]), item(2, "h", &[("m", 0.9)])];
    let b = vec![item(3, "h", &[("m", 0.3)])];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!((c.matched, c.only_in_a, c.only_in_b), (1, 1, 0));
    assert!(
        close(c.metrics[0].delta.unwrap(), 0.1),
        "0.3 − 0.2, the first copy in A"
    );
}

fn case(id: Option<&str>, question: &str, output: &str, score: f64) -> ScoredItem {
    ScoredItem {
        key: RunItemKey {
            item_id: 0,
            ordinal: 0,
            external_id: id.map(String::from),
            content_hash: format!("{question}/{output}"),
            question_key: question.into(),
        },
        scores: BTreeMap::from([("m".to_string(), score)]),
        problems: None,
    }
}

#[test]
fn two_pipeline_versions_pair_by_question_and_count_changed_outputs() {
    // Same three questions; version B changed the answer of q2 and q3.
    let a = vec![
        case(None, "q1", "same", 0.9),
        case(None, "q2", "old", 0.8),
        case(None, "q3", "old", 0.7),
    ];
    let b = vec![
        case(None, "q3", "new", 0.2),
        case(None, "q1", "same", 0.9),
        case(None, "q2", "new", 0.3),
    ];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!((c.matched, c.only_in_a, c.only_in_b), (3, 0, 0));
    assert_eq!((c.matched_by, c.changed), (MatchBasis::Question, 2));
    assert!(close(c.metrics[0].delta.unwrap(), (0.0 - 0.5 - 0.5) / 3.0));
}

#[test]
fn shared_ids_win_over_questions_and_unshared_ids_fall_back() {
    // The question was reworded in B, but the ids say it is the same case.
    let a = vec![
        case(Some("x1"), "old wording", "o", 0.5),
        case(Some("x2"), "q2", "o", 0.5),
    ];
    let b = vec![
        case(Some("x1"), "new wording", "o", 0.5),
        case(Some("x2"), "q2", "o", 0.5),
    ];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!((c.matched, c.matched_by), (2, MatchBasis::Id));

    // Ids regenerated per export share nothing: the questions still pair the items.
    let b = vec![
        case(Some("y1"), "old wording", "o", 0.5),
        case(Some("y2"), "q2", "o", 0.5),
    ];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!((c.matched, c.matched_by), (2, MatchBasis::Question));

    // One item without an id: ids are not used at all.
    let b = vec![
        case(None, "old wording", "o", 0.5),
        case(Some("x2"), "q2", "o", 0.5),
    ];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!(c.matched_by, MatchBasis::Question);
}

#[test]
fn a_metric_with_no_pairs_is_not_compared_rather_than_green() {
    let a = vec![item(1, "h1", &[("m", 0.5)])];
    let b = vec![item(2, "other", &[("m", 0.5)])];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!(c.metrics[0].flag, Flag::NotCompared);
    assert_eq!(c.metrics[0].delta, None);
}

#[test]
fn classify_follows_the_threshold_and_the_interval() {
    // Higher is better.
    assert_eq!(
        classify(-0.04, Some((-0.08, -0.01)), false, 0.05),
        Flag::Green,
        "within the threshold"
    );
    assert_eq!(
        classify(-0.05, Some((-0.08, -0.02)), false, 0.05),
        Flag::Green,
        "exactly at the threshold"
    );
    assert_eq!(
        classify(-0.06, Some((-0.10, 0.01)), false, 0.05),
        Flag::Amber,
        "interval reaches 0"
    );
    assert_eq!(
        classify(-0.06, Some((-0.10, -0.02)), false, 0.05),
        Flag::Red
    );
    assert_eq!(
        classify(0.30, Some((0.20, 0.40)), false, 0.05),
        Flag::Green,
        "an improvement"
    );
    // Lower is better: a rise is the bad direction.
    assert_eq!(classify(0.06, Some((0.02, 0.10)), true, 0.05), Flag::Red);
    assert_eq!(classify(0.06, Some((-0.01, 0.10)), true, 0.05), Flag::Amber);
    assert_eq!(
        classify(-0.30, Some((-0.40, -0.20)), true, 0.05),
        Flag::Green
    );
    // A zero threshold flags any certain drop.
    assert_eq!(
        classify(-0.001, Some((-0.002, -0.0005)), false, 0.0),
        Flag::Red
    );
}

#[test]
fn passes_uses_the_half_line_in_the_metric_direction() {
    assert!(passes(0.5, false) && !passes(0.49, false));
    assert!(passes(0.5, true) && !passes(0.51, true));
}

#[test]
fn bootstrap_of_zero_and_one_spans_the_full_range() {
    // Resample means of {0, 1} with n = 2 are 0 (p = 1/4), 0.5 (1/2) or 1 (1/4); with a
    // quarter of the mass at each end, the 2.5% and 97.5% percentiles are 0 and 1.
    let (lo, hi) = paired_ci95(&[0.0, 1.0], RESAMPLES, 7).unwrap();
    assert_eq!((lo, hi), (0.0, 1.0));
}

#[test]
fn bootstrap_is_deterministic_and_needs_two_pairs() {
    let d = [0.1, -0.3, 0.25, 0.0, 0.4, -0.1];
    assert_eq!(
        paired_ci95(&d, RESAMPLES, seed_for("m")),
        paired_ci95(&d, RESAMPLES, seed_for("m"))
    );
    let (lo, hi) = paired_ci95(&d, RESAMPLES, seed_for("m")).unwrap();
    let mean = d.iter().sum::<f64>() / d.len() as f64;
    assert!(
        lo < mean && mean < hi,
        "the interval holds the observed mean {mean}: [{lo}, {hi}]"
    );
    assert_eq!(paired_ci95(&[0.2], RESAMPLES, 1), None);
    assert_ne!(seed_for("ragvue.clarity"), seed_for("ragvue.coherence"));
}

#[test]
fn splitmix_matches_its_reference_stream() {
    // First outputs of SplitMix64 seeded with 0, as published with the algorithm.
    let mut rng = SplitMix64::new(0);
    assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
    assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    let mut small = SplitMix64::new(42);
    assert!((0..1000).all(|_| small.below(3) < 3));
}

/// Three of forty answers fixed, judged by a judge that scores the same output the same
/// way every time: the comparison says three items got better and none worse, and that
/// items with the same output kept their scores, instead of "within noise".
#[test]
fn a_fix_of_three_answers_is_told_as_three_better_items_with_no_judge_variation() {
    let a: Vec<ScoredItem> = (1..=40)
        .map(|i| {
            item(
                i,
                &format!("h{i}"),
                &[("m", if i <= 3 { 0.0 } else { 0.8 })],
            )
        })
        .collect();
    let b: Vec<ScoredItem> = (1..=40)
        .map(|i| {
            // The fixed answers are new outputs: another content hash, same question.
            let mut it = item(
                100 + i,
                &format!("h{i}"),
                &[("m", if i <= 3 { 1.0 } else { 0.8 })],
            );
            if i <= 3 {
                it.key.content_hash = format!("fixed{i}");
            }
            it
        })
        .collect();
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!(c.changed, 3);
    let m = &c.metrics[0];
    assert_eq!(
        (m.changed, m.unchanged_moved),
        (
            ChangeCounts {
                better: 3,
                worse: 0,
                same: 0
            },
            0
        )
    );
    // Three items of forty moved by +1: delta 0.075, and a resample without any of them
    // is likely enough that the interval reaches 0.
    assert!(m.within_noise, "{m:?}");
    assert_eq!(
        m.verdict(0.05),
        "better on 3 changed items (within sampling noise)"
    );
    assert_eq!(m.to_pass.len(), 3, "the three crossed the pass line");
    assert!(
        c.headline()
            .contains("3 of 40 matched items have another output")
            && c.headline().contains("kept every score"),
        "{}",
        c.headline()
    );
}

#[test]
fn identical_scores_are_no_change_and_a_varying_judge_is_named_as_such() {
    let a = vec![item(1, "h1", &[("m", 0.5)]), item(2, "h2", &[("m", 0.7)])];
    let b = vec![item(11, "h1", &[("m", 0.5)]), item(12, "h2", &[("m", 0.7)])];
    let same = compare(run(1), run(2), &[("m".into(), false)], &a, &b, 0.05);
    assert_eq!(same.metrics[0].verdict(0.05), "no change");
    assert_eq!(same.metrics[0].moved(), 0);
    // The same outputs, scored differently: the judge's own variation, and the verdict
    // falls back to the interval.
    let jitter = vec![item(11, "h1", &[("m", 0.6)]), item(12, "h2", &[("m", 0.6)])];
    let c = compare(run(1), run(2), &[("m".into(), false)], &a, &jitter, 0.05);
    assert_eq!(c.metrics[0].unchanged_moved, 2);
    assert_eq!(c.metrics[0].verdict(0.05), "within noise");
    assert_eq!(
        c.metrics[0].in_words, "within noise",
        "every reader gets the words at the comparison's threshold"
    );
    assert!(
        c.headline().contains("the judge moved 2 score(s)"),
        "{}",
        c.headline()
    );
}

/// An item of either run with the diagnosis's reading of it.
fn diagnosed(item_id: i64, hash: &str, problems: &[FailurePattern]) -> ScoredItem {
    ScoredItem {
        problems: Some(problems.to_vec()),
        ..item(item_id, hash, &[("m", 0.9)])
    }
}

#[test]
fn items_are_sorted_by_what_the_diagnosis_read_in_each_run_worse_first() {
    use FailurePattern::{Hallucination, RetrievalMiss, WrongRefusal};
    let a = vec![
        diagnosed(1, "same", &[]),
        diagnosed(2, "fixed-a", &[Hallucination]),
        diagnosed(3, "broken-a", &[]),
        diagnosed(4, "moved-a", &[RetrievalMiss]),
        diagnosed(5, "reworded-a", &[]),
        diagnosed(6, "refusal-a", &[WrongRefusal]),
    ];
    let b = vec![
        diagnosed(1, "same", &[]),
        diagnosed(2, "fixed-b", &[]),
        diagnosed(3, "broken-b", &[Hallucination]),
        diagnosed(4, "moved-b", &[Hallucination]),
        diagnosed(5, "reworded-b", &[]),
        diagnosed(6, "refusal-b", &[]),
    ];
    let c = compare(
        run(1),
        run(2),
        &[("m".into(), false)],
        &a,
        &b,
        DEFAULT_THRESHOLD,
    );
    let labels = |l: &[items::ItemChange]| l.iter().map(|i| i.label.clone()).collect::<Vec<_>>();
    assert_eq!(labels(&c.items.worse), ["q3"]);
    assert_eq!(labels(&c.items.improved), ["q2", "q6"]);
    assert_eq!(labels(&c.items.other_problem), ["q4"]);
    assert_eq!((c.items.same_standing, c.items.same_output), (1, 1));
    assert_eq!(
        (
            c.items.worse[0].before.as_str(),
            c.items.worse[0].after.as_str()
        ),
        ("no problem found", "hallucination")
    );
    assert_eq!(
        c.items.sentence(),
        "1 item got worse (q3), 2 improved (q2, q6), 1 now has another problem (q4), \
         1 changed without changing standing; 1 kept the same output"
    );
}

#[test]
fn an_item_the_diagnosis_could_not_read_is_sorted_by_the_metrics_that_crossed_the_pass_line() {
    let metrics = [("m".to_string(), false), ("cost".to_string(), true)];
    let a = vec![
        item(1, "a1", &[("m", 0.9), ("cost", 0.2)]),
        item(2, "a2", &[("m", 0.2), ("cost", 0.2)]),
        item(3, "a3", &[("m", 0.2), ("cost", 0.2)]),
    ];
    let b = vec![
        // m falls below the line: worse.
        item(1, "b1", &[("m", 0.3), ("cost", 0.2)]),
        // m rises above it: improved.
        item(2, "b2", &[("m", 0.8), ("cost", 0.2)]),
        // m rises, but the lower-is-better cost rises above the line: another problem.
        item(3, "b3", &[("m", 0.8), ("cost", 0.7)]),
    ];
    let c = compare(run(1), run(2), &metrics, &a, &b, DEFAULT_THRESHOLD);
    assert_eq!(c.items.worse.len(), 1);
    assert_eq!(c.items.worse[0].label, "q1");
    assert_eq!(c.items.worse[0].after, "fails m");
    assert_eq!(c.items.improved[0].label, "q2");
    assert_eq!(c.items.improved[0].before, "fails m");
    assert_eq!(c.items.other_problem[0].label, "q3");
    assert_eq!(c.items.other_problem[0].after, "fails cost");
}

#[test]
fn with_no_changed_output_nothing_is_said_to_improve_or_get_worse() {
    let a = vec![item(1, "h1", &[("m", 0.9)]), item(2, "h2", &[("m", 0.1)])];
    let b = vec![item(1, "h1", &[("m", 0.1)]), item(2, "h2", &[("m", 0.9)])];
    let c = compare(
        run(1),
        run(2),
        &[("m".into(), false)],
        &a,
        &b,
        DEFAULT_THRESHOLD,
    );
    assert!(c.items.worse.is_empty() && c.items.improved.is_empty());
    assert_eq!(
        c.items.sentence(),
        "No item has another output (2 kept the same), so none could improve or get worse"
    );
}
