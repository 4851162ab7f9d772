//! Run comparison, trends across a dataset's runs, and the run's charts (drawn in Rust
//! by the report crate as SVG).

use ragnosis_api::reports::{self, Chart, ComparisonView, TrendRun};
use tauri::State;

use crate::error::CommandResult;
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
    let allow = allow_different_judges.unwrap_or(false);
    Ok(reports::comparison_view(&state, a, b, threshold, allow)?)
}

/// The charts of one run; empty for a run that has not finished.
#[tauri::command(async)]
pub fn run_charts(state: State<'_, AppState>, run_id: i64) -> CommandResult<Vec<Chart>> {
    Ok(reports::charts(&state, run_id)?)
}

/// The finished runs of a dataset, oldest first, with every metric's mean.
#[tauri::command(async)]
pub fn run_trend(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<Vec<TrendRun>> {
    Ok(reports::trend(&state, dataset_id)?)
}
