//! Which items a person should label next: the suggestions of the trust view, against a
//! real store (offline-judged runs, and scores stored directly to pin ties).

use ragnosis_core::run::{self, RunRequest};
use ragnosis_core::store::{self, Store};

use super::runs::{evaluate_offline, import, items};

/// Judges often give a handful of distinct scores, so many items tie: suggestions take
/// the scores nearest 0.5 first and, within a score, the earliest items, on both sides of
/// the line, moving to the next score when one runs out.
#[test]
fn labelling_suggestions_break_ties_by_item_below_and_above_the_line() {
    use ragnosis_core::metrics::MetricResult;
    use ragnosis_core::trust::alignment::align;
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(&mut store, dir.path(), &items(30));
    let request = RunRequest {
        dataset_id: dataset,
        metrics: vec!["ragvue.clarity".into()],
        ..Default::default()
    };
    let run_id = run::plan(&mut store, &request).unwrap();
    let ids = store::run_items::item_ids(store.conn(), run_id).unwrap();
    // One item at 0.45; three at 0.25 and four at 0.75 (exactly as far from the line); the
    // rest further away; stored out of item order.
    let score_of = |k: usize| match k {
        5 => 0.45,
        20..=22 => 0.25,
        10..=13 => 0.75,
        0..=9 => 0.125,
        _ => 1.0,
    };
    for k in (0..30).rev() {
        let result = MetricResult::ok(
            "ragvue.clarity",
            score_of(k),
            "set",
            serde_json::Value::Null,
        );
        store::results::insert(store.conn(), run_id, ids[k], "judge", &result).unwrap();
    }
    let suggested: Vec<i64> = align(&store, run_id)
        .unwrap()
        .suggestions
        .iter()
        .map(|s| s.item_id)
        .collect();
    // 0.45 first; then 0.25 and 0.75 tie on distance, in item order; then 0.125 in item
    // order.
    let expected: Vec<i64> = [5, 10, 11, 12, 13, 20, 21, 22, 0, 1]
        .iter()
        .map(|&k| ids[k])
        .collect();
    assert_eq!(suggested, expected);
}

/// Labelling suggestions ask only about judged metrics before any label (a formula's
/// score needs no second opinion), one per item, nearest the 0.5 line first; a judge-free
/// run has none; once a metric is labelled they are about that metric alone, and never
/// about an item already labelled on it.
#[test]
fn labelling_suggestions_ask_about_judged_metrics_nearest_the_line_first() {
    use ragnosis_core::trust::alignment::{align, SUGGESTIONS};
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(&mut store, dir.path(), &items(14));
    let free = evaluate_offline(&mut store, dataset, &["reference.token_f1"]).run_id;
    let a = align(&store, free).unwrap();
    assert!(a.suggestions.is_empty() && a.metrics.is_empty(), "{a:?}");

    let metrics = ["ragvue.clarity", "reference.token_f1"];
    let judged = evaluate_offline(&mut store, dataset, &metrics).run_id;
    let a = align(&store, judged).unwrap();
    assert_eq!(a.suggestions.len(), SUGGESTIONS, "{a:?}");
    assert!(a.suggestions.iter().all(|s| s.metric == "ragvue.clarity"));
    let distance: Vec<f64> = a
        .suggestions
        .iter()
        .map(|s| (s.score - 0.5).abs())
        .collect();
    assert!(distance.windows(2).all(|w| w[0] <= w[1]), "{distance:?}");
    let items: std::collections::HashSet<i64> = a.suggestions.iter().map(|s| s.item_id).collect();
    assert_eq!(items.len(), SUGGESTIONS, "one suggestion per item");
    // Before any label they come from the score index: the same items, in the same order,
    // as ranking every score of the run (nearest the line first, ties by item).
    let mut every: Vec<(f64, i64)> =
        store::results::ok_scores_by_item(store.conn(), judged, &["ragvue.clarity"])
            .unwrap()
            .into_iter()
            .map(|s| (0.5 - (s.scores["ragvue.clarity"] - 0.5).abs(), s.item_id))
            .collect();
    every.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let ranked: Vec<i64> = every
        .iter()
        .take(SUGGESTIONS)
        .map(|(_, item)| *item)
        .collect();
    let suggested: Vec<i64> = a.suggestions.iter().map(|s| s.item_id).collect();
    assert_eq!(suggested, ranked);
    assert!(a
        .suggestions
        .iter()
        .all(|s| s.question.starts_with("What is item")));

    let keys = store::run_items::keys(store.conn(), judged).unwrap();
    let first = &keys[0];
    store::human_labels::upsert(
        store.conn(),
        &first.content_hash,
        "reference.token_f1",
        1.0,
        None,
        "test",
    )
    .unwrap();
    let a = align(&store, judged).unwrap();
    assert_eq!(a.labels, 1);
    assert_eq!(a.metrics.len(), 1, "{:?}", a.metrics);
    assert_eq!(a.metrics[0].metric, "reference.token_f1");
    assert!(a
        .suggestions
        .iter()
        .all(|s| s.metric == "reference.token_f1"));
    assert!(a.suggestions.iter().all(|s| s.item_id != first.item_id));
    assert_eq!(a.suggestions.len(), SUGGESTIONS);
}
