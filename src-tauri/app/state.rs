//! The window's state: the use-case context (home, database, keys, the jobs executing
//! in this process). A std Mutex inside is enough: no command holds it across an
//! `.await`.

use std::ops::Deref;
use std::path::Path;
use std::sync::Arc;

use ragnosis_api::{Ctx, Error, SecretStore};

use crate::error::{CommandError, CommandResult};

pub struct AppState {
    ctx: Arc<Ctx>,
    /// Why the database could not be opened at start, shown by the window in place of
    /// its screens (a damaged or newer file, a read-only folder).
    problem: Option<CommandError>,
}

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

    /// Opened now, not on first use, so a problem shows at once.
    fn opened(ctx: Ctx) -> Result<AppState, Error> {
        ctx.open_database()?;
        Ok(AppState {
            ctx: Arc::new(ctx),
            problem: None,
        })
    }

    /// As `open`, but a database that cannot be opened does not stop the window: it
    /// opens and says what happened and what to do (`startup_problem`).
    pub fn open_or_problem(home: Option<&Path>) -> AppState {
        let ctx = Ctx::new(home);
        let problem = ctx.open_database().err().map(CommandError::from);
        AppState {
            ctx: Arc::new(ctx),
            problem,
        }
    }

    /// Why the database could not be opened when the window started, if it could not.
    pub fn startup_problem(&self) -> Option<CommandError> {
        self.problem.clone()
    }

    /// Runs work that blocks for long (a judge check, a trial, a connection test) on
    /// Tauri's blocking pool, so no async worker of the window waits on it.
    pub async fn blocking<T, W>(&self, work: W) -> CommandResult<T>
    where
        T: Send + 'static,
        W: FnOnce(&Ctx) -> Result<T, Error> + Send + 'static,
    {
        let ctx = self.ctx.clone();
        tauri::async_runtime::spawn_blocking(move || work(&ctx))
            .await
            .map_err(|e| Error::Internal(format!("the work stopped unexpectedly: {e}")))?
            .map_err(Into::into)
    }
}

impl Deref for AppState {
    type Target = Ctx;

    fn deref(&self) -> &Ctx {
        &self.ctx
    }
}
