//! Whether the database file is whole. SQLite notices damage only where a statement
//! happens to read a damaged page: a file with pages overwritten in the middle kept
//! taking new runs and failed later, on an export, with a bare "database disk image is
//! malformed". So a small file is checked when it is opened (SQLite's quick check reads
//! every page, about a tenth of a second for 30 MB), any file when the user asks
//! (`ragnosis doctor`, Settings → Check the database), and every error SQLite reports as
//! damage says what to do.
//!
//! Owns: the checks and the backup copy. Must not: repair anything; a damaged file is
//! never written to.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::error::{Error, Result};

/// Files up to this size are checked whole each time they are opened.
pub const CHECK_ON_OPEN_BYTES: u64 = 32 * 1024 * 1024;

pub use crate::error::DAMAGED_DATABASE as WHAT_TO_DO;

/// SQLite's quick check of an open connection: the problems it lists, none when whole.
pub fn quick_check(conn: &Connection) -> Result<Vec<String>> {
    problems(conn, "PRAGMA quick_check")
}

fn problems(conn: &Connection, pragma: &str) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(pragma)?;
    let rows = stmt
        .query_map([], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(rows.into_iter().filter(|r| r != "ok").collect())
}

/// What `check_file` found.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Health {
    pub path: PathBuf,
    pub size_bytes: u64,
    /// SQLite's integrity check, line by line; empty when the file is whole.
    pub problems: Vec<String>,
    /// Where the copy of the file was written, byte for byte, before anything else.
    pub backup: Option<PathBuf>,
}

impl Health {
    pub fn is_whole(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Copies the database file (and its write-ahead log, which holds the latest commits) to
/// `backup`, then runs SQLite's full integrity check on the original, read-only. A file
/// that is not a database at all is one problem, not an error: the check reports it.
pub fn check_file(path: &Path, backup: Option<&Path>) -> Result<Health> {
    let size_bytes = std::fs::metadata(path)
        .map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?
        .len();
    let backup = match backup {
        Some(dest) => {
            copy(path, dest)?;
            let wal = wal_of(path);
            if wal.exists() {
                copy(&wal, &wal_of(dest))?;
            }
            Some(dest.to_path_buf())
        }
        None => None,
    };
    let problems = match Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(Error::from)
        .and_then(|conn| problems(&conn, "PRAGMA integrity_check"))
    {
        Ok(problems) => problems,
        Err(e) => vec![e.to_string()],
    };
    Ok(Health {
        path: path.to_path_buf(),
        size_bytes,
        problems,
        backup,
    })
}

fn wal_of(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

fn copy(from: &Path, to: &Path) -> Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(|source| Error::Write {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::copy(from, to).map_err(|source| Error::Write {
        path: to.to_path_buf(),
        source,
    })?;
    Ok(())
}
