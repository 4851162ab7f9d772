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
#[path = "view_tests.rs"]
mod tests;
