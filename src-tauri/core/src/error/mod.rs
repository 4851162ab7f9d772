//! The core's error type. Every variant carries enough to tell the user what happened
//! and where; `code()` is the stable `ErrorCode` the CLI and the desktop UI branch on.

use std::path::PathBuf;

mod dataset;
/// Why a judge call failed and what it used (the judge crate's own error).
pub use ragnosis_judge::error as judge;

pub use crate::error_code::ErrorCode;
pub use dataset::DatasetError;
pub use judge::JudgeError;

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<crate::judge_profile::InvalidProfile> for Error {
    fn from(e: crate::judge_profile::InvalidProfile) -> Error {
        Error::Invalid(e.0)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    #[error("{}", store_message(.0))]
    Store(#[from] rusqlite::Error),
    #[error("database migration failed: {0}")]
    Migration(#[from] rusqlite_migration::Error),
    #[error(transparent)]
    Selection(#[from] crate::catalogue::SelectionError),
    #[error("{what} {id} does not exist")]
    NotFound { what: &'static str, id: String },
    #[error("invalid input: {0}")]
    Invalid(String),
    #[error("the run was cancelled")]
    Cancelled,
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot write {path}: {source}{}", write_hint(source))]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Judge(#[from] JudgeError),
    #[error(transparent)]
    Secret(#[from] crate::secrets::SecretError),
    /// The database cannot be used as it is (a newer schema, a damaged file).
    #[error("cannot use the database at {path}: {reason}")]
    DatabaseUnusable { path: PathBuf, reason: String },
    /// Another process is doing it (evaluating the same run).
    #[error("{0}")]
    Busy(String),
    /// Two runs were judged differently; comparing them needs consent.
    #[error("{0}")]
    JudgedDifferently(String),
    /// A profile with a stored key now points at another host; sending the key there
    /// needs consent.
    #[error("{0}")]
    KeyHostChanged(String),
    /// A run stopped because its judge failed on every call; `code` is the judge's.
    #[error("{message}")]
    JudgeDown { code: ErrorCode, message: String },
    /// Cancel was asked for work this process is not doing.
    #[error("{0}")]
    NotRunning(String),
    /// A chart or the PDF of a report could not be made (writing its file is `Write`).
    #[error("cannot make the report {}: {message}", .path.display())]
    Report { path: PathBuf, message: String },
    /// A defect (a worker that panicked, a poisoned lock); the message says where.
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// The stable code a consumer branches on (see `ErrorCode`).
    pub fn code(&self) -> ErrorCode {
        use DatasetError as D;
        match self {
            Error::Io { .. } => ErrorCode::Io,
            Error::Dataset(e) => match e {
                D::EmptyFile { .. } => ErrorCode::DatasetEmptyFile,
                D::BinaryFile { .. } => ErrorCode::DatasetBinaryFile,
                D::TooLarge { .. } => ErrorCode::DatasetTooLarge,
                D::UnsupportedShape { .. } => ErrorCode::DatasetUnsupportedShape,
                D::Unreadable { .. } => ErrorCode::DatasetUnreadable,
                D::Aborted(_) => ErrorCode::DatasetAborted,
                D::NoItems { .. } => ErrorCode::DatasetNoItems,
            },
            Error::Store(_) | Error::Migration(_) => ErrorCode::Store,
            Error::Selection(_) => ErrorCode::MetricsSelection,
            Error::NotFound { .. } => ErrorCode::NotFound,
            Error::Invalid(_) => ErrorCode::Invalid,
            Error::Cancelled => ErrorCode::Cancelled,
            Error::Json(_) => ErrorCode::Json,
            Error::Write { .. } => ErrorCode::Write,
            Error::Judge(e) => e.code(),
            Error::Secret(_) => ErrorCode::Secret,
            Error::JudgeDown { code, .. } => *code,
            Error::Busy(_) => ErrorCode::Busy,
            Error::JudgedDifferently(_) => ErrorCode::CompareJudgedDifferently,
            Error::KeyHostChanged(_) => ErrorCode::KeyHostChanged,
            Error::DatabaseUnusable { .. } => ErrorCode::Store,
            Error::NotRunning(_) => ErrorCode::NotRunning,
            Error::Report { .. } => ErrorCode::Report,
            Error::Internal(_) => ErrorCode::Internal,
        }
    }

    /// What a consumer may show beside the message: the judge's raw reply when it could
    /// not be read (keys never appear in it: providers' bodies are scrubbed).
    pub fn detail(&self) -> Option<String> {
        match self {
            Error::Judge(e) => e
                .raw_output()
                .filter(|raw| !raw.is_empty())
                .map(str::to_string),
            _ => None,
        }
    }

    /// True when the problem is the user's input, not a runtime failure (CLI exit 2 vs 3).
    /// An import stopped by a failed write (a full disk) is a runtime failure.
    pub fn is_input_error(&self) -> bool {
        use DatasetError as D;
        match self {
            Error::Dataset(D::Aborted(_)) => false,
            Error::Io { .. }
            | Error::Dataset(_)
            | Error::Selection(_)
            | Error::NotFound { .. }
            | Error::KeyHostChanged(_)
            | Error::Invalid(_) => true,
            _ => false,
        }
    }
}

/// What a damaged database file asks of its user, in every message that reports damage.
pub const DAMAGED_DATABASE: &str = "Ragnosis will not write to it: run `ragnosis doctor` (Settings → Check the database in the window) to see what is damaged and keep a copy, then move the file aside (rename it) to start with an empty database, or put back a copy from a backup";

/// A database failure in words: what happened and, for the faults of the machine (a
/// full disk, a read-only or missing folder, a failing disk), what to do. Stored data is
/// never lost by these: SQLite rolls back the write that failed.
fn store_message(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode as C;
    let code = match e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        _ => None,
    };
    let advice = match code {
        Some(C::DiskFull) => {
            "the disk holding the Ragnosis database is full. Free some space on it, then do the same again (a run: `ragnosis resume RUN`); everything stored before is kept"
        }
        Some(C::ReadOnly) => {
            "the Ragnosis database cannot be written: its file or folder is read-only. Make them writable, or choose a writable folder with --home DIR (or RAGNOSIS_HOME)"
        }
        Some(C::CannotOpen) => {
            "the Ragnosis database file cannot be opened or created: check that its folder exists and is writable, or choose another with --home DIR (or RAGNOSIS_HOME)"
        }
        Some(C::DatabaseBusy) => {
            return format!(
                "another Ragnosis process (the window or a terminal) kept the database busy with its writes for longer than Ragnosis waits: let its import or run finish, or stop it, then do the same again; what this one was writing was rolled back (database error: {e})"
            )
        }
        Some(C::DatabaseCorrupt) | Some(C::NotADatabase) => {
            return format!(
                "the Ragnosis database file is damaged. {DAMAGED_DATABASE} (database error: {e})"
            )
        }
        Some(C::SystemIoFailure) => {
            "the disk holding the Ragnosis database failed to read or write (it may be full or failing). Check the disk and its free space, then do the same again; the last write was rolled back"
        }
        _ => return format!("database error: {e}"),
    };
    format!("{advice} (database error: {e})")
}

/// What to do when a file cannot be written, for the causes a user can act on.
fn write_hint(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::StorageFull | K::QuotaExceeded | K::FileTooLarge => {
            ". The disk is full: free some space, or write somewhere else"
        }
        K::ReadOnlyFilesystem | K::PermissionDenied => {
            ". The folder is read-only: choose a writable one"
        }
        K::NotFound => ". The folder does not exist",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past the busy handler's patience SQLite says "database is locked"; the user is told
    /// who holds it and what to do.
    #[test]
    fn a_database_held_by_another_process_is_named_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("held.db");
        let holder = rusqlite::Connection::open(&path).unwrap();
        holder
            .execute_batch("BEGIN IMMEDIATE; CREATE TABLE t (x)")
            .unwrap();
        // No waiting: it gives up at once, as one does after its patience.
        let waiter = rusqlite::Connection::open(&path).unwrap();
        waiter.busy_timeout(std::time::Duration::ZERO).unwrap();
        let e = Error::from(waiter.execute_batch("BEGIN IMMEDIATE").unwrap_err());
        let message = e.to_string();
        assert!(
            message.contains("another Ragnosis process")
                && message.contains("let its import or run finish"),
            "{message}"
        );
        assert_eq!(e.code(), ErrorCode::Store);
    }
}
