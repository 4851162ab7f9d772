//! Settings: appearance, and the state of a judge profile's key (never the key itself).

use ragnosis_core::judge_check::ShapeFigure;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    System,
    Light,
    Dark,
}

impl Theme {
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    pub fn parse(s: &str) -> Theme {
        match s {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        }
    }
}

/// Settings → Answer correctness examples: which file runs take their few-shot
/// examples from.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct FewShotSetting {
    /// The chosen file; null for the examples shipped with Ragnosis.
    pub path: Option<String>,
    /// Examples the next run shows the judge (0 when the file cannot be read).
    pub examples: u32,
    /// Why the chosen file cannot be used now (moved, edited into a bad line).
    pub problem: Option<String>,
}

impl FewShotSetting {
    pub fn new(path: Option<&std::path::Path>, examples: usize, problem: Option<String>) -> Self {
        FewShotSetting {
            path: path.map(|p| p.display().to_string()),
            examples: examples as u32,
            problem,
        }
    }
}

/// Whether a profile's key is stored, and where keys go on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct KeyStatus {
    pub profile: String,
    pub stored: bool,
    /// "Secret Service (OS keyring)", "macOS Keychain", ...
    pub backend: String,
    /// The environment variable that overrides the keyring for this profile.
    pub env_var: String,
    /// The keyring could not be read: why (the key may still come from `env_var`).
    pub problem: Option<String>,
}

/// The outcome of one tiny judge call through a profile.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ConnectionCheck {
    pub ok: bool,
    pub latency_ms: u64,
    pub model: String,
    pub structured_output_parsed: bool,
    pub message: String,
    /// Why it failed, with the code the window offers a fix by.
    pub error: Option<crate::error::CommandError>,
}

/// A model server found on this machine, and the profile Ragnosis would save for it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LocalJudge {
    /// "Ollama", "LM Studio", "llama.cpp server", "vLLM".
    pub product: String,
    pub base_url: String,
    pub models: Vec<String>,
    /// A ready profile with the server's first model; none when it lists no model.
    pub profile: Option<super::runs::JudgeProfileInfo>,
    /// A stored profile already has the suggested profile's name.
    pub already_saved: bool,
}

/// What the built-in offline judge uses on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OfflineJudgeStatus {
    /// The embedded semantic model's name when it is in use.
    pub semantic_model: Option<String>,
    /// One sentence for the window.
    pub notice: String,
}

/// One task's agreement with human labels in a judge check.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CheckFigure {
    /// What the task asks, with its data set.
    pub title: String,
    /// "balanced accuracy", "AUROC", "Spearman".
    pub measure: String,
    /// Null when no case could be judged.
    pub value: Option<f64>,
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
    pub n: u64,
    pub errors: u64,
    pub first_error: Option<String>,
}

/// A profile's latest judge check, as Settings and Home show it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct JudgeCheckView {
    pub profile: String,
    pub model: String,
    pub checked_at: String,
    /// The check was made with the profile's current model and temperature.
    pub current: bool,
    pub headline: String,
    /// Balanced accuracy over every claim of the sample.
    pub claims: Option<f64>,
    pub claims_n: u64,
    pub named: u64,
    pub designed: u64,
    pub false_alarms: u64,
    pub good: u64,
    pub figures: Vec<CheckFigure>,
    pub shapes: Vec<ShapeFigure>,
    /// κ, true positive and negative rates, the confusion matrix and the probes, in
    /// one sentence (checks stored before certificates existed have none).
    pub certificate: Option<String>,
    pub calls: u64,
    pub cost_usd: f64,
    pub seconds: f64,
}

impl JudgeCheckView {
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
