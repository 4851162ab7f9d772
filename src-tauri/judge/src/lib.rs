//! The judge layer: the only place Ragnosis asks a model for a judgement, and the only
//! crate that does network I/O. It depends on the shared vocabulary (`ragnosis-types`)
//! and never on the core: which profile to open, its key and the database its cache
//! lives in are handed to it (`ragnosis_core::judge::open`).
//!
//! Owns: the `Judge` trait and its protocol (`task`), the offline judge, providers
//! (OpenAI-compatible, Azure OpenAI, Anthropic) and their batch services (`batch`),
//! prompt rendering, tolerant parsing and one repair attempt, the cache, retries with
//! backoff, rate limits, token and cost accounting. Metrics see only `Task` → `Verdict`;
//! they never see HTTP.

pub mod accounting;
pub mod batch;
pub mod cache;
pub mod cascade;
pub mod connect;
pub mod embeddings;
pub mod error;
pub mod limiter;
pub mod llm;
pub mod local;
pub mod offline;
pub mod parse;
pub mod plan;
pub mod prompt;
pub mod provider;
pub mod retry;
pub mod semantic;
pub mod task;
pub mod validate;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use ragnosis_types::progress::{CancelToken, NoProgress, ProgressSink};

pub use error::{JudgeError, Usage};
pub use ragnosis_types::judge_profile::ProviderKind;
pub use task::{Task, TaskKind, Verdict};

/// What identifies a judge's verdicts: results and cache entries are keyed by it, so a
/// different model or temperature never reuses another's verdicts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeIdentity {
    /// The profile name ("offline" for the built-in judge).
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    pub model: String,
    pub temperature: f64,
}

/// The identity a profile's verdicts are stored under.
pub fn identity_of(profile: &ragnosis_types::judge_profile::JudgeProfile) -> JudgeIdentity {
    if profile.kind == ProviderKind::Offline {
        return JudgeIdentity::offline();
    }
    JudgeIdentity {
        name: profile.name.clone(),
        kind: profile.kind,
        base_url: profile.base_url.trim().to_string(),
        model: profile.model.trim().to_string(),
        temperature: profile.temperature,
    }
}

impl JudgeIdentity {
    pub fn offline() -> JudgeIdentity {
        JudgeIdentity {
            name: "offline".into(),
            kind: ProviderKind::Offline,
            base_url: String::new(),
            model: offline::MODEL.into(),
            temperature: 0.0,
        }
    }

    /// The `judge_config` string stored with each result: `offline` or `name:model@T`.
    pub fn config_key(&self) -> String {
        match self.kind {
            ProviderKind::Offline => "offline".into(),
            _ => format!("{}:{}@{}", self.name, self.model, self.temperature),
        }
    }

    pub fn is_offline(&self) -> bool {
        self.kind == ProviderKind::Offline
    }
}

/// A verdict and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    pub verdict: Verdict,
    pub usage: Usage,
    pub cost_usd: f64,
    pub cached: bool,
    pub latency_ms: u64,
    pub prompt_version: String,
    /// Answered by the same call as the judgement before it (`Judge::judge_together`):
    /// that one carries the call's tokens and cost, this one none.
    pub shared_call: bool,
}

/// Per-call context: how to report waits and retries, how to stop, whether to use the
/// cache.
#[derive(Clone)]
pub struct CallContext {
    pub progress: Arc<dyn ProgressSink>,
    pub cancel: CancelToken,
    pub use_cache: bool,
}

impl Default for CallContext {
    fn default() -> Self {
        CallContext {
            progress: Arc::new(NoProgress),
            cancel: CancelToken::new(),
            use_cache: true,
        }
    }
}

/// Something that answers judge tasks. Implementations must be deterministic for the
/// same identity and task when temperature is 0, and must never block forever: every
/// network call has a timeout and honours `CallContext::cancel`.
#[async_trait::async_trait]
pub trait Judge: Send + Sync {
    fn identity(&self) -> &JudgeIdentity;
    /// How many calls this judge takes at once; the run keeps about twice as many items
    /// in flight so the judge is never idle.
    fn concurrency(&self) -> usize {
        4
    }
    async fn judge(&self, task: &Task, ctx: &CallContext) -> Result<Judgement, JudgeError>;
    /// Judges tasks about one item that need no other verdict, each answer its own, in
    /// the order asked. A model answers them in one call (`llm`); every other judge asks
    /// them one by one, concurrently.
    async fn judge_together(
        &self,
        tasks: &[Task],
        ctx: &CallContext,
    ) -> Vec<Result<Judgement, JudgeError>> {
        join_all(tasks.iter().map(|t| self.judge(t, ctx)).collect()).await
    }
    /// The same judge through its provider's batch service, for runs in batch mode; None
    /// for judges without one (the offline judge, a cascade), which such runs ask live.
    fn batch(&self) -> Option<&dyn batch::BatchJudge> {
        None
    }
    /// Whether this judge decides a claim against all the passages of a `ClaimLabels`
    /// task together (the offline judge's learned decision reads them as one body of
    /// evidence) rather than against each passage on its own, as the prompt asks a model
    /// to. Such a judge must not find the ground truth among the chunks: a claim the
    /// reference states would then count as supported by the retrieved chunks too.
    fn weighs_passages_together(&self) -> bool {
        false
    }
}

/// Runs `futures` concurrently and returns their outputs in order: `join!` for a list
/// whose length is known only at run time.
pub async fn join_all<F: std::future::Future>(futures: Vec<F>) -> Vec<F::Output> {
    let mut futures: Vec<std::pin::Pin<Box<F>>> = futures.into_iter().map(Box::pin).collect();
    let mut outputs: Vec<Option<F::Output>> = futures.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (future, output) in futures.iter_mut().zip(outputs.iter_mut()) {
            if output.is_none() {
                match future.as_mut().poll(cx) {
                    std::task::Poll::Ready(value) => *output = Some(value),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs
        .into_iter()
        .map(|o| o.expect("every future finished"))
        .collect()
}
