//! Settings → Your criteria: the stored criteria, the shipped examples, saving (a
//! changed text makes a new version), removing, and trying a draft before saving it.

use ragnosis_api::criteria::{self, CriterionInfo, CriterionTrial, Definition, SavedCriterion};
use serde_json::Value;
use tauri::State;

use crate::error::CommandResult;
use crate::state::AppState;

#[tauri::command(async)]
pub fn list_criteria(state: State<'_, AppState>) -> CommandResult<Vec<CriterionInfo>> {
    Ok(criteria::list(&state)?)
}

#[tauri::command(async)]
pub fn criterion_examples() -> Vec<Definition> {
    criteria::examples()
}

/// The definition arrives as JSON so a wrong field is refused with the core's sentence.
#[tauri::command(async)]
pub fn save_criterion(
    state: State<'_, AppState>,
    definition: Value,
) -> CommandResult<SavedCriterion> {
    Ok(criteria::save(&state, &criteria::from_json(definition)?)?)
}

#[tauri::command(async)]
pub fn delete_criterion(state: State<'_, AppState>, name: String) -> CommandResult<()> {
    Ok(criteria::delete(&state, &name)?)
}

/// Scores the draft on the first items of `dataset_id` with `judge`, storing nothing.
#[tauri::command]
pub async fn try_criterion(
    state: State<'_, AppState>,
    definition: Value,
    dataset_id: i64,
    judge: String,
) -> CommandResult<CriterionTrial> {
    let draft = criteria::from_json(definition)?;
    state
        .blocking(move |ctx| criteria::try_draft(ctx, &draft, dataset_id, &judge))
        .await
}
