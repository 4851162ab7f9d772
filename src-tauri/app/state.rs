//! Shared state: the store behind a mutex. A std Mutex is enough: no command holds it
//! across an `.await`.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use ragnosis_core::paths;
use ragnosis_core::store::Store;

use crate::error::CommandError;

pub struct AppState {
    pub home: PathBuf,
    store: Mutex<Store>,
}

impl AppState {
    /// Opens the store in `home`, or in `RAGNOSIS_HOME` / the platform data dir.
    pub fn open(home: Option<&Path>) -> ragnosis_core::Result<AppState> {
        let home = paths::home_dir(home);
        let store = Store::open(&home)?;
        Ok(AppState { home, store: Mutex::new(store) })
    }

    pub fn store(&self) -> Result<MutexGuard<'_, Store>, CommandError> {
        self.store.lock().map_err(|_| CommandError::internal("the database lock was poisoned by an earlier failure"))
    }
}
