//! A judge profile: how to reach one configured judge (its kind of service, endpoint,
//! model, temperature, limits and prices), never its key. Shared vocabulary: the store
//! keeps profiles (`store::judge_profiles`), the judge opens them, the window and the CLI
//! edit them; none of them owns the type.

use serde::{Deserialize, Serialize};

/// Why a profile cannot be saved, in words the user can act on.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidProfile(pub String);

/// The name of the built-in judge, always available (no profile row stands for it).
pub const OFFLINE: &str = "offline";

/// Which kind of service a judge profile talks to. Spelled `offline`, `openai`, `azure`
/// and `anthropic` wherever it is written (the store, the window, the CLI); reading also
/// accepts the products people name (`ollama`, `claude`, ...), so every way in refuses
/// an unknown kind with the same sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum ProviderKind {
    /// The deterministic judge built into Ragnosis; no network.
    #[serde(rename = "offline")]
    Offline,
    /// Any OpenAI-compatible chat completions API: OpenAI, Ollama, vLLM, LM Studio,
    /// llama.cpp server, OpenRouter, Groq, Gemini's OpenAI endpoint.
    #[serde(rename = "openai")]
    OpenAi,
    #[serde(rename = "azure")]
    AzureOpenAi,
    #[serde(rename = "anthropic")]
    Anthropic,
}

impl ProviderKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderKind::Offline => "offline",
            ProviderKind::OpenAi => "openai",
            ProviderKind::AzureOpenAi => "azure",
            ProviderKind::Anthropic => "anthropic",
        }
    }

    pub fn parse(s: &str) -> Option<ProviderKind> {
        match s.trim().to_ascii_lowercase().as_str() {
            "offline" => Some(ProviderKind::Offline),
            "openai" | "openai-compatible" | "openai_compatible" | "ollama" | "vllm"
            | "lmstudio" | "llamacpp" | "openrouter" | "groq" | "gemini" => {
                Some(ProviderKind::OpenAi)
            }
            "azure" | "azure-openai" | "azure_openai" => Some(ProviderKind::AzureOpenAi),
            "anthropic" | "claude" => Some(ProviderKind::Anthropic),
            _ => None,
        }
    }
}

impl std::str::FromStr for ProviderKind {
    type Err = String;

    fn from_str(s: &str) -> Result<ProviderKind, String> {
        ProviderKind::parse(s)
            .ok_or_else(|| format!("unknown judge kind '{s}' (use openai, azure or anthropic)"))
    }
}

impl<'de> Deserialize<'de> for ProviderKind {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ProviderKind, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// How to reach one judge. Checked by `JudgeProfile::checked` before it is stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JudgeProfile {
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    pub temperature: f64,
    pub concurrency: u32,
    pub rpm: Option<u32>,
    pub tpm: Option<u32>,
    pub timeout_secs: u32,
    /// USD per million input / output tokens, when known.
    pub price_input: Option<f64>,
    pub price_output: Option<f64>,
    pub api_version: Option<String>,
}

impl JudgeProfile {
    /// The profile as it will be stored: text fields trimmed, every rule checked. The window, the CLI and the IPC layer all save
    /// through here (and `upsert` refuses anything else), so they accept and refuse the
    /// same profiles with the same words. The model may be empty: a new profile is probed
    /// for its models before one is chosen.
    pub fn checked(mut self) -> Result<JudgeProfile, InvalidProfile> {
        let invalid = |message: &str| Err(InvalidProfile(message.to_string()));
        self.name = self.name.trim().to_string();
        self.base_url = self.base_url.trim().to_string();
        self.model = self.model.trim().to_string();
        if self.name.is_empty() {
            return invalid("the profile needs a name");
        }
        if self.name == OFFLINE {
            return invalid("\"offline\" is the built-in judge; choose another name");
        }
        if self.kind == ProviderKind::Offline {
            return invalid(
                "the offline judge is built in; a saved profile uses openai, azure or anthropic",
            );
        }
        if !(self.base_url.starts_with("http://") || self.base_url.starts_with("https://")) {
            return invalid("the base URL must start with http:// or https://");
        }
        if !(0.0..=2.0).contains(&self.temperature) {
            return invalid("the temperature must be between 0 and 2");
        }
        if self.concurrency == 0 || self.timeout_secs == 0 {
            return invalid("concurrency and timeout must be at least 1");
        }
        if self.rpm == Some(0) || self.tpm == Some(0) {
            return invalid("requests and tokens per minute must be at least 1 when set");
        }
        let prices = [self.price_input, self.price_output];
        if prices.iter().flatten().any(|p| !p.is_finite() || *p < 0.0) {
            return invalid("prices are USD per million tokens, 0 or more");
        }
        Ok(self)
    }
}

#[cfg(any(test, feature = "sample"))]
impl JudgeProfile {
    /// A valid profile for tests: OpenAI's API with untrimmed name and URL.
    pub fn sample() -> JudgeProfile {
        JudgeProfile {
            name: " gpt ".into(),
            kind: ProviderKind::OpenAi,
            base_url: " https://api.openai.com/v1 ".into(),
            model: "gpt-4o-mini".into(),
            temperature: 0.0,
            concurrency: 4,
            rpm: None,
            tpm: None,
            timeout_secs: 60,
            price_input: Some(0.15),
            price_output: Some(0.6),
            api_version: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> JudgeProfile {
        JudgeProfile::sample()
    }

    #[test]
    fn a_checked_profile_is_trimmed() {
        let p = profile().checked().unwrap();
        assert_eq!(
            (p.name.as_str(), p.base_url.as_str()),
            ("gpt", "https://api.openai.com/v1")
        );
    }

    #[test]
    fn a_kind_is_written_one_way_and_read_by_the_names_people_use() {
        let json = serde_json::to_value(profile()).unwrap();
        assert_eq!(json["kind"], "openai");
        let read = |kind: &str| {
            let mut json = json.clone();
            json["kind"] = kind.into();
            serde_json::from_value::<JudgeProfile>(json).map(|p| p.kind)
        };
        assert_eq!(read("Ollama").unwrap(), ProviderKind::OpenAi);
        assert_eq!(read("azure").unwrap(), ProviderKind::AzureOpenAi);
        assert!(read("gpt")
            .unwrap_err()
            .to_string()
            .contains("unknown judge kind 'gpt' (use openai, azure or anthropic)"));
    }

    #[test]
    fn each_rule_refuses_with_its_own_sentence() {
        let refused = |change: fn(&mut JudgeProfile)| {
            let mut p = profile();
            change(&mut p);
            p.checked().unwrap_err().to_string()
        };
        assert!(refused(|p| p.temperature = 7.0).contains("temperature must be between 0 and 2"));
        assert!(refused(|p| p.name = "offline".into()).contains("built-in judge"));
        assert!(refused(|p| p.kind = ProviderKind::Offline).contains("built in"));
        assert!(refused(|p| p.base_url = "api.openai.com".into()).contains("http://"));
        assert!(refused(|p| p.timeout_secs = 0).contains("at least 1"));
        assert!(refused(|p| p.price_input = Some(-1.0)).contains("0 or more"));
        assert!(refused(|p| p.rpm = Some(0)).contains("per minute"));
        assert!(refused(|p| p.temperature = f64::NAN).contains("temperature"));
    }
}
