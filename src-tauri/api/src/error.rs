//! Errors as a shell hands them on. Every use case returns the core's `Error`, whose
//! `code()` is the stable `ErrorCode`; the window receives it as an `ErrorView`
//! (`{ code, message, detail }`, so it can branch on `code` and show `message` as text),
//! the CLI prints it with its code in brackets. Never a bare string.

use ragnosis_core::judge::JudgeError;
use ragnosis_core::{Error, ErrorCode};
use serde::Serialize;

/// An error as the window receives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ErrorView {
    /// One of `ErrorCode` ("judge.auth", "dataset.empty_file", "invalid", ...): stable
    /// and machine-readable; the window branches on some of them.
    pub code: String,
    /// For people; never contains a key.
    pub message: String,
    /// The judge's raw reply when it could not be read ("judge.bad_reply").
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub detail: Option<String>,
    /// How long the judge service asked to wait ("judge.rate_limited"), when it said.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub retry_after_secs: Option<u64>,
    /// `true` when trying the same thing again (later) may succeed; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub retry_helps: Option<bool>,
}

impl From<Error> for ErrorView {
    fn from(e: Error) -> Self {
        let retry_after_secs = match &e {
            Error::Judge(JudgeError::RateLimited {
                retry_after_secs, ..
            }) => *retry_after_secs,
            _ => None,
        };
        ErrorView {
            message: e.to_string(),
            detail: e.detail(),
            retry_after_secs,
            ..ErrorView::new(e.code(), "")
        }
    }
}

impl From<JudgeError> for ErrorView {
    fn from(e: JudgeError) -> Self {
        Error::from(e).into()
    }
}

impl ErrorView {
    /// An error with `code` and `message` only; `retry_helps` follows the code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ErrorView {
            code: code.as_str().to_string(),
            message: message.into(),
            detail: None,
            retry_after_secs: None,
            retry_helps: code.retry_helps().then_some(true),
        }
    }
}

/// A report's failure as every use case returns it: the core's own error when the core
/// failed underneath, `write` naming the file for a file that could not be written, and
/// `report` for a chart or the PDF that could not be made.
pub(crate) fn from_report(e: ragnosis_report::Error, base: &std::path::Path) -> Error {
    match e {
        ragnosis_report::Error::Core(e) => e,
        ragnosis_report::Error::Write { path, source } => Error::Write { path, source },
        other => Error::Report {
            path: base.to_path_buf(),
            message: other.to_string(),
        },
    }
}
