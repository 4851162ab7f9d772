//! What every connection of one simulator shares (its configuration, fault rules,
//! statistics and batches), and the replies every route builds.
//!
//! Owns: `Shared` and the reply helpers. Must not: route (`server`) or answer (`chat`).

use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use serde_json::{json, Value};

use crate::batch_state::Batches;
use crate::faults::FaultRules;
use crate::stats::Stats;
use crate::SimConfig;

/// State shared by every connection.
pub struct Shared {
    pub config: SimConfig,
    pub faults: Mutex<FaultRules>,
    pub stats: Mutex<Stats>,
    /// Uploaded files and batches.
    pub batches: Mutex<Batches>,
    pub(crate) in_flight: AtomicU64,
}

impl Shared {
    pub fn new(config: SimConfig) -> Shared {
        let faults = Mutex::new(config.faults.clone());
        Shared {
            config,
            faults,
            stats: Mutex::new(Stats::default()),
            batches: Mutex::new(Batches::default()),
            in_flight: AtomicU64::new(0),
        }
    }

    pub(crate) fn stats(&self) -> std::sync::MutexGuard<'_, Stats> {
        self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }
}

pub(crate) type Reply = Response<Full<Bytes>>;

pub(crate) fn ok_json(v: &Value) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(v.to_string())));
    reply.headers_mut().insert(
        "content-type",
        "application/json".parse().expect("static header"),
    );
    reply
}

pub(crate) fn error(status: StatusCode, message: &str) -> Reply {
    let mut reply = ok_json(&json!({"error": {"message": message, "type": "simulator"}}));
    *reply.status_mut() = status;
    reply
}
