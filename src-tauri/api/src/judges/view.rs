//! What Settings → Judges and `judges` receive: a profile without its key, where a key
//! would come from (never the key), a connection test, a local model server, the
//! offline judge's state, and a judge check's figures flattened for a card.

use ragnosis_core::judge::connect::ConnectionReport;
use ragnosis_core::judge::local::LocalServer;
use ragnosis_core::judge::ProviderKind;
use ragnosis_core::judge_check::JudgeCheck;
use ragnosis_core::judge_profile::JudgeProfile;
use serde::{Deserialize, Serialize};

/// A judge profile without its key (keys never leave the keyring through the shell).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JudgeProfileInfo {
    /// Name, provider kind, endpoint, model, temperature, limits and prices.
    #[serde(flatten)]
    pub profile: JudgeProfile,
    /// The built-in offline judge: always present, not editable.
    #[serde(default)]
    pub builtin: bool,
}

impl From<JudgeProfile> for JudgeProfileInfo {
    fn from(profile: JudgeProfile) -> Self {
        JudgeProfileInfo {
            builtin: profile.kind == ProviderKind::Offline
                && profile.name == ragnosis_core::judge::open::OFFLINE,
            profile,
        }
    }
}

/// Whether a profile's key is stored, and where keys go on this machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct KeyStatus {
    /// The profile's name.
    pub profile: String,
    /// A key for the profile is in the keyring.
    pub stored: bool,
    /// "Secret Service (OS keyring)", "macOS Keychain", ...
    pub backend: String,
    /// The environment variable that overrides the keyring for this profile.
    pub env_var: String,
    /// The keyring could not be read: why (the key may still come from `env_var`).
    pub problem: Option<String>,
    /// The environment gives the profile a key (`env_var` or the provider's own
    /// variable): runs use it before the keyring's.
    pub from_environment: bool,
}

/// The outcome of one tiny judge call through a profile.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConnectionCheck {
    /// Whether it answered, how fast, which model, whether its JSON parsed, and one sentence.
    #[serde(flatten)]
    pub report: ConnectionReport,
    /// Why it failed, with the code the window offers a fix by.
    pub error: Option<crate::ErrorView>,
}

/// A model server found on this machine, and the profile Ragnosis would save for it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LocalJudge {
    /// The server's product, suggested profile name, base URL and listed models.
    #[serde(flatten)]
    pub server: LocalServer,
    /// A ready profile with the server's first model; none when it lists no model.
    pub profile: Option<JudgeProfileInfo>,
    /// A stored profile already has the suggested profile's name.
    pub already_saved: bool,
}

/// What the built-in offline judge uses on this machine.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OfflineJudgeStatus {
    /// The embedded semantic model's name when it is in use.
    pub semantic_model: Option<String>,
    /// One sentence for the window.
    pub notice: String,
    /// Why the semantic model is not in use, when it is not.
    pub absent_reason: Option<String>,
}

/// A profile's latest judge check, as Settings and Home show it: the check itself (its
/// task figures, diagnosis figures, certificate and what it cost), whether it still
/// describes the profile, and its sentences. Task titles and measures are named by
/// `ui/src/lib/bindings/labels.ts`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JudgeCheckView {
    /// The check as stored.
    #[serde(flatten)]
    pub check: JudgeCheck,
    /// The check was made with the profile's current model and temperature.
    pub current: bool,
    /// One sentence for the window and a report's methodology: agreement on claims with its
    /// interval.
    pub headline: String,
    /// κ, true positive and negative rates, the confusion matrix and the probes, in
    /// one sentence (checks stored before certificates existed have none).
    pub certificate_sentence: Option<String>,
}

impl JudgeCheckView {
    /// The card for `check`; `current` when it was made with the profile's present model and
    /// temperature.
    pub fn new(check: &JudgeCheck, current: bool) -> Self {
        JudgeCheckView {
            current,
            headline: check.headline(),
            certificate_sentence: check.certificate.as_ref().map(|c| c.sentence()),
            check: check.clone(),
        }
    }
}
