//! Progress reporting as a sink: indicatif in the CLI, a Tauri channel in the app, a Vec
//! in tests. The core reports; it never decides how progress looks.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Progress {
    /// A long step started; `total` is known for runs, unknown (None) for imports.
    Started {
        stage: String,
        total: Option<u64>,
    },
    /// `done` units of the current stage are finished.
    Advanced {
        done: u64,
        total: Option<u64>,
    },
    /// Something the user should read now ("line 12 rejected: ...", "waiting 12 s").
    Notice {
        message: String,
    },
    Finished {
        stage: String,
    },
    /// Running judge totals of the current run.
    Totals {
        calls: u64,
        cache_hits: u64,
        failures: u64,
        cost_usd: f64,
    },
}

pub trait ProgressSink: Send + Sync {
    fn report(&self, event: Progress);
}

/// Discards everything (quiet mode).
pub struct NoProgress;

impl ProgressSink for NoProgress {
    fn report(&self, _event: Progress) {}
}

/// Keeps every event; for tests.
#[derive(Default)]
pub struct RecordedProgress(pub Mutex<Vec<Progress>>);

impl ProgressSink for RecordedProgress {
    fn report(&self, event: Progress) {
        self.0.lock().unwrap().push(event);
    }
}

/// A per-run cancellation flag, cheap to clone and check between items.
#[derive(Clone, Default, Debug)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}
