//! Run comparison, trends across a dataset's runs, and the run's charts (drawn in Rust
//! by the report crate as SVG).

use ragnosis_core::analysis::{self, compare};
use ragnosis_core::export::{ReportOptions, ReportView};
use ragnosis_core::store::{self, runs::RunStatus};
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::compare::{ChartSvg, ComparisonView, TrendPoint};
use crate::models::runs::DatasetMetric;
use crate::state::AppState;

fn chart_error(e: ragnosis_report::Error) -> CommandError {
    match e {
        ragnosis_report::Error::Core(e) => e.into(),
        other => CommandError::new("chart", other.to_string()),
    }
}

/// Run `b` against run `a`: per-metric deltas with 95% intervals, flipped items and
/// red / amber / green flags at `threshold`.
#[tauri::command(async)]
pub fn compare_runs(state: State<'_, AppState>, a: i64, b: i64, threshold: f64) -> CommandResult<ComparisonView> {
    if a == b {
        return Err(CommandError::invalid("choose two different runs to compare"));
    }
    let mut store = state.store()?;
    let comparison = compare::compare_runs(&store, a, b, threshold)?;
    let options = ReportOptions { baseline: Some(a), threshold, worst: 0, ..ReportOptions::default() };
    let view = ReportView::load(&mut store, b, &options)?;
    let chart = ragnosis_report::charts::for_report(&view)
        .map_err(chart_error)?
        .into_iter()
        .find(|c| c.file == "deltas.svg")
        .map(ChartSvg::from);
    Ok(ComparisonView::new(comparison, chart))
}

/// The charts of one run: metric means with intervals, score distributions, failure
/// patterns. Empty for a run that has not finished.
#[tauri::command(async)]
pub fn run_charts(state: State<'_, AppState>, run_id: i64) -> CommandResult<Vec<ChartSvg>> {
    let mut store = state.store()?;
    if store::runs::get(store.conn(), run_id)?.status != RunStatus::Done {
        return Ok(Vec::new());
    }
    let view = ReportView::load(&mut store, run_id, &ReportOptions { worst: 0, ..ReportOptions::default() })?;
    Ok(ragnosis_report::charts::for_report(&view).map_err(chart_error)?.into_iter().map(ChartSvg::from).collect())
}

/// The finished runs of a dataset, oldest first, with every metric's mean.
#[tauri::command(async)]
pub fn run_trend(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<Vec<TrendPoint>> {
    let store = state.store()?;
    store::datasets::get(store.conn(), dataset_id)?;
    let mut points = Vec::new();
    for run in store::runs::list(store.conn())?.into_iter().rev() {
        if run.dataset_id != dataset_id || run.status != RunStatus::Done {
            continue;
        }
        let Some(json) = store::analyses::get(store.conn(), run.id, analysis::SUMMARY)? else { continue };
        let Ok(summary) = serde_json::from_value::<analysis::RunSummary>(json) else { continue };
        points.push(TrendPoint {
            title: run.label.clone().unwrap_or_else(|| format!("Run {}", run.id)),
            run_id: run.id,
            version: run.version,
            created_at: run.created_at,
            means: summary
                .metrics
                .iter()
                .filter_map(|(id, m)| m.stats.mean.map(|value| DatasetMetric { metric: id.clone(), value }))
                .collect(),
        });
    }
    Ok(points)
}
