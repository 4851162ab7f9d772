//! Settings: appearance, and the state of a judge profile's key (never the key itself).

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
