//! Why a judge call failed, and what a call used. The core's error wraps a `JudgeError`
//! (`Error::Judge`) and keeps its code. `Usage` is here because a failed call still
//! carries what its unreadable replies cost.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Tokens a call used. `estimated` when the provider did not report usage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub estimated: bool,
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
    pub fn code(&self) -> ragnosis_types::ErrorCode {
        use ragnosis_types::ErrorCode as C;
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
