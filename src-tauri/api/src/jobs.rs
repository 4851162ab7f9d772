//! Long work: the registry of runs and generations executing in this process (each with
//! its cancel token, removed when its thread ends however it ends), starting one on a
//! thread of its own with its own database connection, and the events its watcher
//! receives, ending with exactly one `ended`. Also where blocking work goes off the
//! caller's thread, so a tokio runtime started by the core is never nested in the
//! caller's (the window's commands run on one).
//!
//! Must not: decide what a job does (runs.rs and generate.rs do), or format events for
//! a screen (the window receives them as they are).

use std::collections::HashMap;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use ragnosis_core::progress::{CancelToken, Progress, ProgressSink};
use ragnosis_core::store::Store;
use ragnosis_core::{Error, Result};
use serde::Serialize;

use crate::Ctx;

/// What kind of long work a job id names (runs and generations have their own ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// An evaluation run; the id is the run's.
    Run,
    /// A test-set generation; the id is the generation's.
    Generation,
    /// A judge check in the foreground; named by the checked profile (`Jobs::register_check`).
    Check,
}

impl JobKind {
    fn noun(self) -> &'static str {
        match self {
            JobKind::Run => "run",
            JobKind::Generation => "generation",
            JobKind::Check => "judge check",
        }
    }
}

/// A job's kind and its id: a run's or a generation's row, a checked profile's name.
type Key = (JobKind, String);
type Registry = Arc<Mutex<HashMap<Key, CancelToken>>>;

/// The jobs executing in this process.
#[derive(Default)]
pub struct Jobs(Registry);

impl Jobs {
    /// Whether this process is executing the job now.
    pub fn is_active(&self, kind: JobKind, id: i64) -> bool {
        self.0
            .lock()
            .map(|jobs| jobs.contains_key(&(kind, id.to_string())))
            .unwrap_or(false)
    }

    /// Asks a job to stop after the work in flight; it stays resumable. `not_running`
    /// when this process is not executing it.
    pub fn cancel(&self, kind: JobKind, id: i64) -> Result<()> {
        self.cancel_key((kind, id.to_string()))
    }

    /// Asks the judge check of `profile` to stop after the calls in flight.
    pub fn cancel_check(&self, profile: &str) -> Result<()> {
        self.cancel_key((JobKind::Check, profile.to_string()))
    }

    fn cancel_key(&self, key: Key) -> Result<()> {
        let (kind, id) = (key.0, key.1.clone());
        let token = self.0.lock().ok().and_then(|j| j.get(&key).cloned());
        match token {
            Some(token) => {
                token.cancel();
                Ok(())
            }
            None => Err(Error::NotRunning(format!(
                "{} {id} is not running here",
                kind.noun()
            ))),
        }
    }

    /// Registers the job; `busy` when it is executing already.
    fn register(&self, kind: JobKind, id: i64) -> Result<Job> {
        self.register_key((kind, id.to_string()))
    }

    /// Registers the judge check of `profile`; `busy` while one runs.
    pub(crate) fn register_check(&self, profile: &str) -> Result<Job> {
        self.register_key((JobKind::Check, profile.to_string()))
    }

    fn register_key(&self, key: Key) -> Result<Job> {
        let (kind, id) = (key.0, key.1.clone());
        let mut jobs = self
            .0
            .lock()
            .map_err(|_| Error::Internal("the job registry was poisoned".into()))?;
        if jobs.contains_key(&key) {
            return Err(Error::Busy(format!(
                "{} {id} is already running",
                kind.noun()
            )));
        }
        let token = CancelToken::new();
        jobs.insert(key.clone(), token.clone());
        Ok(Job {
            registry: self.0.clone(),
            key,
            token,
        })
    }
}

/// The registration of one executing job; dropping it unregisters the job.
pub(crate) struct Job {
    registry: Registry,
    key: Key,
    /// Cancelled by `Jobs::cancel`; the work checks it.
    pub(crate) token: CancelToken,
}

impl Drop for Job {
    fn drop(&mut self) {
        if let Ok(mut jobs) = self.registry.lock() {
            jobs.remove(&self.key);
        }
    }
}

/// One message of a job to its watcher: the core's progress, then one `ended`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum JobEvent {
    /// A step started or advanced, a notice, or the work finished, as the core reports it.
    Progress(Progress),
    /// The job stopped; nothing follows.
    Ended(JobEnd),
}

/// The last message of a job: it stopped (done, cancelled, failed, ...) and is no longer
/// active. `run_id` is the job's id (a generation's for a generation).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobEnd {
    /// The job stopped and is unregistered, so it no longer shows as active.
    Ended {
        /// The job's id: a run's, or a generation's for a generation.
        run_id: i64,
        /// The status the work stored ("done", "cancelled", "failed", ...); "failed" when it
        /// returned an error or panicked.
        status: String,
        /// The stored message, or the error that stopped the job; none when it finished cleanly.
        message: Option<String>,
    },
}

/// Where a job's events go: a Tauri channel in the window, a Vec in tests. A watcher
/// that went away (a closed window) only loses events; the job goes on.
pub trait JobSink: Send + Sync + 'static {
    /// Delivers one event; must not block the job for long.
    fn send(&self, event: JobEvent);
}

/// The core's progress, forwarded to a watcher (a job's, or the window's channel for
/// foreground work such as a judge check).
pub fn progress_to(watcher: Arc<dyn JobSink>) -> Arc<dyn ProgressSink> {
    Arc::new(Forward(watcher))
}

struct Forward(Arc<dyn JobSink>);

impl ProgressSink for Forward {
    fn report(&self, event: Progress) {
        self.0.send(JobEvent::Progress(event));
    }
}

/// The status a job's work stored, and its message.
pub(crate) type Outcome = (String, Option<String>);

/// Registers the job, then executes `work` on a thread of its own with its own
/// connection and returns at once. The watcher gets the work's progress and then one
/// `ended`, sent after the job is unregistered so a window reacting to it sees it
/// inactive. A panic becomes a failed job that can be resumed.
pub(crate) fn spawn<W>(
    ctx: &Ctx,
    kind: JobKind,
    id: i64,
    watcher: Arc<dyn JobSink>,
    work: W,
) -> Result<()>
where
    W: FnOnce(&mut Store, Arc<dyn ProgressSink>, &CancelToken) -> Result<Outcome> + Send + 'static,
{
    let job = ctx.jobs.register(kind, id)?;
    let home = ctx.home().to_path_buf();
    let noun = kind.noun();
    let body = move || {
        let progress = progress_to(watcher.clone());
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let mut store = Store::open(&home)?;
            work(&mut store, progress, &job.token)
        }));
        let (status, message) = match outcome {
            Ok(Ok(ended)) => ended,
            Ok(Err(e)) => ("failed".to_string(), Some(e.to_string())),
            Err(_) => (
                "failed".to_string(),
                Some(format!(
                    "the {noun} stopped on an internal error; it can be resumed"
                )),
            ),
        };
        drop(job);
        watcher.send(JobEvent::Ended(JobEnd::Ended {
            run_id: id,
            status,
            message,
        }));
    };
    std::thread::Builder::new()
        .name(format!("ragnosis-{noun}-{id}"))
        .spawn(body)
        .map_err(|e| Error::Internal(format!("cannot start the {noun}'s thread: {e}")))?;
    Ok(())
}

/// Executes blocking work (a run in the foreground, a judge check, a trial) on a thread
/// of its own and waits for it: the core starts its own tokio runtime for such work,
/// which must not be nested in the caller's.
pub(crate) fn on_own_thread<T: Send>(
    what: &str,
    work: impl FnOnce() -> Result<T> + Send,
) -> Result<T> {
    std::thread::scope(|scope| scope.spawn(work).join())
        .map_err(|_| Error::Internal(format!("{what} stopped on an internal error")))?
}

/// Waits for one of the judge layer's async calls (a connection test, model discovery)
/// from synchronous code, on a thread of its own.
pub(crate) fn wait_for<F>(what: &str, call: F) -> Result<F::Output>
where
    F: Future + Send,
    F::Output: Send,
{
    on_own_thread(what, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::Internal(format!("cannot start {what}'s runtime: {e}")))?;
        Ok(runtime.block_on(call))
    })
}
