//! The dataset reader's file-level failures. They live with the crate's error (which
//! wraps them) so that the error type needs nothing above it; `dataset` re-exports them.

use std::path::Path;

/// File-level failures: nothing could be read as items at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DatasetError {
    #[error("{path} is empty: there is nothing to import")]
    EmptyFile { path: String },
    #[error("{path} looks like a binary file ({what}); Ragnosis reads JSONL, JSON or CSV text, or Parquet")]
    BinaryFile { path: String, what: String },
    #[error("{path} is {size} bytes, over the {limit}-byte limit")]
    TooLarge { path: String, size: u64, limit: u64 },
    #[error("{path}: {message}")]
    UnsupportedShape { path: String, message: String },
    #[error("cannot read {path}: {message}")]
    Unreadable { path: String, message: String },
    #[error("import stopped: {0}")]
    Aborted(String),
    /// Read, but no record became an item.
    #[error("{path}: {message}; nothing was stored")]
    NoItems { path: String, message: String },
}

impl DatasetError {
    pub fn code(&self) -> &'static str {
        match self {
            DatasetError::EmptyFile { .. } => "empty_file",
            DatasetError::BinaryFile { .. } => "binary_file",
            DatasetError::TooLarge { .. } => "too_large",
            DatasetError::UnsupportedShape { .. } => "unsupported_shape",
            DatasetError::Unreadable { .. } => "unreadable",
            DatasetError::Aborted(_) => "aborted",
            DatasetError::NoItems { .. } => "no_items",
        }
    }
}

impl DatasetError {
    /// The file could not be opened or read at `path`.
    pub fn unreadable(path: &Path, e: impl std::fmt::Display) -> DatasetError {
        DatasetError::Unreadable {
            path: path.display().to_string(),
            message: e.to_string(),
        }
    }
}
