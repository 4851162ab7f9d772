//! What Settings → Judges and `judges` receive: a profile without its key, where a key
//! would come from (never the key), a connection test, a local model server, the
//! offline judge's state, and a judge check's figures flattened for a card.

use ragnosis_core::judge::connect::ConnectionReport;
use ragnosis_core::judge::local::LocalServer;
use ragnosis_core::judge::ProviderKind;
use ragnosis_core::judge_check::ShapeFigure;
use ragnosis_core::store::judge_profiles::JudgeProfile;
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

/// One task's agreement with human labels in a judge check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CheckFigure {
    /// What the task asks, with its data set.
    pub title: String,
    /// "balanced accuracy", "AUROC", "Spearman".
    pub measure: String,
    /// Null when no case could be judged.
    pub value: Option<f64>,
    /// Lower end of the bootstrap 95% interval; null with `value`.
    pub ci_low: Option<f64>,
    /// Upper end of the bootstrap 95% interval; null with `value`.
    pub ci_high: Option<f64>,
    /// Cases judged.
    pub n: u64,
    /// Cases left out because a judge call failed.
    pub errors: u64,
    /// The first failed call's error, when any failed.
    pub first_error: Option<String>,
}

/// A profile's latest judge check, as Settings and Home show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JudgeCheckView {
    /// The profile checked.
    pub profile: String,
    /// The model the check judged with.
    pub model: String,
    /// When the check finished, RFC 3339 UTC.
    pub checked_at: String,
    /// The check was made with the profile's current model and temperature.
    pub current: bool,
    /// One sentence for the window and a report's methodology: agreement on claims with its
    /// interval.
    pub headline: String,
    /// Balanced accuracy over every claim of the sample.
    pub claims: Option<f64>,
    /// Claims behind `claims`.
    pub claims_n: u64,
    /// Designed failures (every shape but "good") whose failure the diagnosis named.
    pub named: u64,
    /// Designed failures in the sample.
    pub designed: u64,
    /// Good items on which some pattern fired.
    pub false_alarms: u64,
    /// Good items in the sample.
    pub good: u64,
    /// Agreement with human labels per task.
    pub figures: Vec<CheckFigure>,
    /// How the diagnosis did on each designed failure shape.
    pub shapes: Vec<ShapeFigure>,
    /// κ, true positive and negative rates, the confusion matrix and the probes, in
    /// one sentence (checks stored before certificates existed have none).
    pub certificate: Option<String>,
    /// Judge calls made (cache hits not counted).
    pub calls: u64,
    /// What the calls cost, in US dollars.
    pub cost_usd: f64,
    /// How long the check took, in seconds.
    pub seconds: f64,
}

impl JudgeCheckView {
    /// The card for `check`; `current` when it was made with the profile's present model and
    /// temperature.
    pub fn new(check: &ragnosis_core::judge_check::JudgeCheck, current: bool) -> Self {
        let d = &check.diagnosis;
        JudgeCheckView {
            profile: check.profile.clone(),
            model: check.model.clone(),
            checked_at: check.checked_at.clone(),
            current,
            headline: check.headline(),
            certificate: check.certificate.as_ref().map(|c| c.sentence()),
            claims: check.claims.map(|e| e.value),
            claims_n: check.claims_n,
            named: d.named,
            designed: d.designed,
            false_alarms: d.false_alarms,
            good: d.good,
            figures: check
                .tasks
                .iter()
                .map(|t| CheckFigure {
                    title: t.task.title().to_string(),
                    measure: t.measure.label().to_string(),
                    value: t.estimate.map(|e| e.value),
                    ci_low: t.estimate.map(|e| e.ci_low),
                    ci_high: t.estimate.map(|e| e.ci_high),
                    n: t.n,
                    errors: t.errors,
                    first_error: t.first_error.clone(),
                })
                .collect(),
            shapes: d.shapes.clone(),
            calls: check.accounting.calls,
            cost_usd: check.accounting.cost_usd,
            seconds: check.seconds,
        }
    }
}
