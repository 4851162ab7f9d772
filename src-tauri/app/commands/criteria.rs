//! Settings → Your criteria: the stored criteria, the three shipped examples to copy,
//! saving (a changed text makes a new version), removing, and trying a draft on the
//! first items of a dataset with a chosen judge before saving it. Thin wrappers over
//! `ragnosis_core::{criteria, store::criteria, run::criteria}`.

use ragnosis_core::criteria::{self, Definition};
use ragnosis_core::judge::open as judges;
use ragnosis_core::judge::CallContext;
use ragnosis_core::run;
use ragnosis_core::store::{self, Store};
use ragnosis_core::ErrorCode;
use serde_json::Value;
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::criteria::{CriterionInfo, CriterionTrial, SavedCriterion};
use crate::state::AppState;

/// The definition the editor sent, read here so a wrong field comes back as `invalid`
/// with the core's sentence (the same `ragnosis criteria import` prints).
fn read_definition(definition: Value) -> CommandResult<Definition> {
    let def: Definition = serde_json::from_value(definition)
        .map_err(|e| CommandError::invalid(format!("the criterion cannot be read: {e}")))?;
    criteria::validate(&def).map_err(CommandError::invalid)?;
    Ok(def)
}

/// The user's criteria, by name (latest versions).
#[tauri::command(async)]
pub fn list_criteria(state: State<'_, AppState>) -> CommandResult<Vec<CriterionInfo>> {
    let store = state.store()?;
    Ok(store::criteria::list(store.conn(), false)?
        .into_iter()
        .map(CriterionInfo::from)
        .collect())
}

/// The three shipped examples (tone, no promises beyond the passages, cites the
/// section), to copy into the editor.
#[tauri::command(async)]
pub fn criterion_examples() -> Vec<Definition> {
    criteria::examples::shipped()
}

/// Stores the criterion: its next version when the text changed, nothing when it did not.
#[tauri::command(async)]
pub fn save_criterion(
    state: State<'_, AppState>,
    definition: Value,
) -> CommandResult<SavedCriterion> {
    let def = read_definition(definition)?;
    let store = state.store()?;
    let (version, saved) = store::criteria::save(store.conn(), &def)?;
    let stored = store::criteria::get(store.conn(), def.name.trim(), version)?;
    criteria::registry::register(&stored.definition);
    Ok(SavedCriterion {
        saved,
        criterion: stored.into(),
    })
}

/// Removes a criterion; runs that used it still report it.
#[tauri::command(async)]
pub fn delete_criterion(state: State<'_, AppState>, name: String) -> CommandResult<()> {
    let store = state.store()?;
    if store::criteria::remove(store.conn(), &name)? {
        Ok(())
    } else {
        Err(CommandError::new(
            ErrorCode::NotFound,
            format!("criterion {name} does not exist"),
        ))
    }
}

/// Scores the draft on the first items of `dataset_id` with the judge profile `judge`,
/// storing nothing: the scores and the judge's reasons, and what the calls cost.
#[tauri::command]
pub async fn try_criterion(
    state: State<'_, AppState>,
    definition: Value,
    dataset_id: i64,
    judge: String,
) -> CommandResult<CriterionTrial> {
    let def = read_definition(definition)?;
    let opened = {
        let store = state.store()?;
        judges::open_judge(&store, &judge, state.secrets.as_ref())?
    };
    let home = state.home.clone();
    let draft = def.clone();
    let trial = tauri::async_runtime::spawn_blocking(move || {
        let store = Store::open(&home)?;
        run::criteria::trial(&store, &draft, dataset_id, opened, &CallContext::default())
    })
    .await
    .map_err(|e| CommandError::internal(format!("the trial stopped unexpectedly: {e}")))??;
    Ok(CriterionTrial::new(judge, &def, trial))
}
