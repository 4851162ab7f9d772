//! Judge profiles (Settings → Judges): the built-in offline judge and the stored ones,
//! each profile's key (stored / forgotten, never read back to the window), a
//! connection test, model discovery, local servers, and the judge check.

use ragnosis_api::jobs::JobEvent;
use ragnosis_api::judges::{
    self, ConnectionCheck, JudgeCheckView, JudgeProfileInfo, KeyStatus, LocalJudge,
    OfflineJudgeStatus,
};
use serde_json::Value;
use tauri::ipc::Channel;
use tauri::State;

use crate::error::CommandResult;
use crate::progress::progress;
use crate::state::AppState;

/// The offline judge first, then the stored profiles by name.
#[tauri::command(async)]
pub fn list_judges(state: State<'_, AppState>) -> CommandResult<Vec<JudgeProfileInfo>> {
    Ok(judges::list(&state)?)
}

/// The profile arrives as JSON so a field the core refuses (an unknown kind) comes back
/// as `invalid` with the core's sentence, the same as `ragnosis judges add` prints.
/// `key_on_new_host`: what to do with a stored key when the address moved to another
/// host (absent: refuse with `secret.host_changed`, and the window asks).
#[tauri::command(async)]
pub fn save_judge(
    state: State<'_, AppState>,
    profile: Value,
    key_on_new_host: Option<judges::KeyOnNewHost>,
) -> CommandResult<JudgeProfileInfo> {
    Ok(judges::save(
        &state,
        judges::profile_from_json(profile)?,
        key_on_new_host.unwrap_or_default(),
    )?)
}

/// Deletes a profile and forgets its key.
#[tauri::command(async)]
pub fn delete_judge(state: State<'_, AppState>, name: String) -> CommandResult<()> {
    Ok(judges::delete(&state, &name)?)
}

#[tauri::command(async)]
pub fn judge_key_status(state: State<'_, AppState>, name: String) -> CommandResult<KeyStatus> {
    Ok(judges::key_status(&state, &name)?)
}

/// Stores `key` for the profile. The key goes in and never comes back.
#[tauri::command(async)]
pub fn store_judge_key(
    state: State<'_, AppState>,
    name: String,
    key: String,
) -> CommandResult<KeyStatus> {
    Ok(judges::store_key(&state, &name, key)?)
}

#[tauri::command(async)]
pub fn forget_judge_key(state: State<'_, AppState>, name: String) -> CommandResult<KeyStatus> {
    Ok(judges::forget_key(&state, &name)?)
}

/// One tiny judge call through the profile as the form has it (saved or not).
#[tauri::command]
pub async fn test_judge(
    state: State<'_, AppState>,
    profile: Value,
) -> CommandResult<ConnectionCheck> {
    let profile = judges::profile_from_json(profile)?;
    state.blocking(|ctx| judges::test(ctx, profile)).await
}

/// The models (Azure: deployments) the profile's service offers.
#[tauri::command]
pub async fn discover_judge_models(
    state: State<'_, AppState>,
    profile: Value,
) -> CommandResult<Vec<String>> {
    let profile = judges::profile_from_json(profile)?;
    state.blocking(|ctx| judges::models(ctx, profile)).await
}

/// Model servers on their default local ports, each with a profile ready to save.
#[tauri::command]
pub async fn detect_local_judges(state: State<'_, AppState>) -> CommandResult<Vec<LocalJudge>> {
    state.blocking(judges::detect).await
}

#[tauri::command(async)]
pub fn offline_judge_status() -> OfflineJudgeStatus {
    judges::offline_status()
}

/// The latest judge check of every profile, marked `current` when it still describes it.
#[tauri::command(async)]
pub fn judge_checks(state: State<'_, AppState>) -> CommandResult<Vec<JudgeCheckView>> {
    Ok(judges::latest_checks(&state)?)
}

/// Runs the judge check for a profile, progress on the channel; the figures are kept.
/// `cancel_judge_check` stops it.
#[tauri::command]
pub async fn run_judge_check(
    state: State<'_, AppState>,
    profile: String,
    on_progress: Channel<JobEvent>,
) -> CommandResult<JudgeCheckView> {
    let judge = judges::open_for_check(&state, &profile)?;
    let progress = progress(on_progress);
    let check = state
        .blocking(move |ctx| judges::run_check_job(ctx, judge, false, progress))
        .await?;
    Ok(JudgeCheckView::new(&check, true))
}

/// Asks the running judge check of a profile to stop after the calls in flight.
#[tauri::command(async)]
pub fn cancel_judge_check(state: State<'_, AppState>, profile: String) -> CommandResult<()> {
    Ok(judges::cancel_check(&state, &profile)?)
}
