//! Judge profiles (Settings → Judges): the built-in offline judge and the stored ones;
//! each profile's key in the OS keyring (stored / forgotten, never read back to the
//! window); a one-call connection test; model discovery.

use ragnosis_core::ErrorCode;
use std::sync::Arc;

use ragnosis_core::judge::{connect, local, open as judges};
use ragnosis_core::judge_check;
use ragnosis_core::progress::CancelToken;
use ragnosis_core::secrets::{self, ApiKey, SecretError, SecretStore};
use ragnosis_core::semantic;
use ragnosis_core::store::{self, judge_profiles::JudgeProfile};
use serde_json::Value;
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::runs::{JudgeProfileInfo, RunEvent};
use crate::models::settings::{
    ConnectionCheck, JudgeCheckView, KeyStatus, LocalJudge, OfflineJudgeStatus,
};
use crate::progress::ChannelSink;
use crate::state::AppState;

/// The offline judge first, then the stored profiles by name.
#[tauri::command(async)]
pub fn list_judges(state: State<'_, AppState>) -> CommandResult<Vec<JudgeProfileInfo>> {
    let store = state.store()?;
    let mut profiles = vec![JudgeProfileInfo::from(judges::offline_profile())];
    profiles.extend(
        store::judge_profiles::list(store.conn())?
            .into_iter()
            .map(JudgeProfileInfo::from),
    );
    Ok(profiles)
}

/// The profile the form sent (a `JudgeProfileInfo`), checked by the one rule set every
/// saving path uses. Read here rather than by Tauri's argument parsing so that a field
/// the core refuses (an unknown kind) comes back as `invalid` with the core's sentence,
/// the same as `ragnosis judges add` prints.
fn read_form(profile: Value) -> CommandResult<JudgeProfile> {
    serde_json::from_value(profile)
        .map_err(|e| CommandError::from(ragnosis_core::Error::Invalid(e.to_string())))
}

fn checked(profile: JudgeProfile) -> CommandResult<JudgeProfile> {
    Ok(profile.checked()?)
}

#[tauri::command(async)]
pub fn save_judge(state: State<'_, AppState>, profile: Value) -> CommandResult<JudgeProfileInfo> {
    let profile = checked(read_form(profile)?)?;
    let store = state.store()?;
    store::judge_profiles::upsert(store.conn(), &profile)?;
    Ok(store::judge_profiles::get(store.conn(), &profile.name)?.into())
}

/// Deletes a profile and forgets its key.
#[tauri::command(async)]
pub fn delete_judge(state: State<'_, AppState>, name: String) -> CommandResult<()> {
    let store = state.store()?;
    if !store::judge_profiles::delete(store.conn(), &name)? {
        return Err(CommandError::new(
            ErrorCode::NotFound,
            format!("judge profile {name} does not exist"),
        ));
    }
    // The profile is gone either way; a keyring that cannot be reached keeps the key.
    let _ = state.secrets.delete(&name);
    Ok(())
}

fn key_status(secrets: &dyn SecretStore, profile: &str) -> KeyStatus {
    let (stored, problem) = match secrets.get(profile) {
        Ok(key) => (key.is_some(), None),
        Err(e) => (false, Some(e.to_string())),
    };
    KeyStatus {
        profile: profile.to_string(),
        stored,
        backend: secrets.backend(),
        env_var: secrets::env_var_for(profile),
        problem,
    }
}

#[tauri::command(async)]
pub fn judge_key_status(state: State<'_, AppState>, name: String) -> KeyStatus {
    key_status(state.secrets.as_ref(), &name)
}

/// Stores `key` for the profile in the OS keyring. The key goes in and never comes back.
#[tauri::command(async)]
pub fn store_judge_key(
    state: State<'_, AppState>,
    name: String,
    key: String,
) -> CommandResult<KeyStatus> {
    let key = ApiKey::new(key).ok_or_else(|| CommandError::invalid("the key is empty"))?;
    state.secrets.set(&name, &key)?;
    Ok(key_status(state.secrets.as_ref(), &name))
}

#[tauri::command(async)]
pub fn forget_judge_key(state: State<'_, AppState>, name: String) -> CommandResult<KeyStatus> {
    state.secrets.delete(&name)?;
    Ok(key_status(state.secrets.as_ref(), &name))
}

/// The key a profile would use: the environment first, then the keyring; an
/// unreachable keyring means "no key" (local servers need none).
fn key_for(state: &AppState, profile: &JudgeProfile) -> CommandResult<Option<ApiKey>> {
    match secrets::find_key(
        &judges::env_store_for(profile),
        state.secrets.as_ref(),
        &profile.name,
    ) {
        Ok(key) => Ok(key),
        Err(SecretError::Unavailable(..)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// One tiny judge call through the profile as the form has it (saved or not).
#[tauri::command]
pub async fn test_judge(
    state: State<'_, AppState>,
    profile: Value,
) -> CommandResult<ConnectionCheck> {
    let profile = checked_or_offline(profile)?;
    let key = key_for(&state, &profile)?;
    let r = connect::test_connection(&profile, key).await;
    Ok(ConnectionCheck {
        ok: r.ok,
        latency_ms: r.latency_ms,
        model: r.model,
        structured_output_parsed: r.structured_output_parsed,
        message: r.message,
        error: r
            .error
            .map(|e| CommandError::from(ragnosis_core::Error::from(e))),
    })
}

/// The models (Azure: deployments) the profile's service offers.
#[tauri::command]
pub async fn discover_judge_models(
    state: State<'_, AppState>,
    profile: Value,
) -> CommandResult<Vec<String>> {
    let profile = checked_or_offline(profile)?;
    let key = key_for(&state, &profile)?;
    Ok(connect::discover_models(&profile, key).await?)
}

fn checked_or_offline(profile: Value) -> CommandResult<JudgeProfile> {
    let profile = read_form(profile)?;
    if profile.name == judges::OFFLINE {
        return Ok(judges::offline_profile());
    }
    checked(profile)
}

/// Model servers listening on their default ports of this machine (Ollama, LM Studio,
/// llama.cpp, vLLM), each with a profile ready to save.
#[tauri::command]
pub async fn detect_local_judges(state: State<'_, AppState>) -> CommandResult<Vec<LocalJudge>> {
    let servers = local::detect().await;
    let store = state.store()?;
    Ok(servers
        .into_iter()
        .map(|server| {
            let already_saved =
                store::judge_profiles::get(store.conn(), &server.profile_name).is_ok();
            let profile = server.models.first().map(|model| {
                JudgeProfileInfo::from(local::profile_for(
                    &server.profile_name,
                    &server.base_url,
                    model,
                ))
            });
            LocalJudge {
                product: server.product,
                base_url: server.base_url,
                models: server.models,
                profile,
                already_saved,
            }
        })
        .collect())
}

/// Whether the offline judge has its semantic model on this machine.
#[tauri::command(async)]
pub fn offline_judge_status() -> OfflineJudgeStatus {
    let availability = semantic::availability();
    OfflineJudgeStatus {
        semantic_model: matches!(availability, semantic::Availability::Loaded { .. })
            .then(|| semantic::MODEL_NAME.to_string()),
        notice: availability.notice(),
    }
}

/// The latest judge check of every profile (the offline judge first), marked `current`
/// when it describes the judge the profile opens now (`JudgeCheck::describes`).
#[tauri::command(async)]
pub fn judge_checks(state: State<'_, AppState>) -> CommandResult<Vec<JudgeCheckView>> {
    let store = state.store()?;
    let mut profiles = vec![judges::offline_profile()];
    profiles.extend(store::judge_profiles::list(store.conn())?);
    let mut views = Vec::new();
    for profile in profiles {
        if let Some(check) =
            ragnosis_core::judge_check::shipped::latest_for_profile(store.conn(), &profile.name)?
        {
            views.push(JudgeCheckView::new(&check, check.describes(&profile)));
        }
    }
    Ok(views)
}

/// Runs the judge check for a profile: the shipped labelled sample through that judge,
/// progress on the channel, the figures stored with the profile and returned.
#[tauri::command]
pub async fn run_judge_check(
    state: State<'_, AppState>,
    profile: String,
    on_progress: Channel<RunEvent>,
) -> CommandResult<JudgeCheckView> {
    let judge = {
        let store = state.store()?;
        judges::open_judge(&store, &profile, state.secrets.as_ref())?
    };
    let check = tauri::async_runtime::spawn_blocking(move || {
        judge_check::run(
            &profile,
            judge,
            Arc::new(ChannelSink(on_progress)),
            &CancelToken::new(),
        )
    })
    .await
    .map_err(|e| {
        CommandError::new(
            ErrorCode::Internal,
            format!("the judge check stopped unexpectedly: {e}"),
        )
    })??;
    store::judge_checks::insert(state.store()?.conn(), &check)?;
    Ok(JudgeCheckView::new(&check, true))
}
