//! Settings → Appearance (the theme) and → Answer correctness examples (the few-shot
//! file runs started from the window use), kept in the store's settings table.

use std::path::Path;

use ragnosis_core::judge::few_shot;
use ragnosis_core::store;
use tauri::State;

use crate::error::CommandResult;
use crate::models::settings::{FewShotSetting, Theme};
use crate::state::AppState;

const THEME: &str = "theme";

#[tauri::command(async)]
pub fn get_theme(state: State<'_, AppState>) -> CommandResult<Theme> {
    let store = state.store()?;
    Ok(store::settings::get(store.conn(), THEME)?
        .map(|t| Theme::parse(&t))
        .unwrap_or(Theme::System))
}

#[tauri::command(async)]
pub fn set_theme(state: State<'_, AppState>, theme: Theme) -> CommandResult<Theme> {
    let store = state.store()?;
    store::settings::set(store.conn(), THEME, theme.as_str())?;
    Ok(theme)
}

/// The few-shot file runs use, and how many examples it holds now (or why it cannot be
/// read any more).
#[tauri::command(async)]
pub fn get_few_shot(state: State<'_, AppState>) -> CommandResult<FewShotSetting> {
    let store = state.store()?;
    let path = few_shot::chosen_file(&store)?;
    Ok(match few_shot::for_new_run(&store) {
        Ok(examples) => FewShotSetting::new(path.as_deref(), examples.len(), None),
        Err(e) => FewShotSetting::new(path.as_deref(), 0, Some(e.to_string())),
    })
}

/// Chooses a few-shot file (read and checked first: a bad line is refused with its
/// number and nothing changes), or the shipped examples when `path` is empty.
#[tauri::command(async)]
pub fn set_few_shot(
    state: State<'_, AppState>,
    path: Option<String>,
) -> CommandResult<FewShotSetting> {
    let store = state.store()?;
    let path = path.filter(|p| !p.trim().is_empty());
    let chosen = path.as_deref().map(|p| Path::new(p.trim()));
    let examples = few_shot::choose_file(&store, chosen)?;
    Ok(FewShotSetting::new(chosen, examples.len(), None))
}
