//! The judge layer: the only place Ragnosis asks a model for a judgement, and the only
//! module that does network I/O.
//!
//! Owns: the `Judge` trait and its protocol (`task`), the offline judge, providers
//! (OpenAI-compatible, Azure OpenAI, Anthropic) and their batch services (`batch`),
//! prompt rendering, tolerant parsing and one repair attempt, the cache, retries with
//! backoff, rate limits, token and cost accounting. Metrics see only `Task` → `Verdict`;
//! they never see HTTP.

pub mod accounting;
pub mod batch;
pub mod cache;
pub mod cascade;
pub mod connect;
pub mod embeddings;
pub mod few_shot;
pub mod limiter;
pub mod llm;
pub mod local;
pub mod offline;
pub mod open;
pub mod parse;
pub mod plan;
pub mod prompt;
pub mod provider;
pub mod retry;
pub mod task;
pub mod validate;

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::progress::{CancelToken, NoProgress, ProgressSink};

pub use task::{Task, TaskKind, Verdict};

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

/// What identifies a judge's verdicts: results and cache entries are keyed by it, so a
/// different model or temperature never reuses another's verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeIdentity {
    /// The profile name ("offline" for the built-in judge).
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    pub temperature: f64,
}

impl JudgeIdentity {
    pub fn offline() -> JudgeIdentity {
        JudgeIdentity {
            name: "offline".into(),
            kind: ProviderKind::Offline,
            base_url: String::new(),
            model: offline::MODEL.into(),
            temperature: 0.0,
        }
    }

    /// The `judge_config` string stored with each result: `offline` or `name:model@T`.
    pub fn config_key(&self) -> String {
        match self.kind {
            ProviderKind::Offline => "offline".into(),
            _ => format!("{}:{}@{}", self.name, self.model, self.temperature),
        }
    }

    pub fn is_offline(&self) -> bool {
        self.kind == ProviderKind::Offline
    }
}

/// Tokens a call used. `estimated` when the provider did not report usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub estimated: bool,
}

/// A verdict and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    pub verdict: Verdict,
    pub usage: Usage,
    pub cost_usd: f64,
    pub cached: bool,
    pub latency_ms: u64,
    pub prompt_version: String,
}

/// Why a judgement could not be made. The message is shown to the user: it names what
/// happened and never contains a key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum JudgeError {
    #[error("the judge did not answer within {0:?}")]
    Timeout(Duration),
    #[error("the judge kept rate-limiting requests (HTTP 429) after {attempts} attempts{}", retry_after_secs.map(|s| format!("; it asks to wait {s} s")).unwrap_or_default())]
    RateLimited {
        attempts: u32,
        /// How long the service last asked to wait (Retry-After), when it said.
        retry_after_secs: Option<u64>,
    },
    #[error("the judge answered HTTP {status}: {body}")]
    Http { status: u16, body: String },
    #[error("the judge rejected the API key (HTTP {status}); check the key for this profile")]
    Auth { status: u16 },
    #[error("cannot reach the judge: {0}")]
    Connection(String),
    #[error(
        "the judge's answer is not valid JSON for this task even after a repair attempt: {message}"
    )]
    Unparseable {
        message: String,
        raw: String,
        /// What the unreadable replies cost (tokens, USD): billed by the provider though
        /// they decided nothing. None where no reply was paid for (a verdict of the wrong
        /// kind checked after the fact).
        spent: Option<(Usage, f64)>,
    },
    #[error("the run was cancelled")]
    Cancelled,
    #[error("the budget of ${budget:.2} would be exceeded")]
    BudgetExceeded { budget: f64 },
    #[error("judge configuration: {0}")]
    Config(String),
}

impl JudgeError {
    /// What the failed call was still paid for (tokens, USD): the unreadable replies of a
    /// bad reply. None for failures no reply was billed for.
    pub fn spent(&self) -> Option<(Usage, f64)> {
        match self {
            JudgeError::Unparseable { spent, .. } => *spent,
            _ => None,
        }
    }

    /// Whether another attempt may succeed (rate limits, server errors, timeouts,
    /// dropped connections).
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            JudgeError::Timeout(_) | JudgeError::RateLimited { .. } | JudgeError::Connection(_)
        ) || matches!(self, JudgeError::Http { status, .. } if *status >= 500 || *status == 408)
    }

    /// The consumer-facing code of this failure.
    pub fn code(&self) -> crate::ErrorCode {
        use crate::ErrorCode as C;
        match self {
            JudgeError::Timeout(_) => C::JudgeTimeout,
            JudgeError::RateLimited { .. } => C::JudgeRateLimited,
            JudgeError::Http { .. } => C::JudgeHttp,
            JudgeError::Auth { .. } => C::JudgeAuth,
            JudgeError::Connection(_) => C::JudgeUnreachable,
            JudgeError::Unparseable { .. } => C::JudgeBadReply,
            JudgeError::Cancelled => C::Cancelled,
            JudgeError::BudgetExceeded { .. } => C::BudgetExceeded,
            JudgeError::Config(_) => C::JudgeConfig,
        }
    }

    /// The judge's raw output, kept so the user can see what came back.
    pub fn raw_output(&self) -> Option<&str> {
        match self {
            JudgeError::Unparseable { raw, .. } => Some(raw),
            _ => None,
        }
    }
}

/// Per-call context: how to report waits and retries, how to stop, whether to use the
/// cache.
#[derive(Clone)]
pub struct CallContext {
    pub progress: Arc<dyn ProgressSink>,
    pub cancel: CancelToken,
    pub use_cache: bool,
}

impl Default for CallContext {
    fn default() -> Self {
        CallContext {
            progress: Arc::new(NoProgress),
            cancel: CancelToken::new(),
            use_cache: true,
        }
    }
}

/// Something that answers judge tasks. Implementations must be deterministic for the
/// same identity and task when temperature is 0, and must never block forever: every
/// network call has a timeout and honours `CallContext::cancel`.
#[async_trait::async_trait]
pub trait Judge: Send + Sync {
    fn identity(&self) -> &JudgeIdentity;
    /// How many calls this judge takes at once; the run keeps about twice as many items
    /// in flight so the judge is never idle.
    fn concurrency(&self) -> usize {
        4
    }
    async fn judge(&self, task: &Task, ctx: &CallContext) -> Result<Judgement, JudgeError>;
    /// The same judge through its provider's batch service, for runs in batch mode; None
    /// for judges without one (the offline judge, a cascade), which such runs ask live.
    fn batch(&self) -> Option<&dyn batch::BatchJudge> {
        None
    }
}
