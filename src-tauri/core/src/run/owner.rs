//! Which process is evaluating a run. The process that executes a run holds an exclusive
//! lock on a small file beside the database for as long as it evaluates; the operating
//! system drops the lock when the process ends, however it ends. A run stored as
//! "running" whose lock nobody holds was left by a process that died (killed, crashed,
//! the machine went down): it is interrupted, and a resume continues it. A second process
//! asked to execute a run another one holds is refused instead of racing it.
//!
//! Owns: the lock files. Must not: change a run's stored status.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::store::Store;

/// Held while a run executes; dropping it (or the process ending) releases the run.
#[derive(Debug)]
pub struct OwnerLock {
    _file: File,
}

fn lock_path(store: &Store, run_id: i64) -> PathBuf {
    let mut name = store
        .path()
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(format!(".run-{run_id}.lock"));
    store.path().with_file_name(name)
}

fn open(store: &Store, run_id: i64) -> Result<File> {
    let path = lock_path(store, run_id);
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| Error::Write { path, source })
}

/// Takes the run for this process; refused while another process (or another execution
/// in this one) holds it.
pub fn claim(store: &Store, run_id: i64) -> Result<OwnerLock> {
    let file = open(store, run_id)?;
    match file.try_lock() {
        Ok(()) => Ok(OwnerLock { _file: file }),
        Err(TryLockError::WouldBlock) => Err(Error::Busy(format!(
            "run {run_id} is being evaluated by another Ragnosis process (the window or a terminal); wait for it to finish or cancel it there"
        ))),
        Err(TryLockError::Error(source)) => Err(Error::Write {
            path: lock_path(store, run_id),
            source,
        }),
    }
}

/// Whether some process is evaluating the run now. False when the lock file cannot be
/// opened: the run then shows as interrupted, and a live owner refuses the resume.
pub fn is_evaluating(store: &Store, run_id: i64) -> bool {
    let Ok(file) = open(store, run_id) else {
        return false;
    };
    match file.try_lock() {
        Ok(()) => false,
        Err(TryLockError::WouldBlock) => true,
        Err(TryLockError::Error(_)) => false,
    }
}

/// The status to show for a stored run: "interrupted" for one stored as running that
/// no process is evaluating (its process died), else the stored status.
pub fn shown_status(store: &Store, run: &crate::store::runs::RunRow) -> &'static str {
    use crate::store::runs::RunStatus;
    if run.status == RunStatus::Running && !is_evaluating(store, run.id) {
        "interrupted"
    } else {
        run.status.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_run_is_evaluating_until_its_lock_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert!(!is_evaluating(&store, 7), "nobody holds it yet");
        let lock = claim(&store, 7).unwrap();
        assert!(is_evaluating(&store, 7));
        assert!(
            matches!(claim(&store, 7), Err(Error::Busy(_))),
            "a second execution is refused"
        );
        assert!(!is_evaluating(&store, 8), "locks are per run");
        drop(lock);
        assert!(!is_evaluating(&store, 7), "released with the lock");
    }
}
