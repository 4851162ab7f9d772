//! The use cases, called as the shells call them, against a temporary home and (where a
//! language-model judge is needed) the judge simulator on 127.0.0.1. One binary, one
//! module per capability; each test pins a policy both shells now share.

mod advisor;
mod datasets;
mod judges;
mod reports;
mod runs;
mod trust;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ragnosis_api::jobs::{JobEvent, JobSink};
use ragnosis_api::{Ctx, Error, ErrorCode, MemoryStore};

/// A home of its own with keys in memory; the folder lives as long as the value.
pub struct Home {
    pub dir: tempfile::TempDir,
    pub ctx: Ctx,
}

pub fn home() -> Home {
    let dir = tempfile::tempdir().unwrap();
    let ctx = Ctx::with_secrets(Some(dir.path()), Arc::new(MemoryStore::default()));
    Home { dir, ctx }
}

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The RAGVUE example: eight items with questions, answers and contexts.
pub fn ragvue_example() -> PathBuf {
    repo().join("assets/examples/ragvue/agentic.jsonl")
}

/// The RAGVUE example imported; its dataset id.
pub fn datasets_example(h: &Home) -> i64 {
    let request = ragnosis_api::datasets::ImportRequest::new(ragvue_example());
    ragnosis_api::datasets::import(&h.ctx, &request, &ragnosis_api::NoProgress)
        .unwrap()
        .dataset
        .id
}

/// The error's code and message, for assertions on both.
pub fn refusal<T: std::fmt::Debug>(result: Result<T, Error>) -> (ErrorCode, String) {
    let e = result.expect_err("refused");
    (e.code(), e.to_string())
}

/// Every event a job sent, in order.
#[derive(Default)]
pub struct Events(pub Mutex<Vec<JobEvent>>);

impl JobSink for Events {
    fn send(&self, event: JobEvent) {
        self.0.lock().unwrap().push(event);
    }
}

impl Events {
    /// Waits (two minutes at most) for the job's `ended` and returns its status.
    pub fn ended(&self) -> String {
        let start = std::time::Instant::now();
        loop {
            let events = self.0.lock().unwrap().clone();
            if let Some(JobEvent::Ended(ragnosis_api::jobs::JobEnd::Ended { status, .. })) =
                events.last()
            {
                return status.clone();
            }
            assert!(
                start.elapsed().as_secs() < 120,
                "the job did not end: {events:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}
