//! Comparing two runs and following a dataset's runs over time (the Runs screen). Mapped
//! from `analysis::compare`; flipped-item lists are capped, with their counts.

use ragnosis_core::analysis::compare::items::ItemChanges;
use ragnosis_core::analysis::compare::{Comparison, MetricDelta, RunRef};
use serde::Serialize;

/// Flipped items listed per metric and direction; the counts are exact.
pub const FLIPS_LISTED: usize = 50;

/// One side of a comparison: the run and its title.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunSide {
    /// The run's id, label, version, dataset name, judge and item count.
    #[serde(flatten)]
    pub run: RunRef,
    /// "Run 3 (baseline, v1.2)".
    pub title: String,
}

impl From<RunRef> for RunSide {
    fn from(run: RunRef) -> Self {
        RunSide {
            title: run.title(),
            run,
        }
    }
}

/// One metric's change as the Runs screen lists it: the comparison's own `MetricDelta`
/// with its flipped-item lists capped at `FLIPS_LISTED` (the counts stay exact) and the
/// change in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeltaRow {
    /// Means, their difference with its 95% interval, the flag and the flipped items (lists
    /// capped at `FLIPS_LISTED`).
    #[serde(flatten)]
    pub delta: MetricDelta,
    /// The change in words (`MetricDelta::verdict`): "no change", "better on 3 changed
    /// items", "regression", "within noise", …
    pub verdict: String,
    /// Items that passed in A and failed in B, in all.
    pub to_fail_count: u64,
    /// Items that failed in A and passed in B, in all.
    pub to_pass_count: u64,
}

impl DeltaRow {
    fn new(mut delta: MetricDelta, threshold: f64) -> Self {
        let (to_fail_count, to_pass_count) = (delta.to_fail.len(), delta.to_pass.len());
        delta.to_fail.truncate(FLIPS_LISTED);
        delta.to_pass.truncate(FLIPS_LISTED);
        DeltaRow {
            verdict: delta.verdict(threshold),
            to_fail_count: to_fail_count as u64,
            to_pass_count: to_pass_count as u64,
            delta,
        }
    }
}

/// A chart drawn in Rust (plotters, SVG) by the report crate. The window shows it as an
/// image (`<img src="data:image/svg+xml;base64,…">`), never as markup in the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChartSvg {
    /// The file name it has beside a Markdown report ("deltas.svg").
    pub file: String,
    /// The heading above the chart.
    pub title: String,
    /// One sentence under the chart saying how to read it.
    pub caption: String,
    /// The SVG document, as text.
    pub svg: String,
}

impl From<ragnosis_report::charts::Chart> for ChartSvg {
    fn from(c: ragnosis_report::charts::Chart) -> Self {
        ChartSvg {
            file: c.file.to_string(),
            title: c.title,
            caption: c.caption,
            svg: c.svg,
        }
    }
}

/// Run B against run A.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ComparisonView {
    /// Run A, the baseline.
    pub a: RunSide,
    /// Run B, compared against A.
    pub b: RunSide,
    /// How far a mean must worsen before it is flagged, on the 0–1 score scale.
    pub threshold: f64,
    /// Items of A with a match in B.
    pub matched: u64,
    /// "by item id" or "by question and ground truth".
    pub matched_by: String,
    /// Matched pairs whose answer or contexts differ between the runs.
    pub changed: u64,
    /// What the change did to the items, worse first (`ItemChanges::sentence`): the
    /// first line the window shows.
    pub verdict: String,
    /// The items that got worse, improved or changed their problem.
    pub items: ItemChanges,
    /// What changed, in one sentence (`Comparison::headline`).
    pub headline: String,
    /// How the runs were judged differently, when compared anyway; empty when alike.
    pub judged_differently: Vec<String>,
    /// Items of A with no match in B.
    pub only_in_a: u64,
    /// Items of B with no match in A.
    pub only_in_b: u64,
    /// Metrics both runs scored per item, in catalogue order.
    pub metrics: Vec<DeltaRow>,
    /// Metrics only run A scored.
    pub metrics_only_in_a: Vec<String>,
    /// Metrics only run B scored.
    pub metrics_only_in_b: Vec<String>,
    /// The delta chart, when there is anything to draw.
    pub chart: Option<ChartSvg>,
    /// The experiments tried from run A's actions, read on run B: what the change did to
    /// the items each targeted.
    pub experiments: Vec<ragnosis_core::analysis::experiment::ExperimentCheck>,
}

impl ComparisonView {
    /// The view of comparison `c`, with flipped-item lists capped, and its delta `chart`.
    pub fn new(c: Comparison, chart: Option<ChartSvg>) -> Self {
        ComparisonView {
            verdict: c.items.sentence(),
            headline: c.headline(),
            judged_differently: c.judged_differently.clone(),
            a: c.a.into(),
            b: c.b.into(),
            threshold: c.threshold,
            matched: c.matched,
            matched_by: c.matched_by.label().to_string(),
            changed: c.changed,
            only_in_a: c.only_in_a,
            only_in_b: c.only_in_b,
            metrics: c
                .metrics
                .into_iter()
                .map(|m| DeltaRow::new(m, c.threshold))
                .collect(),
            metrics_only_in_a: c.metrics_only_in_a,
            metrics_only_in_b: c.metrics_only_in_b,
            items: c.items,
            chart,
            experiments: Vec::new(),
        }
    }
}

/// One finished run of a dataset with its metric means, for the trend chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrendPoint {
    /// The run's id in the store.
    pub run_id: i64,
    /// What people call the run: its label, or "Run 3".
    pub title: String,
    /// The version the run was labelled with, when it was.
    pub version: Option<String>,
    /// When the run was created, RFC 3339 UTC.
    pub created_at: String,
    /// The mean of each metric that scored at least one item.
    pub means: Vec<crate::runs::DatasetMetric>,
}

impl From<ragnosis_core::analysis::trend::TrendRun> for TrendPoint {
    fn from(t: ragnosis_core::analysis::trend::TrendRun) -> Self {
        TrendPoint {
            run_id: t.run.id,
            title: t.run.name(),
            version: t.run.version,
            created_at: t.run.created_at,
            means: t
                .means
                .into_iter()
                .map(|(metric, value)| crate::runs::DatasetMetric { metric, value })
                .collect(),
        }
    }
}
