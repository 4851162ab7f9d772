//! Experiments ("Try this" on an action of Results), a test set's versions and history
//! (the Data and Runs screens), and the pipeline profile the actions read (Data).

use ragnosis_api::datasets::{self, DatasetProfile, DatasetRow, PipelineProfile};
use ragnosis_api::experiments::{self, ExperimentCheck, ExperimentRow, History};
use tauri::State;

use crate::error::CommandResult;
use crate::state::AppState;

/// Records the change the user will try for `pattern` (a letter) on run `run_id`.
#[tauri::command(async)]
pub fn try_action(
    state: State<'_, AppState>,
    run_id: i64,
    pattern: String,
    change: String,
) -> CommandResult<ExperimentRow> {
    Ok(experiments::try_action(&state, run_id, &pattern, &change)?)
}

/// The experiments tried from the run's actions or checked on the run.
#[tauri::command(async)]
pub fn run_experiments(
    state: State<'_, AppState>,
    run_id: i64,
) -> CommandResult<Vec<ExperimentCheck>> {
    Ok(experiments::of_run(&state, run_id)?)
}

/// Every version of the dataset's test set: runs, regressions, experiments.
#[tauri::command(async)]
pub fn dataset_history(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<History> {
    Ok(experiments::history(&state, dataset_id)?)
}

/// Marks the dataset as the next version of `version_of`'s test set (none: a first
/// version again).
#[tauri::command(async)]
pub fn set_dataset_version(
    state: State<'_, AppState>,
    dataset_id: i64,
    version_of: Option<i64>,
) -> CommandResult<DatasetRow> {
    Ok(datasets::set_version_of(&state, dataset_id, version_of)?)
}

/// The dataset's pipeline profile (its own, or an earlier version's).
#[tauri::command(async)]
pub fn dataset_profile(
    state: State<'_, AppState>,
    dataset_id: i64,
) -> CommandResult<DatasetProfile> {
    Ok(datasets::profile(&state, dataset_id)?)
}

/// Stores the dataset's own pipeline profile (an empty one removes it).
#[tauri::command(async)]
pub fn set_dataset_profile(
    state: State<'_, AppState>,
    dataset_id: i64,
    profile: PipelineProfile,
) -> CommandResult<DatasetProfile> {
    Ok(datasets::set_profile(&state, dataset_id, profile)?)
}
