//! Dataset commands: list, import (the bundled example, a dropped file, a file again
//! with the user's mapping), and what the Data screen reads. Paths come from the
//! window, which has no working directory: they must be absolute.

use ragnosis_api::datasets::{
    self, DatasetReport, DatasetRow, FieldOverride, ImportRequest, ItemsPage, MappingPreview,
    Measurable, Removal,
};
use ragnosis_api::{paths, NoProgress};
use tauri::State;

use crate::error::CommandResult;
use crate::state::AppState;

#[tauri::command(async)]
pub fn list_datasets(state: State<'_, AppState>) -> CommandResult<Vec<DatasetRow>> {
    Ok(datasets::list(&state)?)
}

/// What removing a dataset takes with it, for the window's confirmation.
#[tauri::command(async)]
pub fn dataset_removal(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<Removal> {
    Ok(datasets::removal(&state, dataset_id)?)
}

/// Removes a dataset with its items, runs and results (after the window's confirmation).
#[tauri::command(async)]
pub async fn remove_dataset(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<Removal> {
    state
        .blocking(move |ctx| datasets::remove(ctx, dataset_id))
        .await
}

#[tauri::command(async)]
pub fn import_example(state: State<'_, AppState>) -> CommandResult<DatasetReport> {
    Ok(datasets::import_example(&state)?.into())
}

/// Imports a file the user dropped on the window (or chose).
#[tauri::command(async)]
pub fn import_file(state: State<'_, AppState>, path: String) -> CommandResult<DatasetReport> {
    let request = ImportRequest::new(paths::absolute(&path)?);
    Ok(datasets::import(&state, &request, &NoProgress)?.into())
}

/// What importing `path` with the user's mapping would store. Stores nothing.
#[tauri::command(async)]
pub fn preview_mapping(
    path: String,
    overrides: Vec<FieldOverride>,
) -> CommandResult<MappingPreview> {
    let request = ImportRequest::new(paths::absolute(&path)?).with_overrides(overrides)?;
    Ok(datasets::preview_mapping(&request)?)
}

/// Imports `path` again with the user's mapping: a new dataset (the earlier one stays).
#[tauri::command(async)]
pub fn import_mapped(
    state: State<'_, AppState>,
    path: String,
    overrides: Vec<FieldOverride>,
) -> CommandResult<DatasetReport> {
    let request = ImportRequest::new(paths::absolute(&path)?).with_overrides(overrides)?;
    Ok(datasets::import(&state, &request, &NoProgress)?.into())
}

#[tauri::command(async)]
pub fn dataset_report(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<DatasetReport> {
    Ok(datasets::report(&state, dataset_id)?)
}

#[tauri::command(async)]
pub fn dataset_reach(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<Measurable> {
    Ok(datasets::reach(&state, dataset_id)?)
}

#[tauri::command(async)]
pub fn dataset_items(
    state: State<'_, AppState>,
    dataset_id: i64,
    offset: i64,
    limit: i64,
) -> CommandResult<ItemsPage> {
    Ok(datasets::items(&state, dataset_id, offset, limit)?)
}
