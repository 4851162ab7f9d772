//! Dataset commands: list what is imported, import the bundled example.
//! Every command is `async` so database work runs off the main (UI) thread.

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::import;
use ragnosis_core::progress::NoProgress;
use ragnosis_core::store::{self, datasets::DatasetRow};
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::state::AppState;

/// The bundled example set, compiled in so "Try the example" works from any install.
const EXAMPLE: &str = include_str!("../../../assets/examples/ragnosis-example.jsonl");
const EXAMPLE_NAME: &str = "Northwind Cycles help desk (example)";

#[tauri::command(async)]
pub fn list_datasets(state: State<'_, AppState>) -> CommandResult<Vec<DatasetRow>> {
    let store = state.store()?;
    Ok(store::datasets::list(store.conn())?)
}

#[tauri::command(async)]
pub fn import_example(state: State<'_, AppState>) -> CommandResult<DatasetRow> {
    let dir = state.home.join("examples");
    std::fs::create_dir_all(&dir).map_err(|e| CommandError::internal(format!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join("ragnosis-example.jsonl");
    std::fs::write(&path, EXAMPLE).map_err(|e| CommandError::internal(format!("cannot write {}: {e}", path.display())))?;
    let mut store = state.store()?;
    let imported = import::import_file(&mut store, &path, Some(EXAMPLE_NAME), &ImportLimits::default(), &NoProgress)?;
    Ok(imported.dataset)
}
