//! `compare_runs` against a real SQLite store: runs evaluated with `run::evaluate` and the
//! offline judge on the example dataset, compared item by item. Expected values are
//! recomputed here from each run's stored scores, not from the comparison code.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use ragnosis_core::analysis::compare::{compare_runs, Flag, MatchBasis};
use ragnosis_core::analysis::trend;
use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::metrics::{MetricConfig, Status};
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, RunRequest};
use ragnosis_core::store::{self, Store};

use crate::import_text as import;

fn example() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/examples/ragnosis-example.jsonl"),
    )
    .unwrap()
}

fn evaluate(store: &mut Store, dataset_id: i64, k: usize) -> i64 {
    let request = RunRequest {
        dataset_id,
        metrics: vec!["reference".into(), "citation".into()],
        metric_config: MetricConfig {
            k,
            ..MetricConfig::default()
        },
        ..Default::default()
    };
    run_with(store, &request, OfflineJudge::default())
}

/// Runs `request` to its end with `judge`; the run's id.
fn run_with(store: &mut Store, request: &RunRequest, judge: OfflineJudge) -> i64 {
    run::evaluate(
        store,
        request,
        Arc::new(judge),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap()
    .run_id
}

/// A run of `metrics` only.
fn metrics_only(dataset_id: i64, metrics: &[&str]) -> RunRequest {
    RunRequest {
        dataset_id,
        metrics: metrics.iter().map(|m| m.to_string()).collect(),
        ..Default::default()
    }
}

/// question → score of `metric` in `run`, read straight from the results table.
fn scores_by_question(store: &Store, run_id: i64, metric: &str) -> BTreeMap<String, f64> {
    store::results::scores(store.conn(), run_id, metric)
        .unwrap()
        .into_iter()
        .filter(|c| c.status == Status::Ok)
        .map(|c| {
            (
                store::items::get(store.conn(), c.item_id)
                    .unwrap()
                    .item
                    .question,
                c.score.unwrap(),
            )
        })
        .collect()
}

#[test]
fn lowering_k_is_a_regression_of_recall_with_the_lost_items_flipped() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(&mut store, dir.path(), "example", &example());
    let a = evaluate(&mut store, dataset, 10);
    let b = evaluate(&mut store, dataset, 1);
    let c = compare_runs(&store, a, b, 0.05, false).unwrap();
    assert_eq!((c.matched, c.only_in_a, c.only_in_b), (24, 0, 0));
    assert!(c.metrics_only_in_a.is_empty() && c.metrics_only_in_b.is_empty());

    let before = scores_by_question(&store, a, "reference.recall_at_k");
    let after = scores_by_question(&store, b, "reference.recall_at_k");
    let expected_delta = after.values().sum::<f64>() / 24.0 - before.values().sum::<f64>() / 24.0;
    let lost: Vec<&String> = before
        .keys()
        .filter(|q| before[*q] >= 0.5 && after[*q] < 0.5)
        .collect();
    assert!(
        !lost.is_empty(),
        "some gold documents are ranked 2nd to 10th in the example"
    );

    let recall = c
        .metrics
        .iter()
        .find(|m| m.metric == "reference.recall_at_k")
        .unwrap();
    assert_eq!(recall.pairs, 24);
    assert!(
        (recall.delta.unwrap() - expected_delta).abs() < 1e-12,
        "delta is the difference of the run means"
    );
    assert_eq!(
        recall.to_fail.len(),
        lost.len(),
        "every lost hit is a pass → fail flip"
    );
    assert!(recall.to_pass.is_empty(), "a smaller k never finds more");
    let (lo, hi) = (recall.ci95_low.unwrap(), recall.ci95_high.unwrap());
    assert!(lo <= recall.delta.unwrap() && recall.delta.unwrap() <= hi);
    let expected_flag = if expected_delta < -0.05 && hi < 0.0 {
        Flag::Red
    } else if expected_delta < -0.05 {
        Flag::Amber
    } else {
        Flag::Green
    };
    assert_eq!(recall.flag, expected_flag);

    let citation = c
        .metrics
        .iter()
        .find(|m| m.metric == "citation.strict_accuracy")
        .unwrap();
    assert_eq!(
        (citation.delta, citation.flag),
        (Some(0.0), Flag::Green),
        "k does not touch citations"
    );
    assert!(citation.to_fail.is_empty() && citation.to_pass.is_empty());
    assert_eq!(
        compare_runs(&store, a, b, 0.05, false).unwrap(),
        c,
        "the same runs always compare the same"
    );
}

#[test]
fn items_match_by_id_across_datasets_even_when_a_question_is_reworded() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let original = import(&mut store, dir.path(), "original", &example());
    let text = example();
    let edited = text.replacen(
        "How long is the warranty on the frame?",
        "How long is the frame warranty?",
        1,
    );
    assert_ne!(text, edited);
    let copy = import(&mut store, dir.path(), "edited", &edited);
    let a = evaluate(&mut store, original, 10);
    let b = evaluate(&mut store, copy, 10);
    let c = compare_runs(&store, a, b, 0.05, false).unwrap();
    assert_eq!(
        (c.matched, c.only_in_a, c.only_in_b, c.matched_by, c.changed),
        (24, 0, 0, MatchBasis::Id, 1),
        "the example's ids say the reworded question is the same case"
    );
    assert!(
        c.metrics
            .iter()
            .all(|m| m.delta == Some(0.0) && m.flag == Flag::Green),
        "identical answers score the same"
    );
    assert!(
        compare_runs(&store, a, b, -1.0, false).is_err(),
        "a negative threshold is refused"
    );
}

/// The example without ids, with the answers of the items at `changed` positions
/// replaced by an unrelated sentence: a second pipeline version.
fn version(changed: &[usize], keep_ids: bool) -> String {
    example()
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut row: serde_json::Value = serde_json::from_str(line).unwrap();
            if !keep_ids {
                row.as_object_mut().unwrap().remove("id");
            }
            if changed.contains(&i) {
                row["answer"] = "Our shop is open from nine to five on weekdays.".into();
            }
            format!("{row}\n")
        })
        .collect()
}

#[test]
fn two_pipeline_versions_of_the_same_questions_compare_and_share_a_trend() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let changed: Vec<usize> = (0..24).step_by(3).collect();
    assert_eq!(changed.len(), 8);
    let v1 = import(&mut store, dir.path(), "v1", &version(&[], false));
    let v2 = import(&mut store, dir.path(), "v2", &version(&changed, false));
    assert_ne!(v1, v2, "different answers are a different file");
    let a = evaluate(&mut store, v1, 10);
    let b = evaluate(&mut store, v2, 10);
    let c = compare_runs(&store, a, b, 0.05, false).unwrap();
    assert_eq!(
        (c.matched, c.only_in_a, c.only_in_b, c.matched_by, c.changed),
        (24, 0, 0, MatchBasis::Question, 8),
        "no ids: the same questions and ground truths pair up"
    );
    let f1 = c
        .metrics
        .iter()
        .find(|m| m.metric == "reference.token_f1")
        .unwrap();
    let (before, after) = (
        scores_by_question(&store, a, "reference.token_f1"),
        scores_by_question(&store, b, "reference.token_f1"),
    );
    let expected = after.values().sum::<f64>() / 24.0 - before.values().sum::<f64>() / 24.0;
    assert!(
        expected < -0.05,
        "an off-topic answer loses token F1: {expected}"
    );
    assert!((f1.delta.unwrap() - expected).abs() < 1e-12);
    assert_eq!(f1.flag, Flag::Red, "8 of 24 answers broken is a regression");
    assert_eq!(f1.verdict(c.threshold), "regression");

    // One trend for both versions, from either dataset.
    for dataset in [v1, v2] {
        let trend = trend::of_dataset(store.conn(), dataset).unwrap();
        let runs: Vec<i64> = trend.iter().map(|p| p.run.id).collect();
        assert_eq!(runs, vec![a, b], "the trend spans both versions' runs");
    }
    // Different questions are another test set, with a trend of its own.
    let other_text = version(&[], false).replace("warranty", "guarantee");
    let other = import(&mut store, dir.path(), "other", &other_text);
    let c_run = evaluate(&mut store, other, 10);
    let trend = trend::of_dataset(store.conn(), other).unwrap();
    assert_eq!(
        trend.iter().map(|p| p.run.id).collect::<Vec<_>>(),
        vec![c_run]
    );
}

#[test]
fn re_importing_the_same_bytes_reuses_the_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let file = dir.path().join("same.jsonl");
    std::fs::write(&file, example()).unwrap();
    let first = ragnosis_core::import::import_file(
        &mut store,
        &file,
        None,
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap();
    let again = ragnosis_core::import::import_file(
        &mut store,
        &file,
        Some("renamed"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap();
    assert!(!first.reused && again.reused);
    assert_eq!(again.dataset.id, first.dataset.id);
    assert_eq!(
        again.report.items_accepted, 24,
        "the stored report comes back"
    );
    assert_eq!(store::datasets::list(store.conn()).unwrap().len(), 1);

    // One changed byte is another file.
    std::fs::write(&file, example().replacen("10 years", "11 years", 1)).unwrap();
    let changed = ragnosis_core::import::import_file(
        &mut store,
        &file,
        None,
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap();
    assert!(!changed.reused && changed.dataset.id != first.dataset.id);
}

/// The same data judged with another metric list changes how answer relevance is
/// computed (the review gets the question's parts only when completeness is measured):
/// refused with its code unless allowed, and then the comparison carries the warning.
#[test]
fn runs_judged_differently_are_compared_only_when_allowed_and_then_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(&mut store, dir.path(), "example", &example());
    let judged = |store: &mut Store, metrics: &[&str]| {
        run_with(
            store,
            &metrics_only(dataset, metrics),
            OfflineJudge::default(),
        )
    };
    let a = judged(&mut store, &["ragvue.answer_relevance"]);
    let b = judged(
        &mut store,
        &["ragvue.answer_relevance", "ragvue.answer_completeness"],
    );
    let err = compare_runs(&store, a, b, 0.05, false).unwrap_err();
    assert_eq!(err.code().as_str(), "compare.judged_differently");
    assert!(
        err.to_string()
            .contains("ragvue.answer_relevance is computed with the question's parts")
            && err.to_string().contains("--allow-different-judges"),
        "{err}"
    );
    let c = compare_runs(&store, a, b, 0.05, true).unwrap();
    assert_eq!(c.judged_differently.len(), 1, "{:?}", c.judged_differently);
    // The same metrics judged by another version of the judge (the rules alone against
    // the learned decisions): the versions are named.
    let other = run_with(
        &mut store,
        &metrics_only(dataset, &["ragvue.answer_relevance"]),
        OfflineJudge::standard(),
    );
    assert_ne!(
        OfflineJudge::standard().prompt_version(),
        OfflineJudge::default().prompt_version()
    );
    let err = compare_runs(&store, a, other, 0.05, false).unwrap_err();
    assert!(err.to_string().contains("judged by offline ("), "{err}");
    // Two runs judged alike compare without a word about it.
    let again = judged(&mut store, &["ragvue.answer_relevance"]);
    let alike = compare_runs(&store, a, again, 0.05, false).unwrap();
    assert!(alike.judged_differently.is_empty());
    assert!(alike.metrics.iter().all(|m| m.verdict(0.05) == "no change"));
}
