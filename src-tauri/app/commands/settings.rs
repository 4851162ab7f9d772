//! Settings → Appearance (the theme) and → Answer correctness examples (the few-shot
//! file runs use).

use ragnosis_api::settings::{self, FewShotSetting, Theme};
use tauri::State;

use crate::error::CommandResult;
use crate::state::AppState;

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
