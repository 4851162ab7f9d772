//! Comparing two runs and following a dataset's runs over time (the Runs screen): the
//! core's comparison with its flipped-item lists capped (their counts stay exact).

use ragnosis_core::analysis::compare::Comparison;
use serde::Serialize;

/// Flipped items listed per metric and direction; the counts are exact.
pub const FLIPS_LISTED: usize = 50;

pub use ragnosis_report::charts::Chart;

/// Run B against run A, as the Runs screen shows it: the comparison itself, with each
/// metric's flipped-item lists capped at `FLIPS_LISTED` (their counts stay exact), what
/// it says first, and its delta chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ComparisonView {
    /// The runs, how items were matched, each metric's change and the items that moved.
    #[serde(flatten)]
    pub comparison: Comparison,
    /// What the change did to the items, worse first (`ItemChanges::sentence`): the
    /// first line the window shows.
    pub verdict: String,
    /// What changed, in one sentence (`Comparison::headline`).
    pub headline: String,
    /// "by item id" or "by question and ground truth".
    pub matched_by_label: &'static str,
    /// The delta chart, when there is anything to draw.
    pub chart: Option<Chart>,
    /// The experiments tried from run A's actions, read on run B: what the change did to
    /// the items each targeted.
    pub experiments: Vec<ragnosis_core::analysis::experiment::ExperimentCheck>,
}

impl ComparisonView {
    /// The view of comparison `c`, with flipped-item lists capped, and its delta `chart`.
    pub fn new(mut c: Comparison, chart: Option<Chart>) -> Self {
        for m in &mut c.metrics {
            m.to_fail.truncate(FLIPS_LISTED);
            m.to_pass.truncate(FLIPS_LISTED);
        }
        ComparisonView {
            verdict: c.items.sentence(),
            headline: c.headline(),
            matched_by_label: c.matched_by.label(),
            comparison: c,
            chart,
            experiments: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
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
}
