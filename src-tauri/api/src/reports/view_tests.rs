//! The comparison view's capped lists, on a comparison written as JSON.

use super::*;

/// A comparison of one metric on which `flips` items went from pass to fail.
fn comparison(flips: usize) -> Comparison {
    let flipped: Vec<serde_json::Value> = (0..flips)
        .map(|i| {
            serde_json::json!({ "label": format!("#{i}"), "content_hash": "h",
                "item_id_a": i, "item_id_b": i, "score_a": 1.0, "score_b": 0.0 })
        })
        .collect();
    let run = |id: i64| {
        serde_json::json!({ "id": id, "label": null, "version": null,
        "dataset": "d", "judge": "offline", "items": flips, "title": format!("Run {id}") })
    };
    serde_json::from_value(serde_json::json!({
        "a": run(1), "b": run(2), "threshold": 0.05, "resamples": 0, "seed": 0,
        "matched": flips, "only_in_a": 0, "only_in_b": 0,
        "metrics": [{ "metric": "ragvue.clarity", "lower_is_better": false, "pairs": flips,
            "mean_a": 1.0, "mean_b": 0.0, "delta": -1.0, "ci95_low": -1.0, "ci95_high": -1.0,
            "flag": "red", "to_fail": flipped, "to_pass": [], "in_words": "regression",
            "to_fail_count": flips, "to_pass_count": 0 }],
        "metrics_only_in_a": [], "metrics_only_in_b": []
    }))
    .expect("a comparison")
}

#[test]
fn the_window_gets_the_first_flipped_items_and_their_exact_count() {
    let view = ComparisonView::new(comparison(FLIPS_LISTED + 10), None);
    let metric = &view.comparison.metrics[0];
    assert_eq!(metric.to_fail.len(), FLIPS_LISTED);
    assert_eq!(metric.to_fail_count, (FLIPS_LISTED + 10) as u64);
    assert_eq!(view.matched_by_label, "by question and ground truth");
    let json = serde_json::to_value(&view).unwrap();
    assert_eq!(
        json["a"]["title"], "Run 1",
        "the comparison's fields at the top"
    );
    assert_eq!(json["metrics"][0]["in_words"], "regression");
}
