//! What a simulator keeps of the batch services: uploaded files, batches, each request's
//! outcome, and the counts of an ended batch.
//!
//! Owns: that state. Must not: serve routes (`batch`) or write wire shapes (`batch_wire`).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::answer::Dialect;

/// How a batch's requests ended (or stand, while it runs).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Counts {
    pub total: usize,
    pub succeeded: usize,
    pub errored: usize,
    pub expired: usize,
    pub cancelled: usize,
}

/// Every uploaded file and batch of one simulator.
#[derive(Default)]
pub struct Batches {
    pub(crate) files: HashMap<String, StoredFile>,
    pub(crate) batches: HashMap<String, Batch>,
    next: u64,
    /// Every custom_id a batch carried, to count requests sent twice.
    pub(crate) seen: HashSet<String>,
}

pub(crate) struct StoredFile {
    pub filename: String,
    pub purpose: String,
    pub bytes: Vec<u8>,
    pub created_at: i64,
}

/// What became of one request of a batch.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Outcome {
    /// The chat code's reply: its HTTP status and body (a string when it was not JSON).
    Replied { status: u16, body: Value },
    /// Failed by `BatchRules::fail_first`.
    Failed,
    /// Never processed (`BatchRules::expire_last`).
    Expired,
    /// The batch was cancelled before it ended.
    Cancelled,
}

pub(crate) struct Batch {
    pub dialect: Dialect,
    /// OpenAI: the request file and the endpoint it names.
    pub input_file_id: Option<String>,
    pub endpoint: String,
    pub custom_ids: Vec<String>,
    /// One per request, in order; None until answered.
    pub outcomes: Vec<Option<Outcome>>,
    /// Why the batch failed validation, if it did.
    pub invalid: Option<String>,
    pub omit_expired: bool,
    pub polls: u32,
    pub cancel_requested: bool,
    pub created_at: i64,
    pub ended: Option<Ended>,
}

/// A batch that ended, with where its results are.
#[derive(Debug, Clone)]
pub(crate) struct Ended {
    /// OpenAI: completed, expired, cancelled or failed; Anthropic: ended.
    pub status: &'static str,
    pub at: i64,
    pub output_file_id: Option<String>,
    pub error_file_id: Option<String>,
    pub counts: Counts,
}

impl Batch {
    pub(crate) fn answered(&self) -> usize {
        self.outcomes.iter().filter(|o| o.is_some()).count()
    }
}

impl Batches {
    pub(crate) fn id(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{:06}", self.next)
    }

    pub(crate) fn store_file(&mut self, filename: &str, purpose: &str, bytes: Vec<u8>) -> String {
        let id = self.id("file-sim");
        self.files.insert(
            id.clone(),
            StoredFile {
                filename: filename.into(),
                purpose: purpose.into(),
                bytes,
                created_at: now(),
            },
        );
        id
    }
}

pub(crate) fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// The JSON error body a chat reply carried, as one sentence.
pub(crate) fn reply_error(body: &Value) -> String {
    body.pointer("/error/message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| match body {
            Value::String(s) if s.is_empty() => "an empty reply".into(),
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
}
