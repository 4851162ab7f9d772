//! The error every command returns: `{ code, message, detail }`, so the UI can branch on
//! `code` and show `message` as text. Never a bare string.

use serde::Serialize;
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct CommandError {
    /// Stable and machine-readable: the core's codes ("dataset.empty_file", "store",
    /// "not_found", "invalid", "judge", "secret", ...) plus the shell's own ("busy",
    /// "internal").
    pub code: String,
    /// For people; never contains a key.
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub detail: Option<String>,
}

impl From<ragnosis_core::Error> for CommandError {
    fn from(e: ragnosis_core::Error) -> Self {
        CommandError {
            code: e.code(),
            message: e.to_string(),
            detail: None,
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
            other => CommandError::new("report", other.to_string()),
        }
    }
}

impl CommandError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        CommandError {
            code: code.into(),
            message: message.into(),
            detail: None,
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new("internal", message)
    }

    /// The request itself is wrong (same code as the core's `Error::Invalid`).
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new("invalid", message)
    }
}

pub type CommandResult<T> = Result<T, CommandError>;
