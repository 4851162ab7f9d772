//! The error every command returns: `{ code, message, detail }`, so the UI can branch on
//! `code` and show `message` as text. Never a bare string.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CommandError {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl From<ragnosis_core::Error> for CommandError {
    fn from(e: ragnosis_core::Error) -> Self {
        CommandError { code: e.code(), message: e.to_string(), detail: None }
    }
}

impl CommandError {
    pub fn internal(message: impl Into<String>) -> Self {
        CommandError { code: "internal".into(), message: message.into(), detail: None }
    }
}

pub type CommandResult<T> = Result<T, CommandError>;
