//! The error every command returns: `{ code, message, detail }`, so the UI can branch on
//! `code` and show `message` as text. Never a bare string.

use ragnosis_core::judge::JudgeError;
use ragnosis_core::ErrorCode;
use serde::Serialize;
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CommandError {
    /// One of `ragnosis_core::ErrorCode` ("judge.auth", "dataset.empty_file", "invalid",
    /// ...): stable and machine-readable; the window branches on some of them.
    pub code: String,
    /// For people; never contains a key.
    pub message: String,
    /// The judge's raw reply when it could not be read ("judge.bad_reply").
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub detail: Option<String>,
    /// How long the judge service asked to wait ("judge.rate_limited"), when it said.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub retry_after_secs: Option<u64>,
    /// `true` when trying the same thing again (later) may succeed; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub retry_helps: Option<bool>,
}

impl From<ragnosis_core::Error> for CommandError {
    fn from(e: ragnosis_core::Error) -> Self {
        let retry_after_secs = match &e {
            ragnosis_core::Error::Judge(JudgeError::RateLimited {
                retry_after_secs, ..
            }) => *retry_after_secs,
            _ => None,
        };
        CommandError {
            message: e.to_string(),
            detail: e.detail(),
            retry_after_secs,
            ..CommandError::new(e.code(), "")
        }
    }
}

impl From<ragnosis_core::secrets::SecretError> for CommandError {
    fn from(e: ragnosis_core::secrets::SecretError) -> Self {
        ragnosis_core::Error::from(e).into()
    }
}

impl From<ragnosis_core::judge::JudgeError> for CommandError {
    fn from(e: ragnosis_core::judge::JudgeError) -> Self {
        ragnosis_core::Error::from(e).into()
    }
}

/// Chart or typesetting failures keep the core's code when the core failed underneath.
impl From<ragnosis_report::Error> for CommandError {
    fn from(e: ragnosis_report::Error) -> Self {
        match e {
            ragnosis_report::Error::Core(e) => e.into(),
            other => CommandError::new(ErrorCode::Report, other.to_string()),
        }
    }
}

impl CommandError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        CommandError {
            code: code.as_str().to_string(),
            message: message.into(),
            detail: None,
            retry_after_secs: None,
            retry_helps: code.retry_helps().then_some(true),
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Internal, message)
    }

    /// The request itself is wrong (same code as the core's `Error::Invalid`).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Invalid, message)
    }
}

pub type CommandResult<T> = Result<T, CommandError>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The window branches on some codes by their text (ui/src/lib/errors.ts): each must
    /// be one the core can send.
    #[test]
    fn every_code_the_window_acts_on_exists() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/lib/errors.ts");
        let source = std::fs::read_to_string(&path).unwrap();
        let used: Vec<&str> = source
            .lines()
            .filter(|l| {
                l.starts_with("export const JUDGE_") || l.starts_with("export const COMPARE_")
            })
            .filter_map(|l| l.split('\'').nth(1))
            .collect();
        assert!(used.len() >= 4, "found {used:?} in {}", path.display());
        for code in used {
            assert!(
                ErrorCode::ALL.iter().any(|c| c.as_str() == code),
                "{code} is not an ErrorCode"
            );
        }
    }
}
