//! Judges: profiles (the built-in offline judge and the stored ones), their keys (in
//! the OS keyring or the environment, never handed back), a one-call connection test,
//! model discovery, local model servers, the judge check and the judge cache. Must not
//! print a key or put one in an error.
//!
//! Policies both shells follow:
//! - every profile, typed or sent by a form, passes `JudgeProfile::checked`;
//! - a key is stored only for an existing profile, and deleting a profile forgets its
//!   key (no secret outlives its profile);
//! - a key's status says whether the environment gives one (runs use it first) as well
//!   as whether the keyring holds one;
//! - the connection test and model discovery take the profile as given (saved or not).

mod view;

use std::sync::Arc;

use ragnosis_core::judge::{cascade, connect, local, open, Judge, ProviderKind};
use ragnosis_core::judge_check;
use ragnosis_core::progress::{CancelToken, ProgressSink};
use ragnosis_core::secrets::{self, ApiKey, EnvStore, SecretError, SecretStore};
use ragnosis_core::semantic;
use ragnosis_core::store::{self, Store};
use ragnosis_core::{Error, Result};
use serde::Deserialize;

use crate::jobs;
use crate::Ctx;

pub use ragnosis_core::judge::open::OFFLINE;
pub use ragnosis_core::judge::ProviderKind as Kind;
pub use ragnosis_core::judge_check::{CheckTask, Estimate, JudgeCheck, Measure};
pub use ragnosis_core::judge_profile::JudgeProfile;
pub use ragnosis_core::store::judge_cache::CacheStats;
pub use view::{
    ConnectionCheck, JudgeCheckView, JudgeProfileInfo, KeyStatus, LocalJudge, OfflineJudgeStatus,
};

/// The offline judge first, then the stored profiles by name.
pub fn list(ctx: &Ctx) -> Result<Vec<JudgeProfileInfo>> {
    let store = ctx.store()?;
    let mut profiles = vec![JudgeProfileInfo::from(open::offline_profile())];
    profiles.extend(
        store::judge_profiles::list(store.conn())?
            .into_iter()
            .map(JudgeProfileInfo::from),
    );
    Ok(profiles)
}

/// The profile called `name` (the built-in offline one included).
pub fn profile(ctx: &Ctx, name: &str) -> Result<JudgeProfile> {
    open::profile(&*ctx.store()?, name)
}

/// A profile as a form sends it (JSON); a field the core refuses (an unknown kind) is
/// `invalid` with the core's sentence, the same `judges add` prints.
pub fn profile_from_json(form: serde_json::Value) -> Result<JudgeProfile> {
    serde_json::from_value(form).map_err(|e| Error::Invalid(e.to_string()))
}

/// What to do with a stored key when a profile's address moves to another host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum KeyOnNewHost {
    /// Refuse to save (`secret.host_changed`): the user decides.
    #[default]
    Ask,
    /// Keep the key: the user means to send it to the new host.
    Keep,
    /// Forget the key: the new host gets its own.
    Forget,
}

/// Whether a profile's server runs on this machine (a loopback address): it needs no key.
pub fn on_this_machine(profile: &JudgeProfile) -> bool {
    ragnosis_core::judge::accounting::is_loopback(&profile.base_url)
}

/// The host (and port) of an address, lower-cased: what a key is sent to.
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    authority.to_ascii_lowercase()
}

/// Stores (or replaces) a profile after the one check every way in uses. A profile whose
/// address moves to another host while a key is stored for it is refused unless `key`
/// says what to do with the key: a key given for one service never follows its profile
/// to another unasked.
pub fn save(ctx: &Ctx, profile: JudgeProfile, key: KeyOnNewHost) -> Result<JudgeProfileInfo> {
    let profile = profile.checked()?;
    let existing = store::judge_profiles::get(ctx.store()?.conn(), &profile.name).ok();
    if let Some(old) = existing.filter(|old| host_of(&old.base_url) != host_of(&profile.base_url)) {
        let stored = matches!(ctx.secrets().get(&profile.name), Ok(Some(_)));
        match key {
            KeyOnNewHost::Ask if stored => {
                return Err(Error::KeyHostChanged(format!(
                    "judge profile {} moves from {} to {}, and a key is stored for it: keep the key for the new host \
                     (--keep-key) or forget it (--forget-key)",
                    profile.name,
                    host_of(&old.base_url),
                    host_of(&profile.base_url)
                )))
            }
            KeyOnNewHost::Forget if stored => ctx.secrets().delete(&profile.name)?,
            _ => {}
        }
    }
    let store = ctx.store()?;
    store::judge_profiles::upsert(store.conn(), &profile)?;
    Ok(store::judge_profiles::get(store.conn(), &profile.name)?.into())
}

/// Deletes a profile and forgets its key.
pub fn delete(ctx: &Ctx, name: &str) -> Result<()> {
    if !store::judge_profiles::delete(ctx.store()?.conn(), name)? {
        return Err(Error::NotFound {
            what: "judge profile",
            id: name.to_string(),
        });
    }
    // The profile is gone either way; a keyring that cannot be reached keeps the key.
    let _ = ctx.secrets().delete(name);
    Ok(())
}

/// Where the profile's key would come from; never the key.
pub fn key_status(ctx: &Ctx, name: &str) -> Result<KeyStatus> {
    let profile = profile(ctx, name)?;
    let secrets = ctx.secrets();
    let (stored, problem) = match secrets.get(name) {
        Ok(key) => (key.is_some(), None),
        Err(e) => (false, Some(e.to_string())),
    };
    Ok(KeyStatus {
        profile: name.to_string(),
        stored,
        backend: secrets.backend(),
        env_var: secrets::env_var_for(name),
        problem,
        from_environment: matches!(open::env_store_for(&profile).get(name), Ok(Some(_))),
    })
}

/// Stores `key` for an existing profile. The key goes in and never comes back.
pub fn store_key(ctx: &Ctx, name: &str, key: String) -> Result<KeyStatus> {
    profile(ctx, name)?;
    let key = ApiKey::new(key).ok_or_else(|| Error::Invalid("the key is empty".into()))?;
    ctx.secrets().set(name, &key)?;
    key_status(ctx, name)
}

/// Removes the profile's key from the keyring (none stored is no error) and returns its
/// status: an environment variable may still give one.
pub fn forget_key(ctx: &Ctx, name: &str) -> Result<KeyStatus> {
    ctx.secrets().delete(name)?;
    key_status(ctx, name)
}

/// The key a profile would use: the environment first, then the keyring; an
/// unreachable keyring means "no key" (local servers need none).
fn key_for(ctx: &Ctx, profile: &JudgeProfile) -> Result<Option<ApiKey>> {
    let env: EnvStore = open::env_store_for(profile);
    match secrets::find_key(&env, ctx.secrets(), &profile.name) {
        Ok(key) => Ok(key),
        Err(SecretError::Unavailable(..)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The profile as given, checked; the built-in offline judge by its name.
fn checked_or_offline(profile: JudgeProfile) -> Result<JudgeProfile> {
    if profile.name == OFFLINE {
        return Ok(open::offline_profile());
    }
    Ok(profile.checked()?)
}

/// One tiny judge call through the profile (saved or not).
pub fn test(ctx: &Ctx, profile: JudgeProfile) -> Result<ConnectionCheck> {
    let profile = checked_or_offline(profile)?;
    let key = key_for(ctx, &profile)?;
    let report = jobs::wait_for(
        "the connection test",
        connect::test_connection(&profile, key),
    )?;
    Ok(ConnectionCheck {
        error: report.error.clone().map(crate::ErrorView::from),
        report,
    })
}

/// The models (Azure: deployments) the profile's service offers.
pub fn models(ctx: &Ctx, profile: JudgeProfile) -> Result<Vec<String>> {
    let profile = checked_or_offline(profile)?;
    let key = key_for(ctx, &profile)?;
    Ok(jobs::wait_for(
        "the model list",
        connect::discover_models(&profile, key),
    )??)
}

/// Model servers listening on their default ports of this machine (Ollama, LM Studio,
/// llama.cpp, vLLM), each with a profile ready to save (its first model).
pub fn detect(ctx: &Ctx) -> Result<Vec<LocalJudge>> {
    let servers = jobs::wait_for("the local server search", local::detect())?;
    let store = ctx.store()?;
    Ok(servers
        .into_iter()
        .map(|server| LocalJudge {
            already_saved: store::judge_profiles::get(store.conn(), &server.profile_name).is_ok(),
            profile: server.models.first().map(|model| {
                local::profile_for(&server.profile_name, &server.base_url, model).into()
            }),
            server,
        })
        .collect())
}

/// The profile Ragnosis saves for a local server, with `model`.
pub fn local_profile(found: &LocalJudge, model: &str) -> JudgeProfile {
    local::profile_for(&found.server.profile_name, &found.server.base_url, model)
}

/// The servers `detect` probes: product and default port.
pub fn known_local_servers() -> Vec<(&'static str, u16)> {
    local::KNOWN_SERVERS
        .iter()
        .map(|s| (s.product, s.port))
        .collect()
}

/// Whether the offline judge has its semantic model on this machine.
pub fn offline_status() -> OfflineJudgeStatus {
    let availability = semantic::availability();
    OfflineJudgeStatus {
        semantic_model: matches!(availability, semantic::Availability::Loaded { .. })
            .then(|| semantic::MODEL_NAME.to_string()),
        notice: availability.notice(),
        absent_reason: match availability {
            semantic::Availability::Absent { reason } => Some(reason),
            semantic::Availability::Loaded { .. } => None,
        },
    }
}

/// The sentence to show before the offline judge works without its semantic model
/// (paraphrase then goes unseen): visible, not silent.
pub(crate) fn semantic_notice(judge: &dyn Judge) -> Option<String> {
    let availability = semantic::availability();
    let loaded = matches!(availability, semantic::Availability::Loaded { .. });
    (judge.identity().is_offline() && !loaded).then(|| availability.notice())
}

/// The latest judge check of every profile (the offline judge first, with the check
/// shipped with this build when the user has none of this build's judge), marked
/// `current` when it describes the judge the profile opens now (`JudgeCheck::describes`).
pub fn latest_checks(ctx: &Ctx) -> Result<Vec<JudgeCheckView>> {
    let store = ctx.store()?;
    let mut profiles = vec![open::offline_profile()];
    profiles.extend(store::judge_profiles::list(store.conn())?);
    let mut views = Vec::new();
    for profile in profiles {
        if let Some(check) = judge_check::shipped::latest_for_profile(store.conn(), &profile.name)?
        {
            views.push(JudgeCheckView::new(&check, check.describes(&profile)));
        }
    }
    Ok(views)
}

/// A judge opened for its check, with what to tell the user first.
pub struct CheckedJudge {
    profile: String,
    judge: Arc<dyn Judge>,
}

impl CheckedJudge {
    /// The sentence to show before checking the offline judge without its semantic model;
    /// none for any other judge.
    pub fn notice(&self) -> Option<String> {
        semantic_notice(self.judge.as_ref())
    }
}

/// Opens the profile's judge for a check (a missing profile or key fails here).
pub fn open_for_check(ctx: &Ctx, profile: &str) -> Result<CheckedJudge> {
    Ok(CheckedJudge {
        profile: profile.to_string(),
        judge: open::open_judge(&*ctx.store()?, profile, ctx.secrets())?,
    })
}

/// Runs the labelled sample shipped with Ragnosis through the judge and keeps the
/// figures with the profile. `batch`: the sample's calls go through the judge's batch
/// service first (half price, within 24 h), picking up a batch an interrupted check of
/// this judge left waiting.
pub fn run_check(
    ctx: &Ctx,
    judge: CheckedJudge,
    batch: bool,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<JudgeCheck> {
    let CheckedJudge { profile, judge } = judge;
    // Batches are stored as they are submitted, on a connection of the check's own.
    let mut batches = if batch { Some(ctx.own_store()?) } else { None };
    let check = jobs::on_own_thread("the judge check", || match batches.as_mut() {
        Some(store) => judge_check::run_in_batches(store, &profile, judge, progress, cancel),
        None => judge_check::run(&profile, judge, progress, cancel),
    })?;
    check.save(ctx.store()?.conn())?;
    Ok(check)
}

/// `run_check` as a job the window can cancel (`cancel_check`): one check of a profile at
/// a time; a second is `busy`. Cancelled, it stops after the calls in flight and keeps
/// nothing (`cancelled`).
pub fn run_check_job(
    ctx: &Ctx,
    judge: CheckedJudge,
    batch: bool,
    progress: Arc<dyn ProgressSink>,
) -> Result<JudgeCheck> {
    let job = ctx.jobs().register_check(&judge.profile)?;
    run_check(ctx, judge, batch, progress, &job.token)
}

/// Asks the running check of `profile` to stop; `not_running` when none runs here.
pub fn cancel_check(ctx: &Ctx, profile: &str) -> Result<()> {
    ctx.jobs().cancel_check(profile)
}

/// The judge cache's size: verdicts kept, their bytes and the tokens they saved asking
/// again.
pub fn cache_stats(ctx: &Ctx) -> Result<CacheStats> {
    store::judge_cache::stats(ctx.store()?.conn())
}

/// Empties the judge cache; returns how many verdicts it held.
pub fn clear_cache(ctx: &Ctx) -> Result<u64> {
    store::judge_cache::clear(ctx.store()?.conn())
}

/// The stronger judge's name when `profile` names a cascade (`offline+NAME`).
pub fn cascade_of(profile: &str) -> Option<&str> {
    cascade::stronger(profile)
}

/// `NAME` or `NAME@TEMP`: a stored profile (or `offline`), optionally at another
/// temperature — what calibration runs store as their judge.
pub(crate) fn profile_at(store: &Store, entry: &str) -> Result<JudgeProfile> {
    let (name, temperature) = match entry.rsplit_once('@') {
        Some((name, t)) => {
            let t: f64 = t.parse().map_err(|_| {
                Error::Invalid(format!(
                    "'{entry}': the temperature after @ is not a number"
                ))
            })?;
            (name, Some(t))
        }
        None => (entry, None),
    };
    let mut profile = open::profile(store, name)?;
    if let Some(t) = temperature {
        profile.temperature = t;
    }
    Ok(profile)
}

/// Whether a profile is the built-in offline judge's kind (it cannot write test cases).
pub fn is_offline(profile: &JudgeProfile) -> bool {
    profile.kind == ProviderKind::Offline
}
