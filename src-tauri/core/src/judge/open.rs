//! Turning a profile name into a working judge: the built-in offline profile or a stored
//! one, its key from the environment or the OS keyring, and the shared cache. The CLI and
//! the desktop app both come through here, so they behave the same.

use std::collections::HashMap;
use std::sync::Arc;

use super::{cascade, llm, Judge, ProviderKind};
use crate::error::{Error, Result};
use crate::judge_profile::JudgeProfile;
use crate::secrets::{self, EnvStore, SecretStore};
use crate::store::{self, Store};

pub use crate::judge_profile::OFFLINE;

pub fn offline_profile() -> JudgeProfile {
    JudgeProfile {
        name: OFFLINE.into(),
        kind: ProviderKind::Offline,
        base_url: String::new(),
        model: super::offline::MODEL.into(),
        temperature: 0.0,
        concurrency: 4,
        rpm: None,
        tpm: None,
        timeout_secs: 60,
        price_input: Some(0.0),
        price_output: Some(0.0),
        api_version: None,
    }
}

/// The stored profile called `name`, or the built-in offline one. A cascade
/// (`offline+NAME`) is NAME's profile under the cascade's name: its model, prices and
/// limits are what a sent-on task costs.
pub fn profile(store: &Store, name: &str) -> Result<JudgeProfile> {
    if name == OFFLINE {
        return Ok(offline_profile());
    }
    if let Some(strong) = cascade::stronger(name) {
        let mut p = store::judge_profiles::get(store.conn(), strong)?;
        p.name = name.to_string();
        return Ok(p);
    }
    store::judge_profiles::get(store.conn(), name)
}

/// The provider's conventional key variable, read when `RAGNOSIS_<PROFILE>_API_KEY` is unset.
pub fn conventional_key_var(profile: &JudgeProfile) -> Option<&'static str> {
    let url = profile.base_url.to_ascii_lowercase();
    match profile.kind {
        ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
        ProviderKind::AzureOpenAi => Some("AZURE_OPENAI_API_KEY"),
        ProviderKind::OpenAi if url.contains("openrouter") => Some("OPENROUTER_API_KEY"),
        ProviderKind::OpenAi if url.contains("groq") => Some("GROQ_API_KEY"),
        ProviderKind::OpenAi if url.contains("generativelanguage") => Some("GEMINI_API_KEY"),
        ProviderKind::OpenAi if url.contains("openai.com") => Some("OPENAI_API_KEY"),
        _ => None,
    }
}

pub fn env_store_for(profile: &JudgeProfile) -> EnvStore {
    let mut fallbacks = HashMap::new();
    if let Some(var) = conventional_key_var(profile) {
        fallbacks.insert(profile.name.clone(), var.to_string());
    }
    EnvStore { fallbacks }
}

/// Builds the judge for `name`. Keys come from the environment, then `keyring`; a
/// keyring that cannot be reached is only an error when the profile needs a key that
/// the environment does not give.
pub fn open_judge(store: &Store, name: &str, keyring: &dyn SecretStore) -> Result<Arc<dyn Judge>> {
    open_profile(store, &profile(store, name)?, keyring)
}

/// Builds the judge for a profile that may differ from the stored one (calibration runs
/// the same profile at other temperatures).
pub fn open_profile(
    store: &Store,
    profile: &JudgeProfile,
    keyring: &dyn SecretStore,
) -> Result<Arc<dyn Judge>> {
    if let Some(strong) = cascade::stronger(&profile.name) {
        // The key and cache belong to the stronger judge's own profile.
        let mut inner = profile.clone();
        inner.name = strong.to_string();
        let judge = open_profile(store, &inner, keyring)?;
        return Ok(Arc::new(cascade::CascadeJudge::new(judge)));
    }
    let profile = profile.clone();
    if profile.kind == ProviderKind::Offline {
        return llm::build_judge(&profile, None, None).map_err(Error::from);
    }
    let key = key_for(&profile, keyring)?;
    // Always attached: `--no-cache` skips cache reads per call (CallContext::use_cache)
    // but fresh verdicts are still stored for next time.
    let cache = Some(Arc::new(super::shelf::open_cache(store.path())?));
    llm::build_judge(&profile, key, cache).map_err(Error::from)
}

/// The OpenAI-compatible embeddings endpoint of profile `name` (its key from the
/// keyring), embedding with `model` or the profile's own model.
pub fn open_embedder(
    store: &Store,
    name: &str,
    model: Option<&str>,
    keyring: &dyn SecretStore,
) -> Result<super::embeddings::EndpointEmbedder> {
    let profile = profile(store, name)?;
    if profile.kind != ProviderKind::OpenAi {
        return Err(Error::Invalid(format!(
            "profile {name} is not an OpenAI-compatible service: only those offer /v1/embeddings"
        )));
    }
    let key = key_for(&profile, keyring)?;
    super::embeddings::EndpointEmbedder::new(&profile, key, model).map_err(Error::from)
}

/// The profile's key from the environment or the keyring, if it has one. A keyring that
/// cannot be used (absent, locked, refused) stops only a profile on another machine: a
/// hosted service always needs a key, and sending none would come back as "the judge
/// rejected the API key", hiding the real cause. Local servers (Ollama, LM Studio) work
/// without a key, so for them an unusable keyring means no key.
fn key_for(profile: &JudgeProfile, keyring: &dyn SecretStore) -> Result<Option<secrets::ApiKey>> {
    Ok(
        secrets::find_key(&env_store_for(profile), keyring, &profile.name).or_else(
            |e| match e {
                secrets::SecretError::Unavailable(..)
                    if super::accounting::is_local(profile.kind, &profile.base_url) =>
                {
                    Ok(None)
                }
                other => Err(other),
            },
        )?,
    )
}
