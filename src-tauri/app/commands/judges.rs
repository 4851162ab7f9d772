//! Judge profiles: the built-in offline judge and the stored ones (Settings → Judges).

use ragnosis_core::judge::open as judges;
use ragnosis_core::store;
use tauri::State;

use crate::error::CommandResult;
use crate::models::runs::JudgeProfileInfo;
use crate::state::AppState;

/// The offline judge first, then the stored profiles by name.
#[tauri::command(async)]
pub fn list_judges(state: State<'_, AppState>) -> CommandResult<Vec<JudgeProfileInfo>> {
    let store = state.store()?;
    let mut profiles = vec![JudgeProfileInfo::from(judges::offline_profile())];
    profiles.extend(store::judge_profiles::list(store.conn())?.into_iter().map(JudgeProfileInfo::from));
    Ok(profiles)
}
