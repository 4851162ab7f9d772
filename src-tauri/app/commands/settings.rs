//! Settings → Appearance: the theme, kept in the store's settings table.

use ragnosis_core::store;
use tauri::State;

use crate::error::CommandResult;
use crate::models::settings::Theme;
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
