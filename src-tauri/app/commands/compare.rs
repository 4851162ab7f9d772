//! Run comparison, trends across a dataset's runs, and the run's charts (drawn in Rust
//! by the report crate as SVG).

use ragnosis_core::analysis::{self, compare};
use ragnosis_core::export::{Detail, ReportOptions, ReportView};
use ragnosis_core::store::{self, runs::RunStatus};
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::compare::{ChartSvg, ComparisonView, TrendPoint};
use crate::state::AppState;

/// Run `b` against run `a`: per-metric deltas with 95% intervals, flipped items and
/// red / amber / green flags at `threshold`.
#[tauri::command(async)]
pub fn compare_runs(
    state: State<'_, AppState>,
    a: i64,
    b: i64,
    threshold: f64,
    allow_different_judges: Option<bool>,
) -> CommandResult<ComparisonView> {
    let allow_different_judges = allow_different_judges.unwrap_or(false);
    if a == b {
        return Err(CommandError::invalid(
            "choose two different runs to compare",
        ));
    }
    let mut store = state.store()?;
    let comparison = compare::compare_runs(&store, a, b, threshold, allow_different_judges)?;
    let options = ReportOptions {
        baseline: Some(a),
        threshold,
        allow_different_judges,
        worst: 0,
        ..ReportOptions::default()
    };
    let view = ReportView::load(&mut store, b, &options)?;
    let chart = ragnosis_report::charts::for_report(&view)?
        .into_iter()
        .find(|c| c.file == ragnosis_report::charts::deltas::FILE)
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
    let view = ReportView::load(
        &mut store,
        run_id,
        &ReportOptions {
            worst: 0,
            // The Results screen shows every chart; only a report is short by default.
            detail: Detail::Full,
            ..ReportOptions::default()
        },
    )?;
    Ok(ragnosis_report::charts::for_report(&view)?
        .into_iter()
        .map(ChartSvg::from)
        .collect())
}

/// The finished runs of a dataset, oldest first, with every metric's mean.
#[tauri::command(async)]
pub fn run_trend(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<Vec<TrendPoint>> {
    let store = state.store()?;
    Ok(analysis::trend::of_dataset(store.conn(), dataset_id)?
        .into_iter()
        .map(TrendPoint::from)
        .collect())
}
