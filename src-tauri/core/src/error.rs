//! The core's error type. Every variant carries enough to tell the user what happened
//! and where; `code()` is the stable string the CLI and the desktop UI branch on.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Dataset(#[from] crate::dataset::DatasetError),
    #[error("database error: {0}")]
    Store(#[from] rusqlite::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error(transparent)]
    Selection(#[from] crate::metrics::catalogue::SelectionError),
    #[error("{what} {id} does not exist")]
    NotFound { what: &'static str, id: String },
    #[error("invalid input: {0}")]
    Invalid(String),
    #[error("the run was cancelled")]
    Cancelled,
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Judge(#[from] crate::judge::JudgeError),
    #[error(transparent)]
    Secret(#[from] crate::secrets::SecretError),
}

impl Error {
    /// A stable, machine-readable code ("dataset.empty_file", "store", "not_found", ...).
    pub fn code(&self) -> String {
        match self {
            Error::Io { .. } => "io".into(),
            Error::Dataset(e) => format!("dataset.{}", e.code()),
            Error::Store(_) | Error::Migration(_) => "store".into(),
            Error::Selection(_) => "metrics.selection".into(),
            Error::NotFound { .. } => "not_found".into(),
            Error::Invalid(_) => "invalid".into(),
            Error::Cancelled => "cancelled".into(),
            Error::Json(_) => "json".into(),
            Error::Write { .. } => "write".into(),
            Error::Judge(_) => "judge".into(),
            Error::Secret(_) => "secret".into(),
        }
    }

    /// True when the problem is the user's input, not a runtime failure (CLI exit 2 vs 3).
    pub fn is_input_error(&self) -> bool {
        matches!(
            self,
            Error::Io { .. }
                | Error::Dataset(_)
                | Error::Selection(_)
                | Error::NotFound { .. }
                | Error::Invalid(_)
        )
    }
}
