//! `Ctx`: what every use case runs against — the home folder, its database, where keys
//! are kept, and the long work executing in this process. Owns opening the store; must
//! not hand the store out of the crate (the shells never name it).
//!
//! The database is opened on first use, so that what only reads the catalogue (listing
//! metrics, checking a request) never creates one in a folder that has none.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use ragnosis_core::paths;
use ragnosis_core::secrets::{KeyringStore, SecretStore};
use ragnosis_core::store::Store;
use ragnosis_core::{Error, Result};

use crate::jobs::Jobs;

/// What every use case runs against: the home folder, its database (opened on first
/// use), where keys are kept, and the jobs executing in this process. One per shell
/// process.
pub struct Ctx {
    home: PathBuf,
    /// The shared connection for short reads and writes; long work opens its own.
    store: OnceLock<Mutex<Store>>,
    pub(crate) secrets: Arc<dyn SecretStore>,
    pub(crate) jobs: Jobs,
}

impl Ctx {
    /// `home`, or `RAGNOSIS_HOME`, or the platform data folder; keys in the OS keyring.
    pub fn new(home: Option<&Path>) -> Ctx {
        Self::with_secrets(home, Arc::new(KeyringStore))
    }

    /// As `new`, with keys kept in `secrets` (tests use an in-memory store).
    pub fn with_secrets(home: Option<&Path>, secrets: Arc<dyn SecretStore>) -> Ctx {
        Ctx {
            home: paths::home_dir(home),
            store: OnceLock::new(),
            secrets,
            jobs: Jobs::default(),
        }
    }

    /// Opens (or creates) the database now, so a shell can refuse to start without one.
    pub fn open_database(&self) -> Result<()> {
        self.shared().map(|_| ())
    }

    /// The home folder: the database (`ragnosis.db`) and the example set are written in it.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The database file, for messages that must say where.
    pub fn database_path(&self) -> PathBuf {
        paths::database_path(&self.home)
    }

    /// Where judge keys are kept: the OS keyring, or the store given to `with_secrets`.
    pub fn secrets(&self) -> &dyn SecretStore {
        self.secrets.as_ref()
    }

    /// The runs and generations executing in this process.
    pub fn jobs(&self) -> &Jobs {
        &self.jobs
    }

    fn shared(&self) -> Result<&Mutex<Store>> {
        if let Some(store) = self.store.get() {
            return Ok(store);
        }
        let opened = Store::open(&self.home)?;
        // Another thread may have opened it meanwhile; either connection will do.
        let _ = self.store.set(Mutex::new(opened));
        Ok(self.store.get().expect("the store was set just above"))
    }

    /// The shared connection (creates the database when there is none).
    pub(crate) fn store(&self) -> Result<MutexGuard<'_, Store>> {
        self.shared()?.lock().map_err(|_| {
            Error::Internal("the database lock was poisoned by an earlier failure".into())
        })
    }

    /// The shared connection when a database exists (its criteria then registered),
    /// without creating one.
    pub(crate) fn existing_store(&self) -> Result<Option<MutexGuard<'_, Store>>> {
        if self.store.get().is_none() && !self.database_path().exists() {
            return Ok(None);
        }
        self.store().map(Some)
    }

    /// A connection of its own, for work that takes long (runs, imports, exports): the
    /// shared one stays free for the window's reads while SQLite (WAL) writes.
    pub(crate) fn own_store(&self) -> Result<Store> {
        Store::open(&self.home)
    }
}
