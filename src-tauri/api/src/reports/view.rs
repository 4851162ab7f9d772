//! Comparing two runs and following a dataset's runs over time (the Runs screen). Mapped
//! from `analysis::compare`; flipped-item lists are capped, with their counts.

use ragnosis_core::analysis::compare::items::ItemChanges;
use ragnosis_core::analysis::compare::{Comparison, MetricDelta, RunRef};
use serde::Serialize;

/// Flipped items listed per metric and direction; the counts are exact.
pub const FLIPS_LISTED: usize = 50;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunSide {
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
    #[serde(flatten)]
    pub delta: MetricDelta,
    /// The change in words (`MetricDelta::verdict`): "no change", "better on 3 changed
    /// items", "regression", "within noise", …
    pub verdict: String,
    pub to_fail_count: u64,
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
    pub file: String,
    pub title: String,
    pub caption: String,
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
    pub a: RunSide,
    pub b: RunSide,
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
    pub only_in_a: u64,
    pub only_in_b: u64,
    pub metrics: Vec<DeltaRow>,
    pub metrics_only_in_a: Vec<String>,
    pub metrics_only_in_b: Vec<String>,
    /// The delta chart, when there is anything to draw.
    pub chart: Option<ChartSvg>,
}

impl ComparisonView {
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
        }
    }
}

/// One finished run of a dataset with its metric means, for the trend chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrendPoint {
    pub run_id: i64,
    pub title: String,
    pub version: Option<String>,
    pub created_at: String,
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
