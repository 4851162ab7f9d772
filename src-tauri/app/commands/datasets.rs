//! Dataset commands: list, import (the bundled example or a dropped file), and what the
//! Data screen reads: the validation report, what can be measured, preview pages.
//! Every command is `async` so database work runs off the main (UI) thread.

use std::path::Path;

use ragnosis_core::dataset::{self, FieldMap, FieldOverride, ImportLimits, ValidationReport};
use ragnosis_core::progress::NoProgress;
use ragnosis_core::store;
use ragnosis_core::store::datasets::DatasetRow;
use ragnosis_core::{import, measurable};
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::datasets::{
    DatasetReach, DatasetReport, ItemPreview, ItemsPage, MappingPreview, Report,
    MAPPING_PREVIEW_ITEMS,
};
use crate::state::AppState;

/// The bundled example set, compiled in so "Try the example" works from any install.
const EXAMPLE: &str = include_str!("../../../assets/examples/ragnosis-example.jsonl");
const EXAMPLE_NAME: &str = "Northwind Cycles help desk (example)";

/// The most preview rows one call returns.
const MAX_PREVIEW: i64 = 200;

#[tauri::command(async)]
pub fn list_datasets(state: State<'_, AppState>) -> CommandResult<Vec<DatasetRow>> {
    let store = state.store()?;
    Ok(store::datasets::list(store.conn())?)
}

#[tauri::command(async)]
pub fn import_example(state: State<'_, AppState>) -> CommandResult<DatasetReport> {
    let dir = state.home.join("examples");
    std::fs::create_dir_all(&dir)
        .map_err(|e| CommandError::internal(format!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join("ragnosis-example.jsonl");
    std::fs::write(&path, EXAMPLE)
        .map_err(|e| CommandError::internal(format!("cannot write {}: {e}", path.display())))?;
    import_path(&state, &path, Some(EXAMPLE_NAME))
}

/// Imports a file the user dropped on the window (or chose). The path must be absolute:
/// the window has no working directory a relative path could mean.
#[tauri::command(async)]
pub fn import_file(state: State<'_, AppState>, path: String) -> CommandResult<DatasetReport> {
    import_path(&state, absolute(&path)?, None)
}

fn absolute(path: &str) -> CommandResult<&Path> {
    let path = Path::new(path);
    if !path.is_absolute() {
        return Err(CommandError::invalid(format!(
            "'{}' is not an absolute path",
            path.display()
        )));
    }
    Ok(path)
}

fn field_map(overrides: Vec<FieldOverride>) -> CommandResult<FieldMap> {
    // A field left empty in the editor means "as detected".
    let map = FieldMap {
        overrides: overrides
            .into_iter()
            .filter(|o| !o.path.trim().is_empty())
            .collect(),
        scores_file: None,
    };
    map.check().map_err(CommandError::invalid)?;
    Ok(map)
}

/// Reads `path` with the user's mapping without storing anything: the report it would
/// get and its first items, so the Data screen's mapping editor can show the result.
#[tauri::command(async)]
pub fn preview_mapping(
    path: String,
    overrides: Vec<FieldOverride>,
) -> CommandResult<MappingPreview> {
    let map = field_map(overrides)?;
    let mut items = Vec::new();
    let report =
        dataset::read_items_mapped(absolute(&path)?, &ImportLimits::default(), &map, |a| {
            if items.len() < MAPPING_PREVIEW_ITEMS {
                items.push(a);
            }
            Ok(())
        })
        .map_err(ragnosis_core::Error::Dataset)?;
    Ok(MappingPreview::new(report, items))
}

/// Imports `path` again with the user's mapping: a new dataset (the earlier one stays).
#[tauri::command(async)]
pub fn import_mapped(
    state: State<'_, AppState>,
    path: String,
    overrides: Vec<FieldOverride>,
) -> CommandResult<DatasetReport> {
    let map = field_map(overrides)?;
    import_path_mapped(&state, absolute(&path)?, None, &map)
}

fn import_path(state: &AppState, path: &Path, name: Option<&str>) -> CommandResult<DatasetReport> {
    import_path_mapped(state, path, name, &FieldMap::default())
}

fn import_path_mapped(
    state: &AppState,
    path: &Path,
    name: Option<&str>,
    map: &FieldMap,
) -> CommandResult<DatasetReport> {
    // Its own connection: a large import must not stop the window from reading.
    let mut store = state.open_store()?;
    let imported = import::import_file_mapped(
        &mut store,
        path,
        name,
        &ImportLimits::default(),
        map,
        &NoProgress,
    )?;
    let imported = import::refuse_empty(&store, path, imported)?;
    Ok(DatasetReport {
        dataset: imported.dataset,
        report: Some(imported.report.into()),
        reused: imported.reused,
    })
}

#[tauri::command(async)]
pub fn dataset_report(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<DatasetReport> {
    let store = state.store()?;
    let dataset = store::datasets::get(store.conn(), dataset_id)?;
    let json = store::datasets::report_json(store.conn(), dataset_id)?;
    // A dataset stored before reports were kept has "{}": no report rather than an error.
    let report = serde_json::from_str::<ValidationReport>(&json)
        .ok()
        .filter(|r| !r.file.is_empty())
        .map(Report::from);
    Ok(DatasetReport {
        dataset,
        report,
        reused: false,
    })
}

#[tauri::command(async)]
pub fn dataset_reach(state: State<'_, AppState>, dataset_id: i64) -> CommandResult<DatasetReach> {
    // Reads every item once: its own connection, so a large dataset does not hold up others.
    let store = state.open_store()?;
    Ok(measurable::for_dataset(&store, dataset_id)?.into())
}

#[tauri::command(async)]
pub fn dataset_items(
    state: State<'_, AppState>,
    dataset_id: i64,
    offset: i64,
    limit: i64,
) -> CommandResult<ItemsPage> {
    let store = state.store()?;
    let conn = store.conn();
    store::datasets::get(conn, dataset_id)?;
    let offset = offset.max(0);
    let items = store::items::page(conn, dataset_id, offset, limit.clamp(1, MAX_PREVIEW))?;
    Ok(ItemsPage {
        total: store::items::count(conn, dataset_id)?,
        offset,
        items: items.into_iter().map(ItemPreview::from).collect(),
    })
}
