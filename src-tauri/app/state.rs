//! The window's state: the use-case context (home, database, keys, the jobs executing
//! in this process). A std Mutex inside is enough: no command holds it across an
//! `.await`.

use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use ragnosis_api::{Ctx, Error, SecretStore};

pub struct AppState(Ctx);

impl AppState {
    /// Opens the database in `home`, or in `RAGNOSIS_HOME` / the platform data dir, with
    /// keys in the OS keyring.
    pub fn open(home: Option<&Path>) -> Result<AppState, Error> {
        Self::opened(Ctx::new(home))
    }

    /// As `open`, with keys kept in `secrets` (tests use an in-memory store).
    pub fn with_secrets(
        home: Option<&Path>,
        secrets: Arc<dyn SecretStore>,
    ) -> Result<AppState, Error> {
        Self::opened(Ctx::with_secrets(home, secrets))
    }

    /// The window does not start without its database: opened now, not on first use.
    fn opened(ctx: Ctx) -> Result<AppState, Error> {
        ctx.open_database()?;
        Ok(AppState(ctx))
    }
}

impl Deref for AppState {
    type Target = Ctx;

    fn deref(&self) -> &Ctx {
        &self.0
    }
}
