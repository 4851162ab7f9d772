//! `compare_runs` against a real SQLite store: runs evaluated with `run::evaluate` and the
//! offline judge on the example dataset, compared item by item. Expected values are
//! recomputed here from each run's stored scores, not from the comparison code.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use ragnosis_core::analysis::compare::{compare_runs, Flag};
use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::metrics::{MetricConfig, Status};
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, RunRequest};
use ragnosis_core::store::{self, Store};

fn example() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/examples/ragnosis-example.jsonl"),
    )
    .unwrap()
}

fn import(store: &mut Store, dir: &Path, name: &str, text: &str) -> i64 {
    let file = dir.join(format!("{name}.jsonl"));
    std::fs::write(&file, text).unwrap();
    ragnosis_core::import::import_file(
        store,
        &file,
        Some(name),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap()
    .dataset
    .id
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
    run::evaluate(
        store,
        &request,
        Arc::new(OfflineJudge::default()),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap()
    .run_id
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
    let c = compare_runs(&store, a, b, 0.05).unwrap();
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
        compare_runs(&store, a, b, 0.05).unwrap(),
        c,
        "the same runs always compare the same"
    );
}

#[test]
fn items_match_by_content_across_datasets_and_an_edited_item_does_not() {
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
    let c = compare_runs(&store, a, b, 0.05).unwrap();
    assert_eq!(
        (c.matched, c.only_in_a, c.only_in_b),
        (23, 1, 1),
        "the edited question is a different item"
    );
    assert!(
        c.metrics
            .iter()
            .all(|m| m.delta == Some(0.0) && m.flag == Flag::Green),
        "identical items score the same"
    );
    assert!(
        compare_runs(&store, a, b, -1.0).is_err(),
        "a negative threshold is refused"
    );
}
