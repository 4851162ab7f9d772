//! Evaluate commands: the metric catalogue, the plan of a run before it starts, and
//! starting, resuming and cancelling runs in the background (progress over the
//! `Channel` the window passes in, ending with one `ended`).

use ragnosis_api::jobs::JobEvent;
use ragnosis_api::runs::{self, MetricSpec, RunPlan, RunRequest};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::CommandResult;
use crate::progress::watcher;
use crate::state::AppState;

/// The catalogue, then the user's own criteria (`criteria.<name>`).
#[tauri::command(async)]
pub fn list_metrics(state: State<'_, AppState>) -> CommandResult<Vec<MetricSpec>> {
    Ok(runs::metrics(&state)?)
}

/// What the run would do: items, metric evaluations, judge calls, tokens, cost, time.
#[tauri::command(async)]
pub fn preview_run(state: State<'_, AppState>, request: RunRequest) -> CommandResult<RunPlan> {
    Ok(runs::preview(&state, &request)?)
}

/// Plans the run, starts it in the background and returns its id at once.
#[tauri::command(async)]
pub fn start_run(
    state: State<'_, AppState>,
    request: RunRequest,
    on_progress: Channel<JobEvent>,
) -> CommandResult<i64> {
    Ok(runs::start(&state, &request, watcher(on_progress))?)
}

/// Continues a run that stopped (cancelled, failed, or left running by a closed app).
#[tauri::command(async)]
pub fn resume_run(
    state: State<'_, AppState>,
    run_id: i64,
    on_progress: Channel<JobEvent>,
) -> CommandResult<()> {
    Ok(runs::resume(&state, run_id, watcher(on_progress))?)
}

/// Asks an executing run to stop after the items in flight; it stays resumable.
#[tauri::command(async)]
pub fn cancel_run(state: State<'_, AppState>, run_id: i64) -> CommandResult<()> {
    Ok(runs::cancel(&state, run_id)?)
}
