//! Run history and one run's summary (the Runs screen and the top of Results).

use std::collections::HashMap;

use ragnosis_core::analysis::{self, RunSummary};
use ragnosis_core::export::trust;
use ragnosis_core::run::RunTotals;
use ragnosis_core::store::{self, runs::RunRow, runs::RunStatus, Store};
use tauri::State;

use crate::error::CommandResult;
use crate::models::runs::{RunDetail, RunInfo, SummaryView};
use crate::state::AppState;

fn stored_summary(store: &Store, run_id: i64) -> CommandResult<Option<RunSummary>> {
    Ok(
        store::analyses::get(store.conn(), run_id, analysis::SUMMARY)?
            .and_then(|json| serde_json::from_value(json).ok()),
    )
}

fn info(
    store: &Store,
    state: &AppState,
    run: RunRow,
    dataset_name: String,
    summary: Option<&RunSummary>,
) -> CommandResult<RunInfo> {
    let totals: RunTotals = store::runs::totals(store.conn(), run.id)?;
    // Active here, or evaluating in another process (the CLI) on the same database:
    // either way not interrupted, and not resumable from this window.
    let active = state.runs.is_active(run.id)
        || (run.status == RunStatus::Running
            && ragnosis_core::run::owner::is_evaluating(store, run.id));
    Ok(RunInfo::new(run, dataset_name, active, totals, summary))
}

/// Every run, newest first, with its key scores when it has a stored summary.
#[tauri::command(async)]
pub fn list_runs(state: State<'_, AppState>) -> CommandResult<Vec<RunInfo>> {
    let store = state.store()?;
    let mut names: HashMap<i64, String> = HashMap::new();
    let mut rows = Vec::new();
    for run in store::runs::list(store.conn())? {
        let name = match names.get(&run.dataset_id) {
            Some(name) => name.clone(),
            None => {
                let name = store::datasets::get(store.conn(), run.dataset_id)?.name;
                names.insert(run.dataset_id, name.clone());
                name
            }
        };
        // Only a finished run's stored summary is current (resume recomputes it at the end).
        let summary = if run.status == RunStatus::Done {
            stored_summary(&store, run.id)?
        } else {
            None
        };
        rows.push(info(&store, &state, run, name, summary.as_ref())?);
    }
    Ok(rows)
}

/// One run with its statistics and diagnosis. A run that has not finished is
/// summarised from what it has stored so far, and marked partial.
#[tauri::command(async)]
pub fn get_run(state: State<'_, AppState>, run_id: i64) -> CommandResult<RunDetail> {
    let mut store = state.store()?;
    let run = store::runs::get(store.conn(), run_id)?;
    let dataset = store::datasets::get(store.conn(), run.dataset_id)?;
    let partial = run.status != RunStatus::Done;
    let summary = if partial {
        analysis::summarize(&store, run_id)?
    } else {
        analysis::load_summary(&mut store, run_id)?
    };
    let order = run.metrics.clone();
    let insights = analysis::insights::load(&store, run_id)?;
    let trust = trust::statement(&store, &run, &summary)?;
    let criteria = ragnosis_core::export::criteria_view::load(&store, &run, &summary)?;
    let run = info(&store, &state, run, dataset.name, Some(&summary))?;
    Ok(RunDetail {
        run,
        summary: Some(SummaryView::new(summary, &order, insights)),
        partial,
        trust,
        criteria,
    })
}
