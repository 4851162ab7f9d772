//! Settings → Appearance (the theme), → Answer correctness examples (the few-shot file
//! runs use) and → the database (its check, and why it could not be opened at start).

use ragnosis_api::settings::{self, FewShotSetting, Health, Theme};
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::state::AppState;

/// Why the database could not be opened when the window started (null when it opened):
/// the window shows it in place of its screens, with what to do.
#[tauri::command(async)]
pub fn startup_problem(state: State<'_, AppState>) -> CommandResult<Option<CommandError>> {
    Ok(state.startup_problem())
}

/// Checks the database file whole and keeps a copy of it in the home's `backups/`.
#[tauri::command(async)]
pub async fn check_database(state: State<'_, AppState>) -> CommandResult<Health> {
    state.blocking(|ctx| settings::doctor(ctx, true)).await
}

#[tauri::command(async)]
pub fn get_theme(state: State<'_, AppState>) -> CommandResult<Theme> {
    Ok(settings::theme(&state)?)
}

#[tauri::command(async)]
pub fn set_theme(state: State<'_, AppState>, theme: Theme) -> CommandResult<Theme> {
    Ok(settings::set_theme(&state, theme)?)
}

#[tauri::command(async)]
pub fn get_few_shot(state: State<'_, AppState>) -> CommandResult<FewShotSetting> {
    Ok(settings::few_shot(&state)?)
}

/// Chooses a few-shot file, or the shipped examples when `path` is empty.
#[tauri::command(async)]
pub fn set_few_shot(
    state: State<'_, AppState>,
    path: Option<String>,
) -> CommandResult<FewShotSetting> {
    Ok(settings::set_few_shot(&state, path.as_deref())?)
}
