//! The scout: a `Judge` that answers from the cache and holds back every other task,
//! noting it. An item evaluated with it (the run's own engine, polled once; the judge
//! check's cases likewise) stops at the first task whose answer is not known yet, so what the scout noted is exactly what can
//! be asked now: every task whose inputs are all known — phase-2 tasks (coverage and the
//! answer review need the aspects, RAGChecker's labels need the claims) only once the
//! phase-1 verdicts they depend on are in the cache. Running the engine instead of
//! copying its plan keeps batch requests identical to live ones.
//!
//! Owns: noting the askable tasks of what is polled with it. Must not: call a judge, write
//! anything, or evaluate for real (the scout's results are thrown away).

use std::collections::HashSet;
use std::future::Future;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

use crate::judge::batch::key_prefix;
use crate::judge::cache::JudgeCache;
use crate::judge::prompt::{prompt_version, render, Message};
use crate::judge::{CallContext, Judge, JudgeError, JudgeIdentity, Judgement, Task};

/// A task that can be asked now: its cache key (the request's `custom_id`), the task and
/// its rendered messages.
pub(crate) struct Found {
    pub key: String,
    pub task: Task,
    pub messages: Vec<Message>,
}

pub(crate) struct Scout<'a> {
    identity: JudgeIdentity,
    cache: &'a JudgeCache,
    /// Key prefixes not to note: requests already in a waiting batch, or that a batch did
    /// not answer (the live pass asks those).
    held: &'a HashSet<u64>,
    /// Keys noted in this pass, so a task shared by several items is asked once.
    seen: Mutex<HashSet<String>>,
    found: Mutex<Vec<Found>>,
}

impl<'a> Scout<'a> {
    pub(crate) fn new(
        identity: &JudgeIdentity,
        cache: &'a JudgeCache,
        held: &'a HashSet<u64>,
    ) -> Scout<'a> {
        Scout {
            identity: identity.clone(),
            cache,
            held,
            seen: Mutex::default(),
            found: Mutex::default(),
        }
    }

    /// The tasks noted since the last call, each once in this pass.
    pub(crate) fn take_found(&self) -> Vec<Found> {
        std::mem::take(&mut *self.found.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

#[async_trait::async_trait]
impl Judge for Scout<'_> {
    fn identity(&self) -> &JudgeIdentity {
        &self.identity
    }

    async fn judge(&self, task: &Task, _ctx: &CallContext) -> Result<Judgement, JudgeError> {
        let version = prompt_version(task.kind());
        let messages = render(task);
        let key = JudgeCache::key(&self.identity, version, &messages);
        if let Ok(Some(hit)) = self.cache.get(&key, task.kind()) {
            return Ok(Judgement {
                verdict: hit.verdict,
                usage: hit.usage,
                cost_usd: 0.0,
                cached: true,
                latency_ms: 0,
                prompt_version: version.to_string(),
                shared_call: false,
            });
        }
        let new = !self.held.contains(&key_prefix(&key))
            && self
                .seen
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(key.clone());
        if new {
            self.found
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(Found {
                    key,
                    task: task.clone(),
                    messages,
                });
        }
        // Not known yet: whatever needs this answer waits, and the scout moves on.
        std::future::pending().await
    }
}

/// Polls a future once with a waker that does nothing: what can complete at once does.
pub(crate) fn poll_once<F: Future>(future: F) -> Poll<F::Output> {
    let mut future = std::pin::pin!(future);
    future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
}
