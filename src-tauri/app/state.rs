//! Shared state: the store behind a mutex, the runs this process is executing (each with
//! its cancel token), and where keys are kept. A std Mutex is enough: no command holds
//! it across an `.await`.
//!
//! Long work never holds the shared store: a run or an import opens its own connection
//! (`AppState::open_store`), so the window keeps reading while SQLite (WAL) writes.

use ragnosis_core::ErrorCode;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use ragnosis_core::paths;
use ragnosis_core::progress::CancelToken;
use ragnosis_core::secrets::{KeyringStore, SecretStore};
use ragnosis_core::store::Store;

use crate::error::CommandError;

pub struct AppState {
    pub home: PathBuf,
    store: Mutex<Store>,
    pub runs: Arc<ActiveRuns>,
    /// Test-set generations executing in this process, by generation id.
    pub generations: Arc<ActiveRuns>,
    pub secrets: Arc<dyn SecretStore>,
}

impl AppState {
    /// Opens the store in `home`, or in `RAGNOSIS_HOME` / the platform data dir, with
    /// keys in the OS keyring.
    pub fn open(home: Option<&Path>) -> ragnosis_core::Result<AppState> {
        Self::with_secrets(home, Arc::new(KeyringStore))
    }

    /// As `open`, with keys kept in `secrets` (tests use an in-memory store).
    pub fn with_secrets(
        home: Option<&Path>,
        secrets: Arc<dyn SecretStore>,
    ) -> ragnosis_core::Result<AppState> {
        let home = paths::home_dir(home);
        let store = Store::open(&home)?;
        Ok(AppState {
            home,
            store: Mutex::new(store),
            runs: Arc::new(ActiveRuns::default()),
            generations: Arc::new(ActiveRuns::default()),
            secrets,
        })
    }

    pub fn store(&self) -> Result<MutexGuard<'_, Store>, CommandError> {
        self.store.lock().map_err(|_| {
            CommandError::internal("the database lock was poisoned by an earlier failure")
        })
    }

    /// A connection of its own, for work that takes long (runs, imports).
    pub fn open_store(&self) -> Result<Store, CommandError> {
        Ok(Store::open(&self.home)?)
    }
}

/// Runs executing in this process, by run id. A run is registered before its thread
/// starts and removed when the thread ends, however it ends (`ActiveRun` drops).
#[derive(Default)]
pub struct ActiveRuns(Mutex<HashMap<i64, CancelToken>>);

impl ActiveRuns {
    /// Registers `run_id`; fails with code `busy` when it is already executing.
    pub fn start(self: &Arc<Self>, run_id: i64) -> Result<ActiveRun, CommandError> {
        let mut runs = self
            .0
            .lock()
            .map_err(|_| CommandError::internal("the run registry was poisoned"))?;
        if runs.contains_key(&run_id) {
            return Err(CommandError::new(
                ErrorCode::Busy,
                format!("run {run_id} is already running"),
            ));
        }
        let token = CancelToken::new();
        runs.insert(run_id, token.clone());
        Ok(ActiveRun {
            runs: self.clone(),
            run_id,
            token,
        })
    }

    pub fn is_active(&self, run_id: i64) -> bool {
        self.0
            .lock()
            .map(|r| r.contains_key(&run_id))
            .unwrap_or(false)
    }

    /// Asks a run to stop; false when it is not executing here.
    pub fn cancel(&self, run_id: i64) -> bool {
        match self.0.lock().ok().and_then(|r| r.get(&run_id).cloned()) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }
}

/// The registration of one executing run; dropping it unregisters the run.
pub struct ActiveRun {
    runs: Arc<ActiveRuns>,
    pub run_id: i64,
    pub token: CancelToken,
}

impl Drop for ActiveRun {
    fn drop(&mut self) {
        if let Ok(mut runs) = self.runs.0.lock() {
            runs.remove(&self.run_id);
        }
    }
}
